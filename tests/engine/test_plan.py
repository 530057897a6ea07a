"""The launch plan (``gpu_sa.engine.plan``): which layout runs a move on a GPU and what its cost model predicts,
with no GPU. Its figures for the cooperative kernel are checked against the machine code in
tests/benchmarks/test_sass.py; here, its choices and its arithmetic."""
import pytest

from chain_cases import pattern_grid
from gpu_sa.engine import plan
from gpu_sa.puzzles import sudoku
from gpu_sa.puzzles.sudoku.moves import tabu_block

KEYS = {"move", "kernel", "layout", "threads_per_chain", "chains", "shared_bytes_per_chain", "global_bytes_per_chain",
        "occupancy", "predicted_moves_per_second", "predicted_moves_per_second_per_chain", "chosen", "why"}


@pytest.fixture(scope="module")
def half_given():
    """{side: move tabu of a grid of that side with half its cells given (unpropagated: a pattern grid would fill)}."""
    return {order * order: sudoku.parse(pattern_grid(order, 2))[0].move("tabu", propagate=False) for order in (5, 7, 8)}


@pytest.mark.parametrize("side", [49, 64])
def test_large_grids_get_a_block_per_chain(half_given, side):
    got = plan.launch_plan(half_given[side])
    assert set(got) == KEYS and got["chosen"] == "model"
    assert got["layout"] == "block" and got["threads_per_chain"] in tabu_block.THREADS
    assert 0 < got["shared_bytes_per_chain"] == tabu_block.shared_bytes(side) <= 64 * 1024
    assert set(got["predicted_moves_per_second"]) == {device.name for device in plan.DEVICES}
    one_thread = plan.launch_plan(half_given[side], threads_per_chain=1)["predicted_moves_per_second"]
    for device, rate in got["predicted_moves_per_second"].items():
        assert rate > 10 * one_thread[device]
    fill = got["occupancy"]["H100 SXM"]
    assert got["chains"] == fill["chains"] == 132 * fill["blocks_per_sm"] and fill["blocks_per_sm"] >= 8
    assert got["global_bytes_per_chain"] > 100_000  # the marks, gamma, snapshot and journal stay in global memory


def test_a_requested_layout_is_kept_and_the_user_chain_count_too(half_given):
    move = half_given[49]
    for threads in (1, 32, 64, 128, 256):
        got = plan.launch_plan(move, threads_per_chain=threads, chains=5000)
        assert (got["threads_per_chain"], got["chosen"], got["chains"]) == (threads, "requested", 5000)
        assert got["layout"] == ("thread" if threads == 1 else "block")
    assert plan.launch_plan(move, threads_per_chain=1)["shared_bytes_per_chain"] == 0


def test_layouts_a_move_does_not_have_are_refused():
    puzzle = sudoku.parse(pattern_grid(3, 2))[0]
    with pytest.raises(ValueError, match="only the one-thread layout"):
        plan.threads_for(puzzle.move("swap"), 64)
    with pytest.raises(ValueError, match="1 or more"):
        plan.threads_for(puzzle.move("tabu"), 0)
    assert plan.threads_for(puzzle.move("swap"), None) == 1
    got = plan.launch_plan(puzzle.move("swap"))
    assert got["layout"] == "thread" and got["predicted_moves_per_second"] == {"H100 SXM": None, "H200": None}


def test_the_one_thread_layout_is_the_measured_figure(half_given):
    """Not modelled: the H200's measurements at 49x49 and 64x64, through which the other sizes' power law goes."""
    for side, rate in plan.ONE_THREAD_MEASURED["tabu"]:
        got = plan.launch_plan(half_given[side], threads_per_chain=1)["predicted_moves_per_second"]
        assert got["H200"] == round(rate) and got["H100 SXM"] < got["H200"]
    assert plan.launch_plan(half_given[25], threads_per_chain=1)["predicted_moves_per_second"]["H200"] > 6.0e6


def test_the_profile_is_the_nearest_measured_grid(half_given):
    assert plan.profile_for(half_given[49])["instance"] == "49x49 at 50 %"
    assert plan.profile_for(half_given[64])["instance"] == "64x64 at 50 %"
    sixty = sudoku.parse(pattern_grid(8, 3))[0].move("tabu", propagate=False)  # two thirds given
    assert plan.profile_for(sixty)["instance"] == "64x64 at 60 %"


def test_more_work_per_move_predicts_fewer_moves(half_given):
    """The model's arithmetic moves the right way: more conflicting cells or more best-move moves, more cycles."""
    move, sass = half_given[64], plan.COOPERATIVE_SASS["tabu"]
    calm = plan._work(move, 64, sass, dict(conflicting=0.05, best=0.1))
    busy = plan._work(move, 64, sass, dict(conflicting=0.4, best=0.1))
    stuck = plan._work(move, 64, sass, dict(conflicting=0.05, best=0.9))
    for heavier in (busy, stuck):
        assert all(heavier[k] > calm[k] for k in ("instructions", "cycles", "sectors"))


def test_the_cuda_backend_says_its_layout_and_why(half_given, monkeypatch):
    """The `gpu-sa: launch:` line on a GPU (here a stand-in's figures: no kernel runs): the block layout, its chains
    per SM, and the plan's reason when the layout was the model's choice, not when it was asked for."""
    from gpu_sa.engine import backends

    facts = {"name": "stand-in H100", "sms": 132, "threads_per_sm": 2048, "registers_per_sm": 65536,
             "blocks_per_sm": 32, "shared_per_sm": 233472}
    monkeypatch.setattr(backends, "cuda_device_facts", lambda: facts)
    move = half_given[49]
    chosen = backends.CudaBackend()
    assert chosen.launch_plan(move)["chains"] == plan.launch_plan(move)["chains"] == 132 * 20
    text = chosen.describe_launch(2640, move)
    assert text.startswith("2,640 chains, one block of 32 threads each on 132 SMs (20 chains per SM")
    assert "the launch plan's layout: the model predicts" in text
    asked = backends.CudaBackend(threads_per_chain=64).describe_launch(1320, move)
    assert "one block of 64 threads each" in asked and "launch plan" not in asked
