"""Analysis commands for the `sim` app: sprt, card-impact and report.

Only typer is imported here; everything heavy is imported inside the commands, so
`sim --help` stays instant.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sim.cli.common import (
    Backend,
    Config,
    DecisionTimeout,
    Json,
    Overwrite,
    Quiet,
    Scheduler,
    Seed,
    Workers,
    check_backend,
    fail,
    load_config,
    usage,
)

if TYPE_CHECKING:
    from sim.players.specs import Matchup


def _config(name: str):
    """A loaded config, its warnings echoed; a config error fails cleanly."""
    return load_config(name)


def _players(spec: str | None) -> Matchup:
    """The match-up of a --players spec; a bad spec fails cleanly."""
    from sim.players.specs import PlayerError, parse_matchup

    if spec is None:
        usage("no match-up given (--players A,B, e.g. random,random)")
    try:
        players = parse_matchup(spec)
    except PlayerError as exc:
        usage(str(exc))
    if players.second.name == "cpu":
        usage("--players: the CPU card only plays the second seat, so it cannot play "
              "seat-swapped pairs")  # fmt: skip
    return players


def _seed(seed: int) -> int:
    """A master seed in range, or a clean failure."""
    if not 0 <= seed < 2**64:
        usage(f"--seed must be in 0..2**64-1, got {seed}")
    return seed


def sprt(
    players: Annotated[
        str | None, typer.Option(help="Strategies A,B: tests whether A is stronger than B")
    ] = None,
    config: Config = "base",
    elo0: Annotated[float, typer.Option(help="Elo of A over B under H0")] = 0.0,
    elo1: Annotated[float, typer.Option(help="Elo of A over B under H1")] = 20.0,
    alpha: Annotated[float, typer.Option(help="Chance of accepting H1 when H0 holds")] = 0.05,
    beta: Annotated[float, typer.Option(help="Chance of accepting H0 when H1 holds")] = 0.05,
    batch: Annotated[
        int,
        typer.Option(help="Games per look at the LLR; at least 100 (the LLR needs many pairs)"),
    ] = 2000,
    max_games: Annotated[
        int | None, typer.Option(help="Stop undecided after this many games \\[default: no limit]")
    ] = None,
    seed: Seed = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines")] = False,
    as_json: Json = False,
) -> None:
    """Sequential test of A against B on seat-swapped seed pairs, stopping when it decides.

    Pair scores tally into a pentanomial, as chess-engine testing does.
    After every batch the LLR of elo1 against elo0 (logistic Elo) meets Wald's bounds.
    """
    from reports.sprt import SprtError, SprtSettings, describe, run_sprt

    matchup = _players(players)
    a, b = matchup.specs
    loaded = _config(config)
    if batch < 100:
        usage(f"--batch must be at least 100 games, got {batch}")
    settings = SprtSettings(elo0, elo1, alpha, beta, batch, max_games)
    try:
        settings.check()
    except SprtError as exc:
        usage(str(exc))

    def progress(status) -> None:
        if not quiet:
            elo = status.elo()[0]
            typer.echo(
                f"games {status.games:,}: LLR {status.llr:+.2f} "
                f"(bounds {status.lower:+.2f}, {status.upper:+.2f}), Elo {elo:+.1f}",
                err=True,
            )

    try:
        result = run_sprt(loaded, matchup, _seed(seed), settings, progress)
    except SprtError as exc:
        fail(str(exc))
    if as_json:
        from reports import shapes

        _echo_json(shapes.sprt(result, a, b, settings, loaded.name, seed))
        return
    typer.echo(f"SPRT {a} (A) against {b} (B) on {loaded.name}, master seed {seed}")
    for line in describe(result, a, b, settings):
        typer.echo(line)


def card_impact(
    card: Annotated[
        str | None, typer.Option(help="The card kind to take out, e.g. PRINT or PRT")
    ] = None,
    config: Annotated[
        str | None, typer.Option(help="Config name or .toml path \\[default: base]")
    ] = None,
    swap_for: Annotated[str, typer.Option(help="The kind put in its place")] = "BLANK",
    games: Annotated[
        int | None,
        typer.Option(help="Games on each deck (seat-swapped pairs) \\[default: 20000]"),
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Master seed \\[default: 0]")] = None,
    players: Annotated[
        str | None, typer.Option(help="Strategies A,B \\[default: random,random]")
    ] = None,
    run: Annotated[
        Path | None,
        typer.Option(
            help="A finished run: replay its games (every config and match-up) with the "
            "card swapped, into RUN/impact/CARD-KIND; instead of --config, --players, "
            "--games, --seed and --out"
        ),
    ] = None,
    dominant: Annotated[
        float,
        typer.Option(
            metavar="PTS",
            help="Flag the card as dominant when its impact on the first seat's win rate "
            "(or A's score) lies beyond ±PTS points by its whole 95% interval",
        ),
    ] = 5.0,  # reports.card_impact.DOMINANT_PTS (not imported: --help stays instant)
    out: Annotated[
        Path | None, typer.Option(help="Run folder \\[default: runs/card-impact-RUNID]")
    ] = None,
    workers: Workers = None,
    backend: Backend = "local",
    scheduler: Scheduler = None,
    overwrite: Overwrite = False,
    quiet: Quiet = False,
    decision_timeout: DecisionTimeout = 10.0,
    as_json: Json = False,
) -> None:
    """Replay the same seeds with every copy of a card swapped for another kind (BLANK).

    Reports the change in first-seat, per-strategy and draw rates and in mean turns.
    Each change has a 95% interval paired over the seed pairs.
    A card that moves who wins by more than --dominant points is flagged dominant.
    Both decks are one run in --out; rerun the same command to continue it.
    With --run RUN only the swapped deck is played, on RUN's games.
    `sim summary` of the folder (or of RUN) shows the card's flag under the board.
    """
    from reports.card_impact import measured
    from sim.cli.play import play_plan
    from sim.runner.run import RunOptions
    from sim.store.folder import RunFolderError, open_run

    if card is None:
        usage("no card given (--card KIND, e.g. --card PRINT)")
    if not (math.isfinite(dominant) and 0 < dominant < 100):
        usage(f"--dominant must be between 0 and 100 points, got {dominant:g}")
    check_backend(backend, scheduler)
    if run is None:
        plan, swaps, folder, seed = _impact_plan(card, swap_for, config, games, seed, players, out)
        originals = None
    else:
        given = {"--config": config, "--games": games, "--seed": seed, "--players": players}
        named = [k for k, v in {**given, "--out": out}.items() if v is not None]
        if named:
            usage(f"{', '.join(named)}: --run replays the run's own games; give one or the other")
        plan, swaps, folder, originals = _run_plan(run, card, swap_for)
        seed = plan.seed
    for _, swap in swaps[:1]:
        for note in swap.notes:
            typer.echo(f"note: {note}", err=True)
        for warning in swap.config.warnings:
            typer.echo(f"warning: {warning}", err=True)
    if not quiet:
        what = "the swapped deck" if run else "both decks"
        typer.echo(f"playing {plan.total_games:,} games ({what}) into {folder}", err=True)
    play_plan(plan, folder, RunOptions(workers, backend, scheduler, overwrite), quiet,
              decision_timeout)  # fmt: skip
    from reports.card_impact import note_swap

    try:
        note_swap(folder, plan, swaps, dominant, originals and originals.manifest["run_id"])
        found = measured(open_run(folder), originals)
    except (OSError, RunFolderError) as exc:
        fail(str(exc))
    _show_impact(found, seed, folder, as_json)


def _impact_plan(card, swap_for, config, games, seed, players, out):
    """The run of --config's deck and its swapped copy, the swap, the folder and seed."""
    from reports.card_impact import CardImpactError, impact_plan, swap_card

    matchup = _players(players or "random,random")
    loaded = _config(config or "base")
    games = 20_000 if games is None else games
    seed = _seed(0 if seed is None else seed)
    if games < 4:
        usage(f"--games must be at least 4 (two seed pairs), got {games}")
    try:
        swap = swap_card(loaded, card, swap_for)
        plan = impact_plan(loaded, swap, matchup, games, seed)
    except CardImpactError as exc:
        usage(str(exc))  # the --card or --swap-for value cannot be used with this deck
    folder = out or Path("runs") / f"card-impact-{plan.run_id}"
    return plan, [(loaded.name, swap)], folder, seed


