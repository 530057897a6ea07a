"""What the annealer needs from a puzzle's move set, whatever the puzzle."""
from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Callable

import numpy as np


@dataclass(frozen=True, eq=False)
class AnnealMove:
    """One puzzle instance under one move set.

    ``build(target)`` returns the per-chain device functions (see ``gpu_sa.kernels``);
    ``reference`` is the plain-NumPy twin module with ``init_chains`` and ``advance_chains``.
    ``tables`` are the three constant arrays both receive; ``n_values`` their one scalar.
    """

    name: str
    build: Callable
    reference: ModuleType
    tables: tuple[np.ndarray, np.ndarray, np.ndarray]
    n_values: int
    config_size: int
    counts_size: int
    max_delta: int  # largest possible cost increase of one move: the acceptance table's width - 1
    plateau_length: int  # the seed's "natural size": moves per temperature plateau
    max_cost: float  # e_p, Sirdey's T0 and rate
    log_states: float  # log |Omega|, for Sirdey's final temperature
    has_free_variables: bool = True
    config_dtype: type = np.uint8  # per chain: (config_size,) of this type
    counts_dtype: type = np.uint8  # per chain: (counts_size,) of this type
    # the tuned default schedule for this puzzle kind: (t0, t_end, plateaus) of a geometric law,
    # or None for the runner's defaults (measured on Sudoku)
    schedule_defaults: tuple | None = None


def smallest_unsigned(largest: int):
    """The narrowest unsigned NumPy type holding 0 .. ``largest`` (narrow state = less memory traffic)."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if largest <= np.iinfo(dtype).max:
            return dtype
    raise ValueError(f"{largest} does not fit in 32 bits")
