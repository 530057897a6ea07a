"""The ``gpu-sa`` command, assembled from two registries.

Commands come from ``gpu_sa.cli.commands.COMMANDS`` (each a module with ``add_arguments`` and
``run``); puzzle kinds from ``gpu_sa.puzzles.PUZZLES``, each declaring the commands it takes part
in, its formats, methods, moves and options (``gpu_sa.puzzles.spec``). This module adds
``--kind`` and the kinds' options to every command that kinds take part in, converts and
checks every declared option (``gpu_sa.options``), and runs the command under the one policy
for how a run ends (``gpu_sa.cli.ending``): exit statuses, signals, failing output, no tracebacks.
"""
from __future__ import annotations

import argparse
import importlib
import os
import re
import sys

KIND_OPTIONS = "options of the puzzle kinds"


class Parser(argparse.ArgumentParser):
    """Usage errors in one line, like every other error of the command.

    A word that starts with a minus and a digit is a value, never an option (no option of ours looks like
    that): ``--size -3x3`` gets the option's own message about the value, not "expected one argument"."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\d")

    def error(self, message):
        if len(message) > 300:  # argparse quotes whatever it did not recognise, whole
            message = message[:200] + f"... ({len(message):,} characters)"
        self.exit(2, f"gpu-sa: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> Parser:
    from .. import __version__
    from .commands import COMMANDS, kinds

    parser = Parser(prog="gpu-sa", description="Solve logic puzzles by simulated annealing, thousands of independent "
                    "Metropolis chains in lockstep on the GPU or the CPU, and by exact solvers beside it (which method "
                    "answers by default: gpu-sa solve --help).",
                    epilog="Exit status (every command): 0 success, 1 unsolved or fewer results than asked, 2 bad "
                           "input or usage, 70 internal error, 74 output failed, 129/130/143 stopped by SIGHUP/SIGINT/"
                           "SIGTERM. docs/cli.md, 'Exit status'.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subcommands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, path in COMMANDS.items():
        module = importlib.import_module(path)
        docstring = (module.__doc__ or "").strip().splitlines()
        sub = subcommands.add_parser(name, help=getattr(module, "HELP", docstring[0] if docstring else ""),
                                     description=getattr(module, "DESCRIPTION", module.__doc__),
                                     epilog=getattr(module, "EPILOG", None))
        sub.set_defaults(command_module=module)
        if kinds(name):
            _kind_option(name, detects=getattr(module, "DETECTS_KIND", False)).add_to(sub)
        module.add_arguments(sub)
        if kinds(name):
            _add_kind_options(sub, name)
    return parser


def _kind_option(command, detects: bool = False):
    from .commands import kinds
    from ..options import Choice, Option

    available = kinds(command)
    detected = (". Without --kind, a file the default kind cannot read is read as the kind it names (a Coelho header, "
                "a Tatham game ID, a puzz.link URL; said on stderr), else the error says which --kind reads it"
                if detects and len(available) > 1 else "")
    return Option("--kind", "puzzle kind: " + "; ".join(f"{name}{' (default)' if i == 0 else ''}: {module.SUMMARY}"
                                                       for i, (name, module) in enumerate(available.items()))
                  + detected, Choice(tuple(available)), default=next(iter(available)))


def _declared(command) -> dict:
    """flag -> [(kind, Option)] for every kind option of ``command``, in registry order."""
    from .commands import kinds

    declared = {}
    for name, module in kinds(command).items():
        for option in module.OPTIONS:
            if command in option.commands:
                declared.setdefault(option.flag, []).append((name, option))
    return declared


def _dest(flag) -> str:
    return "kind_" + flag.lstrip("-").replace("-", "_")


def _add_kind_options(parser, command) -> None:
    """One argument per flag, whichever kinds declare it; help says which kind means what."""
    from dataclasses import replace

    from .commands import kinds

    declared = _declared(command)
    if not declared:
        return
    group = parser.add_argument_group(KIND_OPTIONS)
    several = len(kinds(command)) > 1
    for flag, owners in declared.items():
        helps = {}
        for name, option in owners:
            helps.setdefault(option.help, []).append(name)
        text = "; ".join((f"{', '.join(names)}: " if several else "") + help_text for help_text, names in helps.items())
        first = owners[0][1]
        # the kinds' own metavar when they agree (ROWSxCOLS), else the flag's name: each kind's help says its form
        metavars = {option.metavar or option.value.metavar() for _, option in owners if option.value is not None}
        metavar = None if first.value is None else (metavars.pop() if len(metavars) == 1 and None not in metavars
                                                     else flag.lstrip("-").upper().replace("-", "_"))
        replace(first, dest=_dest(flag), required=False, group=None, metavar=metavar).add_to(group, text)


def _options(module) -> tuple:
    """The command's declared options (built from the registries when asked), if it declares any."""
    return tuple(module.options()) if hasattr(module, "options") else ()


