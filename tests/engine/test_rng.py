"""Philox4x32-10: published known-answer vectors on every implementation, and agreement."""
import numpy as np
import pytest

from cpu_ref import rng as reference
from gpu_sa.engine import rng

# Random123 kat_vectors, philox4x32_10: counter words, key words -> output words.
KNOWN_ANSWERS = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]
IDS = ["zeros", "ones", "pi"]


def _u32(words):
    return [np.uint32(w) for w in words]


@pytest.mark.parametrize("counter,key,expected", KNOWN_ANSWERS, ids=IDS)
def test_device_spec_as_python(counter, key, expected):
    assert [int(w) for w in rng.philox4x32_10(*_u32(counter), *_u32(key))] == list(expected)


@pytest.mark.parametrize("counter,key,expected", KNOWN_ANSWERS, ids=IDS)
def test_device_spec_compiled_for_cpu(counter, key, expected):
    assert [int(w) for w in rng.philox(*_u32(counter), *_u32(key))] == list(expected)


@pytest.mark.parametrize("counter,key,expected", KNOWN_ANSWERS, ids=IDS)
def test_numpy_reference(counter, key, expected):
    assert [int(w) for w in reference.philox(counter, key)] == list(expected)


def test_both_sides_agree_on_random_counters_and_keys():
    generator = np.random.default_rng(2024)
    words = generator.integers(0, 2**32, size=(200, 6), dtype=np.uint64).astype(np.uint32)
    vectorised = reference.philox(tuple(words[:, i] for i in range(4)), (words[:, 4], words[:, 5]))
    compiled = rng.philox
    for i, row in enumerate(words):
        assert tuple(int(w) for w in compiled(*row)) == tuple(int(v[i]) for v in vectorised)


def test_stream_layout_matches_design():
    """counter = (index low, index high, chain, tag), key = (seed low, seed high)."""
    seed, chain, index = 0x0123456789ABCDEF, 77, (5 << 32) + 9
    expected = rng.philox4x32_10(np.uint32(9), np.uint32(5), np.uint32(chain), rng.TAG_MOVE,
                                 *rng.split_seed(seed))
    got = reference.stream_words(np.uint64(index), np.uint64(chain), reference.TAG_MOVE, seed)
    assert tuple(int(w) for w in got) == tuple(int(w) for w in expected)
    assert rng.TAG_INIT == reference.TAG_INIT and rng.TAG_MOVE == reference.TAG_MOVE


def test_uniform_below_is_the_multiply_shift_rule():
    words = np.array([0, 1, 2**31, 2**32 - 1], dtype=np.uint32)
    assert reference.uniform_below(words, 9).tolist() == [0, 0, 4, 8]


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_seed_out_of_range(seed):
    with pytest.raises(ValueError, match="seed"):
        rng.split_seed(seed)


@pytest.mark.parametrize("a, b", [(0, 0), (1, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0xD2511F53, 0x9E3779B9)])
def test_wide_product_is_the_full_64_bit_product(a, b):
    """Python, and numba on the CPU (``wide_product``'s CPU overload, inside a compiled function)."""
    import numba

    exact = np.uint64(a * b)
    assert rng.wide_product(np.uint32(a), np.uint32(b)) == exact
    assert numba.njit(lambda x, y: rng.wide_product(x, y))(np.uint32(a), np.uint32(b)) == exact
