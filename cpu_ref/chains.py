"""What every move's NumPy twin does after a step: the Metropolis bookkeeping shared by all moves."""
from __future__ import annotations

import numpy as np


def record_accepted(state, taken, delta, move):
    """Chains ``taken`` accepted a move of cost change ``delta`` at move index ``move``."""
    state.cost[taken] += delta[taken].astype(state.cost.dtype)
    state.accepted[taken] += np.uint64(1)
    improved = taken[state.cost[taken] < state.best_cost[taken]]
    state.best_cost[improved] = state.cost[improved]
    state.best_config[improved] = state.config[improved]
    state.best_move[improved] = move + 1
