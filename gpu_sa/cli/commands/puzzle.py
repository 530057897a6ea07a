"""gpu-sa puzzle: generate and minimise until COUNT puzzles have at most --givens-max givens."""
from __future__ import annotations

from . import add_options
from .generate import generation_options, make

HELP = "generate puzzles: generate + minimize, keeping those with at most --givens-max givens"
DESCRIPTION = "Generate grids and minimise them until COUNT puzzles have at most --givens-max givens."
EPILOG = ("Exit status: 0 all made, 1 fewer than COUNT within --max-grids, 2 bad usage, 74 output failed, 129/130/143 "
          "stopped by a signal (what was made is printed), 70 internal error.")
def options():
    return generation_options("puzzle")


def add_arguments(parser) -> None:
    add_options(parser, options())


def run(args) -> int:
    return make(args, count=args.count)
