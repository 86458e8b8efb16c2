"""The batch runner: determinism, resume after interruption, refusals, tables and backends."""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from card_reference import long_cards, reference_tallies, stored_tallies

from sim.api import open_run
from sim.engine.cards import NAMES
from sim.engine.game import C_DRAWN, C_EFFECT, C_PLAYED
from sim.model.config import load
from sim.play.batch import play_matchup
from sim.players.specs import matchup
from sim.runner.dask_backend import ClusterError
from sim.runner.local import WorkerFailed, run_local
from sim.runner.plan import PlanError, make_plan
from sim.runner.run import RunError, RunOptions, execute, part_schemas
from sim.runner.worker import ChunkError, Task, play_chunk
from sim.store import layout
from sim.store.seeds import cell_key, game_seeds

GAME_COLUMNS = [
    "run_id", "config", "config_hash", "rules_version", "first", "second", "pair", "game",
    "first_digit", "winner", "outcome", "tiebreak_line", "end_reason", "turns",
    "score_first", "score_second", "line_10", "line_20", "line_30", "line_40", "line_50",
    "line_60",
]  # fmt: skip
SORT = ["config", "matchup", "game"]


SUMMED = {  # tables of per-chunk counts: their keys and count
    "leads": (["config", "matchup", "turn", "ahead", "margin"], "games"),
    "tallies": (["config", "matchup", "paired", "tally", "code"], "count"),
}


def table(out: Path, name: str) -> pl.DataFrame:
    """A table of a run folder, rows in a fixed order; per-chunk counts summed over chunks."""
    if name == "card_tallies":
        return stored_tallies(out)
    if name in SUMMED:  # per chunk: summed, as the readers do
        frame = pl.read_parquet(out / name / "*.parquet").with_columns(
            pl.col(pl.Categorical, pl.Enum).cast(pl.String)
        )
        keys, value = SUMMED[name]
        return frame.group_by(keys).agg(pl.col(value).sum()).sort(keys, nulls_last=True)
    frame = pl.read_parquet(out / name / "*.parquet").drop("run_id", strict=False)
    keys = SORT + (["seat"] if name == "cards" else [])
    return frame.with_columns(pl.col(pl.Categorical).cast(pl.String)).sort(keys)


def small_plan(**kw):
    args = {"configs": ["base", "101"], "players": ["random,random"], "games": 1200, "seed": 7}
    args.update(kw)
    return make_plan(**args)


def test_results_do_not_depend_on_workers_or_chunks(tmp_path):
    one = execute(small_plan(chunk_size=1200), tmp_path / "one", RunOptions(workers=1)).out
    many = execute(small_plan(chunk_size=250), tmp_path / "many", RunOptions(workers=2)).out
    for name in ("games", "card_tallies", "leads", "tallies"):
        assert table(one, name).equals(table(many, name))
    assert len(list((many / "games").glob("*.parquet"))) > len(list((one / "games").glob("*")))


