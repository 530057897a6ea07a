"""Exact Sudoku solver of seed 002, any order n (N = n*n <= 64): prove, count, verify.

Candidates are bitmasks: bit k of ``cand[cell]`` set = digit k+1 still possible (uint64, so
up to 64 digits). The seed's three rules ("règles EUP"):

  exclusivity (naked single)  a cell down to one digit removes it from its peers;
  uniqueness  (hidden single) a digit with one place left in a unit goes there;
  parity      (naked pair)    two cells of a unit holding the same two digits remove them
                              from the unit's other cells.

Each rule is one compiled function over one cell or one unit. Three drivers share them:
``_fixpoint`` runs them until nothing changes (the search, ``propagate``), ``rule_round``
applies each once over the whole grid (the seed page's "Règles EUP" button, ``steps``).

The search branches on a free cell with the fewest candidates (minimum remaining values).
Two ways to break ties and order digits:

  deterministic  the lowest such cell, digits in increasing order: the seed's search, whose
                 node counts tests and generation rely on (``seed=None``);
  seeded         the cell drawn among the tied ones and each digit drawn among those left,
                 from Philox (key = the seed, counter = (node, restart, TAG_EXACT)); the
                 search restarts with a growing node budget (Luby sequence x ``base_nodes``)
                 so that one unlucky early choice cannot hold it for ever (``seed=``).

Either way the search is complete: a search that ends within its budget has counted every
solution up to ``limit``, and 0 proves there is none. The first restart runs on the calling
thread (it is short, and most puzzles end there), the others one per core; the answer is the
one of the lowest-numbered restart that finishes, whatever the timing.

Tables (host, once per order): ``peers`` (cells, 3N - 2n - 1) and ``units`` (3N, N) of cell
indices, rows then columns then boxes; ``cell_units`` (cells, 3) the units of each cell.

Every loop here is compiled with ``cache=True``. numba's cache checks only this file's
timestamp: code compiled in from other files (``gpu_sa.rng``'s Philox) is not re-checked,
so after changing such a callee delete ``gpu_sa/exact/__pycache__/*.nb*``.
"""
from __future__ import annotations

import functools
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass

import numba
import numpy as np

from .. import rng, stop

ONE = np.uint64(1)
ZERO = np.uint64(0)
ZERO32 = np.uint32(0)
# A unit's dirty byte: which unit rules have not looked at it since its candidates last changed.
DIRTY_SINGLE = np.uint8(1)
DIRTY_PAIR = np.uint8(2)
DIRTY_BOTH = np.uint8(3)

EXCLUSIVITY, UNIQUENESS, PARITY = 0, 1, 2
RULES = ("exclusivity", "uniqueness", "parity")
REMOVED, CONTRADICTION = 0, 1

# What the rules record, one int64 array shared by the fixpoint and the rounds:
#
#   row 0      [events, forced by exclusivity, forced by uniqueness, forced by parity, 0, 0, 0]
#   row 1 + e  [rule, kind, unit, source_a, source_b, cell, mask]      event e
#
# kind REMOVED: ``mask`` (the uint64 bits, stored as int64) left ``cell``. kind CONTRADICTION:
# ``cell`` has no candidate left, or (uniqueness, cell = -1) the digits of ``mask`` have no
# place left in ``unit``, or (uniqueness, cell >= 0) ``cell`` is the only place for every digit
# of ``mask``. ``source_a`` is the single cell that exclusivity spreads, or the first cell of a
# parity pair (``source_b`` the second); -1 where it does not apply. The search passes no trace
# (None); a trace of 1 row records only the counts of forced cells (``propagate``). A trace has at
# least that row: the counts are written to row 0 whenever a trace is given.
TRACE_COLUMNS = 7

# Outcome of one search
COMPLETE, NODE_LIMIT, STOPPED, CANCELLED = 0, 1, 2, 3
DETERMINISTIC = -1  # the restart index of the seed's deterministic search
POLL_MASK = 1023  # the stop flag is read every 1,024 nodes
TAG_EXACT = np.uint32(0x45584354)  # "EXCT": the seeded search's Philox stream
NEVER = np.iinfo(np.int64).max

_philox = numba.njit(nogil=True)(rng.philox4x32_10)


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
def _nth_bit(mask, n):
    """The ``n``-th lowest set bit of ``mask`` (0-based), as a one-bit mask."""
    for _ in range(np.int64(n)):
        mask &= mask - ONE
    return mask & (~mask + ONE)


@numba.njit(cache=True, inline="always")
def _below(word, n):
    """A uint32 word to [0, n): (word * n) >> 32, the project's one rule for a bounded draw."""
    return (np.uint64(word) * np.uint64(n)) >> rng.SHIFT32


@numba.njit(cache=True, inline="always")
def _remove(cand, cell, mask, cell_units, dirty):
    """Clear ``mask`` from a cell and mark its three units for another look by both unit rules."""
    cand[cell] &= ~mask
    for k in range(3):
        dirty[cell_units[cell, k]] = DIRTY_BOTH


@numba.njit(cache=True, inline="always")
def _log(trace, rule, kind, unit, source_a, source_b, cell, mask):
    if trace is not None and trace.shape[0] > 1:
        row = trace[0, 0] + 1  # every event removes a candidate or ends the round: rows never run out
        trace[row, 0] = rule
        trace[row, 1] = kind
        trace[row, 2] = unit
        trace[row, 3] = source_a
        trace[row, 4] = source_b
        trace[row, 5] = cell
        trace[row, 6] = np.int64(mask)
        trace[0, 0] = row


