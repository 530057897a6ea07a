"""Move ``tabu``: a conflicting cell takes its best digit; tabu marks, configuration checking, and a
best-move mode when the chain is stuck. The large orders' local search (Sudoku as graph colouring).

The move is the local search of Sudoku-LS (Ailuras/AllDIff-LS, 2025), TabuCol's neighbourhood with its
two-step choice, rewritten for one chain per thread: every choice is a pure function of the chain's
state and of one Philox call per move, ties broken by a hash of that call's words (never by the order
of a data structure), so that the NumPy twin (``cpu_ref.sudoku.tabu``) recomputes each decision from
scratch and follows bit for bit.

State: a digit in every free cell, among its candidates (after propagation). Cost: pairs of peer cells
(same row, column or box) holding the same digit, each pair counted once; 0 exactly on solutions. A
free cell's candidates exclude its given peers' digits, so only free cells conflict.

One move (one proposal), words w0..w3 of Philox at (move, chain, TAG_MOVE):

  normal mode   the free cell v to change: among the conflicting cells whose configuration-checking flag
                is up, one with the most conflicts (ties: the lowest key(v, w0)); with no flag up, among
                all conflicting cells. Its digit: among its candidates other than its own, the one with
                the fewest conflicts that is not tabu (aspiration: a tabu digit is allowed when it takes
                the cost below the chain's best), ties: the lowest key(d, w1).
                If that digit does not worsen the cost, v takes it. If it does, the Metropolis rule
                decides (w3 against the plateau's threshold for the increase): accepted, v takes it;
                refused (or no digit allowed), v is "stuck": its own digit becomes tabu for v and its
                flag goes down, or, if its own digit was tabu already, the chain enters best-move mode.
  best-move     (the next ``flag_moves`` moves) over every conflicting cell and every other candidate
  mode          digit, allowed as above, the pair with the lowest cost change (ties: the lowest
                key(f * N + d, w0)) is taken, even when it worsens the cost (TabuCol).

Segments (Sudoku-LS's outer loop, with a pool of one configuration): the chain keeps a snapshot, the last
configuration whose cost equalled its best (updated whenever a move ends at the best cost). Every
L moves (counting the moves made while the chain has conflicts) a segment ends: the chain
returns to its snapshot, every flag goes up and best-move mode ends (Sudoku-LS also lifts every tabu mark; here
they are left to expire: their tenures, tens of moves near the best cost, are short next to a segment, and lifting
F x N marks would stall a warp's other chains). The next
segment has L moves again if the snapshot changed during this one (a new best, or another configuration at
the best cost), else ``segment_growth`` x L more than this one (Sudoku-LS:
restarts from its elite pool, 100,000 iterations, +4 x 100,000 when a search found nothing new). Measured
on Sudoku-LS itself (64x64 at 40 %, 10 instances): without these returns it needed 7-33 million
iterations, with them 0.5-4 million; its constraint weights did not matter there.
Segments count only the moves made while the chain's best cost is at most ``segment_cost`` (8; 24 from 81x81,
where a chain's best cost sits at 10-12 for millions of moves: ``default_segment_cost``): far from a
solution the best grid is no place to return to. At 64x64 with 60 % givens a chain's cost stays at 40-70 for
tens of millions of moves and then falls to 0 at once; returns to its best there kept one chain of 30,000-move
segments from solving any of five instances in 40 s, counted from cost 8 down it solved four (bench/tabu_sweep.py).
Across chains, the engine's elite pool (``gpu_sa.engine.pool``, every POOL_INTERVAL moves) gives a chain that found
nothing new a copy of a chain at the puzzle's lowest cost, its own segment fields (POOL_KEPT) kept.
L is the chain's own: chain c's is ``segment_moves[c mod R]``, a portfolio of lengths across chains, since the
best length depends on the instance (64x64 at 40 % wants 10,000-30,000 moves, 49x49 at 50 % 300,000: one chain
each, bench/tabu_sweep.py). L = 0: no segments.

When v leaves digit a: (v, a) is tabu for tenure = uniform(w2, tenure_span) + (tenure_q8 x conflicting
cells) >> 8 moves (Sudoku-LS: rand() % 10 + 0.6 x conflicting vertices); v's flag goes down and every
free peer holding v's new digit gets its flag up (configuration checking: a cell may move again once a
neighbour's move has touched it).

key(x, w): h = (x * 0x9E3779B1 mod 2^32) xor w; h = h * 0x85EBCA6B mod 2^32; h xor (h >> 16): a bijection
of x for each w, so a key never ties, and a scrambled order that changes with every move.

Per chain (f: a free cell's index in ``free_cells``, F the batch's padded number of free cells):
  config   (cells,) uint8     the grid, digits 0 .. N-1
  counts   (F*N,)  uint8      gamma[f*N + d]: free peers of f holding d (at most 3N - 2n - 1 <= 175)
  memory   (7 + 4F + F*N,) uint32:
           | conflicting cells | best-move moves left | segment moves left | segment length | journal length |
           | snapshot changed in this segment | the chain's L | sorted list of conflicting f (F, then 0s) |
           | flag of f (F): 1 = may be chosen | tabu expiry of (f, d) (F*N): the move index's low word |
           | snapshot: f's digit (F) | journal: the cells moved since the snapshot (F; length F + 1: more) |
  A mark (f, d) is tabu at move m while 1 <= (expiry - m) mod 2^32 <= MAX_TENURE, so the counter may wrap:
  an old mark can look tabu again only in a window of MAX_TENURE moves every 2^32 moves, the same on every
  backend.

Tables (``TabuTables``; per puzzle p, padded to the batch's largest):
  givens      (P, cells) int16     -1 = free (after propagation: forced cells are givens)
  free_cells  (P, F) int32         the free cells, -1 padded
  n_free      (P,) int32
  candidates  (P, F, 1 + N) uint8  | n | the candidate digits, increasing |
  peers       (P, F, 3N) int16     free peers' indices f, -1 padded
  n_peers     (P, F) int16
  free_index  (P, cells) int32     f of each free cell, -1 for a given (the cooperative layout works by cell)
  box_cells   (N,) int32           the k-th cell of a box, from its corner: (k // n) << 8 | k % n
  segment_moves (R,) uint32      chain c's segment length L: segment_moves[c mod R]
  n_values, tenure_span, tenure_q8, flag_moves, segment_growth, segment_cost   shared integers

Initial state: free cell f takes candidate (w0 * n_f) >> 32, w0 from counter (f, 0, chain, TAG_INIT)
(``sirdey``'s draw); no mark is tabu, every flag is up, normal mode; the snapshot is this grid, the
journal empty, the first segment L long.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ....engine.contract import (clock_start, clock_tick, device, item, loop_counters, native_int, note_accepted, per_puzzle,
                      set_item, store_counters, table_row)
from ....engine.rng import TAG_INIT, TAG_MOVE, philox, uniform, uniform_index

ZERO32 = np.uint32(0)
ONE32 = np.uint32(1)
NO_CELL = np.uint32(0xFFFFFFFF)
MAX_TENURE = 1 << 20  # tenures are capped here (far above any measured one: 9 + 0.6 x 4096 < 2,500)
KEY_A = np.uint32(0x9E3779B1)
KEY_B = np.uint32(0x85EBCA6B)
# memory layout: seven scalars, then the list, the flags, the marks, the snapshot and the journal (module docstring)
CONFLICTING, BEST_MOVES_LEFT, SEGMENT_LEFT, SEGMENT_LENGTH, JOURNAL_LENGTH, SNAPSHOT_CHANGED, SEGMENT_BASE = range(7)
LIST_BASE = 7
# Sudoku-LS's constants: tenure rand() % 10 + 0.6 x conflicting vertices; 100 best-move moves
TENURE_SPAN = 10
TENURE_Q8 = 154  # 0.6 x 256, rounded
FLAG_MOVES = 100
# Sudoku-LS's alpha3 (the growth of a segment that found nothing new) and, around its max_iter (100,000), the
# segment lengths of chains 0, 1, 2, 3, 0, ...: one chain each, 300,000 was the only length that did well in every
# cell swept (64x64 40 %, 49x49 50 %, 36x36 50 %), 30,000 the best at 64x64 40 %, 1,000,000 at 36x36 50 %
# (bench/tabu_sweep.py --segment-moves); a CPU's two default chains take the first two
SEGMENT_MOVES = (300_000, 30_000, 1_000_000, 100_000)
SEGMENT_GROWTH = 4
SEGMENT_COST = 8  # segments count moves only while the chain's best cost is at most this (module docstring)
# From 81x81 (order 9) a chain's best cost sits at 10-12 for millions of moves, above 8, and never returns to its
# snapshot: counted from 24 down, 100x100 at 40 % (Sudoku-LS's 20-22) solved in 7-11 s each against 1 of 3 within
# 300 s, and an 81x81 at 50 % that neither we nor Sudoku-LS solved in 300 s took 39 s (bench/large.py)
SEGMENT_COST_FROM_ORDER_9 = 24


def default_segment_cost(order: int) -> int:
    """The segment gate of a grid of ``order`` (``SEGMENT_COST``, ``SEGMENT_COST_FROM_ORDER_9``)."""
    return SEGMENT_COST_FROM_ORDER_9 if order >= 9 else SEGMENT_COST
# The chains' elite pool (gpu_sa.engine.pool): every POOL_INTERVAL moves a chain that found nothing new and sits
# above the puzzle's lowest best cost takes a copy of a chain at it, keeping its own segment lengths (POOL_KEPT).
# Two chains on two cores, 64x64 at 50 %, Sudoku-LS's 20-29, 60 s: 8 of 10 solved against 5 alone (bench/large.py);
# 2,000,000 moves is the one interval measured (bench/cooperate.py)
POOL_INTERVAL = 2_000_000
POOL_KEPT = (SEGMENT_LEFT, SEGMENT_LENGTH, SEGMENT_BASE)
MAX_SEGMENT = 1 << 30  # segment lengths stop growing here (uint32 arithmetic)
# Its default schedule (t0, t_end, plateaus): a constant temperature for the normal mode's Metropolis test, over a
# trial long enough that restarts are rare (T swept by bench/tabu_sweep.py --temperature)
SCHEDULE = (0.15, 0.15, 1_000_000)


class TabuTables(NamedTuple):
    givens: np.ndarray
    free_cells: np.ndarray
    n_free: np.ndarray
    candidates: np.ndarray
    peers: np.ndarray
    n_peers: np.ndarray
    free_index: np.ndarray
    box_cells: np.ndarray
    n_values: int
    tenure_span: int
    tenure_q8: int
    flag_moves: int
    segment_moves: np.ndarray
    segment_growth: int
    segment_cost: int
    SHARED = ("box_cells", "n_values", "tenure_span", "tenure_q8", "flag_moves", "segment_moves", "segment_growth", "segment_cost")


def memory_size(free: int, side: int) -> int:
    return LIST_BASE + 4 * free + free * side


def tables(givens: np.ndarray, masks: np.ndarray, order: int, *, tenure_span: int | None = None,
           tenure_q8: int | None = None, flag_moves: int | None = None, segment_moves=None,
           segment_growth: int | None = None, segment_cost: int | None = None) -> TabuTables:
    """One puzzle's tables from its givens (forced cells included, -1 free) and candidates: a bitmask per cell
    ((cells,) uint64, N <= 64), or a (cells, N) boolean array (any order). A free cell's candidates lose its given
    peers' digits (without propagation the masks hold every digit). Whole-array work (a loop over the free cells
    took 80 ms at 64x64, inside ``auto``'s clock)."""
    lengths = np.atleast_1d(np.asarray(SEGMENT_MOVES if segment_moves is None else segment_moves, dtype=np.int64))
    segment_growth = SEGMENT_GROWTH if segment_growth is None else int(segment_growth)
    segment_cost = default_segment_cost(order) if segment_cost is None else int(segment_cost)
    if not (lengths.ndim == 1 and lengths.size and (lengths >= 0).all() and (lengths < 1 << 24).all()
            and 0 <= segment_growth < 1 << 6 and 0 <= segment_cost < 1 << 30):
        raise ValueError(f"segment_moves must be one or more lengths in 0 .. 2**24 - 1, segment_growth in 0 .. 63 and "
                         f"segment_cost in 0 .. 2**30 - 1 (got {lengths.tolist()}, {segment_growth}, {segment_cost})")
    side = order * order
    givens = np.asarray(givens)
    free = np.flatnonzero(givens < 0).astype(np.int32)
    width = free.size
    rows, columns = free // side, free % side
    boxes = (rows // order) * order + columns // order
    cells = np.flatnonzero(givens >= 0)
    digits = givens[cells].astype(np.int64)
    given_rows, given_columns = cells // side, cells % side
    given_boxes = (given_rows // order) * order + given_columns // order
    held = np.zeros((3, side, side), dtype=bool)  # [row, column, box][unit][digit]: a given holds it
    held[0, given_rows, digits] = held[1, given_columns, digits] = held[2, given_boxes, digits] = True
    masks = np.asarray(masks)
    if masks.ndim == 2:
        bits = masks[free].astype(bool)
    else:
        bits = (masks.astype(np.uint64)[free][:, None] >> np.arange(side, dtype=np.uint64)) & np.uint64(1) != 0
    allowed = bits & ~held[0, rows] & ~held[1, columns] & ~held[2, boxes]
    counts = allowed.sum(axis=1)
    if width and counts.min() == 0:
        r, c = divmod(int(free[np.argmin(counts)]), side)
        raise ValueError(f"cell r{r + 1}c{c + 1} has no possible digit: the puzzle has no solution")
    candidates = np.zeros((width, 1 + side), dtype=np.uint8)
    candidates[:, 0] = counts
    ascending = np.argsort(~allowed, axis=1, kind="stable")  # each cell's allowed digits first, increasing
    candidates[:, 1:] = np.where(np.arange(side)[None, :] < counts[:, None], ascending, 0)
    # peers: the free cells of each cell's row, column and box (itself and repeats out), increasing, -1 padded
    gathered = np.concatenate([_unit_members(keys, side, width)[keys] for keys in (rows, columns, boxes)], axis=1)
    gathered[gathered == np.arange(width)[:, None]] = width
    gathered.sort(axis=1)
    repeated = np.zeros_like(gathered, dtype=bool)
    repeated[:, 1:] = gathered[:, 1:] == gathered[:, :-1]
    gathered[repeated] = width
    gathered.sort(axis=1)
    n_peers = (gathered < width).sum(axis=1).astype(np.int16)
    peers = np.where(gathered < width, gathered, -1).astype(np.int16)
    free_index = np.full(givens.size, -1, dtype=np.int32)
    free_index[free] = np.arange(width, dtype=np.int32)
    k = np.arange(side, dtype=np.int32)
    return TabuTables(givens=per_puzzle(givens, np.int16), free_cells=per_puzzle(free, np.int32),
                      n_free=np.array([width], dtype=np.int32), candidates=per_puzzle(candidates, np.uint8),
                      peers=per_puzzle(peers, np.int16), n_peers=per_puzzle(n_peers, np.int16),
                      free_index=per_puzzle(free_index, np.int32), box_cells=(k // order) << 8 | k % order,
                      n_values=side,
                      tenure_span=int(TENURE_SPAN if tenure_span is None else tenure_span),
                      tenure_q8=int(TENURE_Q8 if tenure_q8 is None else tenure_q8),
                      flag_moves=int(FLAG_MOVES if flag_moves is None else flag_moves),
                      segment_moves=lengths.astype(np.uint32), segment_growth=segment_growth,
                      segment_cost=segment_cost)


def _unit_members(keys: np.ndarray, side: int, width: int) -> np.ndarray:
    """(side, side): unit u's free cells (their indices f, increasing), padded with ``width``; ``keys[f]`` = f's unit."""
    members = np.full((side, side), width, dtype=np.int64)
    by_unit = np.argsort(keys, kind="stable")
    starts = np.concatenate([[0], np.cumsum(np.bincount(keys, minlength=side))[:-1]])
    members[keys[by_unit], np.arange(width) - starts[keys[by_unit]]] = by_unit
    return members


@device
def key(x, w):
    """The tie-break order of move words ``w`` (see the module docstring): uint32 arithmetic throughout."""
    h = np.uint32(np.uint32(np.uint32(x) * KEY_A) ^ w)
    h = np.uint32(h * KEY_B)
    return np.uint32(h ^ (h >> np.uint32(16)))


@device
def is_tabu(memory, mark, lo):
    """Whether the mark at slot ``mark`` forbids its (cell, digit) at the move whose low counter word is ``lo``."""
    left = np.uint32(np.uint32(item(memory, mark)) - lo)
    return left != ZERO32 and left <= np.uint32(MAX_TENURE)


@device
def tenure(w2, span, q8, conflicting):
    return np.uint32(min(np.uint32(uniform_index(w2, span) + ((q8 * conflicting) >> np.uint32(8))),
                         np.uint32(MAX_TENURE)))


@device
def list_insert(memory, n, f):
    """Insert free cell ``f`` into the sorted list of ``n`` conflicting cells; returns n + 1."""
    at = np.uint32(LIST_BASE + n)
    while at > np.uint32(LIST_BASE) and np.uint32(item(memory, np.uint32(at - ONE32))) > f:
        set_item(memory, at, item(memory, np.uint32(at - ONE32)))
        at = np.uint32(at - ONE32)
    set_item(memory, at, f)
    return np.uint32(n + ONE32)


@device
def list_remove(memory, n, f):
    """Remove ``f`` from the sorted list; the freed last slot reads 0 again. Returns n - 1."""
    at = np.uint32(LIST_BASE)
    while np.uint32(item(memory, at)) != f:
        at = np.uint32(at + ONE32)
    end = np.uint32(LIST_BASE + n - ONE32)
    while at < end:
        set_item(memory, at, item(memory, np.uint32(at + ONE32)))
        at = np.uint32(at + ONE32)
    set_item(memory, end, 0)
    return np.uint32(n - ONE32)


@device
def start_chain(row, chain, puzzle, key0, key1, tables, state):
    config, gamma, memory = state.config, state.counts, state.memory
    givens, free_cells, candidates, peers = tables.givens, tables.free_cells, tables.candidates, tables.peers
    n_values = tables.n_values
    width = free_cells.shape[1]
    n_free = tables.n_free[puzzle]
    for cell in range(givens.shape[1]):
        if givens[puzzle, cell] >= 0:
            config[row, cell] = givens[puzzle, cell]
    for f in range(n_free):
        w0, w1, w2, w3 = philox(np.uint32(f), ZERO32, np.uint32(chain), TAG_INIT, key0, key1)
        config[row, free_cells[puzzle, f]] = candidates[puzzle, f, 1 + uniform(w0, candidates[puzzle, f, 0])]
    for slot in range(gamma.shape[1]):
        gamma[row, slot] = 0
    for slot in range(memory.shape[1]):
        memory[row, slot] = 0
    for f in range(n_free):
        for q in range(tables.n_peers[puzzle, f]):
            slot = f * n_values + int(config[row, free_cells[puzzle, peers[puzzle, f, q]]])
            gamma[row, slot] = gamma[row, slot] + 1
    conflicting = 0
    twice = 0
    snapshot = LIST_BASE + 2 * width + width * n_values
    for f in range(n_free):
        held = int(config[row, free_cells[puzzle, f]])
        own = int(gamma[row, f * n_values + held])
        twice += own
        if own > 0:
            memory[row, LIST_BASE + conflicting] = f
            conflicting += 1
        memory[row, LIST_BASE + width + f] = 1
        memory[row, snapshot + f] = held
    memory[row, CONFLICTING] = conflicting
    length = tables.segment_moves[chain % tables.segment_moves.shape[0]]
    memory[row, SEGMENT_LEFT] = length
    memory[row, SEGMENT_LENGTH] = length
    memory[row, SEGMENT_BASE] = length
    return twice // 2


@device
def move_cell(config, gamma, memory, free_cells, peers, n_peers, n_values, flags, v, a, b, conflicting):
    """Free cell v goes from digit a to b: gamma of its peers, the conflict list, the flags. Returns the
    number of conflicting cells after it."""
    set_item(config, np.uint32(item(free_cells, v)), b)
    row_v = np.uint32(v * n_values)
    was = item(gamma, np.uint32(row_v + a)) != 0
    now = item(gamma, np.uint32(row_v + b)) != 0
    if was and not now:
        conflicting = list_remove(memory, conflicting, v)
    elif now and not was:
        conflicting = list_insert(memory, conflicting, v)
    set_item(memory, np.uint32(flags + v), 0)
    neighbours = table_row(peers, v)
    q = ZERO32
    count = np.uint32(item(n_peers, v))
    while q < count:
        c = np.uint32(item(neighbours, q))
        row_c = np.uint32(c * n_values)
        held = np.uint32(item(config, np.uint32(item(free_cells, c))))
        slot_a = np.uint32(row_c + a)
        slot_b = np.uint32(row_c + b)
        left = np.uint32(np.uint32(item(gamma, slot_a)) - ONE32)
        set_item(gamma, slot_a, left)
        entered = np.uint32(np.uint32(item(gamma, slot_b)) + ONE32)
        set_item(gamma, slot_b, entered)
        if held == a:
            if left == ZERO32:
                conflicting = list_remove(memory, conflicting, c)
        elif held == b:
            set_item(memory, np.uint32(flags + c), 1)
            if entered == ONE32:
                conflicting = list_insert(memory, conflicting, c)
        q = np.uint32(q + ONE32)
    return conflicting


@device
def journal_count(journaled, width, n_free):
    """The cells moved since the snapshot, to walk with ``journal_cell``: the journal's, or, after an overflow
    (length width + 1), every free cell's: (count, whether every free cell)."""
    everything = journaled > width
    return (np.uint32(n_free) if everything else journaled), everything


@device
def journal_cell(memory, journal, j, everything):
    return j if everything else np.uint32(item(memory, np.uint32(journal + j)))


@device
def settle_snapshot(config, memory, free_cells, snapshot, journal, journaled, width, n_free):
    """A move ended at the chain's best cost: the snapshot takes the digits of the journaled cells (of every free
    cell when the journal overflowed). Returns 1 if one of them changed, else 0."""
    count, everything = journal_count(journaled, width, n_free)
    changed = ZERO32
    j = ZERO32
    while j < count:
        f = journal_cell(memory, journal, j, everything)
        digit = np.uint32(item(config, np.uint32(item(free_cells, f))))
        slot = np.uint32(snapshot + f)
        if np.uint32(item(memory, slot)) != digit:
            set_item(memory, slot, digit)
            changed = ONE32
        j = np.uint32(j + ONE32)
    return changed


@device
def restart_segment(config, gamma, memory, free_cells, peers, n_peers, n_values, flags, snapshot, journal,
                    journaled, width, n_free, conflicting):
    """A segment ended: back to the snapshot (the journaled cells, or every free cell after an overflow, move
    back one by one, so that gamma and the conflict list stay incremental), every flag up. Returns the number of
    conflicting cells."""
    count, everything = journal_count(journaled, width, n_free)
    j = ZERO32
    while j < count:
        f = journal_cell(memory, journal, j, everything)
        a = np.uint32(item(config, np.uint32(item(free_cells, f))))
        kept = np.uint32(item(memory, np.uint32(snapshot + f)))
        if a != kept:
            conflicting = move_cell(config, gamma, memory, free_cells, peers, n_peers, n_values, flags, f, a, kept,
                                    conflicting)
        j = np.uint32(j + ONE32)
    f = ZERO32
    while f < np.uint32(n_free):
        set_item(memory, np.uint32(flags + f), 1)
        f = np.uint32(f + ONE32)
    return conflicting


@device
def next_segment(memory, growth):
    """The next segment's length (see the module docstring), stored with a fresh "snapshot changed" flag. The
    chain's L is read from its memory (a register less in the move loop)."""
    segment_moves = np.uint32(item(memory, SEGMENT_BASE))
    length = np.uint32(item(memory, SEGMENT_LENGTH))
    more = np.uint32(growth * segment_moves)
    if item(memory, SNAPSHOT_CHANGED) != 0:
        length = segment_moves
    elif length > np.uint32(MAX_SEGMENT - more):
        length = np.uint32(MAX_SEGMENT)
    else:
        length = np.uint32(length + more)
    set_item(memory, SEGMENT_LENGTH, length)
    set_item(memory, SNAPSHOT_CHANGED, 0)
    return length


@device
def advance_chain(row, chain, puzzle, key0, key1, tables, move_begin, move_end, plateau_begin, plateau_length,
                  thresholds, state):
    # uint32 indices throughout (see ``sirdey.advance_chain``)
    row = np.uint32(row)
    config, gamma, memory = state.config[row], state.counts[row], state.memory[row]
    free_cells, candidates = tables.free_cells[puzzle], tables.candidates[puzzle]
    peers, n_peers = tables.peers[puzzle], tables.n_peers[puzzle]
    n_values = np.uint32(tables.n_values)
    span, q8 = np.uint32(tables.tenure_span), np.uint32(tables.tenure_q8)
    flag_moves = np.uint32(tables.flag_moves)
    growth = np.uint32(tables.segment_growth)
    segment_cost = np.int32(tables.segment_cost)
    n_free = tables.n_free[puzzle]
    width = np.uint32(free_cells.shape[0])
    flags = np.uint32(LIST_BASE + width)  # slot of f's flag: flags + f
    marks = np.uint32(flags + width)  # slot of (f, d)'s mark: marks + f * N + d
    snapshot = np.uint32(marks + width * n_values)  # slot of f's digit in the snapshot: snapshot + f
    journal = np.uint32(snapshot + width)
    chain_word = np.uint32(chain)
    level = np.uint32(state.level[row])
    conflicting = np.uint32(item(memory, CONFLICTING))
    best_moves_left = np.uint32(item(memory, BEST_MOVES_LEFT))
    segment_left = np.uint32(item(memory, SEGMENT_LEFT))
    journaled = np.uint32(item(memory, JOURNAL_LENGTH))
    current, best, n_accepted = loop_counters(row, state)
    lo, hi, in_plateau, plateau, length = clock_start(move_begin, plateau_begin, plateau_length)
    for _ in range(np.int32(move_end - move_begin)):
        if conflicting != ZERO32:
            w0, w1, w2, w3 = philox(lo, hi, chain_word, TAG_MOVE, key0, key1)
            v = NO_CELL
            b = ZERO32
            change = native_int(0)
            take = False
            if best_moves_left != ZERO32:
                best_moves_left = np.uint32(best_moves_left - ONE32)
                lowest_key = NO_CELL
                q = ZERO32
                while q < conflicting:
                    f = np.uint32(item(memory, np.uint32(LIST_BASE + q)))
                    row_f = np.uint32(f * n_values)
                    a = np.uint32(item(config, np.uint32(item(free_cells, f))))
                    here = native_int(item(gamma, np.uint32(row_f + a)))
                    digits = table_row(candidates, f)
                    p = ONE32
                    n = np.uint32(np.uint32(item(digits, 0)) + ONE32)
                    while p < n:
                        d = np.uint32(item(digits, p))
                        score = native_int(native_int(item(gamma, np.uint32(row_f + d))) - here)
                        if d != a and (v == NO_CELL or score <= change):
                            if (not is_tabu(memory, np.uint32(marks + row_f + d), lo)
                                    or native_int(current + score) < best):
                                tie = key(np.uint32(row_f + d), w0)
                                if v == NO_CELL or score < change or tie < lowest_key:
                                    v, b, change, lowest_key = f, d, score, tie
                        p = np.uint32(p + ONE32)
                    q = np.uint32(q + ONE32)
                take = v != NO_CELL
            else:
                most = native_int(-1)
                lowest_key = NO_CELL
                for any_cell in range(2):  # first the cells whose flag is up, then, if none, every one
                    q = ZERO32
                    while q < conflicting:
                        f = np.uint32(item(memory, np.uint32(LIST_BASE + q)))
                        if any_cell == 1 or item(memory, np.uint32(flags + f)) != 0:
                            own = native_int(item(gamma, np.uint32(
                                f * n_values + np.uint32(item(config, np.uint32(item(free_cells, f)))))))
                            if own >= most:
                                tie = key(f, w0)
                                if own > most or tie < lowest_key:
                                    v, most, lowest_key = f, own, tie
                        q = np.uint32(q + ONE32)
                    if v != NO_CELL:
                        break
                row_v = np.uint32(v * n_values)
                a = np.uint32(item(config, np.uint32(item(free_cells, v))))
                here = native_int(item(gamma, np.uint32(row_v + a)))
                digits = table_row(candidates, v)
                found = False
                lowest_key = NO_CELL
                p = ONE32
                n = np.uint32(np.uint32(item(digits, 0)) + ONE32)
                while p < n:
                    d = np.uint32(item(digits, p))
                    score = native_int(native_int(item(gamma, np.uint32(row_v + d))) - here)
                    if d != a and (not found or score <= change):
                        if not is_tabu(memory, np.uint32(marks + row_v + d), lo) or native_int(current + score) < best:
                            tie = key(d, w1)
                            if not found or score < change or tie < lowest_key:
                                b, change, lowest_key, found = d, score, tie, True
                    p = np.uint32(p + ONE32)
                # a recolouring changes the cost by at most the cell's peers: within the table (max_delta)
                take = found and (change <= 0 or w3 < thresholds[np.uint32(plateau), level, np.uint32(change)])
                if not take:  # stuck: mark its own digit, or switch to best-move mode if it is marked already
                    own_mark = np.uint32(marks + row_v + a)
                    if is_tabu(memory, own_mark, lo):
                        best_moves_left = flag_moves
                    else:
                        set_item(memory, own_mark, np.uint32(lo + tenure(w2, span, q8, conflicting)))
                        set_item(memory, np.uint32(flags + v), 0)
            if take:
                a = np.uint32(item(config, np.uint32(item(free_cells, v))))
                set_item(memory, np.uint32(marks + v * n_values + a), np.uint32(lo + tenure(w2, span, q8, conflicting)))
                conflicting = move_cell(config, gamma, memory, free_cells, peers, n_peers, n_values, flags, v, a, b,
                                        conflicting)
                current = np.int32(current + change)
                best, n_accepted = note_accepted(row, current, best, n_accepted, lo, hi, state)
                if journaled < width:
                    set_item(memory, np.uint32(journal + journaled), v)
                    journaled = np.uint32(journaled + ONE32)
                else:
                    journaled = np.uint32(width + ONE32)
                if current == best:
                    if settle_snapshot(config, memory, free_cells, snapshot, journal, journaled, width, n_free) != 0:
                        set_item(memory, SNAPSHOT_CHANGED, 1)
                    journaled = ZERO32
            if segment_left != ZERO32 and best <= segment_cost:  # counted near a solution only
                segment_left = np.uint32(segment_left - ONE32)
                if segment_left == ZERO32 and conflicting != ZERO32:
                    conflicting = restart_segment(config, gamma, memory, free_cells, peers, n_peers, n_values, flags,
                                                  snapshot, journal, journaled, width, n_free, conflicting)
                    current = best
                    best_moves_left = ZERO32
                    journaled = ZERO32
                    segment_left = next_segment(memory, growth)
        lo, hi, in_plateau, plateau = clock_tick(lo, hi, in_plateau, plateau, length)
    set_item(memory, CONFLICTING, conflicting)
    set_item(memory, BEST_MOVES_LEFT, best_moves_left)
    set_item(memory, SEGMENT_LEFT, segment_left)
    set_item(memory, JOURNAL_LENGTH, journaled)
    store_counters(row, current, best, n_accepted, state)
