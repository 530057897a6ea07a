"""Host loop: chunked launches, trials, batches of puzzles, early stop, time limit, stop requests,
progress and results.

The chains advance in chunks of moves. Each chunk gets its plateaus' acceptance rows from the
schedule; between chunks the host looks at every chain's best cost, reports progress, honours
time limits and stop requests (``gpu_sa.engine.stop``: Ctrl-C and the other signals the command line
catches). Chunk length adapts to keep a chunk near a quarter of a second: it decides only where
a run may stop, never what a chain does.

Batches: up to ``batch`` puzzles of the same move and shape share every launch, each in its own
slot of ``chains`` rows (rows [s * chains, (s + 1) * chains) of the state; the tables gain a
puzzle axis). All slots run on one clock: a round is one trial's worth of moves; a slot whose
puzzle is solved, stalled or out of time sits still (its rows inactive) until the round ends;
then unsolved puzzles start their next trial and freed slots take the next puzzles of the input.
Results come out in input order, each as soon as it and every earlier one are known.

Trials: trial g of a puzzle runs chain indices chain_base + g * chains + k (k < chains), so
restarts replay, and a puzzle's chains are the same alone or in a batch: the reported answer
does not depend on the batch, the backend or the chunking.

Which chain is reported: the lowest best cost, then the earliest trial, then the earliest
move that reached it, then the lowest chain index. For a solved run that choice does not
depend on the chunking: the first chunk boundary after the earliest solve already holds
that chain.

Replica exchange: with a ladder schedule (``schedule.ladder``, or ``replicas=R``), the chains of
a slot form groups of R on the ladder's rungs and exchange temperatures every
``exchange_interval`` moves (``gpu_sa.engine.exchange``); ``Result.exchange_rates`` reports, per pair of
neighbouring rungs, accepted / attempted exchanges.
"""
from __future__ import annotations

import dataclasses
import inspect
import os
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, NamedTuple

import numpy as np

from . import backends as backends_module
from . import limits, rng
from . import schedule as schedule_module
from . import stop as stop_module
from .exchange import exchange_shape, exchange_table
from .kernels import NO_EXCHANGE, Chains, Chunk
from .pool import NO_POOL
from .contract import AnnealMove, ChainState, stack_moves, state_arrays, state_bytes
# The default laws live with the laws, below both the backends and this module; their names stay here too.
from .schedule import (DEFAULT_PLATEAUS, DEFAULT_T0, DEFAULT_T_END, default_ladder,  # noqa: F401
                       default_schedule, sirdey_schedule)

TARGET_CHUNK_SECONDS = 0.25
EARLY_STOP_SLACK = 0.125  # a chunk is at most this share of the trial's moves so far (see _next_chunk)
MAX_CHUNK_PLATEAUS = 1 << 16  # bounds the acceptance table sent per launch
CHUNK_TABLE_BYTES = 256 << 20  # and so does this, where a plateau's rows are wide (chunk_plateaus)
PROBE_PROPOSALS = 1 << 16  # the first chunk's proposals at most (chains x moves): it measures the rate
MAX_LAUNCH_MOVES = 1 << 30  # the kernels count a launch's moves in 32 bits
DEFAULT_CHAINS = {"cpu": 256, "numpy": 64}  # cuda: enough to fill the device (backends.CudaBackend.default_chains)
# Restarts cover what the default schedule (``schedule.DEFAULT_T0`` ...) leaves unsolved.
DEFAULT_TRIALS = 100
CHAIN_INDICES = 2**32  # chain indices are one 32-bit word of the Philox counter


@dataclass(frozen=True)
class Progress:
    """One record per chunk and running puzzle, of that puzzle's chains alone: what the progress line, ``--trace``
    and the web page show. A batch's puzzles share each chunk: its records come one per puzzle still in its trial,
    in slot order, with the same ``seconds``, ``moves`` and ``plateau``."""

    seconds: float  # since the first move of this trial (every puzzle of a batch starts its trial then)
    moves: int  # per chain, so far in this trial
    max_moves: int  # per chain and trial
    best_cost: int  # lowest cost any of the puzzle's chains has reached in this trial
    temperature: float  # at the chunk's last plateau (the coldest rung with replicas)
    proposals_per_second: float  # the puzzle's chains' proposals in this chunk's launch, by the launch's seconds
    trial: int = 1  # 1-based, the puzzle's own
    plateau: int = 0  # index of the chunk's last plateau in the schedule
    mean_cost: float = 0.0  # mean current cost over the puzzle's chains at the chunk's end
    acceptance: float = 0.0  # accepted / proposed moves within this chunk, over the puzzle's chains
    exchange_rates: tuple = ()  # replica exchange: accepted / attempted per pair of rungs, this trial so far
    index: int = 0  # which puzzle: its position in the input of anneal_many (as Result.index; anneal: 0)


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
    seconds: float  # preparation (prepare_seconds) + annealing wall time, first move to the end of its last chunk
    # the rest of the call's time before its first move: checking the options, allocation, initial states,
    # compilation, the stand-in's move (code loaded); not solving. seconds + setup_seconds is the call's wall time
    # up to the result (anneal; a stream's later puzzles share their batch's)
    setup_seconds: float
    backend: str
    seed: int
    chains: int
    trials: int  # trials begun (fresh chains in every slot each time)
    stopped: str  # why the last trial ended: solved | max_moves | stalled | time_limit | interrupted
    schedule: str
    replicas: int = 1
    exchange_rates: tuple = ()  # per pair of neighbouring rungs: accepted / attempted, over every trial
    pool_interval: int = 0  # moves between the rounds of the chains' elite pool (0: chains alone)
    index: int = 0  # position of the puzzle in the input of anneal_many
    # building the puzzle's move (Sudoku: the rules' root, its strengthening, the tables): solving work, as a peer's
    # simplification rules are, so it is in ``seconds``; allocation and compilation are not (``setup_seconds``)
    prepare_seconds: float = 0.0
    state: ChainState | None = field(default=None, repr=False, compare=False)


