"""The machine code of every kernel of every move, without a GPU: registers, spills, loops, helper calls, occupancy.

    python bench/sass.py [--cc 9.0] [--moves swap,sirdey,rect,bridge] [--dump DIR] [--json] [--results DIR]

Pipeline, for each kernel the cuda backend launches (init and advance of every move of every puzzle
in the registry): numba-cuda -> PTX (``cuda.compile_ptx``, NVVM; typed from the launch's real
arguments) -> ``ptxas -v -arch=sm_XX`` (registers, spill bytes, stack frame, shared memory) -> cubin
-> ``nvdisasm`` -> SASS, whose control flow (branch targets) gives the loops.

Columns of the table (one row per kernel; ``--json`` prints the same as one object per kernel):
  regs            registers per thread (ptxas)
  spill st/ld     bytes of spill stores / loads per thread (ptxas); stack = the local-memory frame
  smem            static + dynamic shared memory per block, in bytes
  SASS            instructions of the kernel, helper subroutines included
  main loop       SASS instructions of the kernel's main loop: of the natural loops (one per header of
                  a backward branch), the one with the largest body of its own, the instructions of
                  the loops nested in it left out; for an advance kernel, the loop run once per
                  proposal (inside the launch code's window and segment loops, which run once per
                  chunk segment). The loops nested in it are listed apart in "inner loops" (for
                  example the best-state copy).
  fewest/pass     the fewest instructions one pass through the main loop can execute (the lightest
                  path from its header back to it): for an advance kernel, a rejected proposal that
                  sets no record, the common case once chains have cooled. "main loop" counts every
                  instruction of the body, the cold paths (accepted moves, the best-state copy's set-up
                  and its unrolled remainder) included; this counts the hot path.
  calls           CALLs to subroutines (``__cuda_sm20_div_s64`` is ptxas's 64-bit division helper),
                  each with where it sits (its innermost loop): main loop, inner loop (nested in the
                  main loop), other loop or outside loops
  loop LDG/STG    global loads / stores in the main loop; LD/ST = generic ones (global or shared memory,
                  the hardware decides: the chains' state, and every access through gpu_sa.engine.contract.item,
                  whose pointer comes from integer arithmetic); LDC = constant-bank loads (kernel parameters
                  such as array descriptors, reloaded); 64-bit = high halves of 64-bit integer
                  arithmetic (``.X`` carries, ``.EX`` compares, ``IMAD.WIDE``/``IMAD.HI``); fp64 = double
                  precision instructions (``DADD``, conversions from and to F64); div32 = 32-bit integer
                  divisions or modulos that ptxas expanded in place (each starts with ``I2F.U32.RP``)
  occupancy       theoretical occupancy of one SM at the backend's launch shape (NVIDIA's occupancy
                  calculator: registers, threads per block, shared memory, per-SM limits of the cc)
  device          warps the default launch keeps resident over the whole device / what the device
                  holds (SMs x 64): a grid smaller than the device caps it

The tools: NVVM and ptxas come with ``numba-cuda[cu12]`` (``nvidia-cuda-nvcc-cu12``), nvdisasm with
``nvidia-cuda-nvdisasm``: ``pip install -e ".[sass]"``. They are found through the installed packages
(cuda-pathfinder), then CUDA_HOME and PATH. No GPU is needed: the compile targets the chosen compute
capability, and the launch shape is the backend's own, recorded for an offline stand-in of the device.
"""
from __future__ import annotations

import argparse
import contextlib
import heapq
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, add_results_option, environment, print_header, print_table, record_rows, write_record  # noqa: E402


# ---------------------------------------------------------------------------------------------------
# The one adapter to the engine's internals. Everything else in this file only sees ``Launch``es.
# ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Launch:
    """One kernel launch of the cuda backend, as this tool needs it."""

    kernel: str  # short name: 'init', 'advance', 'advance_cooperative' (one block per chain), ...
    dispatcher: object  # the numba-cuda kernel (a CUDADispatcher made by cuda.jit)
    args: tuple  # the launch's arguments; only their numba types matter (device arrays may be stand-ins)
    blocks: int  # blocks in the grid
    threads: int  # threads per block
    dynamic_shared: int  # dynamic shared memory per block, bytes
    chains: int  # chains of the launch (one per thread)


