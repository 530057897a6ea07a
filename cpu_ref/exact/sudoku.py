"""Exact Sudoku solver of seed 002, any order n (N = n*n <= 64): prove, count, verify.

Candidates are bitmasks: bit k of ``cand[cell]`` set = digit k+1 still possible (uint64, so
up to 64 digits). The seed's three rules run until nothing changes:

  exclusivity (naked single)  a cell down to one digit removes it from its peers;
  uniqueness  (hidden single) a digit with one place left in a unit goes there;
  parity      (naked pair)    two cells of a unit holding the same two digits remove them
                              from the unit's other cells.

Then the search branches on a free cell with the fewest candidates (minimum remaining
values) and tries its digits in increasing order, so the search is deterministic. Counting
stops at ``limit`` solutions; ``max_nodes`` bounds the branches tried, so that a huge empty
grid cannot hang the caller (the result then says it gave up).

Tables (host, once per order): ``peers`` (cells, 3N - 2n - 1) and ``units`` (3N, N) of cell
indices, rows then columns then boxes.
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import numba
import numpy as np

ONE = np.uint64(1)
ZERO = np.uint64(0)
# A unit's dirty byte: which unit rules have not looked at it since its candidates last changed.
DIRTY_SINGLE = np.uint8(1)
DIRTY_PAIR = np.uint8(2)
DIRTY_BOTH = np.uint8(3)


@functools.cache
def tables(order: int):
    side = order * order
    cells = side * side
    r, c = np.divmod(np.arange(cells), side)
    box = (r // order) * order + c // order
    peer_matrix = (r[:, None] == r[None, :]) | (c[:, None] == c[None, :]) | (box[:, None] == box[None, :])
    np.fill_diagonal(peer_matrix, False)
    peers = np.array([np.flatnonzero(row) for row in peer_matrix], dtype=np.int32)
    units = np.array([np.flatnonzero(r == i) for i in range(side)] + [np.flatnonzero(c == i) for i in range(side)]
                     + [np.flatnonzero(box == i) for i in range(side)], dtype=np.int32)
    cell_units = np.stack([r, side + c, 2 * side + box], axis=1).astype(np.int32)
    full = np.uint64(0xFFFFFFFFFFFFFFFF) if side == 64 else np.uint64((1 << side) - 1)
    return peers, units, cell_units, full


M1 = np.uint64(0x5555555555555555)
M2 = np.uint64(0x3333333333333333)
M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
H01 = np.uint64(0x0101010101010101)


@numba.njit(cache=True, inline="always")
def _popcount(x):
    # SWAR bit count; LLVM turns this pattern into one popcnt instruction where the CPU has it.
    x = x - ((x >> ONE) & M1)
    x = (x & M2) + ((x >> np.uint64(2)) & M2)
    x = (x + (x >> np.uint64(4))) & M4
    return (x * H01) >> np.uint64(56)


@numba.njit(cache=True, inline="always")
def _is_single(mask):
    return mask != ZERO and (mask & (mask - ONE)) == ZERO


@numba.njit(cache=True, inline="always")
def _remove(cand, cell, mask, cell_units, dirty):
    """Clear ``mask`` from a cell and mark its three units for another look by both unit rules."""
    cand[cell] &= ~mask
    for k in range(3):
        dirty[cell_units[cell, k]] = DIRTY_BOTH


@numba.njit(cache=True)
def _place_pending(cand, placed, peers, cell_units, dirty, pending, top):
    """Exclusivity for every cell on the ``pending`` stack, and for the singles it creates."""
    while top > 0:
        top -= 1
        cell = pending[top]
        if placed[cell]:
            continue
        placed[cell] = 1
        mask = cand[cell]
        for k in range(peers.shape[1]):
            p = peers[cell, k]
            if cand[p] & mask:
                _remove(cand, p, mask, cell_units, dirty)
                if cand[p] == ZERO:
                    return -1
                if (cand[p] & (cand[p] - ONE)) == ZERO:
                    pending[top] = p
                    top += 1
    return 0


@numba.njit(cache=True)
def propagate(cand, placed, peers, units, cell_units, full, pending, top, dirty):
    """Apply the three rules until nothing changes. False on a contradiction.

    On entry ``pending[:top]`` holds the cells newly down to one digit, and ``dirty``
    mark the units whose candidates changed since the rules last looked at them: a unit
    that did not change cannot yield a new hidden single or naked pair. ``pending`` is
    scratch space of cells * cells ints.
    """
    side = units.shape[1]
    while True:
        if _place_pending(cand, placed, peers, cell_units, dirty, pending, top) < 0:
            return False  # exclusivity emptied a cell
        top = 0
        for u in range(units.shape[0]):  # uniqueness
            if not dirty[u] & DIRTY_SINGLE:
                continue
            dirty[u] &= ~DIRTY_SINGLE
            once = ZERO
            twice = ZERO
            for k in range(side):
                mask = cand[units[u, k]]
                twice |= once & mask
                once |= mask
            if once != full:
                return False  # some digit has no place left in this unit
            single = once & ~twice
            if single:
                for k in range(side):
                    cell = units[u, k]
                    mask = cand[cell] & single
                    if mask and cand[cell] != mask:
                        if mask & (mask - ONE):
                            return False  # one cell is the only place for two digits
                        _remove(cand, cell, ~mask, cell_units, dirty)
                        pending[top] = cell
                        top += 1
        if top:
            continue
        for u in range(units.shape[0]):  # parity
            if not dirty[u] & DIRTY_PAIR:
                continue
            dirty[u] &= ~DIRTY_PAIR
            for i in range(side):
                pair = cand[units[u, i]]
                rest = pair & (pair - ONE)
                if rest == ZERO or (rest & (rest - ONE)) != ZERO:
                    continue  # not exactly two candidates
                for j in range(i + 1, side):
                    if cand[units[u, j]] == pair:
                        for k in range(side):
                            cell = units[u, k]
                            if k != i and k != j and cand[cell] & pair:
                                _remove(cand, cell, pair, cell_units, dirty)
                                if cand[cell] == ZERO:
                                    return False
                                if _is_single(cand[cell]):
                                    pending[top] = cell
                                    top += 1
        if not top:
            for u in range(units.shape[0]):
                if dirty[u] & DIRTY_SINGLE:
                    break
            else:
                return True


@numba.njit(cache=True)
def _start(cand, placed, units, pending, dirty):
    """Root state for ``propagate``: every single pending, every unit dirty; False if a cell is empty."""
    top = 0
    for cell in range(cand.shape[0]):
        if cand[cell] == ZERO:
            return -1
        if placed[cell] == 0 and _is_single(cand[cell]):
            pending[top] = cell
            top += 1
    dirty[:] = DIRTY_BOTH
    return top


@numba.njit(cache=True)
def _fewest_candidates(cand, placed):
    """The free cell with the fewest candidates (lowest index on ties), or -1 when all are set."""
    best = -1
    best_count = 1 << 30
    for cell in range(cand.shape[0]):
        if placed[cell]:
            continue
        count = _popcount(cand[cell])
        if 1 < count < best_count:
            best = cell
            best_count = count
            if count == 2:
                break
    return best


@numba.njit(cache=True, inline="always")
def _mix(x):
    """splitmix64's finaliser: a well-spread 64-bit hash, for the shuffled branching order."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@numba.njit(cache=True, inline="always")
