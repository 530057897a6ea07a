"""The kernels' machine code, checked without a GPU (``bench/sass.py``; issue 14 items 1 and 2).

Every kernel of every move is compiled for sm_90 (NVVM -> ptxas -> nvdisasm, from the ``sass`` extra)
with the launch arguments and launch shape of the cuda backend; the budgets below come from issue 14's
"Done when", all met since the 32-bit element access of ``gpu_sa.engine.contract.item``. A case the kernels on main
fail would carry a strict xfail (``FAILING``) naming the work that will meet it, so that the mark goes as
soon as the case passes.

The occupancy calculator and the SASS control-flow analysis are checked first on hand-made cases,
with no tool needed.
"""
import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT, background_result

sys.path.insert(0, str(ROOT / "bench"))
import sass  # noqa: E402  (bench/sass.py)

from gpu_sa.engine import plan  # noqa: E402

H100, A100 = sass.ARCHITECTURES[(9, 0)], sass.ARCHITECTURES[(8, 0)]
COOPERATIVE = plan.COOPERATIVE_SASS

# ---------------------------------------------------------------------------------------------------
# Occupancy: cases worked by hand from NVIDIA's per-SM limits
# ---------------------------------------------------------------------------------------------------

OCCUPANCY_CASES = [
    # 62 x 32 = 1984 -> 2048 registers per warp; 16384 / 2048 = 8 warps per sub-partition, 32 per SM;
    # blocks of 4 warps -> 8 blocks = 32 warps = 50 %
    dict(arch=H100, registers=62, threads=128, shared=0, blocks_per_sm=8, limited_by="registers", sm=0.5),
    # 48 x 32 = 1536 per warp; 16384 // 1536 = 10 per sub-partition, 40 per SM -> 10 blocks = 62.5 %
    dict(arch=H100, registers=48, threads=128, shared=0, blocks_per_sm=10, limited_by="registers", sm=0.625),
    # 1024 per warp -> 64 warps: registers allow 8 blocks of 8 warps, as do the 64 warps -> 100 %
    dict(arch=H100, registers=32, threads=256, shared=0, blocks_per_sm=8, limited_by="warps", sm=1.0),
    # one warp per block: the 32-block limit leaves half the warps empty
    dict(arch=H100, registers=16, threads=32, shared=0, blocks_per_sm=32, limited_by="blocks", sm=0.5),
    # 255 x 32 = 8160 -> 8192 per warp: 2 warps per sub-partition, 8 per SM -> 2 blocks of 4 warps
    dict(arch=H100, registers=255, threads=128, shared=0, blocks_per_sm=2, limited_by="registers", sm=0.125),
    # 48 KiB + 1 KiB reserved = 50176 B per block: 233472 // 50176 = 4 blocks on sm_90 (228 KiB) ...
    dict(arch=H100, registers=32, threads=128, shared=48 * 1024, blocks_per_sm=4, limited_by="shared memory",
         sm=0.25),
    # ... and 167936 // 50176 = 3 on sm_80 (164 KiB)
    dict(arch=A100, registers=32, threads=128, shared=48 * 1024, blocks_per_sm=3, limited_by="shared memory",
         sm=0.1875),
    # 100 B rounds up to 1152 B with the reserved KiB: 145 blocks fit, the 32-block limit binds first
    dict(arch=A100, registers=24, threads=32, shared=100, blocks_per_sm=32, limited_by="blocks", sm=0.5),
    # 72 x 32 = 2304 per warp x 32 warps = 73728 > 65536 registers per block: the launch cannot run
    dict(arch=H100, registers=72, threads=1024, shared=0, blocks_per_sm=0, limited_by="registers", sm=0.0),
]


@pytest.mark.parametrize("case", OCCUPANCY_CASES,
                         ids=[f"sm{c['arch'].cc[0]}{c['arch'].cc[1]}-{c['registers']}r-{c['threads']}t-{c['shared']}B"
                              for c in OCCUPANCY_CASES])
