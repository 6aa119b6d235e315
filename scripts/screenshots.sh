#!/usr/bin/env bash
# Makes the README's screenshots with `blitty replay --png` (the window's own renderer, headless)
# from the recorded programs in corpus/: htop, and a line of CJK, Hangul, accents and emoji.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p blitty
for name in htop unicode; do
  target/release/blitty replay "corpus/$name.raw" --dump none --png "docs/$name.png"
done
