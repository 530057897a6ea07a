"""Render the performance page and the README's headline table from the benchmark records.

    python bench/render.py [--results DIR] [--page docs/performance.md] [--readme README.md] [--check]

Reads every record under ``bench/results/<script>/*.json`` (``bench/common.py`` writes them, one per run). The page
(``docs/performance.md``) has, for each benchmark, the latest record per device and command: its date, device
and command above the table the script printed, as it printed it. Ratios are only those a record holds,
measured in the same run; none is computed here across records. The README's headline table, between the markers
``<!-- headline:begin -->`` and ``<!-- headline:end -->``, gives five figures, each from the latest record that holds
it with its peer (``HEADLINES``); a README without the markers is left alone.

``--check``: render, compare with the files, write nothing; exit 1 (naming the files) where they differ.
Nothing here depends on the clock or the machine: the same records render the same page.
"""
from __future__ import annotations

import argparse
import ast
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
PAGE = ROOT / "docs" / "performance.md"
README = ROOT / "README.md"
RESULTS = BENCH / "results"
BEGIN, END = "<!-- headline:begin -->", "<!-- headline:end -->"
REQUIRED = ("script", "date", "commit", "device", "command", "environment", "rows")

# The page's order: the figures a reader asks for first, then the rest by name.
ORDER = ("gpu", "throughput", "tts", "large", "exact", "startup", "batch", "generate", "minimize", "seed_puzzles",
         "shikaku", "hashi", "portfolio_choice", "view_search", "ablation", "tabu_sweep", "cooperate", "sweep_schedule",
         "swap_graph", "dask_cluster", "limits", "no_solution", "sass", "fuzz", "fuzz_input", "exact_oracle")


# ---------------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------------

class BadRecord(ValueError):
    pass


def load(folder: Path) -> list[dict]:
    """Every record under ``folder``, each with ``path`` (relative to ``folder``) added; a file that is not a
    record is an error that names it."""
    records = []
    for path in sorted(folder.glob("*/*.json")):
        try:
            record = json.loads(path.read_text())
        except json.JSONDecodeError as error:
            raise BadRecord(f"{path}: not JSON ({error})") from None
        missing = [key for key in REQUIRED if key not in record] if isinstance(record, dict) else list(REQUIRED)
        if missing:
            raise BadRecord(f"{path}: not a benchmark record (missing {', '.join(missing)})")
        records.append({**record, "path": str(path.relative_to(folder))})
    return records


def latest(records: list[dict]) -> list[dict]:
    """The latest record of each (script, device, command); ties broken by the file's name."""
    kept = {}
    for record in sorted(records, key=lambda r: (r["date"], r["path"])):
        kept[(record["script"], device_key(record["device"]), record["command"])] = record
    return list(kept.values())


def device_key(device: dict) -> str:
    sys.path.insert(0, str(BENCH))
    from common import device_slug

    return device_slug(device)


def device_label(device: dict) -> str:
    """'NVIDIA H200 (16 cores of an Intel Xeon beside it)', 'AMD EPYC, 2 cores'."""
    cpu = device.get("cpu") or "CPU"
    cores = device.get("cores")
    text = f"{cpu}, {cores} core{'s' if cores != 1 else ''}" if cores else cpu
    if device.get("gpu"):
        text = f"{device['gpu']['name']} ({cores} cores of {_article(cpu)} beside it)" if cores else device["gpu"]["name"]
    return text + (f"; {device['note']}" if device.get("note") else "")


def _article(text: str) -> str:
    return ("an " if text[:1].lower() in "aeiou" else "a ") + text


def describe(script: str) -> str:
    """The first line of the script's docstring: what it measures."""
    path = BENCH / f"{script}.py"
    doc = (ast.get_docstring(ast.parse(path.read_text())) or "").strip() if path.exists() else ""
    return " ".join(doc.split("\n\n")[0].split()) if doc else ""


# ---------------------------------------------------------------------------------------------------
# Formatting
# ---------------------------------------------------------------------------------------------------

def cell(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if abs(value) >= 1e5 or (value and abs(value) < 1e-2):
            return f"{value:.3g}"
        return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value).replace("|", "/").replace("\n", " ")


def table(columns: list, rows: list[dict]) -> list[str]:
    if not rows:
        return ["(no rows)"]
    columns = list(columns) or list(rows[0])
    for row in rows:  # a key a later row has that the columns lack
        columns += [key for key in row if key not in columns]
    return ["| " + " | ".join(map(str, columns)) + " |", "|" + "|".join("---" for _ in columns) + "|",
            *("| " + " | ".join(cell(row.get(column)) for column in columns) + " |" for row in rows)]


