"""`sim rules apply` and `sim rules check`: rule scenarios (docs/RULES.md 13)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import fail

app = typer.Typer(help="Apply and check rule scenarios (docs/RULES.md 13).", no_args_is_help=True)


@app.command("apply")
def rules_apply(scenario: Annotated[Path, typer.Argument(help="A scenario .json file")]) -> None:
    """Apply a scenario's move and print the display after it, with what the engine computes."""
    import json

    from sim.model import scenario as sc

    try:
        sc.load(scenario)
    except sc.ScenarioError as exc:
        fail(str(exc))
    outcome = sc.run(scenario)
    if outcome.facts.get("error"):
        typer.echo(f"move refused: {outcome.facts['error']}")
    else:
        typer.echo(outcome.display or "(empty display)")
        typer.echo(json.dumps(outcome.facts))
    for failure in outcome.failures:
        typer.echo(f"differs: {failure}")


@app.command("check")
def rules_check(
    paths: Annotated[list[str], typer.Argument(help="Scenario files or folders of them")],
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Name every passing file too")
    ] = False,
) -> None:
    """Run scenario files and report `N passed, N failed`; exits 1 on any failure."""
    from sim.model import scenario as sc

    try:
        files = sc.scenario_files(paths)
    except sc.ScenarioError as exc:
        fail(str(exc))
    failed = 0
    for path in files:
        try:
            outcome = sc.run(path)
        except sc.ScenarioError as exc:
            outcome = sc.Outcome(str(path), failures=[str(exc)])
        if not outcome.passed:
            failed += 1
            typer.echo(f"FAIL {path}")
            for failure in outcome.failures:
                typer.echo(f"  {failure}")
        elif verbose:
            typer.echo(f"ok   {path}")
    typer.echo(f"{len(files) - failed} passed, {failed} failed")
    if failed or not files:
        raise typer.Exit(1)
