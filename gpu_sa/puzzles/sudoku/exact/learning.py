"""What the seeded search learns from its conflicts: weights on the units where contradictions arise
(dom/wdeg, Boussemart, Hemery, Lecoutre & Sais 2004), kept from one restart to the next.

Every contradiction adds 1 to the weight of the unit it was found in (an emptied cell: its three units).
The search then branches on the free cell with the fewest candidates per unit weight (``dom / wdeg``:
candidates / (weight of its row + column + box)), so that it turns first to the part of the grid where
its choices keep failing, and a restart begins there instead of where the last one began. Weights start
at 1 (the ordering is then the plain fewest-candidates rule).

Restarts run at once on several threads, yet the answer must not depend on how many: restart i starts
from the weights of restarts 0 .. i - LAG (``restarts.py``), a fixed set whatever the threads, so that LAG
restarts can run side by side.
"""
from __future__ import annotations

import numpy as np

from ....engine.jit import njit
from .board import ONE, ZERO, _below, _popcount

WDEG = 8  # feature bits, beside consistency.BOX_LINE, ALLDIFF, PROBE
PHASE = 16
LAG = 2  # restart i learns from restarts 0 .. i - LAG: LAG restarts may run at once


@njit(cache=True, nogil=True)
def _blame(cand, units, full, cell_units, weights):
    """After a contradiction of the seed's rules, where the candidates stopped: +1 to the units of an
    emptied cell, else to the first unit where a digit has no place or one cell is the only place of two."""
    for cell in range(cand.shape[0]):
        if cand[cell] == ZERO:
            for k in range(3):
                weights[cell_units[cell, k]] += 1
            return
    side = units.shape[1]
    for u in range(units.shape[0]):
        once = ZERO
        twice = ZERO
        for k in range(side):
            mask = cand[units[u, k]]
            twice |= once & mask
            once |= mask
        if once != full:
            weights[u] += 1
            return
        single = once & ~twice
        for k in range(side):
            both = cand[units[u, k]] & single
            if both & (both - ONE):
                weights[u] += 1
                return


@njit(cache=True, nogil=True)
def _heaviest_fewest(cand, placed, weights, cell_units, seeded, word):
    """A free cell with the fewest candidates per unit weight (dom / wdeg), or -1 when every cell is set:
    the lowest such cell, or with ``seeded`` one drawn among the tied cells by the uint32 ``word``."""
    best = -1
    best_count = np.int64(1)
    best_weight = np.int64(0)
    ties = 0
    for cell in range(cand.shape[0]):
        if placed[cell]:
            continue
        count = np.int64(_popcount(cand[cell]))
        weight = weights[cell_units[cell, 0]] + weights[cell_units[cell, 1]] + weights[cell_units[cell, 2]]
        # count / weight < best_count / best_weight, in integers
        if best < 0 or count * best_weight < best_count * weight:
            best = cell
            best_count = count
            best_weight = weight
            ties = 1
        elif count * best_weight == best_count * weight:
            ties += 1
    if not seeded or ties < 2:
        return best
    pick = _below(word, ties)
    for cell in range(best, cand.shape[0]):
        if placed[cell]:
            continue
        weight = weights[cell_units[cell, 0]] + weights[cell_units[cell, 1]] + weights[cell_units[cell, 2]]
        if np.int64(_popcount(cand[cell])) * best_weight == best_count * weight:
            if pick == ZERO:
                return cell
            pick -= ONE
    return -1


def saved_phases(deepest: np.ndarray) -> np.ndarray:
    """The digits a restart leaves for the next ones to try first: each cell's digit at its deepest node (a
    one-bit mask), 0 where the cell was still free."""
    single = (deepest != 0) & ((deepest & (deepest - np.uint64(1))) == 0)
    return np.where(single, deepest, np.uint64(0))


def overlay(phases: np.ndarray, newer: np.ndarray) -> np.ndarray:
    return np.where(newer != 0, newer, phases)


def initial_weights(order: int) -> np.ndarray:
    """Every unit's weight before any conflict: 1."""
    return np.ones(3 * order * order, dtype=np.int64)
