//! The window's virtual terminals: each a program on a pty of the window's own, or the session
//! of a session server the window is attached to, with the engine parsing what it shows.

use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::time::Duration;

use blitty_mux::pane::Pane;
use blitty_mux::proto::{self, Msg};
use blitty_os::output::Output;
use blitty_os::pty::{self, Size};
use blitty_os::status::shell_status;
use blitty_vt::Terminal;
use rustix::event::PollFlags;
use rustix::io::Errno;

/// Bytes of a vty's output parsed in one turn of the loop before the keys, the clock and the
/// frame are looked at again.
const READ_BUDGET: usize = 128 << 10;
/// The time one turn parses a vty's output for at most (each read within the engine's work
/// bound): the keys, the clock and the frame wait no longer.
const READ_TIME: Duration = Duration::from_millis(2);

/// Bytes of keys, pastes and sizes that may wait for the session server to read them: 1 MiB,
/// as much as the server itself lets wait for a program
/// ([`blitty_mux::queue::PROGRAM_INPUT_LIMIT`]). A server that reads nothing costs the window
/// this much memory, never its keys, its frames or its other vtys; what would pass the bound
/// (a larger paste, or keys while the queue is full) is refused whole and the window says so,
/// as the server says so of a paste past its own bound.
pub const SESSION_QUEUE: usize = 1 << 20;

/// Bytes of keys and pastes that may wait for a program of the window's own beyond what the
/// core's queue holds ([`blitty_mux::queue::PROGRAM_INPUT_LIMIT`]): a paste as large as the
/// window takes ([`crate::clipboard::MAX_PASTE`]) and some typing after it. Past it, keys are
/// refused whole and the window says so.
pub const BACKLOG: usize = crate::clipboard::MAX_PASTE + (1 << 20);
/// The pieces the backlog moves into the pane's queue in (each fits whole or waits).
const BACKLOG_PIECE: usize = 16 << 10;

/// Keys and pastes go to a session in messages of at most this many bytes (a paste is larger
/// than one message the server takes).
const INPUT_PIECE: usize = 64 << 10;

/// Where a virtual terminal's output comes from.
enum Source {
    /// A program on a pty of the window's own.
    Pty(pty::Pty),
    /// A session of the session server (`--attach`): its frames come on the socket, keys and
    /// sizes go there (the window is one more client, as `blitty attach` is).
    Session(Session),
}

/// The window's end of an attachment.
struct Session {
    /// The server's socket, non-blocking both ways, and the messages waiting to be written to
    /// it: a server that stops reading must not stop the window.
    out: Output<UnixStream>,
    frames: proto::Frames,
    /// The attachment is over (detached, the session ended, the server went away), with why.
    exit: Option<(i32, String)>,
    /// A size the queue had no room for, sent once it has (a later size replaces it).
    size: Option<(u16, u16)>,
}

const GONE: &str = "the blitty server went away";

impl Session {
    /// Queues encoded messages if they fit under SESSION_QUEUE with what already waits.
    fn queue(&mut self, msgs: &[u8]) -> bool {
        let unsent = self.out.unsent().len();
        if unsent + msgs.len() > SESSION_QUEUE {
            return false;
        }
        // What was written stays in the buffer until all of it is: once it is as large as the
        // bound it is dropped, so that a server that keeps up but never quite catches up does
        // not make the buffer grow without end.
        if self.out.queue().len() - unsent >= SESSION_QUEUE {
            let rest = self.out.unsent().to_vec();
            self.out.discard();
            self.out.queue().extend_from_slice(&rest);
        }
        self.out.queue().extend_from_slice(msgs);
        true
    }

    /// Writes as much as the server takes now, then the size that waited for room.
    fn flush(&mut self) {
        if !self.out.flush() {
            self.exit.get_or_insert((1, GONE.into()));
            return;
        }
        if let Some((cols, rows)) = self.size {
            let mut msg = Vec::new();
            proto::encode(&Msg::Resize { cols, rows }, &mut msg);
            if self.queue(&msg) {
                self.size = None;
                self.out.flush();
            }
        }
    }

