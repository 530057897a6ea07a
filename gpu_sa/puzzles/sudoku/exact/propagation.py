"""Seed 002's three rules ("règles EUP") over bitmask candidates, and the drivers that apply them.

  exclusivity (naked single)  a cell down to one digit removes it from its peers;
  uniqueness  (hidden single) a digit with one place left in a unit goes there;
  parity      (naked pair)    two cells of a unit holding the same two digits remove them
                              from the unit's other cells.

Each rule is one compiled function over one cell or one unit. Three drivers share them:
``_fixpoint`` runs them until nothing changes (the search, ``propagate``), ``rule_round``
applies each once over the whole grid (the seed page's "Règles EUP" button, ``steps``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ....engine.jit import njit
from . import wide
from .board import (DIRTY_ALL, DIRTY_PAIR, DIRTY_SINGLE, ONE, ZERO, _candidates_of, _check_givens, _digits_error,
                    _digits_of, _is_single, _outside_digits, tables)

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




@njit(cache=True, inline="always")
def _remove(cand, cell, mask, cell_units, dirty):
    """Clear ``mask`` from a cell and mark its three units for another look by the unit rules: always by
    uniqueness, and by parity only when the cell is left with exactly two digits. A naked pair, once applied,
    has taken its digits from the rest of the unit for good (candidates only shrink), so a pair that can
    apply now has a cell that came down to two digits since parity last looked at the unit. Marking every
    change for parity too ran it over nearly every unit after each branch (a few per cent of the 9x9
    search's time: bench/exact.py --propagate). Returns what is left in the cell."""
    left = cand[cell] & ~mask
    cand[cell] = left
    # the digits but the lowest: one digit when the cell has two
    mark = DIRTY_ALL if _is_single(left & (left - ONE)) else DIRTY_ALL & ~DIRTY_PAIR
    for k in range(3):
        dirty[cell_units[cell, k]] |= mark
    return left


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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
            if mask & (mask - ONE):
                # also when the cell holds exactly those digits: it cannot take both (a cell left with two
                # candidates that were each the last place of its digit used to pass here unnoticed)
                _log(trace, UNIQUENESS, CONTRADICTION, u, -1, -1, cell, mask)
                return -1
            if mask and cand[cell] != mask:
                _strip(cand, cell, ~mask, cell_units, dirty, trace, UNIQUENESS, u, -1, -1)
                pending[top] = cell
                top += 1
    return top


@njit(cache=True, inline="always")
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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def _fixpoint(cand, placed, peers, units, cell_units, full, pending, top, dirty, trace):
    """Apply the three rules until nothing changes. False on a contradiction.

    On entry ``pending[:top]`` holds the cells newly down to one digit, and ``dirty``
    mark the units whose candidates changed since the rules last looked at them: a unit
    that did not change cannot yield a new hidden single or naked pair (``_remove`` says
    which changes can yield a pair). ``pending`` is
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


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def _start(cand, placed, units, pending, dirty):
    """Root state for ``_fixpoint``: every single pending, every unit dirty; -1 if a cell is empty."""
    top = 0
    for cell in range(cand.shape[0]):
        if cand[cell] == ZERO:
            return -1
        if placed[cell] == 0 and _is_single(cand[cell]):
            pending[top] = cell
            top += 1
    dirty[:] = DIRTY_ALL
    return top


@dataclass(frozen=True)
class Propagation:
    values: np.ndarray  # (cells,) int64: the givens and every cell the rules force, 0-based; -1 = still free
    candidates: np.ndarray  # (cells,) uint64: bit d set = digit d possible; a set cell has exactly its own bit
    # (from order 9 on: (cells, N) bool, True = digit possible)
    contradiction: bool  # the rules proved there is no solution (values and candidates: where they stopped)
    forced: dict  # cells forced by each rule: {"exclusivity": n, "uniqueness": n, "parity": n}
    free: int  # cells still free (-1 in ``values``): 0 and no contradiction = the rules solved the puzzle


def propagate(givens, order: int) -> Propagation:
    """The seed-002 rules to a fixpoint from the givens (0-based, -1 empty): what they force.

    The same compiled rules the search applies at every node. Every forced value holds in
    every solution; a contradiction proves there is none.
    From order 9 on (more digits than a uint64 holds) ``wide.propagated`` answers, with the candidates as a
    (cells, N) bool array and parity left out (``wide``'s docstring says why).
    """
    if wide.is_wide(order):
        values, possible, consistent, forced = wide.propagated(givens, order)
        return Propagation(values=values, candidates=possible, contradiction=not consistent,
                           forced=dict(zip(RULES, forced + [0])), free=int((values < 0).sum()))
    givens = _check_givens(givens, order, digits_checked_later=True)
    cand, values, counts, consistent, free = _propagated(givens, *tables(order))
    if free < 0:
        _digits_error(order * order)
    return Propagation(values=values, candidates=cand, contradiction=not consistent,
                       forced=dict(zip(RULES, counts[0, 1:1 + len(RULES)].tolist())), free=free)


@njit(cache=True, nogil=True)
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
    dirty = np.full(units.shape[0], DIRTY_ALL, dtype=np.uint8)
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


@njit(cache=True, nogil=True)
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