def default_seed() -> int:
    return int.from_bytes(os.urandom(8), "little") >> 1


@dataclass(frozen=True)
class Options:
    """How a run goes: every keyword of ``anneal`` and ``anneal_many`` but the backend and the callbacks, declared
    once. The Dask functions (``gpu_sa.apps.distributed``) take the same keywords and hand one object to every
    task; the command line builds one from its options. Values are checked when the object is made; what needs
    the puzzle's move is checked by ``budget``."""

    move: str | None = None  # the kind's move set (None: the puzzle's default)
    chains: int | None = None  # chains per puzzle (None: the backend's default)
    seed: int | None = None  # 64-bit seed (None: drawn when the run starts, and reported)
    schedule: schedule_module.Schedule | None = None  # None: default_schedule(move), default_ladder with replicas
    max_moves: int | None = None  # per chain and trial (None: the schedule's length)
    trials: int | None = None  # 0 = no limit (None: DEFAULT_TRIALS, or 1 without early stop or with zero moves)
    stall_plateaus: int | None = None  # end a trial once no chain lowered its best cost for this many plateaus
    time_limit: float | None = None  # seconds per puzzle, from its first move
    early_stop: bool = True  # end a trial as soon as a chain solves the puzzle
    chain_base: int = 0  # the first chain index of the first trial
    chunk_moves: int | None = None  # a fixed chunk length instead of the adaptive one (tests)
    keep_state: bool = False  # keep every chain's state in the result (Result.state)
    replicas: int | None = None  # R > 1: groups of R chains on a temperature ladder
    exchange_interval: int | None = None  # moves between replica exchanges (None: one plateau)
    pool_interval: int | None = None  # moves between the chains' elite pool rounds (None: the move's; 0: none)
    propagate: bool = True  # handed to ``puzzle.move`` (Sudoku: the rules first, candidate-aware moves)

    def __post_init__(self):
        if self.chains is not None:
            check_positive_int("chains", self.chains)
        if self.seed is not None:
            object.__setattr__(self, "seed", int(self.seed))
            if not 0 <= self.seed < 2**64:
                raise ValueError(f"seed must be in [0, 2**64), got {self.seed}")
        if self.stall_plateaus is not None:
            check_positive_int("stall_plateaus", self.stall_plateaus)
        if self.time_limit is not None and not self.time_limit > 0:
            raise ValueError(f"time_limit must be positive, got {self.time_limit}")
        if self.exchange_interval is not None:
            check_positive_int("exchange_interval", self.exchange_interval)
        if self.pool_interval is not None and (isinstance(self.pool_interval, bool) or not isinstance(
                self.pool_interval, (int, np.integer)) or self.pool_interval < 0):
            raise ValueError(f"pool_interval must be a whole number of moves, 0 or more, got {self.pool_interval!r}")

    def move_of(self, puzzle) -> AnnealMove:
        if self.move:
            return puzzle.move(self.move, propagate=self.propagate)
        return puzzle.move(propagate=self.propagate)

    def schedule_of(self, anneal_move):
        if self.schedule is not None:
            law = self.schedule
            if self.replicas is not None and self.replicas != law.levels:
                raise ValueError(f"replicas={self.replicas} but the schedule has {law.levels} rung(s)")
            return law
        if self.replicas is not None and self.replicas > 1:
            return default_ladder(anneal_move, self.replicas)
        return default_schedule(anneal_move)

    def budget(self, anneal_move: AnnealMove, law: schedule_module.Schedule, chains: int) -> tuple[int, int]:
        """(moves per chain and trial, trials; 0 = no limit) of ``chains`` chains per puzzle on ``anneal_move``
        under ``law`` (``schedule_of``), checked: a move with nothing to move runs no move and one trial."""
        max_moves = law.total_moves if self.max_moves is None else self.max_moves
        if int(max_moves) != max_moves or max_moves < 0:
            raise ValueError(f"max_moves must be a non-negative integer, got {max_moves}")
        max_moves = int(max_moves) if anneal_move.has_free_variables else 0
        trials = self.trials
        if trials is None:
            trials = DEFAULT_TRIALS if self.early_stop and max_moves > 0 else 1
        if isinstance(trials, bool) or int(trials) != trials or trials < 0:
            raise ValueError(f"trials must be a non-negative integer (0 = no limit), got {trials!r}")
        if trials == 0 and self.time_limit is None and not self.early_stop:
            raise ValueError("unlimited trials need a time limit or early stop")
        if self.chain_base + chains * max(trials, 1) > CHAIN_INDICES:
            raise ValueError("chain indices (chain_base + trials x chains) must stay below 2**32")
        return max_moves, int(trials) if anneal_move.has_free_variables else 1


OPTIONS = tuple(f.name for f in dataclasses.fields(Options))


