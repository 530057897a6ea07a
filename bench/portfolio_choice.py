"""Which method ``auto`` should run first, per cell: the default against the chains and the search, in-process.

    python bench/portfolio_choice.py SIDE PERCENT[,PERCENT...] [--instances 0-9] [--set sudoku-ls|lloyd-amos]
                                     [--data DIR] [--local-search-order K] [--few-free-cells N]
                                     [--moves-per-node K] [--repeats N] [--results DIR]

For each instance (seed 1, one process, CPU backend): ``portfolio.solve`` (the default), ``gpu_sa.anneal`` (the
method ``--method anneal`` runs) and ``exact.count_solutions(limit=1)`` (``--method exact``'s search), each one's
own clock (``seconds``; the search's, wall time around the call), after one warm-up of each on the first
instance. Prints per cell: solved, median and slowest in ms, who answered the default's runs (e exact, a anneal,
p propagation) and the default's median over the lower of the other two medians. ``--local-search-order`` and
``--few-free-cells`` set ``portfolio.LOCAL_SEARCH_ORDER`` and ``portfolio.FEW_FREE_CELLS`` for the run: what
``auto`` would do with the chains first from that order, or the descent first below that many free cells;
``--moves-per-node`` sets ``portfolio.MOVES_PER_NODE``, the exchange rate of the search beside the chains at 25x25.
``--repeats N`` runs the three methods N times per instance, in turns, and keeps each one's median there: on a
machine whose speed drifts, single runs moved a cell's ratio by 20 % between two runs of the same code.
``--data`` reads Sudoku-LS's full set (``benchmarks/Sudoku`` of ``Ailuras/AllDIff-LS``: every percentage from 0 to
90, 100 instances each) instead of the 0-19 copied into ``bench/data/sudoku_ls``. In-process, neither the default
nor ``gpu_sa.anneal`` is given a progress callback here (the default's search beside the chains reads their moves
through ``on_chunk``, which costs no progress record). The run's record (one row per cell) goes to
bench/results/portfolio_choice/ (``--results``).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from common import SHARED_DATA, add_results_option, environment, shown_path, write_record  # also puts the checkout on sys.path

import gpu_sa  # noqa: E402
from gpu_sa.engine import backends
from gpu_sa.puzzles.sudoku import auto as portfolio  # noqa: E402
from gpu_sa.puzzles.sudoku import exact  # noqa: E402
from gpu_sa.puzzles.sudoku import parse  # noqa: E402

SUDOKU_LS = Path(__file__).resolve().parent / "data" / "sudoku_ls"
BUDGET = 60.0


def instance_path(kind: str, data: Path, side: int, percent: int, index: int) -> Path:
    if kind == "lloyd-amos":
        return data / f"inst{side}x{side}_{percent}_{index}.txt"
    return data / f"INST_{side}x{side}" / str(percent) / f"inst{side}x{side}_{percent}_{index}.txt"


def run(method: str, puzzle, backend) -> tuple[float, str]:
    """(seconds, or infinity if unsolved; who answered)."""
    if method == "default":
        answer = portfolio.solve(puzzle, seed=1, backend=backend, time_limit=BUDGET)
        return (answer.seconds if answer.solved else float("inf")), answer.method[0]
    if method == "anneal":
        result = gpu_sa.anneal(puzzle, backend=backend, seed=1, time_limit=BUDGET)
        return (result.seconds if result.solved else float("inf")), "a"
    start = time.perf_counter()
    search = exact.count_solutions(puzzle.givens, puzzle.order, limit=1, seed=1, time_limit=BUDGET)
    seconds = time.perf_counter() - start
    if search.solutions and puzzle.check(search.solution):
        raise SystemExit(f"portfolio_choice.py: the search's answer is rejected by the validator ({puzzle.label})")
    return (seconds if search.solutions else float("inf")), "e"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("side", type=int, help="grid side: 16, 25, 36, 49 or 64")
    parser.add_argument("percents", help="givens, percent, comma-separated")
    parser.add_argument("--instances", default="0-9", help="first-last (default 0-9)")
    parser.add_argument("--set", dest="kind", choices=("sudoku-ls", "lloyd-amos"), default="sudoku-ls",
                        help="Sudoku-LS's set (default) or Lloyd & Amos's (../shared/data/sudoku/lloyd_amos)")
    parser.add_argument("--data", type=Path, help="the set's folder (default: bench/data/sudoku_ls, or the shared "
                                                  "Lloyd & Amos folder)")
    parser.add_argument("--local-search-order", type=int, default=portfolio.LOCAL_SEARCH_ORDER,
                        help=f"auto's chains-first order (default {portfolio.LOCAL_SEARCH_ORDER})")
    parser.add_argument("--few-free-cells", type=int, default=portfolio.FEW_FREE_CELLS,
                        help=f"auto's descent-first bound (default {portfolio.FEW_FREE_CELLS})")
    parser.add_argument("--repeats", type=int, default=1,
                        help="runs of each method per instance, in turns; an instance's time is their median "
                             "(default 1)")
    parser.add_argument("--moves-per-node", type=int, default=portfolio.MOVES_PER_NODE,
                        help=f"auto's exchange rate between the chains and the search beside them (default "
                             f"{portfolio.MOVES_PER_NODE})")
    add_results_option(parser)
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    portfolio.LOCAL_SEARCH_ORDER, portfolio.FEW_FREE_CELLS = args.local_search_order, args.few_free_cells
    portfolio.MOVES_PER_NODE = args.moves_per_node
    data = args.data or (SHARED_DATA / "sudoku" / "lloyd_amos" if args.kind == "lloyd-amos" else SUDOKU_LS)
    first, last = map(int, args.instances.split("-"))
    backend = backends.CpuBackend()
    methods = ("default", "anneal", "exact")
    percents = [int(p) for p in args.percents.split(",")]
    warm = parse(instance_path(args.kind, data, args.side, percents[0], first).read_text())[0]
    for method in methods:
        run(method, warm, backend)
    title = (f"{args.side}x{args.side}, {args.kind} {data}, instances {first}-{last}, seed 1, "
             f"LOCAL_SEARCH_ORDER {args.local_search_order}, FEW_FREE_CELLS {args.few_free_cells}, "
             f"MOVES_PER_NODE {args.moves_per_node}, repeats {args.repeats}")
    print(f"# {title}")
    rows = []
    for percent in percents:
        times = {method: [] for method in methods}
        answered = ""
        for index in range(first, last + 1):
            path = instance_path(args.kind, data, args.side, percent, index)
            puzzle = parse(path.read_text(), path.name)[0]
            runs = {method: [] for method in methods}
            for _ in range(args.repeats):  # in turns: a slow spell of the machine falls on every method
                for method in methods:
                    seconds, who = run(method, puzzle, backend)
                    runs[method].append(seconds)
                    if method == "default":
                        default_by = who  # the same every run: it depends on the seed only
            for method in methods:
                times[method].append(statistics.median(runs[method]))
            answered += default_by
        cells, row = [], {"size": f"{args.side}x{args.side}", "givens %": percent}
        for method in methods:
            solved = sum(t < float("inf") for t in times[method])
            cells.append(f"{method} {solved}/{len(times[method])} median {statistics.median(times[method]) * 1e3:.2f} "
                         f"ms slowest {max(times[method]) * 1e3:.1f}")
            row.update({f"{method} solved": f"{solved}/{len(times[method])}",
                        f"{method} median ms": statistics.median(times[method]) * 1e3,
                        f"{method} slowest ms": max(times[method]) * 1e3})
        faster = min(statistics.median(times[method]) for method in methods[1:])
        ratio = statistics.median(times["default"]) / faster
        print(f"{percent} % | " + " | ".join(cells) + f" | answered by {answered} | default / the faster {ratio:.2f}",
              flush=True)
        rows.append({**row, "answered by": answered, "default / the faster": ratio})
    write_record("portfolio_choice", rows, info=environment(), title=title.replace(str(data), shown_path(data)),
                 results=args.results, args=argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
