"""Move tabu's moves per second, per backend and layout: one CPU core, all cores, and each cuda layout.

    python bench/tabu_rate.py [--sides 49,64] [--percent 50] [--index 0] [--file PATH ...]
                              [--backends cpu-1,cpu,cuda] [--threads 64] [--moves 1000000] [--seconds 10]
                              [--cuda-moves N] [--cuda-chains N] [--cpu-threads N] [--seed 1] [--json]
                              [--results DIR]

Instances: Sudoku-LS's own, copied into bench/data/sudoku_ls/ (``INST_{S}x{S}/{P}/inst{S}x{S}_{P}_{I}.txt``, the
ant colony's format; its README), one per side, or the files given with ``--file``.

Rows, on each instance:
  cpu-1   the cpu backend on ONE core with ONE chain (``CpuBackend(threads=1)``), for at least ``--moves`` moves:
          what one core of this machine does in a long run, one chain per core
  cpu     the cpu backend on every core this process may use, one chain per core, ``--moves`` moves per chain
  cuda    the cuda backend with its default chain count (``--cuda-chains``), one row per layout: T = 1 (one
          thread per chain) and each of ``--threads`` (a block of T threads per chain; ``model``: the backend's
          own choice, threads_per_chain None), for ``--seconds`` of moves (or ``--cuda-moves`` per chain)
          A layout asked twice (``model`` resolving to a T also listed) is measured once; its ``chosen`` column
          says so. Without a usable CUDA GPU the cuda rows are kept, with the status 'skipped: no usable CUDA
          GPU (why)'; under NUMBA_ENABLE_CUDASIM=1 they run in numba's simulator (slow: tiny budgets only).

How a rate is measured. Moves per second = the moves all chains made / the wall seconds of their advance: the
annealing API's own clock (``Result.seconds``), less the puzzle's preparation (``prepare_seconds``); compilation,
allocation and the chains' initial states are not in it (``setup_seconds``), and one short unrecorded run per row
warms up first. The default schedule of move tabu (a constant temperature), one trial at a time, early stop ON:
a chain of move tabu that has solved the instance makes no more moves (its loop skips the move while no cell
conflicts), while the runner would still count them, so a run that went on past a solution would count free
moves. A run therefore ends at the first solution, and its moves are counted as made: every chain's moves, less
the solving chain's moves after its solution (``Result.chain_moves``). The next run starts fresh chains (the next
chain indices, same seed) until the budget is spent; ``runs`` and ``solved`` say how many runs there were and how
many ended in a solution (each one validated by the API).

Columns: device (the GPU's name or the CPU's model), backend, layout (one core, all cores, thread: one thread per
chain, block: T threads per chain), threads_per_chain, chosen (asked, model: the backend's choice, asked = model),
cores, chains, moves (made, all chains), moves_per_chain, seconds (advance), moves_per_second,
moves_per_second_per_chain, runs, solved, instance, side, status (measured, skipped: ..., failed: ...). The run's
record goes to bench/results/tabu_rate/ (``--results``); the header keeps the machine's load average at the
start, and a note the one at the end (a loaded machine's figures are lower).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from common import ROOT, add_results_option, environment, print_header, print_table, write_record

import gpu_sa
from gpu_sa.engine import backends, plan, runner

DATA = ROOT / "bench" / "data" / "sudoku_ls"
KINDS = ("cpu-1", "cpu", "cuda")
MOVE = "tabu"
try:
    from gpu_sa.options import THREADS_PER_CHAIN
except ImportError:  # a gpu-sa without the option: the cooperative layouts its move offers
    THREADS_PER_CHAIN = (1, 32, 64, 128, 256)
COOPERATIVE = tuple(t for t in THREADS_PER_CHAIN if t > 1)
MAX_RUNS = 10_000  # an instance every run solves at once would otherwise loop for long: the rate is measured by then
COLUMNS = ["device", "backend", "layout", "threads_per_chain", "chosen", "cores", "chains", "moves", "moves_per_chain",
           "seconds", "moves_per_second", "moves_per_second_per_chain", "runs", "solved", "instance", "side", "status"]


def instance_path(side: int, percent: int, index: int) -> Path:
    return DATA / f"INST_{side}x{side}" / str(percent) / f"inst{side}x{side}_{percent}_{index}.txt"


def load_average() -> str:
    try:
        return ", ".join(f"{value:.2f}" for value in os.getloadavg()) + " (1, 5, 15 min)"
    except OSError:
        return "unknown"


def measure(puzzle, backend, chains: int, *, moves: int | None, seconds: float | None, seed: int,
            warm_moves: int) -> dict:
    """Runs of ``chains`` chains of move tabu on ``backend`` until each chain slot has run ``moves`` moves or the
    advance has taken ``seconds`` (whichever comes first where both are given); the moves made and the seconds."""
    runner.anneal(puzzle, move=MOVE, backend=backend, chains=chains, seed=seed, max_moves=max(1, warm_moves),
                  trials=1, early_stop=True, chain_base=(1 << 31))  # the warm-up: chains no measured run uses
    made, spent, slot_moves, runs, solved = 0, 0.0, 0, 0, 0
    while runs < MAX_RUNS:
        left = None if seconds is None else seconds - spent
        result = runner.anneal(puzzle, move=MOVE, backend=backend, chains=chains, seed=seed,
                               chain_base=runs * chains, trials=1, early_stop=True,
                               max_moves=(moves - slot_moves) if moves is not None else None,  # None: the schedule's
                               time_limit=left if left is not None and left > 0 else None)
        runs += 1
        moves_made = int(result.proposals)
        if result.solved:  # the solving chain made no move after its solution (see the docstring)
            solved += 1
            moves_made -= int(result.moves) - min(int(result.moves), int(result.chain_moves) + 1)
        made += moves_made
        spent += max(0.0, result.seconds - result.prepare_seconds)
        slot_moves += int(result.moves)
        if result.moves == 0:  # nothing to move (the rules solved it): no rate to measure
            break
        if (moves is not None and slot_moves >= moves) or (seconds is not None and spent >= seconds):
            break
    return dict(moves=made, seconds=spent, runs=runs, solved=solved)


def cuda_layouts(asked: list, move) -> list[tuple[object, int, str]]:
    """(threads_per_chain to construct the backend with, the threads per chain it runs, chosen) per cuda row, a
    layout asked twice measured once."""
    layouts = []
    for item in [1] + asked:
        requested = None if item == "model" else item
        threads = plan.threads_for(move, requested)  # what CudaBackend(threads_per_chain=requested) runs
        chosen = "model" if item == "model" else "asked"
        same = next((entry for entry in layouts if entry[1] == threads), None)
        if same is None:
            layouts.append([requested, threads, chosen])
        elif same[2] != chosen:
            same[2] = "asked = model"
    return [tuple(entry) for entry in layouts]


def parse_threads(text: str) -> list:
    asked = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        if part == "model":
            asked.append(part)
            continue
        try:
            value = int(part)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{part!r}: not a number of threads or 'model'") from None
        if value not in COOPERATIVE:
            raise argparse.ArgumentTypeError(f"{part!r}: a cooperative layout's threads per chain are one of "
                                             f"{', '.join(map(str, COOPERATIVE))} (T = 1 always runs)")
        asked.append(value)
    return list(dict.fromkeys(asked))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("--sides", default="49,64",
                        help="grid sides, comma-separated, one instance each: bench/data/sudoku_ls/INST_{S}x{S}/"
                             "{P}/inst{S}x{S}_{P}_{I}.txt (default 49,64; the folder's README lists the instances)")
    parser.add_argument("--percent", type=int, default=50, help="givens, percent (default 50)")
    parser.add_argument("--index", type=int, default=0, help="the instance's number in its cell (default 0)")
    parser.add_argument("--file", type=Path, action="append", default=[], metavar="PATH",
                        help="an instance file instead of --sides (repeatable; any format gpu-sa reads)")
    parser.add_argument("--backends", default=",".join(KINDS),
                        help="rows, comma-separated, among cpu-1 (one chain on one core), cpu (one chain per core, "
                             "every core) and cuda (each layout) (default: all three)")
    parser.add_argument("--threads", type=parse_threads, default=[64], metavar="T,...",
                        help="the cuda rows' cooperative layouts besides T = 1: threads per chain (32, 64, 128 or 256), "
                             "or 'model' for the backend's own choice (threads_per_chain None) (default 64)")
    parser.add_argument("--moves", type=int, default=1_000_000,
                        help="moves per chain of the cpu rows, at least (default 1,000,000)")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="seconds of advance per cuda row, at least (default 10)")
    parser.add_argument("--cuda-moves", type=int, default=None, metavar="N",
                        help="moves per chain of a cuda row: ends the row at N moves or --seconds, the first reached "
                             "(default: --seconds alone)")
    parser.add_argument("--cuda-chains", type=int, default=None, metavar="N",
                        help="chains of the cuda rows (default: the backend's, enough to fill the device)")
    parser.add_argument("--cpu-threads", type=int, default=None, metavar="N",
                        help="cores of the cpu row (default: every core this process may use), one chain each")
    parser.add_argument("--seed", type=int, default=1, help="seed of every run (default 1)")
    parser.add_argument("--json", action="store_true",
                        help="also print each row as one JSON line, as soon as it is measured")
    add_results_option(parser)
    args = parser.parse_args(argv)
    kinds = [k for k in args.backends.split(",") if k]
    if not kinds or set(kinds) - set(KINDS):
        parser.error(f"--backends: choose among {', '.join(KINDS)}")
    if args.moves < 1 or args.seconds <= 0 or (args.cuda_moves is not None and args.cuda_moves < 1):
        parser.error("--moves and --cuda-moves must be positive integers, --seconds positive")
    if (args.cuda_chains is not None and args.cuda_chains < 1) or (args.cpu_threads is not None and args.cpu_threads < 1):
        parser.error("--cuda-chains and --cpu-threads must be positive")
    try:
        paths = list(args.file) or [instance_path(int(side), args.percent, args.index) for side in args.sides.split(",")
                                    if side]
    except ValueError:
        parser.error("--sides takes comma-separated integers")
    missing = [str(path) for path in paths if not path.is_file()]
    if missing:
        parser.error(f"no such instance: {', '.join(missing)}")

    info = environment()
    usable, simulated, why = backends.cuda_status()
    cores = args.cpu_threads or backends.available_cores()
    info["load_average"] = f"{load_average()} at the start, on {backends.available_cores()} cores"
    info["budget"] = (f"cpu rows: {args.moves:,} moves per chain at least; cuda rows: {args.seconds:g} s"
                      + (f" or {args.cuda_moves:,} moves per chain" if args.cuda_moves else ""))
    info["counting"] = ("moves made / advance seconds (compile, allocation and set-up excluded); a run ends at a "
                        "solution, the solving chain's later moves not counted; fresh chains until the budget is spent")
    print_header("move tabu: moves per second per backend and layout", info)
    gpu_name = info.get("gpu_name") or (why.removeprefix("CUDA GPU ").strip() if usable and not simulated
                                        else "numba CUDA simulator" if simulated else None)

    rows = []

    def emit(**row):
        row = {column: row.get(column) for column in COLUMNS}
        rows.append(row)
        if args.json:
            print(json.dumps(row), flush=True)

    for path in paths:
        puzzle = gpu_sa.parse(path.read_text(), source=str(path))[0]
        name, side = path.name, puzzle.side
        move = puzzle.move(MOVE)
        plans = []  # (backend kind, layout, threads per chain, chosen, cores, a function making the backend, chains)
        if "cpu-1" in kinds:
            plans.append(("cpu", "one core", 1, "-", 1, lambda: backends.CpuBackend(threads=1), 1))
        if "cpu" in kinds:
            plans.append(("cpu", "all cores", 1, "-", cores, lambda: backends.CpuBackend(threads=cores), cores))
        if "cuda" in kinds:
            try:
                layouts = cuda_layouts(args.threads, move)
            except ValueError as error:
                layouts = []
                emit(device=gpu_name, backend="cuda", instance=name, side=side, status=f"failed: {error}")
            for requested, threads, chosen in layouts:
                plans.append(("cuda", "thread" if threads == 1 else "block", threads, chosen, None,
                              (lambda requested=requested: backends.CudaBackend(threads_per_chain=requested)),
                              args.cuda_chains))
        for kind, layout, threads, chosen, used_cores, make, chains in plans:
            common_fields = dict(backend=kind, layout=layout, threads_per_chain=threads, chosen=chosen,
                                 cores=used_cores, instance=name, side=side)
            if kind == "cuda" and not usable:
                emit(device=None, **common_fields, status=f"skipped: no usable CUDA GPU ({why})")
                continue
            device = gpu_name if kind == "cuda" else info["cpu"]
            print(f"tabu_rate.py: {name} {kind} {layout} T={threads} ...", file=sys.stderr, flush=True)
            try:
                backend = make()
                count = chains or backend.default_chains(move)
                if kind == "cuda":
                    budget = dict(moves=args.cuda_moves, seconds=args.seconds, warm_moves=min(8, args.cuda_moves or 8))
                else:
                    budget = dict(moves=args.moves, seconds=None, warm_moves=min(2_000, args.moves))
                measured = measure(puzzle, backend, count, seed=args.seed, **budget)
            except Exception as error:  # noqa: BLE001 - a row that failed says why; the others still run
                emit(device=device, **common_fields, status=f"failed: {error.__class__.__name__}: {error}")
                continue
            rate = measured["moves"] / measured["seconds"] if measured["seconds"] > 0 else None
            emit(device=device, **common_fields, chains=count, moves=measured["moves"],
                 moves_per_chain=measured["moves"] // count, seconds=measured["seconds"],
                 moves_per_second=rate, moves_per_second_per_chain=None if rate is None else rate / count,
                 runs=measured["runs"], solved=measured["solved"], status="measured")

    printed = [[_cell(row[column]) for column in COLUMNS] for row in rows]
    print_table(COLUMNS, printed)
    notes = [f"load average at the end: {load_average()}"]
    if any(row["status"] == "measured" and row["backend"] == "cuda" for row in rows) and simulated:
        notes.append("the cuda rows ran in numba's CUDA simulator: their rates say nothing of a GPU")
    for note in notes:
        print(f"# {note}")
    write_record("tabu_rate", rows, columns=COLUMNS, notes=notes, results=args.results, args=argv)
    return 1 if any(str(row["status"]).startswith("failed") for row in rows) else 0


def _cell(value):
    return "-" if value is None else value


if __name__ == "__main__":
    sys.exit(main())
