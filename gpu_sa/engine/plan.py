"""The launch plan: which layout runs a move's chains on a GPU, and the moves per second a cost model predicts.

Two layouts (``CudaBackend``): one thread per chain (every move's kernel), and, for a move that has one
(``AnnealMove.cooperative``: move ``tabu``), one block of T threads per chain, its hot state in shared memory. The
plan needs no GPU: it models two devices from their published figures (``DEVICES``), the cooperative kernel from
its machine code (``COOPERATIVE_SASS``, checked against ``bench/sass.py`` by tests/benchmarks/test_sass.py), and a
chain's work per move from measured runs (``PROFILES``).

The cost model of the cooperative layout, per move of one chain (every figure below is a constant of this module):

  instructions per thread  I = the move loop's own instructions (every one, each move: an overestimate)
                             + for each step of the move, the SASS instructions of its loop's body x the passes one
                               thread makes (ceil(items / T)): normal mode: the bitmap's words and the conflicting
                               cells (the cell), N (clearing the counts), 3N peer steps (counting), the cell's
                               candidates (the digit), 3N peer steps (the update); best-move mode: the words, each
                               conflicting cell and its candidates (unrolled, ``unroll`` per pass), the update
  latency (cycles)         I x CYCLES_PER_INSTRUCTION (no two instructions of a thread overlap)
                           + barriers x BARRIER_CYCLES + dependent memory round trips x MEMORY_LATENCY_CYCLES
                             (each pass that loads waits for its load: a cell's index, its candidates, then their
                             marks and counts)
  per device               the least of: resident chains x clock / latency (each chain waits on itself);
                           SMs x ISSUE_PER_SM x clock / (warps per chain x I) (the schedulers issue every warp's
                           instructions); bandwidth / (32-byte sectors touched per move x 32) (every access a DRAM
                           sector, no cache)
  averaged                 over the moves of a measured profile (``profile_for``: the nearest grid measured): a
                           fraction ``best`` in best-move mode, ``conflicting`` x the free cells conflicting

The one-thread layout of move tabu is not modelled but measured: an H200 made 6.0 million moves a second at 49x49
and 3.4 million at 64x64 with it (``ONE_THREAD_MEASURED``, bench/gpu.sh); other sizes follow the power law through
those two points, an H100 the ratio of the two memory bandwidths. Other moves have no prediction (None).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Device:
    """A GPU's published figures (NVIDIA's H100 and H200 data sheets; CUDA's per-SM limits of compute
    capability 9.0)."""

    name: str
    sms: int
    clock_hz: float  # boost clock
    bandwidth: float  # DRAM bytes per second
    registers_per_sm: int = 65536
    threads_per_sm: int = 2048
    blocks_per_sm: int = 32
    shared_per_sm: int = 233472  # 228 KiB

    def facts(self) -> dict:
        """The per-SM limits in the form ``backends.resident_blocks`` reads."""
        return {"sms": self.sms, "registers_per_sm": self.registers_per_sm, "threads_per_sm": self.threads_per_sm,
                "blocks_per_sm": self.blocks_per_sm, "shared_per_sm": self.shared_per_sm}


DEVICES = (Device("H100 SXM", sms=132, clock_hz=1.98e9, bandwidth=3.35e12),
           Device("H200", sms=132, clock_hz=1.98e9, bandwidth=4.8e12))
PLAN_DEVICE = DEVICES[0]  # the device the automatic choice is made for until a device has measured the layouts

# The machine's behaviour the model assumes (documented limits, rounded towards the slow side)
CYCLES_PER_INSTRUCTION = 4  # a thread's dependent integer instructions on sm_90 issue about 4 cycles apart
BARRIER_CYCLES = 40  # a __syncthreads() once every warp has arrived
MEMORY_LATENCY_CYCLES = 600  # a global load that misses L1 (L2 hits take about 270 cycles, DRAM about 500-600)
ISSUE_PER_SM = 4  # warp instructions an SM issues per cycle (four schedulers)
SECTOR = 32  # bytes a DRAM access moves at least

# The cooperative kernel of move tabu compiled for sm_90 (bench/sass.py, the "phases" of advance_cooperative):
# registers per thread, the move loop's own instructions, and per step the instructions of its loop's body;
# tests/benchmarks/test_sass.py fails when the machine code outgrows any of them.
COOPERATIVE_SASS = {
    "tabu": dict(registers=96, move_loop=760, scan_word=24, scan_cell=70, clear=12, peer_count=56, digit=70,
                 peer_update=150, best_word=24, best_cell=316, best_candidates=300, unroll=4),
}
BARRIERS = {"normal": 4, "best": 3}  # per move: after the cell, the counts, the digit; the move's end

# What a chain does per move, sampled from the CPU backend (one chain, 2,000,000 moves of the default schedule, its
# state read every 5,000): the conflicting cells as a fraction of the free cells and the fraction of moves in best-move
# mode, on Sudoku-LS's instances number 0; ``givens`` and ``side`` say which grids each stands for (``profile_for``).
# Far from a solution many cells conflict (64x64 at 60 %: 640); near one few do and best-move mode takes most moves.
PROFILES = {
    "tabu": (dict(instance="49x49 at 50 %", side=49, givens=0.50, conflicting=0.22, best=0.16),
             dict(instance="64x64 at 50 %", side=64, givens=0.50, conflicting=0.037, best=0.70),
             dict(instance="64x64 at 60 %", side=64, givens=0.64, conflicting=0.43, best=0.15)),
}


def profile_for(move) -> dict:
    """The measured profile nearest ``move``'s grid: the nearest fraction of givens (within 0.05 of it), then the
    nearest side; ties go to the slower profile (more conflicting cells)."""
    side = int(move.tables.n_values)
    givens = 1 - int(move.tables.n_free.max()) / (side * side)
    profiles = PROFILES[move.name]
    nearest = min(abs(p["givens"] - givens) for p in profiles)
    near = [p for p in profiles if abs(p["givens"] - givens) <= nearest + 0.05]
    return min(near, key=lambda p: (abs(p["side"] - side), -p["conflicting"]))


# Move tabu's one-thread kernel, measured on an H200 (bench/gpu.sh, 135,168 chains): (side, moves per second)
ONE_THREAD_MEASURED = {"tabu": ((49, 6.0e6), (64, 3.4e6))}
ONE_THREAD_DEVICE = "H200"


def resident_blocks(*, registers: int, shared: int, threads: int, facts: dict) -> int:
    """Blocks of ``threads`` one SM holds at once (NVIDIA's occupancy rules: registers are given per warp in
    units of 256, shared memory per block in units of 128 bytes plus 1 KiB the driver keeps)."""
    warps = -(-threads // 32)
    warp_registers = -(-max(registers, 1) * 32 // 256) * 256
    by_registers = (facts["registers_per_sm"] // 4 // warp_registers) * 4 // warps
    by_shared = facts["shared_per_sm"] // (-(-(shared + 1024) // 128) * 128)
    return max(1, min(facts["threads_per_sm"] // threads, facts["blocks_per_sm"], by_registers, by_shared))


def cooperative_module(move):
    """The move's cooperative layout module (``tabu_block``), or None."""
    if move.cooperative is None:
        return None
    import importlib

    return importlib.import_module(move.cooperative)


