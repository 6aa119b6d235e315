#!/usr/bin/env python3
"""Random streams shown in a real xterm and in `blitty replay`, compared screen by screen.

Each stream is 5-40 random controls and pieces of text (`--kind controls`: cursor motion,
erasing, scrolling, margins, modes, tabs, rectangles, double-size lines; `--kind text`: wide
characters, margins, insert mode, REP, tabs, character sets, column operations; `--kind
attrs`: SGR in every form, text, erasing, scrolling, resets and the rectangle operations that
change attributes), followed by `ESC ( B SI CSI m #` so that the cursor's place shows. xterm's
screen is its own screen print (MC, as in scripts/xterm-screens.sh), compared after NFC
normalisation (xterm stores `e` and U+0301 as `é`) and without U+200B and U+200D (xterm does
not store them), trailing blanks aside. The pty runs `stty -opost -echo` first, so LF stays LF
and xterm's answers to a stream's queries (DA, DSR) are not echoed onto the screen it prints.
For the attrs kind xterm prints its attributes and colours too (`printAttributes: 2`, with
`boldColors` off so that bold keeps its colour), and every character other than a space is
compared with `blitty replay --dump styled`: its attributes and colours must be the same.

With --minimize each stream that differs is cut down, a control or character at a time, to
the fewest that still differ, and printed as JSON: that is how the differences listed in the
README ("Cursor and scrolling details" and "Colours and attributes that a random sweep against
XTerm 379 found") were found.
Most differences left are the choices named there.

Needs xterm and Xvfb (scripts/setup.sh installs both) and a release build of blitty.
For the replies kind (mode changes and the like, then DECRQM, CPR, DSR and DECRQSS) the
bytes xterm answered (the pty in raw mode, read for a second after the stream) are compared
with `blitty replay --dump replies`.

With --corpus DIR, each recorded program stream DIR/*.raw (scripts/record-corpus.sh: ls, vim,
less, htop, dialog, bash, python, ...) is shown whole instead, and the exit status is 1 if any
screen differs.

With --terminfo, each string capability of xterm-256color's terminfo entry (the TERM blitty
gives its programs; keys aside) is written as `tput` writes it, in the middle of a full screen,
inside a scroll region and at the bottom right, and the screens compared (with --kind attrs,
after a coloured bold pen); the exit status is 1 if one differs beyond TERMINFO_EXPECTED.

Usage: scripts/xterm-sweep.py [--kind controls|text|attrs|replies] [--minimize] SEED COUNT
       scripts/xterm-sweep.py [--kind text|attrs] --corpus DIR
       scripts/xterm-sweep.py [--kind text|attrs] --terminfo
"""

import argparse
import glob
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
# BLITTY=PATH compares another build (a copy, so that rebuilding during a long sweep changes nothing).
BLITTY = os.environ.get("BLITTY") or os.path.join(ROOT, "target", "release", "blitty")
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


SGR_CODES = ["0", "1", "2", "3", "4", "5", "7", "9", "21", "22", "23", "24", "25", "27", "28", "29", "39",
             "49", ""] + [str(n) for n in [*range(30, 38), *range(40, 48), *range(90, 98), *range(100, 108)]]


def sgr_param(r, colon=True):
    k = r.randrange(12)
    if k < 7:
        return r.choice(SGR_CODES)
    fb = r.choice(["38", "48"])
    # No empty value: xterm takes one for a missing colour, blitty for 0 (README).
    n = r.choice([str(r.randint(0, 255)), "256", "300"])
    rgb = [str(r.choice([0, r.randint(0, 255), 255, 256])) for _ in range(3)]
    forms = [f"{fb};5;{n}", f"{fb};2;{';'.join(rgb)}", f"{fb};5", f"{fb};2;{rgb[0]}", f"{fb}", f"{fb};{n}"]
    if colon:
        forms += [f"{fb}:5:{n}", f"{fb}:2::{':'.join(rgb)}", f"{fb}:2:{':'.join(rgb)}"]
    return r.choice(forms)


