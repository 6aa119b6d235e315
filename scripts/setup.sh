#!/usr/bin/env bash
# Installs what blitty's build, tests and benchmarks need on a fresh Debian machine:
# tmux and script (end-to-end tests, corpus recording, benchmarks), libvterm (a peer engine in
# the benchmark), pkg-config (to find it), GNU screen, Xvfb and xterm (host terminals in the
# benchmark), lrzsz (a real XMODEM receiver for the serial tests), fontconfig, DejaVu Sans
# Mono and two fallback fonts (the pixel renderer), xclip (the window's clipboard tests),
# libxkbcommon0, xkb-data, libx11-data and x11-xkb-utils (the window's keyboard and its layout
# tests), man-db and dpkg-dev (the manual pages' tests, and the Debian package: `man -w`, and
# dpkg-shlibdeps for its dependencies), the rustfmt and clippy components, and cargo-deb
# (scripts/package.sh).
set -euo pipefail
need=()
command -v tmux >/dev/null || need+=(tmux)
command -v script >/dev/null || need+=(bsdutils)
command -v pkg-config >/dev/null || need+=(pkg-config)
pkg-config --exists vterm 2>/dev/null || need+=(libvterm-dev)
# The end-to-end tests drive these programs.
command -v vim >/dev/null || need+=(vim)
command -v less >/dev/null || need+=(less)
command -v pgrep >/dev/null || need+=(procps)
command -v tput >/dev/null || need+=(ncurses-bin)
# lrzsz's rx receives the serial console's XMODEM sends in the tests.
command -v rx >/dev/null || need+=(lrzsz)
# picocom and tio: real serial programs as peers in `blitty bench ports`.
command -v picocom >/dev/null || need+=(picocom)
command -v tio >/dev/null || need+=(tio)
command -v screen >/dev/null || need+=(screen)
command -v Xvfb >/dev/null || need+=(xvfb)
command -v xterm >/dev/null || need+=(xterm)
# st, a peer in `blitty bench window` (alacritty and kitty are measured when installed: they
# bring OpenGL and much else, left to the user).
command -v stterm >/dev/null || need+=(stterm)
# xclip reads and sets the X selections in the window's clipboard tests.
command -v xclip >/dev/null || need+=(xclip)
# The window's keyboard: libxkbcommon (loaded when a window starts: blitty links only the C
# library), the layouts it compiles (xkb-data), the compose tables of dead keys
# (libx11-data), and setxkbmap for the layout tests.
ldconfig -p 2>/dev/null | grep -q 'libxkbcommon.so.0 ' || need+=(libxkbcommon0)
[ -d /usr/share/X11/xkb/symbols ] || need+=(xkb-data)
[ -f /usr/share/X11/locale/compose.dir ] || need+=(libx11-data)
command -v setxkbmap >/dev/null || need+=(x11-xkb-utils)
# The pixel renderer's font (blitty replay --png, and its tests) and fontconfig to find it.
command -v fc-match >/dev/null || need+=(fontconfig)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ] || need+=(fonts-dejavu-core)
# Fallback fonts for what DejaVu Sans Mono lacks: CJK (WenQuanYi Zen Hei, 7 MB; Noto Sans CJK
# would be 56 MB) and emoji and symbols with outlines (Symbola).
fc-list :family='WenQuanYi Zen Hei' | grep -q . || need+=(fonts-wqy-zenhei)
fc-list :family=Symbola | grep -q . || need+=(fonts-symbola)
# python3 plays the hostile programs and the fake server of another user in the server's tests
# (run by setpriv as nobody, so the system's /usr/bin/python3, not a user's own).
[ -x /usr/bin/python3 ] || need+=(python3)
# pkill ends the session servers the tests start; setpriv runs a client as another user.
command -v setpriv >/dev/null || need+=(util-linux)
# The manual pages are rendered by man (groff) in their tests; the package is checked with
# `man -w` once installed, and cargo-deb finds its dependencies with dpkg-shlibdeps.
command -v man >/dev/null || need+=(man-db)
command -v dpkg-shlibdeps >/dev/null || need+=(dpkg-dev)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${need[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
if command -v rustup >/dev/null; then
  rustup component add rustfmt clippy >/dev/null 2>&1 || true
fi
# cargo-deb makes the Debian package (scripts/package.sh). A pinned version, built once (a minute
# and a half on 2 cores) and kept in ~/.cargo/bin.
if ! cargo deb --version >/dev/null 2>&1; then
  echo "setup: installing cargo-deb"
  cargo install cargo-deb --version 3.8.0 --locked --quiet
fi
