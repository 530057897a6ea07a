"""Method ``auto`` for Sudoku: propagation, then the complete search and the annealer in turns.

Measured on the large orders near the phase transition (bench/large.py, bench/RESULTS.md): the
seeded complete search with restarts (``gpu_sa.exact``) solves every 16x16 and 25x25 instance of the
Lloyd & Amos set, most in well under a second, while the annealer alone loses to the ant colony there;
on 9x9 the complete search wins by orders of magnitude. The annealer still earns its turns where the
search's tail is long (a puzzle on which every restart wanders) and on a GPU, where it runs hundreds of
thousands of chains. So ``auto`` runs both, in turns with doubling budgets, one at a time on every core:

    round k = 0, 1, 2, ...:  complete search, seed S, at most EXACT_NODES x 2^k branches (over its restarts)
                             one annealing trial of the size's default schedule, chain indices k x chains ..

and stops at the first verified solution. Budgets are counted in branches and moves, never in seconds,
so which method answers, and the answer, depend on the seed alone; a time limit only decides whether
there is an answer. The search is complete: a round where it ends without giving up proves the count
(no solution: "no solution"). Propagation alone (the seed-002 rules to a fixpoint) answers first when
it solves the puzzle or finds a contradiction.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass

import numpy as np

from . import runner
from . import stop as stop_module
from .exact import sudoku as exact

EXACT_NODES = 20_000  # the first round's branches: about half a second at 25x25 on one core
# An annealing round gets this many proposals per branch of the search's round: about a fifth of the
# search's time on the CPU, where the search answered every Lloyd & Amos instance (bench/RESULTS.md).
PROPOSALS_PER_NODE = 100
CPU_CHAINS = 16  # few chains, so that a round's proposals still cool each chain over many plateaus
MAX_ROUNDS = 40


@dataclass(frozen=True)
class Answer:
    """What ``auto`` found, and how."""

    solved: bool
    solution: np.ndarray | None  # 0-based digits, validated
    method: str  # who answered: propagation | exact | anneal | none
    stopped: str  # solved | contradiction | no_solution | time_limit | interrupted | rounds
    seconds: float  # searching and annealing, compilation and the annealer's setup excluded
    setup_seconds: float
    rounds: int  # rounds begun
    nodes: int  # complete-search branches, over every round
    restarts: int  # complete-search restarts, over every round
    moves: int  # annealing moves per chain, over every round
    anneal: runner.Result | None  # the last annealing round's result (its chain, cost...), if one ran


def solve(puzzle, *, seed: int, backend="auto", chains: int | None = None, time_limit: float | None = None,
          threads: int | None = None, progress=None) -> Answer:
    """Solve a Sudoku by ``auto`` (see the module docstring). ``progress`` receives the annealing rounds'
    records (``runner.Progress``)."""
    setup_start = time.perf_counter()
    if isinstance(backend, str):
        from . import backends

        backend, _ = backends.select(backend)
    # Load the rules' and the search's machine code (compiled, or from numba's cache) on a 4x4 grid first,
    # so that no timing includes it; the annealer reports its own setup apart. The warm-up takes the timed
    # steps' own path, the validator's check included, right before the clock: a first call costs several
    # times a later one (numba's dispatch, numpy's first sort), which would be most of an easy 16x16's time.
    # (a blank grid typed and flagged like the puzzle's givens: a read-only array is another specialization)
    blank = np.full(16, -1, dtype=np.asarray(puzzle.givens).dtype)
    blank.flags.writeable = np.asarray(puzzle.givens).flags.writeable
    tiny = exact.count_solutions(blank, 2, limit=1, seed=0, threads=1, propagated=exact.propagate(blank, 2))
    _checked(dataclasses.replace(puzzle, givens=blank, order=2), tiny.solution)
    # the order's constant tables (peers, units: about 2 ms at 16x16, built once per process), also before the
    # clock, as ``gpu-sa exact``'s clock starts after them
    exact.tables(puzzle.order)
    work = _Work(start=time.perf_counter(), setup=time.perf_counter() - setup_start)
    found = exact.propagate(puzzle.givens, puzzle.order)
    if found.contradiction:
        return work.answer(False, None, "propagation", "contradiction")
    if (found.values >= 0).all():
        return work.answer(True, _checked(puzzle, found.values), "propagation", "solved")
    for round_index in range(MAX_ROUNDS):
        work.rounds = round_index + 1
        left = work.time_left(time_limit)
        if left is not None and left <= 0:
            return work.answer(False, None, "none", "time_limit")
        # from the propagation above: the search would otherwise find the same fixpoint again, every restart
        search = exact.count_solutions(puzzle.givens, puzzle.order, limit=1, seed=seed, threads=threads,
                                       max_nodes=EXACT_NODES << round_index, time_limit=left, propagated=found)
        work.nodes += search.nodes
        work.restarts += search.restarts
        if search.solutions:
            return work.answer(True, _checked(puzzle, search.solution), "exact", "solved")
        if not search.gave_up:
            return work.answer(False, None, "exact", "no_solution")
        if search.interrupted or stop_module.requested():
            return work.answer(False, None, "none", "interrupted")
        left = work.time_left(time_limit)
        if left is not None and left <= 0:
            return work.answer(False, None, "none", "time_limit")
        move = puzzle.move()
        rows = chains or (backend.default_chains(move) if backend.name == "cuda" else CPU_CHAINS)
        budget = max(move.plateau_length, PROPOSALS_PER_NODE * (EXACT_NODES << round_index) // rows)
        # the size's default cooling, compressed into this round's moves
        law = dataclasses.replace(runner.default_schedule(move), n_plateaus=max(1, budget // move.plateau_length))
        result = runner.anneal(puzzle, backend=backend, chains=rows, seed=seed, schedule=law, trials=1,
                               chain_base=round_index * rows, time_limit=left, progress=progress)
        work.add_round(result)
        if result.solved:
            return work.answer(True, result.solution, "anneal", "solved")
        if result.stopped == "interrupted":
            return work.answer(False, None, "none", "interrupted")
    return work.answer(False, None, "none", "rounds")


@dataclass
class _Work:
    """The rounds' accounting: the clock starts after the search's code is loaded; the annealer's own setup
    (allocation, compilation) happens inside the rounds and is taken off ``seconds``."""

    start: float
    setup: float  # before the clock, plus every annealing round's setup
    annealer_setup: float = 0.0
    rounds: int = 0
    nodes: int = 0
    restarts: int = 0
    moves: int = 0
    anneal: runner.Result | None = None

    def time_left(self, time_limit):
        return None if time_limit is None else time_limit - (time.perf_counter() - self.start)

    def add_round(self, result: runner.Result):
        self.moves += result.moves
        self.annealer_setup += result.setup_seconds
        self.anneal = result

    def answer(self, solved, solution, method, stopped) -> Answer:
        wall = time.perf_counter() - self.start
        return Answer(solved=solved, solution=solution, method=method, stopped=stopped,
                      seconds=max(0.0, wall - self.annealer_setup), setup_seconds=self.setup + self.annealer_setup,
                      rounds=self.rounds, nodes=self.nodes, restarts=self.restarts, moves=self.moves,
                      anneal=self.anneal)


def _checked(puzzle, values):
    values = np.asarray(values, dtype=np.int64)
    violations = puzzle.check(values)
    if violations:
        raise RuntimeError(f"internal error: auto's solution is rejected by the validator: {violations[0]}")
    return values
