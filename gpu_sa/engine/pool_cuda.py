"""The chains' elite pool on the GPU (``gpu_sa.engine.pool``): one round is two launches, so that every row's
source is chosen before any row is copied."""
from numba import cuda

from .pool import NO_SOURCE, copy_row, pool_source


@cuda.jit
def choose(per_puzzle, bases, active, key0, key1, round_index, interval, sources, best_cost, best_move):
    # one thread per row: its source, or NO_SOURCE
    row = cuda.grid(1)
    if row < sources.shape[0]:
        puzzle = row // per_puzzle
        sources[row] = NO_SOURCE
        if active[puzzle] != 0:
            first_row = puzzle * per_puzzle
            sources[row] = pool_source(row, first_row, per_puzzle, bases[puzzle] + row - first_row, round_index,
                                       interval, key0, key1, best_cost, best_move)


@cuda.jit
def copy(sources, kept, state):
    # one block per row, its threads striding over the row's words
    row = cuda.blockIdx.x
    source = sources[row]
    if source != NO_SOURCE:
        copy_row(row, source, cuda.threadIdx.x, cuda.blockDim.x, kept, state)
