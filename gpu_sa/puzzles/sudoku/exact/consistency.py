"""Propagation stronger than the seed's three rules, for the seeded search: each one a switch (``features``).

  BOX_LINE  pointing and box-line reduction: a digit whose places in a box all lie on one line leaves
            that line's other cells, and a digit whose places on a line all lie in one box leaves that
            box's other cells;
  ALLDIFF   generalized arc consistency of each unit's AllDifferent (Régin 1994): a perfect matching of
            the unit's cells to its digits, and every candidate that lies in no perfect matching removed.
            That is every hidden and naked subset of the unit at once (the Hall sets); no perfect matching
            is a contradiction;
  PROBE     failed-value probing at the root (singleton consistency): a candidate whose placement leads
            to a contradiction is removed, until no candidate fails (``probe``).

``_strong_fixpoint`` runs the seed's rules (``propagation._fixpoint``) and then those switched on, until
nothing changes. Each removes only candidates that no solution holds, so counts and "no solution" stay
proofs. On a bitmask unit of N <= 64 cells, the matching and its strongly connected components are
bitset work: N x N word operations per unit.
"""
from __future__ import annotations

import numpy as np

from ....engine.jit import njit
from .board import DIRTY_ALLDIFF, DIRTY_SINGLE, ONE, ZERO, _bit_index
from .propagation import _fixpoint, _remove, _start

BOX_LINE, ALLDIFF, PROBE = 1, 2, 4
NO_CONFLICT = -1  # what _strong_fixpoint returns when it finds no contradiction


@njit(cache=True, inline="always")
def _strike(cand, cell, mask, cell_units, dirty, pending, top):
    """Clear ``mask`` (some of it set) from ``cell``; push the cell when one digit is left; -1 when none is."""
    left = _remove(cand, cell, mask, cell_units, dirty)
    if left == ZERO:
        return -1
    if (left & (left - ONE)) == ZERO:
        pending[top] = cell
        top += 1
    return top


