"""gpu-sa solve: anneal (or solve exactly) every puzzle of a file, reporting each as it is done."""
from __future__ import annotations

import json
import signal
import sys
import time
from dataclasses import replace

from .. import ending
from ...engine import stop
from ...engine.plan import KEYS as plan_keys
from ...options import (SECONDS, Choice, Integer, Option, Real, Text, ThreadsPerChain, UsageError, check_output,
                       given, max_input_option)
from . import (QUIET, Heartbeat, add_input, check_formats, input_format_option, kinds, output_format_option,
               read_puzzles)

DETECTS_KIND = True  # without --kind, the input file's kind is detected (commands.detect_kind)
HELP = ("solve every puzzle of a file (sudoku: propagation, then the complete search and the annealer in turns; "
        "the other kinds: the annealer)")
DESCRIPTION = ("Solve every puzzle of PUZZLE_FILE ('-' = standard input), one after the other, by the kind's default "
               "method unless --method says otherwise: sudoku's auto (propagation, then the complete search and "
               "annealing rounds in turns, the first verified answer wins), the annealer for the other kinds. An "
               "option that only the annealer has (--move, the schedule, --max-moves, --trace, ...) given without "
               "--method selects --method anneal, said on stderr.")
EPILOG = ("Exit status: 0 all solved, 1 some puzzle unsolved within its budget (or without a solution), 2 bad input "
          "or usage, 74 output failed (or a --dump-states file could not be written), 129/130/143 stopped by "
          "SIGHUP/SIGINT/SIGTERM (the best state so far is still reported), 70 internal error (docs/cli.md, "
          "'Exit status').")
ANNEAL_METHOD = "anneal"
ANNEALING = {"method": (ANNEAL_METHOD,)}  # options only the annealer reads: given without --method, they select it
CHAINS = {"method": ("anneal", "auto")}  # the options of whatever runs chains (auto anneals in its rounds)
SCHEDULE = "temperature schedule"
BUDGET = "budget and stopping"
OUTPUT = "output"


def _methods_help():
    described = {}
    for module in kinds("solve").values():
        for method in module.METHODS:
            described.setdefault(method.name, (method.help, []))[1].append(module.KIND)
    return "; ".join(f"{name}: {text} ({', '.join(names)})" for name, (text, names) in described.items())


def _moves_help():
    def named(module, move):
        notes = getattr(module, "DEFAULT_MOVE_NOTES", {module.DEFAULT_MOVE: "default"})
        return f"{move} ({notes[move]})" if move in notes else move

    return ("move set: " + "; ".join(f"{name}: {', '.join(named(module, m) for m in module.MOVES)}"
                                     for name, module in kinds("solve").items())
            + ". What each move changes and what its cost counts: docs/algorithms.md, 'Moves and costs'")


