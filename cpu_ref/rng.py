"""Philox4x32-10 over NumPy arrays, written apart from ``gpu_sa.engine.rng`` on purpose.

The reference must not share the product's code, or a bug in one would hide in both.
Inputs broadcast against each other (a scalar move index with an array of chains, say);
the outputs are four uint32 arrays of the broadcast shape. Arithmetic runs in uint64 so
the 32x32-bit products are exact; every constant is cast explicitly so that NumPy never
promotes to float64.
"""
from __future__ import annotations

import numpy as np

_U64 = np.uint64
_MULTIPLIERS = (_U64(0xD2511F53), _U64(0xCD9E8D57))
_WEYL = (_U64(0x9E3779B9), _U64(0xBB67AE85))
_LOW32 = _U64(0xFFFFFFFF)
_HIGH = _U64(32)

TAG_INIT = np.uint32(0x494E4954)
TAG_MOVE = np.uint32(0x4D4F5645)


def philox(counter_words, key_words, rounds: int = 10):
    """Philox4x32 with ``rounds`` rounds; ``counter_words`` = (c0, c1, c2, c3), ``key_words`` = (k0, k1)."""
    c = [np.asarray(w).astype(_U64) for w in counter_words]
    c = list(np.broadcast_arrays(*c))
    k0, k1 = (np.asarray(w).astype(_U64) for w in key_words)
    for round_number in range(rounds):
        if round_number:
            k0 = (k0 + _WEYL[0]) & _LOW32
            k1 = (k1 + _WEYL[1]) & _LOW32
        p0 = _MULTIPLIERS[0] * c[0]
        p1 = _MULTIPLIERS[1] * c[2]
        c = [(p1 >> _HIGH) ^ c[1] ^ k0, p1 & _LOW32, (p0 >> _HIGH) ^ c[3] ^ k1, p0 & _LOW32]
    return tuple(w.astype(np.uint32) for w in c)


def stream_words(index, chain, tag, seed: int):
    """The four words drawn at ``index`` (move or cell number) of ``chain`` on stream ``tag``."""
    index = np.asarray(index).astype(np.uint64)
    counter = (index & _LOW32, index >> _HIGH, np.asarray(chain).astype(np.uint64), np.uint64(tag))
    return philox(counter, (np.uint64(seed & 0xFFFFFFFF), np.uint64(seed >> 32)))


def uniform_below(word, n):
    """Map a uint32 word to [0, n) as ``(word * n) >> 32``: the one integer rule of the project."""
    return ((np.asarray(word).astype(_U64) * _U64(n)) >> _HIGH).astype(np.int64)
