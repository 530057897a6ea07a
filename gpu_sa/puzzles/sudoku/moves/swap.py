"""Move ``swap`` (R. Lewis 2007, "Metaheuristics can solve sudoku puzzles").

Every box starts as a permutation of its missing digits placed in its free cells; a move swaps
the digits of two free cells of one box, so boxes stay permutations and the cost only counts
what rows and columns lack:

    cost = sum over rows and columns of the digits missing from them        (0 on solutions)

Per chain (one row of each ``ChainState`` array):
  config   (cells,) uint8   the grid, digits 0 .. N-1
  counts   (2*N*N,) uint8   | rows N x N | columns N x N |, digit-minor: counts[unit*N + d]

Tables (``SwapTables``; per puzzle p unless shared):

  givens      (P, cells) int16       -1 = free
  movable     (P, M, N + 1) int32    boxes with k >= 2 free cells: [k, cell_1 .. cell_k, padding]
  n_movable   (P,) int32
  boxes       (P, N, N + 1) int32    every box, same layout (the initial fill needs them all)
  masks       (P, cells) uint64      candidate digits of each cell (bit d = digit d possible)
  restricted  (P,) uint8             1 when some free cell lacks one of its box's missing digits
  cell_units  (cells, 2) int32       shared: counts slot bases of the cell's row and column
  box_corner  (N,) int32             shared: the top-left cell of each box
  order       int                    shared: n (boxes are n x n)
  n_values    int                    shared: N

Proposal: one Philox call at (move, chain, TAG_MOVE): word 0 picks the box among the movable
ones, word 1 a free cell a in it, word 2 the rank r of a partner among the box's k - 1 other free
cells (in box order), word 3 is the acceptance draw. Without restriction the partner is the cell of
rank r: the plain move. With candidates from propagation, when one of word 1's three lowest bits is
set (7 proposals in 8) the partner is the first cell from rank r on, cyclically, whose swap with a
keeps both cells within their candidates (c's digit a candidate of a, a's digit a candidate of c),
and the cell of rank r when there is none; when the three bits are 0 (1 in 8) it is the cell of
rank r whatever the candidates. The partner is never a itself: no proposal is a null move.
Why not legal swaps only: the graph whose nodes are a box's candidate-respecting fills and whose
edges are legal swaps is often disconnected once propagation leaves a box few free cells with few
candidates each (cells A {1,2}, B {2,3}, C {3,1}: fills 123 and 231 differ by a 3-cycle and no legal
swap joins them; legal 3-cycles do not join every box either), so a chain whose initial fill lies in
another component than the solution's can never reach it: on 25x25 at 50 % givens, 0 to 2 of 256
chains could (bench/swap_graph.py). The plain proposals join every
permutation of a box; a plain share of 1/8 solved as many as 1/2, 1/4, 1/16 or all-plain and in the
fewest moves. The cost is unchanged: a cell outside its candidates is not penalised for it, it only
conflicts with what propagation ruled out, and a solution holds candidates everywhere.
A swap touches at most two rows and two columns; each gains or loses at most one missing
digit, so the cost changes by at most 4.

Initial fill of box b: its missing digits in increasing order into its free cells, shuffled in
place (Fisher-Yates, i = k-1 .. 1, j from word 0 at counter (b*N + i, 0, chain, TAG_INIT)).
With restriction, the shuffle is then repaired into a matching that respects the candidates
where one exists (``repair_box``: augmenting paths, Kuhn's algorithm, from each cell holding a
non-candidate in box order, trying digits in increasing order); cells left unmatched take the
remaining digits in increasing order.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ....engine.contract import (clock_start, clock_tick, device, item, loop_counters, native_int, note_accepted, set_item,
                      store_counters, table_row)
from ....engine.rng import TAG_INIT, TAG_MOVE, philox, uniform, uniform_index

ZERO32 = np.uint32(0)
ONE64 = np.uint64(1)
MAX_DELTA = 4
LOOK_MASK = np.uint32(7)  # a proposal looks for a partner within candidates when word 1 has one of these bits
NO_DIGIT = 255  # scratch encodings of ``repair_box`` (uint8 counts row)
GIVEN_DIGIT = 254


class SwapTables(NamedTuple):
    givens: np.ndarray
    movable: np.ndarray
    n_movable: np.ndarray
    boxes: np.ndarray
    masks: np.ndarray
    restricted: np.ndarray
    cell_units: np.ndarray
    box_corner: np.ndarray
    order: int
    n_values: int
    SHARED = ("cell_units", "box_corner", "order", "n_values")


def box_tables(givens: np.ndarray, order: int):
    """(movable boxes, every box) of one puzzle: rows [k, free cell 1 .. k, -1 padding]."""
    side = order * order
    grid = givens.reshape(side, side)
    boxes = np.full((side, side + 1), -1, dtype=np.int32)
    for b in range(side):
        top, left = (b // order) * order, (b % order) * order
        free = [(top + i) * side + left + j for i in range(order) for j in range(order)
                if grid[top + i, left + j] < 0]
        boxes[b, 0] = len(free)
        boxes[b, 1:1 + len(free)] = free
    return np.ascontiguousarray(boxes[boxes[:, 0] >= 2]), boxes


def is_restricted(givens: np.ndarray, masks: np.ndarray, boxes: np.ndarray) -> bool:
    """Whether some free cell of one puzzle lacks a digit its box misses (else every swap is legal)."""
    for b in range(boxes.shape[0]):
        cells = boxes[b, 1:1 + boxes[b, 0]]
        held = {int(d) for d in givens[_box_cells(b, boxes.shape[0])] if d >= 0}
        missing = sum(1 << d for d in range(boxes.shape[0]) if d not in held)
        if any(int(masks[cell]) & missing != missing for cell in cells):
            return True
    return False


def _box_cells(b: int, side: int) -> list[int]:
    order = int(round(side ** 0.5))
    top, left = (b // order) * order, (b % order) * order
    return [(top + i) * side + left + j for i in range(order) for j in range(order)]


def max_cost(order: int) -> int:
    """A row crosses n boxes, each holding n distinct digits in it: at most N - n missing per row or column."""
    side = order * order
    return 2 * side * (side - order)


@device
def unit_change(counts, slot_base, removed, added):
    """Change of a unit's missing digits when one ``removed`` leaves it and one ``added`` enters (``counts``:
    one chain's row, a view)."""
    return (native_int(item(counts, np.uint32(slot_base + removed)) == 1)
            - native_int(item(counts, np.uint32(slot_base + added)) == 0))


