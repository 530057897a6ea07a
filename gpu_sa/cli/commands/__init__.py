"""The commands of ``gpu-sa``: one module each, in this registry.

A command module offers ``add_arguments(parser)`` and ``run(args) -> exit status``, with
``HELP`` (one line for ``gpu-sa --help``; else its docstring's first line) and optionally
``DESCRIPTION``, ``EPILOG`` and ``options()`` (the ``gpu_sa.options.Option``s it adds, which
``gpu_sa.cli.main`` converts and checks before ``run``). For a command that puzzle kinds take part in (their
``COMMANDS``), the CLI adds ``--kind`` and the kinds' own options, and hands ``run`` the
chosen kind as ``args.kind_module``, its options as ``args.kind_options`` (given ones only,
by keyword) and its application as ``args.application``.
"""
from __future__ import annotations

from ...options import Choice, Option
from ...puzzles import PUZZLES

COMMANDS = {
    "solve": "gpu_sa.cli.commands.solve",
    "exact": "gpu_sa.cli.commands.exact",
    "generate": "gpu_sa.cli.commands.generate",
    "minimize": "gpu_sa.cli.commands.minimize",
    "puzzle": "gpu_sa.cli.commands.puzzle",
    "plot": "gpu_sa.cli.commands.plot",
    "view": "gpu_sa.cli.commands.view",
}

# Errors, results and what a run needs to replay (generate's seed) still print with it.
QUIET = Option("--quiet", "no progress line or compilation notice on stderr (errors and warnings still print)",
               short="-q")


def kinds(command: str) -> dict:
    """The puzzle kinds that take part in ``command``, registry order (the first is the default)."""
    return {name: module for name, module in PUZZLES.items() if command in module.COMMANDS}


def _union(command: str, attribute: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(name for module in kinds(command).values() for name in getattr(module, attribute)))


def _per_kind(command: str, describe) -> str:
    return "; ".join(f"{name}: {describe(module)}" for name, module in kinds(command).items())


def input_format_option(command: str) -> Option:
    """--format: auto or any kind's input format, each described."""
    return Option("--format", "input format (default: auto-detect). " + _per_kind(
        command, lambda m: ", ".join(f"{f} ({m.FORMAT_HELP.get(f, '')})" for f in m.FORMATS)),
        Choice(("auto",) + _union(command, "FORMATS")), default="auto", dest="input_format")


def output_format_option(command: str, help_text: str, attribute: str = "OUTPUT_FORMATS", same: bool = True) -> Option:
    """--output-format: the formats the kinds can write (``same``: the input's)."""
    return Option("--output-format", help_text + " " + _per_kind(command, lambda m: ", ".join(getattr(m, attribute))),
                  Choice((("same",) if same else ()) + _union(command, attribute)))


def check_formats(args, kind, output_attribute: str = "OUTPUT_FORMATS") -> None:
    """Formats exist per kind: a Sudoku format with another kind is a usage error, not a guess."""
    from ...options import UsageError

    if getattr(args, "input_format", "auto") not in ("auto",) + tuple(kind.FORMATS):
        raise UsageError(f"--format {args.input_format} is not a {kind.KIND} format; choose from auto, "
                         f"{', '.join(kind.FORMATS)}")
    allowed = tuple(getattr(kind, output_attribute))
    if getattr(args, "output_format", None) not in (None, "same") + allowed:
        raise UsageError(f"--output-format {args.output_format} is not a {kind.KIND} output format; choose from "
                         f"{', '.join(allowed)}")


def add_input(parser, options, metavar: str = "PUZZLE_FILE", what: str = "file of puzzles") -> None:
    """The input file (``args.puzzle_file`` or the like: '-' = standard input), then the options."""
    parser.add_argument(metavar.lower(), metavar=metavar, help=f"{what}, or '-' for standard input")
    add_options(parser, options)


def read_puzzles(args, path: str) -> list:
    """The chosen kind's good puzzles of ``path``, once the formats asked for are known to be the kind's (parsed
    once: ``detect_kind`` may have read them already). Each bad puzzle is one line on stderr, ``FILE:LINE: what``,
    and counted in ``args.bad_puzzles`` (the exit status then says so: ``ending.with_bad_puzzles``); a file
    without one good puzzle raises its first error, as a file that is no puzzle file at all."""
    from .. import ending
    from ...options import read_text

    check_formats(args, args.kind_module)
    known = getattr(args, "detected", None)
    if known is not None and known[0] == args.kind:
        _, puzzles, errors = known
    else:
        text, source = getattr(args, "input_text", None) or read_text(path, max_mb=getattr(args, "max_input", None))
        errors = []
        puzzles = _parse(args.kind_module, text, source, args.input_format, errors)
    for error in errors:
        ending.note(f"gpu-sa: error: {error}")
    if errors:
        args.bad_puzzles = (puzzles[0].source, len(errors), len(puzzles) + len(errors))
    return puzzles


def _parse(module, text: str, source: str, fmt: str, errors: list) -> list:
    from ...engine.limits import doing

    with doing(f"parsing {source} ({len(text):,} characters of puzzles)"):
        return module.parse(text, source, fmt, errors=errors)


