"""The complete search for grids with more digits than a uint64 holds: orders 9 to 11 (81x81 to 121x121).

Every other file of this package keeps a cell's candidates in one uint64 (N <= 64, orders 2..8), which is what
makes those searches fast; widening them all would slow the orders people solve. From order 9 on a cell's
candidates are WORDS uint64 words instead (digit d: bit d % 64 of word d // 64), and this file is the search there:

  rules     exclusivity (naked single) and uniqueness (hidden single) to a fixpoint; parity (naked pair) and the
            stronger rules of ``consistency`` are left out: the two rules already fill grids with few blanks, and
            each extra rule would be a second copy of code written for one word
  branching the cell with the fewest candidates (the lowest index on ties), its digits in increasing order, or,
            with a seed, from a digit drawn per node by Philox (``gpu_sa.engine.rng``, its own stream tag) on
  undoing   a trail of (cell, word, old word) entries, not a copy of the grid per level: an empty 121x121 has
            14,641 levels, and a copy of its candidates weighs 234 KB

It is complete like the others: a search that ends within its budget has counted every solution up to ``limit``.
Candidates leave it as a (cells, N) boolean array (``Propagation.candidates`` from order 9 on).
"""
from __future__ import annotations

import functools

import numpy as np

from ....engine import rng
from ....engine.jit import njit
from .board import _popcount

MIN_ORDER = 9  # below it the uint64 searches run (``counting``)
MAX_ORDER = 11
WORDS = 2  # ceil(121 / 64)
COMPLETE, NODE_LIMIT, STOPPED = 0, 1, 2  # the search's outcomes, backtracking's values (a test keeps them equal)
ONE = np.uint64(1)
ZERO = np.uint64(0)
TAG_DIGIT = np.uint32(0x57494445)  # 'WIDE': the seeded search's digit draws, a stream of their own
POLL = 64  # nodes between two reads of the stop flag


def is_wide(order: int) -> bool:
    return order >= MIN_ORDER