def sgr(r):
    """An SGR of 1-4 parameters, with at most one colon group, that one last and after simple
    attributes only: xterm counts the parameters after a colon group by position where it means
    by number, and a semicolon colour before one takes its first number for a value, and either
    way it then reads sub-parameters as attributes (README)."""
    last = sgr_param(r)
    if ":" in last:
        # Nothing before it that would take the group's first number for a colour's value.
        params = [r.choice(SGR_CODES) for _ in range(r.randint(0, 3))]
    else:
        params = [sgr_param(r, colon=False) for _ in range(r.randint(0, 3))]
    return f"{E}[{';'.join(params + [last])}m"


def attrs_op(r):
    k = r.randrange(36)
    if k < 8:
        return r.choice(TEXTS[:9] + ["Zz", "#", "abcdefghij"])
    if k < 15:
        return sgr(r)
    # Rectangles inside the page: XTerm 379 does nothing with one whose top or left is past it,
    # where later patches hold it to the page as blitty does (README).
    def inside(hi):
        v = num(r, hi)
        return v if v == "" or int(v) <= hi else str(hi)
    rect = lambda: f"{inside(24)};{inside(80)};{num(r, 24)};{num(r, 80)}"
    table = {
        15: lambda: "\r\n",
        16: lambda: r.choice(["\r", "\n", "\b", "\t"]),
        17: lambda: f"{E}[{num(r, 24)};{num(r, 80)}H",
        18: lambda: f"{E}[{num(r, 10)}{r.choice('ABCDG')}",
        19: lambda: f"{E}[{r.choice(['', '0', '1', '2'])}{r.choice('JK')}",
        20: lambda: f"{E}[{num(r, 10)}{r.choice('@PXLMST')}",
        21: lambda: f"{E}[{num(r, 20)}b",
        22: lambda: r.choice([f"{E}7", f"{E}8", f"{E}[s", f"{E}[u", f"{E}[!p", f"{E}#8", f"{E}c"]),
        23: lambda: f"{E}[{num(r, 24)};{num(r, 24)}r",
        24: lambda: f"{E}[?69{r.choice('hl')}",
        25: lambda: f"{E}[{num(r, 80)};{num(r, 80)}s",
        26: lambda: f"{E}[{rect()};{';'.join(r.choice(['0', '1', '4', '5', '7', '22', '24', '25', '27', '31', '44']) for _ in range(r.randint(1, 3)))}$r",
        # DECRARA without 0: XTerm 379 ignores it, since patch 393 xterm and blitty reverse all.
        27: lambda: f"{E}[{rect()};{';'.join(r.choice(['1', '4', '5', '7']) for _ in range(r.randint(1, 3)))}$t",
        28: lambda: f"{E}[{r.choice(['', '0', '1', '2'])}*x",
        29: lambda: f"{E}[{r.randint(33, 126)};{rect()}$x",
        30: lambda: f"{E}[{rect()};1;{inside(24)};{inside(80)};1$v",
        31: lambda: f"{E}[{rect()}${r.choice('z{')}",
        32: lambda: r.choice([f"{E}D", f"{E}M", f"{E}E"]),
        33: lambda: f"{E}[{r.choice(['4', '20'])}{r.choice('hl')}",
        34: lambda: f"{E}[?{r.choice(['5', '6', '7'])}{r.choice('hl')}",
    }
    if k in table:
        return table[k]()
    return f"{E}[{r.choice(['0', '1', '2'])}\"q"


# The DEC modes blitty keeps (each answered as it is), and two no one knows (0 from both). The
# xterm modes blitty does not have (scroll bar, margin bell, the keyboard's and the mouse's
# extras) are answered "not recognised" (README).
DEC_MODES = [1, 5, 6, 7, 9, 12, 25, 42, 45, 47, 66, 69, 1000, 1002, 1003, 1004, 1005, 1006, 1007,
             1015, 1016, 1047, 1049, 2004, 99, 7727]
