"""Runs the bit-exact cases on the ``cuda`` backend in a process of its own.

Numba reads NUMBA_ENABLE_CUDASIM once, at import, so the simulator cannot be switched on
inside the main pytest process. Usage: ``python tests/cuda_worker.py OUT_DIR`` writes one
``<case id>.npz`` per case of ``chain_cases.CASES``. Without NUMBA_ENABLE_CUDASIM=1 it runs
the real kernels (on a machine with a GPU).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import chain_cases  # noqa: E402


def main(out_dir):
    for case in chain_cases.CASES:
        backend = chain_cases.backend_named("cuda", case)
        np.savez(os.path.join(out_dir, case["id"] + ".npz"), **chain_cases.run_case(backend, case))


if __name__ == "__main__":
    main(sys.argv[1])
