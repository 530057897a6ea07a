"""The grid's own constraints as the clause-learning search sees them, kept implicit instead of as a CNF.

The search (``clauses.cdcl``) has one Boolean variable per free cell of its root and candidate digit there,
"cell holds digit", numbered cell by cell, digits in increasing order (so a cell's variables are
``cell_first[cell] ..`` and ``_var`` finds one with a popcount); literal 2v is "v true", 2v + 1 "v false".
The grid says "exactly one" four ways: per cell (one digit) and, per unit (row, column, box), per digit (one
place). A CNF spells that as one clause per "at least one" and a binary clause per pair for "at most one",
about a million literals at 49x49, walked through watch lists. Here those constraints are never stored; two
sets of bitmasks follow them instead, updated as literals are set and unset:

    alive[cell]               bit d: the cell's variable for digit d is not false (unset or true)
    places[unit * side + d]   bit k: the variable of digit d in the unit's k-th cell is not false

and the propagation of the search reads them: a placement (v true) makes the cell's other ``alive`` digits
and the digit's other ``places`` in its three units false; an exclusion (v false) leaves its cell, or the
digit in one of its units, with one place (that variable becomes true) or none (a conflict). Only the
learned clauses are stored and watched.

Conflict analysis still needs each implied literal's clause (its *reason*); it is named by a code and its
literals written out on demand by ``_literals``:

    reason >= 0                   learned clause ``reason``
    reason == NO_REASON (-1)      a decision, or set at level 0
    reason == -2 - x, x < V       "not both": x true made this variable false (clause: not x or not v)
    reason == -2 - (V + cell)     the cell's "at least one digit" (clause: its variables at the root)
    reason == -2 - (V + C + ud)   unit u's "digit d somewhere" (ud = u * side + d; its places at the root)

with V the variables and C the cells. A conflict is named the same way (a pair with both variables true
carries the second one beside the code).

Memory is a few arrays of one entry per variable, cell or unit and digit, not the CNF: at 49x49 at 50 % givens a
process running the search holds 17-27 MB less than with the CNF.
"""
from __future__ import annotations

import numpy as np

from ....engine.jit import njit
from .board import ONE, ZERO, _bit_index, _is_single, _popcount

NO_REASON = -1
UNSET = np.int8(-1)


@njit(cache=True, inline="always")
def _var(cell_first, root, cell, digit):
    """The variable "``cell`` holds ``digit``" (the digit must be one of the cell's root candidates)."""
    return cell_first[cell] + np.int64(_popcount(root[cell] & ((ONE << np.uint64(digit)) - ONE)))


