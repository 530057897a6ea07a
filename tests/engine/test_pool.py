"""The chains' elite pool (``gpu_sa.engine.pool``): which chains take a copy, from whom, and what they keep. The
end-to-end bit-exact cases (numpy = cpu = cuda) are the ``*-pool*`` cases of ``chain_cases``."""
import numpy as np
import pytest

from cpu_ref.pool import pool_round
from gpu_sa.engine import kernels, pool, runner
from gpu_sa.engine.contract import ChainState
from gpu_sa.engine.kernels import Chains, Chunk
from gpu_sa.puzzles.sudoku.moves import tabu

INTERVAL = 1000
KEPT = (1, 4)


def made_state(rows=8, seed=0):
    """Two puzzles of four rows: distinct words in every row, so that any copy shows."""
    draw = np.random.default_rng(seed)
    state = ChainState(config=draw.integers(0, 250, (rows, 6), dtype=np.uint8),
                       counts=draw.integers(0, 250, (rows, 5), dtype=np.uint8),
                       cost=draw.integers(0, 50, rows).astype(np.int32),
                       accepted=np.arange(rows, dtype=np.uint64) + 100,
                       best_cost=np.array([3, 1, 5, 1, 7, 2, 2, 9], dtype=np.int32),
                       best_config=draw.integers(0, 250, (rows, 6), dtype=np.uint8),
                       # round 2 begins at move 1000: row 2 lowered its best during it, the others before
                       best_move=np.array([10, 20, 1500, 999, 0, 5, 6, 7], dtype=np.int64),
                       level=np.arange(rows, dtype=np.int32), exchanges=np.arange(rows, dtype=np.uint64),
                       memory=draw.integers(0, 2**32, (rows, 7), dtype=np.uint64).astype(np.uint32))
    return state


def chains(active=(1, 1)):
    return Chains(per_puzzle=np.int64(4), bases=np.array([0, 40], np.int64), active=np.array(active, np.uint8),
                  key0=np.uint32(7), key1=np.uint32(0), replicas=np.int64(1))


def cpu_round(state, launch, round_index):
    """The cpu backend's round (the generated launch code of any move: the round is the same for all)."""
    kernels.cpu_glue(tabu).pool(launch, np.int64(round_index), np.int64(INTERVAL), np.array(KEPT, np.int64),
                                np.empty(state.cost.shape[0], np.int64), state)


@pytest.mark.parametrize("active", [(1, 1), (0, 1)])
def test_the_twin_and_the_cpu_make_the_same_copies(active):
    twin, cpu, before = made_state(), made_state(), made_state()
    pool_round(chains(active), 2, INTERVAL, KEPT, twin)
    cpu_round(cpu, chains(active), 2)
    for name in ChainState._fields:
        np.testing.assert_array_equal(getattr(cpu, name), getattr(twin, name), err_msg=name)
    changed = {row for row in range(8) if not np.array_equal(twin.config[row], before.config[row])}
    # puzzle 0 (rows 0-3, lowest best 1 at rows 1 and 3): row 0 is a target, row 2 found something new in the
    # round; puzzle 1 (rows 4-7, lowest 2 at rows 5 and 6): rows 4 and 7
    assert changed == ({0} if active[0] else set()) | {4, 7}


def test_a_copy_is_the_source_s_state_but_the_kept_slots_and_the_chain_s_own_counters():
    state, before = made_state(), made_state()
    pool_round(chains(), 2, INTERVAL, KEPT, state)
    for target, sources in ((0, (1, 3)), (4, (5, 6)), (7, (5, 6))):
        source = next(s for s in sources if np.array_equal(state.config[target], before.config[s]))
        for name in ("config", "counts", "cost", "best_cost", "best_config", "best_move"):
            np.testing.assert_array_equal(getattr(state, name)[target], getattr(before, name)[source], err_msg=name)
        copied = [slot for slot in range(7) if slot not in KEPT]
        np.testing.assert_array_equal(state.memory[target, copied], before.memory[source, copied])
        np.testing.assert_array_equal(state.memory[target, list(KEPT)], before.memory[target, list(KEPT)])
        for name in ("accepted", "level", "exchanges"):
            assert getattr(state, name)[target] == getattr(before, name)[target], name
    for row in (1, 2, 3, 5, 6):
        for name in ChainState._fields:
            np.testing.assert_array_equal(getattr(state, name)[row], getattr(before, name)[row], err_msg=name)