# The engine's options on the command line: each is a field of gpu_sa.engine.runner.Options of the same name (set
# when given), but those of RUN_PLACEMENT, which say where and how many puzzles run; a new engine option is a field
# there and one declaration here (tests/cli/test_registry.py checks that they match).
ENGINE_OPTIONS = (
    Option("--backend", "where chains run: cuda (GPU), cpu (numba, all cores), numpy (the plain reference), auto = "
           "cuda if a GPU is usable, else cpu (default: auto; the choice and why go to stderr, with the launch's "
           "layout)",
           Choice(("auto", "cuda", "cpu", "numpy")), default="auto", applies=CHAINS),
    Option("--chains", "independent chains run in lockstep, per puzzle (default: cuda enough to fill the GPU, "
           "or at most 2048 per puzzle when several puzzles share the launches; cpu 256, numpy 64; sudoku's move tabu on "
           "the host: one per core, a local search whose chains each want a core; method auto's annealing rounds: 16 "
           "on the CPU)", Integer(1),
           purpose="independent chains run in lockstep", applies=CHAINS),
    Option("--threads-per-chain", "GPU threads per chain on the cuda backend: 1 = one thread per chain (every move's "
           "kernel); 32, 64, 128 or 256 = a thread block per chain (a move's cooperative layout: sudoku's move tabu; "
           "another move is an error); auto (default) = the launch plan's choice per move (--plan prints it: "
           "docs/gpu.md, 'The launch plan'). No answer depends on it; cpu and numpy run the same chains whatever "
           "it is",
           ThreadsPerChain(), default=None, applies=CHAINS,
           purpose="GPU threads per chain: 1, or a block of whole warps"),
    Option("--seed", "64-bit seed; a run is a pure function of the seed and the options (default: random, printed "
           "with the result); the exact methods' random tie-breaks and restarts (HiGHS's random_seed for the integer "
           "programs) follow it too", Integer(0, 2**64 - 1)),
    Option("--max-moves", "moves per chain at most (default: the schedule's length; past its end the last temperature "
           "holds); 2.5e8 and 250_000_000 are accepted", Integer(0), group=BUDGET, applies=ANNEALING),
    Option("--trials", "restarts: when a trial ends unsolved, every chain is replaced by a fresh one (new chain indices, "
           "so the run still replays from its seed) and the schedule starts again; 0 = until solved or --time-limit "
           "(default 100; 1 with --no-early-stop)", Integer(0), group=BUDGET, applies=ANNEALING),
    Option("--stall-plateaus", "Sirdey's ad-hoc stop: end a trial once no chain has lowered its best cost for N "
           "plateaus (Sirdey suggests 10000)", Integer(1), metavar="N", group=BUDGET, applies=ANNEALING),
    Option("--time-limit", "stop each puzzle after about this many seconds (its annealing or search; reading, "
           "preparing and checking a puzzle come on top, and grow with the grid: docs/cli.md, 'Limits')", SECONDS,
           metavar="SECONDS", group=BUDGET),
    Option("--replicas", "replica exchange: chains in groups of R on a ladder of fixed temperatures, geometric from "
           "--t-end (coldest) up to --t0, neighbours exchanging temperatures every --exchange-interval moves by the "
           "Metropolis rule (--chains must be a multiple of R); 1 = plain annealing (default)", Integer(1),
           metavar="R", group=SCHEDULE, applies=ANNEALING),
    Option("--exchange-interval", "replica exchange: moves between exchanges (default: one plateau)", Integer(1),
           metavar="K", group=SCHEDULE, applies=ANNEALING),
    Option("--pool-interval", "the chains' elite pool: every K moves, a chain that found nothing new and sits above "
           "the puzzle's lowest best cost takes a copy of a chain at it (by counts and the seed: the same answers on "
           "every backend); 0 = chains alone (default: sudoku's move tabu 2,000,000, the annealers 0; docs/algorithms.md, "
           "'Chains that cooperate')", Integer(0), metavar="K", group=SCHEDULE, applies=ANNEALING),
    Option("--dask", "run on the Dask scheduler at ADDRESS (e.g. tcp://host:8786): one puzzle's trials, or batches of "
           "the file's puzzles, become tasks on its workers; the same answers as one process for the same seed (needs "
           "pip install 'gpu-sa[dask]'; docs/cli.md, 'Scale out with Dask')", Text("ADDRESS"), group=BUDGET,
           applies=ANNEALING),
    Option("--workers", "start a local Dask cluster of N worker processes (one thread each) for this run, stopped "
           "at its end; the same answers as one process for the same seed (needs the dask extra); at most the cores "
           "this process may use (more is lowered to that, with a note)", Integer(1),
           metavar="N", group=BUDGET, applies=ANNEALING),
    Option("--batch", "puzzles of the same kind and size that share one launch, each in its own chains (default: "
           "enough to fill four times the backend's default launch; 1 = one puzzle at a time); results still come in "
           "input order, each as soon as it and every earlier one are known", Integer(1), metavar="N",
           group=BUDGET, applies=ANNEALING),
)
RUN_PLACEMENT = ("backend", "threads_per_chain", "batch", "dask", "workers")
SCHEDULE_OPTIONS = (
    Option("--schedule", "geometric (default, tuned by measurement): --t0 to --t-end over --plateaus; sirdey: "
           "Sirdey's law T0 = e_p, T_{k+1} = T_k / (1 + log(1+delta)/(e_p+1) T_k) down to T_f (252 million moves per "
           "chain for 9x9: the faithful mode); list: the temperatures of --temperatures",
           Choice(("geometric", "sirdey", "list")), default="geometric", group=SCHEDULE, applies=ANNEALING),
    Option("--delta", "sirdey: the law's delta (default 0.1)", Real(), group=SCHEDULE, applies={"schedule": ("sirdey",), **ANNEALING}),
    Option("--t0", "starting temperature (geometric default: 0.5 for sudoku, 1.0 for shikaku, 0.5 for hashi; sirdey "
           "default: e_p, 810 for 9x9 with move sirdey)", Real(), purpose="a temperature", group=SCHEDULE,
           applies={"schedule": ("sirdey", "geometric"), **ANNEALING}),
    Option("--t-end", "geometric: final temperature, at most --t0 (default 0.05)", Real(), purpose="a temperature",
           group=SCHEDULE, applies={"schedule": ("geometric",), **ANNEALING}),
    Option("--plateaus", "geometric: number of plateaus (default for sudoku 4000 at 9x9, 324,000 moves per chain; 1000 from 16x16 up; "
           "2000 for shikaku, 1000 for hashi)", Integer(1), group=SCHEDULE, applies={"schedule": ("geometric",), **ANNEALING}),
    Option("--plateau-length", "moves per plateau (default: the number of cells for sudoku, as Sirdey has it; the "
           "number of movable clues for shikaku, of movable edges for hashi; at most 2**31 - 1: the kernels count "
           "a plateau's moves in 32 bits)", Integer(1), group=SCHEDULE, applies=ANNEALING),
    Option("--temperatures", "list: comma-separated temperatures, or @FILE with one per line", Text("LIST"),
           group=SCHEDULE, applies={"schedule": ("list",), **ANNEALING}),
)


