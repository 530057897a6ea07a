"""Command-line options as declarations, and their values checked in one place with one message style.

Commands (``gpu_sa.cli.commands``) and puzzle kinds (``gpu_sa.puzzles``) declare their options as
``Option``s; ``gpu_sa.cli.main`` adds them to the parser, which keeps every value as the text typed,
and ``read`` converts them all here. A bad value gets one line naming the flag, the text given,
what was expected (type and range) and, where it helps, what the option is for:

    --chains 0: expected an integer >= 1 (independent chains run in lockstep)
    --seed -1: expected an integer from 0 to 18446744073709551615
    --t0 abc: expected a number > 0 (starting temperature)
    --size 1x1: expected ROWSxCOLS with 2 to 1,000,000 cells (grid size)

A kind's options are converted once the kind is known: two kinds may give one flag different
ranges. Options that make sense only for some values of another option say so
(``applies``): ``--delta applies to --schedule sirdey, not geometric``.
"""
from __future__ import annotations

import math
import os
import stat
import sys
from dataclasses import dataclass, field

MB = 1_000_000  # bytes: input limits are in MB
MAX_INPUT_MB = 16  # an input file (puzzles, @FILE lists, traces) holds at most this much unless --max-input says more
MAX_INTEGER = 2**63 - 1  # what the compiled code holds; every integer option is checked against it
MAX_SECONDS = 1e9  # time limits: about 32 years, and still exact as a float deadline
SHOWN = 60  # characters of a bad value quoted in an error line, at most


class UsageError(ValueError):
    """A bad option, option value or input: one line on stderr, exit status 2."""


class Value:
    """How one option's text becomes a value; ``expected`` says what is accepted."""

    expected = "a value"

    def __call__(self, text: str):  # pragma: no cover - every value type overrides it
        raise NotImplementedError

    def metavar(self) -> str | None:
        return None

    def expected_for(self, text: str) -> str:
        """What was expected, as the error line for ``text`` says it."""
        return self.expected


def _number(text: str) -> float | int:
    """An int from '250000', '250_000', '+3'; a float from '2.5e5', '1.0'; ValueError otherwise."""
    cleaned = text.strip().replace("_", "")
    if not cleaned.isascii():  # int() and float() accept full-width and other Unicode digits
        raise ValueError(text)
    return float(cleaned) if any(c in cleaned for c in ".eEnN") else int(cleaned)


@dataclass(frozen=True)
class Integer(Value):
    """A whole number in [low, high]; 2.5e5 and 250_000 are accepted when they are whole."""

    low: int = 0
    high: int | None = MAX_INTEGER  # None: no bound (a value that never reaches compiled code, e.g. a count)

    @property
    def expected(self) -> str:
        if self.high in (MAX_INTEGER, None):  # no bound of its own: the machine's, named only to a value past it
            return f"an integer >= {self.low}"
        return f"an integer from {self.low} to {self.high}"

    def expected_for(self, text: str) -> str:
        try:
            number = _number(text)
        except ValueError:
            return self.expected
        whole = isinstance(number, int) or (math.isfinite(number) and number == int(number))
        if self.high is not None and whole and int(number) > self.high:
            return f"an integer from {self.low} to {self.high}"
        return self.expected

    def __call__(self, text: str) -> int:
        number = _number(text)
        if isinstance(number, float) and not (math.isfinite(number) and number == int(number)):
            raise ValueError(text)
        value = int(number)
        if value < self.low or (self.high is not None and value > self.high):
            raise ValueError(text)
        return value


@dataclass(frozen=True)
class Real(Value):
    """A finite number above ``above`` (exclusive) and at most ``high``."""

    above: float = 0.0
    high: float | None = None

    @property
    def expected(self) -> str:
        return f"a number > {self.above:g}" + ("" if self.high is None else f" and at most {self.high:g}")

    def __call__(self, text: str) -> float:
        value = float(_number(text))
        if not (math.isfinite(value) and value > self.above and (self.high is None or value <= self.high)):
            raise ValueError(text)
        return value


SECONDS = Real(high=MAX_SECONDS)  # a time limit


