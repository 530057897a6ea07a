"""Quick "no solution" proofs before annealing: every check fires on an impossible puzzle of
its own, the exact solver agrees that puzzle has no solution, and no check ever fires on a solvable one."""
import json
import time

import numpy as np
import pytest

from conftest import DATA, ROOT, run_cli
from gpu_sa.puzzles.hashi import exact as hashi_exact
from gpu_sa.puzzles.shikaku import exact as shikaku_exact
from gpu_sa.puzzles import hashi, shikaku, sudoku
from gpu_sa.puzzles.hashi.feasibility import contradiction as hashi_contradiction
from gpu_sa.puzzles.hashi.generate import generate as generate_hashi
from gpu_sa.puzzles.shikaku.generate import generate as generate_shikaku

IMPOSSIBLE_HASHI = [  # (plain grid, the check that proves it, as the reason's start)
    ("1.2", "the island numbers sum to 3, an odd number, but every bridge adds 2"),
    ("1.1\n...\n1.1", "4 islands need at least 3 bridges to form one network; their numbers allow 2"),
    ("8.2\n...\n2..", "island 8 at r1c1 can get at most 4 bridges from its 2 neighbours"),  # an 8 in a corner
    ("8..\n...\n..2", "island 8 at r1c1 has no neighbour to bridge to"),
    ("2.4.2.\n......\n......\n.2.4.2", "no chain of bridges can join island 2 at r1c1 to island 2 at r4c2: the "
                                       "islands fall into 2 groups"),
    ("43\n34", "the integer program's linear relaxation is infeasible"),  # 4 = 2 + 2 on both sides of a 3
]


@pytest.mark.parametrize("text, reason", IMPOSSIBLE_HASHI, ids=[r.split(" ")[0] + "-" + str(i)
                                                                for i, (_, r) in enumerate(IMPOSSIBLE_HASHI)])
def test_each_hashi_check_proves_its_case(text, reason):
    puzzle = hashi.parse(text)[0]
    assert puzzle.contradiction().startswith(reason) and puzzle.contradicts()
    assert hashi_exact.solve(puzzle.grid, limit=1).solutions == 0  # the ILP agrees


def test_the_relaxation_is_what_proves_the_last_hashi_case():
    geo = hashi.parse("43\n34")[0].geometry
    assert hashi_contradiction(geo, relaxation=False) is None and hashi_contradiction(geo) is not None


IMPOSSIBLE_SHIKAKU = [
    (". 1\n1 2", "clue 2 at r2c2 has no rectangle of area 2 that fits without another clue"),
    ("2 6 . 4\n. . . .\n. . . .", "no clue's rectangle can cover cell r3c1"),
    (". 4 .\n. . .\n4 . 1", "cell r2c2 lies inside every rectangle of clue 4 at r1c2 and of clue 4 at r3c1"),
    ("4 . .\n. . .\n1 . 4\n3 . .", "clue 4 at r3c3 has no rectangle left"),
    (". 3 . .\n. . . 4\n4 . . .\n. . 4 .\n. 2 . .\n3 . . 5\n. 3 . .\n2 . 2 .",
     "the integer program's linear relaxation is infeasible"),
]


@pytest.mark.parametrize("text, reason", IMPOSSIBLE_SHIKAKU, ids=[f"shikaku-{i}" for i in range(len(IMPOSSIBLE_SHIKAKU))])
def test_each_shikaku_check_proves_its_case(text, reason):
    puzzle = shikaku.parse(text)[0]
    assert puzzle.contradiction().startswith(reason) and puzzle.contradicts()
    if "no rectangle of area" not in reason:  # that one is not a model the ILP can build
        assert shikaku_exact.solve(puzzle.clues, limit=1).solutions == 0


def test_the_relaxation_is_what_proves_the_last_shikaku_case():
    puzzle = shikaku.parse(IMPOSSIBLE_SHIKAKU[-1][0])[0]
    assert puzzle.geometry.contradiction is None  # the pruning rules see nothing wrong


SOLVABLE_HASHI = sorted((DATA / "hashi_coelho").glob("*.has")) + [
    DATA / "hashi_coelho_100_001.has", ROOT / "examples" / "hashi_10x10.txt", ROOT / "examples" / "hashi_coelho_100.has"]
SOLVABLE_SHIKAKU = [ROOT / "examples" / "shikaku_7x7.txt"]


@pytest.mark.parametrize("path", SOLVABLE_HASHI + SOLVABLE_SHIKAKU, ids=lambda path: path.name)
def test_no_check_fires_on_a_solvable_file(path):
    kind = shikaku if path in SOLVABLE_SHIKAKU else hashi
    for puzzle in kind.parse(path.read_text(), str(path)):
        assert puzzle.contradiction() is None and not puzzle.contradicts()


def test_no_check_fires_on_generated_puzzles():
    # the generators plant a solution, so every puzzle they draw is solvable
    for seed in range(25):
        rows, cols = 3 + seed % 9, 3 + (seed * 5) % 11
        grid, _ = generate_hashi(rows, cols, islands=max(2, rows * cols // 5), seed=seed)
        assert hashi.Hashi(grid=np.asarray(grid, dtype=np.int32)).contradiction() is None, seed
        clues, _ = generate_shikaku(rows, cols, seed=seed)
        assert shikaku.Shikaku(clues=np.asarray(clues, dtype=np.int32)).contradiction() is None, seed


def test_sudoku_gives_its_reason_too():
    assert sudoku.parse("1" + "." * 80)[0].contradiction() is None
    stuck = sudoku.parse("12345678." "........9" + "." * 63)[0]  # r1c9 has no digit left
    assert stuck.contradiction() == "propagating the givens leads to a contradiction"


def test_an_impossible_hashi_is_answered_at_once_not_after_the_annealing_budget():
    # an 8 in a corner used to take the annealer's whole budget (68 trials)
    start = time.perf_counter()
    done = run_cli("solve", "-", "--kind", "hashi", "--backend", "numpy", "--json", stdin="8.2\n...\n2..\n")
    assert done.returncode == 1, done.stderr
    record = json.loads(done.stdout)
    assert record["solved"] is False and record["stopped"] == "contradiction" and record["moves"] == 0
    assert time.perf_counter() - start < 60  # a subprocess start; the annealer would take minutes