def _default_method(args) -> str:
    """The kind's first method (the kind not given yet: the registry's first kind, --kind's default), unless an
    option that only the annealer has is given: that selects the annealer (``run`` says so on stderr). One rule
    for every such option, instead of some being errors under sudoku's auto and --chains not."""
    available = kinds("solve")
    kind = available[args.kind or next(iter(available))]
    default = kind.METHODS[0].name
    if args.method is None and default != ANNEAL_METHOD and any(m.name == ANNEAL_METHOD for m in kind.METHODS):
        selecting = [option.flag for option in options() if option.applies.get("method") == ANNEALING["method"]
                     and given(args, option)]
        if selecting:
            args.annealer_selected_by = selecting
            return ANNEAL_METHOD
    return default


def options():
    return (
        input_format_option("solve"), max_input_option("the puzzle file"),
        Option("--method", _methods_help() + " (default: the kind's first: auto for sudoku, anneal for the others)",
               Choice(tuple(dict.fromkeys(m.name for module in kinds("solve").values() for m in module.METHODS))),
               default=_default_method),
        *ENGINE_OPTIONS[:4],
        Option("--plan", "print each puzzle's GPU launch plan for the move the solve would anneal with (kernel, "
               "layout, threads per chain, chains, shared and global memory per chain, occupancy and predicted moves "
               "per second per GPU model, from the cost model of docs/gpu.md, 'The launch plan') and exit without "
               "running anything; needs no GPU; with --json one JSON object per puzzle (docs/cli.md, 'Launch plan')"),
        Option("--move", _moves_help(), Choice(tuple(dict.fromkeys(
            m for module in kinds("solve").values() for m in module.MOVES))), applies=ANNEALING),
        *SCHEDULE_OPTIONS, *ENGINE_OPTIONS[4:],
        Option("--no-early-stop", "run every chain for exactly --max-moves moves even once a chain has solved",
               group=BUDGET, applies=ANNEALING),
        Option("--no-propagate", "sudoku: do not run the three rules (naked single, hidden single, naked pair) before annealing (by default every cell they "
               "force becomes a given and moves draw only among each cell's remaining candidates); with this option "
               "the chains follow the plain moves, exactly as before propagation existed", applies=ANNEALING),
        Option("--json", "one JSON object per puzzle per line on stdout: solved, solution (sudoku: the grid in the "
               "input's format; shikaku: rectangles [top, left, bottom, right], inclusive, 0-based, in row-major clue "
               "order; hashi: bridges [r1, c1, r2, c2, count], 0-based), cost (what the move counts: docs/algorithms.md, "
               "'Moves and costs'), chain, moves, proposals, seconds, backend, seed, method, stopped, and more", group=OUTPUT),
        replace(output_format_option("solve", "how solutions are written (default: pretty; with --json, same as the "
                                              "input)."), group=OUTPUT),
        Option("--dump-states", "write an .npz with states (chains x cells, digits 1..N for sudoku; each clue's "
               "candidate number for shikaku; bridges per candidate edge for hashi), costs and accepted after the run, "
               "once the result is printed; with several puzzles PATH-1.npz, PATH-2.npz, ...; PATH names a file "
               "(a directory, a device or an empty name is refused); an existing file is refused unless --force",
               Text("PATH"), group=OUTPUT, applies=ANNEALING),
        Option("--trace", "write one record per chunk of moves and puzzle, batched or not (puzzle, trial, moves, "
               "seconds, plateau, temperature, best and mean cost, acceptance, proposals per second, ...: docs/cli.md, "
               "'Traces') to FILE: JSON Lines, or CSV when FILE ends in "
               ".csv; flushed per record; FILE names a file (a directory, a device or an empty name is refused); an "
               "existing file is refused unless --force; 'gpu-sa plot FILE' draws it", Text("FILE"),
               group=OUTPUT, applies=ANNEALING),
        Option("--force", "overwrite the files of --trace and --dump-states if they exist (without it an existing "
               "file is an error, exit 2, as gzip and xz do without -f)", group=OUTPUT, applies=ANNEALING),
        replace(QUIET, help="no progress line, compilation notice or backend notes on stderr (errors and "
                            "warnings still print)", group=OUTPUT),
        Option("--check-unique", "after a solve, count solutions with the exact solver (up to 2; the ILP for shikaku "
               "and hashi) and report whether the one found is the only one (JSON key 'unique': true, false, or null "
               "if the search gave up); with --time-limit, the check gets what is left of it (null if nothing is)", group=OUTPUT),
    )


