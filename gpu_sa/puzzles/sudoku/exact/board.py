"""The board of the exact Sudoku search: candidates as bitmasks, the order's tables, the input checks.

Candidates are bitmasks: bit k of ``cand[cell]`` set = digit k+1 still possible (uint64, so up to 64
digits). Tables (host, once per order): ``peers`` (cells, 3N - 2n - 1) and ``units`` (3N, N) of cell
indices, rows then columns then boxes; ``cell_units`` (cells, 3) the units of each cell.
"""
from __future__ import annotations

import functools

import numpy as np

from ....engine import rng
from ....engine.jit import njit

ONE = np.uint64(1)
ZERO = np.uint64(0)
ZERO32 = np.uint32(0)
# A unit's dirty byte: which unit rules have not looked at it since its candidates last changed.
DIRTY_SINGLE = np.uint8(1)  # uniqueness (hidden single)
DIRTY_PAIR = np.uint8(2)  # parity (naked pair): set only when a cell of the unit comes down to two digits
DIRTY_ALLDIFF = np.uint8(4)  # the AllDifferent matching (consistency.py), when the search uses it
DIRTY_ALL = np.uint8(7)



@functools.cache
def tables(order: int):
    side = order * order
    cells = side * side
    r, c = np.divmod(np.arange(cells), side)
    box = (r // order) * order + c // order
    peer_matrix = (r[:, None] == r[None, :]) | (c[:, None] == c[None, :]) | (box[:, None] == box[None, :])
    np.fill_diagonal(peer_matrix, False)
    peers = np.array([np.flatnonzero(row) for row in peer_matrix], dtype=np.int32)
    units = np.array([np.flatnonzero(r == i) for i in range(side)] + [np.flatnonzero(c == i) for i in range(side)]
                     + [np.flatnonzero(box == i) for i in range(side)], dtype=np.int32)
    cell_units = np.stack([r, side + c, 2 * side + box], axis=1).astype(np.int32)
    full = np.uint64(0xFFFFFFFFFFFFFFFF) if side == 64 else np.uint64((1 << side) - 1)
    return peers, units, cell_units, full


M1 = np.uint64(0x5555555555555555)
M2 = np.uint64(0x3333333333333333)
M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
H01 = np.uint64(0x0101010101010101)



@njit(cache=True, inline="always")
def _popcount(x):
    # SWAR bit count; LLVM turns this pattern into one popcnt instruction where the CPU has it.
    x = x - ((x >> ONE) & M1)
    x = (x & M2) + ((x >> np.uint64(2)) & M2)
    x = (x + (x >> np.uint64(4))) & M4
    return (x * H01) >> np.uint64(56)


@njit(cache=True, inline="always")
def _is_single(mask):
    return mask != ZERO and (mask & (mask - ONE)) == ZERO


@njit(cache=True, inline="always")
def _bit_index(bit):
    """The digit (or position) of a one-bit mask."""
    return np.int64(_popcount(bit - ONE))


@njit(cache=True, inline="always")
def _nth_bit(mask, n):
    """The ``n``-th lowest set bit of ``mask`` (0-based), as a one-bit mask."""
    for _ in range(np.int64(n)):
        mask &= mask - ONE
    return mask & (~mask + ONE)


@njit(cache=True, inline="always")
def _below(word, n):
    """A uint32 word to [0, n): (word * n) >> 32, the project's one rule for a bounded draw."""
    return (np.uint64(word) * np.uint64(n)) >> rng.SHIFT32



@njit(cache=True, nogil=True)
def _candidates_of(givens, full, out):
    for cell in range(givens.shape[0]):
        out[cell] = (ONE << np.uint64(givens[cell])) if givens[cell] >= 0 else full


@njit(cache=True, nogil=True)
def _digits_of(masks, out):
    """The digit of every single mask (0-based), -1 where a cell has none or several."""
    for cell in range(masks.shape[0]):
        mask = masks[cell]
        if not _is_single(mask):
            out[cell] = -1
            continue
        digit = 0
        while mask > ONE:
            mask >>= ONE
            digit += 1
        out[cell] = digit



def _digits(masks) -> np.ndarray:
    digits = np.empty(masks.shape[0], dtype=np.int16)
    _digits_of(masks, digits)
    return digits


def initial_candidates(givens: np.ndarray, order: int) -> np.ndarray:
    cand = np.empty(len(givens), dtype=np.uint64)
    _candidates_of(np.asarray(givens, dtype=np.int16), tables(order)[3], cand)
    return cand


def _check_givens(givens, order: int, *, digits_checked_later: bool = False) -> np.ndarray:
    """The givens as a contiguous, read-only int16 array, after checking the order, the length and the values
    (``digits_checked_later``: int16 input is passed on unchecked, for a caller whose compiled code checks it).

    Read-only whatever the caller's array (a view: the caller's flags stay as they were), since numba compiles a
    function once for writable and once more for read-only arrays; a parsed puzzle's givens are read-only."""
    if int(order) != order or not 2 <= order <= 8:
        raise ValueError(f"order must be an integer from 2 to 8, got {order}")
    side = order * order
    givens = np.asarray(givens).reshape(-1)
    if givens.shape[0] != side * side:
        raise ValueError(f"{givens.shape[0]} cells for order {order}: expected {side * side}")
    if digits_checked_later and givens.dtype == np.int16:
        return _read_only(np.ascontiguousarray(givens))
    if givens.dtype.kind in "iu":
        # one compiled pass rather than numpy's min and max: 25 us of an easy puzzle's first search
        givens = _read_only(np.ascontiguousarray(givens))
        if _outside_digits(givens, side):
            _digits_error(side)
    else:
        _check_digits(givens, side)
    return _read_only(np.ascontiguousarray(givens, dtype=np.int16))


def _read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


def _check_digits(givens: np.ndarray, side: int) -> None:
    if givens.size and not (givens.min() >= -1 and givens.max() < side):
        _digits_error(side)


def _digits_error(side: int):
    raise ValueError(f"givens must be 0-based digits below {side}, or -1 for an empty cell")


@njit(cache=True, nogil=True)
def _outside_digits(givens, side):
    """True when a value of ``givens`` (integers) is neither -1 nor a digit below ``side``."""
    for value in givens:
        if value < -1 or value >= side:
            return True
    return False


def _check_counts(limit, max_nodes):
    if int(limit) != limit or limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit}")
    if int(max_nodes) != max_nodes or max_nodes < 0:
        raise ValueError(f"max_nodes must be a non-negative integer, got {max_nodes}")
