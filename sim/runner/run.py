"""A whole run: prepare the folder, play what is not on disk yet, then write the summaries.

Rerunning the same command continues an interrupted run: finished chunks are those whose
two part files match the size and checksum the manifest records of them, so nothing finished
is played twice and nothing damaged, unrecorded or unfinished is trusted. One run at a time
holds the folder (lock.py).
"""

from __future__ import annotations

import os
import platform
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from sim.model.config import Config
from sim.model.documents import parse_json
from sim.runner.plan import Chunk, RunPlan
from sim.runner.provenance import sim_version
from sim.runner.worker import Done, Task, warm
from sim.store import layout, lock
from sim.store.seeds import SCHEME, cell_key


class RunError(RuntimeError):
    """A run that cannot start or go on; the message says why and what to do."""


@dataclass
class RunResult:
    out: Path
    played: int  # games played by this invocation
    skipped: int  # games already on disk from an earlier invocation
    seconds: float


@dataclass(frozen=True)
class RunOptions:
    """How a run is carried out, never what it plays (results depend only on the plan):
    worker processes (None: every core), the backend (local or dask) and the Dask
    scheduler (an address, or a Client in tests), and whether a different run already in
    the folder may be replaced."""

    workers: int | None = None
    backend: str = "local"
    scheduler: Any = None
    overwrite: bool = False


def execute(
    plan: RunPlan,
    out: Path,
    options: RunOptions = RunOptions(),
    progress: Callable[[int, int], None] | None = None,
    warn: Callable[[str], None] | None = None,
    note: Callable[[str], None] | None = None,
    watch: Callable[[dict], None] | None = None,
) -> RunResult:
    """Play the plan into out, holding its lock; `progress(done, total)` is called as games
    finish, `warn(message)` for parts set aside (default: a `warning:` line on stderr),
    `note(what)` before something is compiled (compile_first, while the workers start),
    `watch(counts)` with each chunk's counts (quantities.win_counts), those on disk first."""
    with ExitStack() as stack:
        try:
            stack.enter_context(lock.hold(out))
        except lock.LockError as exc:
            raise RunError(str(exc)) from None
        except OSError as exc:
            raise RunError(f"cannot write to {out}: {exc.strerror or exc}") from None
        hooks = _Hooks(progress, warn or _warn_on_stderr, note or (lambda what: None), watch)
        return _locked(plan, out, options, hooks)


@dataclass(frozen=True)
class _Hooks:
    """What execute tells its caller as it goes (see execute)."""

    progress: Callable[[int, int], None] | None
    warn: Callable[[str], None]
    note: Callable[[str], None]
    watch: Callable[[dict], None] | None


def _locked(plan, out, options: RunOptions, hooks: _Hooks) -> RunResult:
    """execute, once the folder is ours: the manifest says `failed` and why if it stops."""
    started = time.perf_counter()
    manifest = _prepare(plan, out, options.overwrite, hooks.warn)
    chunks = plan.chunks()
    todo = [c for c in chunks if manifest["chunks"][c.name]["status"] != "done"]
    skipped = sum(c.stop - c.start for c in chunks) - sum(c.stop - c.start for c in todo)
    parent_syncs = options.backend == "local"  # a cluster's workers flush their own parts
    tasks = _compiled_then(plan, hooks.note, _tasks(plan, out, todo, sync=not parent_syncs))
    unsynced: list[Path] = []  # parts to flush before a manifest records them
    state = {"done": skipped, "last_write": 0.0}
    counts: dict[str, dict] = {}  # chunk name -> its summary counts, as chunks finish
    progress, watch = hooks.progress, hooks.watch
    if watch:  # the chunks on disk first, counted now rather than at the end
        for c in chunks:
            if manifest["chunks"][c.name]["status"] == "done":
                counts[c.name] = _count_part(out, c, manifest["chunks"][c.name])
                watch(counts[c.name])
    if progress:
        progress(skipped, plan.total_games)

    def on_done(done: Done) -> None:
        state["done"] += done.games
        if done.counts is not None:
            counts[done.chunk] = done.counts
            if watch:
                watch(done.counts)
        manifest["chunks"][done.chunk] = {
            "status": "done",
            "seconds": round(done.seconds, 3),
            "write_seconds": round(done.write_seconds, 3),
            "parts": done.parts,
        }
        if parent_syncs:
            unsynced.extend(out / table / part["file"] for table, part in done.parts.items())
        if progress:
            progress(state["done"], plan.total_games)
        if time.monotonic() - state["last_write"] > 2:
            _save(manifest, out, unsynced)
            state["last_write"] = time.monotonic()

    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        keep = all(m.compiled for m in plan.matchups)  # no Python strategy a worker holds
        _dispatch(tasks, len(todo), options, on_done, partial(warm, _firsts(todo)), keep)
        _finish(manifest, out, chunks, counts, unsynced)
    except KeyboardInterrupt:
        _stopped(manifest, out, unsynced, "interrupted")
        raise
    except BaseException as exc:
        _stopped(manifest, out, unsynced, "failed", str(exc) or repr(exc))
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
    played = state["done"] - skipped
    return RunResult(out, played, skipped, time.perf_counter() - started)


