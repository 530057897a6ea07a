"""Stop requests: one flag that signal handlers set and every long loop polls.

Compiled loops (the exact search, generation, minimisation, the annealing kernels' host loop)
cannot see Python signals while they run, so they receive ``FLAG`` itself, a one-element
uint8 array, and poll ``flag[0] != 0`` every few thousand steps: a Ctrl-C is then answered
within a fraction of a second wherever the program is. Python loops call ``requested()``.

    FLAG[0] = 0     run on
    FLAG[0] = 1     stop at the next safe point and report what was found so far

``signal_number()`` tells which signal asked (0: none, or a request from code), so that the
command can exit with 128 + that number. Work that has nothing to report yet (reading and parsing the
input, preparing a puzzle) calls ``check(what)``, which raises ``Interrupted`` once a stop is asked.

A time limit is the other way a run stops: ``Deadline`` says when it runs out, once, and every loop that
honours the limit asks the same object what is left. Compiled code that reads one flag only (the exact search
inside a minimisation's uniqueness checks) gets ``halting(deadline)``'s, which either sets.
"""
from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass

import numpy as np

FLAG = np.zeros(1, dtype=np.uint8)
_signal = [0]


class Interrupted(Exception):
    """A stop request ended work that had nothing to report yet; ``str``: what was being done ("reading x.txt")."""


def check(what: str) -> None:
    """Raise ``Interrupted(what)`` once a stop has been asked (Python loops poll it between steps)."""
    if FLAG[0]:
        raise Interrupted(what)


def request(signum: int = 0) -> None:
    """Ask every loop to stop at its next safe point (``signum``: the signal behind it, if any)."""
    if signum and not _signal[0]:
        _signal[0] = int(signum)
    FLAG[0] = 1


def requested() -> bool:
    return bool(FLAG[0])


def signal_number() -> int:
    return _signal[0]


def clear() -> None:
    """Forget an earlier request (a new run in the same process, e.g. a test or the web page). A run started
    from Python forgets a Ctrl-C that stopped an earlier one by itself, a request made by code only here."""
    FLAG[0] = 0
    _signal[0] = 0


@dataclass(frozen=True)
class Deadline:
    """When a time limit runs out, on the ``time.perf_counter`` clock; ``at`` None: no limit."""

    at: float | None = None

    @classmethod
    def after(cls, seconds: float | None, *, start: float | None = None) -> "Deadline":
        """``seconds`` from ``start`` (default: now); no limit when ``seconds`` is None."""
        if seconds is None:
            return cls(None)
        return cls((time.perf_counter() if start is None else start) + seconds)

    def left(self, now: float | None = None) -> float | None:
        """Seconds left at ``now`` (default: now), negative once passed; None without a limit."""
        if self.at is None:
            return None
        return self.at - (time.perf_counter() if now is None else now)

    def passed(self, now: float | None = None) -> bool:
        return self.at is not None and self.left(now) <= 0


WATCH_SECONDS = 0.02  # how often ``halting``'s thread looks at the stop flag and the clock


@contextlib.contextmanager
def halting(deadline: Deadline, flag: np.ndarray | None = None):
    """A flag for compiled loops that read one flag but must end on a stop request (``flag``, default ``FLAG``) or
    at ``deadline``, whichever comes first: ``flag`` itself without a limit, else a fresh one that a thread sets
    within ``WATCH_SECONDS`` of either (for as long as the ``with`` block runs)."""
    flag = FLAG if flag is None else flag
    if deadline.at is None:
        yield flag
        return
    halt = np.array([1 if flag[0] or deadline.passed() else 0], dtype=np.uint8)
    done = threading.Event()

    def watch():
        while not (flag[0] or deadline.passed()):
            if done.wait(min(WATCH_SECONDS, max(deadline.left(), 0.0))):
                return
        halt[0] = 1

    thread = threading.Thread(target=watch, name="gpu-sa-deadline", daemon=True)
    thread.start()
    try:
        yield halt
    finally:
        done.set()
        thread.join()