@numba.njit(cache=True, inline="always")
def _strip(cand, cell, mask, cell_units, dirty, trace, rule, unit, source_a, source_b):
    """``_remove`` that records what left the cell (and a cell it forced); returns what is left."""
    if trace is not None:
        removed = cand[cell] & mask
        _remove(cand, cell, mask, cell_units, dirty)
        _log(trace, rule, REMOVED, unit, source_a, source_b, cell, removed)
        # Count a forced cell by adding 0 or 1, not under an ``if``: with the branch, numba left its
        # atomic reference counting of the arrays inside the rules' loops, and the traced fixpoint
        # (``propagate``) ran 4x slower than the untraced one (80 against 15 us on a 16x16).
        trace[0, 1 + rule] += np.int64(_is_single(cand[cell]))
    else:
        _remove(cand, cell, mask, cell_units, dirty)
    return cand[cell]


@numba.njit(cache=True, inline="always")
def _exclusivity(cand, cell, peers, cell_units, dirty, pending, top, trace):
    """Rule 1 for ``cell`` (down to one digit): the digit leaves its peers.

    Peers left with one digit are pushed on ``pending``. Returns the new stack top, or -1
    when a peer is left with no digit."""
    mask = cand[cell]
    for k in range(peers.shape[1]):
        p = peers[cell, k]
        if cand[p] & mask:
            left = _strip(cand, p, mask, cell_units, dirty, trace, EXCLUSIVITY, -1, cell, -1)
            if left == ZERO:
                _log(trace, EXCLUSIVITY, CONTRADICTION, -1, cell, -1, p, mask)
                return -1
            if (left & (left - ONE)) == ZERO:
                pending[top] = p
                top += 1
    return top


@numba.njit(cache=True, inline="always")
def _uniqueness(cand, u, units, full, cell_units, dirty, pending, top, trace):
    """Rule 2 for unit ``u``: a digit with one place left in the unit goes there.

    Cells so placed are pushed on ``pending``. Returns the new stack top, or -1 when a
    digit has no place left or one cell is the only place for two digits."""
    side = units.shape[1]
    once = ZERO
    twice = ZERO
    for k in range(side):
        mask = cand[units[u, k]]
        twice |= once & mask
        once |= mask
    if once != full:
        _log(trace, UNIQUENESS, CONTRADICTION, u, -1, -1, -1, full & ~once)
        return -1
    single = once & ~twice
    if single:
        for k in range(side):
            cell = units[u, k]
            mask = cand[cell] & single
            if mask and cand[cell] != mask:
                if mask & (mask - ONE):
                    _log(trace, UNIQUENESS, CONTRADICTION, u, -1, -1, cell, mask)
                    return -1
                _strip(cand, cell, ~mask, cell_units, dirty, trace, UNIQUENESS, u, -1, -1)
                pending[top] = cell
                top += 1
    return top


@numba.njit(cache=True, inline="always")
def _parity(cand, u, units, cell_units, dirty, pending, top, trace):
    """Rule 3 for unit ``u``: two cells holding the same two digits take them from the others.

    Cells left with one digit are pushed on ``pending``. Returns the new stack top, or -1
    when a cell is left with no digit."""
    side = units.shape[1]
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
                        left = _strip(cand, cell, pair, cell_units, dirty, trace, PARITY, u, units[u, i],
                                      units[u, j])
                        if left == ZERO:
                            _log(trace, PARITY, CONTRADICTION, u, units[u, i], units[u, j], cell, pair)
                            return -1
                        if (left & (left - ONE)) == ZERO:
                            pending[top] = cell
                            top += 1
    return top


@numba.njit(cache=True)
def _spread_singles(cand, placed, peers, cell_units, dirty, pending, top, trace):
    """Exclusivity for every cell on the ``pending`` stack, and for the singles it creates; -1 on a contradiction."""
    while top > 0:
        top -= 1
        cell = pending[top]
        if placed[cell]:
            continue
        placed[cell] = 1
        top = _exclusivity(cand, cell, peers, cell_units, dirty, pending, top, trace)
        if top < 0:
            return -1
    return 0


@numba.njit(cache=True)
def _fixpoint(cand, placed, peers, units, cell_units, full, pending, top, dirty, trace):
    """Apply the three rules until nothing changes. False on a contradiction.

    On entry ``pending[:top]`` holds the cells newly down to one digit, and ``dirty``
    mark the units whose candidates changed since the rules last looked at them: a unit
    that did not change cannot yield a new hidden single or naked pair. ``pending`` is
    scratch space of ``cells`` ints: a cell is pushed on entry (already down to one digit) or
    when a rule takes it from several digits down to one, which happens to it once at most, so
    one call never pushes more than ``cells`` in all.
    """
    while True:
        if _spread_singles(cand, placed, peers, cell_units, dirty, pending, top, trace) < 0:
            return False
        top = 0
        for u in range(units.shape[0]):
            if not dirty[u] & DIRTY_SINGLE:
                continue
            dirty[u] &= ~DIRTY_SINGLE
            top = _uniqueness(cand, u, units, full, cell_units, dirty, pending, top, trace)
            if top < 0:
                return False
        if top:
            continue
        for u in range(units.shape[0]):
            if not dirty[u] & DIRTY_PAIR:
                continue
            dirty[u] &= ~DIRTY_PAIR
            top = _parity(cand, u, units, cell_units, dirty, pending, top, trace)
            if top < 0:
                return False
        if not top:
            for u in range(units.shape[0]):
                if dirty[u] & DIRTY_SINGLE:
                    break
            else:
                return True