def detect_kind(args, command: str) -> str:
    """The kind of the input file when ``--kind`` is not given.

    The default kind (the registry's first, Sudoku) reads the file if it reads one puzzle of it (the bad ones are
    then errors of that kind). Else each other kind tries: if exactly one reads it, in a format that names its kind
    (``NAMED_FORMATS``: a Coelho header, a Tatham game ID, a puzz.link URL), that kind it is, said on stderr (a kind
    that reads every puzzle of the file first, then one that reads some); if some read it only in a format any kind
    could have written (rows of numbers), the default kind's error says which ``--kind`` reads it, instead of a
    guess, but only when that error is about the text's size (``ShapeError``): a Sudoku whose givens clash is no
    Hashiwokakero, and a line one symbol short of a Sudoku is a Sudoku with a typo. ``--format`` given: only the
    kinds that have that format are tried.
    """
    from .. import ending
    from ...options import UsageError, read_text
    from ...puzzles.common.errors import ShapeError

    available = kinds(command)
    default = next(iter(available))
    fmt = args.input_format or "auto"
    candidates = [name for name, module in available.items() if fmt == "auto" or fmt in module.FORMATS]
    if len(candidates) <= 1:
        return candidates[0] if candidates else default  # no kind has the format: the default kind's message
    limit = getattr(args, "max_input", None)
    if isinstance(limit, str):  # the options are converted after the kind is known: this one is needed now
        from ...options import max_input_option

        limit = max_input_option().convert(limit)
    args.input_text = text, source = read_text(args.puzzle_file, max_mb=limit)
    refusal, readers = None, {}  # readers: kind -> (its good puzzles, its errors), the kinds that read some
    for name in candidates:
        errors = []
        try:
            puzzles = _parse(available[name], text, source, fmt, errors)
        except ValueError as error:
            refusal = refusal or error
            continue
        if name == default:  # one good puzzle makes a Sudoku file: the rest are its bad lines
            args.detected = name, puzzles, errors
            return name
        readers[name] = puzzles, errors
    whole = [name for name, (_, errors) in readers.items() if not errors]
    for group in (whole, list(readers)):
        if len(group) > 1:
            break  # more than one kind: none is guessed
        if len(group) == 1:
            name = group[0]
            puzzles, errors = readers[name]
            formats = sorted({puzzle.fmt for puzzle in puzzles})
            if fmt != "auto" or set(formats) <= set(available[name].NAMED_FORMATS):
                if not getattr(args, "quiet", False):
                    ending.note(f"gpu-sa: {source} holds {name} puzzles ({', '.join(formats)} format): reading it "
                                f"as --kind {name}")
                args.detected = name, puzzles, errors
                return name
            break
    if refusal is None:  # every kind tried reads some of it, and none is the one
        raise UsageError(f"{source}: the file reads as {' or '.join(readers)}: "
                         f"{' or '.join(f'--kind {name}' for name in readers)} says which")
    if candidates[0] == default and not isinstance(refusal, ShapeError):
        raise refusal  # sized like the default kind's puzzles, with bad content: no other kind is to blame
    if whole:
        raise type(refusal)(f"{refusal} (is it another kind? the file reads as {' or '.join(whole)} with "
                            f"{' or '.join(f'--kind {name}' for name in whole)})") from None
    raise refusal


def add_options(parser, options) -> None:
    """Add declared options, each under its ``group`` heading (in the order groups first appear)."""
    groups = {}
    for option in options:
        if option.group and option.group not in groups:
            groups[option.group] = parser.add_argument_group(option.group)
        option.add_to(groups.get(option.group, parser))


class Heartbeat:
    """Progress on stderr for work that lasts: ``status(seconds)``'s line after ``first`` seconds, then one every
    ``every`` seconds, from a thread of its own (the work runs compiled code for minutes at a time, which would
    otherwise keep the user in the dark). Nothing after a stop request: the command reports that itself.

    The line is ``status(seconds)``, then, while numba compiles part of the package (its first run on a machine),
    how much of that time went to compiling what, then ``(hint)``: what Ctrl-C does."""

    def __init__(self, status, *, hint: str, first: float = 1.0, every: float = 10.0, quiet: bool = False):
        import threading

        self.status, self.hint, self.first, self.every, self.quiet = status, hint, first, every, quiet
        self._finished = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="gpu-sa-heartbeat", daemon=True)

    def __enter__(self):
        if not self.quiet:
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._finished.set()
        if self._thread.is_alive():
            self._thread.join()
        return False

    def _beat(self):
        import time

        from .. import ending
        from ...engine import stop

        start = time.monotonic()
        wait = self.first
        while not self._finished.wait(wait) and not stop.requested():
            ending.note(self.line(time.monotonic() - start))
            wait = self.every

    def line(self, seconds: float) -> str:
        from ...engine import compiling

        text = self.status(seconds)
        running = compiling.in_progress()
        if running is not None:
            what, target, takes, so_far = running
            text += f", the last {min(so_far, seconds):.0f} s of them compiling {what} for {target} ({takes}, once)"
        return f"{text} ({self.hint})"
