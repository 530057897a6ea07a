"""The one tiny kernel ``backends.cuda_status`` compiles and launches before trusting a GPU."""
from __future__ import annotations

import warnings

import numpy as np

from .numba_cuda_compat import restore_removed_numpy_aliases

restore_removed_numpy_aliases()  # before numba-cuda's CUDA target loads (it loads on the first compilation)
from numba import cuda  # noqa: E402


@cuda.jit(cache=True)
def _answer(out):
    out[cuda.grid(1)] = 42


def launch() -> None:
    """Compile (or load from numba's cache) and run the probe; raise if it did not write its answer."""
    out = cuda.to_device(np.zeros(32, dtype=np.int32))
    with warnings.catch_warnings():  # numba-cuda warns of "under-utilization" below 128 blocks: every run that
        warnings.filterwarnings("ignore", message=r".*Grid size")  # used the GPU printed it (first H200 run)
        _answer[1, 32](out)
    if not np.all(out.copy_to_host() == 42):
        raise RuntimeError("the probe kernel ran but wrote the wrong values")
