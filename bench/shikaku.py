"""Shikaku, Figures 6 and 7 of Rafaralahy's report redone: ILP vs batch annealing on generated instances.

    python bench/shikaku.py [--sizes 4,9,16,25,50] [--per-size 8] [--backend auto] [--chains N]
                            [--time-limit 20] [--seed 1] [--methods ilp,anneal,single]
                            [--protocol seed|default] [--json] [--results DIR]

Instances (instance i of side N uses generator seed (SEED, N, i)):
  --protocol seed     the seed's: square grids of side N, generator depth from 1 to floor(N/2)
                      and 0 to 3 merge passes, the instances spread evenly over that grid of
                      parameters (low depths give a handful of big rectangles: easy)
  --protocol default  the generator's defaults (rectangles of about 8 cells, one merge pass):
                      puzzle-like instances, many more clues
For each instance:

  ilp     the seed's integer program on scipy's HiGHS (the seed used Gurobi and CBC)
  anneal  the batch annealer with the package's defaults (--kind shikaku), stopped at the
          first solved chain, restarts allowed, within --time-limit
  single  one chain, one trial of the same schedule: the seed's single-chain annealer,
          whose success rate is the seed's Figure 7

Every solution goes through the independent validator. Reported per size: instances,
mean clues, success rate, mean and max seconds of solved runs, the annealer's mean setup
(numba compile: the first run of a process pays it) and the mean host time to build and
prune the candidates (included in the ILP's seconds, not in the annealer's). The run's record goes to
bench/results/shikaku/ (``--results``).
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

from common import add_results_option, environment, print_header, print_table, write_record

from gpu_sa.engine import runner
from gpu_sa.puzzles import shikaku
from gpu_sa.puzzles.shikaku.generate import generate

SEED_RESULTS = {4: 1.0, 9: 0.95}  # the seed's Figure 7: single-chain success rate by side


def instances(side, count, seed, protocol):
    """``count`` (depth, merge passes, puzzle) for side ``side``: the seed's parameter grid or the defaults."""
    if protocol == "default":
        for i in range(count):
            clues, _ = generate(side, side, seed=[seed, side, i])
            yield "default", "default", shikaku.Shikaku(clues=clues, source=f"{side}x{side}", line=i + 1)
        return
    grid = [(depth, merges) for depth in range(1, max(1, side // 2) + 1) for merges in range(4)]
    picks = [grid[round(i * (len(grid) - 1) / max(1, count - 1))] for i in range(count)] if count > 1 else [grid[-1]]
    for i, (depth, merges) in enumerate(picks):
        clues, _ = generate(side, side, seed=[seed, side, i], depth=depth, merge_iterations=merges)
        yield depth, merges, shikaku.Shikaku(clues=clues, source=f"{side}x{side}", line=i + 1)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4,9,16,25,50")
    parser.add_argument("--per-size", type=int, default=8)
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--chains", type=int, default=None)
    parser.add_argument("--time-limit", type=float, default=20.0, help="per instance and method (default 20 s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--methods", default="ilp,anneal,single")
    parser.add_argument("--protocol", choices=("seed", "default"), default="seed")
    parser.add_argument("--json", action="store_true")
    add_results_option(parser)
    args = parser.parse_args(argv)
    methods = args.methods.split(",")
    info = environment()
    print_header(f"shikaku, protocol {args.protocol}: {args.per_size} per size, backend {args.backend}, "
                 f"time limit {args.time_limit} s, seed {args.seed}", info)
    records = []
    for side in map(int, args.sizes.split(",")):
        for depth, merges, puzzle in instances(side, args.per_size, args.seed, args.protocol):
            start = time.perf_counter()
            puzzle.geometry  # candidates and pruning, on the host: timed apart (the ILP's seconds include it)
            base = dict(size=side, depth=depth, merges=merges, clues=int((puzzle.clues > 0).sum()),
                        candidates_seconds=time.perf_counter() - start)
            for method in methods:
                if method == "ilp":
                    answer = puzzle.count_solutions(limit=1, time_limit=args.time_limit)
                    solved = answer.solutions > 0 and not puzzle.check(answer.solution)
                    record = dict(base, method=method, solved=solved, seconds=answer.seconds, setup_seconds=0.0)
                else:
                    single = method == "single"
                    result = runner.anneal(puzzle, backend=args.backend, chains=1 if single else args.chains,
                                           trials=1 if single else None, seed=args.seed, time_limit=args.time_limit)
                    record = dict(base, method=method, solved=result.solved, seconds=result.seconds,
                                  setup_seconds=result.setup_seconds, chains=result.chains, trials=result.trials,
                                  backend=result.backend)
                records.append(record)
                if args.json:
                    print(json.dumps({**record, "commit": info["commit"], "gpu": info["gpu"]}), flush=True)
    rows = []
    for side in map(int, args.sizes.split(",")):
        for method in methods:
            group = [r for r in records if r["size"] == side and r["method"] == method]
            solved = [r["seconds"] for r in group if r["solved"]]
            rows.append([f"{side}x{side}", method, len(group), statistics.mean(r["clues"] for r in group),
                         f"{len(solved) / len(group):.2f}", statistics.mean(solved) if solved else "-",
                         max(solved) if solved else "-", statistics.mean(r["setup_seconds"] for r in group),
                         statistics.mean(r["candidates_seconds"] for r in group),
                         SEED_RESULTS.get(side, "-") if method == "single" else "-"])
    print_table(["size", "method", "instances", "mean clues", "success", "mean s (solved)", "max s (solved)",
                 "mean setup s", "mean candidates s", "seed's SA success"], rows)
    write_record("shikaku", results=args.results, args=argv)


if __name__ == "__main__":
    main()
