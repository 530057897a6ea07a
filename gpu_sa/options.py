"""Command-line options as declarations, and their values checked in one place with one message style.

Commands (``gpu_sa.commands``) and puzzle kinds (``gpu_sa.puzzles``) declare their options as
``Option``s; ``gpu_sa.cli`` adds them to the parser, which keeps every value as the text typed,
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
from dataclasses import dataclass, field


class UsageError(ValueError):
    """A bad option, option value or input: one line on stderr, exit status 2."""


class Value:
    """How one option's text becomes a value; ``expected`` says what is accepted."""

    expected = "a value"

    def __call__(self, text: str):  # pragma: no cover - every value type overrides it
        raise NotImplementedError

    def metavar(self) -> str | None:
        return None


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
    high: int | None = None

    @property
    def expected(self) -> str:
        if self.high is None:
            return f"an integer >= {self.low}"
        return f"an integer from {self.low} to {self.high}"

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
    """A finite number above ``above`` (exclusive)."""

    above: float = 0.0

    @property
    def expected(self) -> str:
        return f"a number > {self.above:g}"

    def __call__(self, text: str) -> float:
        value = float(_number(text))
        if not (math.isfinite(value) and value > self.above):
            raise ValueError(text)
        return value


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
        except ValueError:
            why = f" ({self.purpose})" if self.purpose else ""
            raise UsageError(f"{self.flag} {text}: expected {self.value.expected}{why}") from None


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


def read_text(path: str, stdin=None) -> tuple[str, str]:
    """(text, source name) of a file, or of standard input for '-'; UsageError in one line otherwise."""
    import sys

    if path == "-":
        stream = sys.stdin if stdin is None else stdin
        if stream is None:
            raise UsageError("standard input is closed: nothing to read from '-'")
        try:
            data = stream.buffer.read() if hasattr(stream, "buffer") else stream.read()
        except OSError as error:
            raise UsageError(f"<stdin>: cannot read: {error.strerror or error}") from None
        return _decoded(data, "<stdin>"), "<stdin>"
    try:
        with open(path, "rb") as handle:
            return _decoded(handle.read(), path), path
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a directory") from None
    except OSError as error:
        raise UsageError(f"{path}: {error.strerror or error}") from None


def _decoded(data, source: str) -> str:
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"{source}: not a text file (UTF-8): byte {error.start + 1} is 0x{data[error.start]:02x}") \
            from None