def threads_for(move, requested) -> int:
    """Threads per chain the cuda backend runs ``move`` with: ``requested`` when given (1 = the one-thread layout;
    more needs the move's cooperative layout: ValueError otherwise), else the layout the model predicts faster. The
    kernel works for any block size (the tests run 8 threads a chain under the simulator); the command line and the
    API offer whole warps (``THREADS`` of the move's cooperative module)."""
    if requested is not None:
        requested = int(requested)
        if requested < 1:
            raise ValueError(f"threads per chain must be 1 or more (got {requested})")
        if requested > 1 and move.cooperative is None:
            raise ValueError(f"move {move.name} has only the one-thread layout: threads per chain must be 1")
        if requested > 1 and not cooperative_module(move).fits(move.tables.n_values):
            raise ValueError(f"move {move.name}'s cooperative layout needs more shared memory than a block may take "
                             f"at {move.tables.n_values}x{move.tables.n_values}")
        return requested
    return choose(move)[0]


def choose(move) -> tuple[int, str]:
    """(threads per chain, why) the model picks on PLAN_DEVICE: the layout with the most predicted moves a second."""
    module = cooperative_module(move)
    if module is None or not module.fits(move.tables.n_values):
        return 1, f"move {move.name} has only the one-thread layout" if module is None else \
            f"move {move.name}'s cooperative layout does not fit in shared memory at this size"
    options = {threads: _predict(move, threads, PLAN_DEVICE)[0] for threads in (1,) + tuple(module.THREADS)}
    best = max(options, key=lambda threads: (options[threads] or 0.0, -threads))
    rate = options[best] or 0.0
    return best, (f"the model predicts {rate:.3g} moves/s on an {PLAN_DEVICE.name} with {best} threads per chain, "
                  f"the most of {', '.join(str(t) for t in options)}")


