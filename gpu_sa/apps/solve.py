"""Answer puzzles: by the batch annealer, or exactly (``count_solutions``), one puzzle at a time.

Each answer is an ``Answer``: a JSON record and a text for people, built here so that every
front end (the command line, the web page) reports the same things. Sizes are checked before
any allocation: a chain count whose states do not fit in memory, or that runs past the 2**32
chain indices of the random streams, and a replica exchange table that does not fit, are one line,
not a MemoryError.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..engine import exchange, runner, schedule as schedule_module, stop
from . import schema
from ..engine.contract import state_bytes
from ..options import UsageError, check_cooling, check_output, read_text

LAWS = ("geometric", "sirdey", "list")


@dataclass(frozen=True)
class Answer:
    label: str
    solved: bool
    stopped: str  # solved | max_moves | stalled | time_limit | interrupted | no_solution | max_nodes
    record: dict  # the --json line
    text: str  # what a person reads
    result: runner.Result | None = None  # the annealer's result (with the chains' state if kept)


def schedule_for(anneal_move, *, law: str = "geometric", t0=None, t_end=None, plateaus=None, plateau_length=None,
                 delta=None, temperatures=None, replicas=None) -> schedule_module.Schedule:
    """The temperature law asked for, with the move's tuned defaults for whatever was not given; with
    ``replicas`` R > 1, a ladder of R fixed temperatures from the law's end (coldest) up to its start."""
    length = anneal_move.plateau_length if plateau_length is None else plateau_length
    if law == "sirdey":
        return schedule_module.sirdey(max_cost=anneal_move.max_cost, log_states=anneal_move.log_states,
                                      plateau_length=length, delta=0.1 if delta is None else delta, t0=t0)
    if law == "list":
        if temperatures is None:
            raise UsageError("--schedule list needs --temperatures")
        return schedule_module.from_list(temperature_list(temperatures), plateau_length=length)
    default_t0, default_t_end, default_plateaus = (anneal_move.schedule_defaults or
                                                   (runner.DEFAULT_T0, runner.DEFAULT_T_END, runner.DEFAULT_PLATEAUS))
    check_cooling(default_t0 if t0 is None else t0, default_t_end if t_end is None else t_end,
                  start="--t0" if t0 is not None else "the default --t0",
                  end="--t-end" if t_end is not None else "the default --t-end")
    t0 = default_t0 if t0 is None else t0
    t_end = default_t_end if t_end is None else t_end
    if replicas is not None and replicas > 1:
        if law != "geometric":
            raise UsageError(f"--replicas needs the ladder between --t-end and --t0, not --schedule {law}")
        return schedule_module.ladder(t_low=t_end, t_high=t0, replicas=replicas,
                                      plateaus=default_plateaus if plateaus is None else plateaus, plateau_length=length)
    return schedule_module.geometric(t0=t0, t_end=t_end, plateaus=default_plateaus if plateaus is None else plateaus,
                                     plateau_length=length)


def temperature_list(text: str) -> list[float]:
    """'2,1,0.5' or '@FILE' (one temperature per line, '#' comments) as positive floats."""
    if text.startswith("@"):
        raw, source = read_text(text[1:])
        items = [(f"{source}:{n}", line.strip()) for n, line in enumerate(raw.splitlines(), 1)
                 if line.strip() and not line.strip().startswith("#")]
    else:
        items = [(f"--temperatures item {n}", item.strip()) for n, item in enumerate(text.split(","), 1)]
    values = []
    for where, item in items:
        try:
            value = float(item)
        except ValueError:
            raise UsageError(f"{where}: {item!r} is not a temperature") from None
        if not 0 < value < float("inf"):
            raise UsageError(f"{where}: temperature {item} must be a positive number")
        values.append(value)
    if not values:
        raise UsageError("--temperatures: no temperature given")
    return values


def check_chains(anneal_move, chains: int, trials: int | None, law: schedule_module.Schedule | None = None) -> None:
    """One line, before allocating, when the chains (and the replica exchange table of ``law``, a ladder) cannot
    fit in memory or in the chain indices."""
    from ..engine.limits import check_memory

    check_memory(state_bytes(anneal_move, chains), f"--chains {chains}: {chains:,} chains")
    if law is not None and law.levels > 1:  # the engine checks it too, but only once the chains are set up
        pairs, gaps = exchange.exchange_shape(law.rungs(), anneal_move.cost_bound)
        check_memory(exchange.table_bytes(pairs, gaps),
                     f"--replicas {law.levels}: {exchange.describe_table(pairs, gaps)}")
    runs = chains * max(trials or 1, 1)
    if runs > runner.CHAIN_INDICES:
        raise UsageError(f"--chains {chains} x --trials {trials} = {runs:,} chains in all: at most "
                         f"{runner.CHAIN_INDICES:,} (each chain has its own random stream, numbered in 32 bits)")


