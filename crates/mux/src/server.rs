//! The session server: named sessions of virtual terminals (vtys) that live on when no client
//! is attached, in the manner of tmux's server (one per user, started on demand).
//!
//! One thread, one `poll`. Each vty is a program on a pty or a serial line, read without
//! blocking into its own engine (and its log); that is all a vty no client shows costs: no
//! frame, no presenter work, no write. Each attached client has its own presenter (the model of
//! its terminal) and its own pending output. A frame is built for a client only when the vty it
//! shows changed, at most `hz` a second, and only once the client has taken the last one: a
//! slow or stopped client skips frames and, when it drains, gets one frame of the latest
//! screen. Nothing waits on a client, and no client is cut off for being slow (tmux throttles,
//! zellij disconnects).
//!
//! Choices where the issue is silent, against tmux's behaviour:
//! - a vty whose program exits closes (tmux's `remain-on-exit off`); its status is kept for
//!   `blitty ls` while the session lives, and a session ends with its last vty;
//! - the session's size follows the client that typed or attached last (`window-size latest`);
//!   a client of another size sees the screen from the top left, the rest blank;
//! - clients attached to one session show the same vty (tmux's current window per session);
//! - the status row is the client's last row (tmux's default place).

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use blitty_vt::Terminal;
use rustix::event::PollFlags;
use rustix::io::Errno;

use crate::display::Display;
use crate::keys::Prefix;
use crate::names::{self, printable};
use crate::pane::{Log, Pane};
use crate::proto::{self, Frames, Msg, Request, VtySpec};
use crate::queue::PROGRAM_INPUT_LIMIT;
use crate::sockdir;
use crate::ui::{Command, Event, Place, Ui};
use blitty_os::event::{PollSet, Wake};
use blitty_os::pty::{self, Pty, Size};
use blitty_os::signals::{Signals, SIGCHLD, SIGHUP, SIGINT, SIGTERM};
use blitty_serial::line::SerialLine;
use blitty_serial::settings::Settings;

/// What a client's commands do (see [`SESSION_COMMANDS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmd {
    NewVty,
    Next,
    Prev,
    Select(usize),
    Choose,
    Rename,
    Kill,
    Detach,
}

/// The commands after the prefix (the scrollback mode and the help are every front end's).
/// An entry with no name is listed with the one before it.
pub const SESSION_COMMANDS: &[Command<Cmd>] = &[
    Command { keys: &[b"c"], shown: "c", help: "new vty (the shell)", action: Cmd::NewVty },
    Command { keys: &[b"n"], shown: "n / p", help: "next / previous vty", action: Cmd::Next },
    Command { keys: &[b"p"], shown: "", help: "", action: Cmd::Prev },
    Command { keys: &[b"0"], shown: "0 .. 9", help: "select vty N", action: Cmd::Select(0) },
    Command { keys: &[b"1"], shown: "", help: "", action: Cmd::Select(1) },
    Command { keys: &[b"2"], shown: "", help: "", action: Cmd::Select(2) },
    Command { keys: &[b"3"], shown: "", help: "", action: Cmd::Select(3) },
    Command { keys: &[b"4"], shown: "", help: "", action: Cmd::Select(4) },
    Command { keys: &[b"5"], shown: "", help: "", action: Cmd::Select(5) },
    Command { keys: &[b"6"], shown: "", help: "", action: Cmd::Select(6) },
    Command { keys: &[b"7"], shown: "", help: "", action: Cmd::Select(7) },
    Command { keys: &[b"8"], shown: "", help: "", action: Cmd::Select(8) },
    Command { keys: &[b"9"], shown: "", help: "", action: Cmd::Select(9) },
    Command { keys: &[b"w"], shown: "w", help: "choose a vty from a list", action: Cmd::Choose },
    Command { keys: &[b","], shown: ",", help: "rename the vty", action: Cmd::Rename },
    Command { keys: &[b"&"], shown: "&", help: "kill the vty (asks first)", action: Cmd::Kill },
    Command { keys: &[b"d"], shown: "d", help: "detach (everything goes on running)", action: Cmd::Detach },
];

/// Server settings (the config file's, read when the server starts).
#[derive(Clone, Debug)]
pub struct Options {
    pub socket: PathBuf,
    pub hz: u32,
    pub scrollback: usize,
    pub prefix: Prefix,
    /// The status row on each client's last row.
    pub status: bool,
    pub status_colours: (Option<blitty_vt::Color>, Option<blitty_vt::Color>),
    /// The program of a vty made with no command (and of `c`).
    pub shell: OsString,
    /// Pass programs' clipboard writes (OSC 52) on to the clients showing them.
    pub clipboard: bool,
}

/// Bytes read from one vty per turn of the loop, so one flood cannot hold the others (or the
/// keys) back.
const VTY_BUDGET: usize = 256 * 1024;
/// The time one turn reads a vty for at most (each read parsed within `WORK_PER_TURN`, about a
/// millisecond and a half of the engine's work): other vtys, clients and keys wait no longer.
const VTY_TIME: Duration = Duration::from_millis(2);
/// Bytes one read of a vty takes at most.
const READ_SIZE: usize = 64 * 1024;
/// Ended vtys remembered per session for `blitty ls`.
const ENDED_KEPT: usize = 8;
/// Connections the server holds at once; one more is refused with a message. Each may hold up
/// to [`proto::MAX_CLIENT_FRAME`] of a partial message.
pub const MAX_CLIENTS: usize = 128;
/// Cells the screens of all vtys may hold together when a vty is made (about 8 bytes each, a
/// screen and its alternate screen: some 2 GiB): 64 vtys of the largest size, or every one of
/// [`MAX_VTYS`] at 200x100. Each vty's history is bounded on its own (`grid::MAX_HISTORY_CELLS`).
pub const MAX_SCREEN_CELLS: usize = 128 << 20;
/// Vtys the server holds at once, over all sessions (`blitty bench ports` opens 1,000 serial
/// lines as vtys of one server).
pub const MAX_VTYS: usize = 4096;
/// How long a connection may take to make its request (its hello and request are one write):
/// one that says nothing does not hold one of the [`MAX_CLIENTS`] places for ever.
const REQUEST_WAIT: Duration = Duration::from_secs(5);
/// Bytes read from one client per turn of the loop: a client streaming messages is served in
/// turns with everything else, never for longer than reading and handling this much.
const CLIENT_BUDGET: usize = 256 * 1024;
/// A session's size changes at most this often, and no sooner than twice the time its last
/// resize took: a client sending sizes faster (a resize storm, or a window being dragged) gets
/// the latest one when the time comes, and resizing takes at most a third of the server's time
/// whatever the sizes. Reflowing a history of 10,000 lines takes tens of milliseconds, and
/// hundreds the first time it is widened to 2048 columns.
const RESIZE_EVERY: Duration = Duration::from_millis(50);
/// Sizes a client may give at most (as `--size` elsewhere).
const MAX_COLS: u16 = 2048;
const MAX_ROWS: u16 = 1024;

/// Points standard error at /dev/null (the server, once it listens).
pub fn quiet_stderr() {
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        let _ = rustix::stdio::dup2_stderr(&null);
    }
}

