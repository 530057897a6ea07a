"""The replica exchange table: as small as the costs need, the same numbers, the same decisions, checked before it
is made."""
import math
import time

import numpy as np
import pytest

import gpu_sa
from chain_cases import PUZZLES, backend_named, batch_chains, case_puzzle
from gpu_sa.engine import exchange, limits, runner, schedule
from gpu_sa.engine.kernels import Chunk


def whole_table(temperatures):
    """The table as one float64 computation over every rung pair and every gap whose threshold is not 0."""
    beta = 1.0 / np.asarray(temperatures, dtype=np.float64)
    gaps_beta = beta[:-1] - beta[1:]
    width = int(min(exchange.MAX_GAP_WIDTH, math.ceil(32 * math.log(2) / gaps_beta.min()) + 2))
    probability = np.exp(-gaps_beta[:, None] * np.arange(width, dtype=np.float64)[None, :])
    table = np.minimum(np.floor(probability * 2.0**32), float(2**32 - 1)).astype(np.uint32)
    table[:, 0] = 2**32 - 1
    return table


@pytest.mark.parametrize("replicas, t_low, t_high", [(2, 0.05, 1.0), (16, 0.05, 0.5), (300, 0.05, 0.5),
                                                      (600, 0.1, 3.0)])
def test_the_table_is_cut_at_the_cost_bound_and_holds_the_same_numbers(replicas, t_low, t_high):
    rungs = schedule.ladder(t_low=t_low, t_high=t_high, replicas=replicas, plateaus=1, plateau_length=81).rungs()
    whole = whole_table(rungs)
    np.testing.assert_array_equal(exchange.exchange_table(rungs), whole)  # built a block of rows at a time
    for bound in (0, 144, 810, 10**6):
        cut = exchange.exchange_table(rungs, cost_bound=bound)
        assert cut.shape == exchange.exchange_shape(rungs, bound) == (replicas - 1, min(whole.shape[1], bound + 1))
        np.testing.assert_array_equal(cut, whole[:, :cut.shape[1]])


def test_a_ladder_of_4096_rungs_is_set_up_at_once():
    move = gpu_sa.parse(PUZZLES["order3_hard"])[0].move("swap")
    rungs = schedule.default_ladder(move, 4096).rungs()
    started = time.perf_counter()
    table = exchange.exchange_table(rungs, move.cost_bound)
    seconds = time.perf_counter() - started
    assert table.shape == (4095, 145)  # 19,720 columns without the bound: seconds of float64 work at every start
    assert seconds < 0.1, seconds


def test_a_table_that_does_not_fit_is_refused_before_it_is_made(monkeypatch):
    monkeypatch.setattr(limits, "available_memory", lambda: 100 << 20)
    rungs = schedule.ladder(t_low=0.05, t_high=0.5, replicas=65536, plateaus=1, plateau_length=256).rungs()
    with pytest.raises(limits.TooLarge, match=r"^the replica exchange table \(65,535 rung pairs x 4,993 cost gaps\) "
                                              r"would need 1\.2 GiB, 100\.0 MiB available$"):
        exchange.exchange_table(rungs, cost_bound=4992)


LADDER = dict(t_low=0.05, t_high=2.0, replicas=16, plateaus=40)


def _replica_run(move, table, backend="numpy", groups=2, moves=300, seed=21):
    """Every chain's state after ``moves`` moves on LADDER, exchanging every 5 moves with ``table(rungs)``."""
    backend = backend_named(backend)
    law = schedule.ladder(plateau_length=move.plateau_length, **LADDER)
    rows = law.levels * groups
    state = backend.allocate(move, rows)
    chains = batch_chains(seed, rows, [0], [1], law.levels)
    backend.init(state, move, chains)
    stop = (moves - 1) // law.plateau_length + 1
    backend.advance(state, move, chains, Chunk(
        move_begin=np.int64(0), move_end=np.int64(moves), plateau_begin=np.int64(0),
        plateau_length=np.int64(law.plateau_length), thresholds=law.acceptance_rows(0, stop, move.max_delta),
        exchange_interval=np.int64(5), exchange_table=table(law.rungs())))
    return backend.to_host(state)


@pytest.mark.parametrize("name, move_name", [("order2", "sirdey"), ("order3_17", "swap"), ("shikaku5", "rect"),
                                             ("hashi6", "bridge")])
def test_the_cut_table_takes_the_same_decisions(name, move_name):
    move = case_puzzle({"puzzle": name}).move(move_name, propagate=False)
    rungs = schedule.ladder(plateau_length=1, **LADDER).rungs()
    assert exchange.exchange_shape(rungs, move.cost_bound)[1] < exchange.exchange_shape(rungs)[1], \
        "the bound does not cut this table: the case would prove nothing"
    whole = _replica_run(move, exchange.exchange_table)
    assert whole.exchanges.sum() > 0
    for backend in ("numpy", "cpu"):
        cut = _replica_run(move, lambda rungs: exchange.exchange_table(rungs, move.cost_bound), backend)
        for field, a, b in zip(whole._fields, whole, cut):
            np.testing.assert_array_equal(a, b, err_msg=f"{backend}: {field}")


@pytest.mark.parametrize("name, move_name", [("order2", "sirdey"), ("order3", "swap"), ("order3", "tabu"),
                                             ("shikaku5", "rect"), ("hashi6", "bridge")])
def test_no_chain_passes_its_moves_cost_bound(name, move_name):
    """Random states, and hot chains (costs near theirs), stay within the bound the exchange table is cut at."""
    puzzle = case_puzzle({"puzzle": name})
    move = puzzle.move(move_name, propagate=False)
    law = schedule.geometric(t0=50.0, t_end=10.0, plateaus=4, plateau_length=move.plateau_length)
    for moves in (0, 4 * move.plateau_length):
        result = runner.anneal(puzzle, move=move_name, backend="numpy", chains=16, seed=3, schedule=law,
                               max_moves=moves, early_stop=False, keep_state=True, propagate=False)
        assert result.state.cost.max() <= move.cost_bound
        assert moves or result.state.cost.max() > 0


def test_a_chunk_of_a_wide_ladder_spans_few_plateaus():
    """A chunk's acceptance rows are (plateaus, rungs, max_delta + 1) uint32: with 65,536 rungs and move swap, 65,536
    plateaus of them would be 80 GiB; a chunk stops at CHUNK_TABLE_BYTES of them (chunks decide where a run may stop,
    not what a chain does)."""
    assert runner.chunk_plateaus(1, 175) == runner.MAX_CHUNK_PLATEAUS  # 64x64's sirdey alone: as before
    assert runner.chunk_plateaus(65536, 4) == runner.CHUNK_TABLE_BYTES // (65536 * 5 * 12) == 68
    assert runner.chunk_plateaus(1 << 30, 175) == 1
    quick = dict(launched=81, chunk_seconds=0.001, plateau_length=81, time_left=None)
    assert runner._next_chunk(81 * 1000, **quick) == 81 * 2000
    assert runner._next_chunk(81 * 1000, most_plateaus=68, **quick) == 81 * 68
