//! A pane: what a source (a program on a pty, a serial line) writes, parsed by its own engine,
//! with everything that follows from it written once for every front end: the lossless log,
//! the engine's answers queued for the source (behind the keys, bounded: [`ProgramInput`]),
//! the bell, the clipboard writes, the synchronized-output hold, and the output a turn could
//! not parse, held for the next one.
//!
//! `blitty run`, `blitty serial` and every vty of the session server are panes; they differ in
//! how the bytes arrive (a reader thread, a serial line read as it comes, a pty read without
//! blocking), never in what is done with them.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::BorrowedFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use blitty_os::time::timestamp;
use blitty_vt::{Terminal, WORK_PER_TURN};
use rustix::io::Errno;

use crate::queue::ProgramInput;

/// How long a frame may be held back while the program asks for synchronized output (DEC mode
/// 2026): a program that sets the mode and never resets it is shown anyway after this.
pub const SYNC_LIMIT: Duration = Duration::from_millis(150);

/// The pane's log: every byte the source wrote, in order, as it was read; or, for a serial
/// capture with time stamps, each line after the time it started to arrive.
pub struct Log {
    file: File,
    pub path: PathBuf,
    timestamps: bool,
    at_line_start: bool,
    buf: Vec<u8>,
}

impl Log {
    /// Opens `path` for appending (made if missing): an earlier capture is never lost by
    /// starting again.
    pub fn append(path: &Path, timestamps: bool) -> io::Result<Log> {
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Log::with_file(file, path, timestamps))
    }

    /// Creates (or truncates) `path`: `blitty run --log` writes one program's output.
    pub fn create(path: &Path) -> io::Result<Log> {
        Ok(Log::with_file(File::create(path)?, path, false))
    }

    pub fn with_file(file: File, path: &Path, timestamps: bool) -> Log {
        Log { file, path: path.to_path_buf(), timestamps, at_line_start: true, buf: Vec::new() }
    }

    /// Writes `bytes` straight to the file (no user-space buffer: what was read is in the
    /// kernel's hands before it is shown).
    pub fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        if !self.timestamps {
            return self.file.write_all(bytes);
        }
        self.buf.clear();
        let stamp = timestamp(SystemTime::now());
        for &b in bytes {
            if self.at_line_start {
                self.buf.extend_from_slice(stamp.as_bytes());
            }
            self.buf.push(b);
            self.at_line_start = b == b'\n';
        }
        (&self.file).write_all(&self.buf)
    }

    /// A note of blitty's own (a device that went away), on a line of its own.
    pub fn note(&mut self, text: &str) -> io::Result<()> {
        let mut line = String::new();
        if !self.at_line_start {
            line.push('\n');
        }
        line.push_str(&format!("[blitty {}: {text}]\n", timestamp(SystemTime::now()).trim_end()));
        self.at_line_start = true;
        (&self.file).write_all(line.as_bytes())
    }
}

/// What the source's output did besides changing the screen, since it was last asked.
#[derive(Default, Debug)]
pub struct Happened {
    /// The program rang the bell (once however many came: a flood of BELs is one ring).
    pub bell: bool,
    /// The OSC 52 for the displays' terminals to set their clipboard, built by blitty from the
    /// decoded text (never the program's bytes), as tmux's `set-clipboard external` does.
    pub clipboard: Option<Vec<u8>>,
}

/// How a read of the source ended.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Read {
    /// Bytes parsed (held-back bytes included).
    pub parsed: usize,
    /// The source has gone: end of file, or an error.
    pub gone: bool,
}

pub struct Pane {
    pub term: Terminal,
    /// Keys and answers waiting for the source.
    pub input: ProgramInput,
    pub log: Option<Log>,
    /// Bumped whenever the screen may have changed: a display compares it with the one it drew.
    pub generation: u64,
    /// Output read and not parsed yet (a turn's work ran out, or the source's input is full),
    /// from `held_at` on: parsed first in the next turn.
    held: Vec<u8>,
    held_at: usize,
    bells_seen: u64,
    /// Since when the program has held synchronized output.
    sync_since: Option<Instant>,
    /// Nobody reads the answers any more (the program ended): they are dropped.
    pub deaf: bool,
}

