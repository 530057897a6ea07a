"""Backends: where the chains run. ``cuda`` (numba-cuda kernels), ``cpu`` (the same device
functions compiled for the CPU, parallel over chains) and ``numpy`` (the plain reference).

All three produce the same trajectories for the same (puzzle, move, schedule, seed, chain).
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields

import numpy as np

from . import kernels, rng
from .puzzles.move import AnnealMove

BACKENDS = ("auto", "cuda", "cpu", "numpy")
THREADS_PER_BLOCK = 128


class BackendUnavailable(RuntimeError):
    """The requested backend cannot run here; the message says why."""


@dataclass
class ChainState:
    """Every chain's state, one row per chain (host NumPy arrays or CUDA device arrays)."""

    config: object  # (chains, config_size) move.config_dtype: the configuration (the grid for Sudoku)
    counts: object  # (chains, counts_size) move.counts_dtype: incremental counts behind the cost
    cost: object  # (chains,) int32
    accepted: object  # (chains,) uint64: accepted proposals
    best_cost: object  # (chains,) int32: lowest cost seen
    best_config: object  # (chains, config_size) like config: the configuration when best_cost was first reached
    best_move: object  # (chains,) int64: moves done when best_cost was first reached

    @classmethod
    def zeros(cls, move: AnnealMove, chains: int, allocate=np.zeros):
        return cls(config=allocate((chains, move.config_size), move.config_dtype),
                   counts=allocate((chains, move.counts_size), move.counts_dtype),
                   cost=allocate(chains, np.int32), accepted=allocate(chains, np.uint64),
                   best_cost=allocate(chains, np.int32),
                   best_config=allocate((chains, move.config_size), move.config_dtype),
                   best_move=allocate(chains, np.int64))

    def arrays(self):
        return tuple(getattr(self, f.name) for f in fields(self))


def available_cores() -> int:
    """Cores this process may run on (the affinity mask, not the machine's count)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def cuda_status() -> tuple[bool, bool, str]:
    """(usable, simulated, why): whether CUDA kernels can run here, and on what."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return True, True, "NUMBA_ENABLE_CUDASIM=1: kernels run in numba's CUDA simulator (slow, for tests)"
    try:
        from numba import cuda
    except Exception as error:  # numba-cuda missing or broken
        return False, False, f"numba-cuda is not importable ({error.__class__.__name__}: {error})"
    try:
        if not cuda.is_available():
            return False, False, "no CUDA GPU or driver found"
        device = cuda.get_current_device()
        name = device.name.decode() if isinstance(device.name, bytes) else device.name
        return True, False, f"CUDA GPU {name}"
    except Exception as error:
        return False, False, f"CUDA is present but unusable ({error.__class__.__name__}: {error})"


class NumpyBackend:
    name = "numpy"

    def allocate(self, move, chains):
        return ChainState.zeros(move, chains)

    def init(self, state, move, seed, chain_base):
        move.reference.init_chains(chain_base, seed, *move.tables, move.n_values, state)

    def advance(self, state, move, seed, chain_base, move_begin, move_end, plateau_begin, plateau_length,
                thresholds):
        move.reference.advance_chains(chain_base, seed, *move.tables, move.n_values, move_begin, move_end,
                                      plateau_begin, plateau_length, thresholds, state)

    def best(self, state):
        return state.best_cost, state.best_move

    def best_config_row(self, state, row):
        return state.best_config[row].copy()

    def to_host(self, state):
        return state


class CpuBackend(NumpyBackend):
    name = "cpu"

    def __init__(self, threads: int | None = None):
        self.threads = threads or available_cores()
        self._pool = None

    def _run_slices(self, function, chains, *args):
        """Run ``function(row_begin, row_end, *args)`` on one slice of chains per thread."""
        bounds = np.linspace(0, chains, min(self.threads, chains) + 1).astype(np.int64)
        slices = list(zip(bounds[:-1], bounds[1:]))
        if len(slices) == 1:
            function(slices[0][0], slices[0][1], *args)
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="gpu-sa-cpu")
        for future in [self._pool.submit(function, begin, end, *args) for begin, end in slices]:
            future.result()

    def init(self, state, move, seed, chain_base):
        init_rows, _ = kernels.cpu_kernels(move.build)
        key0, key1 = rng.split_seed(seed)
        self._run_slices(init_rows, state.cost.shape[0], np.int64(chain_base), key0, key1, *move.tables,
                         np.int64(move.n_values), *state.arrays())

    def advance(self, state, move, seed, chain_base, move_begin, move_end, plateau_begin, plateau_length,
                thresholds):
        _, advance_rows = kernels.cpu_kernels(move.build)
        key0, key1 = rng.split_seed(seed)
        self._run_slices(advance_rows, state.cost.shape[0], np.int64(chain_base), key0, key1, *move.tables,
                         np.int64(move.n_values), np.int64(move_begin), np.int64(move_end),
                         np.int64(plateau_begin), np.int64(plateau_length), thresholds, *state.arrays())


class CudaBackend:
    name = "cuda"

    def __init__(self):
        from numba import cuda

        self._cuda = cuda
        self._tables_of = None  # the move whose constant tables are on the device now
        self._tables = ()

    def _device_tables(self, move):
        if move is not self._tables_of:  # a run uses one move: copy its tables once
            self._tables = tuple(self._cuda.to_device(np.ascontiguousarray(t)) for t in move.tables)
            self._tables_of = move
        return self._tables

    def allocate(self, move, chains):
        return ChainState.zeros(move, chains, allocate=lambda shape, dtype: self._cuda.device_array(shape, dtype))

    def _grid(self, state):
        chains = state.cost.shape[0]
        return (chains + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK, THREADS_PER_BLOCK

    def init(self, state, move, seed, chain_base):
        init_kernel, _ = kernels.cuda_kernels(move.build)
        key0, key1 = rng.split_seed(seed)
        blocks, threads = self._grid(state)
        init_kernel[blocks, threads](np.int64(chain_base), key0, key1, *self._device_tables(move),
                                     np.int64(move.n_values), *state.arrays())
        self._cuda.synchronize()

    def advance(self, state, move, seed, chain_base, move_begin, move_end, plateau_begin, plateau_length,
                thresholds):
        _, advance_kernel = kernels.cuda_kernels(move.build)
        key0, key1 = rng.split_seed(seed)
        blocks, threads = self._grid(state)
        advance_kernel[blocks, threads](np.int64(chain_base), key0, key1, *self._device_tables(move),
                                        np.int64(move.n_values), np.int64(move_begin), np.int64(move_end),
                                        np.int64(plateau_begin), np.int64(plateau_length),
                                        self._cuda.to_device(thresholds), *state.arrays())
        self._cuda.synchronize()

    def best(self, state):
        return state.best_cost.copy_to_host(), state.best_move.copy_to_host()

    def best_config_row(self, state, row):
        return state.best_config[row].copy_to_host()

    def to_host(self, state):
        return ChainState(*(a.copy_to_host() for a in state.arrays()))


def select(name: str):
    """(backend, why) for ``name`` in BACKENDS; raises BackendUnavailable for an impossible choice."""
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
    usable, simulated, why = cuda_status()
    if name == "cuda":
        if not usable:
            raise BackendUnavailable(f"backend cuda is not available: {why}")
        return CudaBackend(), why
    if name == "auto":
        if usable and not simulated:
            return CudaBackend(), f"auto chose cuda: {why}"
        return CpuBackend(), f"auto chose cpu: {why}"
    return (CpuBackend() if name == "cpu" else NumpyBackend()), f"backend {name} requested"
