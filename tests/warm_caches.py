"""Fill numba's disk cache ahead of the test session, in a process of its own (``tests/conftest.py`` starts it).

In a fresh clone numba's cache is empty, and the first test to call a jitted function compiles it (138 s of the
session's own time on a 2-core VM: ``cdcl`` 27 s, the minimal-puzzle prover 26 s, the root's stronger propagation
13 s, ...). This script makes the same calls, with the same argument
types, beside the session and below it (nice 10; conftest's background jobs run below this, at nice 19), in the
order the session first needs them; a function it has compiled by then is loaded from the cache instead. It
changes no result: a cached function is the same code, and one it has not reached yet is compiled by the session
as before.

Each step is a small public call; a step that fails is reported and the others still run, and the exit status
is then 1 (``tests/test_warm_caches.py`` checks it, so that a renamed function cannot quietly end the warm-up).
"""
from __future__ import annotations

import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

import gpu_sa  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
EASY = (EXAMPLES / "seed_easy.txt").read_text()


def _cdcl_and_the_stronger_root():
    from gpu_sa.puzzles.sudoku.exact import counting

    # ``counting._loaded``'s parts of the seeded search, the CDCL before the restarted search: the session reaches the
    # CDCL about 12 s after the search, and the CDCL takes twice as long to compile
    for entry in ("stronger_root", "cdcl", "search_core"):
        counting._loaded(entry)


def _anneal(move):
    def step():
        gpu_sa.anneal(gpu_sa.parse(EASY)[0], move=move, backend="cpu", chains=2, seed=1, max_moves=2000)
    return step


def _batches():
    from gpu_sa.engine import runner

    puzzles = [gpu_sa.parse(EASY)[0]] * 3
    for batch in (1, 3):
        list(runner.anneal_many(puzzles, batch=batch, backend="cpu", chains=2, seed=1, max_moves=2000))


def _other_puzzles():
    from gpu_sa import puzzles

    for kind, name in (("shikaku", "shikaku_7x7.txt"), ("hashi", "hashi_10x10.txt")):
        puzzle = puzzles.module(kind).parse((EXAMPLES / name).read_text())[0]
        gpu_sa.anneal(puzzle, backend="cpu", chains=2, seed=1, max_moves=2000)


def _counting_and_the_rules():
    from gpu_sa.puzzles.sudoku import exact

    grid = exact.count_solutions(np.full(81, -1), 3, limit=1).solution
    holes = np.where(np.arange(81) % 3 == 0, -1, grid)
    exact.count_many(holes[None, :], 3, limit=2)
    exact.count_many(np.full((1, 16), -1), 2, limit=2)
    for order in (2, 3):
        peers, units, cell_units, full = exact.tables(order)
        cand = np.full(order ** 4, full, dtype=np.uint64)
        exact.rule_round(cand.copy(), peers, units, cell_units, full, None)
        trace = np.zeros((1 + order ** 6, exact.TRACE_COLUMNS), dtype=np.int64)
        exact.rule_round(cand.copy(), peers, units, cell_units, full, trace)


def _minimizing():
    from gpu_sa.puzzles.sudoku import generate

    grids = generate.grids(1, method="backtrack", seed=21)
    for method in generate.MINIMIZE_METHODS:
        generate.minimize(grids, 3, method=method, seed=4, iterations=200, max_nodes=200)


# in the order the session first needed them (a fresh clone's session, 2 cores, twenty-first session: the CDCL at
# about 50 s, the swap batches at 80 s, the other puzzles' kernels at 120 s, counting at 200 s, minimizing at 270 s);
# the files that needed the CDCL and the minimizer first now run after the others (conftest, ``after_the_warm_up``)
STEPS = [
    ("the CDCL and the stronger root", _cdcl_and_the_stronger_root),
    ("move swap in batches", _batches),
    ("move sirdey", _anneal("sirdey")),
    ("move tabu", _anneal("tabu")),
    ("Shikaku and Hashiwokakero", _other_puzzles),
    ("counting and the rules", _counting_and_the_rules),
    ("minimizing", _minimizing),
]


def main() -> int:
    failed = []
    for name, step in STEPS:
        start = time.perf_counter()
        try:
            step()
        except Exception:  # noqa: BLE001 - every step runs; the failures are listed and make the exit status
            failed.append(name)
            print(f"warm-up step failed: {name}\n{traceback.format_exc()}", file=sys.stderr)
        print(f"{name}: {time.perf_counter() - start:.1f} s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
