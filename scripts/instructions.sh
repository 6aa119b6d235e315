#!/usr/bin/env bash
# Instructions per byte of blitty's engine on each of `bench engine`'s workloads: the bench's own
# bytes (`blitty-lab workload`), replayed by `blitty replay FILE --dump none` under callgrind,
# with the cost of starting up subtracted. The count does not move with a busy machine as
# throughput does, so it is what engine changes are compared by.
# Needs valgrind (apt-get install valgrind). Usage: scripts/instructions.sh [MB] [WORKLOAD...]
# (default: 2 MB of each workload; a 16 MB one takes about a minute).
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-2}
shift || true
command -v valgrind >/dev/null || { echo "instructions: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
cargo build --release -p blitty -p blitty-lab >/dev/null 2>&1 || cargo build --release -p blitty -p blitty-lab
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
workloads=("$@")
[ ${#workloads[@]} -gt 0 ] || workloads=(plain long-line sgr-256 sgr-truecolor cursor region-scroll unicode combining corpus)

# Instructions to replay FILE, as callgrind counts them.
count() {
  valgrind --tool=callgrind --callgrind-out-file="$dir/out" target/release/blitty replay "$1" --dump none 2>&1 |
    awk '/Collected/ {print $4}'
}
# Starting up, and the character-width table built at the first non-ASCII character: each
# workload is charged with what it would cost anyway.
: >"$dir/empty"
printf '\xc3\xa9' >"$dir/wide"
base_ascii=$(count "$dir/empty")
base_wide=$(count "$dir/wide")
printf '%-14s %10s %14s\n' workload bytes "instr/byte"
for w in "${workloads[@]}"; do
  target/release/blitty-lab workload "$w" --mb "$mb" --out "$dir/$w"
  base=$base_ascii
  if LC_ALL=C grep -q '[^[:print:][:space:][:cntrl:]]' "$dir/$w"; then base=$base_wide; fi
  n=$(count "$dir/$w")
  size=$(stat -c %s "$dir/$w")
  awk -v w="$w" -v n="$n" -v b="$base" -v s="$size" 'BEGIN {printf "%-14s %10d %14.2f\n", w, s, (n - b) / s}'
done