def test_games_table_has_the_promised_columns_and_compact_types(tmp_path):
    out = execute(
        small_plan(configs=["base"], games=400), tmp_path / "r", RunOptions(workers=1)
    ).out
    games = pl.read_parquet(out / "games" / "*.parquet")
    assert set(GAME_COLUMNS) <= set(games.columns) and "seed" not in games.columns
    assert games.height == 400
    # plain Arrow dictionaries, which every polars version reads as Categorical (README)
    assert games["winner"].dtype == pl.Categorical
    assert set(games["winner"].cast(pl.String)) <= {"first", "second", "draw"}
    assert games["turns"].dtype == pl.UInt16 and games["line_10"].dtype == pl.Categorical
    assert games["line_60"].null_count() == 400  # base has five lines
    swapped = games.filter(pl.col("game") % 2 == 1)
    assert (swapped["pair"] == swapped["game"] // 2).all()
    seeded = open_run(out).games.collect()  # the seeds, derived from the manifest
    pairs = seeded.group_by("pair").agg(pl.col("seed").n_unique())
    assert (pairs["seed"] == 1).all()  # both games of a pair share a seed
    assert seeded["seed"].n_unique() == 200


def test_seeds_depend_on_matchup_and_index_only():
    key = cell_key(1, "random,random")
    assert (game_seeds(key, 0, 10)[3:7] == game_seeds(key, 3, 7)).all()
    assert key != cell_key(1, "random,cpu(level=2)")
    assert key != cell_key(2, "random,random")


def pair_wilson(games: pl.DataFrame, event: pl.Expr) -> tuple[float, float]:
    """Wilson's interval on the effective size p(1-p) / var, var the pair-clustered variance
    of the rate (written out here, apart from sim.stats)."""
    s = games.group_by("pair").agg(event.sum().alias("s"))["s"].to_numpy().astype(float)
    n, p = 2 * s.size, s.sum() / (2 * s.size)
    n_eff = p * (1 - p) / (((s - 2 * p) ** 2).sum() / n**2)
    z = 1.959963984540054
    centre = (p + z * z / (2 * n_eff)) / (1 + z * z / n_eff)
    half = z / (1 + z * z / n_eff) * np.sqrt(p * (1 - p) / n_eff + z * z / (4 * n_eff**2))
    return centre - half, centre + half


def test_winrates_match_the_games_table(tmp_path):
    out = execute(small_plan(), tmp_path / "r", RunOptions(workers=1)).out
    games = table(out, "games")
    rates = pl.read_parquet(out / "winrates.parquet")
    for row in rates.iter_rows(named=True):
        cell = games.filter(pl.col("config") == row["config"])
        wins = cell.filter(pl.col("winner") == "first").height
        assert row["games"] == cell.height and row["first_wins"] == wins
        assert row["unit"] == "pair" and row["units"] == cell.height // 2
        low, high = pair_wilson(cell, pl.col("winner") == "first")  # the pair is the unit
        assert row["first_low"] == pytest.approx(low) and row["first_high"] == pytest.approx(high)
        a_wins = cell.filter(
            ((pl.col("winner") == "first") & ~pl.col("swapped"))
            | ((pl.col("winner") == "second") & pl.col("swapped"))
        ).height
        assert row["a_wins"] == a_wins
        assert row["first_wins"] + row["second_wins"] + row["draws"] == row["games"]


def test_tiebreaks_count_outcomes_lines_and_end_reasons(tmp_path):
    out = execute(small_plan(configs=["base"]), tmp_path / "r", RunOptions(workers=1)).out
    games = table(out, "games")
    tb = pl.read_parquet(out / "tiebreaks.parquet")
    outcomes = tb.filter(pl.col("category") == "outcome")
    assert outcomes["count"].sum() == games.height
    ties = games.filter(pl.col("outcome") == "tiebreak")
    lines = tb.filter(pl.col("category") == "tiebreak_line")
    assert lines["count"].sum() == ties.height
    for row in lines.iter_rows(named=True):
        hits = ties.filter(
            (pl.col("tiebreak_line") == int(row["value"])) & (pl.col("winner") == row["seat"])
        )
        assert hits.height == row["count"]
    assert tb.filter(pl.col("category") == "end_reason")["share"].sum() == pytest.approx(1)


def test_manifest_records_what_reproduces_the_run(tmp_path):
    plan = small_plan()
    out = execute(plan, tmp_path / "r", RunOptions(workers=1)).out
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["master_seed"] == 7
    assert manifest["params"] == plan.params() and manifest["run_id"] == plan.run_id
    assert set(manifest["configs"]) == {"base", "101"}
    assert all(c["status"] == "done" for c in manifest["chunks"].values())


def test_rerun_continues_and_ends_with_the_same_tables(tmp_path):
    plan = small_plan(chunk_size=200)
    full = execute(plan, tmp_path / "full", RunOptions(workers=1)).out
    part = tmp_path / "part"
    execute(plan, part, RunOptions(workers=1))
    for victim in sorted((part / "card_tallies").glob("*.parquet"))[::3]:
        victim.unlink()  # as if those chunks never finished
    (part / "winrates.parquet").unlink()
    again = execute(plan, part, RunOptions(workers=1))
    assert 0 < again.played < again.played + again.skipped
    for name in ("games", "card_tallies", "leads", "tallies"):
        assert table(part, name).equals(table(full, name))
    assert pl.read_parquet(part / "winrates.parquet").equals(
        pl.read_parquet(full / "winrates.parquet")
    )


def test_a_different_run_in_the_same_folder_is_refused(tmp_path):
    out = tmp_path / "r"
    execute(small_plan(games=200), out, RunOptions(workers=1))
    with pytest.raises(RunError, match="different run"):
        execute(small_plan(games=400), out, RunOptions(workers=1))
    execute(small_plan(games=400), out, RunOptions(workers=1, overwrite=True))
    assert pl.read_parquet(out / "games" / "*.parquet").height == 800


def test_an_unwritable_folder_gives_one_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(RunError, match="cannot write"):
        execute(small_plan(games=200), blocker / "out", RunOptions(workers=1))


def test_bad_plans_are_refused():
    with pytest.raises(PlanError, match="unknown strategy"):
        small_plan(players=["random,nope"])
    with pytest.raises(PlanError, match="unknown config"):
        small_plan(configs=["nope"])
    with pytest.raises(PlanError, match="games"):
        small_plan(games=0)


def kill_first_attempt(task: Task):
    """A play function whose first call for a chunk kills its own worker process."""
    marker = Path(task.out) / f"killed-{task.chunk.name}"
    if task.chunk.number == 1 and not marker.exists():
        marker.write_text("x")
        os._exit(9)
    return play_chunk(task)


def always_kill(task: Task):
    os._exit(9)


def _tasks(plan, out: Path):
    keys = {c.index: cell_key(plan.seed, c.matchup) for c in plan.cells()}
    schemas = part_schemas()
    return [
        Task(str(out), plan.run_id, c, keys[c.cell.index], plan.swap, schemas=schemas)
        for c in plan.chunks()
    ]


class ExitWhileSent:
    """Pickled last in a reply: kills its process a moment later, while the bytes before it
    are still going down the pipe."""

    def __reduce__(self):
        threading.Timer(0.01, os._exit, args=(9,)).start()
        return (str, ())


def die_while_sending(task: Task):
    """A play function whose first reply for chunk 1 is large and whose process is killed
    while sending it: a shared results queue would keep the dead worker's lock forever."""
    done = play_chunk(task)
    marker = Path(task.out) / f"killed-{task.chunk.name}"
    if task.chunk.number != 1 or marker.exists():
        return done
    marker.write_text("x")
    return dataclasses.replace(
        done, counts={**done.counts, "ballast": b"x" * 2**28, "exit": ExitWhileSent()}
    )


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("play", "workers"),
    [(kill_first_attempt, 1), (die_while_sending, 2)],
    ids=["killed-while-playing", "killed-while-reporting"],
)
def test_a_worker_that_dies_has_its_chunk_retried_and_blocks_no_other(tmp_path, play, workers):
    plan = small_plan(configs=["base"], chunk_size=400)
    done = []
    run_local(_tasks(plan, tmp_path), workers, done.append, play=play)
    assert sorted(d.chunk for d in done) == [c.name for c in plan.chunks()]
    assert (tmp_path / "killed-c000-000001").exists()


