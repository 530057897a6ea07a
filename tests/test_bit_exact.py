"""The spine: every backend gives the same states, costs and accept counts on the same seeds.

``numpy`` (the reference) runs in this process; ``cpu`` too; ``cuda`` runs in its own
process (numba's CUDA simulator in CI, the real kernel where GPU_SA_TEST_REAL_CUDA=1).
"""
import numpy as np
import pytest

from chain_cases import CASES, STATE_FIELDS, backend_named, run_case

IDS = [case["id"] for case in CASES]


@pytest.fixture(scope="module")
def reference_results():
    return {case["id"]: run_case(backend_named("numpy"), case) for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_cpu_equals_numpy(case, reference_results):
    got = run_case(backend_named("cpu"), case)
    for name in STATE_FIELDS:
        np.testing.assert_array_equal(got[name], reference_results[case["id"]][name], err_msg=name)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_cuda_equals_numpy(case, reference_results, cuda_results):
    with np.load(cuda_results / (case["id"] + ".npz")) as got:
        for name in STATE_FIELDS:
            np.testing.assert_array_equal(got[name], reference_results[case["id"]][name], err_msg=name)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_cases_are_not_trivial(case, reference_results):
    """A comparison of states that never moved would prove nothing."""
    result = reference_results[case["id"]]
    moves = case["chunks"][-1][1]
    running = np.repeat(np.array(case.get("active", [1])) != 0, case["chains"])
    assert np.all(result["accepted"][running] > 0) and np.all(result["accepted"][running] < moves)
    assert np.any(result["best_move"] > 0)
    assert np.all(result["accepted"][~running] == 0), "a puzzle marked inactive moved"
    if case.get("replicas", 1) > 1:
        assert np.any(result["exchanges"] > 0), "no replica exchange was accepted"
        levels = result["level"].reshape(-1, case["replicas"])
        assert np.all(np.sort(levels, axis=1) == np.arange(case["replicas"])), "rungs are not a permutation per group"
