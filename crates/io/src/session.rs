//! The event loop of `blitty run`: one thread reads the child's output in large chunks into
//! the engine and forwards keys; frames are built at most `hz` times a second (and once more
//! within a frame after output stops) and handed to a writer thread, so a slow host terminal
//! costs frames, never input or reading.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use blitty_present::{ansi, AnsiPresenter, View};
use blitty_vt::Terminal;
use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::io::Errno;

use crate::host::{self, RawMode};
use crate::keys::{Action, Keys, Scroll};
use crate::pty;
use crate::signals::{Signals, SIGCHLD, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGWINCH};

pub struct Options {
    pub argv: Vec<OsString>,
    /// Frames per second at most.
    pub hz: u32,
    pub scrollback: usize,
    /// Every byte the child writes is appended here, in order.
    pub log: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("standard input and output must be a terminal: blitty run shows a program in your terminal")]
    NotATerminal,
    #[error("cannot start {program}: {source}")]
    Spawn { program: String, source: io::Error },
    #[error("cannot create the log file {path}: {source}")]
    Log { path: String, source: io::Error },
    #[error("{0}")]
    Io(#[from] io::Error),
}

impl From<Errno> for Error {
    fn from(e: Errno) -> Error {
        Error::Io(e.into())
    }
}

/// Bytes read from the child before the loop looks at keys and the clock again.
const READ_BUDGET: usize = 1 << 20;
/// How long a frame may be held back while the program asks for synchronized output.
const SYNC_LIMIT: Duration = Duration::from_millis(150);

/// Frames go to standard output from this thread, one at a time; the newest frame wins.
struct Writer {
    tx: Option<SyncSender<Vec<u8>>>,
    busy: Arc<AtomicBool>,
    spare: Receiver<Vec<u8>>,
    handle: Option<JoinHandle<()>>,
}

impl Writer {
    fn new(waker: UnixStream) -> Writer {
        let (tx, rx) = sync_channel::<Vec<u8>>(1);
        let (spare_tx, spare) = channel();
        let busy = Arc::new(AtomicBool::new(false));
        let b = Arc::clone(&busy);
        let handle = std::thread::spawn(move || {
            for buf in rx {
                write_fully(&buf);
                b.store(false, Ordering::Release);
                let _ = (&waker).write(&[1]);
                let _ = spare_tx.send(buf);
            }
        });
        Writer { tx: Some(tx), busy, spare, handle: Some(handle) }
    }

    fn idle(&self) -> bool {
        !self.busy.load(Ordering::Acquire)
    }

    fn buffer(&self) -> Vec<u8> {
        let mut b = self.spare.try_recv().unwrap_or_default();
        b.clear();
        b
    }

    fn send(&self, buf: Vec<u8>) {
        self.busy.store(true, Ordering::Release);
        if let Some(tx) = &self.tx {
            let _ = tx.send(buf);
        }
    }

