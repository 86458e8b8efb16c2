"""`sim show`: one game turn by turn, from a config, seed and players or a run's game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import DecisionTimeout, Json, Set, checked_seed, fail, load_config, usage


def show(
    config: Annotated[
        str | None, typer.Option(help="Config name or .toml path \\[default: base]")
    ] = None,
    overlay: Set = None,
    seed: Annotated[int | None, typer.Option(help="Game seed, 0..2**64-1 \\[default: 0]")] = None,
    players: Annotated[
        str | None,
        typer.Option(
            help="Strategies A,B: built-ins, entry-point names or file.py:Class "
            "\\[default: random,random]"
        ),
    ] = None,
    swapped: Annotated[
        bool, typer.Option("--swapped", help="B sits first, as in the second game of a pair")
    ] = False,
    run: Annotated[
        Path | None,
        typer.Option(help="A run folder: replay its game --game N (seed and seats from the run)"),
    ] = None,
    game: Annotated[
        int | None, typer.Option(help="With --run: the game's index in its cell", min=0)
    ] = None,
    no_legend: Annotated[
        bool, typer.Option("--no-legend", help="Leave out the notation's legend")
    ] = False,
    trust_run: Annotated[
        bool,
        typer.Option(
            "--trust-run",
            help="With --run: load the Python strategies the run names without naming them",
        ),
    ] = False,
    decision_timeout: DecisionTimeout = 10.0,
    json_out: Json = False,
) -> None:
    """Play one game and print it turn by turn in position notation (docs/RULES.md 12).

    With --run RUN_DIR --game N: a run's game as it was played, seed and seats from the run.
    --config and --players choose the cell of a run with several.
    --json: every turn's mover, move and scores after it, and the result."""
    from reports.replay import ReplayError, RunGameError, game_json, print_game, print_run_game
    from sim.play.stepped import EngineError, StrategyError
    from sim.players.guard import timeout
    from sim.players.specs import PlayerError, parse_matchup

    _check_show_options(run, game, seed, swapped, trust_run)
    if run is not None and overlay:
        usage("--set: a run's game is replayed with the config the run played; leave it out")
    if seed is not None:
        checked_seed(seed)
    try:
        with timeout(decision_timeout):  # the import of a strategy file is bounded too
            named = parse_matchup(players) if players else None
    except PlayerError as exc:
        usage(str(exc))
    except (StrategyError, EngineError) as exc:
        fail(str(exc))
    try:
        with timeout(decision_timeout):
            if run is not None:
                print_run_game(run, game, config, named, not no_legend, trust_run, json_out)
            else:
                chosen = load_config(config or "base", overlay)
                seats = named or parse_matchup("random,random")
                if json_out:
                    document, _ = game_json(chosen, seed or 0, seats, swapped)
                    typer.echo(json.dumps(document, indent=2))
                else:
                    print_game(chosen, seed or 0, seats, swapped, not no_legend)
    except RunGameError as exc:
        usage(str(exc))
    except (PlayerError, StrategyError, EngineError, ReplayError) as exc:
        fail(str(exc))


def _check_show_options(run, game, seed, swapped, trust_run=False) -> None:
    """--run and --game go together, and a run's game brings its own seed and seats."""
    if (run is None) != (game is None):
        usage("--run RUN_DIR and --game N go together" if run is None else "--run needs --game N")
    if run is not None and (seed is not None or swapped):
        usage("--seed and --swapped come from the run with --run; leave them out")
    if trust_run and run is None:
        usage("--trust-run goes with --run RUN_DIR --game N")
