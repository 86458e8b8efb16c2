"""`sim league` and `sim skill`: a pool's round robin with ratings and a dominance verdict,
and a config's balance at every skill level. Both play through the runner (so they resume
and can use Dask) into a run folder, or read one a `sim run` wrote."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import (
    Backend,
    Csv,
    DecisionTimeout,
    Json,
    Margin,
    Overwrite,
    Quiet,
    Scheduler,
    Seed,
    Workers,
    check_backend,
    checked_seed,
    fail,
    one_format,
    usage,
)

Run = Annotated[
    Path | None, typer.Argument(help="A run folder holding the cells, instead of playing")
]
Configs = Annotated[
    list[str] | None,
    typer.Option("--config", metavar="NAME", help="Config (repeatable) \\[default: base]"),
]
Pairs = Annotated[
    int, typer.Option(help="Seat-swapped pairs (two games on one deal) per cell", min=1)
]
Out = Annotated[Path | None, typer.Option(help="Run folder \\[default: runs/COMMAND-RUNID]")]
MaxPairs = Annotated[
    int | None,
    typer.Option(help="With --precision: the most pairs any cell plays \\[default: 50000]"),
]


def _precision_option(what: str):
    """--precision PTS, its help naming what must reach ±PTS."""
    return typer.Option(
        metavar="PTS",
        help=f"Play in rounds until {what} is at most ±PTS points (an anytime interval, so "
        "stopping keeps its 95%); --pairs is the first round",
    )


def league(
    run: Run = None,
    config: Configs = None,
    players: Annotated[
        str | None, typer.Option(metavar="A,B,C", help="The pool, two or more strategies")
    ] = None,
    pairs: Pairs = 1000,
    precision: Annotated[float | None, _precision_option("every pairing's score interval")] = None,
    max_pairs: MaxPairs = None,
    seed: Seed = 0,
    out: Out = None,
    workers: Workers = None,
    backend: Backend = "local",
    scheduler: Scheduler = None,
    overwrite: Overwrite = False,
    quiet: Quiet = False,
    decision_timeout: DecisionTimeout = 10.0,
    as_json: Json = False,
    csv: Csv = False,
) -> None:
    """A round robin on seat-swapped pairs: crosstable, Elo, and dominance or a cycle.

    Elo comes from one batch fit with a first-seat term, the first player anchored at 0.
    The verdict comes from the Nash equilibrium of the pair scores.
    Rerun the same command to continue an interrupted league.
    """
    from reports import league as lg
    from sim.cli import rounds

    one_format(as_json=as_json, csv=csv)
    target = _target(precision, max_pairs, pairs, run)
    pool = None
    if run is None:
        pool = _pool(players, "--players")
        matchups = [f"{a},{b}" for i, a in enumerate(pool) for b in pool[i + 1 :]]
        options = _options(workers, backend, scheduler, overwrite)
        by_config, where = _play_any(
            "league", config, matchups, rounds.pairings, target, pairs, seed, out, options,
            quiet, decision_timeout,
        )  # fmt: skip
    else:
        _only_run(players, config, out)
        by_config, target, where = _read_run(run)
    plan = None if target is None else target.plan
    results = []
    for name, cells in by_config.items():
        names = pool or _players_of(cells)
        if len(names) < 2:
            fail(f"{where}: config {name} holds fewer than two strategies")
        try:
            results.append(lg.league(name, names, cells, plan))
        except ValueError as exc:
            fail(f"{where}: {exc}")
    if as_json or csv:
        extra = {} if target is None else {"precision": target.to_json() | {"plan": plan}}
        _echo("league", [lg.to_json(g) for g in results], "ratings" if csv else None, extra)
        return
    from reports import present

    console = present.console()
    for g in results:
        console.print(lg.crosstable(g))
        if g.fit is not None:
            console.print(lg.rating_table(g))
        _say(lg.lines(g))


def skill(
    run: Run = None,
    config: Configs = None,
    players: Annotated[
        str | None,
        typer.Option(
            metavar="A,B,C",
            help="The ladder, weakest first \\[default: the built-in players random, greedy, "
            "heuristic, mc, ismcts]",
        ),
    ] = None,
    pairs: Pairs = 1000,
    precision: Annotated[
        float | None, _precision_option("every level's first-seat interval")
    ] = None,
    max_pairs: MaxPairs = None,
    seed: Seed = 0,
    out: Out = None,
    margin: Margin = 1.0,
    workers: Workers = None,
    backend: Backend = "local",
    scheduler: Scheduler = None,
    overwrite: Overwrite = False,
    quiet: Quiet = False,
    decision_timeout: DecisionTimeout = 10.0,
    as_json: Json = False,
    csv: Csv = False,
) -> None:
    """Balance at every skill level: the first seat's advantage from weakest to strongest.

    Per level: self-play's first-seat advantage, with the board's verdict within --margin.
    Per rung (a level against the one below it): the stronger's score.
    Then Elo per level, the Elo span, the rungs that hold and the luck share.
    Rerun the same command to continue an interrupted profile.
    """
    from reports import skill as sk
    from sim.cli import rounds
    from sim.cli.runs import checked_margin

    checked_margin(margin)
    one_format(as_json=as_json, csv=csv)
    target = _target(precision, max_pairs, pairs, run)
    ladder = None
    if run is None:
        ladder = _pool(players or ",".join(sk.LADDER), "--players")
        options = _options(workers, backend, scheduler, overwrite)
        by_config, where = _play_any(
            "skill", config, sk.ladder_cells(ladder), rounds.self_play(ladder), target, pairs,
            seed, out, options, quiet, decision_timeout,
        )  # fmt: skip
    else:
        _only_run(players, config, out)
        by_config, target, where = _read_run(run)
    plan = None if target is None else target.plan
    arcs = sk.cell_arcs(_folders(Path(where)))
    results = []
    for name, cells in by_config.items():
        levels = ladder or sk.ladder_of(list(cells))
        if not levels:
            fail(f"{where}: config {name} holds no self-play cell (A,A)")
        mine = {m: a for (c, m), a in arcs.items() if c == name}
        try:
            results.append(sk.profile(name, levels, cells, margin, plan, mine))
        except ValueError as exc:
            fail(f"{where}: {exc}")
    if as_json or csv:
        extra = {} if target is None else {"precision": target.to_json() | {"plan": plan}}
        _echo("skill", [sk.to_json(p) for p in results], "levels" if csv else None, extra)
        return
    from reports import present

    console = present.console()
    for p in results:
        console.print(sk.level_table(p, margin))
        _say(sk.lines(p))
        arc_table = sk.arc_table(p)
        if arc_table is not None:
            console.print(arc_table)


def _target(precision, max_pairs, pairs: int, run):
    """--precision and --max-pairs checked into a rounds.Precision (None without them)."""
    from sim.cli.rounds import Precision

    if precision is None:
        if max_pairs is not None:
            usage("--max-pairs caps --precision's rounds; give --precision PTS too")
        return None
    if run is not None:
        usage("--precision plays; RUN reads a run as it is (drop one)")
    if not (math.isfinite(precision) and 0 < precision < 50):
        usage(f"--precision must be between 0 and 50 points, got {precision:g}")
    cap = 50_000 if max_pairs is None else max_pairs
    if cap < max(pairs, 2):
        usage(f"--max-pairs {cap:,} is below --pairs {pairs:,}, the first round")
    return Precision(precision, pairs, cap)


def _read_run(run: Path):
    """A run folder's cells, or a folder of --precision rounds summed, with its target."""
    from sim.cli import rounds

    try:
        target = rounds.read_target(run)
    except ValueError as exc:
        fail(str(exc))
    if target is None:
        folder = _open(run)
        return _configs(folder, _tables(folder)), None, folder.path
    return _read_rounds(run), target, run


