"""Seed 002's rules one round at a time, as its page's "Règles EUP" button applies them.

One press of the button applies each of the three rules once over the whole grid; the cells
it reveals spread their digit only at the next press, so between presses the grid may look
inconsistent (the seed says so). ``rule_rounds`` yields the grid after every press, with
what changed and why, until nothing changes or a rule finds a contradiction;
``render_round`` draws one round as text for a terminal (``gpu-sa exact --steps``). Every
field is a plain int, str, list or dict, so that ``Round.to_dict()`` goes straight to JSON
(the web page of ``gpu-sa view``).

Conventions: cells are 0-based row-major indices, digits 1-based (as printed), units are
{"kind": "row" | "column" | "box", "index": 0-based}; text says r1c1, row 1, box 1.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import exact

UNIT_KINDS = ("row", "column", "box")
STATUSES = ("start", "progress", "fixpoint", "solved", "contradiction")


@dataclass(frozen=True)
class Round:
    number: int  # 0: the givens before any rule; 1, 2, ...: after that many presses
    order: int
    masks: list  # every cell's candidates after the round: bit d set = digit d + 1 possible
    placed: list = field(default_factory=list)  # [{"cell", "digit", "rule"}]: cells down to one digit this round
    removed: list = field(default_factory=list)  # [{"rule", "cell", "digits", "unit", "by"}]: in the order applied
    contradiction: dict | None = None  # {"rule", "cell", "unit", "digits", "by", "text"}, or None
    # start | progress | fixpoint (nothing changed: only the search can go on) | solved | contradiction
    status: str = "progress"

    @property
    def side(self) -> int:
        return self.order * self.order

    def candidates(self, cell: int) -> list:
        """The 1-based digits still possible in ``cell``."""
        return _digits(self.masks[cell])

    def removed_by_rule(self) -> dict:
        """Candidates removed this round, per rule."""
        counts = {rule: 0 for rule in exact.RULES}
        for event in self.removed:
            counts[event["rule"]] += len(event["digits"])
        return counts

    def to_dict(self) -> dict:
        """JSON-ready: candidates as lists of 1-based digits (a 64-bit mask is no JavaScript number)."""
        return {"round": self.number, "order": self.order, "status": self.status,
                "candidates": [self.candidates(cell) for cell in range(len(self.masks))],
                "placed": self.placed, "removed": self.removed, "removed_by_rule": self.removed_by_rule(),
                "contradiction": self.contradiction}


def rule_rounds(givens, order: int, *, max_rounds: int | None = None):
    """Rounds of the seed's rules from the givens (0-based, -1 empty): round 0 (the givens,
    every free cell with every digit), then one per press, until a round changes nothing
    (status "fixpoint" or "solved") or finds a contradiction (status "contradiction").
    ``max_rounds`` stops earlier (the last round then has status "progress"). Up to 64x64: the rounds are written
    for one uint64 of candidates per cell."""
    if order > 8:
        raise ValueError(f"the rules' rounds are shown for grids up to 64x64, not {order * order}x{order * order}")
    givens = exact._check_givens(givens, order)
    peers, units, cell_units, full = exact.tables(order)
    cand = exact.initial_candidates(givens, order)
    yield Round(number=0, order=order, masks=[int(m) for m in cand], status="start")
    number = 0
    while max_rounds is None or number < max_rounds:
        number += 1
        before = cand.copy()
        # Every event removes a candidate, except the one that reports a contradiction.
        removable = int(sum(int(m).bit_count() for m in cand))
        trace = np.zeros((removable + 3, exact.TRACE_COLUMNS), dtype=np.int64)
        consistent = exact.rule_round(cand, peers, units, cell_units, full, trace)
        events = trace[1:1 + trace[0, 0]]
        removed, placed, contradiction = _describe(events, before, order)
        if not consistent:
            status = "contradiction"
        elif not removed:
            status = "solved" if all(_single(int(m)) for m in cand) else "fixpoint"
        else:
            status = "progress"
        yield Round(number=number, order=order, masks=[int(m) for m in cand], placed=placed, removed=removed,
                    contradiction=contradiction, status=status)
        if status != "progress":
            return


def _describe(events, before, order):
    """(removals, placements, contradiction) of one round's trace, in plain lists and dicts."""
    side = order * order
    masks = [int(m) for m in before]
    removed, placed = [], []
    contradiction = None
    for rule, kind, unit, source_a, source_b, cell, mask in events.tolist():
        name = exact.RULES[rule]
        by = [c for c in (source_a, source_b) if c >= 0]
        where = None if unit < 0 else {"kind": UNIT_KINDS[unit // side], "index": unit % side}
        digits = _digits(mask & ((1 << 64) - 1))
        if kind == exact.CONTRADICTION:
            contradiction = {"rule": name, "cell": cell if cell >= 0 else None, "unit": where, "digits": digits,
                             "by": by}
            contradiction["text"] = _contradiction_text(contradiction, side)
            continue
        removed.append({"rule": name, "cell": cell, "digits": digits, "unit": where, "by": by})
        was_single = _single(masks[cell])
        masks[cell] &= ~(mask & ((1 << 64) - 1))
        if _single(masks[cell]) and not was_single:
            placed.append({"cell": cell, "digit": _digits(masks[cell])[0], "rule": name})
    return removed, placed, contradiction


def _single(mask: int) -> bool:
    return mask != 0 and mask & (mask - 1) == 0


def _digits(mask: int) -> list:
    return [d + 1 for d in range(64) if mask >> d & 1]


def cell_name(cell: int, side: int) -> str:
    return f"r{cell // side + 1}c{cell % side + 1}"


def unit_name(unit: dict) -> str:
    return f"{unit['kind']} {unit['index'] + 1}"


def _contradiction_text(found: dict, side: int) -> str:
    digits = " ".join(map(str, found["digits"]))
    if found["cell"] is None:
        return f"{unit_name(found['unit'])} has no place left for {digits}"
    cell = cell_name(found["cell"], side)
    if found["rule"] == "uniqueness":
        return f"{cell} is the only place in {unit_name(found['unit'])} for each of {digits}"
    if found["rule"] == "exclusivity":
        return f"{cell} has no candidate left once {cell_name(found['by'][0], side)} takes {digits}"
    pair = " ".join(cell_name(c, side) for c in found["by"])
    return f"{cell} has no candidate left once the pair {pair} takes {digits} in {unit_name(found['unit'])}"


def render_round(step: Round, *, style: str = "auto", details: bool = True) -> str:
    """One round as text: a headline, the grid of candidates, what changed, and the outcome.

    ``style`` "pencil" draws every cell as an n x n block of its candidates (the digit alone
    once set); "counts" draws one token per cell, the digit once set, else "(k)" for k
    candidates (the seed's own text display); "auto" is pencil up to order 3. ``details``
    lists every removal, grouped by what caused it."""
    if style == "auto":
        style = "pencil" if step.order <= 3 else "counts"
    if style not in ("pencil", "counts"):
        raise ValueError(f"unknown style {style!r}; choose from auto, pencil, counts")
    side = step.side
    lines = [_headline(step)]
    lines += _pencil_grid(step) if style == "pencil" else _count_grid(step)
    if step.placed:
        lines.append("placed: " + ", ".join(f"{cell_name(p['cell'], side)}={p['digit']} ({p['rule']})"
                                            for p in step.placed))
    if details and step.removed:
        lines += _removal_lines(step)
    outcome = {"fixpoint": "nothing changed: the rules are stuck here, only the search can go on",
               "solved": "solved: every cell holds one digit and no rule objects",
               "contradiction": f"contradiction: {step.contradiction['text'] if step.contradiction else ''}"}
    if step.status in outcome:
        lines.append(outcome[step.status])
    return "\n".join(lines)


def _headline(step: Round) -> str:
    if step.number == 0:
        set_cells = sum(_single(m) for m in step.masks)
        return f"round 0 (givens): {set_cells} of {len(step.masks)} cells set"
    per_rule = step.removed_by_rule()
    total = sum(per_rule.values())
    rules = ", ".join(f"{rule} {count}" for rule, count in per_rule.items())
    placed = len(step.placed)
    return f"round {step.number}: {placed} cell{'s' * (placed != 1)} placed, {total} candidates removed ({rules})"


def _rule_line(index: int, order: int, width: int) -> str:
    """The separator between bands of boxes, or '' inside a band."""
    if index == 0 or index % order:
        return ""
    return "-+-".join(["-" * width] * order)


def _pencil_grid(step: Round) -> list:
    order, side = step.order, step.side
    digit_width = len(str(side))
    cell_width = order * digit_width + (order - 1)
    box_width = order * cell_width + 2 * (order - 1)
    lines = []
    for row in range(side):
        separator = _rule_line(row, order, box_width)
        if separator:
            lines.append(separator)
        elif row:
            lines.append("")
        for sub in range(order):  # the sub-rows of the row's cells
            boxes = []
            for box in range(order):
                cells = []
                for column in range(box * order, (box + 1) * order):
                    mask = step.masks[row * side + column]
                    slots = []
                    for k in range(order):
                        digit = sub * order + k  # 0-based digit in this slot
                        if _single(mask):
                            centre = (order // 2) * order + order // 2
                            shown = str(_digits(mask)[0]) if sub * order + k == centre else ""
                        else:
                            shown = str(digit + 1) if mask >> digit & 1 else "."
                        slots.append(shown.rjust(digit_width))
                    cells.append(" ".join(slots))
                boxes.append("  ".join(cells))
            lines.append(" | ".join(boxes).rstrip())
    return lines


def _count_grid(step: Round) -> list:
    order, side = step.order, step.side
    width = len(str(side)) + 2
    lines = []
    box_width = order * (width + 1) - 1
    for row in range(side):
        separator = _rule_line(row, order, box_width)
        if separator:
            lines.append(separator)
        boxes = []
        for box in range(order):
            tokens = []
            for column in range(box * order, (box + 1) * order):
                mask = step.masks[row * side + column]
                tokens.append((str(_digits(mask)[0]) if _single(mask) else f"({mask.bit_count()})").rjust(width))
            boxes.append(" ".join(tokens))
        lines.append(" | ".join(boxes))
    return lines


def _removal_lines(step: Round) -> list:
    """Removals grouped by cause: one line per spreading cell, hidden single or pair."""
    side = step.side
    groups: dict = {}
    for event in step.removed:
        unit = unit_name(event["unit"]) if event["unit"] else ""
        key = (event["rule"], unit, tuple(event["by"]))
        groups.setdefault(key, []).append(event)
    lines = []
    for (rule, unit, by), events in groups.items():
        targets = " ".join(f"{cell_name(e['cell'], side)}(-{','.join(map(str, e['digits']))})" for e in events)
        if rule == "exclusivity":
            cause = f"{cell_name(by[0], side)} is set"
        elif rule == "uniqueness":
            cause = f"hidden single in {unit}"
        else:
            cause = f"pair {' '.join(cell_name(c, side) for c in by)} in {unit}"
        lines.append(f"  {rule}: {cause}: {targets}")
    return lines