def add_arguments(parser) -> None:
    add_input(parser, options())


def run(args) -> int:
    from ...apps import solve as app

    kind = args.kind_module
    check_formats(args, kind)
    methods = {method.name: method for method in kind.METHODS}
    if args.method not in methods:
        raise UsageError(f"--method {args.method} is not available for {kind.KIND}; choose from {', '.join(methods)}"
                         + (f" (exact answers: gpu-sa exact --kind {kind.KIND})" if "exact" in kind.COMMANDS else ""))
    if args.move is not None and args.move not in kind.MOVES:
        raise UsageError(f"--move {args.move} is not a {kind.KIND} move; choose from {', '.join(kind.MOVES)}")
    if args.trials == 0 and args.time_limit is None and args.no_early_stop:
        raise UsageError("--trials 0 with --no-early-stop never ends: add --time-limit")
    if args.dask is not None and args.workers is not None:
        raise UsageError("--dask and --workers exclude each other: use a running scheduler or start a local cluster")
    if (args.dask is not None or args.workers is not None) and (args.dump_states or args.trace):
        raise UsageError("--dump-states and --trace need the chains in this process: not with --dask or --workers")
    if args.dask is not None:
        from ...apps import distributed

        distributed.check_address(args.dask)
    if args.workers is not None:
        from ...engine.backends import available_cores

        cores = available_cores()
        if args.workers > cores:  # one process per worker: more than the cores only queue and take memory
            ending.note(f"gpu-sa: note: --workers {args.workers:,} is more than the {cores} cores this process may use; "
                        f"starting {cores}")
            args.workers = cores
    if getattr(args, "annealer_selected_by", None) and not args.quiet:
        flags = args.annealer_selected_by
        ending.note(f"gpu-sa: {', '.join(flags)} select{'s' if len(flags) == 1 else ''} the annealer (--method anneal); "
                    f"{kind.METHODS[0].name}, the default method, runs its annealing rounds with settings of its own")
    elif methods[args.method].runs is not None and args.chains is not None and not args.quiet:
        ending.note(f"gpu-sa: --chains {args.chains}: the chains of each of {args.method}'s annealing rounds "
                    "(--method anneal: the annealer alone)")
    puzzles = read_puzzles(args, args.puzzle_file)
    method = methods[args.method]
    if args.plan:
        return _plan(kind, method, puzzles, args)
    if method.exact:
        answers = (app.exact(puzzle, method=args.method, check_unique=args.check_unique, time_limit=args.time_limit,
                             fmt=args.output_format, options=args.kind_options, seed=args.seed) for puzzle in puzzles)
        return _report(answers, puzzles, args, dumps=[None] * len(puzzles),
                       working=f"{args.method} ({app.BY[args.method]})")
    if method.runs is not None:
        return _application(method, puzzles, args)
    return _anneal(app, kind, puzzles, args)


