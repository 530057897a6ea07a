"""Backends: where the chains run. ``cuda`` (numba-cuda kernels), ``cpu`` (the same device
functions compiled for the CPU, one slice of chains per core) and ``numpy`` (the plain reference).

All three produce the same trajectories for the same (puzzle, move, schedule, seed, chain).
A backend allocates a ``ChainState`` for a move, then ``init``s and ``advance``s rows of it with
``kernels.Chains`` (which chain each row runs) and ``kernels.Chunk`` (which moves, at which
temperatures); ``best``, ``current`` and ``best_config_row`` read results back.
"""
from __future__ import annotations

import functools
import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import kernels, plan, pool, schedule
from .plan import resident_blocks  # noqa: F401  (the occupancy rules, with the launch plan's device models)
from .contract import (SIMULATOR, AnnealMove, ChainState, addressable_rows, check_addressable, state_arrays,
                    state_bytes)

BACKENDS = ("auto", "cuda", "cpu", "numpy")


class BackendUnavailable(RuntimeError):
    """The requested backend cannot run here; the message says why."""


def _summary(xp, best_cost, best_move, per_puzzle):
    costs = best_cost.reshape(-1, per_puzzle)
    moves = best_move.reshape(-1, per_puzzle)
    lowest, latest = costs.min(axis=1), moves.max(axis=1)
    return (lowest.get(), latest.get()) if xp is not np else (lowest, latest)


def _best_row(xp, costs, moves, first):
    lowest = costs.min()
    key = xp.where(costs == lowest, moves, np.iinfo(np.int64).max)
    earliest = key.min()
    row = int(xp.argmax(key == earliest))  # the first of the earliest: the lowest row
    return first + row, int(lowest), int(earliest)


def available_cores() -> int:
    """Cores this process may run on (the affinity mask, not the machine's count)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


PIECE_SECONDS = 0.05  # cpu init in pieces: a stop request waits about this long (plus one doubling)
DATASET_CHAINS = 2048  # cuda, dataset mode: chains per puzzle when the caller names none (dataset_chains)


class PoolRounds:
    """``advance`` for every backend: the chunk in pieces cut at the rounds of the chains' elite pool
    (``gpu_sa.engine.pool``), the backend's ``_pool_round`` between them; without a pool, the chunk in one piece."""

    def advance(self, state, move, chains, chunk):
        kernel_seconds = 0.0
        pooling = int(chunk.pool_interval) < int(pool.NO_POOL)
        for piece, round_index in pool.pieces(chunk):
            self._advance(state, move, chains, piece)
            kernel_seconds += getattr(self, "kernel_seconds", 0.0) or 0.0
            if round_index or (pooling and chunk.move_begin == chunk.move_end):
                # round 0 (the runner's zero-move launch before its clock) copies nothing, since no chain's best
                # predates move -K: it compiles the round's code there, not inside the first timed round
                self._pool_round(state, move, chains, round_index, int(chunk.pool_interval))
        if hasattr(self, "kernel_seconds"):
            self.kernel_seconds = kernel_seconds