def _stopped(manifest: dict, out: Path, unsynced, status: str, error: str | None = None) -> None:
    """Record why the run stopped, if the folder still takes a write (a full disk may not:
    readers then see `running` with no live lock holder, a run that died)."""
    manifest["status"] = status
    if error:
        manifest["error"] = error
    with suppress(RunError):
        _save(manifest, out, unsynced)


def _warn_on_stderr(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr)


def _tasks(plan: RunPlan, out: Path, todo: list, sync: bool = True) -> Iterator[Task]:
    """The chunks' tasks, made as they are first asked for: the local backend starts its
    workers before that, so loading polars for the schemas overlaps their start-up. Without
    sync the workers leave flushing their parts to the parent."""
    keys = {cell.index: cell_key(plan.seed, cell.matchup) for cell in plan.cells()}
    run_id, source = plan.run_id, plan.params()["sim_source"]
    schemas = part_schemas()
    for c in todo:
        key, cards = keys[c.cell.index], plan.per_game_cards
        yield Task(str(out), run_id, c, key, c.cell.swap, source, schemas, cards, sync)


def _compiled_then(plan: RunPlan, note, tasks: Iterator[Task]) -> Iterator[Task]:
    """tasks, once compile_first has run: the local backend asks for the first task after
    starting its workers, so a warm cache's check overlaps their start-up. The summaries'
    imports come here too, rather than in the wait at the end."""
    compile_first(plan, note)
    yield from tasks
    from sim.store import summaries  # noqa: F401


def _firsts(todo: list) -> list:
    """The first chunk to play of each cell: what a worker warms up for."""
    firsts: dict[int, Chunk] = {}
    for chunk in todo:
        firsts.setdefault(chunk.cell.index, chunk)
    return list(firsts.values())


def compile_first(plan: RunPlan, note: Callable[[str], None]) -> None:
    """Compile each built-in match-up's loop, and the part writer, once before the workers
    start when the cache lacks them, note(what) saying so first: the workers then load
    them, and the run's games/s holds no compile. The part writer compiles in a process of
    its own beside the engine where there is a second core, which shortens a cold start."""
    from sim.play.batch import compile_cold

    with ExitStack() as stack:
        writer = _writer_beside(plan, note, stack)
        for config in plan.configs:
            for players in plan.matchups:
                compile_cold(config, players, lambda label: note(f"the engine for {label}"))
        if writer is not None:
            writer.join()
    compile_writer(plan, note if writer is None else lambda what: None)


def _writer_beside(plan: RunPlan, note: Callable[[str], None], stack: ExitStack):
    """A started process compiling the part writer (None where it is cached, or on one
    core); stopped if the engine's compile fails. compile_writer checks it afterwards: a
    failed or killed helper leaves the kernels uncached, and the parent compiles them."""
    import tempfile

    import multiprocess as mp

    from sim.runner.worker import kernels_cached, record_blank

    if (os.cpu_count() or 1) < 2 or kernels_cached():
        return None
    note("the run's part writer")
    task = _blank_task(plan, stack.enter_context(tempfile.TemporaryDirectory(prefix="sim-warm-")))
    helper = mp.get_context("spawn").Process(target=record_blank, args=(task,), daemon=True)
    helper.start()
    stack.callback(lambda: helper.is_alive() and helper.terminate())
    return helper


def compile_writer(plan: RunPlan, note: Callable[[str], None]) -> None:
    """Write a blank first chunk into a temporary folder when the runner's own compiled
    kernels (part writer, tallies) are not on disk yet, saying so: one compile here that
    every worker then loads, instead of one per worker at once inside the timed run
    (measured: a cold first run said "played in 29.3 s", against 5.4 s warm)."""
    import tempfile

    from sim.runner.worker import kernels_cached, record_blank

    if kernels_cached():
        return
    note("the run's part writer")
    with tempfile.TemporaryDirectory(prefix="sim-warm-") as tmp:
        record_blank(_blank_task(plan, tmp))


