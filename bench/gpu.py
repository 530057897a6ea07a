"""Measure a GPU in one command: real-CUDA tests, throughput, time to solution, large grids, SASS; one report.

    bench/gpu.sh [--quick] [--stages env,sass,tests,throughput,tts,large] [--out REPORT.md] [--commit HASH]
                 [--results DIR]

Needs only this repository and the machine's python3 with numba, numba-cuda, NumPy, SciPy and pytest:
nothing is installed or downloaded, and every puzzle it uses is inside the repository (bench/data/,
tests/data/). The report goes to ``--out``, else to ``$OUT/gpu-report.md``; it is rewritten after every
stage, so a run stopped halfway still leaves the stages it finished. So is the run's record (bench/common.py's
format: the stages' table as its rows, each stage's table as one of its tables, named by the stage), which goes
beside the report, in ``results/gpu/`` of the report's folder (``--results DIR``, or $GPU_SA_BENCH_RESULTS,
elsewhere): on a lent device that folder is what comes back, and its records are copied into bench/results/.
The benchmarks the stages start write no records of their own: their tables are in this one.

Stages (``env`` always runs first):
  env         GPU, driver, CUDA runtime, compute capability, SMs, library versions, commit
  sass        bench/sass.py for the device's compute capability (static: registers, loops, occupancy)
  tests       GPU_SA_TEST_REAL_CUDA=1 python3 -m pytest: the bit-exact cases run the real kernels
              (``--quick``: the tests named cuda only, those that run kernels)
  throughput  bench/throughput.py, orders 3, 4, 5, moves sirdey and swap, backends cuda and cpu; then move tabu
              at 49x49 with 1,024 to 131,072 cuda chains beside 16 cpu chains (the rate per chain)
  tts         bench/tts.py on samples of the hard 9x9 sets (bench/data/), cuda then cpu
  large       bench/tabu_rate.py: move tabu's moves per second at 49x49 and 64x64, cuda in each layout (one thread
              per chain, the model's choice, a block of 64 threads per chain) beside the cpu backend on one core
              and on every core; then bench/large.py: time to solution of --method anneal (move tabu) on five of
              Sudoku-LS's 64x64 instances at 50 % givens (49x49 too in the full run), cuda in the cooperative
              layout (the device filled with chains, with Sudoku-LS in the same run when GPU_SA_SUDOKU_LS names
              its program) then cpu on this machine's cores, every answer validated

Every speed figure has its peer from the same run: the ``cpu`` backend on this machine's own cores.
Each stage has a time budget (``--quick``: 450 s in all, under 8 minutes of a lent device's time with its start
and the report; the full run about 75 minutes); a stage that overruns is stopped and reported as such.
``--smoke`` runs every stage on a tiny problem: for checking this script itself, even under
NUMBA_ENABLE_CUDASIM=1 with no GPU.
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
import common  # noqa: E402  (bench/common.py: only the standard library at import)

STAGES = ("env", "sass", "tests", "throughput", "tts", "large")

# Seconds per stage. The quick run's budgets add up to 450 s, so that with the machine's start, the report and the
# stages' own overruns (each is stopped at its budget) it stays under 8 minutes of a lent device's time. Measured:
# on the first H200 the quick stages took 2 s (env), 57 s (tests), 28 s (throughput, before the tabu sweep) and
# 26 s (tts); bench/sass.py takes about 22 s on a 2-core CPU (it compiles, runs nothing). Hence env 15, sass 35,
# tests 75, tts 35; throughput 85: the 28 s plus the tabu sweep, trimmed to two chain counts and 337 moves per
# chain (its 131,072-chain run, at 45 moves a second per chain, about 8 s, and two 20-move numpy checks of about
# 9 s each). The large stage gets the rest, 205 s: bench/tabu_rate.py at most 95 s (two grids: one core and every
# core for 10^6 moves per chain, a few seconds each; three cuda layouts, T = 1, the model's choice and 64, 3 s each
# after a set-up of seconds), then bench/large.py on five 64x64 instances at 6 s each, cuda then cpu, about 50 s
# each with the processes' start.
BUDGETS = {
    "full": dict(env=60, sass=180, tests=900, throughput=600, tts=900, large=1800),
    "quick": dict(env=15, sass=35, tests=75, throughput=85, tts=35, large=205),
    "smoke": dict(env=60, sass=120, tests=300, throughput=240, tts=240, large=120),
}
QUICK_LIMIT = 450  # seconds: the quick run's stage budgets together at most (tests/benchmarks checks it)


@dataclass(frozen=True)
class Plan:
    """What each stage runs, per mode."""

    tests: list  # pytest arguments after -q
    orders: tuple
    throughput: list  # extra bench/throughput.py arguments
    tts_sets: tuple  # (file, puzzles)
    tts_moves: str
    tts_budgets: str
    tts_chains: dict  # backend -> chains
    large: dict  # option -> value, passed when bench/large.py --help lists the option
    sass_moves: str | None
    # move tabu's rate against its chain count (order, moves per chain at order 3, cuda chains, cpu chains): the
    # first H200 run filled the device with 135,168 tabu chains at 49x49 that made 45 moves a second each; this
    # says whether fewer chains run faster, and what the same machine's cores do
    tabu_sweep: tuple | None = None
    # the large stage's first part: bench/tabu_rate.py's arguments (move tabu's moves per second per layout, beside
    # the machine's cores), and the most seconds of the stage it may take (the rest goes to bench/large.py)
    tabu_rate: tuple = ()
    tabu_rate_seconds: float = 0.0
    # bench/large.py's own warm-up runs (one per method and size, 5 s each): without them where bench/tabu_rate.py
    # ran just before, having compiled the same kernels into numba's cache on disk (the quick run's time is short)
    large_warm_up: bool = True


# The large stage: the annealer alone (move tabu from 25x25) on Sudoku-LS's instances, which the repository holds
# (bench/data/sudoku_ls), cuda with its default chains (the device filled) in the cooperative layout
# (COOPERATIVE_THREADS, where gpu-sa solve takes --threads-per-chain), then cpu on this machine's cores. Five
# instances of 64x64 at 50 % givens, the development ones (0-4: bench/data/sudoku_ls/README.md keeps 20-29 for
# the comparison's table)
LARGE_LOCAL_SEARCH = {"--set": "sudoku-ls", "--methods": "", "--variant": "anneal=--method anneal",
                      "--indices": "0-4"}
COOPERATIVE_THREADS = 64  # the cooperative layout the large stage's cuda run asks for, and tabu_rate measures
# move tabu's rate at both grids of the large stage, T = 1, the model's choice (the most moves per device), T = 64
# and T = 256 (the fewest chains, each the fastest: the model's trade-off, measured), beside the cores
TABU_RATE = ("--sides", "49,64", "--percent", "50", "--index", "0", "--threads",
             f"model,{COOPERATIVE_THREADS},256", "--moves", "1000000")

PLANS = {
    "full": Plan(tests=[], orders=(3, 4, 5), throughput=[],
                 tts_sets=(("bench/data/forum_hardest_sample.txt", 10), ("bench/data/17_clue_sample.txt", 10)),
                 tts_moves="swap,sirdey", tts_budgets="3e4,1e5,3e5,1e6", tts_chains={"cuda": 1 << 14, "cpu": 256},
                 large=dict(LARGE_LOCAL_SEARCH, **{"--cells": "49:50=20,64:50", "--budget": "60"}), sass_moves=None,
                 tabu_sweep=(7, 20_000, (1024, 8192, 32768, 131072), (16,)),
                 tabu_rate=TABU_RATE + ("--seconds", "20"), tabu_rate_seconds=240),
    "quick": Plan(tests=["-k", "cuda and not gpu_report"], orders=(3, 4, 5), throughput=["--moves-per-chain", "50000"],
                  tts_sets=(("bench/data/forum_hardest_sample.txt", 5),), tts_moves="swap",
                  tts_budgets="1e5,3e5", tts_chains={"cuda": 1 << 14, "cpu": 256},
                  large=dict(LARGE_LOCAL_SEARCH, **{"--cells": "64:50", "--budget": "6", "--grace": "20"}),
                  sass_moves=None, tabu_sweep=(7, 10_000, (1024, 131072), (16,)),
                  tabu_rate=TABU_RATE + ("--seconds", "3"), tabu_rate_seconds=95, large_warm_up=False),
    "smoke": Plan(tests=["-k", "cuda_equals_numpy and order2-seed1"], orders=(4,),
                  throughput=["--moves", "swap", "--moves-per-chain", "20", "--chains", "4"],
                  tts_sets=(("bench/data/forum_hardest_sample.txt", 1),), tts_moves="swap", tts_budgets="200",
                  tts_chains={"cuda": 4, "cpu": 4},
                  large=dict(LARGE_LOCAL_SEARCH, **{"--cells": "25:50", "--indices": "0", "--budget": "5",
                                                    "--grace": "60"}),
                  sass_moves="sirdey", tabu_sweep=(3, 20, (4,), (2,)),
                  tabu_rate=("--sides", "36", "--threads", "model", "--moves", "200", "--cuda-moves", "2",
                             "--cuda-chains", "2", "--seconds", "1"), tabu_rate_seconds=40, large_warm_up=False),
}


@dataclass
class Section:
    stage: str
    status: str = "not run"
    seconds: float = 0.0
    budget: float = 0.0
    body: list = field(default_factory=list)  # Markdown lines


@dataclass
class Ran:
    command: list
    returncode: int | None  # None: stopped at its budget
    stdout: str
    stderr: str
    seconds: float

    @property
    def shown(self):
        shown = ["python3" if part == sys.executable else part for part in self.command]
        return " ".join(shlex.quote(part) for part in shown)


def run(command, budget, env=None) -> Ran:
    """Run ``command`` in the repository root, in its own process group, for at most ``budget`` seconds."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=max(1.0, budget))
        code = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the stage's whole tree: pytest's workers, the cuda worker
        stdout, stderr = process.communicate()
        code = None
    return Ran(command, code, stdout, stderr, time.perf_counter() - start)


