"""Replica exchange (parallel tempering): neighbouring rungs of a group swap temperatures.

Chains form groups of R consecutive rows (R = replicas); each chain holds its rung on the
temperature ladder in ``state.level`` (rung 0 is the coldest). Every ``interval`` moves (at
absolute move indices m = r * interval, r >= 1: round r) every group tries to exchange the
temperatures of rungs (l, l + 1) for l = r mod 2, r mod 2 + 2, ... (even pairs on even rounds,
odd pairs on odd ones). Temperatures move, grids stay: a swap exchanges the two chains'
``level`` values.

The Metropolis rule for an exchange, with beta = 1/T and the colder chain at rung l:

    p = min(1, exp((beta_l - beta_{l+1}) * (E_cold - E_hot)))

accepted iff gap = E_hot - E_cold <= 0, or gap < width and u < table[l, gap], where the host
tabulates table[l, gap] = min(2**32 - 1, floor(exp(-(beta_l - beta_{l+1}) * gap) * 2**32)) over
the gaps for which it is not 0 and that two chains' costs can be apart (``exchange_table``: at most the
move's ``cost_bound``), and u is word 0 of the Philox call at
counter (r, chain index of the group's first row + l, TAG_EXCHANGE). Integers only: every
backend takes the same decisions. ``state.exchanges[first_row + l]`` counts the accepted
exchanges of pair l in the group.
"""
from __future__ import annotations

import math

import numpy as np

from . import limits
from .contract import device
from .rng import TAG_EXCHANGE, philox

UINT32_MAX = 2**32 - 1
MAX_GAP_WIDTH = 1 << 16  # bounds the table: beyond it the acceptance is rounded to 0
BLOCK_ENTRIES = 1 << 18  # entries computed at once: the float64 work arrays stay at a few MiB whatever the ladder


def _gaps_beta(temperatures: np.ndarray) -> np.ndarray:
    beta = 1.0 / temperatures
    gaps_beta = beta[:-1] - beta[1:]
    if np.any(gaps_beta <= 0):
        raise ValueError("the ladder's temperatures must increase from rung 0")
    return gaps_beta


def _width(gaps_beta: np.ndarray, cost_bound: int | None) -> int:
    # exp(-g * gap) * 2**32 < 1  <=>  gap > 32 ln 2 / g: the table needs no column beyond that
    width = int(min(MAX_GAP_WIDTH, math.ceil(32 * math.log(2) / gaps_beta.min()) + 2))
    # nor beyond the largest gap two chains' costs can have: columns past it would never be read (the default ladder
    # of 4,096 rungs wanted 19,720 columns, 4.6 s of float64 work at every start; 9x9's swap needs 145)
    return width if cost_bound is None else max(1, min(width, int(cost_bound) + 1))


def exchange_shape(temperatures, cost_bound: int | None = None) -> tuple[int, int]:
    """(rung pairs, cost gaps): the shape of ``exchange_table`` for the same arguments, computed without it."""
    temperatures = np.asarray(temperatures, dtype=np.float64)
    if temperatures.size < 2:
        return 1, 1
    gaps_beta = _gaps_beta(temperatures)
    return gaps_beta.size, _width(gaps_beta, cost_bound)


def describe_table(pairs: int, width: int) -> str:
    return f"the replica exchange table ({pairs:,} rung pairs x {width:,} cost gaps)"


def table_bytes(pairs: int, width: int) -> int:
    """What ``exchange_table`` of that shape needs: the table, and one block's float64 work arrays."""
    return pairs * width * 4 + min(pairs, max(1, BLOCK_ENTRIES // width)) * width * 8 * 3


def exchange_table(temperatures: np.ndarray, cost_bound: int | None = None) -> np.ndarray:
    """uint32 (R - 1, width) thresholds for the ladder ``temperatures`` (increasing, R rungs) of chains whose costs
    never exceed ``cost_bound`` (None: not known). Any width gives the same decisions: a gap past the table is
    refused, and the columns left out are those whose threshold is 0 or whose gap never occurs.

    Its size is checked before it is made (``limits.TooLarge``, one line), and it is computed a block of rows at a
    time: the same numbers, element for element, as the whole table at once, without its float64 intermediates."""
    temperatures = np.asarray(temperatures, dtype=np.float64)
    if temperatures.size < 2:
        return np.full((1, 1), UINT32_MAX, dtype=np.uint32)
    gaps_beta = _gaps_beta(temperatures)
    pairs, width = gaps_beta.size, _width(gaps_beta, cost_bound)
    rows = max(1, BLOCK_ENTRIES // width)
    what = describe_table(pairs, width)
    limits.check_memory(table_bytes(pairs, width), what)
    with limits.doing(f"setting up {what}"):
        table = np.empty((pairs, width), dtype=np.uint32)
        gap = np.arange(width, dtype=np.float64)
        for first in range(0, pairs, rows):
            probability = np.exp(-gaps_beta[first:first + rows, None] * gap[None, :])
            table[first:first + rows] = np.minimum(np.floor(probability * 2.0**32), float(UINT32_MAX)).astype(np.uint32)
    table[:, 0] = UINT32_MAX
    return table


@device
def exchange_group(first_row, first_chain, round_index, key0, key1, replicas, table, state):
    """One exchange round in the group of rows [first_row, first_row + replicas)."""
    level, cost = state.level, state.cost
    for pair in range(round_index & 1, replicas - 1, 2):
        cold = first_row
        hot = first_row
        for r in range(first_row, first_row + replicas):
            if level[r] == pair:
                cold = r
            elif level[r] == pair + 1:
                hot = r
        w0, w1, w2, w3 = philox(np.uint32(round_index & 0xFFFFFFFF), np.uint32(round_index >> 32),
                                np.uint32(first_chain + pair), TAG_EXCHANGE, key0, key1)
        gap = int(cost[hot]) - int(cost[cold])
        if gap <= 0 or (gap < table.shape[1] and w0 < table[pair, gap]):
            level[cold] = pair + 1
            level[hot] = pair
            state.exchanges[first_row + pair] += 1
