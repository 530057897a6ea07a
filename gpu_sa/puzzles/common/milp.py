"""A binary/integer program that grows between solves, on scipy.optimize.milp (HiGHS).

scipy's ``milp`` solves one fixed model and keeps nothing between calls, so the two puzzle
solvers that need more than one solve (a no-good cut to count solutions, lazy connectivity
cuts for Hashiwokakero) keep their rows here and re-solve the whole model each round. The
round loop is shared too: ``enumerate_solutions`` asks the puzzle for lazy cuts on every
solution the solver returns, and once a solution needs none, counts it and excludes it.

Seeds: HiGHS breaks ties inside its branch and bound with a pseudo-random generator whose
seed is its option ``random_seed``, so on a puzzle with several solutions the one it
returns first depends on that seed (observed on Coelho's Hashiwokakero instances), and the
same seed gives the same solution run after run. ``scipy.optimize.milp`` names only a few
HiGHS options but hands any other one to HiGHS verbatim, with a RuntimeWarning saying so;
that is how ``random_seed`` gets there, the warning silenced for that one call.
"""
from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np
import scipy.sparse as sp
from scipy.optimize import Bounds, LinearConstraint, milp

from gpu_sa.engine import stop

# scipy.optimize.milp status codes
OPTIMAL, LIMIT_REACHED, INFEASIBLE, UNBOUNDED = 0, 1, 2, 3
HIGHS_SEEDS = 2**31  # HiGHS's random_seed is a non-negative C int: larger seeds are reduced modulo this


def highs_seed(seed: int) -> int:
    """HiGHS's ``random_seed`` for a project seed (0 <= seed < 2**64): the seed modulo 2**31."""
    if int(seed) != seed or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an integer in [0, 2**64), got {seed}")
    return int(seed) % HIGHS_SEEDS


@dataclass(frozen=True)
class IlpResult:
    solutions: int  # solutions found, capped at the limit
    solution: list | None  # the first solution in the puzzle's own form, or None
    seconds: float  # wall time of the whole solve, model building included
    gave_up: bool  # the time limit stopped the search: ``solutions`` is then a lower bound
    variables: int
    constraints: int  # rows of the model as first built, before any cut
    cuts: int = 0  # lazy cuts added (Hashiwokakero's connectivity cuts; 0 for Shikaku)
    rounds: int = 0  # MILP solves


class GrowingModel:
    """Variables with bounds and integrality, and constraint rows that can only be added."""

    def __init__(self, lower, upper, integrality, objective=None):
        self.lower = np.asarray(lower, dtype=float)
        self.upper = np.asarray(upper, dtype=float)
        self.integrality = np.asarray(integrality, dtype=np.uint8)
        self.variables = len(self.lower)
        self.objective = np.zeros(self.variables) if objective is None else np.asarray(objective, dtype=float)
        self._blocks, self._row_lower, self._row_upper = [], [], []
        self.constraints = 0

    def add(self, matrix, lower, upper) -> None:
        """Add rows ``lower <= matrix @ x <= upper`` (scalars broadcast over the rows)."""
        matrix = sp.csr_array(matrix)
        if matrix.shape[1] != self.variables:
            raise ValueError(f"rows of {matrix.shape[1]} columns for {self.variables} variables")
        count = matrix.shape[0]
        self._blocks.append(matrix)
        self._row_lower.append(np.broadcast_to(np.asarray(lower, dtype=float), (count,)))
        self._row_upper.append(np.broadcast_to(np.asarray(upper, dtype=float), (count,)))
        self.constraints += count

    def solve(self, time_limit: float | None, seed: int = 0):
        """(status, rounded x or None) of one HiGHS solve of the model as it stands."""
        options = {"disp": False, "random_seed": highs_seed(seed)}
        if time_limit is not None:
            options["time_limit"] = max(float(time_limit), 1e-3)
        constraints = ()
        if self.constraints:
            constraints = LinearConstraint(sp.vstack(self._blocks, format="csr"), np.concatenate(self._row_lower),
                                           np.concatenate(self._row_upper))
        def run():
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=r"Unrecognized options detected: \{'random_seed'\}",
                                        category=RuntimeWarning)
                return milp(self.objective, integrality=self.integrality, bounds=Bounds(self.lower, self.upper),
                            constraints=constraints, options=options)

        result = _stoppable(run)
        if result is None:  # a stop request: no answer, as when the time limit comes first
            return LIMIT_REACHED, None
        if result.status == OPTIMAL:
            return OPTIMAL, np.rint(result.x).astype(np.int64)
        if result.status in (LIMIT_REACHED, INFEASIBLE):
            return result.status, None
        raise RuntimeError(f"HiGHS stopped with status {result.status}: {result.message}")