def base_env(*, real_cuda: bool):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["PYTHONUNBUFFERED"] = "1"
    env[common.RESULTS_VARIABLE] = "-"  # the stages' benchmarks write no record: their tables are in gpu.py's
    if real_cuda:
        env["GPU_SA_TEST_REAL_CUDA"] = "1"
    return env


def tail(text, lines=40):
    kept = text.strip().splitlines()
    return "\n".join((["..."] if len(kept) > lines else []) + kept[-lines:])


def fenced(text):
    return ["```text", text, "```"] if text.strip() else []


def json_rows(text):
    rows = []
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return rows


def outcome(ran: Ran, what="") -> str:
    if ran.returncode is None:
        return f"stopped at its budget ({ran.seconds:.0f} s){what}"
    if ran.returncode != 0:
        return f"failed (exit {ran.returncode}){what}"
    return f"done{what}"


# ---------------------------------------------------------------------------------------------------
# Stages
# ---------------------------------------------------------------------------------------------------

def stage_env(context, section, budget):
    ran = run([sys.executable, str(BENCH / "gpu.py"), "--print-environment"], budget, base_env(real_cuda=False))
    rows = json_rows(ran.stdout)
    if ran.returncode != 0 or not rows:
        section.status = outcome(ran)
        section.body += fenced(tail(ran.stderr))
        context["env"] = {}
        return
    info = rows[0]
    context["env"] = info
    section.status = env_status(info)
    section.body += ["| | |", "|---|---|", *(f"| {key} | {value} |" for key, value in info.items())]


