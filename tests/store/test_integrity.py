"""Run-folder integrity: parts are recorded, verified, set aside when damaged and replayed;
failed runs say so; `sim verify` checks a folder on demand. Every test damages real parts
of a small real run."""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path

import polars as pl
import pytest
from cli_failures import assert_exit_1
from dask.distributed import Client, LocalCluster
from typer.testing import CliRunner

from sim.cli import app
from sim.runner.dask_backend import ClusterError
from sim.runner.plan import make_plan
from sim.runner.run import RunOptions, execute
from sim.store import layout
from sim.store.verify import check_folder, counted_parts, file_digest

GAMES, CHUNK = 3000, 500  # six chunks of 500 games
SORT = ["config", "matchup", "game"]


def plan():
    return make_plan(["base"], ["random,random"], GAMES, 11, True, CHUNK)


def play(out: Path, warnings: list[str] | None = None):
    warn = [].append if warnings is None else warnings.append
    return execute(plan(), out, RunOptions(workers=1), warn=warn)


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    return play(tmp_path_factory.mktemp("ref") / "run").out


@pytest.fixture
def run(reference, tmp_path) -> Path:
    """A finished copy of the reference run, for the test to damage."""
    out = tmp_path / "run"
    shutil.copytree(reference, out, ignore=shutil.ignore_patterns(".lock"))
    return out


EVERY_CHUNK = ("games", "card_tallies", "leads", "tallies")  # the tables every chunk writes


def cli(*args: str):
    return CliRunner().invoke(app, list(args), prog_name="sim")


def table(parts: list[Path], name: str) -> pl.DataFrame:
    """The parts' rows in a fixed order; card tallies summed over the chunks."""
    frame = pl.read_parquet(parts).drop("run_id", strict=False)
    frame = frame.with_columns(pl.col(pl.Categorical, pl.Enum).cast(pl.String))
    if name == "card_tallies":
        keys = ["config", "matchup", "seats", "strategy", "kind"]
        return frame.group_by(keys).agg(pl.all().sum()).sort(keys, nulls_last=True)
    if name == "leads":
        keys = ["config", "matchup", "turn", "ahead", "margin"]
        return frame.group_by(keys).agg(pl.all().sum()).sort(keys, nulls_last=True)
    if name == "tallies":
        keys = ["config", "matchup", "paired", "tally", "code"]
        return frame.group_by(keys).agg(pl.all().sum()).sort(keys)
    return frame.sort(SORT)


def same_tables(a: Path, b: Path) -> bool:
    return all(
        table(counted_parts(a, t), t).equals(table(counted_parts(b, t), t)) for t in EVERY_CHUNK
    )


def part(out: Path, table_name: str, index: int) -> Path:
    return out / table_name / f"part-c000-{index:06d}.parquet"