def day(record: dict) -> str:
    return record["date"][:10]


# ---------------------------------------------------------------------------------------------------
# The headline
# ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Headline:
    """One row of the README's table: ``find(record)`` gives (what, gpu-sa, beside it, device) from a record that
    holds the figure and its peer, else None. The latest such record wins."""
    script: str
    find: Callable[[dict], tuple | None]


def rows_of(record: dict, name: str | None = None) -> list[dict]:
    if name is None:
        return record["rows"]
    return next((t["rows"] for t in record.get("tables", []) if t.get("name") == name), [])


def _number(value):
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _solved(text) -> tuple[int, int] | None:
    try:
        done, total = str(text).split("/")
        return int(done), int(total)
    except ValueError:
        return None


def _short(value: float, digits: int = 3) -> str:
    text = f"{value:.{digits}g}"
    return text.replace("e+", "e").replace("e0", "e")


def gpu_throughput(record):
    if not record["device"].get("gpu"):
        return None
    rows = [r for r in rows_of(record, "throughput") if (r.get("grid"), r.get("move"), r.get("backend")) ==
            ("9x9", "swap", "cuda") and _number(r.get("proposals/s")) and _number(r.get("x cpu"))]
    if not rows:
        return None
    best = max(rows, key=lambda r: r["chains"])
    cores = record["device"].get("cores")
    return (f"9x9 annealing, proposals per second (move `swap`, {best['chains']:,} chains)",
            _short(best["proposals/s"]), f"{best['x cpu']:.0f}x the same machine's {cores} CPU cores",
            record["device"]["gpu"]["name"])


def gpu_tts(record):
    if not record["device"].get("gpu"):
        return None
    rows = [r for r in rows_of(record, "tts") if _number(r.get("cuda TTS99 s")) and _number(r.get("cpu/cuda"))]
    if not rows:
        return None
    best = min(rows, key=lambda r: r["cuda TTS99 s"])
    puzzles = (_solved(best.get("cuda solved")) or (None, "the"))[1]
    return (f"9x9, time until 99 % of runs solve, {puzzles} of the hardest known puzzles",
            f"{_short(best['cuda TTS99 s'])} s", f"{best['cpu/cuda']:.0f}x sooner than the "
            f"{record['device'].get('cores')} CPU cores", record["device"]["gpu"]["name"])


def _cell_rows(record, size, percent):
    return {r.get("method"): r for r in record["rows"] if r.get("size") == size and r.get("givens %") == percent}


def local_search(record):
    cell_ = _cell_rows(record, "49x49", 50)
    ours, peer = cell_.get("anneal"), cell_.get("sudoku-ls")
    if not (ours and peer and _solved(ours.get("solved")) and _solved(peer.get("solved"))):
        return None
    solved, total = _solved(ours["solved"])
    budget = record.get("settings", {}).get("budget")
    return (f"49x49 at 50 % givens, local search, {total} puzzles" + (f", {budget:g} s each" if budget else ""),
            f"{solved} solved", f"Sudoku-LS: {_solved(peer['solved'])[0]}", cpu_label(record))


def complete_search(record):
    cell_ = _cell_rows(record, "49x49", 40)
    ours, peer = cell_.get("exact"), cell_.get("cadical")
    if not (ours and peer and _number(ours.get("median solve s")) and _number(peer.get("median solve s"))):
        return None
    total = _solved(ours.get("solved"))
    return (f"49x49 at 40 % givens, complete search, {total[1] if total else 'the'} puzzles, median",
            f"{_short(ours['median solve s'])} s", f"CaDiCaL: {_short(peer['median solve s'])} s", cpu_label(record))


def top1465(record):
    row = next((r for r in record["rows"] if r.get("set") == "top1465" and _number(r.get("numba median /s"))), None)
    if row is None:
        return None
    device = record["device"]
    where = _article(cpu_label(record)) if (device.get("cores") or 1) > 1 else _article(device.get("cpu") or "CPU")
    return ("9x9 top1465 set, counting solutions to 2, puzzles per second", f"{row['numba median /s']:,.0f}", "—",
            f"one core of {where}")


def cpu_label(record) -> str:
    device = record["device"]
    return f"{device.get('cores')}-core {device.get('cpu') or 'CPU'}"


