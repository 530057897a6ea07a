"""Puzzles with few givens: empty a grid while it keeps a unique solution (seed 003).

The input is a full grid, or a puzzle with exactly one solution: then only its givens may stay.
Three methods (``MINIMIZE_METHODS``), uniqueness always proved by the exact solver (count up to 2):
  anneal  the seed's scheme: pick a cell at random; a given is removed when the puzzle stays
          unique; an empty cell gets its digit back with probability exp(-1/T) (T falling
          linearly from t0 to t_end); the best (fewest givens) unique puzzle seen is kept
  greedy  every given, in random order, is removed when the puzzle stays unique: one pass.
          The result is minimal (no single given can go), not the minimum.
  brute   the seed's brute force, pruned (``brute``): the smallest unique puzzle inside the
          input, proven; it starts from the smaller of greedy's and anneal's puzzles, so it never
          has more givens than either; when its budget runs out: that puzzle, "unknown", and a
          proven lower bound
Random draws: Philox at counter (step, grid index, 0, TAG_CLUES), key = seed; brute's tie-break
order at (cell, grid index, 0, TAG_BRUTE).

Every compiled loop polls ``gpu_sa.engine.stop.FLAG`` once per step (a step is one bounded call of
the exact solver), so a stop request ends it within a fraction of a second; what it had
found is kept and marked ``stopped``.
"""
from __future__ import annotations

import collections
import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ....engine import backends, rng, stop
from ....engine.jit import njit
from . import brute, exact

search_any = exact.bitboard.search_any

MINIMIZE_METHODS = ("anneal", "greedy", "brute")
TAG_CLUES = np.uint32(0x434C5545)  # "CLUE"
SHIFT32 = np.uint64(32)
ONE = np.uint64(1)
_philox = rng.philox


@njit(nogil=True, cache=True)
def _unique_without(solution, given, skip, peers, units, cell_units, full, max_nodes, cand, masks):
    """True when the givens (``given`` mask, minus cell ``skip``) have exactly one completion. A 9x9 is counted on
    the bitboards with box-line (``exact.bitboard``: the same count in about a third of the time; within
    CHECK_MAX_NODES either search ends every 9x9 check); other orders on the general search."""
    for cell in range(solution.shape[0]):
        if given[cell] and cell != skip:
            cand[cell] = ONE << np.uint64(solution[cell])
        else:
            cand[cell] = full
    found, nodes, gave_up = search_any(cand, peers, units, cell_units, full, 2, max_nodes, masks, True)
    return found == 1 and not gave_up


@njit(nogil=True, cache=True)
def _word(step, index, key0, key1):
    w0, w1, w2, w3 = _philox(np.uint32(step & 0xFFFFFFFF), np.uint32(index), np.uint32(0), TAG_CLUES, key0, key1)
    return w0, w1



@njit(nogil=True, cache=True)
def minimize_anneal(solution, within, index, key0, key1, iterations, t0, t_end, peers, units, cell_units, full,
                    max_nodes, flag, best):
    """Seed 003's annealing over the givens among the cells ``within``; writes the best unique set to ``best``.

    Returns (its size, stopped): ``stopped`` when ``flag[0]`` asked for a stop before the last step.
    """
    cells = solution.shape[0]
    given = np.zeros(cells, dtype=np.bool_)
    given[within] = True
    cand = np.empty(cells, dtype=np.uint64)
    masks = np.empty(cells, dtype=np.uint64)
    count = within.shape[0]
    best[:] = given
    best_count = count
    for step in range(iterations):
        if flag[0] != 0:
            return best_count, True
        temperature = t0 + (t_end - t0) * step / max(iterations - 1, 1)
        w0, w1 = _word(step, index, key0, key1)
        cell = within[np.int64((np.uint64(w0) * np.uint64(within.shape[0])) >> SHIFT32)]
        if given[cell]:
            if _unique_without(solution, given, cell, peers, units, cell_units, full, max_nodes, cand, masks):
                given[cell] = False
                count -= 1
                if count < best_count:
                    best_count = count
                    best[:] = given
        elif w1 < math.exp(-1.0 / temperature) * 4294967296.0:
            given[cell] = True
            count += 1
    return best_count, False


