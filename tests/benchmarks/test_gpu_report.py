"""bench/gpu.sh, the one command that measures a GPU, checked here without one: its stages run end to end
on tiny workloads with the cuda backend in numba's simulator, and the report keeps its shape."""
import json
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT, background_result

sys.path.insert(0, str(ROOT / "bench"))
import gpu  # noqa: E402  (bench/gpu.py)

from .records import the_record  # noqa: E402


@pytest.fixture(scope="module")
def smoke_report():
    """bench/gpu.sh --smoke under NUMBA_ENABLE_CUDASIM=1 (no GPU here; the tests stage is left out: the
    bit-exact suite already runs the simulated kernels in this session), run in the background (conftest)."""
    folder, _ = background_result("smoke_report")
    return (folder / "report.md").read_text()


def section(report, stage):
    return report.split(f"\n## {stage}\n", 1)[1].split("\n## ", 1)[0]


def test_report_lists_every_stage_with_its_status(smoke_report):
    lines = smoke_report.splitlines()
    assert lines[0].startswith("# gpu-sa on none: NUMBA_ENABLE_CUDASIM=1")
    stages = [line.split(" | ")[0].lstrip("| ") for line in lines if line.startswith("| ") and " | budget s" not in
              line and line.split(" | ")[0].lstrip("| ") in gpu.STAGES]
    assert stages == ["env", "sass", "throughput", "tts"]
    for stage in ("env", "throughput", "tts"):
        assert f"| {stage} | done |" in smoke_report
    assert "| sass | done |" in smoke_report or "| sass | skipped: " in smoke_report


def test_environment_header(smoke_report):
    env = section(smoke_report, "env")
    for key in ("commit | abc1234", "| numpy |", "| numba |", "| numba_cuda |", "| cupy |", "| scipy |", "| gpu |",
                "| cores |"):
        assert key in env, key


def test_throughput_has_a_cpu_peer_for_every_cuda_row(smoke_report):
    rows = [line.split(" | ") for line in section(smoke_report, "throughput").splitlines()
            if line.startswith("| 16x16 |")]
    assert {(r[1], r[2]) for r in rows} == {("swap", "cuda"), ("swap", "cpu")}  # --smoke: order 4, one move
    for row in rows:
        ratio = row[-1].rstrip(" |")
        assert ratio == "-" if row[2] == "cpu" else float(ratio) > 0


def test_throughput_sweeps_tabus_chain_count(smoke_report):
    """Move tabu's rate per chain against the chain count, cuda beside the cpu backend (the first H200 filled the
    device with 135,168 tabu chains that made 45 moves a second each); --smoke: 9x9, 4 cuda and 2 cpu chains."""
    rows = [line.strip("| ").split(" | ") for line in section(smoke_report, "throughput").splitlines()
            if line.startswith("| 9x9 | tabu |")]
    assert [(r[2], r[3]) for r in rows] == [("cuda", "4"), ("cpu", "2")]
    for grid, move, backend, chains, moves, seconds, rate, per_chain, ratio in rows:
        assert float(per_chain) == pytest.approx(float(rate) / int(chains), rel=0.01)
        assert ratio == "-" if backend == "cpu" else float(ratio) > 0


def test_tts_compares_both_backends(smoke_report):
    body = section(smoke_report, "tts")
    assert "--backend cuda" in body and "--backend cpu" in body
    (row,) = [line for line in body.splitlines() if line.startswith("| forum_hardest_sample | swap | 200 |")]
    cells = row.strip("| ").split(" | ")
    assert cells[4] in ("0/1", "1/1")  # cuda: puzzles with p > 0
    assert len(cells) == 12


def test_the_smoke_run_writes_its_record(smoke_report, background_records):
    """The run's record: the stages' table as its rows, each stage's table as one of its tables (the numbers as
    numbers), the commit given, no GPU (the simulator is none); the stages' own benchmarks write none."""
    record = the_record(background_records, "gpu")
    assert record["command"].startswith("bench/gpu.sh --smoke --stages sass,throughput,tts --out ")
    assert record["command"].endswith("report.md")  # --commit: the record's own key
    assert (record["commit"], record["dirty"], record["device"]["gpu"]) == ("abc1234", False, None)
    statuses = {row["stage"]: row["status"] for row in record["rows"]}
    assert list(statuses) == ["env", "sass", "throughput", "tts"]
    assert statuses["env"] == statuses["throughput"] == statuses["tts"] == "done"
    tables = {table["name"]: table for table in record["tables"]}
    assert {"throughput", "tts"} <= set(tables)
    rows = tables["throughput"]["rows"]
    assert [(r["grid"], r["move"], r["backend"], r["chains"]) for r in rows] == [
        ("16x16", "swap", "cuda", 4), ("16x16", "swap", "cpu", 4), ("9x9", "tabu", "cuda", 4), ("9x9", "tabu", "cpu", 2)]
    assert all(isinstance(r["proposals/s"], float) for r in rows) and rows[1]["x cpu"] == "-"
    (tts,) = tables["tts"]["rows"]
    assert (tts["set"], tts["budget"]) == ("forum_hardest_sample", 200) and len(tts) == 12
    assert not any((background_records / name).exists() for name in ("throughput", "tts"))


