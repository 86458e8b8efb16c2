"""The `sim` command line's app and its commands (sim.cli.common holds what commands share;
the report commands register from reports/). Heavy modules are imported inside commands to
keep --help instant."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperArgument, TyperGroup, TyperOption

from sim.cli.common import (  # noqa: F401 - sim.cli re-exports them
    FAILURE,
    IN_MEMORY,
    USAGE,
    DecisionTimeout,
    check_backend,
    checked_seed,
    fail,
    load_config,
    usage,
)


class SimGroup(TyperGroup):
    """typer's own usage errors (unknown option, bad number) as one `error:` line, exit 2,
    like sim's own option checks (usage) instead of typer's boxed report."""

    def main(self, *args, standalone_mode: bool = True, **kwargs):
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except typer.Abort:
            typer.echo("error: aborted", err=True)
            sys.exit(FAILURE)
        except click_exception() as exc:
            sys.exit(_report_click_error(exc))
        sys.exit(code if isinstance(code, int) else 0)


def click_exception() -> type[Exception]:
    """The ClickException class typer raises (typer vendors its own click)."""
    from typer import _click

    return _click.exceptions.ClickException


def _report_click_error(exc) -> int:
    """Print a click error as one line naming the --help to read; its exit code. A bare
    group (`sim`, `sim configs`) has printed its help instead: nothing to add."""
    message = " ".join(exc.format_message().split())
    if not message:
        return exc.exit_code
    context = getattr(exc, "ctx", None)
    hint = f" (see {context.command_path} --help)" if context is not None else ""
    typer.echo(f"error: {message}{hint}", err=True)
    return exc.exit_code


def _shown_type(original):
    """typer's type column without its placeholders: none for a flag, which takes no value
    (typer prints <bool>), and <str>... for a repeatable value (not <list[str]>)."""

    def shown(self, ctx) -> str | None:
        if getattr(self, "is_flag", False):
            return None
        text = original(self, ctx)
        if text and text.startswith("<list[") and text.endswith("]>"):
            return f"<{text[6:-2].lower()}>..."
        return text

    return shown


for _param in (TyperOption, TyperArgument):
    _param.display_type_rich = _shown_type(_param.display_type_rich)

app = typer.Typer(
    cls=SimGroup,
    help="Simulate and analyse the card game One Zero One (rules: docs/RULES.md).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
configs_app = typer.Typer(
    help="List and inspect deck and rule configurations.", no_args_is_help=True
)
rules_app = typer.Typer(
    help="Apply and check rule scenarios (docs/RULES.md 13).", no_args_is_help=True
)
strategies_app = typer.Typer(help="The strategies that can sit in a seat.", no_args_is_help=True)
app.add_typer(configs_app, name="configs")
app.add_typer(rules_app, name="rules")
app.add_typer(strategies_app, name="strategies")


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        from sim.provenance import source_hash

        try:
            number = version("one-zero-one-sim")
        except PackageNotFoundError:
            number = "(not installed)"
        typer.echo(f"sim {number} (source {source_hash()})")
        raise typer.Exit()


@app.callback()
def _main_options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print sim's version and exit"
        ),
    ] = False,
) -> None:
    """Simulate and analyse the card game One Zero One (rules: docs/RULES.md)."""


@configs_app.command("list")
def configs_list() -> None:
    """List the configurations found in ./configs and the shipped ones."""
    from rich.console import Console
    from rich.table import Table

    from sim.config import available

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


@configs_app.command("show")
def configs_show(
    name: Annotated[str, typer.Argument(help="Config name or path to a .toml file")],
) -> None:
    """Show a configuration as resolved: rule options, deck and hash."""
    import json

    config = load_config(name)
    typer.echo(f"# {config.name} ({config.path})\n# {config.description}\n# hash {config.hash}")
    typer.echo(json.dumps(config.to_dict(), indent=2))


@strategies_app.command("list")
def strategies_list() -> None:
    """Each registered strategy with its parameters and a one-line description."""
    from rich.table import Table

    from reports import present
    from sim.players import BUILT_IN
    from sim.plugins import describe_entry_points

    table = Table("name", "parameters", "description")
    for name, spec in BUILT_IN.items():
        shown = ", ".join(
            f"{key}={p.low}..{p.high}" + ("" if p.default is None else f" (default {p.default})")
            for key, p in spec.params.items()
        )
        table.add_row(name, shown or "-", spec.description)
    for name, params, description in describe_entry_points():
        table.add_row(name, params or "-", f"{description} (Python, entry point)")
    present.fit(table)
    present.console().print(table)
    typer.echo("Your own: --players path/to/file.py:ClassName (see README).")


@strategies_app.command("check")
def strategies_check(
    spec: Annotated[str, typer.Argument(help="A strategy: built-in, entry point or file.py:Class")],
    config: Annotated[str, typer.Option(help="Config name or .toml path")] = "base",
    games: Annotated[int, typer.Option(help="Games per check", min=1, max=100_000)] = 20,
    decision_timeout: DecisionTimeout = 10.0,
) -> None:
    """Run the conformance suite on one strategy; exit 1 if any check fails.

    It checks legal choices, untouched inputs, determinism, blindness and pickling.
    """
    from reports import present
    from sim.conformance import run_checks
    from sim.guard import timeout
    from sim.players import PlayerError, parse_player
    from sim.python_loop import EngineError, StrategyError

    try:
        with timeout(decision_timeout):  # the import of a strategy file is bounded too
            parse_player(spec)
            results = run_checks(load_config(config), spec, games)
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


@rules_app.command("apply")
def rules_apply(scenario: Annotated[Path, typer.Argument(help="A scenario .json file")]) -> None:
    """Apply a scenario's move and print the display after it, with what the engine computes."""
    import json

    from sim import scenario as sc

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