    fn wants_out(&self) -> bool {
        !self.out.idle() || self.size.is_some()
    }
}

/// A virtual terminal of the window: a program on a pty (or a session), and the core's pane of
/// it (its engine, what waits for the program, its bell and clipboard, the synchronized-output
/// hold), as `blitty run`'s and every session's vty.
pub struct Vty {
    pub pane: Pane,
    src: Source,
    /// Keys and pastes for a program that do not fit what may wait for it yet (a paste of
    /// megabytes arrives in one piece from the clipboard): moved into the pane's queue as the
    /// program takes its input, in order, so a key typed meanwhile goes after them.
    backlog: Vec<u8>,
    backlog_at: usize,
    /// Its pty (or socket) can still be read.
    pub open: bool,
    /// Its program ended, with this status.
    pub ended: Option<i32>,
    /// The bells of its screen already passed on.
    pub bells: u64,
}

impl Vty {
    pub fn start(argv: &[std::ffi::OsString], cols: usize, rows: usize, scrollback: usize) -> std::io::Result<Vty> {
        let pty = pty::spawn(argv, Size { cols: cols as u16, rows: rows as u16 })?;
        let pane = Pane::new(Terminal::with_scrollback(cols, rows, scrollback), None);
        Ok(Vty { pane, src: Source::Pty(pty), backlog: Vec::new(), backlog_at: 0, open: true, ended: None, bells: 0 })
    }

    /// Attaches to session `name` of the server on `socket` as a client of `cols` x `rows`.
    pub fn attach(
        socket: &std::path::Path,
        name: &str,
        cols: usize,
        rows: usize,
        scrollback: usize,
    ) -> Result<Vty, String> {
        use blitty_mux::client;
        let stream = client::connect(socket, None)?;
        let req = proto::Request::Attach { name: Some(name.to_string()), cols: cols as u16, rows: rows as u16 };
        let (stream, frames, first) = client::attach(stream, req)?;
        stream.set_nonblocking(true).map_err(|e| format!("the blitty server's socket: {e}"))?;
        let session = Session { out: Output::new(stream), frames, exit: None, size: None };
        let mut pane = Pane::new(Terminal::with_scrollback(cols, rows, scrollback), None);
        // The server's engine answers the program; this one's answers go nowhere.
        pane.deaf = true;
        let mut v = Vty {
            pane,
            src: Source::Session(session),
            backlog: Vec::new(),
            backlog_at: 0,
            open: true,
            ended: None,
            bells: 0,
        };
        v.message(first);
        v.resize(cols, rows);
        v.write();
        Ok(v)
    }

    /// Moves what the backlog holds into the pane's queue, in pieces, while there is room.
    fn top_up(&mut self) {
        while self.backlog_at < self.backlog.len() {
            let end = (self.backlog_at + BACKLOG_PIECE).min(self.backlog.len());
            // Only a piece that fits whole is given (the queue would send a paste's end even
            // when the rest of the piece does not fit).
            if self.pane.input.len() + (end - self.backlog_at) > blitty_mux::queue::PROGRAM_INPUT_LIMIT {
                return;
            }
            self.pane.input.keys(&self.backlog[self.backlog_at..end]);
            self.backlog_at = end;
        }
        self.backlog.clear();
        self.backlog_at = 0;
    }

    /// A message of the session server.
    fn message(&mut self, msg: Msg) {
        let Source::Session(s) = &mut self.src else {
            return;
        };
        match msg {
            Msg::Output(bytes) => {
                // A whole frame of the server's, parsed whole (it holds no program's output).
                self.pane.term.feed(&bytes);
                let _ = self.pane.term.take_replies();
                self.pane.generation += 1;
            }
            Msg::Exit { reason, status } => s.exit = Some((status as i32, reason)),
            Msg::Error(e) => s.exit = Some((2, e)),
            _ => {}
        }
    }