def _application(method, puzzles, args) -> int:
    """A method that runs an application of its own on each puzzle (sudoku's auto)."""
    from ...engine import backends, runner
    from ...puzzles.spec import application

    run_one = application(method.runs)
    reasons = map(application(method.cpu_preferred), puzzles) if method.cpu_preferred else ()
    backend, why = backends.select(args.backend, cpu_preferred=next((reason for reason in reasons if reason), ""),
                                   threads_per_chain=args.threads_per_chain)
    planned = []
    if backend.name == "cuda":  # copies: the application builds its moves again, on its clock
        planned = [move for move in (_planned_move(method, replace(puzzle), args)[0] for puzzle in puzzles) if move]
        _check_layout(args, planned)
    seed = runner.default_seed() if args.seed is None else args.seed
    if not args.quiet:
        ending.note(f"gpu-sa: {why}")
        if planned:  # the layout the GPU's chains take, and why (the launch plan's choice unless asked)
            rows = args.chains or backend.default_chains(planned[0])
            ending.note(f"gpu-sa: launch: {backend.describe_launch(rows, planned[0])} per puzzle")

    def answers():
        for puzzle in puzzles:
            progress = _ProgressLine(puzzle.label, quiet=args.quiet)
            try:
                yield run_one(puzzle, backend=backend, seed=seed, chains=args.chains, time_limit=args.time_limit,
                              fmt=args.output_format, check_unique=args.check_unique, progress=progress)
            finally:
                progress.close()

    return _report(answers(), puzzles, args, dumps=[None] * len(puzzles),
                   working=f"{method.name} (the complete search and annealing rounds in turns)")