def _run_plan(run: Path, card: str, swap_for: str):
    """The run of RUN's games on the swapped decks, the swaps, the folder and RUN."""
    from reports.card_impact import CardImpactError, impact_folder, run_plan
    from sim.store.folder import RunFolderError, open_run

    try:
        originals = open_run(run)
        plan, swaps, skipped = run_plan(originals, card, swap_for)
    except CardImpactError as exc:
        usage(str(exc))  # the --card or --swap-for value cannot be used with RUN's decks
    except RunFolderError as exc:
        fail(str(exc))
    for line in skipped:
        typer.echo(f"note: {line}", err=True)
    swap = swaps[0][1]
    return plan, swaps, impact_folder(run, swap.card, swap.replacement), originals


def _show_impact(found, seed: int, folder: Path, as_json: bool) -> None:
    """Each compared cell's table and flags, or the JSON: one comparison's shape (one
    cell), else each cell's under `comparisons`."""
    shapes_of = []
    for cell, impact, flags in found.cells:
        a, b = _players(cell["matchup"]).specs
        if as_json:
            from reports import shapes

            pts = found.note["dominant_pts"]
            shape = shapes.card_impact(impact, cell["original"], seed, a, b, pts, flags)
            shapes_of.append(shape | {"run": str(folder), "matchup": cell["matchup"]})
        else:
            _print_impact(impact, cell["original"], seed, a, b, flags)
    if as_json and len(shapes_of) == 1:
        _echo_json(shapes_of[0])
    elif as_json:
        from reports.shapes import head

        _echo_json(head("card-impact") | {"run": str(folder), "comparisons": shapes_of})


