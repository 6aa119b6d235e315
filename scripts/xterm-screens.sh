#!/usr/bin/env bash
# Shows each stream below in a real xterm (80x24, UTF-8, under its own Xvfb) and in
# `blitty replay`, and compares the two screens. xterm's screen comes from its own screen print
# (MC, `CSI i`, with printerCommand writing to a file and printAttributes 0), so what is compared
# is the text xterm holds, not a picture of it (trailing blanks aside). Prints `same` or `DIFF` with both screens' first
# lines for each case; exits 1 if any differ.
# Needs xterm and Xvfb (scripts/setup.sh installs both). Usage: scripts/xterm-screens.sh [NAME...]
# The README's "Character sets" and "DECCOLM" items list the differences that are blitty's
# choice (with XTerm 379: the undefined positions' character, reverse wraparound over a line that
# did not wrap, DECCOLM, and DECFRA through the character sets, which XTerm 379 predates).
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="xterm Xvfb" NAME=xterm-screens HINT="scripts/setup.sh"
. scripts/xvfb-common.sh

E=$'\033'
N="$E[?42h"
rows="$E[1;1Habcdef$E[2;1Hghijkl$E[3;1Hmnopqr"
printable=$(printf "$(printf '\\%03o' $(seq 33 126))")
declare -A cases=(
    [g2-ls2]="$E*0${E}nlqk$E(B|abc"
    [g3-ls3]="$E+0${E}olqk x$E(B"
    [ls2-then-si]="$E*0${E}nlqk"$'\x0f'"lqk"
    [ss2]="$E*0a${E}Nqq"
    [ss3]="$E+0a${E}Oxx"
    [so-si]="$E)0"$'\x0e'"lqk"$'\x0f'"lqk"
    [latin1-g1-so]="$E-A"$'\x0e'" !AZaz~"$'\x7f'$'\x0f'"!"
    [latin1-ss2]="$E.A${E}NAA${E}N |"
    [dec-supplemental]="$E(<!AZaz~#\$%&$E(B"
    [dec-supplemental-graphic]="$E(%5!AZaz~#\$%&$E(B"
    [dec-technical-g1]="$E)>"$'\x0e'"ab"$'\x0f'"ab"
    [uk-then-ascii]="$E(A#$E(B#"
    [nrcs-without-decnrcm]="$E(0$E(Kq#@[\\]{|}~"
    [nrcs-stays-after-reset]="$N$E(K$E[?42l#@[\\]{|}~"
    [nrcs-through-decstr]="$N$E[!p$E(K#@[\\]{|}~"
    [nrcs-after-ris]="$N${E}c$E(K#@[\\]{|}~"
    [nrcs-so-ss2]="$N$E)K$E*Y"$'\x0e'"["$'\x0f'"[${E}N}}"
    [nrc-latin1-gl]="$N$E-A"$'\x0e'"#a"$'\x7f'"b"$'\x0f'"|"
    [nrc-latin1-designated-before]="$E-A$N"$'\x0e'"#a"$'\x0f'"|"
    [nrc-latin1-gr]="$N$E-A$E~"$'\xa0\xa3\xe9'"|"
    [nrc-latin1-after-reset]="$N$E-A$E[?42l$E~"$'\xa3\xe9'"|"
    [nrc-latin1-after-reset-gl]="$N$E-A$E[?42l"$'\x0e'"a"$'\x7f'$'\x0f'"|"
    [nrc-latin1-restored-cursor]="$E-A$N${E}7$E[?42l${E}8"$'\x0e'"a"$'\x0f'"|"
    [nrc-latin1-restored-cursor-2]="$E-A${E}7$N${E}8"$'\x0e'"a"$'\x0f'"|"
    [nrc-latin1-decstr]="$N$E[!p$E-A"$'\x0e'"a"$'\x0f'"|"
    [del-latin1-gl]="$E-A"$'\x0e'"a"$'\x7f'"b"$'\x0f'"|"
    [del-ss2-latin1]="$E.Aa${E}N"$'\x7f'"b|"
    [del-94-set]="$E)0"$'\x0e'"a"$'\x7f'"b"$'\x0f'"|"
    [del-96-in-gr-only]="$E-A$E~a"$'\x7f'"b|"
    [del-after-94-designation]="$E-A"$'\x0e'"$E*0a"$'\x7f'"b"$'\x0f'"|"
    [c1-in-utf8]=$'keep\xc2\x9b2Jx\xc2\x85y\xc2\x84z'
    [dec-special-blank]="$E(0a_b$E(B|"
    [rep-dec]="$E(0q$E[5b$E(B"
    [reverse-wrap-through-a-wrapped-line]="$E[?45h$(printf 'a%.0s' $(seq 80))bc"$'\b\b\b'"Z"
    [reverse-wrap-over-a-line-that-did-not-wrap]="$E[?45habc"$'\r\n\b'"Z"
    [reverse-wrap-1045-over-any-line]="$E[?45h$E[?1045habc"$'\r\n\b'"Z"
    [reverse-wrap-needs-autowrap]="$E[?7l$E[?45habc"$'\r\n\b'"Z$E[?7h"
    [reverse-wrap-cub]="$E[?45h$(printf 'a%.0s' $(seq 80))bc$E[5DZ"
    [reverse-wrap-1045-top-to-bottom]="$E[?45h$E[?1045h$E[H"$'\b'"Z"
    [reverse-wrap-1045-in-margins]="$E[?45h$E[?1045h$E[3;10r$E[3;1H"$'\b'"Z"
    [reverse-wrap-off-again]="$E[?45h$(printf 'a%.0s' $(seq 80))bc$E[?45l"$'\b\b\b'"Z"
    [deccolm]="abc"$'\r\n'"def$E[?3hX"
    [rep-once]="+$E[b$E[10b|"
    [rep-after-cr]="x"$'\r'"$E[3b|"
    [rep-after-sgr]="x$E[1m$E[3b$E[m|"
    [rep-after-lines]=$'ab\r\ncd\r\n'"$E[3b|"
    [sl]="$rows$E[2;3H$E[2 @X"
    [sr]="$rows$E[2;3H$E[ AX"
    [sl-in-margins]="$rows$E[2;3r$E[?69h$E[2;5s$E[2;2H$E[ @X"
    [sl-outside-margins]="$rows$E[2;3r$E[?69h$E[2;5s$E[1;1H$E[ @X"
    [sl-pending-wrap]="$(printf 'a%.0s' $(seq 80))$E[ @X"
    [decic]="$rows$E[3;3H$E[2'}X"
    [decdc-in-margins]="$rows$E[1;3r$E[?69h$E[1;4s$E[1;2H$E['~X"
    [decbi-inside]="$rows$E[1;3H${E}6X"
    [decbi-at-left-margin]="$rows$E[1;1H${E}6X"
    [decfi-at-right-margin]="$rows$E[?69h$E[2;4s$E[1;4H${E}9X"
    [decfra]="$rows$E[2;2H$E[1m$E[42;2;2;3;4\$x$E[m"
    [decfra-origin-lr]="$rows$E[?69h$E[5;20s$E[3;10r$E[?6h$E[88;1;1;2;3\$x$E[?6l"
    [decfra-clamped]="$E[88;23;78;99;99\$x"
    [decfra-not-printable]="$rows$E[127;1;1;2;5\$x$E[10;1;1;2;5\$x$E[\$x"
    [decfra-latin1-and-unicode]="$E[233;1;1;2;3\$x$E[937;3;1;3;5\$x"
    [decfra-wide-cut]="日本語日本語$E[88;1;2;1;4\$x"
    [decfra-dec-graphics]="$E(0$E[113;1;1;2;5\$x$E(B"
    [decera-origin]="$rows$E[2;3r$E[?6h$E[1;2;2;3\$z$E[?6l"
    [decera-protected]="$E[1\"qPROT$E[0\"qfree$E[1;1;1;80\$z"
    [decsera-protected]="$E[1\"qPROT$E[0\"qfree$E[1;1;1;80\${"
    [decsera-guarded]="${E}VPROT${E}Wfree$E[1;1;1;80\${"
    [decsera-protected-wide-edge]="$E[1\"q日本$E[0\"qab$E[1;2;1;80\${"
    [deccra]="$rows$E[1;1;2;2;1;3;5;1\$v"
    [deccra-overlap-down]="$rows$E[1;1;3;4;1;2;2;1\$v"
    [deccra-overlap-up]="$rows$E[2;2;3;5;1;1;1;1\$v"
    [deccra-off-page]="$rows$E[1;1;3;6;1;23;78;1\$v"
    [deccra-wide]="日本語$E[1;2;1;5;1;2;1;1\$v$E[1;3;1;4;1;3;2;1\$v"
    [deccra-origin]="$rows$E[2;3r$E[?6h$E[1;1;2;5;1;2;30;1\$v$E[?6l"
    [spa-ed]="${E}VPROT${E}Wfree$E[2J"
    [spa-el]="${E}VPROT${E}Wfree$E[2K"
    [spa-ech]="${E}VPROT${E}Wfree$E[1;1H$E[8X"
    [spa-decsed]="${E}VPROT${E}Wfree$E[?2J"
    [spa-then-decsca-ed]="${E}VPROT${E}W$E[0\"qfree$E[2J"
    [spa-decstr-ed]="${E}VPROT${E}Wfree$E[!p$E[2J"
    [decsca-decstr-decsed]="$E[1\"qPROT$E[0\"qfree$E[!p$E[?2J"
    [spa-wide-edge-ech]="${E}V日本${E}Wab$E[1;4H$E[3X"
    [decsel-protected-wide-edge]="$E[1\"q日本$E[0\"qab$E[1;2H$E[?0K"
    [decsel-unprotected-wide-edge]="日本$E[1\"qab$E[0\"q$E[1;2H$E[?0K"
    [colon-cuf-cup]="a$E[2:3CX$E[3:4HY"
    [colon-ed-ich-decstbm]="$rows$E[1;2H$E[2:1@$E[2:1J$E[2:3r$E[3;1H${E}DX"
    [vt52-moves]="$E[?2l${E}Y\"%x${E}Ay${E}B${E}B${E}Dz${E}C${E}Cw$E<"
    [vt52-position-past-the-screen]="$E[3;4H$E[?2l${E}Y~%a${E}Y\"~b${E}Y"$'\x01\x01'"c$E<"
    [vt52-csi-osc-not-recognised]="$E[?2l$E[2J$E]0;t"$'\a'"|$E<"
    [vt52-graphics]="$E(0$E[?2l${E}F_\`abcdefghijklmnopqrstuvwxyz{|}~${E}Gq$E<q"
    [vt52-no-autowrap-then-back]="$E[?2l$(printf 'a%.0s' $(seq 85))$E<$E[3;1H$(printf 'b%.0s' $(seq 85))"
    [vt52-ris-ignored]="$E[?2l${E}c$E[2Cx$E<"
    [vt52-reverse-index-at-top]="top$E[?2l${E}H${E}Ix$E<"
    # Double-width and double-height lines (DECDWL, DECDHL, DECSWL).
    [dhl-long]="$E#3$(printf 'y%.0s' $(seq 45))"
    [dhl-pair]="$E#3top"$'\r\n'"$E#4bot"
    [dwl-declrmm]="$E#6$E[24;1H$E#6$E[?69h$E[?69l$E[1;1H$(printf 'x%.0s' $(seq 60))$E[24;1H$(printf 'y%.0s' $(seq 60))"
    [dwl-deccolm-ncsm]="$E[?40h$E[?95h$E#6$E[24;1H$E#6$E[?3l$E[1;1H$(printf 'x%.0s' $(seq 60))$E[24;1H$(printf 'y%.0s' $(seq 60))$E[?40l"
    [hpr-past-right-margin]="$E[?69h$E[1;10s$E[1;5H$E[20aX$E[2;5H$E[20CY"
    [vpr-past-bottom-margin]="$E[1;5r$E[3;1H$E[10eX$E[3;3H$E[10BY"
    [hpr-vpr-origin]="$E[?69h$E[5;20s$E[5;10r$E[?6h$E[1;1H$E[30aX$E[1;1H$E[30eY$E[?6l"
    [hpr-double-width]="$E#6$E[1;39H$E[3aX$E[2;1H$E#6$E[2;39H$E[3CY"
    [sd-zero-is-mouse-tracking]="d$E[0T$E[1;2;3;4;5Te$E[Tf"
    [decaln-resets-origin-mode]="$E[5;10r$E[?6h$E#8$E[9;rX$E[20;1HY"
    [decaln-bottom-double-row]="$E[24;1H$E#6$E[1;1H$E#6$E#8$E[1;1H$(printf 'x%.0s' $(seq 60))$E[24;1H$(printf 'y%.0s' $(seq 60))"
    [awm-off-mark-joins-last-column]="$E[?7l$(printf 'x%.0s' $(seq 85))q"$'\xcc\x81'"$E[2;1H$E#6$(printf 'y%.0s' $(seq 45))q"$'\xcc\x81'
    [awm-off-pending-ends-with-any-text]="$E[?7l$E[?69h$E[3;9sééé字éé字$E[?69l字 "$'\xcc\x81'"字$E[2;1H$(printf 'x%.0s' $(seq 80))字"$'\xcc\x81'"$E[3;1H$(printf 'y%.0s' $(seq 80))"$'\xcc\x81'"q"$'\xcc\x82'
    [wide-left-of-the-cursor-across-the-left-margin]="$E[?69h$E[22;27s$E[4h$(printf 'x%.0s' $(seq 20))字|$E[4l$E[2;1H$(printf 'y%.0s' $(seq 20))字abc$E[2;24H$E[P$E[@$E[1'}$E[1'~"
    [awm-pending-kept-through-decawm]="$(printf 'x%.0s' $(seq 80))$E[?7l$E[?7hY$E[3;1H$E[?7l$(printf 'z%.0s' $(seq 85))$E[?7hW"
    [rect-top-past-the-page]="$rows$E[88;30;1;30;5\$x$E[89;2;30;3;40\$x"
    [dwl-text-wrapping-into-the-next-row]="$E#6$(printf 'q%.0s' $(seq 130))"
    [mark-on-an-erased-cell]="abc$E[1K"$'\xcc\x81'"Z$E[2;5H"$'\xcc\x81'"Y"
    [wide-at-last-col-keeps-the-cell]="$E#8$E[1;80H字$E[5;1H$(printf 'x%.0s' $(seq 79))$E[?69h$E[1;40s$E[6;40H字"
    [dwl-after-text]="$(printf 'x%.0s' $(seq 60))$E#6"'Z'
    [dwl-alt]="$E#6$E[?1049h$(printf 'y%.0s' $(seq 50))$E[?1049l$(printf 'q%.0s' $(seq 50))"
    [dwl-cuf-back]="$E#6$E[1;70H$E[CQ"
    [dwl-cuf]="$E#6ab$E[60Cc"
    [dwl-cup]="$E#6$E[1;70Hq"
    [dwl-decaln]="$E#6$E#8$E[1;1H$(printf 'y%.0s' $(seq 60))"
    [dwl-decsc]="$E#6$E[1;30H${E}7$E[2;70H${E}8$(printf 'y%.0s' $(seq 15))"
    [dwl-decsca-decsed]="$E#6$E[1\"q"'P'"$E[0\"q$E[?2J$E[1;1H$(printf 'y%.0s' $(seq 60))"
    [dwl-decsed-home]="$E#6$E[?J$(printf 'y%.0s' $(seq 60))"
    [dwl-ech-el]="$E#6$(printf 'y%.0s' $(seq 60))$E[1;30H$E[K"
    [dwl-ed-above]="$E[1;1H$E#6$E[3;1H$E[1J$E[1;1H$(printf 'y%.0s' $(seq 60))"
    [dwl-ed-below]="$E[2;1H$E#6$E[1;1H$E[J$E[2;1H$(printf 'y%.0s' $(seq 60))"
    [dwl-ed-cursor-row]="$E#6$E[J$(printf 'y%.0s' $(seq 60))"
    [dwl-ed0-not-home]="$E#6$E[1;2H$E[J$E[1;1H$(printf 'y%.0s' $(seq 60))"
    [dwl-ed1-last-cell]="$E[24;1H$E#6$E[24;80H$E[1J$E[24;1H$(printf 'y%.0s' $(seq 60))"
    [dwl-ed1-not-last]="$E[24;1H$E#6$E[24;79H$E[1J$E[24;1H$(printf 'y%.0s' $(seq 60))"
    [dwl-ed]="$E#6abc$E[2J$E[1;50Hz"
    [dwl-el]="$E#6abc$E[2K$E[1;50Hz"
    [dwl-il]="$E#6$E[L$(printf 'y%.0s' $(seq 50))$E[2;1H$(printf 'z%.0s' $(seq 50))"
    [dwl-irm]="$E#6$(printf 'y%.0s' $(seq 45))$E[1;3H$E[4hAB$E[4l"
    [dwl-iso-protected-ed]="$E#6${E}VP${E}W$E[2J$E[1;1H$(printf 'y%.0s' $(seq 60))"
    [dwl-long]="$E#6$(printf '%s' {0..9}{0..9} | head -c 50)"
    [dwl-lr-margins]="$E[?69h$E#6$(printf 'y%.0s' $(seq 50))"
    [dwl-origin-cup]="$E[5;10r$E[?6h$E[1;1H$E#6$E[1;60HQ$E[?6l$E[r"
    [dwl-pending-wrap]="$(printf 'x%.0s' $(seq 80))$E#6Z"
    [dwl-protected-ed]="$E#6$E[1\"q"'P'"$E[0\"q$E[1;1H$E[2J$E[1;1H$(printf 'y%.0s' $(seq 60))"
    [dwl-rep]="$E#6a$E[60b"
    [dwl-ri]="$E#6${E}M$(printf 'y%.0s' $(seq 50))"
    [dwl-ris]="$E#6${E}c$(printf 'y%.0s' $(seq 60))"
    [dwl-scroll]="$E#6dbl"$'\r\n'"$E[24;1H"$'\n'"s"
    [dwl-scrolls-up]="$E[24;1H$E#6"$'\n'"$E[23;1H$(printf 'y%.0s' $(seq 50))"
    [dwl-swl-back]="$E#6$(printf 'y%.0s' $(seq 45))$E#5Q"
    [dwl-tab-back]="$E#6$E[1;70H"$'\t'"Q"
    [dwl-tab]="$E#6a"$'\t\t\t\t\t\t'"b"
    [dwl-then-swl]="$(printf 'x%.0s' $(seq 60))$E#6$E#5"'Z'
    [dwl-wide]="$E#6$(printf '中%.0s' $(seq 25))"
    [esctest-cbt-past-left-margin]="$E[?69h$E[5;30s$E[9;7H$E[2Zx"
    [esctest-cbt-origin-left-margin]="$E[?69h$E[5;30s$E[?6h$E[1;3H$E[5Zx"
    [esctest-nel-outside-margins]="$E[2;5r$E[?69h$E[2;5s$E[5;3Hx$E[5;6H${E}Ey"
    [esctest-curses-fix-tab]="$E[?41h$E[2;1H$(printf '1234567890%.0s' $(seq 8))"$'\t'"1"
    [esctest-xtsave-autowrap]="$E[?7h$E[?7s$E[?7l$E[?7r$E[1;78Hxxxxx"
    [el-in-pending-wrap]="$E[2;1H$(printf 'x%.0s' $(seq 79))+$E[0Kb$E[4;1H$(printf 'y%.0s' $(seq 79))+$E[1Kc"
    [esctest-xtsave-autowrap-off]="$E[?7l$E[?7s$E[?7h$E[?7r$E[1;78Hxxxxx"
)
for f in A 4 C 5 R f Q 9 K Y '`' E 6 %6 Z H 7 =; do
    cases[nrcs-$f]="$N$E($f$printable$E(B"
