"""Element access of the proposal loops (``gpu_sa.engine.contract.item``, ``set_item``, ``table_row``, ``opaque``).

On the GPU these are intrinsics that form an element's address as the view's data pointer plus
index x stride in ONE 32-bit widening multiply (bench/sass.py shows it). Their code generation
is target-neutral apart from that multiply (``moves.access_intrinsics``), so it is built here for
the CPU with a plain widening multiply and checked, on every array layout the kernels pass them,
against numba's own ``view[index]``: the layouts, strides, row views and stored casts are the same
code the GPU runs. What only a GPU can check is the inline ``mul.wide.u32`` itself (as for
``rng.wide_product``); the real-CUDA bit-exact tests of bench/gpu.sh do.
"""
import dataclasses
import subprocess
import sys

import numba
import numpy as np
import pytest
from conftest import ROOT, cuda_env, cuda_mode, simulator_on_one_core
from llvmlite import ir
from numba.core import types
from numba.core.extending import intrinsic

from gpu_sa.engine import contract as moves
from gpu_sa.engine.limits import TooLarge
from gpu_sa.puzzles import sudoku

INT64 = ir.IntType(64)
item_at, set_item_at, table_row_at = moves.access_intrinsics(
    intrinsic, types, lambda builder, a, b: builder.mul(builder.zext(a, INT64), builder.zext(b, INT64)))


@numba.njit
def read_rows(state, rows, slots):
    """state[row, slot] through a row view and ``item``, as the kernels read the chains' state."""
    out = np.empty(rows.size, dtype=state.dtype)
    for k in range(rows.size):
        view = state[rows[k]]
        out[k] = item_at(view, np.uint32(slots[k]))
    return out


@numba.njit
def write_rows(state, rows, slots, values):
    for k in range(rows.size):
        view = state[rows[k]]
        set_item_at(view, np.uint32(slots[k]), values[k])


@numba.njit
def read_table(tables, puzzle, rows, columns):
    """tables[puzzle][row, column] through ``table_row`` and ``item``, as the kernels read per-puzzle tables."""
    table = tables[puzzle]
    out = np.empty(rows.size, dtype=tables.dtype)
    for k in range(rows.size):
        out[k] = item_at(table_row_at(table, np.uint32(rows[k])), np.uint32(columns[k]))
    return out


def _indices(rng, shape, count=500):
    return [rng.integers(0, n, size=count) for n in shape]


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32, np.uint64])
@pytest.mark.parametrize("order", ["F", "C"])
def test_item_reads_what_indexing_reads(dtype, order):
    """The GPU's state is Fortran ordered ([slot][chain]: a row view strided by the chain count), the CPU's C."""
    rng = np.random.default_rng(1)
    state = np.asarray(rng.integers(0, np.iinfo(dtype).max, size=(37, 91), dtype=dtype), order=order)
    rows, slots = _indices(rng, state.shape)
    assert np.array_equal(read_rows(state, rows, slots), state[rows, slots])


@pytest.mark.parametrize("order", ["F", "C"])
def test_set_item_writes_what_indexing_writes(order):
    """Values arrive as the loops' int64 sums and are stored in the array's type, as ``view[i] = value`` does."""
    rng = np.random.default_rng(2)
    state = np.asarray(rng.integers(0, 200, size=(29, 405), dtype=np.uint8), order=order)
    expected = state.copy()
    rows, slots = _indices(rng, state.shape)
    values = rng.integers(0, 256, size=rows.size).astype(np.int64)
    write_rows(state, rows, slots, values)
    for row, slot, value in zip(rows, slots, values):
        expected[row, slot] = value
    assert np.array_equal(state, expected)


@pytest.mark.parametrize("dtype", [np.uint8, np.int32, np.uint64])
def test_table_row_reads_what_indexing_reads(dtype):
    """Per-puzzle tables (puzzle, rows, columns), C-contiguous, read through a puzzle's 2-D view."""
    rng = np.random.default_rng(3)
    tables = rng.integers(0, 250, size=(3, 81, 19)).astype(dtype)
    rows, columns = _indices(rng, tables.shape[1:])
    for puzzle in range(tables.shape[0]):
        assert np.array_equal(read_table(tables, puzzle, rows, columns), tables[puzzle][rows, columns])


