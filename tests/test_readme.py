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
    assert done.returncode == 0 and ": solved " in done.stdout


def _helps(monkeypatch):
    import argparse

    from gpu_sa import cli

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
    from gpu_sa import ending

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
    from gpu_sa.commands import kinds

    assert {method.name for module in kinds("solve").values() for method in module.METHODS} == set(schema.METHODS)
