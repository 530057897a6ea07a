"""How every command ends: exit statuses, signals, output that fails, and the last resort.

    status  meaning (when several apply, the first one in this list wins)
    74      EX_IOERR: the output failed (standard output closed, a broken pipe, a full disk) or a
            --dump-states file could not be written; what was printed before stays printed
    129     stopped by SIGHUP  } at the next safe point, after reporting the best found so far;
    130     stopped by SIGINT  } a second signal aborts at once with the status of that signal,
    143     stopped by SIGTERM } unless it is the same signal within a second (the same request)
    2       bad input, a bad option, or an environment the program cannot run in (one line); also a file whose
            good puzzles were answered beside bad ones (one line each, and one that counts them)
    1       some puzzle was not solved, has no solution, or fewer results than asked were made
    0       everything asked was done
    70      EX_SOFTWARE: an internal error (a bug); one line asking to report it

Results are written as they are found, one flush per puzzle, through ``emit``; the commands'
loops ask ``gpu_sa.engine.stop.requested()`` between puzzles, and the engine's loops poll
``gpu_sa.engine.stop.FLAG`` within a puzzle. ``handling()`` installs the signal handlers: a handler
that only sets the flag, plus a thread woken through ``signal.set_wakeup_fd`` that sets it even
while the main thread runs compiled code, and that ends the process on the second signal.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
import traceback

from ..engine import stop

OK, UNSOLVED, USAGE, SOFTWARE, IOERR = 0, 1, 2, 70, 74
SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
SAME_REQUEST_SECONDS = 1.0  # the same stop signal again this soon after the first is the same request
DEBUG_VARIABLE = "GPU_SA_DEBUG"  # set to 1 to see the traceback of an internal error


class OutputFailed(Exception):
    """Standard output cannot be written any more; nothing else will be printed."""


class Outcome:
    """What a command found so far, turned into one exit status by the order above."""

    def __init__(self):
        self.unsolved = False
        self.io_failed = False

    def status(self) -> int:
        if self.io_failed:
            return IOERR
        if stop.requested():
            return 128 + (stop.signal_number() or signal.SIGINT)
        return UNSOLVED if self.unsolved else OK


def with_bad_puzzles(status: int, bad) -> int:
    """The status once a file's bad puzzles count (``bad``: (file, bad puzzles, all puzzles), or None; each was said
    as the file was read, ``commands.read_puzzles``): bad input (2) outranks a puzzle not solved (1) and success
    (0), as in the table above, so that a script sees that some of its puzzles were never tried; a last line says
    why, after the results, where the first lines may have scrolled away."""
    if bad is None or status not in (OK, UNSOLVED):
        return status
    source, count, total = bad
    note(f"gpu-sa: error: {source}: {count:,} of its {total:,} puzzles {'is' if count == 1 else 'are'} bad input "
         f"(each said above) and {'was' if count == 1 else 'were'} not tried")
    return USAGE


def emit(text: str) -> None:
    """Write ``text`` and a newline to standard output and flush: one result is on its way at once (a progress line
    shown in place is erased first: the result starts on a line of its own, and no stale progress stays above it).

    Straight to the descriptor, in a loop over partial writes: a signal that interrupts a blocked
    write to a full pipe makes write(2) return short, and CPython's buffered writer then keeps the
    rest of a line longer than its buffer (4 KiB on a pipe) without ever writing it (seen with
    strace: a 5 KB JSON line cut at 4096 bytes by a Ctrl-C)."""
    clear_in_place()
    try:
        descriptor = _descriptor(sys.stdout)
        if descriptor is None:  # a stream with no descriptor (a test's capture, an embedding program)
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
            return
        sys.stdout.flush()  # whatever went through the stream before comes first
        encoding, errors = getattr(sys.stdout, "encoding", None) or "utf-8", getattr(sys.stdout, "errors", None)
        pending = memoryview((text + "\n").encode(encoding, errors or "strict"))
        while pending:
            pending = pending[os.write(descriptor, pending):]
    except (OSError, ValueError) as error:  # ValueError: the stream was closed under us
        _silence(1)
        raise OutputFailed(_why(error)) from None


def _descriptor(stream) -> int | None:
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is both an OSError and a ValueError
        return None


def note(text: str) -> None:
    """One line on standard error (a progress line shown in place is erased first); an unwritable standard error
    never stops a run or loses a result."""
    with _in_place_lock:
        _erase_in_place()
        _write_error(text + "\n")


# A progress line on a terminal is rewritten in place (a carriage return, the line, erase to its end) and never
# ended: whatever is written next, to either stream, would land on it. So every other line erases it first.
_in_place_lock = threading.RLock()
_in_place = [False]  # a progress line is shown in place now


def note_in_place(text: str) -> None:
    """Show ``text`` on standard error (a terminal) in place of the progress line shown before, if any."""
    with _in_place_lock:
        _write_error("\r" + text + "\x1b[K")
        _in_place[0] = True


def clear_in_place() -> None:
    """Erase the progress line shown in place, if any: the cursor is left at the start of the empty line."""
    with _in_place_lock:
        _erase_in_place()


def _erase_in_place() -> None:
    if _in_place[0]:
        _in_place[0] = False
        _write_error("\r\x1b[K")


def _write_error(text: str) -> None:
    if sys.stderr is None:
        return
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except (OSError, ValueError):
        _silence(2)


def note_flush() -> None:
    """Flush both streams before ``os._exit``, quietly (the status is decided; a failure now changes nothing)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass


