"""The contract between the puzzles and the annealing engine (the engine's interface).

A puzzle offers one ``AnnealMove`` per move set: host tables, state sizes, and a module of
per-chain device functions written once in Python and compiled for every backend:

    start_chain(row, chain, puzzle, key0, key1, tables, state) -> initial cost
        writes chain ``chain``'s first configuration and counts into row ``row`` of ``state``
    advance_chain(row, chain, puzzle, key0, key1, tables, move_begin, move_end, plateau_begin,
                  plateau_length, thresholds, state)
        the Metropolis loop over moves [move_begin, move_end) of one chain: ``plateau_begin`` is
        move_begin's plateau (move_begin // plateau_length), whose acceptance row for rung l is
        ``thresholds[0, l]`` (uint32, one column per cost increase), the next plateau's row 1...;
        the chain reads rung ``state.level[row]`` (the plateau is tracked incrementally: no
        division in the loop)

``puzzle`` indexes the leading axis of every per-puzzle table (a batch of puzzles shares one
launch); ``chain`` is the chain's index in the random stream. The engine (``kernels``,
``backends``, ``runner``) owns everything else: which rows run, plateaus, replica exchange,
trials. Puzzle modules import this module and ``rng``, never the engine.

``device`` compiles such a function for the CPU with numba; the CUDA kernels call the very
same functions (numba-cuda compiles a numba CPU function for the device when a kernel calls
it). Under numba's CUDA simulator every compiled path runs as plain Python instead, since the
simulator hands kernels array objects a compiled CPU function cannot take.

State layout, one row per chain (``ChainState``): on the CPU each chain's bytes are contiguous
([chain, slot], C order: one core walks one chain); on the GPU the same arrays are Fortran
ordered ([slot][chain] in memory) so that the 32 threads of a warp, reading the same slot of 32
neighbouring chains, touch consecutive addresses. Device code always indexes ``a[row, slot]``.
"""
from __future__ import annotations

import dataclasses
import functools
import os
from dataclasses import dataclass
from types import ModuleType
from typing import NamedTuple

import numpy as np

SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


def device(function):
    """Compile a per-chain function for every backend (plain Python under the CUDA simulator).

    On the CPU through ``gpu_sa.engine.jit.njit``: a constant a caller passes (``leaves(..., 0, 1)``, an ``add_count`` of
    -1) does not compile the function once more as a literal. The CUDA kernels are not affected: numba-cuda compiles
    the function afresh from its Python source for the device."""
    if SIMULATOR:
        return function
    from .jit import njit

    return njit(nogil=True)(function)


class ChainState(NamedTuple):
    """Every chain's state, one row per chain (host NumPy arrays or CUDA device arrays)."""

    config: object  # (rows, config_size) move.config_dtype: the configuration (the grid for Sudoku)
    counts: object  # (rows, counts_size) move.counts_dtype: incremental counts behind the cost
    cost: object  # (rows,) int32
    accepted: object  # (rows,) uint64: accepted proposals
    best_cost: object  # (rows,) int32: lowest cost seen
    best_config: object  # (rows, config_size): the configuration when best_cost was first reached
    best_move: object  # (rows,) int64: moves done when best_cost was first reached
    level: object  # (rows,) int32: the chain's rung on the temperature ladder (0 without replicas)
    exchanges: object  # (rows,) uint64: row first + l of a replica group counts its accepted (l, l+1) exchanges
    memory: object  # (rows, memory_size) move.memory_dtype: a move's search memory (tabu marks...); 0 wide if none


def state_arrays(move: "AnnealMove", rows: int) -> list[tuple[str, tuple, type]]:
    """(field, shape, dtype) of every ChainState array for ``rows`` chains of ``move``."""
    config = (rows, move.config_size)
    return [("config", config, move.config_dtype), ("counts", (rows, move.counts_size), move.counts_dtype),
            ("cost", (rows,), np.int32), ("accepted", (rows,), np.uint64), ("best_cost", (rows,), np.int32),
            ("best_config", config, move.config_dtype), ("best_move", (rows,), np.int64),
            ("level", (rows,), np.int32), ("exchanges", (rows,), np.uint64),
            ("memory", (rows, move.memory_size), move.memory_dtype)]


