import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
sys.path.insert(0, str(Path(__file__).resolve().parent))


def cuda_mode():
    """'real' when GPU_SA_TEST_REAL_CUDA=1 (run on a GPU machine), else 'simulator'."""
    return "real" if os.environ.get("GPU_SA_TEST_REAL_CUDA") == "1" else "simulator"


def cuda_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    if cuda_mode() == "simulator":
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    else:
        env.pop("NUMBA_ENABLE_CUDASIM", None)
    return env


@pytest.fixture(scope="session")
def cuda_results(tmp_path_factory):
    """Every bit-exact case run on the cuda backend (simulator in CI), in its own process."""
    out = tmp_path_factory.mktemp("cuda")
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "cuda_worker.py"), str(out)], env=cuda_env(),
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return out


def run_cli(*args, stdin=None, env=None, timeout=300):
    """Run ``python -m gpu_sa ARGS``; returns the CompletedProcess (text)."""
    environment = dict(os.environ if env is None else env)
    environment["PYTHONPATH"] = str(ROOT) + os.pathsep + environment.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "gpu_sa", *map(str, args)], input=stdin, capture_output=True,
                          text=True, env=environment, timeout=timeout, cwd=ROOT)


@pytest.fixture
def cli(capsys, monkeypatch):
    """``gpu_sa.cli.main`` run in this process (no start-up or compilation per call):
    ``run(*args, stdin=text or bytes)`` returns (exit status, stdout, stderr)."""
    import io

    from gpu_sa import cli as command_line

    def run(*args, stdin=""):
        data = stdin.encode() if isinstance(stdin, str) else stdin
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
        status = command_line.main([str(arg) for arg in args])
        out, err = capsys.readouterr()
        return status, out, err

    return run
