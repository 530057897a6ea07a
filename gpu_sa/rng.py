"""Philox4x32-10 (Salmon et al. 2011), the one random stream of the project.

Every draw of every backend comes from this function: a chain's randomness is a pure
function of (seed, chain index, move index, stream tag), so no generator state is ever
stored or carried between launches.

Counter and key layout (DESIGN.md):

    counter = (c0, c1, c2, c3) = (index & 0xffffffff, index >> 32, chain, tag)
    key     = (k0, k1)         = (seed & 0xffffffff, seed >> 32)

``index`` is the move number for ``TAG_MOVE`` and the free-cell number for ``TAG_INIT``.
One call gives four uint32 words.

``philox4x32_10`` is plain Python over NumPy scalars; ``philox`` is the same function compiled
by ``gpu_sa.moves.device``, which every backend's device code calls (the CUDA kernels compile
it for the GPU); under numba's CUDA simulator it runs as written. Every constant is a NumPy scalar of explicit width: numba
types ``uint64 op int64`` as float64, and a silent float would change the stream.
"""
from __future__ import annotations

import numpy as np

from .moves import device

PHILOX_M0 = np.uint64(0xD2511F53)
PHILOX_M1 = np.uint64(0xCD9E8D57)
PHILOX_W0 = np.uint64(0x9E3779B9)
PHILOX_W1 = np.uint64(0xBB67AE85)
MASK32 = np.uint64(0xFFFFFFFF)
SHIFT32 = np.uint64(32)
PHILOX_ROUNDS = 10

# Stream tags (counter word c3): the ASCII of "INIT", "MOVE" and "EXCH", so that a counter dump
# says which stream it belongs to.
TAG_INIT = np.uint32(0x494E4954)
TAG_MOVE = np.uint32(0x4D4F5645)
TAG_EXCHANGE = np.uint32(0x45584348)  # replica exchange decisions


def philox4x32_10(c0, c1, c2, c3, k0, k1):
    """Return the four uint32 output words for counter (c0..c3) and key (k0, k1)."""
    # The state stays uint32 between rounds and each product is uint64(x) * M: the widening of a
    # 32-bit value is explicit, so NVVM emits mul.wide.u32 and 32-bit logic instead of emulated
    # 64-bit multiplies (bench/NOTES.md); on the CPU and in the simulator it is the same arithmetic.
    x0 = np.uint32(c0)
    x1 = np.uint32(c1)
    x2 = np.uint32(c2)
    x3 = np.uint32(c3)
    key0 = np.uint32(k0)
    key1 = np.uint32(k1)
    for _ in range(PHILOX_ROUNDS):
        product0 = PHILOX_M0 * np.uint64(x0)  # < 2**64: never wraps
        product1 = PHILOX_M1 * np.uint64(x2)
        hi0 = np.uint32(product0 >> SHIFT32)
        lo0 = np.uint32(product0 & MASK32)
        hi1 = np.uint32(product1 >> SHIFT32)
        lo1 = np.uint32(product1 & MASK32)
        x0 = np.uint32(hi1 ^ x1 ^ key0)
        x1 = lo1
        x2 = np.uint32(hi0 ^ x3 ^ key1)
        x3 = lo0
        # The key bump after the last round is never used; doing it keeps the loop simple.
        key0 = np.uint32((np.uint64(key0) + PHILOX_W0) & MASK32)
        key1 = np.uint32((np.uint64(key1) + PHILOX_W1) & MASK32)
    return x0, x1, x2, x3


def split_seed(seed: int) -> tuple[np.uint32, np.uint32]:
    """The Philox key words (k0, k1) of a 64-bit seed."""
    seed = int(seed)
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must be in [0, 2**64), got {seed}")
    return np.uint32(seed & 0xFFFFFFFF), np.uint32(seed >> 32)


philox = device(philox4x32_10)


def uniform_below(word, n):
    """The one integer rule of the project: a uint32 word to [0, n) as ``(word * n) >> 32`` (int64)."""
    return np.int64((np.uint64(word) * np.uint64(n)) >> SHIFT32)


uniform = device(uniform_below)


def uniform_index_below(word, n):
    """``uniform_below`` as an unsigned 32-bit value: an array index numba neither sign-extends nor checks
    for negative wraparound (fewer instructions and registers in the GPU's proposal loops)."""
    return np.uint32((np.uint64(word) * np.uint64(n)) >> SHIFT32)


uniform_index = device(uniform_index_below)