# --- shared ----------------------------------------------------------------------------------


def _pool(players: str | None, option: str) -> list[str]:
    """Two or more different strategies from 'a,b,c', each as the run stores it."""
    from sim.players.specs import PlayerError, parse_player, split_top_level

    if not players:
        usage(f"{option} A,B,...: name two or more strategies (sim strategies list)")
    try:
        pool = [parse_player(p.strip()).text for p in split_top_level(players)]
    except PlayerError as exc:
        usage(str(exc))
    for p in pool:
        if p.startswith("cpu"):
            usage(f"{option}: {p} plays the second seat only; it cannot swap seats")
    if len(set(pool)) != len(pool):
        twice = next(p for p in pool if pool.count(p) > 1)
        usage(f"{option}: {twice} is given twice")
    if len(pool) < 2:
        usage(f"{option} {players}: name two or more strategies")
    return pool


def _only_run(players, config, out) -> None:
    """RUN reads what a run holds: options that say what to play do not apply."""
    given = [o for o, v in (("--players", players), ("--config", config), ("--out", out)) if v]
    if given:
        usage(f"{', '.join(given)}: RUN reads the run's own cells; give one or the other")


def _options(workers, backend: str, scheduler, overwrite: bool):
    """How the runner plays (never what): checked as `sim run` checks it."""
    from sim.runner.run import RunOptions

    check_backend(backend, scheduler)
    return RunOptions(workers, backend, scheduler, overwrite)