def dump_paths(path: str | None, count: int, *, overwrite: bool = False) -> list[str | None]:
    """PATH.npz for one puzzle, PATH-1.npz, PATH-2.npz, ... for several; checked before any run. ``.npz`` goes
    only after a plain file name: an empty name, a directory or a device is refused, not suffixed; an
    existing file is refused unless ``overwrite`` (--force)."""
    if path is None:
        return [None] * count
    check_output(path, "--dump-states", overwrite=True)  # the name as given: a file, not a place
    stem = path[:-4] if path.endswith(".npz") else path
    paths = [stem + ".npz"] if count == 1 else [f"{stem}-{k}.npz" for k in range(1, count + 1)]
    for candidate in paths:
        check_output(candidate, "--dump-states", overwrite=overwrite)
    return paths


def dump_states(path: str, puzzle, result: runner.Result, *, overwrite: bool = False) -> None:
    """Every chain's state after the run, as an .npz; OSError when the file cannot be written."""
    state = result.state
    base = puzzle.state_base
    with open(path, "wb" if overwrite else "xb") as handle:  # "x": not even a file that appeared meanwhile
        np.savez(handle, states=state.config.astype(np.int64) + base, costs=state.cost, accepted=state.accepted,
                 best_states=state.best_config.astype(np.int64) + base, best_costs=state.best_cost,
                 best_moves=state.best_move, **puzzle.instance_arrays())


def anneal(puzzle, *, backend, options: runner.Options, fmt: str | None, check_unique: bool,
           progress=None) -> Answer | None:
    """Anneal one puzzle; None when a stop request came before its run began (nothing to report for it)."""
    if puzzle.contradicts():  # the cheap bound: propagation only, no search
        return contradiction(puzzle, "anneal", options.seed)
    deadline = stop.Deadline.after(options.time_limit)
    try:
        result = runner.anneal(puzzle, backend=backend, progress=progress, options=options)
    except stop.Interrupted:  # the stop request came before this puzzle's run began
        return None
    return annealed(puzzle, result, fmt, check_unique, time_left=deadline.left())


def contradiction(puzzle, method, seed) -> Answer:
    """A puzzle whose givens the cheap checks already refute: no solution, at once (stopped: contradiction,
    the check's own words in "reason")."""
    from time import perf_counter

    started = perf_counter()
    reason = puzzle.contradiction() or "the givens contradict each other"
    seconds = perf_counter() - started
    ran = {"auto": dict(answered_by="propagation", rounds=0, nodes=0, restarts=0)}.get(method, {})
    record = schema.record(method, puzzle=puzzle.label, solved=False, solution=None, cost=None,
                           seconds=round(seconds, 6), seed=seed, stopped="contradiction", reason=reason, backend=None,
                           setup_seconds=0.0, moves=0, **ran)
    return Answer(puzzle.label, False, "contradiction", record,
                  verdict(puzzle.label, "the checks before solving", "no_solution", seconds, reason))


def anneal_batches(puzzles, schedules, *, backend, options: runner.Options, batch: int | None, fmt: str | None,
                   check_unique: bool, progress=None):
    """Answers of every puzzle in input order, those of one shape and schedule annealed ``batch`` at a time in
    one launch (``runner.anneal_many``); contradicted puzzles answered at once. ``progress`` gets the runner's
    records, one per chunk and running puzzle, each ``index`` the puzzle's position in ``puzzles``."""
    pending = []  # (position, puzzle, schedule) waiting for the runner, in order

    def flush():
        group = [(p, s) for _, p, s in pending]
        positions = [position for position, _, _ in pending]
        relay = None if progress is None else (
            lambda record: progress(replace(record, index=positions[record.index])))  # the runner's: in the group
        results = runner.anneal_many([p for p, _ in group], batch=batch, backend=backend, progress=relay,
                                     options=options, schedule=group[0][1])
        for (puzzle, _), result in zip(group, results):
            yield annealed(puzzle, result, fmt, check_unique)
        pending.clear()

    for position, (puzzle, law) in enumerate(zip(puzzles, schedules)):
        if pending and law != pending[0][2]:
            yield from flush()
        if puzzle.contradicts():
            if pending:
                yield from flush()
            yield contradiction(puzzle, "anneal", options.seed)
            continue
        pending.append((position, puzzle, law))
    if pending:
        yield from flush()