def _prepare(args) -> None:
    """Convert and check every declared option; resolve the kind, its options and its application."""
    from .commands import detect_kind, kinds
    from ..options import UsageError, read
    from ..puzzles.spec import application

    module = args.command_module
    available = kinds(args.command)
    if not available:
        read(args, _options(module))
        return
    if args.kind is None and getattr(module, "DETECTS_KIND", False) and len(available) > 1:
        args.kind = detect_kind(args, args.command)
    read(args, (_kind_option(args.command),) + _options(module))
    kind = available[args.kind]
    args.kind_module, args.kind_options = kind, {}
    for flag, owners in _declared(args.command).items():
        text = getattr(args, _dest(flag))
        own = next((option for name, option in owners if name == args.kind), None)
        if text in (None, False):
            if own is not None and own.required:
                raise UsageError(f"{args.command} --kind {args.kind} needs {flag} "
                                 f"{own.metavar or own.value.metavar() or 'VALUE'}")
            continue
        if own is None:
            raise UsageError(f"{flag} applies to {args.command} --kind {' or '.join(name for name, _ in owners)}, "
                             f"not {args.kind}")
        args.kind_options[own.name] = own.convert(text)
        setattr(args, own.name, args.kind_options[own.name])
    own = {option.name: option for option in kind.OPTIONS if args.command in option.commands}
    for name in args.kind_options:
        for other, values in own[name].applies.items():
            if getattr(args, other, None) not in values:
                other_flag = own[other].flag if other in own else "--" + other.replace("_", "-")
                raise UsageError(f"{own[name].flag} applies to {args.command} {other_flag} {' or '.join(values)}")
    reference = kind.COMMANDS[args.command]
    args.application = application(reference) if reference else None


def main(argv=None) -> int:
    """Run one command; the exit status follows ``gpu_sa.cli.ending``'s table whatever happens.

    Run as the program (``argv`` None: the command line), the signal handlers stay until the
    process exits; called with ``argv`` (tests, other programs), they are taken down again."""
    try:
        from . import ending
    except BaseException as error:  # the numerical stack failed to import: one line even then
        print(f"gpu-sa: error: cannot start ({error.__class__.__name__}: {error})", file=sys.stderr)
        return 130 if isinstance(error, KeyboardInterrupt) else 2
    closed = ending.plug_closed_streams()
    if closed["stdout"]:
        ending.note("gpu-sa: error: standard output is closed: the results would be lost")
        return ending.IOERR
    with ending.handling(keep=argv is None):
        status = _run(ending, argv)
    if argv is None:
        abandoned = _work_left_running()
        if abandoned or not _watched():
            _exit_now(ending, status, run_atexit=not abandoned)
    return status


def _exit_now(ending, status: int, run_atexit: bool) -> None:
    """End the program with ``status`` now that the command is done, without the interpreter's tear-down.

    Everything the command printed is flushed and its files are closed by now; what tearing down would add
    is freeing numba's and LLVM's objects one by one (about 125,000 after a 9x9 ``exact``), 0.1-0.2 s of
    every run on a 2-core machine (bench/startup.py times whole commands). The ``atexit`` handlers run (a Dask
    cluster's, logging's, coverage's) unless a stop abandoned a HiGHS solve: then neither they nor C++'s exit handlers,
    which would abort under its threads. Threads still running have nothing left to report."""
    import atexit

    ending.note_flush()
    if run_atexit:
        atexit._run_exitfuncs()
        ending.note_flush()
    os._exit(status)


