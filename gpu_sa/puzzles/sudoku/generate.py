"""Full grids and minimal puzzles (seed 003).

Grids, three methods (``METHODS``):
  anneal     the batch annealer started from an empty grid: every chain that reaches cost 0
             holds a valid grid, so one launch yields up to one grid per chain
  backtrack  the exact solver on an empty grid, trying digits in a pseudo-random order
  swaps      the seed's "random swaps keeping only improvements": move swap at zero
             temperature (a swap that does not lower the cost is refused, except ties), restarted
Every grid then gets a uniformly random symmetry of the Sudoku group (digit relabelling,
band and stack permutations, row and column permutations inside them, transposition), so
the output does not carry the method's bias towards particular grids; duplicates are dropped.

Minimal puzzles, two methods (``MINIMIZE_METHODS``), uniqueness always proved by the exact
solver (count up to 2):
  anneal  the seed's scheme: pick a cell at random; a given is removed when the puzzle stays
          unique; an empty cell gets its digit back with probability exp(-1/T) (T falling
          linearly from t0 to t_end); the best (fewest givens) unique puzzle seen is kept
  greedy  every given, in random order, is removed when the puzzle stays unique: one pass
Random draws: Philox at counter (step, grid index, 0, TAG_CLUES), key = seed.
"""
from __future__ import annotations

import itertools
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numba
import numpy as np

from cpu_ref.exact import sudoku as exact

from ... import backends, rng, runner, schedule

METHODS = ("anneal", "backtrack", "swaps")
MINIMIZE_METHODS = ("anneal", "greedy")
TAG_CLUES = np.uint32(0x434C5545)  # "CLUE"
SHIFT32 = np.uint64(32)
ONE = np.uint64(1)
_philox = rng.compiled("cpu")


def empty_puzzle(order: int):
    from . import Sudoku

    return Sudoku(givens=np.full((order * order) ** 2, -1, dtype=np.int16), order=order, fmt="line",
                  source="<empty>", line=1)


def shuffle_symmetry(grid: np.ndarray, order: int, generator: np.random.Generator) -> np.ndarray:
    """A uniformly random element of the Sudoku symmetry group applied to ``grid`` (0-based digits)."""
    side = order * order
    g = grid.reshape(side, side)

    def lines():
        return np.concatenate([band * order + generator.permutation(order) for band in generator.permutation(order)])

    g = g[lines()][:, lines()]
    if generator.integers(2):
        g = g.T
    return generator.permutation(side)[g].astype(np.int16).ravel()


def grid_stream(*, order: int = 3, method: str = "anneal", seed: int = 0, backend="auto",
                chains: int | None = None, max_rounds: int = 1000):
    """Distinct valid full grids (0-based digits), one at a time, reproducible from ``seed``.

    Lazy, so a caller that wants more grids later (``gpu-sa puzzle``) continues the same stream
    instead of making the earlier ones again.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    generator = np.random.default_rng([seed, order])
    seen: set[bytes] = set()
    if method == "backtrack":
        batches = (_backtracked(order, seed),)
    else:
        batches = (_annealed(order, method, seed, backend, chains, r) for r in range(max_rounds))
    for batch in batches:
        for grid in batch:
            shuffled = shuffle_symmetry(grid, order, generator)
            if shuffled.tobytes() not in seen:
                seen.add(shuffled.tobytes())
                yield shuffled
    raise RuntimeError(f"only {len(seen)} distinct grids could be made")


def grids(count: int, **options) -> list[np.ndarray]:
    """The first ``count`` grids of ``grid_stream(**options)``."""
    if int(count) != count or count < 1:
        raise ValueError(f"count must be a positive integer, got {count}")
    return list(itertools.islice(grid_stream(**options), int(count)))


def _annealed(order, method, seed, backend, chains, round_index):
    """The solved chains of one annealing trial from an empty grid (chain indices offset per round)."""
    puzzle = empty_puzzle(order)
    move = puzzle.move("swap")
    if isinstance(backend, str):
        backend, _ = backends.select(backend)
    chains = chains or runner.DEFAULT_CHAINS[backend.name]
    length = move.plateau_length
    if method == "swaps":
        law, moves = schedule.from_list([1e-3], plateau_length=length), 200 * length
    else:
        law, moves = schedule.geometric(t0=0.5, t_end=0.05, plateaus=200, plateau_length=length), None
    result = runner.anneal(puzzle, move="swap", backend=backend, chains=chains, seed=seed, schedule=law,
                           max_moves=moves, trials=1, early_stop=False, chain_base=round_index * chains,
                           keep_state=True)
    state = result.state
    solved = state.best_config[state.best_cost == 0].astype(np.int16)
    for grid in solved:
        if puzzle.check(grid):
            raise RuntimeError("internal error: a chain at cost 0 holds an invalid grid")
    return solved


def _backtracked(order, seed, max_attempts=1_000_000):
    """Grids from the exact solver on an empty grid, digits tried in an order drawn from (seed, attempt)."""
    peers, units, cell_units, full = exact.tables(order)
    cells = (order * order) ** 2
    masks = np.zeros(cells, dtype=np.uint64)
    for attempt in range(max_attempts):
        key = (int(seed) * 1_000_003 + attempt) % 2**64 | 1
        cand = np.full(cells, full, dtype=np.uint64)
        found, _, _ = exact.search(cand, peers, units, cell_units, full, 1, 1_000_000, masks, np.uint64(key))
        if found:
            digits = np.empty(cells, dtype=np.int16)
            exact._digits_of(masks, digits)
            yield digits


@numba.njit(nogil=True, cache=True)
def _unique_without(solution, given, skip, peers, units, cell_units, full, max_nodes, cand, masks):
    """True when the givens (``given`` mask, minus cell ``skip``) have exactly one completion."""
    for cell in range(solution.shape[0]):
        if given[cell] and cell != skip:
            cand[cell] = ONE << np.uint64(solution[cell])
        else:
            cand[cell] = full
    found, nodes, gave_up = exact.search(cand, peers, units, cell_units, full, 2, max_nodes, masks)
    return found == 1 and not gave_up


@numba.njit(nogil=True, cache=True)
def _word(step, index, key0, key1):
    w0, w1, w2, w3 = _philox(np.uint32(step & 0xFFFFFFFF), np.uint32(index), np.uint32(0), TAG_CLUES, key0, key1)
    return w0, w1


@numba.njit(nogil=True, cache=True)
def minimize_anneal(solution, index, key0, key1, iterations, t0, t_end, peers, units, cell_units, full, max_nodes,
                    best):
    """Seed 003's annealing over clue sets; writes the best unique clue mask to ``best``; returns its size."""
    cells = solution.shape[0]
    given = np.ones(cells, dtype=np.bool_)
    cand = np.empty(cells, dtype=np.uint64)
    masks = np.empty(cells, dtype=np.uint64)
    count = cells
    best[:] = given
    best_count = cells
    for step in range(iterations):
        temperature = t0 + (t_end - t0) * step / max(iterations - 1, 1)
        w0, w1 = _word(step, index, key0, key1)
        cell = np.int64((np.uint64(w0) * np.uint64(cells)) >> SHIFT32)
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
    return best_count


