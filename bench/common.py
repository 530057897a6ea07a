"""Shared pieces of the benchmarks: the environment header, table printing, and the record of each run.

Every benchmark prints its header (``print_header``) and its table (``print_table``), then calls
``write_record``: the run as one JSON file under ``bench/results/<script>/``, from which ``bench/render.py``
renders the performance page. A record::

    {"script": "throughput", "title": "...", "date": "2026-12-06T10:11:12Z", "commit": "560e864", "dirty": false,
     "device": {"cpu": "AMD EPYC", "cores": 2, "gpu": null}, "command": "python bench/throughput.py --orders 3",
     "environment": {"python": "3.11.7", "numpy": "2.4.6", "numba": "0.68.1", "numba_cuda": "0.30.4",
                     "gpu_sa": "0.1.0"},
     "settings": {...}, "columns": [...], "rows": [{...}, ...], "tables": [{"name": ..., "columns": [...],
     "rows": [...]}], "notes": [...], "source": "measured"}

``rows`` is the table the script printed, one flat dict per line, keyed by the printed column names, numbers as
numbers; ``tables`` the further tables a script prints (optional); ``settings`` the header's other entries.
"""
from __future__ import annotations

import datetime
import json
import math
import os
import platform
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
RESULTS = ROOT / "bench" / "results"
RESULTS_VARIABLE = "GPU_SA_BENCH_RESULTS"


def shared_data() -> Path:
    """The public puzzle sets: ../shared/data beside the checkout, or GPU_SA_SHARED_DATA (a git worktree lives
    elsewhere; a lent device gets the checkout alone)."""
    return Path(os.environ.get("GPU_SA_SHARED_DATA", ROOT.parent / "shared" / "data"))


SHARED_DATA = shared_data()


def environment() -> dict:
    """CPU, GPU, driver, library versions and commit, for the header of every benchmark."""
    import numba
    import numpy

    from gpu_sa import __version__
    from gpu_sa.engine import backends

    info = {"commit": checkout_commit(),
            "gpu_sa": __version__, "python": platform.python_version(), "numpy": numpy.__version__,
            "numba": numba.__version__, "cpu": _cpu_name(), "cores": backends.available_cores()}
    try:
        from importlib.metadata import version

        info["numba_cuda"] = version("numba-cuda")
    except Exception:
        info["numba_cuda"] = "absent"
    usable, simulated, why = backends.cuda_status()
    info["gpu"] = why if usable else f"none ({why})"
    if usable and not simulated:
        from numba import cuda

        info["cuda_driver"] = ".".join(map(str, cuda.cudadrv.driver.driver.get_version()))
        info["cuda_runtime"] = ".".join(map(str, cuda.runtime.get_version()))
        info.update(_gpu_facts())
    return info


def _gpu_facts() -> dict:
    """The current GPU's name, memory and driver (nvidia-smi's), for the header and the record's device."""
    from numba import cuda

    facts = {}
    try:
        device = cuda.get_current_device()
        name = device.name.decode() if isinstance(device.name, bytes) else device.name
        _, total = cuda.current_context().get_memory_info()
        facts.update(gpu_name=name, gpu_memory=f"{total / 2**30:.1f} GiB",
                     compute_capability="{}.{}".format(*device.compute_capability), sms=device.MULTIPROCESSOR_COUNT)
    except Exception:  # noqa: BLE001 - a header that says less, rather than no benchmark
        pass
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=60)
        if smi.returncode == 0 and smi.stdout.strip():
            facts["driver"] = smi.stdout.splitlines()[0].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return facts


_run = {"title": None, "info": None, "tables": []}  # what this run printed: write_record's defaults


def print_header(title: str, info: dict) -> None:
    print(f"# {title}")
    for key, value in info.items():
        print(f"#   {key}: {value}")
    _run.update(title=title, info=info, tables=[])


