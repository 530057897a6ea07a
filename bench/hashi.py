"""Hashiwokakero on the Coelho et al. 2019 set: ILP (lazy connectivity cuts) vs batch annealing.

    python bench/hashi.py [--sizes 100,200,300,400] [--per-size 10] [--backend auto] [--chains N]
                          [--time-limit 60] [--seed 1] [--data DIR] [--json] [--results DIR]

For each island count, the first --per-size instances (file name order) of
``../shared/data/hashi/coelho2019/<size>/``: the ILP's time (scipy HiGHS, lazy cuts until
connected) and the annealer's (defaults of ``gpu-sa solve --kind hashi``, stopped at the first
chain with energy 0, or at --time-limit). Both solutions go through the independent
validator. Reported: mean and max seconds, the annealer's success rate, mean setup (the
annealer's compile, once per process, paid by the first instance only). The published
anchors (Coelho et al. 2019, lazy-cut ILP on a commercial solver): 0.01 / 0.04 / 0.12 /
1.48 s mean for 100 / 200 / 300 / 400 islands. The run's record goes to bench/results/hashi/ (``--results``).
"""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from common import SHARED_DATA, add_results_option, environment, print_header, print_table, write_record

from gpu_sa.engine import runner
from gpu_sa.puzzles import hashi

PUBLISHED_MEAN = {100: 0.01, 200: 0.04, 300: 0.12, 400: 1.48}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100,200,300,400")
    parser.add_argument("--per-size", type=int, default=10)
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--chains", type=int, default=None)
    parser.add_argument("--time-limit", type=float, default=60.0, help="per instance and method (default 60 s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", type=Path, default=SHARED_DATA / "hashi" / "coelho2019")
    parser.add_argument("--methods", default="ilp,anneal")
    parser.add_argument("--json", action="store_true")
    add_results_option(parser)
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        parser.error(f"{args.data}: no such directory (the Coelho set lives in ../shared/data/hashi/coelho2019)")
    methods = args.methods.split(",")
    info = environment()
    print_header(f"hashi, Coelho et al. 2019: {args.per_size} per size, backend {args.backend}, "
                 f"time limit {args.time_limit} s, seed {args.seed}", info)
    records = []
    for size in map(int, args.sizes.split(",")):
        files = sorted((args.data / str(size)).glob("*.has"))[:args.per_size]
        for path in files:
            (puzzle,) = hashi.parse(path.read_text(), str(path), "has")
            if "ilp" in methods:
                answer = puzzle.count_solutions(limit=1, time_limit=args.time_limit)
                solved = answer.solutions > 0 and not puzzle.check(answer.solution)
                records.append(dict(size=size, file=path.name, method="ilp", solved=solved, seconds=answer.seconds,
                                    setup_seconds=0.0, detail=f"{answer.rounds} solves, {answer.cuts} cuts"))
            if "anneal" in methods:
                result = runner.anneal(puzzle, backend=args.backend, chains=args.chains, seed=args.seed,
                                       time_limit=args.time_limit)
                records.append(dict(size=size, file=path.name, method="anneal", solved=result.solved,
                                    seconds=result.seconds, setup_seconds=result.setup_seconds,
                                    detail=f"{result.backend} {result.chains} chains, {result.trials} trials"))
            if args.json:
                for record in records[-len(methods):]:
                    print(json.dumps({**record, "commit": info["commit"], "gpu": info["gpu"]}), flush=True)
    rows = []
    for size in map(int, args.sizes.split(",")):
        for method in methods:
            group = [r for r in records if r["size"] == size and r["method"] == method]
            if not group:
                continue
            solved = [r["seconds"] for r in group if r["solved"]]
            rows.append([size, method, len(group), f"{len(solved)}/{len(group)}",
                         statistics.mean(solved) if solved else "-", max(solved) if solved else "-",
                         statistics.mean(r["setup_seconds"] for r in group), PUBLISHED_MEAN.get(size, "-")])
    print_table(["islands", "method", "instances", "solved", "mean s (solved)", "max s (solved)", "mean setup s",
                 "published ILP mean s"], rows)
    write_record("hashi", results=args.results, args=argv)


if __name__ == "__main__":
    main()
