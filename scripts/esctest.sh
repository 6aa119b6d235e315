#!/usr/bin/env bash
# esctest (esctest2: George Nachman's and Thomas Dickey's automatic tests of xterm's control
# sequences, "xterm, but without bugs") against blitty's engine. esctest runs on a pty hosted by
# the engine alone (crates/lab/examples/ptyhost.rs, with window operations allowed so that it
# can read cells back through DECRQCRA) and reads the engine's answers as a terminal's. The tests
# that fail are compared with scripts/esctest-expected.txt, which gives the reason for each:
# exit status 1 when another test fails or a listed one passes.
# Needs git (esctest is cloned at a pinned commit into target/esctest, or ESCTEST_DIR) and
# python3. Usage: scripts/esctest.sh [ESCTEST ARGS...] (for example --include='^BS'); the log
# is target/esctest.log. About a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/expected-failures.sh
commit=664be3cf2c1e3f06bc93a8bafb48a0db83c607db
dir=${ESCTEST_DIR:-target/esctest}
command -v python3 >/dev/null || { echo "esctest: python3 is not installed" >&2; exit 2; }
if [ ! -d "$dir/.git" ]; then
  git clone -q https://github.com/ThomasDickey/esctest2 "$dir"
fi
git -C "$dir" checkout -q "$commit"
cargo build --release -p blitty-lab --example ptyhost >/dev/null 2>&1 || cargo build --release -p blitty-lab --example ptyhost
log=$PWD/target/esctest.log
# 379: XTerm 379's DECRQCRA (blanks and erased cells both count as spaces); 383: xterm's ?45
# since patch 383, as blitty has it (?1045 is the original reverse wrap). A second to answer.
(cd "$dir/esctest" && "$OLDPWD/target/release/examples/ptyhost" -- python3 esctest.py \
  --expected-terminal=xterm --xterm-checksum=379 --xterm-reverse-wrap=383 --timeout=1 \
  --logfile="$log" "$@" >/dev/null)
grep '^\*\*\*.*tests passed' "$log"
failed=$(grep -A1000 '^Failing tests:' "$log" | tail -n +2 | grep -v '^$' | sort || true)
expected=$(expected_failures scripts/esctest-expected.txt)
if [ "$#" -gt 0 ]; then
  # A subset ran: only its failures are compared.
  expected=$(comm -12 <(echo "$expected") <(grep '^Run test: ' "$log" | sed 's/^Run test: //' | sort))
fi
compare_failures esctest scripts/esctest-expected.txt "$log" "$failed" "$expected"
