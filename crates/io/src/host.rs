//! The host terminal: raw mode, its size, and a restore that always runs — on return, on a
//! signal that ends blitty, and from the panic hook.

use std::io::{self, Write};
use std::sync::Mutex;

use rustix::termios::{tcgetattr, tcgetwinsize, tcsetattr, OptionalActions, Termios};

use crate::pty::Size;

/// What restoring the host needs: its saved termios and the bytes that undo blitty's modes.
struct Saved {
    termios: Termios,
    leave: Vec<u8>,
}

static SAVED: Mutex<Option<Saved>> = Mutex::new(None);

/// The host terminal in raw mode; dropping it restores the host.
pub struct RawMode(());

impl RawMode {
    /// Puts standard input's terminal in raw mode. `leave` is written to standard output when
    /// the host is restored (it takes back what blitty's frames changed).
    pub fn enter(leave: Vec<u8>) -> io::Result<RawMode> {
        let stdin = rustix::stdio::stdin();
        let termios = tcgetattr(stdin)?;
        let mut raw = termios.clone();
        raw.make_raw();
        tcsetattr(stdin, OptionalActions::Now, &raw)?;
        *SAVED.lock().unwrap_or_else(|e| e.into_inner()) = Some(Saved { termios, leave });
        Ok(RawMode(()))
    }

    /// Replaces the bytes written when the host is restored.
    pub fn set_leave(&self, leave: Vec<u8>) {
        if let Some(saved) = SAVED.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            saved.leave = leave;
        }
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        restore_now();
    }
}

/// Restores the host terminal if blitty changed it (idempotent; safe from a panic hook).
pub fn restore_now() {
    let saved = SAVED.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(saved) = saved {
        let mut out = io::stdout().lock();
        let _ = out.write_all(&saved.leave);
        let _ = out.flush();
        let _ = tcsetattr(rustix::stdio::stdin(), OptionalActions::Now, &saved.termios);
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

/// The host terminal's size (80x24 when it does not say).
pub fn size() -> Size {
    match tcgetwinsize(rustix::stdio::stdout()) {
        Ok(w) if w.ws_col > 0 && w.ws_row > 0 => Size { cols: w.ws_col, rows: w.ws_row },
        _ => Size { cols: 80, rows: 24 },
    }
}
