"""The exact answer of an integer program, in the annealer's terms (a chain state's values), and the
cheap half of it: a proof of "no solution" by the program's linear relaxation."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ExactAnswer:
    solutions: int  # found, capped at the limit asked
    solution: np.ndarray | None  # the first one as a chain state (what ``write``/``answer`` take), or None
    seconds: float
    gave_up: bool  # the time limit ended the search before the answer was known
    nodes: int | None = None  # branch-and-bound nodes are HiGHS's business: not reported
    rounds: int = 0  # MILP solves (connectivity cuts and no-good cuts each add one)
    cuts: int = 0  # lazy connectivity cuts (hashi)
    variables: int = 0
    constraints: int = 0


def exact_answer(result, values) -> ExactAnswer:
    """Wrap an ``IlpResult``; ``values`` turns its puzzle-form solution into a chain state."""
    return ExactAnswer(solutions=result.solutions, solution=None if result.solution is None else values(result.solution),
                       seconds=result.seconds, gave_up=result.gave_up, rounds=result.rounds, cuts=result.cuts,
                       variables=result.variables, constraints=result.constraints)


RELAXATION_TIME_LIMIT = 2.0  # seconds; the relaxations of the public sets' puzzles take milliseconds


def relaxation_infeasible(model, *, time_limit: float = RELAXATION_TIME_LIMIT) -> bool:
    """True when HiGHS proves the linear relaxation of ``model`` (a ``GrowingModel`` of the exact
    solvers, its integrality dropped here) infeasible: then the integer program, and so the puzzle,
    has no solution. Any other outcome (feasible, time limit, a solver failure) proves nothing: False."""
    from gpu_sa.puzzles.common.milp import INFEASIBLE

    model.integrality = np.zeros_like(model.integrality)
    try:
        status, _ = model.solve(time_limit)
    except RuntimeError:  # an unexpected HiGHS status: no proof either way
        return False
    return status == INFEASIBLE
