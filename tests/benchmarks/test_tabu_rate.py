"""bench/tabu_rate.py: move tabu's moves per second per backend and layout, on tiny budgets. The cpu rows run for
real (one core, every core); the cuda rows in numba's simulator, and say they were skipped where no GPU is usable."""
import json
import subprocess
import sys

import pytest
from conftest import ROOT, python_env

sys.path.insert(0, str(ROOT / "bench"))
import common  # noqa: E402  (bench/ is not a package)
import tabu_rate  # noqa: E402

from gpu_sa.engine import backends, runner  # noqa: E402

from .records import the_record  # noqa: E402


def run_script(args, tmp_path, *, simulator=False):
    env = python_env()
    if simulator:
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    else:
        env.pop("NUMBA_ENABLE_CUDASIM", None)
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "tabu_rate.py"), *args, "--json",
                           "--results", str(tmp_path)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    record = the_record(tmp_path, "tabu_rate")
    assert record["columns"] == tabu_rate.COLUMNS
    assert [common.plain(line) for line in lines] == record["rows"]  # printed as measured, then recorded
    return record


def check_rate(row):
    assert row["status"] == "measured"
    assert row["moves_per_second"] == pytest.approx(row["moves"] / row["seconds"], rel=1e-3)
    assert row["moves_per_second_per_chain"] == pytest.approx(row["moves_per_second"] / row["chains"], rel=1e-3)
    assert row["moves_per_chain"] == row["moves"] // row["chains"]


def test_the_cpu_rows_one_core_and_every_core(tmp_path):
    """One chain on one core for at least --moves moves, then one chain per core; the cuda rows measured on a GPU,
    else kept with the reason they were skipped."""
    record = run_script(["--sides", "36", "--moves", "2000", "--seconds", "0.2", "--cuda-moves", "2",
                         "--cuda-chains", "2"], tmp_path)
    rows = record["rows"]
    assert [(r["backend"], r["layout"], r["threads_per_chain"]) for r in rows] == [
        ("cpu", "one core", 1), ("cpu", "all cores", 1), ("cuda", "thread", 1), ("cuda", "block", 64)]
    one, every, *cuda = rows
    cores = backends.available_cores()
    assert (one["cores"], one["chains"], every["cores"], every["chains"]) == (1, 1, cores, cores)
    for row in (one, every):
        check_rate(row)
        assert row["device"] == record["device"]["cpu"]
        assert (row["instance"], row["side"]) == ("inst36x36_50_0.txt", 36)
        assert row["moves_per_chain"] >= 2000 or row["solved"] > 0  # a solution ends a run early: its moves count
    usable, simulated, why = backends.cuda_status()
    for row in cuda:
        if usable and not simulated:
            check_rate(row)
        else:
            assert row["status"] == f"skipped: no usable CUDA GPU ({why})" and row["moves_per_second"] is None
    assert record["command"] == ("python bench/tabu_rate.py --sides 36 --moves 2000 --seconds 0.2 --cuda-moves 2 "
                                 "--cuda-chains 2 --json")
    assert "at the start" in record["settings"]["load_average"]
    assert any(note.startswith("load average at the end: ") for note in record["notes"])


def test_the_cuda_layouts_in_the_simulator(tmp_path):
    """Each layout a row: T = 1, and each of --threads; 'model' (the backend's own choice) is measured once with
    the T it resolves to, and says so."""
    record = run_script(["--sides", "36", "--backends", "cuda", "--cuda-chains", "2", "--cuda-moves", "2",
                         "--threads", "model,32"], tmp_path, simulator=True)
    rows = record["rows"]
    assert [r["threads_per_chain"] for r in rows][:1] == [1] and 32 in [r["threads_per_chain"] for r in rows]
    assert len({r["threads_per_chain"] for r in rows}) == len(rows)  # a layout asked twice is measured once
    assert sum("model" in r["chosen"] for r in rows) == 1
    for row in rows:
        check_rate(row)
        assert (row["device"], row["backend"], row["chains"], row["moves"]) == ("numba CUDA simulator", "cuda", 2, 4)
        assert row["layout"] == ("thread" if row["threads_per_chain"] == 1 else "block")
    assert record["device"]["gpu"] is None  # the simulator is no GPU
    assert any("simulator" in note for note in record["notes"])


def test_a_solved_run_counts_the_moves_made_not_those_counted(monkeypatch):
    """A chain of move tabu that solved the instance makes no more moves, while the runner counts a chunk's moves:
    the solving chain counts up to its solution. 25x25 at 50 %: the rules leave a few moves to make."""
    puzzle = tabu_rate.gpu_sa.parse(tabu_rate.instance_path(25, 50, 0).read_text())[0]
    backend = backends.CpuBackend(threads=1)
    reference = runner.anneal(puzzle, move="tabu", backend=backend, chains=1, seed=1, max_moves=50, trials=1)
    assert reference.solved and reference.chain_moves + 1 < reference.moves
    measured = tabu_rate.measure(puzzle, backend, 1, moves=50, seconds=None, seed=1, warm_moves=10)
    assert (measured["runs"], measured["solved"], measured["moves"]) == (1, 1, reference.chain_moves + 1)
    assert measured["seconds"] > 0


@pytest.mark.parametrize("args, message", [
    (["--threads", "1"], "T = 1 always runs"),
    (["--threads", "48"], "one of 32, 64, 128, 256"),
    (["--backends", "gpu"], "choose among cpu-1, cpu, cuda"),
    (["--sides", "37"], "no such instance"),
    (["--moves", "0"], "must be positive"),
])
def test_bad_usage_exits_2(args, message, capsys):
    with pytest.raises(SystemExit) as stopped:
        tabu_rate.main([*args, "--results", "-"])
    assert stopped.value.code == 2 and message in capsys.readouterr().err


def test_help_explains_every_option():
    text = subprocess.run([sys.executable, str(ROOT / "bench" / "tabu_rate.py"), "--help"], cwd=ROOT,
                          env={**python_env(), "COLUMNS": "200"}, capture_output=True, text=True, timeout=60).stdout
    options = [line.split()[0] for line in text.split("options:", 1)[1].splitlines() if line.strip().startswith("--")]
    assert set(options) >= {"--sides", "--percent", "--index", "--file", "--backends", "--threads", "--moves",
                            "--seconds", "--cuda-moves", "--cuda-chains", "--cpu-threads", "--seed", "--json", "--results"}
    assert "How a rate is measured" in text
