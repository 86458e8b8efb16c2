"""The `sim` command line: the app and its commands live in sim.cli.commands, what commands
share in sim.cli.common. Names are loaded on first use, so importing sim.cli.common (as the
report commands in reports/ do) never imports the app, which imports them: no cycle."""

from __future__ import annotations

import importlib


def __getattr__(name: str):
    """sim.cli.app, sim.cli.main, sim.cli.fail, ...: from sim.cli.commands, on first use."""
    if name.startswith("__"):
        raise AttributeError(name)
    commands = importlib.import_module("sim.cli.commands")
    return getattr(commands, name)