enum Source {
    /// `hung_up`: the pty has no writer left (the program closed it, or ended and is not reaped
    /// yet): it is not polled any more, or every poll would return at once.
    Pty { pty: Pty, hung_up: bool },
    /// Opened, locked and looked for again when it goes away as `blitty serial` does it.
    Serial(SerialLine),
}

impl Source {
    fn fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        match self {
            Source::Pty { pty, hung_up: false, .. } => Some(pty.master.as_fd()),
            Source::Pty { .. } => None,
            Source::Serial(line) => line.fd(),
        }
    }
}

struct Vty {
    /// Unique in the server, never reused.
    id: u64,
    name: String,
    pane: Pane,
    source: Source,
    /// Output or a bell no client saw (for the status row's marks).
    activity: bool,
    bell: bool,
    /// Set when the program has ended (or the vty was killed): the words for `ls`.
    ended: Option<(String, u8)>,
}

impl Vty {
    /// Reads what the program or line has written and parses it (see [`Pane::read_fd`]):
    /// at most `budget` bytes, for at most [`VTY_TIME`].
    fn read_output(&mut self, buf: &mut Vec<u8>, budget: usize) -> crate::pane::Read {
        let Some(fd) = self.source.fd() else {
            let (parsed, _) = self.pane.parse_held();
            return crate::pane::Read { parsed, gone: false };
        };
        buf.resize(READ_SIZE, 0);
        // A serial line's short read took all it had (its sweep comes back later).
        let serial = matches!(self.source, Source::Serial(_));
        self.pane.read_fd(fd, buf, budget, VTY_TIME, serial)
    }
}

struct Session {
    id: u64,
    name: String,
    vtys: Vec<Vty>,
    current: usize,
    /// The size of its vtys.
    size: Size,
    created: std::time::SystemTime,
    last_used: Instant,
    ended: Vec<String>,
    /// Where its first program started: new vtys (`c`) start there too, as tmux's windows.
    cwd: Vec<u8>,
    /// The size it is to take when its time has come (`next_resize`, see [`RESIZE_EVERY`]).
    want: Option<Size>,
    next_resize: Option<Instant>,
}

struct Client {
    frames: Frames,
    /// Its terminal, through its socket: the messages it has not taken yet, its presenter
    /// and its pacing.
    display: Display<UnixStream>,
    ui: Ui<Cmd>,
    hello: bool,
    session: Option<u64>,
    cols: u16,
    rows: u16,
    /// Close once the output is written.
    closing: bool,
    /// It sent a new size this turn (its presenter takes it at the end of the turn).
    resized: bool,
    /// When it last attached or typed: the latest active client gives its session its size.
    active_at: Instant,
    /// Its process (`SO_PEERCRED`), to tell a client inside one of the server's own programs.
    pid: Option<u32>,
    /// It has made its request (one a connection).
    requested: bool,
    /// When it connected: one that has not made its request within [`REQUEST_WAIT`] is closed.
    connected: Instant,
}

impl Client {
    fn send(&mut self, msg: &Msg) {
        proto::encode(msg, self.display.out.queue());
    }

    fn idle(&self) -> bool {
        self.display.out.idle()
    }

    /// Writes what it can without blocking; false when the client is gone.
    fn flush(&mut self) -> bool {
        self.display.out.flush()
    }

    fn vty_size(&self, status: bool) -> Size {
        vty_size(self.cols, self.rows, status)
    }

    /// Leaves the scrollback mode (the lines were rewrapped, or another vty is shown).
    fn leave_scrollback(&mut self) {
        if self.ui.leave_scrollback() {
            self.display.presenter.set_mouse_for_blitty(false);
        }
    }
}

pub struct Server {
    opts: Options,
    listener: UnixListener,
    signals: Signals,
    sessions: Vec<Session>,
    clients: Vec<Client>,
    next_id: u64,
    uid: u32,
    /// A session was made at some point: the server ends when the last one ends.
    had_session: bool,
    /// SIGCHLD came: programs to reap.
    child_exited: bool,
    /// SIGTERM or SIGINT came: end every session and stop.
    stop: bool,
    /// The buffer vtys are read into.
    buf: Vec<u8>,
    /// When the serial lines no client shows are next read (see `sweep`).
    next_sweep: Instant,
    /// Programs of sessions that were killed, hung up and not ended yet: reaped when they
    /// end, so none is left a zombie for the server's lifetime.
    orphans: Vec<std::process::Child>,
}

/// The parts of the server's loop, as its poll set names them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Listener,
    Signals,
    Client(usize),
    /// Session and vty index.
    Vty(usize, usize),
}

/// Why a request failed, for the client.
type Refusal = String;