def env_status(info) -> str:
    """'done', or a failure where an NVIDIA GPU is on the machine but the cuda backend cannot use it: the first
    H200 run reported that as done, the bit-exact cases ran in the simulator and exited 0, and three of the 15
    minutes lent went to finding out (numba-cuda and NumPy incompatibilities, since fixed)."""
    if info.get("unusable_gpu"):
        return f"failed: an NVIDIA GPU is here but the cuda backend cannot use it: {info.get('gpu', 'no reason given')}"
    return "done"


def stage_sass(context, section, budget):
    env = base_env(real_cuda=False)
    env.pop("NUMBA_ENABLE_CUDASIM", None)  # the compiler, not the simulator
    from sass import ARCHITECTURES

    cc = context["env"].get("compute_capability", "")
    cc = cc if cc in {f"{major}.{minor}" for major, minor in ARCHITECTURES} else "9.0"
    command = [sys.executable, "bench/sass.py", "--cc", cc]
    if context["plan"].sass_moves:
        command += ["--moves", context["plan"].sass_moves]
    ran = run(command, budget, env)
    section.body += [f"Command: `{ran.shown}` (static: compiled for sm_{cc.replace('.', '')}, no kernel runs)", ""]
    if ran.returncode == 2 and "error:" in ran.stderr:
        section.status = "skipped: " + ran.stderr.strip().splitlines()[-1]
        return
    section.status = outcome(ran)
    table = [line for line in ran.stdout.splitlines() if line.startswith("|")]
    tools = [line.strip("# ").strip() for line in ran.stdout.splitlines()
             if re.match(r"#\s+(nvvm|ptxas|nvdisasm):", line)]
    section.body += ([f"Tools: {', '.join(tools)}", ""] if tools else []) + table
    if table:
        context.setdefault("tables", {})["sass"] = markdown_rows(table)
    if ran.returncode != 0:
        section.body += fenced(tail(ran.stderr))


def stage_tests(context, section, budget):
    real = context["env"].get("real_gpu", False)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *context["plan"].tests]
    ran = run(command, budget, base_env(real_cuda=real))
    summary = [line for line in ran.stdout.splitlines() if re.search(r"\d+ (passed|failed|error)", line)]
    where = "real kernels on the GPU" if real else "no GPU: the cuda cases ran in the simulator"
    section.status = outcome(ran, f": {summary[-1].strip('= ')}" if summary else "")
    context.setdefault("notes", []).append(f"tests ({where}): {section.status}")
    section.body += [f"Command: `{'GPU_SA_TEST_REAL_CUDA=1 ' if real else ''}{ran.shown}` ({where})", ""]
    section.body += fenced(tail(ran.stdout, 30 if ran.returncode else 8))


def no_cuda(context):
    """Why the cuda backend cannot run here, or None (a GPU, or the simulator for a smoke test)."""
    if context["env"].get("real_gpu") or os.environ.get("NUMBA_ENABLE_CUDASIM") == "1":
        return None
    return f"skipped: the cuda backend cannot run here ({context['env'].get('gpu', 'no GPU')})"


