"""Local parallelism: worker processes that each play whole chunks; dead workers are replaced
and their chunk retried."""

from __future__ import annotations

import queue
import signal
from collections.abc import Callable, Iterable

import multiprocess as mp

from sim.runner.worker import ChunkError, Done, Task, play_chunk

MAX_ATTEMPTS = 3


class WorkerFailed(RuntimeError):
    """A chunk failed in a way a retry will not fix (or kept killing its worker)."""


def _worker_loop(tasks, results) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C means
    while True:
        task = tasks.get()
        if task is None:
            return
        results.put(("start", mp.current_process().name, task.chunk.name))
        try:
            results.put(("done", mp.current_process().name, play_chunk(task)))
        except (ChunkError, OSError) as exc:
            results.put(("error", mp.current_process().name, f"{type(exc).__name__}: {exc}"))
        except Exception as exc:  # noqa: BLE001 - reported to the parent with its chunk
            results.put(("error", mp.current_process().name, f"chunk {task.chunk.name}: {exc!r}"))


def run_local(tasks: Iterable[Task], workers: int, on_done: Callable[[Done], None]) -> None:
    """Play every task on `workers` processes, calling on_done in the parent as each ends."""
    ctx = mp.get_context("spawn")  # no fork: the parent may hold threads (progress, polars)
    pending = {task.chunk.name: task for task in tasks}
    if not pending:
        return
    task_queue, results = ctx.Queue(), ctx.Queue()
    for task in pending.values():
        task_queue.put(task)
    attempts = dict.fromkeys(pending, 1)
    procs, working = {}, {}

    def spawn() -> None:
        proc = ctx.Process(target=_worker_loop, args=(task_queue, results), daemon=True)
        proc.start()
        procs[proc.name] = proc

    for _ in range(min(workers, len(pending))):
        spawn()
    try:
        while pending:
            try:
                kind, name, payload = results.get(timeout=0.5)
            except queue.Empty:
                _replace_dead(procs, working, pending, attempts, task_queue, spawn)
                continue
            if kind == "start":
                working[name] = payload
            elif kind == "done":
                working.pop(name, None)
                pending.pop(payload.chunk, None)
                on_done(payload)
            else:
                raise WorkerFailed(payload)
    finally:
        for _ in procs:
            task_queue.put(None)
        for proc in procs.values():
            proc.join(timeout=2)
            if proc.is_alive():
                proc.terminate()


def _replace_dead(procs, working, pending, attempts, task_queue, spawn) -> None:
    """A worker that died mid-chunk gets replaced; its chunk goes back in the queue."""
    for name, proc in list(procs.items()):
        if proc.is_alive():
            continue
        del procs[name]
        chunk = working.pop(name, None)
        if chunk is not None and chunk in pending:
            attempts[chunk] += 1
            if attempts[chunk] > MAX_ATTEMPTS:
                raise WorkerFailed(f"chunk {chunk} killed its worker {MAX_ATTEMPTS} times")
            task_queue.put(pending[chunk])
        spawn()
