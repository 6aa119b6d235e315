//! The client side of the session server: `blitty new`, `attach`, `ls` and `kill`.
//!
//! An attached client is thin, as tmux's is: it puts the terminal in raw mode, sends the keys
//! and its size to the server, and writes what the server sends (whole frames, one write each)
//! to the terminal. Everything else (the prefix keys, the frames, the status row) is the
//! server's, so a client that dies, however it dies, loses nothing but itself.

use std::io::{self, Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rustix::event::PollFlags;
use rustix::io::Errno;

use crate::proto::{self, Frames, Msg, Request};
use blitty_os::event::PollSet;
use blitty_os::host::{self, RawMode};
use blitty_os::output::Output;
use blitty_os::pty::Size;
use blitty_os::signals::{Signals, SIGCONT, SIGHUP, SIGINT, SIGTERM, SIGTSTP, SIGWINCH};

/// How long a client waits for a server it started to answer.
const START_WAIT: Duration = Duration::from_secs(5);

/// How a request ended.
pub enum Outcome {
    /// The server's answer in words (a listing; empty for none).
    Text(String),
    /// The attachment ended: why, and the status to exit with.
    Ended { reason: String, status: u8 },
}

/// Connects to the server on `socket` if one answers there: `None` when none does. The socket's
/// directory and the server's uid are checked first (see [`crate::sockdir`]).
pub fn connect_if_running(socket: &Path) -> Result<Option<UnixStream>, String> {
    if let Some(dir) = socket.parent() {
        if !crate::sockdir::check(dir).map_err(|e| e.to_string())? {
            return Ok(None);
        }
    }
    match UnixStream::connect(socket) {
        Ok(s) => {
            crate::sockdir::check_server(&s, socket)?;
            Ok(Some(s))
        }
        Err(e) if matches!(e.kind(), io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused) => Ok(None),
        Err(e) => Err(format!("cannot connect to {}: {e}", socket.display())),
    }
}

/// Connects to the server on `socket`, starting one (`start`: the program and the arguments
/// that run it) when none answers.
pub fn connect(socket: &Path, start: Option<&[std::ffi::OsString]>) -> Result<UnixStream, String> {
    if let Some(s) = connect_if_running(socket)? {
        return Ok(s);
    }
    if start.is_none() {
        return Err(format!("no blitty server is running on {} (blitty new starts one)", socket.display()));
    }
    let argv = start.unwrap_or_default();
    let (program, args) = argv.split_first().ok_or("no server program")?;
    let mut cmd = std::process::Command::new(program);
    // The server holds no directory (it outlives the client's); programs start where their
    // client asks.
    cmd.args(args)
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    // SAFETY: setsid is async-signal-safe; the closure allocates nothing.
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(|| {
            rustix::process::setsid()?;
            Ok(())
        });
    }
    let mut child = cmd.spawn().map_err(|e| format!("cannot start the blitty server: {e}"))?;
    let deadline = Instant::now() + START_WAIT;
    loop {
        if let Some(s) = connect_if_running(socket)? {
            // The server keeps running on its own; its stderr pipe closes when it detaches it.
            drop(child.stderr.take());
            return Ok(s);
        }
        if let Ok(Some(_)) = child.try_wait() {
            let mut why = String::new();
            if let Some(mut e) = child.stderr.take() {
                let _ = e.read_to_string(&mut why);
            }
            let why = why.trim().trim_start_matches("blitty: ");
            return Err(if why.is_empty() { "the blitty server did not start".to_string() } else { why.to_string() });
        }
        if Instant::now() > deadline {
            return Err(format!("the blitty server did not answer on {} within 5 s", socket.display()));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Sends a message to the server.
pub fn send(stream: &mut UnixStream, msg: &Msg) -> io::Result<()> {
    let mut out = Vec::new();
    proto::encode(msg, &mut out);
    stream.write_all(&out)
}

/// Reads the next message (blocking).
fn next(stream: &mut UnixStream, frames: &mut Frames) -> Result<Msg, String> {
    let mut buf = [0u8; 65536];
    loop {
        if let Some(m) = frames.next_msg().map_err(|e| format!("the server's answer: {e}"))? {
            return Ok(m);
        }
        match stream.read(&mut buf) {
            Ok(0) => return Err("the blitty server closed the connection".into()),
            Ok(n) => frames.push(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("the blitty server: {e}")),
        }
    }
}

/// The hello both ways; then the request.
pub fn request(stream: UnixStream, req: Request) -> Result<Outcome, String> {
    request_on(stream, req, Display::Terminal)
}

/// Where an attached client shows the frames.
pub enum Display {
    /// This terminal (standard output): the frames are written to it as they come.
    Terminal,
    /// A surface of pixels (`blitty console`'s framebuffer): the frames are parsed by an engine
    /// of the surface's own and drawn by the pixel renderer.
    Pixels(Box<dyn Surface>),
}

/// A display drawn from the server's frames by the client itself (the pixel displays, above
/// this crate): it keeps its own size, whatever the terminal does.
pub trait Surface {
    /// Its size in cells.
    fn size(&self) -> (u16, u16);
    /// A frame from the server (ANSI, as for a terminal).
    fn feed(&mut self, bytes: &[u8]);
    /// Shows what the frames fed since the last call changed.
    fn present(&mut self) -> io::Result<()>;
}

/// Sends the hello and `req` in one write, and checks the server's hello.
fn hello(stream: &mut UnixStream, req: Request, frames: &mut Frames) -> Result<(), String> {
    let lost = |e: io::Error| format!("the blitty server: {e}");
    // The hello and the request in one write (the server takes them in order; one of another
    // version answers the hello with an error and reads no further).
    let mut out = Vec::new();
    proto::encode(&Msg::Hello { version: proto::VERSION }, &mut out);
    let hello = out.len();
    proto::encode(&Msg::Request(req), &mut out);
    if out.len() - hello - 4 > proto::MAX_CLIENT_FRAME {
        return Err(format!(
            "the request is {} bytes, more than the server takes ({} KiB): a shorter command line or path",
            out.len() - hello - 4,
            proto::MAX_CLIENT_FRAME >> 10
        ));
    }
    let sent = stream.write_all(&out);
    // A server that refused at once (another user) has closed: its reason is still there.
    let first = match (sent, next(stream, frames)) {
        (_, Ok(m)) => m,
        (Err(e), Err(_)) => return Err(lost(e)),
        (Ok(()), Err(e)) => return Err(e),
    };
    match first {
        Msg::Hello { version } if version == proto::VERSION => Ok(()),
        Msg::Hello { version } => Err(format!(
            "the blitty server speaks protocol version {version} and this client {}: end the old \
             server's sessions and start again with one blitty",
            proto::VERSION
        )),
        Msg::Error(e) => Err(crate::names::defanged(&e)),
        _ => Err("the blitty server answered out of turn".into()),
    }
}

/// Attaches with `req` (an attach, or a new session not detached) for a display of the
/// caller's own (the window): the server's first frame (or its refusal, as the error) has
/// arrived; the caller goes on reading `frames` from the stream and sends keys and sizes.
pub fn attach(mut stream: UnixStream, req: Request) -> Result<(UnixStream, Frames, Msg), String> {
    let mut frames = Frames::default();
    hello(&mut stream, req, &mut frames)?;
    match next(&mut stream, &mut frames)? {
        Msg::Error(e) => Err(crate::names::defanged(&e)),
        first => Ok((stream, frames, first)),
    }
}

pub fn request_on(mut stream: UnixStream, req: Request, mut display: Display) -> Result<Outcome, String> {
    let attaching = matches!(req, Request::Attach { .. } | Request::New { detached: false, .. });
    let mut frames = Frames::default();
    hello(&mut stream, req, &mut frames)?;
    if !attaching {
        return match next(&mut stream, &mut frames)? {
            Msg::Text(t) => Ok(Outcome::Text(t)),
            Msg::Error(e) => Err(crate::names::defanged(&e)),
            _ => Err("the blitty server answered out of turn".into()),
        };
    }
    attached(stream, frames, &mut display)
}

/// The parts of the client's loop, as its poll set names them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Keys,
    Server,
    Terminal,
    Signals,
}

/// Keys waiting for the server at most: past this (a server that stopped reading) the client
/// stops reading the keyboard, as a terminal whose program does not read stops taking input.
const KEYS_WAITING: usize = 1 << 20;

/// An attached client: keys and sizes up, frames down, each written without blocking. A
/// terminal that does not take its frames makes the client stop reading the server (the
/// server then skips frames for it, as it does for any slow client); a server that does not
/// take the keys makes it stop reading the keyboard. Neither can hold the other's direction.
struct Attached<'a> {
    server: Output<UnixStream>,
    frames: Frames,
    /// The user's terminal, for a client drawing there.
    terminal: Option<Output<OwnedFd>>,
    display: &'a mut Display,
    raw: RawMode,
    signals: Signals,
    size: Size,
    buf: Vec<u8>,
    /// Frames arrived for a pixel display since it last drew.
    drawn: bool,
}

fn attached(mut stream: UnixStream, mut frames: Frames, display: &mut Display) -> Result<Outcome, String> {
    // The first answer decides: an error is said before the terminal changes.
    let first = next(&mut stream, &mut frames)?;
    if let Msg::Error(e) = first {
        return Err(crate::names::defanged(&e));
    }
    let raw = RawMode::enter().map_err(|e| format!("cannot put the terminal in raw mode: {e}"))?;
    // SIGTTIN and SIGTTOU keep their default (stop), as in `blitty run`.
    let signals = Signals::new(&[SIGWINCH, SIGTERM, SIGHUP, SIGINT, SIGTSTP, SIGCONT]).map_err(|e| e.to_string())?;
    stream.set_nonblocking(true).map_err(|e| e.to_string())?;
    let (size, terminal) = match display {
        Display::Terminal => (host::size(), Some(Output::new(host::frame_output().map_err(|e| e.to_string())?))),
        Display::Pixels(p) => {
            let (cols, rows) = p.size();
            (Size { cols, rows }, None)
        }
    };
    let mut a = Attached {
        server: Output::new(stream),
        frames,
        terminal,
        display,
        raw,
        signals,
        size,
        buf: vec![0u8; 65536],
        drawn: false,
    };
    a.send(&Msg::Resize { cols: size.cols, rows: size.rows });
    let outcome = match a.message(first) {
        Some(end) => end,
        None => loop {
            if let Some(end) = a.turn()? {
                break end;
            }
        },
    };
    // What the server said last (the terminal given back) reaches the terminal.
    if let Some(t) = a.terminal.as_mut() {
        t.finish();
    }
    drop(a);
    Ok(outcome)
}

impl Attached<'_> {
    /// A stop, as `blitty run` takes it: the terminal given back as the shell had it before
    /// the client stops; continued in the foreground, raw again, and the server asked for the
    /// whole screen (its size said again), since the shell had the terminal meanwhile. The
    /// session goes on meanwhile; the server skips the frames the stopped client does not take.
    fn stop_and_continue(&mut self, stop: bool) -> io::Result<()> {
        if let Some(t) = self.terminal.as_mut() {
            t.finish();
        }
        if stop {
            self.raw.suspend(blitty_present::ansi::RESET_HOST.to_vec());
            blitty_os::signals::stop_as(SIGTSTP);
        }
        while !host::foreground() {
            blitty_os::signals::stop_as(blitty_os::signals::SIGTTOU);
        }
        if stop {
            self.raw.resume()?;
        } else {
            self.raw.reapply()?;
        }
        let size = if self.terminal.is_some() { host::size() } else { self.size };
        self.size = size;
        self.send(&Msg::Resize { cols: size.cols, rows: size.rows });
        Ok(())
    }

    fn send(&mut self, msg: &Msg) {
        proto::encode(msg, self.server.queue());
        self.server.flush();
    }

    /// A message from the server; `Some` when the attachment is over.
    fn message(&mut self, msg: Msg) -> Option<Outcome> {
        match msg {
            Msg::Output(bytes) => match (&mut self.terminal, &mut *self.display) {
                (Some(t), _) => {
                    t.queue().extend_from_slice(&bytes);
                    if !t.flush() {
                        return Some(Outcome::Ended { reason: "the terminal went away".into(), status: 1 });
                    }
                }
                (None, Display::Pixels(p)) => {
                    p.feed(&bytes);
                    self.drawn = true;
                }
                (None, Display::Terminal) => {}
            },
            Msg::Exit { reason, status } => return Some(Outcome::Ended { reason, status }),
            Msg::Error(e) => return Some(Outcome::Ended { reason: e, status: 2 }),
            _ => {}
        }
        None
    }

    fn terminal_idle(&self) -> bool {
        self.terminal.as_ref().is_none_or(|t| t.idle())
    }

    /// One turn: the messages already read (while the terminal takes them), a poll, then the
    /// server, the keys, the signals.
    fn turn(&mut self) -> Result<Option<Outcome>, String> {
        while self.terminal_idle() {
            let Some(msg) = self.frames.next_msg().map_err(|e| format!("the server's answer: {e}"))? else { break };
            if let Some(end) = self.message(msg) {
                return Ok(Some(end));
            }
        }
        // The frames that came are drawn together (the server sends at most hz a second).
        if let (true, Display::Pixels(p)) = (std::mem::take(&mut self.drawn), &mut *self.display) {
            if let Err(e) = p.present() {
                return Ok(Some(Outcome::Ended { reason: format!("the framebuffer: {e}"), status: 2 }));
            }
        }
        let stdin = rustix::stdio::stdin();
        let mut set = PollSet::new();
        if self.server.unsent().len() < KEYS_WAITING {
            set.add(stdin, PollFlags::IN, Part::Keys);
        }
        let mut ev = PollFlags::empty();
        if self.terminal_idle() {
            ev |= PollFlags::IN;
        }
        if !self.server.idle() {
            ev |= PollFlags::OUT;
        }
        set.add(self.server.fd.as_fd(), ev, Part::Server);
        if let Some(t) = self.terminal.as_ref().filter(|t| !t.idle()) {
            set.add(t.fd.as_fd(), PollFlags::OUT, Part::Terminal);
        }
        set.add(self.signals.wake.as_fd(), PollFlags::IN, Part::Signals);
        set.wait(None).map_err(|e| e.to_string())?;
        let (keys, server, terminal, sig) =
            (set.events(Part::Keys), set.events(Part::Server), set.events(Part::Terminal), set.events(Part::Signals));
        drop(set);
        if !terminal.is_empty() && !self.terminal.as_mut().is_none_or(|t| t.flush()) {
            return Ok(Some(Outcome::Ended { reason: "the terminal went away".into(), status: 1 }));
        }
        if server.contains(PollFlags::OUT) && !self.server.flush() {
            return Ok(Some(Outcome::Ended { reason: "the blitty server went away".into(), status: 1 }));
        }
        if server.intersects(PollFlags::IN | PollFlags::HUP | PollFlags::ERR) {
            if let Some(end) = self.read_server() {
                return Ok(Some(end));
            }
        }
        if !keys.is_empty() {
            if let Some(end) = self.read_keys() {
                return Ok(Some(end));
            }
        }
        if !sig.is_empty() {
            return Ok(self.signals());
        }
        Ok(None)
    }

    fn read_server(&mut self) -> Option<Outcome> {
        match (&self.server.fd).read(&mut self.buf) {
            Ok(0) => Some(Outcome::Ended { reason: "the blitty server went away".into(), status: 1 }),
            Ok(n) => {
                self.frames.push(&self.buf[..n]);
                None
            }
            Err(e) if matches!(e.kind(), io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock) => None,
            Err(e) => Some(Outcome::Ended { reason: format!("the blitty server: {e}"), status: 1 }),
        }
    }

    fn read_keys(&mut self) -> Option<Outcome> {
        match rustix::io::read(rustix::stdio::stdin(), &mut self.buf) {
            Ok(0) => Some(Outcome::Ended { reason: "the terminal went away".into(), status: 1 }),
            Ok(n) => {
                let keys = self.buf[..n].to_vec();
                self.send(&Msg::Input(keys));
                None
            }
            Err(Errno::INTR) | Err(Errno::AGAIN) => None,
            Err(_) => Some(Outcome::Ended { reason: "the terminal went away".into(), status: 1 }),
        }
    }

    fn signals(&mut self) -> Option<Outcome> {
        let sigs = self.signals.take();
        if sigs.iter().any(|&s| s == SIGTSTP || s == SIGCONT) {
            if let Err(e) = self.stop_and_continue(sigs.contains(&SIGTSTP)) {
                return Some(Outcome::Ended { reason: format!("the terminal: {e}"), status: 1 });
            }
        }
        for s in sigs {
            if s == SIGTSTP || s == SIGCONT {
                continue;
            }
            if s != SIGWINCH {
                // Told to end: the client goes, the session stays.
                return Some(Outcome::Ended { reason: "detached (the client was told to end)".into(), status: 0 });
            }
            // A pixel display keeps its size whatever the terminal does.
            if self.terminal.is_some() {
                let new = host::size();
                if new != self.size {
                    self.size = new;
                    self.send(&Msg::Resize { cols: new.cols, rows: new.rows });
                }
            }
        }
        None
    }
}

/// The socket a server of this user listens on: `DIR/default`.
pub fn socket_path(dir: &Path) -> PathBuf {
    dir.join("default")
}
