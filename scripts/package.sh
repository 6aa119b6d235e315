#!/usr/bin/env bash
# Builds blitty's Debian package and prints its path: the binaries (blitty, and blitty-lab, which
# `blitty bench` runs), the manual pages (`blitty man --dir`, gzipped) and the bash, zsh and fish
# completion scripts (`blitty completions`), both made by the blitty just built into
# TARGET/PROFILE/package/, the desktop entry of `blitty window` (packaging/) and the docs, put
# together by cargo-deb (`[package.metadata.deb]` in crates/blitty/Cargo.toml).
#
# Usage: scripts/package.sh [--profile NAME] [--no-build]
#   --profile NAME  the cargo profile to build and package (default: release)
#   --no-build      package the profile's binaries as they are (CI packages the `tests` build
#                   its tests ran: building it again for the package alone would rebuild crates
#                   whose features differ without the tests)
# Needs cargo-deb (scripts/setup.sh installs it). Install the result with `sudo dpkg -i FILE.deb`.
set -euo pipefail
cd "$(dirname "$0")/.."
profile=release
build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0; shift ;;
    --profile) profile=${2:?--profile needs a name}; shift 2 ;;
    --profile=*) profile=${1#*=}; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "package: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
if [ "$profile" = dev ] || [ "$profile" = debug ]; then
  echo "package: the dev profile is not packaged (cargo-deb refuses it): use release" >&2
  exit 2
fi
if ! cargo deb --version >/dev/null 2>&1; then
  echo "package: cargo-deb is not installed (scripts/setup.sh installs it, or: cargo install cargo-deb --locked)" >&2
  exit 2
fi

target=${CARGO_TARGET_DIR:-}
if [ -z "$target" ]; then
  target=$(cargo metadata --no-deps --format-version 1 | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
fi
bin="$target/$profile"
if [ "$build" = 1 ]; then
  cargo build --profile "$profile" -p blitty -p blitty-lab
fi
for b in blitty blitty-lab; do
  [ -x "$bin/$b" ] || { echo "package: $bin/$b is not built (cargo build --profile $profile -p $b)" >&2; exit 2; }
done
out="$bin/package"
rm -rf "$out"
mkdir -p "$out/man/man1" "$out/completions"
"$bin/blitty" man --dir "$out/man/man1"
gzip -9n "$out"/man/man1/* "$out"/man/man5/*
"$bin/blitty" completions bash >"$out/completions/blitty.bash"
"$bin/blitty" completions zsh >"$out/completions/_blitty"
"$bin/blitty" completions fish >"$out/completions/blitty.fish"

mkdir -p "$target/debian"
# cargo-deb prints the package's path last.
deb=$(cargo deb -p blitty --no-build --profile "$profile" --output "$target/debian" | tail -n 1)
[ -f "$deb" ] || { echo "package: cargo deb made no package ($deb)" >&2; exit 1; }
echo "$deb"
