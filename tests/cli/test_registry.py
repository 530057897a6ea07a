"""The CLI is assembled from the registries: every kind declares its part, and a new kind needs no CLI edit."""
import argparse
import io
import re
import sys
import types

import pytest

from conftest import ROOT
from gpu_sa.cli import main as cli
from gpu_sa import options
from gpu_sa.cli.commands import COMMANDS, kinds
from gpu_sa.puzzles import PUZZLES
from gpu_sa.puzzles.spec import ANNEAL, Integer, Method, Option, application

DECLARED = ("KIND", "SUMMARY", "FORMATS", "FORMAT_HELP", "OUTPUT_FORMATS", "MOVES", "DEFAULT_MOVE", "METHODS",
            "COMMANDS", "OPTIONS")


@pytest.mark.parametrize("kind", PUZZLES)
def test_every_kind_declares_its_part(kind):
    module = PUZZLES[kind]
    for name in DECLARED:
        assert hasattr(module, name), name
    assert set(module.FORMAT_HELP) == set(module.FORMATS) and module.DEFAULT_MOVE in module.MOVES
    assert all(isinstance(method, Method) for method in module.METHODS) and ANNEAL in module.METHODS  # first: default
    assert set(module.COMMANDS) <= set(COMMANDS)
    for command, reference in module.COMMANDS.items():
        assert reference is None or callable(application(reference)), command
    for option in module.OPTIONS:
        assert option.commands and set(option.commands) <= set(module.COMMANDS), option.flag


def test_declared_choices_match_the_applications():
    from gpu_sa.puzzles import sudoku
    from gpu_sa.puzzles.sudoku import generate

    assert sudoku.GRID_METHODS == generate.METHODS and sudoku.MINIMIZE_METHODS == generate.MINIMIZE_METHODS
    assert f"{generate.DEFAULT_ITERATIONS:,}" in next(o.help for o in sudoku.OPTIONS if o.flag == "--iterations")


def test_the_cli_main_module_is_small_and_names_no_puzzle():
    text = (ROOT / "gpu_sa" / "cli" / "main.py").read_text()
    assert len(text.splitlines()) < 300
    for kind in PUZZLES:
        assert not re.search(kind, text, flags=re.I), kind


def test_a_new_kind_is_one_module_and_one_registry_line(monkeypatch):
    """A made-up kind joins solve and exact with an option of its own, and nothing else changes."""
    toy = types.SimpleNamespace(
        KIND="toy", SUMMARY="a made-up puzzle", FORMATS=("dots",), FORMAT_HELP={"dots": "dots and digits"},
        NAMED_FORMATS=(),
        OUTPUT_FORMATS=("pretty",), MOVES=("nudge",), DEFAULT_MOVE="nudge", METHODS=(ANNEAL,),
        COMMANDS={"solve": None, "exact": None},
        OPTIONS=(Option("--wiggle", "how much to wiggle", Integer(1), commands=("exact",)),))
    monkeypatch.setitem(PUZZLES, "toy", toy)
    assert "toy" in kinds("solve") and "toy" not in kinds("generate")
    parser = cli.build_parser()
    args = parser.parse_args(["exact", "-", "--kind", "toy", "--wiggle", "3"])
    cli._prepare(args)
    assert args.kind_module is toy and args.kind_options == {"wiggle": 3}
    # without --kind the input's kind is detected: a Sudoku here
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"1..4..1..1..4..1\n")))
    with pytest.raises(options.UsageError, match="--wiggle applies to exact --kind toy, not sudoku"):
        cli._prepare(parser.parse_args(["exact", "-", "--wiggle", "3"]))
    with pytest.raises(options.UsageError, match=r"--wiggle 0: expected an integer >= 1"):
        cli._prepare(parser.parse_args(["exact", "-", "--kind", "toy", "--wiggle", "0"]))
    text = " ".join(_help(cli.build_parser(), "solve").split())
    assert "toy: a made-up puzzle" in text and "toy: dots (dots and digits)" in text


def _help(parser, command):
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices[command].format_help()


@pytest.mark.parametrize("value, good, bad, expected", [
    (Integer(1), {"3": 3, "2.5e5": 250000, "250_000": 250000, "+7": 7}, ["0", "-1", "1.5", "abc", "nan", "1e400", "１２"],
     "an integer >= 1"),
    (options.Real(), {"0.5": 0.5, "1e-3": 0.001}, ["0", "-1", "inf", "nan", "x"], "a number > 0"),
    (options.Size(min_cells=2), {"2x1": (2, 1), "10X12": (10, 12)}, ["1x1", "0x5", "5", "5x5x5", "1001x2"],
     "ROWSxCOLS with sides from 1 to 1,000 and at least 2 cells"),
    (options.Choice(("a", "b")), {"a": "a"}, ["c", ""], "one of a, b"),
])
def test_values_and_their_one_message_style(value, good, bad, expected):
    option = Option("--thing", "a thing", value, purpose="what it is for")
    for text, result in good.items():
        assert option.convert(text) == result
    for text in bad:
        with pytest.raises(options.UsageError) as raised:
            option.convert(text)
        assert str(raised.value) == f"--thing {text}: expected {expected} (what it is for)"


@pytest.mark.parametrize("argv, message", [
    (["puzzle", "--count", "1", "--max-grids", "0"], "--max-grids 0: expected an integer >= 1"),
    (["puzzle", "--count", "1", "--chains", "0"], "--chains 0: expected an integer >= 1"),
    (["minimize", "-", "--t0", "0.1", "--t-end", "0.5"], "--t0 0.1 is below --t-end 0.5"),
    (["exact", "-", "--count-limit", "0"], "--count-limit 0: expected an integer >= 1"),
    (["exact", "-", "--kind", "hashi", "--max-nodes", "5"], "--max-nodes applies to exact --kind sudoku, not hashi"),
    (["solve", "-", "--method", "ilp"], "--method ilp is not available for sudoku"),
])
def test_usage_errors_of_every_command(argv, message, cli):
    status, out, err = cli(*argv, stdin="1..4..1..1..4..1\n")
    assert status == 2 and out == "" and message in err and len(err.splitlines()) == 1, err


def test_the_engine_options_of_the_command_line_are_the_runner_s():
    """One declaration per engine option: each of solve's engine options is a field of ``runner.Options`` of the
    same name, but those that say where and how many puzzles run."""
    import dataclasses

    from gpu_sa.cli.commands import solve
    from gpu_sa.engine import runner

    names = {option.name for option in solve.ENGINE_OPTIONS}
    fields = {field.name for field in dataclasses.fields(runner.Options)}
    assert names - set(solve.RUN_PLACEMENT) <= fields
    assert set(solve.RUN_PLACEMENT) <= names and not set(solve.RUN_PLACEMENT) & fields


def test_the_runner_and_the_dask_functions_take_the_same_options():
    """Declared once (``runner.Options``): every entry point takes each field by keyword, shown in its signature."""
    import dataclasses
    import inspect

    from gpu_sa.apps import distributed
    from gpu_sa.engine import runner

    fields = [field.name for field in dataclasses.fields(runner.Options)]
    for function in (runner.anneal, runner.anneal_many, distributed.solve_one, distributed.solve_many):
        assert [name for name in inspect.signature(function).parameters if name in fields] == fields, function
    with pytest.raises(TypeError, match="anneal_many\\(\\) got an unexpected keyword argument 'chain'"):
        next(runner.anneal_many([], chain=3))
