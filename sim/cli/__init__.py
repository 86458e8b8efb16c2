"""The `sim` command line. sim.cli.application holds the app and registers every group
(one module each: play, runs, analysis, show, tune, configs, rules, strategies);
sim.cli.common what commands share. `app` and `main` load on first use, so importing a
command module does not import every other."""

from __future__ import annotations

import importlib


def main() -> None:
    """The `sim` command. The application loads only when called: a run's worker processes
    import the `sim` script again, and would otherwise load the whole command line."""
    importlib.import_module("sim.cli.application").main()


def __getattr__(name: str):
    """sim.cli.app, from sim.cli.application on first use."""
    if name != "app":
        raise AttributeError(name)
    return importlib.import_module("sim.cli.application").app