def _play(command, config, matchups, pairs, seed, out, options, quiet, decision_timeout):
    """Plan the cells (pairs seat-swapped pairs each, common seeds), say what it will cost,
    play them through the runner and open the folder."""
    plan = _plan(config, matchups, pairs, seed)
    folder = out or Path("runs") / f"{command}-{plan.run_id}"
    return _play_plan(plan, folder, options, quiet, decision_timeout)


def _plan(config, matchups: list[str], pairs: int, seed: int):
    """The runner's plan for the cells, or one usage line."""
    from sim.runner.plan import PlanError, UsageError, make_plan

    checked_seed(seed)
    try:
        return make_plan(configs=config or ["base"], players=matchups, games=2 * pairs, seed=seed)
    except UsageError as exc:
        usage(str(exc))
    except PlanError as exc:
        fail(str(exc))


def _play_plan(plan, folder: Path, options, quiet: bool, decision_timeout: float, head=""):
    """Say what the plan costs (after head), play it through the runner, open the folder."""
    from sim.cli.play import play_plan

    if not quiet:
        typer.echo(head + _cost(plan, folder, options, decision_timeout), err=True)
    play_plan(plan, folder, options, quiet, decision_timeout)
    return _open(folder)


def _play_any(command, config, cells, quantity, target, pairs, seed, out, options, quiet,
              timeout):  # fmt: skip
    """The cells played once (pairs pairs each), or in rounds to the target; each config's
    pair tables by match-up, and where they are."""
    if target is None:
        folder = _play(command, config, cells, pairs, seed, out, options, quiet, timeout)
        return _configs(folder, _tables(folder)), folder.path
    return _play_rounds(command, config, cells, quantity, target, seed, out, options, quiet,
                        timeout)  # fmt: skip


def _play_rounds(command, config, cells, quantity, target, seed, out, options, quiet, timeout):
    """Play the cells in rounds (sim/cli/rounds.py) until every cell that counts
    (quantity) is within ±P or at the cap; each config's summed pair tables by match-up,
    and the folder."""
    from sim.cli import rounds

    plan = _plan(config, cells, target.first, seed)
    name = f"{command}-{plan.run_id}-precision-{target.points:g}-max-{target.cap}"
    out = out or Path("runs") / name
    try:
        rounds.write_target(out, target)
    except (OSError, ValueError) as exc:
        fail(str(exc))
    head = f"round 1 towards ±{target.points:g} pts: "
    first = _play_plan(plan, out / "round-1", options, quiet, timeout, head)
    totals, played, k = _tables(first), plan.games // 2, 1
    while True:
        by_config = _configs(first, totals)
        wide = rounds.open_cells(by_config, quantity, target)
        if not wide or played >= target.cap:
            break
        k += 1
        more = rounds.next_pairs(wide, played, target)
        matchups = list(dict.fromkeys(m for _, m in wide))
        plan = _plan(config, matchups, more, rounds.round_seed(seed, k))
        head = f"round {k}: {rounds.open_text(wide)} now, ±{target.points:g} wanted: "
        folder = _play_plan(plan, out / f"round-{k}", options, quiet, timeout, head)
        totals, played = rounds.added(totals, _tables(folder)), played + more
    if wide:  # a warning, so even when quiet
        typer.echo(
            f"warning: stopped at --max-pairs {target.cap:,}: {rounds.open_text(wide)}, "
            f"still wider than ±{target.points:g}",
            err=True,
        )
    return by_config, out


