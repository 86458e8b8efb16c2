"""Calls into a designer's strategy code: bounded in time, and whatever they raise (SystemExit
and KeyboardInterrupt too) turned into one Failure that says where in their file it happened.

The time limit is an interval timer (SIGALRM) that raises DecisionTimeout inside the call, so
it works only in a process's main thread: local worker processes and the in-process commands
(show, solo, strategies check). A call made in another thread (a Dask worker's task) is not
bounded. A call stuck in C code that never returns to Python cannot be interrupted either.

The limit is a process setting passed to worker processes in the environment
(SIM_DECISION_TIMEOUT, which spawned workers inherit); `timeout()` sets it for a block.
A game's result never depends on it: a call either returns in time, or the run stops.
"""

from __future__ import annotations

import _signal
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

# signal.signal without its enum conversions (an exception caught inside for each function
# handler): 5 us less a call, 2% of a Python strategy's game
_set_handler = _signal.signal
ENV = "SIM_DECISION_TIMEOUT"
DEFAULT_TIMEOUT = 10.0
_TIMERS = hasattr(signal, "setitimer")  # not on Windows: calls there are not bounded
_SIM = Path(__file__).resolve().parents[1]  # frames in sim's own code are never "where"


class DecisionTimeout(BaseException):
    """Raised inside a strategy call that ran past the limit (a BaseException, so a strategy's
    own `except Exception` does not swallow it)."""


class Failure(Exception):
    """A strategy call that raised or ran out of time: what happened, in words, and where in
    the strategy's own file (empty when no frame of the traceback lies there)."""

    def __init__(self, raised: str, detail: str, where: str, timed_out: bool = False):
        super().__init__(f"{raised}: {detail}" if detail else raised)
        self.raised, self.detail, self.where, self.timed_out = raised, detail, where, timed_out

    def problem(self, method: str = "") -> str:
        """'raised ValueError: ...', or 'did not return ...' (naming method when given)."""
        if self.timed_out:
            source = f" from {method}" if method else ""
            return f"did not return{source} within the decision timeout of {self.detail}"
        inside = f" in {method}" if method else ""
        return f"raised {self.raised}{inside}" + (f": {self.detail}" if self.detail else "")


_limit: list[float] = []  # the process's limit once read: the environment is slow to read


def decision_timeout() -> float:
    """The limit in seconds on each call into strategy code (0: none)."""
    if not _limit:
        text = os.environ.get(ENV, "")
        seconds = _seconds(text) if text else DEFAULT_TIMEOUT
        if seconds is None:
            raise ValueError(f"{ENV}={text!r} is not a number of seconds from 0 to 86400")
        _limit.append(seconds)
    return _limit[0]


def _seconds(text: str) -> float | None:
    try:
        seconds = float(text)
    except ValueError:
        return None
    return seconds if 0 <= seconds <= 86_400 else None  # NaN fails both


@contextmanager
def timeout(seconds: float) -> Iterator[None]:
    """Calls in this block, and in worker processes started in it, get `seconds` (0: none)."""
    checked = _seconds(repr(float(seconds)))
    if checked is None:
        raise ValueError(f"decision timeout {seconds!r} is not a number of seconds from 0 to 86400")
    before, limit = os.environ.get(ENV), _limit[:]
    os.environ[ENV] = repr(checked)
    _limit[:] = [checked]
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = before
        _limit[:] = limit


def call(origin: type | str, fn: Callable, *args, **kwargs):
    """fn(*args, **kwargs), bounded by the decision timeout; origin is the strategy's class
    (or its file's path), where the failure's `where` points. The user's own Ctrl-C passes
    through."""
    if not _TIMERS or threading.current_thread() is not threading.main_thread():
        return _unbounded(origin, fn, args, kwargs)
    _watch_interrupts()
    watch = _Watch(decision_timeout())
    saved = watch.arm()
    try:
        try:
            value = fn(*args, **kwargs)
        finally:
            watch.disarm(saved)
    except BaseException as exc:  # noqa: BLE001 - the strategy's, unless the user's Ctrl-C
        if isinstance(exc, KeyboardInterrupt) and _interrupts[0] != watch.interrupts:
            raise
        raise watch.failure(exc, origin) from None
    if watch.timed_out:  # it caught DecisionTimeout and returned anyway
        raise Failure("DecisionTimeout", f"{watch.seconds:g} s", "", timed_out=True)
    return value