def _echo_json(data: dict) -> None:
    """One JSON document on stdout."""
    import json

    typer.echo(json.dumps(data, indent=2))


def _print_impact(impact, config: str, seed: int, a: str, b: str, flags=()) -> None:
    """The comparison as a table, with its sample and a plain verdict per row, then the
    dominant flags (reports.card_impact.dominant), if any."""
    from reports import present
    from sim.engine.cards import NAMES

    swap = impact.swap
    title = (
        f"{config}: {swap.copies} {NAMES[swap.card]} -> {NAMES[swap.replacement]} per deck; "
        f"{a} (A) vs {b} (B), master seed {seed}"
    )
    table = present.table(
        "measure", "original", "swapped", "change [95% CI]", "p", "Holm p", "verdict", title=title
    )
    for m in impact.measures:
        d = m.change
        if m.name != "mean turns":
            shown = present.pct(m.original), present.pct(m.swapped)
            change = present.pts(d.estimate, d.low, d.high)
        else:
            shown = f"{m.original:.2f}", f"{m.swapped:.2f}"
            change = present.mean_diff(d.estimate, d.low, d.high)
        table.add_row(
            m.name, *shown, change, present.p_value(d.p_value), present.p_value(m.holm_p), m.verdict
        )
    present.fit(table)
    console = present.console()
    console.print(table)
    console.print(
        f"sample: {impact.games:,} games per deck ({impact.pairs:,} seat-swapped seed pairs, "
        "the same seeds on both decks); intervals are paired over seed pairs, the unit; "
        f"verdicts are Holm-adjusted over the {len(impact.measures)} measures"
    )
    for flag in flags:
        console.print(flag.text(), highlight=False, markup=False)


def report(
    runs: Annotated[
        list[Path],
        typer.Argument(
            metavar="RUN [RUN_B ...]",
            help="A run folder written by `sim run` (two: compared on one page; three or more: "
            "their history, as `sim history`), or a tuning folder written by `sim tune`",
        ),
    ],
    out: Annotated[Path, typer.Option(help="The HTML file to write")] = Path("report.html"),
    margin: Annotated[
        float, typer.Option(help="Points either side of 50% shown as the balanced band")
    ] = 1.0,
    as_json: Annotated[
        bool, typer.Option("--json", help="Say what was written as JSON, to stdout")
    ] = False,
) -> None:
    """Write one self-contained HTML report of a run (two compared, or several over time).

    It shows the first-seat advantage with the margin band, A's score, and distributions.
    Then line control and cards. A folder written by `sim tune` gets its front and targets.
    """
    from reports.html import ReportError, write_report
    from reports.html_compare import write_comparison
    from reports.html_history import write_history
    from sim.cli.runs import checked_margin
    from sim.store.verify import reader_warnings
    from sim.tune.report import is_tuning_folder

    checked_margin(margin)
    if len(runs) == 1 and is_tuning_folder(runs[0]):
        return _report_tuning(runs[0], out, as_json)
    if len({r.resolve() for r in runs}) < len(runs):
        usage("a run folder is given twice; give each once")
    try:
        if len(runs) > 2:
            written = write_history(runs, out, margin)
        elif len(runs) == 2:
            written = write_comparison(runs[0], runs[1], out, margin)
        else:
            written = write_report(runs[0], out, margin)
    except ReportError as exc:
        fail(str(exc))
    for run in runs:
        for note in reader_warnings(run):
            typer.echo(f"warning: {note}", err=True)
    if as_json:
        page = written.read_text(encoding="utf-8")
        _echo_json(
            {
                "command": "report",
                "shape": 1,
                "runs": [str(r) for r in runs],
                "out": str(written),
                "bytes": written.stat().st_size,
                "figures": page.count("<svg"),
                "margin_pts": margin,
            }
        )
        return
    typer.echo(f"wrote {written}")


def _report_tuning(folder: Path, out: Path, as_json: bool) -> None:
    """`sim report TUNE_DIR`: the page of sim/tune/report.py; a folder that cannot be
    reported is a usage error (exit 2)."""
    from sim.tune.report import TuningError, write_tuning

    try:
        written = write_tuning(folder, out)
    except TuningError as exc:
        usage(str(exc))
    if as_json:
        page = written.read_text(encoding="utf-8")
        _echo_json({"command": "report", "shape": 1, "runs": [str(folder)], "out": str(written),
                    "bytes": written.stat().st_size, "figures": page.count("<svg"),
                    "tuning": True})  # fmt: skip
        return
    typer.echo(f"wrote {written}")