# Not KAM (2) and SRM (12), which blitty answers as fixed, nor 1045, which XTerm 379 does not
# know, DECCOLM (3), which XTerm 379 ignores without mode 40, or DECNCSM (95), which it answers
# as a VT510 only (README).
ANSI_MODES = [1, 3, 4, 5, 6, 7, 10, 11, 13, 14, 15, 16, 17, 18, 19, 20, 0, 34]


def replies_op(r):
    """A control for the replies kind: most change a state that a query then reports."""
    k = r.randrange(30)
    if k < 6:
        return f"{E}[?{r.choice(DEC_MODES)}{r.choice('hl')}"
    if k < 8:
        return f"{E}[{r.choice(['2', '4', '12', '20'])}{r.choice('hl')}"
    if k < 16:
        return r.choice([
            lambda: f"{E}[?{r.choice(DEC_MODES)}$p",
            lambda: f"{E}[{r.choice(ANSI_MODES)}$p",
            lambda: f"{E}[{r.choice(['6', '5'])}n",
            # The VT220's printer report; blitty answers the others as the VT220 its DA1 names,
            # xterm as the VT420 it says it is (README).
            lambda: f"{E}[?15n",
            lambda: f"{E}P$q{r.choice(['m', 'r', 's', ' q', 'x'])}{E}\\",
        ])()
    table = {
        16: lambda: f"{E}[{num(r, 24)};{num(r, 80)}H",
        17: lambda: f"{E}[{num(r, 24)};{num(r, 24)}r",
        18: lambda: f"{E}[{num(r, 80)};{num(r, 80)}s",
        19: lambda: sgr(r),
        20: lambda: f"{E}[{r.choice(['', '0', '1', '2', '3', '4', '5', '6', '7'])} q",
        21: lambda: r.choice([f"{E}7", f"{E}8", f"{E}[!p", f"{E}c", f"{E}#8", "\r\n", "\b"]),
        22: lambda: r.choice(TEXTS),
        23: lambda: f"{E}[{num(r, 10)}{r.choice('ABCDGd')}",
        24: lambda: f"{E}[?{r.choice(['6', '69', '7', '45'])}{r.choice('hl')}",
        25: lambda: f"{E}[{r.choice(['0', '1', '2'])}\"q",
    }
    return table.get(k, lambda: r.choice(TEXTS))()


def stream_ops(kind, seed, i):
    r = random.Random(seed * 100000 + i)
    op = {"controls": control_op, "text": text_op, "attrs": attrs_op, "replies": replies_op}[kind]
    return [op(r) for _ in range(r.randint(5, 40))]


def normal_text(t):
    t = t.replace("\ufeff", "").replace("\uffff", "").replace("\u200b", "").replace("\u200d", "")
    return unicodedata.normalize("NFC", t)


def screen_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return text_lines(f.read())


def text_lines(t):
    lines = [line.rstrip(" ") for line in normal_text(t).split("\n")]
    while lines and lines[-1] == "":
        lines.pop()
    return lines


def color(params, i, pen, key):
    """SGR 38/48 at params[i] (a list of colon-separated parts): the colour it sets, and the
    index of the parameter after it."""
    p = params[i]
    if len(p) > 1:  # colon form: 38:5:N, 38:2::R:G:B or 38:2:R:G:B
        if p[1] == "5" and len(p) > 2:
            n = int(p[2] or 0)
            # An index past 255 is an RGB colour whose "direct" flag xterm lost (DECALN clears
            # the flag and keeps the colour).
            pen[key] = ("i", n) if n < 256 else ("rgb", n >> 16, n >> 8 & 255, n & 255)
        elif p[1] == "2":
            rgb = p[-3:]
            pen[key] = ("rgb", *(int(x or 0) for x in rgb))
        return i + 1
    rest = [q[0] for q in params[i + 1:]]
    if rest[:1] == ["5"] and len(rest) > 1:
        pen[key] = ("i", int(rest[1] or 0))
        return i + 3
    if rest[:1] == ["2"] and len(rest) > 3:
        pen[key] = ("rgb", *(int(x or 0) for x in rest[1:4]))
        return i + 5
    return len(params)


