#!/usr/bin/env bash
# Runs every benchmark COUNT times and prints medians with benchstat.
# The whole-process hook benchmark spawns `devlearn hook pre-tool-use` and
# `devlearn hook session-end` as Claude Code does, SPAWNS times per run
# (median and p95 of each run).
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-6}
out=${BENCH_OUT:-bench.txt}
go test -run '^$' -bench "${BENCH:-.}" -benchmem -count "$count" ./... | tee "$out"
if [[ "${BENCH:-.}" == "." || "${BENCH:-}" == *HookProcess* ]]; then
  echo
  echo "== whole process: devlearn hook pre-tool-use and session-end, ${SPAWNS:-200} spawns per run"
  DEVLEARN_BENCH_PROCESS=1 go test -run '^$' -bench 'HookProcess' -benchtime "${SPAWNS:-200}x" \
    -count "$count" ./internal/hook | tee -a "$out"
fi
echo
echo "== medians over $count runs (benchstat)"
go tool benchstat "$out"