class NumpyBackend(PoolRounds):
    name = "numpy"
    chains_by_default = 64  # the plain reference is slow: a few chains are enough to check it

    def default_chains(self, move) -> int:
        """Chains per puzzle when the caller names none: the move's chains per core where it names them (a
        local search whose chains each want a core of their own), else ``chains_by_default``."""
        if move.chains_per_core is not None:
            return move.chains_per_core * self.cores()
        return self.chains_by_default

    def cores(self) -> int:
        return 1

    def dataset_chains(self, move) -> int:
        """Chains per puzzle when many puzzles share the launches (dataset mode) and the caller names none:
        on the host the same as for one puzzle (the cores are busy either way; bench/batch.py)."""
        return self.default_chains(move)

    def max_rows(self, move) -> int | None:
        """The most chains one launch may hold (every puzzle of a batch together), or None: no limit."""
        return None

    def allocate(self, move: AnnealMove, rows: int) -> ChainState:
        return ChainState(**{field: np.zeros(shape, dtype) for field, shape, dtype in state_arrays(move, rows)})

    def init(self, state, move, chains, halted=None) -> bool:
        """Fresh chains in the rows of active puzzles (the twin fills every row of a scratch state). ``halted``:
        a callable that the cpu backend asks between pieces of the work, giving up (False: the rows are then
        partly fresh) once it says True; here and on cuda the work is one piece, and this returns True."""
        fresh = self.allocate(move, state.cost.shape[0])
        move.reference.init_chains(chains, move.tables, fresh)
        rows = np.repeat(np.asarray(chains.active) != 0, int(chains.per_puzzle))
        for mine, new in zip(state, fresh):
            mine[rows] = new[rows]
        return True

    def _advance(self, state, move, chains, chunk):
        move.reference.advance_chains(chains, chunk, move.tables, state)

    def _pool_round(self, state, move, chains, round_index, interval):
        from cpu_ref.pool import pool_round  # the twin, as the moves' own are

        pool_round(chains, round_index, interval, move.pool_kept, state)

    def best(self, state):
        return state.best_cost, state.best_move

    def summary(self, state, per_puzzle):
        """Per puzzle slot of ``per_puzzle`` rows: (lowest best cost, latest move a chain improved at)."""
        return _summary(np, state.best_cost, state.best_move, per_puzzle)

    def best_row(self, state, first, count):
        """The reported chain among rows [first, first + count): lowest best cost, then earliest move that
        reached it, then lowest row. Returns (row, its best cost, its best move)."""
        return _best_row(np, state.best_cost[first:first + count], state.best_move[first:first + count], first)

    def current(self, state):
        """(cost, accepted) of every chain, on the host."""
        return state.cost, state.accepted

    def levels(self, state):
        """(level, exchanges) of every chain, on the host."""
        return state.level, state.exchanges

    def best_config_row(self, state, row):
        return np.array(state.best_config[row])

    def to_host(self, state):
        return state

    def describe_launch(self, rows, move=None):
        return f"{rows:,} chains"


class CpuBackend(NumpyBackend):
    name = "cpu"
    chains_by_default = 256  # measured (bench/tts.py): enough restarts in parallel, and every core busy

    def __init__(self, threads: int | None = None):
        self.threads = threads or available_cores()
        self._pool = None

    def cores(self) -> int:
        return self.threads

    def _run_slices(self, function, chains, *args, halted=None) -> bool:
        """Run ``function(row_begin, row_end, *args)`` on one slice of rows per thread.

        Slices hold whole replica groups (a group's exchanges happen inside one thread) and split
        the rows of active puzzles evenly, so that solved puzzles of a batch leave no core idle.
        With ``halted``, every slice goes in pieces of whole groups, doubled while a round of pieces
        takes less than PIECE_SECONDS, and ``halted()`` is asked between rounds: True gives up (returns
        False). Each row's work depends on the row alone, so the pieces change nothing in the result.
        """
        per_puzzle, replicas = int(chains.per_puzzle), int(chains.replicas)
        groups_per_puzzle = per_puzzle // replicas
        active = np.flatnonzero(np.asarray(chains.active))
        groups = (active[:, None] * groups_per_puzzle + np.arange(groups_per_puzzle)[None, :]).reshape(-1)
        if groups.size == 0:
            return True
        parts = [part for part in np.array_split(groups, min(self.threads, groups.size)) if part.size]
        slices = [(int(part[0]) * replicas, (int(part[-1]) + 1) * replicas) for part in parts]
        if halted is None:
            self._run_pieces(function, slices, args)
            return True
        step = replicas
        while slices:
            if halted():
                return False
            started = time.perf_counter()
            self._run_pieces(function, [(begin, min(begin + step, end)) for begin, end in slices], args)
            slices = [(begin + step, end) for begin, end in slices if begin + step < end]
            if time.perf_counter() - started < PIECE_SECONDS:
                step *= 2
        return True

    def _run_pieces(self, function, pieces, args):
        if len(pieces) == 1:
            function(pieces[0][0], pieces[0][1], *args)
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="gpu-sa-cpu")
        for future in [self._pool.submit(function, begin, end, *args) for begin, end in pieces]:
            future.result()

    def init(self, state, move, chains, halted=None) -> bool:
        glue = kernels.cpu_glue(move.kernel)
        return self._run_slices(glue.init, chains, chains, move.tables, state, halted=halted)

    def _advance(self, state, move, chains, chunk):
        glue = kernels.cpu_glue(move.kernel)
        self._run_slices(glue.advance, chains, chains, chunk, move.tables, state)

    def _pool_round(self, state, move, chains, round_index, interval):
        kernels.cpu_glue(move.kernel).pool(chains, np.int64(round_index), np.int64(interval),
                                           np.asarray(move.pool_kept, np.int64), np.empty(state.cost.shape[0], np.int64),
                                           state)

    def describe_launch(self, rows, move=None):
        return f"{rows:,} chains on {self.threads} thread{'s' * (self.threads != 1)}"


