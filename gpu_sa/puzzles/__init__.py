"""Registry of puzzle modules: tests, benchmarks and the command line loop over it.

Adding a puzzle = one new module with ``parse`` and a puzzle class offering ``move``,
``write`` and ``check``, plus one line here.
"""
from __future__ import annotations

from . import hashi, shikaku, sudoku

PUZZLES = {module.KIND: module for module in (sudoku, shikaku, hashi)}


def module(kind: str):
    try:
        return PUZZLES[kind]
    except KeyError:
        raise ValueError(f"unknown puzzle kind {kind!r}; choose from {', '.join(PUZZLES)}") from None
