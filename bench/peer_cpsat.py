"""OR-Tools CP-SAT on one Sudoku, for bench/large.py's ``cpsat`` peer: one JSON line on stdout.

    python bench/peer_cpsat.py FILE --budget SECONDS --seed S [--workers W]

FILE: the seed's numbers format (N lines of N integers, 0 = empty). The model: one integer variable per
cell with domain 1..N (a given: its value), and ``AddAllDifferent`` over every row, column and box; no
search hint, no redundant constraint. Parameters: ``max_time_in_seconds`` = the budget,
``random_seed`` = the seed, ``num_workers`` = W (default 2: this project's machines have 2 cores).
Prints ``{"status", "solved", "grid" (rows, 1-based, or null), "seconds" (the solver's own wall time:
model building and the import of OR-Tools excluded), "workers", "version"}``. Needs the bench extra
(``pip install -e ".[bench]"``).
"""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import ortools
from ortools.sat.python import cp_model


def read_numbers(path: Path) -> list[list[int]]:
    return [[int(v) for v in line.split()] for line in path.read_text().splitlines() if line.strip()]


def solve(givens: list[list[int]], budget: float, seed: int, workers: int) -> dict:
    side = len(givens)
    order = math.isqrt(side)
    model = cp_model.CpModel()
    cells = [[model.NewIntVar(v, v, f"r{r}c{c}") if v else model.NewIntVar(1, side, f"r{r}c{c}")
              for c, v in enumerate(row)] for r, row in enumerate(givens)]
    for i in range(side):
        model.AddAllDifferent(cells[i])
        model.AddAllDifferent([cells[r][i] for r in range(side)])
        top, left = (i // order) * order, (i % order) * order
        model.AddAllDifferent([cells[top + r][left + c] for r in range(order) for c in range(order)])
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = budget
    solver.parameters.random_seed = seed
    solver.parameters.num_workers = workers
    status = solver.Solve(model)
    solved = status in (cp_model.OPTIMAL, cp_model.FEASIBLE)
    grid = [[solver.Value(v) for v in row] for row in cells] if solved else None
    return {"status": solver.StatusName(status), "solved": solved, "grid": grid, "seconds": solver.WallTime(),
            "workers": workers, "version": ortools.__version__}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", type=Path)
    parser.add_argument("--budget", type=float, required=True, help="max_time_in_seconds")
    parser.add_argument("--seed", type=int, default=0, help="random_seed")
    parser.add_argument("--workers", type=int, default=2, help="num_workers (default 2)")
    args = parser.parse_args(argv)
    print(json.dumps(solve(read_numbers(args.file), args.budget, args.seed, args.workers)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
