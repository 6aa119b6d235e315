#!/usr/bin/env bash
# Records real programs' output under a pty, as test streams for the engine.
# Each program runs in `script` inside a real tmux (80x24, TERM=xterm-256color). When it is
# idle, tmux's own rendering of the pane and its cursor are saved beside the stream
# (NAME.tmux.txt): an independent oracle for what the stream should draw.
# Usage: scripts/record-corpus.sh [OUTDIR]   (needs tmux, script, vim, less, htop, dialog, python3,
# man, git, top, and for the eleventh session's eight mc, nano, emacs-nox, tig, w3m, ncdu, whiptail, screen)
set -euo pipefail
out=${1:-corpus}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
work=$(mktemp -d)
trap 'tmux -L rec kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
sample="$work/sample.txt"
seq 1 300 | sed 's/^/line number /' > "$sample"
cp "$(dirname "$0")/record-corpus.sh" "$work/edit-me.sh"
for i in $(seq 1 6); do
  printf '%s 日本語のテキスト 中文字符 한국어 e\xcc\x81 n\xcc\x83 a\xcc\x8a 😀🎉 ok\n' "$i"
  printf 'wide at the edge: %61s字字\n' "x"
done > "$work/unicode.txt"
# Lines of mixed words (some Latin-1, some CJK, some wider than the screen, tabs): text for
# the split, scrolled and sideways views below. The same every time (seeded).
python3 -c "
import random
random.seed(3)
for i in range(200):
    print(('\t' if i%5==0 else '') + ' '.join(random.choice(['alpha','beta','gamma','日本','é','delta-epsilon','x'*random.randint(1,40)]) for _ in range(random.randint(1,30))))
" > "$work/long.txt"

# record NAME 'COMMAND' KEYS... : run COMMAND, type each KEYS group (tmux send-keys words),
# pausing between groups, then save the stream and tmux's screen.
record() {
  local name=$1 cmd=$2; shift 2
  local raw="$work/$name.typescript"
  tmux -L rec kill-server 2>/dev/null || true
  tmux -L rec -f /dev/null new-session -d -x 80 -y 24 \
    "env TERM=xterm-256color LANG=C.UTF-8 PS1='\$ ' HOME=$work script -qf -c \"$cmd\" $raw; sleep 30"
  tmux -L rec set-option -g status off
  sleep 1.5
  for keys in "$@"; do
    # A group is tmux send-keys arguments: key names, or -l 'literal text'.
    eval tmux -L rec send-keys "$keys"
    sleep 0.7
  done
  sleep 1
  { tmux -L rec capture-pane -p; tmux -L rec display -p 'cursor: #{cursor_y} #{cursor_x}'; } > "$out/$name.tmux.txt"
  # Drop script's header line ("Script started on ...") and, if the program ended, its footer
  # ("Script done on ..."); the rest is exactly the program's output.
  python3 - "$raw" "$out/$name.raw" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
data = data[data.index(b'\n') + 1:]
end = data.rfind(b'\nScript done on ')
if end >= 0:
    data = data[:end]
open(sys.argv[2], 'wb').write(data)
PY
  tmux -L rec kill-server 2>/dev/null || true
}

record ls "ls --color=always -la /usr/lib/x86_64-linux-gnu | head -60"
record vim "vim -u NONE -N -c 'syntax on' $work/edit-me.sh" "G" "o" "-l 'echo hello from vim'" "Escape" "gg" "-l /tmux" "Enter" "dd" "u"
record less "less $sample" "Space" "Space" "b" "-l '/number 77'" "Enter" "j" "j"
record unicode "cat $work/unicode.txt"
record htop "htop" "Down" "Down" "F6"
record dialog "dialog --menu 'Pick one' 15 50 5 a Apple b Banana c Cherry d 'Dragon fruit' e Elderberry f Fig" "Down" "Down"
record bash "bash --norc -i" "-l 'echo one two three'" "Enter" "-l 'ls --color=always /usr'" "Enter" \
  "-l 'echo typing with edits'" "C-a" "M-f" "M-f" "C-k" "Enter" "Up" "Up" "C-r" "-l one" "Escape" "C-e" "-l ' four'" "Enter"