def test_occupancy_hand_checked(case):
    got = sass.occupancy(case["arch"], registers=case["registers"], threads=case["threads"], shared=case["shared"])
    assert (got.blocks_per_sm, got.limited_by, got.sm) == (case["blocks_per_sm"], case["limited_by"], case["sm"])
    assert got.device == got.sm  # no grid given: enough blocks to fill every SM


def test_device_occupancy_of_a_small_grid():
    """The landed default, 2^14 chains in blocks of 128 on 132 SMs: 128 blocks of 4 warps = 512 warps
    out of the 132 x 64 = 8448 the device holds, whatever each SM could hold."""
    got = sass.occupancy(H100, registers=48, threads=128, blocks=128)
    assert got.sm == 0.625 and got.device == 512 / 8448
    assert sass.occupancy(H100, registers=48, threads=128, blocks=10_000).device == got.sm


@pytest.mark.parametrize("bad", [dict(threads=0), dict(threads=2048), dict(registers=256), dict(shared=228 * 1024)])
def test_occupancy_rejects_impossible_launches(bad):
    with pytest.raises(ValueError):
        sass.occupancy(H100, **{"registers": 32, "threads": 128, **bad})


# ---------------------------------------------------------------------------------------------------
# SASS control flow on hand-written listings
# ---------------------------------------------------------------------------------------------------

# A kernel with a division before its loop and one in it, an inner one-block loop (the best-state copy
# of the real kernels), and after its EXIT the trap loop that ptxas always appends (unreachable).
NESTED = """
        .section        .text.kernel,"ax",@progbits
kernel:
.text.kernel:
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/                   ISETP.GE.AND P0, PT, R2, R3, PT ;
        /*0020*/               @P0 EXIT ;
        /*0030*/                   CALL.REL.NOINC `($__internal_0_$__cuda_sm20_div_s64) ;
.L_x_0:
        /*0040*/                   IADD3 R2, R2, 0x1, RZ ;
        /*0050*/                   LDG.E R4, desc[UR4][R6.64] ;
        /*0060*/                   CALL.REL.NOINC `($__internal_0_$__cuda_sm20_div_s64) ;
        /*0070*/              @!P1 BRA `(.L_x_1) ;
.L_x_2:
        /*0080*/                   STG.E desc[UR4][R6.64], R4 ;
        /*0090*/                   IADD3 R8, P2, R8, 0x1, RZ ;
        /*00a0*/                   IADD3.X R9, RZ, R9, RZ, P2, !PT ;
        /*00b0*/               @P2 BRA `(.L_x_2) ;
.L_x_1:
        /*00c0*/                   ISETP.GE.AND P0, PT, R2, R3, PT ;
        /*00d0*/              @!P0 BRA `(.L_x_0) ;
        /*00e0*/                   EXIT ;
.L_x_3:
        /*00f0*/                   BRA `(.L_x_3);
        /*0100*/                   NOP;
        .weak           $__internal_0_$__cuda_sm20_div_s64
$__internal_0_$__cuda_sm20_div_s64:
        /*0110*/                   IADD3 R4, R4, 0x1, RZ ;
        /*0120*/                   RET.REL.NODEC R2 `(kernel) ;
"""

# sm_80 style: a cold region outlined into a local subroutine called from the loop (followed as if
# inlined, with the division it calls), and a CALL.REL.NOINC that never returns (a jump to the epilogue).
OUTLINED = """
kernel:
        /*0000*/                   MOV R1, c[0x0][0x28] ;
.L_x_0:
        /*0010*/                   IADD3 R2, R2, 0x1, RZ ;
        /*0020*/               @P1 CALL.REL.NOINC `(.L_x_5) ;
        /*0030*/                   ISETP.GE.AND P2, PT, R2, R3, PT ;
        /*0040*/               @P2 CALL.REL.NOINC `(.L_x_9) ;
        /*0050*/                   BRA `(.L_x_0) ;
.L_x_5:
        /*0060*/                   CALL.REL.NOINC `($__internal_0_$__cuda_sm20_rem_u64) ;
        /*0070*/                   RET.REL.NODEC R8 `(kernel) ;
.L_x_9:
        /*0080*/                   STG.E desc[UR4][R6.64], R2 ;
        /*0090*/                   EXIT ;
$__internal_0_$__cuda_sm20_rem_u64:
        /*00a0*/                   RET.REL.NODEC R8 `(kernel) ;
"""


