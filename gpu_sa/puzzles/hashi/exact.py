"""Exact Hashiwokakero: seed 004's integer program (section 2.2) plus real connectivity.

Per candidate edge e (``gpu_sa.puzzles.hashi.geometry``: nearest islands of a row or a
column, so "same row or column" (4) and "no loop" (5) hold by construction) two binaries:

  x_e  the edge is used (at least one bridge)          -- the seed's x
  d_e  the edge carries a second bridge, d_e <= x_e

The seed's bridge count y_e in {0, 1, 2} with x_e <= y_e <= 2 x_e (7) is y_e = x_e + d_e:
the same feasible set, written so that the variables are binary and one 0/1 vector is one
bridge assignment, which a no-good cut can then exclude exactly (counting, ``limit`` > 1).

  (6) crossing edges:  x_e + x_f <= 1
  (8) degree:          sum_{e at island i} (x_e + d_e) = value_i

The seed leaves connectivity to an objective (maximise the used edges), which only makes a
connected answer likely. Here it is enforced (Coelho et al. 2019 and the usual approach
to connectivity): solve, take the components of the used edges, and for each component S
that is not every island add the cut  sum_{e leaving S} x_e >= 1, then solve again, until
the solution is connected. The cuts are valid for every connected solution, so they stay
when counting continues. ``maximize_edges=True`` puts the seed's objective back, only as a
hint to the solver.

Two bounds that are valid whenever there are more than two islands, since such a pair
would be a component on its own: two islands of value 1 cannot be joined (x_e = 0), and
two islands of value 2 cannot share a double bridge (d_e = 0).
"""
from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from gpu_sa.puzzles.hashi.geometry import HashiGeometry, geometry

from ..common.milp import GrowingModel, IlpResult, enumerate_solutions, exclude, highs_seed, rows

__all__ = ["IlpResult", "solve", "model_of", "connectivity_cuts", "closest_other_solution"]


def model_of(shape: HashiGeometry, maximize_edges: bool = False) -> GrowingModel:
    """The model without connectivity: variables x_0..x_{E-1}, then d_0..d_{E-1}."""
    edges = shape.edges.shape[0]
    a, b = shape.edges[:, 0], shape.edges[:, 1]
    upper = np.ones(2 * edges)
    if shape.islands > 2:
        ends = shape.values[a], shape.values[b]
        upper[:edges][(ends[0] == 1) & (ends[1] == 1)] = 0
        upper[edges:][(ends[0] == 2) & (ends[1] == 2)] = 0
    objective = np.concatenate([-np.ones(edges), np.zeros(edges)]) if maximize_edges else None
    model = GrowingModel(np.zeros(2 * edges), upper, np.ones(2 * edges), objective)
    every = np.arange(edges)
    model.add(sp.csr_array((np.r_[-np.ones(edges), np.ones(edges)], (np.r_[every, every], np.r_[every, every + edges])),
                           shape=(edges, 2 * edges)), -np.inf, 0)  # d_e <= x_e
    crossings = shape.crossings
    model.add(rows([pair for pair in crossings], [np.ones(2)] * len(crossings), 2 * edges), -np.inf, 1)
    island_of_edge = np.r_[a, b, a, b]  # each x and d counts at both ends
    variable = np.r_[every, every, every + edges, every + edges]
    model.add(sp.csr_array((np.ones(4 * edges), (island_of_edge, variable)), shape=(shape.islands, 2 * edges)),
              shape.values, shape.values)
    return model


def components(shape: HashiGeometry, used: np.ndarray) -> np.ndarray:
    """Component label of each island in the graph of the edges marked ``used``."""
    a, b = shape.edges[used, 0], shape.edges[used, 1]
    graph = sp.csr_array((np.ones(len(a)), (a, b)), shape=(shape.islands, shape.islands))
    return connected_components(graph, directed=False)[1]


