# Sourced by xterm-screens.sh and vttest-screens.sh: checks that the tools named in TOOLS are
# installed (NAME is the script's, for the message), builds blitty ($blitty), makes a temporary
# directory ($dir) and starts an Xvfb of its own ($display), both removed on exit.
for tool in $TOOLS; do
    command -v "$tool" >/dev/null || { echo "$NAME: $tool is not installed ($HINT)" >&2; exit 2; }
done
cargo build --release -p blitty >/dev/null 2>&1 || cargo build --release -p blitty
blitty=$PWD/target/release/blitty
dir=$(mktemp -d)
display=:$((90 + RANDOM % 100))
Xvfb "$display" -screen 0 1600x1200x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -rf "$dir"' EXIT
sleep 0.5
