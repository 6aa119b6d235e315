#!/usr/bin/env bash
# Times floods of distinct values through the engine (`blitty replay --stats`, 80x24, 10,000
# lines of scrollback): underline colours (SGR 58), OSC 8 links, grapheme clusters and, for
# reference, truecolor foregrounds, at 100 k, 800 k and 3.2 M distinct values; then, after a
# full scrollback, links never printed and clusters overwritten in place (values no cell keeps). The engine's
# time per MB must stay flat (within 2x) as the count grows: a table whose work grew with what
# it had seen would show up here as seconds growing with the square of the count.
# Usage: [COUNTS="100000 800000"] scripts/hostile-floods.sh [BLITTY]   (default: target/release/blitty)
set -euo pipefail
blitty=${1:-target/release/blitty}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
gen() { # kind count file
  python3 - "$1" "$2" "$3" <<'PY'
import sys
kind, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
marks = [chr(0x300 + k) for k in range(112)]
with open(path, 'w', encoding='utf-8') as f:
    out = []
    if kind in ('bare-link', 'overwrite'):
        f.write(''.join('line %d of text before the flood\r\n' % i for i in range(10100)))
    for i in range(n):
        if kind == 'underline':
            out.append('\x1b[58:2::%d:%d:%dmx' % (i >> 16 & 255, i >> 8 & 255, i & 255))
        elif kind == 'truecolor':
            out.append('\x1b[38;2;%d;%d;%dmx' % (i >> 16 & 255, i >> 8 & 255, i & 255))
        elif kind == 'link':
            out.append('\x1b]8;;https://example.com/%d\x1b\\x' % i)
        elif kind == 'bare-link':
            out.append('\x1b]8;;https://example.com/%d\x1b\\' % i)
        elif kind == 'overwrite':
            out.append('\r' + chr(97 + i % 26) + marks[i // 26 % 112] + marks[i // 2912 % 112] + marks[i // 326144 % 112])
        else:
            out.append(chr(97 + i % 26) + marks[i // 26 % 112] + marks[i // 2912 % 112] + marks[i // 326144 % 112])
        if len(out) >= 10000:
            f.write(''.join(out)); out = []
    f.write(''.join(out))
PY
}
printf '%-10s %10s %8s %9s %8s %10s\n' kind distinct MB seconds MB/s peakRSS
for kind in underline link cluster truecolor bare-link overwrite; do
  for n in ${COUNTS:-100000 800000 3200000}; do
    gen "$kind" "$n" "$dir/f"
    out=$("$blitty" replay "$dir/f" --dump none --stats)
    bytes=$(sed -n 's/^bytes: //p' <<<"$out")
    secs=$(sed -n 's/^seconds: //p' <<<"$out")
    rate=$(sed -n 's/^MB\/s: //p' <<<"$out")
    rss=$(sed -n 's/^peak RSS: //p' <<<"$out")
    printf '%-10s %10d %8.1f %9.3f %8s %10s\n' "$kind" "$n" "$(awk -v b="$bytes" 'BEGIN{print b/1e6}')" "$secs" "$rate" "$rss"
  done
done