impl Pane {
    pub fn new(term: Terminal, log: Option<Log>) -> Pane {
        Pane {
            term,
            input: ProgramInput::default(),
            log,
            generation: 1,
            held: Vec::new(),
            held_at: 0,
            bells_seen: 0,
            sync_since: None,
            deaf: false,
        }
    }

    /// Whether output read in an earlier turn waits to be parsed.
    pub fn held_back(&self) -> bool {
        self.held_at < self.held.len()
    }

    /// Whether the source's output may be read: not while answers fill the program's input
    /// (see [`ProgramInput`]).
    pub fn takes_output(&self) -> bool {
        self.input.takes_output()
    }

    /// Appends `bytes`, as read, to the log. A log that cannot be written is closed and said
    /// on the screen: the error is returned for a front end that ends on it.
    pub fn log(&mut self, bytes: &[u8]) -> io::Result<()> {
        let Some(log) = self.log.as_mut() else { return Ok(()) };
        log.write(bytes).inspect_err(|e| {
            let note = format!("\r\n[blitty: the log cannot be written: {e}; logging stopped]\r\n");
            self.term.feed(note.as_bytes());
            self.log = None;
            self.generation += 1;
        })
    }

    /// Parses as much of `bytes` as one piece of the engine's work allows ([`WORK_PER_TURN`]),
    /// and queues the answers. Returns the bytes parsed: less than all when the work ran out,
    /// or when the answers now fill the program's input (the rest waits for it to read).
    pub fn parse(&mut self, bytes: &[u8]) -> usize {
        let n = self.term.feed_bounded(bytes, WORK_PER_TURN);
        if n > 0 {
            self.generation += 1;
        }
        if self.deaf {
            drop(self.term.take_replies());
        } else {
            self.input.answers(&mut self.term);
        }
        n
    }

    /// Keeps `rest` for the next turn (parsed by [`Pane::parse_held`] before anything new).
    pub fn hold(&mut self, rest: &[u8]) {
        self.held.extend_from_slice(rest);
    }

    /// Parses what an earlier turn held back, within one piece of work. Returns the bytes
    /// parsed and whether more may be parsed this turn (nothing left, the input not full).
    pub fn parse_held(&mut self) -> (usize, bool) {
        if !self.held_back() {
            return (0, true);
        }
        let held = std::mem::take(&mut self.held);
        let n = self.parse(&held[self.held_at..]);
        self.held = held;
        self.held_at += n;
        if !self.held_back() {
            self.held.clear();
            self.held_at = 0;
        }
        (n, !self.held_back() && self.takes_output())
    }

    /// Reads `fd` without blocking and parses what it has: what an earlier turn held back
    /// first, then reads of `buf`'s size until the source is empty, `budget` bytes were read or
    /// `time` has passed, each read logged as it is read. The engine's work is bounded per
    /// read (see [`Pane::parse`]); what a read could not parse is held for the next turn, and no
    /// read follows it. `short_is_empty`: a short read took all the source had (a serial line:
    /// no second read() to be told so; a pty is read until it says so, which costs less than a
    /// turn of polling in a flood).
    pub fn read_fd(
        &mut self,
        fd: BorrowedFd<'_>,
        buf: &mut [u8],
        budget: usize,
        time: Duration,
        short_is_empty: bool,
    ) -> Read {
        let started = Instant::now();
        let (mut parsed, go_on) = self.parse_held();
        let mut out = Read { parsed, gone: false };
        if !go_on {
            return out;
        }
        let mut taken = 0;
        while taken < budget && started.elapsed() < time {
            match rustix::io::read(fd, &mut buf[..]) {
                Ok(0) => {
                    out.gone = true;
                    break;
                }
                Ok(n) => {
                    taken += n;
                    let _ = self.log(&buf[..n]);
                    let done = self.parse(&buf[..n]);
                    parsed += done;
                    if done < n {
                        self.hold(&buf[done..n]);
                        break;
                    }
                    if !self.takes_output() || (short_is_empty && n < buf.len()) {
                        break;
                    }
                }
                Err(Errno::AGAIN) => break,
                Err(Errno::INTR) => {}
                Err(_) => {
                    out.gone = true;
                    break;
                }
            }
        }
        out.parsed = parsed;
        out
    }