def _anneal(app, kind, puzzles, args) -> int:
    from ...engine import backends, runner

    # built on copies, for the schedules and the chain checks: a puzzle caches its rules' root, and the runner, which
    # builds the move again inside the clock, would then leave that solving work (Sudoku: propagation, the root's
    # strengthening) off it, as a peer's clock does not leave off its own rules
    moves = [replace(puzzle).move(args.move or getattr(puzzle, "default_move", kind.DEFAULT_MOVE),
                              propagate=not args.no_propagate) for puzzle in puzzles]
    cpu_preferred = next((move.cpu_preferred for move in moves if move.cpu_preferred), "")
    backend, why = backends.select(args.backend, cpu_preferred=cpu_preferred, threads_per_chain=args.threads_per_chain)
    if backend.name == "cuda":
        _check_layout(args, moves)
    laws = [app.schedule_for(move, law=args.schedule, t0=args.t0, t_end=args.t_end, plateaus=args.plateaus,
                             plateau_length=args.plateau_length, delta=args.delta, temperatures=args.temperatures,
                             replicas=args.replicas)
            for move in moves]
    trials = args.trials if args.trials is not None else (1 if args.no_early_stop else runner.DEFAULT_TRIALS)
    for move, law in zip(moves, laws):
        app.check_chains(move, args.chains or backend.default_chains(move), trials, law)
    dumps = app.dump_paths(args.dump_states, len(puzzles), overwrite=args.force)
    # the replicas reach the runner in each puzzle's schedule (a ladder: ``schedule_for``)
    named = {option.name: getattr(args, option.name) for option in ENGINE_OPTIONS
             if getattr(args, option.name) is not None and option.name not in RUN_PLACEMENT + ("replicas",)}
    run_options = runner.Options(move=args.move, early_stop=not args.no_early_stop, propagate=not args.no_propagate,
                                 **named)
    trace = None
    if args.trace is not None:
        from ...engine.trace import TraceWriter

        check_output(args.trace, "--trace", overwrite=True)  # a plain file; TraceWriter refuses an existing one
        trace = TraceWriter(args.trace, overwrite=args.force)  # before any run: one line, exit 2
    on_cluster = args.dask is not None or args.workers is not None
    # each worker chooses for itself, among its own devices; what the moves prefer is decided here, once
    on_workers = "cpu" if args.backend == "auto" and cpu_preferred else args.backend
    batched = args.batch != 1 and len(puzzles) > 1 and not any(dumps)
    if not args.quiet:
        ending.note(f"gpu-sa: {why}")
        if not on_cluster and any(move.has_free_variables for move in moves):  # on a cluster each worker decides
            rows = args.chains or (backend.dataset_chains if batched else backend.default_chains)(moves[0])
            ending.note(f"gpu-sa: launch: {backend.describe_launch(rows, moves[0])} per puzzle")
    failures = []

    def answers():
        if on_cluster:
            yield from app.on_cluster(puzzles, laws, address=args.dask, workers=args.workers, backend=on_workers,
                                      threads_per_chain=args.threads_per_chain, options=run_options,
                                      batch=args.batch, fmt=args.output_format, check_unique=args.check_unique)
            return
        if batched:
            progress = _ProgressLine(f"{len(puzzles)} puzzles", quiet=args.quiet, trace=trace, failures=failures,
                                     labels=[puzzle.label for puzzle in puzzles])
            try:
                for answer in app.anneal_batches(puzzles, laws, backend=backend, options=run_options,
                                                 batch=args.batch, fmt=args.output_format,
                                                 check_unique=args.check_unique, progress=progress):
                    progress.done += 1
                    yield answer
            finally:
                progress.close()
            return
        for puzzle, law, dump in zip(puzzles, laws, dumps):
            progress = _ProgressLine(puzzle.label, quiet=args.quiet, trace=trace, failures=failures)
            try:
                yield app.anneal(puzzle, backend=backend, fmt=args.output_format, check_unique=args.check_unique,
                                 progress=progress,
                                 options=replace(run_options, schedule=law, keep_state=dump is not None))
            finally:
                progress.close()

    try:
        return _report(answers(), puzzles, args, dumps, failures)
    finally:
        if trace is not None:
            trace.close()


def _check_layout(args, moves) -> None:
    """--threads-per-chain T > 1 on the cuda backend needs every move it runs to have a cooperative layout: one line
    now (UsageError) rather than the same refusal from the backend once the chains are set up and compiled."""
    from ...engine import plan

    if args.threads_per_chain in (None, 1):
        return
    for move in moves:
        if move is not None:
            try:
                plan.threads_for(move, args.threads_per_chain)
            except ValueError as error:
                raise UsageError(f"--threads-per-chain {args.threads_per_chain}: {error}") from None


# The launch plan's keys (``gpu_sa.engine.plan.KEYS``) that every line of --plan --json carries, in its order: a
# puzzle without a launch gets them too, null (and {} for the per-device ones).
PLAN_KEYS = plan_keys


def _planned_move(method, puzzle, args):
    """(move, why): the ``AnnealMove`` whose chains solving ``puzzle`` by ``method`` would run, built as that run
    builds it, or None when none would run, and why. Which backend the chains would run on decides auto's move
    at some sizes; a plan is the GPU's, so only a backend named cpu or numpy is taken at its word."""
    if method.exact:
        return None, f"method {method.name} runs no chains (the complete search alone)"
    if method.runs is not None:
        from ...puzzles.spec import application

        module = method.runs.partition(":")[0]
        try:
            choose = application(f"{module}:annealing_move")
        except AttributeError:
            return None, f"method {method.name} names no move of its own"
        return choose(puzzle, args.backend if args.backend in ("cpu", "numpy") else "cuda")
    if puzzle.contradicts():
        return None, "the checks before solving refute the givens: answered at once, no chain runs"
    name = args.move or getattr(puzzle, "default_move", args.kind_module.DEFAULT_MOVE)
    move = puzzle.move(name, propagate=not args.no_propagate)
    if not move.has_free_variables:
        return None, f"{puzzle.presolve} leaves nothing to move: no chain moves"
    return move, "--move" if args.move else "the default move at this size"


