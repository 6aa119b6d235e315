#!/usr/bin/env python3
"""Helper of scripts/ucs-detect.sh (not run alone).

`ucs-detect.py run DIR OUT`: runs ucs-detect (DIR holds the clones of ucs-detect, wcwidth and
blessed) on the terminal it is started in, answering its two questions (the software's name
and version) itself, and saves its results to OUT (YAML).
`ucs-detect.py compare DIR OUT`: prints blitty's results (OUT) beside the peers' that
ucs-detect publishes (DIR/ucs-detect/data/*.yaml, measured with the same ucs-detect and
wcwidth), as a Markdown table: the share of wide characters of Unicode 15 to 17 measured as
wcwidth says, of emoji ZWJ sequences, of VS16 and VS15 sequences, and the languages whose
every word measured as wcwidth says.
"""
import builtins
import os
import sys

PEERS = ["xterm", "alacritty", "st", "gnometerminal", "konsole", "tmux", "screen", "kitty",
         "foot", "ghostty", "wezterm"]


def run(top, out):
    sys.path[:0] = [os.path.join(top, d) for d in ("ucs-detect", "wcwidth", "blessed")]
    answers = iter(["blitty", os.environ.get("BLITTY_VERSION", "")])
    builtins.input = lambda *a, **k: next(answers)
    import ucs_detect
    return ucs_detect.run(stream="stderr", quick=False, limit_codepoints=200, limit_errors=50,
                          limit_words=200, save_yaml=out, shell=False, unicode_version=None,
                          no_terminal_test=True, no_languages_test=False, timeout=10.0,
                          no_emit_osc1337=True, stop_at_error=None)


def row(name, d):
    td = d["test_results"]

    def mean(key):
        vals = [x.get("pct_success", 0) for x in (td.get(key) or {}).values()]
        return f"{sum(vals) / len(vals):.0f}%" if vals else "-"

    wide = td.get("unicode_wide_results") or {}
    cells = [f"{wide[v].get('pct_success', 0):.0f}%" if v in wide else "-"
             for v in ("15.0.0", "15.1.0", "16.0.0", "17.0.0")]
    langs = td.get("language_results") or {}
    ok = sum(1 for x in langs.values() if x.get("pct_success", 0) == 100.0)
    version = d.get("software_version") or ""
    return (f"| {name} {version} | " + " | ".join(cells) +
            f" | {mean('emoji_zwj_results')} | {mean('emoji_vs16_results')} | "
            f"{mean('emoji_vs15_results')} | {ok} of {len(langs)} |")


def compare(top, out):
    import yaml
    print("| terminal | wide 15.0 | wide 15.1 | wide 16.0 | wide 17.0 | emoji ZWJ | VS16 | VS15 | languages |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(row("blitty", yaml.safe_load(open(out))))
    for p in PEERS:
        path = os.path.join(top, "ucs-detect", "data", f"{p}.yaml")
        if os.path.exists(path):
            print(row(p, yaml.safe_load(open(path))))
        else:
            print(f"| {p} | not in ucs-detect's data |||||||| ")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("run", "compare"):
        sys.exit("usage: ucs-detect.py run|compare DIR OUT")
    sys.exit({"run": run, "compare": compare}[sys.argv[1]](sys.argv[2], sys.argv[3]))