# The rewritten launch code: a window loop (once per chunk segment) around the proposal loop.
WRAPPED = """
kernel:
        /*0000*/                   MOV R1, c[0x0][0x28] ;
.L_x_0:
        /*0010*/                   CALL.REL.NOINC `($__internal_0_$__cuda_sm20_div_s64) ;
.L_x_1:
        /*0020*/                   IADD3 R2, R2, 0x1, RZ ;
        /*0030*/                   LDG.E R4, desc[UR4][R6.64] ;
        /*0040*/                   IMAD.WIDE.U32 R8, R4, 0x3, RZ ;
        /*0050*/                   ISETP.GE.AND P0, PT, R2, R3, PT ;
        /*0060*/              @!P0 BRA `(.L_x_1) ;
        /*0070*/                   ISETP.GE.AND P1, PT, R9, R3, PT ;
        /*0080*/              @!P1 BRA `(.L_x_0) ;
        /*0090*/                   EXIT ;
$__internal_0_$__cuda_sm20_div_s64:
        /*00a0*/                   RET.REL.NODEC R2 `(kernel) ;
"""


def test_the_main_loop_is_the_largest_body_even_when_wrapped():
    got = sass.analyse_sass(WRAPPED)
    assert got["loops"] == 2 and got["main_loop"] == 5 and got["inner_loops"] == []
    assert [(c["helper"], c["where"]) for c in got["calls"]] == [("__cuda_sm20_div_s64", "other loop")]
    assert (got["main_loop_mix"]["global_loads"], got["main_loop_mix"]["sixty_four_bit"]) == (1, 1)


def test_loops_and_calls_of_a_nested_kernel():
    got = sass.analyse_sass(NESTED)
    assert got["sass_instructions"] == 16 + 2  # the kernel's, NOP left out, and the helper's
    assert got["main_loop"] == 6 and got["inner_loops"] == [4] and got["loops"] == 2
    assert [(c["helper"], c["where"], c["division"]) for c in got["calls"]] == [
        ("__cuda_sm20_div_s64", "outside loops", True), ("__cuda_sm20_div_s64", "main loop", True)]
    mix = got["main_loop_mix"]
    assert (mix["global_loads"], mix["global_stores"], mix["sixty_four_bit"]) == (1, 0, 0)  # the STG and .X are inner


# A proposal loop with a cold branch (an accepted move: three instructions) that the hot path skips.
BRANCHY = """
kernel:
        /*0000*/                   MOV R1, c[0x0][0x28] ;
.L_x_0:
        /*0010*/                   IADD3 R2, R2, 0x1, RZ ;
        /*0020*/                   LDG.E R4, desc[UR4][R6.64] ;
        /*0030*/                   ISETP.GE.U32.AND P0, PT, R4, R5, PT ;
        /*0040*/               @P0 BRA `(.L_x_1) ;
        /*0050*/                   STG.E desc[UR4][R6.64], R4 ;
        /*0060*/                   IADD3 R8, R8, 0x1, RZ ;
        /*0070*/                   IADD3 R9, R9, R4, RZ ;
.L_x_1:
        /*0080*/                   ISETP.GE.AND P1, PT, R2, R3, PT ;
        /*0090*/              @!P1 BRA `(.L_x_0) ;
        /*00a0*/                   EXIT ;
"""


