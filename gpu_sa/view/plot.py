"""Pictures of a run's trace, or of a time-to-solution table (``gpu-sa plot``, ``gpu_sa.cli.commands.plot``).

Two kinds of input, told apart by content:
  trace  records of ``gpu_sa.engine.trace`` (``solve --trace``: JSON Lines or CSV): best and mean
         cost and acceptance, against moves (with the temperature) and against temperature;
  tts    the JSON lines of ``bench/tts.py --json`` (the tables printed around them are
         skipped): success probability p and TTS99 against the budget of moves per chain,
         one colour per move, thin lines per puzzle, a thick line for the median.
"""
from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path

from ..engine import trace as trace_module

PICTURE_FORMATS = ("png", "svg", "pdf")


class PlotError(ValueError):
    """Bad input for a picture: one line for the user."""


def load(path, kind: str = "auto", *, max_mb: int | None = None) -> tuple[str, list[dict]]:
    """(kind, records) of a trace file or of ``bench/tts.py --json`` output (at most ``max_mb`` MB of it)."""
    tts = _tts_records(path, max_mb) if kind in ("auto", "tts") else []
    if tts:
        _check_numbers(path, tts, ("budget", "p", "tts99_moves", "tts99_seconds"))
        return "tts", tts
    if kind == "tts":
        raise PlotError(f"{path}: no JSON line of 'bench/tts.py --json' (with 'budget' and 'p') in it")
    records = trace_module.read(path, max_mb=max_mb)
    if not records:
        raise PlotError(f"{path}: no records")
    _check_numbers(path, records, ("trial", "moves", "temperature", "best_cost"),
                   optional=("mean_cost", "acceptance"))
    return "trace", records