def addressable_rows(move: "AnnealMove") -> int:
    """The most chains (rows) one launch may hold on the GPU: there a chain's consecutive slots are rows x item
    size bytes apart (Fortran order), a stride ``item`` takes in 32 bits (MAX_STRIDE_BYTES). 4,294,967,295 for
    one-byte state, far beyond any device's memory: a formal bound, checked all the same."""
    widest_item = max(np.dtype(dtype).itemsize for _, shape, dtype in state_arrays(move, 1)
                      if len(shape) == 2 and shape[1] > 0)
    return (MAX_STRIDE_BYTES - 1) // widest_item


def check_addressable(move: "AnnealMove", rows: int) -> None:
    """Raise ``limits.TooLarge`` (one line) for more rows than ``addressable_rows``; called by the cuda backend
    before allocating."""
    from .limits import TooLarge

    most = addressable_rows(move)
    if rows > most:
        raise TooLarge(f"{rows:,} chains in one launch: the GPU kernels step through a chain's state with 32-bit "
                       f"strides, which allows at most {most:,} chains of this puzzle per launch")


def state_bytes(move: "AnnealMove", rows: int) -> int:
    """Memory the chains' state takes (checked against the machine before allocating)."""
    return sum(int(np.prod(shape)) * np.dtype(dtype).itemsize for _, shape, dtype in state_arrays(move, rows))


def native_int(value):
    """``value`` as the machine's natural integer for small sums: int64 on the CPU (x86 adds in 64 bits; an
    int32 sum costs sign extensions, about 5 % of sirdey's throughput at 256 chains), int32 on the GPU (a
    64-bit sum costs a carry instruction per add). Plain Python under the simulator."""
    return int(value)


def _register_native_int_for_the_cpu():
    from numba.core.extending import overload

    @overload(native_int, target="cpu")
    def _on_the_cpu(value):
        return lambda value: np.int64(value)


class CudaExtending(NamedTuple):
    """numba-cuda's extension API, wherever this version keeps it: ``intrinsic`` (CUDA target), ``overload``
    (a decorator factory taking the function; CUDA target) and the numba types module for signatures."""

    intrinsic: object
    overload: object
    types: object


def cuda_extending() -> CudaExtending:
    """numba-cuda >= 0.2x vendors numba's core: its overloads register through ``numba.cuda.extending`` and
    its types are ``numba.cuda.types``; older releases (the pyproject allows >= 0.20) have only
    ``intrinsic`` there and register CUDA overloads through ``numba.core.extending`` with target "cuda"."""
    from numba.cuda.extending import intrinsic

    try:
        from numba.cuda.extending import overload as cuda_overload
    except ImportError:
        from numba.core.extending import overload as cuda_overload
    try:
        from numba.cuda import types
        types.uint64  # noqa: B018 (an older numba.cuda.types holds only CUDA's own types)
    except (ImportError, AttributeError):
        from numba.core import types
    return CudaExtending(intrinsic, lambda function: cuda_overload(function, target="cuda"), types)


# Element access in the proposal loops. On the GPU, numba addresses ``view[index]`` as the view's pointer
# plus index x a 64-bit stride: two IMADs per access, and LLVM re-associates the view's own offset (the
# chain's row) into every address. These helpers take a uint32 index and form the address as ONE
# ``mul.wide.u32`` (index x the stride's low 32 bits, a full 64-bit product, as inline PTX that LLVM cannot
# re-associate) added to the view's pointer: one IMAD.WIDE.U32 per access. That is exact while the stride
# fits in 32 bits (MAX_STRIDE_BYTES): always for the tables' rows; for the chains' state, whose slots are
# rows x item size bytes apart on the GPU, the cuda backend checks the chain count before allocating
# (``check_addressable``). A C-contiguous view's stride is its item size, a constant. Everywhere else (CPU,
# simulator) they are plain indexing.
MAX_STRIDE_BYTES = 1 << 32


def item(view, index):
    """``view[index]`` of a 1-D view, ``index`` a uint32 (see above)."""
    return view[index]