def on_cluster(puzzles, schedules, *, address, workers, backend: str, options: runner.Options, batch, fmt,
               check_unique, threads_per_chain: int | None = None):
    """Answers of every puzzle in input order, annealed on a Dask cluster (``gpu_sa.apps.distributed``): one
    puzzle's trials, or batches of several puzzles, are the tasks; the same answers as in this process.
    ``backend`` is a name that each worker resolves, with ``threads_per_chain`` (``runner.anneal``'s)."""
    from . import distributed

    with distributed.cluster(address=address, workers=workers) as client:
        live = [(puzzle, law) for puzzle, law in zip(puzzles, schedules)]
        if len(live) == 1:
            puzzle, law = live[0]
            if puzzle.contradicts():
                yield contradiction(puzzle, "anneal", options.seed)
                return
            run = distributed.solve_one(puzzle, client=client, backend=backend, threads_per_chain=threads_per_chain,
                                        options=options, schedule=law)
            yield annealed(puzzle, run.result, fmt, check_unique)
            return
        # puzzles of one schedule go to the cluster together; contradicted ones are answered at once
        answerable = [(puzzle, law) for puzzle, law in live if not puzzle.contradicts()]
        results = iter(distributed.solve_many([p for p, _ in answerable], client=client, batch=batch, backend=backend,
                                              threads_per_chain=threads_per_chain, options=options,
                                              schedule=answerable[0][1] if answerable else None))
        for puzzle, _ in live:
            if puzzle.contradicts():
                yield contradiction(puzzle, "anneal", options.seed)
            else:
                yield annealed(puzzle, next(results), fmt, check_unique)


def plural(count: int, word: str, words: str | None = None) -> str:
    """'1 round', '2 rounds', '1,000 branches'."""
    return f"{count:,} {word if count == 1 else (words or word + 's')}"


# The result lines, one form whichever method answered and whichever command asked (solve, exact, auto):
#     <label>: solved by <who> in <seconds> s (<effort>)
#     <label>: not solved by <who>: <why> after <seconds> s (<effort>)
#     <label>: no solution, proved by <who> in <seconds> s (<effort>)
# <who> in words (BY), seconds with two decimals, effort in the same units everywhere (branches of the complete
# search, moves of the annealer, MILP solves of the integer program).
BY = {"propagation": "propagation", "exact": "the complete search", "anneal": "the annealer",
      "ilp": "the integer program"}
# why a run ended without an answer (its ``stopped``), in words
ENDED = {"time_limit": "gave up at the time limit", "max_nodes": "gave up at the branch limit (--max-nodes)",
         "interrupted": "stopped", "max_moves": "gave up when its moves ran out (--max-moves, --trials)",
         "stalled": "gave up when no chain improved for --stall-plateaus plateaus",
         "rounds": "gave up when its rounds ran out"}


def outcome(label: str, verdict: str, seconds: float, effort: str, *, ended: bool = False) -> str:
    """One result line: '<label>: <verdict> in <seconds> s (<effort>)' ('after' for a run that ``ended`` without
    its answer)."""
    return f"{label}: {verdict} {'after' if ended else 'in'} {seconds:.2f} s ({effort})"


def verdict(label: str, who: str, stopped: str, seconds: float, effort: str) -> str:
    """The result line of a run by ``who`` (BY's words) that ended with ``stopped``: solved, no_solution (proved),
    or a key of ENDED."""
    if stopped == "solved":
        return outcome(label, f"solved by {who}", seconds, effort)
    if stopped == "no_solution":
        return outcome(label, f"no solution, proved by {who}", seconds, effort)
    why = ENDED.get(stopped, stopped.replace("_", " "))
    return outcome(label, f"not solved by {who}: {why}", seconds, effort, ended=True)