def _check_numbers(path, records, required, optional=()):
    """Every record holds a number in each required field, and in each optional one present in the first."""
    names = required + tuple(name for name in optional if name in records[0])
    for index, record in enumerate(records, 1):
        for name in names:
            value = record.get(name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                what = "no" if value is None else f"{value!r} as its"
                raise PlotError(f"{path}: record {index} has {what} {name}, not a number")


def _tts_records(path, max_mb=None):
    try:
        lines = trace_module.read_bytes(path, max_mb).decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []  # trace_module.read says why in one line
    records = []
    for line in lines:
        if line.startswith("{"):
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and {"budget", "p", "tts99_moves"} <= record.keys():
                records.append(record)
    return records


def select_puzzles(records, labels):
    if not labels:
        return records
    chosen = [r for r in records if r.get("puzzle") in labels]
    if not chosen:
        known = ", ".join(dict.fromkeys(str(r.get("puzzle")) for r in records))
        raise PlotError(f"no record of {', '.join(labels)}; the file holds {known}")
    return chosen


def format_of(output):
    suffix = Path(output).suffix.lower().lstrip(".")
    if suffix not in PICTURE_FORMATS:
        raise PlotError(f"{output}: the picture's name must end in .png, .svg or .pdf")
    return suffix


def by_puzzle(records) -> dict[str, list[dict]]:
    groups = defaultdict(list)
    for record in records:
        groups[record.get("puzzle", "")].append(record)
    return dict(groups)


def run_moves(records) -> list[int]:
    """Moves per chain since the run began: each trial starts where the previous one ended."""
    offset, last_trial, last_moves, out = 0, None, 0, []
    for record in records:
        trial = record.get("trial", 1)
        if last_trial is not None and trial != last_trial:
            offset += last_moves
        last_trial, last_moves = trial, record["moves"]
        out.append(offset + record["moves"])
    return out


def draw_trace(records, title):
    """Cost (best, mean) and acceptance against moves (temperature on a second axis) and temperature."""
    from matplotlib import ticker
    from matplotlib.figure import Figure

    figure = Figure(figsize=(11, 7.5), layout="constrained")
    (cost_moves, cost_temp), (accept_moves, accept_temp) = figure.subplots(2, 2)
    temp_axis = accept_moves.twinx()
    colours = _colours(len(by_puzzle(records)))
    for colour, (label, group) in zip(colours, by_puzzle(records).items()):
        moves = run_moves(group)
        name = f"{label}: " if len(colours) > 1 else ""
        cost_moves.step(moves, [r["best_cost"] for r in group], where="post", color=colour, label=f"{name}best")
        if "mean_cost" in group[0]:
            cost_moves.plot(moves, [r["mean_cost"] for r in group], color=colour, ls="--", lw=1,
                            label=f"{name}mean")
        if "acceptance" in group[0]:
            accept_moves.plot(moves, [r["acceptance"] for r in group], color=colour, label=f"{name}acceptance")
        temp_axis.plot(moves, [r["temperature"] for r in group], color=colour, ls=":", lw=1.5)
        accept_moves.plot([], [], color=colour, ls=":", lw=1.5, label=f"{name}temperature (right axis)")
        for start in _trial_starts(group, moves):
            for axis in (cost_moves, accept_moves):
                axis.axvline(start, color=colour, lw=0.6, alpha=0.4)
        for trial_records in _trials(group):
            temps = [r["temperature"] for r in trial_records]
            cost_temp.plot(temps, [r["best_cost"] for r in trial_records], color=colour, marker=".", ms=3)
            if "mean_cost" in trial_records[0]:
                cost_temp.plot(temps, [r["mean_cost"] for r in trial_records], color=colour, ls="--", lw=1)
            if "acceptance" in trial_records[0]:
                accept_temp.plot(temps, [r["acceptance"] for r in trial_records], color=colour, marker=".", ms=3)
    for axis in (cost_moves, cost_temp):
        axis.set_yscale("symlog", linthresh=1)
        axis.set_ylim(bottom=0)
        axis.set_ylabel("cost (best solid, mean dashed)")
    for axis in (accept_moves, accept_temp):
        axis.set_ylabel("acceptance (accepted / proposed)")
        axis.set_ylim(0, None)
    for axis in (cost_moves, accept_moves):
        axis.set_xlabel("moves per chain (thin vertical lines: restarts)")
        axis.xaxis.set_major_formatter(ticker.EngFormatter(sep=""))
        axis.grid(alpha=0.3)
    temperatures = [r["temperature"] for r in records]
    positive = min(temperatures) > 0
    for axis in (cost_temp, accept_temp):
        axis.set_xlabel("temperature (falling to the right)")
        if positive:
            axis.set_xscale("log")
            _plain_log_labels(axis.xaxis, ticker)
        axis.invert_xaxis()
        axis.grid(alpha=0.3)
    temp_axis.set_ylabel("temperature (dotted)")
    if positive:
        temp_axis.set_yscale("log")
        _plain_log_labels(temp_axis.yaxis, ticker)
    cost_moves.legend(loc="upper right", fontsize="small")
    accept_moves.legend(loc="upper right", fontsize="small")
    cost_moves.set_title("cost against moves")
    cost_temp.set_title("cost against temperature")
    accept_moves.set_title("acceptance and temperature against moves")
    accept_temp.set_title("acceptance against temperature")
    figure.suptitle(title)
    return figure


def _plain_log_labels(axis, ticker):
    """0.05 rather than 5x10^-2 on a log axis that spans less than a decade or two."""
    axis.set_major_formatter(ticker.FormatStrFormatter("%g"))
    axis.set_minor_formatter(ticker.FormatStrFormatter("%g"))


def _trials(group):
    trials = defaultdict(list)
    for record in group:
        trials[record.get("trial", 1)].append(record)
    return list(trials.values())


def _trial_starts(group, moves):
    return [moves[i - 1] for i in range(1, len(group)) if group[i].get("trial", 1) != group[i - 1].get("trial", 1)]


def draw_tts(records, title, unit="moves"):
    """Success probability and TTS99 against the budget: a colour per move, the median thick."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(11, 4.8), layout="constrained")
    success, tts = figure.subplots(1, 2)
    key = "tts99_moves" if unit == "moves" else "tts99_seconds"
    moves = list(dict.fromkeys(r.get("move", "") for r in records))
    for colour, move in zip(_colours(len(moves)), moves):
        rows = [r for r in records if r.get("move", "") == move]
        for label, group in by_puzzle(rows).items():
            group = sorted(group, key=lambda r: r["budget"])
            budgets = [r["budget"] for r in group]
            success.plot(budgets, [r["p"] for r in group], color=colour, lw=0.8, alpha=0.35)
            tts.plot(budgets, [_finite(r[key]) for r in group], color=colour, lw=0.8, alpha=0.35)
        budgets = sorted({r["budget"] for r in rows})
        median_p = [statistics.median(r["p"] for r in rows if r["budget"] == b) for b in budgets]
        median_tts = [_finite(statistics.median(r[key] for r in rows if r["budget"] == b)) for b in budgets]
        puzzles = len(by_puzzle(rows))
        success.plot(budgets, median_p, color=colour, lw=2.5, marker="o", label=f"{move} (median of {puzzles})")
        tts.plot(budgets, median_tts, color=colour, lw=2.5, marker="o", label=f"{move} (median of {puzzles})")
    from matplotlib import ticker

    for axis in (success, tts):
        axis.set_xscale("log")
        axis.xaxis.set_major_formatter(ticker.EngFormatter(sep=""))
        axis.set_xlabel("budget: moves per chain")
        axis.grid(alpha=0.3, which="both")
        axis.legend(fontsize="small")
    success.set_ylim(-0.02, 1.02)
    success.set_ylabel("p: fraction of chains that solve")
    success.set_title("success probability (thin: each puzzle)")
    tts.set_yscale("log")
    tts.set_ylabel("TTS99 (chain-moves)" if unit == "moves" else "TTS99 (seconds)")
    tts.set_title("time to 99 % success (gaps: p = 0)")
    figure.suptitle(title)
    return figure


def _finite(value):
    return float("nan") if value is None or value == float("inf") else value


def _colours(count):
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"]
    return [palette[i % len(palette)] for i in range(count)]


def save(figure, path, picture_format) -> None:
    # No date in SVG or PDF metadata, and a fixed SVG id salt: the same records give the same file.
    import matplotlib

    metadata = {"Date": None} if picture_format in ("svg", "pdf") else {}
    with matplotlib.rc_context({"svg.hashsalt": "gpu-sa"}):
        figure.savefig(path, format=picture_format, metadata=metadata, dpi=100)