def _watched() -> bool:
    """A profiler, tracer or debugger runs the program (``python -m cProfile -m gpu_sa``, ``pdb``): it writes
    its report after ``main`` returns, so the interpreter ends the usual way."""
    if sys.gettrace() is not None or sys.getprofile() is not None:
        return True
    monitoring = getattr(sys, "monitoring", None)  # Python 3.12+: profilers and coverage register tools there
    return monitoring is not None and any(monitoring.get_tool(tool) is not None for tool in range(6))


def _work_left_running() -> bool:
    milp = sys.modules.get("gpu_sa.puzzles.common.milp")
    return milp is not None and any(thread.is_alive() for thread in milp.ABANDONED)


def _run(ending, argv) -> int:
    import signal

    from ..engine import stop

    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as done:  # --help, --version, or a usage error already printed
            ending.flush()
            return done.code if isinstance(done.code, int) else ending.USAGE
        _prepare(args)
        if argv is None and getattr(args.command_module, "COMPILES", True):
            _numba_without_its_blas_probe()
        with _compilations_announced(args, ending):
            status = args.command_module.run(args)
        ending.flush()
        return ending.with_bad_puzzles(status, getattr(args, "bad_puzzles", None))
    except ending.OutputFailed as error:
        ending.note(f"gpu-sa: error: cannot write the output: {error}")
        return ending.IOERR
    except KeyboardInterrupt:  # a SIGINT under a handler of Python's own (the runner's second Ctrl-C)
        ending.note("gpu-sa: interrupted")
        return 130
    except stop.Interrupted as error:  # a stop request before there was anything to report
        signum = stop.signal_number() or signal.SIGINT
        ending.note(f"gpu-sa: stopped by {signal.Signals(signum).name} while {error}")
        return 128 + int(signum)
    except Exception as error:
        if _is_usage(error):
            ending.note(f"gpu-sa: error: {error}")
            return ending.USAGE
        return ending.last_resort(error)


def _numba_without_its_blas_probe() -> None:
    """Load numba's array-math lowering with SciPy's linear algebra hidden, so that numba's probe for a BLAS
    (``numba.np.arraymath._check_blas``, run when numba first sets up its CPU target: the first compilation or
    cache load) fails at once instead of importing ``scipy.linalg``, 0.1-0.3 s of every command that runs
    compiled code on a 2-core machine (bench/startup.py). The package's compiled code does no linear algebra
    (no ``np.dot``, ``@`` or ``np.linalg``; numba's ``np.dot`` on floats would take its plain loop instead).

    The command line's own process only: a program that imports gpu_sa keeps numba as it finds it. Nothing is
    hidden when either module is already loaded (a HiGHS solve imports scipy.linalg; the probe is then free)."""
    if "numba.np.arraymath" in sys.modules or "scipy.linalg" in sys.modules:
        return
    sys.modules["scipy.linalg"] = None  # `import scipy.linalg.cython_blas` now raises ImportError at once
    try:
        import numba.np.arraymath  # noqa: F401
    except ImportError:  # numba itself cannot load: the command's own import says so, in one line
        pass
    finally:
        if sys.modules.get("scipy.linalg", "loaded since") is None:
            del sys.modules["scipy.linalg"]


def _compilations_announced(args, ending):
    """numba's first compilation of each part of the package, announced on stderr (``gpu_sa.engine.compiling``), unless
    the command is quiet or compiles nothing (``COMPILES = False``: numba is not even imported then)."""
    import contextlib

    if getattr(args, "quiet", False) or not getattr(args.command_module, "COMPILES", True):
        return contextlib.nullcontext()
    from ..engine import compiling

    return compiling.announced(ending.note)


def _is_usage(error) -> bool:
    """Bad input, a bad option, a backend or a cluster that cannot run here, and not a failed import."""
    from .ending import _failed_import

    unavailable = getattr(sys.modules.get("gpu_sa.engine.backends"), "BackendUnavailable", ())
    cluster = getattr(sys.modules.get("gpu_sa.apps.distributed"), "ClusterError", ())
    return isinstance(error, (ValueError, unavailable, cluster)) and _failed_import(error) is None


if __name__ == "__main__":
    sys.exit(main())
