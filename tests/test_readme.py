"""The README's examples run as written."""
import re
import subprocess
import sys

from conftest import ROOT, run_cli


def test_python_example_runs():
    text = (ROOT / "README.md").read_text()
    (block,) = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    done = subprocess.run([sys.executable, "-c", block], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[0].startswith("True 244 462371985")
    assert done.stdout.splitlines()[1] == "True 1575008"
    assert done.stdout.splitlines()[2:4] == ["True [0, 1, 0, 3]", "1"]  # the 7x7 Shikaku's unique answer


def test_first_command_solves_the_bundled_example():
    text = (ROOT / "README.md").read_text()
    command = re.search(r"&& gpu-sa (solve examples/\S+ .*)", text).group(1).split()
    done = run_cli(*command)
    assert done.returncode == 0 and "solved in" in done.stdout