def flush() -> None:
    """The last flush of standard output, so that a failure there is reported too."""
    if sys.stdout is None:
        return
    try:
        sys.stdout.flush()
    except (OSError, ValueError) as error:
        _silence(1)
        raise OutputFailed(_why(error)) from None


def _why(error) -> str:
    if isinstance(error, BrokenPipeError):
        return "the reader closed the pipe"
    return getattr(error, "strerror", None) or str(error) or error.__class__.__name__


def _silence(fd: int) -> None:
    """Point ``fd`` at /dev/null, so that Python's own flush at exit does not fail again."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    except OSError:
        pass


def plug_closed_streams() -> dict:
    """Which of standard input, output and error were closed at start (``<&-``, ``>&-``, ``2>&-``).

    Each closed one gets /dev/null on its descriptor, so that a file opened later (a dump)
    cannot take descriptor 1 or 2 and receive text meant for the terminal.
    """
    closed = {"stdin": sys.stdin is None, "stdout": sys.stdout is None, "stderr": sys.stderr is None}
    for fd in range(3):
        try:
            os.fstat(fd)
        except OSError:
            try:
                os.open(os.devnull, os.O_RDWR)  # the lowest free descriptor: this one
            except OSError:
                pass
    return closed


@contextlib.contextmanager
def handling(keep: bool = False):
    """SIGINT, SIGTERM and SIGHUP stop the run at its next safe point; a second one aborts at once.

    Installed from the main thread only (Python's rule for signal handlers); elsewhere a no-op.
    ``keep``: the program exits right after; signals are then ignored, so that one arriving during
    the interpreter's shutdown (which puts the default handlers back) cannot change the exit status
    the command decided.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stop.clear()
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    previous = {signum: signal.signal(signum, _request) for signum in SIGNALS}
    previous_fd = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    watcher = threading.Thread(target=_watch, args=(read_end,), name="gpu-sa-signals", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        if keep:  # the command is over and its status decided: the interpreter's shutdown restores the
            # default handlers, and a late signal would then kill the process with another status
            for signum in SIGNALS:
                signal.signal(signum, signal.SIG_IGN)
        else:
            signal.set_wakeup_fd(previous_fd)
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            os.close(write_end)  # the watcher reads end-of-file and returns
            watcher.join(timeout=1.0)
            os.close(read_end)
            stop.clear()


def _request(signum, frame):
    stop.request(signum)


def _watch(read_end: int) -> None:
    """Count the signals as the C-level handler reports them; the second one ends the process, unless it is the
    same signal within SAME_REQUEST_SECONDS of the first: GNU timeout signals the process and then its whole
    group, a terminal and process managers signal every process of a group, so one request can arrive twice,
    and the partial result must still be printed."""
    first = None  # when the first signal came
    first_signal = None
    while True:
        try:
            data = os.read(read_end, 64)
        except OSError:
            return
        if not data:
            return
        for signum in data:
            if signum not in SIGNALS:
                continue
            if first is None:
                first, first_signal = time.monotonic(), signum
                stop.request(signum)
                continue
            if signum == first_signal and time.monotonic() - first < SAME_REQUEST_SECONDS:
                continue  # the same request, delivered twice
            with contextlib.suppress(OSError):
                os.write(2, f"gpu-sa: {signal.Signals(signum).name} again: aborting\n".encode())
            os._exit(128 + signum)


def last_resort(error: BaseException) -> int:
    """One line for what nobody expected, never a traceback (unless GPU_SA_DEBUG=1)."""
    if os.environ.get(DEBUG_VARIABLE) == "1":
        traceback.print_exception(error)
    culprit = _failed_import(error)
    if culprit:
        note(f"gpu-sa: error: {culprit} cannot start ({error.__class__.__name__}: {_first_line(error)}); "
             f"check its installation and environment variables (e.g. NUMBA_NUM_THREADS)")
        return USAGE
    if isinstance(error, MemoryError):
        from ..engine.limits import memory_context

        doing = memory_context(error)
        note(f"gpu-sa: error: out of memory while {doing}" if doing else
             "gpu-sa: error: out of memory (in a step that does not say what it allocates: please report it with "
             "the command line)")
        return USAGE
    note(f"gpu-sa: internal error: {error.__class__.__name__}: {_first_line(error)}. This is a bug: please report "
         f"it with the command line (run with {DEBUG_VARIABLE}=1 for the traceback)")
    return SOFTWARE


def _first_line(error) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else "(no message)"


def _failed_import(error) -> str | None:
    """The third-party package whose import raised ``error`` (a module body of it on the way), if any."""
    frames = traceback.extract_tb(error.__traceback__)
    for frame in frames:
        for marker in (os.sep + "site-packages" + os.sep, os.sep + "dist-packages" + os.sep):
            if marker in frame.filename and frame.name == "<module>":
                return frame.filename.split(marker, 1)[1].split(os.sep, 1)[0]
    return None
