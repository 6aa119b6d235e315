//! The window's virtual terminals: each a program on a pty of the window's own, or the session
//! of a session server the window is attached to, with the engine parsing what it shows.

use std::os::fd::AsFd;
use std::os::unix::net::UnixStream;
use std::time::Duration;

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

/// Bytes of keys, pastes and sizes that may wait for the session server to read them: 1 MiB,
/// as much as the server itself lets wait for a program
/// ([`blitty_mux::queue::PROGRAM_INPUT_LIMIT`]). A server that reads nothing costs the window
/// this much memory, never its keys, its frames or its other vtys; what would pass the bound
/// (a larger paste, or keys while the queue is full) is refused whole and the window says so,
/// as the server says so of a paste past its own bound.
pub const SESSION_QUEUE: usize = 1 << 20;

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

/// A virtual terminal of the window: a program on a pty (or a session), the engine parsing its
/// output, the bytes it has not taken yet.
pub struct Vty {
    pub term: Terminal,
    src: Source,
    /// What the program has not taken yet (a pty's; a session's waits in its queue).
    to_child: Vec<u8>,
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
        let term = Terminal::with_scrollback(cols, rows, scrollback);
        Ok(Vty { term, src: Source::Pty(pty), to_child: Vec::new(), open: true, ended: None, bells: 0 })
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
        let mut v = Vty {
            term: Terminal::with_scrollback(cols, rows, scrollback),
            src: Source::Session(session),
            to_child: Vec::new(),
            open: true,
            ended: None,
            bells: 0,
        };
        v.message(first);
        v.resize(cols, rows);
        v.write();
        Ok(v)
    }

    /// A message of the session server.
    fn message(&mut self, msg: Msg) {
        let Source::Session(s) = &mut self.src else {
            return;
        };
        match msg {
            Msg::Output(bytes) => {
                self.term.feed(&bytes);
                // The server's engine answers the program; this one's answers go nowhere.
                let _ = self.term.take_replies();
            }
            Msg::Exit { reason, status } => s.exit = Some((status as i32, reason)),
            Msg::Error(e) => s.exit = Some((2, e)),
            _ => {}
        }
    }

    /// Whether the frame waits for the program: it is in a synchronized update (mode 2026). A
    /// session's frames come whole from the server: they never wait.
    pub fn synchronized(&self) -> bool {
        matches!(self.src, Source::Pty(_)) && self.term.screen().modes().synchronized_output
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
            Source::Pty(_) => !self.to_child.is_empty(),
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
                self.to_child.extend_from_slice(bytes);
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
        let mut taken = 0;
        while taken < READ_BUDGET {
            match rustix::io::read(&pty.master, &mut *buf) {
                Ok(0) => {
                    self.open = false;
                    break;
                }
                Ok(n) => {
                    taken += n;
                    self.term.feed(&buf[..n]);
                }
                Err(Errno::AGAIN) => break,
                Err(Errno::INTR) => {}
                Err(_) => {
                    self.open = false;
                    break;
                }
            }
        }
        if taken > 0 {
            self.to_child.extend_from_slice(&self.term.take_replies());
        }
        taken
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
            Source::Pty(pty) => {
                if self.to_child.is_empty() {
                    return;
                }
                match rustix::io::write(&pty.master, &self.to_child) {
                    Ok(n) => {
                        self.to_child.drain(..n);
                    }
                    Err(Errno::AGAIN) | Err(Errno::INTR) => {}
                    Err(_) => self.to_child.clear(),
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
                while let Ok(n @ 1..) = rustix::io::read(&pty.master, &mut *buf) {
                    self.term.feed(&buf[..n]);
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
        self.term.resize(cols, rows);
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