def test_the_source_depends_on_the_round_and_the_seed_only():
    """Targets draw among the rows at the lowest cost: over rounds both of a puzzle's elite rows are drawn."""
    drawn = set()
    for round_index in range(2, 12):
        state, before = made_state(), made_state()
        state.best_move[:] = 0
        pool_round(chains(), round_index, INTERVAL, KEPT, state)
        again = made_state()
        again.best_move[:] = 0
        cpu_round(again, chains(), round_index)
        np.testing.assert_array_equal(again.config, state.config)
        drawn |= {s for s in (1, 3) if np.array_equal(state.config[0], before.config[s])}
    assert drawn == {1, 3}


def test_pieces_cut_a_chunk_at_its_rounds_and_only_there():
    thresholds = np.arange(10 * 1 * 2, dtype=np.uint32).reshape(10, 1, 2)
    chunk = Chunk(move_begin=np.int64(250), move_end=np.int64(700), plateau_begin=np.int64(2),
                  plateau_length=np.int64(100), thresholds=thresholds, exchange_interval=np.int64(1 << 62),
                  exchange_table=np.zeros((1, 1), np.uint32), pool_interval=np.int64(200))
    got = [(int(p.move_begin), int(p.move_end), int(p.plateau_begin), p.thresholds[0, 0, 0], r)
           for p, r in pool.pieces(chunk)]
    assert got == [(250, 400, 2, 0, 2), (400, 600, 4, 4, 3), (600, 700, 6, 8, 0)]
    alone = chunk._replace(pool_interval=pool.NO_POOL)
    assert [(p is alone, r) for p, r in pool.pieces(alone)] == [(True, 0)]
    empty = chunk._replace(move_begin=np.int64(400), move_end=np.int64(400))  # the runner's zero-move launch
    assert [(p is empty, r) for p, r in pool.pieces(empty)] == [(True, 0)]


def test_round_0_copies_nothing():
    """The backends run it on the runner's zero-move launch, to compile the round before the clock."""
    twin, cpu, before = made_state(), made_state(), made_state()
    pool_round(chains(), 0, INTERVAL, KEPT, twin)
    cpu_round(cpu, chains(), 0)
    for name in ChainState._fields:
        np.testing.assert_array_equal(twin.memory, before.memory)
        np.testing.assert_array_equal(getattr(twin, name), getattr(before, name), err_msg=name)
        np.testing.assert_array_equal(getattr(cpu, name), getattr(before, name), err_msg=name)


@pytest.mark.parametrize("value", [-1, 1.5, True, "2"])
def test_a_bad_pool_interval_is_refused(value):
    with pytest.raises(ValueError, match="pool_interval"):
        runner.Options(pool_interval=value)


def test_a_solved_puzzle_s_chains_are_left_as_they_are():
    """Else the row reported for a solved run (lowest best, earliest move, lowest row) could be a copy or not
    depending on where the runner's chunks end."""
    twin, cpu, before = made_state(), made_state(), made_state()
    for state in (twin, cpu, before):
        state.best_cost[3] = 0
    pool_round(chains(), 2, INTERVAL, KEPT, twin)
    cpu_round(cpu, chains(), 2)
    for name in ChainState._fields:
        np.testing.assert_array_equal(twin.memory[:4], before.memory[:4])
        np.testing.assert_array_equal(getattr(cpu, name), getattr(twin, name), err_msg=name)
    assert not np.array_equal(twin.config[4:], before.config[4:])  # the other puzzle still pools