def annealed(puzzle, result, fmt, check_unique, time_left=None) -> Answer:
    """The Answer of one annealing result (``time_left``: what is left of its --time-limit for --check-unique)."""
    json_fmt = puzzle.fmt if fmt in (None, "same") else fmt
    extra = {}
    if result.replicas > 1:
        extra.update(replicas=result.replicas, exchange_rates=[round(rate, 6) for rate in result.exchange_rates])
    if result.pool_interval:
        extra["pool_interval"] = result.pool_interval
    if check_unique:
        extra["unique"] = unique = uniqueness(puzzle, time_left=time_left) if result.solved else None
    record = schema.record("anneal", puzzle=puzzle.label, solved=result.solved,
                           solution=puzzle.answer(result.solution, json_fmt) if result.solved else None,
                           cost=result.cost, chain=result.chain, moves=result.moves, proposals=result.proposals,
                           seconds=round(result.seconds, 6), setup_seconds=round(result.setup_seconds, 6),
                           backend=result.backend, seed=result.seed, chains=result.chains,
                           chain_moves=result.chain_moves, trials=result.trials, stopped=result.stopped,
                           best=puzzle.answer(result.best, json_fmt), schedule=result.schedule, **extra)
    trials = f" over {plural(result.trials, 'trial')}" if result.trials > 1 else ""
    budget = (f"{plural(result.chains, 'chain')} x {plural(result.moves, 'move')}{trials} on {result.backend}; seed "
              f"{result.seed}; setup {result.setup_seconds:.2f} s")
    if result.solved and result.moves == 0:  # nothing was left to anneal: the candidates fixed every variable
        lines = [verdict(puzzle.label, puzzle.presolve, "solved", result.seconds,
                         f"before any annealing; seed {result.seed}; setup {result.setup_seconds:.2f} s")]
    elif result.solved:
        lines = [verdict(puzzle.label, BY["anneal"], "solved", result.seconds,
                         f"chain {result.chain} after {plural(result.chain_moves, 'move')}; {budget}")]
    else:
        lines = [verdict(puzzle.label, BY["anneal"], result.stopped, result.seconds,
                         f"best cost {result.cost} in chain {result.chain}; {budget}")]
    if result.solved and check_unique:
        lines.append(UNIQUE_TEXT[unique])
    text_fmt = puzzle.fmt if fmt == "same" else (fmt or "pretty")
    lines.append(puzzle.write(result.solution if result.solved else result.best, text_fmt))
    return Answer(puzzle.label, result.solved, result.stopped, record, "\n".join(lines), result)


UNIQUE_TEXT = {True: "the solution is unique", False: "the puzzle has other solutions too",
               None: "uniqueness unknown: the exact search gave up"}


def uniqueness(puzzle, seed=None, time_left=None):
    """True/False from the exact solver, None when it gave up before knowing (``seed``: its seeded search;
    ``time_left``: what is left of the run's --time-limit, the check's own limit: None when nothing is left)."""
    if time_left is not None and time_left <= 0:
        return None
    exact = puzzle.count_solutions(limit=2, seed=seed, time_limit=time_left)
    return None if exact.gave_up and exact.solutions < 2 else exact.solutions == 1


def exact(puzzle, *, method: str, check_unique: bool, time_limit=None, fmt: str | None = None,
          options: dict | None = None, seed: int | None = None) -> Answer:
    """``solve --method`` of an exact kind (the ILP, Sudoku's complete search): the solver's answer, checked by
    the validator; ``seed`` drives its random tie-breaks and restarts (HiGHS's random_seed)."""
    limits = dict(options or {})
    if time_limit is not None:
        limits["time_limit"] = time_limit
    if seed is not None:
        limits["seed"] = seed
    answer = puzzle.count_solutions(limit=2 if check_unique else 1, **limits)
    solved = answer.solutions > 0
    if solved:
        violations = puzzle.check(answer.solution)
        if violations:
            raise RuntimeError(f"{puzzle.label}: the {method} solver's solution fails the validator: {violations[0]}")
    unique = None if answer.gave_up and answer.solutions < 2 else answer.solutions == 1
    stopped = "solved" if solved else _why_stopped(answer)
    json_fmt = puzzle.fmt if fmt in (None, "same") else fmt
    effort = {key: getattr(answer, key) for key in ("rounds", "cuts", "variables", "constraints", "nodes")
              if getattr(answer, key, None) is not None and method in schema.KEYS_BY_NAME[key].methods}
    record = schema.record(method, puzzle=puzzle.label, solved=solved,
                           solution=puzzle.answer(answer.solution, json_fmt) if solved else None,
                           cost=0 if solved else None, seconds=round(answer.seconds, 6), seed=seed, stopped=stopped,
                           **effort, **({"unique": unique} if check_unique else {}))
    who, work = _effort(answer, seed)
    line = verdict(puzzle.label, who, stopped, answer.seconds, work)
    if not solved:
        return Answer(puzzle.label, False, stopped, record, line)
    lines = [line]
    if check_unique:
        lines.append(UNIQUE_TEXT[unique])
    lines.append(puzzle.write(answer.solution, puzzle.fmt if fmt == "same" else (fmt or "pretty")))
    return Answer(puzzle.label, True, stopped, record, "\n".join(lines))


