"""gpu_sa.engine.jit.njit: a compiled function called with constants from compiled code is compiled once, for the plain
types, not once more per literal (compile time only: the machine code runs on the same values)."""
import importlib
import pkgutil

import numba
import numpy as np
import pytest

from gpu_sa.engine import jit


def _callee_and_caller(decorate):
    @decorate(nogil=True)
    def callee(values, top, flag):
        return values[0] + top if flag else top

    @numba.njit
    def caller(values, top):
        return callee(values, 1, True) + callee(values, 2, False) + callee(values, top, values[0] > 0)

    return callee, caller


def test_numba_alone_compiles_a_copy_per_literal():
    """Why gpu_sa.engine.jit exists: with numba.njit the callee gets a version for Literal[int](1), Literal[bool](True)..."""
    callee, caller = _callee_and_caller(numba.njit)
    assert caller(np.ones(3, np.int64), np.int64(5)) == 1 + 1 + 2 + 1 + 5
    assert len(callee.signatures) == 3


def test_constants_from_compiled_code_share_the_plain_version():
    callee, caller = _callee_and_caller(jit.njit)
    assert caller(np.ones(3, np.int64), np.int64(5)) == 1 + 1 + 2 + 1 + 5  # the same answer
    assert [str(signature) for signature in callee.signatures] == [
        "(Array(int64, 1, 'C', False, aligned=True), int64, bool)"]
    assert callee(np.ones(3, np.int64), 4, True) == 5  # and from Python, as before
    assert len(callee.signatures) == 1


def _compiled_functions():
    """Every numba function defined in a module of the package (the complete search, the generators, the annealer's
    device functions and random streams...)."""
    import gpu_sa

    for info in pkgutil.walk_packages(gpu_sa.__path__, "gpu_sa."):
        if info.name.endswith(".__main__"):  # the command line itself, not a library module
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, numba.core.dispatcher.Dispatcher) and value.py_func.__module__ == module.__name__:
                yield f"{module.__name__}.{name}", value


def test_every_compiled_function_of_the_package_types_calls_plainly():
    """A function made with numba.njit directly would bring the copies back (for the whole tree below it)."""
    functions = dict(_compiled_functions())
    assert len(functions) > 120  # the finder sees them (147 at the time of writing: 100 of the search and the
    # generators, 47 of the annealer's moves, random streams and replica exchange)
    assert any(name.startswith("gpu_sa.puzzles.shikaku.moves.rect.") for name in functions)
    assert [name for name, dispatcher in functions.items() if "get_call_template" not in vars(dispatcher)] == []


@pytest.mark.parametrize("options", [{"cache": False}, {"inline": "always"}])
def test_options_pass_through(options):
    callee, caller = _callee_and_caller(lambda **_: jit.njit(**options))
    assert caller(np.full(3, 2, np.int64), np.int64(0)) == 2 + 1 + 2 + 2 + 0
