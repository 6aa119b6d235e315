//! The child's output, read on a thread of its own: while the event loop parses one chunk,
//! the next is already being read, so the pty keeps flowing at the pace of the program rather
//! than at the pace of read, parse, read (ghostty reads its pty on a thread for the same
//! reason). The reads made while the pty has more at once are gathered into chunks of up to
//! 64 KiB, which go to the loop through a bounded queue; when the loop falls
//! behind, the queue fills, the reader stops reading, the pty fills and the program waits:
//! flow control, with no byte dropped. Each chunk wakes the loop through an eventfd it polls.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, Sender, SyncSender, TryRecvError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rustix::event::{eventfd, poll, EventfdFlags, PollFd, PollFlags};
use rustix::io::Errno;

/// Bytes a chunk holds at most (the reads made while the pty had more at once).
pub const CHUNK: usize = 64 * 1024;
/// A chunk with less room than this goes to the loop (a pty read returns at most 4 KiB).
const MIN_ROOM: usize = 4096;
/// How long a chunk is held for more in a flood (see `read_loop`): well under a frame.
const HOLD: Duration = Duration::from_millis(1);
/// Chunks waiting for the loop at most: 256 KiB read ahead.
const QUEUE: usize = 4;
/// Chunks read at most once told to finish: a program that goes on writing (a background job
/// holding the pty) cannot hold the end of the session.
const FINAL_CHUNKS: usize = 16;

/// What the reader sends.
pub enum Chunk {
    Data(Vec<u8>),
    /// The master hung up (the child and everything holding the pty is gone), or the reader
    /// was told to finish and has read everything that was there.
    End,
}

/// The reader thread's own counters, for the session's statistics.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReaderStats {
    pub syscr: u64,
    pub syscw: u64,
    /// CPU seconds of the reader thread.
    pub cpu: f64,
}

pub struct Reader {
    rx: Receiver<Chunk>,
    /// Chunks sent and not yet taken: the reader wakes the loop only when this was 0, so a
    /// loop that is busy parsing costs no wake-ups.
    queued: Arc<AtomicUsize>,
    /// Set while the loop waits for the answer to a key: chunks go at once, never held.
    urgent: Arc<AtomicBool>,
    recycle: Sender<Vec<u8>>,
    /// Readable when chunks are waiting (an eventfd the reader adds to).
    wake: OwnedFd,
    /// Written to tell the reader to take what is there now and end.
    stop: OwnedFd,
    thread: Option<JoinHandle<ReaderStats>>,
}

impl Reader {
    /// Starts reading `master` (a duplicate is kept by the thread).
    ///
    /// The master's open file description is made non-blocking (the duplicate shares it): the
    /// reader reads until the pty has nothing more before it waits, and the loop's writes of
    /// keys to the program never block on a program that does not read them.
    pub fn start(master: BorrowedFd<'_>) -> std::io::Result<Reader> {
        let master = master.try_clone_to_owned()?;
        let flags = rustix::fs::fcntl_getfl(&master)?;
        rustix::fs::fcntl_setfl(&master, flags | rustix::fs::OFlags::NONBLOCK)?;
        let wake = eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK)?;
        let stop = eventfd(0, EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK)?;
        let (tx, rx) = sync_channel(QUEUE);
        let (recycle, recycled) = std::sync::mpsc::channel();
        let (wake_thread, stop_thread) = (wake.try_clone()?, stop.try_clone()?);
        let queued = Arc::new(AtomicUsize::new(0));
        let queued_thread = queued.clone();
        let urgent = Arc::new(AtomicBool::new(false));
        let urgent_thread = urgent.clone();
        let thread = std::thread::Builder::new()
            .name("blitty-reader".into())
            .spawn(move || read_loop(master, tx, recycled, wake_thread, stop_thread, queued_thread, urgent_thread))?;
        Ok(Reader { rx, queued, urgent, recycle, wake, stop, thread: Some(thread) })
    }

    /// The fd to poll for readability: chunks are waiting.
    pub fn wake_fd(&self) -> BorrowedFd<'_> {
        self.wake.as_fd()
    }

    /// Clears the wake-up (call before taking chunks, so that none is missed).
    pub fn clear_wake(&self) {
        let mut b = [0u8; 8];
        let _ = rustix::io::read(&self.wake, &mut b);
    }

    /// The next chunk waiting, if any; [`Chunk::End`] too once the reader has ended and its
    /// queue is empty.
    pub fn try_take(&self) -> Option<Chunk> {
        match self.rx.try_recv() {
            Ok(c) => {
                self.queued.fetch_sub(1, Ordering::AcqRel);
                Some(c)
            }
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Chunk::End),
        }
    }

    /// Waits for the next chunk (at the end of the session, after [`Reader::finish`]).
    pub fn take(&self) -> Option<Chunk> {
        self.rx.recv().ok()
    }

    /// Whether a chunk is on its way (counted, not yet in the queue): look again soon rather
    /// than wait for a wake-up that will not come.
    pub fn in_flight(&self) -> bool {
        self.queued.load(Ordering::Acquire) > 0
    }

    /// While on, output goes to the loop as soon as it is read (the answer to a key: an echo,
    /// the prompt after Ctrl-C), not held for more as in a flood.
    pub fn set_urgent(&self, on: bool) {
        self.urgent.store(on, Ordering::Relaxed);
    }

    /// Gives a chunk's buffer back for reuse.
    pub fn recycle(&self, buf: Vec<u8>) {
        let _ = self.recycle.send(buf);
    }

    /// Tells the reader to take what the pty holds now, send it, then [`Chunk::End`].
    pub fn finish(&self) {
        let _ = rustix::io::write(&self.stop, &1u64.to_ne_bytes());
    }

    /// Ends the thread (telling it to finish first) and returns its counters.
    pub fn join(mut self) -> ReaderStats {
        self.finish();
        // Take what is left until the thread ends (it drops its sender): a reader waiting for
        // room in the queue gets it.
        while self.rx.recv().is_ok() {}
        self.thread.take().and_then(|h| h.join().ok()).unwrap_or_default()
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        // A session that ends early (an error) still ends the thread.
        self.finish();
    }
}