def test_fewest_per_pass_is_the_lightest_path_round_the_main_loop():
    got = sass.analyse_sass(BRANCHY)
    assert (got["main_loop"], got["fewest_per_pass"]) == (9, 6)  # the cold branch's 3 only in the first
    nested = sass.analyse_sass(NESTED)
    assert nested["fewest_per_pass"] == 6  # the header's 4 and the latch's 2: the inner loop is skipped
    assert sass.analyse_sass(WRAPPED)["fewest_per_pass"] == 5


def test_outlined_subroutines_are_followed():
    got = sass.analyse_sass(OUTLINED)
    assert got["main_loop"] == 5 + 2  # the loop's own 5 and the outlined CALL + RET; not the epilogue
    assert [(c["helper"], c["where"]) for c in got["calls"]] == [("__cuda_sm20_rem_u64", "main loop")]


def test_ptxas_report():
    report = """ptxas info    : 48 bytes gmem
ptxas info    : Compiling entry function '_Z6kernel' for 'sm_90'
ptxas info    : Function properties for _Z6kernel
    16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 62 registers, used 1 barriers, 2048 bytes smem, 400 bytes cmem[0]
"""
    assert sass.parse_ptxas_report(report) == sass.Resources(registers=62, spill_stores=8, spill_loads=12, stack=16,
                                                            shared=2048)
    with pytest.raises(RuntimeError, match="cannot read ptxas"):
        sass.parse_ptxas_report("ptxas fatal   : something else")


# ---------------------------------------------------------------------------------------------------
# The adapter: what the cuda backend launches, recorded without a GPU (needs numba-cuda only)
# ---------------------------------------------------------------------------------------------------

def test_launches_are_recorded_from_the_backend():
    from numba import types

    device = sass.OfflineDevice.of(H100)
    for kind, name, move in sass.registry_moves():
        launches = sass.engine_launches(move, device)
        cooperative = ["advance_cooperative"] if move.cooperative else []
        assert [launch.kernel for launch in launches] == ["init", "advance", "exchange"] + cooperative, name
        for launch in launches:
            threads_needed = launch.chains // 2 if launch.kernel == "exchange" else launch.chains  # a thread per pair
            if launch.kernel == "advance_cooperative":  # a block per chain
                threads_needed = launch.chains * launch.threads
            assert launch.blocks * launch.threads >= threads_needed > 0
            signature = [launch.dispatcher.typeof_pyval(arg) for arg in launch.args]
            assert types.pyobject not in signature
            assert all(not getattr(t, "readonly", False) for t in signature)  # typed as device arrays
            # every table contiguous to numba-cuda ('C': constant strides), the chains' state Fortran-ordered;
            # a table of layout 'A' costs a runtime 64-bit stride multiply per index (moves.per_puzzle)
            tables = [t for arg in signature if isinstance(arg, types.BaseTuple) for t in arg.types
                      if isinstance(t, types.Array)]
            layouts = {t.layout for t in tables if t.ndim > 1}
            assert layouts <= {"C", "F"}, (name, launch.kernel, signature)


def test_any_argument_list_compiles(reports):
    """Nothing in the tool depends on today's argument lists: a kernel taking namedtuples of arrays (the
    shape the rewrite is heading for) goes through the same pipeline. (``reports`` first: it skips the
    test where the tools are missing.)"""
    from collections import namedtuple

    import numpy as np
    from numba import cuda

    Tables = namedtuple("Tables", "weights")
    State = namedtuple("State", "grid cost")

    @cuda.jit
    def weigh_kernel(tables, state, n_cells):
        row = cuda.grid(1)
        if row < state.cost.shape[0]:
            total = 0
            for cell in range(n_cells):
                total += tables.weights[cell] * state.grid[row, cell]
            state.cost[row] = total

    args = (Tables(np.ones(81, np.int32)), State(np.zeros((256, 81), np.uint8), np.zeros(256, np.int32)), np.int64(81))
    launch = sass.Launch("weigh", weigh_kernel, args, blocks=2, threads=128, dynamic_shared=0, chains=256)
    ptx, resources, listing = sass.compile_launch(launch, (9, 0), sass.find_tools(), sass.OfflineDevice.of(H100))
    assert ".entry" in ptx and 0 < resources.registers <= 255
    code = sass.analyse_sass(listing)
    assert code["loops"] >= 1 and code["main_loop"] > 0