@numba.njit(cache=True)
def rule_round(cand, peers, units, cell_units, full, trace):
    """One press of the seed page's "Règles EUP": each rule once over the whole grid, in place.

    Exclusivity spreads every cell that was down to one digit when the round began (cells it
    reduces to one digit wait for the next round, as on the seed's page); then uniqueness
    over every unit; then parity over every unit, each seeing the candidates as they are.
    False on a contradiction, which the trace's last event describes."""
    cells = cand.shape[0]
    pending = np.empty(max(peers.shape[1], units.shape[1]) + 1, dtype=np.int64)  # scratch: one rule call's pushes
    dirty = np.zeros(units.shape[0], dtype=np.uint8)
    singles = np.empty(cells, dtype=np.int64)
    count = 0
    for cell in range(cells):
        if _is_single(cand[cell]):
            singles[count] = cell
            count += 1
    for k in range(count):
        if _exclusivity(cand, singles[k], peers, cell_units, dirty, pending, 0, trace) < 0:
            return False
    for u in range(units.shape[0]):
        if _uniqueness(cand, u, units, full, cell_units, dirty, pending, 0, trace) < 0:
            return False
    for u in range(units.shape[0]):
        if _parity(cand, u, units, cell_units, dirty, pending, 0, trace) < 0:
            return False
    return True


@numba.njit(cache=True)
def _start(cand, placed, units, pending, dirty):
    """Root state for ``_fixpoint``: every single pending, every unit dirty; -1 if a cell is empty."""
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
def _fewest_candidates(cand, placed, seeded, word):
    """A free cell with the fewest candidates, or -1 when every cell is set: the lowest such cell,
    or with ``seeded`` one drawn among the tied cells by the uint32 ``word``."""
    best = -1
    best_count = 1 << 30
    ties = 0
    for cell in range(cand.shape[0]):
        if placed[cell]:
            continue
        count = _popcount(cand[cell])
        if 1 < count < best_count:
            best = cell
            best_count = count
            ties = 1
            if count == 2 and not seeded:
                break  # no free cell has fewer
        elif count == best_count:
            ties += 1
    if not seeded or ties < 2:
        return best
    pick = _below(word, ties)
    for cell in range(best, cand.shape[0]):
        if not placed[cell] and _popcount(cand[cell]) == best_count:
            if pick == ZERO:
                return cell
            pick -= ONE
    return -1


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
    return _nth_bit(rest, _mix(shuffle + np.uint64(nodes) * np.uint64(0x9E3779B97F4A7C15)) % _popcount(rest))


@numba.njit(cache=True, inline="always")
def _draws(nodes, restart, key0, key1):
    """Philox words of node ``nodes`` of restart ``restart``: (digit draw, cell draw)."""
    w0, w1, _, _ = _philox(np.uint32(nodes & 0xFFFFFFFF), np.uint32(nodes >> 32), np.uint32(restart), TAG_EXACT,
                           key0, key1)
    return w0, w1


STACK_ROWS = 16  # the search's first stack rows: 90 kB at 25x25, under glibc's 128 kB threshold for mmap


@numba.njit(cache=True, nogil=True)
def _deeper(cand, placed):
    """The search's stacks with cells + 1 rows (the deepest a search goes), the rows so far kept."""
    rows = cand.shape[1] + 1
    more_cand = np.empty((rows, cand.shape[1]), dtype=cand.dtype)
    more_placed = np.empty((rows, placed.shape[1]), dtype=placed.dtype)
    more_cand[:cand.shape[0]] = cand
    more_placed[:placed.shape[0]] = placed
    return more_cand, more_placed