def garble_decodably(path: Path) -> None:
    """Flip one byte so the file still reads, with other values: the worst damage."""
    original = path.read_bytes()
    before = pl.read_parquet(path)
    end = len(original) - int.from_bytes(original[-8:-4], "little") - 8  # the pages' end
    for offset in [*range(end // 2, end), *range(4, end // 2)]:  # in the pages, not the footer
        garbled = bytearray(original)
        garbled[offset] ^= 0x04
        path.write_bytes(bytes(garbled))
        try:
            if not pl.read_parquet(path).equals(before):
                return
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException:  # noqa: BLE001 - broke decoding (polars may panic); next byte
            continue
    raise AssertionError("no decodable garbling found")


DAMAGE = {
    "truncated": lambda p: p.write_bytes(p.read_bytes()[: p.stat().st_size // 2]),
    "zero-length": lambda p: p.write_bytes(b""),
    "garbled": garble_decodably,
    "missing": lambda p: p.unlink(),
}


def test_parts_are_recorded_with_the_checksum_of_their_bytes(run):
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["checksums"] == "sha256" and len(manifest["chunks"]) == GAMES // CHUNK
    for entry in manifest["chunks"].values():
        for table_name in EVERY_CHUNK:
            record = entry["parts"][table_name]
            path = run / table_name / record["file"]
            assert record["bytes"] == path.stat().st_size
            assert record["sha256"] == file_digest(path)
            assert record["rows"] == pl.read_parquet(path).height
        assert entry["parts"]["games"]["rows"] == CHUNK  # one row per game


@pytest.mark.parametrize("kind", list(DAMAGE))
@pytest.mark.parametrize("table_name", EVERY_CHUNK)
def test_a_damaged_part_is_found_left_out_and_replayed(run, reference, kind, table_name):
    victim = part(run, table_name, 2)
    DAMAGE[kind](victim)
    check = check_folder(run, layout.read_manifest(run))
    assert (check.missing if kind == "missing" else list(check.damaged)) == [
        f"{table_name}/{victim.name}"
    ]
    assert "c000-000002" not in check.done
    counted = counted_parts(run, "games")
    assert len(counted) == GAMES // CHUNK - 1  # the whole chunk is left out, games and cards
    assert pl.read_parquet(counted).height == GAMES - CHUNK
    warnings = []
    again = play(run, warnings)
    assert (again.played, again.skipped) == (CHUNK, GAMES - CHUNK)
    assert any(victim.name in w for w in warnings)
    assert check_folder(run, layout.read_manifest(run)).clean
    assert same_tables(run, reference)


def test_every_kind_of_damage_at_once_is_repaired_by_one_rerun(run, reference):
    for index, kind in enumerate(DAMAGE):
        DAMAGE[kind](part(run, "games" if index % 2 else "card_tallies", index))
    result = verify(run)
    assert result.exit_code == 1
    assert result.output.count("damaged  ") == 3 and result.output.count("missing  ") == 1
    again = play(run)
    assert again.played == 4 * CHUNK
    assert verify(run).exit_code == 0 and same_tables(run, reference)


def test_a_stray_or_duplicated_part_is_ignored_with_a_warning(run, reference):
    shutil.copy(part(run, "games", 0), run / "games" / "part-c000-000000 (copy).parquet")
    shutil.copy(part(run, "card_tallies", 1), run / "card_tallies" / "extra.parquet")
    assert len(counted_parts(run, "games")) == GAMES // CHUNK
    assert same_tables(run, reference)  # no extra games counted
    summary = cli("summary", str(run), "--no-cards")
    assert summary.exit_code == 0, summary.output
    assert f"{GAMES:,} games" in summary.output and "ignored 2 part file(s)" in summary.output
    result = verify(run)
    assert result.exit_code == 1
    assert "stray    games/part-c000-000000 (copy).parquet" in result.output
    warnings = []
    assert play(run, warnings).played == 0
    assert sum("extra.parquet" in w or "(copy)" in w for w in warnings) == 2
    assert (run / "card_tallies" / "extra.parquet").exists()  # not ours to delete


def test_an_unrecorded_part_is_not_trusted(run, reference):
    """As after a crash between a worker's write and the parent's next manifest save."""
    manifest = layout.read_manifest(run)
    manifest["chunks"]["c000-000004"] = {"status": "pending"}
    manifest["status"] = "running"
    layout.write_manifest(manifest, run)
    assert len(counted_parts(run, "card_tallies")) == GAMES // CHUNK - 1
    again = play(run)
    assert again.played == CHUNK
    statuses = {e["status"] for e in layout.read_manifest(run)["chunks"].values()}
    assert statuses == {"done"} and same_tables(run, reference)


def test_summary_says_the_run_stopped_or_failed(run):
    manifest = layout.read_manifest(run)
    manifest["status"] = "running"  # and no process holds the lock: it died
    layout.write_manifest(manifest, run)
    assert "stopped without finishing" in cli("summary", str(run), "--no-cards").output
    manifest.update(status="failed", error="cannot write to X: No space left on device")
    layout.write_manifest(manifest, run)
    assert "the run failed (cannot write to X: No space left" in cli("summary", str(run)).output
    result = cli("report", str(run), "--out", str(run.parent / "r.html"))
    assert result.exit_code == 0 and "warning: " in result.stderr and "failed" in result.stderr


def no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_full_disk_while_playing_marks_the_manifest_failed(tmp_path, monkeypatch):
    """On an in-process cluster, so the workers see the full disk too."""
    monkeypatch.setattr("sim.store.parquet.write", no_space)
    out = tmp_path / "full"
    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=False)
    with cluster, Client(cluster) as client, pytest.raises(ClusterError) as caught:
        execute(plan(), out, RunOptions(backend="dask", scheduler=client))
    manifest = layout.read_manifest(out)
    assert manifest["status"] == "failed" and "No space left on device" in manifest["error"]
    assert str(caught.value).startswith("cannot write chunk c000-")


def test_a_full_disk_while_writing_the_summaries_is_one_line(tmp_path, monkeypatch):
    """polars reports ENOSPC as a ComputeError: it must not escape as a traceback."""

    def polars_no_space(self, *args, **kwargs):
        raise pl.exceptions.ComputeError(
            "parquet: File out of specification: underlying IO error: "
            "No space left on device (os error 28)\n\nResolved plan until failure: ..."
        )

    monkeypatch.setattr(pl.DataFrame, "write_parquet", polars_no_space)
    out = tmp_path / "r"
    result = cli("run", "--games", "400", "--chunk-size", "200", "--out", str(out),
                 "--workers", "1", "--quiet")  # fmt: skip
    line = assert_exit_1(result)
    assert line.endswith("cannot write winrates.parquet: No space left on device (os error 28)")
    manifest = layout.read_manifest(out)
    assert manifest["status"] == "failed" and "winrates" in manifest["error"]
    assert {e["status"] for e in manifest["chunks"].values()} == {"done"}


def test_a_worker_failure_is_a_plain_message(tmp_path):
    raiser = Path(__file__).resolve().parents[1] / "strategies_for_tests.py"
    result = cli("run", "--players", f"{raiser}:Raiser,random", "--games", "4",
                 "--out", str(tmp_path / "r"), "--workers", "1", "--quiet")  # fmt: skip
    line = assert_exit_1(result)
    assert "no idea what to do" in line
    assert not any(name in line for name in ("ChunkError", "WorkerFailed", "StrategyError"))
    assert layout.read_manifest(tmp_path / "r")["status"] == "failed"


def test_a_corrupt_manifest_is_reported_as_corrupt_and_the_backup_restores_it(run):
    (run / "manifest.json").write_text('{"run_id": "trunc')
    args = ["run", "--games", str(GAMES), "--chunk-size", str(CHUNK), "--seed", "11",
            "--out", str(run), "--workers", "1", "--quiet"]  # fmt: skip
    line = assert_exit_1(cli(*args))
    assert "manifest.json is corrupt" in line and "no manifest" not in line
    assert f"cp {run / 'manifest.backup.json'} {run / 'manifest.json'}" in line
    assert "corrupt" in assert_exit_1(cli("verify", str(run)))
    shutil.copy(run / "manifest.backup.json", run / "manifest.json")
    again = cli(*args)
    assert again.exit_code == 0 and f"0 games played, {GAMES:,} already done" in again.output


def test_a_different_run_in_the_default_folder_says_exactly_what_to_do(run):
    line = assert_exit_1(cli("run", "--games", "200", "--out", str(run), "--quiet"))
    assert "holds a different run" in line
    assert "--out DIR" in line and "--overwrite" in line


def verify(out: Path):
    return cli("verify", str(out))


def test_verify_passes_a_sound_run_and_names_each_problem(run):
    clean = verify(run)
    assert clean.exit_code == 0, clean.output
    assert f"fine     24 parts: 6 chunks, {GAMES:,} games" in clean.output  # 4 tables
    DAMAGE["truncated"](part(run, "card_tallies", 3))
    damaged = verify(run)
    assert damaged.exit_code == 1
    assert "damaged  card_tallies/part-c000-000003.parquet: truncated" in damaged.output
    assert "fine     20 parts: 5 chunks" in damaged.output


def test_verify_refuses_what_is_not_a_run_folder(tmp_path):
    assert "not a run folder" in assert_exit_1(verify(tmp_path / "nowhere"))
    (tmp_path / "manifest.json").write_text(json.dumps({"status": "complete"}))
    assert "records no checksums" in assert_exit_1(verify(tmp_path))


def test_files_are_flushed_to_disk_before_and_after_they_are_renamed(tmp_path, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(source, target):
        events.append(("replace", str(source)))
        real_replace(source, target)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    layout.write_json({"a": 1}, tmp_path / "x.json")
    (first, tmp), (second, renamed), (third, folder) = events
    assert (first, second, third) == ("fsync", "replace", "fsync")
    assert tmp == renamed and Path(folder) == tmp_path


def test_readers_name_the_damage_when_no_part_of_a_table_verifies(run):
    for path in (run / "games").glob("*.parquet"):
        DAMAGE["truncated"](path)
    line = assert_exit_1(cli("summary", str(run)))
    assert "every games part is damaged or missing" in line and "rerun" in line
    line = assert_exit_1(cli("report", str(run), "--out", str(run.parent / "r.html")))
    assert "every games part is damaged or missing" in line


def test_a_chunk_whose_tallies_are_gone_is_named_not_called_empty(run):
    for path in (run / "card_tallies").glob("*.parquet"):
        path.unlink()
    line = assert_exit_1(cli("summary", str(run)))
    assert "every chunk has a damaged or missing part (card_tallies/part-c000-" in line


def test_a_folder_of_an_older_sim_says_so(run):
    """Before the card tallies a run wrote one long cards table; its chunks cannot count."""
    manifest = layout.read_manifest(run)
    (run / "card_tallies").rename(run / "cards")
    for entry in manifest["chunks"].values():
        entry["parts"]["cards"] = entry["parts"].pop("card_tallies")
    layout.write_manifest(manifest, run)
    line = assert_exit_1(cli("summary", str(run)))
    assert "written by an older sim" in line and "--overwrite" in line