def options_from(caller: str, options: Options | None, keywords: dict) -> Options:
    """``options`` (default: Options()) with ``keywords`` (fields of Options) replaced; a keyword that is no
    field is the TypeError Python gives a function that lacks it."""
    unknown = sorted(set(keywords) - set(OPTIONS))
    if unknown:
        raise TypeError(f"{caller}() got an unexpected keyword argument {unknown[0]!r}")
    return Options(**keywords) if options is None else dataclasses.replace(options, **keywords)


def taking_the_options(function):
    """``function``'s signature with the fields of ``Options`` as keyword parameters in place of its
    ``**keywords``, for ``help()`` and editors (a call still goes through ``options_from``)."""
    signature = inspect.signature(function)
    kept = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    fields = [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=f.type)
              for f in dataclasses.fields(Options)]
    function.__signature__ = signature.replace(parameters=kept + fields)
    return function


class Hooks(NamedTuple):
    """What a run calls back: ``progress`` with a Progress per chunk and running puzzle (its ``index`` says which);
    ``stop_when`` asked between chunks (true: stop, like a stop request); ``on_ready`` once the chains are set up
    (allocated, compiled), right before their first move; ``on_chunk`` after every chunk (after its progress
    records) with the moves per chain the trial has made."""

    progress: Callable[[Progress], None] | None = None
    stop_when: Callable[[], bool] | None = None
    on_ready: Callable[[], None] | None = None
    on_chunk: Callable[[int], None] | None = None


@taking_the_options
def anneal(puzzle, *, backend="auto", threads_per_chain: int | None = None,
           progress: Callable[[Progress], None] | None = None,
           stop_when: Callable[[], bool] | None = None, on_ready: Callable[[], None] | None = None,
           on_chunk: Callable[[int], None] | None = None, options: Options | None = None, **keywords) -> Result:
    """Anneal ``chains`` independent chains on ``puzzle``; return the best, validated, result.

    ``backend`` is a name from ``gpu_sa.engine.backends.BACKENDS`` or a backend object; with a name,
    ``threads_per_chain`` is the cuda backend's layout (None: the launch plan's choice per move, 1: a thread per
    chain, 32 to 256: a block per chain, for a move that has that layout: ``gpu_sa.engine.plan``), which no
    answer depends on (the other backends take it and run the same chains). The run's settings are
    the fields of ``Options``, given as keywords (``chains=256, seed=1``) or as one ``options`` object (keywords
    then replace its fields). ``schedule`` defaults to ``default_schedule(move)`` (``default_ladder`` with
    ``replicas``); ``max_moves`` (per chain and trial) to its length. A trial runs every chain through the
    schedule; the next trial (up to ``trials``, 0 = no limit; default DEFAULT_TRIALS, or 1 without early stop
    or with zero moves) replaces every chain by a fresh one: trial g runs chain indices chain_base + g * chains
    .. + chains - 1, so restarts replay like everything else. ``stall_plateaus`` is the seed's ad-hoc stop: a
    trial also ends once no chain has lowered its best cost for that many plateaus. ``propagate`` is handed to
    ``puzzle.move`` (Sudoku: the seed-002 rules first, candidate-aware moves; off: the plain moves).
    ``replicas`` R > 1 groups the chains by R on a temperature ladder that exchanges rungs every
    ``exchange_interval`` moves. The callbacks are those of ``Hooks``; ``on_chunk`` costs about 15 us a chunk
    on the CPU. ``chunk_moves`` fixes the chunk length instead of adapting it (tests use it). A stop that comes
    before the puzzle's first trial has run leaves nothing to report: ``gpu_sa.engine.stop.Interrupted`` then.
    """
    options = options_from("anneal", options, keywords)
    for result in anneal_many([puzzle], batch=1, backend=backend, threads_per_chain=threads_per_chain,
                              progress=progress, stop_when=stop_when,
                              on_ready=on_ready, on_chunk=on_chunk, options=options):
        return result
    # not a StopIteration: inside a caller's generator Python turns that into 'RuntimeError: generator raised ...'
    raise stop_module.Interrupted("setting up the chains")


