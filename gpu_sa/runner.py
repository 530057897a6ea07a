"""Host loop: chunked launches, early stop, time limit, Ctrl-C, progress and the result.

The chains advance in chunks of moves. Each chunk gets its plateaus' acceptance table from
the schedule; between chunks the host looks at every chain's best cost, reports progress,
honours the time limit and Ctrl-C. Chunk length adapts to keep a chunk near a quarter of a
second: it decides only where a run may stop, never what a chain does.

Which chain is reported: the lowest best cost, then the earliest move that reached it, then
the lowest chain index. For a solved run that choice does not depend on the chunking: the
first chunk boundary after the earliest solve already holds that chain.
"""
from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import backends as backends_module
from . import schedule as schedule_module

TARGET_CHUNK_SECONDS = 0.25
MAX_CHUNK_PLATEAUS = 1 << 16  # bounds the acceptance table sent per launch
DEFAULT_CHAINS = {"cuda": 1 << 14, "cpu": 256, "numpy": 64}


@dataclass(frozen=True)
class Progress:
    seconds: float
    moves: int  # per chain, so far
    max_moves: int
    best_cost: int
    temperature: float
    proposals_per_second: float


@dataclass(frozen=True)
class Result:
    solved: bool
    solution: np.ndarray | None  # 0-based values of the validated solution, or None
    best: np.ndarray  # 0-based values of the best configuration found
    cost: int  # its cost (0 when solved)
    chain: int  # chain that holds it (its index in the random stream)
    chain_moves: int  # moves that chain had made when it first reached that cost
    moves: int  # moves done by every chain
    proposals: int  # moves x chains
    seconds: float  # annealing wall time, from the first move to the end of the last chunk
    setup_seconds: float  # allocation, initial states and compilation, before the first move
    backend: str
    seed: int
    chains: int
    stopped: str  # solved | max_moves | time_limit | interrupted
    schedule: str
    state: backends_module.ChainState | None = field(default=None, repr=False, compare=False)


def default_seed() -> int:
    return int.from_bytes(os.urandom(8), "little") >> 1


def anneal(puzzle, *, move: str | None = None, backend="auto", chains: int | None = None,
           seed: int | None = None, schedule: schedule_module.Schedule | None = None,
           max_moves: int | None = None, time_limit: float | None = None, early_stop: bool = True,
           chain_base: int = 0, progress: Callable[[Progress], None] | None = None,
           chunk_moves: int | None = None, keep_state: bool = False) -> Result:
    """Anneal ``chains`` independent chains on ``puzzle``; return the best, validated, result.

    ``backend`` is a name from ``gpu_sa.backends.BACKENDS`` or a backend object.
    ``schedule`` defaults to ``default_schedule(puzzle)``; ``max_moves`` (per chain) to its
    length. ``chunk_moves`` fixes the chunk length instead of adapting it (tests use it).
    """
    anneal_move = puzzle.move(move) if move else puzzle.move()
    if isinstance(backend, str):
        backend, _ = backends_module.select(backend)
    chains = DEFAULT_CHAINS[backend.name] if chains is None else chains
    _check_positive_int("chains", chains)
    if chains + chain_base > 2**32:
        raise ValueError("chain indices must stay below 2**32")
    seed = default_seed() if seed is None else int(seed)
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must be in [0, 2**64), got {seed}")
    schedule = default_schedule(anneal_move) if schedule is None else schedule
    max_moves = schedule.total_moves if max_moves is None else max_moves
    if int(max_moves) != max_moves or max_moves < 0:
        raise ValueError(f"max_moves must be a non-negative integer, got {max_moves}")
    if not anneal_move.has_free_variables:
        max_moves = 0  # every cell is given: nothing to move, the givens are the answer or not
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be positive, got {time_limit}")

    setup_start = time.perf_counter()
    state = backend.allocate(anneal_move, chains)
    backend.init(state, anneal_move, seed, chain_base)
    # A launch of zero moves compiles the advance code (seconds with numba) and changes nothing,
    # so ``seconds`` measures annealing alone.
    backend.advance(state, anneal_move, seed, chain_base, 0, 0, 0, schedule.plateau_length,
                    schedule.acceptance_table(0, 1, anneal_move.max_delta))
    start = time.perf_counter()
    setup_seconds = start - setup_start
    moves_done = 0
    stopped = "max_moves"
    chunk = chunk_moves or anneal_move.plateau_length
    with _StopOnInterrupt() as interrupt:
        best_cost, best_move = backend.best(state)
        if early_stop and best_cost.min() == 0:
            stopped = "solved"
        while stopped != "solved" and moves_done < max_moves:
            if interrupt.requested:
                stopped = "interrupted"
                break
            end = min(int(max_moves), moves_done + chunk)
            length = schedule.plateau_length
            first_plateau, stop_plateau = moves_done // length, (end - 1) // length + 1
            table = schedule.acceptance_table(first_plateau, stop_plateau, anneal_move.max_delta)
            launch_start = time.perf_counter()
            backend.advance(state, anneal_move, seed, chain_base, moves_done, end, first_plateau, length, table)
            launch_seconds = time.perf_counter() - launch_start
            launched, moves_done = end - moves_done, end
            best_cost, best_move = backend.best(state)
            elapsed = time.perf_counter() - start
            if progress is not None:
                progress(Progress(seconds=elapsed, moves=moves_done, max_moves=int(max_moves),
                                  best_cost=int(best_cost.min()),
                                  temperature=float(schedule.temperatures(stop_plateau - 1, stop_plateau)[0]),
                                  proposals_per_second=launched * chains / max(launch_seconds, 1e-9)))
            if early_stop and best_cost.min() == 0:
                stopped = "solved"
            elif time_limit is not None and elapsed >= time_limit:
                stopped = "time_limit"
            elif chunk_moves is None:
                chunk = _next_chunk(chunk, launch_seconds, length, time_limit, elapsed)
    host = backend.to_host(state)
    return _result(puzzle, host, moves_done, chains, chain_base, time.perf_counter() - start, setup_seconds,
                   backend.name, seed, stopped, schedule, keep_state)


