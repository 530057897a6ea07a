"""Sudoku's move sets, one module each: ``sirdey`` (one free cell gets another digit), ``swap`` (two free cells
of a box exchange their digits) and ``tabu`` (a weighted local search). Each module holds the per-chain device
functions; its NumPy twin is the module of the same name in ``cpu_ref.sudoku``."""