impl Server {
    /// Binds the socket (replacing a stale one: nothing answers on it).
    pub fn bind(opts: Options) -> io::Result<Server> {
        if let Some(dir) = opts.socket.parent() {
            sockdir::prepare(dir)?;
        }
        sockdir::clear_stale(&opts.socket)?;
        let listener = UnixListener::bind(&opts.socket)?;
        std::fs::set_permissions(&opts.socket, std::fs::Permissions::from_mode(0o600))?;
        listener.set_nonblocking(true)?;
        let signals = Signals::new(&[SIGCHLD, SIGTERM, SIGINT, SIGHUP])?;
        Ok(Server {
            opts,
            listener,
            signals,
            sessions: Vec::new(),
            clients: Vec::new(),
            next_id: 1,
            uid: rustix::process::getuid().as_raw(),
            had_session: false,
            child_exited: false,
            stop: false,
            next_sweep: Instant::now(),
            buf: vec![0; READ_SIZE],
            orphans: Vec::new(),
        })
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// Serves until the last session ends (or SIGTERM); removes the socket.
    pub fn serve(mut self) -> io::Result<()> {
        // Each vty holds a pty or a serial line and maybe a log, and each client a socket: 1,000
        // logged serial lines need some 2,000 descriptors, past a common soft limit of 1,024.
        // The programs get the limit as it was.
        pty::raise_file_limit();
        let started = Instant::now();
        loop {
            let now = Instant::now();
            // What wakes us: the next frame due, a serial line to look for or to sweep, a
            // message to clear.
            let mut wake = Wake::default();
            for c in &self.clients {
                if c.session.is_some() && self.client_dirty(c) {
                    let hold = self.shown(c).and_then(|v| v.pane.sync_until());
                    wake.at(c.display.due_at(now, hold));
                }
                if let Some(until) = c.ui.wake_at() {
                    wake.at(until);
                }
                if !c.requested && !c.closing {
                    wake.at(c.connected + REQUEST_WAIT);
                }
            }
            let shown = self.shown_ids();
            for s in &self.sessions {
                for v in &s.vtys {
                    match &v.source {
                        Source::Serial(line) if !line.is_open() => line.retry_at().into_iter().for_each(|t| wake.at(t)),
                        Source::Serial(_) if swept(v, &shown) => wake.at(self.next_sweep),
                        _ => {}
                    }
                }
            }
            if let Some(t) = self.resize_due() {
                wake.at(t);
            }
            // Output held back by a turn's work bound is parsed in the next turn, at once.
            if self.sessions.iter().any(|s| s.vtys.iter().any(|v| v.pane.held_back() && v.pane.takes_output())) {
                wake.at(now);
            }
            if !self.had_session {
                // A server that never got a session ends after a while.
                wake.at(started + Duration::from_secs(5));
            }
            self.turn(wake.timeout(now))?;
            if self.sessions.is_empty()
                && (self.had_session || (self.clients.is_empty() && started.elapsed() > Duration::from_secs(5)))
            {
                // Let the last words reach the clients.
                for c in &mut self.clients {
                    let _ = c.display.out.fd.set_nonblocking(false);
                    let _ = c.display.out.fd.set_write_timeout(Some(Duration::from_millis(500)));
                    let _ = (&c.display.out.fd).write_all(c.display.out.unsent());
                }
                break;
            }
            if self.stop {
                for s in std::mem::take(&mut self.sessions) {
                    drop(end_session(s));
                }
                break;
            }
        }
        let _ = std::fs::remove_file(&self.opts.socket);
        Ok(())
    }

    fn client_dirty(&self, c: &Client) -> bool {
        if c.display.dirty || c.ui.dirty {
            return true;
        }
        match self.shown(c) {
            Some(v) => c.display.wants(v.id, v.pane.generation),
            None => false,
        }
    }
    fn session(&self, id: u64) -> Option<&Session> {
        self.sessions.iter().find(|s| s.id == id)
    }

    fn shown(&self, c: &Client) -> Option<&Vty> {
        let s = self.session(c.session?)?;
        s.vtys.get(s.current)
    }

    /// The vtys some client shows.
    fn shown_ids(&self) -> Vec<u64> {
        self.clients.iter().filter_map(|c| self.shown(c).map(|v| v.id)).collect()
    }

    /// Reads the serial lines no client shows, if their time has come: on a clock (the time a
    /// quarter of a 4 KiB line buffer takes to fill at the line's rate, 10 to 100 ms), not on
    /// every character (the multi-port serial tuning guide: 1,000 lines at 115,200 baud woke the server some 50,000
    /// times a second, each turn polling every line). A shown line is polled as it comes, so
    /// what the user types is echoed at once.
    fn sweep(&mut self, shown: &[u64]) {
        let now = Instant::now();
        if now < self.next_sweep {
            return;
        }
        let mut tick = SWEEP_MAX;
        let mut set = PollSet::new();
        for (si, s) in self.sessions.iter().enumerate() {
            for (vi, v) in s.vtys.iter().enumerate() {
                if let (Source::Serial(SerialLine { settings, .. }), Some(fd)) = (&v.source, v.source.fd()) {
                    if swept(v, shown) {
                        let cps = blitty_serial::settings::chars_per_second(settings);
                        tick = tick.min(Duration::from_secs_f64(1024.0 / cps.max(1.0)).max(SWEEP_MIN));
                        set.add(fd, PollFlags::IN, (si, vi));
                    }
                }
            }
        }
        self.next_sweep = now + tick;
        if set.is_empty() || set.wait(Some(Duration::ZERO)).is_err() {
            return;
        }
        let ready = set.ready();
        drop(set);
        for ((si, vi), rev) in ready {
            self.vty_io(si, vi, rev);
        }
    }

    fn turn(&mut self, timeout: Option<Duration>) -> io::Result<()> {
        let shown = self.shown_ids();
        let mut set = PollSet::new();
        set.add(self.listener.as_fd(), PollFlags::IN, Part::Listener);
        set.add(self.signals.wake.as_fd(), PollFlags::IN, Part::Signals);
        for (i, c) in self.clients.iter().enumerate() {
            let mut ev = PollFlags::IN;
            if !c.idle() {
                ev |= PollFlags::OUT;
            }
            set.add(c.display.out.fd.as_fd(), ev, Part::Client(i));
        }
        for (si, s) in self.sessions.iter().enumerate() {
            for (vi, v) in s.vtys.iter().enumerate() {
                if swept(v, &shown) {
                    continue;
                }
                if let Some(fd) = v.source.fd() {
                    // A program whose input is full is not read until it takes some (see
                    // `queue`): its answers would have nowhere to go.
                    let mut ev = if v.pane.input.takes_output() && !v.pane.held_back() {
                        PollFlags::IN
                    } else {
                        PollFlags::empty()
                    };
                    if !v.pane.input.is_empty() {
                        ev |= PollFlags::OUT;
                    }
                    set.add(fd, ev, Part::Vty(si, vi));
                }
            }
        }
        set.wait(timeout)?;
        let ready = set.ready();
        drop(set);

        let mut accept = false;
        let mut client_ready = Vec::new();
        let mut vty_ready = Vec::new();
        for (part, rev) in ready {
            match part {
                Part::Listener => accept = true,
                Part::Signals => {}
                Part::Client(i) => client_ready.push(i),
                Part::Vty(si, vi) => vty_ready.push((si, vi, rev)),
            }
        }
        // Output held back in an earlier turn is parsed as if it had just been read.
        for (si, s) in self.sessions.iter().enumerate() {
            for (vi, v) in s.vtys.iter().enumerate() {
                if v.pane.held_back()
                    && v.pane.input.takes_output()
                    && !vty_ready.iter().any(|&(a, b, _)| (a, b) == (si, vi))
                {
                    vty_ready.push((si, vi, PollFlags::IN));
                }
            }
        }
        // Programs first: their output is what the frames show.
        for (si, vi, rev) in vty_ready {
            self.vty_io(si, vi, rev);
        }
        // The clients show the same vtys as when the poll set was made.
        self.sweep(&shown);
        for sig in self.signals.take() {
            match sig {
                SIGCHLD => self.child_exited = true,
                SIGHUP => {}
                _ => self.stop = true,
            }
        }
        if std::mem::take(&mut self.child_exited) {
            self.reap();
        }
        if accept {
            self.accept();
        }
        for i in client_ready {
            self.client_input(i);
        }
        self.apply_sizes();
        let now = Instant::now();
        for c in self.clients.iter_mut().filter(|c| !c.requested && !c.closing) {
            if now.duration_since(c.connected) >= REQUEST_WAIT {
                c.send(&Msg::Error("no request within 5 s".into()));
                c.closing = true;
            }
        }
        self.reopen_serial();
        self.remove_ended();
        self.frames();
        // Write, and drop the clients that are gone.
        let mut i = 0;
        while i < self.clients.len() {
            let ok = self.clients[i].flush();
            let done = self.clients[i].closing && self.clients[i].idle();
            if !ok || done {
                let c = self.clients.remove(i);
                if let Some(id) = c.session {
                    self.size_from_latest(id);
                }
                // What it sent and we did not read is taken first: closing a socket with unread
                // data resets it, and the client could lose our last words (a refusal).
                let _ = c.display.out.fd.shutdown(std::net::Shutdown::Write);
                let mut sink = [0u8; 4096];
                while matches!((&c.display.out.fd).read(&mut sink), Ok(n) if n > 0) {}
            } else {
                i += 1;
            }
        }
        Ok(())
    }

    fn accept(&mut self) {
        loop {
            let stream = match self.listener.accept() {
                Ok((s, _)) => s,
                Err(_) => return,
            };
            let _ = stream.set_nonblocking(true);
            let cred = rustix::net::sockopt::socket_peercred(&stream);
            let peer = cred.as_ref().map(|c| c.uid.as_raw()).map_err(|e| *e);
            let pid = cred.ok().and_then(|c| u32::try_from(c.pid.as_raw_nonzero().get()).ok());
            let now = Instant::now();
            let mut client = Client {
                display: Display::new(stream, 80, 24, self.opts.hz, self.opts.status_colours),
                ui: Ui::new(self.opts.prefix, Place::Top, "the program"),
                frames: Frames::with_max(proto::MAX_CLIENT_FRAME),
                hello: false,
                session: None,
                cols: 80,
                rows: 24,
                closing: false,
                resized: false,
                active_at: now,
                pid,
                requested: false,
                connected: now,
            };
            if peer != Ok(self.uid) {
                let who = peer.map(|u| format!("uid {u}")).unwrap_or_else(|_| "an unknown user".into());
                client
                    .send(&Msg::Error(format!("this blitty server belongs to uid {}; {who} may not use it", self.uid)));
                client.closing = true;
            } else if self.clients.len() >= MAX_CLIENTS {
                client.send(&Msg::Error(format!(
                    "the blitty server has {MAX_CLIENTS} connections already, its most; try again when one ends"
                )));
                client.closing = true;
            }
            self.clients.push(client);
        }
    }

    /// Reads and handles what client `i` sent, up to [`CLIENT_BUDGET`] bytes: the rest waits for
    /// the next turn (the poll says so again), so one client streaming messages holds no other
    /// client, vty or the listener back.
    fn client_input(&mut self, i: usize) {
        let mut buf = [0u8; 16384];
        let mut taken = 0;
        while taken < CLIENT_BUDGET {
            let c = &mut self.clients[i];
            if c.closing {
                // Refused or detached: what it sends is not read.
                let _ = (&c.display.out.fd).read(&mut buf);
                return;
            }
            match (&c.display.out.fd).read(&mut buf) {
                Ok(0) => {
                    c.closing = true;
                    c.display.out.discard();
                    return;
                }
                Ok(n) => {
                    taken += n;
                    c.frames.push(&buf[..n]);
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    c.closing = true;
                    return;
                }
            }
            // Handled as they come: the buffer holds at most one partial message and a read.
            loop {
                let msg = match self.clients[i].frames.next_msg() {
                    Ok(Some(m)) => m,
                    Ok(None) => break,
                    Err(e) => {
                        let c = &mut self.clients[i];
                        c.send(&Msg::Error(format!("protocol error: {e}")));
                        c.closing = true;
                        return;
                    }
                };
                self.message(i, msg);
                if self.clients[i].closing {
                    return;
                }
            }
        }
    }

    fn message(&mut self, i: usize, msg: Msg) {
        if !self.clients[i].hello {
            let c = &mut self.clients[i];
            match msg {
                Msg::Hello { version } if version == proto::VERSION => {
                    c.hello = true;
                    c.send(&Msg::Hello { version: proto::VERSION });
                }
                Msg::Hello { version } => {
                    c.send(&Msg::Error(proto::version_error(version)));
                    c.closing = true;
                }
                _ => {
                    c.send(&Msg::Error("protocol error: no hello".into()));
                    c.closing = true;
                }
            }
            return;
        }
        match msg {
            // One request a connection: a client that asks again (thousands of sessions in
            // one write) is ended, not served for the length of a turn.
            Msg::Request(_) if self.clients[i].requested => {
                let c = &mut self.clients[i];
                c.send(&Msg::Error("protocol error: one request a connection".into()));
                c.closing = true;
            }
            Msg::Request(r) => {
                self.clients[i].requested = true;
                self.request(i, r)
            }
            Msg::Input(bytes) => self.keys(i, &bytes),
            Msg::Resize { cols, rows } => {
                let c = &mut self.clients[i];
                let (cols, rows) = (cols.clamp(1, MAX_COLS), rows.clamp(1, MAX_ROWS));
                if (cols, rows) == (c.cols, c.rows) {
                    // The size it has, said again: once in raw mode after attaching, and after
                    // a stop, when the shell had its terminal meanwhile. Either way it gets the
                    // whole screen (a frame it would get anyway after attaching).
                    c.display.enter();
                    return;
                }
                // Taken at the end of the turn (`apply_sizes`): of many sizes in one turn only
                // the last costs a resize.
                c.cols = cols;
                c.rows = rows;
                c.resized = true;
                self.follow_size(i);
            }
            _ => {
                let c = &mut self.clients[i];
                c.send(&Msg::Error("protocol error: unexpected message".into()));
                c.closing = true;
            }
        }
    }

    fn request(&mut self, i: usize, r: Request) {
        let answer: Result<(), Refusal> = match r {
            Request::List => {
                let text = self.listing();
                self.clients[i].send(&Msg::Text(text));
                self.clients[i].closing = true;
                Ok(())
            }
            Request::Kill { name } => match self.sessions.iter().position(|s| s.name == name) {
                Some(k) => {
                    let s = self.sessions.remove(k);
                    let id = s.id;
                    let left = end_session(s);
                    self.orphans.extend(left);
                    self.detach_all(id, &format!("session {name} was killed"), 0);
                    self.clients[i].send(&Msg::Text(String::new()));
                    self.clients[i].closing = true;
                    Ok(())
                }
                None => Err(self.no_session(&name)),
            },
            Request::Attach { name, cols, rows } => {
                let found = match &name {
                    Some(n) => self.sessions.iter().find(|s| &s.name == n),
                    None => self.sessions.iter().max_by_key(|s| s.last_used),
                };
                match found.map(|s| (s.id, s.name.clone())) {
                    Some((id, name)) if self.inside(i, id) => Err(format!(
                        "sessions should be nested with care: this client runs inside session {} itself \
                         (attach to another session, or from outside)",
                        printable(&name)
                    )),
                    Some((id, _)) => {
                        self.attach(i, id, cols, rows);
                        Ok(())
                    }
                    None => Err(match name {
                        Some(n) => self.no_session(&n),
                        None => "no sessions (blitty new starts one)".into(),
                    }),
                }
            }
            r @ Request::New { .. } => self.new_session(i, r),
        };
        if let Err(e) = answer {
            let c = &mut self.clients[i];
            c.send(&Msg::Error(e));
            c.closing = true;
        }
    }

    /// Whether client `i` runs inside session `id`: its controlling terminal is one of the
    /// session's ptys, or one of the session's programs is among its ancestors. Attached there,
    /// it would show its own screen inside itself, for ever.
    fn inside(&self, i: usize, id: u64) -> bool {
        let Some(pid) = self.clients[i].pid else { return false };
        let Some(s) = self.session(id) else { return false };
        // A job started in the background and left by its shell has init for a parent, but
        // keeps its terminal.
        if let Some(tty) = controlling_tty(pid) {
            let ptys = s.vtys.iter().filter_map(|v| match &v.source {
                Source::Pty { pty, .. } => rustix::pty::ptsname(&pty.master, Vec::new()).ok(),
                Source::Serial(_) => None,
            });
            for name in ptys {
                let path = std::ffi::OsStr::from_bytes(name.as_bytes());
                if rustix::fs::stat(path).is_ok_and(|st| st.st_rdev == tty) {
                    return true;
                }
            }
        }
        let programs: Vec<u32> = s
            .vtys
            .iter()
            .filter_map(|v| match &v.source {
                Source::Pty { pty, .. } => Some(pty.child.id()),
                Source::Serial(_) => None,
            })
            .collect();
        // Up the parent chain from the client (bounded: a chain is short, and a pid reused
        // meanwhile must not loop).
        let mut at = pid;
        for _ in 0..256 {
            if programs.contains(&at) {
                return true;
            }
            match parent_of(at) {
                Some(p) if p > 1 => at = p,
                _ => return false,
            }
        }
        false
    }

    fn no_session(&self, name: &str) -> String {
        let names: Vec<String> = self.sessions.iter().map(|s| printable(&s.name)).collect();
        let name = names::short(name);
        if names.is_empty() {
            format!("no session named {name} (there are none)")
        } else {
            format!("no session named {name} (there are: {})", names.join(", "))
        }
    }

    fn new_session(&mut self, i: usize, r: Request) -> Result<(), Refusal> {
        let Request::New { name, detached, vty: spec, cols, rows, log } = r else { return Ok(()) };
        let name = match name {
            Some(n) if self.sessions.iter().any(|s| s.name == n) => {
                return Err(format!("a session named {} exists already", names::short(&n)))
            }
            Some(n) => {
                names::check_session_name(&n)?;
                n
            }
            None => (0..)
                .map(|k: u32| k.to_string())
                .find(|n| !self.sessions.iter().any(|s| &s.name == n))
                .unwrap_or_default(),
        };
        let size = vty_size(cols.clamp(1, MAX_COLS), rows.clamp(1, MAX_ROWS), self.opts.status);
        let cwd = match &spec {
            VtySpec::Program { cwd, .. } => cwd.clone(),
            VtySpec::Serial { .. } => std::env::var_os("HOME").map(|h| h.into_vec()).unwrap_or_default(),
        };
        let mut vty = self.make_vty(spec, size)?;
        if let Some(path) = log {
            let path = PathBuf::from(OsString::from_vec(path));
            vty.pane.log = Some(Log::with_file(open_log(&path)?, &path, false));
        }
        let id = self.id();
        self.sessions.push(Session {
            id,
            name: name.clone(),
            vtys: vec![vty],
            current: 0,
            size,
            created: std::time::SystemTime::now(),
            last_used: Instant::now(),
            ended: Vec::new(),
            cwd,
            want: None,
            next_resize: None,
        });
        self.had_session = true;
        if detached {
            let c = &mut self.clients[i];
            c.send(&Msg::Text(String::new()));
            c.closing = true;
        } else {
            self.attach(i, id, cols, rows);
        }
        Ok(())
    }

    fn make_vty(&mut self, spec: VtySpec, size: Size) -> Result<Vty, Refusal> {
        if self.sessions.iter().map(|s| s.vtys.len()).sum::<usize>() >= MAX_VTYS {
            return Err(format!("the blitty server holds {MAX_VTYS} vtys already, its most"));
        }
        let cells: usize = self
            .sessions
            .iter()
            .flat_map(|s| s.vtys.iter())
            .map(|v| v.pane.term.screen().cols() * v.pane.term.screen().rows())
            .sum();
        if cells + size.cols as usize * size.rows as usize > MAX_SCREEN_CELLS {
            return Err(format!(
                "the blitty server's screens hold {cells} cells, and {}x{} more would pass its most ({MAX_SCREEN_CELLS})",
                size.cols, size.rows
            ));
        }
        let id = self.id();
        let term = Terminal::with_scrollback(size.cols as usize, size.rows as usize, self.opts.scrollback);
        let (source, name) = match spec {
            VtySpec::Program { argv, cwd } => {
                let argv: Vec<OsString> = if argv.is_empty() {
                    vec![self.opts.shell.clone()]
                } else {
                    argv.into_iter().map(OsString::from_vec).collect()
                };
                let cwd = PathBuf::from(OsString::from_vec(cwd));
                let program = argv[0].to_string_lossy().into_owned();
                let pty = pty::spawn_in(&argv, size, (!cwd.as_os_str().is_empty()).then_some(cwd.as_path()))
                    .map_err(|e| format!("cannot start {program}: {e}"))?;
                let short =
                    Path::new(&program).file_name().map_or(program.clone(), |f| f.to_string_lossy().into_owned());
                (Source::Pty { pty, hung_up: false }, short)
            }
            VtySpec::Serial { device, baud, data_bits, parity, stop_bits, flow, lock } => {
                let path = PathBuf::from(OsString::from_vec(device));
                let settings = Settings { baud, data_bits, parity, stop_bits, flow, vmin: 1, vtime: 0 };
                let line = SerialLine::open(&path, settings, lock).map_err(|e| e.to_string())?;
                let name = path.file_name().map_or("serial".into(), |f| f.to_string_lossy().into_owned());
                (Source::Serial(line), name)
            }
        };
        Ok(Vty { id, name, pane: Pane::new(term, None), source, activity: false, bell: false, ended: None })
    }

    fn attach(&mut self, i: usize, id: u64, cols: u16, rows: u16) {
        let c = &mut self.clients[i];
        c.session = Some(id);
        c.cols = cols.clamp(1, MAX_COLS);
        c.rows = rows.clamp(1, MAX_ROWS);
        // Taking over the terminal goes with the first frame: attaching is one write.
        c.display.restart(c.cols as usize, c.rows as usize, self.opts.hz, self.opts.status_colours);
        c.display.enter();
        c.active_at = Instant::now();
        if let Some(s) = self.sessions.iter_mut().find(|s| s.id == id) {
            s.last_used = Instant::now();
        }
        self.follow_size(i);
    }
    /// The session of client `i` is to take its size (it is the latest active client): the
    /// size is applied by `apply_sizes`.
    fn follow_size(&mut self, i: usize) {
        let c = &self.clients[i];
        let Some(id) = c.session else { return };
        let size = c.vty_size(self.opts.status);
        let Some(s) = self.sessions.iter_mut().find(|s| s.id == id) else { return };
        s.want = (s.size != size).then_some(size);
    }

    /// Session `id` takes the size of its latest active client (tmux's `window-size latest`):
    /// when a client leaves, the size of the one that went is not kept.
    fn size_from_latest(&mut self, id: u64) {
        let latest = (0..self.clients.len())
            .filter(|&k| self.clients[k].session == Some(id) && !self.clients[k].closing)
            .max_by_key(|&k| self.clients[k].active_at);
        if let Some(k) = latest {
            self.follow_size(k);
        }
    }

    /// When a session's size waits for its time (see [`RESIZE_EVERY`]).
    fn resize_due(&self) -> Option<Instant> {
        self.sessions.iter().filter(|s| s.want.is_some()).map(|s| s.next_resize.unwrap_or_else(Instant::now)).min()
    }

    /// The sizes clients sent this turn, and the sizes sessions are to take whose time has come.
    fn apply_sizes(&mut self) {
        let now = Instant::now();
        for si in 0..self.sessions.len() {
            let s = &mut self.sessions[si];
            let Some(size) = s.want else { continue };
            if s.next_resize.is_some_and(|t| now < t) {
                continue;
            }
            s.want = None;
            s.size = size;
            let id = s.id;
            for v in &mut s.vtys {
                v.pane.term.resize(size.cols as usize, size.rows as usize);
                if let Source::Pty { pty, .. } = &v.source {
                    let _ = pty.resize(size);
                }
                v.pane.generation += 1;
            }
            s.next_resize = Some(Instant::now() + RESIZE_EVERY.max(2 * now.elapsed()));
            // Every client of the session redraws from a clear screen (one of another size
            // keeps no leftovers beyond the new screen's edge), below with its presenter.
            for c in self.clients.iter_mut().filter(|c| c.session == Some(id)) {
                c.leave_scrollback();
                c.resized = true;
            }
        }
        // Each presenter once, whether its client sent a size or its session changed size.
        for c in self.clients.iter_mut().filter(|c| c.resized) {
            c.resized = false;
            c.display.resize(c.cols as usize, c.rows as usize);
        }
    }

    fn detach_all(&mut self, session: u64, reason: &str, status: u8) {
        for c in self.clients.iter_mut().filter(|c| c.session == Some(session)) {
            detach(c, reason, status);
        }
    }

    /// The sessions as text, every name made printable (a program's or a device's name is not
    /// the user's choice, and `blitty ls` writes it to the user's terminal).
    fn listing(&self) -> String {
        let mut s = String::new();
        if self.sessions.is_empty() {
            s.push_str("no sessions\n");
        }
        for sess in &self.sessions {
            let clients = self.clients.iter().filter(|c| c.session == Some(sess.id) && !c.closing).count();
            let created = sess.created.duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
            s.push_str(&format!(
                "{}: {} vty{}, {}x{}, {} client{} attached, created {} UTC\n",
                sess.name,
                sess.vtys.len(),
                if sess.vtys.len() == 1 { "" } else { "s" },
                sess.size.cols,
                sess.size.rows,
                clients,
                if clients == 1 { "" } else { "s" },
                blitty_os::time::timestamp(std::time::UNIX_EPOCH + Duration::from_secs(created))
                    .trim()
                    .trim_matches(|c| c == '[' || c == ']'),
            ));
            for (k, v) in sess.vtys.iter().enumerate() {
                let what = match &v.source {
                    Source::Pty { pty, .. } => format!("pid {}", pty.child.id()),
                    Source::Serial(line) => format!(
                        "{} {} baud{}",
                        line.path.display(),
                        line.settings.baud,
                        if line.is_open() { "" } else { ", gone (looking for it)" }
                    ),
                };
                let mark = if k == sess.current { " (current)" } else { "" };
                s.push_str(&format!("  {k}: {} [{what}]{mark}\n", v.name));
            }
            for e in &sess.ended {
                s.push_str(&format!("  ended: {e}\n"));
            }
        }
        names::printable_lines(&s)
    }

    // ---- vtys ----

    fn vty_io(&mut self, si: usize, vi: usize, rev: PollFlags) {
        let Some(s) = self.sessions.get_mut(si) else { return };
        let Some(v) = s.vtys.get_mut(vi) else { return };
        if rev.contains(PollFlags::OUT) && !v.pane.input.is_empty() {
            if let Some(fd) = v.source.fd() {
                match rustix::io::write(fd, v.pane.input.unsent()) {
                    Ok(n) => v.pane.input.sent(n),
                    Err(Errno::AGAIN) | Err(Errno::INTR) => {}
                    Err(_) => v.pane.input.clear(),
                }
            }
        }
        if !rev.intersects(PollFlags::IN | PollFlags::HUP | PollFlags::ERR)
            || (!v.pane.input.takes_output() && !rev.intersects(PollFlags::HUP | PollFlags::ERR))
        {
            return;
        }
        // One buffer for every vty's reads, kept between turns.
        let mut buf = std::mem::take(&mut self.buf);
        let Some(s) = self.sessions.get_mut(si) else { return };
        let Some(v) = s.vtys.get_mut(vi) else { return };
        let read = v.read_output(&mut buf, VTY_BUDGET);
        let gone = read.gone;
        // The status row changes when a vty not shown gets its first unseen output or bell.
        let was_marked = (v.activity, v.bell);
        let id = v.id;
        let happened = v.pane.happened(self.opts.clipboard);
        if read.parsed > 0 {
            v.activity = true;
        }
        v.bell |= happened.bell;
        let marked = (v.activity, v.bell) != was_marked && vi != s.current;
        let session = s.id;
        self.buf = buf;
        if marked {
            for c in self.clients.iter_mut().filter(|c| c.session == Some(session)) {
                c.display.dirty = true;
            }
        }
        if read.parsed > 0 {
            let now = Instant::now();
            for_clients_showing(&self.sessions, &mut self.clients, id, |c| c.display.pacer.output(now));
        }
        // A clipboard write goes to the clients showing this vty, unless the config file says
        // `clipboard = false`; its bell rings in their terminals (tmux's bell-action current),
        // others mark it `!` on the status row.
        if let Some(bytes) = happened.clipboard {
            self.for_viewers(id, |c| c.display.clipboard = bytes.clone());
        }
        if happened.bell {
            self.for_viewers(id, |c| c.display.bell = true);
        }
        let Some(v) = self.sessions.get_mut(si).and_then(|s| s.vtys.get_mut(vi)) else { return };
        if gone {
            match &mut v.source {
                // The program ended (its status comes with SIGCHLD; see reap) or closed its
                // terminal and goes on (then it stays listed until it ends).
                Source::Pty { hung_up, .. } => *hung_up = true,
                Source::Serial(line) => {
                    line.went_away();
                    let note = format!(
                        "\r\n[blitty: {} went away; it is opened again when it comes back]\r\n",
                        line.path.display()
                    );
                    v.pane.note(&note);
                }
            }
        }
    }

    /// Runs `f` on every client showing vty `id`, and makes it draw a frame.
    fn for_viewers(&mut self, id: u64, mut f: impl FnMut(&mut Client)) {
        for_clients_showing(&self.sessions, &mut self.clients, id, |c| {
            f(c);
            c.display.dirty = true;
        });
    }

    fn reopen_serial(&mut self) {
        let now = Instant::now();
        for s in &mut self.sessions {
            for v in &mut s.vtys {
                if let Source::Serial(line) = &mut v.source {
                    if line.try_reopen(now) {
                        v.pane.note(&format!("[blitty: {} is back]\r\n", line.path.display()));
                    }
                }
            }
        }
    }

    /// Collects the status of programs that ended.
    fn reap(&mut self) {
        self.orphans.retain_mut(|child| matches!(child.try_wait(), Ok(None)));
        for s in &mut self.sessions {
            for v in &mut s.vtys {
                if let Source::Pty { pty, .. } = &mut v.source {
                    if v.ended.is_none() {
                        if let Ok(Some(status)) = pty.child.try_wait() {
                            // What it wrote last is read before it goes.
                            v.read_output(&mut self.buf, 16 * READ_SIZE);
                            v.pane.deaf = true;
                            let code = blitty_os::status::shell_status(status);
                            let words = match status.code() {
                                Some(c) => format!("exited with status {c}"),
                                None => format!("was killed by signal {}", code - 128),
                            };
                            v.ended = Some((words, code.clamp(0, 255) as u8));
                        }
                    }
                }
            }
        }
    }

    fn remove_ended(&mut self) {
        let mut gone_sessions = Vec::new();
        for s in &mut self.sessions {
            let mut k = 0;
            while k < s.vtys.len() {
                if let Some((words, status)) = s.vtys[k].ended.clone() {
                    let v = s.vtys.remove(k);
                    s.ended.push(format!("{} ({}) {words}", v.name, v.id));
                    if s.ended.len() > ENDED_KEPT {
                        s.ended.remove(0);
                    }
                    if s.current > k || s.current >= s.vtys.len() {
                        s.current = s.current.saturating_sub(1);
                    }
                    if s.vtys.is_empty() {
                        gone_sessions.push((
                            s.id,
                            format!("session {} ended: {} {words}", s.name, printable(&v.name)),
                            status,
                        ));
                    }
                } else {
                    k += 1;
                }
            }
        }
        for (id, reason, status) in gone_sessions {
            if let Some(k) = self.sessions.iter().position(|s| s.id == id) {
                let left = end_session(self.sessions.remove(k));
                self.orphans.extend(left);
            }
            self.detach_all(id, &reason, status);
        }
    }

    // ---- keys ----

    /// Keys from client `i`, through its ui (see [`Ui::feed`]): what its commands do is here.
    fn keys(&mut self, i: usize, bytes: &[u8]) {
        let Some(id) = self.clients[i].session else { return };
        // The typing client is the latest: the session takes its size.
        if let Some(s) = self.sessions.iter_mut().find(|s| s.id == id) {
            s.last_used = Instant::now();
        }
        self.clients[i].active_at = Instant::now();
        self.follow_size(i);
        let mut input = bytes;
        loop {
            let events = {
                let Some(s) = self.sessions.iter().find(|s| s.id == id) else { return };
                let Some(v) = s.vtys.get(s.current) else { return };
                self.clients[i].ui.feed(input, v.pane.term.screen(), SESSION_COMMANDS)
            };
            input = &[];
            for e in events {
                self.key_event(i, id, e);
            }
            if !self.clients[i].ui.pending() || self.clients[i].session != Some(id) {
                break;
            }
        }
    }

    fn key_event(&mut self, i: usize, id: u64, e: Event<Cmd>) {
        match e {
            Event::Forward(b) => {
                let Some(v) = self.current_vty_mut(id) else { return };
                let cut = v.pane.input.keys(&b);
                self.clients[i].display.pacer.key(Instant::now());
                if cut > 0 {
                    self.clients[i].ui.say(format!(
                        "{cut} bytes typed or pasted were not sent: the program is not reading its input \
                         (at most {} KiB wait for it)",
                        PROGRAM_INPUT_LIMIT >> 10
                    ));
                }
            }
            Event::Command(cmd) => self.command(i, id, cmd),
            Event::Answer(Cmd::Rename, Some(name)) => {
                let name = name.trim().chars().take(proto::MAX_NAME).collect::<String>();
                if let (false, Some(v)) = (name.is_empty(), self.current_vty_mut(id)) {
                    v.name = name;
                }
            }
            Event::Answer(..) => {}
            Event::Confirmed(Cmd::Kill) => {
                if let Some(v) = self.current_vty_mut(id) {
                    kill_vty(v);
                }
            }
            Event::Confirmed(_) => {}
            Event::Chosen(k) => self.select(id, k),
            Event::Clipboard(bytes) => self.clients[i].display.clipboard = bytes,
            Event::Scrolling(on) => {
                let c = &mut self.clients[i];
                c.display.presenter.set_mouse_for_blitty(on);
                c.display.dirty = true;
            }
        }
    }

    fn current_vty_mut(&mut self, id: u64) -> Option<&mut Vty> {
        let s = self.sessions.iter_mut().find(|s| s.id == id)?;
        s.vtys.get_mut(s.current)
    }

    fn select(&mut self, id: u64, k: usize) {
        let Some(s) = self.sessions.iter_mut().find(|s| s.id == id) else { return };
        if k < s.vtys.len() && k != s.current {
            s.current = k;
            for c in self.clients.iter_mut().filter(|c| c.session == Some(id)) {
                c.leave_scrollback();
                c.display.dirty = true;
            }
        }
    }

    fn command(&mut self, i: usize, id: u64, cmd: Cmd) {
        let Some(s) = self.session(id) else { return };
        let (count, current, size, cwd) = (s.vtys.len(), s.current, s.size, s.cwd.clone());
        match cmd {
            Cmd::NewVty => match self.make_vty(VtySpec::Program { argv: Vec::new(), cwd }, size) {
                Ok(v) => {
                    if let Some(s) = self.sessions.iter_mut().find(|s| s.id == id) {
                        s.vtys.push(v);
                        let n = s.vtys.len() - 1;
                        self.select(id, n);
                    }
                }
                Err(e) => self.clients[i].ui.say(e),
            },
            Cmd::Next if count > 0 => self.select(id, (current + 1) % count),
            Cmd::Prev if count > 0 => self.select(id, (current + count - 1) % count),
            Cmd::Next | Cmd::Prev => {}
            Cmd::Select(k) if k < count => self.select(id, k),
            Cmd::Select(k) => self.clients[i].ui.say(format!("no vty {k}")),
            Cmd::Detach => {
                let name = self.session(id).map(|s| s.name.clone()).unwrap_or_default();
                detach(&mut self.clients[i], &format!("detached from session {name}"), 0);
                self.size_from_latest(id);
            }
            Cmd::Choose => self.clients[i].ui.choose(current, count),
            Cmd::Rename => self.clients[i].ui.ask(Cmd::Rename, "rename vty", None),
            Cmd::Kill => {
                let name = self.session(id).and_then(|s| s.vtys.get(current)).map(|v| printable(&v.name));
                let question = format!("kill vty {current} ({})?", name.unwrap_or_default());
                self.clients[i].ui.confirm(Cmd::Kill, question)
            }
        }
    }

    // ---- frames ----

    fn frames(&mut self) {
        let now = Instant::now();
        // How many clients show each vty: with more than one, each frame compares every cell
        // (the engine's damage is cleared by whichever frame goes first).
        let mut viewers: HashMap<u64, usize> = HashMap::new();
        for c in &self.clients {
            if let Some(v) = self.shown(c) {
                *viewers.entry(v.id).or_default() += 1;
            }
        }
        for c in &mut self.clients {
            c.ui.expire(now);
        }
        for ci in 0..self.clients.len() {
            let c = &self.clients[ci];
            if c.closing || c.session.is_none() || !self.client_dirty(c) {
                continue;
            }
            let Some(sid) = c.session else { continue };
            let Some(si) = self.sessions.iter().position(|s| s.id == sid) else { continue };
            let status_on = self.opts.status;
            let (sessions, clients) = (&mut self.sessions, &mut self.clients);
            let s = &mut sessions[si];
            let c = &mut clients[ci];
            let Some(v) = s.vtys.get_mut(s.current) else { continue };
            // A program holding synchronized output is shown when it ends its update, or at
            // the hold's limit.
            if v.pane.sync_hold(now).is_some() || !c.display.ready(now) {
                continue;
            }
            v.activity = false;
            v.bell = false;
            let shared = viewers.get(&v.id).copied().unwrap_or(0) > 1;
            // The vtys' names only for the list that shows them (not a copy every frame).
            let names: Vec<String> = match c.ui.mode {
                crate::ui::Mode::Choose { .. } => s.vtys.iter().map(|v| v.name.clone()).collect(),
                _ => Vec::new(),
            };
            let status = (status_on && c.rows >= 2).then(|| status_row(s, c.cols as usize));
            let v = &mut s.vtys[s.current];
            let rows = c.rows as usize;
            let frame = c.display.compose(
                &mut v.pane.term,
                (v.id, v.pane.generation),
                &mut c.ui,
                shared,
                |presenter, ui, frame| {
                    ui.draw(presenter, rows, SESSION_COMMANDS, &names, None, frame);
                    if let Some(row) = &status {
                        presenter.overlay(rows - 1, row, frame);
                    }
                },
            );
            c.send(&Msg::Output(frame));
        }
    }
}

/// The status row: the session's name, then each vty as `N:name` with `*` on the current one,
/// `#` on one with output not seen, `!` on one that rang the bell. A vty's name is a program's
/// or a device's: shown escaped where a terminal would execute it or it hides text.
fn status_row(s: &Session, cols: usize) -> String {
    let mut row = format!(" [{}] ", s.name);
    for (k, v) in s.vtys.iter().enumerate() {
        let mark = if k == s.current {
            "*"
        } else if v.bell {
            "!"
        } else if v.activity {
            "#"
        } else {
            " "
        };
        row.push_str(&format!("{k}:{}{mark} ", printable(&v.name)));
    }
    let n = row.chars().count();
    if n < cols {
        row.extend(std::iter::repeat_n(' ', cols - n));
    }
    row.chars().take(cols).collect()
}

fn detach(c: &mut Client, reason: &str, status: u8) {
    if c.closing {
        return;
    }
    let mut out = Vec::new();
    c.display.presenter.leave(&mut out);
    c.send(&Msg::Output(out));
    c.send(&Msg::Exit { reason: reason.to_string(), status });
    c.session = None;
    c.closing = true;
}

/// Ends a vty: a program gets SIGHUP (the vty closes when it has gone, with its status); a
/// serial line is let go at once (its settings restored, its lock released).
fn kill_vty(v: &mut Vty) {
    match &mut v.source {
        Source::Pty { pty, .. } => {
            if let Some(pid) = rustix::process::Pid::from_raw(pty.child.id() as i32) {
                let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::HUP);
            }
        }
        Source::Serial(_) => v.ended = Some(("was closed (prefix &)".into(), 0)),
    }
}

