"""The depth-first search: one restart (or the deterministic search) to its end or its budget.

Each node copies its parent's candidates, places one digit of the branch cell and runs the rules to a
fixpoint (``propagation._fixpoint``); the cell and digit come from ``ordering``. A search that ends within
its budget has counted every solution up to ``limit``, and 0 proves there is none.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....engine.jit import njit
from .board import ONE, ZERO, ZERO32, _below, _candidates_of, _digits_of, _is_single, _nth_bit, _popcount
from .ordering import DUAL, _branch_bit, _draws, _fewest_candidates, _two_places
from .consistency import ALLDIFF, BOX_LINE, NO_CONFLICT, _strong_fixpoint
from .learning import PHASE, WDEG, _blame, _heaviest_fewest
from .propagation import _fixpoint, _remove, _start

# Outcome of one search
COMPLETE, NODE_LIMIT, STOPPED, CANCELLED = 0, 1, 2, 3
DETERMINISTIC = -1  # the restart index of the seed's deterministic search
POLL_MASK = 1023  # the stop flag is read every 1,024 nodes
NEVER = np.iinfo(np.int64).max


@njit(cache=True, inline="always")
def _branch_cell(cand, placed, seeded, word, features, weights, cell_units):
    if features & WDEG:
        return _heaviest_fewest(cand, placed, weights, cell_units, seeded, word)
    return _fewest_candidates(cand, placed, seeded, word)


@njit(cache=True, inline="always")
def _branch_on(cand, cell, units, features, seeded, word, depth, branch_cell, branch_rest, branch_unit, branch_digit):
    """Record the branching at ``depth``: the cell's digits, or with DUAL, when the cell has more than two,
    the two places of a digit that has two places left in some unit (``_two_places``)."""
    branch_cell[depth] = cell
    branch_rest[depth] = cand[cell]
    if features & DUAL:
        branch_unit[depth] = -1
        unit, digit, places = _two_places(cand, units, seeded, word) if _popcount(cand[cell]) > 2 else (-1, ZERO, ZERO)
        if unit >= 0:
            branch_unit[depth] = unit
            branch_digit[depth] = digit
            branch_rest[depth] = places


@njit(cache=True, nogil=True)
def _workspace(side, features):
    """consistency's scratch arrays (empty without its features: the seed's search allocates nothing more)."""
    size = side if features & (BOX_LINE | ALLDIFF) else 0
    order = np.int64(np.sqrt(side) + 0.5)
    return (np.empty((size, order), dtype=np.uint64), np.empty((4, size), dtype=np.int64),
            np.empty(size, dtype=np.uint64))


STACK_ROWS = 16  # the search's first stack rows: 90 kB at 25x25, under glibc's 128 kB threshold for mmap


@njit(cache=True, nogil=True)
def _deeper(cand, placed):
    """The search's stacks with cells + 1 rows (the deepest a search goes), the rows so far kept."""
    rows = cand.shape[1] + 1
    more_cand = np.empty((rows, cand.shape[1]), dtype=cand.dtype)
    more_placed = np.empty((rows, placed.shape[1]), dtype=placed.dtype)
    more_cand[:cand.shape[0]] = cand
    more_placed[:placed.shape[0]] = placed
    return more_cand, more_placed


