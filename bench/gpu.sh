#!/usr/bin/env bash
# Measure a GPU: bench/gpu.py with the machine's own python3 and this checkout first on the import path.
# Usage: bench/gpu.sh [--quick] [--stages env,sass,tests,throughput,tts,large] [--out REPORT.md] [--commit HASH]
#                     [--results DIR]   (the run's record; default: results/ beside the report)
# --quick: 450 s of stage budgets, under 8 minutes of a lent device; its large stage measures move tabu's moves per
# second per layout (bench/tabu_rate.py) and five 64x64 times to solution, cuda against cpu (bench/large.py).
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
exec python3 bench/gpu.py "$@"
