"""Sudoku of any order n (n = 2 .. 8: 4x4 up to 64x64), behind the puzzle interface.

The interface every puzzle module offers (see ``gpu_sa.puzzles``):
  parse(text, source, fmt)  -> list of puzzles          (raises PuzzleError, one line)
  puzzle.move(name)         -> AnnealMove for the annealer
  puzzle.write(values, fmt) -> text
  puzzle.check(values)      -> list of rule violations, from the independent validator
  puzzle.contradicts()      -> True when cheap propagation proves there is no solution
  puzzle.count_solutions(limit=, max_nodes=) -> the exact solver's count
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from cpu_ref import sudoku as sudoku_reference
from cpu_ref import sudoku_swap as swap_reference

from ... import validate
from ..move import AnnealMove
from . import sirdey, swap
from .formats import FORMATS, PuzzleError, write
from .geometry import geometry

KIND = "sudoku"
METHODS = ("anneal",)  # the exact solver is its own command: gpu-sa exact
MOVES = ("sirdey", "swap")
DEFAULT_MOVE = "swap"  # measured: bench/RESULTS.md, time to solution
OUTPUT_FORMATS = FORMATS + ("pretty",)


@dataclass(frozen=True, eq=False)
class Sudoku:
    givens: np.ndarray  # (N*N,) int16, 0-based digits, -1 = empty
    order: int
    fmt: str = "line"
    source: str = "<input>"
    line: int = 1
    state_base = 1  # digits live 0-based in chain states and print 1-based

    @property
    def side(self) -> int:
        return self.order * self.order

    @property
    def free_cells(self) -> np.ndarray:
        return np.flatnonzero(self.givens < 0).astype(np.int32)

    @property
    def label(self) -> str:
        return f"{self.source}:{self.line}"

    def move(self, name: str = DEFAULT_MOVE) -> AnnealMove:
        if name not in MOVES:
            raise ValueError(f"unknown move {name!r} for sudoku; choose from {', '.join(MOVES)}")
        geo = geometry(self.order)
        free = self.free_cells
        givens = np.ascontiguousarray(self.givens, dtype=np.int16)
        if name == "swap":
            movable, boxes = swap.tables(givens, self.order)
            # log |Omega| = sum over boxes of log(k_b!): the permutations of each box's free cells
            log_states = float(sum(math.lgamma(k + 1) for k in boxes[:, 0]))
            return AnnealMove(
                name="swap", build=swap.build, reference=swap_reference, tables=(givens, movable, boxes),
                n_values=self.side, config_size=geo.cells, counts_size=2 * self.side * self.side,
                max_delta=swap.MAX_DELTA, plateau_length=geo.cells, max_cost=swap.max_cost(self.order),
                log_states=max(log_states, 1.0), has_free_variables=movable.shape[0] > 0)
        return AnnealMove(
            name="sirdey", build=sirdey.build, reference=sudoku_reference,
            tables=(givens, free, geo.unit_offsets),
            n_values=self.side, config_size=geo.cells, counts_size=geo.count_slots,
            max_delta=geo.peers, plateau_length=geo.cells, max_cost=geo.max_cost,
            # Sirdey's T'_f: log N with N = (N digits)^(cells), free of the instance (the seed's choice).
            log_states=geo.cells * math.log(self.side), has_free_variables=free.size > 0)

    def write(self, values, fmt: str | None = None) -> str:
        return write(values, self.order, fmt or self.fmt)

    def answer(self, values, fmt: str | None = None) -> str:
        """The JSON form of a grid: its text in ``fmt`` (default: the input's format)."""
        return self.write(values, fmt)

    def instance_arrays(self) -> dict:
        """What ``--dump-states`` stores beside the states: the givens, 1-based, 0 = empty."""
        return {"givens": np.asarray(self.givens) + 1}

    def contradicts(self) -> bool:
        """True when propagating the seed-002 rules from the givens alone proves there is no solution."""
        from cpu_ref.exact import sudoku as exact

        return exact.contradicts(self.givens, self.order)

    def count_solutions(self, *, limit: int = 2, max_nodes: int | None = None):
        """The exact solver's answer: ``ExactResult`` (solutions counted up to ``limit``)."""
        from cpu_ref.exact import sudoku as exact

        return exact.count_solutions(self.givens, self.order, limit=limit,
                                     max_nodes=exact.DEFAULT_MAX_NODES if max_nodes is None else max_nodes)

    def check(self, values) -> list[str]:
        """Rule violations of a full grid (0-based values), by the independent validator."""
        one_based = (np.asarray(values, dtype=np.int64) + 1).reshape(self.side, self.side).tolist()
        givens = (np.asarray(self.givens, dtype=np.int64) + 1).reshape(self.side, self.side).tolist()
        return validate.sudoku_violations(one_based, givens)


def parse(text: str, source: str = "<input>", fmt: str = "auto") -> list[Sudoku]:
    from .formats import parse as parse_grids

    return [Sudoku(givens=g.values, order=g.order, fmt=g.fmt, source=g.source, line=g.line)
            for g in parse_grids(text, source, fmt)]


__all__ = ["Sudoku", "parse", "PuzzleError", "MOVES", "FORMATS", "OUTPUT_FORMATS", "KIND"]
