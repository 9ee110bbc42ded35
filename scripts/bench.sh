#!/usr/bin/env bash
# make bench: every Go benchmark COUNT times with benchstat's medians, then
# the table of docs/benchmarks.md, "Speed where people wait" (scripts/benchtable): each figure beside its
# baseline from the same run (a Go program that does nothing, devflow's
# helper when node is there, creating as many empty files, reading the log
# without folding it), medians of RUNS runs, ratios as medians of per-pair
# ratios. BENCH=Fold make bench runs one family of Go benchmarks (and no
# table); TABLE=only make bench runs the table alone; FIGURES=hook limits
# the table to the figures whose name matches.
# DEVLEARN_BENCH_1GB=1 adds the fold of a 1 GB log.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-6}
out=${BENCH_OUT:-bench.txt}
if [[ "${TABLE:-}" != "only" ]]; then
  go test -run '^$' -bench "${BENCH:-.}" -benchmem -count "$count" ./... | tee "$out"
  echo
  echo "== medians over $count runs (benchstat)"
  go tool benchstat "$out"
fi
if [[ -z "${BENCH:-}" || "${TABLE:-}" == "only" ]]; then
  echo
  echo "== the table of docs/benchmarks.md (scripts/benchtable)"
  go run ./scripts/benchtable -runs "${RUNS:-5}" -spawns "${SPAWNS:-40}"
fi
