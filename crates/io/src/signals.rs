//! Signals as events: each signal sets its flag and writes a byte to a wake pipe that the
//! event loop polls, so a signal interrupts `poll` and is handled in the loop, not in a
//! handler.

use std::io::{self, Read};
use std::os::unix::net::UnixStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub use signal_hook::consts::{SIGCHLD, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGWINCH};

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
