"""Traces of a run: one record per chunk of moves and puzzle, as JSON Lines or CSV.

    with TraceWriter("run.jsonl") as trace:
        gpu_sa.anneal(puzzle, progress=trace.recorder(puzzle.label))
        list(runner.anneal_many(puzzles, progress=trace.recorder([p.label for p in puzzles])))
    records = read("run.jsonl")

A record is the puzzle's label followed by every field of ``gpu_sa.engine.runner.Progress`` but
``index``, which the label stands for (``FIELDS`` first, in that order; fields the runner adds
later pass through after them):

    puzzle, trial, moves, seconds, plateau, temperature, best_cost, mean_cost, acceptance,
    proposals_per_second, max_moves, exchange_rates, ...

A batch of puzzles sharing the launches gives each chunk one record per puzzle still in its
trial, each of that puzzle's chains alone: a trace is per puzzle whatever the batching.

The format follows the name: ``.csv`` is CSV with a header line, anything else JSON Lines.
Each record is flushed as it is written, so a run that is killed keeps its trace up to its
last chunk. An existing file is overwritten only when asked (``overwrite=True``; ``--force``).
"""
from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from pathlib import Path

FIELDS = ("puzzle", "trial", "moves", "seconds", "plateau", "temperature", "best_cost", "mean_cost", "acceptance",
          "proposals_per_second")


class TraceError(ValueError):
    """A trace that cannot be written or read: one line for the user."""


class TraceWriter:
    """Write progress records to ``path`` (JSON Lines, or CSV when the name ends in ``.csv``)."""

    def __init__(self, path, *, overwrite: bool = False):
        self.path = Path(path)
        self.csv = self.path.suffix.lower() == ".csv"
        try:
            self._file = open(self.path, "w" if overwrite else "x", encoding="utf-8", newline="")
        except FileExistsError:
            raise TraceError(f"{self.path}: exists; a trace is never overwritten unless asked (--force overwrites "
                             f"it), else remove it or choose another name") from None
        except OSError as error:
            raise TraceError(f"{self.path}: {error.strerror}") from None
        self._columns = None
        self.records = 0

    def write(self, puzzle_label: str, progress) -> None:
        """Append one record: ``puzzle_label`` and every field of ``progress`` (a runner.Progress) but its
        ``index``, the puzzle's position in the run's input, which the label names."""
        fields = dataclasses.asdict(progress) if dataclasses.is_dataclass(progress) else dict(progress)
        fields.pop("index", None)
        record = {"puzzle": puzzle_label}
        record.update((name, fields.pop(name)) for name in FIELDS[1:] if name in fields)
        record.update(fields)
        if self.csv:
            self._write_csv(record)
        else:
            self._file.write(json.dumps(record, default=_plain) + "\n")
        self._file.flush()
        self.records += 1

    def recorder(self, labels):
        """A ``progress`` callable that writes every record under its puzzle's label: ``labels`` is the label of
        ``gpu_sa.anneal``'s puzzle, or the labels of ``runner.anneal_many``'s puzzles in input order (a record's
        ``index`` picks its own)."""
        if isinstance(labels, str):
            return lambda progress: self.write(labels, progress)
        labels = list(labels)
        return lambda progress: self.write(labels[progress.index], progress)

    def _write_csv(self, record):
        if self._columns is None:
            self._columns = list(record)
            csv.writer(self._file).writerow(self._columns)
        elif list(record) != self._columns:
            raise TraceError(f"{self.path}: a record with fields {list(record)} differs from the CSV header "
                             f"{self._columns}")
        csv.writer(self._file).writerow(_csv_cell(value) for value in record.values())

    def close(self) -> None:
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def read(path, *, max_mb: int | None = None) -> list[dict]:
    """Every record of a trace file (JSON Lines or CSV, told apart by content), numbers as numbers.

    A last JSON line cut short (the run was killed while writing it) is dropped; any other line
    that is not a JSON object is an error. At most ``max_mb`` MB are read (``options.read_limited``).
    """
    path = Path(path)
    try:
        text = read_bytes(path, max_mb).decode("utf-8")
    except UnicodeDecodeError:
        raise TraceError(f"{path}: not a text file (UTF-8)") from None
    except OSError as error:  # "No such file or directory", "Is a directory", ...
        raise TraceError(f"{path}: {error.strerror}") from None
    if text.lstrip().startswith("{"):
        return _read_json_lines(path, text)
    return _read_csv(path, text)


def read_bytes(path, max_mb: int | None = None) -> bytes:
    """The file's bytes, at most ``max_mb`` MB (a larger or endless file: ``options.UsageError``)."""
    from ..options import open_input, read_limited

    with open_input(path) as handle:  # a FIFO without a writer: not a wait in open(2), deaf to Ctrl-C
        return read_limited(handle, str(path), max_mb)


def _read_json_lines(path, text):
    records = []
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            if number == len(lines):  # no newline after it: cut short by a kill
                break
            raise TraceError(f"{path}:{number}: not a JSON object") from None
        if not isinstance(record, dict):
            raise TraceError(f"{path}:{number}: not a JSON object")
        records.append(record)
    return records


def _read_csv(path, text):
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return []
    header = rows[0]
    if "puzzle" not in header:
        raise TraceError(f"{path}:1: not a trace (no 'puzzle' column in the header, nor a JSON object)")
    records = []
    for number, row in enumerate(rows[1:], 2):
        if not row:
            continue
        if len(row) != len(header):
            if number == len(rows) and not text.endswith("\n"):
                break  # cut short by a kill
            raise TraceError(f"{path}:{number}: {len(row)} fields, the header has {len(header)}")
        records.append({name: (value if name == "puzzle" else _csv_value(value)) for name, value in zip(header, row)})
    return records


def _plain(value):
    """JSON for the NumPy scalars and arrays a future Progress field may hold."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"cannot write {type(value).__name__} to a trace")


def _csv_cell(value):
    if isinstance(value, (list, tuple, dict)) or hasattr(value, "tolist"):
        return json.dumps(value, default=_plain)
    if isinstance(value, float) and not math.isfinite(value):
        return json.dumps(value)  # Infinity, -Infinity, NaN: what _csv_value reads back
    return value


def _csv_value(text):
    for parse in (int, float):
        try:
            return parse(text)
        except ValueError:
            pass
    if text[:1] in "[{" or text in ("Infinity", "-Infinity", "NaN", "true", "false", "null"):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass
    return text