@functools.cache
def tables(order: int):
    """(peers (cells, 3N - 2n - 1), units (3N, N), cell_units (cells, 3), full (WORDS,) uint64) of an order."""
    side = order * order
    cells = side * side
    r, c = np.divmod(np.arange(cells), side)
    box = (r // order) * order + c // order
    units = np.array([np.flatnonzero(r == i) for i in range(side)] + [np.flatnonzero(c == i) for i in range(side)]
                     + [np.flatnonzero(box == i) for i in range(side)], dtype=np.int32)
    cell_units = np.stack([r, side + c, 2 * side + box], axis=1).astype(np.int32)
    # a cell's peers from its three units (a cells x cells matrix would take 214 MB at 121x121)
    gathered = np.sort(np.concatenate([units[cell_units[:, k]] for k in range(3)], axis=1), axis=1)
    keep = gathered != np.arange(cells)[:, None]
    keep[:, 1:] &= gathered[:, 1:] != gathered[:, :-1]  # the row-box and column-box cells come twice
    peers = gathered[keep].reshape(cells, 3 * side - 2 * order - 1).astype(np.int32)
    full = np.zeros(WORDS, dtype=np.uint64)
    for w in range(WORDS):
        bits = min(64, max(0, side - 64 * w))
        full[w] = np.uint64(2**64 - 1) if bits == 64 else np.uint64((1 << bits) - 1)
    for table in (peers, units, cell_units, full):
        table.setflags(write=False)
    return peers, units, cell_units, full


def candidates_of(givens, order: int) -> np.ndarray:
    """(cells, WORDS) uint64: a given's own bit, every digit in an empty cell."""
    givens = np.asarray(givens, dtype=np.int64)
    full = tables(order)[3]
    cand = np.tile(full, (givens.shape[0], 1))
    fixed = np.flatnonzero(givens >= 0)
    cand[fixed] = ZERO
    digits = givens[fixed]
    cand[fixed, digits // 64] = np.left_shift(ONE, (digits % 64).astype(np.uint64))
    return cand


def as_booleans(cand: np.ndarray, side: int) -> np.ndarray:
    """(cells, N) bool from (cells, WORDS) uint64 words."""
    digits = np.arange(side)
    return ((cand[:, digits // 64] >> (digits % 64).astype(np.uint64)) & ONE).astype(bool)


def from_booleans(possible: np.ndarray) -> np.ndarray:
    """(cells, WORDS) uint64 words from (cells, N) bool."""
    cells, side = possible.shape
    cand = np.zeros((cells, WORDS), dtype=np.uint64)
    for d in range(side):
        cand[possible[:, d], d // 64] |= np.uint64(1 << (d % 64))
    return cand


@njit(cache=True, inline="always")
def _count(cand, cell):
    total = 0
    for w in range(cand.shape[1]):
        total += _popcount(cand[cell, w])
    return total


@njit(cache=True, inline="always")
def _digit(cand, cell):
    """The lowest digit of a cell, -1 when it has none."""
    for w in range(cand.shape[1]):
        word = cand[cell, w]
        if word != ZERO:
            return 64 * w + np.int64(_popcount((word & (~word + ONE)) - ONE))
    return -1


@njit(cache=True, inline="always")
def _clear(cand, cell, w, mask, trail_cell, trail_word, trail_old, top):
    """Remove ``mask`` from word ``w`` of ``cell``, recording the old word; returns the trail's top."""
    old = cand[cell, w]
    if old & mask == ZERO:
        return top
    trail_cell[top] = cell
    trail_word[top] = w
    trail_old[top] = old
    cand[cell, w] = old & ~mask
    return top + 1


@njit(cache=True, inline="always")
def _undo(cand, trail_cell, trail_word, trail_old, top, mark):
    while top > mark:
        top -= 1
        cand[trail_cell[top], trail_word[top]] = trail_old[top]
    return top


@njit(cache=True, nogil=True)
def _fixpoint(cand, peers, units, full, queue, queued, trail_cell, trail_word, trail_old, top, forced):
    """Exclusivity and uniqueness until nothing changes, from the cells on ``queue`` (``queued`` of them): (trail
    top, consistent). ``forced[0]``/``[1]`` count the cells each rule brought down to one digit."""
    words = cand.shape[1]
    side = units.shape[1]
    once = np.empty(words, dtype=np.uint64)
    twice = np.empty(words, dtype=np.uint64)
    while True:
        while queued > 0:  # exclusivity: a cell down to one digit takes it from its peers
            queued -= 1
            cell = queue[queued]
            d = _digit(cand, cell)
            if d < 0:
                return top, False
            w = d // 64
            bit = ONE << np.uint64(d % 64)
            for k in range(peers.shape[1]):
                peer = peers[cell, k]
                if cand[peer, w] & bit:
                    top = _clear(cand, peer, w, bit, trail_cell, trail_word, trail_old, top)
                    left = _count(cand, peer)
                    if left == 0:
                        return top, False
                    if left == 1:
                        queue[queued] = peer
                        queued += 1
                        forced[0] += 1
        changed = False
        for u in range(units.shape[0]):  # uniqueness: a digit with one place left in a unit goes there
            for w in range(words):
                once[w] = ZERO
                twice[w] = ZERO
            for k in range(side):
                cell = units[u, k]
                for w in range(words):
                    twice[w] |= once[w] & cand[cell, w]
                    once[w] |= cand[cell, w]
            for w in range(words):
                if full[w] & ~once[w]:
                    return top, False  # a digit with no place in the unit
                once[w] &= ~twice[w]  # the digits with exactly one place
            any_single = False
            for w in range(words):
                any_single = any_single or once[w] != ZERO
            if not any_single:
                continue
            for k in range(side):
                cell = units[u, k]
                hits = 0
                hit_word = 0
                for w in range(words):
                    here = _popcount(cand[cell, w] & once[w])
                    if here:
                        hit_word = w
                    hits += here
                if hits == 0 or _count(cand, cell) == 1:
                    continue
                if hits > 1:
                    return top, False  # the only place of two digits
                keep = cand[cell, hit_word] & once[hit_word]
                for w in range(words):
                    top = _clear(cand, cell, w, ~keep if w == hit_word else ~ZERO, trail_cell, trail_word,
                                 trail_old, top)
                queue[queued] = cell
                queued += 1
                forced[1] += 1
                changed = True
        if not changed and queued == 0:
            return top, True


@njit(cache=True, nogil=True)
def _root(cand, peers, units, full, forced):
    """The rules' fixpoint from the givens' candidates, in place: consistent or not."""
    cells = cand.shape[0]
    capacity = cells * (units.shape[1] + 1) + 1
    queue = np.empty(cells * (peers.shape[1] + 2), dtype=np.int64)
    queued = 0
    for cell in range(cells):
        if _count(cand, cell) == 0:
            return False
        if _count(cand, cell) == 1:
            queue[queued] = cell
            queued += 1
    trail_cell = np.empty(capacity, dtype=np.int32)
    trail_word = np.empty(capacity, dtype=np.uint8)
    trail_old = np.empty(capacity, dtype=np.uint64)
    _, consistent = _fixpoint(cand, peers, units, full, queue, queued, trail_cell, trail_word, trail_old, 0, forced)
    return consistent


@njit(cache=True, nogil=True)
def _search(cand, peers, units, full, limit, max_nodes, solution, halt, seeded, key0, key1):
    """Depth-first search from ``cand`` (at the rules' fixpoint or not): (solutions, nodes, outcome). The first
    solution's digits go to ``solution``."""
    cells = cand.shape[0]
    side = units.shape[1]
    words = cand.shape[1]
    capacity = cells * (side + 1) + 1  # along one path every entry takes at least one bit away
    trail_cell = np.empty(capacity, dtype=np.int32)
    trail_word = np.empty(capacity, dtype=np.uint8)
    trail_old = np.empty(capacity, dtype=np.uint64)
    queue = np.empty(cells * (peers.shape[1] + 2), dtype=np.int64)
    forced = np.zeros(2, dtype=np.int64)
    frame_cell = np.empty(cells + 1, dtype=np.int64)
    frame_mark = np.empty(cells + 1, dtype=np.int64)
    frame_start = np.empty(cells + 1, dtype=np.int64)
    frame_tried = np.empty(cells + 1, dtype=np.int64)
    queued = 0
    for cell in range(cells):
        if _count(cand, cell) == 1:
            queue[queued] = cell
            queued += 1
    top, consistent = _fixpoint(cand, peers, units, full, queue, queued, trail_cell, trail_word, trail_old, 0, forced)
    found = 0
    nodes = 0
    depth = 0
    descend = consistent
    while True:
        if descend:
            best, best_count = -1, side + 1
            for cell in range(cells):
                count = _count(cand, cell)
                if 1 < count < best_count:
                    best, best_count = cell, count
                    if count == 2:
                        break
            if best < 0:  # every cell holds one digit: a solution
                if found == 0:
                    for cell in range(cells):
                        solution[cell] = _digit(cand, cell)
                found += 1
                if found >= limit:
                    return found, nodes, COMPLETE
            else:
                frame_cell[depth] = best
                frame_mark[depth] = top
                start = 0
                if seeded:
                    w0, _, _, _ = rng.philox(np.uint32(nodes & 0xFFFFFFFF), np.uint32(nodes >> 32),
                                             np.uint32(best), TAG_DIGIT, key0, key1)
                    start = np.int64((np.uint64(w0) * np.uint64(side)) >> np.uint64(32))
                frame_start[depth] = start
                frame_tried[depth] = 0
                depth += 1
        # the next digit of the deepest frame, undoing what its last digit did
        descend = False
        while depth > 0 and not descend:
            f = depth - 1
            cell = frame_cell[f]
            top = _undo(cand, trail_cell, trail_word, trail_old, top, frame_mark[f])
            tried = frame_tried[f]
            d = -1
            while tried < side:
                candidate = (frame_start[f] + tried) % side
                tried += 1
                if cand[cell, candidate // 64] & (ONE << np.uint64(candidate % 64)):
                    d = candidate
                    break
            frame_tried[f] = tried
            if d < 0:
                depth -= 1
                continue
            if nodes >= max_nodes:
                return found, nodes, NODE_LIMIT
            nodes += 1
            if nodes % POLL == 0 and halt[0]:
                return found, nodes, STOPPED
            w = d // 64
            for ww in range(words):
                top = _clear(cand, cell, ww, ~(ONE << np.uint64(d % 64)) if ww == w else ~ZERO, trail_cell,
                             trail_word, trail_old, top)
            queue[0] = cell
            top, descend = _fixpoint(cand, peers, units, full, queue, 1, trail_cell, trail_word, trail_old, top,
                                     forced)
        if depth == 0 and not descend:
            return found, nodes, COMPLETE


def check_givens(givens, order: int) -> np.ndarray:
    if int(order) != order or not MIN_ORDER <= order <= MAX_ORDER:
        raise ValueError(f"order must be an integer from 2 to {MAX_ORDER}, got {order}")
    side = order * order
    givens = np.asarray(givens).reshape(-1)
    if givens.shape[0] != side * side:
        raise ValueError(f"{givens.shape[0]} cells for order {order}: expected {side * side}")
    if givens.size and (givens.dtype.kind not in "iu" or givens.min() < -1 or givens.max() >= side):
        raise ValueError(f"givens must be 0-based digits below {side}, or -1 for an empty cell")
    return givens.astype(np.int64)


def propagated(givens, order: int):
    """The rules' fixpoint from the givens: (values (cells,) int64 with -1 free, candidates (cells, N) bool,
    consistent, [cells forced by exclusivity, by uniqueness]); ``propagation.propagate`` wraps it."""
    givens = check_givens(givens, order)
    peers, units, _, full = tables(order)
    cand = candidates_of(givens, order)
    forced = np.zeros(2, dtype=np.int64)
    consistent = _root(cand, peers, units, full, forced)
    possible = as_booleans(cand, order * order)
    values = np.where(possible.sum(axis=1) == 1, possible.argmax(axis=1), -1).astype(np.int64)
    return values, possible, bool(consistent), forced.tolist()


def searcher(givens, order: int, *, limit: int, max_nodes: int, seed: int | None, root=None):
    """(``work(halt)``, which runs the search and returns (solutions, nodes, outcome), and the solution array it
    fills): ``counting`` runs it on its threads, under its deadline and stop flag. ``root``: the rules' candidates
    as (cells, N) bool, or None."""
    givens = check_givens(givens, order)
    peers, units, _, full = tables(order)
    cand = candidates_of(givens, order) if root is None else from_booleans(np.asarray(root, dtype=bool))
    solution = np.full(givens.shape[0], -1, dtype=np.int64)
    key = np.uint64(0 if seed is None else seed)
    key0, key1 = np.uint32(key & np.uint64(0xFFFFFFFF)), np.uint32(key >> np.uint64(32))

    def work(halt):
        return _search(cand, peers, units, full, int(limit), int(max_nodes), solution, halt, seed is not None,
                       key0, key1)

    return work, solution
