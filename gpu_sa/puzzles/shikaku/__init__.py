"""Shikaku (seed 004, part 1): cover the grid with rectangles, each holding one clue equal to its area.

Behind the puzzle interface (see ``gpu_sa.puzzles``):
  parse(text, source, fmt)   -> list of Shikaku          (raises PuzzleError, one line)
  parse(text, source, fmt, errors=[]) -> the good ones; each bad puzzle's PuzzleError is added to errors
  puzzle.move(name)          -> AnnealMove for the annealer (move ``rect``)
  puzzle.solution(values)    -> the rectangles [top, left, bottom, right] of a chain's state, in clue order
  puzzle.write(values, fmt)  -> text of a chain's state (``pretty``: a drawing; else the puzzle's format)
  puzzle.answer(values)      -> the JSON form of a state: the rectangles
  puzzle.check(values)       -> rule violations, from the independent validator
  puzzle.count_solutions(limit=, time_limit=, seed=) -> the ILP's answer (scipy.optimize.milp)
  puzzle.contradiction()     -> why the puzzle has no solution when cheap checks prove it, else None
  puzzle.contradicts()       -> contradiction() is not None
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from cpu_ref.shikaku import rect as rect_reference

from . import validate
from ..common.errors import PuzzleError
from ..common.ilp import ExactAnswer, exact_answer, relaxation_infeasible
from ...engine.contract import AnnealMove, smallest_unsigned
from ..spec import ANNEAL, Integer, Method, Option, Real, Size
from .moves import rect
from .formats import FORMATS
from .formats import write as write_puzzle
from .geometry import ShikakuGeometry, geometry

KIND = "shikaku"
SUMMARY = "Shikaku: cover the grid with rectangles, one clue each, clue = area"
FORMAT_HELP = {
    "plain": "rows of numbers, '.' or '0' empty",
    "tatham": "Simon Tatham's rect game ID 'WxH:...'",
    "puzzlink": "https://puzz.link/p?shikaku/W/H/...",
}
MOVES = ("rect",)
DEFAULT_MOVE = "rect"
METHODS = (ANNEAL, Method("ilp", "the integer program, solved exactly by SciPy's HiGHS", exact=True))
NAMED_FORMATS = ("tatham", "puzzlink")  # they name the puzzle: --kind can be left out
OUTPUT_FORMATS = ("pretty",)  # a solution is drawn; the puzzle formats cannot hold one
COMMANDS = {"solve": None, "exact": None, "generate": "gpu_sa.puzzles.shikaku.generate:instances"}
OPTIONS = (
    Option("--size", "grid size, e.g. 10x10 or 9x16 (required)", Size(), purpose="grid size", commands=("generate",),
           required=True),
    Option("--unique", "keep only puzzles with exactly one solution (checked by the ILP with a no-good cut)",
           commands=("generate",)),
    Option("--depth", "the original generator's recursion depth of the cuts (more depth, more rectangles; default: enough for "
           "puzzle-like rectangles)", Integer(0), commands=("generate",)),
    Option("--merge-iterations", "passes of random merges (nbMergeIter in the original generator) (default: the generator's)",
           Integer(0), commands=("generate",)),
)
# Measured with bench/shikaku.py and bench/sweep_schedule.py shikaku: a geometric law over plateaus of one move
# per clue.
SCHEDULE_DEFAULTS = (1.0, 0.05, 2000)
RELAXATION_MAX_NONZEROS = 1 << 18  # the relaxation proof is tried up to this size: about a second to build and solve


@dataclass(frozen=True, eq=False)
class Shikaku:
    clues: np.ndarray  # (rows, cols) int32, 0 = no clue
    fmt: str = "plain"
    source: str = "<input>"
    line: int = 1
    state_base = 0  # chain states are stored and dumped as they are
    presolve = "candidate pruning"  # what fixes variables before annealing, in messages ("solved by ...")

    @property
    def label(self) -> str:
        return f"{self.source}:{self.line}"

    @functools.cached_property
    def geometry(self) -> ShikakuGeometry:
        return geometry(self.clues, self.label)

    def move(self, name: str = DEFAULT_MOVE, *, propagate: bool = True) -> AnnealMove:
        """The annealer's view of the puzzle. Its candidate pruning is part of the geometry every
        answer is read against, so it is always on: ``propagate`` changes nothing here."""
        if name not in MOVES:
            raise ValueError(f"unknown move {name!r} for shikaku; choose from {', '.join(MOVES)}")
        geo = self.geometry
        tables = rect.tables(geo)
        counts = tables.clues[0, :, 1].astype(np.float64)
        movable = int(tables.n_movable[0])
        return AnnealMove(
            name="rect", kernel=rect, reference=rect_reference, tables=tables,
            config_size=geo.clues, counts_size=geo.rows * geo.cols,
            max_delta=int(geo.clue_values.max()), plateau_length=max(1, movable),
            max_cost=float(geo.rows * geo.cols), log_states=max(1.0, float(np.log(counts).sum())),
            has_free_variables=movable > 0, config_dtype=smallest_unsigned(int(counts.max()) - 1),
            counts_dtype=smallest_unsigned(geo.clues), schedule_defaults=SCHEDULE_DEFAULTS,
            # sum of (coverage - 1) over covered cells: at most the rectangles' total area, the clues' sum
            cost_bound=int(geo.clue_values.sum()))

    def solution(self, values) -> list[list[int]]:
        """The rectangles [top, left, bottom, right] (inclusive, 0-based) of a state, in row-major clue order."""
        geo = self.geometry
        values = np.asarray(values, dtype=np.int64).reshape(-1)
        return geo.rectangles[geo.first[:len(values)].astype(np.int64) + values].tolist()

    def values_of(self, rectangles) -> np.ndarray:
        """The chain state (each clue's candidate number) of a list of rectangles in clue order."""
        geo = self.geometry
        values = np.empty(geo.clues, dtype=np.int64)
        for k, rectangle in enumerate(rectangles):
            matches = np.flatnonzero((geo.candidates_of(k) == np.asarray(rectangle)).all(axis=1))
            if matches.size != 1:
                raise ValueError(f"rectangle {list(rectangle)} is not a candidate of clue {k}")
            values[k] = matches[0]
        return values

    def write(self, values, fmt: str | None = None) -> str:
        from .formats import draw_solution

        return draw_solution(self.clues, self.solution(values))

    def answer(self, values, fmt: str | None = None) -> list[list[int]]:
        return self.solution(values)

    def instance_arrays(self) -> dict:
        """What ``--dump-states`` stores beside the states: the clues."""
        return {"clues": self.clues}

    def count_solutions(self, *, limit: int = 2, time_limit: float | None = None, max_nodes=None,
                        seed: int | None = None) -> ExactAnswer:
        """Solutions counted up to ``limit`` by the seed's integer program (HiGHS, no-good cuts to count)."""
        from gpu_sa.puzzles.shikaku import exact

        return exact_answer(exact.solve(self.clues, limit=limit, time_limit=time_limit,
                                        seed=0 if seed is None else seed), self.values_of)

    def check(self, values) -> list[str]:
        return validate.shikaku_violations(self.clues.tolist(), self.solution(values))

    def contradiction(self) -> str | None:
        """Why the puzzle has no solution when a cheap check proves it, else None: a clue without a
        rectangle that fits, the pruning rules (``geometry.prune``), the integer program's linear
        relaxation when the program has at most RELAXATION_MAX_NONZEROS nonzeros (past that, building it
        and handing it to HiGHS take longer than a check should: 15 s for 1000x1000 clues of 1).
        (Clues that do not sum to the area never get here: parsing rejects them.)"""
        try:
            geo = self.geometry
        except PuzzleError as error:
            return str(error).removeprefix(f"{self.label}: ")
        if geo.contradiction is not None:
            return geo.contradiction
        from gpu_sa.puzzles.shikaku import exact

        incidences = int((geo.clue_values.astype(np.int64) * np.diff(geo.first)).sum())  # the program's nonzeros
        if incidences <= RELAXATION_MAX_NONZEROS and relaxation_infeasible(exact.model_of(geo)):
            return ("the integer program's linear relaxation is infeasible: the candidate rectangles cannot "
                    "cover every cell once, even fractionally")
        return None

    def contradicts(self) -> bool:
        return self.contradiction() is not None


def parse(text: str, source: str = "<input>", fmt: str = "auto", errors: list | None = None) -> list[Shikaku]:
    """Every puzzle of ``text``; given ``errors`` (a list), the bad ones' errors go there and the good ones are
    returned (``common.codecs.gather``), else the first bad one raises ``PuzzleError``."""
    from .formats import parse as parse_grids

    return [Shikaku(clues=g.clues, fmt=g.fmt, source=g.source, line=g.line)
            for g in parse_grids(text, source, fmt, errors)]


__all__ = ["Shikaku", "parse", "PuzzleError", "MOVES", "KIND", "FORMATS", "write_puzzle", "SUMMARY",
           "FORMAT_HELP", "METHODS", "COMMANDS", "OPTIONS"]
