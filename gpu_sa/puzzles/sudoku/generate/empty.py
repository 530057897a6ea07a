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
          has more givens than either (when its budget lets both run whole); when its budget runs
          out: the smallest unique puzzle so far, "unknown", and a proven lower bound
Random draws: Philox at counter (step, grid index, 0, TAG_CLUES), key = seed; brute's tie-break
order at (cell, grid index, 0, TAG_BRUTE).

Brute's budget (``max_nodes``, ``time_limit``) covers the whole of a grid: the greedy pass, the anneal
and the search share it, in that order (``ANNEAL_SHARE``): at 16x16 the anneal's 100,000 default steps
alone take about 90 s.

Every compiled loop polls ``gpu_sa.engine.stop.FLAG`` once per step (a step is one bounded call of
the exact solver), and the solver inside polls it every 1,024 branches, so a stop request ends it
within a fraction of a second; what it had found is kept and marked ``stopped``. A puzzle is kept
only once a check has proved it unique, so a check cut short keeps the puzzle before it.
"""
from __future__ import annotations

import collections
import functools
import math
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ....engine import backends, rng, stop
from ....engine.jit import njit
from . import brute, exact

polled_search = brute.polled_search

MINIMIZE_METHODS = ("anneal", "greedy", "brute")
TAG_CLUES = np.uint32(0x434C5545)  # "CLUE"
SHIFT32 = np.uint64(32)
ONE = np.uint64(1)
_philox = rng.philox


@njit(nogil=True, cache=True)
def _unique_without(solution, given, skip, peers, units, cell_units, full, max_nodes, cand, masks, flag):
    """True when the givens (``given`` mask, minus cell ``skip``) have exactly one completion; False when not, or
    not proven (``max_nodes`` branches, or ``flag[0]`` set). A 9x9 is counted on the bitboards with box-line
    (``exact.bitboard``: the same count in about a third of the time; within CHECK_MAX_NODES either search ends
    every 9x9 check); other orders on the general search."""
    for cell in range(solution.shape[0]):
        if given[cell] and cell != skip:
            cand[cell] = ONE << np.uint64(solution[cell])
        else:
            cand[cell] = full
    found, nodes, gave_up = polled_search(cand, peers, units, cell_units, full, 2, max_nodes, masks, True, flag)
    return found == 1 and not gave_up


@njit(nogil=True, cache=True)
def _word(step, index, key0, key1):
    w0, w1, w2, w3 = _philox(np.uint32(step & 0xFFFFFFFF), np.uint32(index), np.uint32(0), TAG_CLUES, key0, key1)
    return w0, w1



@njit(nogil=True, cache=True)
def minimize_anneal(solution, within, index, key0, key1, iterations, t0, t_end, peers, units, cell_units, full,
                    max_nodes, flag, best):
    """Seed 003's annealing over the givens among the cells ``within``; writes the best unique set to ``best``.

    Returns (its size, stopped, steps taken): ``stopped`` when ``flag[0]`` asked for a stop before the last step.
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
            return best_count, True, step
        temperature = t0 + (t_end - t0) * step / max(iterations - 1, 1)
        w0, w1 = _word(step, index, key0, key1)
        cell = within[np.int64((np.uint64(w0) * np.uint64(within.shape[0])) >> SHIFT32)]
        if given[cell]:
            if _unique_without(solution, given, cell, peers, units, cell_units, full, max_nodes, cand, masks, flag):
                given[cell] = False
                count -= 1
                if count < best_count:
                    best_count = count
                    best[:] = given
        elif w1 < math.exp(-1.0 / temperature) * 4294967296.0:
            given[cell] = True
            count += 1
    return best_count, False, iterations


