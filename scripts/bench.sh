#!/usr/bin/env bash
# Runs every benchmark COUNT times and prints medians with benchstat.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-6}
out=${BENCH_OUT:-bench.txt}
go test -run '^$' -bench "${BENCH:-.}" -benchmem -count "$count" ./... | tee "$out"
echo
echo "== medians over $count runs (benchstat)"
go tool benchstat "$out"