HEADLINES = (Headline("gpu", gpu_throughput), Headline("gpu", gpu_tts), Headline("large", local_search),
             Headline("large", complete_search), Headline("exact", top1465))


def headline(records: list[dict]) -> list[str]:
    lines = ["| what | gpu-sa | beside it | date | device |", "|---|---|---|---|---|"]
    for spec in HEADLINES:
        found = [(record, got) for record in sorted(records, key=lambda r: (r["date"], r["path"]))
                 if record["script"] == spec.script and (got := spec.find(record)) is not None]
        if not found:
            continue
        record, (what, ours, beside, device) = found[-1]
        lines.append(f"| {what} | {ours} | {beside} | {day(record)} | {device} |")
    return lines


# ---------------------------------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------------------------------

INTRO = """# Performance

This page is rendered by `python bench/render.py` from the benchmark records in `bench/results/`; do not edit it
by hand. Each benchmark writes one record per run: its date, the code's version, the device, the command and the
table it printed. Below, for each benchmark, the latest record per device and command. A ratio in a table was
measured in the same run as both its figures; figures from different records are not compared here. Records
marked "transcribed" were copied from the project's earlier lab notes, with their original date, device, version
and command; "measured" ones were written by the benchmark itself. How to run each benchmark, and what it needs,
is in `bench/README.md`; what runs fast where is in [Running on a GPU](gpu.md)."""


def page(records: list[dict]) -> str:
    current = latest(records)
    scripts = sorted({r["script"] for r in current}, key=lambda s: (ORDER.index(s) if s in ORDER else len(ORDER), s))
    lines = [INTRO, "", "## Headline figures", "", *headline(records), "", "## Contents", ""]
    lines += [f"- [`{script}`](#{script}): {describe(script) or script}" for script in scripts]
    for script in scripts:
        lines += ["", f"## {script}", ""]
        about = describe(script)
        if about:
            lines += [f"`bench/{script}.py`: {about}", ""]
        chosen = sorted((r for r in current if r["script"] == script), key=lambda r: (r["date"], r["path"]),
                        reverse=True)  # the latest first
        for record in chosen:
            lines += record_section(record)
    return "\n".join(lines).rstrip() + "\n"


def record_section(record: dict) -> list[str]:
    source = "measured" if record.get("source", "measured") == "measured" else "transcribed"
    lines = [f"### {record.get('title') or record['script']}", "",
             "| date | device | command | record |", "|---|---|---|---|",
             f"| {day(record)} | {device_label(record['device'])} | `{record['command'].replace('|', '/')}` | "
             f"{source} |", ""]
    lines += table(record.get("columns") or [], record["rows"])
    for extra in record.get("tables", []):
        lines += ["", f"{extra['name'][:1].upper()}{extra['name'][1:]}:", "", *table(extra.get("columns") or [],
                                                                                    extra["rows"])]
    if record.get("notes"):
        lines += ["", *(f"- {note}" for note in record["notes"])]
    return lines + [""]


def readme_with(readme: str, block: list[str]) -> str | None:
    """``readme`` with the lines between the markers replaced by ``block``; None where the markers are missing."""
    start, end = readme.find(BEGIN), readme.find(END)
    if start < 0 or end < start:
        return None
    return readme[:start + len(BEGIN)] + "\n" + "\n".join(block) + "\n" + readme[end:]


# ---------------------------------------------------------------------------------------------------

def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=RESULTS, help="the records' folder (default: bench/results)")
    parser.add_argument("--page", type=Path, default=PAGE, help="the page to write (default: docs/performance.md)")
    parser.add_argument("--readme", type=Path, default=README, help="the README whose headline block is rewritten")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 where a file differs")
    args = parser.parse_args(argv)
    try:
        records = load(args.results)
    except BadRecord as bad:
        print(f"render.py: error: {bad}", file=sys.stderr)
        return 2
    outputs = {args.page: page(records)}
    if args.readme.exists():
        rendered = readme_with(args.readme.read_text(), headline(records))
        if rendered is None:
            print(f"render.py: {args.readme} has no {BEGIN} ... {END} markers: its headline left alone",
                  file=sys.stderr)
        else:
            outputs[args.readme] = rendered
    stale = [path for path, text in outputs.items() if not path.exists() or path.read_text() != text]
    if args.check:
        for path in stale:
            print(f"render.py: {path} differs from what the records render (run python bench/render.py)",
                  file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(outputs[path])
        print(f"render.py: wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
