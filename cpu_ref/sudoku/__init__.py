"""NumPy twins of Sudoku's moves (``sirdey``, ``swap``, ``tabu``) and an independent solution counter
(``count``)."""
