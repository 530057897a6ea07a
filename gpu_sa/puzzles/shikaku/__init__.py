"""Shikaku (seed 004, part 1): cover the grid with rectangles, each holding one clue equal to its area.

Behind the puzzle interface (see ``gpu_sa.puzzles``):
  parse(text, source, fmt)   -> list of Shikaku          (raises PuzzleError, one line)
  puzzle.move(name)          -> AnnealMove for the annealer (move ``rect``)
  puzzle.solution(values)    -> the rectangles [top, left, bottom, right] of a chain's state, in clue order
  puzzle.write(values, fmt)  -> text of a chain's state (``pretty``: a drawing; else the puzzle's format)
  puzzle.answer(values)      -> the JSON form of a state: the rectangles
  puzzle.check(values)       -> rule violations, from the independent validator
  puzzle.count_solutions(limit=, time_limit=) -> the ILP's answer (scipy.optimize.milp)
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from cpu_ref import shikaku as rect_reference

from ... import validate
from ..errors import PuzzleError
from ..ilp import ExactAnswer, exact_answer
from ..move import AnnealMove, smallest_unsigned
from . import rect
from .formats import FORMATS
from .formats import write as write_puzzle
from .geometry import ShikakuGeometry, geometry

KIND = "shikaku"
MOVES = ("rect",)
DEFAULT_MOVE = "rect"
METHODS = ("anneal", "ilp")
OUTPUT_FORMATS = ("pretty",)  # a solution is drawn; the puzzle formats cannot hold one
# Measured with bench/shikaku.py (bench/RESULTS.md): a geometric law over plateaus of one move per clue.
SCHEDULE_DEFAULTS = (1.0, 0.05, 2000)


@dataclass(frozen=True, eq=False)
class Shikaku:
    clues: np.ndarray  # (rows, cols) int32, 0 = no clue
    fmt: str = "plain"
    source: str = "<input>"
    line: int = 1
    state_base = 0  # chain states are stored and dumped as they are

    @property
    def label(self) -> str:
        return f"{self.source}:{self.line}"

    @functools.cached_property
    def geometry(self) -> ShikakuGeometry:
        return geometry(self.clues, self.label)

    def move(self, name: str = DEFAULT_MOVE) -> AnnealMove:
        if name not in MOVES:
            raise ValueError(f"unknown move {name!r} for shikaku; choose from {', '.join(MOVES)}")
        geo = self.geometry
        rectangles, clues, movable = rect.tables(geo)
        counts = clues[:, 1].astype(np.float64)
        return AnnealMove(
            name="rect", build=rect.build, reference=rect_reference, tables=(rectangles, clues, movable),
            n_values=geo.cols, config_size=geo.clues, counts_size=geo.rows * geo.cols,
            max_delta=int(geo.clue_values.max()), plateau_length=max(1, int(movable.size)),
            max_cost=float(geo.rows * geo.cols), log_states=max(1.0, float(np.log(counts).sum())),
            has_free_variables=movable.size > 0, config_dtype=smallest_unsigned(int(counts.max()) - 1),
            counts_dtype=smallest_unsigned(geo.clues), schedule_defaults=SCHEDULE_DEFAULTS)

    def solution(self, values) -> list[list[int]]:
        """The rectangles [top, left, bottom, right] (inclusive, 0-based) of a state, in row-major clue order."""
        geo = self.geometry
        return [[int(x) for x in geo.rectangles[geo.first[k] + int(v)]] for k, v in enumerate(values)]

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

    def count_solutions(self, *, limit: int = 2, time_limit: float | None = None, max_nodes=None) -> ExactAnswer:
        """Solutions counted up to ``limit`` by the seed's integer program (HiGHS, no-good cuts to count)."""
        from cpu_ref.exact import shikaku as exact

        return exact_answer(exact.solve(self.clues, limit=limit, time_limit=time_limit), self.values_of)

    def check(self, values) -> list[str]:
        return validate.shikaku_violations(self.clues.tolist(), self.solution(values))

    def contradicts(self) -> bool:
        return False  # parsing already rejects clues without a candidate; the rest is the solvers' job


def generate_puzzle(rows: int, cols: int, *, seed, unique: bool = False, depth: int | None = None,
                    merge_iterations: int | None = None, islands=None):
    """(clues, rectangles) by the seed's generator (``generate.generate``); ValueError when none can be made."""
    from .generate import GenerationFailed, generate

    try:
        return generate(rows, cols, seed=seed, unique=unique, depth=depth, merge_iterations=merge_iterations)
    except GenerationFailed as error:
        raise ValueError(str(error)) from None


def parse(text: str, source: str = "<input>", fmt: str = "auto") -> list[Shikaku]:
    from .formats import parse as parse_grids

    return [Shikaku(clues=g.clues, fmt=g.fmt, source=g.source, line=g.line) for g in parse_grids(text, source, fmt)]


__all__ = ["Shikaku", "parse", "PuzzleError", "MOVES", "KIND", "FORMATS", "write_puzzle", "generate_puzzle"]