@device
def move_digit(counts, slot_base, removed, added):
    gone, come = np.uint32(slot_base + removed), np.uint32(slot_base + added)
    set_item(counts, gone, int(item(counts, gone)) - 1)
    set_item(counts, come, int(item(counts, come)) + 1)


@device
def given_in_box(givens, puzzle, corner, order, n_values, digit):
    for i in range(order):
        for j in range(order):
            if givens[puzzle, corner + i * n_values + j] == digit:
                return True
    return False


@device
def holds_candidate(masks, puzzle, cell, digit):
    return (masks[puzzle, cell] >> np.uint64(digit)) & ONE64 != 0


@device
def repair_box(row, puzzle, b, tables, config, scratch):
    """Make box b's free cells hold candidates where a matching allows it (see the module docstring).

    Scratch, one uint8 row of N slots each, inside ``scratch`` (the counts row, rebuilt after):
      | owner of digit d: slot index, NO_DIGIT (free) or GIVEN_DIGIT | visited d | path slots | path digits |
    """
    n_values = tables.n_values
    boxes, masks = tables.boxes, tables.masks
    k = boxes[puzzle, b, 0]
    owner, visited, path_slot, path_digit = 0, n_values, 2 * n_values, 3 * n_values
    for d in range(n_values):
        scratch[row, owner + d] = GIVEN_DIGIT
    for s in range(k):
        scratch[row, owner + config[row, boxes[puzzle, b, 1 + s]]] = NO_DIGIT
    for s in range(k):
        cell = boxes[puzzle, b, 1 + s]
        d = int(config[row, cell])
        if holds_candidate(masks, puzzle, cell, d):
            scratch[row, owner + d] = s
    for s in range(k):
        cell = boxes[puzzle, b, 1 + s]
        if holds_candidate(masks, puzzle, cell, int(config[row, cell])) and scratch[row, owner + config[row, cell]] == s:
            continue  # already matched
        for d in range(n_values):
            scratch[row, visited + d] = 0
        scratch[row, path_slot] = s
        scratch[row, path_digit] = NO_DIGIT
        depth = 1
        while depth > 0:
            top = depth - 1
            at = int(scratch[row, path_slot + top])
            at_cell = boxes[puzzle, b, 1 + at]
            d = 0 if scratch[row, path_digit + top] == NO_DIGIT else int(scratch[row, path_digit + top]) + 1
            while d < n_values and (scratch[row, owner + d] == GIVEN_DIGIT or scratch[row, visited + d] != 0
                                    or not holds_candidate(masks, puzzle, at_cell, d)):
                d += 1
            if d == n_values:
                depth -= 1
                continue
            scratch[row, path_digit + top] = d
            scratch[row, visited + d] = 1
            holder = int(scratch[row, owner + d])
            if holder == NO_DIGIT:
                for f in range(depth):
                    taker = int(scratch[row, path_slot + f])
                    digit = int(scratch[row, path_digit + f])
                    scratch[row, owner + digit] = taker
                    config[row, boxes[puzzle, b, 1 + taker]] = digit
                break
            scratch[row, path_slot + depth] = holder
            scratch[row, path_digit + depth] = NO_DIGIT
            depth += 1
    # cells left unmatched take the digits nobody owns, in increasing order
    d = 0
    for s in range(k):
        cell = boxes[puzzle, b, 1 + s]
        held = int(config[row, cell])
        if holds_candidate(masks, puzzle, cell, held) and scratch[row, owner + held] == s:
            continue
        while scratch[row, owner + d] != NO_DIGIT:
            d += 1
        scratch[row, owner + d] = s
        config[row, cell] = d