def connectivity_cuts(shape: HashiGeometry, used: np.ndarray):
    """Cuts "some used edge leaves S" for each component S of the ``used`` edges, as
    (matrix over x and d, lower, upper), or None when the used edges connect every island.

    A component that no candidate edge leaves gets an empty row with lower bound 1: the
    puzzle then has no connected solution, and the solver says so.
    """
    label = components(shape, np.asarray(used, dtype=bool))
    if label.max() == 0:
        return None
    edges = shape.edges.shape[0]
    ends = label[shape.edges[:, 0]], label[shape.edges[:, 1]]
    cuts = {}
    for component in range(label.max() + 1):
        leaving = np.flatnonzero((ends[0] == component) != (ends[1] == component))
        cuts.setdefault(tuple(leaving), leaving)  # with two components both cuts are one
    leaving = list(cuts.values())
    return rows(leaving, [np.ones(len(e)) for e in leaving], 2 * edges), 1, np.inf


def bridges_of(shape: HashiGeometry, assignment: np.ndarray) -> list:
    """[r1, c1, r2, c2, count] for every used edge, in edge order (r1, c1 left of / above r2, c2)."""
    edges = shape.edges.shape[0]
    count = assignment[:edges] + assignment[edges:]
    return [[*map(int, shape.cells[a]), *map(int, shape.cells[b]), int(count[e])]
            for e, (a, b) in enumerate(shape.edges) if count[e]]


def solve(grid, *, limit: int = 1, time_limit: float | None = None, maximize_edges: bool = False,
          seed: int = 0) -> IlpResult:
    """Connected solutions of ``grid`` ((rows, cols), 0 = water, 1..8 island), counted up to ``limit``.

    ``solution`` is the first solution's bridges [r1, c1, r2, c2, count]; ``cuts`` and
    ``rounds`` say how many connectivity cuts and MILP solves it took. A grid that is not
    a puzzle at all raises ``PuzzleError`` from the geometry; a puzzle without a connected
    solution gives ``solutions == 0``. ``time_limit`` (seconds) bounds the solves together.
    ``seed`` is HiGHS's (``milp.highs_seed``): which solution comes first when there are several.
    """
    highs_seed(seed)
    start = time.perf_counter()
    shape = geometry(np.asarray(grid))
    edges = shape.edges.shape[0]
    if edges == 0:  # a lone island: its value (>= 1) cannot be met
        return IlpResult(solutions=0, solution=None, seconds=time.perf_counter() - start, gave_up=False,
                         variables=0, constraints=shape.islands)
    model = model_of(shape, maximize_edges)
    built_rows = model.constraints
    found = enumerate_solutions(model, limit=limit, time_limit=time_limit,
                                lazy_cuts=lambda x: connectivity_cuts(shape, x[:edges] > 0), seed=seed)
    solution = None if found.first is None else bridges_of(shape, found.first)
    return IlpResult(solutions=found.solutions, solution=solution, seconds=time.perf_counter() - start,
                     gave_up=found.gave_up, variables=model.variables, constraints=built_rows, cuts=found.cuts,
                     rounds=found.rounds)


def closest_other_solution(shape: HashiGeometry, counts: np.ndarray, *, time_limit: float | None = None):
    """Bridges per edge of the connected solution other than ``counts`` (a solution of ``shape``, bridges per
    candidate edge) that differs from it in the fewest variables, or None when ``counts`` is the only one.
    ``TimeoutError`` when ``time_limit`` seconds pass first.

    The objective counts the variables that change (minus a constant: sum of x over the ones set in
    ``counts`` plus sum over the others of 1 - x), so the other solution found is a local one, typically a
    short cycle of bridges that can be shifted; a generator that wants a unique puzzle breaks it there.
    """
    edges = shape.edges.shape[0]
    counts = np.asarray(counts, dtype=np.int64)
    planted = np.r_[counts > 0, counts > 1].astype(np.int64)
    model = model_of(shape)
    model.objective = np.where(planted > 0, -1.0, 1.0)
    model.add(*exclude(planted))
    found = enumerate_solutions(model, limit=1, time_limit=time_limit,
                                lazy_cuts=lambda x: connectivity_cuts(shape, x[:edges] > 0))
    if found.gave_up:
        raise TimeoutError(f"no answer within {time_limit} s")
    return None if found.first is None else found.first[:edges] + found.first[edges:]
