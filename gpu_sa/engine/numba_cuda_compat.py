"""What numba-cuda needs from NumPy that NumPy no longer has, put back before numba-cuda compiles anything.

numba-cuda 0.30.4 (the newest release on 2026-11-27) registers an overload of ``np.row_stack`` when its CUDA
target first loads (``numba/cuda/np/arrayobj.py``), and NumPy 2.5 removed that alias of ``np.vstack``: every
kernel compilation then fails with ``AttributeError: module 'numpy' has no attribute 'row_stack'``. This is what
made the first real GPU this project ran on (an H200 with NumPy 2.5.2) unusable. The alias is restored only where
NumPy lacks it, to the very function it named; nothing else in NumPy changes.
"""
from __future__ import annotations

import numpy as np

# removed name -> the function it was an alias of
REMOVED_ALIASES = {"row_stack": "vstack"}


def restore_removed_numpy_aliases() -> None:
    """Put back each alias NumPy lacks (nothing where NumPy still has them all)."""
    for alias, target in REMOVED_ALIASES.items():
        if not hasattr(np, alias):
            setattr(np, alias, getattr(np, target))