def test_sass_section_holds_the_table(smoke_report):
    body = section(smoke_report, "sass")
    if "| sass | skipped: " in smoke_report:
        pytest.skip("the sass stage found no toolchain here: " + smoke_report.split("| sass | skipped: ")[1][:200])
    assert "| move " in body and re.search(r"\|\s+sirdey \|\s+advance \|", body)


def test_large_is_skipped_with_a_reason_when_absent(tmp_path, monkeypatch):
    monkeypatch.setattr(gpu, "BENCH", tmp_path)
    section_ = gpu.Section("large")
    gpu.stage_large({"plan": gpu.PLANS["smoke"], "env": {"real_gpu": True}}, section_, 10)
    assert section_.status.startswith("skipped: bench/large.py is not in this checkout")


def test_large_runs_36x36_alone_where_the_shared_instances_are_missing(tmp_path):
    help_text = "--budget --instances --sizes"
    options, note = gpu.large_options({"--budget": "5", "--instances": "1"}, help_text, tmp_path / "absent")
    assert options == ["--budget", "5", "--instances", "1", "--sizes", "36"]
    assert "GPU_SA_SHARED_DATA" in note and "absent" in note
    options, note = gpu.large_options({"--budget": "5"}, help_text, tmp_path)  # the folder exists
    assert options == ["--budget", "5"] and note is None


def test_sudoku_ls_joins_the_devices_run_when_it_came_with_the_checkout(tmp_path, monkeypatch):
    program = tmp_path / "Sudoku-LS"
    program.write_text("#!/bin/sh\n")
    help_text = "--set --budget --peers --sudoku-ls --backend --records"
    plan = gpu.PLANS["full"].large
    options, note = gpu.sudoku_ls_peer(plan, help_text, str(program))  # not executable yet
    assert options == [] and "not an executable file" in note
    program.chmod(0o755)
    assert gpu.sudoku_ls_peer(plan, help_text, str(program)) == (["--peers", "sudoku-ls", "--sudoku-ls", str(program)],
                                                                 None)
    monkeypatch.delenv("GPU_SA_SUDOKU_LS", raising=False)
    options, note = gpu.sudoku_ls_peer(plan, help_text)
    assert options == [] and "GPU_SA_SUDOKU_LS is not set" in note and "Measuring a GPU" in note
    assert gpu.sudoku_ls_peer({"--budget": "5"}, help_text, str(program)) == ([], None)  # not the Sudoku-LS set
    assert gpu.sudoku_ls_peer(plan, "--set --budget", str(program)) == ([], None)  # a large.py without the peer

    # the stage: the peer in the device's run only (the CPU's run would repeat its column)
    monkeypatch.setenv("GPU_SA_SUDOKU_LS", str(program))
    commands = []

    budgets = []

    def recorded(command, budget, env=None):
        commands.append(command)
        if "--help" not in command:
            budgets.append(budget)
        return gpu.Ran(command, 0, help_text if "--help" in command else "", "", 0.0)

    monkeypatch.setattr(gpu, "run", recorded)
    section_ = gpu.Section("large")
    gpu.stage_large({"plan": gpu.PLANS["full"], "env": {"real_gpu": True}}, section_, 90)
    runs = [command for command in commands if "--help" not in command]
    assert runs[0][1] == "bench/tabu_rate.py"  # first the rates, then the times to solution
    runs = runs[1:]
    assert [command[command.index("--backend") + 1] for command in runs] == ["cuda", "cpu"]
    assert runs[0][-4:] == ["--peers", "sudoku-ls", "--sudoku-ls", str(program)]
    assert "--peers" not in runs[1] and section_.status == "done"
    # each run records into a file of its own, fresh (bench/large.py would reuse the runs an old file holds)
    records = [command[command.index("--records") + 1] for command in runs]
    assert len(set(records)) == 2 and not any(os.path.exists(path) for path in records)
    # bench/tabu_rate.py gets at most half the stage; then the device's run, which carries the peer, two thirds of
    # what is left; the cpu run the rest (here all of it: the recorded runs took no time)
    assert budgets[0] == pytest.approx(45, abs=1)
    assert budgets[1] == pytest.approx(60, abs=1) and budgets[2] == pytest.approx(90, abs=1)