@numba.njit(cache=True, nogil=True)
def search_core(cand0, peers, units, cell_units, full, limit, max_nodes, solution, shuffle, flag, key0, key1,
                restart, cancel, root_at_fixpoint=False):
    """(solutions found (<= limit), nodes, outcome); the first solution's masks go to ``solution``.

    ``root_at_fixpoint``: ``cand0`` is already the rules' fixpoint from the givens, without a
    contradiction (``propagate``'s candidates). The root's propagation, which would change
    nothing, is skipped: the root, and so the whole search, is the same.

    ``restart`` = DETERMINISTIC (-1): ties to the lowest cell, digits in increasing order, or with
    ``shuffle`` != 0 in an order hashed from it (randomised backtracking, for generating grids).
    ``restart`` >= 0: the seeded search, restart number ``restart`` of key (``key0``, ``key1``).
    Outcome COMPLETE: the count is exact up to ``limit``; NODE_LIMIT: ``max_nodes`` branches were
    tried; STOPPED: ``flag[0]`` was set; CANCELLED: ``cancel[0]`` fell below ``restart`` (a lower
    restart has decided). Both are read every 1,024 nodes.
    """
    cells = cand0.shape[0]
    # One row of candidates and of placed flags per depth, a row written whole before it is read. The
    # stacks start with STACK_ROWS rows and take all cells + 1 only when the search goes deeper
    # (``_deeper``): most searches stay shallow, and cells + 1 rows at once were 3.5 MB at 25x25, which
    # the OS maps, faults in and unmaps on every call (80 of the 100 us an easy 25x25's search took in a
    # fresh process). Growing at once to the whole size, not doubling, copies STACK_ROWS rows once at
    # most: doubling made deep searches (an empty 36x36) half again slower with its copies.
    rows = min(cells + 1, STACK_ROWS)
    cand = np.empty((rows, cells), dtype=np.uint64)
    placed = np.empty((rows, cells), dtype=np.uint8)
    branch_cell = np.empty(cells + 1, dtype=np.int64)
    branch_rest = np.empty(cells + 1, dtype=np.uint64)
    pending = np.empty(cells, dtype=np.int64)  # see _fixpoint: no more is ever pushed
    dirty = np.zeros(units.shape[0], dtype=np.uint8)
    seeded = restart >= 0
    cand[0, :] = cand0
    if root_at_fixpoint:
        # A fixpoint without contradiction has spread every cell down to one digit, and only those.
        for cell in range(cells):
            placed[0, cell] = _is_single(cand0[cell])
    else:
        placed[0, :] = 0
        top = _start(cand[0], placed[0], units, pending, dirty)
        if top < 0 or not _fixpoint(cand[0], placed[0], peers, units, cell_units, full, pending, top, dirty,
                                    None):
            return 0, 0, COMPLETE
    found = 0
    nodes = 0
    cell = _fewest_candidates(cand[0], placed[0], seeded, _draws(0, restart, key0, key1)[1] if seeded else ZERO32)
    if cell < 0:
        solution[:] = cand[0]
        return 1, 0, COMPLETE
    depth = 0
    branch_cell[0] = cell
    branch_rest[0] = cand[0, cell]
    cell_word = ZERO32
    while depth >= 0:
        rest = branch_rest[depth]
        if rest == ZERO:
            depth -= 1
            continue
        nodes += 1
        if nodes > max_nodes:
            return found, nodes - 1, NODE_LIMIT
        if (nodes & POLL_MASK) == 0:
            if flag[0] != 0:
                return found, nodes - 1, STOPPED
            if restart > cancel[0]:
                return found, nodes - 1, CANCELLED
        if seeded:
            digit_word, cell_word = _draws(nodes, restart, key0, key1)
            bit = _nth_bit(rest, _below(digit_word, _popcount(rest)))
        else:
            bit = _branch_bit(rest, shuffle, nodes - 1)
        branch_rest[depth] = rest & ~bit
        if depth + 1 == cand.shape[0]:
            cand, placed = _deeper(cand, placed)
        cand[depth + 1, :] = cand[depth]
        placed[depth + 1, :] = placed[depth]
        # The parent is at a fixpoint: only the branch cell and its units are new.
        dirty[:] = 0
        _remove(cand[depth + 1], branch_cell[depth], ~bit, cell_units, dirty)
        pending[0] = branch_cell[depth]
        if not _fixpoint(cand[depth + 1], placed[depth + 1], peers, units, cell_units, full, pending, 1, dirty,
                         None):
            continue
        cell = _fewest_candidates(cand[depth + 1], placed[depth + 1], seeded, cell_word)
        if cell < 0:
            if found == 0:
                solution[:] = cand[depth + 1]
            found += 1
            if found >= limit:
                return found, nodes, COMPLETE
            continue
        depth += 1
        branch_cell[depth] = cell
        branch_rest[depth] = cand[depth, cell]
    return found, nodes, COMPLETE


@numba.njit(cache=True, nogil=True)
def search(cand0, peers, units, cell_units, full, limit, max_nodes, solution, shuffle=ZERO):
    """The deterministic search without stop polling: (solutions found (<= limit), nodes, gave_up).

    Kept for callers compiled against it (generation, minimisation); see ``search_core``."""
    never = np.zeros(1, dtype=np.uint8)
    no_cancel = np.full(1, NEVER, dtype=np.int64)
    found, nodes, outcome = search_core(cand0, peers, units, cell_units, full, limit, max_nodes, solution, shuffle,
                                        never, np.uint32(0), np.uint32(0), DETERMINISTIC, no_cancel)
    return found, nodes, outcome != COMPLETE


@numba.njit(cache=True)
def _candidates_of(givens, full, out):
    for cell in range(givens.shape[0]):
        out[cell] = (ONE << np.uint64(givens[cell])) if givens[cell] >= 0 else full


@numba.njit(cache=True)
def _digits_of(masks, out):
    """The digit of every single mask (0-based), -1 where a cell has none or several."""
    for cell in range(masks.shape[0]):
        mask = masks[cell]
        if not _is_single(mask):
            out[cell] = -1
            continue
        digit = 0
        while mask > ONE:
            mask >>= ONE
            digit += 1
        out[cell] = digit


@numba.njit(cache=True, nogil=True)
def search_batch(givens, peers, units, cell_units, full, limit, max_nodes, flag, counts, solutions, nodes, outcome):
    """The deterministic search for every row of ``givens`` (puzzles x cells, 0-based, -1 empty)."""
    cells = givens.shape[1]
    cand = np.empty(cells, dtype=np.uint64)
    masks = np.zeros(cells, dtype=np.uint64)
    no_cancel = np.full(1, NEVER, dtype=np.int64)
    outcome[:] = STOPPED  # what a stop request leaves on the puzzles it never reached
    for i in range(givens.shape[0]):
        if flag[0] != 0:
            return
        _candidates_of(givens[i], full, cand)
        counts[i], nodes[i], outcome[i] = search_core(cand, peers, units, cell_units, full, limit, max_nodes, masks,
                                                      ZERO, flag, np.uint32(0), np.uint32(0), DETERMINISTIC,
                                                      no_cancel)
        if counts[i]:
            _digits_of(masks, solutions[i])
        else:
            solutions[i, :] = -1