def set_item(view, index, value):
    """``view[index] = value`` of a 1-D view, ``index`` a uint32 (see above)."""
    view[index] = value


def table_row(table, index):
    """``table[index]``: one row of a 2-D table, its pointer formed as in ``item``, for ``item`` and ``set_item``
    only: on the GPU it is a 1-tuple holding the row's view (see ``register_for_cuda``), on the CPU the pair
    (table, index) (see ``_register_access_for_the_cpu``), in the simulator the view itself."""
    return table[index]


def opaque(limit):
    """``limit``, hidden from the optimiser on the GPU: an empty inline PTX move, so a loop bounded by it has no
    trip count LLVM can compute, carrying PTX's ``.pragma "nounroll"`` for ptxas, which unrolls on its own. For
    loops that must stay rolled: the best-state copy (its unrolled remainder was ~30 instructions of every
    proposal loop) and bridge's crossing count and connectivity walk (unrolled, they set its register count;
    bench/sass.py shows both)."""
    return limit


def _register_access_for_the_cpu():
    """On the CPU a row from ``table_row`` is the pair (table, index), and ``item`` of it is ``table[index, j]``:
    the very indexing the loops had before these helpers, with no row view built per proposal (a view costs
    reference counting on the CPU)."""
    from numba.core import types
    from numba.core.extending import overload

    @overload(item, target="cpu")
    def _item(view, index):
        if isinstance(view, types.BaseTuple):
            return lambda view, index: view[0][view[1], index]
        return lambda view, index: view[index]

    @overload(set_item, target="cpu")
    def _set_item(view, index, value):
        if isinstance(view, types.BaseTuple):
            def store_in_row(view, index, value):
                view[0][view[1], index] = value
            return store_in_row

        def store(view, index, value):
            view[index] = value
        return store

    @overload(table_row, target="cpu")
    def _row(table, index):
        return lambda table, index: (table, index)

    @overload(opaque, target="cpu")
    def _opaque(limit):
        return lambda limit: limit


class AccessIntrinsics(NamedTuple):
    item: object  # (view, uint32 index) -> the element
    set_item: object  # (view, uint32 index, value) -> None
    table_row: object  # (2-D table, uint32 index) -> 1-D view


def ptx_mul_wide_u32(builder, a, b):
    """The full 64-bit product of two i32 values as one inline PTX ``mul.wide.u32`` (NVVM cannot split or
    re-associate it): Philox's products (``gpu_sa.engine.rng.wide_product``) and the element access below."""
    from llvmlite import ir

    function = ir.FunctionType(ir.IntType(64), [ir.IntType(32), ir.IntType(32)])
    return builder.call(ir.InlineAsm(function, "mul.wide.u32 $0, $1, $2;", "=l,r,r"), [a, b])