# The keys of a plan, in their order (``launch_plan``); the per-device ones are dicts keyed by DEVICES' names
KEYS = ("move", "kernel", "layout", "threads_per_chain", "chains", "shared_bytes_per_chain", "global_bytes_per_chain",
        "occupancy", "predicted_moves_per_second", "predicted_moves_per_second_per_chain", "chosen", "why")


def launch_plan(move, *, chains: int | None = None, threads_per_chain: int | None = None) -> dict:
    """What the cuda backend would launch for ``move`` (an AnnealMove), without a GPU: a JSON-ready dict (keys in
    docs/gpu.md, 'The launch plan')."""
    from .contract import state_bytes

    threads = threads_for(move, threads_per_chain)
    why = "requested" if threads_per_chain is not None else choose(move)[1]
    module = cooperative_module(move) if threads > 1 else None
    shared = module.shared_bytes(move.tables.n_values) if module else 0
    occupancy, predicted, per_chain = {}, {}, {}
    for device in DEVICES:
        rate, fill = _predict(move, threads, device)
        occupancy[device.name] = fill
        predicted[device.name] = None if rate is None else round(rate)
        # a local search's time to solution also wants each chain fast, not only many chains
        per_chain[device.name] = None if rate is None or not fill.get("chains") else round(rate / fill["chains"])
    resident = occupancy[PLAN_DEVICE.name]["chains"]
    return {"move": move.name,
            "kernel": f"{move.name}: one block of {threads} threads per chain" if threads > 1
            else f"{move.name}: one thread per chain",
            "layout": "block" if threads > 1 else "thread",
            "threads_per_chain": threads,
            "chains": int(chains) if chains is not None else resident,
            "shared_bytes_per_chain": shared,
            "global_bytes_per_chain": int(state_bytes(move, 1)),
            "occupancy": occupancy,
            "predicted_moves_per_second": predicted,
            "predicted_moves_per_second_per_chain": per_chain,
            "chosen": "requested" if threads_per_chain is not None else "model",
            "why": why}


