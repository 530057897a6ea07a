import functools
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(Path(__file__).resolve().parent))


def cuda_mode():
    """'real' when GPU_SA_TEST_REAL_CUDA=1 (run on a GPU machine), else 'simulator'."""
    return "real" if os.environ.get("GPU_SA_TEST_REAL_CUDA") == "1" else "simulator"


def python_env(base=None):
    """``base`` (default: this process's environment) with the repository first on PYTHONPATH."""
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def cuda_env():
    env = python_env()
    if cuda_mode() == "simulator":
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    else:
        env.pop("NUMBA_ENABLE_CUDASIM", None)
    return env


_simulator_processes = [0]  # started so far: the next one takes the next core


def simulator_on_one_core(env):
    """``preexec_fn`` for a process started with ``env``: one core (the next in turn, inherited by its children)
    when ``env`` turns numba's CUDA simulator on, else None. The simulator runs each GPU thread as a Python thread
    and hands the GIL from thread to thread at every barrier; spread over the cores, each handoff waits for its
    thread's core. On this project's 2-core VM, ``gpu-sa generate --order 2 --count 4 --backend cuda --chains 4``
    took 19 s alone and 169 s beside two busy processes; on one core, 7 s and 9 s. The core is
    chosen here, so that the child, forked from a process with threads, only makes the one system call."""
    if env.get("NUMBA_ENABLE_CUDASIM") != "1" or not hasattr(os, "sched_setaffinity"):
        return None
    cores = sorted(os.sched_getaffinity(0))
    _simulator_processes[0] += 1
    return functools.partial(os.sched_setaffinity, 0, {cores[_simulator_processes[0] % len(cores)]})


# Three slow checks run as processes of their own, independent of everything else in the session: the bit-exact
# cases on the cuda backend (numba's simulator in CI), bench/gpu.sh's smoke report and the SASS of every kernel
# (about 80 s together on CI's 2 cores). They start one after the other in a background thread as soon as
# collection ends, on the core the single-threaded session leaves idle, and the test files that read them run
# last. A job starts only when a collected test needs its fixture (``pytest tests/cli/test_main.py`` starts none).
# They run at the lowest priority (nice 19), below the warm-up (nice 10): the session needs the warm-up's cache from
# its first minute, and these jobs' results only at its end.
def _gpu_report_job(folder):
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
    env.pop("OUT", None)
    return ["bash", str(ROOT / "bench" / "gpu.sh"), "--smoke", "--stages", "sass,throughput,tts",
            "--out", str(folder / "report.md"), "--commit", "abc1234"], env


def _sass_job(folder):
    return [sys.executable, str(ROOT / "bench" / "sass.py"), "--cc", "9.0", "--json", "--dump", str(folder)], python_env()


BACKGROUND_JOBS = {  # fixture -> (folder -> (command, environment)); run in this order
    "cuda_results": lambda folder: ([sys.executable, str(ROOT / "tests" / "cuda_worker.py"), str(folder)], cuda_env()),
    "smoke_report": _gpu_report_job,
    "sass_run": _sass_job,
}


def _at_lowest_priority(then=None):
    """``preexec_fn``: nice 19, then ``then`` (another ``preexec_fn``) when given."""
    def start():
        os.nice(19)
        if then is not None:
            then()
    return start


class Background:
    """The jobs of BACKGROUND_JOBS that this session needs, run in turn by one thread; ``result(name)`` waits."""

    def __init__(self, names):
        import tempfile
        import threading

        self.root = Path(tempfile.mkdtemp(prefix="gpu-sa-tests-"))
        self.names, self.status, self.process, self.stopping = list(names), {}, None, False
        self.finished = {name: threading.Event() for name in self.names}
        self.thread = threading.Thread(target=self._run_all, name="background-checks", daemon=True)
        self.thread.start()

    def _run_all(self):
        for name in self.names:
            folder = self.root / name
            folder.mkdir()
            command, env = BACKGROUND_JOBS[name](folder)
            with open(self.root / f"{name}.out", "wb") as out, open(self.root / f"{name}.err", "wb") as err:
                if not self.stopping:  # None: never started (the session is ending)
                    self.process = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=ROOT,
                                                    preexec_fn=_at_lowest_priority(simulator_on_one_core(env)))
                    try:
                        self.process.wait(timeout=900)
                    except subprocess.TimeoutExpired:
                        self.process.kill()
                        self.process.wait()
                    self.status[name] = self.process.returncode
            self.finished[name].set()

    def result(self, name):
        """(folder, standard output) of a job that succeeded, or a failure with the end of its standard error."""
        self.finished[name].wait()
        error = (self.root / f"{name}.err").read_text(errors="replace")
        assert self.status.get(name) == 0, f"{name}: exit {self.status.get(name)}\n{error[-3000:]}"
        return self.root / name, (self.root / f"{name}.out").read_text()

    def stop(self):
        import shutil

        self.stopping = True
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
        self.thread.join(timeout=30)
        shutil.rmtree(self.root, ignore_errors=True)