def access_intrinsics(intrinsic, types, wide_multiply) -> AccessIntrinsics:
    """numba intrinsics behind ``item``, ``set_item`` and ``table_row``: the element's address is the data pointer
    plus ``wide_multiply(builder, index, stride)``, two i32 values to their i64 product. numba-cuda gets them with
    ``ptx_mul_wide_u32`` (``register_for_cuda``); tests/engine/test_contract.py builds them for the CPU with a plain
    widening multiply, to check on every layout the kernels use that they address what ``view[index]`` does."""
    from llvmlite import ir

    int32, int64 = ir.IntType(32), ir.IntType(64)

    def stride_32(context, builder, array_type, view, axis):
        """A C-contiguous array's last stride is its item size, a constant; any other is read, low 32 bits."""
        if array_type.layout == "C" and axis == array_type.ndim - 1:
            return ir.Constant(int32, context.get_abi_sizeof(context.get_data_type(array_type.dtype)))
        return builder.trunc(builder.extract_value(view.strides, axis), int32)

    def address(context, builder, array_type, array, index):
        """Pointer to element ``index`` along the first axis of ``array`` (an array value), and its structure."""
        view = context.make_array(array_type)(context, builder, array)
        offset = wide_multiply(builder, index, stride_32(context, builder, array_type, view, 0))
        return builder.inttoptr(builder.add(builder.ptrtoint(view.data, int64), offset), view.data.type), view

    @intrinsic
    def item_at(typingctx, view, index):
        def codegen(context, builder, signature, args):
            return builder.load(address(context, builder, signature.args[0], *args)[0])
        return view.dtype(view, types.uint32), codegen

    @intrinsic
    def set_item_at(typingctx, view, index, value):
        def codegen(context, builder, signature, args):
            view_type, _, value_type = signature.args
            stored = context.cast(builder, args[2], value_type, view_type.dtype)
            builder.store(stored, address(context, builder, view_type, args[0], args[1])[0])
            return context.get_dummy_value()
        return types.none(view, types.uint32, value), codegen

    @intrinsic
    def table_row_at(typingctx, table, index):
        def codegen(context, builder, signature, args):
            data, table_view = address(context, builder, signature.args[0], *args)
            result = context.make_array(signature.return_type)(context, builder)
            context.populate_array(result, data=data, shape=[builder.extract_value(table_view.shape, 1)],
                                   strides=[builder.extract_value(table_view.strides, 1)],
                                   itemsize=table_view.itemsize, meminfo=table_view.meminfo,
                                   parent=table_view.parent)
            value = result._getvalue()
            if context.enable_nrt:  # the CPU's reference counting: the row view holds a reference (CUDA: no NRT)
                context.nrt.incref(builder, signature.return_type, value)
            return value
        if table.ndim != 2:
            return None
        return table.copy(ndim=1, layout="C" if table.layout == "C" else "A")(table, types.uint32), codegen

    return AccessIntrinsics(item_at, set_item_at, table_row_at)


@functools.cache
def register_for_cuda():
    """``native_int``, the element access above and ``opaque`` for numba-cuda; called by ``gpu_sa.engine.kernels``
    before it builds CUDA kernels (importing numba.cuda here would cost every command about 0.15 s)."""
    from llvmlite import ir

    cuda = cuda_extending()
    int32 = ir.IntType(32)
    item_at, set_item_at, table_row_at = access_intrinsics(cuda.intrinsic, cuda.types, ptx_mul_wide_u32)

    @cuda.overload(native_int)
    def _on_the_gpu(value):
        return lambda value: np.int32(value)

    @cuda.intrinsic
    def _opaque(typingctx, limit):
        def codegen(context, builder, signature, args):
            # \22 is a double quote in LLVM IR's strings (llvmlite writes the text as given)
            move = ir.InlineAsm(ir.FunctionType(int32, [int32]), ".pragma \\22nounroll\\22; mov.b32 $0, $1;", "=r,r",
                                side_effect=True)
            return builder.call(move, list(args))
        return cuda.types.uint32(cuda.types.uint32), codegen

    # A row from ``table_row`` travels as a 1-tuple holding the view: numba-cuda refuses a device function that
    # returns an array it was not passed (0.20 even when asked to inline it), not one that returns a tuple.
    # ``item`` and ``set_item`` take the view out again; the tuple costs nothing once NVVM has inlined.
    @cuda.overload(item)
    def _item_on_the_gpu(view, index):
        if isinstance(view, cuda.types.BaseTuple):
            return lambda view, index: item_at(view[0], np.uint32(index))
        return lambda view, index: item_at(view, np.uint32(index))

    @cuda.overload(set_item)
    def _set_item_on_the_gpu(view, index, value):
        if isinstance(view, cuda.types.BaseTuple):
            return lambda view, index, value: set_item_at(view[0], np.uint32(index), value)
        return lambda view, index, value: set_item_at(view, np.uint32(index), value)

    @cuda.overload(table_row)
    def _table_row_on_the_gpu(table, index):
        return lambda table, index: (table_row_at(table, np.uint32(index)),)

    @cuda.overload(opaque)
    def _opaque_on_the_gpu(limit):
        return lambda limit: _opaque(np.uint32(limit))


if not SIMULATOR:  # under the simulator every device function runs as plain Python
    _register_native_int_for_the_cpu()
    _register_access_for_the_cpu()


