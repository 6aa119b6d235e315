#!/usr/bin/env bash
# vttest's screens in a real xterm and in blitty: vttest runs in xterm (80x24, UTF-8, under its
# own Xvfb) under script(1), which records everything vttest writes; the keys of a menu path are
# typed into xterm with xdotool; then xterm prints its screen (a key bound to its print action)
# and `blitty replay` of the recording gives blitty's. Trailing blanks are not compared.
# Needs xterm, Xvfb, vttest and xdotool (apt-get install vttest xdotool; scripts/setup.sh
# installs the first two). Usage: scripts/vttest-screens.sh [NAME...]; prints same or DIFF
# (with the diff) for each screen, exits 1 if any differ.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="xterm Xvfb vttest xdotool script" NAME=vttest-screens HINT="apt-get install vttest xdotool"
. scripts/xvfb-common.sh

# Each screen: the keys typed from vttest's main menu (RET is Return), one group at a time.
declare -A screens=(
    [charsets-vt100]="3 RET 8 RET"
    [charsets-si-so]="3 RET 9 RET"
    [charsets-locking-shifts-1]="3 RET 10 RET"
    [charsets-locking-shifts-2]="3 RET 10 RET RET"
    [charsets-locking-shifts-3]="3 RET 10 RET RET RET"
    [charsets-single-shifts-1]="3 RET 11 RET"
    [charsets-single-shifts-2]="3 RET 11 RET RET"
    [nrc-german-keyboard-layout]="3 RET 3 RET 4 RET 10 RET 13 RET"
    [nrc-swedish-single-shifts]="3 RET 3 RET 4 RET 16 RET 11 RET"
    [nrc-french-vt100]="3 RET 3 RET 4 RET 8 RET 9 RET"
    [nrc-locking-shifts-2]="3 RET 3 RET 4 RET 8 RET 10 RET RET"
    [nrc-locking-shifts-3]="3 RET 3 RET 4 RET 8 RET 10 RET RET RET"
    [cursor-movements-1]="1 RET"
    [cursor-movements-3]="1 RET RET RET"
    [screen-features-1]="2 RET"
    [screen-features-2]="2 RET RET"
    [vt52-cursor-movements]="7 RET"
    [vt52-character-sets]="7 RET RET"
    [vt52-identify]="7 RET RET RET"
    [vt52-back-to-ansi]="7 RET RET RET RET"
    [insert-delete-line-1]="8 RET"
    [insert-delete-char-2]="8 RET RET"
    [vt420-decbi]="11 RET 3 RET 2 RET 7 RET"
    [vt420-decfi]="11 RET 3 RET 2 RET 8 RET"
    [vt420-decbi-lr-margins]="11 RET 3 RET 2 RET 3 RET 7 RET"
    [vt420-decfi-lr-margins]="11 RET 3 RET 2 RET 3 RET 8 RET"
    [vt420-decic-decdc-1]="11 RET 3 RET 3 RET 9 RET"
    [vt420-decic-decdc-2]="11 RET 3 RET 3 RET 9 RET RET"
    [vt420-decic-decdc-lr-margins]="11 RET 3 RET 3 RET 2 RET 9 RET"
    [vt420-decic-decdc-origin-lr-margins]="11 RET 3 RET 3 RET 2 RET 1 RET 9 RET RET"
    [vt420-deccra-2]="11 RET 3 RET 6 RET 8 RET RET"
    [vt420-deccra-3]="11 RET 3 RET 6 RET 8 RET RET RET"
    [vt420-deccra-4]="11 RET 3 RET 6 RET 8 RET RET RET RET"
    [vt420-decera]="11 RET 3 RET 6 RET 9 RET"
    [vt420-decfra]="11 RET 3 RET 6 RET 10 RET"
    [vt420-decsera-1]="11 RET 3 RET 6 RET 12 RET"
    [vt420-decsera-2]="11 RET 3 RET 6 RET 12 RET RET"
    [vt420-decsera-3]="11 RET 3 RET 6 RET 12 RET RET RET"
    [vt420-decfra-origin-margins]="11 RET 3 RET 6 RET 1 RET 2 RET 3 RET 4 RET 10 RET"
    [vt420-decera-origin-margins]="11 RET 3 RET 6 RET 1 RET 2 RET 3 RET 4 RET 9 RET"
    [vt420-deccra-origin-margins]="11 RET 3 RET 6 RET 1 RET 2 RET 3 RET 4 RET 8 RET RET"
    [vt420-decsera-margins]="11 RET 3 RET 6 RET 2 RET 3 RET 3 RET 4 RET 4 RET 12 RET RET"
    [ecma48-rep]="11 RET 7 RET 2 RET"
    [ecma48-sl]="11 RET 7 RET 4 RET"
    [ecma48-sr]="11 RET 7 RET 5 RET"
    [double-size-1]="4 RET"
    [double-size-2]="4 RET RET"
    [double-size-5]="4 RET RET RET RET RET"
    [double-size-6]="4 RET RET RET RET RET RET"
    [double-size-7]="4 RET RET RET RET RET RET RET"
    [double-size-8]="4 RET RET RET RET RET RET RET RET"
)
names=("$@")
[ ${#names[@]} -gt 0 ] || mapfile -t names < <(printf '%s\n' "${!screens[@]}" | sort)
differ=0
for name in "${names[@]}"; do
    shown=$dir/xterm.txt
    rec=$dir/vttest.rec
    rm -f "$shown" "$rec"
    DISPLAY=$display xterm -geometry 80x24 -u8 -xrm "XTerm*printerCommand: cat > $shown" \
        -xrm 'XTerm*printAttributes: 0' -xrm 'XTerm*printerExtent: true' \
        -xrm 'XTerm*VT100.translations: #override <Key>F12: print()' -e script -q -f -c vttest "$rec" &
    term=$!
    wid=$(DISPLAY=$display xdotool search --sync --class xterm | head -1)
    sleep 1
    DISPLAY=$display xdotool windowfocus --sync "$wid" 2>/dev/null || true
    for key in ${screens[$name]}; do
        if [ "$key" = RET ]; then DISPLAY=$display xdotool key Return; else DISPLAY=$display xdotool type --delay 50 "$key"; fi
        sleep 0.8
    done
    DISPLAY=$display xdotool key F12
    for _ in $(seq 30); do [ -s "$shown" ] && break; sleep 0.1; done
    sleep 0.3
    # script(1) and vttest first: left behind a closed xterm, vttest spins on its dead terminal.
    for pid in $(pgrep -f -- "$rec" || true); do
        pkill -KILL -P "$pid" 2>/dev/null || true
        kill -KILL "$pid" 2>/dev/null || true
    done
    kill $term 2>/dev/null || true
    wait $term 2>/dev/null || true
    # script(1)'s own first line is not vttest's.
    sed -i '1{/^Script started/d}' "$rec"
    "$blitty" replay "$rec" --size 80x24 | grep -v '^cursor:' > "$dir/blitty.txt"
    if diff <(sed 's/ *$//' "$shown") <(sed 's/ *$//' "$dir/blitty.txt") > "$dir/diff"; then
        echo "same  $name"
    else
        differ=1
        echo "DIFF  $name"
        sed 's/^/      /' "$dir/diff" | head -20
    fi
done
exit $differ