_background = []


class WarmUp:
    """``tests/warm_caches.py`` in a process of its own, from the session's start: numba's cache filled beside the
    session, in the order it needs it (a fresh clone's session compiles 65 s instead of 138 s)."""

    def __init__(self):
        import tempfile

        self.folder = Path(tempfile.mkdtemp(prefix="gpu-sa-warm-up-"))
        with open(self.folder / "out", "wb") as out, open(self.folder / "err", "wb") as err:
            # below the session's own threads (the cpu backend runs on every core), above the background jobs
            self.process = subprocess.Popen([sys.executable, str(ROOT / "tests" / "warm_caches.py")], stdout=out,
                                            stderr=err, env=python_env(), cwd=ROOT, preexec_fn=lambda: os.nice(10))

    def result(self):
        """(exit status, standard output, standard error), once it has ended (status None: not in 900 s)."""
        try:
            status = self.process.wait(timeout=900)
        except subprocess.TimeoutExpired:
            status = None
        return status, (self.folder / "out").read_text(errors="replace"), (self.folder / "err").read_text(errors="replace")

    def stop(self):
        import shutil

        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


_warm_up = []


def _whole_folders(config):
    """True when the session runs whole folders (the suite), not chosen files or tests."""
    return all("::" not in arg and Path(arg).is_dir() for arg in config.args)


def _started_warm_up():
    if not _warm_up:
        _warm_up.append(WarmUp())
    return _warm_up[0]


def pytest_configure(config):
    if _whole_folders(config):
        _started_warm_up()


def warm_up_result():
    """The warm-up's (exit status, stdout, stderr); started here when the session did not start it (chosen files)."""
    return _started_warm_up().result()


def background_result(name):
    """The result of background job ``name``, started at the end of collection (pytest_collection_finish)."""
    if not _background or name not in _background[0].names:
        pytest.fail(f"background job {name} was not started: a test needs it that collection did not see")
    return _background[0].result(name)


def _uses(item, name):
    return name in getattr(item, "fixturenames", ())


@pytest.hookimpl(trylast=True)  # after -k / -m deselection
def pytest_collection_modifyitems(session, config, items):
    """The files whose tests read a background job run last (whole files, so that module fixtures run once); before
    them, those marked ``after_the_warm_up``: their first tests would otherwise compile, in the session's first
    minute, what the warm-up is compiling beside it (the CDCL alone takes it about 75 s), and pay it twice."""
    late = {item.path for item in items if any(_uses(item, name) for name in BACKGROUND_JOBS)}
    after = {item.path for item in items if item.get_closest_marker("after_the_warm_up")}
    items.sort(key=lambda item: (item.path in late, item.path in after))  # stable: each group keeps its order


def pytest_collection_finish(session):
    names = [name for name in BACKGROUND_JOBS if any(_uses(item, name) for item in session.items)]
    if names and not _background:
        _background.append(Background(names))


def pytest_sessionfinish(session, exitstatus):
    while _background:
        _background.pop().stop()
    while _warm_up:
        _warm_up.pop().stop()


@pytest.fixture(scope="session")
def cuda_results():
    """Every bit-exact case run on the cuda backend (simulator in CI), in its own process: a folder of .npz."""
    folder, _ = background_result("cuda_results")
    return folder


def run_cli(*args, stdin=None, env=None, timeout=300):
    """Run ``python -m gpu_sa ARGS``; returns the CompletedProcess (text)."""
    env = python_env(env)
    return subprocess.run([sys.executable, "-m", "gpu_sa", *map(str, args)], input=stdin, capture_output=True,
                          text=True, env=env, timeout=timeout, cwd=ROOT, preexec_fn=simulator_on_one_core(env))


@pytest.fixture
def cli(capsys, monkeypatch):
    """``gpu_sa.cli.main.main`` run in this process (no start-up or compilation per call):
    ``run(*args, stdin=text or bytes)`` returns (exit status, stdout, stderr)."""
    import io

    from gpu_sa.cli import main as command_line

    def run(*args, stdin=""):
        data = stdin.encode() if isinstance(stdin, str) else stdin
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
        status = command_line.main([str(arg) for arg in args])
        out, err = capsys.readouterr()
        return status, out, err

    return run


def wait_for_handlers(pid, timeout=60.0):
    """Until gpu-sa's handlers catch SIGTERM: from then on every signal is the command's to answer.

    Before that, the interpreter itself is starting (importing ``site``): a SIGINT there is CPython's
    own business, before any code of the package runs. Numba's import and compilation come after.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with open(f"/proc/{pid}/status") as status:
            caught = int(next(line for line in status if line.startswith("SigCgt:")).split()[1], 16)
        if caught >> (signal.SIGTERM - 1) & 1:
            return
        time.sleep(0.01)
    raise AssertionError(f"no SIGTERM handler within {timeout} s")