ABANDONED: list = []  # HiGHS threads a stop left running: a program that exits with one alive must use os._exit
# (HiGHS's own worker threads would meet C++'s static destructors: "terminate called without an active exception")


def _stoppable(solve):
    """``solve()``'s value, or None once a stop request (``gpu_sa.engine.stop``) comes first. HiGHS cannot be told to
    stop, so it runs on a thread of its own (it lets go of the interpreter while it works) and this thread
    polls the flag; a run given up on goes on in the background until its own time limit, as a daemon that
    does not keep the process alive."""
    if stop.requested():
        return None
    box = {}

    def work():
        try:
            box["value"] = solve()
        except BaseException as error:  # handed to the caller's thread
            box["error"] = error

    worker = threading.Thread(target=work, name="gpu-sa-highs", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.05)
        if stop.requested() and worker.is_alive():
            ABANDONED.append(worker)
            return None
    if "error" in box:
        raise box["error"]
    return box["value"]


def rows(index_lists, coefficient_lists, variables: int):
    """A sparse matrix with one row per (indices, coefficients) pair."""
    indptr = np.cumsum([0] + [len(indices) for indices in index_lists])
    indices = np.concatenate([np.asarray(i, dtype=np.int64) for i in index_lists]) if index_lists else []
    data = np.concatenate([np.asarray(c, dtype=float) for c in coefficient_lists]) if index_lists else []
    return sp.csr_array((data, indices, indptr), shape=(len(index_lists), variables))


def exclude(assignment: np.ndarray):
    """The no-good cut removing exactly this 0/1 ``assignment`` and nothing else.

    sum(x_i : a_i = 1) - sum(x_i : a_i = 0) <= |{a_i = 1}| - 1: the left side reaches
    |ones| only at x = a, so every other binary point keeps satisfying it.
    """
    coefficients = np.where(assignment > 0, 1.0, -1.0)
    return coefficients[None, :], -np.inf, float((assignment > 0).sum() - 1)


@dataclass
class Enumeration:
    solutions: int = 0
    first: np.ndarray | None = None
    gave_up: bool = False
    cuts: int = 0
    rounds: int = 0


def enumerate_solutions(model: GrowingModel, *, limit: int, time_limit: float | None,
                        lazy_cuts: Callable[[np.ndarray], tuple | None] | None = None, seed: int = 0) -> Enumeration:
    """Solve, add lazy cuts until a solution needs none, count it, exclude it; up to ``limit``.

    ``lazy_cuts(x)`` returns (matrix, lower, upper) rows that ``x`` violates, or None when
    ``x`` is acceptable. Every variable must be binary: the no-good cut that excludes a
    counted solution is taken over all of them. ``seed`` goes to every HiGHS solve.
    """
    if int(limit) != limit or limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit}")
    highs_seed(seed)
    deadline = stop.Deadline.after(time_limit)
    found = Enumeration()
    while True:
        remaining = deadline.left()
        if remaining is not None and remaining <= 0:
            found.gave_up = True
            return found
        status, x = model.solve(remaining, seed)
        found.rounds += 1
        if status == LIMIT_REACHED:
            found.gave_up = True
            return found
        if status == INFEASIBLE:
            return found
        cuts = lazy_cuts(x) if lazy_cuts is not None else None
        if cuts is not None:
            model.add(*cuts)
            found.cuts += cuts[0].shape[0]
            continue
        found.solutions += 1
        if found.first is None:
            found.first = x
        if found.solutions >= limit:
            return found
        model.add(*exclude(x))