    /// Words of blitty's own on the pane's screen (a device that went away, came back).
    pub fn note(&mut self, text: &str) {
        self.term.feed(text.as_bytes());
        self.generation += 1;
    }

    /// What happened besides the screen since the last call. The clipboard write is taken
    /// whether or not it is passed on (`clipboard` false: the config file says no).
    pub fn happened(&mut self, clipboard: bool) -> Happened {
        let mut h = Happened::default();
        let bells = self.term.screen().bells();
        if bells != self.bells_seen {
            self.bells_seen = bells;
            h.bell = true;
        }
        if let Some(c) = self.term.screen_mut().take_clipboard() {
            if clipboard {
                h.clipboard = Some(clipboard_write(&c));
            }
        }
        h
    }

    /// Until when the current hold lasts, without starting one (for the loop's wake-up).
    pub fn sync_until(&self) -> Option<Instant> {
        let since = self.sync_since?;
        self.term.screen().modes().synchronized_output.then_some(since + SYNC_LIMIT)
    }

    /// Until when a frame of this pane is held for synchronized output, if it is now: while
    /// the program has DEC mode 2026 set, for at most [`SYNC_LIMIT`] from when it set it.
    pub fn sync_hold(&mut self, now: Instant) -> Option<Instant> {
        if !self.term.screen().modes().synchronized_output {
            self.sync_since = None;
            return None;
        }
        let until = *self.sync_since.get_or_insert(now) + SYNC_LIMIT;
        (now < until).then_some(until)
    }
}

/// The OSC 52 that asks a terminal to set its clipboard to `c`'s text.
pub fn clipboard_write(c: &blitty_vt::term::Clipboard) -> Vec<u8> {
    format!("\x1b]52;{};{}\x07", c.selections, blitty_vt::term::base64_encode(&c.text)).into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_is_held_while_the_program_asks_and_no_longer_than_the_limit() {
        let mut p = Pane::new(Terminal::new(10, 3), None);
        let t0 = Instant::now();
        assert_eq!(p.sync_hold(t0), None);
        p.parse(b"\x1b[?2026hhalf");
        assert_eq!(p.sync_hold(t0), Some(t0 + SYNC_LIMIT));
        assert_eq!(p.sync_hold(t0 + SYNC_LIMIT / 2), Some(t0 + SYNC_LIMIT), "the hold counts from its start");
        assert_eq!(p.sync_hold(t0 + SYNC_LIMIT), None, "shown after the limit");
        p.parse(b" rest\x1b[?2026l");
        assert_eq!(p.sync_hold(t0 + SYNC_LIMIT), None);
        p.parse(b"\x1b[?2026h");
        let t1 = t0 + SYNC_LIMIT * 3;
        assert_eq!(p.sync_hold(t1), Some(t1 + SYNC_LIMIT), "a new hold starts its own time");
    }

    #[test]
    fn answers_are_queued_for_the_source_and_dropped_once_nobody_reads() {
        let mut p = Pane::new(Terminal::new(10, 3), None);
        p.parse(b"\x1b[6n");
        assert_eq!(p.input.unsent(), b"\x1b[1;1R");
        p.input.clear();
        p.deaf = true;
        p.parse(b"\x1b[6n");
        assert!(p.input.is_empty());
    }

    #[test]
    fn bells_ring_once_a_look_and_clipboard_writes_only_when_allowed() {
        let mut p = Pane::new(Terminal::new(10, 3), None);
        p.parse(b"\x07\x07\x1b]52;c;aGk=\x07");
        let h = p.happened(true);
        assert!(h.bell);
        assert_eq!(h.clipboard.as_deref(), Some(&b"\x1b]52;c;aGk=\x07"[..]));
        let h = p.happened(true);
        assert!(!h.bell && h.clipboard.is_none());
        p.parse(b"\x1b]52;c;aGk=\x07");
        assert!(p.happened(false).clipboard.is_none());
    }
}