done
names=("$@")
[ ${#names[@]} -gt 0 ] || mapfile -t names < <(printf '%s\n' "${!cases[@]}" | sort)
differ=0
for name in "${names[@]}"; do
    stream=$dir/stream
    printf '%s' "${cases[$name]}" > "$stream"
    out=$dir/xterm.txt
    rm -f "$out"
    DISPLAY=$display xterm -geometry 80x24 -u8 -xrm "XTerm*printerCommand: cat > $out" \
        -xrm 'XTerm*printAttributes: 0' -xrm 'XTerm*printerExtent: true' -e sh -c "cat '$stream'; printf '\\033[i'; sleep 1" &
    term=$!
    for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.1; done
    sleep 0.2
    kill $term 2>/dev/null || true
    wait $term 2>/dev/null || true
    # xterm's print writes U+FFFF for the second cell of a wide character; blitty's dump
    # writes nothing for it.
    [ -f "$out" ] && sed -i 's/\xef\xbf\xbf//g' "$out"
    "$blitty" replay "$stream" --size 80x24 | grep -v '^cursor:' > "$dir/blitty.txt"
    # Trailing blanks are not compared: xterm's print writes the blanks that ICH, SR and the
    # like put on rows that were empty, where blitty's dump ends the row.
    if cmp -s <(sed 's/ *$//' "$out") <(sed 's/ *$//' "$dir/blitty.txt"); then
        echo "same  $name"
    else
        differ=1
        echo "DIFF  $name"
        echo "      xterm:  $(head -${SHOW_ROWS:-2} "$out" 2>/dev/null | tr '\n' '|')"
        echo "      blitty: $(head -${SHOW_ROWS:-2} "$dir/blitty.txt" | tr '\n' '|')"
    fi
done
exit $differ