@rules_app.command("check")
def rules_check(
    paths: Annotated[list[str], typer.Argument(help="Scenario files or folders of them")],
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Name every passing file too")
    ] = False,
) -> None:
    """Run scenario files and report `N passed, N failed`; exits 1 on any failure."""
    from sim import scenario as sc

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


@app.command()
def show(
    config: Annotated[
        str | None, typer.Option(help="Config name or .toml path \\[default: base]")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Game seed, 0..2**64-1 \\[default: 0]")] = None,
    players: Annotated[
        str | None,
        typer.Option(
            help="Strategies A,B: built-ins, entry-point names or file.py:Class "
            "\\[default: random,random]"
        ),
    ] = None,
    swapped: Annotated[
        bool, typer.Option(help="B sits first, as in the second game of a run's pair")
    ] = False,
    run: Annotated[
        Path | None,
        typer.Option(help="A run folder: replay its game --game N (seed and seats from the run)"),
    ] = None,
    game: Annotated[
        int | None, typer.Option(help="With --run: the game's index in its cell", min=0)
    ] = None,
    legend: Annotated[
        bool, typer.Option(help="Print the notation's legend before the game")
    ] = True,
    decision_timeout: DecisionTimeout = 10.0,
) -> None:
    """Play one game and print it turn by turn in position notation (docs/RULES.md 12).

    With --run RUN_DIR --game N: a run's game as it was played, seed and seats from the run.
    --config and --players choose the cell of a run with several."""
    from sim.guard import timeout
    from sim.players import PlayerError, parse_players
    from sim.python_loop import EngineError, StrategyError
    from sim.show import ReplayError, RunGameError, print_game, print_run_game

    _check_show_options(run, game, seed, swapped)
    if seed is not None:
        checked_seed(seed)
    try:
        with timeout(decision_timeout):  # the import of a strategy file is bounded too
            parse_players(players or "random,random")
    except PlayerError as exc:
        usage(str(exc))
    except (StrategyError, EngineError) as exc:
        fail(str(exc))
    try:
        with timeout(decision_timeout):
            if run is not None:
                print_run_game(run, game, config, players, legend)
            else:
                chosen = load_config(config or "base")
                print_game(chosen, seed or 0, players or "random,random", swapped, legend)
    except RunGameError as exc:
        usage(str(exc))
    except (PlayerError, StrategyError, EngineError, ReplayError) as exc:
        fail(str(exc))


def _check_show_options(run, game, seed, swapped) -> None:
    """--run and --game go together, and a run's game brings its own seed and seats."""
    if (run is None) != (game is None):
        usage("--run RUN_DIR and --game N go together" if run is None else "--run needs --game N")
    if run is not None and (seed is not None or swapped):
        usage("--seed and --swapped come from the run with --run; leave them out")


@app.command()
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
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable, to stdout")] = False,
) -> None:
    """Games per second per core of one match-up, in one process, compile time apart."""
    from reports import present, shapes
    from sim.bench import bench as run_bench
    from sim.config import available
    from sim.guard import timeout
    from sim.players import PlayerError, parse_players
    from sim.python_loop import EngineError, StrategyError

    try:
        parse_players(players)
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
                r = run_bench(load_config(name), games, players=players)
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


