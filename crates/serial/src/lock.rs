//! Serial lines are locked, as tio, picocom and minicom lock them, so that two consoles never
//! split one line's bytes between them:
//! - `flock(LOCK_EX | LOCK_NB)` on the open device (what tio and picocom take); the holder's
//!   pid is found in /proc/locks by the device's inode;
//! - a UUCP lock file, `LCK..NAME` in /var/lock or /run/lock where that directory exists and
//!   can be written (NAME is the path under /dev with `/` as `_`: `LCK..ttyUSB0`), holding the
//!   pid as ten characters and a newline (the HDB format minicom and the UUCP tools read). A
//!   lock file whose process is gone is stale and replaced; it is removed when blitty ends.
//!
//! `--no-lock` skips both. Where no lock directory can be written, only flock is taken.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path} is in use by process {pid}{what} (--no-lock opens it anyway)")]
    Held { path: String, pid: String, what: String },
    #[error("{path} is locked by another process (--no-lock opens it anyway)")]
    HeldUnknown { path: String },
    #[error("cannot lock {path}: {cause}")]
    Other { path: String, cause: io::Error },
}

/// The UUCP lock file of a device, removed when dropped.
pub struct LockFile {
    path: PathBuf,
}

impl Drop for LockFile {
    fn drop(&mut self) {
        // Only ours: a file another process took over since (after ours went stale) stays.
        if read_pid(&self.path) == Some(std::process::id() as i32) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// ` (blitty serial)`: the holder's command name, when /proc tells it.
fn describe(pid: i32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).map(|c| format!(" ({})", c.trim())).unwrap_or_default()
}

/// Takes `flock` on the open device `fd`.
pub fn flock(fd: impl AsFd, device: &Path) -> Result<(), Error> {
    let path = device.display().to_string();
    match rustix::fs::flock(fd, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => return Ok(()),
        Err(rustix::io::Errno::WOULDBLOCK) => {}
        Err(e) => return Err(Error::Other { path, cause: e.into() }),
    }
    match std::fs::metadata(device).ok().and_then(|m| flock_holder(m.ino())) {
        Some(pid) => Err(Error::Held { path, pid: pid.to_string(), what: describe(pid) }),
        None => Err(Error::HeldUnknown { path }),
    }
}

/// The pid holding a FLOCK on inode `ino`, from /proc/locks
/// (`1: FLOCK  ADVISORY  WRITE 1234 00:05:3 0 EOF`).
fn flock_holder(ino: u64) -> Option<i32> {
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    locks.lines().find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        let at = f.iter().position(|w| *w == "FLOCK")?;
        let pid = f.get(at + 3)?.parse().ok()?;
        let node = f.get(at + 4)?.rsplit(':').next()?.parse::<u64>().ok()?;
        (node == ino).then_some(pid)
    })
}

fn read_pid(path: &Path) -> Option<i32> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Whether process `pid` exists (signal 0; a process of another user answers EPERM).
fn alive(pid: i32) -> bool {
    match rustix::process::Pid::from_raw(pid) {
        Some(p) => matches!(rustix::process::test_kill_process(p), Ok(()) | Err(rustix::io::Errno::PERM)),
        None => false,
    }
}

/// The lock file's name for `device`: `LCK..` and its path under /dev, `/` as `_`.
pub fn lock_name(device: &Path) -> String {
    let canon = std::fs::canonicalize(device).unwrap_or_else(|_| device.to_path_buf());
    let s = canon.to_string_lossy();
    let under = s.strip_prefix("/dev/").unwrap_or_else(|| s.rsplit('/').next().unwrap_or(&s));
    format!("LCK..{}", under.replace('/', "_"))
}

/// Takes the UUCP lock file for `device` in the first of `dirs` that exists and can be
/// written; `None` when none can.
pub fn lock_file(device: &Path, dirs: &[&Path]) -> Result<Option<LockFile>, Error> {
    let name = lock_name(device);
    for dir in dirs {
        if !dir.is_dir() {
            continue;
        }
        let path = dir.join(&name);
        for _ in 0..2 {
            match OpenOptions::new().write(true).create_new(true).mode(0o644).open(&path) {
                Ok(mut f) => {
                    if f.write_all(format!("{:>10}\n", std::process::id()).as_bytes()).is_err() {
                        let _ = std::fs::remove_file(&path);
                        break;
                    }
                    return Ok(Some(LockFile { path }));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => match read_pid(&path) {
                    Some(pid) if alive(pid) => {
                        let path = device.display().to_string();
                        return Err(Error::Held { path, pid: pid.to_string(), what: describe(pid) });
                    }
                    // Stale (its process is gone) or unreadable: replaced.
                    _ => {
                        let _ = std::fs::remove_file(&path);
                    }
                },
                // This directory cannot be written: the next one, or none.
                Err(_) => break,
            }
        }
    }
    Ok(None)
}

/// The lock directories looked for, in order.
pub const LOCK_DIRS: [&str; 2] = ["/var/lock", "/run/lock"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_files_are_named_after_the_device_and_hold_the_pid() {
        assert_eq!(lock_name(Path::new("/dev/no-such-ttyUSB7")), "LCK..no-such-ttyUSB7");
        assert_eq!(lock_name(Path::new("/dev/pts/no-such-3")), "LCK..pts_no-such-3");
        let dir = std::env::temp_dir().join(format!("blitty-lock-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let dev = Path::new("/dev/no-such-ttyS9");
        let lock = lock_file(dev, &[dir.as_path()]).unwrap().expect("a lock file");
        let file = dir.join("LCK..no-such-ttyS9");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), format!("{:>10}\n", std::process::id()));
        // Held by a live process (this one): refused, naming it.
        let err = lock_file(dev, &[dir.as_path()]).err().expect("refused").to_string();
        assert!(err.contains(&format!("in use by process {}", std::process::id())), "{err}");
        drop(lock);
        assert!(!file.exists(), "removed when dropped");
        // A stale lock (no such process) is replaced.
        std::fs::write(&file, format!("{:>10}\n", i32::MAX)).unwrap();
        let lock = lock_file(dev, &[dir.as_path()]).unwrap().expect("the stale lock replaced");
        drop(lock);
        // No writable directory: no lock file, no error.
        assert!(lock_file(dev, &[Path::new("/proc")]).unwrap().is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
