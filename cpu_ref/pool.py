"""NumPy twin of the chains' elite pool (``gpu_sa.engine.pool``): every puzzle's round at once, over whole arrays."""
from __future__ import annotations

import numpy as np

from . import rng

TAG_POOL = np.uint32(0x504F4F4C)  # "POOL"


def pool_round(chains, round_index, interval, kept, state):
    """Round ``round_index``: each active puzzle's targets take copies of its rows at the lowest best cost."""
    rows = state.cost.shape[0]
    per_puzzle = int(chains.per_puzzle)
    index = np.arange(rows)
    puzzle = index // per_puzzle
    best = state.best_cost.astype(np.int64).reshape(-1, per_puzzle)
    low = best.min(axis=1)
    at_low = best == low[:, None]
    targets = ((state.best_cost.astype(np.int64) > low[puzzle]) & (low[puzzle] > 0)
               & (state.best_move.astype(np.int64) <= (round_index - 1) * interval)
               & (np.asarray(chains.active)[puzzle] != 0))
    target_rows = index[targets]
    if target_rows.size == 0:
        return
    chain = (np.asarray(chains.bases, dtype=np.int64)[puzzle] + index % per_puzzle).astype(np.uint64)
    seed = int(chains.key0) | (int(chains.key1) << 32)
    words = rng.stream_words(np.uint64(round_index), chain[target_rows], TAG_POOL, seed)[0]
    k = rng.uniform_below(words, at_low.sum(axis=1)[puzzle[target_rows]])
    # the k-th row at the lowest cost of each target's puzzle, in row order
    ranks = np.cumsum(at_low, axis=1) - 1
    in_puzzle = np.argmax(at_low[puzzle[target_rows]] & (ranks[puzzle[target_rows]] == k[:, None]), axis=1)
    sources = puzzle[target_rows] * per_puzzle + in_puzzle
    copied = np.setdiff1d(np.arange(state.memory.shape[1]), np.asarray(kept, dtype=np.int64))
    for name in ("config", "counts", "cost", "best_cost", "best_config", "best_move"):
        field = getattr(state, name)
        field[target_rows] = field[sources]
    state.memory[target_rows[:, None], copied[None, :]] = state.memory[sources[:, None], copied[None, :]]
