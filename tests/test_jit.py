"""gpu_sa.jit.njit: a compiled function called with constants from compiled code is compiled once, for the plain
types, not once more per literal (compile time only: the machine code runs on the same values)."""
import importlib
import pkgutil

import numba
import numpy as np
import pytest

from gpu_sa import jit


def _callee_and_caller(decorate):
    @decorate(nogil=True)
    def callee(values, top, flag):
        return values[0] + top if flag else top

    @numba.njit
    def caller(values, top):
        return callee(values, 1, True) + callee(values, 2, False) + callee(values, top, values[0] > 0)

    return callee, caller


def test_numba_alone_compiles_a_copy_per_literal():
    """Why gpu_sa.jit exists: with numba.njit the callee gets a version for Literal[int](1), Literal[bool](True)..."""
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


COMPILED_PACKAGES = ("gpu_sa.exact.sudoku", "gpu_sa.generate")


def _compiled_functions():
    for package_name in COMPILED_PACKAGES:
        package = importlib.import_module(package_name)
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package_name}.{info.name}")
            for name, value in vars(module).items():
                if isinstance(value, numba.core.dispatcher.Dispatcher) and value.py_func.__module__ == module.__name__:
                    yield f"{module.__name__}.{name}", value


def test_every_compiled_function_of_the_search_and_the_generators_types_calls_plainly():
    """A function made with numba.njit directly would bring the copies back (for the whole tree below it)."""
    functions = dict(_compiled_functions())
    assert len(functions) > 60  # the finder sees them (100 at the time of writing)
    assert [name for name, dispatcher in functions.items() if "get_call_template" not in vars(dispatcher)] == []


@pytest.mark.parametrize("options", [{"cache": False}, {"inline": "always"}])
def test_options_pass_through(options):
    callee, caller = _callee_and_caller(lambda **_: jit.njit(**options))
    assert caller(np.full(3, 2, np.int64), np.int64(0)) == 2 + 1 + 2 + 2 + 0