@dataclass(frozen=True)
class Size(Value):
    """ROWSxCOLS, each side 1..``side``, at least ``min_cells`` cells."""

    min_cells: int = 1
    side: int = 1000

    @property
    def expected(self) -> str:
        return f"ROWSxCOLS with sides from 1 to {self.side:,} and at least {self.min_cells} cells"

    def metavar(self) -> str:
        return "ROWSxCOLS"

    def __call__(self, text: str) -> tuple[int, int]:
        parts = text.lower().split("x")
        if len(parts) != 2:
            raise ValueError(text)
        rows, cols = (Integer(1, self.side)(part) for part in parts)
        if rows * cols < self.min_cells:
            raise ValueError(text)
        return rows, cols


@dataclass(frozen=True)
class SquareSize(Value):
    """NxN, a square grid whose side N is one of ``sides``; the value is N."""

    sides: tuple[int, ...] = ()

    @property
    def expected(self) -> str:
        return f"NxN with N one of {', '.join(map(str, self.sides))}"

    def metavar(self) -> str:
        return "NxN"

    def __call__(self, text: str) -> int:
        parts = text.lower().split("x")
        if len(parts) != 2:
            raise ValueError(text)
        rows, cols = (Integer(1, None)(part) for part in parts)
        if rows != cols or rows not in self.sides:
            raise ValueError(text)
        return rows


# GPU threads per chain the cuda backend offers: 1 (a thread per chain, every move's kernel) or a block of whole
# warps per chain (a move's cooperative layout: gpu_sa.puzzles.sudoku.moves.tabu_block.THREADS, which a test
# checks this against). Whole warps, because a block's threads are scheduled 32 at a time: 33 would run as 64.
THREADS_PER_CHAIN = (1, 32, 64, 128, 256)


@dataclass(frozen=True)
class ThreadsPerChain(Value):
    """``auto`` (the value None: the launch plan chooses per move) or one of ``sizes``."""

    sizes: tuple[int, ...] = THREADS_PER_CHAIN

    @property
    def expected(self) -> str:
        return "auto or one of " + ", ".join(map(str, self.sizes))

    def metavar(self) -> str:
        return "T"

    def __call__(self, text: str) -> int | None:
        if text.strip().lower() == "auto":
            return None
        value = Integer(1, None)(text)
        if value not in self.sizes:
            raise ValueError(text)
        return value


@dataclass(frozen=True)
class Choice(Value):
    names: tuple[str, ...]

    @property
    def expected(self) -> str:
        return "one of " + ", ".join(self.names)

    def metavar(self) -> str:
        return "{" + ",".join(self.names) + "}"

    def __call__(self, text: str) -> str:
        if text not in self.names:
            raise ValueError(text)
        return text


@dataclass(frozen=True)
class Text(Value):
    """Any text (a path, a list parsed later)."""

    name: str = "TEXT"
    expected = "a text"

    def metavar(self) -> str:
        return self.name

    def __call__(self, text: str) -> str:
        return text


@dataclass(frozen=True)
class Option:
    """One option as commands and kinds declare it.

    ``value`` None makes a switch (present or not). ``default`` is what the command sees when the
    option is absent; ``None`` leaves the choice to the code that runs (and help text says what it
    is). ``applies`` names other options' values the option needs, e.g. ``{"schedule": ("sirdey",)}``.
    ``commands`` is for a kind's options: the commands that take them.
    """

    flag: str
    help: str
    value: Value | None = None
    default: object = None
    dest: str | None = None
    short: str | None = None
    metavar: str | None = None
    purpose: str = ""  # a few words for error messages: "(independent chains run in lockstep)"
    applies: dict = field(default_factory=dict)
    commands: tuple[str, ...] = ()
    group: str | None = None  # the --help section it is listed under
    required: bool = False

    @property
    def name(self) -> str:
        return self.dest or self.flag.lstrip("-").replace("-", "_")

    def add_to(self, parser, help_text: str | None = None) -> None:
        flags = (self.flag,) + ((self.short,) if self.short else ())
        text = (help_text or self.help).replace("%", "%%")
        if self.value is None:
            parser.add_argument(*flags, dest=self.name, action="store_true", default=None, help=text)
        else:
            parser.add_argument(*flags, dest=self.name, default=None, help=text, required=self.required,
                                metavar=self.metavar or self.value.metavar())

    def convert(self, text):
        """The value of ``text`` (what argparse kept); UsageError in the one style otherwise."""
        if self.value is None or text is None:
            return text
        try:
            return self.value(text)
        except (ValueError, OverflowError):
            why = f" ({self.purpose})" if self.purpose else ""
            raise UsageError(f"{self.flag} {shown(text)}: expected {self.value.expected_for(text)}{why}") from None