@pytest.mark.timeout(120)
def test_a_chunk_that_keeps_killing_workers_fails_clearly(tmp_path):
    plan = small_plan(configs=["base"], games=200)
    with pytest.raises(WorkerFailed, match="killed its worker"):
        run_local(_tasks(plan, tmp_path), 1, lambda d: None, play=always_kill)


def test_interrupting_a_run_keeps_finished_chunks_and_the_same_command_continues(
    tmp_path, warm_random_run
):
    out = tmp_path / "run"
    command = [
        sys.executable, "-m", "sim", "run", "--config", "base", "--players", "random,random",
        "--games", "300000", "--chunk-size", "2000", "--seed", "3", "--out", str(out),
        "--workers", "1", "--quiet",
    ]  # fmt: skip
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list((out / "card_tallies").glob("*.parquet"))) < 5:
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Run the same command again" in err
    finished = len(list((out / "card_tallies").glob("*.parquet")))
    assert 0 < finished < 150
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    again = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert "already done" in again.stdout
    reference = execute(
        make_plan(["base"], ["random,random"], 300000, 3, True, 2000), tmp_path / "ref"
    )
    assert table(out, "games").equals(table(reference.out, "games"))


def test_dask_backend_gives_the_same_tables_as_local(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    local = execute(small_plan(chunk_size=300), tmp_path / "local", RunOptions(workers=1)).out
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False)
    with cluster, distributed.Client(cluster) as client:
        remote = execute(
            small_plan(chunk_size=300),
            tmp_path / "dask",
            RunOptions(backend="dask", scheduler=client),
        ).out
    for name in ("games", "card_tallies", "leads", "tallies"):
        assert table(local, name).equals(table(remote, name))


