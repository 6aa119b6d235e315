#!/usr/bin/env python3
"""Random streams shown in a real xterm and in `blitty replay`, compared screen by screen.

Each stream is 5-40 random controls and pieces of text (`--kind controls`: cursor motion,
erasing, scrolling, margins, modes, tabs, rectangles, double-size lines; `--kind text`: wide
characters, margins, insert mode, REP, tabs, character sets, column operations), followed by
`ESC ( B SI CSI m #` so that the cursor's place shows. xterm's screen is its own screen print
(MC, as in scripts/xterm-screens.sh), compared after NFC normalisation (xterm stores `e` and
U+0301 as `é`) and without U+200B and U+200D (xterm does not store them), trailing blanks
aside. The pty runs `stty -opost` first, so LF stays LF.

With --minimize each stream that differs is cut down, a control or character at a time, to
the fewest that still differ, and printed as JSON: that is how the differences listed in the
README ("Cursor and scrolling details that a random sweep against XTerm 379 found") were found.
Most differences left are the choices named there.

Needs xterm and Xvfb (scripts/setup.sh installs both) and a release build of blitty.
Usage: scripts/xterm-sweep.py [--kind controls|text] [--minimize] SEED COUNT
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata

E = "\x1b"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLITTY = os.path.join(ROOT, "target", "release", "blitty")
TAIL = f"{E}(B\x0f{E}[m#"


def num(r, hi=30):
    c = r.random()
    if c < 0.15:
        return ""
    if c < 0.22:
        return "0"
    if c < 0.9:
        return str(r.randint(1, hi))
    return str(r.randint(1, 200))


TEXTS = ["abc", "Hello, world", "x" * 20, "wide漢字", "字", "e\u0301", "Ω≈ç", "😀", "tab\there",
         "q" * 85, "0123456789" * 3, " ", "ab\u200bcd"]


def control_op(r):
    k = r.randrange(40)
    if k < 8:
        return r.choice(TEXTS)
    table = {
        8: lambda: "\r\n",
        9: lambda: r.choice(["\r", "\n", "\b", "\t", "\x0b", "\x0c", "\x07"]),
        10: lambda: f"{E}[{num(r, 24)};{num(r, 80)}H",
        11: lambda: f"{E}[{num(r, 10)}{r.choice('ABCDEFGdea`')}",
        12: lambda: f"{E}[{r.choice(['', '0', '1', '2', '3'])}{r.choice('JK')}",
        13: lambda: f"{E}[{num(r, 10)}{r.choice('@PXLM')}",
        14: lambda: f"{E}[{num(r, 5)}{r.choice('ST')}",
        15: lambda: f"{E}[{num(r, 24)};{num(r, 24)}r",
        16: lambda: r.choice([f"{E}D", f"{E}M", f"{E}E", f"{E}7", f"{E}8", f"{E}H"]),
        17: lambda: f"{E}[?{r.choice(['6', '7', '69', '45', '1049', '47', '1047', '1048', '25'])}{r.choice('hl')}",
        18: lambda: f"{E}[{r.choice(['4', '20'])}{r.choice('hl')}",
        19: lambda: f"{E}[{num(r, 80)};{num(r, 80)}s",
        20: lambda: f"{E}[{num(r, 5)}{r.choice('IZ')}",
        21: lambda: f"{E}[{r.choice(['', '0', '3'])}g",
        22: lambda: f"{E}[{num(r, 10)}b",
        23: lambda: f"{E}[{r.choice(['1', '31', '7', '0', '4', '38;5;100', '48;2;1;2;3'])}m",
        24: lambda: r.choice([f"{E}(0", f"{E}(B", "\x0e", "\x0f", f"{E})0", f"{E}#8"]),
        25: lambda: f"{E}[{num(r, 10)} {r.choice('@A')}",
        26: lambda: f"{E}[{num(r, 10)}'{r.choice('}~')}",
        27: lambda: f"{E}[{num(r, 24)};{num(r, 80)};{num(r, 24)};{num(r, 80)}${r.choice('z{')}",
        28: lambda: f"{E}[{r.randint(33, 126)};{num(r, 24)};{num(r, 80)};{num(r, 24)};{num(r, 80)}$x",
        29: lambda: f"{E}[{num(r, 24)};{num(r, 80)};{num(r, 24)};{num(r, 80)};1;{num(r, 24)};{num(r, 80)};1$v",
        30: lambda: f"{E}[!p",
        31: lambda: f"{E}[{r.choice(['', '1', '2'])}\"q",
        32: lambda: f"{E}[?{r.choice(['', '0', '1', '2'])}{r.choice('JK')}",
        33: lambda: f"{E}H",
        34: lambda: r.choice([f"{E}#6", f"{E}#3", f"{E}#4", f"{E}#5"]),
        35: lambda: f"{E}[{num(r, 3)}{r.choice('EF')}",
        36: lambda: r.choice(["\x0b", f"{E}[{num(r, 24)}d", f"{E}[{num(r, 80)}`"]),
        37: lambda: f"{E}[{num(r, 5)};{num(r, 5)}f",
        38: lambda: r.choice([f"{E}V", f"{E}W"]),
    }
    if k in table:
        return table[k]()
    return "".join(chr(r.randint(0x20, 0x7E)) for _ in range(r.randint(1, 12)))


CHARS = ["a", "b", "Z", " ", "字", "漢", "😀", "é", "e\u0301", "\u0301", "\u200d", "\ufe0f", "☺", "ｱ",
         "\u00ad", "q", "#", "`", "~", "{", "\u2014", "ß", "ﬁ"]


def text_op(r):
    k = r.randrange(30)
    if k < 9:
        return "".join(r.choice(CHARS) for _ in range(r.randint(1, 30)))
    table = {
        9: lambda: r.choice(["\r\n", "\r", "\n", "\b", "\t", "\b\b"]),
        10: lambda: f"{E}[{num(r, 24)};{num(r, 80)}H",
        11: lambda: f"{E}[{num(r, 12)}{r.choice('CDGIZ`ab')}",
        12: lambda: f"{E}[{r.choice(['', '0', '1', '2'])}K",
        13: lambda: f"{E}[{num(r, 12)}{r.choice('@PX')}",
        14: lambda: f"{E}[?69h{E}[{num(r, 40)};{num(r, 80)}s",
        15: lambda: f"{E}[?69l",
        16: lambda: f"{E}[4{r.choice('hl')}",
        17: lambda: f"{E}[?7{r.choice('hl')}",
        18: lambda: f"{E}[{num(r, 200)}b",
        19: lambda: r.choice([f"{E}(0", f"{E}(B", f"{E})0", "\x0e", "\x0f", f"{E}*0{E}n", f"{E}+0{E}o", f"{E}N",
                              f"{E}O", f"{E}(A", f"{E}-A", f"{E}~", f"{E}(<", f"{E}(>"]),
        20: lambda: r.choice([f"{E}7", f"{E}8", f"{E}[s", f"{E}[u"]),
        21: lambda: f"{E}[?6{r.choice('hl')}",
        22: lambda: f"{E}[{num(r, 24)};{num(r, 24)}r",
        23: lambda: f"{E}[{num(r, 5)}{r.choice('LMST')}",
        24: lambda: r.choice([f"{E}H", f"{E}[g", f"{E}[3g"]),
        25: lambda: f"{E}[{num(r, 8)}'{r.choice('}~')}",
        26: lambda: f"{E}[{num(r, 8)} {r.choice('@A')}",
        27: lambda: r.choice([f"{E}D", f"{E}M", f"{E}E"]),
        28: lambda: f"{E}[{r.choice(['', '0', '1', '2'])}J",
    }
    if k in table:
        return table[k]()
    return f"{E}[?45{r.choice('hl')}"


def stream_ops(kind, seed, i):
    r = random.Random(seed * 100000 + i)
    op = control_op if kind == "controls" else text_op
    return [op(r) for _ in range(r.randint(5, 40))]


def screen_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        t = f.read()
    t = t.replace("\ufeff", "").replace("\uffff", "").replace("\u200b", "").replace("\u200d", "")
    t = unicodedata.normalize("NFC", t)
    lines = [line.rstrip(" ") for line in t.split("\n")]
    while lines and lines[-1] == "":
        lines.pop()
    return lines


class Sweep:
    def __init__(self, work):
        self.work = work
        self.display = f":{90 + random.randrange(100)}"
        self.xvfb = subprocess.Popen(["Xvfb", self.display, "-screen", "0", "1600x1200x24"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        self.n = 0

    def close(self):
        self.xvfb.terminate()
        self.xvfb.wait()

    def xterm_screen(self, stream):
        """xterm's print of the screen after `stream`, or None if xterm printed nothing."""
        self.n += 1
        out = os.path.join(self.work, f"print{self.n}")
        cmd = ["xterm", "-geometry", "80x24", "-u8", "-xrm", f"XTerm*printerCommand: cat > {out}",
               "-xrm", "XTerm*printAttributes: 0", "-xrm", "XTerm*printerExtent: true",
               "-e", "sh", "-c", f"stty -opost; cat '{stream}'; printf '\\033[i'; sleep 1"]
        xterm = subprocess.Popen(cmd, env=dict(os.environ, DISPLAY=self.display),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if os.path.exists(out) and os.path.getsize(out) > 0:
                break
            time.sleep(0.1)
        time.sleep(0.2)
        xterm.terminate()
        xterm.wait()
        if not os.path.exists(out):
            return None
        lines = screen_lines(out)
        os.remove(out)
        return lines

    def differs(self, ops):
        stream = os.path.join(self.work, "stream")
        with open(stream, "wb") as f:
            f.write(("".join(ops) + TAIL).encode())
        x = self.xterm_screen(stream)
        dump = subprocess.run([BLITTY, "replay", stream, "--size", "80x24"], capture_output=True, check=True)
        b = os.path.join(self.work, "blitty")
        with open(b, "wb") as f:
            f.write(b"".join(line + b"\n" for line in dump.stdout.split(b"\n") if not line.startswith(b"cursor:")))
        self.last = (x, screen_lines(b))
        return x is not None and x != self.last[1]


def ddmin(sweep, ops):
    """The fewest of `ops` (then of their characters) that still differ."""
    def cut(items):
        n = 2
        while len(items) >= 2:
            chunk = max(1, len(items) // n)
            for i in range(0, len(items), chunk):
                cand = items[:i] + items[i + chunk:]
                if cand and sweep.differs(cand):
                    items, n = cand, max(n - 1, 2)
                    break
            else:
                if n >= len(items):
                    break
                n = min(len(items), n * 2)
        return items
    ops = cut(ops)
    flat = []
    for o in ops:
        flat.extend([o] if E in o or len(o) <= 1 else list(o))
    return cut(flat)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=["controls", "text"], default="controls")
    ap.add_argument("--minimize", action="store_true")
    ap.add_argument("seed", type=int)
    ap.add_argument("count", type=int)
    args = ap.parse_args()
    for tool in ("xterm", "Xvfb"):
        if shutil.which(tool) is None:
            sys.exit(f"xterm-sweep: {tool} is not installed (scripts/setup.sh)")
    subprocess.run(["cargo", "build", "--release", "-p", "blitty"], cwd=ROOT, check=True, capture_output=True)
    with tempfile.TemporaryDirectory() as work:
        sweep = Sweep(work)
        differ = 0
        try:
            for i in range(args.count):
                ops = stream_ops(args.kind, args.seed, i)
                if not sweep.differs(ops):
                    print(f"same  {args.kind}:{args.seed}:{i}")
                    continue
                differ += 1
                print(f"DIFF  {args.kind}:{args.seed}:{i}")
                if args.minimize:
                    small = ddmin(sweep, ops)
                    sweep.differs(small)
                    print("      " + json.dumps(small))
                    x, b = sweep.last
                    for k in range(max(len(x or []), len(b))):
                        xl = x[k] if x and k < len(x) else ""
                        bl = b[k] if k < len(b) else ""
                        if xl != bl:
                            print(f"      row {k + 1}: xterm {xl!r}")
                            print(f"      row {k + 1}: blitty {bl!r}")
        finally:
            sweep.close()
        print(f"{args.count - differ} of {args.count} agree")


if __name__ == "__main__":
    main()
