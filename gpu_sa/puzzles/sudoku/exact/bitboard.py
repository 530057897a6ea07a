"""The 9x9 deterministic search on per-digit bitboards: the same rules, branches and answers, 2.5-2.9x as fast.

``backtracking.search_core`` keeps one candidate mask per cell, so a placed digit walks its 20 peers and a hidden
single scans each unit cell by cell. Here a grid is 9 boards, one per digit, each the set of cells where that
digit is still possible, in three words of 27 bits (the 9x9 solvers' usual layout, as in JCZSolve):

    word b = band b (rows 3b..3b+2)        bit 9k + c = row 3b + k, column c

    bits  0- 8: row 3b      . . . | . . . | . . .     a row is a 9-bit run of one word,
    bits  9-17: row 3b + 1  . . . | . . . | . . .     a box three 3-bit runs of one word (BOX << 3j),
    bits 18-26: row 3b + 2  . . . | . . . | . . .     a column one bit in each run of each word (COLUMN << c)

Removing a placed digit from its peers is then three AND-NOTs, and a unit has one place left for a digit when
its bits of that board are a single bit. A state is ``WORDS`` words:

    [0, 27)    board of digit d, band b at 3 d + b
    [27, 30)   SOLVED: the cells whose single digit has been taken from their peers (``placed`` there)
    [30, 33)   PAIRED: the cells that had exactly two digits when the naked pairs last looked

The rules and their fixpoint are those of ``propagation._fixpoint`` (naked and hidden singles, naked pairs), and
the branching that of ``search_core`` without features or seed: the lowest free cell with the fewest candidates,
its digits in increasing order. The fixpoint of the three rules does not depend on the order they are applied in,
so every node is the same, and so are the counts, the first solution and the branches tried (a contradiction that
one of the two misses shows as a difference): tests/puzzles/sudoku/exact/test_bitboard.py compares them on
every puzzle it has, and bench/exact.py on whole sets. Used for order 3 by ``count_many`` and the deterministic
``count_solutions``; bench/exact.py measures the speed.
"""
from __future__ import annotations

import numpy as np

from ....engine.jit import njit
from .backtracking import COMPLETE, NODE_LIMIT, POLL_MASK, STOPPED, search
from .board import ONE, ZERO, _candidates_of, _digits_of, _popcount, tables

SIDE = 9
CELLS = 81
BAND = 27  # cells per word
WORDS = 33
SOLVED = 27
PAIRED = 30
FULL = np.uint64((1 << BAND) - 1)
ROW = np.uint64(0x1FF)
BOX = np.uint64(0x1C0E07)  # three 3-bit runs, 9 bits apart
COLUMN = np.uint64(0x40201)  # bits 0, 9 and 18
_helper = njit(cache=True, nogil=True, _nrt=False)  # helpers allocate nothing: no reference counting


