"""Restarts of one hard puzzle, and batches of a data set, spread over a Dask cluster.

    one puzzle   the tasks are its trials (chain ranges): about two per worker thread in flight,
                 submitted in trial order                                       -> ``solve_one``
    a data set   the tasks are batches of consecutive puzzles, ``runner.anneal_many`` on a worker;
                 results leave in input order, each once it and every earlier one are known
                                                                                -> ``solve_many``
    ``cluster(address=...)`` connects to a running scheduler; ``cluster(workers=N)`` starts a
    ``LocalCluster`` of N one-thread worker processes and tears it down at the end.

Why the answers do not depend on the split: a chain's trajectory is a pure function of (seed,
chain index, options). Trial g runs chain indices chain_base + g * chains + k on whichever
worker, and ``runner.anneal(chain_base=chain_base + g * chains, trials=1)`` reproduces it exactly.
What is left is to choose the reported answer by the one-process rule (lowest cost, then
earliest trial, then earliest move, then lowest chain), once every trial that one process would
have run is known. So the first solving trial g stops the trials above g, but the run waits for
the trials below g still running: if one of them solves, its answer is the one. A worker that
dies loses only the tasks it held; the scheduler runs them again elsewhere, and a rerun trial is
the same trial. A puzzle's chains are the same alone or in a batch (``runner``), so a data set
gives the same per-puzzle answers whatever the batches and wherever they run.

Stopping work already running: Dask cannot interrupt a task, so each task asks between chunks
(``stop_when``) whether its future was cancelled (the worker marks the task cancelled: no message
to wait for) or the run's ``distributed.Event`` is set (asked of the scheduler at most every
POLL_SECONDS). Trials above a solving one are cancelled: their results are not needed. At the
time limit or a stop request the event is set instead, so that the running tasks end their
chunk and hand in their best so far.

``dask`` is an optional dependency (``pip install 'gpu-sa[dask]'``): it is imported only when a
function here needs it, and a missing install is one line (``ClusterError``).
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import time
import uuid
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Iterator, NamedTuple

import numpy as np

from ..engine import backends, runner, stop

POLL_SECONDS = 0.1  # a task asks for the run's stop event, the client for stop requests, this often
GRACE_SECONDS = 10.0  # at a stop, how long the client waits for running tasks to hand in their best so far
INSTALL_HINT = "pip install 'gpu-sa[dask]'"


class ClusterError(RuntimeError):
    """The cluster cannot do the job (no dask, bad or unreachable address, no workers, a worker that
    kept dying, a worker running other code); the message is one line for the user."""


class Placement(NamedTuple):
    """Where a task's chains run: a backend's name, resolved on each worker (``auto``: cuda where a GPU is), and
    the cuda backend's threads per chain (None: the launch plan's choice per move)."""

    backend: str
    threads_per_chain: int | None = None


@dataclass(frozen=True)
class Trial:
    """One finished trial task."""

    trial: int  # 0-based: chain indices chain_base + trial * chains ...
    worker: str  # address of the worker that finished it
    result: runner.Result  # what that trial alone found (``runner.anneal(..., trials=1)``)


@dataclass(frozen=True)
class Run:
    """A distributed solve of one puzzle."""

    result: runner.Result  # the one-process fields; ``moves`` and ``proposals`` count the work of every
    # finished trial task (those above the answer too), and ``seconds`` is the run's wall time
    trials: tuple[Trial, ...]  # every finished trial task, in trial order
    cancelled: int  # trial tasks submitted that did not finish (above the answer, or cut by a stop)
    warmup: dict  # worker address -> seconds its warm-up took (imports, propagation, loading compiled code)

    @property
    def workers(self) -> tuple[str, ...]:
        """Addresses of the workers that finished trials, in order of first appearance."""
        return tuple(dict.fromkeys(t.worker for t in self.trials))


def _distributed():
    try:
        import distributed
    except ImportError as error:
        raise ClusterError(f"Dask is not installed ({error}): {INSTALL_HINT}") from None
    return distributed


# -- the cluster -------------------------------------------------------------------------------------


@contextmanager
def cluster(address: str | None = None, workers: int | None = None, *, timeout: float = 10.0):
    """A ``distributed.Client`` on the scheduler at ``address``, or on a ``LocalCluster`` of
    ``workers`` processes (one thread each) started here and closed on exit.

    Checks that at least one worker is there within ``timeout`` seconds and that every worker
    runs the same gpu-sa sources as this process (other code could give other answers).
    """
    if (address is None) == (workers is None):
        raise ValueError("give either a scheduler address or a number of workers")
    distributed = _distributed()
    if workers is not None:
        runner.check_positive_int("workers", workers)
        try:
            local = distributed.LocalCluster(n_workers=int(workers), threads_per_worker=1, processes=True,
                                             dashboard_address=":0", silence_logs=logging.ERROR)
        except (OSError, TimeoutError) as error:
            raise ClusterError(f"cannot start a local cluster of {workers} workers: {_first_line(error)}") from None
        try:
            with distributed.Client(local) as client:
                _check_workers(client, "the local cluster", timeout)
                yield client
        finally:
            local.close()
        return
    client = _connect(distributed, address, timeout)
    try:
        _check_workers(client, f"the scheduler at {address}", timeout)
        yield client
    finally:
        client.close()


def check_address(address) -> None:
    """A ``ClusterError`` unless ``address`` reads as a Dask scheduler's address (nothing is contacted): the command
    line asks before anything else is said, so that a bad one is its only line."""
    _check_address(_distributed(), address)


def _connect(distributed, address, timeout):
    _check_address(distributed, address)
    try:
        return distributed.Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as error:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {_first_line(error)}") from None


def _check_address(distributed, address):
    if not isinstance(address, str) or not address.strip():
        raise ClusterError(f"not a Dask scheduler address: {address!r} (expected e.g. tcp://host:8786)")
    try:
        scheme, location = distributed.comm.parse_address(address)
        known = sorted(distributed.comm.registry.backends)
        if scheme not in known:
            raise ValueError(f"unknown scheme {scheme!r}, known: {', '.join(known)}")
        if scheme in ("tcp", "tls", "ws", "wss"):
            distributed.comm.parse_host_port(location)
    except (ValueError, TypeError) as error:
        raise ClusterError(f"not a Dask scheduler address: {address!r} ({_first_line(error)}; expected e.g. "
                           f"tcp://host:8786)") from None


def _first_line(error) -> str:
    return str(error).splitlines()[0] if str(error).strip() else error.__class__.__name__


def _check_workers(client, where, timeout):
    try:
        client.wait_for_workers(1, timeout=timeout)
    except (TimeoutError, OSError):
        raise ClusterError(f"{where} has no workers after {timeout:g} s (start some: dask worker ADDRESS "
                           f"--nthreads 1)") from None
    digest = _sources_digest()
    try:
        theirs = client.run(_sources_digest)
    except Exception as error:  # a worker without gpu_sa fails to unpickle the function
        raise ClusterError(f"a worker of {where} cannot run gpu-sa ({error.__class__.__name__}: "
                           f"{_first_line(error)}); install the same gpu-sa on every worker") from None
    for worker, other in sorted(theirs.items()):
        if other != digest:
            raise ClusterError(f"worker {worker} runs other gpu-sa sources (digest {other[:12]}, here "
                               f"{digest[:12]}): install the same version everywhere")


def _sources_digest() -> str:
    from ..engine import kernels

    return kernels.sources_digest()


def _worker_threads_by_address(client) -> dict:
    """address -> threads of every worker, asked of the scheduler now. Not ``client.scheduler_info()``: the client's
    periodic refresh of that cache asks for no workers, and one that lands during the call leaves ``"workers"`` empty
    (a CI run saw it: a run's workers were then missing from the cluster)."""
    return dict(client.nthreads())


def _threads_sharing_host(client) -> dict:
    """host -> worker threads on it, so that the CPU backend of each task takes its share of the cores (the host
    as ``_backend_here`` reads it from its worker's address)."""
    from distributed.comm import get_address_host

    sharing = {}
    for address, threads in _worker_threads_by_address(client).items():
        host = get_address_host(address)
        sharing[host] = sharing.get(host, 0) + int(threads)
    return sharing


def _worker_threads(client) -> int:
    return sum(_worker_threads_by_address(client).values())


# -- on the workers ----------------------------------------------------------------------------------

_backends = threading.local()


def _backend_here(placement: Placement | str, sharing: dict):
    """This worker thread's backend for ``placement`` (or a backend's name alone; kept between tasks); the CPU
    backend gets the cores of this host divided by the worker threads on it."""
    from distributed import get_worker
    from distributed.comm import get_address_host

    if isinstance(placement, str):
        placement = Placement(placement)

    cached = getattr(_backends, "by_key", None)
    if cached is None:
        cached = _backends.by_key = {}
    share = max(1, sharing.get(get_address_host(get_worker().address), 1))
    if (placement, share) not in cached:
        backend, _ = backends.select(placement.backend, threads_per_chain=placement.threads_per_chain)
        if backend.name == "cpu":
            backend = backends.CpuBackend(threads=max(1, backends.available_cores() // share))
        cached[placement, share] = backend
    return cached[placement, share]


class _StopPoll:
    """``stop_when`` of the task ``key``: true once its future is cancelled or the run's stop event is set."""

    def __init__(self, key: str, event_name: str):
        from distributed import Event, get_worker

        self.worker = get_worker()
        self.key = key
        self.event = Event(event_name)
        self.next_poll = 0.0
        self.stopped = False

    def __call__(self) -> bool:
        if not self.stopped:
            task = self.worker.state.tasks.get(self.key)
            now = time.monotonic()
            if task is None or task.state == "cancelled":
                self.stopped = True
            elif now >= self.next_poll:
                self.next_poll = now + POLL_SECONDS
                self.stopped = self.event.is_set()
        return self.stopped


def _warm_up(puzzle, backend: Placement, sharing: dict, options: runner.Options) -> tuple[float, tuple[int, int]]:
    """Pay imports, propagation and the compiled code's load (or compilation) once per worker, with
    a run of a few moves of one replica group. Returns (seconds, the default chain counts here)."""
    started = time.perf_counter()
    engine = _backend_here(backend, sharing)
    _, replicas = _default_chains(engine, puzzle, options)
    runner.anneal(puzzle, backend=engine, move=options.move, schedule=options.schedule, replicas=options.replicas,
                  propagate=options.propagate, chains=replicas, seed=0, max_moves=8, trials=1, early_stop=False)
    return time.perf_counter() - started, _chain_counts(engine, puzzle, options)


def _default_chains(engine, puzzle, options: runner.Options, shared: bool = False) -> tuple[int, int]:
    """(chains, replicas): the chain count ``runner.anneal_many`` takes on ``engine`` when none is named (the
    backend's, rounded down to whole replica groups), for a puzzle alone or (``shared``) one that shares its
    launches with others, and the replicas of the schedule."""
    anneal_move = options.move_of(puzzle)
    replicas = options.schedule_of(anneal_move).levels
    chains = (engine.dataset_chains if shared else engine.default_chains)(anneal_move)
    return max(replicas, chains - chains % replicas), replicas


def _chain_counts(engine, puzzle, options) -> tuple[int, int]:
    """(alone, shared): both default chain counts on ``engine`` (``_default_chains``)."""
    return tuple(_default_chains(engine, puzzle, options, shared)[0] for shared in (False, True))


def _probe(puzzle, backend: Placement, sharing: dict, options: dict) -> tuple[int, int]:
    return _chain_counts(_backend_here(backend, sharing), puzzle, options)


def _run_trial(puzzle, trial: int, backend: Placement, options: runner.Options, key: str, stop_name: str,
               sharing: dict) -> Trial:
    from distributed import get_worker

    result = runner.anneal(puzzle, backend=_backend_here(backend, sharing), stop_when=_StopPoll(key, stop_name),
                           options=options, chain_base=options.chain_base + trial * options.chains, trials=1)
    return Trial(trial=trial, worker=get_worker().address, result=result)


def _run_batch(puzzles: list, first_index: int, batch: int, backend: Placement, options: runner.Options, key: str,
               stop_name: str, sharing: dict) -> list:
    return [replace(result, index=first_index + result.index)
            for result in runner.anneal_many(puzzles, batch=batch, backend=_backend_here(backend, sharing),
                                             stop_when=_StopPoll(key, stop_name), options=options)]


# -- on the client -----------------------------------------------------------------------------------


def _prepare(client, puzzle, *, backend, warm_up, options):
    """Warm every worker up on ``puzzle`` (or only ask one which backend it runs).

    Returns (warm-up seconds per worker, the default chain counts on the first worker (alone, shared: see
    ``_default_chains``), worker threads per host).
    """
    sharing = _threads_sharing_host(client)
    addresses = sorted(_worker_threads_by_address(client))
    if warm_up:
        # loose restrictions: a warm-up whose worker dies runs elsewhere instead of waiting for it forever
        futures = [client.submit(_warm_up, puzzle, backend, sharing, options, workers=[address],
                                 allow_other_workers=True, pure=False, key=f"gpu-sa-warm-up-{uuid.uuid4().hex}")
                   for address in addresses]
        outcomes = [_result(future, "the warm-up") for future in futures]
        return ({address: seconds for address, (seconds, _) in zip(addresses, outcomes)}, outcomes[0][1], sharing)
    probe = client.submit(_probe, puzzle, backend, sharing, options, workers=addresses[:1], allow_other_workers=True,
                          pure=False, key=f"gpu-sa-probe-{uuid.uuid4().hex}")
    return {}, _result(probe, "the backend probe"), sharing


def _result(future, what):
    """A task's result; a worker that kept dying under it is the cluster's problem (one line)."""
    try:
        return future.result()
    except _distributed().KilledWorker as error:
        raise ClusterError(f"{what} failed: the workers running it died again and again ({error})") from None


def _wind_down(client, halt, futures: list) -> None:
    """At a stop: cancel the tasks not started yet, tell the running ones to stop (``halt``), and
    wait up to GRACE_SECONDS for them to hand in their best so far."""
    answers = list(client.run(_executing_keys, on_error="return").values())
    if all(isinstance(keys, list) for keys in answers):  # else a worker did not answer: the event alone stops
        running = set().union(*answers)
        for future in futures:
            if future.key not in running:
                future.cancel()
    halt.set()
    deadline = time.perf_counter() + GRACE_SECONDS
    while any(not f.done() for f in futures) and time.perf_counter() < deadline:
        time.sleep(POLL_SECONDS)


def _wait_for_one(futures: list, seconds: float) -> None:
    """Return once one of ``futures`` is done, or after ``seconds`` (to look at stop requests and deadlines)."""
    try:
        _distributed().wait(futures, timeout=seconds, return_when="FIRST_COMPLETED")
    except (TimeoutError, asyncio.TimeoutError):
        pass


def _executing_keys(dask_worker) -> list:
    return [task.key for task in dask_worker.state.executing]


def _trials(anneal_move, law, options: runner.Options, chains: int) -> int:
    """The trials ``runner.anneal`` would run (0: no limit), checked as it checks them; one for a puzzle with
    nothing to move or no moves to make."""
    moves, trials = options.budget(anneal_move, law, chains)
    return 1 if moves == 0 else trials


def _check(options: runner.Options, in_flight) -> None:
    """What ``runner.anneal`` cannot check for a cluster, before any task leaves."""
    if in_flight is not None:
        runner.check_positive_int("in_flight", in_flight)
    if options.keep_state:
        raise ValueError("keep_state: the chains' state stays on the workers")


@runner.taking_the_options
def solve_one(puzzle, *, client, backend: str = "auto", threads_per_chain: int | None = None,
              in_flight: int | None = None, warm_up: bool = True, on_trial: Callable[[Trial], None] | None = None,
              options: runner.Options | None = None, **keywords) -> Run:
    """Anneal ``puzzle`` with its trials spread over the workers of ``client``: the same answer as
    ``runner.anneal`` with the same options and seed (see the module docstring).

    The run's settings are those of ``runner.anneal`` (the fields of ``runner.Options``, as keywords or one
    ``options`` object), but ``keep_state``. ``backend`` is a name, resolved on each worker (``auto``: cuda where a
    GPU is), with ``threads_per_chain`` as ``runner.anneal`` takes it; ``chains`` defaults to the count
    ``runner.anneal`` takes on the first worker's backend, for every trial. ``time_limit`` is for the whole run,
    from the end of the warm-up. At most ``in_flight`` trial tasks are out at a time (default: twice the worker
    threads). ``on_trial`` is called with every trial task that finishes. A stop request (``gpu_sa.engine.stop``)
    or the time limit stops every trial and reports the best found so far (``stopped``: interrupted or
    time_limit; then the answer need not be the one-process answer).
    """
    options = runner.options_from("solve_one", options, keywords)
    _check(options, in_flight)
    backend = Placement(backend, runner.check_threads_per_chain(threads_per_chain, backend))
    distributed = _distributed()
    if options.seed is None:
        options = replace(options, seed=runner.default_seed())
    anneal_move = options.move_of(puzzle)
    law = options.schedule_of(anneal_move)
    _trials(anneal_move, law, options, options.chains or 1)  # the checks runner.anneal makes, before the warm-up
    setup_start = time.perf_counter()
    warmup, (default_chains, _), sharing = _prepare(client, puzzle, backend=backend, warm_up=warm_up, options=options)
    if options.chains is None:
        options = replace(options, chains=default_chains)
    chains, limit = options.chains, _trials(anneal_move, law, options, options.chains)
    if limit == 0:
        limit = (runner.CHAIN_INDICES - options.chain_base) // chains  # no limit: until the chain indices run out
    run_id = uuid.uuid4().hex
    halt = distributed.Event(f"gpu-sa-stop-{run_id}", client=client)
    started = time.perf_counter()
    deadline = stop.Deadline.after(options.time_limit, start=started)
    pending: dict[int, object] = {}  # trial -> future
    finished: dict[int, Trial] = {}
    next_trial, solved_at, cut_short, submitted = 0, None, None, 0
    try:
        while True:
            if stop.requested() or deadline.passed():
                cut_short = "interrupted" if stop.requested() else "time_limit"
                break
            horizon = limit if solved_at is None else solved_at
            if next_trial < horizon and len(pending) < (in_flight or 2 * _worker_threads(client)):
                # a trial gets what is left of the run's time
                task = options if deadline.at is None else replace(options, time_limit=max(deadline.left(), 1e-3))
                key = f"gpu-sa-trial-{next_trial}-{run_id}"
                pending[next_trial] = client.submit(_run_trial, puzzle, next_trial, backend, task, key, halt.name,
                                                    sharing, pure=False, key=key)
                next_trial += 1
                submitted += 1
                continue
            done = sorted(t for t, future in pending.items() if future.done())
            if not pending:
                break  # every trial the run needs has finished
            if not done:
                _wait_for_one(list(pending.values()), POLL_SECONDS)
                continue
            for t in done:
                if t not in pending:  # cancelled above a lower solving trial found in this round
                    continue
                finished[t] = _result(pending.pop(t), f"trial {t}")
                if on_trial is not None:
                    on_trial(finished[t])
                if options.early_stop and finished[t].result.solved and (solved_at is None or t < solved_at):
                    solved_at = t
                    for above in [a for a in pending if a > t]:
                        pending.pop(above).cancel()  # the trials above t stop at their next chunk
            if solved_at is not None and all(t in finished for t in range(solved_at)):
                break
        if cut_short is not None:
            _wind_down(client, halt, list(pending.values()))
            for t in [t for t, future in pending.items() if future.status == "finished"]:
                finished[t] = pending.pop(t).result()
    finally:
        for future in pending.values():
            future.cancel()
        halt.clear()  # forgets the event on the scheduler
    trials_run = tuple(finished[t] for t in sorted(finished))
    result = _combine(trials_run, solved_at, cut_short, chains=chains, seed=options.seed,
                      seconds=time.perf_counter() - started, setup_seconds=started - setup_start,
                      interval=options.exchange_interval or law.plateau_length)
    return Run(result=result, trials=trials_run, cancelled=submitted - len(trials_run), warmup=warmup)


def _combine(trials: tuple[Trial, ...], solved_at, cut_short, *, chains, seed, seconds, setup_seconds,
             interval) -> runner.Result:
    """The one-process result from the trials that one process would have run (all, when cut short)."""
    if not trials:
        raise ClusterError("the run was stopped (time limit or stop request) before any trial handed in a result")
    counted = [t for t in trials if solved_at is None or t.trial <= solved_at]
    answer = min(counted, key=lambda t: (t.result.cost, t.trial))  # lowest cost, then earliest trial
    best = answer.result
    if cut_short is not None:  # even with a solution: a trial below it may have been cut short
        stopped = cut_short
    elif solved_at is not None:
        stopped = "solved"
    else:
        stopped = counted[-1].result.stopped  # why the last trial ended, as in one process
    moves = sum(t.result.moves for t in trials)
    return replace(best, moves=moves, proposals=moves * chains, seconds=seconds, setup_seconds=setup_seconds,
                   seed=seed, chains=chains, trials=counted[-1].trial + 1, stopped=stopped,
                   exchange_rates=_exchange_rates(counted, chains, interval), index=0, state=None)


def _exchange_rates(trials, chains, interval) -> tuple:
    """Accepted / attempted exchanges per pair of rungs over ``trials``, as one process sums them."""
    replicas = trials[0].result.replicas
    if replicas < 2:
        return ()
    accepted = np.zeros(replicas - 1, dtype=np.int64)
    attempted = np.zeros(replicas - 1, dtype=np.int64)
    for t in trials:
        tried = runner.exchange_attempts(replicas - 1, t.result.moves // interval, chains // replicas)
        accepted += np.rint(np.asarray(t.result.exchange_rates) * tried).astype(np.int64)
        attempted += tried
    return tuple(float(a) / int(n) if n else 0.0 for a, n in zip(accepted, attempted))


@runner.taking_the_options
def solve_many(puzzles: Iterable, *, client, batch: int | None = None, backend: str = "auto",
               threads_per_chain: int | None = None, in_flight: int | None = None, warm_up: bool = True,
               options: runner.Options | None = None, **keywords) -> Iterator[runner.Result]:
    """Anneal every puzzle of ``puzzles``, ``batch`` consecutive puzzles per task on the workers of
    ``client``; yield results in input order (``Result.index``), each as soon as it and every
    earlier one are known: the same per-puzzle results as ``runner.anneal_many`` in one process.

    The run's settings are those of ``runner.anneal_many`` (the fields of ``runner.Options``), but
    ``keep_state``; ``backend`` and ``threads_per_chain`` as for ``solve_one``. ``batch`` defaults to
    ``anneal_many``'s default on the first worker's backend; ``time_limit`` is per puzzle. Without ``chains`` each
    batch takes the default of its worker's backend, as ``anneal_many`` does: name it for the same answers on
    workers of different backends. At most ``in_flight`` tasks are out at a time, finished or not (default: four
    per worker thread), so ``puzzles`` is read lazily. At a stop request the running
    tasks end their puzzles (``stopped``: interrupted) and the results so far are yielded; later
    puzzles are not started.
    """
    options = runner.options_from("solve_many", options, keywords)
    _check(options, in_flight)
    backend = Placement(backend, runner.check_threads_per_chain(threads_per_chain, backend))
    distributed = _distributed()
    if options.seed is None:
        options = replace(options, seed=runner.default_seed())
    if batch is not None:
        runner.check_positive_int("batch", batch)
    source = iter(puzzles)
    first = next(source, None)
    if first is None:
        return
    anneal_move = options.move_of(first)
    law = options.schedule_of(anneal_move)
    _trials(anneal_move, law, options, options.chains or 1)  # the checks runner.anneal_many makes, first
    _, (default_chains, dataset_chains), sharing = _prepare(client, first, backend=backend, warm_up=warm_up,
                                                            options=options)
    # as anneal_many: enough puzzles per launch for four times the backend's default chain count, each with
    # the dataset count unless named; named here, so that every task (a last one of a single puzzle too)
    # runs the chains one process would
    options = replace(options, chains=options.chains or dataset_chains)
    _trials(anneal_move, law, options, options.chains)
    batch = max(1, default_chains * 4 // options.chains) if batch is None else int(batch)
    source = itertools.chain([first], source)
    run_id = uuid.uuid4().hex
    halt = distributed.Event(f"gpu-sa-stop-{run_id}", client=client)
    queue: deque = deque()  # futures of the batches out, in input order
    position = 0
    window = in_flight or 4 * _worker_threads(client)
    try:
        while True:
            while len(queue) < window and not stop.requested():
                puzzles_of_batch = list(itertools.islice(source, batch))
                if not puzzles_of_batch:
                    break
                key = f"gpu-sa-batch-{position}-{run_id}"
                queue.append(client.submit(_run_batch, puzzles_of_batch, position, batch, backend, options, key,
                                           halt.name, sharing, pure=False, key=key))
                position += len(puzzles_of_batch)
            if not queue:
                return
            if stop.requested():
                _wind_down(client, halt, list(queue))  # running batches end their puzzles now
                while queue and queue[0].status == "finished":
                    yield from queue.popleft().result()
                return
            if not queue[0].done():
                _wait_for_one([queue[0]], POLL_SECONDS)
                continue
            yield from _result(queue.popleft(), "a batch of puzzles")
    finally:
        for future in queue:
            future.cancel()
        halt.clear()  # forgets the event on the scheduler
