"""One run per folder at a time: an exclusive lock on the folder's `.lock` file.

fcntl.flock rather than the filelock library: the kernel drops the lock the moment its
process dies (kill -9 included), so a dead run never leaves a stale lock to clean up, and
no dependency is needed (filelock's Unix lock is this same call). The file itself, never
deleted, names the holder's host and PID for the message a second run gets. Where there is
no fcntl (Windows) folders go unlocked, as before.
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from sim.model.documents import parse_json

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

LOCK = ".lock"


class LockError(RuntimeError):
    """Another process is running into the folder; the message names it."""


@contextmanager
def hold(out: Path) -> Iterator[None]:
    """Hold the folder's lock for the duration; LockError naming the holder if it is taken."""
    out.mkdir(parents=True, exist_ok=True)
    if fcntl is None:
        yield
        return
    fd = os.open(out / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read(fd)
            raise LockError(
                f"{out} is in use by another sim run ({describe(holder)}); wait for it to "
                "finish, or stop it, or write this run elsewhere with --out DIR"
            ) from None
        me = {"host": socket.gethostname(), "pid": os.getpid(), "since": _now()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(me).encode(), 0)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def holder(out: Path) -> dict | None:
    """Who holds the folder's lock right now (host, pid, since), or None if no one does."""
    if fcntl is None:
        return None
    try:
        fd = os.open(out / LOCK, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _read(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def describe(holder: dict) -> str:
    """'PID 123 on host h, since 10:02:03' from what the holder wrote."""
    said = f"PID {holder.get('pid', '?')} on host {holder.get('host', '?')}"
    return said + (f", since {holder['since']}" if holder.get("since") else "")


def _read(fd: int) -> dict:
    """The holder's own record in the lock file (empty if it is still writing it)."""
    with suppress(OSError, ValueError):
        data = parse_json(os.pread(fd, 4096, 0) or b"{}")
        if isinstance(data, dict):
            return data
    return {}


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")
