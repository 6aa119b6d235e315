#!/usr/bin/env python3
"""Unicode text made outside `bench engine`'s workloads, for
`cargo run --release -p blitty-lab --example filebench DIR/*.txt`: long CJK paragraphs that
wrap, Devanagari words with vowel signs and viramas, emoji with skin tones, ZWJ, VS16 and
flags, and letters with 0-4 random combining marks. Lines end in CR LF, as a pty gives them.
Usage: scripts/unicode-texts.py DIR"""
import os
import random
import sys

if len(sys.argv) != 2:
    sys.exit(__doc__)
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
r = random.Random(5)
cjk = [chr(c) for c in range(0x4E00, 0x4E00 + 2000)]
deva = [chr(c) for c in range(0x915, 0x939)]
signs = ["\u093e", "\u093f", "\u0940", "\u0947", "\u094d", "\u0902"]
emoji = ["😀", "👍🏽", "👨‍👩‍👧", "❤️", "🇯🇵", "✅", "🎉"]
marks = [chr(c) for c in range(0x300, 0x36F)]
texts = {
    "cjk-wrapping": ("".join(r.choice(cjk) for _ in range(r.randint(100, 400))) for _ in range(20000)),
    "devanagari": (" ".join("".join(r.choice(deva) + (r.choice(signs) if r.random() < 0.6 else "")
                                    for _ in range(r.randint(2, 6)))
                            for _ in range(r.randint(3, 12))) for _ in range(60000)),
    "emoji": (" ".join(r.choice(emoji) for _ in range(r.randint(1, 15))) for _ in range(60000)),
    "random-marks": ("".join(r.choice("abcdefghij") + "".join(r.choice(marks) for _ in range(r.randint(0, 4)))
                             for _ in range(r.randint(5, 60))) for _ in range(30000)),
}
for name, lines in texts.items():
    with open(os.path.join(out, f"{name}.txt"), "w", encoding="utf-8", newline="") as f:
        f.write("\r\n".join(lines))