FLAGS = {"1": "bold", "2": "faint", "3": "italic", "4": "under", "5": "blink", "6": "blink", "7": "inverse",
         "8": "invisible", "9": "strike", "21": "dunder"}
CLEAR = {"22": ["bold", "faint"], "23": ["italic"], "24": ["under", "dunder"], "25": ["blink"], "27": ["inverse"],
         "28": ["invisible"], "29": ["strike"]}


def apply_sgr(pen, arg, one_underline=False):
    """`one_underline`: the text is blitty's dump, whose underline is one style (SGR 4 and 21
    each replace the other), where xterm's SGR 4 and 21 are two flags."""
    params = [q.split(":") for q in arg.split(";")]
    i = 0
    while i < len(params):
        p = params[i]
        c = p[0]
        if c in ("", "0"):
            pen.clear()
        elif c == "4" and len(p) > 1:  # blitty's underline styles: 4:2 is xterm's 21
            for k in ("under", "dunder"):
                pen.pop(k, None)
            if p[1] == "2":
                pen["dunder"] = 1
            elif p[1] != "0":
                pen["under"] = 1
        elif one_underline and c in ("4", "21"):
            pen.pop("dunder" if c == "4" else "under", None)
            pen[FLAGS[c]] = 1
        elif c in FLAGS:
            pen[FLAGS[c]] = 1
        elif c in CLEAR:
            for k in CLEAR[c]:
                pen.pop(k, None)
        elif c.isdigit() and (30 <= int(c) <= 37 or 90 <= int(c) <= 97):
            pen["fg"] = ("i", int(c) - 30 if int(c) < 90 else int(c) - 82)
        elif c.isdigit() and (40 <= int(c) <= 47 or 100 <= int(c) <= 107):
            pen["bg"] = ("i", int(c) - 40 if int(c) < 100 else int(c) - 92)
        elif c == "39":
            pen.pop("fg", None)
        elif c == "49":
            pen.pop("bg", None)
        elif c in ("38", "48"):
            i = color(params, i, pen, "fg" if c == "38" else "bg")
            continue
        i += 1


def styled_rows(t, one_underline=False):
    """Text with SGR (xterm's print with printAttributes 2, or `blitty replay --dump styled`
    with `one_underline`): per row, its characters other than spaces, each with the attributes
    it has and whether an SGR came right before it."""
    rows, row, pen, fresh = [], [], {}, False
    for ch, sgr_arg in pieces(t):
        if sgr_arg is not None:
            apply_sgr(pen, sgr_arg, one_underline)
            fresh = True
        elif ch is None:
            continue
        elif ch == "\n":
            rows.append(row)
            row, pen = [], {}
        elif ch == "\uffff":
            fresh = False  # the right half of a wide character: an SGR before it was its own
        elif ch in "\r\x0e\x0f\ufeff\u200b\u200d":
            continue
        elif row and unicodedata.combining(ch) or ch == "\ufe0f":
            row[-1] = (row[-1][0] + ch, *row[-1][1:])
        else:
            attrs = dict(pen)
            if attrs.get("dunder") and attrs.get("under"):
                # xterm's SGR 4 and 21 are two flags, and a cell can have both; blitty's
                # underline is one style, the last one set (README).
                attrs["under"] = "both"
                del attrs["dunder"]
            row.append((ch, attrs, fresh))
            fresh = False
    rows.append(row)
    out = [[(unicodedata.normalize("NFC", c), a, f) for c, a, f in r if c != " "] for r in rows]
    while out and not out[-1]:
        out.pop()
    return out


def same_attrs(x, b):
    """Whether xterm's print of a row (from styled_rows) can be blitty's. xterm's print skips the
    SGR before a character whose attributes other than colours are none, when its colours are
    those of the last SGR (printLine compares them with 0, not with the last ones written), so
    there the character has either the last SGR's attributes or none."""
    if [c for c, _, _ in x] != [c for c, _, _ in b]:
        return False
    for (_, xa, explicit), (_, ba, _) in zip(x, b):
        if xa.get("under") == "both" and (ba.get("under") or ba.get("dunder")):
            xa = {k: v for k, v in xa.items() if k != "under"}
            ba = {k: v for k, v in ba.items() if k not in ("under", "dunder")}
        if xa == ba:
            continue
        if explicit:
            return False
        colours = lambda a: (a.get("fg"), a.get("bg"))
        if colours(xa) != colours(ba) or any(k not in ("fg", "bg") for k in ba):
            return False
    return True


