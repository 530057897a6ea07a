"""What a puzzle kind declares about itself, for the command line and the applications.

Besides ``parse`` and its puzzle class, every kind module sets:

    KIND          its name (``--kind``)
    SUMMARY       one line for ``--help``: what the puzzle asks
    FORMATS       input formats, in auto-detection's order; FORMAT_HELP: one line each
    NAMED_FORMATS those of FORMATS whose text names the kind (a header, a game ID, a URL): a file in one of
                  them is read as this kind without --kind when the default kind cannot read it
    OUTPUT_FORMATS  how a solution can be written
    MOVES, DEFAULT_MOVE   the annealer's move sets (what each costs: docs/algorithms.md, "Moves and costs")
    METHODS       ``Method``s of ``solve``, the default first: ANNEAL, exact ones answered by
                  ``count_solutions``, and ones that run an application of their own
    COMMANDS      the commands it takes part in, each mapped to None (the command's generic code
                  over this interface) or to "module:function", the application that does it
                  for this kind (named, not imported: applications sit above the puzzles)
    OPTIONS       its own ``Option``s, each naming the commands that take it; their values reach
                  the kind's code by keyword (``count_solutions(max_nodes=...)``, the generator's)

Adding a puzzle is one module with these and one line in ``gpu_sa.puzzles.PUZZLES``.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

# what kinds declare with (re-exported)
from ..options import SECONDS, Choice, Integer, Option, Real, Size, SquareSize, Text


@dataclass(frozen=True)
class Method:
    """A way ``solve`` answers a puzzle: annealing, an exact solver (``puzzle.count_solutions``), or an
    application of its own (``runs``: "module:function", as in COMMANDS). A kind's first method is its default."""

    name: str
    help: str
    exact: bool = False
    runs: str | None = None
    # with ``runs``: "module:function", (puzzle) -> why ``--backend auto`` runs the application on the CPU for that
    # puzzle ("" where the GPU serves); None: the GPU always
    cpu_preferred: str | None = None


ANNEAL = Method("anneal", "the batch annealer")


def application(reference: str):
    """The function a "module:function" reference names (imported now, when it is needed)."""
    module, _, function = reference.partition(":")
    return getattr(importlib.import_module(module), function)


__all__ = ["ANNEAL", "Method", "application", "Choice", "Integer", "Option", "Real", "SECONDS", "Size", "SquareSize",
           "Text"]