def test_table_row_of_a_strided_table():
    """A table that is not C-contiguous keeps its strides (the row's stride is read, not assumed)."""
    rng = np.random.default_rng(4)
    tables = np.asfortranarray(rng.integers(0, 250, size=(2, 40, 7)).astype(np.int32))
    rows, columns = _indices(rng, tables.shape[1:])
    assert np.array_equal(read_table(tables, 1, rows, columns), tables[1][rows, columns])


def test_the_cpu_path_is_plain_indexing():
    """On the CPU backend the helpers are numba's indexing (and ``opaque`` the value itself)."""

    @numba.njit
    def use(state, table):
        view = state[2]
        moves.set_item(view, np.uint32(3), moves.item(view, np.uint32(3)) + 1)
        total = 0
        for slot in range(moves.opaque(np.uint32(4))):
            total += moves.item(moves.table_row(table, np.uint32(1)), np.uint32(slot))
        return total

    state = np.zeros((4, 8), dtype=np.uint8)
    table = np.arange(12, dtype=np.int32).reshape(3, 4)
    assert use(state, table) == 4 + 5 + 6 + 7
    assert state[2, 3] == 1 and state.sum() == 1


def test_chain_counts_stay_within_32_bit_strides():
    """On the GPU a chain's consecutive slots are rows x item size bytes apart, a stride ``item`` takes in 32 bits:
    more chains than that in one launch are refused, in one line, before anything is allocated."""
    anneal_move = sudoku.parse("." * 81)[0].move("sirdey")
    limit = moves.addressable_rows(anneal_move)
    assert limit == 2**32 - 1  # one-byte grids and counts
    moves.check_addressable(anneal_move, limit)
    with pytest.raises(TooLarge) as refused:
        moves.check_addressable(anneal_move, limit + 1)
    message = str(refused.value)
    assert "\n" not in message and message.startswith(f"{limit + 1:,} chains in one launch")
    assert message.endswith(f"at most {limit:,} chains of this puzzle per launch")


def test_wider_state_allows_fewer_chains():
    """Two-byte state halves the bound (the widest item of any per-chain array sets it)."""
    anneal_move = sudoku.parse("." * 81)[0].move("sirdey")
    wide = dataclasses.replace(anneal_move, counts_dtype=np.uint16)
    assert moves.addressable_rows(wide) == (2**32 - 1) // 2


def _cuda_backend_says(body: str) -> list[str]:
    """The lines ``body`` prints, run in a process of its own on the cuda backend (the simulator in CI), with
    ``move`` a blank 9x9 under sirdey and ``backend`` a CudaBackend."""
    script = ("from gpu_sa.engine import contract as moves\n"
              "from gpu_sa.engine.backends import CudaBackend\n"
              "from gpu_sa.engine.limits import TooLarge\n"
              "from gpu_sa.puzzles import sudoku\n"
              "move = sudoku.parse('.' * 81)[0].move('sirdey')\n"
              "backend = CudaBackend()\n" + body)
    env = cuda_env()
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300,
                          cwd=ROOT, preexec_fn=simulator_on_one_core(env))
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()


@pytest.mark.skipif(cuda_mode() == "real", reason="the real GPU's processes are not pinned (no simulator)")
def test_the_simulators_processes_run_on_one_core():
    """The suite starts every process of numba's CUDA simulator on one core (conftest.simulator_on_one_core: spread
    over cores, its GIL handoffs made one test 9 times slower on a busy machine); its children keep that core."""
    child = "import os; print(len(os.sched_getaffinity(0)))"
    said = _cuda_backend_says("import os, subprocess, sys\n"
                              "print(len(os.sched_getaffinity(0)))\n"
                              f"print(subprocess.run([sys.executable, '-c', {child!r}], capture_output=True,"
                              " text=True).stdout.strip())\n")
    assert said == ["1", "1"]
    assert simulator_on_one_core(dict(cuda_env(), NUMBA_ENABLE_CUDASIM="0")) is None