@device
def keep_best(row, move, state):
    """A chain beat its best cost at move index ``move`` (rare: a cold path)."""
    state.best_move[row] = move + 1
    # one chain's rows as views and a uint32 slot: one IMAD per byte (``item``), no sign handling; a while loop
    # (numba's range() would count in 64 bits) under an ``opaque`` bound, so that it is not unrolled
    config, best_config = state.config[row], state.best_config[row]
    slot, size = np.uint32(0), np.uint32(config.shape[0])
    while slot < opaque(size):
        set_item(best_config, slot, item(config, slot))
        slot = np.uint32(slot + np.uint32(1))


@device
def loop_counters(row, state):
    """A chain's 32-bit loop state at the start of a launch: (current cost, best cost, moves accepted in
    this launch); one register each on the GPU."""
    return np.int32(state.cost[row]), np.int32(state.best_cost[row]), np.uint32(0)


@device
def note_accepted(row, current, best, n_accepted, lo, hi, state):
    """After an accepted move brought the chain to ``current``: (best, n_accepted) updated, the best state
    kept when ``current`` beats it."""
    n_accepted = np.uint32(n_accepted + np.uint32(1))
    if current < best:
        best = current
        keep_best(row, move_index(lo, hi), state)
    return best, n_accepted


@device
def store_counters(row, current, best, n_accepted, state):
    """The loop state back into the chain's row at the end of a launch."""
    state.cost[row] = current
    state.best_cost[row] = best
    state.accepted[row] += np.uint64(n_accepted)


@device
def clock_start(move_begin, plateau_begin, plateau_length):
    """A launch's clock, every part 32-bit (a launch covers fewer than 2**31 moves; the backends split longer
    ones): (lo, hi) the move index as its two Philox counter words, the move's place in its plateau, the
    plateau's row in the launch's thresholds (0: the caller passes ``plateau_begin`` = the plateau of
    ``move_begin``, so that no division is needed), and the plateau length."""
    return (np.uint32(move_begin & 0xFFFFFFFF), np.uint32(move_begin >> 32),
            np.int32(move_begin - plateau_begin * plateau_length), np.int32(0), np.int32(plateau_length))


@device
def clock_tick(lo, hi, in_plateau, plateau, length):
    """The clock after one move: counter words with carry, next plateau when this one is full."""
    lo = np.uint32(lo + np.uint32(1))
    if lo == 0:
        hi = np.uint32(hi + np.uint32(1))
    in_plateau = np.int32(in_plateau + 1)
    if in_plateau == length:
        in_plateau = np.int32(0)
        plateau = np.int32(plateau + 1)
    return lo, hi, in_plateau, plateau


@device
def move_index(lo, hi):
    """The 64-bit move index of the clock's counter words (for the rare best-state copy)."""
    return (np.int64(hi) << 32) | np.int64(lo)


@device
def start_bookkeeping(row, total, state):
    """After ``start_chain``: nothing accepted yet, the first configuration is the best so far."""
    state.cost[row] = total
    state.accepted[row] = 0
    state.best_cost[row] = total
    state.best_move[row] = 0
    state.exchanges[row] = 0
    for slot in range(state.config.shape[1]):
        state.best_config[row, slot] = state.config[row, slot]