@njit(nogil=True, cache=True)
def minimize_greedy(solution, within, index, key0, key1, peers, units, cell_units, full, max_nodes, flag, best):
    """One pass over the cells ``within`` in random order, removing every given whose removal keeps it unique.

    Returns (givens left, stopped), as ``minimize_anneal``.
    """
    cells = solution.shape[0]
    order = within.copy()
    for i in range(order.shape[0] - 1, 0, -1):
        w0, w1 = _word(i, index, key0, key1)
        j = np.int64((np.uint64(w0) * np.uint64(i + 1)) >> SHIFT32)
        held = order[i]
        order[i] = order[j]
        order[j] = held
    best[:] = False
    best[within] = True
    cand = np.empty(cells, dtype=np.uint64)
    masks = np.empty(cells, dtype=np.uint64)
    count = order.shape[0]
    for k in range(order.shape[0]):
        if flag[0] != 0:
            return count, True
        cell = order[k]
        if _unique_without(solution, best, cell, peers, units, cell_units, full, max_nodes, cand, masks):
            best[cell] = False
            count -= 1
    return count, False


@dataclass(frozen=True)
class Minimized:
    puzzle: np.ndarray  # 0-based digits, -1 = empty
    givens: int
    unique: bool  # proved by the exact solver after the search
    solution: np.ndarray | None = None  # the input's one solution (the input itself when it is a full grid)
    stopped: bool = False  # a stop request cut the search short: unique all the same, perhaps with more givens
    seconds: float = 0.0
    # brute only (None otherwise):
    proof: str | None = None  # "optimal": no unique puzzle inside the input has fewer givens; else "unknown"
    lower_bound: int | None = None  # proven: every unique puzzle inside the input has at least this many givens
    search_ended: str | None = None  # optimal | node_limit | time_limit | stopped | solver_gave_up
    nodes: int | None = None  # sets of givens the search looked at
    checks: int | None = None  # exact-solver questions "another solution?"


DEFAULT_ITERATIONS = 100_000  # bench/generate.py: median 21 givens over 100 grids, 0.11-0.12 s each on 2 cores
CHECK_MAX_NODES = 200_000  # one uniqueness check gives up after this many solver branches (it then counts as "no")
DEFAULT_BRUTE_NODES = 1_000_000
# What each method runs before its own search: brute starts from the smaller of two heuristics' puzzles
HEURISTICS = {"anneal": ("anneal",), "greedy": ("greedy",), "brute": ("greedy", "anneal")}


