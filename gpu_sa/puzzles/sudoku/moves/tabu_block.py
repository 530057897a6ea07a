"""Move ``tabu``'s cooperative layout: one CUDA thread block per chain, for large grids.

The one-thread layout (``tabu.advance_chain``) gives a chain one GPU thread, which scans the conflicting cells,
a cell's digits and its 3N - 2n - 1 peers alone, out of hundreds of kilobytes of state per chain: at 49x49 a chain
made 45 moves a second on an H200. Here the T threads of a block (T a multiple of 32) share one chain: they
pick the cell, count its peers' digits, rank its digits and update its peers together, from the chain's hot state
in shared memory, and meet at a barrier between the steps of a move. Every choice is the move's definition
(``tabu``'s docstring), decided by a minimum over packed keys that no two candidates share, so that the chain
makes exactly the choices of the NumPy twin (``cpu_ref.sudoku.tabu``) and of the one-thread kernel, whatever T.

Shared memory of the block (dynamic, sized by ``shared_bytes``), in 32-bit words, then 16-bit ones:

  | 3 minima (uint64: cell, digit, pair) | conflicting cells (int32) | batch length | batch cells (BATCH) |
  | hist (BATCH x N int32): the peers of the chosen cell (of a batch's cells, in a recount) holding each digit |
  | conflicting bitmap (W = ceil(cells / 32) words): bit c = cell c conflicts |
  | flag bitmap (W): bit c = cell c may be chosen (configuration checking) |
  | box cells (N): the k-th cell of a box from its corner, (row << 8) | column |
  | cell words (cells, uint16): own << 7 | digit, own = the peers holding the cell's digit (at most 340 < 2^9) |

At 64x64 that is 11.6 KB a chain, at 121x121 37.4 KB (under the 48 KB a block may take without opting in).

The rest of the chain's state stays in its row of ``state`` (C order here: a chain's slots are contiguous, so the
block's threads read a cell's N tabu marks, or its N gamma counts, in one coalesced load) and is used in place: the
tabu marks, gamma (``counts``: a free cell's free peers holding each digit; every accepted move updates the rows
of v's free peers, one thread per peer), the snapshot and the journal. The grid, the flags and the conflict list are
read into shared memory when a launch starts and written back when it ends, in the one-thread layout's format, so
that both layouts and the twin keep the same state. A cell's own count and the normal mode's peer counts are
counted over every peer, givens included: for a digit the cell may take no given peer holds it (its candidates
exclude them), so they agree with gamma wherever the move reads them.

Per move (normal mode), every thread a share of each step, a barrier between steps: the least packed key over the
conflicting cells (the bitmap's words); the chosen cell's 3N peer steps into hist; the least key over its candidate
digits (their tabu marks from the chain's row); thread 0 changes the cell, every thread a share of its peers (their
words, bits and gamma rows). Best-move mode replaces the first three steps by one: the least key over every
conflicting cell's candidates, scored from gamma.

Packed keys (the lowest wins; every field fixed width, so the order is the move's):
  cell    unflagged (1 bit) | 511 - own (9) | key(f, w0) (32) | cell (22)
  digit   score + 512 (10) | key(d, w1) (32) | d (22)
  pair    score + 512 (10) | key(f * N + d, w0) (32) | f * N + d (22)
"""
from __future__ import annotations

import numpy as np
from numba import cuda, int32, uint16, uint32, uint64

from ....engine.contract import SIMULATOR, clock_start, clock_tick, item, move_index, set_item
from ....engine.rng import TAG_MOVE, philox
from .tabu import (BEST_MOVES_LEFT, CONFLICTING, JOURNAL_LENGTH, LIST_BASE, MAX_SEGMENT, MAX_TENURE, SEGMENT_BASE,
                   SEGMENT_LEFT, SEGMENT_LENGTH, SNAPSHOT_CHANGED, key, tenure)

