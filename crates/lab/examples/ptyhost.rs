//! A program on a pty hosted by blitty's engine alone, with no display: what the program
//! writes is fed to the engine, and the engine's answers (DSR, DA, DECRQSS, ...) go back to the
//! program as input. Window operations are allowed (`Screen::allow_window_ops`: DECRQCRA's
//! checksums and the size reports), so that conformance suites that read the screen back
//! through the terminal, as esctest does, can run against the engine. When the program exits
//! the screen is printed.
//!
//! Usage: `cargo run --release -p blitty-lab --example ptyhost -- [--size COLSxROWS] CMD [ARGS]`
//! (default 80x25, esctest's size). `scripts/esctest.sh` runs esctest this way, and
//! `scripts/ucs-detect.sh` runs ucs-detect (character widths measured through CPR).

use std::ffi::OsString;
use std::io::Write;
use std::os::fd::AsFd;
use std::time::Duration;

use blitty_os::pty::{spawn, Size};
use rustix::event::{poll, PollFd, PollFlags, Timespec};

fn main() {
    let mut args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let mut size = Size { cols: 80, rows: 25 };
    if args.first().is_some_and(|a| a == "--size") && args.len() > 1 {
        let spec = args[1].to_string_lossy().into_owned();
        let parsed = spec.split_once('x').and_then(|(c, r)| Some((c.parse().ok()?, r.parse().ok()?)));
        let Some((cols, rows)) = parsed else {
            eprintln!("ptyhost: --size {spec}: expected COLSxROWS, as 80x25");
            std::process::exit(2);
        };
        size = Size { cols, rows };
        args.drain(..2);
    }
    if args.first().is_some_and(|a| a == "--") {
        args.remove(0);
    }
    if args.is_empty() {
        eprintln!("ptyhost: no command (usage: ptyhost [--size COLSxROWS] CMD [ARGS])");
        std::process::exit(2);
    }
    let mut pty = match spawn(&args, size) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("ptyhost: {}: {e}", args[0].to_string_lossy());
            std::process::exit(2);
        }
    };
    let mut term = blitty_vt::Terminal::with_scrollback(size.cols as usize, size.rows as usize, 1000);
    term.screen_mut().allow_window_ops(true);
    // esctest reads one cell's character as its checksum: not negated, no attributes.
    term.screen_mut().set_checksum_extension(3);
    let mut buf = vec![0u8; 65536];
    loop {
        let mut fds = [PollFd::new(&pty.master, PollFlags::IN)];
        let timeout = Timespec::try_from(Duration::from_millis(100)).expect("a short timeout");
        let _ = poll(&mut fds, Some(&timeout));
        match rustix::io::read(&pty.master, &mut buf) {
            Ok(0) => break,
            Ok(n) => {
                term.feed(&buf[..n]);
                let replies = term.take_replies();
                blitty_os::restore::write_all(pty.master.as_fd(), &replies);
            }
            Err(rustix::io::Errno::AGAIN) | Err(rustix::io::Errno::INTR) => {
                if let Ok(Some(_)) = pty.child.try_wait() {
                    break;
                }
            }
            // EIO: the program and everything it started closed the terminal.
            Err(_) => break,
        }
    }
    let _ = pty.child.wait();
    let mut out = std::io::stdout().lock();
    let screen = term.screen();
    for y in 0..screen.rows() {
        let _ = writeln!(out, "{}", screen.row_text(y));
    }
}
