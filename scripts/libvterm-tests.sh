#!/usr/bin/env bash
# libvterm's own test scripts (t/*.test of libvterm 0.3.3, Paul Evans's engine, which neovim and
# emacs-libvterm embed) against blitty's engine, through crates/lab/examples/libvterm_tests.rs:
# the cursor, the screen's characters and cells, line sizes, the pen and the answers to queries
# that the scripts assert. The checks that fail are compared with scripts/libvterm-expected.txt,
# which gives the reason for each: exit status 1 when another check fails or a listed one
# passes. The files of libvterm's parser callbacks (02), key input (25, libvterm's own CSI u
# scheme rather than xterm's) and selections (40) are not run: they hold nothing blitty's
# engine has.
# Needs git (libvterm is cloned at a pinned commit of neovim's mirror into target/libvterm, or
# LIBVTERM_DIR). Usage: scripts/libvterm-tests.sh. A few seconds once built.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/expected-failures.sh
commit=ee614e4603bd463d9127945538316d0f230d0418
dir=${LIBVTERM_DIR:-target/libvterm}
if [ ! -d "$dir/.git" ]; then
  git clone -q https://github.com/neovim/libvterm "$dir"
fi
git -C "$dir" checkout -q "$commit"
cargo build --release -p blitty-lab --example libvterm_tests >/dev/null 2>&1 ||
  cargo build --release -p blitty-lab --example libvterm_tests
files=$(ls "$dir"/t/*.test | grep -v -E '/(02|25|40)[a-z_]*\.test$')
log=target/libvterm-tests.log
# shellcheck disable=SC2086
target/release/examples/libvterm_tests $files >"$log"
tail -1 "$log"
failed=$({ grep -v "^libvterm's checks" "$log" || true; } | sed 's/: expected .*//; s/: cannot read .*/: cannot read/' | sort)
compare_failures libvterm-tests scripts/libvterm-expected.txt "$log" "$failed" "$(expected_failures scripts/libvterm-expected.txt)"