def test_per_game_cards_are_one_row_per_game_and_seat(tmp_path):
    plan = small_plan(configs=["base"], games=200, per_game_cards=True)
    out = execute(plan, tmp_path / "r", RunOptions(workers=1)).out
    cards = table(out, "cards")
    assert cards.height == 200 * 2
    assert (cards["SAV_played"] <= cards["SAV_drawn"]).all()
    assert set(cards["strategy"].unique()) == {"random"}
    drawn = cards.select(pl.sum_horizontal(pl.col("^.*_drawn$")).alias("n"))["n"]
    assert (drawn >= 3).all()
    assert (cards["GSB_drawn"] == 0).all()  # base deals no GOSUB


def test_the_runs_tables_hold_no_per_game_cards_unless_asked(tmp_path):
    out = execute(
        small_plan(configs=["base"], games=200), tmp_path / "r", RunOptions(workers=1)
    ).out
    assert not (out / "cards").exists()
    assert len(list((out / "card_tallies").glob("*.parquet"))) == 1


def test_the_cards_table_holds_the_engine_counts(tmp_path):
    """One row per game and seat, plain small integers on disk."""
    plan = small_plan(configs=["101"], games=40, per_game_cards=True)
    out = execute(plan, tmp_path / "r", RunOptions(workers=1)).out
    stored = pl.read_parquet(out / "cards" / "*.parquet")
    config = load("101")
    assert stored.height == 40 * 2
    assert stored["SAV_drawn"].dtype == pl.UInt8 and stored["seat"].dtype == pl.Categorical
    assert stored["seat"].cast(pl.String).to_list() == ["first", "second"] * 40
    seeds = game_seeds(cell_key(7, "random,random"), 0, 20).repeat(2)
    _, cards = play_matchup(config, matchup("random", "random"), seeds, np.arange(40) % 2 == 1)
    kinds = np.unique(config.kinds())
    rows = [
        (g, seat, NAMES[k], *(int(cards[g, s, k, c]) for c in (C_DRAWN, C_PLAYED, C_EFFECT)))
        for g in range(40)
        for s, seat in enumerate(("first", "second"))
        for k in kinds
    ]
    expected = pl.DataFrame(
        rows, schema=["game", "seat", "kind", "drawn", "played", "took_effect"], orient="row"
    )
    unpacked = long_cards(table(out, "cards"), [NAMES[k] for k in kinds]).select(expected.columns)
    assert (
        unpacked.cast(expected.schema)
        .sort("game", "seat", "kind")
        .equals(expected.sort("game", "seat", "kind"))
    )


