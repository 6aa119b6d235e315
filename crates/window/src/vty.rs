//! The window's virtual terminals: each a program on a pty of the window's own, or the session
//! of a session server the window is attached to, with the engine parsing what it shows.

use std::os::fd::AsFd;
use std::time::Duration;

use blitty_mux::proto::{self, Msg};
use blitty_os::pty::{self, Size};
use blitty_os::status::shell_status;
use blitty_vt::Terminal;
use rustix::event::PollFlags;
use rustix::io::Errno;

/// Bytes of a vty's output parsed in one turn of the loop before the keys, the clock and the
/// frame are looked at again.
const READ_BUDGET: usize = 128 << 10;

/// Where a virtual terminal's output comes from.
enum Source {
    /// A program on a pty of the window's own.
    Pty(pty::Pty),
    /// A session of the session server (`--attach`): its frames come on the socket, keys and
    /// sizes go there (the window is one more client, as `blitty attach` is).
    Session { stream: std::os::unix::net::UnixStream, frames: proto::Frames, exit: Option<(i32, String)> },
}

/// A virtual terminal of the window: a program on a pty (or a session), the engine parsing its
/// output, the bytes it has not taken yet.
pub struct Vty {
    pub term: Terminal,
    src: Source,
    to_child: Vec<u8>,
    /// Its pty can still be read.
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
        let mut v = Vty {
            term: Terminal::with_scrollback(cols, rows, scrollback),
            src: Source::Session { stream, frames, exit: None },
            to_child: Vec::new(),
            open: true,
            ended: None,
            bells: 0,
        };
        v.message(first);
        v.send(&Msg::Resize { cols: cols as u16, rows: rows as u16 });
        Ok(v)
    }

    /// A message of the session server.
    fn message(&mut self, msg: Msg) {
        let Source::Session { exit, .. } = &mut self.src else {
            return;
        };
        match msg {
            Msg::Output(bytes) => {
                self.term.feed(&bytes);
                // The server's engine answers the program; this one's answers go nowhere.
                let _ = self.term.take_replies();
            }
            Msg::Exit { reason, status } => *exit = Some((status as i32, reason)),
            Msg::Error(e) => *exit = Some((2, e)),
            _ => {}
        }
    }

    fn send(&mut self, msg: &Msg) {
        if let Source::Session { stream, exit, .. } = &mut self.src {
            if blitty_mux::client::send(stream, msg).is_err() && exit.is_none() {
                *exit = Some((1, "the blitty server went away".into()));
            }
        }
    }

    /// What the poll waits on.
    pub fn fd(&self) -> std::os::fd::BorrowedFd<'_> {
        match &self.src {
            Source::Pty(p) => p.master.as_fd(),
            Source::Session { stream, .. } => stream.as_fd(),
        }
    }

    /// What the poll waits for: output, and room for what waits to be written.
    pub fn events(&self) -> PollFlags {
        if self.to_child.is_empty() {
            PollFlags::IN
        } else {
            PollFlags::IN | PollFlags::OUT
        }
    }

    /// Bytes for the program: keys, mouse reports, focus events, a paste.
    pub fn input(&mut self, bytes: &[u8]) {
        self.to_child.extend_from_slice(bytes);
    }

    /// Reads what the program wrote (at most READ_BUDGET a turn, so one flooding vty cannot
    /// hold the loop) into the engine; its answers are queued. How many bytes.
    pub fn read(&mut self, buf: &mut [u8]) -> usize {
        match &mut self.src {
            Source::Pty(_) => self.read_pty(buf),
            Source::Session { .. } => self.read_session(buf),
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

    /// One read of the server's socket (the poll said there is something: the socket
    /// blocks), its messages taken.
    fn read_session(&mut self, buf: &mut [u8]) -> usize {
        let Source::Session { stream, frames, exit } = &mut self.src else {
            return 0;
        };
        let n = match std::io::Read::read(stream, buf) {
            Ok(0) | Err(_) => {
                self.open = false;
                exit.get_or_insert((1, "the blitty server went away".into()));
                return 0;
            }
            Ok(n) => n,
        };
        frames.push(&buf[..n]);
        let mut msgs = Vec::new();
        while let Ok(Some(m)) = frames.next_msg() {
            msgs.push(m);
        }
        msgs.into_iter().for_each(|m| self.message(m));
        n
    }

    /// Writes what the program has not taken yet, as much as the pty takes now (to a session,
    /// as messages).
    pub fn write(&mut self) {
        if !self.open || self.to_child.is_empty() {
            return;
        }
        let pty = match &mut self.src {
            Source::Pty(p) => p,
            Source::Session { .. } => {
                // In pieces the server takes (a paste can be larger than one message).
                let keys = std::mem::take(&mut self.to_child);
                for piece in keys.chunks(64 * 1024) {
                    self.send(&Msg::Input(piece.to_vec()));
                }
                return;
            }
        };
        match rustix::io::write(&pty.master, &self.to_child) {
            Ok(n) => {
                self.to_child.drain(..n);
            }
            Err(Errno::AGAIN) | Err(Errno::INTR) => {}
            Err(_) => self.to_child.clear(),
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
            Source::Session { exit, .. } => {
                let (status, reason) = exit.clone()?;
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
            Source::Session { .. } => self.send(&Msg::Resize { cols: size.cols, rows: size.rows }),
        }
    }

    /// The window closes: a program is hung up (killed if it will not go); a session is left
    /// running (the window detaches, as a closed terminal does in tmux).
    pub fn close(&mut self) {
        if self.ended.is_some() {
            return;
        }
        if let Source::Pty(p) = &mut self.src {
            if !p.hang_up(Duration::from_secs(1)) {
                let _ = p.child.kill();
                let _ = p.child.wait();
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