BATCH = 8  # cells whose peers' digits are counted at once (best-move mode, the write-back)
CELL_MIN, DIGIT_MIN, PAIR_MIN = 0, 1, 2  # uint64 slots
COUNT_WORD, BATCH_LENGTH_WORD, BATCH_WORD = 6, 7, 8  # 32-bit slots after the minima
HIST_WORD = BATCH_WORD + BATCH
NONE64 = np.uint64(0xFFFFFFFFFFFFFFFF)
LOW22 = np.uint64((1 << 22) - 1)
DIGIT_BITS = 7
DIGIT_MASK = np.uint32((1 << DIGIT_BITS) - 1)
SCORE_BIAS = 512
MAX_SHARED_BYTES = 48 * 1024  # what a block may take without the opt-in attribute, which numba-cuda does not set
THREADS = (32, 64, 128, 256)  # the cooperative layouts offered: whole warps, up to 8 per chain
U1, U7, U22, U32, U54, U63 = (np.uint64(k) for k in (1, 7, 22, 32, 54, 63))


def bitmap_words(cells: int) -> int:
    return (cells + 31) // 32


def layout(side: int) -> tuple[int, int, int, int, int]:
    """32-bit word offsets of (hist, conflicting bitmap, flag bitmap, box cells) and the 16-bit offset of the cell
    words, at N = ``side`` digits (see the module docstring)."""
    hist = HIST_WORD
    conflicting = hist + BATCH * side
    flags = conflicting + (side * side + 31) // 32
    boxes = flags + (side * side + 31) // 32
    return hist, conflicting, flags, boxes, 2 * (boxes + side)


layout_device = cuda.jit(device=True)(layout)  # the same offsets, inside the kernel


def shared_bytes(side: int) -> int:
    """Shared memory one chain takes at N = ``side`` digits."""
    return 2 * (layout(side)[4] + side * side)


def fits(side: int) -> bool:
    return shared_bytes(side) <= MAX_SHARED_BYTES


@cuda.jit(device=True)
def peer_of(row, column, top, left, k, side, boxes):
    """Step ``k`` of a cell's peers in a walk of 3N steps (k < N: its row's cell in column k; then its column's
    cell in row k - N; then its box's k - 2N-th cell; the box's corner is (top, left)), or -1 where that step is
    the cell itself or a cell the row or column steps already gave. 32-bit arithmetic, no division."""
    if k < side:
        return int32(-1) if k == column else int32(row * side + k)
    k = int32(k - side)
    if k < side:
        return int32(-1) if k == row else int32(k * side + column)
    k = int32(k - side)
    packed = int32(boxes[k])
    r = int32(top + (packed >> 8))
    c = int32(left + (packed & 255))
    return int32(-1) if r == row or c == column else int32(r * side + c)


