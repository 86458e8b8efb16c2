"""Local parallelism: worker processes that each play whole chunks; dead workers are replaced
and their chunk retried."""

from __future__ import annotations

import os
import queue
import signal
from collections.abc import Callable, Iterable

import multiprocess as mp

from sim.runner.worker import ChunkError, Done, Task, play_chunk

MAX_ATTEMPTS = 3


class WorkerFailed(RuntimeError):
    """A chunk failed in a way a retry will not fix (or kept killing its worker)."""


def _worker_loop(inbox, results, play) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C means
    name = mp.current_process().name
    while True:
        task = inbox.get()
        if task is None:  # every result is with the parent: skip the slow interpreter teardown
            results.close()
            results.join_thread()
            os._exit(0)
        try:
            results.put(("done", name, play(task)))
        except (ChunkError, OSError) as exc:
            results.put(("error", name, f"{type(exc).__name__}: {exc}"))
        except Exception as exc:  # noqa: BLE001 - reported to the parent with its chunk
            results.put(("error", name, f"chunk {task.chunk.name}: {exc!r}"))


class _Worker:
    """A worker process with its own inbox; the parent always knows which chunk it holds."""

    def __init__(self, ctx, results, play):
        self.inbox = ctx.Queue()
        self.proc = ctx.Process(target=_worker_loop, args=(self.inbox, results, play), daemon=True)
        self.proc.start()
        self.chunk: str | None = None

    def give(self, task: Task) -> None:
        self.chunk = task.chunk.name
        self.inbox.put(task)

    def ask_to_stop(self) -> None:
        self.inbox.put(None)

    def stop(self) -> None:
        self.proc.join(timeout=2)
        if self.proc.is_alive():
            self.proc.terminate()


def run_local(
    tasks: Iterable[Task],
    workers: int,
    on_done: Callable[[Done], None],
    play: Callable[[Task], Done] = play_chunk,
) -> None:
    """Play every task on `workers` processes, calling on_done in the parent as each ends."""
    ctx = mp.get_context("spawn")  # no fork: the parent may hold threads (progress, polars)
    pending = {task.chunk.name: task for task in tasks}
    todo = list(pending)
    attempts = dict.fromkeys(pending, 0)
    results = ctx.Queue()
    pool = {}
    try:
        for _ in range(min(workers, len(pending))):
            worker = _Worker(ctx, results, play)
            pool[worker.proc.name] = worker
        while pending:
            for worker in pool.values():
                if worker.chunk is None and todo:
                    chunk = todo.pop(0)
                    attempts[chunk] += 1
                    worker.give(pending[chunk])
            try:
                kind, name, payload = results.get(timeout=0.5)
            except queue.Empty:
                _replace_dead(pool, todo, attempts, lambda: _Worker(ctx, results, play))
                continue
            if kind == "error":
                raise WorkerFailed(payload)
            pool[name].chunk = None
            del pending[payload.chunk]
            on_done(payload)
    finally:
        for worker in pool.values():  # all at once: each takes a while to exit
            worker.ask_to_stop()
        for worker in pool.values():
            worker.stop()


def _replace_dead(pool, todo, attempts, new_worker) -> None:
    """A worker that died mid-chunk is replaced; its chunk goes back to the front of the line."""
    for name, worker in list(pool.items()):
        if worker.proc.is_alive():
            continue
        del pool[name]
        if worker.chunk is not None:
            if attempts[worker.chunk] >= MAX_ATTEMPTS:
                raise WorkerFailed(f"chunk {worker.chunk} killed its worker {MAX_ATTEMPTS} times")
            todo.insert(0, worker.chunk)
        replacement = new_worker()
        pool[replacement.proc.name] = replacement