def test_the_shared_instances_folder_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("GPU_SA_SHARED_DATA", str(tmp_path))
    assert gpu.lloyd_amos_folder() == tmp_path / "sudoku" / "lloyd_amos"
    monkeypatch.delenv("GPU_SA_SHARED_DATA")
    assert gpu.lloyd_amos_folder() == gpu.ROOT.parent / "shared" / "data" / "sudoku" / "lloyd_amos"


def test_a_stage_past_its_budget_is_stopped():
    ran = gpu.run([sys.executable, "-c", "import time; time.sleep(60)"], budget=1)
    assert ran.returncode is None and ran.seconds < 30
    assert gpu.outcome(ran).startswith("stopped at its budget")


def test_a_broken_stage_keeps_the_others(tmp_path, monkeypatch):
    def broken(context, section, budget):
        raise KeyError("proposals_per_second")

    def fine(context, section, budget):
        section.status = "done"
        section.body.append("kept")

    monkeypatch.setitem(gpu.STAGE_FUNCTIONS, "env", fine)
    monkeypatch.setitem(gpu.STAGE_FUNCTIONS, "throughput", broken)
    monkeypatch.setitem(gpu.STAGE_FUNCTIONS, "tts", fine)
    out = tmp_path / "report.md"
    assert gpu.main(["--stages", "throughput,tts", "--out", str(out), "--results", str(tmp_path / "records")]) == 1
    report = out.read_text()
    assert "| throughput | failed: KeyError: 'proposals_per_second' |" in report
    assert "| tts | done |" in report and report.count("kept") == 2
    record = the_record(tmp_path / "records", "gpu")  # written again after each stage: one file, every stage
    assert [(row["stage"], row["status"]) for row in record["rows"]] == [
        ("env", "done"), ("throughput", "failed: KeyError: 'proposals_per_second'"), ("tts", "done")]
    assert record["command"] == f"bench/gpu.sh --stages throughput,tts --out {out}"


def test_speed_stages_are_skipped_without_cuda(monkeypatch):
    monkeypatch.delenv("NUMBA_ENABLE_CUDASIM", raising=False)
    for stage in ("throughput", "tts", "large"):
        section_ = gpu.Section(stage)
        gpu.STAGE_FUNCTIONS[stage]({"plan": gpu.PLANS["smoke"], "env": {"gpu": "none (no CUDA GPU or driver found)"}},
                                   section_, 10)
        assert section_.status == "skipped: the cuda backend cannot run here (none (no CUDA GPU or driver found))"


@pytest.mark.parametrize("args, message", [
    (["--stages", "env,bogus"], "unknown stage(s) bogus"),
    (["--quick", "--smoke", "--out", "r.md"], "exclude each other"),
    ([], "give --out REPORT.md, or set OUT"),
])
def test_bad_usage_exits_2(args, message):
    env = {key: value for key, value in os.environ.items() if key != "OUT"}
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "gpu.py"), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_an_unusable_gpu_fails_the_environment_stage():
    """The first H200 run found CUDA unusable (a numba-cuda incompatibility), ran the bit-exact cases in the
    simulator and exited 0. A driver that is present while the backend cannot use it now fails the env stage,
    and with it the run (exit 1); a machine without a GPU, or the simulator asked for, is not a failure."""
    unusable = {"gpu": "none (CUDA is present but unusable (AttributeError: ...))", "real_gpu": False, "unusable_gpu": True}
    assert gpu.env_status(unusable) == ("failed: an NVIDIA GPU is here but the cuda backend cannot use it: "
                                        "none (CUDA is present but unusable (AttributeError: ...))")
    assert gpu.env_status({"gpu": "none (no CUDA GPU or driver found)", "real_gpu": False, "unusable_gpu": False}) == "done"
    assert gpu.env_status({"gpu": "NVIDIA H200", "real_gpu": True, "unusable_gpu": False}) == "done"