def _why_stopped(answer) -> str:
    """no_solution (proved), or why the search gave up: interrupted, time_limit, or max_nodes (the Sudoku search's
    node cap; an integer program gives up on its time limit only)."""
    return _gave_up(answer) if answer.gave_up else "no_solution"


def _effort(answer, seed: int | None = None) -> tuple[str, str]:
    """(who, effort) of an exact solver's answer in the result lines' words: the complete search and its branches
    (Sudoku), or the integer program, its size and its solves; the seed when one drove it."""
    if answer.nodes is None:
        who, effort = BY["ilp"], (f"{plural(answer.variables, 'variable')}, {plural(answer.constraints, 'constraint')}"
                                  f", {plural(answer.rounds, 'MILP solve')}, {plural(answer.cuts, 'connectivity cut')}")
    else:
        who, effort = BY["exact"], plural(answer.nodes, "branch", "branches")
    return who, effort + ("" if seed is None else f"; seed {seed}")


def _gave_up(answer) -> str:
    """What ended a search that did not decide (a key of ENDED): a stop request, the time limit, or the node
    limit (the integer programs have only a time limit, and tell no stop from it)."""
    if getattr(answer, "interrupted", False) or stop.requested():  # a stop request ends a solver as its limit does
        return "interrupted"
    if getattr(answer, "timed_out", False) or answer.nodes is None:
        return "time_limit"
    return "max_nodes"


def count(puzzle, *, limit: int, fmt: str | None, options: dict) -> Answer:
    """``gpu-sa exact``: solutions counted up to ``limit`` (``options``: the kind's own, by keyword)."""
    answer = puzzle.count_solutions(limit=limit, **options)
    json_fmt = puzzle.fmt if fmt in (None, "same") else fmt
    record = {"puzzle": puzzle.label, "solutions": answer.solutions,
              "solution": puzzle.answer(answer.solution, json_fmt) if answer.solutions else None,
              "nodes": answer.nodes, "seconds": round(answer.seconds, 9), "gave_up": answer.gave_up}
    if answer.gave_up:
        record["stopped"] = _gave_up(answer)
    if getattr(answer, "seed", None) is not None and getattr(answer, "restarts", None) is not None:
        record.update(seed=answer.seed, restarts=answer.restarts, final_nodes=answer.final_nodes)
    who, effort = _effort(answer, getattr(answer, "seed", None))
    found = plural(answer.solutions, "solution")
    if answer.gave_up:
        line = outcome(puzzle.label, f"{who} {ENDED[record['stopped']]} with {found} found", answer.seconds, effort,
                       ended=True)
    elif answer.solutions == 0:
        line = verdict(puzzle.label, who, "no_solution", answer.seconds, effort)
    elif answer.solutions >= limit and limit > 1:
        line = outcome(puzzle.label, f"at least {found}, found by {who}", answer.seconds,
                       f"{effort}; counting stopped at --count-limit")
    elif answer.solutions == 1 and limit > 1:
        line = outcome(puzzle.label, f"unique solution, proved by {who}", answer.seconds, effort)
    else:
        line = outcome(puzzle.label, f"{found}, found by {who}", answer.seconds, f"{effort}; not counted further")
    lines = [line]
    if answer.solutions:
        lines.append(puzzle.write(answer.solution, fmt or "pretty"))
    stopped = "solved" if answer.solutions else ("gave_up" if answer.gave_up else "no_solution")
    return Answer(puzzle.label, answer.solutions > 0, stopped, record, "\n".join(lines))
