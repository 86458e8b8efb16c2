"""`sim run`, `sim verify`, `sim bench` and `sim solo`: the commands that play games."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.common import (
    IN_MEMORY,
    Backend,
    Config,
    DecisionTimeout,
    Json,
    Overwrite,
    Quiet,
    Scheduler,
    Seed,
    Set,
    Workers,
    check_backend,
    checked_seed,
    fail,
    load_config,
    usage,
)


def bench(
    config: Annotated[
        list[str] | None,
        typer.Option(metavar="NAME", help="Config(s) to measure \\[default: every shipped one]"),
    ] = None,
    games: Annotated[
        int, typer.Option(help="Games per config, held in memory", min=1, max=IN_MEMORY)
    ] = 200_000,
    players: Annotated[
        str, typer.Option(help="The match-up to time, A,B (any strategies)")
    ] = "random,random",
    decision_timeout: DecisionTimeout = 10.0,
    as_json: Json = False,
) -> None:
    """Games per second per core of one match-up, in one process, compile time apart."""
    from reports import present, shapes
    from sim.model.config import available
    from sim.play.bench import bench as run_bench
    from sim.play.stepped import EngineError, StrategyError
    from sim.players.guard import timeout
    from sim.players.specs import PlayerError, parse_matchup

    try:
        matchup = parse_matchup(players)
    except PlayerError as exc:
        usage(str(exc))
    names = config or [
        n for n in ("base", "base-60", "variants", "101", "large") if n in available()
    ]
    table = present.table(
        "config",
        "games",
        "seconds",
        "games/s per core",
        "compile/load s",
        "mean turns",
        "first seat wins",
        "end reasons",
        title=f"players {players}",
    )
    errors, results = 0, []
    for name in names:
        try:
            with timeout(decision_timeout):
                r = run_bench(load_config(name), games, players=matchup)
        except (PlayerError, StrategyError, EngineError) as exc:  # a Python strategy's failure
            fail(str(exc))
        ends = ", ".join(f"{k} {present.pct(v)}" for k, v in r.end_shares.items())
        table.add_row(
            name,
            f"{r.games:,}",
            f"{r.seconds:.2f}",
            f"{r.games_per_second:,.0f}",
            f"{r.warmup_seconds:.2f} {'compiled' if r.compiled else 'loaded'}",
            f"{r.mean_turns:.1f}",
            present.pct(r.first_wins),
            ends,
        )
        errors += r.errors
        results.append(r)
    if as_json:
        import json

        typer.echo(json.dumps(shapes.bench(results, players), indent=2))
    else:
        present.fit(table)
        present.console().print(table)
    if errors:
        fail(f"{errors} games stopped at an engine limit; their results are not valid")


def run(
    config: Annotated[
        list[str] | None,
        typer.Option(metavar="NAME", help="Config name or .toml (repeatable) \\[default: base]"),
    ] = None,
    players: Annotated[
        list[str] | None,
        typer.Option(
            metavar="A,B", help="Match-up FIRST,SECOND (repeatable) \\[default: random,random]"
        ),
    ] = None,
    games: Annotated[
        int | None,
        typer.Option(help="Games per config and match-up; even when swapping \\[default: 10000]"),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Master seed \\[default: 0]")] = None,
    out: Annotated[Path, typer.Option(help="Output folder")] = Path("runs/latest"),
    plan: Annotated[
        Path | None,
        typer.Option(help="A plan .toml describing the matrix; options given override it"),
    ] = None,
    overlay: Set = None,
    no_swap: Annotated[
        bool, typer.Option("--no-swap", help="Play each seed once, not twice with seats swapped")
    ] = False,
    workers: Workers = None,
    chunk_size: Annotated[
        int | None,
        typer.Option(
            help="Games per part file \\[default: 100000, or 200 with mc, ismcts or Python "
            "strategies]"
        ),
    ] = None,
    backend: Backend = "local",
    scheduler: Scheduler = None,
    overwrite: Overwrite = False,
    quiet: Quiet = False,
    decision_timeout: DecisionTimeout = 10.0,
    per_game_cards: Annotated[
        bool,
        typer.Option(
            "--per-game-cards", help="Also write the cards table, one row per game and seat"
        ),
    ] = False,
) -> None:
    """Play every config x match-up for many seeded games and write Parquet tables to --out.

    Rerun the same command after an interruption to continue where it stopped.
    """
    from sim.runner.run import RunOptions

    check_backend(backend, scheduler)
    options = RunOptions(workers, backend, scheduler, overwrite)
    the_plan = _plan(plan, config, players, games, seed, not no_swap, chunk_size, overlay)
    if per_game_cards:
        the_plan = dataclasses.replace(the_plan, per_game_cards=True)
    for c in the_plan.configs:
        for warning in c.warnings:
            typer.echo(f"warning: {warning}", err=True)
    if not quiet:
        typer.echo(_start_line(the_plan, out), err=True)
    result = play_plan(the_plan, out, options, quiet, decision_timeout)
    rate = result.played / result.seconds if result.seconds else 0
    typer.echo(
        f"{result.out}: {result.played:,} games played"
        + (f", {result.skipped:,} already done" if result.skipped else "")
        + f" in {result.seconds:.1f}s ({rate:,.0f} games/s); run {the_plan.run_id}"
    )


def play_plan(plan, out: Path, options, quiet: bool, decision_timeout: float):
    """Compile, then play the plan through the runner into out with a progress bar; a
    failure is one line (exit 1), an interruption says how to continue (exit 130). Every
    command that plays a run-folder plays it here."""
    from sim.players.guard import timeout
    from sim.runner.run import RunError

    try:
        with timeout(decision_timeout):  # the workers, started inside, inherit it
            return _run_with_progress(plan, out, options, quiet)
    except KeyboardInterrupt:
        typer.echo(
            f"interrupted; finished chunks are kept in {out}. "
            "Run the same command again to continue.",
            err=True,
        )
        raise typer.Exit(130) from None
    except RunError as exc:
        fail(str(exc))
    except Exception as exc:  # a worker's failure, already phrased for the user
        from sim.runner.dask_backend import ClusterError
        from sim.runner.local import WorkerFailed

        if isinstance(exc, WorkerFailed | ClusterError):
            fail(str(exc))
        raise


def verify(run: Annotated[Path, typer.Argument(help="A run folder written by `sim run`")]) -> None:
    """Check every part of a run folder against its manifest's sizes and checksums.

    Prints what is fine, damaged, missing or stray. Exits 0 only when every part verifies.
    """
    from sim.store import layout
    from sim.store.verify import check_folder, report_lines

    try:
        manifest = layout.read_manifest(run) if run.is_dir() else None
    except layout.ManifestError as exc:
        fail(str(exc))
    if manifest is None:
        fail(f"{run} is not a run folder (no manifest.json); make one with `sim run`")
    check = check_folder(run, manifest, full=True)
    if not check.recorded:
        fail(f"{run}/manifest.json records no checksums (an older sim): nothing can be verified")
    for line in report_lines(run, check, manifest):
        typer.echo(line)
    if not check.clean:
        raise typer.Exit(1)


def _plan(plan, config, players, games, seed, swap, chunk_size, overlay=None):
    """The run's plan from the options over the plan file's fields; a usage error exits 2,
    a file that cannot be used 1."""
    from sim.runner.plan import PlanError, UsageError, make_plan, read_plan_file

    try:
        base = read_plan_file(plan) if plan else {}
        return make_plan(
            configs=config or base.get("configs", ["base"]),
            players=players or base.get("players", ["random,random"]),
            games=games if games is not None else base.get("games", 10_000),
            seed=seed if seed is not None else base.get("seed", 0),
            swap=swap if not plan or "swap" not in base else base["swap"] and swap,
            chunk_size=chunk_size if chunk_size is not None else base.get("chunk_size"),
            overlay=tuple(overlay or ()),
        )
    except UsageError as exc:
        usage(str(exc))
    except PlanError as exc:
        fail(str(exc))


def _start_line(plan, out: Path) -> str:
    """What is about to be played, in one line, so a default is never a surprise."""
    configs = ", ".join(c.name for c in plan.configs)
    matchups = "; ".join(f"{m.first.text} vs {m.second.text}" for m in plan.matchups)
    cells = len(plan.configs) * len(plan.matchups)
    each = f" ({plan.games:,} per config and match-up)" if cells > 1 else ""
    return (
        f"playing {plan.total_games:,} games{each} of {configs}, {matchups}, "
        f"seed {plan.seed} into {out}"
    )


def _compiling(quiet: bool):
    """The runner's note before a compile: a line on stderr unless quiet."""

    def note(what: str) -> None:
        if not quiet:
            typer.echo(f"compiling {what}, first run only", err=True)

    return note