def _predict(move, threads: int, device: Device) -> tuple[float | None, dict]:
    """(predicted moves per second of the whole device or None, its occupancy) for ``move`` in this layout."""
    if threads == 1:
        registers = ONE_THREAD_REGISTERS.get(move.name)
        fill = _fill(registers, 0, 128, device, per_block=128) if registers else {"chains": None}
        return _one_thread_rate(move, device), fill
    sass = COOPERATIVE_SASS[move.name]
    module = cooperative_module(move)
    side = move.tables.n_values
    fill = _fill(sass["registers"], module.shared_bytes(side), threads, device, per_block=1)
    chains = fill["chains"]
    work = _work(move, threads, sass, profile_for(move))
    by_latency = chains * device.clock_hz / work["cycles"]
    by_issue = device.sms * ISSUE_PER_SM * device.clock_hz / (-(-threads // 32) * work["instructions"])
    by_bandwidth = device.bandwidth / (work["sectors"] * SECTOR)
    fill["bound"] = min((by_latency, "latency"), (by_issue, "issue"), (by_bandwidth, "bandwidth"))[1]
    fill["profile"] = profile_for(move)["instance"]
    return min(by_latency, by_issue, by_bandwidth), fill


def _fill(registers, shared, threads, device, *, per_block):
    """Occupancy of one SM: resident blocks, warps, the fraction of the SM's warps, and the chains resident on the
    device (``per_block`` chains a block)."""
    blocks = resident_blocks(registers=registers, shared=shared, threads=threads, facts=device.facts())
    warps = blocks * -(-threads // 32)
    return {"blocks_per_sm": blocks, "warps_per_sm": warps, "fraction": round(warps / (device.threads_per_sm // 32), 4),
            "registers": registers, "chains": device.sms * blocks * per_block}


def _work(move, threads, sass, profile) -> dict:
    """Per move of one chain, averaged over ``profile``: instructions per thread, latency cycles, DRAM sectors."""
    tables = move.tables
    side = int(tables.n_values)
    free = max(1, int(tables.n_free.max()))
    counts = tables.candidates[..., 0]
    candidates = float(counts[counts > 0].mean()) if (counts > 0).any() else 1.0
    conflicting = max(1.0, profile["conflicting"] * free)
    words = -(-side * side // 32)

    def passes(items):
        return math.ceil(items / threads)

    peers = 3 * side
    normal = (sass["move_loop"] + passes(words) * sass["scan_word"] + passes(conflicting) * sass["scan_cell"]
              + passes(side) * sass["clear"] + passes(peers) * sass["peer_count"]
              + passes(candidates) * sass["digit"] + passes(peers) * sass["peer_update"])
    per_cell = sass["best_cell"] + math.ceil(candidates / sass["unroll"]) * sass["best_candidates"]
    best = (sass["move_loop"] + passes(words) * sass["best_word"] + passes(conflicting) * per_cell
            + passes(peers) * sass["peer_update"])
    trips_normal = passes(conflicting) + 1 + 2 * passes(candidates) + 2 * passes(peers)
    trips_best = passes(conflicting) * (1 + 2 * math.ceil(candidates / sass["unroll"])) + 2 * passes(peers)
    cycles_normal = normal * CYCLES_PER_INSTRUCTION + BARRIERS["normal"] * BARRIER_CYCLES \
        + trips_normal * MEMORY_LATENCY_CYCLES
    cycles_best = best * CYCLES_PER_INSTRUCTION + BARRIERS["best"] * BARRIER_CYCLES + trips_best * MEMORY_LATENCY_CYCLES
    # sectors: a cell's marks row (4N bytes) and counts row per cell scored, a peer's counts twice (read, write)
    marks_row = -(-4 * side // SECTOR)
    counts_row = -(-side * np.dtype(move.counts_dtype).itemsize // SECTOR)
    sectors_normal = marks_row + 2 * peers
    sectors_best = conflicting * (marks_row + counts_row) + 2 * peers
    share = profile["best"]
    return {"instructions": (1 - share) * normal + share * best,
            "cycles": (1 - share) * cycles_normal + share * cycles_best,
            "sectors": (1 - share) * sectors_normal + share * sectors_best}


ONE_THREAD_REGISTERS = {"tabu": 56}  # tests/benchmarks/test_sass.py's budget of tabu's advance kernel


def _one_thread_rate(move, device: Device) -> float | None:
    points = ONE_THREAD_MEASURED.get(move.name)
    if points is None:
        return None
    (small, fast), (large, slow) = points
    slope = math.log(fast / slow) / math.log(large / small)
    side = int(move.tables.n_values)
    rate = fast * (small / side) ** slope
    measured_on = next(d for d in DEVICES if d.name == ONE_THREAD_DEVICE)
    return rate * device.bandwidth / measured_on.bandwidth
