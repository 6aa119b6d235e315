#!/usr/bin/env bash
# The payloads of vtebench (alacritty's terminal benchmark) as files, for
# crates/lab/examples/filebench.rs: `scripts/vtebench-texts.sh DIR`, then
# `cargo run --release -p blitty-lab --example filebench DIR/*.raw`. Each of vtebench's
# benchmarks is run (its setup once, then the benchmark script as many times as makes a few MB)
# in an 80x24 pty under script(1), which records what it writes. The scrolling ones are written
# directly: their setups print 100,001 lines with bash's {0..100000}, which /bin/sh (dash, what
# their #!/bin/sh runs here) prints as one line, so the files hold what vtebench means instead:
# 1,500,000 lines of "y" after the setup's escape sequence (alternate screen and the region).
# Needs git and script (util-linux); vtebench is cloned at a pinned commit into DIR/vtebench.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: scripts/vtebench-texts.sh DIR" >&2; exit 2; }
dir=$1
mkdir -p "$dir"
dir=$(realpath "$dir")
src=$dir/vtebench
[ -d "$src" ] || git clone -q https://github.com/alacritty/vtebench "$src"
git -C "$src" checkout -q ead80032e57dee2e75f0b51f2ea67528647d9944   # 2025-01-09
# NAME REPEATS: the setup, then the benchmark REPEATS times.
record() {
  local b=$src/benchmarks/$1
  script -q -e -c "stty cols 80 rows 24; [ -x $b/setup ] && $b/setup; for i in \$(seq $2); do $b/benchmark; done" \
    "$dir/$1.raw" >/dev/null </dev/null
  sed -i '1{/^Script started/d}; ${/^Script done/d}' "$dir/$1.raw"
}
record light_cells 40
record dense_cells 8
record medium_cells 60
record sync_medium_cells 30
record cursor_motion 10
record unicode 60
record scrolling_fullscreen 400
lines() { # NAME SETUP
  { printf '%b' "$2"; awk 'BEGIN { for (i = 0; i < 1500000; i++) printf "y\r\n" }'; } >"$dir/$1.raw"
}
lines scrolling ''
lines scrolling_bottom_region '\033[?1049h\033[1;23r'
lines scrolling_bottom_small_region '\033[?1049h\033[1;12r'
lines scrolling_top_region '\033[?1049h\033[2;24r'
lines scrolling_top_small_region '\033[?1049h\033[12;24r'
ls -l "$dir"/*.raw