def _branch_bit(rest, shuffle, nodes):
    """The digit to try next: the lowest remaining one, or with ``shuffle`` != 0 a pseudo-random one."""
    if shuffle == ZERO:
        return rest & (~rest + ONE)
    skip = _mix(shuffle + np.uint64(nodes) * np.uint64(0x9E3779B97F4A7C15)) % _popcount(rest)
    for _ in range(skip):
        rest &= rest - ONE
    return rest & (~rest + ONE)


@numba.njit(cache=True)
def search(cand0, peers, units, cell_units, full, limit, max_nodes, solution, shuffle=ZERO):
    """(solutions found (<= limit), nodes, gave_up); the first solution's masks go to ``solution``.

    ``shuffle`` = 0 tries digits in increasing order; another value tries them in an order
    drawn from it (randomised backtracking, for generating grids), still deterministic.
    """
    cells = cand0.shape[0]
    cand = np.empty((cells + 1, cells), dtype=np.uint64)
    placed = np.zeros((cells + 1, cells), dtype=np.uint8)
    branch_cell = np.empty(cells + 1, dtype=np.int64)
    branch_rest = np.empty(cells + 1, dtype=np.uint64)
    pending = np.empty(cells * cells, dtype=np.int64)
    dirty = np.zeros(units.shape[0], dtype=np.uint8)
    cand[0, :] = cand0
    top = _start(cand[0], placed[0], units, pending, dirty)
    if top < 0 or not propagate(cand[0], placed[0], peers, units, cell_units, full, pending, top,
                                dirty):
        return 0, 0, False
    found = 0
    nodes = 0
    cell = _fewest_candidates(cand[0], placed[0])
    if cell < 0:
        solution[:] = cand[0]
        return 1, 0, False
    depth = 0
    branch_cell[0] = cell
    branch_rest[0] = cand[0, cell]
    while depth >= 0:
        rest = branch_rest[depth]
        if rest == ZERO:
            depth -= 1
            continue
        bit = _branch_bit(rest, shuffle, nodes)
        branch_rest[depth] = rest & ~bit
        nodes += 1
        if nodes > max_nodes:
            return found, nodes - 1, True
        cand[depth + 1, :] = cand[depth]
        placed[depth + 1, :] = placed[depth]
        # The parent is at a fixpoint: only the branch cell and its units are new.
        dirty[:] = 0
        _remove(cand[depth + 1], branch_cell[depth], ~bit, cell_units, dirty)
        pending[0] = branch_cell[depth]
        if not propagate(cand[depth + 1], placed[depth + 1], peers, units, cell_units, full, pending, 1,
                         dirty):
            continue
        cell = _fewest_candidates(cand[depth + 1], placed[depth + 1])
        if cell < 0:
            if found == 0:
                solution[:] = cand[depth + 1]
            found += 1
            if found >= limit:
                return found, nodes, False
            continue
        depth += 1
        branch_cell[depth] = cell
        branch_rest[depth] = cand[depth, cell]
    return found, nodes, False


