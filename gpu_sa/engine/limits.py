"""Sizes checked before allocating, so that a request too large for the machine gets one line, not a
``MemoryError`` traceback after minutes of swapping.

``check_memory(nbytes, what)`` compares a planned allocation with the memory this process can still
get: ``MemAvailable`` of ``/proc/meminfo`` (Linux), else ``os.sysconf``'s free pages (other POSIX
systems), lowered to what the memory cgroup still allows (containers) and to what the address-space
limit (``ulimit -v``) leaves of the address space in use; where none of those can be
read, nothing is refused on memory grounds. ``check_cells`` caps the grid a puzzle file may describe:
a run-length code such as ``99999x99999:z`` is a few bytes of text for ten billion cells.

What no check foresaw still gets a line that names it: the steps that allocate in proportion to the input
run inside ``doing("reading x.txt")``, which marks a ``MemoryError`` passing through with what was being
done (``memory_context``); the command's last resort prints it.
"""
from __future__ import annotations

import contextlib
import os
from pathlib import Path

MAX_GRID_CELLS = 1_000_000  # e.g. 1000x1000; the public sets stop at a few thousand cells
ADDRESS_RESERVE = 512 << 20  # bytes of an address-space limit kept for the compiler and thread stacks
_UNITS = ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")
# cgroup v2 files, then v1 files: (limit, usage). v1 writes "no limit" as a huge number.
_CGROUP_FILES = (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
                 ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"))
_NO_CGROUP_LIMIT = 1 << 60


class TooLarge(ValueError):
    """A size over a limit; the message is one line: what, how much it needs, what there is."""


def format_bytes(nbytes: float) -> str:
    """``10522669875`` -> ``'9.8 GiB'``."""
    value, unit = float(nbytes), 0
    while value >= 1024 and unit < len(_UNITS) - 1:
        value, unit = value / 1024, unit + 1
    return f"{int(value)} bytes" if unit == 0 else f"{value:.1f} {_UNITS[unit]}"


def _meminfo_available(path: str = "/proc/meminfo") -> int | None:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith("MemAvailable:"):
                amount, unit = line.split()[1:3]
                return int(amount) * (1024 if unit == "kB" else 1)
    except (OSError, ValueError, IndexError):
        pass
    return None


def _sysconf_available() -> int | None:
    try:
        pages, size = os.sysconf("SC_AVPHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    return pages * size if pages > 0 and size > 0 else None


def _cgroup_available() -> int | None:
    for limit_path, usage_path in _CGROUP_FILES:
        try:
            limit_text = Path(limit_path).read_text().strip()
            usage = int(Path(usage_path).read_text().strip())
        except (OSError, ValueError):
            continue
        if limit_text == "max" or not limit_text.isdigit() or int(limit_text) >= _NO_CGROUP_LIMIT:
            return None
        return max(0, int(limit_text) - usage)
    return None


def _rlimit_available() -> int | None:
    """What the process's address-space limit (``ulimit -v``, RLIMIT_AS) still allows: the limit less the
    address space in use (VmSize of /proc/self/status) and ADDRESS_RESERVE for what comes after the check
    (numba's compiler and the worker threads' stacks: without it LLVM dies of std::bad_alloc, an abort that
    no handler sees); None without a limit or where it cannot be read."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, AttributeError, OSError, ValueError):
        return None
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return max(0, soft - int(line.split()[1]) * 1024 - ADDRESS_RESERVE)
    except (OSError, ValueError, IndexError):
        pass
    return None


def available_memory() -> int | None:
    """Bytes this process can still allocate, as far as the system says; None when it cannot be read."""
    machine = _meminfo_available()
    if machine is None:
        machine = _sysconf_available()
    group = _cgroup_available()
    known = [amount for amount in (machine, group, _rlimit_available()) if amount is not None]
    return min(known) if known else None


def check_memory(nbytes: int, what: str, *, available: int | None = None) -> None:
    """Raise ``TooLarge`` when ``nbytes`` would not fit in the memory available (``available``, bytes,
    overrides the system's figure). ``what`` names the allocation: "40,000,000 chains"."""
    if nbytes < 0:
        raise ValueError(f"{what}: a negative size ({nbytes} bytes)")
    limit = available_memory() if available is None else available
    if limit is not None and nbytes > limit:
        raise TooLarge(f"{what} would need {format_bytes(nbytes)}, {format_bytes(limit)} available")


def check_cells(rows: int, cols: int, where: str, *, limit: int = MAX_GRID_CELLS,
                error: type[TooLarge] = TooLarge) -> None:
    """Raise ``error`` (a ``TooLarge``) for a grid of more than ``limit`` cells, before anything is
    allocated for it."""
    cells = rows * cols
    if cells > limit:
        raise error(f"{where}: a {cols}x{rows} grid (width x height) has {cells:,} cells; at most {limit:,} "
                       f"are accepted")


@contextlib.contextmanager
def doing(what: str):
    """Mark a MemoryError raised inside with ``what`` (the innermost step wins): "reading x.txt (the input is
    read whole)", "setting up 4,096 chains of 64x64 (1.0 GiB)"."""
    try:
        yield
    except MemoryError as error:
        if getattr(error, "gpu_sa_doing", None) is None:
            error.gpu_sa_doing = what
        raise


def memory_context(error: BaseException) -> str | None:
    """What was being done when ``error`` (a MemoryError) was raised, if a ``doing`` step said."""
    return getattr(error, "gpu_sa_doing", None)
