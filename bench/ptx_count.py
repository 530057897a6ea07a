"""Static PTX instruction count of one proposal of each move's CUDA kernel (sm_90).

    python bench/ptx_count.py [--cc 9.0] [--dump DIR]

Compiles the advance kernel of every move to PTX with numba-cuda (needs NVVM: the cu12 or
cu13 extra; no GPU needed), finds the proposal loop (the outermost backward branch) and
counts its instructions, its global loads and stores and its 64-bit multiplies. A static
count: the accept path and the rare best-configuration copy are listed apart; it is the
input to the ceiling estimate in bench/NOTES.md, not a measurement of speed.
"""
from __future__ import annotations

import argparse
import collections
import re
from pathlib import Path

from common import environment, print_header, print_table
from numba import cuda, types

from gpu_sa import backends, kernels
from gpu_sa.puzzles.sudoku import sirdey, swap


def _offline_device(cc):
    """Without a GPU, numba-cuda's device functions still ask the driver for the compute capability."""
    import numba.cuda.dispatcher as dispatcher

    class Offline:
        compute_capability = cc

    dispatcher.get_current_device = lambda: Offline()


def _array(dtype, ndim):
    return types.Array(dtype, ndim, "C")


MOVES = {
    "sirdey": (sirdey.build, (_array(types.int16, 1), _array(types.int32, 1), _array(types.int32, 2))),
    "swap": (swap.build, (_array(types.int16, 1), _array(types.int32, 2), _array(types.int32, 2))),
}


def kernel_ptx(build, tables, cc):
    _, advance_kernel = kernels.cuda_kernels(build)
    u8 = _array(types.uint8, 2)
    signature = (types.int64, types.uint32, types.uint32, *tables, types.int64, types.int64, types.int64, types.int64,
                 types.int64, _array(types.uint32, 2), u8, u8, _array(types.int32, 1), _array(types.uint64, 1),
                 _array(types.int32, 1), u8, _array(types.int64, 1))
    ptx, _ = cuda.compile_ptx(advance_kernel.py_func, signature, cc=cc)
    return ptx


def proposal_loop(ptx):
    """(instructions of the loop, instructions of inner loops) in the kernel's PTX."""
    blocks, order, current = {}, [], None
    for line in ptx.splitlines():
        label = re.match(r"^(\$L__BB\d+_\d+):", line)
        if label:
            current = label.group(1)
            order.append(current)
            blocks[current] = []
        elif current and line.strip().endswith(";") and not line.strip().startswith(("//", ".")):
            blocks[current].append(line.strip())
    back = None
    for label in order:
        for instruction in blocks[label]:
            target = re.search(r"bra(?:\.uni)?\s+(\$L__BB\d+_\d+)", instruction)
            if target and order.index(target.group(1)) <= order.index(label):
                if back is None or order.index(target.group(1)) < order.index(back[0]):
                    back = (target.group(1), label)
    span = order[order.index(back[0]):order.index(back[1]) + 1]
    body = [i for label in span for i in blocks[label]]
    inner = [i for label in span if label != back[0] and any(
        re.search(r"bra\S*\s+" + re.escape(label) + ";", i) for i in blocks[label]) for i in blocks[label]]
    return body, inner


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cc", default="9.0", help="compute capability (default 9.0: H100/H200)")
    parser.add_argument("--dump", default=None, help="write each kernel's PTX to DIR/<move>.ptx")
    args = parser.parse_args()
    cc = tuple(int(x) for x in args.cc.split("."))
    usable, simulated, _ = backends.cuda_status()
    if not usable or simulated:
        _offline_device(cc)
    print_header(f"PTX of one proposal, sm_{cc[0]}{cc[1]}", environment())
    rows = []
    for name, (build, tables) in MOVES.items():
        ptx = kernel_ptx(build, tables, cc)
        if args.dump:
            Path(args.dump).mkdir(parents=True, exist_ok=True)
            (Path(args.dump) / f"{name}.ptx").write_text(ptx)
        body, inner = proposal_loop(ptx)
        kinds = collections.Counter(i.split()[0].split(".")[0] for i in body)
        rows.append([name, len(body) - len(inner), len(inner),
                     sum(1 for i in body if i.startswith(("ld.global", "st.global"))),
                     sum(1 for i in body if i.startswith("ld.param")),
                     sum(1 for i in body if "mul.lo.s64" in i or "mul.lo.u64" in i),
                     ", ".join(f"{k} {v}" for k, v in kinds.most_common(6))])
    print_table(["move", "loop instructions", "+ best copy", "global ld/st", "ld.param", "64-bit mul", "most used"],
                rows)


if __name__ == "__main__":
    main()
