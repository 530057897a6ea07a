#!/usr/bin/env bash
# Build Sudoku-LS (Ailuras/AllDIff-LS, Solvers/AllDiff-LS/Sudoku-LS.cpp), the local search that bench/large.py
# compares our annealer with, OUTSIDE this repository: bench/peers/build_sudoku_ls.sh SOURCE_CHECKOUT OUTPUT_BINARY
#
#   git clone https://github.com/Ailuras/AllDIff-LS /work/peers/AllDIff-LS   # commit 61c1b2ca3, January 2025
#   bench/peers/build_sudoku_ls.sh /work/peers/AllDIff-LS /work/peers/Sudoku-LS-timed
#
# Three changes to what it measures and prints, none to its search (the diff is printed when it builds):
#  1. its clock, times() in clock ticks (10 ms here), becomes clock_gettime(CLOCK_PROCESS_CPUTIME_ID): process
#     CPU time in nanoseconds, so that a 3 ms solve is not printed as 0.00 (its time limit reads the same clock);
#  2. the clock starts after reading the file and BEFORE its simplification rules (it started after them), as
#     ours starts before propagation: on grids the rules solve (60 % givens) it printed about 0;
#  3. with display 1 it prints its "find answer: T" line before the grid (unchanged, it prints either the line
#     (display 0) or the grid (display 1)), so that one run gives both the time and the grid to validate.
# Build: g++ -std=c++11 -O3, as its authors do (Scripts/pre.sh). STATIC=1 links it statically (-static), for a
# machine that cannot build it and may lack this one's C++ library: a lent GPU (README, "Measuring a GPU").
set -euo pipefail
source_dir=$1
output=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$source_dir/Solvers/AllDiff-LS/Sudoku-LS.cpp" "$work/original.cpp"
python3 - "$work/original.cpp" "$work/Sudoku-LS.cpp" <<'PY'
import sys
text = open(sys.argv[1]).read()
clock_before = """void mStartTime() {
	times(&start);
	start_time = start.tms_utime + start.tms_stime; 
	return;
}

double mCurrentTime() {
	times(&finish);
	total_time = double(finish.tms_utime - start.tms_utime + finish.tms_stime - start.tms_stime)/sysconf(_SC_CLK_TCK);"""
clock_after = """timespec start_clock;

void mStartTime() {
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start_clock);
	return;
}

double mCurrentTime() {
	timespec now;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
	total_time = double(now.tv_sec - start_clock.tv_sec) + 1e-9 * double(now.tv_nsec - start_clock.tv_nsec);"""
display_before = """		} else if (display == 1) {
"""
display_after = """		} else if (display == 1) {
			printf("%s find answer: %lf\\n", filename.c_str(), best_time);
"""
start_before = """	mReduceVertexes();

	mStartTime();
"""
start_after = """	mStartTime();
	mReduceVertexes();

"""
for before, after in ((clock_before, clock_after), (start_before, start_after), (display_before, display_after)):
    if text.count(before) != 1:
        sys.exit("build_sudoku_ls.sh: the source is not the one this patch was written for (commit 61c1b2ca3)")
    text = text.replace(before, after)
open(sys.argv[2], "w").write(text)
PY
diff -u "$work/original.cpp" "$work/Sudoku-LS.cpp" || true
g++ -std=c++11 -O3 ${STATIC:+-static} -o "$output" "$work/Sudoku-LS.cpp"
echo "built $output"
