"""``njit``: ``numba.njit`` for the package's CPU code, compiling each function once per argument types, not once
per constant it is called with.

numba types a constant argument of a call from one compiled function to another as a literal: ``search(cand, 2)``
passes ``Literal[int](2)``, ``search(cand, True)`` ``Literal[bool](True)``. The callee is then compiled for that
literal, and everything it calls in turn, beside its plain (int64, bool) version. Nothing in the package asks for a
literal (no ``numba.literally``, no tuple indexed by an argument), so each such copy was the same machine code
compiled again: the test suite's warm-up compiled the 9x9 bitboard search three times over for literal limits and
box-line flags, and the minimal-puzzle prover twice (``_mine``'s flag). A function compiled here types such a call
as the literal's plain type, so the copies collapse into the one version that a variable argument already needs.
The results cannot change (the same code on the same values); only compiling gets shorter: on 2 cores, from an
empty cache, the test suite's warm-up (tests/warm_caches.py) of the complete search, the counting and the
minimiser takes 168 s instead of 273 s. The annealer's device functions (``gpu_sa.engine.contract.device``) use it
too on the CPU, where Shikaku's ``rect.leaves`` would be compiled 4 times and ``bridge.connected`` twice; their CUDA
kernels are compiled by numba-cuda from the Python source, which this does not change (the same SASS).

Calls from Python are not affected: their arguments are typed from the values, never as literals.
"""
from __future__ import annotations

import numba
from numba.core import types


def njit(**options):
    """``numba.njit(**options)``, as a decorator, whose calls from compiled code take plain argument types."""
    def compile_plainly(function):
        dispatcher = numba.njit(**options)(function)
        call_template = dispatcher.get_call_template  # what numba's typing of a call to ``function`` asks

        def plain_call_template(args, kws):
            return call_template(tuple(types.unliteral(arg) for arg in args),
                                 {name: types.unliteral(arg) for name, arg in kws.items()})

        dispatcher.get_call_template = plain_call_template
        return dispatcher
    return compile_plainly
