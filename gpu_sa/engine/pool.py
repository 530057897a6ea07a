"""Chains that cooperate on one puzzle: an elite pool of the grids at the puzzle's lowest cost, shared by its chains.

Every ``interval`` moves (at absolute move indices m = r * interval, r >= 1: round r), in each active puzzle, a
chain that found nothing new during the round takes a copy of a chain at the puzzle's lowest cost:

    the puzzle's rows [f, f + R); low = the lowest best cost among them
    row t is a target  iff  0 < low < best_cost[t]  and  best_move[t] <= (r - 1) * interval
                            (its best is above the pool's and was reached before the round began; a solved
                            puzzle's chains are left as they are, so the chain reported does not depend on
                            where the runner's chunks end)
    its source:        the k-th row (in row order) whose best cost is low, k = (w0 * n) >> 32, n = how many rows
                       are at low, w0 = word 0 of Philox at counter (r, 0, chain of t, TAG_POOL)
    the copy:          the source's config, counts, cost, best cost, best configuration, best move and search
                       memory, except the memory slots the move keeps per chain (``AnnealMove.pool_kept``: move
                       tabu's segment lengths, so a puzzle's chains keep their portfolio); accepted, level and
                       exchanges stay the target's

A source is at the lowest cost and a target above it, so no row is both: the copies read states that none of them
writes, and the order they are made in changes nothing. The target then goes on with its own random stream (its
chain index), so the copy and the original part at the next move. Decisions are counts and Philox words, never
timing, so every backend makes the same copies; chains that lowered their best cost in the round keep theirs.

Sudoku-LS keeps one chain's elite pool (the configurations at its best cost, up to 50, a restart drawn from it
when a search found nothing new); here the pool is the puzzle's chains themselves: what one chain found (a grid a
few conflicts from a solution) is not lost to the others. bench/cooperate.py measures it against the chains alone.
"""
from __future__ import annotations

import numpy as np

from .contract import device
from .rng import philox, uniform

TAG_POOL = np.uint32(0x504F4F4C)  # "POOL"
NO_POOL = np.int64(1 << 62)  # a pool interval no run reaches: chains alone
NO_SOURCE = -1


def pieces(chunk):
    """The chunk cut at its pool rounds: (piece, round index r at the piece's end, or 0). Each piece's thresholds
    start at its own first plateau."""
    interval = int(chunk.pool_interval)
    begin, end = int(chunk.move_begin), int(chunk.move_end)
    if interval >= int(NO_POOL) or begin >= end:  # a zero-move launch too: it compiles the advance code
        yield chunk, 0
        return
    length, first = int(chunk.plateau_length), int(chunk.plateau_begin)
    while begin < end:
        piece_end = min(end, (begin // interval + 1) * interval)
        plateau, stop = begin // length, (piece_end - 1) // length + 1
        piece = chunk._replace(move_begin=np.int64(begin), move_end=np.int64(piece_end),
                               plateau_begin=np.int64(plateau),
                               thresholds=np.ascontiguousarray(chunk.thresholds[plateau - first:stop - first]))
        yield piece, (piece_end // interval if piece_end % interval == 0 else 0)
        begin = piece_end


@device
def pool_source(row, first_row, per_puzzle, chain, round_index, interval, key0, key1, best_cost, best_move):
    """The row that ``row`` copies at round ``round_index`` (module docstring), or NO_SOURCE."""
    low = best_cost[first_row]
    for other in range(first_row + 1, first_row + per_puzzle):
        low = min(low, best_cost[other])
    if low == 0 or best_cost[row] <= low or best_move[row] > (round_index - 1) * interval:
        return NO_SOURCE
    at_low = 0
    for other in range(first_row, first_row + per_puzzle):
        if best_cost[other] == low:
            at_low += 1
    w0, w1, w2, w3 = philox(np.uint32(round_index & 0xFFFFFFFF), np.uint32(round_index >> 32), np.uint32(chain),
                            TAG_POOL, key0, key1)
    k = uniform(w0, at_low)
    for other in range(first_row, first_row + per_puzzle):
        if best_cost[other] == low:
            if k == 0:
                return other
            k -= 1
    return NO_SOURCE


@device
def is_kept(slot, kept):
    for k in range(kept.shape[0]):
        if kept[k] == slot:
            return True
    return False


@device
def copy_row(target, source, first, step, kept, state):
    """Words first, first + step, ... of the source row into the target row (the scalars by the word-0 copier)."""
    if first == 0:
        state.cost[target] = state.cost[source]
        state.best_cost[target] = state.best_cost[source]
        state.best_move[target] = state.best_move[source]
    for i in range(first, state.config.shape[1], step):
        state.config[target, i] = state.config[source, i]
        state.best_config[target, i] = state.best_config[source, i]
    for i in range(first, state.counts.shape[1], step):
        state.counts[target, i] = state.counts[source, i]
    for i in range(first, state.memory.shape[1], step):
        if not is_kept(i, kept):
            state.memory[target, i] = state.memory[source, i]


COPY_THREADS = 128  # threads of a block copying one row on the GPU
