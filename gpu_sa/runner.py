"""Host loop: chunked launches, early stop, time limit, Ctrl-C, progress and the result.

The chains advance in chunks of moves. Each chunk gets its plateaus' acceptance table from
the schedule; between chunks the host looks at every chain's best cost, reports progress,
honours the time limit and Ctrl-C. Chunk length adapts to keep a chunk near a quarter of a
second: it decides only where a run may stop, never what a chain does.

Trials: when a trial ends unsolved, every slot is re-initialised with a fresh chain index
(trial g runs chain_base + g * chains + row), so restarts keep runs reproducible.

Which chain is reported: the lowest best cost, then the earliest trial, then the earliest
move that reached it, then the lowest chain index. For a solved run that choice does not
depend on the chunking: the first chunk boundary after the earliest solve already holds
that chain.
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
# The tuned defaults, from bench/tts.py (bench/RESULTS.md): with move swap, a geometric schedule
# 0.5 -> 0.05 over 4000 plateaus (324,000 moves per chain for 9x9) had the lowest or near-lowest
# time to solution on the seed puzzles, forum_hardest and 17-clue samples; restarts cover the rest.
DEFAULT_T0, DEFAULT_T_END, DEFAULT_PLATEAUS = 0.5, 0.05, 4000
DEFAULT_TRIALS = 100


@dataclass(frozen=True)
class Progress:
    seconds: float
    moves: int  # per chain, so far in this trial
    max_moves: int  # per chain and trial
    best_cost: int
    temperature: float
    proposals_per_second: float
    trial: int = 1  # 1-based


@dataclass(frozen=True)
class Result:
    solved: bool
    solution: np.ndarray | None  # 0-based values of the validated solution, or None
    best: np.ndarray  # 0-based values of the best configuration found
    cost: int  # its cost (0 when solved)
    chain: int  # chain that holds it (its index in the random stream)
    chain_moves: int  # moves that chain had made (in its trial) when it first reached that cost
    moves: int  # moves done in each chain slot, summed over trials
    proposals: int  # moves x chains
    seconds: float  # annealing wall time, from the first move to the end of the last chunk
    setup_seconds: float  # allocation, initial states and compilation, before the first move
    backend: str
    seed: int
    chains: int
    trials: int  # trials begun (fresh chains in every slot each time)
    stopped: str  # why the last trial ended: solved | max_moves | stalled | time_limit | interrupted
    schedule: str
    state: backends_module.ChainState | None = field(default=None, repr=False, compare=False)


def default_seed() -> int:
    return int.from_bytes(os.urandom(8), "little") >> 1


def anneal(puzzle, *, move: str | None = None, backend="auto", chains: int | None = None,
           seed: int | None = None, schedule: schedule_module.Schedule | None = None,
           max_moves: int | None = None, trials: int | None = None, stall_plateaus: int | None = None,
           time_limit: float | None = None, early_stop: bool = True, chain_base: int = 0,
           progress: Callable[[Progress], None] | None = None, chunk_moves: int | None = None,
           keep_state: bool = False) -> Result:
    """Anneal ``chains`` independent chains on ``puzzle``; return the best, validated, result.

    ``backend`` is a name from ``gpu_sa.backends.BACKENDS`` or a backend object.
    ``schedule`` defaults to ``default_schedule(puzzle)``; ``max_moves`` (per chain and trial)
    to its length. A trial runs every chain through the schedule; the next trial (up to
    ``trials``, 0 = no limit; default DEFAULT_TRIALS, or 1 without early stop or with zero
    moves) replaces every chain by a fresh one: trial g runs chain indices
    chain_base + g * chains .. + chains - 1, so restarts replay like everything else.
    ``stall_plateaus`` is the seed's ad-hoc stop: a trial also ends once no chain has lowered
    its best cost for that many plateaus. ``chunk_moves`` fixes the chunk length instead of
    adapting it (tests use it).
    """
    anneal_move = puzzle.move(move) if move else puzzle.move()
    if isinstance(backend, str):
        backend, _ = backends_module.select(backend)
    chains = DEFAULT_CHAINS[backend.name] if chains is None else chains
    _check_positive_int("chains", chains)
    seed = default_seed() if seed is None else int(seed)
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must be in [0, 2**64), got {seed}")
    schedule = default_schedule(anneal_move) if schedule is None else schedule
    max_moves = schedule.total_moves if max_moves is None else max_moves
    if int(max_moves) != max_moves or max_moves < 0:
        raise ValueError(f"max_moves must be a non-negative integer, got {max_moves}")
    if trials is None:
        trials = DEFAULT_TRIALS if early_stop and max_moves > 0 else 1
    if isinstance(trials, bool) or int(trials) != trials or trials < 0:
        raise ValueError(f"trials must be a non-negative integer (0 = no limit), got {trials!r}")
    if stall_plateaus is not None:
        _check_positive_int("stall_plateaus", stall_plateaus)
    if chain_base + chains * max(trials, 1) > 2**32:
        raise ValueError("chain indices (chain_base + trials x chains) must stay below 2**32")
    if not anneal_move.has_free_variables:
        max_moves, trials = 0, 1  # nothing can move: the initial grid is the answer or not
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be positive, got {time_limit}")
    if trials == 0 and time_limit is None and not early_stop:
        raise ValueError("unlimited trials need a time limit or early stop")

    setup_start = time.perf_counter()
    state = backend.allocate(anneal_move, chains)
    backend.init(state, anneal_move, seed, chain_base)
    # A launch of zero moves compiles the advance code (seconds with numba) and changes nothing,
    # so ``seconds`` measures annealing alone.
    backend.advance(state, anneal_move, seed, chain_base, 0, 0, 0, schedule.plateau_length,
                    schedule.acceptance_table(0, 1, anneal_move.max_delta))
    start = time.perf_counter()
    run = _Run(backend, anneal_move, schedule, seed, chains, int(max_moves), stall_plateaus, time_limit,
               early_stop, progress, chunk_moves, start)
    best = None
    total_moves = 0
    trial = 0
    with _StopOnInterrupt() as interrupt:
        while True:
            base = chain_base + trial * chains
            if base + chains > 2**32:
                stopped = "max_moves"
                break
            if trial:
                backend.init(state, anneal_move, seed, base)
            moves_done, stopped = run.trial(state, base, trial, interrupt)
            total_moves += moves_done
            candidate = _best_of_trial(backend, state, base)
            if best is None or candidate[0] < best[0]:
                best = candidate
            trial += 1
            if stopped in ("solved", "time_limit", "interrupted"):
                break
            if trials and trial >= trials:
                break  # keeps the last trial's own reason: max_moves or stalled
    seconds = time.perf_counter() - start
    return _result(puzzle, best, backend.to_host(state) if keep_state else None, total_moves, chains, trial, seconds,
                   start - setup_start, backend.name, seed, stopped, schedule)


class _Run:
    """One trial's host loop: chunks of moves, progress, early stop, stall, time limit, Ctrl-C."""

    def __init__(self, backend, anneal_move, schedule, seed, chains, max_moves, stall_plateaus, time_limit,
                 early_stop, progress, chunk_moves, start):
        self.backend, self.move, self.schedule, self.seed = backend, anneal_move, schedule, seed
        self.chains, self.max_moves, self.time_limit, self.early_stop = chains, max_moves, time_limit, early_stop
        self.stall_moves = None if stall_plateaus is None else stall_plateaus * schedule.plateau_length
        self.progress, self.fixed_chunk, self.start = progress, chunk_moves, start
        self.chunk = chunk_moves or anneal_move.plateau_length

    def trial(self, state, base, trial, interrupt):
        """Advance every chain of ``state`` through one trial; (moves done, why it stopped)."""
        backend, length = self.backend, self.schedule.plateau_length
        moves_done = 0
        best_cost, best_move = backend.best(state)
        if self.early_stop and best_cost.min() == 0:
            return 0, "solved"
        while moves_done < self.max_moves:
            if interrupt.requested:
                return moves_done, "interrupted"
            end = min(self.max_moves, moves_done + self.chunk)
            if self.stall_moves is not None:
                # end the chunk exactly at the stall deadline, so the stop does not depend on chunking
                end = min(end, int(best_move.max()) + self.stall_moves)
            first_plateau, stop_plateau = moves_done // length, (end - 1) // length + 1
            table = self.schedule.acceptance_table(first_plateau, stop_plateau, self.move.max_delta)
            launch_start = time.perf_counter()
            backend.advance(state, self.move, self.seed, base, moves_done, end, first_plateau, length, table)
            launch_seconds = time.perf_counter() - launch_start
            launched, moves_done = end - moves_done, end
            best_cost, best_move = backend.best(state)
            elapsed = time.perf_counter() - self.start
            if self.progress is not None:
                self.progress(Progress(
                    seconds=elapsed, moves=moves_done, max_moves=self.max_moves, best_cost=int(best_cost.min()),
                    temperature=float(self.schedule.temperatures(stop_plateau - 1, stop_plateau)[0]),
                    proposals_per_second=launched * self.chains / max(launch_seconds, 1e-9), trial=trial + 1))
            if self.early_stop and best_cost.min() == 0:
                return moves_done, "solved"
            if self.time_limit is not None and elapsed >= self.time_limit:
                return moves_done, "time_limit"
            if self.stall_moves is not None and moves_done >= int(best_move.max()) + self.stall_moves:
                return moves_done, "stalled"
            if self.fixed_chunk is None:
                self.chunk = _next_chunk(self.chunk, launch_seconds, length, self.time_limit, elapsed)
        return moves_done, "max_moves"