# ---------------------------------------------------------------------------------------------------
# Every kernel, compiled for sm_90
# ---------------------------------------------------------------------------------------------------

KERNELS = [(move, kernel) for move in ("sirdey", "swap", "tabu", "rect", "bridge")
           for kernel in ("init", "advance", "exchange")] + [("tabu", "advance_cooperative")]
ADVANCE = [k for k in KERNELS if k[1] == "advance"]
# issue 14: swap and sirdey advance kernels <= 48 registers, main loop <= 300 (swap) and <= 250 (sirdey).
# The other kernels have no budget in the issue; these bounds keep them where the work of 2026-11-23 left them (no
# spills either way): init runs once per trial and exchange between launch pieces, so their registers matter little;
# rect and bridge went from 86 and 74 registers (31 and 37 % of an SM) to 48 and 56 (62.5 and 56 %) when their
# proposal loops took the sudoku moves' uint32 views and gpu_sa.engine.contract.item.
# tabu (issue 23): its first build, 56 registers and a main loop of 433 (the loop over the conflicting cells of
# the best-move mode, its candidate scan nested); with its segments (the return to the last best configuration,
# 2026-11-24) 56 registers and 641: the return's cold path inlines a second copy of the cell move and the snapshot's
# copy loop (a return comes once per 100,000 moves or more; the hot path of a move is unchanged, 25 at fewest);
# 652 once segments count only near a solution (the best cost against segment_cost: a compare and a branch).
# tabu's cooperative kernel (one block per chain): the registers and move loop the launch plan's cost model assumes
# (gpu_sa.engine.plan.COOPERATIVE_SASS), so that the model's occupancy and instruction counts stay upper bounds.
REGISTERS = {("sirdey", "advance"): 48, ("swap", "advance"): 48, ("rect", "advance"): 48, ("bridge", "advance"): 56,
             ("tabu", "advance"): 56, ("tabu", "advance_cooperative"): COOPERATIVE["tabu"]["registers"]}
REGISTERS_ELSEWHERE = 72
# swap and sirdey: the budgets; rect and bridge have none in the issue, and these keep their proposal loops
# where the work of 2026-11-23 left them (204 and 207, from 508 and 595), a few instructions of slack.
MAIN_LOOP = {("swap", "advance"): 300, ("sirdey", "advance"): 250, ("rect", "advance"): 212, ("bridge", "advance"): 215,
             ("tabu", "advance"): 660, ("tabu", "advance_cooperative"): COOPERATIVE["tabu"]["move_loop"]}
# Not a budget of the issue: the fewest instructions of one proposal (a rejected one, bench/sass.py "fewest/pass"),
# kept where the work of 2026-11-23 left them: 165 and 137 (199 and 168 before the 32-bit element access of
# gpu_sa.engine.contract.item; 219 and 253 before the first rewrite), a few instructions of slack for other compilers.
HOT_PATH = {("sirdey", "advance"): 170, ("swap", "advance"): 142}
# of an H100's 132 x 64 warps at the backend's default launch (it fills every SM: the kernel's own occupancy)
DEVICE_OCCUPANCY = {"sirdey": 0.5, "swap": 0.5, "tabu": 0.5, "rect": 0.5, "bridge": 0.5}

# The cases the kernels on main fail, and why (none at present: a case that fails gets a strict xfail here, naming
# the work that will meet it).
FAILING = {}


def cases(check, kernels):
    params = []
    for move, kernel in kernels:
        reason = FAILING.get((check, move, kernel))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(move, kernel, id=f"{move}-{kernel}", marks=marks))
    return params


