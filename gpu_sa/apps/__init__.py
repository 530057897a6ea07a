"""Applications: what the commands (and the web page) do with puzzles, above the engine.

    solve     answer puzzles by annealing or by an exact method, count solutions, dump chain states
    generate  the generators of every kind behind one protocol (``generate``, ``minimize``, ``puzzle``)

They take plain values (already checked by ``gpu_sa.options``), drive the engine
(``gpu_sa.engine.runner``) or a puzzle's exact solver, and return records and text; they print nothing.
"""