/// Hangs up every program of a session (SIGHUP to each process group, as a closing terminal
/// does) and lets its serial lines go (their settings restored by their guards). Returns the
/// programs not reaped yet: they are the server's children until they end, and are reaped
/// then (see `Server::orphans`).
fn end_session(s: Session) -> Vec<std::process::Child> {
    let mut left = Vec::new();
    for mut v in s.vtys {
        kill_vty(&mut v);
        if let (Source::Pty { pty, .. }, None) = (v.source, &v.ended) {
            left.push(pty.child);
        }
    }
    left
}

/// Runs `f` on every client showing vty `id`.
fn for_clients_showing(sessions: &[Session], clients: &mut [Client], id: u64, mut f: impl FnMut(&mut Client)) {
    for c in clients {
        let shows = c
            .session
            .and_then(|sid| sessions.iter().find(|s| s.id == sid))
            .and_then(|s| s.vtys.get(s.current))
            .is_some_and(|v| v.id == id);
        if shows {
            f(c);
        }
    }
}

/// The bounds of the serial lines' sweep: a line no one sees is read at least 10 times a second
/// (its log and status-row mark stay current), at most 100.
const SWEEP_MIN: Duration = Duration::from_millis(10);
const SWEEP_MAX: Duration = Duration::from_millis(100);

