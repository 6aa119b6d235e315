//! Signals as events: each signal sets its flag and writes a byte to a wake pipe that the
//! event loop polls, so a signal interrupts `poll` and is handled in the loop, not in a
//! handler.

use std::io::{self, Read};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub use signal_hook::consts::{SIGCHLD, SIGCONT, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP, SIGTTOU, SIGWINCH};

pub struct Signals {
    /// The end the event loop polls.
    pub wake: UnixStream,
    flags: Vec<(i32, Arc<AtomicBool>)>,
}

impl Signals {
    pub fn new(signals: &[i32]) -> io::Result<Signals> {
        let (wake, waker) = UnixStream::pair()?;
        wake.set_nonblocking(true)?;
        waker.set_nonblocking(true)?;
        let mut flags = Vec::new();
        for &sig in signals {
            let flag = Arc::new(AtomicBool::new(false));
            signal_hook::flag::register(sig, Arc::clone(&flag))?;
            signal_hook::low_level::pipe::register(sig, waker.try_clone()?)?;
            flags.push((sig, flag));
        }
        Ok(Signals { wake, flags })
    }

    /// Empties the wake pipe and returns the signals that arrived since the last call.
    pub fn take(&mut self) -> Vec<i32> {
        let mut buf = [0u8; 64];
        while matches!(self.wake.read(&mut buf), Ok(n) if n > 0) {}
        self.flags.iter().filter(|(_, f)| f.swap(false, Ordering::Relaxed)).map(|(s, _)| *s).collect()
    }
}

/// Makes a file-size limit (RLIMIT_FSIZE) an error instead of death: with SIGXFSZ ignored, a
/// write past the limit fails with EFBIG, and blitty ends with a line naming the file (its log)
/// and gives the terminal back, instead of being killed without a word.
pub fn ignore_file_size_limit_signal() {
    // SAFETY: setting a signal's disposition to SIG_IGN installs no handler code.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// Stops the process as `sig` (SIGTSTP, SIGTTOU) does by default, whatever handler blitty has
/// for it, and returns once it is continued (SIGCONT). The shell then reports the stop as it
/// would without blitty's handler ("Stopped", "Stopped (tty output)"), not as a SIGSTOP.
///
/// In an orphaned process group the kernel discards these signals instead of stopping: the
/// call returns at once, and the caller carries on as if it had been continued.
pub fn stop_as(sig: i32) {
    // SAFETY: sigaction and raise are plain system calls; the handler saved is put back as it
    // was (no other thread of blitty changes signal dispositions), and a zeroed sigaction with
    // SIG_DFL is a valid one.
    unsafe {
        let mut default: libc::sigaction = std::mem::zeroed();
        default.sa_sigaction = libc::SIG_DFL;
        let mut saved: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(sig, &default, &mut saved) != 0 {
            let _ = signal_hook::low_level::raise(libc::SIGSTOP);
            return;
        }
        libc::raise(sig);
        libc::sigaction(sig, &saved, std::ptr::null_mut());
    }
}
