"""gpu-sa generate: full Sudoku grids (seed 003) or puzzles of other kinds (seed 004), each printed as it is made."""
from __future__ import annotations

import json
import signal

from .. import ending
from ...engine import stop
from ...options import Choice, Integer, Option, UsageError
from . import QUIET, Heartbeat, add_options, check_formats, output_format_option

HELP = "generate full sudoku grids, or puzzles of the other kinds"
DESCRIPTION = ("sudoku (--size NxN or --order, the box side; 9x9 by default): COUNT distinct full valid grids, each "
               "given a uniformly random symmetry (digit relabelling, band/stack and row/column permutations, "
               "transposition). shikaku (--size): the original generator, recursive cuts of the grid, random merges "
               "of neighbouring rectangles, one clue per rectangle at a random cell. hashi (--size, --islands): the "
               "original generator, random islands, every edge between neighbours, an island added where edges "
               "cross, random bridge counts. Puzzle i of a run uses seed (SEED, i), so a run replays.")
EPILOG = ("A run that lasts says how many are made every ten seconds on stderr. Exit status: 0 all made, 1 fewer made "
          "than asked, 2 bad usage (a --count beyond the grids that exist: 288 of 4x4; or nothing with the asked "
          "property could be made), 74 output failed, 129/130/143 stopped by a signal (what was made is printed), 70 "
          "internal error.")
SEED = Option("--seed", "64-bit seed (default: random, printed on stderr)", Integer(0, 2**64 - 1))
# Passed to the kind's generator only if it takes them (the ones that anneal do).
ENGINE_OPTIONS = (
    Option("--backend", "where generators that anneal run (default: auto); for sudoku it selects --method anneal "
           "when no --method is given", Choice(("auto", "cuda", "cpu", "numpy"))),
    Option("--chains", "chains per annealing launch, for generators that anneal; for sudoku it selects --method "
           "anneal when no --method is given", Integer(1), purpose="chains per launch"),
)
ANNEALING_METHOD = "anneal"  # the generators' method that --backend and --chains are for
# no bound of 2**63 - 1 here: a count past the grids that exist gets that number first (gpu_sa.puzzles.sudoku.generate.fill)
COUNT = Option("--count", "number of grids or puzzles", Integer(1, high=None), purpose="how many to make",
               required=True)


def generation_options(command):
    return (COUNT, SEED, *ENGINE_OPTIONS,
            output_format_option(command, "how grids or puzzles are written (default: line for sudoku, numbers above "
                                 "order 5; plain for the others).", attribute="FORMATS", same=False),
            Option("--json", "one JSON object per grid or puzzle: index, grid (sudoku) or puzzle and solution, seed, "
                   "method"), QUIET)


def options():
    return generation_options("generate")


def add_arguments(parser) -> None:
    add_options(parser, options())


def run(args) -> int:
    return make(args, count=args.count)


def make(args, **what) -> int:
    """Run the kind's generator, printing each result as it comes; shared by generate, minimize and puzzle."""
    import inspect

    from ...engine.runner import default_seed

    check_formats(args, args.kind_module, output_attribute="FORMATS")
    function = args.application
    accepted = inspect.signature(function).parameters
    options = dict(args.kind_options)
    for option in ENGINE_OPTIONS:
        if getattr(args, option.name, None) is not None:
            if option.name not in accepted:
                raise UsageError(f"{option.flag} does not apply to {args.command} --kind {args.kind}")
            options[option.name] = getattr(args, option.name)
            if "grid_method" in accepted and "grid_method" not in options:  # the annealer's options select it
                options["grid_method"] = ANNEALING_METHOD
                ending.note(f"gpu-sa: {option.flag} selects --method {ANNEALING_METHOD} (the annealer makes the grids)")
    if "fmt" in accepted and getattr(args, "output_format", None) is not None:
        options["fmt"] = args.output_format
    seed = default_seed() if args.seed is None else args.seed
    items = function(args.kind_module, seed=seed, **what, **options)  # checks its options before the seed is noted
    if args.seed is None and not args.json:
        ending.note(f"gpu-sa: seed {seed}")
    outcome = ending.Outcome()
    made = 0
    total = f" of {what['count']:,}" if what.get("count") else ""
    verb = "minimised" if args.command == "minimize" else "made"
    with Heartbeat(lambda seconds: f"gpu-sa: {made:,}{total} {verb} after {seconds:.0f} s",
                   hint="Ctrl-C stops, keeping what is made", quiet=bool(args.quiet)):
        for item in items:
            if item.note:
                ending.note(f"gpu-sa: {item.note}")
                outcome.unsolved = True
                continue
            ending.emit(json.dumps(item.record) if args.json else item.text)
            made += 1
    if stop.requested():
        name = signal.Signals(stop.signal_number() or signal.SIGINT).name
        ending.note(f"gpu-sa: stopped by {name}: {made} made")
    return outcome.status()
