"""What every move's NumPy twin shares: which chain each row runs, the walk over a chunk's moves
(plateaus, temperature rungs, replica exchanges) and the Metropolis bookkeeping.

The twin of ``gpu_sa.engine.kernels``' launch code and of ``gpu_sa.engine.contract.keep_best``/``start_bookkeeping``,
written again over whole arrays of chains: every running chain makes move m before any makes m + 1.
"""
from __future__ import annotations

import numpy as np

from . import exchange


def seed_of(chains) -> int:
    """The 64-bit Philox key of a launch's chains, from its two 32-bit words."""
    return int(chains.key0) | (int(chains.key1) << 32)


def row_chains(chains, rows: int):
    """(puzzle of each row, chain index of each row (uint64), rows of active puzzles)."""
    index = np.arange(rows, dtype=np.int64)
    puzzle = index // int(chains.per_puzzle)
    chain = np.asarray(chains.bases, dtype=np.int64)[puzzle] + index % int(chains.per_puzzle)
    running = index[np.asarray(chains.active)[puzzle] != 0]
    return puzzle, chain.astype(np.uint64), running


def by_puzzle(tables, puzzles, *per_row):
    """Yield (one puzzle's tables, its positions in ``puzzles``, each ``per_row`` array at them).

    For twins written one puzzle at a time: per-puzzle fields lose their puzzle axis, the fields in
    the tables' SHARED stay as they are.
    """
    shared = getattr(tables, "SHARED", ())
    for p in np.unique(puzzles):
        where = np.flatnonzero(puzzles == p)
        one = type(tables)(*(value if name in shared else value[p] for name, value in zip(tables._fields, tables)))
        yield (one, where, *(a[where] for a in per_row))


def start_bookkeeping(state, chains):
    """Fresh chains: nothing accepted yet, the first configuration is the best so far; rungs 0 .. R-1."""
    state.accepted[...] = 0
    state.best_cost[...] = state.cost
    state.best_config[...] = state.config
    state.best_move[...] = 0
    state.exchanges[...] = 0
    rows = np.arange(state.cost.shape[0])
    state.level[...] = (rows % int(chains.per_puzzle)) % int(chains.replicas)


def walk(chains, chunk, state, step):
    """Run ``step(move, rows, chain_ids, puzzles, thresholds)`` for every move of the chunk.

    ``rows`` are the running rows, ``thresholds`` (len(rows), width) each row's acceptance row
    at that move (its plateau, its rung); exchanges happen after every ``exchange_interval``-th
    move (absolute index), as in ``gpu_sa.engine.exchange``.
    """
    puzzles, chain_ids, rows = row_chains(chains, state.cost.shape[0])
    replicas = int(chains.replicas)
    length = int(chunk.plateau_length)
    for move in range(int(chunk.move_begin), int(chunk.move_end)):
        plateau = move // length - int(chunk.plateau_begin)
        thresholds = chunk.thresholds[plateau][state.level[rows]]
        step(move, rows, chain_ids[rows], puzzles[rows], thresholds)
        if replicas > 1 and (move + 1) % int(chunk.exchange_interval) == 0:
            exchange.exchange_round(chains, (move + 1) // int(chunk.exchange_interval), chunk.exchange_table, state,
                                    rows, chain_ids)


def accepts(delta, word, thresholds):
    """Metropolis with integer thresholds: delta <= 0, or word below the row's threshold for delta."""
    width = thresholds.shape[1]
    clipped = np.clip(delta, 0, width - 1)
    return (delta <= 0) | (word < thresholds[np.arange(delta.shape[0]), clipped])


def record_accepted(state, taken, delta, move):
    """Rows ``taken`` accepted a move of cost change ``delta`` (one value per row) at move index ``move``."""
    state.cost[taken] += delta.astype(state.cost.dtype)
    state.accepted[taken] += np.uint64(1)
    improved = taken[state.cost[taken] < state.best_cost[taken]]
    state.best_cost[improved] = state.cost[improved]
    state.best_config[improved] = state.config[improved]
    state.best_move[improved] = move + 1
