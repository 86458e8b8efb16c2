"""Local parallelism: worker processes that each play whole chunks; dead workers are replaced
and their chunk retried.

Each worker talks to the parent over its own pipe, never a shared queue: a worker killed at
any moment (even while sending) can only break its own pipe, whereas a shared queue's lock
dies with the process holding it and silently blocks every other worker's results.

A process that runs several plans (the tuner, training, `sim skill` rounds, the API) keeps
its idle workers for the next one when asked: starting a worker costs about two seconds
of imports and cache loads, often more than a small plan's games.
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
from collections.abc import Callable, Iterable
from contextlib import suppress

import multiprocess as mp
from multiprocess.connection import wait

from sim.runner.worker import ChunkError, Done, Task, play_chunk

MAX_ATTEMPTS = 3


class WorkerFailed(RuntimeError):
    """A chunk failed in a way a retry will not fix (or kept killing its worker)."""


def _worker_loop(conn, play, warm) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C means
    if warm is not None:
        with suppress(Exception):  # only a head start: a real fault shows in the first chunk
            warm()
    try:
        while (task := conn.recv()) is not None:
            try:
                reply = ("done", play(task))
            except ChunkError as exc:
                reply = ("error", str(exc))
            except OSError as exc:
                reply = ("error", f"chunk {task.chunk.name}: {exc.strerror or exc}")
            except (Exception, SystemExit, KeyboardInterrupt) as exc:  # noqa: BLE001
                # reported with its chunk; SIGINT is ignored here, so even a
                # KeyboardInterrupt is the code's own, never the user's Ctrl-C
                reply = ("error", f"chunk {task.chunk.name}: {exc!r}")
            conn.send(reply)
    except (EOFError, OSError):  # the parent is gone
        pass
    os._exit(0)  # every reply is sent whole: skip the slow interpreter teardown


class _Worker:
    """A worker process and its pipe; the parent always knows which chunk it holds."""

    def __init__(self, ctx, play, warm=None):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker_loop, args=(child, play, warm), daemon=True)
        self.proc.start()
        child.close()  # so the parent's end reads as closed once the worker dies
        self.chunk: str | None = None

    def give(self, task: Task) -> None:
        self.chunk = task.chunk.name
        with suppress(OSError):  # already dead: noticed by the next wait, the chunk retried
            self.conn.send(task)

    def reply(self) -> tuple | None:
        """The worker's reply, or None if it died before sending one whole."""
        try:
            return self.conn.recv() if self.conn.poll() else None
        except (EOFError, OSError):
            return None

    def ask_to_stop(self) -> None:
        with suppress(OSError):
            self.conn.send(None)

    def stop(self) -> None:
        self.proc.join(timeout=2)
        if self.proc.is_alive():
            self.proc.terminate()
        self.conn.close()


def run_local(
    tasks: Iterable[Task],
    workers: int,
    on_done: Callable[[Done], None],
    play: Callable[[Task], Done] = play_chunk,
    warm: Callable[[], None] | None = None,
    keep: bool = False,
) -> None:
    """Play every task on `workers` processes, calling on_done in the parent as each ends.

    The workers are started before `tasks` is read, so whatever making the tasks costs
    the parent (a generator may do its work there) overlaps their start-up; each calls
    warm() first, if given, to load what its first task needs. With keep, workers left
    idle by an earlier run with keep in the same surroundings are used first, and this
    run's workers stay for the next one if it ends well."""
    ctx = mp.get_context("spawn")  # no fork: the parent may hold threads (progress, polars)
    pool: list[_Worker] = _take_idle(_surroundings(play), workers) if keep else []
    ended_well = False
    try:
        pool += [_Worker(ctx, play, warm) for _ in range(workers - len(pool))]
        pending = {task.chunk.name: task for task in tasks}
        todo = list(pending)
        attempts = dict.fromkeys(pending, 0)
        while pending:
            for worker in pool:
                if worker.chunk is None and todo:
                    chunk = todo.pop(0)
                    attempts[chunk] += 1
                    worker.give(pending[chunk])
            ready = wait([w.conn for w in pool] + [w.proc.sentinel for w in pool])
            for worker in [w for w in pool if w.conn in ready or w.proc.sentinel in ready]:
                reply = worker.reply()
                if reply is None:
                    pool.remove(worker)
                    _retry(worker.chunk, todo, attempts)
                    worker.stop()
                    pool.append(_Worker(ctx, play, warm))
                    continue
                kind, payload = reply
                if kind == "error":
                    raise WorkerFailed(payload)
                worker.chunk = None
                del pending[payload.chunk]
                on_done(payload)
        ended_well = True
    finally:
        if keep and ended_well:  # the surroundings now: the run's imports may set variables
            _keep_idle(_surroundings(play), pool)  # (polars does) that workers set alike
        else:
            _stop_all(pool)


_IDLE: list[tuple[tuple, _Worker]] = []  # (what each kept worker was started with, it)


def _surroundings(play: Callable) -> tuple:
    """What a worker inherits when it starts: a kept worker serves only a run that would
    have started it the same way (same play function, folder, environment and path)."""
    return (play, os.getcwd(), tuple(sorted(os.environ.items())), tuple(sys.path))


def _take_idle(key: tuple, count: int) -> list[_Worker]:
    """Up to count idle workers started in these surroundings and still alive."""
    taken: list[_Worker] = []
    for entry in [e for e in _IDLE if e[0] == key]:
        if len(taken) == count:
            break
        _IDLE.remove(entry)
        worker = entry[1]
        if worker.proc.is_alive():
            taken.append(worker)
        else:
            worker.stop()
    return taken


def _keep_idle(key: tuple, pool: list[_Worker]) -> None:
    """Park the run's workers for the next run; the oldest beyond one per core are stopped,
    so a process that runs in many surroundings holds no more workers than it has cores."""
    _IDLE.extend((key, worker) for worker in pool)
    surplus = len(_IDLE) - (os.cpu_count() or 1)
    if surplus > 0:
        _stop_all([worker for _, worker in _IDLE[:surplus]])
        del _IDLE[:surplus]


def stop_idle_workers() -> None:
    """Stop every parked worker (also done when the process exits)."""
    _stop_all([worker for _, worker in _IDLE])
    _IDLE.clear()


atexit.register(stop_idle_workers)


def _stop_all(pool: list[_Worker]) -> None:
    for worker in pool:  # all at once: each takes a while to exit
        worker.ask_to_stop()
    for worker in pool:
        worker.stop()


def _retry(chunk: str | None, todo: list[str], attempts: dict[str, int]) -> None:
    """A dead worker's chunk goes back to the front of the line, up to MAX_ATTEMPTS plays."""
    if chunk is None:
        return
    if attempts[chunk] >= MAX_ATTEMPTS:
        raise WorkerFailed(f"chunk {chunk} killed its worker {MAX_ATTEMPTS} times")
    todo.insert(0, chunk)