def shown(text: str) -> str:
    """A value as an error line quotes it: whole when short, else its ends and its length (a 100,000-digit
    --seed is not echoed back whole)."""
    if len(text) <= SHOWN:
        return text
    return f"{text[:SHOWN // 2]}...{text[-10:]} ({len(text):,} characters)"


def given(args, option: Option) -> bool:
    return getattr(args, option.name, None) not in (None, False)


def read(args, options) -> None:
    """Convert every declared option of ``args`` in place, check ``applies``, then fill defaults."""
    for option in options:
        setattr(args, option.name, option.convert(getattr(args, option.name, None)))
    # a default may depend on other options (a callable of args: solve's --method on the kind's first method)
    defaults = {option.name: option.default(args) if callable(option.default) else option.default
                for option in options}
    effective = dict(defaults)
    effective.update({name: value for name, value in vars(args).items() if value is not None})
    for option in options:
        if given(args, option):
            for other, values in option.applies.items():
                if effective.get(other) not in values:
                    raise UsageError(f"{option.flag} applies to --{other.replace('_', '-')} {' or '.join(values)}, "
                                     f"not {effective.get(other)}")
    for option in options:
        if getattr(args, option.name, None) is None:
            setattr(args, option.name, False if option.value is None else defaults[option.name])


def check_cooling(t0: float, t_end: float, start: str = "--t0", end: str = "--t-end") -> None:
    """A cooling schedule's temperature never rises: ``t0 >= t_end``."""
    if t0 < t_end:
        raise UsageError(f"{start} {t0:g} is below {end} {t_end:g}: the temperature would rise, and "
                         f"annealing cools: the first temperature must be at least the last")


def check_output(path: str, flag: str, *, overwrite: bool = False, force_flag: str = "--force") -> None:
    """One line (UsageError) unless ``path`` names a plain file that can be written: not an empty name, a
    directory, a device, a pipe or a socket, and in a directory that exists; an existing file only when
    ``overwrite`` (else the line names ``force_flag``)."""
    if path == "":
        raise UsageError(f"{flag} '': an empty file name")
    if path.endswith(("/", os.sep)) or os.path.isdir(path):
        raise UsageError(f"{flag} {path}: is a directory; name a file")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise UsageError(f"{flag} {path}: {error.strerror or error}") from None
    if mode is not None:
        if not stat.S_ISREG(mode):
            raise UsageError(f"{flag} {path}: not a regular file (a device, a pipe or a socket); name a file")
        if not overwrite:
            raise UsageError(f"{flag} {path}: already exists; {force_flag} overwrites it")
    directory = os.path.dirname(path) or "."
    if not os.path.isdir(directory):
        raise UsageError(f"{flag} {path}: directory {directory} does not exist")


def max_input_option(what: str = "an input file") -> "Option":
    return Option("--max-input", f"read at most this many MB of {what} (default {MAX_INPUT_MB}); a larger or "
                  f"endless input is refused in one line", Integer(1, 10**6), metavar="MB",
                  purpose="MB of input at most")


def read_text(path: str, stdin=None, *, max_mb: int | None = None) -> tuple[str, str]:
    """(text, source name) of a file, or of standard input for '-'; UsageError in one line otherwise.

    At most ``max_mb`` MB (default MAX_INPUT_MB) are read: a larger input, or an endless one (/dev/zero,
    a pipe that never closes), is refused as soon as the limit is passed, and a stop request (Ctrl-C)
    ends the reading within a fifth of a second (``gpu_sa.engine.stop.Interrupted``), even while it waits
    (a FIFO that no process writes to included: ``open_input``)."""
    if path == "-":
        stream = sys.stdin if stdin is None else stdin
        if stream is None:
            raise UsageError("standard input is closed: nothing to read from '-'")
        try:
            data = read_limited(getattr(stream, "buffer", stream), "<stdin>", max_mb)
        except OSError as error:
            raise UsageError(f"<stdin>: cannot read: {error.strerror or error}") from None
        return _decoded(data, "<stdin>"), "<stdin>"
    try:
        with open_input(path) as handle:
            return _decoded(read_limited(handle, path, max_mb), path), path
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a directory") from None
    except OSError as error:
        raise UsageError(f"{path}: {error.strerror or error}") from None