@njit(cache=True, nogil=True)
def _box_line(cand, order, cell_units, dirty, pending, segments):
    """One pass of pointing and box-line reduction over rows, then columns. (new stack top, removed) or
    (-1, 0) on a contradiction.

    A line's segment k is its ``order`` cells in the k-th box it crosses; ``segments[line, k]`` holds
    their candidates. For the segment s of line L in box B: digits of s in no other segment of B point
    along L (they leave L's cells outside B); digits of s in no other segment of L are claimed by B (they
    leave B's cells outside L). The pass reads segments as they were when it began: a smaller set later
    only makes the deduction hold more surely, so every removal is sound."""
    side = order * order
    top = 0
    removed = 0
    for columns in range(2):
        for line in range(side):
            for k in range(order):
                mask = ZERO
                for j in range(order):
                    pos = k * order + j
                    mask |= cand[pos * side + line] if columns else cand[line * side + pos]
                segments[line, k] = mask
        for line in range(side):
            band = (line // order) * order
            for k in range(order):
                mine = segments[line, k]
                line_rest = ZERO
                for other in range(order):
                    if other != k:
                        line_rest |= segments[line, other]
                box_rest = ZERO
                for other in range(band, band + order):
                    if other != line:
                        box_rest |= segments[other, k]
                pointing = mine & ~box_rest  # confined to this line within the box
                claimed = mine & ~line_rest  # confined to this box within the line
                if pointing & line_rest:
                    for pos in range(side):
                        if pos // order != k:
                            cell = pos * side + line if columns else line * side + pos
                            if cand[cell] & pointing:
                                top = _strike(cand, cell, pointing, cell_units, dirty, pending, top)
                                removed += 1
                                if top < 0:
                                    return -1, 0
                if claimed & box_rest:
                    for other in range(band, band + order):
                        if other == line:
                            continue
                        for j in range(order):
                            pos = k * order + j
                            cell = pos * side + other if columns else other * side + pos
                            if cand[cell] & claimed:
                                top = _strike(cand, cell, claimed, cell_units, dirty, pending, top)
                                removed += 1
                                if top < 0:
                                    return -1, 0
    return top, removed


@njit(cache=True, nogil=True)
def _alldiff(cand, u, units, cell_units, dirty, pending, top, scratch, reach):
    """Generalized arc consistency of unit ``u``'s AllDifferent. Returns the new stack top, or -1 when the
    unit's cells cannot all take different digits (no perfect matching).

    ``scratch`` (4, side) int64: the matching (cell -> digit, digit -> cell), a BFS queue, the cell that
    reached each digit; ``reach`` (side,) uint64. A unit has as many cells as digits, so a maximum
    matching that is perfect leaves no free vertex, and a candidate (cell x, digit d) lies in some perfect
    matching exactly when x and the cell matched to d are in one strongly connected component of the graph
    x -> (the cell matched to each candidate of x): alternating cycles (Régin 1994)."""
    side = units.shape[1]
    digit_of = scratch[0]
    cell_of = scratch[1]
    queue = scratch[2]
    reached_from = scratch[3]
    digit_of[:] = -1
    cell_of[:] = -1
    used = ZERO
    free_cells = ZERO
    for i in range(side):
        mask = cand[units[u, i]]
        if mask & (mask - ONE):
            free_cells |= ONE << np.uint64(i)
        if (mask & ~used) != ZERO:  # greedy first: most cells take their lowest unused candidate
            bit = mask & ~used
            bit &= ~bit + ONE
            d = _bit_index(bit)
            digit_of[i] = d
            cell_of[d] = i
            used |= bit
    for start in range(side):
        if digit_of[start] >= 0:
            continue
        # a breadth-first search for an augmenting path from cell ``start``
        seen = ZERO
        head, tail = 0, 1
        queue[0] = start
        found = -1
        while head < tail and found < 0:
            x = queue[head]
            head += 1
            fresh = cand[units[u, x]] & ~seen
            while fresh:
                bit = fresh & (~fresh + ONE)
                fresh ^= bit
                seen |= bit
                d = _bit_index(bit)
                reached_from[d] = x
                if cell_of[d] < 0:
                    found = d
                    break
                queue[tail] = cell_of[d]
                tail += 1
        if found < 0:
            return -1  # Hall's condition fails: the cells of the search share too few digits
        d = found
        while True:  # flip the path: each cell on it takes the digit that reached it from its predecessor
            x = reached_from[d]
            previous = digit_of[x]
            digit_of[x] = d
            cell_of[d] = x
            if x == start:
                break
            d = previous
    if free_cells == ZERO:
        return top
    # reach[x]: the cells x reaches (itself included), by Warshall's closure restricted to the free cells
    # (a set cell's only edge is to itself)
    for i in range(side):
        reach[i] = ONE << np.uint64(i)
    rest = free_cells
    while rest:
        bit = rest & (~rest + ONE)
        rest ^= bit
        x = _bit_index(bit)
        others = cand[units[u, x]] & ~(ONE << np.uint64(digit_of[x]))
        while others:
            digit = others & (~others + ONE)
            others ^= digit
            reach[x] |= ONE << np.uint64(cell_of[_bit_index(digit)])
    rest = free_cells
    while rest:
        bit = rest & (~rest + ONE)
        rest ^= bit
        k = _bit_index(bit)
        via = reach[k]
        inner = free_cells
        while inner:
            ibit = inner & (~inner + ONE)
            inner ^= ibit
            i = _bit_index(ibit)
            if reach[i] & bit:
                reach[i] |= via
    rest = free_cells
    while rest:
        bit = rest & (~rest + ONE)
        rest ^= bit
        x = _bit_index(bit)
        keep = ZERO
        component = reach[x]
        while component:
            ybit = component & (~component + ONE)
            component ^= ybit
            y = _bit_index(ybit)
            if reach[y] & bit:  # y reaches x too: one component
                keep |= ONE << np.uint64(digit_of[y])
        cell = units[u, x]
        drop = cand[cell] & ~keep
        if drop:
            top = _strike(cand, cell, drop, cell_units, dirty, pending, top)
            if top < 0:
                return -1
    return top


@njit(cache=True, nogil=True)
def _strong_fixpoint(cand, placed, peers, units, cell_units, full, pending, top, dirty, features, segments, scratch,
                     reach):
    """The seed's rules, then box-line and AllDifferent where ``features`` asks, until nothing changes.

    Returns NO_CONFLICT, or on a contradiction the unit it was found in when one rule of this file found it
    (else -2: the seed's rules found it; ``learning._blame`` looks where). Entry as for ``_fixpoint``."""
    order = segments.shape[1]
    while True:
        if not _fixpoint(cand, placed, peers, units, cell_units, full, pending, top, dirty, None):
            return -2
        top = 0
        if features & BOX_LINE:
            top, removed = _box_line(cand, order, cell_units, dirty, pending, segments)
            if top < 0:
                return -2
            if removed:
                continue
        if features & ALLDIFF:
            for u in range(units.shape[0]):
                if not dirty[u] & DIRTY_ALLDIFF:
                    continue
                top = _alldiff(cand, u, units, cell_units, dirty, pending, top, scratch, reach)
                if top < 0:
                    return u
                dirty[u] &= ~DIRTY_ALLDIFF  # its own removals marked it again: it is consistent now
            if top or _any_dirty(dirty, DIRTY_SINGLE):  # a removal marks its units for the seed's rules
                continue
        return NO_CONFLICT


@njit(cache=True, inline="always")
def _any_dirty(dirty, bit):
    for u in range(dirty.shape[0]):
        if dirty[u] & bit:
            return True
    return False


@njit(cache=True, nogil=True)
def strengthened(cand, peers, units, cell_units, full, features, flag):
    """The search's root, in place: the propagation of ``features`` to a fixpoint from ``cand``, then with
    PROBE, failed-value probing until no candidate fails. False when it proves there is no solution.

    Probing places each candidate of each free cell in turn on a copy and propagates; a contradiction
    removes the candidate from the root (and propagates that). A stop request (``flag[0]``) ends the
    probing early, with what it removed so far (all of it sound)."""
    cells = cand.shape[0]
    side = units.shape[1]
    placed = np.zeros(cells, dtype=np.uint8)
    pending = np.empty(cells, dtype=np.int64)
    dirty = np.zeros(units.shape[0], dtype=np.uint8)
    order = np.int64(np.sqrt(side) + 0.5)
    segments = np.empty((side, order), dtype=np.uint64)
    scratch = np.empty((4, side), dtype=np.int64)
    reach = np.empty(side, dtype=np.uint64)
    top = _start(cand, placed, units, pending, dirty)
    if top < 0 or _strong_fixpoint(cand, placed, peers, units, cell_units, full, pending, top, dirty, features,
                                   segments, scratch, reach) != NO_CONFLICT:
        return False
    if not features & PROBE:
        return True
    trial = np.empty(cells, dtype=np.uint64)
    trial_placed = np.empty(cells, dtype=np.uint8)
    changed = True
    while changed:
        changed = False
        for cell in range(cells):
            if flag[0]:
                return True
            rest = cand[cell] if not placed[cell] else ZERO
            while rest:
                bit = rest & (~rest + ONE)
                rest ^= bit
                trial[:] = cand
                trial_placed[:] = placed
                dirty[:] = 0
                _strike(trial, cell, ~bit, cell_units, dirty, pending, 0)
                pending[0] = cell
                if _strong_fixpoint(trial, trial_placed, peers, units, cell_units, full, pending, 1, dirty, features,
                                    segments, scratch, reach) == NO_CONFLICT:
                    continue
                # ``bit`` fails: it leaves the root, and the root is propagated again
                changed = True
                dirty[:] = 0
                top = _strike(cand, cell, bit, cell_units, dirty, pending, 0)
                if top < 0 or _strong_fixpoint(cand, placed, peers, units, cell_units, full, pending, top, dirty,
                                               features, segments, scratch, reach) != NO_CONFLICT:
                    return False
                rest &= cand[cell] if not placed[cell] else ZERO
    return True
