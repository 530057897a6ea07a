"""Plain-NumPy twin of move ``swap`` (Lewis 2007): every chain advanced together.

Written apart from ``gpu_sa/puzzles/sudoku/moves/swap.py``; shares only the tables and the acceptance
table. Counts: | rows N x N | columns N x N |; cost = digits missing from them. The partner is the
other free cell of a drawn rank; when the puzzle's candidates restrict swaps, 7 proposals in 8 (word 1's
three lowest bits not all 0) take instead the nearest legal partner from that rank on, cyclically
(the module docstring of ``gpu_sa/puzzles/sudoku/moves/swap.py`` says why not always). The initial fill is
repaired into a candidate-respecting matching by a recursive Kuhn search (the product's is iterative).
"""
from __future__ import annotations

import numpy as np

from .. import rng
from ..chains import accepts, record_accepted, row_chains, seed_of, start_bookkeeping, walk

LOOK_MASK = np.uint32(7)  # word 1's bits: a proposal looks for a legal partner when one of them is set


def _bit(masks, digits):
    return ((masks.astype(np.uint64) >> digits.astype(np.uint64)) & np.uint64(1)).astype(bool)


def _repair(grid_row, cells, masks_row):
    """Reassign the digits of ``cells`` (one box) so each holds a candidate where a matching allows."""
    k = len(cells)
    digits = [int(grid_row[c]) for c in cells]
    legal = [[(int(masks_row[cells[s]]) >> d) & 1 == 1 for d in range(64)] for s in range(k)]
    owner = {d: None for d in digits}  # the box's missing digits; None = nobody holds it legally
    matched = [None] * k
    for s, d in enumerate(digits):
        if legal[s][d]:
            owner[d], matched[s] = s, d

    def augment(s, visited):
        for d in sorted(owner):
            if legal[s][d] and d not in visited:
                visited.add(d)
                if owner[d] is None or augment(owner[d], visited):
                    owner[d], matched[s] = s, d
                    return True
        return False

    for s in range(k):
        if matched[s] is None:
            augment(s, set())
    spare = iter(sorted(d for d, s in owner.items() if s is None))
    for s in range(k):
        grid_row[cells[s]] = matched[s] if matched[s] is not None else next(spare)


