"""Backend plumbing that needs no GPU: the occupancy rule, auto's choice, the reductions that pick the chain."""
import numpy as np

from gpu_sa import backends

H100 = {"sms": 132, "threads_per_sm": 2048, "registers_per_sm": 65536, "blocks_per_sm": 32,
        "shared_per_sm": 228 * 1024}


def test_resident_blocks_follow_the_occupancy_rules():
    # 40 registers: 1,280 per warp -> 12 warps per sub-partition -> 48 warps = 12 blocks of 4
    assert backends.resident_blocks(registers=40, shared=0, threads=128, facts=H100) == 12
    # 47 registers round up to 1,536 per warp: 10 warps per sub-partition, 10 blocks
    assert backends.resident_blocks(registers=47, shared=16384, threads=128, facts=H100) == 10
    # shared memory binds: 100 KiB per block leaves room for 2
    assert backends.resident_blocks(registers=32, shared=100 * 1024, threads=128, facts=H100) == 2
    # threads bind: 2048 / 1024
    assert backends.resident_blocks(registers=16, shared=0, threads=1024, facts=H100) == 2


def test_auto_without_a_driver_says_why_and_picks_the_cpu(monkeypatch):
    backends.cuda_status.cache_clear()
    monkeypatch.setattr(backends, "nvidia_driver_present", lambda: False)
    try:
        backend, why = backends.select("auto")
        assert backend.name == "cpu" and "no CUDA GPU or driver" in why
    finally:
        backends.cuda_status.cache_clear()


def test_the_reported_row_is_lowest_cost_then_earliest_move_then_lowest_row():
    costs = np.array([3, 1, 1, 1, 0, 5], dtype=np.int32)
    moves = np.array([9, 7, 4, 4, 2, 1], dtype=np.int64)
    state = backends.ChainState(*([None] * 4), best_cost=costs, best_config=None, best_move=moves, level=None,
                                exchanges=None, memory=None)
    backend = backends.NumpyBackend()
    assert backend.best_row(state, 0, 4) == (2, 1, 4)  # rows 1-3 tie on cost 1; 2 and 3 on move 4: row 2
    assert backend.best_row(state, 3, 3) == (4, 0, 2)
    lowest, latest = backend.summary(state, 3)
    assert lowest.tolist() == [1, 0] and latest.tolist() == [9, 4]