# Test streams only (the engine must draw what tmux drew; `bench engine`'s corpus is the seven
# above, kept as they are so that its figures stay comparable between runs).
record vimsplit "vim -u NONE -N -c 'syntax on' -c 'set nu' $work/long.txt" "-l ':vsplit'" "Enter" "-l ':split'" "Enter" "G" "C-w" "l" "50%" "-l 'ix'" "Escape"
record less-sideways "less -S $work/long.txt" "Right" "Right" "Space" "Left"
record completion "bash --norc -i" "-l 'ls /usr/'" "Tab" "Tab" "-l 'l'" "Tab" "Tab" "C-c" "-l 'printf \"%s\\n\" {1..40}'" "Enter"
record python "python3 -q" "-l 'for i in range(30): print(i, \"x\"*i)'" "Enter" "Enter" "-l 'print(\"日本語\"*20)'" "Enter" "Up" "Up"
# Added 2026-11-27 (tests only): man, git's coloured graph and diff through its pager's head,
# top refreshing, vim's help split, vim editing wide and accented text, less -R over colour,
# bash echoing a wide line that wraps and SGR from printf. Compared with XTerm 379 too:
# scripts/xterm-sweep.py --kind attrs --corpus corpus.
record manls "man ls" "Space" "Space" "-l '/sort'" "Enter" "n"
record gitlog "git -C $root log --graph --color=always --stat -n 12 | head -100"
record gitdiff "git -C $root show --color=always 0fee375 | head -120"
record top "top -d 0.5" "Down" "-l M" "-l c"
record vimhelp "vim -u NONE -N -c 'help' -c 'only'" "C-f" "C-f" "-l '/window'" "Enter" "-l ':vsplit'" "Enter"
record vimuni "vim -u NONE -N $work/unicode.txt" "-l 'A extra 日本'" "Escape" "j" "-l 'x'" "G" "-l 'o€ñ漢字😀'" "Escape"
record lesscolour "ls --color=always -la /usr/bin | less -R" "Space" "G" "g"
record bashwide "bash --norc -i" "-l 'echo 日本語のテキストと中文字符が一行に長く長く続いてそして折り返す行になりますよ、まだまだ続きます'" "Enter" "-l 'printf \"\\\\e[7mrev\\\\e[m \\\\e[1;31mred\\\\e[m \\\\e[38;5;208morange\\\\e[m\\\\n\"'" "Enter" "C-l"
# Added 2026-11-27, eleventh session (tests only): Midnight Commander's two panels in line
# drawing, nano's help, emacs split over wide text with a buffer list, tig's log and diff, w3m
# paging and searching, ncdu's bars, htop in monochrome (-C) with its setup screen, and
# whiptail's checklist. Needs mc, nano, emacs-nox, tig, w3m, ncdu, whiptail (apt-get).
mkdir -p "$work/tree/a/b" && seq 1 5000 > "$work/tree/a/big.txt" && cp "$work/unicode.txt" "$work/long.txt" "$work/tree/"
record mc "mc -d $work/tree $work/tree/a" "Down" "Down" "Tab" "F3" "-l q" "F9" "Right" "Escape" "Escape"
record nano "nano $work/long.txt" "C-v" "-l 'typed 日本 é'" "C-w" "-l delta" "Enter" "M-u" "C-g"
record emacs "emacs -nw -Q $work/unicode.txt" "C-x" "2" "C-v" "-l 'more 字'" "M-x" "-l 'list-buff'" "Tab" "Enter"
record tig "tig -C $root" "Down" "Down" "Enter" "Down"
record w3m "w3m $work/long.txt" "Space" "-l '/gamma'" "Enter"
record ncdu "ncdu -x /usr/share/doc" "Down" "Down" "Enter" "Down"
record htopcol "htop -C" "F2" "Down" "Escape" "F5"
record whiptail "whiptail --checklist 'Choose' 15 60 6 a Apple on b 'Banana 日本' off c Cherry on" "Down" "Space" "Tab"
# tmux and GNU screen as programs inside the recording tmux: split panes and regions (both set
# scroll regions), a status line, a new window.
record tmuxin "tmux -L inner -f /dev/null new-session 'seq 1 200; bash --norc -i'" "C-b" "-l '%'" "-l 'ls -la --color=always /usr'" "Enter" "C-b" "-l '\"'" "-l 'printf \"\\\\e[1;32mgreen\\\\e[m 日本語\\\\n\"'" "Enter" "C-b" "o" "-l 'seq 1 50'" "Enter"
record screenin "screen -q -S inner bash --norc -i" "-l 'seq 1 100'" "Enter" "C-a" "S" "C-a" "Tab" "C-a" "c" "-l 'ls --color=always /'" "Enter"
tmux -L inner kill-server 2>/dev/null || true; screen -S inner -X quit 2>/dev/null || true
echo "recorded into $out:"; ls -la "$out"
