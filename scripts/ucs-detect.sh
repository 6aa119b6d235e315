#!/usr/bin/env bash
# Character widths as programs see them: ucs-detect (Jeff Quast's) prints wide characters, emoji
# sequences (ZWJ, VS16, VS15) and words of 118 languages, asks the terminal where its cursor went
# (CPR), and compares each width with what the wcwidth library says. It runs on a pty hosted by
# blitty's engine alone (crates/lab/examples/ptyhost.rs), and the results are printed beside the
# ones ucs-detect publishes for real terminals (xterm, alacritty, tmux, kitty, foot, ...), which
# were measured with the same ucs-detect and wcwidth (the pinned commits below).
# Needs git, python3 and python3-yaml (scripts/setup.sh does not install them: this check is not
# part of the test command). Usage: scripts/ucs-detect.sh; about 20 s after the clones.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${UCS_DETECT_DIR:-target/ucs-detect}
python3 -c 'import yaml' 2>/dev/null || { echo "ucs-detect: python3-yaml is not installed (apt-get install python3-yaml)" >&2; exit 2; }
# Each is cloned into DIR (target/ucs-detect, or UCS_DETECT_DIR) at its commit; a copy already
# there that is not a git clone is taken as it is (the three at these commits, put there by hand).
clone() { # NAME COMMIT
  if [ -d "$dir/$1" ] && [ ! -d "$dir/$1/.git" ]; then return; fi
  [ -d "$dir/$1/.git" ] || git clone -q "https://github.com/jquast/$1" "$dir/$1"
  git -C "$dir/$1" checkout -q "$2"
}
mkdir -p "$dir"
dir=$(realpath "$dir")
clone ucs-detect 3492c3b   # 2025-11-02, the commit of its published results
clone wcwidth 0.2.14       # the wcwidth those results were measured with
clone blessed 496071b      # blessed of the same day
cargo build --release -p blitty-lab --example ptyhost >/dev/null 2>&1 || cargo build --release -p blitty-lab --example ptyhost
out=$dir/blitty.yaml
rm -f "$out"
BLITTY_VERSION=$(git describe --always --dirty) target/release/examples/ptyhost --size 120x40 -- \
  python3 scripts/ucs-detect.py run "$dir" "$out" >/dev/null
[ -s "$out" ] || { echo "ucs-detect: no results (run it by hand under ptyhost to see why)" >&2; exit 1; }
python3 scripts/ucs-detect.py compare "$dir" "$out"