def _best_of_trial(backend, state, base):
    """(cost, chain, moves it needed, configuration) of the trial's best chain; fetches one row only."""
    best_cost, best_move = backend.best(state)
    rows = np.arange(best_cost.shape[0])
    lowest = best_cost.min()
    candidates = rows[best_cost == lowest]
    row = int(candidates[np.lexsort((candidates, best_move[candidates]))[0]])
    return int(lowest), base + row, int(best_move[row]), backend.best_config_row(state, row).astype(np.int64)


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


def _result(puzzle, best, host, total_moves, chains, trials, seconds, setup_seconds, backend_name, seed, stopped,
            schedule):
    cost, chain, chain_moves, grid = best
    solved = cost == 0
    if solved:
        violations = puzzle.check(grid)
        if violations:
            raise RuntimeError(f"internal error: chain {chain} reached cost 0 but the validator "
                               f"rejects its grid: {violations[0]}")
    return Result(solved=solved, solution=grid if solved else None, best=grid, cost=cost, chain=chain,
                  chain_moves=chain_moves, moves=total_moves, proposals=total_moves * chains, seconds=seconds,
                  setup_seconds=setup_seconds, backend=backend_name, seed=seed, chains=chains, trials=trials,
                  stopped=stopped, schedule=schedule.describe(), state=host)


def default_schedule(anneal_move):
    """The tuned default: a geometric law over plateaus of the move's natural length.

    Sudoku: DEFAULT_T0 -> DEFAULT_T_END over DEFAULT_PLATEAUS; other kinds carry their own
    measured (t0, t_end, plateaus) in ``schedule_defaults``.
    """
    t0, t_end, plateaus = anneal_move.schedule_defaults or (DEFAULT_T0, DEFAULT_T_END, DEFAULT_PLATEAUS)
    return schedule_module.geometric(t0=t0, t_end=t_end, plateaus=plateaus, plateau_length=anneal_move.plateau_length)


def sirdey_schedule(anneal_move):
    """Sirdey's law, as the seed states it, for this instance's size (the faithful mode)."""
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