def _blank_task(plan: RunPlan, folder: str) -> Task:
    """The run's first chunk as a task writing into folder: its blank record compiles the
    writer's kernels for the run's column sizes."""
    return next(_tasks(plan, Path(folder), plan.chunks()[:1]))


def part_schemas() -> dict[str, bytes]:
    """Each part table's serialized Arrow schema, made once here for every worker."""
    from sim.store.schema import serialized_schema

    return {table: serialized_schema(table) for table in layout.TABLES}


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def _dispatch(tasks, count: int, options: RunOptions, on_done, warm=None, keep=False) -> None:
    """Play the `count` tasks on the options' backend; a local worker first calls warm().
    With keep, local workers stay for this process's next run (sim.runner.local)."""
    if options.backend == "local":
        from sim.runner.local import run_local

        if count:
            workers = min(options.workers or os.cpu_count() or 1, count)
            run_local(tasks, workers, on_done, warm=warm, keep=keep)
    elif options.backend == "dask":
        from sim.runner.dask_backend import run_dask

        if options.scheduler is None:
            raise RunError("--backend dask needs --scheduler tcp://HOST:PORT")
        run_dask(tasks, options.scheduler, on_done)
    else:
        raise RunError(f"unknown backend {options.backend!r}; available: local, dask")


def _prepare(plan: RunPlan, out: Path, overwrite: bool, warn: Callable[[str], None]) -> dict:
    """Create or reopen the run folder; refuse one that holds a different run. Chunk
    statuses are set from the parts on disk: done only where all its parts fully verify."""
    try:
        existing = _existing(plan, out, overwrite)
        layout.sweep_temporaries(out)
        manifest = existing or _new_manifest(plan)
        manifest["status"] = "running"
        manifest.pop("error", None)
        manifest["chunks"] = _verified_chunks(plan, out, existing or {}, warn)
        manifest["checksums"] = layout.DIGEST
        _save(manifest, out)
        return manifest
    except OSError as exc:
        raise RunError(f"cannot write to {out}: {exc.strerror or exc}") from exc


def _existing(plan: RunPlan, out: Path, overwrite: bool) -> dict | None:
    """The folder's manifest if it holds this run; None for a new (or replaced) folder."""
    try:
        existing = layout.read_manifest(out)
    except layout.ManifestError as exc:
        if not overwrite:
            raise RunError(f"{exc}; {_restore_advice(out)}") from None
        existing = None
    if existing is not None and existing.get("params") != plan.params():
        if not overwrite:
            raise RunError(
                f"{out} holds a different run ({existing.get('run_id')}; "
                f"{_differences(existing.get('params') or {}, plan.params())}); "
                f"keep it and write this run elsewhere with --out DIR (e.g. --out "
                f"{out.parent / plan.run_id}), or replace it with --overwrite"
            )
        layout.clear_folder(out)
        return None
    has_parts = any((out / t).exists() for t in layout.TABLES)
    if existing is None and has_parts:
        if not overwrite:
            raise RunError(f"{out} holds part files but no manifest; {_restore_advice(out)}")
        layout.clear_folder(out)
    return existing


def _restore_advice(out: Path) -> str:
    """What to do about a lost or damaged manifest without replaying what is verified."""
    backup = out / layout.BACKUP
    try:
        parse_json(backup.read_text())
    except (OSError, ValueError):
        return "without it no part can be verified: --overwrite replays the whole run"
    return (
        f"restore its last good copy (cp {backup} {out / layout.MANIFEST}) and rerun: the "
        "parts it records are verified and kept, the rest replayed (or --overwrite replays all)"
    )


def _verified_chunks(plan: RunPlan, out: Path, existing: dict, warn) -> dict[str, dict]:
    """Each chunk's entry: kept where all its parts fully verify; otherwise pending, its part
    files deleted (replaying is deterministic). Part files no chunk names stay, ignored."""
    from sim.store import verify

    check = verify.check_folder(out, existing, full=True)
    for where, problem in check.damaged.items():
        warn(f"{out / where} is damaged ({problem}); its chunk is played again")
    for where in check.missing:
        warn(f"{out / where} is missing; its chunk is played again")
    chunks = {}
    for c in plan.chunks():
        if c.name in check.done:
            chunks[c.name] = check.done[c.name]
            continue
        chunks[c.name] = {"status": "pending"}
        for table in verify.TABLES:
            layout.part_path(out, table, c.name).unlink(missing_ok=True)
    names = {f"{t}/{layout.part_path(out, t, n).name}" for t in verify.TABLES for n in chunks}
    for where in check.stray:
        if where not in names:
            warn(f"{out / where} is not a part of this run's manifest; ignored")
    return chunks


