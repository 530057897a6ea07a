"""NumPy twin of replica exchange (``gpu_sa.engine.exchange``), every group of the launch at once."""
from __future__ import annotations

import numpy as np

from . import rng

TAG_EXCHANGE = np.uint32(0x45584348)  # "EXCH"


def exchange_round(chains, round_index, table, state, running, chain_ids):
    """Round ``round_index``: in every active group, pairs (l, l+1) with l = round mod 2, +2, ..."""
    replicas = int(chains.replicas)
    first_rows = running[running % replicas == 0]  # puzzles hold whole groups: row % R = rung at the start
    if first_rows.size == 0:
        return
    members = first_rows[:, None] + np.arange(replicas)[None, :]  # (groups, replicas) rows
    for pair in range(round_index % 2, replicas - 1, 2):
        rung = state.level[members]
        cold = members[np.arange(len(first_rows)), np.argmax(rung == pair, axis=1)]
        hot = members[np.arange(len(first_rows)), np.argmax(rung == pair + 1, axis=1)]
        word = rng.stream_words(np.uint64(round_index), chain_ids[first_rows] + np.uint64(pair), TAG_EXCHANGE,
                                _seed(chains))[0]
        gap = state.cost[hot].astype(np.int64) - state.cost[cold].astype(np.int64)
        inside = gap < table.shape[1]
        threshold = np.where(inside, table[pair, np.clip(gap, 0, table.shape[1] - 1)], 0)
        swap = (gap <= 0) | (inside & (word < threshold))
        state.level[cold[swap]] = pair + 1
        state.level[hot[swap]] = pair
        state.exchanges[first_rows[swap] + pair] += np.uint64(1)


def _seed(chains):
    return int(chains.key0) | (int(chains.key1) << 32)