@njit(nogil=True, cache=True)
def minimize_greedy(solution, within, index, key0, key1, peers, units, cell_units, full, max_nodes, max_steps, flag,
                    best):
    """One pass over the cells ``within`` in random order, removing every given whose removal keeps it unique; the
    first ``max_steps`` cells of that order only, when fewer.

    Returns (givens left, stopped, steps taken), as ``minimize_anneal``.
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
    steps = min(order.shape[0], max_steps)
    for k in range(steps):
        if flag[0] != 0:
            return count, True, k
        cell = order[k]
        if _unique_without(solution, best, cell, peers, units, cell_units, full, max_nodes, cand, masks, flag):
            best[cell] = False
            count -= 1
    return count, False, steps


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
    steps: int | None = None  # steps of the greedy pass and the anneal before the search (``max_nodes`` counts them)


DEFAULT_ITERATIONS = 100_000  # bench/generate.py: median 21 givens over 100 grids, 0.11-0.12 s each on 2 cores
CHECK_MAX_NODES = 200_000  # one uniqueness check gives up after this many solver branches (it then counts as "no")
DEFAULT_BRUTE_NODES = 1_000_000
# What each method runs before its own search: brute starts from the smaller of two heuristics' puzzles
HEURISTICS = {"anneal": ("anneal",), "greedy": ("greedy",), "brute": ("greedy", "anneal")}
# Brute's budget, ``max_nodes`` and ``time_limit``, is the grid's: the greedy pass's steps (one uniqueness check
# each) come out of it first, then the anneal's, then the search's nodes. The anneal takes at most this share of what
# the greedy pass left, in steps and in seconds, so that a budget near --iterations (or a time limit at 16x16, where
# 100,000 steps take 90 s) still leaves the search something to prove a lower bound with.
ANNEAL_SHARE = 0.5


def minimize_stream(puzzles, order: int, *, method: str = "anneal", seed: int = 0,
                    iterations: int = DEFAULT_ITERATIONS, t0: float = 1.0, t_end: float = 0.15,
                    max_nodes: int = DEFAULT_BRUTE_NODES, time_limit: float | None = None,
                    threads: int | None = None):
    """A puzzle with few givens and the same unique solution for each input, yielded in input order as done.

    ``puzzles``: an iterable (consumed lazily) of full grids or puzzles with exactly one
    solution (0-based digits, -1 = empty); only an input's givens may stay. Input i draws from
    (seed, i), so the results do not depend on ``threads`` (default: every core).
    ``iterations``, ``t0``, ``t_end``: anneal. ``max_nodes`` and ``time_limit`` (seconds):
    brute's budget per input, its greedy pass and anneal included (``ANNEAL_SHARE``).

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
    if order >= exact.wide.MIN_ORDER:
        return _wide_stream(puzzles, order, method=method, seed=seed, iterations=iterations,
                            threads=threads or backends.available_cores())
    peers, units, cell_units, full = exact.tables(order)
    key0, key1 = rng.split_seed(seed)

    def heuristic(name, solution, within, index, best, steps, flag):
        """(stopped, steps taken) of ``name`` for at most ``steps`` steps; ``flag`` stops it."""
        if name == "anneal":
            return minimize_anneal(solution, within, index, key0, key1, int(steps), float(t0), float(t_end), peers,
                                   units, cell_units, full, CHECK_MAX_NODES, flag, best)[1:]
        return minimize_greedy(solution, within, index, key0, key1, peers, units, cell_units, full, CHECK_MAX_NODES,
                               int(steps), flag, best)[1:]

    def one(index, given):
        if method == "brute":
            _compiled()
        if stop.requested():
            return None
        start = time.perf_counter()
        deadline = stop.Deadline.after(time_limit if method == "brute" else None, start=start)
        found = _solution_and_cells(given, order, index)
        if found is None:  # a stop request cut short the check of an input puzzle: nothing to report
            return None
        solution, within = found
        cells = solution.shape[0]
        budget = int(max_nodes) if method == "brute" else None  # what is left of brute's (ANNEAL_SHARE)
        best, halted = None, False
        for name in HEURISTICS[method]:
            steps, share = (within.shape[0] if name == "greedy" else int(iterations)), deadline
            if budget is not None and name == "anneal":
                steps = min(steps, int(budget * ANNEAL_SHARE))
                if deadline.at is not None:
                    share = stop.Deadline(time.perf_counter() + deadline.left() * ANNEAL_SHARE)
            elif budget is not None:
                steps = min(steps, budget)
            if steps <= 0:
                continue
            found = np.zeros(cells, dtype=np.bool_)
            with stop.halting(share) as flag:
                halted, taken = heuristic(name, solution, within, index, found, steps, flag)
            if budget is not None:
                budget -= taken
            if best is None or found.sum() < best.sum():
                best = found
            halted = halted and (stop.requested() or deadline.passed())  # not when only the anneal's share ran out
            if halted:
                break
        if best is None:  # a budget of 0: no step at all, the input as it is
            best = np.zeros(cells, dtype=np.bool_)
            best[within] = True
        extra = {}
        if method == "brute":
            extra = dict(proof="unknown", lower_bound=0, nodes=0, checks=0, steps=int(max_nodes) - budget,
                         search_ended=("stopped" if stop.requested() else "time_limit") if halted else "node_limit")
        if method == "brute" and not halted and budget > 0:
            inside = np.zeros(cells, dtype=np.bool_)
            inside[within] = True
            search = brute.smallest_unique(solution, order, within=inside, incumbent=best, index=index, seed=seed,
                                           max_nodes=budget, deadline=deadline, flag=stop.FLAG,
                                           check_nodes=CHECK_MAX_NODES)
            best, halted = search.puzzle, search.outcome in ("stopped", "time_limit")
            extra.update(proof="optimal" if search.outcome == "optimal" else "unknown",
                         lower_bound=search.lower_bound, search_ended=search.outcome, nodes=search.nodes,
                         checks=search.checks)
        puzzle = np.where(best, solution, -1).astype(np.int16)
        # Every puzzle kept on the way was proved unique by a check of its own; this one proves it again, from
        # scratch, with a flag of its own that no stop request sets: cut short, it would read "not unique", and a
        # Ctrl-C would turn the puzzle so far into an internal error wherever a check takes more than the 1,024
        # branches after which the solver reads the flag (16x16 and up). It costs one check of the kind each step made.
        check = exact.count_solutions(puzzle, order, limit=2, flag=np.zeros(1, dtype=np.uint8))
        unique = check.solutions == 1 and not check.gave_up and np.array_equal(check.solution, solution)
        return Minimized(puzzle=puzzle, givens=int(best.sum()), unique=unique, solution=solution,
                         stopped=bool(halted and stop.requested()), seconds=time.perf_counter() - start, **extra)

    return _in_order(one, puzzles, threads or backends.available_cores())


