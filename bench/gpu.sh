#!/usr/bin/env bash
# Measure a GPU: bench/gpu.py with the machine's own python3 and this checkout first on the import path.
# Usage: bench/gpu.sh [--quick] [--stages env,sass,tests,throughput,tts,large] [--out REPORT.md] [--commit HASH]
#                     [--results DIR]   (the run's record; default: results/ beside the report)
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
exec python3 bench/gpu.py "$@"