READ_CHUNK = 1 << 20
# Linux's poll(2) on a FIFO opened without a writer waits for one (it reports no end of file until a writer has come
# and gone); elsewhere it may report the end at once, and the FIFO would read as empty
_FIFO_POLL_WAITS_FOR_WRITER = sys.platform.startswith("linux")


def open_input(path: str):
    """``path`` opened to read bytes, without waiting in open(2): a FIFO that no process has opened for writing
    blocks open(2) until one does, deaf to every stop request (the handler's flag is set, and open(2) is restarted).
    Opened non-blocking, it returns at once, and the wait moves to ``read_limited``'s poll for data, which checks
    the stop flag. The descriptor is then made blocking again: only the open must not wait. OSError as open(2)
    raises it (IsADirectoryError for a directory, as ``open``)."""
    nonblocking = getattr(os, "O_NONBLOCK", 0)
    if not nonblocking:  # no such flag (Windows), and no FIFO to wait for
        return open(path, "rb")
    descriptor = os.open(path, os.O_RDONLY | nonblocking | getattr(os, "O_CLOEXEC", 0))
    try:
        waits = _FIFO_POLL_WAITS_FOR_WRITER or not stat.S_ISFIFO(os.fstat(descriptor).st_mode)
        if waits:
            os.set_blocking(descriptor, True)
            return os.fdopen(descriptor, "rb")  # IsADirectoryError for a directory, as open() gives
    except BaseException:
        os.close(descriptor)
        raise
    os.close(descriptor)
    return open(path, "rb")  # the wait in open(2) again: a FIFO read as empty would be worse


def read_limited(handle, source: str, max_mb: int | None = None):
    """Everything ``handle`` holds, read a chunk at a time, refused past ``max_mb`` MB (default MAX_INPUT_MB;
    characters for a text stream); the stop flag is polled between chunks and while waiting for a pipe or a
    terminal. OSError as the handle raises it."""
    from .engine import limits, stop

    limit = (MAX_INPUT_MB if max_mb is None else max_mb) * MB
    with limits.doing(f"reading {source} (an input is held whole in memory; --max-input bounds it, now "
                      f"{limit // MB:,} MB)"):
        return _read_chunks(handle, source, limit, stop)


def _read_chunks(handle, source, limit, stop):
    descriptor = _descriptor(handle)
    parts, size = [], 0
    while True:
        stop.check(f"reading {source}")
        if descriptor is not None:
            if not _readable(descriptor):
                continue
            part = os.read(descriptor, READ_CHUNK)
        else:
            part = handle.read(READ_CHUNK)
        if not part:
            break
        parts.append(part)
        size += len(part)
        if size > limit:
            raise UsageError(f"{source}: input larger than {limit // MB:,} MB; --max-input MB reads more")
    return "".join(parts) if parts and isinstance(parts[0], str) else b"".join(parts)


def _descriptor(handle) -> int | None:
    try:
        return handle.fileno()
    except (AttributeError, OSError, ValueError):  # a stream in memory (a test's, an embedding program's)
        return None


def _readable(descriptor: int, seconds: float = 0.2) -> bool:
    """Whether a read would not block (a file always; a pipe or terminal once data or its end is there)."""
    import select

    try:
        return bool(select.select([descriptor], [], [], seconds)[0])
    except (OSError, ValueError):  # no select for this descriptor (Windows pipes): read and wait
        return True


def _decoded(data, source: str) -> str:
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"{source}: not a text file (UTF-8): byte {error.start + 1} is 0x{data[error.start]:02x}") \
            from None