def _plan(kind, method, puzzles, args) -> int:
    """--plan: each puzzle's launch plan (``gpu_sa.engine.plan``, a model: no GPU needed, nothing run)."""
    from ...engine import plan

    for index, puzzle in enumerate(puzzles):
        move, why = _planned_move(method, puzzle, args)
        head = {"puzzle": puzzle.label, "index": index, "kind": kind.KIND, "size": _size(puzzle),
                "method": method.name, "backend": args.backend}
        if move is None:
            body = {**dict.fromkeys(PLAN_KEYS), "occupancy": {}, "predicted_moves_per_second": {},
                    "predicted_moves_per_second_per_chain": {}, "why": why}
        else:
            try:
                body = plan.launch_plan(move, chains=args.chains, threads_per_chain=args.threads_per_chain)
            except ValueError as error:
                if args.threads_per_chain is None:
                    raise
                raise UsageError(f"--threads-per-chain {args.threads_per_chain}: {error}") from None
        ending.emit(json.dumps({**head, **body}) if args.json else _plan_text(head, body, why))
        if stop.requested():
            break
    return ending.Outcome().status()  # 0, or 128 + the signal's number after a stop request


def _size(puzzle) -> str:
    """ROWSxCOLS of a puzzle's grid (a Sudoku's side, else its grid array's shape)."""
    side = getattr(puzzle, "side", None)
    if side is not None:
        return f"{side}x{side}"
    grids = [value.shape for value in vars(puzzle).values() if getattr(value, "ndim", 0) == 2]
    return "x".join(map(str, grids[0])) if grids else None


def _plan_text(head, body, chosen_by) -> str:
    """A plan as a short block for a person: the puzzle, then the plan's fields, one a line."""
    from ...engine.limits import format_bytes

    lines = [f"{head['puzzle']}: {head['kind']} {head['size']}, method {head['method']}, backend {head['backend']}"]
    if body["kernel"] is None:
        return "\n".join(lines + [f"  no launch: {body['why']}"])

    def number(value):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "none" if value is None else str(value)
        return f"{value:,}" if isinstance(value, int) else f"{value:.3g}"

    threads = body["threads_per_chain"]
    rows = [("move", f"{body['move']} ({chosen_by})"),
            ("kernel", body["kernel"]),
            ("layout", f"{body['layout']}: {threads} thread{'s' * (threads != 1)} per chain ({body['chosen']})"),
            ("chains", "the backend's default" if body["chains"] is None else number(body["chains"])),
            ("per chain", f"{format_bytes(body['shared_bytes_per_chain'])} shared, "
                          f"{format_bytes(body['global_bytes_per_chain'])} global memory")]
    devices = dict.fromkeys([*body["occupancy"], *body["predicted_moves_per_second"]])
    # the model's other keys: those with a value per device go on the devices' rows, the others on rows of their own
    per_device = [key for key, value in body.items() if key not in PLAN_KEYS and isinstance(value, dict)
                  and devices and set(value) <= set(devices)]
    others = [(key.replace("_", " "), number(value)) for key, value in body.items()
              if key not in PLAN_KEYS and key not in per_device]
    for device in devices:
        occupancy = body["occupancy"].get(device) or {}
        predicted = body["predicted_moves_per_second"].get(device)
        facts = [f"{key.replace('_', ' ')} {number(value)}" for key, value in occupancy.items()]
        facts.append("no prediction" if predicted is None else f"{number(float(predicted))} moves/s predicted")
        facts += [f"{key.replace('_', ' ')} {number(body[key].get(device))}" for key in per_device]
        rows.append((device, ", ".join(facts)))
    rows += others
    rows.append(("why", body["why"]))
    width = max(len(name) for name, _ in rows)
    return "\n".join(lines + [f"  {name:<{width}}  {text}" for name, text in rows])


