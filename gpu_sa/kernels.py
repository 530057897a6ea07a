"""Kernel factory: a move's per-chain device functions -> compiled launchers, cached.

A move module provides ``build(target)`` returning two device functions:

    start_chain(row, chain, key0, key1, table0, table1, table2, n_values, config, counts)
        -> the initial cost, after writing the chain's first configuration and its counts
    try_move(row, words, threshold, table0, table1, table2, n_values, config, counts)
        -> (accepted, delta): one proposal from the four Philox words; applied to config
           and counts when accepted, with ``threshold(delta)`` = the plateau's table row

``chain_functions`` adds what every move shares (the Metropolis loop, Philox counter,
plateau bookkeeping, cost, accept count, best configuration), giving

    init_chain(row, chain, key0, key1, table0, table1, table2, n_values,
               config, counts, cost, accepted, best_cost, best_config, best_move)
    advance_chain(row, chain, key0, key1, table0, table1, table2, n_values,
                  move_begin, move_end, plateau_begin, plateau_length, thresholds,
                  config, counts, cost, accepted, best_cost, best_config, best_move)

and this module wraps the pair once per (move, target) into a CUDA kernel (one chain per
thread) or a numba CPU loop over a slice of chains (one slice per core). Both call the very
same Python source, so the ``cuda`` and ``cpu`` backends cannot drift apart.

``row`` indexes the state arrays; ``chain`` (= chain_base + row) is the chain's index in
the random stream, so a batch can be split across launches or devices and still replay.
``table0..2`` and ``n_values`` are the move's constant tables (their meaning is the move's).
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
def chain_functions(build, target):
    """(init_chain, advance_chain) for ``target``: the move's functions plus the shared loop."""
    import numpy as np

    from . import rng

    jit = device_decorator(target)
    philox = rng.compiled(target)
    start_chain, try_move = build(target)
    tag_move = rng.TAG_MOVE

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

    @jit
    def advance_chain(row, chain, key0, key1, table0, table1, table2, n_values,
                      move_begin, move_end, plateau_begin, plateau_length, thresholds,
                      config, counts, cost, accepted, best_cost, best_config, best_move):
        chain_word = np.uint32(chain)
        current = int(cost[row])
        best = int(best_cost[row])
        n_accepted = accepted[row]
        plateau = move_begin // plateau_length
        in_plateau = move_begin - plateau * plateau_length
        plateau -= plateau_begin
        move = move_begin
        while move < move_end:
            words = philox(np.uint32(move & 0xFFFFFFFF), np.uint32(move >> 32), chain_word, tag_move, key0, key1)
            taken, delta = try_move(row, words, thresholds[plateau], table0, table1, table2, n_values, config,
                                    counts)
            if taken:
                current += delta
                n_accepted += 1
                if current < best:
                    best = current
                    best_move[row] = move + 1
                    for cell in range(config.shape[1]):
                        best_config[row, cell] = config[row, cell]
            move += 1
            in_plateau += 1
            if in_plateau == plateau_length:
                in_plateau = 0
                plateau += 1
        cost[row] = current
        best_cost[row] = best
        accepted[row] = n_accepted

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