def test_the_cuda_backend_checks_before_allocating():
    """Under the simulator, 2**32 chains are refused at once (no terabyte allocation is attempted)."""
    said = _cuda_backend_says("try:\n"
                              "    backend.allocate(move, 2**32)\n"
                              "except TooLarge as error:\n"
                              "    print('refused:', error)\n")
    assert said[0].startswith("refused: 4,294,967,296 chains in one launch")


def test_the_cuda_backend_caps_its_default_chains():
    """Default chain counts stay within the bound (shown with a 10-byte bound on the stride, 9 one-byte rows).
    Unbounded, the default fills the device: 64 chains under the simulator; on a GPU, the advance kernel's
    launch plan (SMs x resident blocks x 128; a blank 9x9 under sirdey is far from the memory cap)."""
    said = _cuda_backend_says("print(backend.default_chains(move), backend.max_rows(move), "
                              "backend.launch_plan(move)['chains'])\n"
                              "moves.MAX_STRIDE_BYTES = 10\n"
                              "print(backend.default_chains(move), backend.max_rows(move), backend.dataset_chains(move))\n")
    filled = 64 if cuda_mode() == "simulator" else int(said[0].split()[2])
    assert filled >= 64
    assert said[:2] == [f"{filled} {2**32 - 1} {filled}", "9 9 9"]


def test_device_attribute_names_are_those_numba_cuda_reads():
    """numba-cuda reads ``device.NAME`` as cuda.bindings' CUdevice_attribute CU_DEVICE_ATTRIBUTE_NAME; a name that
    enum lacks made the first real GPU (an H200) unusable, so the first spelling of each must be in it."""
    from cuda.bindings.driver import CUdevice_attribute

    from gpu_sa.engine.backends import DEVICE_ATTRIBUTES

    missing = [spellings[0] for spellings in DEVICE_ATTRIBUTES.values()
               if not hasattr(CUdevice_attribute, "CU_DEVICE_ATTRIBUTE_" + spellings[0])]
    assert missing == []


@pytest.mark.parametrize("enum", ["nvidia", "ctypes"])
def test_device_facts_read_either_spelling(enum, monkeypatch):
    """cuda_device_facts reads a device that knows NVIDIA's names and one that knows the older ctypes binding's
    (MAX_THREADS_PER_MULTI_PROCESSOR); a name neither knows raises."""
    from numba import cuda

    from gpu_sa.engine import backends

    known = {"MULTIPROCESSOR_COUNT": 132, "MAX_REGISTERS_PER_MULTIPROCESSOR": 65536,
             "MAX_BLOCKS_PER_MULTIPROCESSOR": 32, "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR": 233472,
             ("MAX_THREADS_PER_MULTIPROCESSOR" if enum == "nvidia" else "MAX_THREADS_PER_MULTI_PROCESSOR"): 2048}

    class Device:  # like numba-cuda's Device: an attribute its enum lacks raises AttributeError
        name = b"NVIDIA H200"

        def __getattr__(self, attribute):
            if attribute not in known:
                raise AttributeError(f"type object 'CUdevice_attribute' has no attribute 'CU_DEVICE_ATTRIBUTE_{attribute}'")
            return known[attribute]

    monkeypatch.setattr(cuda, "get_current_device", Device)
    backends.cuda_device_facts.cache_clear()
    try:
        assert backends.cuda_device_facts() == {"name": "NVIDIA H200", "sms": 132, "threads_per_sm": 2048,
                                                "registers_per_sm": 65536, "blocks_per_sm": 32, "shared_per_sm": 233472}
        del known["MULTIPROCESSOR_COUNT"]
        backends.cuda_device_facts.cache_clear()
        with pytest.raises(AttributeError, match="MULTIPROCESSOR_COUNT"):
            backends.cuda_device_facts()
    finally:
        backends.cuda_device_facts.cache_clear()
