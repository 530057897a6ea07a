"""Move sirdey (``gpu_sa/puzzles/sudoku/moves/sirdey.py``, twin ``cpu_ref/sudoku/sirdey.py``): the backends agree
bit for bit and reach the landed trajectories."""
from move_suite import (pytest_generate_tests, reference_results, test_cases_are_not_trivial,  # noqa: F401
                        test_cpu_equals_numpy, test_cuda_equals_numpy,
                        test_cpu_reproduces_the_landed_trajectories, test_whole_runs_report_what_they_did)

MOVE = "sirdey"
