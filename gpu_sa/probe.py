"""The one tiny kernel ``backends.cuda_status`` compiles and launches before trusting a GPU."""
from __future__ import annotations

import numpy as np
from numba import cuda


@cuda.jit(cache=True)
def _answer(out):
    out[cuda.grid(1)] = 42


def launch() -> None:
    """Compile (or load from numba's cache) and run the probe; raise if it did not write its answer."""
    out = cuda.to_device(np.zeros(32, dtype=np.int32))
    _answer[1, 32](out)
    if not np.all(out.copy_to_host() == 42):
        raise RuntimeError("the probe kernel ran but wrote the wrong values")
