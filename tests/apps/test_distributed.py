"""Dask: the trials of one puzzle and the batches of a data set, spread over a LocalCluster of two
worker processes, give the one-process answers; a killed worker loses only its tasks."""
import os
import signal
import sys

import numpy as np
import pytest

distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed (the [dask] extra)")

import gpu_sa  # noqa: E402
from gpu_sa.engine import backends, runner, stop  # noqa: E402
from gpu_sa.apps import distributed as dist  # noqa: E402
from conftest import DATA, ROOT  # noqa: E402
from chain_cases import PUZZLES  # noqa: E402

HARD = gpu_sa.parse(PUZZLES["order3_hard"])[0]
# 4 chains of 40,000 moves on the cpu backend: about 30 ms a trial. Measured in one process: seed 1
# first solves in trial 6 (chain 23), seed 4 in trial 11 (chain 40); seed 2 solves in none of 12.
# without propagation: move swap is then the plain box swap, whose trajectories do not move when the candidate-
# restricted proposal is retuned (the seeds below were chosen for them: the answer comes in a late trial)
FAST = dict(backend="cpu", chains=4, max_moves=40_000, trials=12, propagate=False)
SAMPLES = [line for line in (DATA / "sudoku_samples.txt").read_text().splitlines()
           if line and not line.startswith("#")]


@pytest.fixture(scope="module")
def client():
    with pytest.MonkeyPatch.context() as patch:
        # the worker processes import gpu_sa from this checkout, as this process does
        patch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        with dist.cluster(workers=2) as client:
            yield client


def _answer(result):
    return (result.solved, result.cost, result.chain, result.chain_moves, result.trials, result.stopped,
            result.seed, result.chains, tuple(result.best))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2, 5])
def test_one_puzzle_gets_the_one_process_answer(client, seed):
    alone = gpu_sa.anneal(HARD, seed=seed, **FAST)
    assert alone.solved and alone.trials > 1, "the answer must not be in trial 0 for this test to mean anything"
    run = dist.solve_one(HARD, client=client, seed=seed, **FAST)
    assert _answer(run.result) == _answer(alone)
    assert not HARD.check(run.result.solution)
    assert {t.trial for t in run.trials} >= set(range(alone.trials)), "a trial below the answer went unheard"
    assert set(run.workers) <= set(client.nthreads())
    assert run.result.moves >= (alone.trials - 1) * FAST["max_moves"]  # every trial below the answer ran in full


def test_a_run_without_solution_reports_the_best_of_every_trial(client):
    options = dict(FAST, trials=4)
    alone = gpu_sa.anneal(HARD, seed=2, **options)
    assert not alone.solved
    run = dist.solve_one(HARD, client=client, seed=2, **options)
    assert _answer(run.result) == _answer(alone)
    assert [t.trial for t in run.trials] == [0, 1, 2, 3] and run.cancelled == 0
    assert run.result.moves == alone.moves


def test_replica_exchange_rates_add_up_over_trials_as_in_one_process(client):
    options = dict(backend="cpu", chains=8, replicas=4, max_moves=6_000, trials=3, early_stop=False, seed=3)
    alone = gpu_sa.anneal(HARD, **options)
    run = dist.solve_one(HARD, client=client, **options)
    assert _answer(run.result) == _answer(alone)
    assert run.result.exchange_rates == alone.exchange_rates and len(alone.exchange_rates) == 3


@pytest.mark.parametrize("replicas", [None, 3])
def test_the_default_chain_count_is_the_one_anneal_takes(replicas):
    options = runner.Options(replicas=replicas, max_moves=0)
    alone = gpu_sa.anneal(HARD, backend="cpu", seed=1, max_moves=0, replicas=replicas)
    assert dist._default_chains(backends.CpuBackend(), HARD, options) == (alone.chains, alone.replicas)


def test_a_data_set_gets_the_one_process_answers_in_input_order(client):
    puzzles = [p for line in SAMPLES[:8] for p in gpu_sa.parse(line)]
    options = dict(backend="cpu", chains=8, seed=5, max_moves=20000, trials=3)
    alone = list(runner.anneal_many(puzzles, batch=4, **options))
    solved = [r.solved for r in alone]
    assert any(r.solved and r.trials > 1 for r in alone) and any(solved) and not all(solved)
    spread = list(dist.solve_many(puzzles, client=client, batch=3, **options))
    assert [r.index for r in spread] == list(range(len(puzzles)))
    for a, b in zip(alone, spread):
        assert _answer(b) == _answer(a)


@pytest.mark.slow
def test_the_time_limit_stops_every_trial_and_keeps_the_best(client):
    # seed 2: none of trials 0-5 solves within 3,000,000 moves (checked in one process, 3 s a trial),
    # so whatever the timing, the run can only end at its time limit
    run = dist.solve_one(HARD, client=client, backend="cpu", chains=4, seed=2, max_moves=3_000_000, trials=0,
                         time_limit=1.5, in_flight=4)
    assert run.result.stopped == "time_limit" and not run.result.solved
    assert run.result.seconds < 1.5 + dist.GRACE_SECONDS
    best = min(run.trials, key=lambda t: (t.result.cost, t.trial))
    assert run.result.cost == best.result.cost and run.result.chain == best.result.chain


