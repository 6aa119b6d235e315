//! A serial line as a source, one shape for `blitty serial` and for the session server's
//! serial vtys: the device named by its path, opened as a serial console opens it (the UUCP
//! lock file, then flock, then its settings, which are given back at every end), and opened
//! again by its path when it went away (a USB adapter unplugged, a pty's far end closed).
//!
//! While the device is away its lock file is let go: its name (a pty's number, ttyUSBn) may go
//! to another device meanwhile, and the lock is taken again with the device.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rustix::io::Errno;

use crate::settings::{self as serial, Settings};

/// How often a line that went away is looked for.
pub const REOPEN: Duration = Duration::from_millis(200);

/// What an open line holds: given back (settings, locks) when dropped.
struct Opened {
    fd: OwnedFd,
    _guard: blitty_os::restore::DeviceGuard,
    _lock_file: Option<crate::lock::LockFile>,
}

pub struct SerialLine {
    pub path: PathBuf,
    pub settings: Settings,
    lock: bool,
    open: Option<Opened>,
    /// When to look for the line again, while it is away.
    retry: Instant,
}

/// What a read of the line gave.
pub enum Read {
    /// This many bytes (at the front of the buffer).
    Data(usize),
    /// Nothing now.
    Empty,
    /// The line went away: why, in words ("hung up", "went away (…)").
    Gone(String),
}

impl SerialLine {
    /// Opens `path` with `settings`; with `lock`, the UUCP lock file and flock first. An error
    /// names the device.
    pub fn open(path: &Path, settings: Settings, lock: bool) -> Result<SerialLine, serial::Error> {
        let opened = open(path, &settings, lock)?;
        Ok(SerialLine { path: path.to_path_buf(), settings, lock, open: Some(opened), retry: Instant::now() })
    }

    /// The open device, or None while it is away.
    pub fn fd(&self) -> Option<BorrowedFd<'_>> {
        self.open.as_ref().map(|o| o.fd.as_fd())
    }

    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// One read() into `buf`. `hung_up`: poll said POLLHUP or POLLERR, so an empty read means
    /// the line is gone (with VMIN 0 a read may return nothing while the line is there).
    pub fn read(&mut self, buf: &mut [u8], hung_up: bool) -> Read {
        let Some(o) = &self.open else { return Read::Empty };
        loop {
            return match rustix::io::read(&o.fd, &mut *buf) {
                Ok(0) if hung_up => Read::Gone("hung up".into()),
                Ok(0) => Read::Empty,
                Ok(n) => Read::Data(n),
                Err(Errno::INTR) => continue,
                Err(Errno::AGAIN) if hung_up => Read::Gone("hung up".into()),
                Err(Errno::AGAIN) => Read::Empty,
                Err(e) => Read::Gone(format!("went away ({})", std::io::Error::from(e))),
            };
        }
    }

    /// Writes what the line takes now from the front of `bytes`, and says how much; Err names
    /// why the line is gone.
    pub fn write(&mut self, bytes: &[u8]) -> Result<usize, String> {
        let Some(o) = &self.open else { return Ok(0) };
        match rustix::io::write(&o.fd, bytes) {
            Ok(n) => Ok(n),
            Err(Errno::AGAIN) | Err(Errno::INTR) => Ok(0),
            Err(e) => Err(format!("went away ({})", std::io::Error::from(e))),
        }
    }

    /// The line went away: its device is closed (its settings and locks given back) and it is
    /// looked for again after REOPEN.
    pub fn went_away(&mut self) {
        self.open = None;
        self.retry = Instant::now() + REOPEN;
    }

    /// When to look for the line again (None while it is open).
    pub fn retry_at(&self) -> Option<Instant> {
        self.open.is_none().then_some(self.retry)
    }

    /// Looks for the line if its time has come; true when it is back.
    pub fn try_reopen(&mut self, now: Instant) -> bool {
        if self.open.is_some() || now < self.retry {
            return false;
        }
        match open(&self.path, &self.settings, self.lock) {
            Ok(o) => {
                self.open = Some(o);
                true
            }
            Err(_) => {
                self.retry = now + REOPEN;
                false
            }
        }
    }
}

fn open(path: &Path, settings: &Settings, lock: bool) -> Result<Opened, serial::Error> {
    // The lock file first (it names the holder to tools that read only it), then the device,
    // locked before it is set up.
    let lock_file = if lock {
        let dirs: Vec<&Path> = crate::lock::LOCK_DIRS.iter().map(Path::new).collect();
        crate::lock::lock_file(path, &dirs).map_err(serial::Error::from)?
    } else {
        None
    };
    let (fd, guard) = serial::open_configured(path, settings, lock)?;
    Ok(Opened { fd, _guard: guard, _lock_file: lock_file })
}
