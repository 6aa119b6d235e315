//! A program run on an 80x24 pty whose master the bench reads until the program ends: the
//! reader is the terminal the program writes to, so how it reads (and whether it parses or
//! answers queries) is part of what is measured.

use std::ffi::OsString;
use std::process::Command;
use std::time::{Duration, Instant};

/// What reads the pty's master side.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reader {
    /// Drains and does nothing else.
    Plain,
    /// Drains and answers DSR cursor-position queries (so a writer can tell when all it
    /// wrote was read).
    AnswersDsr,
    /// blitty's engine, hidden: parses everything, answers what the program asks, presents
    /// nothing.
    Engine,
    /// Drains and does nothing else, but waits 1 ms after each wake-up so that the pty's
    /// buffer fills between reads (fewer, larger transfers; on two cores an eager reader and
    /// the writer hand the buffer back and forth in small pieces).
    Batched,
}

/// The ceiling: runs `argv` on a pty of 80x24 whose master is drained with blocking 64 KiB
/// reads and nothing else (no poll, no clock, no parsing) until the child's side closes; a
/// watchdog kills the child after `timeout`. Returns the number of read() calls.
pub(crate) fn drained_blocking(argv: &[String], timeout: Duration) -> Result<u64, String> {
    let argv: Vec<OsString> = argv.iter().map(OsString::from).collect();
    let mut pty = blitty_os::pty::spawn(&argv, blitty_os::pty::Size { cols: 80, rows: 24 })
        .map_err(|e| format!("cannot start {}: {e}", argv[0].to_string_lossy()))?;
    // Blocking reads: the master comes non-blocking from spawn.
    let flags = rustix::fs::fcntl_getfl(&pty.master).map_err(|e| e.to_string())?;
    rustix::fs::fcntl_setfl(&pty.master, flags - rustix::fs::OFlags::NONBLOCK).map_err(|e| e.to_string())?;
    let pid = pty.child.id();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let done = std::sync::Arc::clone(&done);
        std::thread::spawn(move || {
            let deadline = Instant::now() + timeout;
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                if Instant::now() > deadline {
                    let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
                    return true;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            false
        })
    };
    let mut buf = vec![0u8; 1 << 16];
    let mut reads = 0;
    // Ends with EIO (or 0) once every descriptor of the child's side is closed.
    while let Ok(n @ 1..) = rustix::io::read(&pty.master, &mut buf) {
        reads += 1;
        std::hint::black_box(&buf[..n]);
    }
    let _ = pty.child.wait();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    if watchdog.join().unwrap_or(false) {
        return Err("timed out".into());
    }
    Ok(reads)
}

/// Runs `argv` on a pty of 80x24 read by `reader` until the child ends; returns the number of
/// read() calls that returned data.
pub(crate) fn drained_by(argv: &[String], timeout: Duration, reader: Reader) -> Result<u64, String> {
    let argv: Vec<OsString> = argv.iter().map(OsString::from).collect();
    let mut pty = blitty_os::pty::spawn(&argv, blitty_os::pty::Size { cols: 80, rows: 24 })
        .map_err(|e| format!("cannot start {}: {e}", argv[0].to_string_lossy()))?;
    let mut buf = vec![0u8; 1 << 16];
    let deadline = Instant::now() + timeout;
    let mut reads = 0;
    let mut engine = (reader == Reader::Engine).then(|| blitty_vt::Terminal::with_scrollback(80, 24, 1000));
    let mut tail: Vec<u8> = Vec::new();
    loop {
        let mut fds = [rustix::event::PollFd::new(&pty.master, rustix::event::PollFlags::IN)];
        let ts = rustix::event::Timespec { tv_sec: 0, tv_nsec: 50_000_000 };
        let _ = rustix::event::poll(&mut fds, Some(&ts));
        if reader == Reader::Batched {
            std::thread::sleep(Duration::from_millis(1));
        }
        loop {
            match rustix::io::read(&pty.master, &mut buf) {
                Ok(n) if n > 0 => {
                    reads += 1;
                    match reader {
                        Reader::Plain | Reader::Batched => {}
                        Reader::AnswersDsr => {
                            // The query may be split across reads: keep the last 3 bytes.
                            tail.extend_from_slice(&buf[..n]);
                            let queries = tail.windows(4).filter(|w| *w == b"\x1b[6n").count();
                            for _ in 0..queries {
                                let _ = rustix::io::write(&pty.master, b"\x1b[1;1R");
                            }
                            let keep = tail.len().min(3);
                            tail.drain(..tail.len() - keep);
                        }
                        Reader::Engine => {
                            if let Some(t) = engine.as_mut() {
                                t.feed(&buf[..n]);
                                let replies = t.take_replies();
                                if !replies.is_empty() {
                                    let _ = rustix::io::write(&pty.master, &replies);
                                }
                            }
                        }
                    }
                }
                _ => break,
            }
        }
        if let Ok(Some(_)) = pty.child.try_wait() {
            return Ok(reads);
        }
        if Instant::now() > deadline {
            let _ = pty.child.kill();
            return Err("timed out".into());
        }
    }
}