    /// Waits until every frame handed over is written.
    fn finish(&mut self) {
        self.tx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// One write() per frame when the host takes it whole; partial writes are continued.
fn write_fully(mut buf: &[u8]) {
    let stdout = rustix::stdio::stdout();
    while !buf.is_empty() {
        match rustix::io::write(stdout, buf) {
            Ok(n) => buf = &buf[n..],
            Err(Errno::INTR) | Err(Errno::AGAIN) => continue,
            Err(_) => return,
        }
    }
}

/// The child's status as a shell reports it: its exit code, or 128 + the signal that killed it.
fn shell_status(status: std::process::ExitStatus) -> i32 {
    status.code().or_else(|| status.signal().map(|s| 128 + s)).unwrap_or(1)
}

/// Runs the session until the child exits (its status is returned) or blitty is told to stop
/// by a signal (128 + that signal).
pub fn run(opts: Options) -> Result<i32, Error> {
    if !host::is_terminal() {
        return Err(Error::NotATerminal);
    }
    let mut log = match &opts.log {
        Some(path) => {
            Some(File::create(path).map_err(|source| Error::Log { path: path.display().to_string(), source })?)
        }
        None => None,
    };
    let mut size = host::size();
    let program = opts.argv.first().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
    let mut pty = pty::spawn(&opts.argv, size).map_err(|source| Error::Spawn { program, source })?;
    let mut signals = Signals::new(&[SIGWINCH, SIGCHLD, SIGTERM, SIGHUP, SIGINT, SIGQUIT])?;
    let mut term = Terminal::with_scrollback(size.cols as usize, size.rows as usize, opts.scrollback);
    let mut presenter = AnsiPresenter::new(size.cols as usize, size.rows as usize);
    let mut leave = Vec::new();
    presenter.leave(&mut leave);
    let raw = RawMode::enter(leave)?;
    let mut writer = Writer::new(signals.waker.try_clone()?);
    let mut first = writer.buffer();
    presenter.enter(&mut first);
    writer.send(first);

    let interval = Duration::from_secs_f64(1.0 / opts.hz.clamp(1, 1000) as f64);
    let mut next_frame = Instant::now();
    let mut dirty = true;
    let mut sync_since: Option<Instant> = None;
    let mut keys = Keys::default();
    let mut offset = 0usize;
    let mut history_seen = 0usize;
    let mut to_child: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut master_open = true;
    let mut exit: Option<i32> = None;
    let mut actions = Vec::new();

    while exit.is_none() {
        let now = Instant::now();
        let timeout = if dirty && writer.idle() {
            Some(next_frame.saturating_duration_since(now))
        } else if dirty {
            // The writer wakes us when it is done.
            Some(interval)
        } else {
            None
        };
        let ts = timeout.map(|d| Timespec { tv_sec: d.as_secs() as i64, tv_nsec: d.subsec_nanos() as i64 });
        let stdin = rustix::stdio::stdin();
        let mut master_events = PollFlags::empty();
        if master_open {
            master_events |= PollFlags::IN;
            if !to_child.is_empty() {
                master_events |= PollFlags::OUT;
            }
        }
        let mut fds = [
            PollFd::new(&stdin, PollFlags::IN),
            PollFd::new(&pty.master, master_events),
            PollFd::new(&signals.wake, PollFlags::IN),
        ];
        match poll(&mut fds, ts.as_ref()) {
            Ok(_) | Err(Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
        let (key_ready, out_ready, in_ready) = (
            fds[0].revents().intersects(PollFlags::IN | PollFlags::HUP),
            fds[1].revents().intersects(PollFlags::IN | PollFlags::HUP | PollFlags::ERR),
            fds[1].revents().contains(PollFlags::OUT),
        );

        // Keys first: they are forwarded before any output is parsed.
        if key_ready {
            match rustix::io::read(stdin, &mut buf[..4096]) {
                Ok(0) => exit = Some(128 + SIGHUP),
                Ok(n) => {
                    actions.clear();
                    keys.feed(&buf[..n], size.rows as usize, &mut actions);
                    for a in actions.drain(..) {
                        match a {
                            Action::Forward(bytes) => to_child.extend_from_slice(&bytes),
                            Action::Scroll(s) => {
                                let max = term.screen().history_len();
                                offset = match s {
                                    Scroll::By(k) => (offset as isize + k).clamp(0, max as isize) as usize,
                                    Scroll::Top => max,
                                    Scroll::Bottom | Scroll::Leave => 0,
                                };
                                history_seen = max;
                                presenter.invalidate();
                                dirty = true;
                            }
                        }
                    }
                }
                Err(Errno::INTR) | Err(Errno::AGAIN) => {}
                Err(_) => exit = Some(128 + SIGHUP),
            }
        }
        if (in_ready || key_ready) && !to_child.is_empty() && master_open {
            match rustix::io::write(&pty.master, &to_child) {
                Ok(n) => {
                    to_child.drain(..n);
                }
                Err(Errno::AGAIN) | Err(Errno::INTR) => {}
                Err(_) => to_child.clear(),
            }
        }

        if out_ready && master_open {
            let mut taken = 0;
            while taken < READ_BUDGET {
                match rustix::io::read(&pty.master, &mut buf) {
                    Ok(0) | Err(Errno::IO) => {
                        master_open = false;
                        break;
                    }
                    Ok(n) => {
                        taken += n;
                        if let Some(f) = log.as_mut() {
                            f.write_all(&buf[..n])?;
                        }
                        term.feed(&buf[..n]);
                        dirty = true;
                    }
                    Err(Errno::INTR) => {}
                    Err(_) => break,
                }
            }
            let replies = term.take_replies();
            if !replies.is_empty() {
                to_child.extend_from_slice(&replies);
            }
        }

        for sig in signals.take() {
            match sig {
                SIGWINCH => {
                    let new = host::size();
                    if new != size {
                        size = new;
                        let _ = pty.resize(size);
                        term.resize(size.cols as usize, size.rows as usize);
                        let mut b = writer.buffer();
                        presenter.resize(size.cols as usize, size.rows as usize, &mut b);
                        if writer.idle() {
                            writer.send(b);
                        } else {
                            // Cleared in the next frame instead.
                            presenter.invalidate();
                        }
                        dirty = true;
                    }
                }
                SIGCHLD => {}
                other => exit = Some(128 + other),
            }
        }
        if exit.is_none() {
            if let Some(status) = pty.child.try_wait()? {
                // Take what the child wrote before it ended.
                if master_open {
                    loop {
                        match rustix::io::read(&pty.master, &mut buf) {
                            Ok(n) if n > 0 => {
                                if let Some(f) = log.as_mut() {
                                    f.write_all(&buf[..n])?;
                                }
                                term.feed(&buf[..n]);
                            }
                            Err(Errno::INTR) => {}
                            _ => break,
                        }
                    }
                }
                dirty = true;
                exit = Some(shell_status(status));
            }
        }

        // Scrollback keeps its place while output arrives underneath.
        if offset > 0 {
            let h = term.screen().history_len();
            offset = (offset + h.saturating_sub(history_seen)).min(h);
            history_seen = h;
        }
        let now = Instant::now();
        let held = term.screen().modes().synchronized_output && {
            let since = *sync_since.get_or_insert(now);
            now.duration_since(since) < SYNC_LIMIT
        };
        if !term.screen().modes().synchronized_output {
            sync_since = None;
        }
        if dirty && !held && now >= next_frame && writer.idle() && exit.is_none() {
            let mut frame = writer.buffer();
            present(&mut presenter, &term, offset, &mut frame);
            term.screen_mut().clear_damage();
            writer.send(frame);
            dirty = false;
            next_frame = now + interval;
        }
    }

    // The last frame, then the host back as it was, with the program's last output on it.
    writer.finish();
    let mut out = Vec::new();
    present(&mut presenter, &term, 0, &mut out);
    presenter.leave(&mut out);
    if !term.screen().alternate_screen() {
        ansi::transcript(term.screen(), &mut out);
    }
    raw.set_leave(out);
    drop(raw);
    let status = exit.unwrap_or(0);
    if pty.child.try_wait()?.is_none() {
        // blitty was told to stop: the child's terminal hangs up, as when a terminal closes;
        // blitty does not wait long for a child that ignores it.
        pty.hang_up(Duration::from_secs(1));
    }
    let _ = io::stdout().flush();
    Ok(status)
}

fn present(presenter: &mut AnsiPresenter, term: &Terminal, offset: usize, out: &mut Vec<u8>) {
    let view = View { screen: term.screen(), offset };
    presenter.frame(view, out);
    if offset > 0 {
        let label = format!("[scrollback {}/{}]", offset, term.screen().history_len());
        presenter.overlay(0, &label, out);
    }
}

/// Whether `fd` is a terminal (for callers deciding what to tell the user).
pub fn is_tty(fd: impl AsFd) -> bool {
    rustix::termios::isatty(fd)
}
