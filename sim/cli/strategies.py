"""`sim strategies list`, `sim strategies check SPEC` (who can sit in a seat) and
`sim strategies train` (sim/cli/train.py: weights trained against a pool)."""

from __future__ import annotations

from typing import Annotated

import typer

from sim.cli import train
from sim.cli.common import Config, DecisionTimeout, fail, load_config

app = typer.Typer(help="The strategies that can sit in a seat.", no_args_is_help=True)


@app.command("list")
def strategies_list() -> None:
    """Each registered strategy with its parameters and a one-line description."""
    from rich.table import Table

    from reports import present
    from sim.players.plugins import describe_entry_points
    from sim.players.specs import BUILT_IN
    from sim.players.weights import NAMED, description, persona_names, weights_path

    table = Table("name", "parameters", "description")
    for name, spec in BUILT_IN.items():
        shown = ", ".join(
            f"{key}={p.low}..{p.high}" + ("" if p.default is None else f" (default {p.default})")
            for key, p in spec.params.items()
        )
        table.add_row(name, shown or "-", spec.description)
    for name in NAMED:
        table.add_row(name, "-", description(weights_path(name)))
    for name in persona_names():
        text = description(weights_path(name)).split(": ", 1)[-1]
        table.add_row(name, "-", f"{text} (persona: heuristic weights)")
    for name, params, text in describe_entry_points():
        table.add_row(name, params or "-", f"{text} (Python, entry point)")
    present.fit(table)
    present.console().print(table)
    typer.echo(
        "Your own: --players path/to/file.py:ClassName or path/to/weights.toml "
        "(docs/strategies.md)."
    )


@app.command("check")
def strategies_check(
    spec: Annotated[str, typer.Argument(help="A strategy: built-in, entry point or file.py:Class")],
    config: Config = "base",
    games: Annotated[int, typer.Option(help="Games per check", min=1, max=100_000)] = 20,
    decision_timeout: DecisionTimeout = 10.0,
) -> None:
    """Run the conformance suite on one strategy; exit 1 if any check fails.

    It checks legal choices, untouched inputs, determinism, blindness and pickling.
    """
    from reports import present
    from sim.play.conformance import run_checks
    from sim.play.stepped import EngineError, StrategyError
    from sim.players.guard import timeout
    from sim.players.specs import PlayerError, parse_player

    try:
        with timeout(decision_timeout):  # the import of a strategy file is bounded too
            results = run_checks(load_config(config), parse_player(spec), games)
    except (PlayerError, StrategyError, EngineError) as exc:
        fail(str(exc))
    console = present.console()
    for name, problems in results.items():
        verdict = "[green]pass[/]" if not problems else "[red]FAIL[/]"
        console.print(f"{verdict}  {name}")
        for problem in problems[:3]:
            console.print(f"      {problem}", highlight=False)
    if any(results.values()):
        raise typer.Exit(1)


app.command("train")(train.train)
