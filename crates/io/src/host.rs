//! The host terminal: raw mode, its size, and a restore that always runs — on return, on a
//! signal that ends blitty, from the panic hook, and on an abort ([`crate::restore`]).

use std::io;

use rustix::termios::{tcgetattr, tcgetwinsize, tcsetattr, OptionalActions};

use crate::pty::Size;
use crate::restore::HostGuard;

/// The host terminal in raw mode; dropping it restores the host (see [`crate::restore`]: the
/// same restore runs from the panic hook and, with the constant reset bytes, on an abort).
pub struct RawMode(HostGuard);

impl RawMode {
    /// Puts standard input's terminal in raw mode.
    pub fn enter() -> io::Result<RawMode> {
        let stdin = rustix::stdio::stdin();
        let termios = tcgetattr(stdin)?;
        let mut raw = termios.clone();
        raw.make_raw();
        let guard = HostGuard::save(termios);
        tcsetattr(stdin, OptionalActions::Now, &raw)?;
        Ok(RawMode(guard))
    }

    /// Replaces the bytes written when the host is restored normally (they must end every mode
    /// blitty may have turned on: [`blitty_present::ansi::RESET_HOST`]).
    pub fn set_leave(&self, leave: Vec<u8>) {
        self.0.set_leave(leave);
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