def test_a_stop_request_stops_every_trial_and_keeps_the_best(client):
    def stop_after_the_first(trial):
        stop.request()

    try:
        run = dist.solve_one(HARD, client=client, seed=2, on_trial=stop_after_the_first, **FAST)
    finally:
        stop.clear()
    assert run.result.stopped == "interrupted" and run.result.trials < FAST["trials"]
    best = min(run.trials, key=lambda t: (t.result.cost, t.trial))
    assert (run.result.cost, run.result.chain) == (best.result.cost, best.result.chain)


def test_workers_on_one_host_share_its_cores(client):
    sharing = dist._threads_sharing_host(client)
    assert sum(sharing.values()) == 2
    engines = [client.submit(dist._backend_here, "cpu", sharing, workers=[address], pure=False).result()
               for address in client.nthreads()]
    assert [engine.threads for engine in engines] == [max(1, backends.available_cores() // 2)] * 2


def test_the_workers_are_asked_of_the_scheduler_not_of_the_clients_cache(client, monkeypatch):
    """The client's cache of the scheduler's identity, as its periodic refresh (which asks for no workers) leaves it
    when it lands during a ``scheduler_info()`` call: the run still finds both workers and their cores."""
    monkeypatch.setattr(client, "scheduler_info", lambda *args, **kwargs: {"workers": {}})
    assert sum(dist._threads_sharing_host(client).values()) == 2 and dist._worker_threads(client) == 2
    run = dist.solve_one(HARD, client=client, seed=2, **dict(FAST, trials=2))
    assert run.result.trials == 2 and set(run.workers) <= set(client.nthreads())


def test_bad_addresses_and_options_are_one_line_errors():
    with pytest.raises(dist.ClusterError, match="not a Dask scheduler address"):
        with dist.cluster(address="tcp://no port here"):
            pass
    with pytest.raises(dist.ClusterError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        with dist.cluster(address="tcp://127.0.0.1:9", timeout=1):
            pass
    with pytest.raises(ValueError, match="either a scheduler address or a number of workers"):
        with dist.cluster():
            pass
    with pytest.raises(ValueError, match="workers must be a positive integer"):
        with dist.cluster(workers=0):
            pass


def test_a_scheduler_without_workers_is_a_one_line_error():
    with distributed.LocalCluster(n_workers=0, dashboard_address=":0", processes=False) as empty:
        with pytest.raises(dist.ClusterError, match="has no workers after 0.5 s"):
            with dist.cluster(address=empty.scheduler_address, timeout=0.5):
                pass


def test_a_missing_dask_is_a_one_line_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # what an absent package looks like to import
    with pytest.raises(dist.ClusterError, match=r"Dask is not installed .*pip install 'gpu-sa\[dask\]'"):
        with dist.cluster(workers=1):
            pass


def test_a_killed_worker_loses_only_its_tasks(client):
    # 200,000 moves a trial (about 0.2 s): seed 1 first solves in trial 9, so trials are still
    # running when the first one comes back and the worker is killed
    options = dict(FAST, max_moves=200_000, seed=1)
    alone = gpu_sa.anneal(HARD, **options)
    assert alone.solved and alone.trials == 9
    pids = client.run(os.getpid)
    killed = {}

    def kill_a_busy_worker(trial):
        if killed:
            return
        busy = {address: keys for address, keys in client.processing().items() if keys}
        address = sorted(busy)[0]
        killed.update(address=address, trials={int(key.split("-")[3]) for key in busy[address]})
        os.kill(pids[address], signal.SIGKILL)

    run = dist.solve_one(HARD, client=client, in_flight=4, on_trial=kill_a_busy_worker, **options)
    assert _answer(run.result) == _answer(alone)
    rerun = [t for t in run.trials if t.trial in killed["trials"]]
    assert rerun and all(t.worker != killed["address"] for t in rerun), "the killed worker's trials were not rerun"
    assert np.array_equal(run.result.solution, alone.solution)


@pytest.mark.slow
def test_solve_workers_on_the_command_line_prints_the_one_process_answer():
    """gpu-sa solve --workers 2: a local cluster for the run, the same JSON answer as one process."""
    import json

    from conftest import run_cli

    hard = PUZZLES["order3_hard"] + "\n"
    options = ("--method", "anneal", "--backend", "cpu", "--chains", "16", "--seed", "4", "--no-propagate", "--json",
               "--quiet")
    alone = run_cli("solve", "-", *options, stdin=hard)
    spread = run_cli("solve", "-", *options, "--workers", "2", stdin=hard)
    assert alone.returncode == spread.returncode == 0, spread.stderr
    keys = ("solved", "solution", "chain", "chain_moves", "trials", "seed")
    mine, theirs = json.loads(alone.stdout), json.loads(spread.stdout)
    assert {k: mine[k] for k in keys} == {k: theirs[k] for k in keys}
    refused = run_cli("solve", "-", *options, "--workers", "2", "--dask", "tcp://127.0.0.1:1", stdin=hard)
    assert refused.returncode == 2 and "exclude each other" in refused.stderr