def stage_throughput(context, section, budget):
    if no_cuda(context):
        section.status = no_cuda(context)
        return
    deadline = time.perf_counter() + budget
    rows, statuses = [], []
    commands = [[sys.executable, "bench/throughput.py", "--backends", "cuda,cpu", "--orders", str(order),
                 "--json", *context["plan"].throughput] for order in context["plan"].orders]
    if context["plan"].tabu_sweep:
        order, moves, cuda_chains, cpu_chains = context["plan"].tabu_sweep
        commands += [[sys.executable, "bench/throughput.py", "--backends", backend, "--orders", str(order),
                      "--moves", "tabu", "--chains", *map(str, chains), "--moves-per-chain", str(moves), "--json"]
                     for backend, chains in (("cuda", cuda_chains), ("cpu", cpu_chains))]
    for command in commands:
        ran = run(command, deadline - time.perf_counter(), base_env(real_cuda=False))
        section.body += [f"Command: `{ran.shown}`: {outcome(ran)}"]
        if ran.returncode != 0:
            section.body += fenced(tail(ran.stderr, 15))
        rows += json_rows(ran.stdout)
        statuses.append(ran.returncode)
        if ran.returncode is None:
            break
    section.status = _combined(statuses, len(commands))
    section.body += ["", "Constant T = 0.5, no early stop; every backend first verified bit for bit against the "
                     "numpy reference by the script. x cpu = cuda / the best cpu rate for that grid and move; "
                     "per chain = proposals/s / chains (move tabu: how fast one chain's search goes).", ""]
    columns = ["grid", "move", "backend", "chains", "moves/chain", "seconds", "proposals/s", "per chain", "x cpu"]
    section.body += markdown_table(
        columns,
        [[f"{r['order'] ** 2}x{r['order'] ** 2}", r["move"], r["backend"], f"{r['chains']:,}", f"{r['moves']:,}",
          f"{r['seconds']:.3f}", f"{r['proposals_per_second']:.3g}", f"{r['proposals_per_second'] / r['chains']:.3g}",
          _ratio(r, rows)] for r in rows])
    keep_table(context, "throughput", columns,
               [[f"{r['order'] ** 2}x{r['order'] ** 2}", r["move"], r["backend"], r["chains"], r["moves"], r["seconds"],
                 r["proposals_per_second"], r["proposals_per_second"] / r["chains"], _ratio(r, rows)] for r in rows])


def _ratio(row, rows):
    if row["backend"] == "cpu":
        return "-"
    peers = [q["proposals_per_second"] for q in rows if q["backend"] == "cpu" and q["order"] == row["order"]
             and q["move"] == row["move"]]
    if not peers:
        return "no cpu peer"
    if max(peers) <= 0 or row["proposals_per_second"] <= 0:
        return "no moves made"  # e.g. propagation solved the puzzle before annealing
    return f"{row['proposals_per_second'] / max(peers):.3g}"


def stage_tts(context, section, budget):
    if no_cuda(context):
        section.status = no_cuda(context)
        return
    plan = context["plan"]
    deadline = time.perf_counter() + budget
    statuses, rows = [], []
    runs = [(path, sample, backend) for path, sample in plan.tts_sets for backend in ("cuda", "cpu")]
    for path, sample, backend in runs:
        command = [sys.executable, "bench/tts.py", "--set", path, "--sample", str(sample), "--moves", plan.tts_moves,
                   "--budgets", plan.tts_budgets, "--backend", backend, "--chains", str(plan.tts_chains[backend]),
                   "--json"]
        ran = run(command, deadline - time.perf_counter(), base_env(real_cuda=False))
        section.body += [f"Command: `{ran.shown}`: {outcome(ran)}"]
        if ran.returncode != 0:
            section.body += fenced(tail(ran.stderr, 15))
        rows += [{**r, "backend": backend} for r in json_rows(ran.stdout)]
        statuses.append(ran.returncode)
        if ran.returncode is None:
            break
    section.status = _combined(statuses, len(runs))
    section.body += ["", "Per set, move and budget (moves per chain): median over the puzzles of TTS99 in seconds "
                     "(TTS99 chain-moves / the run's proposals per second), puzzles with p > 0, median p; "
                     "cpu/cuda = how many times sooner cuda reaches 99 %.", ""]
    table = []
    for path, move, budget_moves in sorted({(r["set"], r["move"], r["budget"]) for r in rows}):
        row = [Path(path).stem, move, f"{budget_moves:,}"]
        medians = {}
        for backend in ("cuda", "cpu"):
            group = [r for r in rows if (r["set"], r["move"], r["budget"], r["backend"]) ==
                     (path, move, budget_moves, backend)]
            if not group:
                row += ["-", "-", "-", "-"]
                continue
            medians[backend] = statistics.median(r["tts99_seconds"] for r in group)
            row += [_seconds(medians[backend]), f"{sum(r['p'] > 0 for r in group)}/{len(group)}",
                    f"{statistics.median(r['p'] for r in group):.3f}", f"{statistics.median(r['rate'] for r in group):.3g}"]
        both = medians.get("cuda"), medians.get("cpu")
        row.append(f"{both[1] / both[0]:.1f}" if all(b is not None and math.isfinite(b) and b > 0 for b in both) else "-")
        table.append(row)
    columns = ["set", "move", "budget", "cuda TTS99 s", "cuda solved", "cuda p", "cuda prop/s", "cpu TTS99 s",
               "cpu solved", "cpu p", "cpu prop/s", "cpu/cuda"]
    section.body += markdown_table(columns, table)
    keep_table(context, "tts", columns, table)