def engine_launches(move, device) -> list[Launch]:
    """The kernels the cuda backend launches for ``move`` (an AnnealMove) with its default chain count,
    on ``device`` (an ``OfflineDevice``: compute capability and SM count), in launch order, once each.

    Must return one ``Launch`` per distinct kernel: its dispatcher, the very arguments the backend
    passes (typed here exactly as at a real launch, with the dispatcher's ``typeof_pyval``) and the
    launch shape the backend chooses. Today it builds one puzzle's launch arguments as the runner does
    (``Chains`` for one puzzle of the default chain count, a zero-move ``Chunk`` of the default
    schedule, as the runner's warm-up launch) and runs the backend's own ``allocate``, ``init`` and
    ``advance`` with numba-cuda's launches recorded instead of run, device memory replaced by
    stand-ins (``_offline_cuda``). When the engine changes (launch shapes derived from the device,
    more kernels, other launch arguments), update this function and ``_offline_cuda`` only.
    """
    from gpu_sa.engine import backends, rng, runner, schedule
    from gpu_sa.engine.exchange import exchange_table
    from gpu_sa.engine.kernels import NO_EXCHANGE, Chains, Chunk

    rows = 1 << 14  # recorded only for the argument types; analyse() sizes the launch as the backend does
    law = runner.default_schedule(move)
    length = law.plateau_length
    key0, key1 = rng.split_seed(1)
    # one plateau of the default schedule (init and advance), then one of a two-rung ladder whose
    # exchange falls at the plateau's end (the exchange kernel)
    ladder = schedule.ladder(t_low=0.05, t_high=0.5, replicas=2, plateaus=1, plateau_length=length)
    runs = []
    for rungs, table, interval, exchanges in ((1, law.acceptance_rows(0, 1, move.max_delta), NO_EXCHANGE,
                                               np.zeros((1, 1), np.uint32)),
                                              (2, ladder.acceptance_rows(0, 1, move.max_delta), np.int64(length),
                                               exchange_table(ladder.rungs()))):
        chains = Chains(per_puzzle=np.int64(rows), bases=np.zeros(1, np.int64), active=np.ones(1, np.uint8),
                        key0=key0, key1=key1, replicas=np.int64(rungs))
        runs.append((chains, Chunk(move_begin=np.int64(0), move_end=np.int64(length), plateau_begin=np.int64(0),
                                   plateau_length=np.int64(length), thresholds=table, exchange_interval=interval,
                                   exchange_table=exchanges)))
    with _offline_cuda(device) as recorded:
        # the one-thread layout, then the move's cooperative one (one block per chain) where it has one
        for threads_per_chain in (1,) + ((COOPERATIVE_THREADS,) if move.cooperative else ()):
            backend = backends.CudaBackend(threads_per_chain=threads_per_chain)
            state = backend.allocate(move, rows)
            for chains, chunk in runs:
                backend.init(state, move, chains)
                backend.advance(state, move, chains, chunk)
    launches, seen = [], set()
    for dispatcher, args, blocks, threads, shared in recorded:
        name = dispatcher.py_func.__name__.removesuffix("_kernel")
        if name in seen:  # the ladder's run compiles another tile of the same advance kernel: one is enough
            continue
        seen.add(name)
        launches.append(Launch(name, dispatcher, args, blocks, threads, shared, rows))
    return launches


@contextlib.contextmanager
def _offline_cuda(device):
    """Within: numba-cuda's kernel launches are recorded as (dispatcher, args, blocks, threads, shared
    bytes), device allocations and copies return unbacked device arrays of the right shape and type,
    and the current device is ``device``. Nothing runs, nothing touches a GPU."""
    from numba import cuda
    from numba.cuda import dispatcher as dispatcher_module
    from numba.cuda.cudadrv import driver
    from numba.cuda.cudadrv.devicearray import DeviceNDArray

    recorded = []

    def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
        itemsize = np.dtype(dtype).itemsize
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        strides = strides or _strides(shape, itemsize, order)
        if 0 in shape:  # numba-cuda gives an empty array a null pointer, which needs a context
            typed = DeviceNDArray((1,) * len(shape), _strides((1,) * len(shape), itemsize, order), dtype,
                                  gpu_data=_NoDeviceMemory())
            return _EmptyDeviceArray(shape, strides, np.dtype(dtype), typed._numba_type_)
        return DeviceNDArray(shape, strides, dtype, gpu_data=_NoDeviceMemory())

    def to_device(array, stream=0, copy=True, to=None):
        array = np.asarray(array)
        return device_array(array.shape, array.dtype, strides=array.strides)

    class _RecordedLaunch:
        def __init__(self, dispatcher, griddim, blockdim, sharedmem):
            self.dispatcher, self.griddim, self.blockdim, self.sharedmem = dispatcher, griddim, blockdim, sharedmem

        def __call__(self, *args):
            recorded.append((self.dispatcher, args, _volume(self.griddim), _volume(self.blockdim), int(self.sharedmem)))

    def configure(self, griddim, blockdim, stream=0, sharedmem=0):
        return _RecordedLaunch(self, griddim, blockdim, sharedmem)

    class _Event:  # CUDA events time the kernels on a real device; here nothing runs
        def record(self, stream=0):
            pass

        def synchronize(self):
            pass

        def elapsed_time(self, other):
            return 0.0

    patches = [(cuda, "device_array", device_array), (cuda, "to_device", to_device),
               (cuda, "synchronize", lambda: None), (cuda, "event", lambda timing=True: _Event()), (cuda, "get_current_device", lambda: device),
               (driver, "device_memset", lambda *args, **kwargs: None),
               (dispatcher_module, "get_current_device", lambda: device),
               (dispatcher_module.CUDADispatcher, "configure", configure)]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    try:
        for owner, name, value in patches:
            setattr(owner, name, value)
        yield recorded
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


class _NoDeviceMemory:
    """Stands for a device buffer that is never allocated: only the array's type is used. Older numba-cuda
    (0.20) asks a given buffer for its size; a cached size answers without a driver."""

    _cuda_memsize_ = 0


@dataclass(frozen=True)
class _EmptyDeviceArray:
    """An empty device array: its shape, and the numba type numba-cuda gives device arrays like it."""

    shape: tuple
    strides: tuple
    dtype: np.dtype
    _numba_type_: object


def _strides(shape, itemsize, order):
    strides, step = [], itemsize
    for extent in (shape if order == "F" else reversed(shape)):
        strides.append(step)
        step *= extent
    return tuple(strides if order == "F" else reversed(strides))


def _volume(dims):
    return math.prod(dims) if isinstance(dims, tuple) else int(dims)


# The block size the cooperative layouts are compiled and reported at (their code is the same for every block size
# and grid size: both are runtime values; only the launch's occupancy changes)
COOPERATIVE_THREADS = 64

# One small instance per puzzle kind of the registry: the kernels depend on the argument types only.
SAMPLES = {"sudoku": "examples/seed_easy.txt", "shikaku": "examples/shikaku_7x7.txt",
           "hashi": "examples/hashi_10x10.txt"}