def pieces(t):
    """The characters of text with SGR, as (character, None), and its escape sequences: an SGR
    as (None, its parameters), any other CSI or `ESC # N` (a row's size) as (None, None)."""
    i = 0
    while i < len(t):
        if t[i] != E:
            yield t[i], None
            i += 1
        elif t[i + 1:i + 2] == "[":
            j = i + 2
            while not ("@" <= t[j] <= "~"):
                j += 1
            yield None, (t[i + 2:j] if t[j] == "m" else None)
            i = j + 1
        else:
            yield None, None
            i += 3


def without_sgr(t):
    return "".join(ch for ch, _ in pieces(t) if ch is not None and ch not in "\r\x0e\x0f")


class Sweep:
    def __init__(self, work, kind):
        self.work = work
        self.kind = kind
        self.display = f":{90 + random.randrange(100)}"
        self.xvfb = subprocess.Popen(["Xvfb", self.display, "-screen", "0", "1600x1200x24"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        self.n = 0

    def close(self):
        self.xvfb.terminate()
        self.xvfb.wait()

    def xterm_screen(self, stream):
        """xterm's print of the screen after `stream` (with its attributes for the attrs kind), or
        None if xterm printed nothing."""
        self.n += 1
        out = os.path.join(self.work, f"print{self.n}")
        cmd = ["xterm", "-geometry", "80x24", "-u8", "-xrm", f"XTerm*printerCommand: cat > {out}",
               "-xrm", f"XTerm*printAttributes: {2 if self.kind == 'attrs' else 0}",
               "-xrm", "XTerm*printerExtent: true", "-xrm", "XTerm*boldColors: false",
               "-e", "sh", "-c", f"stty -opost -echo; cat '{stream}'; printf '\\033[i'; sleep 1"]
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
        with open(out, encoding="utf-8", errors="replace") as f:
            t = f.read()
        os.remove(out)
        return t

    def xterm_replies(self, stream):
        """What xterm answered to `stream`: the pty in raw mode, the stream written, then what
        came back in the next second."""
        self.n += 1
        out = os.path.join(self.work, f"replies{self.n}")
        cmd = ["xterm", "-geometry", "80x24", "-u8", "-e", "sh", "-c",
               f"stty raw -echo; cat '{stream}'; timeout --foreground 1 cat > '{out}.part'; mv '{out}.part' '{out}'"]
        xterm = subprocess.Popen(cmd, env=dict(os.environ, DISPLAY=self.display),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if os.path.exists(out):
                break
            time.sleep(0.1)
        xterm.terminate()
        xterm.wait()
        if not os.path.exists(out):
            return None
        with open(out, "rb") as f:
            data = f.read()
        os.remove(out)
        return data

    def differs(self, ops):
        if self.kind == "replies":
            stream = os.path.join(self.work, "stream")
            with open(stream, "wb") as f:
                f.write("".join(ops).encode())
            x = self.xterm_replies(stream)
            b = subprocess.run([BLITTY, "replay", stream, "--size", "80x24", "--dump", "replies"],
                               capture_output=True, check=True).stdout
            self.last = ([repr(x)], [repr(b)])
            return x is not None and x != b

        stream = os.path.join(self.work, "stream")
        with open(stream, "wb") as f:
            f.write(("".join(ops) + TAIL).encode())
        x = self.xterm_screen(stream)
        dump = subprocess.run([BLITTY, "replay", stream, "--size", "80x24"], capture_output=True, check=True)
        b = dump.stdout.decode("utf-8", "replace").split("\n")
        b = text_lines("\n".join(line for line in b if not line.startswith("cursor:")))
        if x is None:
            self.last = (None, b)
            return False
        if self.kind != "attrs":
            self.last = (text_lines(x), b)
            return self.last[0] != b
        self.last = (text_lines(without_sgr(x)), b)
        if self.last[0] != b:
            return True
        styled = subprocess.run([BLITTY, "replay", stream, "--size", "80x24", "--dump", "styled"],
                                capture_output=True, check=True).stdout.decode("utf-8", "replace")
        xa = styled_rows(x)
        ba = styled_rows("\n".join(line for line in styled.split("\n") if not line.startswith("cursor:")), True)
        if len(xa) == len(ba) and all(same_attrs(x, y) for x, y in zip(xa, ba)):
            return False
        # Where they differ, as rows of "character:attributes".
        show = lambda rows: [" ".join(f"{c}:{','.join(f'{k}={v}' for k, v in sorted(a.items()))}" for c, a, _ in r)
                             for r in rows]
        self.last = (show(xa), show(ba))
        return True


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


def print_rows(last):
    """The rows that differ in a comparison's (xterm rows, blitty rows)."""
    x, b = last
    for k in range(max(len(x or []), len(b))):
        xl = x[k] if x and k < len(x) else ""
        bl = b[k] if k < len(b) else ""
        if xl != bl:
            print(f"      row {k + 1}: xterm {xl!r}")
            print(f"      row {k + 1}: blitty {bl!r}")


def compare_corpus(directory, kind):
    """Each recorded stream (scripts/record-corpus.sh) shown whole in xterm and in blitty
    replay; returns 1 if any screen differs."""
    paths = sorted(glob.glob(os.path.join(directory, "*.raw")))
    if not paths:
        return f"xterm-sweep: no *.raw streams in {directory}"
    differ = skipped = 0
    with tempfile.TemporaryDirectory() as work:
        sweep = Sweep(work, kind)
        try:
            for path in paths:
                name = os.path.basename(path)
                try:
                    text = open(path, "rb").read().decode("utf-8")
                except UnicodeDecodeError as e:
                    print(f"skip  {name}: not UTF-8 ({e})")
                    skipped += 1
                    continue
                if not sweep.differs([text]):
                    print(f"same  {name}")
                    continue
                differ += 1
                print(f"DIFF  {name}")
                print_rows(sweep.last)
        finally:
            sweep.close()
    compared = len(paths) - skipped
    print(f"{compared - differ} of {compared} agree" + (f" ({skipped} skipped)" if skipped else ""))
    return 1 if differ else 0


# Parameters for terminfo's parameterised capabilities (--terminfo).
TERMINFO_PARAMS = {
    "csr": [3, 10], "cub": [3], "cud": [3], "cuf": [3], "cup": [5, 10], "cuu": [3], "dch": [3],
    "dl": [3], "ech": [3], "hpa": [7], "ich": [3], "il": [3], "indn": [3], "rep": ["x", 5],
    "rin": [3], "setab": [4], "setaf": [1], "smglp": [5], "smglr": [5, 40], "smgrp": [40],
    "vpa": [7], "sgr": [1, 1, 1, 1, 0, 1, 0, 0, 1],
}
# Capabilities a screen does not show: printing (mc0, mc4, mc5), queries (u6-u9), the clipboard
# (Ms), colours and the cursor's colour and style changed in the palette (initc, oc, Cs, Cr, Ss,
# Se), the mouse (XM, xm), bracketed paste's markers (PS, PE, BD, BE) and the bell (flash).
TERMINFO_UNSHOWN = {"mc0", "mc4", "mc5", "u6", "u7", "u8", "u9", "Ms", "initc", "oc", "Cs", "Cr",
                    "Ss", "Se", "XM", "xm", "PS", "PE", "BD", "BE", "flash"}
# Where blitty is not xterm on purpose (README, "The engine's design"): is2 and rs2 reset
# DECCOLM, which clears the screen in blitty (as in tmux and alacritty) and which XTerm 379
# ignores while mode 40 is off; SGR 8 keeps the characters (XTerm stores blanks).
TERMINFO_EXPECTED = {"is2", "rs2", "invis"}


def compare_terminfo(kind):
    """Each string capability of xterm-256color's terminfo entry (keys aside), as `tput` writes
    it with TERMINFO_PARAMS, after a full screen of text, in three places: the middle of the
    screen, inside a scroll region (rows 4-12), and the last column of the bottom row, each
    followed by text; in the attrs kind with a red-on-blue bold pen set before it. Returns 1
    if a capability not in TERMINFO_EXPECTED differs."""
    out = subprocess.run(["infocmp", "-1", "-x", "xterm-256color"], capture_output=True, text=True)
    if out.returncode != 0:
        return "xterm-sweep: infocmp cannot read xterm-256color (ncurses-bin, ncurses-term)"
    caps = [line.strip().split("=")[0] for line in out.stdout.splitlines()
            if "=" in line and line.startswith("\t") and not line.strip().startswith("k")]
    fill = "\r\n".join(f"{i:02d} " + "abcdefghij" * 7 for i in range(1, 24)) + "\r\n24 last"
    pen = f"{E}[1;31;44m" if kind == "attrs" else ""
    places = ([f"{E}[10;20H"], [f"{E}[10;20H", f"{E}[4;12r", f"{E}[6;20H"], [f"{E}[24;79H"])
    unexpected = same = 0
    with tempfile.TemporaryDirectory() as work:
        sweep = Sweep(work, kind)
        try:
            for cap in caps:
                if cap in TERMINFO_UNSHOWN:
                    continue
                args = [str(a) for a in TERMINFO_PARAMS.get(cap, [])]
                seq = subprocess.run(["tput", "-T", "xterm-256color", cap] + args,
                                     capture_output=True).stdout.decode("latin-1")
                for place in places:
                    if not sweep.differs([fill] + place + [pen, seq, "XYZ"]):
                        same += 1
                        continue
                    if cap in TERMINFO_EXPECTED:
                        print(f"DIFF  {cap} (expected) {seq!r}")
                    else:
                        unexpected += 1
                        print(f"DIFF  {cap} {seq!r} after {place!r}")
                        print_rows(sweep.last)
        finally:
            sweep.close()
    print(f"{same} agree, {unexpected} differ beyond the expected")
    return 1 if unexpected else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=["controls", "text", "attrs", "replies"],
                    help="controls unless --corpus, text with it")
    ap.add_argument("--minimize", action="store_true")
    ap.add_argument("--corpus", metavar="DIR",
                    help="compare each recorded stream DIR/*.raw whole (text, or text and "
                         "attributes with --kind attrs) instead of random streams")
    ap.add_argument("--terminfo", action="store_true",
                    help="compare every string capability of xterm-256color's terminfo entry "
                         "(--kind text or attrs) instead of random streams")
    ap.add_argument("seed", type=int, nargs="?")
    ap.add_argument("count", type=int, nargs="?")
    args = ap.parse_args()
    whole = args.corpus is not None or args.terminfo
    if not whole and (args.seed is None or args.count is None):
        ap.error("SEED and COUNT are needed unless --corpus or --terminfo is given")
    if args.kind is None:
        args.kind = "text" if whole else "controls"
    if whole and args.kind not in ("text", "attrs"):
        ap.error("--corpus and --terminfo compare screens: --kind text or attrs")
    for tool in ("xterm", "Xvfb"):
        if shutil.which(tool) is None:
            sys.exit(f"xterm-sweep: {tool} is not installed (scripts/setup.sh)")
    if not os.environ.get("BLITTY"):
        subprocess.run(["cargo", "build", "--release", "-p", "blitty"], cwd=ROOT, check=True, capture_output=True)
    if args.corpus is not None:
        sys.exit(compare_corpus(args.corpus, args.kind))
    if args.terminfo:
        sys.exit(compare_terminfo(args.kind))
    with tempfile.TemporaryDirectory() as work:
        sweep = Sweep(work, args.kind)
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
                    print_rows(sweep.last)
        finally:
            sweep.close()
        print(f"{args.count - differ} of {args.count} agree")


if __name__ == "__main__":
    main()
