"""Dask: one process against a LocalCluster of --workers processes, same answers, wall times.

    python3 bench/dask_cluster.py [--workers 2] [--hard-index 4] [--hard-chains 32] [--sample 12]
                                 [--set-chains 16] [--set-trials 2] [--batch 3] [--seed 1] [--repeat 2] [--json]
                                 [--results DIR]

Three cases, each run in one process (``runner.anneal`` / ``runner.anneal_many`` on the cpu
backend, every core) and on the cluster (``gpu_sa.apps.distributed``: one-thread workers, the
cpu backend of each taking its share of the cores), with the same options and seed:
  hard      one puzzle of bench/data/forum_hardest_sample.txt (--hard-index; the default needs
            several trials of --hard-chains chains): the trials are the tasks
  17-clue   the first --sample puzzles of bench/data/17_clue_sample.txt, with propagation (most
            fall to it before any move: the figure is the overhead) and without (the annealing
            work is what is split): batches of --batch puzzles are the tasks
Verify: the same answer per puzzle (chain, its moves, trials, grid) in every run, every solution
accepted by the independent validator. Timed (best of --repeat): the one-process call after a
warm-up run in the same process (so no compilation), and the cluster's call on warm workers; the
cluster's first call (each worker's warm-up included), its start and the warm-ups per worker are
reported on their own. The run's record goes to bench/results/dask_cluster/ (``--results``).

Not named dask.py: bench/ comes first on sys.path when a benchmark runs (and in tests that import
benchmarks), where a dask.py would hide the ``dask`` package from this process and its workers.
"""
from __future__ import annotations

import argparse
import json
import os
import time

from common import ROOT, add_results_option, environment, print_header, print_table, write_record

from gpu_sa.engine import runner
from gpu_sa.apps import distributed as dist
from gpu_sa.puzzles.sudoku import parse


def load(name):
    path = ROOT / "bench" / "data" / name
    return parse(path.read_text(), path.name)


def answer(result):
    return (result.solved, result.cost, result.chain, result.chain_moves, result.trials, tuple(result.best))


def verify(puzzle, result):
    if result.solved:
        assert puzzle.check(result.solution) == [], f"{puzzle.label}: the validator rejects the solution"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the LocalCluster")
    parser.add_argument("--hard-index", type=int, default=4, help="which puzzle of the forum_hardest sample (0-based)")
    parser.add_argument("--hard-chains", type=int, default=32, help="chains per trial for the hard puzzle")
    parser.add_argument("--sample", type=int, default=12, help="how many puzzles of the 17-clue sample")
    parser.add_argument("--set-chains", type=int, default=16, help="chains per puzzle for the 17-clue sample")
    parser.add_argument("--set-trials", type=int, default=2, help="trials at most per 17-clue puzzle")
    parser.add_argument("--batch", type=int, default=3, help="17-clue puzzles per launch, and per task")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=2, help="timed runs per measurement (the best is kept)")
    parser.add_argument("--json", action="store_true")
    add_results_option(parser)
    args = parser.parse_args(argv)
    # the worker processes import gpu_sa from this checkout
    os.environ["PYTHONPATH"] = str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")
    info = environment()
    info["workers"] = f"{args.workers} processes of 1 thread (LocalCluster)"
    print_header("Dask: one process vs a LocalCluster, same answers", info)

    hard = load("forum_hardest_sample.txt")[args.hard_index]
    clues = load("17_clue_sample.txt")[:args.sample]
    cases = [
        ("hard", [hard], dict(chains=args.hard_chains, trials=0)),
        ("17-clue, propagation", clues, dict(chains=args.set_chains, trials=args.set_trials, batch=args.batch)),
        ("17-clue, no propagation", clues, dict(chains=args.set_chains, trials=args.set_trials, batch=args.batch,
                                                propagate=False)),
    ]
    for _, puzzles, options in cases:  # compile (or load) here, so that the one-process times are annealing
        warm = {k: v for k, v in options.items() if k != "batch"}
        runner.anneal(puzzles[0], backend="cpu", seed=0, **dict(warm, max_moves=10, trials=1))

    rows, records, notes = [], [], []
    started = time.perf_counter()
    with dist.cluster(workers=args.workers) as client:
        notes.append(f"cluster of {args.workers} workers started in {time.perf_counter() - started:.2f} s")
        print(f"# {notes[-1]}")
        for name, puzzles, options in cases:
            common = dict(backend="cpu", seed=args.seed, **options)

            def one_process():
                if name == "hard":
                    return [runner.anneal(hard, **common)]
                return list(runner.anneal_many(puzzles, **common))

            def cluster():
                if name == "hard":
                    run = dist.solve_one(hard, client=client, **common)
                    return [run.result], run
                return list(dist.solve_many(puzzles, client=client, **common)), None

            alone, one_seconds = timed(one_process, args.repeat)
            # the first call on the cluster warms the workers up (imports, propagation, compiled code)
            t0 = time.perf_counter()
            spread, first = cluster()
            cold_seconds = time.perf_counter() - t0
            (spread_again, run), warm_seconds = timed(cluster, args.repeat)
            for puzzle, a, b, c in zip(puzzles, alone, spread, spread_again):
                for result in (a, b, c):
                    verify(puzzle, result)
            same = (len(alone) == len(spread) == len(spread_again)
                    and all(answer(a) == answer(b) == answer(c) for a, b, c in zip(alone, spread, spread_again)))
            assert same, f"{name}: the cluster's answers differ from one process's"
            if first is not None:
                notes.append(f"{name}: warm-up per worker on the first call "
                             + ", ".join(f"{seconds:.2f} s" for seconds in first.warmup.values())
                             + ", on a later call " + ", ".join(f"{seconds * 1e3:.1f} ms" for seconds in run.warmup.values()))
                print(f"# {notes[-1]}")
                busy = sum(t.result.seconds + t.result.setup_seconds for t in run.trials)
                notes.append(f"{name}: on warm workers the finished trials kept them busy {busy:.2f} s of "
                             f"{warm_seconds * args.workers:.2f} s")
                print(f"# {notes[-1]}")
                tasks = f"{len(run.trials)} trials finished on {len(run.workers)} workers, {run.cancelled} cancelled"
            else:
                tasks = f"{-(-len(puzzles) // args.batch)} batches of {args.batch}"
            solved, trials = sum(r.solved for r in alone), sum(r.trials for r in alone)
            rows.append([name, len(puzzles), f"{solved}/{len(puzzles)}", trials, one_seconds, cold_seconds,
                         warm_seconds, f"{one_seconds / warm_seconds:.2f}", "yes" if same else "NO", tasks])
            records.append(dict(case=name, puzzles=len(puzzles), solved=solved, trials=trials,
                                one_process_s=one_seconds, cluster_first_s=cold_seconds, cluster_warm_s=warm_seconds,
                                workers=args.workers, same_answers=same, commit=info["commit"]))
    print("# verify: the same answer per puzzle in every run; every solution accepted by the validator")
    print(f"# times: best of {args.repeat} (the cluster's first call once: it includes the workers' warm-up)")
    print_table(["case", "puzzles", "solved", "trials", "one process s", f"{args.workers} workers, first call s",
                 f"{args.workers} workers s", "ratio (one / workers)", "same answers", "tasks"], rows)
    if args.json:
        for record in records:
            print(json.dumps(record))
    write_record("dask_cluster", notes=notes, results=args.results, args=argv)


def timed(function, repeat):
    """(the last result, the best wall time of ``repeat`` calls)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - t0)
    return result, best


if __name__ == "__main__":
    main()
