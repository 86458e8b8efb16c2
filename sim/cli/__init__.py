"""The `sim` command line. sim.cli.application holds the app and registers every group
(one module each: play, runs, analysis, show, tune, configs, rules, strategies);
sim.cli.common what commands share. `app` and `main` load on first use, so importing a
command module does not import every other."""

from __future__ import annotations

import importlib


def __getattr__(name: str):
    """sim.cli.app and sim.cli.main, from sim.cli.application on first use."""
    if name not in ("app", "main"):
        raise AttributeError(name)
    return getattr(importlib.import_module("sim.cli.application"), name)