def minimize_stream(puzzles, order: int, *, method: str = "anneal", seed: int = 0,
                    iterations: int = DEFAULT_ITERATIONS, t0: float = 1.0, t_end: float = 0.15,
                    max_nodes: int = DEFAULT_BRUTE_NODES, time_limit: float | None = None,
                    threads: int | None = None):
    """A puzzle with few givens and the same unique solution for each input, yielded in input order as done.

    ``puzzles``: an iterable (consumed lazily) of full grids or puzzles with exactly one
    solution (0-based digits, -1 = empty); only an input's givens may stay. Input i draws from
    (seed, i), so the results do not depend on ``threads`` (default: every core).
    ``iterations``, ``t0``, ``t_end``: anneal. ``max_nodes`` and ``time_limit`` (seconds):
    brute's budget per input.

    A stop request (``gpu_sa.engine.stop.request()``) ends the stream early: inputs in progress are
    yielded with ``stopped=True`` (their puzzles still unique), later ones are not started.
    Check ``gpu_sa.engine.stop.requested()`` to tell a stopped stream from a finished one. Puzzles
    made on the fly: ``minimize_stream(grid_stream(order=n, seed=s), n, seed=s)``.
    Raises ValueError (at that input) for one without exactly one solution.
    """
    if method not in MINIMIZE_METHODS:
        raise ValueError(f"unknown method {method!r}; choose from {', '.join(MINIMIZE_METHODS)}")
    _check_count("iterations", iterations, minimum=1)
    _check_count("max_nodes", max_nodes, minimum=0)
    if not (t0 > 0 and t_end > 0):
        raise ValueError("temperatures must be positive")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be positive, got {time_limit}")
    peers, units, cell_units, full = exact.tables(order)
    key0, key1 = rng.split_seed(seed)

    def heuristic(name, solution, within, index, best):
        if name == "anneal":
            return minimize_anneal(solution, within, index, key0, key1, int(iterations), float(t0), float(t_end), peers,
                                   units, cell_units, full, CHECK_MAX_NODES, stop.FLAG, best)[1]
        return minimize_greedy(solution, within, index, key0, key1, peers, units, cell_units, full, CHECK_MAX_NODES,
                               stop.FLAG, best)[1]

    def one(index, given):
        if stop.requested():
            return None
        start = time.perf_counter()
        solution, within = _solution_and_cells(given, order, index)
        best, stopped = None, False
        for name in HEURISTICS[method]:
            found = np.zeros(solution.shape[0], dtype=np.bool_)
            stopped = heuristic(name, solution, within, index, found)
            if best is None or found.sum() < best.sum():
                best = found
            if stopped:
                break
        extra = {}
        if method == "brute" and not stopped:
            inside = np.zeros(solution.shape[0], dtype=np.bool_)
            inside[within] = True
            search = brute.smallest_unique(solution, order, within=inside, incumbent=best, index=index, seed=seed,
                                           max_nodes=max_nodes, time_limit=time_limit, flag=stop.FLAG,
                                           check_nodes=CHECK_MAX_NODES)
            best, stopped = search.puzzle, search.outcome == "stopped"
            extra = dict(proof="optimal" if search.outcome == "optimal" else "unknown",
                         lower_bound=search.lower_bound, search_ended=search.outcome, nodes=search.nodes,
                         checks=search.checks)
        elif method == "brute":
            extra = dict(proof="unknown", lower_bound=0, search_ended="stopped", nodes=0, checks=0)
        puzzle = np.where(best, solution, -1).astype(np.int16)
        check = exact.count_solutions(puzzle, order, limit=2)
        unique = check.solutions == 1 and not check.gave_up and np.array_equal(check.solution, solution)
        return Minimized(puzzle=puzzle, givens=int(best.sum()), unique=unique, solution=solution,
                         stopped=bool(stopped), seconds=time.perf_counter() - start, **extra)

    return _in_order(one, puzzles, threads or backends.available_cores())


def minimize(puzzles, order: int, **options) -> list[Minimized]:
    """Every result of ``minimize_stream`` (fewer than the inputs when a stop request ended it)."""
    return list(minimize_stream(puzzles, order, **options))


def _solution_and_cells(given, order, index):
    """(the unique solution, the cells that may stay given) of one input; ValueError if it has no unique solution."""
    given = np.ascontiguousarray(given, dtype=np.int16)
    if (given >= 0).all():
        return given, np.arange(given.shape[0])
    check = exact.count_solutions(given, order, limit=2)
    if check.solutions != 1 or check.gave_up:
        found = "no solution" if check.solutions == 0 else "more than one solution"
        raise ValueError(f"input {index + 1} has {'an unknown number of solutions' if check.gave_up else found}: "
                         "minimize needs full grids or puzzles with exactly one solution")
    return check.solution.astype(np.int16), np.flatnonzero(given >= 0)


def _in_order(work, items, workers: int):
    """``work(index, item)`` for each item on ``workers`` threads; results yielded in input order.

    Items are taken lazily, at most two per thread ahead of the consumer. ``work`` returns
    None when a stop request came before it began: the stream ends there (items start in input
    order, so no later one has begun).
    """
    if workers == 1:
        for index, item in enumerate(items):
            result = work(index, item)
            if result is None:
                return
            yield result
        return
    items = enumerate(items)
    pending = collections.deque()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        try:
            while True:
                while len(pending) < 2 * workers and not stop.requested():
                    item = next(items, None)
                    if item is None:
                        break
                    pending.append(pool.submit(work, *item))
                if not pending:
                    return
                result = pending.popleft().result()
                if result is None:
                    return
                yield result
        finally:
            for future in pending:
                future.cancel()


def _check_count(name, value, *, minimum):
    if isinstance(value, bool) or int(value) != value or value < minimum:
        raise ValueError(f"{name} must be an integer of at least {minimum}, got {value!r}")
