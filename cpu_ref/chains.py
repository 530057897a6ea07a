"""What every move's NumPy twin shares: the Metropolis bookkeeping at the start and after a step
(the twin of ``gpu_sa.kernels.chain_functions`` and ``keep_best``)."""
from __future__ import annotations

import numpy as np


def start_bookkeeping(state):
    """Fresh chains: nothing accepted yet, the initial configuration and cost are the best so far."""
    state.accepted[...] = 0
    state.best_cost[...] = state.cost
    state.best_config[...] = state.config
    state.best_move[...] = 0


def record_accepted(state, taken, delta, move):
    """Chains ``taken`` accepted a move of cost change ``delta`` at move index ``move``."""
    state.cost[taken] += delta[taken].astype(state.cost.dtype)
    state.accepted[taken] += np.uint64(1)
    improved = taken[state.cost[taken] < state.best_cost[taken]]
    state.best_cost[improved] = state.cost[improved]
    state.best_config[improved] = state.config[improved]
    state.best_move[improved] = move + 1