@device
def start_chain(row, chain, puzzle, key0, key1, tables, state):
    config, counts = state.config, state.counts
    givens, boxes, cell_units = tables.givens, tables.boxes, tables.cell_units
    n_values = tables.n_values
    for cell in range(givens.shape[1]):
        if givens[puzzle, cell] >= 0:
            config[row, cell] = givens[puzzle, cell]
    for b in range(n_values):
        slot = 0
        for digit in range(n_values):
            if not given_in_box(givens, puzzle, tables.box_corner[b], tables.order, n_values, digit):
                config[row, boxes[puzzle, b, 1 + slot]] = digit
                slot += 1
        for i in range(boxes[puzzle, b, 0] - 1, 0, -1):
            w0, w1, w2, w3 = philox(np.uint32(b * n_values + i), ZERO32, np.uint32(chain), TAG_INIT, key0, key1)
            j = uniform(w0, i + 1)
            a = boxes[puzzle, b, 1 + i]
            c = boxes[puzzle, b, 1 + j]
            held = config[row, a]
            config[row, a] = config[row, c]
            config[row, c] = held
        if tables.restricted[puzzle]:
            repair_box(row, puzzle, b, tables, config, counts)
    for slot in range(counts.shape[1]):
        counts[row, slot] = 0
    for cell in range(givens.shape[1]):
        digit = int(config[row, cell])
        for unit in range(2):
            slot = cell_units[cell, unit] + digit
            counts[row, slot] = int(counts[row, slot]) + 1
    total = 0
    for slot in range(counts.shape[1]):
        if counts[row, slot] == 0:
            total += 1
    return total


@device
def has_digit(mask, digit):
    """Bit ``digit`` of a uint64 candidate mask, tested on the 32-bit word that holds it: a 64-bit shift kept
    two more registers live in swap's partner loops, 42 at their peak, so ptxas used 48 (bench/sass.py)."""
    digit = np.uint32(digit)
    word = np.uint32(mask >> np.uint64(32)) if digit >= np.uint32(32) else np.uint32(mask & np.uint64(0xFFFFFFFF))
    return (word >> (digit & np.uint32(31))) & np.uint32(1) != 0