@cuda.jit(device=True)
def place(cell, side, order):
    """(row, column, the row and column of its box's corner) of ``cell``: unsigned 32-bit divisions, inline."""
    row = int32(uint32(cell) // uint32(side))
    column = int32(cell - row * side)
    top = int32(int32(uint32(row) // uint32(order)) * order)
    left = int32(int32(uint32(column) // uint32(order)) * order)
    return row, column, top, left


@cuda.jit(device=True)
def offer(minima, slot, mine):
    """Every thread offers its least packed key; after the caller's barrier minima[slot] holds the block's least."""
    if mine != NONE64:
        cuda.atomic.min(minima, slot, mine)


@cuda.jit(device=True)
def set_bit(bitmap, cell):
    cuda.atomic.or_(bitmap, cell >> 5, uint32(1) << uint32(cell & 31))


@cuda.jit(device=True)
def clear_bit(bitmap, cell):
    cuda.atomic.and_(bitmap, cell >> 5, ~(uint32(1) << uint32(cell & 31)))


@cuda.jit(device=True)
def has_bit(bitmap, cell):
    return (bitmap[cell >> 5] >> uint32(cell & 31)) & uint32(1) != uint32(0)


@cuda.jit(device=True)
def digit_of(words, cell):
    return int32(words[cell] & DIGIT_MASK)


@cuda.jit(device=True)
def own_of(words, cell):
    return int32(words[cell] >> DIGIT_BITS)


@cuda.jit(device=True)
def cell_word(own, digit):
    return uint16((own << DIGIT_BITS) | digit)


@cuda.jit(device=True)
def count_peers(hist, batch, length, words, side, order, boxes, free_index, free_only):
    """hist[i * N + d] += the peers of the batch's i-th cell holding d (free peers only if ``free_only``), for
    i < ``length``; the caller zeroed hist and synchronised. Ends with a barrier."""
    steps = int32(3 * side)
    for i in range(length):
        row, column, top, left = place(int32(batch[i]), side, order)
        base = int32(i * side)
        k = int32(cuda.threadIdx.x)
        while k < steps:
            p = peer_of(row, column, top, left, k, side, boxes)
            if p >= 0 and (not free_only or free_index[p] >= 0):
                cuda.atomic.add(hist, base + digit_of(words, p), 1)
            k = int32(k + cuda.blockDim.x)
    cuda.syncthreads()


@cuda.jit(device=True)
def tabu_at(memory, slot, lo):
    left = uint32(uint32(memory[slot]) - lo)
    return left != uint32(0) and left <= uint32(MAX_TENURE)


@cuda.jit(device=True)
def least_allowed(mine, score, tie, choice, memory, mark, lo, current, best):
    """``mine``, or the packed key of (score, tie, choice) where that is lower and the choice is allowed: its tabu
    mark (slot ``mark``) has expired, or it takes the cost below the chain's best (aspiration)."""
    if not tabu_at(memory, mark, lo) or current + score < best:
        packed = (uint64(score + SCORE_BIAS) << U54) | (uint64(tie) << U22) | uint64(choice)
        if packed < mine:
            return packed
    return mine


@cuda.jit(device=True)
def journal_walk(journaled, width, n_free):
    """(cells to walk, whether they are every free cell): the journal's, or every free cell's after an overflow."""
    if journaled > width:
        return n_free, True
    return int32(journaled), False


@cuda.jit(device=True)
def advance_block(row, chain, puzzle, key0, key1, tables, move_begin, move_end, plateau_begin, plateau_length,
                  thresholds, state):
    t = cuda.threadIdx.x
    threads = cuda.blockDim.x
    minima = cuda.shared.array(0, uint64)
    words32 = cuda.shared.array(0, uint32)
    signed = cuda.shared.array(0, int32)
    halves = cuda.shared.array(0, uint16)
    side = int32(tables.n_values)
    cells = side * side
    hist_at, conflicting_at, flags_at, boxes_at, words_at = layout_device(side)
    bitmap = (cells + 31) // 32
    hist = signed[hist_at:hist_at + BATCH * side]
    in_conflict = words32[conflicting_at:conflicting_at + bitmap]
    flagged = words32[flags_at:flags_at + bitmap]
    boxes = words32[boxes_at:boxes_at + side]
    batch = words32[BATCH_WORD:BATCH_WORD + BATCH]
    words = halves[words_at:words_at + cells]

    config, counts, memory = state.config[row], state.counts[row], state.memory[row]
    free_cells, free_index, candidates = tables.free_cells[puzzle], tables.free_index[puzzle], tables.candidates[puzzle]
    n_free = int32(tables.n_free[puzzle])
    width = int32(free_cells.shape[0])
    order = int32(boxes_order(tables.box_cells, side))
    flags_slot = LIST_BASE + width
    marks = flags_slot + width
    snapshot = marks + width * side
    journal = snapshot + width
    span, q8 = uint32(tables.tenure_span), uint32(tables.tenure_q8)
    flag_moves = uint32(tables.flag_moves)
    growth = uint32(tables.segment_growth)
    segment_cost = int32(tables.segment_cost)
    level = int32(state.level[row])
    chain_word = uint32(chain)

    # the chain's hot state into shared memory
    if t == 0:
        minima[CELL_MIN] = NONE64
        minima[DIGIT_MIN] = NONE64
        minima[PAIR_MIN] = NONE64
        signed[COUNT_WORD] = int32(memory[CONFLICTING])
    j = t
    while j < BATCH * side:
        hist[j] = 0
        j += threads
    j = t
    while j < bitmap:
        in_conflict[j] = 0
        flagged[j] = 0
        j += threads
    j = t
    while j < side:
        boxes[j] = uint32(tables.box_cells[j])
        j += threads
    j = t
    while j < cells:
        words[j] = uint16(config[j])
        j += threads
    cuda.syncthreads()
    j = t
    while j < n_free:
        cell = int32(free_cells[j])
        digit = digit_of(words, cell)
        own = int32(counts[j * side + digit])
        words[cell] = cell_word(own, digit)
        if own > 0:
            set_bit(in_conflict, cell)
        if memory[flags_slot + j] != 0:
            set_bit(flagged, cell)
        j += threads
    cuda.syncthreads()

    conflicting = int32(memory[CONFLICTING])
    best_moves_left = uint32(memory[BEST_MOVES_LEFT])
    segment_left = uint32(memory[SEGMENT_LEFT])
    journaled = uint32(memory[JOURNAL_LENGTH])
    current, best = int32(state.cost[row]), int32(state.best_cost[row])
    n_accepted = uint32(0)
    lo, hi, in_plateau, plateau, length = clock_start(move_begin, plateau_begin, plateau_length)
    for _ in range(move_end - move_begin):
        if conflicting != 0:
            w0, w1, w2, w3 = philox(lo, hi, chain_word, TAG_MOVE, key0, key1)
            v = int32(-1)
            a = int32(0)
            b = int32(0)
            change = int32(0)
            take = False
            if best_moves_left != uint32(0):
                best_moves_left = uint32(best_moves_left - uint32(1))
                # every conflicting cell (a thread takes whole bitmap words) and each of its other candidates:
                # gamma, kept in the chain's row, gives each pair's score without counting peers
                mine = NONE64
                j = t
                while j < bitmap:
                    pending = in_conflict[j]
                    while pending != uint32(0):
                        bit = int32(cuda.ffs(pending)) - 1
                        pending = pending & uint32(pending - uint32(1))
                        cell = j * 32 + bit
                        f = int32(free_index[cell])
                        held = digit_of(words, cell)
                        here = own_of(words, cell)  # gamma[f][held]: no given peer holds a candidate digit
                        row_base = int32(f * side)
                        for p in range(int32(candidates[f, 0])):
                            d = int32(candidates[f, 1 + p])
                            if d != held:
                                pair = int32(row_base + d)
                                mine = least_allowed(mine, int32(counts[pair]) - here, key(pair, w0), pair, memory,
                                                     marks + pair, lo, current, best)
                    j += threads
                offer(minima, PAIR_MIN, mine)
                cuda.syncthreads()
                got = minima[PAIR_MIN]
                if got != NONE64:
                    pair = int32(got & LOW22)
                    f = int32(uint32(pair) // uint32(side))
                    v = int32(free_cells[f])
                    a = digit_of(words, v)
                    b = int32(pair - f * side)
                    change = int32(got >> U54) - SCORE_BIAS
                    take = True
                cuda.syncthreads()  # every thread has read v's digit and the minimum before thread 0 changes them
                if t == 0:
                    minima[PAIR_MIN] = NONE64
            else:
                # the cell: flagged first, then the most conflicts, then the lowest key(f, w0)
                if t == 0:
                    minima[DIGIT_MIN] = NONE64
                mine = NONE64
                j = t
                while j < side:
                    hist[j] = 0
                    j += threads
                j = t
                while j < bitmap:
                    pending = in_conflict[j]
                    while pending != uint32(0):
                        bit = int32(cuda.ffs(pending)) - 1
                        pending = pending & uint32(pending - uint32(1))
                        cell = j * 32 + bit
                        unflagged = uint64(0) if has_bit(flagged, cell) else U1
                        packed = ((unflagged << U63) | (uint64(511 - own_of(words, cell)) << U54)
                                  | (uint64(key(free_index[cell], w0)) << U22) | uint64(cell))
                        if packed < mine:
                            mine = packed
                    j += threads
                offer(minima, CELL_MIN, mine)
                cuda.syncthreads()
                v = int32(minima[CELL_MIN] & LOW22)
                row_v, column_v, top, left = place(v, side, order)
                j = t
                while j < 3 * side:
                    p = peer_of(row_v, column_v, top, left, j, side, boxes)
                    if p >= 0:
                        cuda.atomic.add(hist, digit_of(words, p), 1)
                    j += threads
                cuda.syncthreads()
                # its digit: the fewest conflicts among those allowed, then the lowest key(d, w1)
                if t == 0:
                    minima[CELL_MIN] = NONE64
                f = int32(free_index[v])
                a = digit_of(words, v)
                here = hist[a]
                own_mark = marks + f * side + a
                own_was_tabu = tabu_at(memory, own_mark, lo)
                mine = NONE64
                j = t
                while j < int32(candidates[f, 0]):
                    d = int32(candidates[f, 1 + j])
                    if d != a:
                        mine = least_allowed(mine, hist[d] - here, key(d, w1), d, memory, marks + f * side + d, lo,
                                             current, best)
                    j += threads
                offer(minima, DIGIT_MIN, mine)
                cuda.syncthreads()
                got = minima[DIGIT_MIN]
                if got != NONE64:
                    b = int32(got & LOW22)
                    change = int32(got >> U54) - SCORE_BIAS
                    take = change <= 0 or w3 < thresholds[plateau, level, change]
                if not take:  # stuck: mark its own digit, or switch to best-move mode if it is marked already
                    if own_was_tabu:
                        best_moves_left = flag_moves
                    elif t == 0:
                        memory[own_mark] = uint32(lo + tenure(w2, span, q8, uint32(conflicting)))
                        clear_bit(flagged, v)
            if take:  # ``a``, v's digit, was read before the last barrier
                f = int32(free_index[v])
                row_v, column_v, top, left = place(v, side, order)
                if t == 0:
                    memory[marks + f * side + a] = uint32(lo + tenure(w2, span, q8, uint32(conflicting)))
                    was = own_of(words, v)
                    now = was + change  # gamma[v][b] = gamma[v][a] + the score of b
                    words[v] = cell_word(now, b)
                    clear_bit(flagged, v)
                    if was > 0 and now == 0:
                        clear_bit(in_conflict, v)
                        cuda.atomic.add(signed, COUNT_WORD, -1)
                    elif now > 0 and was == 0:
                        set_bit(in_conflict, v)
                        cuda.atomic.add(signed, COUNT_WORD, 1)
                    if journaled < uint32(width):
                        memory[journal + int32(journaled)] = uint32(f)
                j = t
                while j < 3 * side:
                    p = peer_of(row_v, column_v, top, left, j, side, boxes)
                    if p >= 0:
                        held = digit_of(words, p)
                        if held == a:
                            own = own_of(words, p) - 1
                            words[p] = cell_word(own, held)
                            if own == 0:
                                clear_bit(in_conflict, p)
                                cuda.atomic.add(signed, COUNT_WORD, -1)
                        elif held == b:
                            own = own_of(words, p) + 1
                            words[p] = cell_word(own, held)
                            set_bit(flagged, p)
                            if own == 1:
                                set_bit(in_conflict, p)
                                cuda.atomic.add(signed, COUNT_WORD, 1)
                        q = int32(free_index[p])
                        if q >= 0:  # gamma counts free peers: v left a for b
                            counts[q * side + a] -= 1
                            counts[q * side + b] += 1
                    j += threads
                current = int32(current + change)
                n_accepted = uint32(n_accepted + uint32(1))
                journaled = uint32(journaled + uint32(1)) if journaled < uint32(width) else uint32(width + 1)
            cuda.syncthreads()
            conflicting = signed[COUNT_WORD]
            if take:
                if current < best:
                    best = current
                    keep_best_block(row, move_index(lo, hi), words, cells, state)
                if current == best:
                    settle_block(memory, words, free_cells, snapshot, journal, journaled, width, n_free)
                    journaled = uint32(0)
            if segment_left != uint32(0) and best <= segment_cost:  # counted near a solution only
                segment_left = uint32(segment_left - uint32(1))
                if segment_left == uint32(0) and conflicting != 0:
                    conflicting = restart_block(memory, words, in_conflict, flagged, signed, hist, batch, counts,
                                                free_cells, free_index, snapshot, journal, journaled, width, n_free,
                                                side, order, boxes)
                    current = best
                    best_moves_left = uint32(0)
                    journaled = uint32(0)
                    segment_left = next_segment_block(memory, growth)
        lo, hi, in_plateau, plateau = clock_tick(lo, hi, in_plateau, plateau, length)

    write_back(row, memory, words, in_conflict, flagged, hist, batch, config, counts, free_cells, free_index,
               n_free, width, flags_slot, side, order, boxes, cells, state)
    if t == 0:
        memory[CONFLICTING] = uint32(conflicting)
        memory[BEST_MOVES_LEFT] = best_moves_left
        memory[SEGMENT_LEFT] = segment_left
        memory[JOURNAL_LENGTH] = journaled
        state.cost[row] = current
        state.best_cost[row] = best
        state.accepted[row] += uint64(n_accepted)


@cuda.jit(device=True)
def boxes_order(box_cells, side):
    """n, from the box table: its last entry is (n - 1, n - 1)."""
    return (box_cells[side - 1] & 255) + 1


@cuda.jit(device=True)
def keep_best_block(row, move, words, cells, state):
    """A new best cost: its grid into the chain's best configuration (every thread a share of the cells)."""
    best_config = state.best_config[row]
    j = cuda.threadIdx.x
    while j < cells:
        best_config[j] = digit_of(words, j)
        j += cuda.blockDim.x
    if cuda.threadIdx.x == 0:
        state.best_move[row] = move + 1


@cuda.jit(device=True)
def settle_block(memory, words, free_cells, snapshot, journal, journaled, width, n_free):
    """A move ended at the chain's best cost: the snapshot takes the digits of the journaled cells (of every free
    cell after an overflow); any change raises SNAPSHOT_CHANGED (every thread that sees one writes the same 1)."""
    count, everything = journal_walk(journaled, width, n_free)
    j = cuda.threadIdx.x
    while j < count:
        f = j if everything else int32(memory[journal + j])
        digit = uint32(digit_of(words, int32(free_cells[f])))
        if memory[snapshot + f] != digit:
            memory[snapshot + f] = digit
            memory[SNAPSHOT_CHANGED] = 1
        j += cuda.blockDim.x


@cuda.jit(device=True)
def restart_block(memory, words, in_conflict, flagged, signed, hist, batch, counts, free_cells, free_index, snapshot,
                  journal, journaled, width, n_free, side, order, boxes):
    """A segment ended: the snapshot's digits back in the journaled cells (every free cell's after an overflow),
    gamma and every cell's conflicts counted again, every flag up. Returns the number of conflicting cells."""
    t = cuda.threadIdx.x
    threads = cuda.blockDim.x
    cuda.syncthreads()  # the snapshot as every thread settled it
    count, everything = journal_walk(journaled, width, n_free)
    j = t
    while j < count:
        f = j if everything else int32(memory[journal + j])
        cell = int32(free_cells[f])
        words[cell] = uint16(memory[snapshot + f])
        j += threads
    j = t
    while j < (side * side + 31) // 32:
        in_conflict[j] = 0
        j += threads
    if t == 0:
        signed[COUNT_WORD] = 0
    cuda.syncthreads()
    recount_gamma(hist, batch, words, counts, free_cells, free_index, n_free, side, order, boxes)
    j = t
    while j < n_free:
        cell = int32(free_cells[j])
        digit = digit_of(words, cell)
        own = int32(counts[j * side + digit])  # no given peer holds a candidate digit: gamma counts every holder
        words[cell] = cell_word(own, digit)
        if own > 0:
            set_bit(in_conflict, cell)
            cuda.atomic.add(signed, COUNT_WORD, 1)
        set_bit(flagged, cell)
        j += threads
    cuda.syncthreads()
    return signed[COUNT_WORD]


@cuda.jit(device=True)
def next_segment_block(memory, growth):
    """The next segment's length (``tabu.next_segment``): every thread computes it from the same words, then
    thread 0 stores it after a barrier."""
    segment_moves = uint32(memory[SEGMENT_BASE])
    length = uint32(memory[SEGMENT_LENGTH])
    more = uint32(growth * segment_moves)
    if memory[SNAPSHOT_CHANGED] != 0:
        length = segment_moves
    elif length > uint32(MAX_SEGMENT - more):
        length = uint32(MAX_SEGMENT)
    else:
        length = uint32(length + more)
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        memory[SEGMENT_LENGTH] = length
        memory[SNAPSHOT_CHANGED] = 0
    return length


@cuda.jit(device=True)
def recount_gamma(hist, batch, words, counts, free_cells, free_index, n_free, side, order, boxes):
    """gamma (``counts``) of every free cell from the grid, BATCH cells at a time; the caller synchronised."""
    t = cuda.threadIdx.x
    threads = cuda.blockDim.x
    base = int32(0)
    while base < n_free:
        in_batch = min(BATCH, n_free - base)
        j = t
        while j < BATCH * side:
            hist[j] = 0
            j += threads
        j = t
        while j < in_batch:
            batch[j] = uint32(free_cells[base + j])
            j += threads
        cuda.syncthreads()
        count_peers(hist, batch, in_batch, words, side, order, boxes, free_index, True)
        j = t
        while j < in_batch * side:
            counts[base * side + j] = hist[j]
            j += threads
        cuda.syncthreads()
        base += BATCH


@cuda.jit(device=True)
def write_back(row, memory, words, in_conflict, flagged, hist, batch, config, counts, free_cells, free_index, n_free,
               width, flags_slot, side, order, boxes, cells, state):
    """The launch's end: the grid, the flags, gamma (free peers only) and the sorted conflict list back into the
    chain's row, in the one-thread layout's format."""
    t = cuda.threadIdx.x
    threads = cuda.blockDim.x
    cuda.syncthreads()
    j = t
    while j < cells:
        config[j] = digit_of(words, j)
        j += threads
    j = t
    while j < n_free:
        memory[flags_slot + j] = 1 if has_bit(flagged, int32(free_cells[j])) else 0
        j += threads
    if t == 0:
        listed = int32(0)
        for f in range(n_free):
            if own_of(words, int32(free_cells[f])) > 0:
                memory[LIST_BASE + listed] = f
                listed += 1
        for slot in range(listed, width):
            memory[LIST_BASE + slot] = 0


@cuda.jit(cache=not SIMULATOR)
def advance_cooperative_kernel(chains, chunk, tables, state):
    """One chain per block; the host launches one block per row and ``shared_bytes`` of dynamic shared memory."""
    row = cuda.blockIdx.x
    puzzle = uint32(row) // uint32(chains.per_puzzle)
    if chains.active[puzzle] != 0:
        advance_block(row, chains.bases[puzzle] + row - puzzle * chains.per_puzzle, puzzle, chains.key0,
                      chains.key1, tables, chunk.move_begin, chunk.move_end, chunk.plateau_begin,
                      chunk.plateau_length, chunk.thresholds, state)