/// A serial line no client shows, with nothing to write: read by `sweep`, not polled.
fn swept(v: &Vty, shown: &[u64]) -> bool {
    matches!(&v.source, Source::Serial(line) if line.is_open())
        && v.pane.input.is_empty()
        && !v.pane.held_back()
        && !shown.contains(&v.id)
}

/// Opens a vty's log for appending: a regular file (made if missing). The server writes it
/// from its one thread, so opening it must not wait (a FIFO waits for a reader) and writing
/// it must not block (a FIFO or a device whose reader stops would hold every session): both
/// are refused.
fn open_log(path: &Path) -> Result<File, Refusal> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .map_err(|e| format!("cannot open the log file {}: {e}", path.display()))?;
    match file.metadata() {
        Ok(m) if m.is_file() => Ok(file),
        Ok(_) => Err(format!(
            "the log file {} is not a regular file (a FIFO or a device could hold the server)",
            path.display()
        )),
        Err(e) => Err(format!("cannot open the log file {}: {e}", path.display())),
    }
}

/// The device of process `pid`'s controlling terminal, from /proc (`tty_nr` packs the major
/// number in bits 8-15 and the minor in bits 0-7 and 20-31).
fn controlling_tty(pid: u32) -> Option<u64> {
    let nr: u64 = stat_field(pid, 4)?;
    if nr == 0 {
        return None;
    }
    let (major, minor) = ((nr >> 8) & 0xfff, (nr & 0xff) | ((nr >> 12) & 0xfff00));
    Some(rustix::fs::makedev(major as u32, minor as u32))
}

/// The parent of process `pid`, from /proc.
fn parent_of(pid: u32) -> Option<u32> {
    stat_field(pid, 1)
}

/// Field `n` of /proc/PID/stat counted from the state (0: state, 1: ppid, 4: tty_nr). The
/// command name before them may hold spaces and parentheses: the fields follow its last ')'.
fn stat_field<T: std::str::FromStr>(pid: u32, n: usize) -> Option<T> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(n)?.parse().ok()
}

/// The size vtys get on a terminal of `cols` x `rows`: less the status row.
fn vty_size(cols: u16, rows: u16, status: bool) -> Size {
    let rows = if status && rows >= 2 { rows - 1 } else { rows };
    Size { cols: cols.max(1), rows: rows.max(1) }
}