@pytest.mark.parametrize(
    ("players", "swap"),
    [("greedy,random", True), ("random,random", True), ("random,greedy", False)],
)
def test_card_tallies_are_the_per_game_cards_counted_by_unit(tmp_path, players, swap):
    """The compiled per-chunk tallies, summed, equal polars' count over the per-game cards
    (whatever the chunking), for A and B apart and together."""
    plan = small_plan(
        configs=["base"], players=[players], games=300, chunk_size=100, swap=swap,
        per_game_cards=True,
    )  # fmt: skip
    out = execute(plan, tmp_path / "r", RunOptions(workers=1)).out
    kinds = [NAMES[k] for k in np.unique(load("base").kinds())]
    expected = reference_tallies(table(out, "games"), long_cards(table(out, "cards"), kinds))
    stored = table(out, "card_tallies")
    assert stored.height == expected.height == len(kinds) * (1 if players == "random,random" else 3)
    assert stored.cast(expected.schema).equals(expected)


def test_cards_rows_name_the_strategy_in_each_seat_of_swapped_pairs(tmp_path):
    from types import SimpleNamespace

    from sim.store.layout import write_part
    from sim.store.schema import serialized_schema
    from sim.store.tables import cards_columns

    config = load("base")
    cell = SimpleNamespace(config=config, matchup="greedy,random", a="greedy", b="random")
    counts = np.zeros((4, 2, len(NAMES), 3), dtype=np.uint8)
    columns = cards_columns(cell, 10, True, counts)
    write_part(tmp_path, "cards", "x", columns, serialized_schema("cards"))
    seats = table(tmp_path, "cards").sort("game", "seat")
    # games 10 and 12 are first games of their pairs (A first); 11 and 13 are swapped
    assert seats.select("game", "seat", "strategy").rows() == [
        (10, "first", "greedy"), (10, "second", "random"),
        (11, "first", "random"), (11, "second", "greedy"),
        (12, "first", "greedy"), (12, "second", "random"),
        (13, "first", "random"), (13, "second", "greedy"),
    ]  # fmt: skip


def test_part_size_defaults_by_strategy_cost_and_stays_settable():
    from sim.runner.plan import DEFAULT_CHUNK, SLOW_CHUNK

    fast = make_plan(["base"], ["greedy,random", "heuristic,cpu"], 10, 1)
    slow = make_plan(["base"], ["greedy,random", "mc(rollouts=5),greedy"], 10, 1)
    python = make_plan(["base"], ["canonical-random,random"], 10, 1)
    assert fast.chunk_size == DEFAULT_CHUNK
    assert slow.chunk_size == python.chunk_size == SLOW_CHUNK
    assert make_plan(["base"], ["mc,random"], 10, 1, chunk_size=50).chunk_size == 50


def test_a_failing_chunk_on_dask_is_one_clear_error(tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    raiser = Path(__file__).resolve().parents[1] / "strategies_for_tests.py"
    plan = small_plan(configs=["base"], games=4, players=[f"{raiser}:Raiser,random"])
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False)
    no_class_name = r"(?s)^(?!ChunkError).*no idea what to do.*game seed"
    failure = pytest.raises(ClusterError, match=no_class_name)
    with cluster, distributed.Client(cluster) as client, failure:
        execute(plan, tmp_path / "dask", RunOptions(backend="dask", scheduler=client))


def test_a_full_disk_is_one_clear_error_and_leaves_no_half_part(tmp_path, monkeypatch):
    def fill_the_disk(path, columns, schema):
        Path(path).write_bytes(b"PAR1 half a part")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("sim.store.parquet.write", fill_the_disk)
    plan = small_plan(configs=["base"], games=20)
    with pytest.raises(ChunkError, match="cannot write chunk c000-000000's .* No space left"):
        play_chunk(_tasks(plan, tmp_path)[0])
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