@dataclass(frozen=True, eq=False)
class AnnealMove:
    """One puzzle instance (or a batch of same-shaped ones) under one move set.

    ``kernel`` is the module of device functions (``start_chain``, ``advance_chain``);
    ``reference`` the plain-NumPy twin module (``init_chains``, ``advance_chains``).
    ``tables`` is the move's NamedTuple of constant arrays, every per-puzzle array with a
    leading puzzle axis (``puzzles`` long); fields listed in its ``SHARED`` class attribute
    are the same for every puzzle and have no puzzle axis.
    """

    name: str
    kernel: ModuleType
    reference: ModuleType
    tables: tuple
    config_size: int
    counts_size: int
    max_delta: int  # largest possible cost increase of one move: the acceptance table's width - 1
    plateau_length: int  # the seed's "natural size": moves per temperature plateau
    max_cost: float  # e_p, Sirdey's T0 and rate
    log_states: float  # log |Omega|, for Sirdey's final temperature
    has_free_variables: bool = True
    config_dtype: type = np.uint8
    counts_dtype: type = np.uint8
    # a move's own per-chain search memory beyond the counts (move ``tabu``: its tabu marks, conflict list,
    # configuration-checking flags); most moves have none
    memory_size: int = 0
    memory_dtype: type = np.uint32
    # chains per CPU core when the caller names none (None: the backend's default count); a local search whose
    # chains each need a core's whole time names 1
    chains_per_core: int | None = None
    # the module of this move's cooperative CUDA layout (one thread block per chain: ``advance_cooperative_kernel``,
    # ``shared_bytes``, ``fits``, ``THREADS``; gpu_sa.engine.plan models it), or None: the one-thread layout only. A
    # name, not the module, so that importing the puzzle does not import numba-cuda
    cooperative: str | None = None
    # why ``--backend auto`` runs this move on the CPU even where a GPU is usable ("": on the GPU), said on stderr:
    # a move whose kernel, as written, loses to the CPU cores (docs/gpu.md, "What runs where")
    cpu_preferred: str = ""
    # the tuned default schedule for this puzzle kind: (t0, t_end, plateaus) of a geometric law,
    # or None for the runner's defaults (measured on Sudoku)
    schedule_defaults: tuple | None = None
    puzzles: int = 1
    # the largest cost a chain can ever hold (None: not known), a proven bound: no replica exchange compares costs
    # further apart, so the exchange table needs no column past it (``gpu_sa.engine.exchange``)
    cost_bound: int | None = None
    # the chains' elite pool (``gpu_sa.engine.pool``): its default interval in moves (0: chains alone) and the memory
    # slots a chain keeps when it takes a copy of another's state
    pool_interval: int = 0
    pool_kept: tuple = ()


def smallest_unsigned(largest: int):
    """The narrowest unsigned NumPy type holding 0 .. ``largest`` (narrow state = less memory traffic)."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if largest <= np.iinfo(dtype).max:
            return dtype
    raise ValueError(f"{largest} does not fit in 32 bits")


def per_puzzle(array, dtype) -> np.ndarray:
    """One puzzle's table with its leading puzzle axis (length 1), contiguous, of ``dtype``.

    By reshape, not ``[None]``: the new axis of ``[None]`` has stride 0, which NumPy still calls contiguous
    but numba-cuda does not, so the kernels would be compiled for layout 'A' with a runtime 64-bit stride per
    dimension."""
    array = np.ascontiguousarray(array, dtype=dtype)
    return array.reshape((1,) + array.shape)


def stack_moves(moves: list[AnnealMove]) -> AnnealMove:
    """One AnnealMove for a batch of same-move puzzles: per-puzzle tables stacked along the puzzle
    axis (each padded to the batch's largest shape: -1 for signed integers, 0 for unsigned), shared
    tables taken from the first; state sizes and the widest acceptance row are the batch's largest."""
    first = moves[0]
    if len(moves) == 1:
        return first
    shared = getattr(first.tables, "SHARED", ())
    fields = []
    for name, value in zip(first.tables._fields, first.tables):
        if name in shared:
            fields.append(value)
            continue
        parts = [getattr(m.tables, name) for m in moves]
        shape = tuple(max(sizes) for sizes in zip(*(p.shape[1:] for p in parts)))
        fill = -1 if np.issubdtype(value.dtype, np.signedinteger) else 0
        stacked = np.full((sum(p.shape[0] for p in parts),) + shape, fill, dtype=value.dtype)
        at = 0
        for part in parts:
            stacked[(slice(at, at + part.shape[0]),) + tuple(slice(0, n) for n in part.shape[1:])] = part
            at += part.shape[0]
        fields.append(stacked)
    return dataclasses.replace(
        first, tables=type(first.tables)(*fields), puzzles=sum(m.puzzles for m in moves),
        config_size=max(m.config_size for m in moves), counts_size=max(m.counts_size for m in moves),
        memory_size=max(m.memory_size for m in moves),
        max_delta=max(m.max_delta for m in moves),
        cost_bound=None if any(m.cost_bound is None for m in moves) else max(m.cost_bound for m in moves))