def test_the_environment_says_whether_a_present_gpu_is_unusable(monkeypatch, capsys):
    """print_environment's unusable_gpu: a driver present and the backend unusable, the simulator not asked for."""
    from gpu_sa.engine import backends

    monkeypatch.setattr(backends, "nvidia_driver_present", lambda: True)
    monkeypatch.setattr(backends, "cuda_status", lambda: (False, False, "CUDA is present but unusable (X)"))
    gpu.print_environment()
    assert json.loads(capsys.readouterr().out)["unusable_gpu"] is True
    monkeypatch.setattr(backends, "cuda_status", lambda: (True, True, "NUMBA_ENABLE_CUDASIM=1: simulator"))
    gpu.print_environment()
    assert json.loads(capsys.readouterr().out)["unusable_gpu"] is False
    monkeypatch.setattr(backends, "nvidia_driver_present", lambda: False)
    monkeypatch.setattr(backends, "cuda_status", lambda: (False, False, "no CUDA GPU or driver found"))
    gpu.print_environment()
    assert json.loads(capsys.readouterr().out)["unusable_gpu"] is False


def test_the_commit_given_reaches_every_benchmark_header(monkeypatch):
    """On the H200 the copy's .git was stale, and bench/large.py's header named a commit four behind the tree it
    measured. GPU_SA_COMMIT (set by gpu.sh --commit for the stages' benchmarks) wins over git's answer."""
    import common

    monkeypatch.setenv("GPU_SA_COMMIT", "given-by-hand")
    assert common.environment()["commit"] == "given-by-hand"
    monkeypatch.delenv("GPU_SA_COMMIT")
    assert common.environment()["commit"] != "given-by-hand"


def test_the_large_stage_lists_each_run_with_where_it_ended(tmp_path):
    """The summary table gives solved counts and medians only; each run's line keeps where an unsolved run ended
    (our best cost, the peer's own clashes) and the chains and moves it took."""
    records = tmp_path / "cuda.jsonl"
    assert gpu.large_runs_table(records) == []  # no records: nothing
    runs = [dict(file="inst49x49_50_0.txt", method="anneal", backend="cuda", status="unsolved", seconds=15.23456,
                 cost=256, chains=135168, moves=681),
            dict(file="inst49x49_50_0.txt", method="sudoku-ls", status="unsolved", seconds=None, peer_clashes=3)]
    records.write_text("".join(json.dumps(run) + "\n" for run in runs))
    lines = gpu.large_runs_table(records)
    assert "| inst49x49_50_0.txt | anneal | cuda | unsolved | 15.235 | 256 | 135,168 | 681 |" in lines
    assert "| inst49x49_50_0.txt | sudoku-ls | - | unsolved | - | 3 | - | - |" in lines
    records.write_text("not json\n")
    assert gpu.large_runs_table(records) == []


def test_the_quick_run_fits_eight_minutes_of_a_lent_device():
    """The quick run's stage budgets add up to at most 450 s (with the machine's start and the report, under 8
    minutes); none is more than the full run's."""
    assert sum(gpu.BUDGETS["quick"].values()) <= gpu.QUICK_LIMIT <= 450
    assert all(gpu.BUDGETS["quick"][stage] <= gpu.BUDGETS["full"][stage] for stage in gpu.STAGES)
    assert set(gpu.BUDGETS["quick"]) == set(gpu.STAGES)


@pytest.mark.parametrize("mode", ["quick", "full"])
def test_the_large_stage_measures_tabus_rate_and_five_64x64_instances(mode):
    """Both layouts' moves per second at 49x49 and 64x64 (T = 1, the model's choice, 64) beside the cores, and the
    time to solution on five 64x64 instances at 50 % (cuda in the cooperative layout, then cpu)."""
    plan = gpu.PLANS[mode]
    rate = list(plan.tabu_rate)
    assert rate[rate.index("--sides") + 1] == "49,64" and rate[rate.index("--percent") + 1] == "50"
    assert rate[rate.index("--threads") + 1] == f"model,{gpu.COOPERATIVE_THREADS},256"
    assert int(rate[rate.index("--moves") + 1]) >= 1_000_000 and "--backends" not in rate  # cpu-1, cpu and cuda
    assert 0 < plan.tabu_rate_seconds <= gpu.BUDGETS[mode]["large"] * gpu.TABU_RATE_SHARE
    assert "64:50" in plan.large["--cells"].split(",") and plan.large["--indices"] == "0-4"
    assert plan.large["--set"] == "sudoku-ls" and plan.large["--variant"] == "anneal=--method anneal"