@dataclass(frozen=True)
class ExactResult:
    solutions: int  # solutions found, capped at the limit
    solution: np.ndarray | None  # 0-based digits of the first solution, or None
    nodes: int  # branches tried, over every restart up to the one that decided
    seconds: float
    gave_up: bool  # the answer is not proven (node limit, time limit or stop): ``solutions`` is a lower bound
    interrupted: bool = False  # a stop request (``gpu_sa.stop``) ended the search (then ``gave_up`` too)
    timed_out: bool = False  # ``time_limit`` ended the search (then ``gave_up`` too)
    restarts: int = 1  # searches run up to the one that decided (1: the first search decided)
    final_nodes: int = 0  # branches tried by the search that decided (the last restart)
    seed: int | None = None  # None: the deterministic search
    # Undecided seeded search: the first restart that did not run to its whole budget. A later call with the
    # same seed and ``first_restart=resume_at`` goes on where this one stopped instead of repeating it.
    resume_at: int = 0


DEFAULT_MAX_NODES = 10_000_000
DEFAULT_BASE_NODES = 256  # restart budgets: Luby(i) x this (bench/exact.py --large)
# A first restart of at most this many branches runs on the calling thread, before any worker: handing
# it to a worker thread and waiting for it cost 0.1 to 1 ms on this project's 2-core machine, more than
# the whole search of an easy 16x16; 256 branches take at most about 15 ms (an empty 64x64 grid), so a
# Ctrl-C or a time limit is still heard within a fraction of a second.
FIRST_RESTART_HERE_NODES = DEFAULT_BASE_NODES