def peer_boards() -> np.ndarray:
    """(81, 3) uint64: the peers of each cell (``board.tables``') as a board."""
    peers = np.zeros((CELLS, 3), dtype=np.uint64)
    for cell, others in enumerate(tables(3)[0]):
        for other in others:
            peers[cell, other // BAND] |= np.uint64(1 << (int(other) % BAND))
    return peers


PEERS = peer_boards()
PEERS.flags.writeable = False  # as compiled code sees a global array: one version of search9 for both callers


@njit(cache=True, inline="always")
def _lowest(x):
    return x & (~x + ONE)


# Three 9-bit runs of a band word, moved 10 bits apart (one guard bit above each) to count within each run at once.
RUN_LOW = np.uint64(1 | 1 << 10 | 1 << 20)
RUN_GUARD = np.uint64(1 << 9 | 1 << 19 | 1 << 29)


@njit(cache=True, inline="always")
def _once_per_run(word):
    """The bits of ``word`` (27 bits) alone in their 9-bit run, as a non-negative int64; -1 if a run is empty.
    Branch-free: each run minus one borrows from its own guard bit only when the run is empty."""
    spaced = (word & ROW) | ((word & (ROW << np.uint64(9))) << ONE) | ((word & (ROW << np.uint64(18))) << np.uint64(2))
    minus_one = (spaced | RUN_GUARD) - RUN_LOW
    if (minus_one & RUN_GUARD) != RUN_GUARD:
        return np.int64(-1)
    above_lowest = spaced & minus_one  # each run without its lowest bit
    alone = RUN_GUARD & ~((above_lowest | RUN_GUARD) - RUN_LOW)  # guards of the runs with one bit
    spaced &= (alone >> np.uint64(9)) * ROW
    return np.int64((spaced & ROW) | ((spaced >> ONE) & (ROW << np.uint64(9))) |
                    ((spaced >> np.uint64(2)) & (ROW << np.uint64(18))))


# _boxes_as_runs: box j's three rows of three (bits 3j + 9k + i) moved to the run j (bits 9j + 3k + i): each group
# of three moves by 6 (j - k) bits; the same move brings them back.
BOX_STAY = np.uint64(0x7 | 0x7 << 12 | 0x7 << 24)
BOX_UP6 = np.uint64(0x7 << 3 | 0x7 << 15)  # j = k + 1
BOX_UP12 = np.uint64(0x7 << 6)  # j = k + 2
BOX_DOWN6 = np.uint64(0x7 << 9 | 0x7 << 21)  # j = k - 1
BOX_DOWN12 = np.uint64(0x7 << 18)  # j = k - 2


@njit(cache=True, inline="always")
def _boxes_as_runs(word):
    six = np.uint64(6)
    twelve = np.uint64(12)
    return ((word & BOX_STAY) | ((word & BOX_UP6) << six) | ((word & BOX_UP12) << twelve)
            | ((word & BOX_DOWN6) >> six) | ((word & BOX_DOWN12) >> twelve))


def _locked_tables():
    """The tables of the box-line rule on a 3x3 matrix of segments (a segment: the three cells where a line
    crosses a box). Within one band, matrix bit 3k + j says the digit has a place in row k inside box j; within
    one stack (three boxes one above the other), bit 3b + i that it has one in the stack's column i inside band
    b's box. Both rules read the matrix the same way: a row of it with one bit (a line whose places all lie in
    one box: claiming) clears the rest of that bit's column (the box's other lines), and a column with one bit
    (a box whose places all lie on one line: pointing) clears the rest of that bit's row (the line outside the
    box), until nothing changes. Returns (SEGMENTS, LOCKED, SPREAD), each indexed by 9 bits:

      SEGMENTS[x]   which of the three 3-bit runs of x are not empty (3 bits)
      LOCKED[m]     the matrix m at the rules' fixpoint
      SPREAD[m]     the cells of a band word under the segments m of its rows (bit 3k + j: bits 9k + 3j .. + 2)
    """
    segments = np.zeros(512, dtype=np.uint64)
    locked = np.zeros(512, dtype=np.uint64)
    spread = np.zeros(512, dtype=np.uint64)
    for x in range(512):
        segments[x] = sum(1 << j for j in range(3) if x >> (3 * j) & 7)
        spread[x] = sum(7 << (9 * (bit // 3) + 3 * (bit % 3)) for bit in range(9) if x >> bit & 1)
        m = x
        while True:
            before = m
            for k in range(3):
                row = m >> (3 * k) & 7
                if row and not row & (row - 1):  # one bit: that column's other rows lose it
                    m &= ~sum(row << (3 * other) for other in range(3) if other != k)
            for j in range(3):
                column = [k for k in range(3) if m >> (3 * k + j) & 1]
                if len(column) == 1:
                    m &= ~sum(1 << (3 * column[0] + other) for other in range(3) if other != j)
            if m == before:
                break
        locked[x] = m
    return segments, locked, spread


SEGMENTS, LOCKED, SPREAD = _locked_tables()


@njit(cache=True, inline="always")
def _locked_rows(word):
    """A band word at the box-line rule's fixpoint over its rows and boxes."""
    nine = np.uint64(9)
    matrix = SEGMENTS[word & ROW] | SEGMENTS[(word >> nine) & ROW] << np.uint64(3) | \
        SEGMENTS[word >> np.uint64(18)] << np.uint64(6)
    return word & SPREAD[LOCKED[matrix]]


@_helper
def _box_line(state, row, looked):
    """Pointing and box-line reduction (``consistency._box_line``'s rule) for every digit whose board changed since
    ``looked`` (its board when this rule last looked), to the rule's fixpoint on that board; True if a place went.
    Rows and boxes stay within a band word (``_locked_rows``); columns and boxes within a stack: each band's
    columns, folded to 9 bits, make a word whose boxes are the stacks' matrices (``_boxes_as_runs``)."""
    nine = np.uint64(9)
    eighteen = np.uint64(18)
    changed = False
    for d in range(SIDE):
        board0 = state[row, 3 * d]
        board1 = state[row, 3 * d + 1]
        board2 = state[row, 3 * d + 2]
        if board0 == looked[3 * d] and board1 == looked[3 * d + 1] and board2 == looked[3 * d + 2]:
            continue
        while True:
            new0 = _locked_rows(board0)
            new1 = _locked_rows(board1)
            new2 = _locked_rows(board2)
            folded = ((new0 | new0 >> nine | new0 >> eighteen) & ROW) | \
                ((new1 | new1 >> nine | new1 >> eighteen) & ROW) << nine | \
                ((new2 | new2 >> nine | new2 >> eighteen) & ROW) << eighteen
            stacks = _boxes_as_runs(folded)  # run s: stack s, bit 3b + i
            stacks = LOCKED[stacks & ROW] | LOCKED[(stacks >> nine) & ROW] << nine | \
                LOCKED[stacks >> eighteen] << eighteen
            columns = _boxes_as_runs(stacks)  # run b: band b's columns that keep the digit
            columns0 = columns & ROW
            columns1 = (columns >> nine) & ROW
            columns2 = columns >> eighteen
            new0 &= columns0 | columns0 << nine | columns0 << eighteen
            new1 &= columns1 | columns1 << nine | columns1 << eighteen
            new2 &= columns2 | columns2 << nine | columns2 << eighteen
            if new0 == board0 and new1 == board1 and new2 == board2:
                break
            board0, board1, board2 = new0, new1, new2
            changed = True
        state[row, 3 * d] = board0
        state[row, 3 * d + 1] = board1
        state[row, 3 * d + 2] = board2
        looked[3 * d] = board0
        looked[3 * d + 1] = board1
        looked[3 * d + 2] = board2
    return changed


@_helper
def _fixpoint(state, row, peers, looked, box_line, looked_locked):
    """The three rules on ``state[row]`` until nothing changes; False on a contradiction. ``looked``: each digit's
    board when the hidden singles last looked at it (FULL before the first look): a unit where the digit lost no
    place since then cannot give a new hidden single or a missing digit. ``box_line``: pointing and box-line
    reduction too (``_box_line``, with its own ``looked_locked``), before the pairs."""
    while True:
        # naked singles: a cell with one digit left takes it from its peers; a cell with none is a contradiction
        spread = False
        for band in range(3):
            once = ZERO
            twice = ZERO
            for d in range(SIDE):
                board = state[row, 3 * d + band]
                twice |= once & board
                once |= board
            if once != FULL:
                return False
            new = once & ~twice & ~state[row, SOLVED + band]
            if new == ZERO:
                continue
            state[row, SOLVED + band] |= new
            spread = True
            for d in range(SIDE):
                # (two singles of one digit in a unit take it from each other: the next pass finds a cell empty)
                cells = new & state[row, 3 * d + band]
                while cells:
                    bit = _lowest(cells)
                    cells ^= bit
                    cell = BAND * band + np.int64(_popcount(bit - ONE))
                    for b in range(3):
                        state[row, 3 * d + b] &= ~peers[cell, b]
        if spread:
            continue
        # hidden singles: a digit with one place left in a unit goes there; none left is a contradiction. Only a
        # digit that lost a place since the last look can have either.
        placed = False
        for d in range(SIDE):
            board0 = state[row, 3 * d]
            board1 = state[row, 3 * d + 1]
            board2 = state[row, 3 * d + 2]
            lost0 = board0 ^ looked[3 * d]
            lost1 = board1 ^ looked[3 * d + 1]
            lost2 = board2 ^ looked[3 * d + 2]
            if (lost0 | lost1 | lost2) == ZERO:
                continue
            looked[3 * d] = board0
            looked[3 * d + 1] = board1
            looked[3 * d + 2] = board2
            # columns: which hold the digit once, over the nine rows; counted first across the three bands bit by
            # bit (at least one, at least two), then across the three runs of those words
            any_band = board0 | board1 | board2
            two_bands = (board0 & board1) | (board2 & (board0 | board1))
            run0 = any_band & ROW
            run1 = (any_band >> np.uint64(9)) & ROW
            run2 = any_band >> np.uint64(18)
            in_column = run0 | run1 | run2
            if in_column != ROW:
                return False
            in_column_twice = (two_bands | (two_bands >> np.uint64(9)) | (two_bands >> np.uint64(18))) & ROW
            in_column_twice |= (run0 & run1) | (run2 & (run0 | run1))
            once_columns = in_column & ~in_column_twice
            once_columns |= (once_columns << np.uint64(9)) | (once_columns << np.uint64(18))
            for band in range(3):
                board = board0 if band == 0 else board1 if band == 1 else board2
                single = board & once_columns
                if (lost0 if band == 0 else lost1 if band == 1 else lost2) != ZERO:  # else its rows and boxes
                    rows = _once_per_run(board)  # are as they were at the last look
                    boxes = _once_per_run(_boxes_as_runs(board))
                    if rows < 0 or boxes < 0:  # a row or box without the digit
                        return False
                    single |= np.uint64(rows) | _boxes_as_runs(np.uint64(boxes))
                single &= ~state[row, SOLVED + band]
                if single:
                    for e in range(SIDE):
                        state[row, 3 * e + band] &= ~single
                    state[row, 3 * d + band] |= single
                    placed = True
        if placed:
            continue
        if box_line and _box_line(state, row, looked_locked):
            continue
        # naked pairs: only a cell down to two digits since the last look can make a new one
        if not _pairs(state, row):
            return True


@njit(cache=True, inline="always")
def _two_digit_cells(state, row, band):
    once = ZERO
    twice = ZERO
    thrice = ZERO
    for d in range(SIDE):
        board = state[row, 3 * d + band]
        thrice |= twice & board
        twice |= once & board
        once |= board
    return twice & ~thrice


@njit(cache=True, inline="always")
def _clear_pair(state, row, band, unit, first, second, keep):
    """Take ``first`` and ``second`` from the cells of ``unit`` outside ``keep`` in one band; True if any left."""
    rest_first = state[row, 3 * first + band] & unit & ~keep
    rest_second = state[row, 3 * second + band] & unit & ~keep
    state[row, 3 * first + band] &= ~rest_first
    state[row, 3 * second + band] &= ~rest_second
    return (rest_first | rest_second) != ZERO


@njit(cache=True, inline="always")
def _pairs(state, row):
    """Naked pairs found from the cells newly down to two digits; True if they removed a candidate."""
    pairs0 = _two_digit_cells(state, row, 0)
    pairs1 = _two_digit_cells(state, row, 1)
    pairs2 = _two_digit_cells(state, row, 2)
    changed = False
    for band in range(3):
        pairs = pairs0 if band == 0 else pairs1 if band == 1 else pairs2
        new = pairs & ~state[row, PAIRED + band]
        state[row, PAIRED + band] |= pairs
        while new:
            bit = _lowest(new)
            new ^= bit
            first = -1
            second = -1
            for d in range(SIDE):
                if state[row, 3 * d + band] & bit:
                    if first < 0:
                        first = d
                    else:
                        second = d
            if second < 0:
                continue  # down to one digit since: the singles take it
            position = np.int64(_popcount(bit - ONE))
            same = state[row, 3 * first + band] & state[row, 3 * second + band] & pairs & ~bit
            for unit in (ROW << np.uint64(9 * (position // 9)), BOX << np.uint64(3 * ((position % 9) // 3))):
                partner = same & unit
                if partner:
                    changed |= _clear_pair(state, row, band, unit, first, second, bit | _lowest(partner))
            column = COLUMN << np.uint64(position % 9)
            for b in range(3):  # the column's partner may be in any band: the lowest one
                others = pairs0 if b == 0 else pairs1 if b == 1 else pairs2
                partner = state[row, 3 * first + b] & state[row, 3 * second + b] & others & column
                if b == band:
                    partner &= ~bit
                if partner:
                    for c in range(3):
                        keep = (bit if c == band else ZERO) | (_lowest(partner) if c == b else ZERO)
                        changed |= _clear_pair(state, row, c, column, first, second, keep)
                    break
    return changed


@_helper
def _branch_cell(state, row):
    """(band, bit) of the lowest free cell with the fewest digits, as ``ordering._fewest_candidates`` without a
    seed; band -1 when every cell is set. The digits are counted per cell in four bit planes (a binary adder)."""
    best = 99
    best_band = -1
    best_bit = ZERO
    for band in range(3):
        free = FULL & ~state[row, SOLVED + band]
        if free == ZERO:
            continue
        plane0 = ZERO
        plane1 = ZERO
        plane2 = ZERO
        plane3 = ZERO
        for d in range(SIDE):
            carry0 = plane0 & state[row, 3 * d + band]
            plane0 ^= state[row, 3 * d + band]
            carry1 = plane1 & carry0
            plane1 ^= carry0
            carry2 = plane2 & carry1
            plane2 ^= carry1
            plane3 |= carry2
        for count in range(2, min(best, SIDE + 1)):  # a lower band already holds a cell with ``best``
            cells = free & (plane0 if count & 1 else ~plane0) & (plane1 if count & 2 else ~plane1)
            cells &= (plane2 if count & 4 else ~plane2) & (plane3 if count & 8 else ~plane3)
            if cells:
                best = count
                best_band = band
                best_bit = _lowest(cells)
                break
        if best == 2:
            break
    return best_band, best_bit


@njit(cache=True, inline="always")
def _digits_at(state, row, band, bit):
    """The cell's digits as a 9-bit mask (bit d = digit d)."""
    digits = 0
    for d in range(SIDE):
        if state[row, 3 * d + band] & bit:
            digits |= 1 << d
    return digits


@njit(cache=True, inline="always")
def _masks(state, row, out):
    """The state as ``backtracking``'s candidate masks (bit d of cell c = digit d possible)."""
    for cell in range(CELLS):
        band = cell // BAND
        bit = ONE << np.uint64(cell % BAND)
        mask = ZERO
        for d in range(SIDE):
            if state[row, 3 * d + band] & bit:
                mask |= ONE << np.uint64(d)
        out[cell] = mask


@njit(cache=True, nogil=True)
def search9(cand0, peers, limit, max_nodes, flag, solution, box_line):
    """``search_core`` for a 9x9 without seed, and without features or (``box_line``) with ``BOX_LINE``: (solutions
    found (<= limit), nodes, outcome) from the candidate masks ``cand0`` (at a fixpoint or not); the first
    solution's masks go to ``solution``. Outcome COMPLETE, NODE_LIMIT (``max_nodes`` branches tried) or STOPPED
    (``flag[0]``, read every 1,024 nodes)."""
    state = np.empty((CELLS + 1, WORDS), dtype=np.uint64)  # one row per depth, written whole before it is read
    state[0, :3 * SIDE] = FULL
    state[0, 3 * SIDE:] = ZERO
    all_digits = (ONE << np.uint64(SIDE)) - ONE
    for cell in range(CELLS):
        digits = cand0[cell]
        if digits == all_digits:
            continue
        band = cell // BAND
        bit = ONE << np.uint64(cell % BAND)
        for d in range(SIDE):
            if not digits >> np.uint64(d) & ONE:
                state[0, 3 * d + band] &= ~bit
    looked = np.full(3 * SIDE, FULL, dtype=np.uint64)  # every place the givens took counts as lost
    looked_locked = looked.copy()
    if not _fixpoint(state, 0, peers, looked, box_line, looked_locked):
        return 0, 0, COMPLETE
    branch_band = np.empty(CELLS + 1, dtype=np.int64)
    branch_bit = np.empty(CELLS + 1, dtype=np.uint64)
    branch_rest = np.empty(CELLS + 1, dtype=np.int64)  # the digits still to try
    band, bit = _branch_cell(state, 0)
    if band < 0:
        _masks(state, 0, solution)
        return 1, 0, COMPLETE
    found = 0
    nodes = 0
    depth = 0
    branch_band[0], branch_bit[0], branch_rest[0] = band, bit, _digits_at(state, 0, band, bit)
    while depth >= 0:
        rest = branch_rest[depth]
        if rest == 0:
            depth -= 1
            continue
        nodes += 1
        if nodes > max_nodes:
            return found, nodes - 1, NODE_LIMIT
        if (nodes & POLL_MASK) == 0 and flag[0] != 0:
            return found, nodes - 1, STOPPED
        digit = 0
        while not rest >> digit & 1:
            digit += 1
        branch_rest[depth] = rest & (rest - 1)
        child = depth + 1
        for w in range(WORDS):
            state[child, w] = state[depth, w]
        for w in range(3 * SIDE):
            looked[w] = state[depth, w]  # the parent is at a fixpoint
            looked_locked[w] = state[depth, w]
        band = branch_band[depth]
        bit = branch_bit[depth]
        for d in range(SIDE):
            if d != digit:
                state[child, 3 * d + band] &= ~bit
        if not _fixpoint(state, child, peers, looked, box_line, looked_locked):
            continue
        band, bit = _branch_cell(state, child)
        if band < 0:
            if found == 0:
                _masks(state, child, solution)
            found += 1
            if found >= limit:
                return found, nodes, COMPLETE
            continue
        depth = child
        branch_band[depth], branch_bit[depth], branch_rest[depth] = band, bit, _digits_at(state, depth, band, bit)
    return found, nodes, COMPLETE


@njit(cache=True, nogil=True)
def search_any(cand0, peers, units, cell_units, full, limit, max_nodes, solution, box_line):
    """``backtracking.search`` (deterministic, no stop polling: found, nodes, gave_up) at any order, on the
    bitboards for a 9x9: the same nodes and first solution, 2.5-2.9x as fast; ``box_line`` (9x9 only; other orders
    are ``search`` itself) adds BOX_LINE there."""
    if cand0.shape[0] == CELLS:
        # a writable flag, like the one callers from Python pass (a global array would be a read-only constant,
        # and search9 compiled once more for it)
        never_stopped = np.zeros(1, dtype=np.uint8)
        found, nodes, outcome = search9(cand0, PEERS, limit, max_nodes, never_stopped, solution, box_line)
        return found, nodes, outcome != COMPLETE
    return search(cand0, peers, units, cell_units, full, limit, max_nodes, solution, ZERO)  # shuffle as from Python


@njit(cache=True, nogil=True)
def search_batch9(givens, peers, full, limit, max_nodes, flag, counts, solutions, nodes, outcome, box_line):
    """``backtracking.search_batch`` for 9x9 puzzles (rows of 81 givens, 0-based, -1 empty); ``box_line`` as in
    ``search9``."""
    cand = np.empty(CELLS, dtype=np.uint64)
    masks = np.zeros(CELLS, dtype=np.uint64)
    outcome[:] = STOPPED  # what a stop request leaves on the puzzles it never reached
    for i in range(givens.shape[0]):
        if flag[0] != 0:
            return
        _candidates_of(givens[i], full, cand)
        counts[i], nodes[i], outcome[i] = search9(cand, peers, limit, max_nodes, flag, masks, box_line)
        if counts[i]:
            _digits_of(masks, solutions[i])
        else:
            solutions[i, :] = -1
