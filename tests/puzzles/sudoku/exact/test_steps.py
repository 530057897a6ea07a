"""Seed 002's rules round by round (its page's "Règles EUP" button): rounds, JSON, text."""
import json

import numpy as np
import pytest

from conftest import DATA
from gpu_sa.puzzles.sudoku import exact
from gpu_sa.puzzles.sudoku.exact.steps import Round, render_round, rule_rounds
from gpu_sa.puzzles.sudoku import parse

SEED = parse((DATA / "seed_puzzles.txt").read_text())
SAMPLES = parse((DATA / "sudoku_samples.txt").read_text())
CONTRADICTION = parse("12345678." "........9" + "." * 63)[0]


def _apply(masks, removed):
    masks = list(masks)
    for event in removed:
        for digit in event["digits"]:
            masks[event["cell"]] &= ~(1 << (digit - 1))
    return masks


@pytest.mark.parametrize("puzzle", SEED + SAMPLES[::10] + parse((DATA / "sudoku16_45pct.txt").read_text()),
                         ids=lambda p: f"{p.order}-{p.line}")
def test_rounds_end_at_the_fixpoint_of_propagation(puzzle):
    rounds = list(rule_rounds(puzzle.givens, puzzle.order))
    assert rounds[0].number == 0 and rounds[0].status == "start"
    assert [r.number for r in rounds] == list(range(len(rounds)))
    assert all(r.status == "progress" for r in rounds[1:-1]) and rounds[-1].status in ("fixpoint", "solved")
    for before, after in zip(rounds, rounds[1:]):
        assert _apply(before.masks, after.removed) == after.masks  # the events say exactly what changed
    # The rules reach one closure whatever the order they are applied in: the rounds end where
    # the search's own propagation does.
    found = exact.propagate(puzzle.givens, puzzle.order)
    assert rounds[-1].masks == [int(m) for m in found.candidates]
    assert (rounds[-1].status == "solved") == bool((found.values >= 0).all())
    placed = {p["cell"] for r in rounds for p in r.placed}
    assert placed == set(np.flatnonzero((found.values >= 0) & (puzzle.givens < 0)).tolist())


def test_one_round_spreads_only_the_cells_set_when_it_began():
    """As on the seed's page: a cell revealed by a press keeps its digit in its peers until the next press."""
    rounds = list(rule_rounds(SEED[2].givens, 3, max_rounds=1))
    assert len(rounds) == 2 and rounds[1].status == "progress"
    first = rounds[1]
    spread = {e["by"][0] for e in first.removed if e["rule"] == "exclusivity"}
    assert spread <= set(np.flatnonzero(SEED[2].givens >= 0).tolist())
    peers = exact.tables(3)[0]
    lagging = [p for p in first.placed if any(first.masks[q] >> (p["digit"] - 1) & 1 for q in peers[p["cell"]])]
    assert lagging, "no revealed cell still shows its digit among its peers' candidates"


def test_every_rule_shows_up_and_events_name_their_cause():
    rules = {}
    for puzzle in SEED + SAMPLES:
        for step in rule_rounds(puzzle.givens, 3):
            for event in step.removed:
                rules.setdefault(event["rule"], event)
    assert set(rules) == {"exclusivity", "uniqueness", "parity"}
    assert len(rules["exclusivity"]["by"]) == 1 and rules["exclusivity"]["unit"] is None
    assert rules["uniqueness"]["by"] == [] and rules["uniqueness"]["unit"]["kind"] in ("row", "column", "box")
    pair = rules["parity"]
    assert len(pair["by"]) == 2 and pair["cell"] not in pair["by"]


def test_a_contradiction_ends_the_rounds_and_says_where():
    rounds = list(rule_rounds(CONTRADICTION.givens, 3))
    last = rounds[-1]
    assert last.status == "contradiction" and len(rounds) == 2
    assert last.contradiction["cell"] == 8 and last.contradiction["rule"] == "exclusivity"
    assert last.contradiction["text"] == "r1c9 has no candidate left once r2c9 takes 9"
    assert exact.count_solutions(CONTRADICTION.givens, 3).solutions == 0


def test_a_unit_without_a_place_for_a_digit_is_a_contradiction():
    # Row 1 holds 1..7 and r2c8, r2c9 hold 8 and 9: r1c8 and r1c9 can only take 8 or 9... which
    # their box already has: exclusivity empties them, or uniqueness finds no place for 8 and 9.
    givens = np.full(81, -1, dtype=np.int16)
    givens[:7] = np.arange(7)
    givens[[9 + 6, 9 + 7]] = [7, 8]  # r2c7 = 8, r2c8 = 9
    last = list(rule_rounds(givens, 3))[-1]
    assert last.status == "contradiction"
    assert "8" in last.contradiction["text"] or "9" in last.contradiction["text"]
    assert exact.count_solutions(givens, 3).solutions == 0


def test_rounds_are_json_ready():
    rounds = list(rule_rounds(SEED[1].givens, 3))
    record = json.loads(json.dumps(rounds[1].to_dict()))
    assert record["round"] == 1 and len(record["candidates"]) == 81
    assert record["candidates"][0] == rounds[1].candidates(0)
    assert all(1 <= d <= 9 for cell in record["candidates"] for d in cell)
    assert sum(record["removed_by_rule"].values()) == sum(len(e["digits"]) for e in record["removed"])
    assert isinstance(rounds[1], Round) and rounds[1].side == 9


def test_text_of_a_round():
    rounds = list(rule_rounds(SEED[2].givens, 3))
    text = render_round(rounds[1])
    lines = text.splitlines()
    assert lines[0].startswith("round 1: ") and "candidates removed (exclusivity" in lines[0]
    grid = lines[1:1 + 9 * 3 + 8]  # 9 rows of 3 text lines, 6 blank lines and 2 band rules
    assert sum(line.startswith("-") for line in grid) == 2
    assert grid[1].split("|")[2].split()[3] == "1"  # r1c8 = 1, the digit alone in the middle of its block
    assert any(line.startswith("placed: ") for line in lines)
    assert any(line.startswith("  exclusivity: r1c8 is set: r1c1(-1)") for line in lines)
    assert rounds[-1].status == "solved" and render_round(rounds[-1]).splitlines()[-1].startswith("solved: ")
    stuck = next(r[-1] for r in (list(rule_rounds(p.givens, 3)) for p in SAMPLES) if r[-1].status == "fixpoint")
    assert render_round(stuck).splitlines()[-1].startswith("nothing changed: the rules are stuck")
    assert "contradiction: r1c9 has no candidate left" in render_round(list(rule_rounds(CONTRADICTION.givens, 3))[-1])


def test_text_of_a_large_round_counts_candidates():
    puzzle = parse((DATA / "sudoku16_45pct.txt").read_text())[0]
    step = list(rule_rounds(puzzle.givens, 4, max_rounds=1))[1]
    lines = render_round(step, details=False).splitlines()
    rows = [line for line in lines[1:] if not line.startswith(("-", "placed"))]
    assert len(rows) == 16 and all(line.count("|") == 3 for line in rows)
    assert "(" in rows[0] and not any(line.startswith("  exclusivity") for line in lines)
    with pytest.raises(ValueError, match="unknown style"):
        render_round(step, style="fancy")