@device
def partner_from(box, k, i, start, x, mask_a, masks, config):
    """The slot of the first free cell of a box (``box``: its row of ``movable``), other than slot i, that can
    swap with a (digit x, candidates mask_a), looking from slot ``start`` (not i) on, cyclically; ``start``
    when none can. One puzzle's tables, one chain's configuration."""
    s = start
    while True:  # a uint32 loop: numba's range() would count in 64 bits
        if s != i:
            c = np.uint32(item(box, np.uint32(s + np.uint32(1))))
            if has_digit(mask_a, item(config, c)) and has_digit(item(masks, c), x):
                return s
        s = np.uint32(s + np.uint32(1))
        if s == k:
            s = ZERO32
        if s == start:
            return start


@device
def advance_chain(row, chain, puzzle, key0, key1, tables, move_begin, move_end, plateau_begin, plateau_length,
                  thresholds, state):
    # Every index in the loop is a uint32: numba then neither sign-extends it nor tests it for a negative
    # wraparound, which halves the GPU's address arithmetic and its registers.
    row = np.uint32(row)
    # this chain's rows and this puzzle's tables as views: neither index in the loop's addresses
    config, counts = state.config[row], state.counts[row]
    movable, masks, cell_units = tables.movable[puzzle], tables.masks[puzzle], tables.cell_units
    restricted = tables.restricted[puzzle] != 0
    n_movable = np.uint32(tables.n_movable[puzzle])
    chain_word = np.uint32(chain)
    level = np.uint32(state.level[row])
    current, best, n_accepted = loop_counters(row, state)  # 32-bit loop state: one register each
    lo, hi, in_plateau, plateau, length = clock_start(move_begin, plateau_begin, plateau_length)
    for _ in range(np.int32(move_end - move_begin)):
        w0, w1, w2, w3 = philox(lo, hi, chain_word, TAG_MOVE, key0, key1)
        box = table_row(movable, uniform_index(w0, n_movable))  # | k | its free cells (padded) |
        k = np.uint32(item(box, 0))
        i = uniform_index(w1, k)
        a = np.uint32(item(box, np.uint32(i + np.uint32(1))))
        x = np.uint32(item(config, a))
        j = uniform_index(w2, np.uint32(k - np.uint32(1)))  # the partner's rank among the other free cells
        if j >= i:
            j = np.uint32(j + np.uint32(1))  # its slot
        if restricted and (w1 & LOOK_MASK) != ZERO32:  # 7 in 8 look for a swap within candidates
            j = partner_from(box, k, i, j, x, item(masks, a), masks, config)
        c = np.uint32(item(box, np.uint32(j + np.uint32(1))))
        y = np.uint32(item(config, c))
        units_a, units_c = table_row(cell_units, a), table_row(cell_units, c)
        row_a = np.uint32(item(units_a, 0))
        row_c = np.uint32(item(units_c, 0))
        column_a = np.uint32(item(units_a, 1))
        column_c = np.uint32(item(units_c, 1))
        delta = native_int(0)  # the machine's natural integer: int32 on the GPU, int64 on the CPU
        if row_a != row_c:
            delta = native_int(unit_change(counts, row_a, x, y) + unit_change(counts, row_c, y, x))
        if column_a != column_c:
            delta = native_int(delta + unit_change(counts, column_a, x, y) + unit_change(counts, column_c, y, x))
        if delta <= 0 or w3 < thresholds[np.uint32(plateau), level, np.uint32(delta)]:  # c is never a
            set_item(config, a, y)
            set_item(config, c, x)
            if row_a != row_c:
                move_digit(counts, row_a, x, y)
                move_digit(counts, row_c, y, x)
            if column_a != column_c:
                move_digit(counts, column_a, x, y)
                move_digit(counts, column_c, y, x)
            current = np.int32(current + delta)
            best, n_accepted = note_accepted(row, current, best, n_accepted, lo, hi, state)
        lo, hi, in_plateau, plateau = clock_tick(lo, hi, in_plateau, plateau, length)
    store_counters(row, current, best, n_accepted, state)
