"""Backend plumbing that needs no GPU: the occupancy rule, auto's choice, the reductions that pick the chain."""
import json

import numpy as np
import pytest

import gpu_sa
from conftest import ROOT
from gpu_sa.engine import backends

# auto's tests solve with tabu and the CDCL: compiled in the warm-up's first minute and a half (conftest)
pytestmark = pytest.mark.after_the_warm_up

EASY = (ROOT / "examples" / "seed_easy.txt").read_text()
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


class _StubGpu:
    """Stands for CudaBackend where a test only asks which backend auto picks (no kernel runs on it)."""

    name = "cuda"

    def __init__(self, threads_per_chain=None):
        self.threads_per_chain = threads_per_chain


@pytest.fixture
def a_usable_gpu(monkeypatch):
    """auto sees a real, usable GPU (not the simulator), as on the H200: cuda_status says so."""
    monkeypatch.setattr(backends, "cuda_status", lambda: (True, False, "CUDA GPU Fake H200"))
    monkeypatch.setattr(backends, "CudaBackend", _StubGpu)


def test_auto_runs_on_the_cpu_what_the_gpu_kernel_loses_and_cuda_named_still_gets_the_gpu(a_usable_gpu):
    backend, why = backends.select("auto")
    assert backend.name == "cuda" and why == "auto chose cuda: CUDA GPU Fake H200"
    backend, why = backends.select("auto", cpu_preferred="move tabu is slow there")
    assert backend.name == "cpu"
    assert why == ("auto chose cpu over the CUDA GPU Fake H200: move tabu is slow there; "
                   "--backend cuda runs it there anyway")
    assert backends.select("cuda", cpu_preferred="move tabu is slow there")[0].name == "cuda"
    assert backends.select("cpu")[0].name == "cpu"


def test_move_tabu_has_a_cooperative_layout_and_no_reason_to_leave_the_gpu():
    """auto runs move tabu (and auto's local-search orders) on a GPU now: its cooperative layout, the launch plan's
    choice; the mechanism below stays for a move that names a reason."""
    from gpu_sa.puzzles.sudoku import auto as portfolio
    from gpu_sa.puzzles import sudoku

    puzzle = gpu_sa.parse(EASY)[0]
    assert sudoku.CPU_PREFERRED == {}
    assert puzzle.move("tabu").cooperative and puzzle.move("tabu").cpu_preferred == ""
    assert puzzle.move("swap").cpu_preferred == puzzle.move("sirdey").cpu_preferred == ""
    assert portfolio.cpu_preferred(puzzle.stand_in(portfolio.LOCAL_SEARCH_ORDER)) == ""


@pytest.fixture
def tabu_prefers_the_cpu(monkeypatch):
    """Move tabu names a reason to run on the CPU (as it did while it had only its one-thread kernel): the plumbing
    of that reason, from the move to auto's choice, the Dask workers and the page, on a move that exercises it."""
    from gpu_sa.puzzles import sudoku

    monkeypatch.setitem(sudoku.CPU_PREFERRED, "tabu", "move tabu runs one chain per GPU thread (a stand-in reason)")


def test_move_tabu_and_the_local_search_orders_of_auto_say_why_they_prefer_the_cpu(tabu_prefers_the_cpu):
    from gpu_sa.puzzles.sudoku import auto as portfolio
    from gpu_sa.puzzles import sudoku

    puzzle = gpu_sa.parse(EASY)[0]
    assert puzzle.move("tabu").cpu_preferred == sudoku.CPU_PREFERRED["tabu"] != ""
    assert puzzle.move("swap").cpu_preferred == puzzle.move("sirdey").cpu_preferred == ""
    assert portfolio.cpu_preferred(puzzle) == ""  # 9x9: the rounds' move swap
    assert portfolio.cpu_preferred(puzzle.stand_in(portfolio.LOCAL_SEARCH_ORDER)) == sudoku.CPU_PREFERRED["tabu"]
    assert portfolio.cpu_preferred(puzzle.stand_in(portfolio.LOCAL_SEARCH_ORDER - 1)) == ""