    /// Until when the frame waits for the program, while it is in a synchronized update (mode
    /// 2026; see [`Pane::sync_hold`]). A session's frames come whole from the server: they
    /// never wait.
    pub fn held(&mut self, now: std::time::Instant) -> Option<std::time::Instant> {
        match self.src {
            Source::Pty(_) => self.pane.sync_hold(now),
            Source::Session(_) => None,
        }
    }

    /// What the poll waits on.
    pub fn fd(&self) -> std::os::fd::BorrowedFd<'_> {
        match &self.src {
            Source::Pty(p) => p.master.as_fd(),
            Source::Session(s) => s.out.fd.as_fd(),
        }
    }

    /// What the poll waits for: output, and room for what waits to be written.
    pub fn events(&self) -> PollFlags {
        let out = match &self.src {
            Source::Pty(_) => !self.pane.input.is_empty() || self.backlog_at < self.backlog.len(),
            Source::Session(s) => s.wants_out(),
        };
        if out {
            PollFlags::IN | PollFlags::OUT
        } else {
            PollFlags::IN
        }
    }

    /// Bytes for the program: keys, mouse reports, focus events, a paste. A session's wait in
    /// its queue; what does not fit is refused whole, and why is returned.
    pub fn input(&mut self, bytes: &[u8]) -> Result<(), String> {
        let s = match &mut self.src {
            Source::Pty(_) => {
                let waiting = self.backlog.len() - self.backlog_at;
                if waiting + bytes.len() > BACKLOG {
                    let mib = BACKLOG >> 20;
                    return Err(format!(
                        "{} bytes typed or pasted were not sent: the program is not reading its input \
                         (at most {mib} MiB wait for it)",
                        bytes.len()
                    ));
                }
                if waiting == 0 && self.pane.input.len() + bytes.len() <= blitty_mux::queue::PROGRAM_INPUT_LIMIT {
                    self.pane.input.keys(bytes);
                    return Ok(());
                }
                self.backlog.extend_from_slice(bytes);
                self.top_up();
                return Ok(());
            }
            Source::Session(s) => s,
        };
        if !self.open || s.exit.is_some() {
            return Ok(());
        }
        let mut msgs = Vec::with_capacity(bytes.len() + 64);
        for piece in bytes.chunks(INPUT_PIECE) {
            proto::encode(&Msg::Input(piece.to_vec()), &mut msgs);
        }
        if s.queue(&msgs) {
            return Ok(());
        }
        let kib = SESSION_QUEUE >> 10;
        Err(if msgs.len() > SESSION_QUEUE {
            format!("a paste of {} bytes was not sent: at most {kib} KiB may wait for the session", bytes.len())
        } else {
            format!(
                "{} bytes typed or pasted were not sent: the session is not reading them (at most {kib} KiB wait for it)",
                bytes.len()
            )
        })
    }

    /// Reads what the program wrote (at most READ_BUDGET a turn, so one flooding vty cannot
    /// hold the loop) into the engine; its answers are queued. How many bytes.
    pub fn read(&mut self, buf: &mut [u8]) -> usize {
        match &mut self.src {
            Source::Pty(_) => self.read_pty(buf),
            Source::Session(_) => self.read_session(buf),
        }
    }

    fn read_pty(&mut self, buf: &mut [u8]) -> usize {
        let Source::Pty(pty) = &mut self.src else {
            return 0;
        };
        // What waits for the program (answers past half its bound) leaves its output unread,
        // as a terminal whose buffer is full makes it wait in its write.
        if !self.pane.takes_output() && !self.pane.held_back() {
            return 0;
        }
        let read = self.pane.read_fd(pty.master.as_fd(), buf, READ_BUDGET, READ_TIME, false);
        if read.gone {
            self.open = false;
        }
        read.parsed
    }

    /// One read of the server's socket (the poll said there is something), its messages taken.
    fn read_session(&mut self, buf: &mut [u8]) -> usize {
        let Source::Session(s) = &mut self.src else {
            return 0;
        };
        let n = match std::io::Read::read(&mut &s.out.fd, buf) {
            Ok(0) => {
                self.open = false;
                s.exit.get_or_insert((1, GONE.into()));
                return 0;
            }
            Ok(n) => n,
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted) => return 0,
            Err(_) => {
                self.open = false;
                s.exit.get_or_insert((1, GONE.into()));
                return 0;
            }
        };
        s.frames.push(&buf[..n]);
        let mut msgs = Vec::new();
        while let Ok(Some(m)) = s.frames.next_msg() {
            msgs.push(m);
        }
        msgs.into_iter().for_each(|m| self.message(m));
        n
    }

    /// Writes what the program has not taken yet, as much as the pty (or the server's socket)
    /// takes now.
    pub fn write(&mut self) {
        if !self.open {
            return;
        }
        match &mut self.src {
            Source::Pty(_) => {
                self.top_up();
                let Source::Pty(pty) = &self.src else { return };
                if self.pane.input.is_empty() {
                    return;
                }
                match rustix::io::write(&pty.master, self.pane.input.unsent()) {
                    Ok(n) => self.pane.input.sent(n),
                    Err(Errno::AGAIN) | Err(Errno::INTR) => {}
                    Err(_) => self.pane.input.clear(),
                }
            }
            Source::Session(s) => s.flush(),
        }
    }

    /// The program's status if it has ended (what it wrote last is read first); a session's
    /// when the server said the attachment is over (detached, or the session ended), with why.
    pub fn reap(&mut self, buf: &mut [u8]) -> Option<i32> {
        if self.ended.is_some() {
            return None;
        }
        let status = match &mut self.src {
            Source::Pty(pty) => {
                let status = pty.child.try_wait().ok().flatten()?;
                // What it wrote last is read before it goes; nobody reads the answers now.
                self.pane.deaf = true;
                let fd = pty.master.as_fd();
                loop {
                    let r = self.pane.read_fd(fd, buf, READ_BUDGET, READ_TIME, false);
                    if r.gone || (r.parsed == 0 && !self.pane.held_back()) {
                        break;
                    }
                }
                shell_status(status)
            }
            Source::Session(s) => {
                let (status, reason) = s.exit.clone()?;
                eprintln!("blitty window: {}", blitty_mux::names::defanged(&reason));
                status
            }
        };
        self.open = false;
        self.ended = Some(status);
        self.ended
    }

    pub fn resize(&mut self, cols: usize, rows: usize) {
        self.pane.term.resize(cols, rows);
        self.pane.generation += 1;
        let size = Size { cols: cols as u16, rows: rows as u16 };
        match &mut self.src {
            Source::Pty(p) => {
                let _ = p.resize(size);
            }
            Source::Session(s) => {
                // Queued when the flush after the turn's events finds room.
                s.size = Some((size.cols, size.rows));
            }
        }
    }

    /// The window closes: a program is hung up (killed if it will not go); a session is left
    /// running (the window detaches, as a closed terminal does in tmux), with what the server
    /// takes at once of what waited for it.
    pub fn close(&mut self) {
        if self.ended.is_some() {
            return;
        }
        match &mut self.src {
            Source::Pty(p) => {
                if !p.hang_up(Duration::from_secs(1)) {
                    let _ = p.child.kill();
                    let _ = p.child.wait();
                }
            }
            Source::Session(s) => {
                s.out.flush();
            }
        }
    }
}

/// Shows the `n`th of all the vtys (in order: `others[..at]`, the shown `cur`, `others[at..]`):
/// it changes places with `cur`, which goes back to its own place among the others.
pub fn show<T>(others: &mut Vec<T>, cur: &mut T, at: &mut usize, n: usize) {
    let shown = others.remove(n - (n > *at) as usize);
    let was = std::mem::replace(cur, shown);
    others.insert(*at - (n < *at) as usize, was);
    *at = n;
}