@pytest.fixture(scope="module")
def sass_run():
    """bench/sass.py --cc 9.0 --json --dump DIR, run once in the background (conftest): (DIR, its output)."""
    try:
        sass.find_tools()
    except sass.ToolMissing as missing:
        pytest.skip(f"cannot compile kernels to SASS here: {missing}")
    return background_result("sass_run")


@pytest.fixture(scope="module")
def dump_dir(sass_run):
    return sass_run[0]


@pytest.fixture(scope="module")
def reports(sass_run):
    """{(move, kernel): its JSON object}."""
    rows = [json.loads(line) for line in sass_run[1].splitlines()]
    return {(row["move"], row["kernel"]): row for row in rows}


def test_every_kernel_has_budgets(reports):
    """A new move or kernel must be added to KERNELS, so that its budgets are checked too."""
    assert sorted(reports) == sorted(KERNELS)
    assert {row["cc"] for row in reports.values()} == {"9.0"}


def test_the_run_writes_its_record(reports, background_records):
    """bench/sass.py --json prints no table, and still records it: one row per kernel, numbers as numbers."""
    from .records import the_record

    record = the_record(background_records, "sass")
    assert sorted((row["move"], row["kernel"]) for row in record["rows"]) == sorted(KERNELS)
    assert record["columns"] == sass.COLUMNS and record["settings"]["compiled for"].startswith("sm_90")
    for row in record["rows"]:
        assert row["regs"] == reports[row["move"], row["kernel"]]["registers"]


def test_dump_holds_ptx_and_sass(reports, dump_dir):
    for move, kernel in reports:
        assert ".entry" in (dump_dir / f"{move}-{kernel}.ptx").read_text()
        assert "EXIT" in (dump_dir / f"{move}-{kernel}.sass").read_text()


@pytest.mark.parametrize("move, kernel", cases("philox", KERNELS))
def test_philox_takes_both_halves_from_one_wide_multiply(reports, dump_dir, move, kernel):
    """gpu_sa.engine.rng.wide_product: no separate 32-bit multiply by a Philox multiplier (NVVM's split of a product
    whose two halves are used); every one is a mul.wide.u32."""
    ptx = (dump_dir / f"{move}-{kernel}.ptx").read_text()
    multipliers = ("-766435501", "-845247145", "3528531795", "3449720151")  # 0xD2511F53, 0xCD9E8D57 as s32/u32
    split = [line for line in ptx.splitlines() if "mul.lo" in line and line.rstrip(";").endswith(multipliers)]
    assert split == [] and "mul.wide.u32" in ptx


@pytest.mark.parametrize("move, kernel", cases("spills", KERNELS))
def test_no_spills(reports, move, kernel):
    row = reports[move, kernel]
    assert (row["spill_stores"], row["spill_loads"]) == (0, 0)


@pytest.mark.parametrize("move, kernel", cases("division", KERNELS))
def test_no_division_helper_in_a_loop(reports, move, kernel):
    assert reports[move, kernel]["division_in_loop"] == []


@pytest.mark.parametrize("move, kernel", cases("registers", KERNELS))
def test_registers_within_budget(reports, move, kernel):
    assert reports[move, kernel]["registers"] <= REGISTERS.get((move, kernel), REGISTERS_ELSEWHERE)


@pytest.mark.parametrize("move, kernel", cases("main loop", list(MAIN_LOOP)))
def test_main_loop_within_budget(reports, move, kernel):
    assert 0 < reports[move, kernel]["main_loop"] <= MAIN_LOOP[move, kernel]


@pytest.mark.parametrize("move, kernel", cases("hot path", list(HOT_PATH)))
def test_hot_path_kept(reports, move, kernel):
    assert 0 < reports[move, kernel]["fewest_per_pass"] <= HOT_PATH[move, kernel]


@pytest.mark.parametrize("move, kernel", cases("occupancy", ADVANCE))
def test_default_launch_fills_half_an_h100(reports, move, kernel):
    row = reports[move, kernel]
    assert row["sms"] == 132
    assert row["occupancy_device"] >= DEVICE_OCCUPANCY[move]


