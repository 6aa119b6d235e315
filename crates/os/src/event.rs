//! The one shape of blitty's event loops (`blitty run`, `blitty serial`, the session server and
//! its clients): each turn, every part of the loop says what it waits for (a descriptor with
//! its events, under a key of the loop's own), and when it must wake at the latest (a frame
//! due, a line to look for, a message to clear); one poll(2) waits for all of it, and each
//! part gets back its own events by its key.
//!
//! The parts are the same in every loop: sources (a program's pty, a serial line: `line`), host
//! displays (the user's terminal: `session::Output`, a client's socket, a framebuffer) and
//! control (keys, signals, the listening socket).

use std::io;
use std::os::fd::BorrowedFd;
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::io::Errno;

/// One turn's poll set: descriptors with the events waited for, each under a key.
pub struct PollSet<'a, K> {
    fds: Vec<PollFd<'a>>,
    keys: Vec<K>,
}

impl<'a, K: Copy + PartialEq> PollSet<'a, K> {
    pub fn new() -> Self {
        PollSet { fds: Vec::new(), keys: Vec::new() }
    }

    /// Waits for `events` on `fd`, reported under `key`.
    pub fn add(&mut self, fd: BorrowedFd<'a>, events: PollFlags, key: K) {
        self.fds.push(PollFd::from_borrowed_fd(fd, events));
        self.keys.push(key);
    }

    pub fn is_empty(&self) -> bool {
        self.fds.is_empty()
    }

    /// Waits until something is ready or `timeout` has passed (None: no limit). A signal
    /// that interrupts the wait is a wake-up with nothing ready.
    pub fn wait(&mut self, timeout: Option<Duration>) -> io::Result<()> {
        let ts = timeout.map(timespec);
        match poll(&mut self.fds, ts.as_ref()) {
            Ok(_) | Err(Errno::INTR) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// What happened under `key` (the first descriptor added with it).
    pub fn events(&self, key: K) -> PollFlags {
        self.keys.iter().position(|&k| k == key).map_or(PollFlags::empty(), |i| self.fds[i].revents())
    }

    /// Every key something happened under, with what.
    pub fn ready(&self) -> Vec<(K, PollFlags)> {
        self.keys
            .iter()
            .zip(&self.fds)
            .filter(|(_, f)| !f.revents().is_empty())
            .map(|(&k, f)| (k, f.revents()))
            .collect()
    }
}

impl<K: Copy + PartialEq> Default for PollSet<'_, K> {
    fn default() -> Self {
        Self::new()
    }
}

/// The earliest of the times a loop must wake at.
#[derive(Clone, Copy, Debug, Default)]
pub struct Wake(Option<Instant>);

impl Wake {
    /// Wake at `t` at the latest.
    pub fn at(&mut self, t: Instant) {
        self.0 = Some(self.0.map_or(t, |w| w.min(t)));
    }

    /// Wake `after` `now` at the latest.
    pub fn after(&mut self, now: Instant, after: Duration) {
        self.at(now + after);
    }

    /// How long from `now` until the wake-up (None: nothing to wake for).
    pub fn timeout(&self, now: Instant) -> Option<Duration> {
        self.0.map(|w| w.saturating_duration_since(now))
    }
}

/// A poll timeout.
pub fn timespec(d: Duration) -> Timespec {
    Timespec { tv_sec: d.as_secs() as i64, tv_nsec: d.subsec_nanos() as i64 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn each_key_gets_its_own_events_and_the_earliest_wake_wins() {
        let (r1, w1) = rustix::pipe::pipe().unwrap();
        let (r2, _w2) = rustix::pipe::pipe().unwrap();
        rustix::io::write(&w1, b"x").unwrap();
        let mut set = PollSet::new();
        set.add(r1.as_fd(), PollFlags::IN, 'a');
        set.add(r2.as_fd(), PollFlags::IN, 'b');
        set.add(w1.as_fd(), PollFlags::OUT, 'c');
        set.wait(Some(Duration::from_secs(5))).unwrap();
        assert!(set.events('a').contains(PollFlags::IN));
        assert!(set.events('b').is_empty());
        assert!(set.events('c').contains(PollFlags::OUT));
        assert!(set.events('z').is_empty(), "a key never added has no events");
        let keys: Vec<char> = set.ready().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ['a', 'c']);

        let now = Instant::now();
        let mut wake = Wake::default();
        assert_eq!(wake.timeout(now), None, "nothing to wake for: no limit");
        wake.after(now, Duration::from_millis(30));
        wake.after(now, Duration::from_millis(10));
        wake.after(now, Duration::from_millis(20));
        assert_eq!(wake.timeout(now), Some(Duration::from_millis(10)));
        assert_eq!(wake.timeout(now + Duration::from_secs(1)), Some(Duration::ZERO), "past due: at once");
    }

    #[test]
    fn a_wait_with_nothing_ready_ends_at_its_timeout() {
        let (r, _w) = rustix::pipe::pipe().unwrap();
        let mut set = PollSet::new();
        set.add(r.as_fd(), PollFlags::IN, 0u8);
        let t0 = Instant::now();
        set.wait(Some(Duration::from_millis(20))).unwrap();
        assert!(t0.elapsed() >= Duration::from_millis(20));
        assert!(set.ready().is_empty());
    }
}