def print_table(columns: list[str], rows: list[list], *, name: str | None = None) -> list[dict]:
    """Print the table; return it as the record keeps it (``record_rows``), and remember it for ``write_record``
    (``name``: the table's name in the record where a script prints several)."""
    cells = [[_fmt(v) for v in row] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) if cells else len(c) for i, c in enumerate(columns)]
    print("| " + " | ".join(c.ljust(w) for c, w in zip(columns, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in cells:
        print("| " + " | ".join(v.rjust(w) for v, w in zip(row, widths)) + " |")
    kept = record_rows(columns, rows)
    _run["tables"].append({"name": name, "columns": list(columns), "rows": kept})
    return kept


def _fmt(value):
    if isinstance(value, float):
        if abs(value) >= 1e5 or (value and abs(value) < 1e-2):
            return f"{value:.3g}"
        return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def checkout_commit():
    """This checkout's commit, short, with "+dirty" when the tree has changes."""
    # GPU_SA_COMMIT: the commit measured where the copy's .git is absent or stale (bench/gpu.sh --commit sets it for
    # every benchmark it starts; on the first H200 the copy's .git named a commit four behind the tree measured)
    return os.environ.get("GPU_SA_COMMIT") or (_git("rev-parse", "--short", "HEAD")
                                               + ("+dirty" if _git("status", "--porcelain") else ""))


def _git(*args):
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception:
        return "unknown"


def _cores() -> int:
    """The cores this process may use (the engine's ``available_cores``, without importing it)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _cpu_name():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


# ---------------------------------------------------------------------------------------------------
# Records: one JSON file per run, under bench/results/<script>/ (bench/render.py reads them)
# ---------------------------------------------------------------------------------------------------

ENVIRONMENT_KEYS = ("python", "numpy", "numba", "numba_cuda", "gpu_sa")
DEVICE_KEYS = ("cpu", "cores", "gpu", "gpu_name", "gpu_memory", "driver", "cuda_driver", "cuda_runtime",
               "compute_capability", "sms")


def add_results_option(parser) -> None:
    """``--results DIR``: where the run's record goes."""
    parser.add_argument("--results", default=None, metavar="DIR",
                        help=f"folder of the run records (default: ${RESULTS_VARIABLE}, else bench/results; "
                             "'-': write none)")


def results_folder(given=None) -> Path | None:
    """Where a record goes: ``given`` (``--results``), else $GPU_SA_BENCH_RESULTS, else bench/results; None for
    none ('-'). Under a test (pytest's PYTEST_CURRENT_TEST, inherited by the processes a test starts) or on CI,
    only a folder named explicitly: the repository keeps records of measurements, not of test runs."""
    chosen = given if given is not None else os.environ.get(RESULTS_VARIABLE) or None
    if chosen is not None:
        return None if str(chosen) == "-" else Path(chosen)
    if os.environ.get("PYTEST_CURRENT_TEST") or os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        return None
    return RESULTS


def record_rows(columns, rows) -> list[dict]:
    """A printed table as a record keeps it: one dict per row, keyed by the column names, numbers as numbers (a
    number printed as text, such as '2.5' or '1,024', becomes one; '5/10' or '>60' stay text)."""
    return [{column: plain(value) for column, value in zip(columns, row)} for row in rows]


_INTEGER = re.compile(r"[+-]?(\d{1,3}(,\d{3})+|\d+)")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")


def plain(value):
    """``value`` as JSON holds it: NumPy scalars as Python numbers, numeric text as numbers, an infinite float as
    'inf' (JSON has no infinity), NaN as None; dicts and lists kept, anything else as text."""
    if value is None or isinstance(value, bool):
        return value
    if hasattr(value, "item") and not isinstance(value, (list, dict, str)):  # a NumPy scalar
        value = value.item()
    if isinstance(value, bool) or isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return None
        # six significant digits: a timing's later digits are noise
        return float(f"{value:.6g}") if math.isfinite(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, str):
        text = value.strip()
        if _INTEGER.fullmatch(text):
            return int(text.replace(",", ""))
        if _FLOAT.fullmatch(text):
            return float(text)
        return value
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return str(value)


def write_record(script: str, rows=None, *, columns=None, tables=None, notes=None, results=None, args=None,
                 info=None, title=None, program=None, source="measured", path=None) -> Path | None:
    """Write this run's record; returns its path, or None where none is written (see ``results_folder``).

    ``script``: the benchmark's name (its file in bench/, without .py); ``rows``: the table, as dicts or as
    ``print_table`` returned it (default: the first table printed since ``print_header``; the others go to
    ``tables``); ``columns``: their order (default: the printed table's, else the first row's keys); ``tables``:
    further tables, ``[{"name", "columns", "rows"}]``; ``notes``: lines worth keeping beside the table;
    ``results``: ``--results``; ``args``: the arguments as run (default ``sys.argv[1:]``); ``info``: the header's
    ``environment()`` (default: the one printed); ``program``: how the script is started (default
    ``python bench/SCRIPT.py``); ``path``: a record of this run written before, to write again (a run that
    records as it goes)."""
    folder = results_folder(results)
    if folder is None:
        return None
    printed = list(_run["tables"])
    if rows is None and printed:
        first, *others = printed
        rows, columns = first["rows"], columns or first["columns"]
        tables = (tables or []) + [{**table, "name": table["name"] or f"table {number}"}
                                   for number, table in enumerate(others, 2)]
    rows = [{str(key): plain(value) for key, value in row.items()} for row in (rows or [])]
    columns = list(columns) if columns else (list(rows[0]) if rows else [])
    info = info if info is not None else (_run["info"] or environment())
    commit, dirty = _commit(info["commit"] if "commit" in info else checkout_commit())
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    record = {"script": script, "title": title or _run["title"] or script, "date": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
              "commit": commit, "dirty": dirty, "device": device_of(info),
              "command": command_line(script, sys.argv[1:] if args is None else args, program),
              "environment": {key: plain(info.get(key)) for key in ENVIRONMENT_KEYS},
              "settings": {key: plain(value) for key, value in info.items()
                           if key not in ENVIRONMENT_KEYS + DEVICE_KEYS + ("commit",)},
              "columns": columns, "rows": rows}
    if tables:
        record["tables"] = [{"name": table.get("name") or f"table {number}",
                             "columns": list(table.get("columns") or (list(table["rows"][0]) if table["rows"] else [])),
                             "rows": [{str(k): plain(v) for k, v in row.items()} for row in table["rows"]]}
                            for number, table in enumerate(tables, 2)]
    if notes:
        record["notes"] = [notes] if isinstance(notes, str) else list(notes)
    record["source"] = source
    _run.update(title=None, info=None, tables=[])
    if path is not None and Path(path).exists():  # written again: the run's first date stays its date
        record["date"] = json.loads(Path(path).read_text()).get("date", record["date"])
    path = Path(path) if path is not None else record_path(folder, record)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dump(record))
    print(f"# record: {shown_path(path)}", file=sys.stderr)
    return path


def dump(record: dict) -> str:
    """The record as JSON text, one key per line and one table row per line (readable in a diff)."""
    def rows(values, indent):
        inner = ",\n".join(indent + "  " + json.dumps(row, ensure_ascii=False) for row in values)
        return "[\n" + inner + "\n" + indent + "]" if values else "[]"

    lines = []
    for key, value in record.items():
        if key == "rows":
            text = rows(value, " ")
        elif key == "tables":
            text = "[\n" + ",\n".join(
                "  {" + ", ".join(f"{json.dumps(k)}: " + (rows(v, "  ") if k == "rows" else json.dumps(v, ensure_ascii=False))
                                  for k, v in table.items()) + "}" for table in value) + "\n ]"
        else:
            text = json.dumps(value, ensure_ascii=False)
        lines.append(f" {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def record_path(folder: Path, record: dict) -> Path:
    """``folder/<script>/<UTC date and time>-<commit>-<device>.json``: the time too, so that two runs of one
    script on one day and commit (other options) keep a file each; ``-2``, ``-3`` ... where one still exists."""
    stamp = record["date"].replace(":", "")  # 2026-12-06T101112Z: no colons in a file name
    base = folder / record["script"] / f"{stamp}-{record['commit'] or 'unknown'}-{device_slug(record['device'])}"
    path, number = base.with_suffix(".json"), 1
    while path.exists():
        number += 1
        path = base.with_name(f"{base.name}-{number}.json")
    return path


def device_of(info: dict) -> dict:
    """The record's device: the CPU model and the cores this process may use; the GPU's name, memory and driver
    where a real one is usable (not the simulator)."""
    device = {"cpu": info.get("cpu") or _cpu_name(), "cores": plain(info.get("cores")) or _cores(), "gpu": None}
    gpu = str(info.get("gpu") or "")
    if gpu and not gpu.startswith("none") and "SIMULATOR" not in gpu.upper() and "CUDASIM" not in gpu.upper():
        name = info.get("gpu_name") or gpu.removeprefix("CUDA GPU ").strip()
        device["gpu"] = {"name": name, "memory": info.get("gpu_memory"), "driver": info.get("driver"),
                         "cuda": info.get("cuda_driver"), "compute_capability": info.get("compute_capability"),
                         "sms": plain(info.get("sms"))}
        device["gpu"] = {key: value for key, value in device["gpu"].items() if value is not None}
    return device


def device_slug(device: dict) -> str:
    """A short name for file names and for grouping: the GPU's ('nvidia-h200'), else the cores and the CPU's
    ('2-core-amd-epyc')."""
    if device.get("gpu"):
        return _slug(device["gpu"]["name"])
    cpu = re.sub(r"\((R|TM|tm|r)\)|\bCPU\b|\bProcessor\b|@.*$|\d+-Core", " ", str(device.get("cpu") or "cpu"))
    return f"{device.get('cores') or '?'}-core-{_slug(cpu)}"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40].strip("-") or "unknown"


OMITTED_OPTIONS = ("--results", "--commit")  # where a record goes, and the commit it names: the record's own keys


def command_line(script: str, args, program=None) -> str:
    """The run's command as one line, relative to the repository: ``python bench/SCRIPT.py ARGS`` with
    ``--results`` left out (where a record goes is not what it measured), ``--commit`` too (bench/gpu.sh's: the
    record's ``commit`` holds it), and paths inside the checkout made relative to it."""
    shown, skip = [], False
    for arg in map(str, args):
        if skip:
            skip = False
            continue
        if arg in OMITTED_OPTIONS:
            skip = True
            continue
        if arg.startswith(tuple(option + "=" for option in OMITTED_OPTIONS)):
            continue
        shown.append(shown_path(arg))
    return " ".join([program or f"python bench/{script}.py", *map(shlex.quote, shown)])


def shown_path(path) -> str:
    """A path inside the checkout, relative to it; the interpreter as ``python``."""
    text = str(path)
    if text == sys.executable:
        return "python"
    root = str(ROOT) + os.sep
    return text.replace(root, "") if root in text else text


def _commit(value) -> tuple[str | None, bool | None]:
    """(the short commit, whether the tree had changes) from ``checkout_commit``'s 'abc1234+dirty'."""
    text = str(value or "").strip()
    if not text or text.startswith("unknown"):
        return None, None
    return text.removesuffix("+dirty"), text.endswith("+dirty")