def _seconds(value):
    return "inf" if not math.isfinite(value) else f"{value:.3g}"


def stage_large(context, section, budget):
    """Two parts: move tabu's moves per second per layout beside this machine's cores (bench/tabu_rate.py), then
    time to solution on Sudoku-LS's large instances, cuda against cpu (bench/large.py). Each part that cannot run
    here (its script absent) is skipped with its reason; the other still runs."""
    if no_cuda(context):
        section.status = no_cuda(context)
        return
    deadline = time.perf_counter() + budget
    plan = context["plan"]
    statuses, skipped = [], []
    rate = None
    if not plan.tabu_rate:
        skipped.append("this run's plan measures no tabu rate")
    elif not (BENCH / "tabu_rate.py").exists():
        skipped.append("bench/tabu_rate.py is not in this checkout")
    else:
        rate = _tabu_rate(context, section, min(plan.tabu_rate_seconds, budget * TABU_RATE_SHARE))
        statuses.append(rate)
    if not (BENCH / "large.py").exists():
        skipped.insert(0, "bench/large.py is not in this checkout")
    else:
        statuses += _large_runs(context, section, deadline, warmed=rate == 0)
    if not statuses:
        section.status = "skipped: " + "; ".join(skipped)
        return
    section.status = _combined(statuses, len(statuses)) + ("; skipped: " + "; ".join(skipped) if skipped else "")


TABU_RATE_SHARE = 0.5  # of the large stage's budget at most, for bench/tabu_rate.py (the plan's seconds are less)
TABU_RATE_COLUMNS = ["grid", "backend", "layout", "T", "chosen", "chains", "moves", "seconds", "moves/s", "per chain",
                     "x cpu cores", "status"]


def _tabu_rate(context, section, budget):
    """bench/tabu_rate.py on this plan's grids: its rows (JSON lines, printed as each is measured, so that a run
    stopped at its budget keeps those it finished) as the report's table and the record's "tabu rate" table; the
    run's return code (None: stopped at its budget)."""
    command = [sys.executable, "bench/tabu_rate.py", *context["plan"].tabu_rate, "--json"]
    ran = run(command, budget, base_env(real_cuda=False))
    section.body += [f"Command: `{ran.shown}`: {outcome(ran)}", ""]
    if ran.returncode != 0:
        section.body += fenced(tail(ran.stderr, 15))
    rows = [r for r in json_rows(ran.stdout) if "moves_per_second" in r]
    section.body += ["Move tabu's moves per second (moves made / seconds of advance, compilation and set-up "
                     "excluded): T = threads per chain (1: one thread per chain; more: a block per chain); chosen: "
                     "asked, or the model's choice (threads_per_chain None); x cpu cores = the row's rate / the rate "
                     "of every core of this machine, one chain per core, on the same grid.", ""]
    table = [_tabu_rate_row(r, rows) for r in rows]
    section.body += markdown_table(TABU_RATE_COLUMNS, [[_shown(cell) for cell in row] for row in table]) + [""]
    keep_table(context, "tabu rate", TABU_RATE_COLUMNS, table)
    return ran.returncode


def _tabu_rate_row(row, rows):
    cores = next((r["moves_per_second"] for r in rows if r["backend"] == "cpu" and r["layout"] == "all cores"
                  and r["side"] == row["side"] and r["moves_per_second"]), None)
    ratio = "-"
    if row["backend"] == "cuda" and row["moves_per_second"]:
        ratio = f"{row['moves_per_second'] / cores:.3g}" if cores else "no cpu peer"
    rate, per_chain = row["moves_per_second"], row["moves_per_second_per_chain"]
    return [f"{row['side']}x{row['side']}", row["backend"], row["layout"], row["threads_per_chain"], row["chosen"],
            row["chains"], row["moves"], row["seconds"], None if rate is None else float(f"{rate:.4g}"),
            None if per_chain is None else float(f"{per_chain:.4g}"), ratio, row["status"]]


def _shown(cell):
    if cell is None:
        return "-"
    if isinstance(cell, int) and not isinstance(cell, bool):
        return f"{cell:,}"
    if isinstance(cell, float):
        return f"{cell:.3g}"
    return str(cell).replace("|", "/")


