//! Output on its way to a display, written without blocking from an event loop.

use std::os::fd::AsFd;

use rustix::event::{poll, PollFd, PollFlags};
use rustix::io::Errno;

/// Output on its way to a display, one shape for every display: the user's terminal (`run`,
/// `serial`, the client) and each client's socket (the server). It is written without blocking
/// from the event loop; what the display has not taken yet waits here, and no new frame is
/// built until it is gone, so a slow display costs frames, never input or reading.
pub struct Output<F: AsFd = std::os::fd::OwnedFd> {
    pub fd: F,
    pending: Vec<u8>,
    at: usize,
}

impl<F: AsFd> Output<F> {
    pub fn new(fd: F) -> Output<F> {
        Output { fd, pending: Vec::new(), at: 0 }
    }

    pub fn idle(&self) -> bool {
        self.at >= self.pending.len()
    }

    /// Starts sending `frame` (the previous one must be done).
    pub fn send(&mut self, frame: Vec<u8>) {
        self.pending = frame;
        self.at = 0;
        self.flush();
    }

    /// Where to put more output after what is pending (messages queue behind each other).
    pub fn queue(&mut self) -> &mut Vec<u8> {
        if self.idle() {
            self.pending.clear();
            self.at = 0;
        }
        &mut self.pending
    }

    /// What is not written yet.
    pub fn unsent(&self) -> &[u8] {
        &self.pending[self.at.min(self.pending.len())..]
    }

    /// Drops what is not written yet.
    pub fn discard(&mut self) {
        self.pending.clear();
        self.at = 0;
    }

    /// Writes as much as the display takes now. False when it is gone (hung up, closed):
    /// what was pending is dropped.
    pub fn flush(&mut self) -> bool {
        while self.at < self.pending.len() {
            match rustix::io::write(&self.fd, &self.pending[self.at..]) {
                Ok(0) => {
                    self.at = self.pending.len();
                    return false;
                }
                Ok(n) => self.at += n,
                Err(Errno::INTR) => {}
                Err(Errno::AGAIN) => return true,
                Err(_) => {
                    self.at = self.pending.len();
                    return false;
                }
            }
        }
        true
    }

    /// A buffer for the next frame (the last frame's, reused).
    pub fn buffer(&mut self) -> Vec<u8> {
        let mut b = std::mem::take(&mut self.pending);
        b.clear();
        self.at = 0;
        b
    }

    /// Sends what is left, waiting for the display if it must (at the end of the session).
    pub fn finish(&mut self) {
        while !self.idle() {
            if !self.flush() {
                return;
            }
            if !self.idle() {
                let mut fds = [PollFd::new(&self.fd, PollFlags::OUT)];
                let _ = poll(&mut fds, None);
            }
        }
    }
}