def _folders(where: Path) -> list:
    """The run folders a profile read: where's rounds (a `--precision` profile), or where."""
    from sim.cli import rounds

    return [_open(path) for path in rounds.round_folders(where) or [where]]


def _read_rounds(run: Path):
    """A folder of rounds read back: each config's pair tables summed over its rounds."""
    from sim.cli import rounds

    folders = rounds.round_folders(run)
    if not folders:
        fail(f"{run}: holds {rounds.ROUNDS_FILE} but no round-1 folder")
    opened = [_open(path) for path in folders]
    totals: dict = {}
    for folder in opened:
        totals = rounds.added(totals, _tables(folder))
    return _configs(opened[0], totals)


def _cost(plan, folder: Path, options, decision_timeout: float) -> str:
    """How many games, and an estimate of the time from each match-up's measured speed."""
    from sim.cli.estimate import estimate
    from sim.play.stepped import EngineError, StrategyError
    from sim.players.specs import PlayerError

    cells = len(plan.configs) * len(plan.matchups)
    head = f"playing {plan.total_games:,} games ({cells} cells of {plan.games // 2:,} pairs)"
    try:
        seconds, speed = estimate(plan, options.workers, decision_timeout)
    except (PlayerError, StrategyError, EngineError) as exc:  # the run will say it again
        return f"{head} into {folder}; no estimate ({exc})"
    return (
        f"{head} into {folder}: an estimated {_duration(seconds)} of play, start-up and "
        f"writing on top (measured just now: {speed})"
    )


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.1f} h"


def _open(path: Path):
    from sim.store.folder import RunFolderError, open_run

    try:
        return open_run(path)
    except RunFolderError as exc:
        fail(str(exc))


def _tables(folder):
    from reports.league import pair_tables
    from sim.store.folder import RunFolderError

    for warning in folder.warnings():
        typer.echo(f"warning: {warning}", err=True)
    try:
        return pair_tables(folder)
    except RunFolderError as exc:
        fail(str(exc))


def _configs(folder, tables: dict) -> dict[str, dict]:
    """Each config's pair tables by match-up, in the order the run holds them."""
    out: dict[str, dict] = {}
    for config, matchup in folder.cells:
        if (config, matchup) in tables:
            out.setdefault(config, {})[matchup] = tables[(config, matchup)]
    return out


def _players_of(cells: dict) -> list[str]:
    """The strategies of a config's cells, in the order first seen."""
    from reports.league import cell_players

    return list(dict.fromkeys(p for m in cells for p in cell_players(m)))


def _say(lines: list[str]) -> None:
    """Lines of prose, wrapped to the terminal, a continuation indented."""
    import textwrap

    from reports.present import width

    for line in lines:
        typer.echo(textwrap.fill(line, width(), subsequent_indent="  ", break_long_words=False))


def _echo(command: str, configs: list[dict], table: str | None, extra=None) -> None:
    """The command's JSON document, or with table (--csv) that table's rows of every
    config as CSV."""
    if table is not None:
        from reports.csv_out import to_csv

        rows = [{"config": c["config"], **row} for c in configs for row in c[table]]
        typer.echo(to_csv(rows), nl=False)
        return
    import json

    from reports.shapes import head

    typer.echo(json.dumps({**head(command), **(extra or {}), "configs": configs}, indent=2))