def test_the_annealer_with_auto_runs_move_tabu_on_the_cpu_beside_a_gpu(a_usable_gpu, cli, tabu_prefers_the_cpu):
    status, out, err = cli("solve", "-", "--method", "anneal", "--move", "tabu", "--chains", "2", "--seed", "1",
                           "--json", stdin=EASY)
    assert status == 0 and json.loads(out)["backend"] == "cpu", err
    assert "gpu-sa: auto chose cpu over the CUDA GPU Fake H200: move tabu runs one chain per GPU thread" in err
    result = gpu_sa.anneal(gpu_sa.parse(EASY)[0], move="tabu", backend="auto", chains=2, seed=1)
    assert result.solved and result.backend == "cpu"


def test_method_auto_with_auto_asks_for_the_cpu_at_its_local_search_orders(a_usable_gpu, cli, monkeypatch, tabu_prefers_the_cpu):
    from gpu_sa.puzzles.sudoku import auto as portfolio

    monkeypatch.setattr(portfolio, "LOCAL_SEARCH_ORDER", 3)  # the easy 9x9 stands for a 36x36: propagation answers
    status, out, err = cli("solve", "-", "--json", stdin=EASY)
    assert status == 0 and json.loads(out)["backend"] == "cpu", err
    assert "gpu-sa: auto chose cpu over the CUDA GPU Fake H200: move tabu" in err
    chosen = []
    select = backends.select
    monkeypatch.setattr(backends, "select", lambda name, **why: chosen.append(why) or select(name, **why))
    assert portfolio.solve(gpu_sa.parse(EASY)[0], seed=1, backend="auto").solved
    assert [why["cpu_preferred"] for why in chosen] == [portfolio.cpu_preferred(gpu_sa.parse(EASY)[0])]
    assert chosen[0]["cpu_preferred"] and chosen[0].get("threads_per_chain") is None


def test_dask_workers_are_told_cpu_for_move_tabu_when_auto_chose_it_here(a_usable_gpu, cli, monkeypatch, tabu_prefers_the_cpu):
    """Each worker chooses its own backend; when auto here ran the moves on the CPU for their own reason, the
    workers get ``cpu`` rather than ``auto`` (theirs would pick their GPU). The cluster is stood in for: the task
    runs in this process with the backend name the workers would receive."""
    import contextlib
    import types

    from gpu_sa.engine import runner
    from gpu_sa.apps import distributed

    told = []

    def solve_one(puzzle, *, client, backend, **options):
        told.append(backend)
        return types.SimpleNamespace(result=runner.anneal(puzzle, backend=backend, **options))

    monkeypatch.setattr(distributed, "cluster", lambda **where: contextlib.nullcontext(None))
    monkeypatch.setattr(distributed, "solve_one", solve_one)
    status, out, err = cli("solve", "-", "--move", "tabu", "--chains", "2", "--seed", "1", "--workers", "1", "--json",
                           stdin=EASY)
    assert status == 0 and json.loads(out)["backend"] == "cpu", err
    assert told == ["cpu"]
    status, out, err = cli("solve", "-", "--move", "tabu", "--backend", "numpy", "--chains", "2", "--seed", "1",
                           "--max-moves", "50", "--workers", "1", "--json", stdin=EASY)
    assert told == ["cpu", "numpy"], err


@pytest.mark.slow
def test_the_page_with_auto_anneals_move_tabu_on_the_cpu_beside_a_gpu(a_usable_gpu, tabu_prefers_the_cpu):
    """`gpu-sa view` picks its backend once; with auto beside a GPU, a run of move tabu still goes to the CPU (its
    start event says where), and the other moves to the GPU. Only the tabu run anneals here (the GPU is a stand-in)."""
    import threading

    from gpu_sa.view.server import ViewServer
    from view_helpers import EASY as EASY_LINE, request

    backend, why = backends.select("auto")
    server = ViewServer(0, backend, why, auto=True)
    assert server.backend_for("swap") is backend and server.backend_for("sirdey") is backend
    assert server.backend_for("tabu").name == "cpu"
    named = ViewServer(0, backend, why)  # --backend cuda: the GPU for every move
    named.server_close()
    assert named.backend_for("tabu") is backend
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        status, events = request(server, "POST", "/api/anneal", {"text": EASY_LINE, "move": "tabu", "chains": 2, "seed": "1"})
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
    assert status == 200 and events[0]["event"] == "start" and events[0]["backend"] == "cpu"
    assert events[-1]["event"] == "result" and events[-1]["solved"]

