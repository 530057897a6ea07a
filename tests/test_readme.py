"""The README's examples run as written."""
import re
import subprocess
import sys

import pytest

from conftest import ROOT, run_cli


def test_python_example_runs():
    text = (ROOT / "README.md").read_text()
    (block,) = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    done = subprocess.run([sys.executable, "-c", block], cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines()[0].startswith("True 244 462371985")
    assert done.stdout.splitlines()[1] == "True 1711892"
    assert done.stdout.splitlines()[2:4] == ["True [0, 1, 0, 3]", "1"]  # the 7x7 Shikaku's unique answer


def test_first_command_solves_the_bundled_example():
    text = (ROOT / "README.md").read_text()
    command = re.search(r"&& gpu-sa (solve examples/\S+ .*)", text).group(1).split()
    done = run_cli(*command)
    assert done.returncode == 0 and ": solved " in done.stdout


def _helps(monkeypatch):
    import argparse

    from gpu_sa.cli import main as cli

    monkeypatch.setenv("COLUMNS", "10000")  # no wrapping inside a flag such as --dump-states
    parser = cli.build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    yield "gpu-sa", parser.format_help()
    for name, sub in commands.choices.items():
        yield name, sub.format_help()


def test_every_option_in_any_help_is_documented_in_the_readme(monkeypatch):
    text = (ROOT / "README.md").read_text()
    missing = {}
    for command, help_text in _helps(monkeypatch):
        for flag in sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", help_text)) - {"--help", "--version"}):
            if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", text):
                missing.setdefault(command, []).append(flag)
    assert not missing, f"options shown by --help but not in README.md: {missing}"


def test_the_exit_status_table_covers_every_status():
    from gpu_sa.cli import ending

    table = (ROOT / "README.md").read_text().split("## Exit status", 1)[1].split("\n## ", 1)[0]
    cells = [line.split("|")[1].strip() for line in table.splitlines() if line.startswith("|")]
    statuses = {int(code) for cell in cells[2:] for code in cell.split(",")}  # after the header and its rule
    assert statuses == {ending.OK, ending.UNSOLVED, ending.USAGE, ending.SOFTWARE, ending.IOERR, 129, 130, 143}


def _json_key_table():
    text = (ROOT / "README.md").read_text().split("**JSON keys**", 1)[1]
    rows = []
    for line in text.splitlines()[1:]:
        if rows and not line.startswith("|"):
            break
        if line.startswith("| `"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def test_the_readme_lists_every_json_key_of_the_schema_with_its_methods():
    """Issue 24 item 6: the README's key list did not hold for the default method; now it is the schema's."""
    from gpu_sa.apps import schema

    rows = _json_key_table()
    assert [row[0].strip("`") for row in rows] == [key.name for key in schema.KEYS]
    for (name, methods, present, meaning), key in zip(rows, schema.KEYS):
        assert methods == ("every" if key.methods == schema.METHODS else ", ".join(f"`{m}`" for m in key.methods))
        assert present == (key.when or "always") and meaning == key.meaning, name


def test_the_schema_names_every_method_of_every_kind():
    from gpu_sa.apps import schema
    from gpu_sa.cli.commands import kinds

    assert {method.name for module in kinds("solve").values() for method in module.METHODS} == set(schema.METHODS)


def readme_commands() -> list[str]:
    """Every `gpu-sa ...` command line shown in the README: the `$ gpu-sa` lines and the `gpu-sa` lines of its code
    blocks (the first command's `gpu-sa` part too), comments cut off, pipes and redirections kept. Benchmark scripts
    and commands of other programs (pip, dask) are not ours to run here."""
    text = (ROOT / "README.md").read_text()
    commands = []
    for block in re.findall(r"```\w*\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            found = re.match(r"\s*(?:\$ |.*&& )?(gpu-sa .*)", line)
            if found and not line.lstrip().startswith("#"):
                commands.append(re.sub(r"\s+#.*$", "", found.group(1)).strip())
    return commands


# Commands that may run long on a loaded machine get a short time limit from the test (README commands themselves
# stay as a user types them). Every other command runs exactly as written.
TIME_LIMITED = {"solve": "5"}


def _as_tested(command: str) -> str:
    words = command.split()
    if words[1] in TIME_LIMITED and "--time-limit" not in words and "--method ilp" not in command:
        head, sep, tail = command.partition(" >")  # before any redirection
        return f"{head} --time-limit {TIME_LIMITED[words[1]]}{sep}{tail}"
    return command


def test_the_readme_shows_the_commands_this_test_runs():
    commands = readme_commands()
    assert "gpu-sa solve examples/seed_easy.txt --seed 1" in commands and len(commands) >= 15
    assert "gpu-sa generate --count 2 --seed 5 | gpu-sa minimize - --seed 1" in commands


@pytest.mark.parametrize("command", readme_commands())
def test_every_readme_command_runs_as_written_and_succeeds(command, tmp_path):
    """Issue 24: `gpu-sa generate --kind hashi --size 16x16 --islands 100 --count 3 --unique` failed after 25 s, and
    `puzzles.txt` did not exist. Each command runs in a shell, in a folder holding the repository's examples, with
    `gpu-sa` the command of this checkout."""
    import os
    import stat

    (tmp_path / "examples").symlink_to(ROOT / "examples")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "gpu-sa"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m gpu_sa "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    environment = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", PYTHONPATH=str(ROOT))
    done = subprocess.run(["bash", "-o", "pipefail", "-c", _as_tested(command)], cwd=tmp_path, capture_output=True,
                          text=True, env=environment, timeout=300)
    assert done.returncode == 0, f"{command}\n{done.stderr[-2000:]}"
    assert done.stdout.strip() or list(tmp_path.glob("*.jsonl")), command
    assert "Traceback" not in done.stderr and "error" not in done.stderr
