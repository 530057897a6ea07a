"""Move ``swap`` (R. Lewis 2007, "Metaheuristics can solve sudoku puzzles").

Every box starts as a permutation of 1..N that keeps its givens; a move swaps the digits of
two free cells of one box, so boxes stay permutations and the cost only counts what rows
and columns lack:

    cost = sum over rows and columns of the digits missing from them        (0 on solutions)

Per chain (one row of each array):
  config   (cells,) uint8   the grid, digits 0 .. N-1
  counts   (2*N*N,) uint8   | rows N x N | columns N x N |, digit-minor: counts[unit*N + d]
Constant tables:
  table0 = givens (cells,) int16, -1 = free
  table1 = movable boxes (M, N + 1) int32: [k, cell_1 .. cell_k, padding], boxes with k >= 2
  table2 = every box (N, N + 1) int32, same layout (the initial fill needs them all)
n_values = N.

A proposal is one Philox call at (move, chain, TAG_MOVE): word 0 picks the box among the M
movable ones, words 1 and 2 the two distinct free cells in it, word 3 is the acceptance draw.
A swap touches at most two rows and two columns; each gains or loses at most one missing
digit, so the cost changes by at most 4.

The initial fill of box b writes its missing digits in increasing order into its free cells,
then shuffles them in place (Fisher-Yates, i = k-1 .. 1, j from word 0 at counter
(b*N + i, 0, chain, TAG_INIT)).
"""
from __future__ import annotations

import numpy as np

from ... import kernels, rng

SHIFT32 = np.uint64(32)
TAG_INIT = rng.TAG_INIT
TAG_MOVE = rng.TAG_MOVE
ZERO32 = np.uint32(0)
MAX_DELTA = 4


def tables(givens: np.ndarray, order: int):
    """(movable boxes, every box) tables for the givens."""
    side = order * order
    grid = givens.reshape(side, side)
    boxes = np.full((side, side + 1), -1, dtype=np.int32)
    for b in range(side):
        top, left = (b // order) * order, (b % order) * order
        free = [(top + i) * side + left + j for i in range(order) for j in range(order)
                if grid[top + i, left + j] < 0]
        boxes[b, 0] = len(free)
        boxes[b, 1:1 + len(free)] = free
    movable = boxes[boxes[:, 0] >= 2]
    return np.ascontiguousarray(movable), boxes


def max_cost(order: int) -> int:
    """A row crosses n boxes, each holding n distinct digits in it: at most N - n missing per row or column."""
    side = order * order
    return 2 * side * (side - order)


def build(target):
    """(start_chain, advance_chain) compiled for ``target``; see ``gpu_sa.kernels``."""
    jit = kernels.device_decorator(target)
    philox = rng.compiled(target)
    keep_best = kernels.keep_best(target)

    @jit
    def unit_change(counts, row, slot_base, removed, added):
        """Change of a unit's missing digits when one ``removed`` leaves it and one ``added`` enters."""
        return int(counts[row, slot_base + removed] == 1) - int(counts[row, slot_base + added] == 0)

    @jit
    def move_digit(counts, row, slot_base, removed, added):
        counts[row, slot_base + removed] = int(counts[row, slot_base + removed]) - 1
        counts[row, slot_base + added] = int(counts[row, slot_base + added]) + 1

    @jit
    def given_in_box(givens, b, digit, n_values):
        order = 1
        while order * order < n_values:
            order += 1
        corner = (b // order) * order * n_values + (b % order) * order
        for i in range(order):
            for j in range(order):
                if givens[corner + i * n_values + j] == digit:
                    return True
        return False

    @jit
    def start_chain(row, chain, key0, key1, givens, movable, boxes, n_values, config, counts):
        n_cells = givens.shape[0]
        for cell in range(n_cells):
            if givens[cell] >= 0:
                config[row, cell] = givens[cell]
        for b in range(boxes.shape[0]):
            slot = 0
            for digit in range(n_values):
                if not given_in_box(givens, b, digit, n_values):
                    config[row, boxes[b, 1 + slot]] = digit
                    slot += 1
            for i in range(boxes[b, 0] - 1, 0, -1):
                w0, w1, w2, w3 = philox(np.uint32(b * n_values + i), ZERO32, np.uint32(chain), TAG_INIT, key0, key1)
                j = np.int64((np.uint64(w0) * np.uint64(i + 1)) >> SHIFT32)
                a = boxes[b, 1 + i]
                c = boxes[b, 1 + j]
                held = config[row, a]
                config[row, a] = config[row, c]
                config[row, c] = held
        for slot in range(counts.shape[1]):
            counts[row, slot] = 0
        for cell in range(n_cells):
            digit = int(config[row, cell])
            r = cell // n_values
            c = cell - r * n_values
            counts[row, r * n_values + digit] = int(counts[row, r * n_values + digit]) + 1
            counts[row, (n_values + c) * n_values + digit] = int(counts[row, (n_values + c) * n_values + digit]) + 1
        total = 0
        for slot in range(counts.shape[1]):
            if counts[row, slot] == 0:
                total += 1
        return total

    @jit
    def advance_chain(row, chain, key0, key1, givens, movable, boxes, n_values,
                      move_begin, move_end, plateau_begin, plateau_length, thresholds,
                      config, counts, cost, accepted, best_cost, best_config, best_move):
        n_movable = np.uint64(movable.shape[0])
        columns_base = n_values * n_values
        chain_word = np.uint32(chain)
        current = int(cost[row])
        best = int(best_cost[row])
        n_accepted = accepted[row]
        plateau = move_begin // plateau_length
        in_plateau = move_begin - plateau * plateau_length
        plateau -= plateau_begin
        move = move_begin
        while move < move_end:
            w0, w1, w2, w3 = philox(np.uint32(move & 0xFFFFFFFF), np.uint32(move >> 32), chain_word,
                                    TAG_MOVE, key0, key1)
            b = np.int64((np.uint64(w0) * n_movable) >> SHIFT32)
            k = movable[b, 0]
            i = np.int64((np.uint64(w1) * np.uint64(k)) >> SHIFT32)
            j = np.int64((np.uint64(w2) * np.uint64(k - 1)) >> SHIFT32)
            if j >= i:
                j += 1
            a = movable[b, 1 + i]
            c = movable[b, 1 + j]
            x = int(config[row, a])
            y = int(config[row, c])
            row_a = a // n_values
            row_c = c // n_values
            column_a = a - row_a * n_values
            column_c = c - row_c * n_values
            delta = 0
            if row_a != row_c:
                delta += unit_change(counts, row, row_a * n_values, x, y) + unit_change(counts, row, row_c * n_values, y, x)
            if column_a != column_c:
                delta += (unit_change(counts, row, columns_base + column_a * n_values, x, y)
                          + unit_change(counts, row, columns_base + column_c * n_values, y, x))
            if delta <= 0 or w3 < thresholds[plateau, delta]:
                config[row, a] = y
                config[row, c] = x
                if row_a != row_c:
                    move_digit(counts, row, row_a * n_values, x, y)
                    move_digit(counts, row, row_c * n_values, y, x)
                if column_a != column_c:
                    move_digit(counts, row, columns_base + column_a * n_values, x, y)
                    move_digit(counts, row, columns_base + column_c * n_values, y, x)
                current += delta
                n_accepted += 1
                if current < best:
                    best = current
                    keep_best(row, move, config, best_config, best_move)
            move += 1
            in_plateau += 1
            if in_plateau == plateau_length:
                in_plateau = 0
                plateau += 1
        cost[row] = current
        best_cost[row] = best
        accepted[row] = n_accepted

    return start_chain, advance_chain
