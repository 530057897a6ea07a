"""Every entry point of the complete search against an independent counter (``cpu_ref.sudoku.count``).

The other tests of the search compare its variants with the deterministic search; this one checks that
reference itself, and every variant with it, against a counter that shares no code with the product: a count
of 0 is a proof of no solution, 1 of uniqueness, so each must be the true count (capped at the limit).
"""
import dataclasses
import json
import sys

import numpy as np
import pytest

from conftest import DATA, ROOT
from cpu_ref.sudoku.count import count_solutions as independent_count
from gpu_sa.puzzles.sudoku import exact
from gpu_sa.puzzles.sudoku.exact.clauses import CLAUSES, LOCAL_MINIMIZATION, SAVED_PHASES, SHORT_RESTARTS
from gpu_sa.puzzles.sudoku.exact.consistency import ALLDIFF, BOX_LINE, PROBE
from gpu_sa.puzzles.sudoku.exact.learning import PHASE, WDEG
from gpu_sa.puzzles.sudoku.exact.ordering import DUAL
from gpu_sa.puzzles.sudoku import parse
from gpu_sa.puzzles.sudoku.formats import write
from .test_search import _cases

LIMIT = 3
CASES = {2: 60, 3: 45, 4: 15, 5: 6}  # puzzles per order: a third each mostly unique, several solutions, a wrong given
HARD = parse((DATA / "sudoku_samples.txt").read_text())[:20]  # the forum's hardest 9x9 among them
SEARCHES = {  # name: count_solutions' keyword arguments (each a complete search)
    "deterministic": {},
    "deterministic, box-line": {"box_line": True},
    "restarts": {"seed": 5, "base_nodes": 2},
    # base_nodes 64 here: with 2, one hard 9x9 makes 2,047 restarts (7 s; 26 s before restarts.learned_by kept a sum)
    "restarts, every propagation and learning": {"seed": 5, "base_nodes": 64,
                                                 "features": BOX_LINE | ALLDIFF | PROBE | WDEG | PHASE | DUAL},
    "clause learning": {"seed": 5, "features": CLAUSES},
    "clause learning, 25x25's": {"seed": 5, "features": CLAUSES | SHORT_RESTARTS | SAVED_PHASES | LOCAL_MINIMIZATION},
    "clause learning, two racing": {"seed": 5, "features": CLAUSES, "searches": 2},
}


def _free_cell_set_wrong(puzzle, solution, rng):
    """The puzzle with one empty cell given a digit that no peer holds but the solution does not have there: a
    unique puzzle so changed has no solution, and on hard ones the seed's rules often do not see it."""
    side = puzzle.order ** 2
    grid = puzzle.givens.reshape(side, side)
    for cell in rng.permutation(np.flatnonzero(puzzle.givens < 0)):
        r, c = divmod(int(cell), side)
        top, left = r - r % puzzle.order, c - c % puzzle.order
        seen = {*grid[r].tolist(), *grid[:, c].tolist(),
                *grid[top:top + puzzle.order, left:left + puzzle.order].ravel().tolist()}
        wrong = [d for d in range(side) if d not in seen and d != solution[cell]]
        if wrong:
            givens = puzzle.givens.copy()
            givens[cell] = wrong[0]
            return givens
    raise AssertionError(f"{puzzle.label}: no empty cell takes a wrong digit")


def _hard_cases():
    """The hard 9x9s as they are (one solution each) and each with one wrong digit in an empty cell (none)."""
    rng = np.random.default_rng(9)
    cases = []
    for puzzle in HARD:
        found, first, complete = independent_count(puzzle.givens, 3, LIMIT)
        assert complete and found == 1, puzzle.label
        wrong = _free_cell_set_wrong(puzzle, first, rng)
        found, _, complete = independent_count(wrong, 3, LIMIT)
        assert complete and found == 0, puzzle.label
        cases += [(puzzle.givens, 1), (wrong, 0)]
    return cases