@pytest.mark.parametrize(
    ("modules", "absent"),
    [
        # the parent: planning, schemas and summaries, never the engine's compiler
        (["sim.runner.run", "sim.store.schema", "sim.store.summaries"], ["numba"]),
        # a worker: playing and writing parts, never the table libraries
        (["sim.runner.worker", "sim.store.tables", "sim.play.batch"], ["polars", "pyarrow"]),
    ],
)
def test_parent_and_workers_load_only_what_they_use(modules, absent):
    """Each import costs every run its time (a worker's polars and pyarrow 0.3 s, the
    parent's numba 0.25 s while the workers start)."""
    imports = ", ".join(modules)
    code = f"import sys; import {imports}; print([m for m in {absent} if m in sys.modules])"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "[]"


def test_files_get_the_permissions_of_the_umask(tmp_path):
    """mkstemp makes 0600 files: a shared folder's colleagues could not read the run."""
    old = os.umask(0o027)
    layout._umask.cache_clear()
    try:
        out = execute(
            small_plan(configs=["base"], games=200), tmp_path / "r", RunOptions(workers=1)
        ).out
    finally:
        os.umask(old)
        layout._umask.cache_clear()
    files = [p for p in out.rglob("*") if p.is_file() and p.name != ".lock"]
    assert {p.stat().st_mode & 0o777 for p in files} == {0o640}
    assert len(files) >= 6  # manifest, backup, two summaries, a games and a tallies part


def test_the_manifest_records_the_library_versions(tmp_path):
    import numpy
    import polars

    out = execute(
        small_plan(configs=["base"], games=200), tmp_path / "r", RunOptions(workers=1)
    ).out
    libraries = json.loads((out / "manifest.json").read_text())["libraries"]
    assert libraries["numpy"] == numpy.__version__ and libraries["polars"] == polars.__version__
    assert set(libraries) == {"numpy", "numba", "polars", "pyarrow", "scipy", "zstandard"}


def test_per_game_cards_option_writes_a_part_that_is_verified(tmp_path):
    from typer.testing import CliRunner

    from sim.cli import app

    out = tmp_path / "r"
    args = ["run", "--games", "200", "--workers", "1", "--quiet", "--out", str(out)]
    result = CliRunner().invoke(app, [*args, "--per-game-cards"], prog_name="sim")
    assert result.exit_code == 0, result.output
    (entry,) = json.loads((out / "manifest.json").read_text())["chunks"].values()
    assert set(entry["parts"]) == {"games", "card_tallies", "cards", "leads", "tallies"}
    part = out / "cards" / entry["parts"]["cards"]["file"]
    part.write_bytes(part.read_bytes()[:100])
    check = CliRunner().invoke(app, ["verify", str(out)], prog_name="sim")
    assert check.exit_code == 1 and f"damaged  cards/{part.name}: truncated" in check.output
    plain = CliRunner().invoke(app, args, prog_name="sim")  # without the option: another run
    assert plain.exit_code == 1 and "holds a different run" in plain.output


def test_the_parent_flushes_each_part_before_a_manifest_records_it(tmp_path, monkeypatch):
    """Local workers write their parts without fsync (it would idle their core); the parent
    flushes every part before the first manifest that records it, so a power loss leaves
    no recorded part unwritten."""
    flushed: set[str] = set()
    real_fsync, real_write = os.fsync, layout.write_manifest

    def fsync(fd):
        flushed.add(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    def write_manifest(manifest, out):
        for chunk in manifest["chunks"].values():
            for table, part in (chunk.get("parts") or {}).items():
                assert str(out / table / part["file"]) in flushed, part["file"]
        real_write(manifest, out)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(layout, "write_manifest", write_manifest)
    out = tmp_path / "run"
    execute(make_plan(["base"], ["random,random"], 1000, 0, True, 200), out, RunOptions(2))
    manifest = layout.read_manifest(out)
    assert manifest["status"] == "complete"
    assert sum(len(c["parts"]) for c in manifest["chunks"].values()) == 5 * 4  # chunks x tables
    tables = ("games", "card_tallies", "leads", "tallies")
    assert {str(out / t) for t in tables} <= flushed  # their folders
