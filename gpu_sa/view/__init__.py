"""A local web page to watch the solvers work on a Sudoku (``gpu-sa view``, ``gpu_sa.cli.commands.view``).

The page (``static/``) lets a user type or paste a Sudoku of any order 2..8, step seed 002's
three rules one round at a time with every cell's candidates shown, finish with the exact
search, and watch the annealer live. The server (``server.py``) listens on 127.0.0.1 only;
``api.py`` answers its JSON requests. ``plot.py`` draws a run's trace as a picture.
"""