def _differences(old: dict, new: dict) -> str:
    """What sets an existing run apart from this one, in words."""
    said = []
    for key in sorted(set(old) | set(new)):
        if old.get(key) == new.get(key):
            continue
        if key == "sim_source":
            said.append("sim's code has changed since it was played")
        elif key == "strategy_versions":
            before, now = old.get(key) or {}, new.get(key) or {}
            changed = [s for s in now if s in before and before[s] != now[s]]
            said += [f"strategy {s} has changed ({before[s]} -> {now[s]})" for s in changed]
        elif key == "configs":
            before = {c["name"]: c["hash"] for c in old.get(key) or []}
            now = {c["name"]: c["hash"] for c in new.get(key) or []}
            changed = [c for c in now if c in before and before[c] != now[c]]
            said += [f"config {c} has changed" for c in changed]
            if list(before) != list(now):
                said.append(f"configs {', '.join(before)} -> {', '.join(now)}")
        else:
            said.append(f"{key} {old.get(key)!r} -> {new.get(key)!r}")
    return "; ".join(said) or "other parameters"


def _new_manifest(plan: RunPlan) -> dict:
    """Everything needed to reproduce the run."""
    return {
        "run_id": plan.run_id,
        "params": plan.params(),
        "sim_version": sim_version(),
        "python": platform.python_version(),
        "libraries": library_versions(),
        "configs": {c.name: _config_record(c) for c in plan.configs},
        "strategies": sorted({s for m in plan.matchups for s in m.specs}),
        "strategy_versions": plan.strategy_versions,
        "master_seed": plan.seed,
        "seeds": SCHEME,  # how a game's seed follows from its cell's seed_key (not stored)
        "games_per_cell": plan.games,
        "total_games": plan.total_games,
        "cells": [
            {
                "index": c.index,
                "config": c.config.name,
                "matchup": c.matchup,
                "seed_key": cell_key(plan.seed, c.matchup),
            }
            for c in plan.cells()
        ],
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "checksums": layout.DIGEST,
    }


def _config_record(config: Config) -> dict:
    """What a manifest keeps of a config: its hash, file and content, and for a derived one
    the --set items, so a replay derives it again (reports.replay)."""
    record = {"hash": config.hash, "path": str(config.path), "content": config.to_dict()}
    if config.overlay:
        record["overlay"] = list(config.overlay)
    return record


LIBRARIES = ("numpy", "numba", "polars", "pyarrow", "scipy", "zstandard")  # zstd: part pages


def library_versions() -> dict[str, str]:
    """The installed versions of the libraries that play, write and read the run."""
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in LIBRARIES:
        with suppress(PackageNotFoundError):
            found[name] = version(name)
    return found


def _save(manifest: dict, out: Path, unsynced: list[Path] | None = None) -> None:
    """Write the manifest, first flushing the parts it records that were written without
    fsync (the workers leave that to the parent, which otherwise waits on its workers)."""
    try:
        if unsynced:
            layout.sync_files(unsynced)
            unsynced.clear()
        layout.write_manifest(manifest, out)
    except OSError as exc:
        raise RunError(f"cannot write to {out}: {exc.strerror or exc}") from exc


def _finish(manifest: dict, out: Path, chunks, counts: dict[str, dict], unsynced) -> None:
    """Summaries from every chunk's counts (those the workers sent, or counted from the part
    on disk for chunks an earlier invocation played); only then is the run complete."""
    from sim.store import summaries

    try:
        every = [
            counts[c.name] if c.name in counts else _count_part(out, c, manifest["chunks"][c.name])
            for c in chunks
        ]
        layout.write_parquet(summaries.winrates(every), out / "winrates.parquet")
        layout.write_parquet(summaries.tiebreaks(every), out / "tiebreaks.parquet")
    except OSError as exc:
        raise RunError(f"cannot write to {out}: {exc.strerror or exc}") from exc
    manifest["status"] = "complete"
    manifest["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    _save(manifest, out, unsynced)


def _count_part(out: Path, chunk, entry: dict) -> dict:
    """The summary counts of a chunk an earlier invocation played (entry: its manifest
    record), from its tallies part or, played before that table, its games part."""
    from sim.store.cell_tallies import chunk_counts
    from sim.store.quantities import win_counts

    hist, _, paired = chunk_counts(out, chunk.name, entry)
    return win_counts(chunk.cell, hist, paired)
