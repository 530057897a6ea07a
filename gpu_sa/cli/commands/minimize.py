"""gpu-sa minimize: empty full grids to puzzles with few givens and a unique solution (seed 003)."""
from __future__ import annotations

from ...options import Option, max_input_option
from . import QUIET, add_input, input_format_option, read_puzzles
from .generate import SEED, make

HELP = "empty full grids to puzzles with few givens and a unique solution"
DESCRIPTION = ("For every full grid of GRID_FILE ('-' = standard input), find a puzzle with as few givens as the "
               "method reaches whose only solution is that grid (proved by the exact solver). Grids run in parallel "
               "on every core.")
EPILOG = ("Exit status: 0 every grid minimised, 2 bad input or usage (e.g. a grid that is not full and valid), 74 "
          "output failed, 129/130/143 stopped by a signal (what was done is printed), 70 internal error.")
def options():
    return (input_format_option("minimize"), max_input_option("the grid file"), SEED,
            Option("--json", "one JSON object per grid: source, puzzle (in the input's format), givens, unique, seed, "
                   "method"), QUIET)


def add_arguments(parser) -> None:
    add_input(parser, options(), "GRID_FILE", "file of full grids (or puzzles with one solution)")


def run(args) -> int:
    return make(args, grids=read_puzzles(args, args.grid_file))