@njit(cache=True, nogil=True)
def layout(cand, units):
    """The variables and masks of the root ``cand`` (module docstring): (variables, cell_unit, cell_pos, root,
    cell_first, var_cell, var_digit, places, has_alo). ``cell_unit[cell, kind]``, ``cell_pos[cell, kind]``: the
    cell's row, column and box (``units`` lists side rows, then side columns, then side boxes) and its place in
    each; ``root``: the free cells' candidates (0 for a single); ``has_alo[ud]``: 0 where a single of the unit
    holds the digit (placed already: the unit has no "digit somewhere" to say), else 1. ``variables`` is -1 when a cell has no
    candidate."""
    cells = cand.shape[0]
    side = units.shape[1]
    unit_count = units.shape[0]
    cell_unit = np.empty((cells, 3), dtype=np.int64)
    cell_pos = np.empty((cells, 3), dtype=np.int64)
    for u in range(unit_count):
        for k in range(side):
            cell_unit[units[u, k], u // side] = u
            cell_pos[units[u, k], u // side] = k
    root = np.zeros(cells, dtype=np.uint64)
    cell_first = np.zeros(cells + 1, dtype=np.int64)
    variables = 0
    empty = False
    for cell in range(cells):
        cell_first[cell] = variables
        if cand[cell] == ZERO:
            empty = True
        elif not _is_single(cand[cell]):
            root[cell] = cand[cell]
            variables += np.int64(_popcount(cand[cell]))
    cell_first[cells] = variables
    var_cell = np.empty(variables, dtype=np.int64)
    var_digit = np.empty(variables, dtype=np.int64)
    for cell in range(cells):
        rest = root[cell]
        v = cell_first[cell]
        while rest:
            bit = rest & (~rest + ONE)
            rest ^= bit
            var_cell[v] = cell
            var_digit[v] = _bit_index(bit)
            v += 1
    places = np.zeros(unit_count * side, dtype=np.uint64)
    has_alo = np.ones(unit_count * side, dtype=np.uint8)
    for u in range(unit_count):
        for k in range(side):
            mask = cand[units[u, k]]
            if _is_single(mask):
                has_alo[u * side + _bit_index(mask)] = 0
            rest = root[units[u, k]]
            while rest:
                bit = rest & (~rest + ONE)
                rest ^= bit
                places[u * side + _bit_index(bit)] |= ONE << np.uint64(k)
    return (-1 if empty else variables), cell_unit, cell_pos, root, cell_first, var_cell, var_digit, places, has_alo


@njit(cache=True, nogil=True, _nrt=False)
def _assign(lit, at, why, assign, level, reason, trail, size_trail, var_cell, var_digit, alive, places, cell_unit,
            cell_pos, side):
    """Make ``lit`` true at level ``at`` because of ``why`` (a reason code); an exclusion clears its bits in the
    masks. The new trail size."""
    var = lit >> 1
    value = 1 - (lit & 1)
    assign[var] = value
    level[var] = at
    reason[var] = why
    trail[size_trail] = lit
    if value == 0:
        cell = var_cell[var]
        digit = var_digit[var]
        alive[cell] &= ~(ONE << np.uint64(digit))
        for j in range(3):
            places[cell_unit[cell, j] * side + digit] &= ~(ONE << np.uint64(cell_pos[cell, j]))
    return size_trail + 1


@njit(cache=True, nogil=True, _nrt=False)
def _restore(var, var_cell, var_digit, alive, places, cell_unit, cell_pos, side):
    """The masks' bits of an exclusion being unset."""
    cell = var_cell[var]
    digit = var_digit[var]
    alive[cell] |= ONE << np.uint64(digit)
    for j in range(3):
        places[cell_unit[cell, j] * side + digit] |= ONE << np.uint64(cell_pos[cell, j])


@njit(cache=True, nogil=True, _nrt=False)
def _literals(code, var, out, cstart, clen, lits, variables, cells, side, cell_first, root, root_places, units):
    """The literals of the clause named by ``code`` (the reason of ``var``'s literal, or a conflict: a pair's
    ``var`` is its other variable) into ``out``; returns how many."""
    if code >= 0:
        size = clen[code]
        base = cstart[code]
        for j in range(size):
            out[j] = lits[base + j]
        return size
    x = -2 - code
    if x < variables:  # "not both"
        out[0] = 2 * var + 1
        out[1] = 2 * x + 1
        return 2
    x -= variables
    if x < cells:  # the cell's "at least one digit"
        first = cell_first[x]
        size = np.int64(_popcount(root[x]))
        for j in range(size):
            out[j] = 2 * (first + j)
        return size
    x -= cells  # unit u's "digit d somewhere"
    u = x // side
    digit = x - u * side
    rest = root_places[x]
    size = 0
    while rest:
        bit = rest & (~rest + ONE)
        rest ^= bit
        out[size] = 2 * _var(cell_first, root, units[u, _bit_index(bit)], digit)
        size += 1
    return size


@njit(cache=True, nogil=True)
def level_zero(cand, units, variables, root, cell_first, places, has_alo, assign, level, reason, trail, var_cell,
               var_digit, alive, cell_unit, cell_pos):
    """Level 0 from a root the rules may not have run on: a single's digit leaves the free cells of its units, and a
    cell or a unit's digit with one place left takes it (the search's propagation goes on from the trail). Returns
    the trail's size, or -1 when a cell or a unit's digit has no place left, or a unit repeats a single."""
    side = units.shape[1]
    size_trail = 0
    for u in range(units.shape[0]):
        singles = ZERO
        for k in range(side):
            mask = cand[units[u, k]]
            if not _is_single(mask):
                continue
            if singles & mask:
                return -1
            singles |= mask
            digit = _bit_index(mask)
            rest = places[u * side + digit]
            while rest:
                bit = rest & (~rest + ONE)
                rest ^= bit
                v = _var(cell_first, root, units[u, _bit_index(bit)], digit)
                if assign[v] < 0:
                    size_trail = _assign(2 * v + 1, 0, NO_REASON, assign, level, reason, trail, size_trail, var_cell,
                                         var_digit, alive, places, cell_unit, cell_pos, side)
    for cell in range(cand.shape[0]):
        if root[cell] == ZERO:
            continue
        if alive[cell] == ZERO:
            return -1
        if _is_single(alive[cell]):
            v = _var(cell_first, root, cell, _bit_index(alive[cell]))
            if assign[v] < 0:
                size_trail = _assign(2 * v, 0, NO_REASON, assign, level, reason, trail, size_trail, var_cell,
                                     var_digit, alive, places, cell_unit, cell_pos, side)
    for ud in range(places.shape[0]):
        if not has_alo[ud]:
            continue
        if places[ud] == ZERO:
            return -1
        if _is_single(places[ud]):
            u = ud // side
            v = _var(cell_first, root, units[u, _bit_index(places[ud])], ud - u * side)
            if assign[v] < 0:
                size_trail = _assign(2 * v, 0, NO_REASON, assign, level, reason, trail, size_trail, var_cell,
                                     var_digit, alive, places, cell_unit, cell_pos, side)
    return size_trail