def _report(answers, puzzles, args, dumps, failures=(), working: str | None = None) -> int:
    """Print each answer as it comes (then its dump), stop between puzzles when asked, and map it all to a status.
    ``working``: what runs meanwhile, for a progress line on stderr after a second, then every ten (the annealer
    has its own progress line, so its callers leave this out)."""
    from ...apps import solve as app

    outcome = ending.Outcome()
    done = 0

    def status(seconds):
        answered = f"{done:,} of {len(puzzles):,} puzzles answered; " if len(puzzles) > 1 else ""
        return f"gpu-sa: {answered}{puzzles[min(done, len(puzzles) - 1)].label}: {working} for {seconds:.0f} s"

    with Heartbeat(status, hint="Ctrl-C stops and reports", quiet=getattr(args, "quiet", False) or working is None):
        for answer, dump in zip(answers, dumps):
            if answer is None:  # stopped before this puzzle began
                break
            ending.emit(json.dumps(answer.record) if args.json else answer.text)
            done += 1
            outcome.unsolved |= not answer.solved
            if dump is not None and getattr(answer.result, "state", None) is None:
                ending.note(f"gpu-sa: {dump}: not written: the run stopped while its chains were being set up")
            elif dump is not None:
                try:
                    app.dump_states(dump, puzzles[done - 1], answer.result, overwrite=args.force)
                except OSError as error:
                    ending.note(f"gpu-sa: error: {dump}: cannot write the states: {error.strerror or error} "
                                f"(the result above stands)")
                    outcome.io_failed = True
            if stop.requested():
                break
    outcome.io_failed |= bool(failures)
    if stop.requested():
        name = signal.Signals(stop.signal_number() or signal.SIGINT).name
        ending.note(f"gpu-sa: stopped by {name}: {done} of {len(puzzles)} puzzles reported")
    return outcome.status()


class _ProgressLine:
    """Progress on stderr once a run has lasted a second: rewritten in place on a terminal (and erased by the
    next result or message, ``ending.note_in_place``), one line every ten seconds otherwise; every record to
    ``--trace`` (a failed write is one line, exit 74 at the end, and the run goes on).

    A batch (``labels``: its puzzles' labels in input order, which the runner's records name by ``index``): each
    record goes to the trace under its own puzzle's label, and the line sums up a chunk's records (one per
    running puzzle, with the same seconds and moves) once the next chunk's come: the puzzles answered so far
    (``done``, counted by the caller), the highest trial, the lowest best cost, the launch's proposals."""

    def __init__(self, label, quiet, trace=None, failures=None, labels=None):
        self.label, self.labels = label, labels
        self.quiet = quiet
        self.trace, self.failures = trace, failures
        self.tty = not quiet and sys.stderr is not None and sys.stderr.isatty()
        self.last = 0.0
        self.shown = False
        self.done = 0
        self.chunk = []  # a batch's records of the chunk in hand

    def __call__(self, p):
        if self.trace is not None and not self.failures:
            try:
                self.trace.write(self.label if self.labels is None else self.labels[p.index], p)
            except OSError as error:
                ending.note(f"gpu-sa: error: {self.trace.path}: cannot write the trace: {error.strerror or error}")
                self.failures.append(error)
        if self.labels is None:
            self._show(p)
            return
        if self.chunk and (p.seconds, p.moves) != (self.chunk[0].seconds, self.chunk[0].moves):
            chunk, self.chunk = self.chunk, []
            self._show(replace(chunk[0], trial=max(r.trial for r in chunk), best_cost=min(r.best_cost for r in chunk),
                               proposals_per_second=sum(r.proposals_per_second for r in chunk)),
                       f"puzzles {self.done}/{len(self.labels)}  ")
        self.chunk.append(p)

    def _show(self, p, done=""):
        if self.quiet or p.seconds < 1.0:
            return
        now = time.monotonic()
        if now - self.last < (0.2 if self.tty else 10.0):
            return
        self.last = now
        trial = f"trial {p.trial}  " if p.trial > 1 else ""
        line = (f"{self.label}: {p.seconds:6.1f} s  {done}{trial}moves/chain {p.moves:,} "
                f"({100 * p.moves / max(p.max_moves, 1):.1f}%)  T={p.temperature:.4g}  best cost {p.best_cost}  "
                f"{p.proposals_per_second:.3g} proposals/s")
        if self.tty:
            ending.note_in_place(line)  # erased by the next result or note
        else:
            ending.note(line)
        self.shown = True

    def close(self):
        if self.shown and self.tty:
            ending.clear_in_place()
