"""The annealing engine: it names no puzzle.

Bottom layer, imported by the puzzles too: ``contract`` (what a move provides, per-chain bookkeeping, the
element access of the proposal loops), ``rng`` (Philox4x32-10), ``jit``, ``stop`` (stop requests) and
``limits`` (sizes checked before allocating). Above the puzzles: ``schedule`` (temperature laws and the
acceptance tables), ``exchange`` (replica exchange), ``kernels`` (launch code compiled per move),
``backends`` (cuda, cpu, numpy and auto's choice), ``runner`` (the host loop: chunked launches, trials,
batches, time limits, results), ``trace`` (progress records written and read back), ``compiling`` (numba's
first compilations announced) and ``probe`` (is a CUDA device usable).
"""