def _run_with_progress(plan, out: Path, options, quiet: bool):
    """execute, with a progress bar on stderr unless quiet."""
    from sim.runner.run import execute

    if quiet:
        return execute(plan, out, options, note=_compiling(quiet))
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]} games/s"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, transient=False) as bar:
        task = bar.add_task("games", total=plan.total_games, rate="-")
        start = {"t": None, "done": 0}

        def update(done: int, total: int) -> None:
            import time

            now = time.perf_counter()
            if start["t"] is None:
                start["t"], start["done"] = now, done
            elapsed = now - start["t"]
            rate = f"{(done - start['done']) / elapsed:,.0f}" if elapsed > 0 else "-"
            bar.update(task, completed=done, rate=rate)

        return execute(plan, out, options, progress=update, note=_compiling(quiet))


def solo(
    config: Config = "base",
    games: Annotated[
        int, typer.Option(help="Games per level and strategy, held in memory", min=1, max=IN_MEMORY)
    ] = 20_000,
    seed: Seed = 0,
    human: Annotated[
        list[str] | None,
        typer.Option(
            metavar="SPEC",
            help="Strategy as the human (repeatable) \\[default: random, greedy, heuristic]",
        ),
    ] = None,
    decision_timeout: DecisionTimeout = 10.0,
    margin: Annotated[
        float,
        typer.Option(
            help="Points either side of 50% the human's win rate may be and count as even"
        ),
    ] = 1.0,
    as_json: Json = False,
) -> None:
    """Solo mode: each CPU level (1-4) against each strategy as the human (docs/RULES.md 8).

    Shows the human's win rate with a 95% interval and a verdict within --margin.
    Also why games end, and their length.
    """
    from reports import present, shapes
    from reports.solo import humans, solo_row, verdict
    from sim.cli.runs import checked_margin
    from sim.play.stepped import EngineError, StrategyError
    from sim.players.guard import timeout
    from sim.players.specs import PlayerError, parse_player

    checked_seed(seed)
    try:
        chosen = [parse_player(h) for h in human or humans()]
    except PlayerError as exc:
        usage(str(exc))
    if any(h.name == "cpu" for h in chosen):
        usage("--human cpu: the CPU card plays the second seat, not the human's")
    checked_margin(margin)
    cfg = load_config(config)
    table = present.table(
        "level",
        "human",
        "games",
        "human wins [95% CI]",
        f"verdict (±{margin:.1f} pts)",
        "end reasons",
        "mean turns",
        title=f"One Zero One solo mode, config {cfg.name} ({cfg.hash}), seed {seed}",
    )
    rows, verdicts = [], []
    for level in (1, 2, 3, 4):
        for player in chosen:
            try:
                with timeout(decision_timeout):
                    row = solo_row(cfg, player, level, games, seed)
            except (PlayerError, StrategyError, EngineError) as exc:
                fail(str(exc))
            ends = ", ".join(f"{k} {present.pct(v)}" for k, v in row.ends.items() if v)
            v = verdict(row, margin)
            rows.append(row)
            verdicts.append(v)
            table.add_row(
                str(level),
                player.text,
                f"{row.games:,}",
                present.rate(row.rate, row.low, row.high),
                v.text(),
                ends,
                f"{row.mean_turns:.1f}",
            )
    if as_json:
        import json

        typer.echo(json.dumps(shapes.solo(rows, verdicts, cfg.name, seed, margin), indent=2))
        return
    present.fit(table)
    present.console().print(table)
    if games < 1000:
        typer.echo(f"note: {games} games per row is too few to tell levels apart reliably")