@functools.cache
def _compiled() -> bool:
    """Brute's compiled parts, compiled (or loaded from numba's cache) on a 4x4 grid before a grid's clock starts:
    compiled inside it, a first run's 1-2 minutes of compilation went into the first grid's time limit."""
    grid = np.array([0, 1, 2, 3, 2, 3, 0, 1, 1, 0, 3, 2, 3, 2, 1, 0], dtype=np.int16)
    within = np.arange(16)
    peers, units, cell_units, full = exact.tables(2)
    key0, key1 = rng.split_seed(0)
    flag, best = np.zeros(1, dtype=np.uint8), np.zeros(16, dtype=np.bool_)
    minimize_greedy(grid, within, 0, key0, key1, peers, units, cell_units, full, CHECK_MAX_NODES, 1, flag, best)
    minimize_anneal(grid, within, 0, key0, key1, 1, 1.0, 0.15, peers, units, cell_units, full, CHECK_MAX_NODES, flag,
                    best)
    bits = brute._bitset(np.ones(16, dtype=np.bool_))
    brute.prove(grid, bits, bits, 0, key0, key1, 0, CHECK_MAX_NODES, flag, exact.tables(2), bits.copy())
    return True


def minimize(puzzles, order: int, **options) -> list[Minimized]:
    """Every result of ``minimize_stream`` (fewer than the inputs when a stop request ended it)."""
    return list(minimize_stream(puzzles, order, **options))


def _wide_stream(puzzles, order, *, method, seed, iterations, threads):
    """``minimize_stream`` from 81x81 on, where the compiled minimisers (one uint64 of candidates per cell) do not
    run: one greedy pass in an order drawn from (seed, input), at most ``iterations`` steps, each given removed when
    ``exact.wide``'s search proves the puzzle still unique within CHECK_MAX_NODES branches. brute's proof of the
    smallest puzzle is refused: at these sizes it could not end."""
    if method == "brute":
        raise ValueError("brute minimisation runs on grids up to 64x64; use anneal or greedy (a greedy pass from "
                         "81x81 on)")

    def one(index, given):
        if stop.requested():
            return None
        start = time.perf_counter()
        found = _solution_and_cells(given, order, index)
        if found is None:
            return None
        solution, within = found
        kept = np.zeros(solution.shape[0], dtype=np.bool_)
        kept[within] = True
        puzzle = np.where(kept, solution, -1).astype(np.int16)
        generator = np.random.default_rng([seed, index, order])
        for cell in generator.permutation(within)[:int(iterations)]:
            if stop.requested():
                break
            puzzle[cell] = -1
            check = exact.count_solutions(puzzle, order, limit=2, max_nodes=CHECK_MAX_NODES,
                                          flag=np.zeros(1, dtype=np.uint8))
            if check.solutions == 1 and not check.gave_up:
                kept[cell] = False
            else:
                puzzle[cell] = solution[cell]
        check = exact.count_solutions(puzzle, order, limit=2, flag=np.zeros(1, dtype=np.uint8))
        unique = check.solutions == 1 and not check.gave_up and np.array_equal(check.solution, solution)
        return Minimized(puzzle=puzzle, givens=int(kept.sum()), unique=unique, solution=solution,
                         stopped=stop.requested(), seconds=time.perf_counter() - start)

    return _in_order(one, puzzles, threads)


def _solution_and_cells(given, order, index):
    """(the unique solution, the cells that may stay given) of one input; ValueError if it has no unique solution;
    None if a stop request cut its check short."""
    # a writable copy whatever the input (the command line's parsed grids are read-only): numba compiles a read-only
    # array apart, which ``_compiled`` does not, and each version takes a minute or two
    given = np.array(given, dtype=np.int16)
    if (given >= 0).all():
        return given, np.arange(given.shape[0])
    check = exact.count_solutions(given, order, limit=2)
    if check.interrupted:
        return None
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