def test_native_int_is_32_bit_on_the_gpu_and_64_bit_on_the_cpu():
    """gpu_sa.engine.contract.native_int: the sums of the proposal loops in the machine's natural width."""
    import numba
    import numpy
    from numba import cuda, types

    from gpu_sa.engine import contract as moves

    on_the_cpu = numba.njit(lambda value: moves.native_int(value))
    assert on_the_cpu(numpy.uint8(7)) == 7 and on_the_cpu.nopython_signatures[0].return_type == types.int64
    try:
        sass.find_tools()
    except sass.ToolMissing as missing:
        pytest.skip(f"no NVVM here: {missing}")
    moves.register_for_cuda()
    with sass._offline_cuda(sass.OfflineDevice.of(H100)):
        _, returned = cuda.compile_ptx(lambda value: moves.native_int(value), (types.uint8,), device=True,
                                       cc=(9, 0))
    assert returned == types.int32


def test_kernels_compile_where_numpy_has_no_row_stack():
    """numba-cuda 0.30.4 overloads ``np.row_stack`` when its CUDA target loads; NumPy 2.5 removed it, and every
    compilation failed on the first real GPU (an H200 with NumPy 2.5.2). In a fresh process with the alias deleted
    (NumPy 2.5 as numba-cuda meets it), the package's probe kernel compiles to PTX: gpu_sa.engine.numba_cuda_compat put
    the alias back, to np.vstack, before numba-cuda needed it."""
    try:
        sass.find_tools()
    except sass.ToolMissing as missing:
        pytest.skip(f"no NVVM here: {missing}")
    script = ("import numpy\n"
              "if hasattr(numpy, 'row_stack'):\n"
              "    del numpy.row_stack\n"
              "from numba import cuda\n"
              "from gpu_sa.engine import probe\n"
              "ptx, _ = cuda.compile_ptx(probe._answer.py_func, 'void(int32[:])', cc=(9, 0))\n"
              "print(numpy.row_stack is numpy.vstack, '.entry' in ptx)\n")
    environment = {key: value for key, value in os.environ.items() if key != "NUMBA_ENABLE_CUDASIM"}
    environment["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment, cwd=ROOT,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True"]


def test_the_launch_plan_charges_at_least_what_the_cooperative_kernel_executes(reports):
    """The cost model's figures (gpu_sa.engine.plan.COOPERATIVE_SASS) against the machine code: every step of the move
    loop is found, and its loop body is no larger than the instructions the model charges per pass; the unrolling
    of the best-move scan's candidate loop is the one the model divides by."""
    measured = reports["tabu", "advance_cooperative"]["phases"]
    charged = COOPERATIVE["tabu"]
    assert sorted(measured) == sorted(k for k in charged if k != "registers")
    assert measured.pop("unroll") == charged["unroll"]
    over = {step: (size, charged[step]) for step, size in measured.items() if size > charged[step]}
    assert over == {}, f"steps whose machine code outgrew the model (SASS, charged): {over}"


def test_a_cooperative_chain_fits_a_few_times_per_sm(reports):
    """One block per chain, at most 64 KiB of shared memory a chain up to 64x64 (121x121 still within the 48 KiB a
    block takes without opting in), and at least 8 chains resident per H100 SM at 64 threads a chain."""
    from gpu_sa.puzzles.sudoku.moves import tabu_block

    row = reports["tabu", "advance_cooperative"]
    assert row["threads"] == sass.COOPERATIVE_THREADS and row["stack"] == 0
    assert tabu_block.shared_bytes(64) <= 64 * 1024 and tabu_block.fits(121)
    fill = sass.occupancy(H100, registers=row["registers"], threads=row["threads"],
                          shared=row["shared"] - tabu_block.shared_bytes(9) + tabu_block.shared_bytes(64))
    assert fill.blocks_per_sm >= 8