@taking_the_options
def anneal_many(puzzles: Iterable, *, batch: int | None = None, backend="auto", threads_per_chain: int | None = None,
                progress: Callable[[Progress], None] | None = None, stop_when: Callable[[], bool] | None = None,
                on_ready: Callable[[], None] | None = None, on_chunk: Callable[[int], None] | None = None,
                options: Options | None = None, **keywords) -> Iterator[Result]:
    """Anneal every puzzle of ``puzzles``, ``batch`` at a time in one launch; yield results in input order.

    Options as for ``anneal`` (``time_limit`` is per puzzle), and ``threads_per_chain`` too. Consecutive puzzles
    whose moves cannot share a launch (another shape or schedule) start a new batch. ``batch`` defaults to
    enough puzzles for four times the backend's default chain count (``backend.default_chains``) in
    one launch; ``batch=1`` anneals one puzzle at a time. Without ``chains``, a puzzle gets
    ``backend.default_chains`` when it runs alone (``batch=1``, or a single puzzle) and
    ``backend.dataset_chains`` when several share the launches (the same on the CPU; on a GPU, a
    share of the device instead of all of it). A chain's trajectory never depends on the batch: for
    the same ``chains``, every answer is the same alone or batched. ``progress`` gets a record per chunk for each
    puzzle still in its trial, of its own chains (``Progress.index``: its position in ``puzzles``).
    """
    entered = time.perf_counter()  # a generator's body runs at the first next(): the caller's clock is running
    threads_per_chain = check_threads_per_chain(threads_per_chain, backend)
    if isinstance(backend, str) and backend != "auto":  # auto is decided at the first puzzle's move (its cpu_preferred)
        backend, _ = backends_module.select(backend, threads_per_chain=threads_per_chain)
    options = options_from("anneal_many", options, keywords)
    if options.seed is None:
        options = dataclasses.replace(options, seed=default_seed())
    if batch is not None:
        check_positive_int("batch", batch)
    hooks = Hooks(progress, stop_when, on_ready, on_chunk)
    source = _Source(puzzles, options)
    since = (entered, 0.0)  # (when this batch's set-up began, the source's preparation seconds by then)
    with _interrupts():
        while source.peek() is not None and not stop_module.requested() and not (stop_when is not None and stop_when()):
            first = source.peek()[2]
            if isinstance(backend, str):  # auto, decided once: by the first puzzle's move (a file holds one kind)
                backend, _ = backends_module.select(backend, cpu_preferred=first.cpu_preferred,
                                                    threads_per_chain=threads_per_chain)
            shared = batch != 1 and source.more_than_one()
            rows = options.chains or (backend.dataset_chains(first) if shared else backend.default_chains(first))
            size = batch or max(1, backend.default_chains(first) * 4 // rows)
            most = backend.max_rows(first)  # the cuda kernels' 32-bit strides: a launch holds at most this many rows
            if most is not None:
                size = max(1, min(size, most // rows))
            yield from _Batch(backend, options, hooks, source, size, rows, since).run()
            since = (time.perf_counter(), source.prepared_seconds)


_warmed_moves: set = set()  # (puzzle type, specialization, move, propagate) whose move building has run here


class _Source:
    """The input puzzles, numbered, with their moves; a batch takes the next one only if it fits."""

    def __init__(self, puzzles, options):
        self._items = enumerate(puzzles)
        self._options = options
        self._next = None
        self._after = None  # the puzzle after the next one, once more_than_one() has looked
        self.prepared_seconds = 0.0  # building moves and stand-ins' moves so far (accounted per puzzle)

    def peek(self):
        """The next puzzle's item (``_prepared``), or None at the end."""
        if self._next is None:
            for index, puzzle in self._items:
                self._next = self._prepared(index, puzzle)
                break
        return self._next

    def _prepared(self, index, puzzle):
        """The item of a puzzle: (index, puzzle, move, seconds the move took, seconds of its warm-up). A puzzle that
        offers a stand-in (``puzzle.stand_in()``) has the stand-in's move built first, once per specialization in the
        process: the first build loads machine code (10 ms at 36x36), which is setup, not work on the puzzle."""
        load_seconds = 0.0
        if hasattr(puzzle, "stand_in"):
            key = (type(puzzle), puzzle.specialization, self._options.move, self._options.propagate)
            if key not in _warmed_moves:
                start = time.perf_counter()
                self._options.move_of(puzzle.stand_in())
                _warmed_moves.add(key)
                load_seconds = time.perf_counter() - start
        start = time.perf_counter()
        move = self._options.move_of(puzzle)
        prepare_seconds = time.perf_counter() - start
        self.prepared_seconds += prepare_seconds + load_seconds
        return index, puzzle, move, prepare_seconds, load_seconds

    def more_than_one(self) -> bool:
        """Whether another puzzle follows the next one (reads one puzzle ahead)."""
        if self.peek() is None:
            return False
        if self._after is None:
            for index, puzzle in self._items:
                self._after = self._prepared(index, puzzle)
                break
        return self._after is not None

    def take(self, first: AnnealMove | None):
        """The next puzzle if it can share a launch with ``first`` (any, if None), else None."""
        item = self.peek()
        if item is None or (first is not None and not _compatible(first, item[2], self._options)):
            return None
        self._next, self._after = self._after, None
        return item


def _compatible(first: AnnealMove, other: AnnealMove, options) -> bool:
    """Whether two moves can share a launch: same kernel, shapes, schedule; equal shared tables."""
    shared = getattr(first.tables, "SHARED", ())
    if not (other.kernel is first.kernel and type(other.tables) is type(first.tables)
            and other.plateau_length == first.plateau_length
            and other.has_free_variables == first.has_free_variables
            and options.schedule_of(other) == options.schedule_of(first)):
        return False
    for name, a, b in zip(first.tables._fields, first.tables, other.tables):
        if name in shared and not np.array_equal(a, b):
            return False
    return True


@dataclass
class _Slot:
    """One puzzle in a batch: its trial, its best so far, its accounting."""

    index: int
    puzzle: object
    move: AnnealMove
    prepare_seconds: float = 0.0  # building ``move``, counted in the result's seconds
    load_seconds: float = 0.0  # its stand-in's move built first (machine code loaded), counted as setup
    trial: int = 0
    best: tuple | None = None  # (cost, chain, chain_moves, configuration)
    moves: int = 0  # moves done while running, over every trial
    trial_moves: int = 0  # moves done while running, this trial
    started: float | None = None  # when its first round began
    deadline: stop_module.Deadline = stop_module.Deadline()  # its time limit, from ``started``
    stopped: str | None = None  # why its current trial ended (None: running)
    finished: bool = False
    exchanged: np.ndarray | None = None  # replica exchange: accepted per pair of rungs, over trials
    attempted: np.ndarray | None = None  # attempted per pair of rungs, over trials
    host: ChainState | None = None


def exchange_attempts(pairs: int, rounds: int, groups: int) -> np.ndarray:
    """Attempts of each rung pair after ``rounds`` exchange rounds: pair p tries on rounds r = p mod 2."""
    return np.array([(rounds // 2 if p % 2 == 0 else (rounds + 1) // 2) * groups for p in range(pairs)],
                    dtype=np.int64)


class _Batch:
    """Up to ``size`` puzzles sharing one state and one clock (see the module docstring)."""

    def __init__(self, backend, options, hooks, source, size, rows, since):
        self.backend, self.options, self.hooks, self.source, self.size = backend, options, hooks, source, size
        self.since = since  # (when its set-up began, source.prepared_seconds then): see run()
        first = source.take(None)
        self.first_move = first[2]
        self.schedule = options.schedule_of(self.first_move)
        self.replicas = self.schedule.levels
        if options.chains is None:  # the backend's default, rounded down to whole replica groups
            rows = max(self.replicas, rows - rows % self.replicas)
        if rows % self.replicas:
            raise ValueError(f"chains ({rows}) must be a multiple of the replicas ({self.replicas})")
        self.max_moves, self.trials = options.budget(self.first_move, self.schedule, rows)
        self.interval = options.exchange_interval or self.schedule.plateau_length
        pooling = self.first_move.pool_interval if options.pool_interval is None else options.pool_interval
        self.pool_interval = np.int64(pooling) if pooling else NO_POOL
        # a ladder's is made for the puzzles in the slots (_restack)
        self.exchange_table = None if self.replicas > 1 else np.zeros((1, 1), dtype=np.uint32)
        self.key0, self.key1 = rng.split_seed(options.seed)
        self.rows = rows
        self.slots: list[_Slot | None] = [_Slot(*first)]
        self.order: list[int] = [first[0]]  # input indices taken, in order: results leave in this order
        self.done: dict[int, Result] = {}
        self._fill()

    # -- launch arguments -------------------------------------------------------------------------

    def chains_for(self, active) -> Chains:
        bases = np.array([self.options.chain_base + (slot.trial if slot else 0) * self.rows for slot in self.slots],
                         dtype=np.int64)
        return Chains(per_puzzle=np.int64(self.rows), bases=bases, active=np.asarray(active, dtype=np.uint8),
                      key0=self.key0, key1=self.key1, replicas=np.int64(self.replicas))

    def chunk(self, move_begin, move_end) -> Chunk:
        length = self.schedule.plateau_length
        first, stop = move_begin // length, max(move_end - 1, move_begin) // length + 1
        return Chunk(move_begin=np.int64(move_begin), move_end=np.int64(move_end), plateau_begin=np.int64(first),
                     plateau_length=np.int64(length),
                     thresholds=self.schedule.acceptance_rows(first, stop, self.move.max_delta),
                     exchange_interval=np.int64(self.interval) if self.replicas > 1 else NO_EXCHANGE,
                     exchange_table=self.exchange_table, pool_interval=self.pool_interval)

    def _rows(self, position):
        return slice(position * self.rows, (position + 1) * self.rows)

    # -- the loop -----------------------------------------------------------------------------------

    def run(self) -> Iterator[Result]:
        backend = self.backend
        self._restack()
        with self._setting_up():
            self.state = backend.allocate(self.move, self.rows * len(self.slots))
            starting = [True] * len(self.slots)
            ready = backend.init(self.state, self.move, self.chains_for(starting), halted=self._halted)
        if not ready:
            yield from self._abandon(starting)
            return
        # A launch of zero moves compiles the advance code (seconds with numba) and changes nothing,
        # so ``seconds`` measures annealing alone.
        backend.advance(self.state, self.move, self.chains_for(starting), self.chunk(0, 0))
        # everything since the set-up began but building the puzzles' moves, which each result accounts for itself
        began, prepared = self.since
        self.setup_seconds = time.perf_counter() - began - (self.source.prepared_seconds - prepared)
        if self.hooks.on_ready is not None:
            self.hooks.on_ready()
        while True:
            self._round()
            yield from self._emit()
            starting = self._next_round()
            if not any(starting):
                break
            if not self._state_fits():
                with self._setting_up():
                    self.state = backend.allocate(self.move, self.rows * len(self.slots))
            if not backend.init(self.state, self.move, self.chains_for(starting), halted=self._halted):
                yield from self._abandon(starting)
                return
        yield from self._emit()

    def _setting_up(self):
        """The set-up step's context (what ``limits`` names if memory runs out), for the stacked tables."""
        rows = self.rows * len(self.slots)
        return limits.doing(f"setting up the chains' state ({rows:,} chains, "
                            f"{limits.format_bytes(state_bytes(self.move, rows))}; fewer --chains take less)")

    def _state_fits(self) -> bool:
        """Whether the allocated state has the shapes the restacked tables want. A move whose state widths follow
        the puzzle (``tabu``: the batch's most free cells) needs a wider state when a puzzle with more free cells
        takes a slot; every slot starts afresh at a round's end, so the state is then simply allocated again."""
        rows = self.rows * len(self.slots)
        return all(tuple(getattr(self.state, name).shape) == shape and getattr(self.state, name).dtype == dtype
                   for name, shape, dtype in state_arrays(self.move, rows))

    def _halted(self) -> bool:
        """A stop request (the process's flag, or ``stop_when``): asked between pieces of the chains' set-up."""
        return stop_module.requested() or (self.hooks.stop_when is not None and self.hooks.stop_when())

    def _abandon(self, starting):
        """A stop came while fresh chains were being set up: a puzzle that has run a trial reports its best (the
        trial being set up never ran); one that has not reports nothing, like a puzzle the stop came before
        (it is the newest taken, so every earlier result still leaves in order)."""
        for position, flag in enumerate(starting):
            slot = self.slots[position]
            if flag and slot is not None and slot.best is not None:
                slot.trial -= 1
                slot.stopped, slot.finished = "interrupted", True
                self._finish(slot)  # no chains' state to keep: their rows are half set up
        yield from self._emit()

    def _fill(self):
        """Take puzzles from the input into empty slots (and new ones until the state is allocated)."""
        for position in range(self.size if not hasattr(self, "state") else len(self.slots)):
            if position < len(self.slots) and self.slots[position] is not None:
                continue
            item = self.source.take(self.first_move)
            if item is None:
                break
            if position < len(self.slots):
                self.slots[position] = _Slot(*item)
            else:
                self.slots.append(_Slot(*item))
            self.order.append(item[0])

    def _restack(self):
        live = next(slot.move for slot in self.slots if slot is not None)
        self.move = stack_moves([slot.move if slot is not None else live for slot in self.slots])
        if self.replicas > 1:
            # as wide as the costs of the puzzles in the slots can be apart; a wider table decides the same (the
            # columns it adds are gaps that never occur), so it is made again only when a puzzle needs more
            rungs = self.schedule.rungs()
            table = self.exchange_table
            if table is None or exchange_shape(rungs, self.move.cost_bound)[1] > table.shape[1]:
                self.exchange_table = exchange_table(rungs, self.move.cost_bound)

    def _next_round(self):
        """At a round's end: unsolved puzzles start their next trial, finished ones leave their slot."""
        if stop_module.requested():
            return [False] * len(self.slots)
        before = [slot.index if slot else None for slot in self.slots]
        for position, slot in enumerate(self.slots):
            if slot is not None and slot.finished:
                self.slots[position] = None
        self._fill()
        if all(slot is None for slot in self.slots):
            return [False] * len(self.slots)
        if [slot.index if slot else None for slot in self.slots] != before:
            self._restack()
        starting = []
        for slot in self.slots:
            if slot is not None and slot.stopped is not None:  # an unfinished puzzle: its next trial
                slot.trial += 1
                slot.trial_moves = 0
                slot.stopped = None
            starting.append(slot is not None)
        return starting

    def _round(self):
        """One trial's worth of moves for every slot that has a trial to run."""
        backend, options, hooks, length = self.backend, self.options, self.hooks, self.schedule.plateau_length
        running = [slot is not None and not slot.finished for slot in self.slots]
        stall_moves = None if options.stall_plateaus is None else options.stall_plateaus * length
        floor = first_chunk(length, self.rows * sum(running))
        # the early-stop cap is for the local search's few long chains (moves with chains_per_core); the annealers'
        # many chains keep the doubling chunks (capped, 81-move chunks of a 9x9 on the web page delayed its Stop)
        few_chains = self.move.chains_per_core is not None
        chunk = options.chunk_moves or floor
        most_plateaus = chunk_plateaus(self.replicas, self.move.max_delta)
        moves_done = 0
        start = time.perf_counter()
        for slot, flag in zip(self.slots, running):
            if flag and slot.started is None:
                slot.started = start
                slot.deadline = stop_module.Deadline.after(options.time_limit, start=start)
        lowest, latest = backend.summary(self.state, self.rows)
        self._check_solved(running, lowest)
        accepted_before = backend.current(self.state)[1].copy() if hooks.progress is not None else None
        while moves_done < self.max_moves and any(running):
            if stop_module.requested() or (hooks.stop_when is not None and hooks.stop_when()):
                for position in range(len(self.slots)):
                    if running[position]:
                        self._end_trial(position, "interrupted", running)
                break
            end = min(self.max_moves, moves_done + chunk)
            if stall_moves is not None:
                # end the chunk exactly at the earliest stall deadline, so stops do not depend on chunking
                for position, flag in enumerate(running):
                    if flag:
                        end = min(end, int(latest[position]) + stall_moves)
            launch_start = time.perf_counter()
            backend.advance(self.state, self.move, self.chains_for(running), self.chunk(moves_done, end))
            launch_seconds = time.perf_counter() - launch_start
            launched, moves_done = end - moves_done, end
            for slot, flag in zip(self.slots, running):
                if flag:
                    slot.moves += launched
                    slot.trial_moves += launched
            lowest, latest = backend.summary(self.state, self.rows)
            now = time.perf_counter()
            chunk_seconds = now - launch_start  # the launch and the summary: what delays the next stop check
            if hooks.progress is not None:
                accepted_before = self._report(running, lowest, launched,
                                               getattr(backend, "kernel_seconds", None) or launch_seconds,
                                               moves_done, accepted_before, now - start)
            if hooks.on_chunk is not None:
                hooks.on_chunk(moves_done)
            self._check_solved(running, lowest)
            for position, slot in enumerate(self.slots):
                if not running[position]:
                    continue
                if slot.deadline.passed(now):
                    self._end_trial(position, "time_limit", running)
                elif stall_moves is not None and moves_done >= int(latest[position]) + stall_moves:
                    self._end_trial(position, "stalled", running)
            if options.chunk_moves is None:
                chunk = _next_chunk(chunk, launched, chunk_seconds, length, self._time_left(running, now),
                                    early_stop=(floor, moves_done) if options.early_stop and few_chains else None,
                                    most_plateaus=most_plateaus)
        for position in range(len(self.slots)):
            if running[position]:
                self._end_trial(position, "max_moves", running)

    def _time_left(self, running, now):
        if self.options.time_limit is None or not any(running):
            return None
        return min(slot.deadline.left(now) for slot, flag in zip(self.slots, running) if flag)

    def _check_solved(self, running, lowest):
        if self.options.early_stop:
            for position, flag in enumerate(running):
                if flag and lowest[position] == 0:
                    self._end_trial(position, "solved", running)

    def _end_trial(self, position, reason, running):
        """The slot's trial is over: keep its best; finish the puzzle unless another trial follows."""
        slot = self.slots[position]
        running[position] = False
        slot.stopped = reason
        candidate = self._best_of_trial(position)
        if slot.best is None or candidate[0] < slot.best[0]:
            slot.best = candidate
        if self.replicas > 1:
            _, exchanges = self.backend.levels(self.state)
            groups = np.asarray(exchanges[self._rows(position)]).reshape(-1, self.replicas)
            accepted = groups[:, :-1].sum(axis=0).astype(np.int64)
            attempted = exchange_attempts(self.replicas - 1, slot.trial_moves // self.interval, groups.shape[0])
            slot.exchanged = accepted if slot.exchanged is None else slot.exchanged + accepted
            slot.attempted = attempted if slot.attempted is None else slot.attempted + attempted
        next_base = self.options.chain_base + (slot.trial + 1) * self.rows
        if (reason in ("solved", "time_limit", "interrupted") or (self.trials and slot.trial + 1 >= self.trials)
                or self.max_moves == 0 or next_base + self.rows > CHAIN_INDICES):
            slot.finished = True
            if self.options.keep_state:
                host = self.backend.to_host(self.state)
                slot.host = ChainState(*(np.array(a[self._rows(position)]) for a in host))
            self._finish(slot)

    def _best_of_trial(self, position):
        """(cost, chain, moves it needed, configuration) of the slot's best chain; fetches one row only."""
        slot = self.slots[position]
        row, lowest, move = self.backend.best_row(self.state, position * self.rows, self.rows)
        chain = self.options.chain_base + slot.trial * self.rows + (row - position * self.rows)
        grid = self.backend.best_config_row(self.state, row).astype(np.int64)[:slot.move.config_size]
        return lowest, chain, move, grid

    def _finish(self, slot):
        cost, chain, chain_moves, grid = slot.best
        solved = cost == 0
        if solved:
            violations = slot.puzzle.check(grid)
            if violations:
                raise RuntimeError(f"internal error: chain {chain} reached cost 0 but the validator "
                                   f"rejects its grid: {violations[0]}")
        rates = ()
        if slot.attempted is not None:
            rates = tuple(float(a) / int(t) if t else 0.0 for a, t in zip(slot.exchanged, slot.attempted))
        self.done[slot.index] = Result(
            solved=solved, solution=grid if solved else None, best=grid, cost=cost, chain=chain,
            chain_moves=chain_moves, moves=slot.moves, proposals=slot.moves * self.rows,
            seconds=slot.prepare_seconds + time.perf_counter() - slot.started,
            setup_seconds=self.setup_seconds + slot.load_seconds, backend=self.backend.name,
            seed=self.options.seed, chains=self.rows, trials=slot.trial + 1, stopped=slot.stopped,
            schedule=self.schedule.describe(), replicas=self.replicas, exchange_rates=rates,
            pool_interval=0 if self.pool_interval == NO_POOL else int(self.pool_interval), index=slot.index,
            state=slot.host, prepare_seconds=slot.prepare_seconds)

    def _emit(self):
        while self.order and self.order[0] in self.done:
            yield self.done.pop(self.order.pop(0))

    def _report(self, running, lowest, launched, launch_seconds, moves_done, accepted_before, elapsed):
        """One Progress per running puzzle, in slot order, each of that puzzle's chains alone: records of several
        puzzles mixed into one had a best cost that rose again when the best puzzle left the batch."""
        cost, accepted = self.backend.current(self.state)
        proposals = launched * self.rows  # per puzzle
        plateau = (moves_done - 1) // self.schedule.plateau_length if moves_done else 0
        temperature = float(self.schedule.temperatures(plateau, plateau + 1)[0])
        exchanges = self.backend.levels(self.state)[1] if self.replicas > 1 else None
        for position, flag in enumerate(running):
            if not flag:
                continue
            slot, rows = self.slots[position], self._rows(position)
            rates = ()
            if exchanges is not None:
                per_pair = np.asarray(exchanges[rows]).reshape(-1, self.replicas)[:, :-1].sum(axis=0)
                attempts = exchange_attempts(self.replicas - 1, moves_done // self.interval, self.rows // self.replicas)
                rates = tuple(float(a) / int(t) if t else 0.0 for a, t in zip(per_pair, attempts))
            self.hooks.progress(Progress(
                seconds=elapsed, moves=moves_done, max_moves=self.max_moves, best_cost=int(lowest[position]),
                temperature=temperature, proposals_per_second=proposals / max(launch_seconds, 1e-9),
                trial=slot.trial + 1, plateau=plateau, mean_cost=float(cost[rows].mean()),
                acceptance=float((accepted[rows] - accepted_before[rows]).sum()) / max(proposals, 1),
                exchange_rates=rates, index=slot.index))
        return accepted.copy()


def first_chunk(plateau_length: int, rows: int) -> int:
    """The first chunk's moves: one plateau, or fewer when one plateau of every chain would be more than
    PROBE_PROPOSALS proposals (a 64x64 grid's plateau of 65,536 chains is 268 million proposals, seconds on
    a CPU): this chunk measures the rate, so it must be short whatever the launch."""
    return max(1, min(plateau_length, PROBE_PROPOSALS // max(rows, 1)))


def chunk_plateaus(levels: int, max_delta: int) -> int:
    """Plateaus a chunk may span: MAX_CHUNK_PLATEAUS, fewer where their acceptance rows (``levels`` x (``max_delta``
    + 1) uint32 each, made through float64) would pass CHUNK_TABLE_BYTES (a ladder of 65,536 rungs has 3.8 MiB of
    them per plateau with move swap); one at least. Chunks only decide where a run may stop: no answer changes."""
    return max(1, min(MAX_CHUNK_PLATEAUS, CHUNK_TABLE_BYTES // (levels * (max_delta + 1) * 12)))


def _next_chunk(chunk, launched, chunk_seconds, plateau_length, time_left, early_stop=None,
                most_plateaus=MAX_CHUNK_PLATEAUS):
    """The next chunk's moves, from the last one (``chunk`` planned, ``launched`` run in ``chunk_seconds``):
    doubled while a chunk takes less than half the target (the same sequence whatever the machine, as long
    as chunks are quick), cut down to the measured rate when one took more than twice the target, so that a
    stop request or the time limit waits about TARGET_CHUNK_SECONDS, never a whole plateau of a huge launch.
    ``early_stop`` = (the first chunk's moves, moves done in the trial): a solved chain is seen only at a
    chunk's end, so a chunk is also at most EARLY_STOP_SLACK of the moves done so far (or the first chunk's
    length): chunks that doubled up to the moves done would report a solve up to twice as late as it happened
    (move tabu at 36x36: solved at 93 thousand moves, reported at 165 thousand). Counted in moves, not seconds,
    so that the sequence does not depend on the machine's speed. A chunk spans at most ``most_plateaus`` plateaus
    (``chunk_plateaus``)."""
    if chunk_seconds < TARGET_CHUNK_SECONDS / 2:
        chunk *= 2
    elif chunk_seconds > TARGET_CHUNK_SECONDS * 2:
        chunk = int(launched * TARGET_CHUNK_SECONDS / chunk_seconds)
    if early_stop is not None:
        floor, moves_done = early_stop
        chunk = min(chunk, max(floor, int(moves_done * EARLY_STOP_SLACK)))
    if time_left is not None and chunk_seconds > 0:
        # do not overshoot the time limit by more than about one target chunk
        rate = launched / chunk_seconds
        chunk = min(chunk, int(min(rate * max(time_left, TARGET_CHUNK_SECONDS), MAX_LAUNCH_MOVES)))
    return max(1, min(chunk, most_plateaus * plateau_length, MAX_LAUNCH_MOVES))


def check_threads_per_chain(threads_per_chain, backend="auto") -> int | None:
    """``threads_per_chain`` as a Python int (or None), checked: None or one of ``gpu_sa.options.THREADS_PER_CHAIN``,
    given with a backend's name: a backend object was made with its own layout (``CudaBackend(threads_per_chain=...)``),
    which a second value here would silently contradict. ValueError otherwise."""
    from ..options import THREADS_PER_CHAIN

    if threads_per_chain is None:
        return None
    if not isinstance(threads_per_chain, (int, np.integer)) or isinstance(threads_per_chain, bool) \
            or threads_per_chain not in THREADS_PER_CHAIN:
        raise ValueError(f"threads_per_chain must be None (the launch plan's choice) or one of "
                         f"{', '.join(map(str, THREADS_PER_CHAIN))}, got {threads_per_chain!r}")
    if not isinstance(backend, str):
        raise ValueError("threads_per_chain goes with a backend's name; a backend object keeps its own "
                         "(CudaBackend(threads_per_chain=...))")
    return int(threads_per_chain)


def check_positive_int(name, value):
    if isinstance(value, bool) or int(value) != value or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


class _interrupts:
    """Within a run, the first Ctrl-C asks the loop to stop after the chunk in flight (stop.request),
    unless the program installed its own handler (the command line does); a second one aborts.

    A run forgets a Ctrl-C that stopped an earlier run of the script, but not a request made by code
    (``stop.request()`` from another thread: signal number 0), which stays until ``stop.clear()``: one that
    lands between two rounds of a loop of runs (``generate.grid_stream``'s annealing rounds, ``auto``'s) must
    not be cleared by the next round, or the loop would run on without end."""

    def __init__(self):
        self._previous = None

    def _handle(self, signum, frame):
        stop_module.request(signum)
        signal.signal(signal.SIGINT, self._previous or signal.default_int_handler)

    def __enter__(self):
        if (threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler):
            if stop_module.signal_number():
                stop_module.clear()
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc):
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        return False