def _next_chunk(chunk, launch_seconds, plateau_length, time_limit, elapsed):
    if launch_seconds < TARGET_CHUNK_SECONDS / 2:
        chunk *= 2
    elif launch_seconds > TARGET_CHUNK_SECONDS * 4 and chunk > plateau_length:
        chunk //= 2
    if time_limit is not None and launch_seconds > 0:
        # do not overshoot the time limit by more than about one target chunk
        rate = chunk / launch_seconds
        chunk = min(chunk, max(plateau_length, int(rate * max(time_limit - elapsed, TARGET_CHUNK_SECONDS))))
    return max(1, min(chunk, MAX_CHUNK_PLATEAUS * plateau_length))


def _result(puzzle, host, moves_done, chains, chain_base, seconds, setup_seconds, backend_name, seed, stopped, schedule,
            keep_state):
    rows = np.arange(chains)
    lowest = host.best_cost.min()
    candidates = rows[host.best_cost == lowest]
    row = int(candidates[np.lexsort((candidates, host.best_move[candidates]))[0]])
    best = host.best_config[row].astype(np.int16)
    solved = bool(lowest == 0)
    if solved:
        violations = puzzle.check(best)
        if violations:
            raise RuntimeError(f"internal error: chain {chain_base + row} reached cost 0 but the validator "
                               f"rejects its grid: {violations[0]}")
    return Result(solved=solved, solution=best if solved else None, best=best, cost=int(lowest),
                  chain=chain_base + row, chain_moves=int(host.best_move[row]), moves=moves_done,
                  proposals=moves_done * chains, seconds=seconds, setup_seconds=setup_seconds, backend=backend_name, seed=seed,
                  chains=chains, stopped=stopped,
                  schedule=schedule.describe(), state=host if keep_state else None)


def default_schedule(anneal_move):
    """Sirdey's law, as the seed states it, for this instance's size."""
    return schedule_module.sirdey(max_cost=anneal_move.max_cost, log_states=anneal_move.log_states,
                                  plateau_length=anneal_move.plateau_length)


def _check_positive_int(name, value):
    if isinstance(value, bool) or int(value) != value or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


class _StopOnInterrupt:
    """The first Ctrl-C asks the loop to stop after the chunk in flight; a second one aborts."""

    def __init__(self):
        self.requested = False
        self._previous = None

    def _handle(self, signum, frame):
        self.requested = True
        signal.signal(signal.SIGINT, self._previous or signal.default_int_handler)

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        return False
