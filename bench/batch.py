"""Puzzles per second on data sets: the annealer batched (many puzzles per launch) against the same
annealer one puzzle at a time (``--batch 1``), the exact solver, and the default method, in one run.

    python bench/batch.py [--sets 17clue,top1465,16x16] [--count 40] [--seed 1] [--backend auto]
                          [--time-limit 60] [--modes batch,one,exact,default] [--json] [--results DIR]

Sets (the first ``--count`` puzzles of each; ../shared/data/sudoku, or GPU_SA_SHARED_DATA):
- ``17clue``: ``17_clue_dev.txt`` (9x9, 17 givens: the minimum; most fall to propagation alone);
- ``top1465``: ``top1465_dev.txt`` (9x9, hard for rule-based solvers);
- ``16x16``: the Lloyd & Amos generated 16x16 instances at 50 % givens (``lloyd_amos/inst16x16_50_*.txt``),
  written as one file.

Modes, each ONE WHOLE PROCESS over the whole set, as a user would run it (Python start, imports and
numba's cached setup included in the wall time):
- ``batch``:   ``gpu-sa solve SET --method anneal --no-propagate`` (dataset mode: puzzles share launches);
- ``one``:     the same with ``--batch 1`` (one puzzle after the other: the behaviour before batching);
- ``exact``:   ``gpu-sa exact SET --count-limit 1`` (the complete search, one solution each);
- ``default``: ``gpu-sa solve SET`` with no method (Sudoku's ``auto``: propagation first).
The anneal modes get ``--seed S --backend B --time-limit T`` (T per puzzle). ``--no-propagate`` keeps
propagation out of the batch/one ratio, so that it measures the batching (issue 15).

Every solution printed is checked by the independent validator (``gpu_sa.puzzles.sudoku.validate``:
givens kept, every rule satisfied); a solution that fails counts as unsolved. ``puzzles/s`` = puzzles
solved and valid / wall seconds of the process. The ratio column divides by ``one`` in the same run.
The run's record (every set's rows in one table) goes to bench/results/batch/ (``--results``).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import large
from common import ROOT, SHARED_DATA, add_results_option, environment, print_header, print_table, write_record

from gpu_sa.puzzles.sudoku.validate import sudoku_violations

SETS = ("17clue", "top1465", "16x16")
MODES = ("batch", "one", "exact", "default")


def load_set(name: str, count: int) -> list[list[int]]:
    """The first ``count`` puzzles of a set, each a flat list of givens (0 = empty)."""
    sudoku = SHARED_DATA / "sudoku"
    if name == "16x16":  # bench/large.py's reader of the Lloyd & Amos files
        found, _ = large.instances([16], [50], count, sudoku / "lloyd_amos", None)
        return [[value for row in instance.givens for value in row] for instance in found]
    path = sudoku / {"17clue": "17_clue_dev.txt", "top1465": "top1465_dev.txt"}[name]
    puzzles = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if len(line) == 81 and not line.startswith("#"):
            puzzles.append([int(c) if c.isdigit() else 0 for c in line])
            if len(puzzles) == count:
                break
    return puzzles


def numbers_text(puzzles: list[list[int]]) -> str:
    """Puzzles in the numbers format (rows of integers, 0 = empty), a blank line between puzzles."""
    blocks = []
    for givens in puzzles:
        side = int(round(len(givens) ** 0.5))
        blocks.append("\n".join(" ".join(map(str, givens[r * side:(r + 1) * side])) for r in range(side)))
    return "\n\n".join(blocks) + "\n"


def command(mode: str, path: Path, args) -> list[str]:
    program = [sys.executable, "-m", "gpu_sa"]
    if mode == "exact":
        return [*program, "exact", str(path), "--count-limit", "1", "--json", "--output-format", "numbers"]
    common = ["--seed", str(args.seed), "--backend", args.backend, "--time-limit", str(args.time_limit), "--json",
              "--quiet", "--output-format", "numbers"]
    if mode == "default":
        return [*program, "solve", str(path), *common]
    extra = ["--batch", "1"] if mode == "one" else []
    return [*program, "solve", str(path), "--method", "anneal", "--no-propagate", *common, *extra]


def count_solved(stdout: str, puzzles: list[list[int]]) -> tuple[int, int]:
    """(solved and valid, claimed but invalid), records matched to puzzles by their order."""
    records = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    valid = invalid = 0
    for givens, record in zip(puzzles, records):
        solution = record.get("solution")
        if not solution:
            continue
        side = int(round(len(givens) ** 0.5))
        values = [int(v) for v in solution.split()]
        grid = [values[r * side:(r + 1) * side] for r in range(side)]
        rows = [givens[r * side:(r + 1) * side] for r in range(side)]
        if len(values) == side * side and not sudoku_violations(grid, rows):
            valid += 1
        else:
            invalid += 1
    return valid, invalid


def run(mode: str, path: Path, puzzles, args) -> dict:
    argv = command(mode, path, args)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, env=large._env())
    wall = time.perf_counter() - start
    valid, invalid = count_solved(done.stdout, puzzles)
    return {"mode": mode, "puzzles": len(puzzles), "solved": valid, "invalid": invalid, "wall": wall,
            "per_second": valid / wall, "exit": done.returncode, "command": " ".join(argv[2:]),
            "stderr": done.stderr.strip().splitlines()[-1:] if done.returncode not in (0, 1) else []}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, from {', '.join(SETS)}")
    parser.add_argument("--count", type=int, default=40, help="puzzles per set (default 40)")
    parser.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, from {', '.join(MODES)}")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backend", default="auto")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per puzzle for the annealer")
    parser.add_argument("--json", action="store_true", help="one JSON object per (set, mode) instead of tables")
    add_results_option(parser)
    args = parser.parse_args(argv)
    sets, modes = args.sets.split(","), args.modes.split(",")
    for name in sets:
        if name not in SETS:
            parser.error(f"unknown set {name!r}; choose from {', '.join(SETS)}")
    for mode in modes:
        if mode not in MODES:
            parser.error(f"unknown mode {mode!r}; choose from {', '.join(MODES)}")
    info = environment()
    title = "bench/batch.py: puzzles per second, batched vs one at a time vs exact"
    if not args.json:
        print_header(title, info)
        print(f"#   command: {' '.join(sys.argv)}")
    recorded = []
    with tempfile.TemporaryDirectory() as folder:
        for name in sets:
            puzzles = load_set(name, args.count)
            path = Path(folder) / f"{name}.txt"
            path.write_text(numbers_text(puzzles))
            rows = [run(mode, path, puzzles, args) for mode in modes]
            one = next((r for r in rows if r["mode"] == "one"), None)
            for row in rows:
                row["set"] = name
                row["vs_one"] = row["per_second"] / one["per_second"] if one and one["per_second"] else None
                if args.json:
                    print(json.dumps(row), flush=True)
                recorded.append({"set": name, "mode": row["mode"], "puzzles": row["puzzles"], "solved": row["solved"],
                                 "invalid": row["invalid"], "wall s": row["wall"], "puzzles/s": row["per_second"],
                                 "vs one": row["vs_one"], "exit": row["exit"], "command": row["command"]})
            if not args.json:
                print(f"\n{name}: {len(puzzles)} puzzles")
                print_table(["mode", "solved", "invalid", "wall s", "puzzles/s", "vs one", "exit"],
                            [[r["mode"], f"{r['solved']}/{r['puzzles']}", r["invalid"], r["wall"], r["per_second"],
                              r["vs_one"] if r["vs_one"] is not None else "-", r["exit"]] for r in rows])
                for row in rows:
                    print(f"#   {row['mode']}: {row['command']}" + (f"  ({row['stderr'][0]})" if row["stderr"] else ""))
                sys.stdout.flush()
    write_record("batch", recorded, info=info, title=title, results=args.results, args=argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
