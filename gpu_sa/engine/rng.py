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
by ``gpu_sa.engine.contract.device``, which every backend's device code calls (the CUDA kernels compile
it for the GPU); under numba's CUDA simulator it runs as written. Every constant is a NumPy scalar of explicit width: numba
types ``uint64 op int64`` as float64, and a silent float would change the stream.
"""
from __future__ import annotations

import functools

import numpy as np

from .contract import SIMULATOR, device

PHILOX_M0 = np.uint32(0xD2511F53)  # multipliers: uint32, the full product comes from wide_product
PHILOX_M1 = np.uint32(0xCD9E8D57)
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


def wide_product(a, b):
    """The full 64-bit product of two uint32 values.

    On the GPU this is one ``mul.wide.u32`` written as inline PTX: written in Python, NVVM splits a product
    whose two halves are both used into ``mul.wide.u32`` for the high half and a separate ``mul.lo`` for the
    low half (two IMADs on the device where one IMAD.WIDE.U32 gives both), and Philox takes both halves of
    two products per round (bench/sass.py shows the SASS). Everywhere else it is plain arithmetic."""
    return np.uint64(a) * np.uint64(b)


def philox4x32_10(c0, c1, c2, c3, k0, k1):
    """Return the four uint32 output words for counter (c0..c3) and key (k0, k1)."""
    # The state stays uint32 between rounds and each product is the full product of two uint32 values
    # (``wide_product``): one mul.wide.u32 on the GPU, whose register pair holds both halves, and 32-bit
    # logic elsewhere (docs/gpu.md, "Kernel notes"); on the CPU and in the simulator it is the same arithmetic.
    x0 = np.uint32(c0)
    x1 = np.uint32(c1)
    x2 = np.uint32(c2)
    x3 = np.uint32(c3)
    key0 = np.uint32(k0)
    key1 = np.uint32(k1)
    for _ in range(PHILOX_ROUNDS):
        product0 = wide_product(x0, PHILOX_M0)  # < 2**64: never wraps
        product1 = wide_product(x2, PHILOX_M1)
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


def _register_for_the_cpu():
    """``wide_product`` for numba on the CPU: plain arithmetic."""
    from numba.core.extending import overload

    @overload(wide_product, target="cpu")
    def _on_the_cpu(a, b):
        return lambda a, b: np.uint64(a) * np.uint64(b)


@functools.cache
def register_for_cuda():
    """``wide_product`` for numba-cuda: one inline ``mul.wide.u32``. Called by ``gpu_sa.engine.kernels`` before it
    builds CUDA kernels, not at import: importing numba.cuda costs every command about 0.15 s."""
    from .contract import cuda_extending, ptx_mul_wide_u32

    cuda = cuda_extending()

    @cuda.intrinsic
    def _mul_wide_u32(typingctx, a, b):
        def codegen(context, builder, signature, args):
            return ptx_mul_wide_u32(builder, *args)
        return cuda.types.uint64(cuda.types.uint32, cuda.types.uint32), codegen

    @cuda.overload(wide_product)
    def _on_the_gpu(a, b):
        return lambda a, b: _mul_wide_u32(np.uint32(a), np.uint32(b))


if not SIMULATOR:  # under the simulator every device function runs as plain Python
    _register_for_the_cpu()
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