@njit(cache=True, nogil=True)
def search_core(cand0, peers, units, cell_units, full, limit, max_nodes, solution, shuffle, flag, key0, key1,
                restart, cancel, root_at_fixpoint, features, weights, phases, deepest):
    """(solutions found (<= limit), nodes, outcome); the first solution's masks go to ``solution``.

    ``root_at_fixpoint``: ``cand0`` is already the fixpoint of the search's propagation from the givens,
    without a contradiction (``propagate``'s candidates, or ``consistency.strengthened``'s with
    ``features``). The root's propagation, which would change nothing, is skipped: the root, and so the
    whole search, is the same.

    ``features`` (0 for the seed's search): the stronger propagation of ``consistency`` (BOX_LINE, ALLDIFF)
    at every node, and with ``learning.WDEG`` the dom/wdeg ordering on ``weights`` (one per unit), which
    every contradiction updates in place; with ``learning.PHASE``, a cell's first digit tried is its bit in
    ``phases`` (0: none; else drawn), and ``deepest`` gets the candidates of the deepest node reached.

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
    branch_rest = np.empty(cells + 1, dtype=np.uint64)  # digits of the branch cell, or places of the unit's digit
    dual = features & DUAL
    branch_unit = np.full(cells + 1 if dual else 0, -1, dtype=np.int64)  # DUAL: the unit branched on, -1: a cell
    branch_digit = np.zeros(cells + 1 if dual else 0, dtype=np.uint64)  # ... and its digit (one bit)
    pending = np.empty(cells, dtype=np.int64)  # see _fixpoint: no more is ever pushed
    dirty = np.zeros(units.shape[0], dtype=np.uint8)
    segments, scratch, reach = _workspace(units.shape[1], features)
    seeded = restart >= 0
    cand[0, :] = cand0
    if root_at_fixpoint:
        # A fixpoint without contradiction has spread every cell down to one digit, and only those.
        for cell in range(cells):
            placed[0, cell] = _is_single(cand0[cell])
    else:
        placed[0, :] = 0
        top = _start(cand[0], placed[0], units, pending, dirty)
        if top < 0 or _strong_fixpoint(cand[0], placed[0], peers, units, cell_units, full, pending, top, dirty,
                                       features, segments, scratch, reach) != NO_CONFLICT:
            return 0, 0, COMPLETE
    found = 0
    nodes = 0
    cell = _branch_cell(cand[0], placed[0], seeded, _draws(0, restart, key0, key1)[1] if seeded else ZERO32, features,
                        weights, cell_units)
    if cell < 0:
        solution[:] = cand[0]
        return 1, 0, COMPLETE
    depth = 0
    _branch_on(cand[0], cell, units, features, seeded, _draws(0, restart, key0, key1)[0] if seeded else ZERO32, 0,
               branch_cell, branch_rest, branch_unit, branch_digit)
    cell_word = ZERO32
    best_depth = 0
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
            bit = phases[branch_cell[depth]] & rest if features & PHASE and not (dual and branch_unit[depth] >= 0) \
                else ZERO
            if bit == ZERO:
                bit = _nth_bit(rest, _below(digit_word, _popcount(rest)))
        else:
            bit = _branch_bit(rest, shuffle, nodes - 1)
        branch_rest[depth] = rest & ~bit
        target = branch_cell[depth]
        if dual and branch_unit[depth] >= 0:  # ``bit`` is a place of the unit's digit
            target = units[branch_unit[depth], _popcount(bit - ONE)]
            bit = branch_digit[depth]
        if depth + 1 == cand.shape[0]:
            cand, placed = _deeper(cand, placed)
        cand[depth + 1, :] = cand[depth]
        placed[depth + 1, :] = placed[depth]
        # The parent is at a fixpoint: only the branch cell and its units are new.
        dirty[:] = 0
        _remove(cand[depth + 1], target, ~bit, cell_units, dirty)
        pending[0] = target
        if features == 0:
            if not _fixpoint(cand[depth + 1], placed[depth + 1], peers, units, cell_units, full, pending, 1, dirty,
                             None):
                continue
        else:
            conflict = _strong_fixpoint(cand[depth + 1], placed[depth + 1], peers, units, cell_units, full, pending, 1,
                                        dirty, features, segments, scratch, reach)
            if conflict != NO_CONFLICT:
                if features & WDEG:
                    if conflict >= 0:
                        weights[conflict] += 1
                    else:
                        _blame(cand[depth + 1], units, full, cell_units, weights)
                continue
            if features & PHASE and depth + 1 > best_depth:
                best_depth = depth + 1
                deepest[:] = cand[depth + 1]
        cell = _branch_cell(cand[depth + 1], placed[depth + 1], seeded, cell_word, features, weights, cell_units)
        if cell < 0:
            if found == 0:
                solution[:] = cand[depth + 1]
            found += 1
            if found >= limit:
                return found, nodes, COMPLETE
            continue
        depth += 1
        _branch_on(cand[depth], cell, units, features, seeded, cell_word, depth, branch_cell, branch_rest, branch_unit,
                   branch_digit)
    return found, nodes, COMPLETE


@njit(cache=True, nogil=True)
def search(cand0, peers, units, cell_units, full, limit, max_nodes, solution, shuffle=ZERO):
    """The deterministic search without stop polling: (solutions found (<= limit), nodes, gave_up).

    Kept for callers compiled against it (generation, minimisation); see ``search_core``."""
    never = np.zeros(1, dtype=np.uint8)
    no_cancel = np.full(1, NEVER, dtype=np.int64)
    no_phases = np.zeros(0, dtype=np.uint64)
    found, nodes, outcome = search_core(cand0, peers, units, cell_units, full, limit, max_nodes, solution, shuffle,
                                        never, np.uint32(0), np.uint32(0), DETERMINISTIC, no_cancel, False, 0,
                                        np.zeros(0, dtype=np.int64), no_phases, no_phases)
    return found, nodes, outcome != COMPLETE


@njit(cache=True, nogil=True)
def search_batch(givens, peers, units, cell_units, full, limit, max_nodes, flag, counts, solutions, nodes, outcome,
                 features):
    """The deterministic search for every row of ``givens`` (puzzles x cells, 0-based, -1 empty), with
    ``features`` (0: the seed's rules; ``consistency.BOX_LINE``, ``ALLDIFF``: stronger propagation)."""
    cells = givens.shape[1]
    cand = np.empty(cells, dtype=np.uint64)
    masks = np.zeros(cells, dtype=np.uint64)
    no_cancel = np.full(1, NEVER, dtype=np.int64)
    no_weights = np.zeros(0, dtype=np.int64)  # the seed's search has no WDEG, no PHASE
    no_phases = np.zeros(0, dtype=np.uint64)
    outcome[:] = STOPPED  # what a stop request leaves on the puzzles it never reached
    for i in range(givens.shape[0]):
        if flag[0] != 0:
            return
        _candidates_of(givens[i], full, cand)
        counts[i], nodes[i], outcome[i] = search_core(cand, peers, units, cell_units, full, limit, max_nodes, masks,
                                                      ZERO, flag, np.uint32(0), np.uint32(0), DETERMINISTIC,
                                                      no_cancel, False, features, no_weights, no_phases, no_phases)
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
    interrupted: bool = False  # a stop request (``gpu_sa.engine.stop``) ended the search (then ``gave_up`` too)
    timed_out: bool = False  # ``time_limit`` ended the search (then ``gave_up`` too)
    restarts: int = 1  # searches run up to the one that decided (1: the first search decided)
    final_nodes: int = 0  # branches tried by the search that decided (the last restart)
    seed: int | None = None  # None: the deterministic search
    # Undecided seeded search: the first restart that did not run to its whole budget. A later call with the
    # same seed and ``first_restart=resume_at`` goes on where this one stopped instead of repeating it.
    resume_at: int = 0
    # ... and what it had learned (``restarts.Learned``, with learning.WDEG), for that call's ``learned=``
    learned: object = None


DEFAULT_MAX_NODES = 10_000_000
NO_NODE_LIMIT = 2**62  # max_nodes when a time limit alone bounds the search
