#!/usr/bin/env bash
# Runs the README's test command N times in a row (default 5) while stress-ng keeps every core
# busy, and prints how each run ended: the check that the tests pass the first time on a busy
# machine. Needs stress-ng (apt-get install stress-ng). Usage: scripts/loaded-tests.sh [N]
set -uo pipefail
cd "$(dirname "$0")/.."
n=${1:-5}
command -v stress-ng >/dev/null || { echo "loaded-tests: stress-ng is not installed (apt-get install stress-ng)" >&2; exit 2; }
cargo test --workspace --profile tests --no-run >/dev/null 2>&1
cargo test -p blitty-vt --profile checked --no-run >/dev/null 2>&1
stress-ng --cpu "$(nproc)" --timeout 0 >/dev/null 2>&1 &
load=$!
trap 'kill $load 2>/dev/null' EXIT
pass=0
for i in $(seq 1 "$n"); do
  log=$(mktemp)
  start=$(date +%s)
  if cargo test --workspace --profile tests >"$log" 2>&1 && cargo test -p blitty-vt --profile checked >>"$log" 2>&1; then
    pass=$((pass + 1)); verdict=passed
  else
    verdict=FAILED; grep -E "^test .* FAILED|panicked" "$log" | head -5
    cp "$log" "${TMPDIR:-/tmp}/loaded-tests-run$i.log"
    echo "  (the whole log: ${TMPDIR:-/tmp}/loaded-tests-run$i.log)"
  fi
  tests=$(grep -E "^test result" "$log" | awk '{s+=$4; f+=$6} END {print s" passed, "f" failed"}')
  echo "run $i: $verdict in $(( $(date +%s) - start )) s ($tests)"
  rm -f "$log"
done
echo "$pass of $n runs passed under load"
[ "$pass" -eq "$n" ]