def _large_runs(context, section, deadline, *, warmed):
    """bench/large.py, cuda (the cooperative layout where gpu-sa solve can be asked for it; Sudoku-LS too, when it
    came with the checkout) then cpu; every answer validated by large.py. The return codes of its runs."""
    plan = context["plan"]
    helped = run([sys.executable, "bench/large.py", "--help"], 60, base_env(real_cuda=False))
    options, note = large_options(plan.large, helped.stdout, lloyd_amos_folder())
    if note:
        section.body += [note, ""]
    peer, peer_note = sudoku_ls_peer(plan.large, helped.stdout)
    if peer_note:
        section.body += [peer_note, ""]
    if not plan.large_warm_up and warmed and "--no-warmup" in helped.stdout:
        options.append("--no-warmup")
        section.body += ["bench/large.py ran without its warm-up runs: bench/tabu_rate.py had just compiled the same "
                         "kernels into numba's cache on disk (the wall clock of the first instance may still hold some "
                         "compilation; the solve clock never does).", ""]
    cooperative, layout_note = cooperative_option(plan.large)
    if layout_note:
        section.body += [layout_note, ""]
    statuses = []
    backends = ("cuda", "cpu") if "--backend" in helped.stdout else ("default",)
    # the device's run carries the peer too (its column is the same in both): it gets twice the cpu run's share
    weights = [2 if peer and index == 0 else 1 for index in range(len(backends))]
    with tempfile.TemporaryDirectory(prefix="gpu-large-") as scratch:
        for index, backend in enumerate(backends):
            share = (deadline - time.perf_counter()) * weights[index] / sum(weights[index:])
            # each run's own records, fresh (large.py would otherwise reuse runs they hold): the per-run table below
            records = Path(scratch) / f"{backend}.jsonl"
            command = [sys.executable, "bench/large.py",
                       *(with_variant_options(options, cooperative) if backend == "cuda" else options),
                       *(["--backend", backend] if backend != "default" else []),
                       *(["--records", str(records)] if "--records" in helped.stdout else []),
                       *(peer if index == 0 else [])]  # the peer once, in the device's run: its column is the same
            ran = run(command, share, base_env(real_cuda=False))
            statuses.append(ran.returncode)
            section.body += [f"Command: `{ran.shown}`: {outcome(ran)}", ""]
            summary = [line for line in ran.stdout.splitlines() if line.startswith("|")]
            section.body += summary + [""]
            _keep_large(context, backend, markdown_rows(summary), markdown_rows(large_runs_table(records)))
            section.body += large_runs_table(records)
            if ran.returncode != 0:
                section.body += fenced(tail(ran.stderr, 15))
    return statuses


def cooperative_option(plan_options, solve_help=None):
    """(gpu-sa solve's options that ask for the cooperative layout, a note for the report). The option is
    ``--threads-per-chain``; a gpu-sa without it runs the layout its model chooses, and the note says so."""
    if "--variant" not in plan_options:
        return [], None
    if solve_help is None:
        solve_help = run([sys.executable, "-m", "gpu_sa", "solve", "--help"], 60, base_env(real_cuda=False)).stdout
    if "--threads-per-chain" in solve_help:
        return ["--threads-per-chain", str(COOPERATIVE_THREADS)], None
    return [], ("gpu-sa solve takes no --threads-per-chain here: the cuda run used the layout the backend's model "
                "chooses (the tabu rate table's 'model' row), not necessarily the cooperative one.")


def with_variant_options(options, extra):
    """``options`` with ``extra`` appended to the --variant's solve options (the cuda run's layout)."""
    if not extra or "--variant" not in options:
        return list(options)
    shown = list(options)
    at = shown.index("--variant") + 1
    shown[at] = " ".join([shown[at], *extra])
    return shown


def _keep_large(context, backend, summary, runs):
    """The large stage's tables for the record: each backend's summary and runs, a backend column first."""
    tables = context.setdefault("tables", {})
    for name, table in (("large", summary), ("large runs", runs)):
        if table["rows"]:
            kept = tables.setdefault(name, {"columns": ["backend"] + [c for c in table["columns"] if c != "backend"],
                                             "rows": []})
            kept["rows"] += [{**row, "backend": backend} if name == "large" else row for row in table["rows"]]


def large_runs_table(records: Path) -> list[str]:
    """Markdown lines: each run bench/large.py recorded, with what the summary leaves out: where an unsolved run
    ended (our best cost, or the peer's own count of clashes), and the chains and moves it took. The first H200 run
    had these only from the records, read by hand; empty when there are none."""
    try:
        runs = [json.loads(line) for line in records.read_text().splitlines() if line.strip()]
    except (OSError, ValueError):
        return []
    if not runs:
        return []
    lines = ["Each run, from bench/large.py's records (cost left: ours, the best chain's cost; a peer's, its own count "
             "of clashes; moves: per chain):", "",
             "| instance | method | backend | status | solve s | cost left | chains | moves |", "|---|---|---|---|---|---|---|---|"]
    for r in runs:
        cost = r.get("cost", r.get("peer_clashes"))
        seconds = r.get("seconds")
        cells = [r.get("file"), r.get("method"), r.get("backend"), r.get("status"),
                 None if seconds is None else f"{seconds:.3f}", cost,
                 r.get("chains"), r.get("moves")]
        lines.append("| " + " | ".join("-" if cell is None else (f"{cell:,}" if isinstance(cell, int) else str(cell))
                                        for cell in cells) + " |")
    return lines + [""]


def lloyd_amos_folder() -> Path:
    """Where bench/large.py reads the 16x16 and 25x25 instances (``common.shared_data``, read now: the
    environment of this run, not of the import)."""
    return common.shared_data() / "sudoku" / "lloyd_amos"


