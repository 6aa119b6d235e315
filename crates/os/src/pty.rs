//! A pty with a child process on it: the child gets the pty as its controlling terminal in a
//! new session, with TERM=xterm-256color (what the engine implements).
//!
//! The environment says which terminal the program is in, as tmux and screen do for theirs:
//! the host's own markers (`TMUX`, `TMUX_PANE`, `STY`, `TERM_PROGRAM*`, `COLORTERM`'s
//! companions `VTE_VERSION`, `KITTY_WINDOW_ID`, `ALACRITTY_*`, `WT_SESSION`) are removed, as
//! blitty answers the program itself and a tmux started inside must not think it is nested;
//! `TERM_PROGRAM=blitty`, `TERM_PROGRAM_VERSION` and `BLITTY=1` are set, and
//! `COLORTERM=truecolor` (the engine keeps 24-bit colour, and the presenter passes it on).

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

/// The signals a program on a terminal expects in their default state. A terminal gives its
/// program a fresh start whatever it was started from (tmux and xterm do too): blitty started
/// as a background job of a script, or under `nohup`, has SIGINT and SIGQUIT (or SIGHUP)
/// ignored, dispositions that would pass to the program through exec, so that Ctrl-C would
/// not stop it. Found by the Ctrl-C benchmark when it was started in the background.
const DEFAULT_SIGNALS: [libc::c_int; 9] = [
    libc::SIGINT,
    libc::SIGQUIT,
    libc::SIGTSTP,
    libc::SIGTTIN,
    libc::SIGTTOU,
    libc::SIGHUP,
    libc::SIGTERM,
    libc::SIGPIPE,
    libc::SIGCHLD,
];

/// In the child, between fork and exec: the job-control and termination signals back to their
/// default action and nothing blocked.
///
/// # Safety
/// Only async-signal-safe calls (signal, sigprocmask), as `pre_exec` requires.
unsafe fn reset_signals() {
    for sig in DEFAULT_SIGNALS {
        libc::signal(sig, libc::SIG_DFL);
    }
    let mut none: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut none);
    libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
}

/// The open-file soft limit blitty's programs get: the one blitty found, when a session server
/// raised its own (see `server::raise_file_limit`); 0 while nothing was raised. A program
/// expects the limit its user's session set (select() cannot take descriptors past 1,024).
static CHILD_NOFILE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Raises this process's open-file soft limit to its hard limit; the programs it starts get
/// the limit it had.
pub fn raise_file_limit() {
    let r = rustix::process::getrlimit(rustix::process::Resource::Nofile);
    if let (Some(current), Some(maximum)) = (r.current, r.maximum) {
        if current < maximum {
            CHILD_NOFILE.store(current, std::sync::atomic::Ordering::Relaxed);
            let _ = rustix::process::setrlimit(
                rustix::process::Resource::Nofile,
                rustix::process::Rlimit { current: Some(maximum), maximum: Some(maximum) },
            );
        }
    }
}

/// In the child, between fork and exec: the open-file limit back as blitty found it.
fn restore_file_limit() {
    let current = CHILD_NOFILE.load(std::sync::atomic::Ordering::Relaxed);
    if current != 0 {
        let r = rustix::process::getrlimit(rustix::process::Resource::Nofile);
        let _ = rustix::process::setrlimit(
            rustix::process::Resource::Nofile,
            rustix::process::Rlimit { current: Some(current), maximum: r.maximum },
        );
    }
}

/// Whether an environment variable describes the host terminal (see the module's comment).
pub fn host_marker(key: &str) -> bool {
    matches!(key, "TMUX" | "TMUX_PANE" | "STY" | "VTE_VERSION" | "KITTY_WINDOW_ID" | "WT_SESSION" | "TERMINAL_EMULATOR")
        || key.starts_with("TERM_PROGRAM")
        || key.starts_with("ALACRITTY_")
        || key.starts_with("KITTY_")
        || key.starts_with("WEZTERM_")
}

/// Opens a pty of `size` and starts `argv` on it.
pub fn spawn(argv: &[OsString], size: Size) -> io::Result<Pty> {
    spawn_in(argv, size, None)
}

/// [`spawn`], in the directory `cwd` (the session server starts programs where the client
/// that asked for them is).
pub fn spawn_in(argv: &[OsString], size: Size, cwd: Option<&std::path::Path>) -> io::Result<Pty> {
    let (master, name) = pair()?;
    let slave = rustix::fs::open(&name, OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC, Mode::empty())?;
    tcsetwinsize(&slave, size.winsize())?;
    let (program, args) =
        argv.split_first().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no command"))?;
    let mut cmd = Command::new(program);
    cmd.args(args);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    for (key, _) in std::env::vars_os() {
        if host_marker(&key.to_string_lossy()) {
            cmd.env_remove(&key);
        }
    }
    cmd.env("TERM", "xterm-256color")
        .env("TERM_PROGRAM", "blitty")
        .env("TERM_PROGRAM_VERSION", env!("CARGO_PKG_VERSION"))
        .env("BLITTY", "1")
        .env("COLORTERM", "truecolor")
        .env_remove("COLUMNS")
        .env_remove("LINES")
        .stdin(Stdio::from(slave.try_clone()?))
        .stdout(Stdio::from(slave.try_clone()?))
        .stderr(Stdio::from(slave));
    // SAFETY: the closure runs in the child between fork and exec and calls only setsid,
    // ioctl, signal, sigprocmask and getrlimit/setrlimit, all async-signal-safe; it allocates nothing and touches
    // no shared state.
    unsafe {
        cmd.pre_exec(|| {
            rustix::process::setsid()?;
            rustix::process::ioctl_tiocsctty(BorrowedFd::borrow_raw(0))?;
            reset_signals();
            restore_file_limit();
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