@functools.cache
def cuda_device_facts() -> dict:
    """The current device's name and the per-SM limits occupancy depends on."""
    from numba import cuda

    device = cuda.get_current_device()
    name = device.name.decode() if isinstance(device.name, bytes) else device.name
    facts = {"name": name}
    for key, spellings in DEVICE_ATTRIBUTES.items():
        facts[key] = int(_device_attribute(device, spellings))
    return facts


# facts key -> the numba-cuda Device attribute, in each spelling numba-cuda has used: it reads NAME as cuda.bindings'
# CUdevice_attribute "CU_DEVICE_ATTRIBUTE_" + NAME (NVIDIA's enum, the only binding of numba-cuda 0.30), older
# releases' ctypes binding had its own enum, which spells one of them MAX_THREADS_PER_MULTI_PROCESSOR. Only that
# spelling was here at first, and it kept the first GPU this project ran on (an H200, numba-cuda 0.30.4) from being
# used at all; tests/engine/test_contract.py checks the names against the installed enum.
DEVICE_ATTRIBUTES = {"sms": ("MULTIPROCESSOR_COUNT",),
                     "threads_per_sm": ("MAX_THREADS_PER_MULTIPROCESSOR", "MAX_THREADS_PER_MULTI_PROCESSOR"),
                     "registers_per_sm": ("MAX_REGISTERS_PER_MULTIPROCESSOR",),
                     "blocks_per_sm": ("MAX_BLOCKS_PER_MULTIPROCESSOR",),
                     "shared_per_sm": ("MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",)}


def _device_attribute(device, spellings):
    """The first spelling ``device`` knows (numba-cuda raises AttributeError for a name its enum lacks)."""
    for spelling in spellings[:-1]:
        try:
            return getattr(device, spelling)
        except AttributeError:
            continue
    return getattr(device, spellings[-1])


