"""Ablation of the seeded exact Sudoku search: each feature on / off, in-process, one instance at a time.

    python bench/ablation.py [--seed 1] [--only TEXT] [--results DIR] > ablation.jsonl

Every configuration of ``CONFIGS`` (``count_solutions(features=F, base_nodes=B)``: the restarts as they were,
each switch of ``gpu_sa.puzzles.sudoku.exact`` alone, the clause-learning search with each of its heuristics taken out,
and each order's default) on the 20 Lloyd & Amos 25x25 instances at 45 % (20 s each), the 36x36 instances #0-#4
at 45 % (``bench/data/sudoku36_45``, 15 s each) and the 49x49 #0-#4 at 40 % (``bench/data/sudoku49_40``, 15 s
each); per configuration and set: solved (validated), median and max seconds (a miss counts as slower than the
budget: null), median nodes (the CDCL's: decisions). One JSON line each. ``--only``: the configurations whose
name contains TEXT. Needs ../shared/data (GPU_SA_SHARED_DATA). The lines, as one table, are also the run's
record, in bench/results/ablation/ (``--results``).
"""
from __future__ import annotations

import argparse
import json
import statistics

from common import ROOT, SHARED_DATA, add_results_option, environment, write_record

from gpu_sa.puzzles.sudoku import exact
from gpu_sa.puzzles.sudoku.exact.clauses import (CLAUSES, LOCAL_MINIMIZATION, NO_REASON_BUMPS, NO_VIVIFY, SAVED_PHASES,
                                         SHORT_RESTARTS)
from gpu_sa.puzzles.sudoku.exact.consistency import ALLDIFF, BOX_LINE, PROBE
from gpu_sa.puzzles.sudoku.exact.learning import PHASE, WDEG
from gpu_sa.puzzles.sudoku.exact.ordering import DUAL
from gpu_sa.puzzles.sudoku import parse

CONFIGS = [("restarts (the search before, base 256)", 0, 256), ("restarts, base 4096", 0, 4096),
           ("+ box-line", BOX_LINE, 4096), ("+ AllDifferent GAC", ALLDIFF, 4096), ("+ root probing", PROBE, 4096),
           ("+ dom/wdeg", WDEG, 4096), ("+ dom/wdeg + phases", WDEG | PHASE, 4096), ("+ dual branching", DUAL, 4096),
           ("+ box-line + dom/wdeg + dual", BOX_LINE | WDEG | DUAL, 4096),
           ("clause learning, root box-line + GAC", CLAUSES | BOX_LINE | ALLDIFF, 256),
           ("descent + clause learning, stable mode", CLAUSES, 256),
           ("clause learning without target phases", CLAUSES | SAVED_PHASES, 256),
           ("clause learning without long restarts (Luby x 100)", CLAUSES | SHORT_RESTARTS, 256),
           ("clause learning without reason bumps", CLAUSES | NO_REASON_BUMPS, 256),
           ("clause learning without recursive minimization", CLAUSES | LOCAL_MINIMIZATION, 256),
           ("clause learning without vivification", CLAUSES | NO_VIVIFY, 256),
           ("clause learning, MiniSat style (all five out)",
            CLAUSES | SAVED_PHASES | SHORT_RESTARTS | NO_REASON_BUMPS | LOCAL_MINIMIZATION | NO_VIVIFY, 256),
           ("each order's default", None, 256)]
SETS = [(25, 45, range(20), 20.0), (36, 45, range(5), 15.0), (49, 40, range(5), 15.0)]


def load(side, percent, index):
    path = (SHARED_DATA / "sudoku" / "lloyd_amos" / f"inst{side}x{side}_{percent}_{index}.txt" if side < 36 else
            ROOT / "bench" / "data" / f"sudoku{side}_{percent}" / f"inst{side}x{side}_{percent}_{index}.txt")
    return parse(path.read_text(), path.name)[0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", default="", help="run only the configurations whose name contains this text")
    add_results_option(parser)
    args = parser.parse_args(argv)
    info = environment()
    warm = load(25, 45, 0)
    rows = []
    for name, features, base in [config for config in CONFIGS if args.only in config[0]]:
        exact.count_solutions(warm.givens, 5, limit=1, seed=args.seed, features=features, base_nodes=base)  # compile
        for side, percent, indices, budget in SETS:
            times, nodes = [], []
            for index in indices:
                puzzle = load(side, percent, index)
                answer = exact.count_solutions(puzzle.givens, puzzle.order, limit=1, seed=args.seed, features=features,
                                               base_nodes=base, time_limit=budget, max_nodes=exact.NO_NODE_LIMIT)
                solved = answer.solutions >= 1 and not puzzle.check(answer.solution)
                times.append(answer.seconds if solved else float("inf"))
                nodes.append(answer.nodes)
            median = statistics.median(times)
            rows.append({"config": name, "features": features, "base_nodes": base, "size": f"{side}x{side}",
                         "percent": percent, "budget": budget, "solved": sum(t != float("inf") for t in times),
                         "total": len(times), "median": None if median == float("inf") else median,
                         "max": None if max(times) == float("inf") else max(times),
                         "median_nodes": statistics.median(nodes)})
            print(json.dumps(rows[-1]), flush=True)
    write_record("ablation", rows, info=info, results=args.results, args=argv,
                 title=f"ablation of the seeded exact search, seed {args.seed} (a miss: median or max null)")


if __name__ == "__main__":
    main()