def init_chains(chains, tables, state):
    puzzles, chain_ids, _ = row_chains(chains, state.cost.shape[0])
    seed = seed_of(chains)
    side = tables.n_values
    order = tables.order
    rows = np.arange(state.cost.shape[0])
    givens = tables.givens[puzzles]
    grid = np.where(givens >= 0, givens, 0).astype(np.uint8)
    for b in range(side):
        r0, c0 = (b // order) * order, (b % order) * order
        box_cells = [(r0 + i) * side + c0 + j for i in range(order) for j in range(order)]
        for p in np.unique(puzzles):
            here = rows[puzzles == p]
            k = tables.boxes[p, b, 0]
            free = tables.boxes[p, b, 1:1 + k]
            held = {int(tables.givens[p, c]) for c in box_cells if tables.givens[p, c] >= 0}
            grid[np.ix_(here, free)] = np.array([d for d in range(side) if d not in held], dtype=np.uint8)
            for i in range(k - 1, 0, -1):
                words = rng.stream_words(np.uint64(b * side + i), chain_ids[here], rng.TAG_INIT, seed)
                j = rng.uniform_below(words[0], i + 1)
                a, c = free[i], free[j]
                keep = grid[here, a].copy()
                grid[here, a] = grid[here, c]
                grid[here, c] = keep
            if tables.restricted[p]:
                for r in here:
                    _repair(grid[r], list(free), tables.masks[p])
    state.config[...] = grid
    r, c = np.divmod(np.arange(grid.shape[1]), side)
    counts = np.zeros(state.counts.shape, dtype=np.int64)
    for cell in range(grid.shape[1]):
        np.add.at(counts, (rows, r[cell] * side + grid[:, cell]), 1)
        np.add.at(counts, (rows, (side + c[cell]) * side + grid[:, cell]), 1)
    state.counts[...] = counts
    state.cost[...] = (counts == 0).sum(axis=1)
    start_bookkeeping(state, chains)


def _missing_change(counts, rows, bases, removed, added, moves):
    """Per chain: change of missing digits in unit ``bases`` (only where ``moves``)."""
    change = (counts[rows, bases + removed] == 1).astype(np.int64) - (counts[rows, bases + added] == 0)
    return np.where(moves, change, 0)


def _partners(rows, puzzles, box, k, i, x, rank, look, tables, config):
    """Slot of each row's partner: the other free cell of rank ``rank`` (ranks number the box's free cells
    other than i in box order), or, where ``look`` (restricted puzzles, 7 proposals in 8), the first cell
    from that rank on, cyclically, whose swap with a keeps both cells within their candidates (the rank's own
    cell when there is none)."""
    width = tables.movable.shape[2] - 1
    slots = np.arange(width)[None, :]
    cells = tables.movable[puzzles, box, 1:].astype(np.int64)  # (rows, width), -1 padded
    held = config[rows[:, None], np.maximum(cells, 0)].astype(np.int64)
    other = (slots < k[:, None]) & (slots != i[:, None])
    a = cells[np.arange(rows.size), i]
    legal = other & _bit(tables.masks[puzzles, a][:, None], held) & _bit(
        tables.masks[puzzles[:, None], np.maximum(cells, 0)], np.broadcast_to(x[:, None], cells.shape))
    slot_rank = slots - (slots > i[:, None])  # each other cell's rank
    ahead = (slot_rank - rank[:, None]) % np.maximum(k - 1, 1)[:, None]  # steps from the drawn rank
    ahead = np.where(legal, ahead, width)
    found = legal.any(axis=1) & look
    plain = rank + (rank >= i)
    return np.where(found, np.argmin(ahead, axis=1), plain)


def advance_chains(chains, chunk, tables, state):
    seed = seed_of(chains)
    side = tables.n_values

    def step(move, rows, chain_ids, puzzles, thresholds):
        w_box, w_first, w_second, w_accept = rng.stream_words(np.uint64(move), chain_ids, rng.TAG_MOVE, seed)
        box = rng.uniform_below(w_box, tables.n_movable[puzzles])
        k = tables.movable[puzzles, box, 0].astype(np.int64)
        i = rng.uniform_below(w_first, k)
        a = tables.movable[puzzles, box, 1 + i].astype(np.int64)
        x = state.config[rows, a].astype(np.int64)
        rank = rng.uniform_below(w_second, k - 1)
        look = (tables.restricted[puzzles] != 0) & ((w_first & LOOK_MASK) != 0)
        j = _partners(rows, puzzles, box, k, i, x, rank, look, tables, state.config)
        c = tables.movable[puzzles, box, 1 + j].astype(np.int64)
        y = state.config[rows, c].astype(np.int64)
        row_a, column_a = np.divmod(a, side)
        row_c, column_c = np.divmod(c, side)
        rows_move = row_a != row_c
        columns_move = column_a != column_c
        counts = state.counts
        delta = (_missing_change(counts, rows, row_a * side, x, y, rows_move)
                 + _missing_change(counts, rows, row_c * side, y, x, rows_move)
                 + _missing_change(counts, rows, (side + column_a) * side, x, y, columns_move)
                 + _missing_change(counts, rows, (side + column_c) * side, y, x, columns_move))
        accept = accepts(delta, w_accept, thresholds)
        taken = rows[accept]
        if taken.size == 0:
            return
        a, c, x, y = a[accept], c[accept], x[accept], y[accept]
        state.config[taken, a] = y
        state.config[taken, c] = x
        for moves, base_a, base_c in ((rows_move[accept], row_a[accept] * side, row_c[accept] * side),
                                      (columns_move[accept], (side + column_a[accept]) * side,
                                       (side + column_c[accept]) * side)):
            t = taken[moves]
            # four distinct slots per chain: two units, two digits
            counts[t, base_a[moves] + x[moves]] -= np.uint8(1)
            counts[t, base_a[moves] + y[moves]] += np.uint8(1)
            counts[t, base_c[moves] + y[moves]] -= np.uint8(1)
            counts[t, base_c[moves] + x[moves]] += np.uint8(1)
        record_accepted(state, taken, delta[accept], move)

    walk(chains, chunk, state, step)