def _unbounded(origin: type | str, fn: Callable, args, kwargs):
    """A call outside the main thread: no timer, and no Ctrl-C can arrive there."""
    try:
        return fn(*args, **kwargs)
    except BaseException as exc:  # noqa: BLE001 - all of it is the strategy's
        raise _failure(exc, origin) from None


_interrupts = [0, False]  # the user's Ctrl-Cs seen so far; whether we are counting them


def _watch_interrupts() -> None:
    """Count the user's Ctrl-Cs, once per process, with a handler that otherwise does what
    Python's default does; a KeyboardInterrupt with no new count is the strategy's own.
    Where SIGINT is not Python's default (workers ignore it) it is left alone."""
    if not _interrupts[1]:
        _interrupts[1] = True
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _user_interrupt)


def _user_interrupt(signum, frame) -> None:
    _interrupts[0] += 1
    raise KeyboardInterrupt


class _Watch:
    """One call's timer: it raises DecisionTimeout in the call once `seconds` have passed.
    Another timer already set in the process (pytest-timeout's) is put back afterwards."""

    def __init__(self, seconds: float):
        self.seconds, self.armed, self.timed_out = seconds, False, False
        self.interrupts = _interrupts[0]

    def arm(self) -> tuple | None:
        if not self.seconds:
            return None
        handler = _set_handler(signal.SIGALRM, self._alarm)
        self.armed, started = True, time.monotonic()
        outer = signal.setitimer(signal.ITIMER_REAL, self.seconds, self.seconds)  # repeats
        return handler, outer, started

    def disarm(self, saved: tuple | None) -> None:
        self.armed = False
        if saved is None:
            return
        handler, (delay, interval), started = saved
        signal.setitimer(signal.ITIMER_REAL, 0)
        _set_handler(signal.SIGALRM, handler)
        if delay:  # the outer timer, less the time this call took (at once if that is past)
            left = max(delay - (time.monotonic() - started), 1e-6)
            signal.setitimer(signal.ITIMER_REAL, left, interval)

    def _alarm(self, signum, frame) -> None:
        self.timed_out = True
        if self.armed:
            raise DecisionTimeout

    def failure(self, exc: BaseException, origin: type | str) -> Failure:
        if isinstance(exc, DecisionTimeout) or self.timed_out:
            return Failure("DecisionTimeout", f"{self.seconds:g} s", where(exc, origin), True)
        return _failure(exc, origin)


def _failure(exc: BaseException, origin: type | str) -> Failure:
    return Failure(type(exc).__name__, str(exc), where(exc, origin))


def where(exc: BaseException, origin: type | str) -> str:
    """'path:line in function: source' of the last traceback frame in the strategy's own
    files (its class and the bases not in sim), or '' if none lies there."""
    files = _own_files(origin)
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _resolved(f.filename) in files]
    if not frames:
        return ""
    last = frames[-1]
    return f"{last.filename}:{last.lineno} in {last.name}: {(last.line or '').strip()}"


def _own_files(origin: type | str) -> set[str]:
    import inspect

    if isinstance(origin, str):
        return {_resolved(origin)}
    files = set()
    for cls in origin.__mro__:
        try:
            path = _resolved(inspect.getfile(cls))
        except (TypeError, OSError):  # built-in classes have no file
            continue
        if not path.startswith(str(_SIM) + os.sep):
            files.add(path)
    return files


def _resolved(path: str) -> str:
    return os.path.realpath(path)