def registry_moves():
    """[(kind, move name, AnnealMove)] for every move of every puzzle kind in the registry."""
    from gpu_sa.puzzles import PUZZLES

    moves = []
    for kind, module in PUZZLES.items():
        if kind not in SAMPLES:
            raise SystemExit(f"sass.py: error: no sample puzzle for kind {kind!r}: add one to SAMPLES")
        path = ROOT / SAMPLES[kind]
        puzzle = module.parse(path.read_text(), path.name)[0]
        moves += [(kind, name, puzzle.move(name)) for name in module.MOVES]
    return moves


# ---------------------------------------------------------------------------------------------------
# Devices and occupancy
# ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Architecture:
    """Per-SM limits of one compute capability, from NVIDIA's CUDA C++ Programming Guide (table
    "Technical Specifications per Compute Capability") and the allocation granularities of the
    occupancy calculator (``cuda_occupancy.h``)."""

    cc: tuple
    device: str  # the usual device of this cc, for the SM count
    sms: int
    max_warps_per_sm: int = 64
    max_blocks_per_sm: int = 32
    max_threads_per_block: int = 1024
    registers_per_sm: int = 65536
    registers_per_block: int = 65536
    max_registers_per_thread: int = 255
    register_unit: int = 256  # registers are allocated per warp, in units of this many
    sub_partitions: int = 4  # each SM's register file is split between 4 schedulers
    shared_per_sm: int = 0  # bytes, at the largest carveout
    shared_per_block: int = 0  # bytes, the opt-in maximum
    shared_unit: int = 128  # shared memory is allocated per block in units of this many bytes
    reserved_shared_per_block: int = 1024  # the driver's own per-block shared memory (cc >= 8.0)


ARCHITECTURES = {
    (8, 0): Architecture(cc=(8, 0), device="A100 SXM", sms=108, shared_per_sm=164 * 1024, shared_per_block=163 * 1024),
    (9, 0): Architecture(cc=(9, 0), device="H100 SXM", sms=132, shared_per_sm=228 * 1024, shared_per_block=227 * 1024),
}


@dataclass(frozen=True)
class OfflineDevice:
    """Stands for ``numba.cuda.get_current_device()`` while the backend's launches are recorded."""

    compute_capability: tuple
    MULTIPROCESSOR_COUNT: int
    name: bytes

    @classmethod
    def of(cls, arch: Architecture):
        return cls(arch.cc, arch.sms, f"{arch.device} (offline stand-in)".encode())


@dataclass(frozen=True)
class Occupancy:
    blocks_per_sm: int  # resident blocks per SM
    limited_by: str  # 'warps', 'blocks', 'registers' or 'shared memory'
    sm: float  # resident warps per SM / max warps per SM
    device: float  # for a grid of ``blocks``: resident warps on the device / (SMs x max warps per SM)


