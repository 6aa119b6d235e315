//! A pty with a child process on it: the child gets the pty as its controlling terminal in a
//! new session, with TERM=xterm-256color (what the engine implements).

use std::ffi::OsString;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStringExt;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use rustix::fs::{Mode, OFlags};
use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};
use rustix::termios::{tcsetwinsize, Winsize};

/// The size of a terminal in cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    pub cols: u16,
    pub rows: u16,
}

impl Size {
    pub fn winsize(self) -> Winsize {
        Winsize { ws_col: self.cols, ws_row: self.rows, ws_xpixel: 0, ws_ypixel: 0 }
    }
}

pub struct Pty {
    pub master: OwnedFd,
    pub child: Child,
}

/// A new pty: its master (close-on-exec, blocking) and the path of its slave, which is not
/// opened. A pair stands in for a serial cable: the slave is the port, the master the far end.
pub fn pair() -> io::Result<(OwnedFd, PathBuf)> {
    // CLOEXEC: a child must not hold the master, or closing it would not hang up the child.
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY | OpenptFlags::CLOEXEC)?;
    grantpt(&master)?;
    unlockpt(&master)?;
    let name = ptsname(&master, Vec::new())?;
    Ok((master, PathBuf::from(std::ffi::OsString::from_vec(name.into_bytes()))))
}

/// Opens a pty of `size` and starts `argv` on it.
pub fn spawn(argv: &[OsString], size: Size) -> io::Result<Pty> {
    let (master, name) = pair()?;
    let slave = rustix::fs::open(&name, OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC, Mode::empty())?;
    tcsetwinsize(&slave, size.winsize())?;
    let (program, args) =
        argv.split_first().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no command"))?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env("TERM", "xterm-256color")
        .env_remove("COLUMNS")
        .env_remove("LINES")
        .stdin(Stdio::from(slave.try_clone()?))
        .stdout(Stdio::from(slave.try_clone()?))
        .stderr(Stdio::from(slave));
    // SAFETY: the closure runs in the child between fork and exec and calls only setsid and
    // ioctl, both async-signal-safe; it allocates nothing and touches no shared state.
    unsafe {
        cmd.pre_exec(|| {
            rustix::process::setsid()?;
            rustix::process::ioctl_tiocsctty(BorrowedFd::borrow_raw(0))?;
            Ok(())
        });
    }
    let child = cmd.spawn()?;
    rustix::io::ioctl_fionbio(&master, true)?;
    Ok(Pty { master, child })
}

impl Pty {
    /// Hangs up the child's terminal, as closing a terminal window does: SIGHUP to its
    /// process group, then up to `grace` for it to exit. Returns whether it exited.
    pub fn hang_up(&mut self, grace: std::time::Duration) -> bool {
        if let Some(pid) = rustix::process::Pid::from_raw(self.child.id() as i32) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::HUP);
        }
        let deadline = std::time::Instant::now() + grace;
        while std::time::Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        false
    }

    pub fn resize(&self, size: Size) -> io::Result<()> {
        Ok(tcsetwinsize(self.master.as_fd(), size.winsize())?)
    }
}
