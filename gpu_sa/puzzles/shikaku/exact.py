"""Exact Shikaku by the integer program of seed 004 (section 1.2), on scipy's HiGHS.

One binary x_j per candidate rectangle j (``gpu_sa.puzzles.shikaku.geometry``: area = the
clue's value, inside the grid, holding its clue and no other one). Constraints:

  (1) each clue keeps exactly one of its candidates:   sum_{j of clue k} x_j = 1
  (2) each cell is covered exactly once:               sum_{j covering (r, c)} x_j = 1

so K + rows * cols equality rows. (1) is implied by (2) at the clue's own cell, which only
its own candidates cover; it is kept because it is the seed's model and HiGHS's presolve
drops the duplicate. There is no objective: any feasible point is a solution. Counting
(``limit`` > 1) excludes each solution found by a no-good cut and solves again.
"""
from __future__ import annotations

import time

import numpy as np

from gpu_sa.engine import stop
from gpu_sa.puzzles.shikaku.geometry import ShikakuGeometry, geometry

from ..common.milp import GrowingModel, IlpResult, enumerate_solutions, rows

__all__ = ["IlpResult", "solve", "model_of"]


def model_of(shape: ShikakuGeometry) -> GrowingModel:
    """The seed's model (1) + (2) for these candidates; variables in candidate order."""
    candidates = shape.rectangles.shape[0]
    first = shape.first
    clue_rows = rows([np.arange(first[k], first[k + 1]) for k in range(shape.clues)],
                     [np.ones(first[k + 1] - first[k]) for k in range(shape.clues)], candidates)
    # Cell rows, built column by column (candidate by candidate) then transposed.
    covered = []
    for j, (top, left, bottom, right) in enumerate(shape.rectangles):
        if not j & 4095:
            stop.check("building the integer program")
        covered.append(np.add.outer(np.arange(top, bottom + 1) * shape.cols, np.arange(left, right + 1)).ravel())
    cell_rows = rows(covered, [np.ones(len(cells)) for cells in covered], shape.rows * shape.cols).T
    model = GrowingModel(np.zeros(candidates), np.ones(candidates), np.ones(candidates))
    model.add(clue_rows, 1, 1)
    model.add(cell_rows, 1, 1)
    return model


def solve(clues, *, limit: int = 1, time_limit: float | None = None, seed: int = 0) -> IlpResult:
    """Solutions of ``clues`` ((rows, cols), 0 = no clue), counted up to ``limit``.

    ``limit=2`` is the uniqueness check. ``solution`` is the first solution's rectangles
    [top, left, bottom, right] (inclusive, 0-based) in row-major clue order. Clues that do not
    describe a puzzle at all (no clue, sum other than the area, a clue with no candidate)
    raise ``PuzzleError`` from the geometry; a well-formed puzzle without a solution gives
    ``solutions == 0``. ``time_limit`` (seconds) bounds the solves together (model building aside).
    ``seed`` is HiGHS's (``milp.highs_seed``): which solution comes first when there are several.
    """
    start = time.perf_counter()
    shape = geometry(np.asarray(clues))
    model = model_of(shape)
    built_rows = model.constraints
    found = enumerate_solutions(model, limit=limit, time_limit=time_limit, seed=seed)
    solution = None
    if found.first is not None:
        # Candidates are grouped by clue in clue order, so the chosen ones come in clue order.
        solution = shape.rectangles[np.flatnonzero(found.first)].tolist()
    return IlpResult(solutions=found.solutions, solution=solution, seconds=time.perf_counter() - start,
                     gave_up=found.gave_up, variables=model.variables, constraints=built_rows, cuts=found.cuts,
                     rounds=found.rounds)