def test_the_large_stage_asks_for_the_cooperative_layout_where_solve_takes_it(tmp_path, monkeypatch):
    help_text = "--set --budget --backend --records --no-warmup --cells --indices --variant --methods --grace"
    commands = []

    def recorded(command, budget, env=None):
        commands.append(command)
        if command[1:4] == ["-m", "gpu_sa", "solve"]:
            return gpu.Ran(command, 0, "--threads-per-chain {1,32,64,128,256}", "", 0.0)
        if "--help" in command:
            return gpu.Ran(command, 0, help_text, "", 0.0)
        if command[1] == "bench/tabu_rate.py":
            rows = [dict(side=64, backend="cpu", layout="all cores", threads_per_chain=1, chosen="-", chains=16,
                         moves=16_000_000, seconds=2.0, moves_per_second=8e6, moves_per_second_per_chain=5e5,
                         status="measured"),
                    dict(side=64, backend="cuda", layout="block", threads_per_chain=64, chosen="asked = model",
                         chains=1000, moves=4e7, seconds=4.0, moves_per_second=1e7, moves_per_second_per_chain=1e4,
                         status="measured"),
                    dict(side=64, backend="cuda", layout="thread", threads_per_chain=1, chosen="asked", chains=None,
                         moves=None, seconds=None, moves_per_second=None, moves_per_second_per_chain=None,
                         status="failed: CudaAPIError: out of memory")]
            return gpu.Ran(command, 0, "".join(json.dumps(row) + "\n" for row in rows), "", 0.0)
        return gpu.Ran(command, 0, "", "", 0.0)

    monkeypatch.setattr(gpu, "run", recorded)
    monkeypatch.delenv("GPU_SA_SUDOKU_LS", raising=False)
    context = {"plan": gpu.PLANS["quick"], "env": {"real_gpu": True}}
    section_ = gpu.Section("large")
    gpu.stage_large(context, section_, 205)
    large_runs = [c for c in commands if c[1] == "bench/large.py" and "--help" not in c]
    cuda, cpu = (c[c.index("--variant") + 1] for c in large_runs)
    assert cuda == "anneal=--method anneal --threads-per-chain 64" and cpu == "anneal=--method anneal"
    assert all("--no-warmup" in c for c in large_runs)  # tabu_rate.py compiled the kernels just before
    assert section_.status == "done"
    table = context["tables"]["tabu rate"]
    assert [(r["backend"], r["T"], r["x cpu cores"]) for r in table["rows"]] == [
        ("cpu", 1, "-"), ("cuda", 64, 1.25), ("cuda", 1, "-")]
    assert table["rows"][2]["status"] == "failed: CudaAPIError: out of memory"
    body = "\n".join(section_.body)
    assert "| 64x64 | cuda | block | 64 | asked = model |" in body


def test_the_large_stage_runs_what_it_has(tmp_path, monkeypatch):
    """Without bench/tabu_rate.py the times to solution still run, and the status says what was skipped; a gpu-sa
    without --threads-per-chain runs the model's layout, and the report says so."""
    (tmp_path / "large.py").write_text("")
    monkeypatch.setattr(gpu, "BENCH", tmp_path)
    monkeypatch.delenv("GPU_SA_SUDOKU_LS", raising=False)
    commands = []

    def recorded(command, budget, env=None):
        commands.append(command)
        return gpu.Ran(command, 0, "--set --budget --backend --variant --cells --indices" if "--help" in command
                       else "", "", 0.0)

    monkeypatch.setattr(gpu, "run", recorded)
    section_ = gpu.Section("large")
    gpu.stage_large({"plan": gpu.PLANS["quick"], "env": {"real_gpu": True}}, section_, 100)
    assert section_.status == "done; skipped: bench/tabu_rate.py is not in this checkout"
    assert not any("bench/tabu_rate.py" in c for c in commands)
    large_runs = [c for c in commands if c[1] == "bench/large.py" and "--help" not in c]
    assert [c[c.index("--variant") + 1] for c in large_runs] == ["anneal=--method anneal"] * 2
    assert "takes no --threads-per-chain" in "\n".join(section_.body)


def test_the_variants_options_take_the_layout():
    options = ["--set", "sudoku-ls", "--variant", "anneal=--method anneal", "--budget", "6"]
    assert gpu.with_variant_options(options, ["--threads-per-chain", "64"]) == [
        "--set", "sudoku-ls", "--variant", "anneal=--method anneal --threads-per-chain 64", "--budget", "6"]
    assert gpu.with_variant_options(options, []) == options
    assert gpu.with_variant_options(["--budget", "6"], ["--threads-per-chain", "64"]) == ["--budget", "6"]
