"""Shared pieces of the benchmarks: the environment header and table printing."""
from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


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
    return info


def print_header(title: str, info: dict) -> None:
    print(f"# {title}")
    for key, value in info.items():
        print(f"#   {key}: {value}")


def print_table(columns: list[str], rows: list[list]) -> None:
    cells = [[_fmt(v) for v in row] for row in rows]
    widths = [max(len(c), *(len(r[i]) for r in cells)) if cells else len(c) for i, c in enumerate(columns)]
    print("| " + " | ".join(c.ljust(w) for c, w in zip(columns, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in cells:
        print("| " + " | ".join(v.rjust(w) for v, w in zip(row, widths)) + " |")


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


def _cpu_name():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"