def occupancy(arch: Architecture, *, registers: int, threads: int, shared: int = 0, blocks: int | None = None,
              sms: int | None = None) -> Occupancy:
    """Theoretical occupancy of a kernel using ``registers`` per thread and ``shared`` bytes of shared
    memory per block (static + dynamic), launched in blocks of ``threads``; ``blocks`` in the grid
    (None: enough to fill the device) on ``sms`` SMs (default: the architecture's device).

    The per-SM limits, as NVIDIA's occupancy calculator applies them:
      warps:      floor(max warps per SM / warps per block)
      blocks:     max blocks per SM
      registers:  a warp gets ceil(registers x 32 / 256) x 256 registers; each of the 4 sub-partitions
                  holds floor(registers per SM / 4 / that) warps; blocks = 4 x that / warps per block
      shared:     a block takes ceil((shared + 1 KiB reserved) / 128) x 128 bytes of the SM's shared memory
    """
    if not 0 < threads <= arch.max_threads_per_block:
        raise ValueError(f"{threads} threads per block: the limit is {arch.max_threads_per_block}")
    if not 0 < registers <= arch.max_registers_per_thread:
        raise ValueError(f"{registers} registers per thread: the limit is {arch.max_registers_per_thread}")
    if shared > arch.shared_per_block:
        raise ValueError(f"{shared} bytes of shared memory per block: the limit is {arch.shared_per_block}")
    warps = -(-threads // 32)
    warp_registers = -(-registers * 32 // arch.register_unit) * arch.register_unit
    assumed_warps = -(-warps // arch.sub_partitions) * arch.sub_partitions  # the hardware's launch check
    if warp_registers * max(warps, assumed_warps) > arch.registers_per_block:
        by_registers = 0
    else:
        by_registers = (arch.registers_per_sm // arch.sub_partitions // warp_registers) * arch.sub_partitions // warps
    block_shared = -(-(shared + arch.reserved_shared_per_block) // arch.shared_unit) * arch.shared_unit
    limits = {"warps": arch.max_warps_per_sm // warps, "blocks": arch.max_blocks_per_sm,
              "registers": by_registers, "shared memory": arch.shared_per_sm // block_shared}
    limited_by = min(limits, key=limits.get)
    per_sm = limits[limited_by]
    sms = sms or arch.sms
    resident_blocks = sms * per_sm if blocks is None else min(blocks, sms * per_sm)
    return Occupancy(blocks_per_sm=per_sm, limited_by=limited_by, sm=per_sm * warps / arch.max_warps_per_sm,
                     device=resident_blocks * warps / (sms * arch.max_warps_per_sm))


# ---------------------------------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------------------------------

class ToolMissing(RuntimeError):
    """A tool of the pipeline cannot be found; the message names it and how to install it."""


class CompileFailed(RuntimeError):
    """A kernel did not go through the pipeline; the message says which and where."""


INSTALL_HINT = 'install the sass extra: python3 -m pip install -e ".[sass]"'


@dataclass(frozen=True)
class Toolchain:
    ptxas: str
    nvdisasm: str
    nvvm_version: str


def find_tools() -> Toolchain:
    """NVVM (through numba-cuda), ptxas and nvdisasm; raises ToolMissing naming the first one missing."""
    if os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        raise ToolMissing("NUMBA_ENABLE_CUDASIM=1 replaces numba-cuda's compiler by the simulator: unset it")
    try:
        from numba.cuda.cudadrv import nvvm

        if not nvvm.is_available():
            raise ToolMissing(f"NVVM (libnvvm) not found: {INSTALL_HINT}")
        version = ".".join(map(str, nvvm.NVVM().get_version()))
    except ToolMissing:
        raise
    except Exception as error:
        raise ToolMissing(f"NVVM (libnvvm) not usable ({error.__class__.__name__}: {error}): {INSTALL_HINT}") from None
    found = {name: _find_binary(name) for name in ("ptxas", "nvdisasm")}
    for name, path in found.items():
        if path is None:
            package = "nvidia-cuda-nvcc-cu12" if name == "ptxas" else "nvidia-cuda-nvdisasm"
            raise ToolMissing(f"{name} not found (package {package}, CUDA_HOME or PATH): {INSTALL_HINT}")
    return Toolchain(found["ptxas"], found["nvdisasm"], version)


def _find_binary(name):
    try:
        from cuda.pathfinder import find_nvidia_binary_utility
    except ImportError:  # an older cuda-pathfinder: CUDA_HOME and PATH only
        find_nvidia_binary_utility = None
    if find_nvidia_binary_utility is not None:
        path = find_nvidia_binary_utility(name)
        if path:
            return path
    return shutil.which(name)


def tool_version(path):
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    except OSError as error:
        return f"unknown ({error})"
    releases = re.findall(r"release \S+, V(\S+)", done.stdout)
    return releases[-1] if releases else (done.stdout.strip().splitlines() or ["unknown"])[-1]


# ---------------------------------------------------------------------------------------------------
# Compiling one kernel
# ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Resources:
    """ptxas's report of one entry function."""

    registers: int
    spill_stores: int
    spill_loads: int
    stack: int
    shared: int  # static shared memory, bytes


def compile_launch(launch: Launch, cc: tuple, tools: Toolchain, device) -> tuple[str, Resources, str]:
    """(PTX, ptxas's resources, SASS) of the launch's kernel, compiled for ``cc``."""
    from numba import cuda

    options = dict(launch.dispatcher.targetoptions)
    if options.get("link"):
        raise CompileFailed(f"kernel {launch.kernel} links extra files {options['link']}: not supported here")
    signature = tuple(launch.dispatcher.typeof_pyval(arg) for arg in launch.args)
    keywords = {key: options[key] for key in ("debug", "lineinfo", "fastmath", "opt", "forceinline", "launch_bounds")
                if key in options}
    with _offline_cuda(device):  # device functions ask the current device for its cc
        ptx, _ = cuda.compile_ptx(launch.dispatcher.py_func, signature, cc=cc, **keywords)
    flags = [f"-maxrregcount={options['max_registers']}"] if options.get("max_registers") else []
    with tempfile.TemporaryDirectory() as work:
        source, cubin = Path(work) / "kernel.ptx", Path(work) / "kernel.cubin"
        source.write_text(ptx)
        arch = f"sm_{cc[0]}{cc[1]}"
        done = subprocess.run([tools.ptxas, "-v", f"-arch={arch}", *flags, "-o", str(cubin), str(source)],
                              capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            hint = (" (this ptxas is older than NVVM: install the ptxas of the same CUDA release)"
                    if "Unsupported .version" in done.stderr else "")
            raise CompileFailed(f"ptxas failed on kernel {launch.kernel} for {arch}{hint}: "
                                f"{done.stderr.strip()[-2000:]}")
        resources = parse_ptxas_report(done.stdout + done.stderr)
        listing = subprocess.run([tools.nvdisasm, "-c", str(cubin)], capture_output=True, text=True, timeout=600)
        if listing.returncode != 0:
            raise CompileFailed(f"nvdisasm failed on kernel {launch.kernel}: {listing.stderr.strip()[-2000:]}")
    return ptx, resources, listing.stdout


def parse_ptxas_report(text: str) -> Resources:
    """Registers, spills, stack and shared memory from ``ptxas -v`` (one entry function)."""
    registers = re.search(r"Used (\d+) registers", text)
    frame = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", text)
    if not registers or not frame:
        raise CompileFailed(f"cannot read ptxas's report:\n{text.strip()[-2000:]}")
    shared = re.search(r"(\d+) bytes smem", text)
    return Resources(registers=int(registers.group(1)), stack=int(frame.group(1)), spill_stores=int(frame.group(2)),
                     spill_loads=int(frame.group(3)), shared=int(shared.group(1)) if shared else 0)


# ---------------------------------------------------------------------------------------------------
# SASS: functions, basic blocks, loops
# ---------------------------------------------------------------------------------------------------

@dataclass
class Instruction:
    address: int
    predicate: str  # '' when unconditional, e.g. '@!P0'
    opcode: str  # with its modifiers, e.g. 'CALL.REL.NOINC'
    operands: str
    target: str | None = None  # a branch's or call's label

    @property
    def base(self):
        return self.opcode.split(".")[0]

    @property
    def conditional(self):
        return bool(self.predicate) and self.predicate not in ("@PT",)


@dataclass
class Function:
    name: str
    instructions: list = field(default_factory=list)
    labels: dict = field(default_factory=dict)  # label -> index of the instruction it marks


_INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s*(.*?)\s*;")
_TARGET = re.compile(r"`\(([^)]+)\)")
_FUNCTION_LABEL = re.compile(r"^([^\s./][^\s]*|\$[^\s]+):\s*$")
_LOCAL_LABEL = re.compile(r"^(\.L\w+):\s*$")


def parse_sass(text: str) -> list[Function]:
    """The functions of an nvdisasm listing (the kernel first, then its helper subroutines)."""
    functions, current = [], None
    for line in text.splitlines():
        instruction = _INSTRUCTION.match(line)
        if instruction:
            if current is None:
                continue
            address, predicate, opcode, operands = instruction.groups()
            target = _TARGET.search(operands)
            current.instructions.append(Instruction(int(address, 16), (predicate or "").strip(), opcode, operands,
                                                    target.group(1) if target else None))
            continue
        local = _LOCAL_LABEL.match(line)
        if local and current is not None:
            current.labels[local.group(1)] = len(current.instructions)
            continue
        named = _FUNCTION_LABEL.match(line.strip()) if not line.startswith((" ", "\t")) else None
        if named:
            current = Function(named.group(1))
            functions.append(current)
    return [f for f in functions if f.instructions]


_ENDS_FLOW = ("EXIT", "RET", "BPT", "KILL")
_BRANCHES = ("BRA", "JMP")


@dataclass
class Loop:
    header: int  # index of the first instruction of the loop's header block
    blocks: frozenset  # indices of the blocks in the loop
    instructions: int  # its own, without those of loops nested in it
    depth: int  # 0 = outermost
    parent: int | None  # index in the list of loops


@dataclass
class ControlFlow:
    blocks: list  # [(first, end)] instruction index ranges
    block_of: list  # instruction index -> block index
    loops: list  # Loop, outermost first
    successors: list  # block index -> the blocks control may go to next


def control_flow(function: Function) -> ControlFlow:
    """Basic blocks and natural loops (one per header) of ``function``.

    ptxas also CALLs local labels (``@P2 CALL.REL.NOINC .L_x_3``, seen on sm_80): an outlined region
    that ends in RET, or a jump that never returns (there, the loop's exit to the kernel's epilogue).
    One called from a single site is followed as if inlined (the call goes to it, its RETs return after
    the call), so its code counts in the loop that calls it; one called from several sites is analysed
    on its own, as a separate entry. An indirect branch (BRX, never seen in these kernels) is taken to
    fall through.
    """
    code = function.instructions
    label_index = function.labels
    callees = {i: label_index[ins.target] for i, ins in enumerate(code)
               if ins.base == "CALL" and ins.target in label_index}
    starts = {0, *callees.values()}
    for i, ins in enumerate(code):
        if ins.base in _BRANCHES + _ENDS_FLOW or ins.base == "BRX" or i in callees:
            starts.add(i + 1)
        if ins.base in _BRANCHES and ins.target in label_index:
            starts.add(label_index[ins.target])
    starts = sorted(s for s in starts if s < len(code))
    blocks = [(s, e) for s, e in zip(starts, starts[1:] + [len(code)])]
    block_of = [0] * len(code)
    for b, (s, e) in enumerate(blocks):
        for i in range(s, e):
            block_of[i] = b
    local = []  # successors within a subroutine: a local call returns to the next block
    for b, (s, e) in enumerate(blocks):
        last = code[e - 1]
        following = [b + 1] if b + 1 < len(blocks) else []
        if last.base in _BRANCHES:
            jump = [block_of[label_index[last.target]]] if last.target in label_index else []
            local.append(jump + (following if last.conditional else []))
        elif last.base in _ENDS_FLOW:
            local.append(following if last.conditional else [])
        else:
            local.append(following)
    successors = [list(s) for s in local]
    sites = {}
    for site, callee in callees.items():
        sites.setdefault(block_of[callee], []).append(block_of[site])
    roots = [0]
    for entry, callers in sites.items():
        if len(callers) > 1:
            roots.append(entry)
            continue
        (caller,) = callers
        back = blocks[caller][1]  # the block after the call
        if not code[blocks[caller][1] - 1].conditional:
            successors[caller] = []
        successors[caller].append(entry)
        for ret in _returns(entry, local, blocks, code):
            if back < len(code):
                successors[ret].append(block_of[back])
    reachable = _walk(roots, successors)
    predecessors = [[] for _ in blocks]
    for b in reachable:
        for s in successors[b]:
            predecessors[s].append(b)
    dominators = _dominators(predecessors, reachable, roots)
    bodies = {}
    for b in reachable:
        for header in successors[b]:
            if header in dominators[b]:  # a back edge b -> header: its natural loop
                bodies.setdefault(header, set()).update(_walk([b], predecessors, stop={header}) | {header})
    headers = sorted(bodies, key=lambda h: (-len(bodies[h]), h))  # an enclosing loop is larger
    loops = []
    for header in headers:
        parents = [i for i, loop in enumerate(loops) if header in loop.blocks and bodies[header] <= loop.blocks]
        parent = max(parents, key=lambda i: loops[i].depth) if parents else None
        loops.append(Loop(header=blocks[header][0], blocks=frozenset(bodies[header]), instructions=0,
                          depth=0 if parent is None else loops[parent].depth + 1, parent=parent))
    for loop in loops:
        inner = set().union(*(other.blocks for other in loops if other.parent is not None
                              and loops[other.parent] is loop))
        loop.instructions = sum(_size(blocks[b], code) for b in loop.blocks - inner)
    order = sorted(range(len(loops)), key=lambda i: (loops[i].depth, loops[i].header))
    renumber = {old: new for new, old in enumerate(order)}
    loops = [loops[i] for i in order]
    for loop in loops:
        loop.parent = None if loop.parent is None else renumber[loop.parent]
    return ControlFlow(blocks=blocks, block_of=block_of, loops=loops, successors=successors)


def _returns(entry, local, blocks, code):
    """The blocks of the subroutine starting at block ``entry`` that end in RET."""
    return [b for b in _walk([entry], local) if code[blocks[b][1] - 1].base == "RET"]


def _size(block, code):
    return sum(1 for i in range(*block) if code[i].base != "NOP")


def _walk(starts, edges, stop=frozenset()):
    """The nodes reached from ``starts`` along ``edges[node]``; nodes in ``stop`` are reached, not passed."""
    seen, stack = set(starts), [n for n in starts if n not in stop]
    while stack:
        for n in edges[stack.pop()]:
            if n not in seen:
                seen.add(n)
                if n not in stop:
                    stack.append(n)
    return seen


def _dominators(predecessors, reachable, roots):
    """dominators[b] = the blocks that dominate b (iterative data flow; a kernel has ~100 blocks).
    Several roots (separately analysed subroutines) each dominate only what they alone reach."""
    dominators = {b: set(reachable) for b in reachable}
    for root in roots:
        dominators[root] = {root}
    changed = True
    while changed:
        changed = False
        for b in sorted(reachable - set(roots)):
            new = set.intersection(*(dominators[p] for p in predecessors[b])) | {b}
            if new != dominators[b]:
                dominators[b], changed = new, True
    return dominators


# ---------------------------------------------------------------------------------------------------
# One kernel's figures
# ---------------------------------------------------------------------------------------------------

DIVISION_HELPER = re.compile(r"__cuda_sm\d+_(div|rem)")
_SIXTY_FOUR_BIT = re.compile(r"(^|\.)(X|EX)(\.|$)|IMAD\.WIDE|IMAD\.HI")
_FLOAT64 = re.compile(r"^D(ADD|MUL|FMA|SETP|MNMX)|F64")
# ptxas expands a 32-bit integer division or modulo in place, starting from a rounded-up reciprocal
_INLINE_DIVISION = re.compile(r"^I2F(\.U32)?\.RP")


def helper_name(label: str) -> str:
    """``$__internal_0_$__cuda_sm20_div_s64`` -> ``__cuda_sm20_div_s64``."""
    return re.sub(r"^\$__internal_\d+_\$", "", label)


def analyse_sass(text: str) -> dict:
    """Instruction counts, loops and subroutine calls of the kernel in an nvdisasm listing."""
    functions = parse_sass(text)
    if not functions:
        raise CompileFailed("no function found in nvdisasm's listing")
    kernel = functions[0]
    flow = control_flow(kernel)
    # The loop run once per proposal has the largest body of its own: the launch code's window and
    # segment loops around it and the best-state copy inside it are small.
    main = max(flow.loops, key=lambda loop: loop.instructions) if flow.loops else None

    def where(index):
        block = flow.block_of[index]
        inside = [loop for loop in flow.loops if block in loop.blocks]
        if not inside:
            return "outside loops"
        innermost = max(inside, key=lambda loop: loop.depth)
        if innermost is main:
            return "main loop"
        if main is not None and innermost.blocks <= main.blocks:
            return "inner loop"
        return "other loop"

    calls = [{"helper": helper_name(ins.target or ins.operands), "where": where(i),
              "division": bool(DIVISION_HELPER.search(ins.target or ins.operands))}
             for i, ins in enumerate(kernel.instructions)
             if ins.base == "CALL" and ins.target not in kernel.labels]  # local subroutines are followed
    main_code = [] if main is None else [kernel.instructions[i] for b in sorted(main.blocks - _nested(main, flow))
                                         for i in range(*flow.blocks[b])]
    inner = [loop.instructions for loop in flow.loops if main is not None and loop is not main
             and loop.blocks <= main.blocks]
    return {
        "sass_instructions": sum(1 for f in functions for ins in f.instructions if ins.base != "NOP"),
        "main_loop": main.instructions if main else 0,
        "fewest_per_pass": shortest_iteration(main, flow, kernel.instructions) if main else 0,
        "inner_loops": inner,
        "loops": len(flow.loops),
        "calls": calls,
        "main_loop_mix": {
            "global_loads": sum(ins.base == "LDG" for ins in main_code),
            "global_stores": sum(ins.base == "STG" for ins in main_code),
            "generic_loads": sum(ins.base == "LD" for ins in main_code),
            "generic_stores": sum(ins.base == "ST" for ins in main_code),
            "constant_loads": sum(ins.base in ("LDC", "ULDC") for ins in main_code),
            "local": sum(ins.base in ("LDL", "STL") for ins in main_code),
            "shared": sum(ins.base in ("LDS", "STS", "ATOMS", "LDSM") for ins in main_code),
            "barriers": sum(ins.base == "BAR" for ins in main_code),
            "sixty_four_bit": sum(bool(_SIXTY_FOUR_BIT.search(ins.opcode)) for ins in main_code),
            "float64": sum(bool(_FLOAT64.search(ins.opcode)) for ins in main_code),
            "inline_divisions": sum(bool(_INLINE_DIVISION.search(ins.opcode)) for ins in main_code),
        },
    }


def cooperative_phases(text: str) -> dict:
    """The steps of a cooperative move loop (``advance_cooperative``), told apart by what their loops do, with the
    instructions of each loop's own body: the figures ``gpu_sa.engine.plan.COOPERATIVE_SASS`` charges per pass.

    Inside the move loop (the main loop): the best-move scan is the loop whose nested loop finds set bits (FLO) and
    holds a loop of global loads (each cell's candidates, unrolled ``unroll`` = its loads / 3 to a pass); the normal
    scan, a loop over words whose nested loop finds set bits; the digit, a leaf loop of two global loads; the peer
    counts, leaf loops of shared atomics and no global access (ptxas splits the 3N steps at the row, column and box);
    the update, the leaf loop that stores to global memory and updates shared bits atomically; the clear, a leaf
    loop of shared stores only. {} when the kernel has no such loop structure (another kernel)."""
    functions = parse_sass(text)
    kernel = functions[0]
    flow = control_flow(kernel)
    if not flow.loops:
        return {}
    main = max(flow.loops, key=lambda loop: loop.instructions)
    index = {id(loop): i for i, loop in enumerate(flow.loops)}

    def children(loop):
        return [other for other in flow.loops if other.parent is not None and other.parent == index[id(loop)]]

    def mix(loop):
        code = [kernel.instructions[i] for b in sorted(loop.blocks - _nested(loop, flow)) for i in range(*flow.blocks[b])]
        return {name: sum(ins.base == name for ins in code) for name in ("LDG", "STG", "LDS", "STS", "ATOMS", "FLO")}

    phases = {}
    for loop in children(main):
        inner, own = children(loop), mix(loop)
        nested = [(child, mix(child), children(child)) for child in inner]
        best = [(child, grand) for child, m, grands in nested if m["FLO"] for grand in grands if mix(grand)["LDG"] >= 3]
        if best:
            cell, candidates = best[0]
            phases.update(best_word=loop.instructions, best_cell=cell.instructions,
                          best_candidates=candidates.instructions, unroll=mix(candidates)["LDG"] // 3)
        elif any(m["FLO"] for _, m, _ in nested):
            phases.update(scan_word=loop.instructions,
                          scan_cell=max(child.instructions for child, m, _ in nested if m["FLO"]))
        elif inner:
            continue
        elif own["STG"] and own["ATOMS"] and own["LDG"]:
            phases["peer_update"] = max(phases.get("peer_update", 0), loop.instructions)
        elif own["ATOMS"] and not own["LDG"] and not own["STG"]:
            phases["peer_count"] = max(phases.get("peer_count", 0), loop.instructions)
        elif own["LDG"] == 2 and not (own["STG"] or own["ATOMS"] or own["STS"]):
            phases["digit"] = max(phases.get("digit", 0), loop.instructions)
        elif own["STS"] and not (own["LDG"] or own["STG"] or own["LDS"] or own["ATOMS"]):
            phases["clear"] = max(phases.get("clear", 0), loop.instructions)
    phases["move_loop"] = main.instructions
    return phases


def shortest_iteration(loop: Loop, flow: ControlFlow, code) -> int:
    """The fewest instructions one pass through ``loop`` can execute: the lightest path from its header
    back to its header (Dijkstra over its blocks, each weighing its instructions). For the proposal loop
    that is a rejected proposal that sets no record, the common case once a chain has cooled; the main
    loop's count, by contrast, is every instruction in the body, cold paths (accepted moves, the best-state
    copy's set-up) included."""
    header = flow.block_of[loop.header]
    weight = {b: _size(flow.blocks[b], code) for b in loop.blocks}
    best = {header: weight[header]}
    queue = [(weight[header], header)]
    shortest = None
    while queue:
        cost, block = heapq.heappop(queue)
        if cost > best.get(block, cost):
            continue
        for following in flow.successors[block]:
            if following == header:
                shortest = cost if shortest is None else min(shortest, cost)
            elif following in loop.blocks and cost + weight[following] < best.get(following, 1 << 60):
                best[following] = cost + weight[following]
                heapq.heappush(queue, (best[following], following))
    return shortest or 0


def _nested(loop, flow):
    return set().union(*(other.blocks for other in flow.loops if other.parent is not None
                         and flow.loops[other.parent] is loop))


@dataclass
class KernelReport:
    kind: str
    move: str
    kernel: str
    cc: str
    registers: int
    spill_stores: int
    spill_loads: int
    stack: int
    shared: int  # static + dynamic, bytes per block
    sass_instructions: int
    main_loop: int
    fewest_per_pass: int
    inner_loops: list
    loops: int
    calls: list
    main_loop_mix: dict
    chains: int
    blocks: int
    threads: int
    device: str
    sms: int
    occupancy_sm: float
    occupancy_device: float
    occupancy_limited_by: str
    phases: dict = field(default_factory=dict)  # a cooperative move loop's steps (cooperative_phases)

    @property
    def division_in_loop(self):
        return [c["helper"] for c in self.calls if c["division"] and c["where"] != "outside loops"]


def analyse(kind, move_name, move, arch: Architecture, tools: Toolchain, dump: Path | None = None):
    """One KernelReport per kernel the backend launches for ``move``."""
    device = OfflineDevice.of(arch)
    compiled = []
    for launch in engine_launches(move, device):
        ptx, resources, sass = compile_launch(launch, arch.cc, tools, device)
        if dump is not None:
            dump.mkdir(parents=True, exist_ok=True)
            (dump / f"{move_name}-{launch.kernel}.ptx").write_text(ptx)
            (dump / f"{move_name}-{launch.kernel}.sass").write_text(sass)
        compiled.append((launch, resources, sass))
    # The backend's default launch fills the device (CudaBackend.default_chains): SMs x the blocks of the
    # advance kernel one SM holds x threads per block; every kernel of the run sees that many chains.
    advance = next((launch, resources) for launch, resources, _ in compiled if launch.kernel == "advance")
    per_sm = occupancy(arch, registers=advance[1].registers, threads=advance[0].threads,
                       shared=advance[1].shared + advance[0].dynamic_shared).blocks_per_sm
    chains = arch.sms * per_sm * advance[0].threads
    reports = []
    for launch, resources, sass in compiled:
        code = analyse_sass(sass)
        shared = resources.shared + launch.dynamic_shared
        threads_needed = chains if launch.kernel != "exchange" else chains // 2  # one thread per group of 2 rungs
        blocks = -(-threads_needed // launch.threads)
        if launch.kernel == "advance_cooperative":  # one chain per block: its own launch fills the device
            blocks = arch.sms * occupancy(arch, registers=resources.registers, threads=launch.threads,
                                          shared=shared).blocks_per_sm
        fill = occupancy(arch, registers=resources.registers, threads=launch.threads, shared=shared, blocks=blocks)
        reports.append(KernelReport(
            kind=kind, move=move_name, kernel=launch.kernel, cc=f"{arch.cc[0]}.{arch.cc[1]}",
            registers=resources.registers, spill_stores=resources.spill_stores, spill_loads=resources.spill_loads,
            stack=resources.stack, shared=shared, **code,
            chains=blocks if launch.kernel == "advance_cooperative" else chains, blocks=blocks,
            threads=launch.threads, device=arch.device, sms=arch.sms, occupancy_sm=fill.sm,
            occupancy_device=fill.device, occupancy_limited_by=fill.limited_by,
            phases=cooperative_phases(sass) if launch.kernel == "advance_cooperative" else {}))
    return reports


def table_row(r: KernelReport):
    mix = r.main_loop_mix
    inner = "+".join(map(str, r.inner_loops)) if len(r.inner_loops) <= 3 else \
        f"{len(r.inner_loops)} loops, {sum(r.inner_loops):,}"
    return [r.move, r.kernel, r.registers, f"{r.spill_stores}/{r.spill_loads}", r.stack, r.shared,
            r.sass_instructions, r.main_loop, r.fewest_per_pass, inner or "-", calls_summary(r.calls),
            f"{mix['global_loads']}/{mix['global_stores']}", f"{mix['generic_loads']}/{mix['generic_stores']}",
            mix["constant_loads"], mix["sixty_four_bit"],
            mix["float64"], mix["inline_divisions"],
            f"{r.chains:,} = {r.blocks} x {r.threads}", f"{r.occupancy_sm:.1%} ({r.occupancy_limited_by})",
            f"{r.occupancy_device:.1%}"]


def calls_summary(calls):
    """'sm20_div_s64: 2 in main loop, 1 outside loops' (one clause per helper)."""
    by_helper = {}
    for call in calls:
        places = by_helper.setdefault(call["helper"].removeprefix("__cuda_"), {})
        places[call["where"]] = places.get(call["where"], 0) + 1
    return "; ".join(f"{helper}: " + ", ".join(f"{n} {where}" for where, n in places.items())
                     for helper, places in by_helper.items()) or "-"


COLUMNS = ["move", "kernel", "regs", "spill st/ld", "stack", "smem", "SASS", "main loop", "fewest/pass", "inner loops",
           "calls: where", "loop LDG/STG", "loop LD/ST", "loop LDC", "loop 64-bit", "loop fp64",
           "loop div32", "chains = blocks x threads",
           "occupancy/SM", "device"]


def parse_cc(text):
    try:
        cc = tuple(int(x) for x in text.split("."))
    except ValueError:
        cc = ()
    if cc not in ARCHITECTURES:
        known = ", ".join(f"{a}.{b}" for a, b in ARCHITECTURES)
        raise argparse.ArgumentTypeError(f"compute capability {text!r}: known are {known}")
    return cc


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[4:]))
    parser.add_argument("--cc", type=parse_cc, default=(9, 0),
                        help="compute capability to compile for: 9.0 (H100, default) or 8.0 (A100)")
    parser.add_argument("--moves", default=None, metavar="MOVE,...", help="comma-separated moves (default: every move in the registry)")
    parser.add_argument("--dump", type=Path, default=None, metavar="DIR",
                        help="write each kernel's PTX and SASS as DIR/<move>-<kernel>.ptx and .sass")
    parser.add_argument("--json", action="store_true", help="one JSON object per kernel on stdout instead of the table")
    add_results_option(parser)
    args = parser.parse_args(argv)
    try:
        tools = find_tools()
    except ToolMissing as missing:
        print(f"sass.py: error: {missing}", file=sys.stderr)
        return 2
    arch = ARCHITECTURES[args.cc]
    moves = registry_moves()
    if args.moves:
        wanted = args.moves.split(",")
        unknown = sorted(set(wanted) - {name for _, name, _ in moves})
        if unknown:
            parser.error(f"unknown move(s) {', '.join(unknown)}; choose from {', '.join(n for _, n, _ in moves)}")
        moves = [m for m in moves if m[1] in wanted]
    try:
        reports = [r for kind, name, move in moves for r in analyse(kind, name, move, arch, tools, args.dump)]
    except CompileFailed as failure:
        print(f"sass.py: error: {failure}", file=sys.stderr)
        return 1
    info = {**environment(), "nvvm": tools.nvvm_version, "ptxas": tool_version(tools.ptxas),
            "nvdisasm": tool_version(tools.nvdisasm), "compiled for": f"sm_{args.cc[0]}{args.cc[1]} (no GPU needed)"}
    title = f"SASS of every kernel, sm_{args.cc[0]}{args.cc[1]}, launch shape for a {arch.device} ({arch.sms} SMs)"
    if args.json:
        for r in reports:
            print(json.dumps({**asdict(r), "division_in_loop": r.division_in_loop, "commit": info["commit"],
                              "ptxas": info["ptxas"], "nvvm": info["nvvm"]}))
    else:
        print_header(title, info)
        print_table(COLUMNS, [table_row(r) for r in reports])
    write_record("sass", record_rows(COLUMNS, [table_row(r) for r in reports]), columns=COLUMNS, info=info,
                 title=title, results=args.results, args=argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
