//! The host terminal: raw mode, its size, and a restore that always runs — on return, on a
//! signal that ends blitty, from the panic hook, and on an abort ([`crate::restore`]).

use std::io;

use rustix::termios::{tcgetattr, tcgetwinsize, tcsetattr, OptionalActions, Termios};

use crate::pty::Size;
use crate::restore::HostGuard;

/// The host terminal in raw mode; dropping it restores the host (see [`crate::restore`]: the
/// same restore runs from the panic hook and, with the constant reset bytes, on an abort).
pub struct RawMode {
    guard: HostGuard,
    /// The raw settings blitty put on the terminal.
    raw: Termios,
}

impl RawMode {
    /// Puts standard input's terminal in raw mode.
    pub fn enter() -> io::Result<RawMode> {
        let stdin = rustix::stdio::stdin();
        let termios = tcgetattr(stdin)?;
        let mut raw = termios.clone();
        raw.make_raw();
        let guard = HostGuard::save(termios);
        tcsetattr(stdin, OptionalActions::Now, &raw)?;
        Ok(RawMode { guard, raw })
    }

    /// Replaces the bytes written when the host is restored normally (they must end every mode
    /// blitty may have turned on: [`blitty_present::ansi::RESET_HOST`]).
    pub fn set_leave(&self, leave: Vec<u8>) {
        self.guard.set_leave(leave);
    }

    /// A frame changed the host's cursor shape: a panic or an abort gives it back too.
    pub fn cursor_changed(&self) {
        self.guard.cursor_changed();
    }

    /// Gives the host back before blitty stops (SIGTSTP): `leave` (which must contain
    /// RESET_HOST), then the termios as blitty found them.
    pub fn suspend(&self, leave: Vec<u8>) {
        self.guard.release(leave);
    }

    /// Takes the host back after [`Self::suspend`]. Its settings now are the ones given back at
    /// the end: the user may have changed them (`stty`) while blitty was stopped.
    pub fn resume(&mut self) -> io::Result<()> {
        let stdin = rustix::stdio::stdin();
        let termios = tcgetattr(stdin)?;
        let mut raw = termios.clone();
        raw.make_raw();
        self.guard.take_back(termios);
        tcsetattr(stdin, OptionalActions::Now, &raw)?;
        self.raw = raw;
        Ok(())
    }

    /// Raw mode again after a stop blitty could not see coming (SIGSTOP): the shell that had the
    /// terminal meanwhile may have put its own settings on it. What is given back at the end
    /// stays the settings blitty found at the start.
    pub fn reapply(&self) -> io::Result<()> {
        tcsetattr(rustix::stdio::stdin(), OptionalActions::Now, &self.raw)?;
        Ok(())
    }
}

/// Whether blitty's process group is the terminal's foreground one, which alone may set its
/// modes and read keys (a job continued with `bg` is not). A terminal that is not blitty's
/// controlling terminal has no job control: blitty may always use it.
pub fn foreground() -> bool {
    match rustix::termios::tcgetpgrp(rustix::stdio::stdin()) {
        Ok(group) => group == rustix::process::getpgrp(),
        Err(_) => true,
    }
}

/// The host terminal opened again for writing frames, non-blocking. Opening it by name gives
/// blitty an open file description of its own, so O_NONBLOCK here does not leak to the shell
/// that shares standard output. Falls back to a duplicate of standard output (blocking).
pub fn frame_output() -> io::Result<std::os::fd::OwnedFd> {
    let stdout = rustix::stdio::stdout();
    if let Ok(name) = rustix::termios::ttyname(stdout, Vec::new()) {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::WRONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        if let Ok(fd) = rustix::fs::open(name.as_c_str(), flags, Mode::empty()) {
            return Ok(fd);
        }
    }
    Ok(rustix::io::fcntl_dupfd_cloexec(stdout, 3)?)
}

/// Whether standard input and output are both terminals.
pub fn is_terminal() -> bool {
    rustix::termios::isatty(rustix::stdio::stdin()) && rustix::termios::isatty(rustix::stdio::stdout())
}

/// The host terminal's size (80x24 when it does not say), at most the engine's largest
/// screen (`MAX_COLS` x `MAX_ROWS`): a larger host shows blitty's screen in its top-left part,
/// and the program is told the size it is really drawn at.
pub fn size() -> Size {
    use blitty_vt::term::{MAX_COLS, MAX_ROWS};
    match tcgetwinsize(rustix::stdio::stdout()) {
        Ok(w) if w.ws_col > 0 && w.ws_row > 0 => {
            Size { cols: w.ws_col.min(MAX_COLS as u16), rows: w.ws_row.min(MAX_ROWS as u16) }
        }
        _ => Size { cols: 80, rows: 24 },
    }
}

