"""`sim configs list` and `sim configs show NAME`: the deck and rule configurations."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from sim.cli.common import load_config

app = typer.Typer(help="List and inspect deck and rule configurations.", no_args_is_help=True)


@app.command("list")
def configs_list() -> None:
    """List the configurations found in ./configs and the shipped ones."""
    from rich.console import Console
    from rich.table import Table

    from sim.model.config import available

    table = Table("name", "lines", "RUN", "cards", "description")
    for name in available():
        config = load_config(name)
        table.add_row(
            name,
            str(config.rules.lines),
            str(config.rules.run_capacity),
            str(len(config.deck)),
            config.description,
        )
    Console().print(table)


@app.command("show")
def configs_show(
    name: Annotated[str, typer.Argument(help="Config name or path to a .toml file")],
) -> None:
    """Show a configuration as resolved: rule options, deck and hash."""

    config = load_config(name)
    typer.echo(f"# {config.name} ({config.path})\n# {config.description}\n# hash {config.hash}")
    typer.echo(json.dumps(config.to_dict(), indent=2))