@numba.njit(nogil=True, cache=True)
def minimize_greedy(solution, index, key0, key1, peers, units, cell_units, full, max_nodes, best):
    """One pass over the cells in random order, removing every given whose removal keeps the puzzle unique."""
    cells = solution.shape[0]
    order = np.arange(cells)
    for i in range(cells - 1, 0, -1):
        w0, w1 = _word(i, index, key0, key1)
        j = np.int64((np.uint64(w0) * np.uint64(i + 1)) >> SHIFT32)
        held = order[i]
        order[i] = order[j]
        order[j] = held
    best[:] = True
    cand = np.empty(cells, dtype=np.uint64)
    masks = np.empty(cells, dtype=np.uint64)
    count = cells
    for k in range(cells):
        cell = order[k]
        if _unique_without(solution, best, cell, peers, units, cell_units, full, max_nodes, cand, masks):
            best[cell] = False
            count -= 1
    return count


@dataclass(frozen=True)
class Minimized:
    puzzle: np.ndarray  # 0-based digits, -1 = empty
    givens: int
    unique: bool  # proved by the exact solver after the search


DEFAULT_ITERATIONS = 100_000  # bench/generate.py: median 21 givens over 100 grids, 0.28 s each on 2 cores
MAX_NODES = 200_000


def minimize(solutions, order: int, *, method: str = "anneal", seed: int = 0, iterations: int = DEFAULT_ITERATIONS,
             t0: float = 1.0, t_end: float = 0.15, threads: int | None = None) -> list[Minimized]:
    """A puzzle with few givens and a unique solution for each full grid of ``solutions``, all cores."""
    if method not in MINIMIZE_METHODS:
        raise ValueError(f"unknown method {method!r}; choose from {', '.join(MINIMIZE_METHODS)}")
    if int(iterations) != iterations or iterations < 1:
        raise ValueError(f"iterations must be a positive integer, got {iterations}")
    if not (t0 > 0 and t_end > 0):
        raise ValueError("temperatures must be positive")
    peers, units, cell_units, full = exact.tables(order)
    key0, key1 = rng.split_seed(seed)
    solutions = [np.ascontiguousarray(s, dtype=np.int16) for s in solutions]

    def one(index):
        best = np.ones(solutions[index].shape[0], dtype=np.bool_)
        if method == "anneal":
            minimize_anneal(solutions[index], index, key0, key1, int(iterations), float(t0), float(t_end), peers,
                            units, cell_units, full, MAX_NODES, best)
        else:
            minimize_greedy(solutions[index], index, key0, key1, peers, units, cell_units, full, MAX_NODES, best)
        puzzle = np.where(best, solutions[index], -1).astype(np.int16)
        check = exact.count_solutions(puzzle, order, limit=2)
        unique = check.solutions == 1 and not check.gave_up and np.array_equal(check.solution, solutions[index])
        return Minimized(puzzle=puzzle, givens=int(best.sum()), unique=unique)

    workers = threads or backends.available_cores()
    if workers == 1 or len(solutions) == 1:
        return [one(i) for i in range(len(solutions))]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, range(len(solutions))))
