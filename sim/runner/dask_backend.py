"""The cluster backend: the same chunk tasks on a Dask distributed cluster.

Workers need only `pip install` of this package (with the `cluster` extra) and must see
the output folder at the same path (a shared file system).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from sim.runner.worker import ChunkError, Done, Task, play_chunk


class ClusterError(RuntimeError):
    """The cluster could not be reached or used."""


def run_dask(tasks: Iterable[Task], scheduler, on_done: Callable[[Done], None]) -> None:
    """Submit every task (retried up to twice by Dask) and report each as it completes.

    `scheduler` is an address like tcp://host:8786, or a Client/cluster object in tests.
    """
    try:
        from dask.distributed import Client, as_completed
    except ImportError as exc:
        raise ClusterError(
            "the dask backend needs dask.distributed: pip install 'one-zero-one-sim[cluster]'"
        ) from exc
    tasks = list(tasks)
    if not tasks:
        return
    try:
        client = scheduler if isinstance(scheduler, Client) else Client(scheduler, timeout="10s")
    except OSError as exc:
        raise ClusterError(f"cannot reach the Dask scheduler {scheduler}: {exc}") from exc
    try:
        futures = client.map(play_chunk, tasks, pure=False, retries=2)
        names = {future.key: task.chunk.name for future, task in zip(futures, tasks, strict=True)}
        for future in as_completed(futures):
            on_done(_result(future, names[future.key]))
    finally:
        if client is not scheduler:
            client.close()


def _result(future, chunk: str) -> Done:
    """A chunk's Done, or one ClusterError saying why it failed (no remote traceback)."""
    try:
        return future.result()
    except ChunkError as exc:
        raise ClusterError(str(exc)) from None
    except OSError as exc:
        raise ClusterError(f"chunk {chunk}: {exc.strerror or exc}") from None
    except Exception as exc:  # noqa: BLE001 - a worker's failure, reported with its chunk
        raise ClusterError(f"chunk {chunk}: {exc!r}") from None