/// How long blitty waits for the terminal to answer its colour queries at the start.
pub const COLOUR_QUERY_WAIT: std::time::Duration = std::time::Duration::from_millis(300);

/// The terminal's default foreground and background, as it answers OSC 10 and OSC 11, so
/// that a program asking blitty (vim and neovim choose a light or dark theme by OSC 11) gets
/// the colours the user sees. The queries are followed by DA1, which every terminal answers:
/// its answer ends the wait at once on a terminal that does not know OSC 10/11. Called in raw
/// mode before the program starts; bytes that are not answers (keys typed meanwhile) are
/// returned to be sent to the program, with whether the terminal answered in time (if not, its
/// answers may still come, and the caller takes them out of the keys: `parse_colour_answers`).
pub fn query_colours(wait: std::time::Duration) -> (Option<(blitty_vt::Rgb, blitty_vt::Rgb)>, Vec<u8>, bool) {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    let stdout = rustix::stdio::stdout();
    let stdin = rustix::stdio::stdin();
    if rustix::io::write(stdout, b"\x1b]10;?\x1b\\\x1b]11;?\x1b\\\x1b[c").is_err() {
        return (None, Vec::new(), true);
    }
    let deadline = std::time::Instant::now() + wait;
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    while !has_da1_answer(&got) {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            break;
        }
        let ts = Timespec { tv_sec: left.as_secs() as i64, tv_nsec: left.subsec_nanos() as i64 };
        let mut fds = [PollFd::new(&stdin, PollFlags::IN)];
        match poll(&mut fds, Some(&ts)) {
            Ok(0) => break,
            Ok(_) => match rustix::io::read(stdin, &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            },
            Err(rustix::io::Errno::INTR) => {}
            Err(_) => break,
        }
    }
    let answered = has_da1_answer(&got);
    let (colours, typed) = parse_colour_answers(&got);
    (colours, typed, answered)
}

fn has_da1_answer(b: &[u8]) -> bool {
    (0..b.len()).any(|i| da1_answer_len(&b[i..]).is_some())
}

/// The length of the DA1 answer (`ESC [ ? Ps ; ... c`) at the front of `b`, if one is there.
fn da1_answer_len(b: &[u8]) -> Option<usize> {
    let params = b.strip_prefix(b"\x1b[?")?;
    let j = params.iter().position(|&c| !(c.is_ascii_digit() || c == b';'))?;
    (params[j] == b'c').then_some(3 + j + 1)
}

/// Takes the OSC 10/11 and DA1 answers out of `b`: the two colours if both came, and the
/// other bytes.
pub fn parse_colour_answers(b: &[u8]) -> (Option<(blitty_vt::Rgb, blitty_vt::Rgb)>, Vec<u8>) {
    let (mut fg, mut bg) = (None, None);
    let mut rest = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"\x1b]1") {
            // OSC 10/11 ; spec, ended by BEL or ST.
            let end = b[i..].iter().position(|&c| c == 0x07).map(|p| (p, 1));
            let st = b[i..].windows(2).position(|w| w == b"\x1b\\").map(|p| (p, 2));
            let end = match (end, st) {
                (Some(a), Some(s)) => Some(if a.0 < s.0 { a } else { s }),
                (a, s) => a.or(s),
            };
            if let Some((len, term)) = end {
                let body = &b[i + 2..i + len];
                if let Some(spec) = body.strip_prefix(b"10;") {
                    fg = blitty_vt::term::parse_color(spec);
                } else if let Some(spec) = body.strip_prefix(b"11;") {
                    bg = blitty_vt::term::parse_color(spec);
                }
                i += len + term;
                continue;
            }
        }
        if let Some(n) = da1_answer_len(&b[i..]) {
            i += n;
            continue;
        }
        rest.push(b[i]);
        i += 1;
    }
    (fg.zip(bg), rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_answers_are_taken_out_and_keys_kept() {
        let answers = b"x\x1b]10;rgb:0000/0000/0000\x1b\\\x1b]11;rgb:ffff/ffff/ffff\x07y\x1b[?62;22cz";
        let (colours, rest) = parse_colour_answers(answers);
        assert_eq!(colours, Some(([0, 0, 0], [255, 255, 255])));
        assert_eq!(rest, b"xyz");
        assert!(has_da1_answer(answers));
        // A terminal that knows no OSC 10/11 answers only DA1.
        let (colours, rest) = parse_colour_answers(b"\x1b[?1;2c");
        assert_eq!((colours, rest), (None, Vec::new()));
        assert!(!has_da1_answer(b"\x1b[?62;2"));
    }
}
