"""Saying so, at once, when numba compiles the package's code: seconds of silence otherwise.

numba keeps machine code in an on-disk cache, so compilation happens once per machine (and again
after the sources change); but that once, a fresh install's first ``gpu-sa solve`` sat 15 s with
nothing on screen (on 2 cores now about 45 s, and 35 s more for the clause-learning search). numba
announces every real compilation (a cache miss; a cache load is not one) as a ``numba:compile``
event, and ``announced`` listens for them: the first event of each part of the package prints one
line, before the work starts, naming what is being compiled and about how long it takes.

    with compiling.announced(note):   # note(text): where the line goes (the command line's stderr)
        ...                           # first compilation of the search: "gpu-sa: compiling the complete
                                      # search for this machine, once: 20-45 s"

This module sits at the bottom of the layers: it imports numba only, and the engine calls
``watch_cuda`` when the CUDA backend starts (numba-cuda has an event registry of its own, and
importing it costs half a second, so it is not imported for runs that never touch CUDA).
"""
from __future__ import annotations

import contextlib
import threading
import time

# What is compiled, by the module of the function numba compiles (first match wins), and how long it takes on a
# 2-core machine from an empty cache (NUMBA_CACHE_DIR a new folder): about 22 s before a 9x9's exact count, 45 s
# before a seeded search or a 9x9's solve (the README's first command), 81 s before a 25x25's exact count, of which
# the CDCL is about 36 s. Each callee is compiled once per argument types (gpu_sa.engine.jit), not per literal.
PARTS = (
    ("gpu_sa.puzzles.sudoku.exact.clauses", "the clause-learning search (Sudoku from 25x25 up)", "about 35 s"),
    ("gpu_sa.puzzles.sudoku.exact", "the complete search and the propagation rules", "20-45 s"),
    # minimising compiles the 9x9 search its uniqueness checks call inside its own functions (one notice, this one):
    # `gpu-sa minimize` takes 62 s cold against 2.6 s warm on 2 cores, `--method brute` 116 s against 4.7 s
    ("gpu_sa.puzzles.sudoku.generate", "grid minimisation and the search behind its checks", "1-2 min"),
    ("gpu_sa.engine.probe", "a test kernel for the GPU", "a few seconds"),
    ("gpu_sa", "the annealer", "5-10 s per move"),  # moves, Philox, the generated launch code (gpu_sa_glue_...)
)

_lock = threading.Lock()
_listeners: list = []  # (note, parts already announced), innermost last


def describe(module_name: str) -> tuple[str, str] | None:
    """(what, how long) for a function of ``module_name``, or None for code outside the package."""
    for prefix, what, seconds in PARTS:
        if module_name == prefix or module_name.startswith((prefix + ".", prefix + "_")):
            return what, seconds
    return None


_open = threading.local()  # per thread: how many compilations are in progress (callees compile inside callers)
_running: dict = {}  # thread id -> (part, target) of the package's compilation it is in now
# (part, target) -> when it began compiling: a part is many functions compiled one after another, so a compilation
# that starts within RESUMED seconds of the part's last one ending goes on from the same start
_began: dict = {}
_ended: dict = {}  # (part, target) -> when its last compilation ended
RESUMED = 1.0


def _on_compile(event) -> None:
    """A compilation starts: announce its part if it is the outermost one (a callee, such as the search's
    Philox, compiles inside its caller and belongs to the caller's part)."""
    depth = getattr(_open, "depth", 0)
    _open.depth = depth + 1
    if depth:
        return
    dispatcher = (event.data or {}).get("dispatcher")
    function = getattr(dispatcher, "py_func", None)
    part = describe(getattr(function, "__module__", "") or "")
    if part is None:
        return
    target = "this GPU" if "cuda" in type(dispatcher).__module__ else "this machine"
    with _lock:
        now, key = time.monotonic(), (part, target)
        if key not in _running.values() and now - _ended.get(key, float("-inf")) >= RESUMED:
            _began[key] = now
        _running[threading.get_ident()] = key
        if not _listeners:
            return
        note, announced = _listeners[-1]
        if (part, target) in announced:
            return
        announced.add((part, target))
    what, seconds = part
    note(f"gpu-sa: compiling {what} for {target}, once (numba keeps it in its cache): {seconds}")


def _listener(event_module):
    class Listener(event_module.Listener):
        def on_start(self, event):
            _on_compile(event)

        def on_end(self, event):
            _open.depth = max(getattr(_open, "depth", 1) - 1, 0)
            if not _open.depth:
                with _lock:
                    key = _running.pop(threading.get_ident(), None)
                    if key is not None:
                        _ended[key] = time.monotonic()

    return Listener()


_registered: dict = {}  # event module name -> its listener, registered once per process


def in_progress() -> tuple[str, str, str, float] | None:
    """(what, for which target, how long it takes, seconds since its first function began compiling) of the part of
    the package being compiled now (the earliest begun when several threads compile), or None: for a progress line,
    which would otherwise count the compilation as the work's own time. Seen only within ``announced`` (its
    listener reports compilations)."""
    with _lock:
        if not _running:
            return None
        since, (what, seconds), target = min((_began[running], *running) for running in _running.values())
    return what, target, seconds, time.monotonic() - since


def compile_event_kind(event_module) -> str:
    """The kind under which ``event_module`` announces a compilation: "numba:compile" in numba's registry,
    "numba-cuda:compile" in numba-cuda 0.30's, which refuses the "numba:" prefix (ValueError); an older
    numba-cuda's copy of numba's registry kept numba's kinds. Read from the module's own built-in kinds: a name it
    does not fire would register without error and never be called."""
    builtin = getattr(event_module, "_builtin_kinds", frozenset())
    for kind in ("numba-cuda:compile", "numba:compile"):
        if kind in builtin:
            return kind
    return "numba:compile"


def _register(event_module) -> None:
    with _lock:
        if event_module.__name__ not in _registered:
            _registered[event_module.__name__] = listener = _listener(event_module)
            event_module.register(compile_event_kind(event_module), listener)


@contextlib.contextmanager
def announced(note):
    """Within the block, the first compilation of each part of the package is announced by ``note(text)``."""
    import numba.core.event

    _register(numba.core.event)
    with _lock:
        _listeners.append((note, set()))
    try:
        yield
    finally:
        with _lock:
            _listeners.pop()


def watch_cuda() -> None:
    """Announce numba-cuda's compilations too (called by the CUDA backend, which has imported numba-cuda)."""
    try:
        from numba.cuda.core import event
    except ImportError:  # an older numba-cuda: its kernels compile unannounced
        return
    _register(event)