class CudaBackend(PoolRounds):
    """Two layouts of a chain on the device. One thread per chain (``threads_per_chain`` 1): every move's kernel,
    blocks of 128 chains, state arrays Fortran ordered ([slot][chain] in memory, so that a warp's 32 chains read
    one slot together). One block of T threads per chain (a move's cooperative kernel, ``AnnealMove.cooperative``):
    state arrays C ordered (a chain's slots contiguous, so that the block's threads read them together). The
    layout is chosen per move (``gpu_sa.engine.plan.threads_for``); no answer depends on it."""

    name = "cuda"
    threads_per_block = 128

    def __init__(self, threads_per_chain: int | None = None):
        from numba import cuda

        self._cuda = cuda
        self._tables_of = None  # the move whose constant tables are on the device now
        self._tables = None
        self.threads_per_chain = threads_per_chain  # None: the plan's choice per move

    def layout_threads(self, move) -> int:
        """Threads per chain for ``move``: as asked, or the plan's choice (1: the one-thread layout)."""
        return plan.threads_for(move, self.threads_per_chain)

    def default_chains(self, move) -> int:
        """Enough chains to fill the device: SMs x blocks resident per SM at the advance kernel's
        registers and shared memory x threads per block (``launch_plan``), within ``max_rows``, and within
        half of the device's free memory (a 64x64 chain of move ``tabu`` holds about 1 MB)."""
        chains = min(self.launch_plan(move)["chains"], self.max_rows(move))
        if not SIMULATOR:
            free, _ = self._cuda.current_context().get_memory_info()
            chains = min(chains, max(self.threads_per_block, free // 2 // max(1, state_bytes(move, 1))))
        return chains

    def max_rows(self, move) -> int:
        """The kernels step through a chain's state with 32-bit strides (``gpu_sa.engine.contract.item``): at most
        ``moves.addressable_rows`` chains per launch (4,294,967,295 for one-byte state)."""
        return addressable_rows(move)

    def dataset_chains(self, move) -> int:
        """In dataset mode the device is filled with puzzles, not with one puzzle's chains: a puzzle gets
        at most DATASET_CHAINS (one 9x9 puzzle's hundreds of thousands of chains would spend the whole
        device on it while the others wait; the figure is a choice awaiting a GPU measurement)."""
        return min(self.default_chains(move), DATASET_CHAINS)

    def launch_plan(self, move) -> dict:
        """How the advance kernel of ``move`` fills this device: registers, shared bytes, resident blocks per SM,
        occupancy (resident warps / the SM's most), and the chain count that fills every SM."""
        threads = self.layout_threads(move)
        if SIMULATOR:
            return {"chains": NumpyBackend.chains_by_default, "registers": 0, "shared": 0, "blocks_per_sm": 1,
                    "occupancy": 0.0, "sms": 1, "threads_per_chain": threads}
        facts = cuda_device_facts()
        if threads > 1:  # one block per chain: as many chains as blocks stay resident (more would wait their turn)
            registers = plan.COOPERATIVE_SASS[move.name]["registers"]  # a bound tests/benchmarks/test_sass.py checks
            shared = plan.cooperative_module(move).shared_bytes(move.tables.n_values)
            blocks = resident_blocks(registers=registers, shared=shared, threads=threads, facts=facts)
            return {"chains": facts["sms"] * blocks, "registers": registers, "shared": shared, "blocks_per_sm": blocks,
                    "occupancy": blocks * -(-threads // 32) / (facts["threads_per_sm"] // 32), "sms": facts["sms"],
                    "threads_per_chain": threads}
        kernel = self._compiled_advance(move)
        registers, shared = kernel.get_regs_per_thread(), kernel.get_shared_mem_per_block()
        blocks = resident_blocks(registers=registers, shared=shared, threads=self.threads_per_block, facts=facts)
        warps = blocks * self.threads_per_block // 32
        return {"chains": facts["sms"] * blocks * self.threads_per_block, "registers": registers, "shared": shared,
                "blocks_per_sm": blocks, "occupancy": warps / (facts["threads_per_sm"] // 32), "sms": facts["sms"],
                "threads_per_chain": 1}

    def _compiled_advance(self, move):
        """The advance kernel of ``move`` specialised for its argument types (typed on a one-chain state)."""
        law = schedule.default_schedule(move)
        stage = kernels.stage_shape(1, move.max_delta + 1)
        glue = kernels.cuda_glue(move.kernel, stage)
        state = self.allocate(move, 1)
        chains = kernels.Chains(per_puzzle=np.int64(1), bases=np.zeros(1, np.int64), active=np.ones(1, np.uint8),
                                key0=np.uint32(0), key1=np.uint32(0), replicas=np.int64(1))
        table = law.acceptance_rows(0, 1, move.max_delta)
        if stage is not None:
            table = np.zeros((1,) + stage[1:], dtype=np.uint32)
        chunk = kernels.Chunk(move_begin=np.int64(0), move_end=np.int64(0), plateau_begin=np.int64(0),
                              plateau_length=np.int64(law.plateau_length), thresholds=self._cuda.to_device(table),
                              exchange_interval=kernels.NO_EXCHANGE,
                              exchange_table=self._cuda.to_device(np.zeros((1, 1), np.uint32)))
        return glue.advance.specialize(self._chains(chains), chunk, self._device_tables(move), state)

    def describe_launch(self, rows, move=None):
        threads = self.layout_threads(move) if move is not None else 1
        if threads > 1:
            text = f"{rows:,} chains, one block of {threads} threads each"
            if not SIMULATOR:
                fill = self.launch_plan(move)
                text += (f" on {fill['sms']} SMs ({fill['blocks_per_sm']} chains per SM: {fill['occupancy']:.0%} "
                         f"occupancy, {fill['shared']:,} bytes of shared memory a chain)")
            if self.threads_per_chain is None:
                text += f"; the launch plan's layout: {plan.choose(move)[1]}"
            return text
        blocks = (rows + self.threads_per_block - 1) // self.threads_per_block
        text = f"{rows:,} chains in {blocks:,} block{'s' * (blocks != 1)} of {self.threads_per_block} threads"
        if move is not None and not SIMULATOR:
            fill = self.launch_plan(move)
            text += (f" on {fill['sms']} SMs ({fill['blocks_per_sm']} blocks per SM: {fill['occupancy']:.0%} occupancy "
                     f"at {fill['registers']} registers)")
        return text

    def _device_tables(self, move):
        if move is not self._tables_of:  # a run uses one move: copy its tables once
            self._tables = type(move.tables)(*(
                self._cuda.to_device(np.ascontiguousarray(t)) if isinstance(t, np.ndarray) else t
                for t in move.tables))
            self._tables_of = move
        return self._tables

    def allocate(self, move, rows):
        """Zeroed device arrays (rows of puzzles that never run must compare equal across backends)."""
        check_addressable(move, rows)  # the kernels' 32-bit strides (gpu_sa.engine.contract.item)
        cuda = self._cuda
        order = "C" if self.layout_threads(move) > 1 else "F"
        arrays = {}
        for field, shape, dtype in state_arrays(move, rows):
            array = cuda.device_array(shape, dtype, order=order)
            if 0 in shape:  # a move without this array (most have no ``memory``): nothing to clear
                pass
            elif SIMULATOR:
                array.copy_to_device(np.zeros(shape, dtype, order=order))
            else:
                from numba.cuda.cudadrv.driver import device_memset

                device_memset(array, 0, array.nbytes)
            arrays[field] = array
        return ChainState(**arrays)

    def _launch_shape(self, state):
        rows = state.cost.shape[0]
        return (rows + self.threads_per_block - 1) // self.threads_per_block, self.threads_per_block

    def _chains(self, chains):
        to_device = self._cuda.to_device
        return chains._replace(bases=to_device(chains.bases), active=to_device(chains.active))

    def init(self, state, move, chains, halted=None) -> bool:
        glue = kernels.cuda_glue(move.kernel, None)
        blocks, threads = self._launch_shape(state)
        glue.init[blocks, threads](self._chains(chains), self._device_tables(move), state)
        self._cuda.synchronize()
        return True

    def _advance(self, state, move, chains, chunk):
        """Launch the chunk as pieces that end at replica exchanges (then the exchange kernel runs) and, in the
        one-thread layout, hold at most the shared tile's plateaus; launches queue on the device, one wait at the
        end. The cooperative layout (a block per chain) reads its thresholds from global memory, one row a move."""
        threads_per_chain = self.layout_threads(move)
        levels, width = chunk.thresholds.shape[1:]
        if threads_per_chain > 1:
            cooperative, shared = kernels.cooperative_kernel(move, threads_per_chain)
            stage = None
        else:
            cooperative, stage = None, kernels.stage_shape(levels, width)
        glue = kernels.cuda_glue(move.kernel, stage)
        device_chains, tables = self._chains(chains), self._device_tables(move)
        to_device = self._cuda.to_device
        length, first = int(chunk.plateau_length), int(chunk.plateau_begin)
        exchanging = int(chains.replicas) > 1
        interval = int(chunk.exchange_interval) if exchanging else None
        exchange_table = to_device(chunk.exchange_table) if exchanging else None
        rows = state.cost.shape[0]
        blocks, threads = self._launch_shape(state)
        move_at, end = int(chunk.move_begin), int(chunk.move_end)
        started, finished = self._cuda.event(), self._cuda.event()
        started.record()
        while move_at < end:
            piece_end = end
            if exchanging:
                piece_end = min(piece_end, (move_at // interval + 1) * interval)
            if stage is not None:
                piece_end = min(piece_end, (move_at // length + stage[0]) * length)
            plateau, stop = move_at // length, (piece_end - 1) // length + 1
            rows_of_piece = chunk.thresholds[plateau - first:stop - first]
            if stage is not None:  # padded to the tile's rungs and width: the kernel copies it with shifts
                padded = np.zeros((rows_of_piece.shape[0],) + stage[1:], dtype=np.uint32)
                padded[:, :levels, :width] = rows_of_piece
                rows_of_piece = padded
            piece = chunk._replace(move_begin=np.int64(move_at), move_end=np.int64(piece_end),
                                   plateau_begin=np.int64(plateau), thresholds=to_device(np.ascontiguousarray(rows_of_piece)))
            if cooperative is not None:
                cooperative[rows, threads_per_chain, 0, shared](device_chains, piece, tables, state)
            else:
                glue.advance[blocks, threads](device_chains, piece, tables, state)
            if exchanging and piece_end % interval == 0:
                groups = rows // int(chains.replicas)
                glue.exchange[(groups + threads - 1) // threads, threads](
                    device_chains, np.int64(piece_end // interval), exchange_table, state)
            move_at = piece_end
        finished.record()
        finished.synchronize()
        # device time of the kernels alone (CUDA events), apart from the host's work around them
        self.kernel_seconds = started.elapsed_time(finished) / 1e3

    def _pool_round(self, state, move, chains, round_index, interval):
        choose, copy = kernels.pool_kernels()
        rows = state.cost.shape[0]
        to_device = self._cuda.to_device
        sources = self._cuda.device_array(rows, dtype=np.int64)
        threads = self.threads_per_block
        choose[(rows + threads - 1) // threads, threads](
            np.int64(chains.per_puzzle), to_device(np.asarray(chains.bases)), to_device(np.asarray(chains.active)),
            chains.key0, chains.key1, np.int64(round_index), np.int64(interval), sources, state.best_cost,
            state.best_move)
        copy[rows, pool.COPY_THREADS](sources, to_device(np.asarray(move.pool_kept, np.int64)), state)

    def best(self, state):
        return state.best_cost.copy_to_host(), state.best_move.copy_to_host()

    def summary(self, state, per_puzzle):
        """Reduced on the device with CuPy when it is installed (a few numbers cross the bus, not every
        chain's), else on the host."""
        cupy = _cupy()
        if cupy is None:
            return _summary(np, *self.best(state), per_puzzle)
        return _summary(cupy, cupy.asarray(state.best_cost), cupy.asarray(state.best_move), per_puzzle)

    def best_row(self, state, first, count):
        cupy = _cupy()
        if cupy is None:
            costs, moves = self.best(state)
            return _best_row(np, costs[first:first + count], moves[first:first + count], first)
        return _best_row(cupy, cupy.asarray(state.best_cost)[first:first + count],
                         cupy.asarray(state.best_move)[first:first + count], first)

    def current(self, state):
        return state.cost.copy_to_host(), state.accepted.copy_to_host()

    def levels(self, state):
        return state.level.copy_to_host(), state.exchanges.copy_to_host()

    def best_config_row(self, state, row):
        return state.best_config[row].copy_to_host()

    def to_host(self, state):
        return ChainState(*(a.copy_to_host() for a in state))



@functools.cache
def _cupy():
    """CuPy when it is installed and works here (the cuda12/cuda13 extras), else None: every path runs without it."""
    if SIMULATOR:
        return None
    try:
        import cupy

        cupy.zeros(1).sum().get()
        return cupy
    except Exception:
        return None


@functools.cache
def cuda_status() -> tuple[bool, bool, str]:
    """(usable, simulated, why): whether CUDA kernels compile and run here, and on what. Checked once per
    process, cheapest first: a machine without an NVIDIA driver is told so without importing numba-cuda;
    otherwise one tiny kernel must compile and launch (numba caches it on disk), so that ``auto`` never picks
    a GPU that cannot run the kernels (no NVVM, a driver too old for the toolkit...)."""
    if SIMULATOR:
        return True, True, "NUMBA_ENABLE_CUDASIM=1: kernels run in numba's CUDA simulator (slow, for tests)"
    if not nvidia_driver_present():
        return False, False, "no CUDA GPU or driver found"
    try:
        from numba import cuda
    except Exception as error:  # numba-cuda missing or broken
        return False, False, f"numba-cuda is not importable ({error.__class__.__name__}: {error})"
    try:
        if not cuda.is_available():
            return False, False, "no CUDA GPU or driver found"
        name = cuda_device_facts()["name"]
    except Exception as error:
        return False, False, f"CUDA is present but unusable ({error.__class__.__name__}: {_first_line(error)})"
    from . import compiling

    try:
        compiling.watch_cuda()  # numba-cuda's compilations are announced from here on (the probe's first)
    except Exception:  # noqa: BLE001 - the announcement is a courtesy: an event registry numba-cuda changed again
        pass  # (0.30 refused numba's event kind and made the first GPU unusable) must not cost the GPU itself
    try:
        from . import probe

        probe.launch()
    except Exception as error:
        return False, False, (f"CUDA GPU {name} found, but a test kernel did not compile and run "
                              f"({error.__class__.__name__}: {_first_line(error)}); install the cuda12 or cuda13 extra")
    return True, False, f"CUDA GPU {name}"


def nvidia_driver_present() -> bool:
    """Whether an NVIDIA driver is on this machine (its /proc entry or libcuda), whatever CUDA makes of it."""
    import ctypes.util

    return os.path.exists("/proc/driver/nvidia") or ctypes.util.find_library("cuda") is not None


def _first_line(error) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else "no message"


def select(name: str, *, cpu_preferred: str = "", threads_per_chain: int | None = None):
    """(backend, why) for ``name`` in BACKENDS; raises BackendUnavailable for an impossible choice.

    ``threads_per_chain``: the cuda backend's layout (``CudaBackend``; None: the plan's choice per move); the
    other backends run the same chains whatever it is, so they take it and ignore it.

    ``cpu_preferred``: why the work at hand runs better on the CPU even where a GPU is usable (a move whose
    kernel loses to the CPU cores: ``AnnealMove.cpu_preferred``), "" when it does not; only ``auto`` reads it, so
    ``cuda`` named outright still runs on the GPU."""
    if name not in BACKENDS:
        raise ValueError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
    usable, simulated, why = cuda_status()
    if name == "cuda":
        if not usable:
            raise BackendUnavailable(f"backend cuda is not available: {why}")
        return CudaBackend(threads_per_chain=threads_per_chain), why
    if name == "auto":
        if usable and not simulated:
            if cpu_preferred:
                return CpuBackend(), (f"auto chose cpu over the {why}: {cpu_preferred}; "
                                      "--backend cuda runs it there anyway")
            return CudaBackend(threads_per_chain=threads_per_chain), f"auto chose cuda: {why}"
        return CpuBackend(), f"auto chose cpu: {why}"
    return (CpuBackend() if name == "cpu" else NumpyBackend()), f"backend {name} requested"