def available_cores() -> int:
    """Cores this process may run on (the affinity mask, not the machine's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def luby(i: int) -> int:
    """The Luby sequence, 1-based: 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ... (Luby, Sinclair, Zuckerman 1993)."""
    while True:
        k = i.bit_length()
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1


def initial_candidates(givens: np.ndarray, order: int) -> np.ndarray:
    cand = np.empty(len(givens), dtype=np.uint64)
    _candidates_of(np.asarray(givens, dtype=np.int16), tables(order)[3], cand)
    return cand


def _check_givens(givens, order: int, *, digits_checked_later: bool = False) -> np.ndarray:
    """The givens as a contiguous int16 array, after checking the order, the length and the values
    (``digits_checked_later``: int16 input is passed on unchecked, for a caller whose compiled code checks it)."""
    if int(order) != order or not 2 <= order <= 8:
        raise ValueError(f"order must be an integer from 2 to 8, got {order}")
    side = order * order
    givens = np.asarray(givens).reshape(-1)
    if givens.shape[0] != side * side:
        raise ValueError(f"{givens.shape[0]} cells for order {order}: expected {side * side}")
    if digits_checked_later and givens.dtype == np.int16:
        return np.ascontiguousarray(givens)
    if givens.dtype.kind in "iu":
        # one compiled pass rather than numpy's min and max: 25 us of an easy puzzle's first search
        givens = np.ascontiguousarray(givens)
        if _outside_digits(givens, side):
            _digits_error(side)
    else:
        _check_digits(givens, side)
    return np.ascontiguousarray(givens, dtype=np.int16)


def _check_digits(givens: np.ndarray, side: int) -> None:
    if givens.size and not (givens.min() >= -1 and givens.max() < side):
        _digits_error(side)


def _digits_error(side: int):
    raise ValueError(f"givens must be 0-based digits below {side}, or -1 for an empty cell")


@numba.njit(cache=True)
def _outside_digits(givens, side):
    """True when a value of ``givens`` (integers) is neither -1 nor a digit below ``side``."""
    for value in givens:
        if value < -1 or value >= side:
            return True
    return False


def _check_counts(limit, max_nodes):
    if int(limit) != limit or limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit}")
    if int(max_nodes) != max_nodes or max_nodes < 0:
        raise ValueError(f"max_nodes must be a non-negative integer, got {max_nodes}")


@functools.cache
def _loaded(entry: str) -> bool:
    """Compile ``entry`` (or load it from numba's cache) once, on a 4x4 grid, so that no timing includes it."""
    peers, units, cell_units, full = tables(2)
    masks = np.zeros(16, dtype=np.uint64)
    if entry == "search_core":
        for root_at_fixpoint in (False, True):  # a blank grid is its own fixpoint
            search_core(np.full(16, full), peers, units, cell_units, full, 1, 1, masks, ZERO, np.zeros(1, np.uint8),
                        ZERO32, ZERO32, 0, np.full(1, NEVER, np.int64), root_at_fixpoint)
    else:
        empty = np.zeros((0, 16), dtype=np.int16)
        search_batch(empty, peers, units, cell_units, full, 1, 0, np.zeros(1, np.uint8), np.zeros(0, np.int64),
                     empty.copy(), np.zeros(0, np.int64), np.zeros(0, np.int64))
    return True


_pool: list = [None, 0]  # (executor, its size): threads kept between searches
_pool_lock = threading.Lock()  # callers on several threads (minimisation's pool) share it


def _workers(count: int) -> ThreadPoolExecutor:
    """A pool of at least ``count`` threads, kept between calls (starting threads costs more than an easy puzzle)."""
    if _pool[1] < count:
        if _pool[0] is not None:
            _pool[0].shutdown(wait=False)
        _pool[0], _pool[1] = ThreadPoolExecutor(max_workers=count, thread_name_prefix="gpu-sa-exact"), count
    return _pool[0]


def _watched(work, *, flag, deadline, workers: int = 1) -> tuple[bool, bool]:
    """Run ``work(halt)`` on ``workers`` threads while this thread relays stop requests (``flag``)
    and the deadline into ``halt``, the flag the compiled loops read. (halted, timed out).

    Off the main thread with one worker and no deadline, the work runs right here and reads
    ``flag`` itself. On the main thread the compiled loops never run on it: Python runs a
    signal handler (the one that sets ``gpu_sa.stop.FLAG``) only between bytecodes of the
    main thread, so that thread must stay free for a Ctrl-C to be heard.
    """
    if workers == 1 and deadline is None and threading.current_thread() is not threading.main_thread():
        work(flag)
        return bool(flag[0]), False
    halt = np.array([flag[0]], dtype=np.uint8)
    with _pool_lock:  # a pool replaced by a larger one refuses new work: submit under the lock
        running = [_workers(workers).submit(work, halt) for _ in range(workers)]
    timed_out = False
    try:
        while wait(running, timeout=0.02).not_done:
            if flag[0]:
                halt[0] = 1
            if deadline is not None and not timed_out and time.perf_counter() >= deadline:
                timed_out = True
                halt[0] = 1
    finally:  # an exception here (a second Ctrl-C) stops the workers before it goes on
        halt[0] |= any(not future.done() for future in running)
        wait(running)
    for future in running:
        future.result()  # a worker's exception, raised here
    return bool(halt[0]), timed_out


def count_solutions(givens, order: int, *, limit: int = 2, max_nodes: int = DEFAULT_MAX_NODES,
                    seed: int | None = None, threads: int | None = None, time_limit: float | None = None,
                    base_nodes: int = DEFAULT_BASE_NODES, flag: np.ndarray | None = None,
                    propagated: Propagation | None = None, first_restart: int = 0) -> ExactResult:
    """Solutions of the puzzle (0-based givens, -1 empty), counted up to ``limit``.

    ``seed=None``: the seed's deterministic search. ``seed=S``: the seeded search with restarts
    (Luby budgets x ``base_nodes``) on ``threads`` cores (default: all this process may use);
    its answer and node counts depend on the seed only, not on ``threads`` or timing.
    ``max_nodes`` bounds the branches over all restarts, ``time_limit`` (seconds) the wall
    time; a stop request (``flag``, default ``gpu_sa.stop.FLAG``) ends the search within a
    fraction of a second. Each of them gives ``gave_up`` (and ``timed_out``/``interrupted``).
    ``propagated``: ``propagate(givens, order)``, when the caller has it already: the search
    starts from its candidates instead of propagating again (the same root, so the same answer);
    one that ended in a contradiction is not used (the search finds it again at once).
    ``first_restart`` (seeded search): the restarts begin at this index, with its Luby budget, as if
    those below it had run without deciding (a previous call's ``resume_at``); ``restarts`` and ``nodes``
    then count this call's restarts only.
    """
    givens = _check_givens(givens, order)
    _check_counts(limit, max_nodes)
    root = None
    if propagated is not None and not propagated.contradiction:
        root = np.ascontiguousarray(propagated.candidates, dtype=np.uint64)
        if root.shape != givens.shape:
            raise ValueError(f"propagated has {root.shape[0]} cells, the givens {givens.shape[0]}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be positive seconds, got {time_limit}")
    flag = stop.FLAG if flag is None else flag
    _loaded("search_core")
    if seed is None:
        return _deterministic(givens, order, int(limit), int(max_nodes), time_limit, flag, root)
    if int(base_nodes) != base_nodes or base_nodes < 1:
        raise ValueError(f"base_nodes must be a positive integer, got {base_nodes}")
    if threads is not None and (int(threads) != threads or threads < 1):
        raise ValueError(f"threads must be a positive integer, got {threads}")
    if int(first_restart) != first_restart or first_restart < 0:
        raise ValueError(f"first_restart must be a non-negative integer, got {first_restart}")
    return _restarted(givens, order, int(limit), int(max_nodes), int(seed), None if threads is None else int(threads),
                      time_limit, int(base_nodes), flag, root, int(first_restart))


def _deterministic(givens, order, limit, max_nodes, time_limit, flag, root) -> ExactResult:
    """The seed's search; ``root``: the givens' fixpoint (``propagate``'s candidates), or None."""
    peers, units, cell_units, full = tables(order)
    cand = initial_candidates(givens, order) if root is None else root
    masks = np.zeros(cand.shape[0], dtype=np.uint64)
    answer = []

    def work(halt):
        answer.extend(search_core(cand, peers, units, cell_units, full, limit, max_nodes, masks, ZERO, halt,
                                  np.uint32(0), np.uint32(0), DETERMINISTIC, np.full(1, NEVER, np.int64),
                                  root is not None))

    start = time.perf_counter()
    _, timed_out = _watched(work, flag=flag, deadline=None if time_limit is None else start + time_limit)
    seconds = time.perf_counter() - start
    found, nodes, outcome = answer
    return ExactResult(solutions=int(found), solution=_digits(masks) if found else None, nodes=int(nodes),
                       seconds=seconds, gave_up=outcome != COMPLETE, interrupted=outcome == STOPPED and not timed_out,
                       timed_out=outcome == STOPPED and timed_out, restarts=1, final_nodes=int(nodes))


def _digits(masks) -> np.ndarray:
    digits = np.empty(masks.shape[0], dtype=np.int16)
    _digits_of(masks, digits)
    return digits


@dataclass
class _Restart:
    found: int
    nodes: int
    outcome: int
    masks: np.ndarray


def _restarted(givens, order, limit, max_nodes, seed, threads, time_limit, base_nodes, flag, root,
               first_restart=0) -> ExactResult:
    """Restarts f, f + 1, f + 2, ... (f = ``first_restart``) with budgets Luby(i + 1) x ``base_nodes``, ``threads``
    at a time (None: every core) (restart f alone first, on this thread, when its budget is small). ``root``:
    the givens' fixpoint (``propagate``'s candidates), or None.

    The answer is that of the lowest restart that completes. Every restart below it has run
    to its whole budget (a restart is only ever cancelled by a lower one completing), so the
    answer, its node counts and the number of restarts are the same for any thread count.
    The budgets stop when their sum reaches ``max_nodes``.
    """
    peers, units, cell_units, full = tables(order)
    cand = initial_candidates(givens, order) if root is None else root
    key0, key1 = rng.split_seed(seed)
    cancel = np.full(1, NEVER, dtype=np.int64)  # the lowest restart known to have completed
    budgets = []  # budget of restart first_restart + i; they add up to at most max_nodes
    results: dict[int, _Restart] = {}
    lock = threading.Lock()

    def next_restart(halt):
        with lock:
            index = first_restart + len(budgets)
            spent = sum(budgets)
            if index > cancel[0] or halt[0] or (budgets and spent >= max_nodes):
                return None
            budgets.append(min(luby(index + 1) * base_nodes, max_nodes - spent))
            return index, budgets[-1]

    def run(index, budget, halt):
        masks = np.zeros(cand.shape[0], dtype=np.uint64)
        found, nodes, outcome = search_core(cand, peers, units, cell_units, full, limit, budget, masks, ZERO,
                                            halt, key0, key1, index, cancel, root is not None)
        with lock:
            results[index] = _Restart(int(found), int(nodes), int(outcome), masks)
            if outcome == COMPLETE and index < cancel[0]:
                cancel[0] = index

    def work(halt):
        while (claimed := next_restart(halt)) is not None:
            run(*claimed, halt)

    start = time.perf_counter()
    stopped = timed_out = False
    if min(luby(first_restart + 1) * base_nodes, max_nodes) <= FIRST_RESTART_HERE_NODES:
        # The first restart here, to its whole budget as on a worker (the same answer); it reads the stop flag
        # itself, and the workers take the next one on only if it did not decide.
        if (claimed := next_restart(flag)) is not None:
            run(*claimed, flag)
    if cancel[0] != first_restart:
        stopped, timed_out = _watched(work, flag=flag, deadline=None if time_limit is None else start + time_limit,
                                      workers=available_cores() if threads is None else threads)
    seconds = time.perf_counter() - start
    decided = None
    for index in range(first_restart, first_restart + len(budgets)):
        run = results.get(index)
        if run is None or run.outcome in (STOPPED, CANCELLED):
            break
        if run.outcome == COMPLETE:
            decided = index
            break
    if decided is not None:
        run = results[decided]
        return ExactResult(solutions=run.found, solution=_digits(run.masks) if run.found else None,
                           nodes=sum(results[i].nodes for i in range(first_restart, decided + 1)), seconds=seconds,
                           gave_up=False, restarts=decided + 1 - first_restart, final_nodes=run.nodes, seed=seed)
    # Undecided: every restart hit its budget (or a stop came first). Any restart's solutions are
    # real ones, so the most found by one restart is a lower bound.
    ran = [results[i] for i in sorted(results)]
    best = max(ran, key=lambda r: r.found, default=None)
    first = next((r for r in ran if r.found), None)
    resume_at = first_restart  # the first restart not run to its whole Luby budget
    while resume_at in results and results[resume_at].outcome == NODE_LIMIT \
            and budgets[resume_at - first_restart] == luby(resume_at + 1) * base_nodes:
        resume_at += 1
    return ExactResult(solutions=best.found if best else 0, solution=_digits(first.masks) if first else None,
                       nodes=sum(r.nodes for r in ran), seconds=seconds, gave_up=True,
                       interrupted=stopped and not timed_out, timed_out=stopped and timed_out, restarts=len(ran),
                       final_nodes=ran[-1].nodes if ran else 0, seed=seed, resume_at=resume_at)


def count_many(givens, order: int, *, limit: int = 2, max_nodes: int = DEFAULT_MAX_NODES,
               flag: np.ndarray | None = None) -> list[ExactResult]:
    """The deterministic ``count_solutions`` for every row of ``givens`` (puzzles x cells), one compiled call.

    ``seconds`` of each result is the batch's time divided evenly (one call cannot time its
    puzzles apart without slowing them). A stop request (``flag``, default ``gpu_sa.stop.FLAG``)
    ends the batch: the puzzles it did not finish come back ``interrupted``.
    """
    _check_counts(limit, max_nodes)
    givens = np.asarray(givens)
    if givens.ndim != 2:
        raise ValueError(f"givens must be puzzles x cells, got shape {givens.shape}")
    if givens.shape[0]:
        _check_givens(givens[0], order)  # the order and the row length
        _check_digits(givens, order * order)
    givens = np.ascontiguousarray(givens, dtype=np.int16)
    peers, units, cell_units, full = tables(order)
    flag = stop.FLAG if flag is None else flag
    count = givens.shape[0]
    counts = np.zeros(count, dtype=np.int64)
    nodes = np.zeros(count, dtype=np.int64)
    outcome = np.zeros(count, dtype=np.int64)
    solutions = np.empty_like(givens)
    _loaded("search_batch")
    start = time.perf_counter()
    _watched(lambda halt: search_batch(givens, peers, units, cell_units, full, int(limit), int(max_nodes), halt,
                                       counts, solutions, nodes, outcome), flag=flag, deadline=None)
    seconds = (time.perf_counter() - start) / max(count, 1)
    return [ExactResult(solutions=int(counts[i]), solution=solutions[i] if counts[i] else None, nodes=int(nodes[i]),
                        seconds=seconds, gave_up=outcome[i] != COMPLETE, interrupted=outcome[i] == STOPPED,
                        final_nodes=int(nodes[i])) for i in range(count)]


@dataclass(frozen=True)
class Propagation:
    values: np.ndarray  # (cells,) int64: the givens and every cell the rules force, 0-based; -1 = still free
    candidates: np.ndarray  # (cells,) uint64: bit d set = digit d possible; a set cell has exactly its own bit
    contradiction: bool  # the rules proved there is no solution (values and candidates: where they stopped)
    forced: dict  # cells forced by each rule: {"exclusivity": n, "uniqueness": n, "parity": n}
    free: int  # cells still free (-1 in ``values``): 0 and no contradiction = the rules solved the puzzle


def propagate(givens, order: int) -> Propagation:
    """The seed-002 rules to a fixpoint from the givens (0-based, -1 empty): what they force.

    The same compiled rules the search applies at every node. Every forced value holds in
    every solution; a contradiction proves there is none.
    """
    givens = _check_givens(givens, order, digits_checked_later=True)
    cand, values, counts, consistent, free = _propagated(givens, *tables(order))
    if free < 0:
        _digits_error(order * order)
    return Propagation(values=values, candidates=cand, contradiction=not consistent,
                       forced=dict(zip(RULES, counts[0, 1:1 + len(RULES)].tolist())), free=free)


@numba.njit(cache=True)
def _propagated(givens, peers, units, cell_units, full):
    """``propagate``'s compiled part in one call (candidates, values, forced counts, consistent, cells left
    free, or -1 when a given is neither -1 nor a digit): in a fresh process each call from Python costs
    several microseconds, and there were seven. (An easy 16x16's whole solve is about 50 us.)

    The givens' exclusivity goes unit by unit (``_exclude_givens``), the rest as in the search; the
    fixpoint and the counts are the same as spreading each given on its own (``_fixpoint`` from
    ``_start``), which is what a contradiction falls back to, so that it stops where it always has."""
    cells = givens.shape[0]
    cand = np.empty(cells, dtype=np.uint64)
    counts = np.zeros((1, TRACE_COLUMNS), dtype=np.int64)
    if _outside_digits(givens, units.shape[1]):
        return cand, np.empty(cells, dtype=np.int64), counts, False, -1
    _candidates_of(givens, full, cand)
    placed = np.zeros(cells, dtype=np.uint8)
    pending = np.empty(cells, dtype=np.int64)  # see _fixpoint: no more is ever pushed
    dirty = np.full(units.shape[0], DIRTY_BOTH, dtype=np.uint8)
    top = _exclude_givens(cand, placed, units, cell_units, pending, counts)
    consistent = top >= 0 and _fixpoint(cand, placed, peers, units, cell_units, full, pending, top, dirty, counts)
    if not consistent:
        _candidates_of(givens, full, cand)
        placed[:] = 0
        counts[:] = 0
        top = _start(cand, placed, units, pending, dirty)
        consistent = top >= 0 and _fixpoint(cand, placed, peers, units, cell_units, full, pending, top, dirty,
                                            counts)
    values = np.empty(cells, dtype=np.int64)
    _digits_of(cand, values)
    free = 0
    for value in values:
        free += value < 0
    return cand, values, counts, consistent, free


@numba.njit(cache=True)
def _exclude_givens(cand, placed, units, cell_units, pending, counts):
    """Exclusivity for every cell down to one digit (the givens) at once: each unit's given digits leave
    its other cells. The givens are marked placed; the cells this leaves with one digit are pushed on
    ``pending`` (and counted as forced by exclusivity) for ``_fixpoint`` to spread. Returns the stack top,
    or -1 on a contradiction (two givens of a unit alike, or a cell left with no digit).

    Spreading the givens one by one (``_spread_singles``) walks every given's peers with a branch on each
    that no predictor learns: 130 us per 25x25 when the puzzles change, 40 us this way. Both reach the
    same state once the pushed cells are spread: exclusivity alone has one fixpoint, whatever the order."""
    side = units.shape[1]
    given_digits = np.empty(units.shape[0], dtype=np.uint64)
    for u in range(units.shape[0]):
        seen = ZERO
        for k in range(side):
            mask = cand[units[u, k]]
            single = mask if _is_single(mask) else ZERO
            if seen & single:
                return -1
            seen |= single
        given_digits[u] = seen
    top = 0
    for cell in range(cand.shape[0]):
        mask = cand[cell]
        if _is_single(mask):
            placed[cell] = 1
            continue
        left = mask & ~(given_digits[cell_units[cell, 0]] | given_digits[cell_units[cell, 1]]
                        | given_digits[cell_units[cell, 2]])
        cand[cell] = left
        if left == ZERO:
            return -1
        if _is_single(left):
            pending[top] = cell
            top += 1
            counts[0, 1 + EXCLUSIVITY] += 1
    return top


def contradicts(givens, order: int) -> bool:
    """The cheap bound: True when propagation alone (no search) proves there is no solution."""
    return propagate(givens, order).contradiction
