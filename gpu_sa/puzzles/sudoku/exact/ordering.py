"""Which cell the search branches on, and in which order it tries the cell's digits.

The search branches on a free cell with the fewest candidates (minimum remaining values). Two ways to
break ties and order digits:

  deterministic  the lowest such cell, digits in increasing order: the seed's search, whose node
                 counts tests and generation rely on (``seed=None``), or digits in an order hashed
                 from ``shuffle`` (randomised backtracking, for generating grids);
  seeded         the cell drawn among the tied ones and each digit drawn among those left, from
                 Philox (key = the seed, counter = (node, restart, TAG_EXACT)).
"""
from __future__ import annotations

import numpy as np

from ....engine import rng
from ....engine.jit import njit
from .board import ONE, ZERO, _below, _nth_bit, _popcount

DUAL = 32  # a feature bit (with consistency's and learning's): branch on a unit's digit with two places
TAG_EXACT = np.uint32(0x45584354)  # "EXCT": the seeded search's Philox stream

_philox = njit(nogil=True)(rng.philox4x32_10)


@njit(cache=True, nogil=True)
def _fewest_candidates(cand, placed, seeded, word):
    """A free cell with the fewest candidates, or -1 when every cell is set: the lowest such cell,
    or with ``seeded`` one drawn among the tied cells by the uint32 ``word``."""
    best = -1
    best_count = 1 << 30
    ties = 0
    for cell in range(cand.shape[0]):
        if placed[cell]:
            continue
        count = _popcount(cand[cell])
        if 1 < count < best_count:
            best = cell
            best_count = count
            ties = 1
            if count == 2 and not seeded:
                break  # no free cell has fewer
        elif count == best_count:
            ties += 1
    if not seeded or ties < 2:
        return best
    pick = _below(word, ties)
    for cell in range(best, cand.shape[0]):
        if not placed[cell] and _popcount(cand[cell]) == best_count:
            if pick == ZERO:
                return cell
            pick -= ONE
    return -1


@njit(cache=True, inline="always")
def _mix(x):
    """splitmix64's finaliser: a well-spread 64-bit hash, for the shuffled branching order."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True, inline="always")
def _branch_bit(rest, shuffle, nodes):
    """The digit to try next: the lowest remaining one, or with ``shuffle`` != 0 a pseudo-random one."""
    if shuffle == ZERO:
        return rest & (~rest + ONE)
    return _nth_bit(rest, _mix(shuffle + np.uint64(nodes) * np.uint64(0x9E3779B97F4A7C15)) % _popcount(rest))


@njit(cache=True, inline="always")
def _draws(nodes, restart, key0, key1):
    """Philox words of node ``nodes`` of restart ``restart``: (digit draw, cell draw)."""
    w0, w1, _, _ = _philox(np.uint32(nodes & 0xFFFFFFFF), np.uint32(nodes >> 32), np.uint32(restart), TAG_EXACT,
                           key0, key1)
    return w0, w1


@njit(cache=True, inline="always")
def _twice_only(cand, units, u):
    """The digits with exactly two places in unit ``u``."""
    once = ZERO
    twice = ZERO
    thrice = ZERO
    for k in range(units.shape[1]):
        mask = cand[units[u, k]]
        thrice |= twice & mask
        twice |= once & mask
        once |= mask
    return twice & ~thrice


@njit(cache=True, nogil=True)
def _two_places(cand, units, seeded, word):
    """(unit, digit bit, places bitmask) of a digit with exactly two places left in a unit, or (-1, 0, 0): the
    first such unit and its lowest such digit, or with ``seeded`` one drawn among the units that have one.
    Branching there has two alternatives, and they cover every solution once (the digit is somewhere in
    the unit, and in one place only): the dual of the fewest-candidates cell (Knuth's exact-cover rule)."""
    chosen = -1
    seen = 0
    for u in range(units.shape[0]):
        if _twice_only(cand, units, u):
            seen += 1
            if chosen < 0:
                chosen = u
                if not seeded:
                    break
    if chosen < 0:
        return -1, ZERO, ZERO
    if seeded and seen > 1:
        pick = np.int64(_below(word, seen))
        for u in range(units.shape[0]):
            if _twice_only(cand, units, u):
                if pick == 0:
                    chosen = u
                    break
                pick -= 1
    digits = _twice_only(cand, units, chosen)
    digit = digits & (~digits + ONE)
    places = ZERO
    for k in range(units.shape[1]):
        if cand[units[chosen, k]] & digit:
            places |= ONE << np.uint64(k)
    return chosen, digit, places