@pytest.fixture(scope="module")
def truths():
    """order -> [(givens, true count capped at LIMIT)] from the independent counter."""
    table = {}
    for order, count in CASES.items():
        table[order] = []
        for givens in _cases(order, count, seed=100 + order):
            found, first, complete = independent_count(givens, order, LIMIT)
            assert complete, "the independent counter ran out of branches: the case is too hard for it"
            if found:  # the counter's own solutions go through the validator too
                assert parse(write(givens, order, "numbers"))[0].check(np.array(first)) == []
            table[order].append((givens, found))
    table[3] += _hard_cases()
    return table


def test_the_cases_need_the_search_for_each_answer(truths):
    """0, 1 and several solutions at every order, and at 9x9 puzzles with none that the seed's rules alone do not
    refute (only a search does): otherwise the comparisons below could not fail where it matters."""
    for order, cases in truths.items():
        assert {min(found, 2) for _, found in cases} == {0, 1, 2}, order
    refuted_by_search = [givens for givens, found in truths[3]
                         if found == 0 and not exact.propagate(givens, 3).contradiction]
    assert len(refuted_by_search) >= 10


@pytest.mark.parametrize("name", SEARCHES)
def test_every_count_is_the_independent_count(truths, name):
    for order, cases in truths.items():
        for givens, found in cases:
            answer = exact.count_solutions(givens, order, limit=LIMIT, **SEARCHES[name])
            assert not answer.gave_up and answer.solutions == found, (name, order, givens.tolist())
            if found:
                assert parse(write(givens, order, "numbers"))[0].check(answer.solution) == []


@pytest.mark.parametrize("box_line", [False, True])
def test_the_batch_counts_are_the_independent_counts(truths, box_line):
    for order, cases in truths.items():
        answers = exact.count_many(np.stack([givens for givens, _ in cases]), order, limit=LIMIT, box_line=box_line)
        assert [answer.solutions for answer in answers] == [found for _, found in cases], order


def test_the_independent_counter_counts():
    """The counter itself on grids whose counts are known: the empty 4x4 has 288 solutions, a full grid one,
    a repeated given none, and a node cap it runs into says so."""
    assert independent_count([-1] * 16, 2, 1000)[0::2] == (288, True)
    _, full, _ = independent_count([-1] * 81, 3, 1)
    assert independent_count(full, 3, 5)[0::2] == (1, True)
    assert independent_count([0, 0] + [-1] * 14, 2, 5) == (0, None, True)
    assert independent_count([-1] * 81, 3, 10**9, node_cap=500)[2] is False


@pytest.mark.slow
def test_the_campaign_in_bench_reports_and_keeps_a_wrong_count(tmp_path, monkeypatch, capsys):
    """bench/exact_oracle.py (new random cases for as long as asked): a second of it passes; with a search that
    counts one too many it exits 1 and writes the failing puzzles down; a search that gives up is named."""
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    import exact_oracle
    failures = tmp_path / "failures.json"
    argv = ["exact_oracle.py", "--seconds", "1", "--orders", "2", "--failures", str(failures)]
    monkeypatch.setattr(sys, "argv", argv)
    assert exact_oracle.main() == 0 and not failures.exists()
    assert "failures: 0" in capsys.readouterr().out

    def one_too_many(*args, **kwargs):
        answer = exact.count_solutions(*args, **kwargs)
        return dataclasses.replace(answer, solutions=answer.solutions + 1)
    monkeypatch.setattr(exact_oracle, "count_solutions", one_too_many)
    assert exact_oracle.main() == 1
    written = json.loads(failures.read_text())
    assert written and any(case["problem"] == f"counted {case['independent'] + 1}"
                           for case in written if case.get("independent") is not None)
    capsys.readouterr()

    def gives_up_with_box_line(*args, **kwargs):
        answer = exact.count_solutions(*args, **kwargs)
        return dataclasses.replace(answer, gave_up=True) if kwargs.get("box_line") else answer
    monkeypatch.setattr(exact_oracle, "count_solutions", gives_up_with_box_line)
    assert exact_oracle.main() == 0
    out = capsys.readouterr().out
    table = out[out.index("the searches that gave up"):].splitlines()
    assert any("deterministic, box-line" in line for line in table)
    assert not any("restarts" in line or "clause learning" in line for line in table)