def sudoku_ls_peer(plan_options, large_help, program=None):
    """(bench/large.py's options for Sudoku-LS, a note for the report). The large-grid comparison puts Sudoku-LS
    beside the chains in the same run; a lent device cannot fetch or build it, so it comes built with the checkout
    (``GPU_SA_SUDOKU_LS``, README "Measuring a GPU"); without it the stage runs the chains alone and says so."""
    if plan_options.get("--set") != "sudoku-ls" or "--sudoku-ls" not in large_help:
        return [], None
    program = program if program is not None else os.environ.get("GPU_SA_SUDOKU_LS")
    if program and os.path.isfile(program) and os.access(program, os.X_OK):
        return ["--peers", "sudoku-ls", "--sudoku-ls", program], None
    return [], ("Sudoku-LS is not on this machine (GPU_SA_SUDOKU_LS " + (f"= {program}: not an executable file"
                if program else "is not set") + "): the chains ran without it. To put it in the same run, build it "
                "into a folder of the checkout that git ignores, carry it, and set GPU_SA_SUDOKU_LS (README, "
                "\"Measuring a GPU\").")


def large_options(plan_options, large_help, folder):
    """bench/large.py's options for this plan (those its --help lists), and a note for the report. The
    16x16 and 25x25 instances live outside the repository (../shared/data): where they are missing (a lent
    device gets the repository alone), only the 36x36 instances (bench/data/) run, and the note says how to
    bring the others."""
    options = [part for option, value in plan_options.items() if option in large_help for part in (option, value)]
    if plan_options.get("--set") == "sudoku-ls" or Path(folder).is_dir() or "--sizes" not in large_help:
        return options, None
    return options + ["--sizes", "36"], (
        f"The Lloyd & Amos 16x16 and 25x25 instances are not on this machine ({folder}): only 36x36 ran. "
        "To measure them, copy ../shared/data into a folder of the checkout that git ignores, carry it, and "
        "set GPU_SA_SHARED_DATA to it (README, \"Measuring a GPU\").")


def _combined(statuses, planned):
    if any(code is None for code in statuses):
        return f"stopped at its budget after {sum(code is not None for code in statuses)} of {planned} runs"
    failed = sum(code != 0 for code in statuses)
    return f"failed ({failed} of {planned} runs)" if failed else "done"


def markdown_rows(lines) -> dict:
    """A printed Markdown table (``| a | b |`` lines: header, rule, rows) as a record's table: {columns, rows}."""
    cells = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines if line.startswith("|")]
    if len(cells) < 2:
        return {"columns": [], "rows": []}
    columns, body = cells[0], [row for row in cells[2:] if len(row) == len(cells[0])]
    return {"columns": columns, "rows": common.record_rows(columns, body)}


def keep_table(context, stage, columns, rows):
    """A stage's table, for the run's record."""
    context.setdefault("tables", {})[stage] = {"columns": list(columns), "rows": common.record_rows(columns, rows)}


def markdown_table(columns, rows):
    if not rows:
        return ["(no rows)"]
    return ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|",
            *("| " + " | ".join(str(cell) for cell in row) + " |" for row in rows)]


STAGE_FUNCTIONS = {"env": stage_env, "sass": stage_sass, "tests": stage_tests, "throughput": stage_throughput,
                   "tts": stage_tts, "large": stage_large}


# ---------------------------------------------------------------------------------------------------
# Environment (runs in a child process: a broken CUDA install must not take the report down)
# ---------------------------------------------------------------------------------------------------

