"""A whole run: prepare the folder, play what is not on disk yet, then write the summaries.

Rerunning the same command continues an interrupted run: finished chunks are the part
files on disk, so nothing finished is played twice and nothing unfinished is trusted.
"""

from __future__ import annotations

import os
import platform
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from sim.provenance import sim_version
from sim.runner import storage
from sim.runner.plan import RunPlan
from sim.runner.seeds import cell_key
from sim.runner.worker import Done, Task


class RunError(RuntimeError):
    """A run that cannot start or go on; the message says why and what to do."""


@dataclass
class RunResult:
    out: Path
    played: int  # games played by this invocation
    skipped: int  # games already on disk from an earlier invocation
    seconds: float


def execute(
    plan: RunPlan,
    out: Path,
    workers: int | None = None,
    backend: str = "local",
    scheduler=None,
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> RunResult:
    """Play the plan into out; `progress(done, total)` is called as games finish."""
    started = time.perf_counter()
    manifest = _prepare(plan, out, overwrite)
    chunks = plan.chunks()
    todo = [c for c in chunks if not storage.chunk_done(out, c.name)]
    skipped = sum(c.stop - c.start for c in chunks) - sum(c.stop - c.start for c in todo)
    tasks = _tasks(plan, out, todo)
    state = {"done": skipped, "last_write": 0.0}
    counts: dict[str, dict] = {}  # chunk name -> its summary counts, as chunks finish
    if progress:
        progress(skipped, plan.total_games)

    def on_done(done: Done) -> None:
        state["done"] += done.games
        if done.counts is not None:
            counts[done.chunk] = done.counts
        manifest["chunks"][done.chunk] = {
            "status": "done",
            "seconds": round(done.seconds, 3),
            "write_seconds": round(done.write_seconds, 3),
        }
        if progress:
            progress(state["done"], plan.total_games)
        if time.monotonic() - state["last_write"] > 2:
            _save(manifest, out)
            state["last_write"] = time.monotonic()

    previous = signal.signal(signal.SIGTERM, _raise_interrupt)
    try:
        _dispatch(tasks, len(todo), backend, workers, scheduler, on_done)
    except KeyboardInterrupt:
        manifest["status"] = "interrupted"
        _save(manifest, out)
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
    _finish(manifest, out, chunks, counts)
    played = state["done"] - skipped
    return RunResult(out, played, skipped, time.perf_counter() - started)


def _tasks(plan: RunPlan, out: Path, todo: list) -> Iterator[Task]:
    """The chunks' tasks, made as they are first asked for: the local backend starts its
    workers before that, so loading polars for the schemas overlaps their start-up."""
    keys = {cell.index: cell_key(plan.seed, cell.matchup) for cell in plan.cells()}
    run_id, source = plan.run_id, plan.params()["sim_source"]
    schemas = part_schemas()
    for c in todo:
        yield Task(str(out), run_id, c, keys[c.cell.index], c.cell.swap, source, schemas)


def part_schemas() -> dict[str, bytes]:
    """Each part table's serialized Arrow schema, made once here for every worker."""
    from sim.runner.schema import serialized_schema

    return {table: serialized_schema(table) for table in (storage.GAMES, storage.CARDS)}


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def _dispatch(tasks, count: int, backend, workers, scheduler, on_done) -> None:
    """Play the `count` tasks on the backend."""
    if backend == "local":
        from sim.runner.local import run_local

        if count:
            run_local(tasks, min(workers or os.cpu_count() or 1, count), on_done)
    elif backend == "dask":
        from sim.runner.dask_backend import run_dask

        if scheduler is None:
            raise RunError("--backend dask needs --scheduler tcp://HOST:PORT")
        run_dask(tasks, scheduler, on_done)
    else:
        raise RunError(f"unknown backend {backend!r}; available: local, dask")


def _prepare(plan: RunPlan, out: Path, overwrite: bool) -> dict:
    """Create or reopen the run folder; refuse one that holds a different run."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        existing = storage.read_manifest(out)
        if existing is not None and existing.get("params") != plan.params():
            if not overwrite:
                raise RunError(
                    f"{out} holds a different run ({existing.get('run_id')}; "
                    f"{_differences(existing.get('params') or {}, plan.params())}); "
                    "choose another --out or pass --overwrite to replace it"
                )
            storage.clear_folder(out)
            existing = None
        elif existing is None and any((out / t).exists() for t in (storage.GAMES, storage.CARDS)):
            if not overwrite:
                raise RunError(f"{out} holds part files but no manifest; pass --overwrite")
            storage.clear_folder(out)
        storage.sweep_temporaries(out)
        manifest = existing or _new_manifest(plan)
        manifest["status"] = "running"
        manifest["chunks"] = {
            c.name: manifest.get("chunks", {}).get(c.name, {"status": "pending"})
            for c in plan.chunks()
        }
        _save(manifest, out)
        return manifest
    except OSError as exc:
        raise RunError(f"cannot write to {out}: {exc.strerror or exc}") from exc


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
        "configs": {
            c.name: {"hash": c.hash, "path": str(c.path), "content": c.to_dict()}
            for c in plan.configs
        },
        "strategies": sorted({s for m in plan.matchups for s in m}),
        "strategy_versions": plan.strategy_versions,
        "master_seed": plan.seed,
        "games_per_cell": plan.games,
        "total_games": plan.total_games,
        "cells": [
            {"index": c.index, "config": c.config.name, "matchup": c.matchup} for c in plan.cells()
        ],
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def _save(manifest: dict, out: Path) -> None:
    try:
        storage.write_json(manifest, out / storage.MANIFEST)
    except OSError as exc:
        raise RunError(f"cannot write to {out}: {exc.strerror or exc}") from exc


def _finish(manifest: dict, out: Path, chunks, counts: dict[str, dict]) -> None:
    """Summaries from every chunk's counts (those the workers sent, or counted from the part
    on disk for chunks an earlier invocation played); only then is the run complete."""
    from sim.runner import summaries

    try:
        every = [counts[c.name] if c.name in counts else _count_part(out, c) for c in chunks]
        storage.write_parquet(summaries.winrates(every), out / "winrates.parquet")
        storage.write_parquet(summaries.tiebreaks(every), out / "tiebreaks.parquet")
    except OSError as exc:
        raise RunError(f"cannot write to {out}: {exc.strerror or exc}") from exc
    manifest["status"] = "complete"
    manifest["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    _save(manifest, out)


def _count_part(out: Path, chunk) -> dict:
    """count_games of a chunk an earlier invocation played, from its games part."""
    from sim.runner import tables

    return tables.count_part(chunk.cell, storage.part_path(out, storage.GAMES, chunk.name))