@app.command()
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
    swap: Annotated[bool, typer.Option(help="Play each seed twice with seats swapped")] = True,
    workers: Annotated[
        int | None, typer.Option(help="Processes \\[default: all cores]", min=1)
    ] = None,
    chunk_size: Annotated[
        int | None,
        typer.Option(
            help="Games per part file \\[default: 100000, or 200 with mc, ismcts or Python "
            "strategies]"
        ),
    ] = None,
    backend: Annotated[str, typer.Option(help="local or dask")] = "local",
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler tcp://HOST:PORT")] = None,
    overwrite: Annotated[bool, typer.Option(help="Replace a different run in --out")] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No start line or progress display (cron)")
    ] = False,
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
    from sim.guard import timeout
    from sim.runner.run import RunError

    check_backend(backend, scheduler)
    the_plan = _plan(plan, config, players, games, seed, swap, chunk_size)
    if per_game_cards:
        the_plan = dataclasses.replace(the_plan, per_game_cards=True)
    for c in the_plan.configs:
        for warning in c.warnings:
            typer.echo(f"warning: {warning}", err=True)
    if not quiet:
        typer.echo(_start_line(the_plan, out), err=True)
    _compile_first(the_plan, quiet)
    try:
        with timeout(decision_timeout):  # the workers, started inside, inherit it
            args = (the_plan, out, workers, backend, scheduler, overwrite, quiet)
            result = _run_with_progress(*args)
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
    rate = result.played / result.seconds if result.seconds else 0
    typer.echo(
        f"{result.out}: {result.played:,} games played"
        + (f", {result.skipped:,} already done" if result.skipped else "")
        + f" in {result.seconds:.1f}s ({rate:,.0f} games/s); run {the_plan.run_id}"
    )


@app.command()
def verify(run: Annotated[Path, typer.Argument(help="A run folder written by `sim run`")]) -> None:
    """Check every part of a run folder against its manifest's sizes and checksums.

    Prints what is fine, damaged, missing or stray. Exits 0 only when every part verifies.
    """
    from sim.runner import storage
    from sim.runner.verify import check_folder, report_lines

    try:
        manifest = storage.read_manifest(run) if run.is_dir() else None
    except storage.ManifestError as exc:
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


def _plan(plan, config, players, games, seed, swap, chunk_size):
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
        )
    except UsageError as exc:
        usage(str(exc))
    except PlanError as exc:
        fail(str(exc))


def _start_line(plan, out: Path) -> str:
    """What is about to be played, in one line, so a default is never a surprise."""
    configs = ", ".join(c.name for c in plan.configs)
    matchups = "; ".join(f"{a} vs {b}" for a, b in plan.matchups)
    cells = len(plan.configs) * len(plan.matchups)
    each = f" ({plan.games:,} per config and match-up)" if cells > 1 else ""
    return (
        f"playing {plan.total_games:,} games{each} of {configs}, {matchups}, "
        f"seed {plan.seed} into {out}"
    )


def _compile_first(plan, quiet: bool) -> None:
    """The runner's compile_first, its notes on stderr unless quiet."""
    from sim.runner.run import compile_first

    def note(what: str) -> None:
        if not quiet:
            typer.echo(f"compiling {what}, first run only", err=True)

    compile_first(plan, note)


def _run_with_progress(plan, out, workers, backend, scheduler, overwrite, quiet):
    from sim.runner.run import execute

    if quiet:
        return execute(plan, out, workers, backend, scheduler, overwrite)
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

        return execute(plan, out, workers, backend, scheduler, overwrite, progress=update)


@app.command()
def solo(
    config: Annotated[str, typer.Option(help="Config name or .toml path")] = "base",
    games: Annotated[
        int, typer.Option(help="Games per level and strategy, held in memory", min=1, max=IN_MEMORY)
    ] = 20_000,
    seed: Annotated[int, typer.Option(help="Master seed, 0..2**64-1")] = 0,
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
    as_json: Annotated[bool, typer.Option("--json", help="Machine-readable, to stdout")] = False,
) -> None:
    """Solo mode: each CPU level (1-4) against each strategy as the human (docs/RULES.md 8).

    Shows the human's win rate with a 95% interval and a verdict within --margin.
    Also why games end, and their length.
    """
    from reports import present, shapes
    from reports.cli_runs import checked_margin
    from reports.solo import humans, solo_row, verdict
    from sim.guard import timeout
    from sim.players import PlayerError, parse_player
    from sim.python_loop import EngineError, StrategyError

    checked_seed(seed)
    try:
        chosen = [parse_player(h).text for h in human] if human else humans()
    except PlayerError as exc:
        usage(str(exc))
    if any(h.startswith("cpu") for h in chosen):
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
                player,
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


def _register_report_commands() -> None:
    """The analyses live in reports/ (summary, compare, sprt, card-impact, report); their
    heavy imports stay inside the commands."""
    from reports import cli_analysis, cli_runs

    cli_runs.register(app)
    cli_analysis.register(app)


_register_report_commands()


def _register_tune_command() -> None:
    """`sim tune` lives in sim/tune/ (optuna loads inside the command)."""
    from sim.tune.cli import tune

    app.command("tune")(tune)


_register_tune_command()


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("interrupted", err=True)
        sys.exit(130)