fn read_loop(
    master: OwnedFd,
    tx: SyncSender<Chunk>,
    recycled: Receiver<Vec<u8>>,
    wake: OwnedFd,
    stop: OwnedFd,
    queued: Arc<AtomicUsize>,
    urgent: Arc<AtomicBool>,
) -> ReaderStats {
    let signal = || {
        let _ = rustix::io::write(&wake, &1u64.to_ne_bytes());
    };
    // Counted before it is sent, so that the loop never finds the queue empty and the count
    // 0 while a chunk is on its way; the loop is woken when the count was 0.
    let send = |chunk: Chunk| -> bool {
        let before = queued.fetch_add(1, Ordering::AcqRel);
        let sent = tx.send(chunk).is_ok();
        if before == 0 {
            signal();
        }
        sent
    };
    let mut finishing = false;
    let mut final_chunks = 0;
    let mut buf: Vec<u8> = Vec::new();
    // When the last chunk went to the loop, and when the chunk being filled got its first byte.
    let mut last_send = Instant::now() - HOLD;
    let mut first_at: Option<Instant> = None;
    // Sends the chunk and notes when; false when the loop is gone.
    let hand_over = |buf: &mut Vec<u8>, last_send: &mut Instant, first_at: &mut Option<Instant>| {
        let sent = send(Chunk::Data(std::mem::take(buf)));
        *last_send = Instant::now();
        *first_at = None;
        sent
    };
    loop {
        if buf.capacity() == 0 {
            buf = recycled.try_recv().unwrap_or_default();
            buf.clear();
            buf.reserve_exact(CHUNK);
        }
        // Into the buffer's spare room, never zeroed first (a read is a few KiB: clearing 64
        // KiB before each one cost more than the read).
        match rustix::io::read(&master, rustix::buffer::spare_capacity(&mut buf)) {
            Ok(0) | Err(Errno::IO) => break,
            Ok(_) => {
                // Coalesce: while the pty has more at once and the chunk has room for another
                // read (the line discipline hands over at most 4 KiB a read), read on; the loop
                // then wakes once per flood chunk, not once per read.
                if buf.capacity() - buf.len() >= MIN_ROOM {
                    continue;
                }
                if !hand_over(&mut buf, &mut last_send, &mut first_at) {
                    return thread_stats();
                }
                if finishing {
                    final_chunks += 1;
                    if final_chunks > FINAL_CHUNKS {
                        break;
                    }
                }
                continue;
            }
            Err(Errno::INTR) => continue,
            Err(Errno::AGAIN) => {}
            Err(_) => break,
        }
        // Nothing more there now. In a flood (the last chunk went out moments ago) the program
        // is about to write more: hold the chunk up to HOLD from its first byte, so the loop
        // wakes once per HOLD rather than once per read (each wake-up costs the loop a poll, a
        // read of the eventfd and two context switches: more than parsing the few KiB). Output
        // after a pause (an echo, a prompt) goes at once.
        if !buf.is_empty() && !finishing && last_send.elapsed() < HOLD && !urgent.load(Ordering::Relaxed) {
            let held = first_at.get_or_insert_with(Instant::now).elapsed();
            if held < HOLD {
                let wait = HOLD - held;
                let ts = rustix::event::Timespec { tv_sec: 0, tv_nsec: wait.as_nanos() as i64 };
                let mut fds = [PollFd::new(&master, PollFlags::IN), PollFd::new(&stop, PollFlags::IN)];
                if matches!(poll(&mut fds, Some(&ts)), Ok(n) if n > 0) && fds[1].revents().is_empty() {
                    continue;
                }
            }
        }
        // What was read goes to the loop, then wait.
        if !buf.is_empty() && !hand_over(&mut buf, &mut last_send, &mut first_at) {
            return thread_stats();
        }
        if finishing {
            // Finishing: only what is there now, and not forever.
            final_chunks += 1;
            if final_chunks > FINAL_CHUNKS {
                break;
            }
            let mut fds = [PollFd::new(&master, PollFlags::IN)];
            let ready = poll(&mut fds, Some(&rustix::event::Timespec { tv_sec: 0, tv_nsec: 0 }));
            if !matches!(ready, Ok(n) if n > 0) || !fds[0].revents().intersects(PollFlags::IN | PollFlags::HUP) {
                break;
            }
            continue;
        }
        let mut fds = [PollFd::new(&master, PollFlags::IN), PollFd::new(&stop, PollFlags::IN)];
        match poll(&mut fds, None) {
            Ok(_) => {}
            Err(Errno::INTR) => continue,
            Err(_) => break,
        }
        finishing = fds[1].revents().contains(PollFlags::IN);
        if finishing && !fds[0].revents().intersects(PollFlags::IN | PollFlags::HUP | PollFlags::ERR) {
            // Told to finish with nothing waiting: done.
            break;
        }
    }
    if !buf.is_empty() {
        send(Chunk::Data(buf));
    }
    send(Chunk::End);
    thread_stats()
}

/// This thread's system calls and CPU time, from /proc/thread-self.
fn thread_stats() -> ReaderStats {
    let (syscr, syscw) = crate::stats::thread_syscalls();
    ReaderStats { syscr, syscw, cpu: crate::stats::thread_cpu() }
}
