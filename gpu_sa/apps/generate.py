"""Generators of every kind behind one protocol, for ``generate``, ``minimize`` and ``puzzle``.

A kind names the function each of these commands runs in ``COMMANDS`` (``gpu_sa.puzzles.spec``), beside its
generator (``gpu_sa.puzzles.<kind>.generate``); each is called as
``function(kind, count=, seed=, fmt=, **options)`` (``minimize``: ``grids=`` instead of
``count=``) with the kind's own options by keyword, and yields ``Made`` items as they are
done, so that each can be printed at once. A stop request (``gpu_sa.engine.stop``) ends them
between items; what was made stays made.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..engine import stop
from ..options import UsageError


@dataclass(frozen=True)
class Made:
    text: str | None  # what a person reads; None for a note only
    record: dict | None  # the --json line
    note: str | None = None  # a shortfall to report on stderr (fewer results than asked)


def instances(kind, *, make, count: int, seed: int, fmt: str | None = None, size, **options):
    """Puzzles made by the kind's generator ``make(rows, cols, seed=, **options)`` -> (instance, solution), or None
    when a stop request ended it: puzzle i from seed (SEED, i). A kind's ``generate`` command runs this with its
    generator bound (``functools.partial``)."""
    fmt = fmt or "plain"
    check_format(kind, fmt)
    rows, cols = size
    for index in range(count):
        if stop.requested():
            return
        made = make(rows, cols, seed=[seed, index], **options)
        if made is None:  # a stop request came while it was being made
            return
        instance, solution = made
        text = kind.write_puzzle(instance, fmt)
        yield Made(text + ("\n" if fmt in ("plain", "has") else ""),
                   {"index": index, "puzzle": text, "solution": solution, "seed": seed, "kind": kind.KIND,
                    "unique": True if options.get("unique") else None})


def check_format(kind, fmt: str) -> None:
    if fmt not in kind.FORMATS:
        raise UsageError(f"--output-format {fmt} is not a {kind.KIND} format; choose from {', '.join(kind.FORMATS)}")