@numba.njit(cache=True)
def _candidates_of(givens, full, out):
    for cell in range(givens.shape[0]):
        out[cell] = (ONE << np.uint64(givens[cell])) if givens[cell] >= 0 else full


@numba.njit(cache=True)
def _digits_of(masks, out):
    for cell in range(masks.shape[0]):
        digit = 0
        mask = masks[cell]
        while mask > ONE:
            mask >>= ONE
            digit += 1
        out[cell] = digit


@numba.njit(cache=True)
def search_batch(givens, peers, units, cell_units, full, limit, max_nodes, counts, solutions, nodes, gave_up):
    """``search`` for every row of ``givens`` (puzzles x cells, 0-based, -1 empty), in one call."""
    cells = givens.shape[1]
    cand = np.empty(cells, dtype=np.uint64)
    masks = np.zeros(cells, dtype=np.uint64)
    for i in range(givens.shape[0]):
        _candidates_of(givens[i], full, cand)
        found, used, stopped = search(cand, peers, units, cell_units, full, limit, max_nodes, masks)
        counts[i] = found
        nodes[i] = used
        gave_up[i] = stopped
        if found:
            _digits_of(masks, solutions[i])
        else:
            solutions[i, :] = -1


@dataclass(frozen=True)
class ExactResult:
    solutions: int  # solutions found, capped at the limit
    solution: np.ndarray | None  # 0-based digits of the first solution, or None
    nodes: int  # branches tried
    seconds: float
    gave_up: bool  # the node limit stopped the search: ``solutions`` is then a lower bound


DEFAULT_MAX_NODES = 10_000_000


def initial_candidates(givens: np.ndarray, order: int) -> np.ndarray:
    cand = np.empty(len(givens), dtype=np.uint64)
    _candidates_of(np.asarray(givens, dtype=np.int16), tables(order)[3], cand)
    return cand


def count_solutions(givens, order: int, *, limit: int = 2, max_nodes: int = DEFAULT_MAX_NODES) -> ExactResult:
    """Solutions of the puzzle (0-based givens, -1 empty), counted up to ``limit``."""
    return count_many(np.asarray(givens)[None, :], order, limit=limit, max_nodes=max_nodes)[0]


def count_many(givens, order: int, *, limit: int = 2, max_nodes: int = DEFAULT_MAX_NODES) -> list[ExactResult]:
    """``count_solutions`` for every row of ``givens`` (puzzles x cells), one compiled call.

    ``seconds`` of each result is the batch's time divided evenly (one call cannot time its
    puzzles apart without slowing them).
    """
    if int(limit) != limit or limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit}")
    if int(max_nodes) != max_nodes or max_nodes < 0:
        raise ValueError(f"max_nodes must be a non-negative integer, got {max_nodes}")
    givens = np.ascontiguousarray(givens, dtype=np.int16)
    peers, units, cell_units, full = tables(order)
    count = givens.shape[0]
    counts = np.zeros(count, dtype=np.int64)
    nodes = np.zeros(count, dtype=np.int64)
    gave_up = np.zeros(count, dtype=np.bool_)
    solutions = np.empty_like(givens)
    # Zero puzzles: compiles or loads the cached machine code now, so that it is not timed.
    search_batch(givens[:0], peers, units, cell_units, full, 1, 0, counts[:0], solutions[:0], nodes[:0], gave_up[:0])
    start = time.perf_counter()
    search_batch(givens, peers, units, cell_units, full, int(limit), int(max_nodes), counts, solutions, nodes,
                 gave_up)
    seconds = (time.perf_counter() - start) / max(count, 1)
    return [ExactResult(solutions=int(counts[i]), solution=solutions[i] if counts[i] else None, nodes=int(nodes[i]),
                        seconds=seconds, gave_up=bool(gave_up[i])) for i in range(count)]


def contradicts(givens, order: int) -> bool:
    """The cheap bound: True when propagation alone (no search) proves there is no solution."""
    peers, units, cell_units, full = tables(order)
    cand = initial_candidates(givens, order)
    cells = cand.shape[0]
    placed = np.zeros(cells, dtype=np.uint8)
    pending = np.empty(cells * cells, dtype=np.int64)
    dirty = np.zeros(units.shape[0], dtype=np.uint8)
    top = _start(cand, placed, units, pending, dirty)
    return top < 0 or not propagate(cand, placed, peers, units, cell_units, full, pending, top,
                                    dirty)
