"""Kernel factory: a move's per-chain device functions -> compiled launchers, cached.

A move module provides ``build(target)`` returning two device functions:

    start_chain(row, chain, key0, key1, table0, table1, table2, n_values, config, counts)
        -> the initial cost, after writing the chain's first configuration and its counts
    advance_chain(row, chain, key0, key1, table0, table1, table2, n_values,
                  move_begin, move_end, plateau_begin, plateau_length, thresholds,
                  config, counts, cost, accepted, best_cost, best_config, best_move)
        the Metropolis loop over moves [move_begin, move_end) of one chain

``chain_functions`` adds the initial bookkeeping shared by every move, giving

    init_chain(row, chain, key0, key1, table0, table1, table2, n_values,
               config, counts, cost, accepted, best_cost, best_config, best_move)

and this module wraps the pair once per (move, target) into a CUDA kernel (one chain per
thread) or a numba CPU loop over a slice of chains (one slice per core). Both call the very
same Python source, so the ``cuda`` and ``cpu`` backends cannot drift apart.

Each move writes its own proposal loop on purpose: a shared loop calling a per-move
``try_move`` was measured 2.5 times slower on the CPU backend (numba inlines the call but
keeps reference counting on every array argument of every proposal). Only the cold paths
are shared: the initial bookkeeping and ``keep_best``.
"""
from __future__ import annotations

import functools

import numba
from numba import cuda  # a module global: the CUDA simulator swaps it inside kernels


def device_decorator(target: str):
    """The decorator that compiles a per-chain function for ``target`` ('cuda' or 'cpu')."""
    if target == "cuda":
        return cuda.jit(device=True)
    if target == "cpu":
        return numba.njit(nogil=True)
    raise ValueError(f"unknown target {target!r}")


@functools.cache
def keep_best(target):
    """The device function a move calls when a chain beats its best cost (rare: a cold path)."""
    jit = device_decorator(target)

    @jit
    def keep(row, move, config, best_config, best_move):
        best_move[row] = move + 1
        for cell in range(config.shape[1]):
            best_config[row, cell] = config[row, cell]

    return keep


@functools.cache
def chain_functions(build, target):
    """(init_chain, advance_chain) for ``target``: the move's functions plus the shared bookkeeping."""
    jit = device_decorator(target)
    start_chain, advance_chain = build(target)

    @jit
    def init_chain(row, chain, key0, key1, table0, table1, table2, n_values,
                   config, counts, cost, accepted, best_cost, best_config, best_move):
        total = start_chain(row, chain, key0, key1, table0, table1, table2, n_values, config, counts)
        cost[row] = total
        accepted[row] = 0
        best_cost[row] = total
        best_move[row] = 0
        for cell in range(config.shape[1]):
            best_config[row, cell] = config[row, cell]

    return init_chain, advance_chain


@functools.cache
def cuda_kernels(build):
    """(init_kernel, advance_kernel) for the move whose device functions ``build`` makes."""
    init_chain, advance_chain = chain_functions(build, "cuda")

    @cuda.jit
    def init_kernel(chain_base, key0, key1, table0, table1, table2, n_values,
                    config, counts, cost, accepted, best_cost, best_config, best_move):
        row = cuda.grid(1)
        if row < config.shape[0]:
            init_chain(row, chain_base + row, key0, key1, table0, table1, table2, n_values,
                       config, counts, cost, accepted, best_cost, best_config, best_move)

    @cuda.jit
    def advance_kernel(chain_base, key0, key1, table0, table1, table2, n_values,
                       move_begin, move_end, plateau_begin, plateau_length, thresholds,
                       config, counts, cost, accepted, best_cost, best_config, best_move):
        row = cuda.grid(1)
        if row < config.shape[0]:
            advance_chain(row, chain_base + row, key0, key1, table0, table1, table2, n_values,
                          move_begin, move_end, plateau_begin, plateau_length, thresholds,
                          config, counts, cost, accepted, best_cost, best_config, best_move)

    return init_kernel, advance_kernel


@functools.cache
def cpu_kernels(build):
    """(init_rows, advance_rows): numba loops over chains [row_begin, row_end), GIL released.

    The backend runs one slice per core on a thread pool. Serial loops instead of
    ``parallel=True`` because the parallel compile costs seconds on every start (closures
    cannot use numba's on-disk cache), while the pool costs nothing measurable.
    """
    init_chain, advance_chain = chain_functions(build, "cpu")

    @numba.njit(nogil=True)
    def init_rows(row_begin, row_end, chain_base, key0, key1, table0, table1, table2, n_values,
                  config, counts, cost, accepted, best_cost, best_config, best_move):
        for row in range(row_begin, row_end):
            init_chain(row, chain_base + row, key0, key1, table0, table1, table2, n_values,
                       config, counts, cost, accepted, best_cost, best_config, best_move)

    @numba.njit(nogil=True)
    def advance_rows(row_begin, row_end, chain_base, key0, key1, table0, table1, table2, n_values,
                     move_begin, move_end, plateau_begin, plateau_length, thresholds,
                     config, counts, cost, accepted, best_cost, best_config, best_move):
        for row in range(row_begin, row_end):
            advance_chain(row, chain_base + row, key0, key1, table0, table1, table2, n_values,
                          move_begin, move_end, plateau_begin, plateau_length, thresholds,
                          config, counts, cost, accepted, best_cost, best_config, best_move)

    return init_rows, advance_rows