def print_environment():
    sys.path.insert(0, str(BENCH))
    from importlib.metadata import PackageNotFoundError, distributions, version

    from common import environment

    info = environment()
    if not info["commit"]:
        info["commit"] = "unknown (no .git in this copy: pass --commit)"
    for name in ("numba-cuda", "scipy"):
        try:
            info[name.replace("-", "_")] = version(name)
        except PackageNotFoundError:
            info[name.replace("-", "_")] = "absent"
    cupy = sorted(f"{d.metadata['Name']} {d.version}" for d in distributions()
                  if (d.metadata["Name"] or "").lower().startswith("cupy"))
    info["cupy"] = ", ".join(cupy) or "absent"
    info["real_gpu"] = False
    from gpu_sa.engine import backends

    usable, simulated, why = backends.cuda_status()
    # an NVIDIA driver here, the simulator not asked for, and still no usable GPU: a failure, not "no GPU"
    info["unusable_gpu"] = backends.nvidia_driver_present() and not usable and not simulated
    if usable and not simulated:
        from numba import cuda

        device = cuda.get_current_device()
        name = device.name.decode() if isinstance(device.name, bytes) else device.name
        free, total = cuda.current_context().get_memory_info()
        info.update(gpu=name, compute_capability="{}.{}".format(*device.compute_capability),
                    sms=device.MULTIPROCESSOR_COUNT, gpu_memory=f"{total / 2**30:.1f} GiB", real_gpu=True)
        smi = subprocess.run(["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=60) if _has("nvidia-smi") else None
        if smi is not None and smi.returncode == 0 and smi.stdout.strip():
            driver, clock = (part.strip() for part in smi.stdout.splitlines()[0].split(","))
            info.update(driver=driver, max_sm_clock=clock)
    elif simulated:
        info["gpu"] = f"none: {why}"
    print(json.dumps(info))


def _has(program):
    from shutil import which

    return which(program) is not None


# ---------------------------------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------------------------------

def write_report(path: Path, context, sections):
    lines = [f"# gpu-sa on {context['env'].get('gpu', 'this machine')}", "",
             f"Run {context['started']} UTC, `{context['command']}` ({context['mode']} run). "
             "Speed figures compare against the `cpu` backend on this machine's own "
             f"{context['env'].get('cores', '?')} cores, measured in the same run.", "",
             "| stage | status | seconds | budget s |", "|---|---|---|---|"]
    lines += [f"| {s.stage} | {s.status.replace('|', '/')} | {s.seconds:.0f} | {s.budget:.0f} |" for s in sections]
    for s in sections:
        lines += ["", f"## {s.stage}", "", *s.body]
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".partial")
    temporary.write_text("\n".join(lines) + "\n")
    temporary.replace(path)  # a reader never sees half a report


def write_gpu_record(context, sections, folder, argv, path=None):
    """The run's record (bench/common.py): the stages' table as its rows, each stage's own table as one of its
    tables; rewritten in place (``path``) after every stage, as the report is."""
    rows = [{"stage": s.stage, "status": s.status, "seconds": round(s.seconds, 1), "budget s": s.budget}
            for s in sections]
    tables = [{"name": name, **table} for name, table in context.get("tables", {}).items()]
    return common.write_record("gpu", rows, columns=["stage", "status", "seconds", "budget s"], tables=tables,
                               notes=context.get("notes"), results=str(folder), args=argv, info=context["env"] or {},
                               title=f"gpu-sa on {context['env'].get('gpu', 'this machine')} ({context['mode']} run)",
                               program="bench/gpu.sh", path=path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--stages", default=",".join(STAGES), metavar="STAGE,...",
                        help=f"comma-separated, from {', '.join(STAGES)} (default: all; env always runs)")
    parser.add_argument("--quick", action="store_true", help=f"short budgets and workloads: {QUICK_LIMIT} s of stages at most")
    parser.add_argument("--smoke", action="store_true", help="tiny workloads, for testing this script (simulator)")
    parser.add_argument("--out", type=Path, default=None, metavar="REPORT.md", help="the report's path (default: $OUT/gpu-report.md)")
    parser.add_argument("--commit", default=None,
                        help="the commit measured, for a copy of the repository without .git or with a stale one "
                             "(default: git's); the benchmarks the stages start get it too (GPU_SA_COMMIT)")
    parser.add_argument("--results", default=None, metavar="DIR",
                        help=f"folder of the run's record (default: ${common.RESULTS_VARIABLE}, else results/ beside "
                             "the report)")
    parser.add_argument("--print-environment", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.print_environment:
        print_environment()
        return 0
    stages = [s for s in args.stages.split(",") if s]
    unknown = sorted(set(stages) - set(STAGES))
    if unknown:
        parser.error(f"unknown stage(s) {', '.join(unknown)}; choose from {', '.join(STAGES)}")
    if args.quick and args.smoke:
        parser.error("--quick and --smoke exclude each other")
    out = args.out or (Path(os.environ["OUT"]) / "gpu-report.md" if os.environ.get("OUT") else None)
    if out is None:
        parser.error("give --out REPORT.md, or set OUT to a folder")
    mode = "smoke" if args.smoke else "quick" if args.quick else "full"
    results = args.results or os.environ.get(common.RESULTS_VARIABLE) or str(out.parent / "results")
    if args.commit:  # every benchmark the stages start names it in its header (bench/common.environment), env's too
        os.environ["GPU_SA_COMMIT"] = args.commit
    context = {"plan": PLANS[mode], "mode": mode, "env": {},
               "started": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
               "command": " ".join(["bench/gpu.sh", *(argv if argv is not None else sys.argv[1:])])}
    order = ["env"] + [s for s in STAGES if s in stages and s != "env"]
    sections = [Section(stage, budget=BUDGETS[mode][stage]) for stage in order]
    for section in sections:
        print(f"gpu.py: {section.stage} (budget {section.budget:.0f} s) ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        section.status = "running"
        try:
            STAGE_FUNCTIONS[section.stage](context, section, section.budget)
        except Exception as error:  # a stage's own bug must not lose the stages already done
            section.status = f"failed: {error.__class__.__name__}: {error}"
        section.seconds = time.perf_counter() - start
        write_report(out, context, sections)
        context["record"] = write_gpu_record(context, sections, results, sys.argv[1:] if argv is None else argv,
                                             context.get("record"))
        print(f"gpu.py: {section.stage}: {section.status} ({section.seconds:.0f} s)", file=sys.stderr, flush=True)
    print(f"gpu.py: report written to {out}", file=sys.stderr)
    return 0 if all(s.status == "done" or s.status.startswith(("done", "skipped")) for s in sections) else 1


if __name__ == "__main__":
    sys.exit(main())
