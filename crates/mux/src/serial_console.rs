//! The event loop of `blitty serial`: a serial console built like `blitty run`. One thread
//! polls the line, the keys, the host and signals. What the line sends is appended to the log
//! first (one write per read, so a crash loses nothing already read), then parsed by the
//! engine; frames go out at most `hz` a second through the same presenter as `blitty run`,
//! written without blocking, so a slow host terminal costs frames, never line data.
//!
//! Commands follow the prefix key, Ctrl-] unless `--prefix` says otherwise (as in `blitty
//! run`; picocom uses Ctrl-A, tio Ctrl-T, both of which programs on the far side often want):
//!
//! | keys | action |
//! |---|---|
//! | Ctrl-] q | quit |
//! | Ctrl-] s | send a file raw, paced to the line rate |
//! | Ctrl-] x | send a file with XMODEM-1K (CRC-16; 128-byte blocks if the receiver asks for checksums) |
//! | Ctrl-] c | send a file with XMODEM-CRC (128-byte blocks) |
//! | Ctrl-] a | abort the transfer |
//! | Ctrl-] h | hex view on/off |
//! | Ctrl-] e | local echo on/off |
//! | Ctrl-] i | RX/TX counts, the driver's error counters, reconnections |
//! | Ctrl-] b | send a break |
//! | Ctrl-] d, Ctrl-] r | toggle DTR, RTS |
//! | Ctrl-] [ or PageUp | scrollback |
//! | Ctrl-] Ctrl-] | send a literal Ctrl-] |
//! | Ctrl-] ? | list the commands, one a row (any key closes the list) |
//!
//! Another key after the prefix is not sent: a message names it and points to the help.
//!
//! While a file is sent, typed keys are not sent (they would be mixed into the file); prefix
//! commands still work. When the device goes away (a USB adapter unplugged) blitty says so,
//! keeps the log open, and opens the device again when it comes back, with the same settings.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime};

use blitty_vt::Terminal;
use rustix::event::PollFlags;
use rustix::io::Errno;

use crate::display::Display;
use crate::keys::Prefix;
use crate::pane::{Log, Pane};
use crate::run::{restore_host, stop_and_continue};
use crate::ui::{Command, Event, Mode, Place, Ui};
use blitty_os::event::{PollSet, Wake};
use blitty_os::host::{self, RawMode};
use blitty_os::pty::Size;
use blitty_os::signals::{Signals, SIGCONT, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP, SIGWINCH};
use blitty_os::time::timestamp;
use blitty_serial::line::{Read, SerialLine};
use blitty_serial::settings::chars_per_second;
use blitty_serial::settings::{self as serial, Line, Map, Settings};
use blitty_serial::xmodem;

pub struct Options {
    pub device: PathBuf,
    pub settings: Settings,
    /// Every received byte is appended here, in order.
    pub log: Option<PathBuf>,
    /// The log gets a UTC time stamp at the start of each line.
    pub timestamps: bool,
    /// Start in the hex view.
    pub hex: bool,
    /// Show typed keys locally.
    pub echo: bool,
    pub map: Map,
    pub hz: u32,
    pub scrollback: usize,
    pub prefix: Prefix,
    /// Lock the device (flock and a UUCP lock file, see `blitty_serial::lock`).
    pub lock: bool,
    /// Foreground and background of blitty's own rows (inverse video when neither is set).
    pub status_colours: (Option<blitty_vt::Color>, Option<blitty_vt::Color>),
    /// Pass the device's clipboard writes (OSC 52) on to the host terminal.
    pub clipboard: bool,
}

/// What serial's commands do (see [`SERIAL_COMMANDS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SerialCmd {
    Quit,
    SendRaw,
    Xmodem1k,
    XmodemCrc,
    Abort,
    Hex,
    Echo,
    Info,
    Break,
    Dtr,
    Rts,
}

/// The commands of `blitty serial` after the prefix (the scrollback mode and the help are every
/// front end's).
pub const SERIAL_COMMANDS: &[Command<SerialCmd>] = &[
    Command { keys: &[b"q", b"Q", b"\x11"], shown: "q", help: "quit (the log is kept)", action: SerialCmd::Quit },
    Command { keys: &[b"s"], shown: "s", help: "send a file raw, paced to the line rate", action: SerialCmd::SendRaw },
    Command { keys: &[b"x"], shown: "x", help: "send a file with XMODEM-1K", action: SerialCmd::Xmodem1k },
    Command { keys: &[b"c"], shown: "c", help: "send a file with XMODEM-CRC", action: SerialCmd::XmodemCrc },
    Command { keys: &[b"a"], shown: "a", help: "abort the transfer", action: SerialCmd::Abort },
    Command { keys: &[b"h"], shown: "h", help: "hex view on/off", action: SerialCmd::Hex },
    Command { keys: &[b"e"], shown: "e", help: "local echo on/off", action: SerialCmd::Echo },
    Command { keys: &[b"i"], shown: "i", help: "RX/TX counts, error counters, reconnections", action: SerialCmd::Info },
    Command { keys: &[b"b"], shown: "b", help: "send a break", action: SerialCmd::Break },
    Command { keys: &[b"d"], shown: "d", help: "toggle DTR", action: SerialCmd::Dtr },
    Command { keys: &[b"r"], shown: "r", help: "toggle RTS", action: SerialCmd::Rts },
];

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("standard input and output must be a terminal: blitty serial shows the line in your terminal")]
    NotATerminal,
    #[error(transparent)]
    Serial(#[from] serial::Error),
    #[error("cannot open the log file {path}: {cause}")]
    Log { path: String, cause: io::Error },
    #[error("cannot write the log file {path}: {cause}")]
    LogWrite { path: String, cause: io::Error },
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl From<Errno> for Error {
    fn from(e: Errno) -> Error {
        Error::Io(e.into())
    }
}

/// Bytes read from the line before the loop looks at keys and the clock again.
const READ_BUDGET: usize = 1 << 20;
/// Largest file a transfer takes (it is read into memory first).
const MAX_FILE: u64 = 256 << 20;

/// The parts of the console's loop, as its poll set names them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Keys,
    Signals,
    Host,
    Line,
}

/// The hex view: 16 bytes a line, offset, hex, and the printable ones as text.
#[derive(Default)]
struct HexDump {
    offset: u64,
    line: [u8; 16],
    n: usize,
}

impl HexDump {
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<u8>) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        for &b in bytes {
            if self.n == 0 {
                out.extend_from_slice(format!("{:08x}  ", self.offset).as_bytes());
            }
            out.extend_from_slice(&[HEX[(b >> 4) as usize], HEX[(b & 15) as usize], b' ']);
            if self.n == 7 {
                out.push(b' ');
            }
            self.line[self.n] = b;
            self.n += 1;
            self.offset += 1;
            if self.n == 16 {
                out.extend_from_slice(b" |");
                out.extend(self.line.iter().map(|&c| if (0x20..0x7f).contains(&c) { c } else { b'.' }));
                out.extend_from_slice(b"|\r\n");
                self.n = 0;
            }
        }
    }
}

enum Transfer {
    /// Written as fast as the line carries it, no faster: a stop (XOFF, a cancel) takes
    /// effect within a few characters instead of after a kernel buffer of them.
    Raw {
        data: Vec<u8>,
        sent: usize,
        since: Instant,
        base: usize,
    },
    Xmodem(xmodem::Sender),
}

fn read_file(name: &str) -> Result<Vec<u8>, String> {
    let path = match name.strip_prefix("~/") {
        Some(rest) => PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(rest),
        None => PathBuf::from(name),
    };
    let meta = std::fs::metadata(&path).map_err(|e| format!("cannot open {name}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("{name} is not a file"));
    }
    if meta.len() > MAX_FILE {
        return Err(format!("{name} is larger than {} MB", MAX_FILE >> 20));
    }
    std::fs::read(&path).map_err(|e| format!("cannot read {name}: {e}"))
}

/// `blitty serial`: one pane (the line: its screen, its log, the answers to the device's
/// queries) shown on one display (the user's terminal), with the ui's keys and the commands
/// only a serial line has (transfers, the hex view, local echo, line controls). The loop's
/// state; each turn polls once and hands what is ready to one handler each.
struct Console {
    opts: Options,
    /// The device: its settings and locks are given back when the console ends or the device
    /// goes away, and it is opened again when it comes back (see `line`).
    line: SerialLine,
    pane: Pane,
    hex_term: Terminal,
    hex: Option<HexDump>,
    echo: bool,
    transfer: Option<Transfer>,
    rx: u64,
    tx: u64,
    reconnects: u64,
    dtr: bool,
    rts: bool,
    cps: f64,
    /// Scratch for received bytes as shown (mapped, or as a hex dump).
    mapped: Vec<u8>,
    /// With --timestamps: the next byte shown starts a line.
    screen_line_start: bool,
    signals: Signals,
    raw: RawMode,
    display: Display<OwnedFd>,
    ui: Ui<SerialCmd>,
    size: Size,
    exit: Option<i32>,
    /// The bottom row showed something of blitty's at the last frame.
    had_status: bool,
    buf: Vec<u8>,
}

/// What one poll found ready.
struct Ready {
    keys: bool,
    line_in: bool,
    line_out: bool,
    line_hup: bool,
    transfer_due: bool,
}

impl Console {
    /// The prefix key's name, for messages.
    fn p(&self) -> String {
        self.ui.prefix().name()
    }

    fn say(&mut self, text: impl Into<String>) {
        self.ui.say(text);
    }

    /// Bytes from the line: the log first, then the transfer or the screen.
    fn received(&mut self, bytes: &[u8], now: Instant) -> Result<(), Error> {
        self.rx += bytes.len() as u64;
        let path = &self.opts.log;
        self.pane.log(bytes).map_err(|cause| Error::LogWrite {
            path: path.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
            cause,
        })?;
        if let Some(Transfer::Xmodem(sender)) = self.transfer.as_mut() {
            let mut out = Vec::new();
            sender.feed(bytes, now, &mut out);
            self.pane.input.keys(&out);
            return Ok(());
        }
        let mut shown = std::mem::take(&mut self.mapped);
        shown.clear();
        if self.opts.map.maps_input() {
            self.opts.map.input(bytes, &mut shown);
        } else {
            shown.extend_from_slice(bytes);
        }
        if self.opts.timestamps {
            // Each line shown starts with its arrival time, as in the log.
            let stamp = timestamp(SystemTime::now());
            let mut stamped = Vec::with_capacity(shown.len() + 32);
            for &b in &shown {
                if self.screen_line_start {
                    stamped.extend_from_slice(stamp.as_bytes());
                }
                stamped.push(b);
                self.screen_line_start = b == b'\n';
            }
            shown = stamped;
        }
        self.show(&shown);
        if let Some(h) = self.hex.as_mut() {
            shown.clear();
            h.feed(bytes, &mut shown);
            self.hex_term.feed(&shown);
            // The hex view asks nothing: what it would answer is not the device's question.
            drop(self.hex_term.take_replies());
            self.pane.generation += 1;
        }
        self.mapped = shown;
        Ok(())
    }

    /// Parses what the line sent, each piece within the engine's work bound; the device's
    /// queries are answered on the line (a serial line cannot be made to wait: what does not
    /// fit the answers' bound is not answered).
    fn show(&mut self, bytes: &[u8]) {
        let mut at = 0;
        while at < bytes.len() {
            let n = self.pane.parse(&bytes[at..]);
            if n == 0 {
                // The engine's work bound for one piece is never met by nothing: a guard.
                self.pane.term.feed(&bytes[at..]);
                break;
            }
            at += n;
        }
        let happened = self.pane.happened(self.opts.clipboard);
        self.display.bell |= happened.bell;
        if let Some(c) = happened.clipboard {
            self.display.clipboard = c;
        }
    }

    fn disconnected(&mut self, why: &str) -> Result<(), Error> {
        self.line.went_away();
        self.pane.input.clear();
        if self.transfer.take().is_some() {
            self.say("transfer aborted: the device went away");
        }
        let text = format!("{} {why}; waiting for it to come back", self.opts.device.display());
        self.log_note(&text)?;
        self.ui.message = Some((format!("{text} ({} q quits; the log is kept)", self.p()), None));
        self.ui.dirty = true;
        Ok(())
    }

    fn log_note(&mut self, text: &str) -> Result<(), Error> {
        if let Some(log) = self.pane.log.as_mut() {
            log.note(text).map_err(|cause| Error::LogWrite { path: log.path.display().to_string(), cause })?;
        }
        Ok(())
    }

    fn try_reconnect(&mut self) -> Result<(), Error> {
        if !self.line.try_reopen(Instant::now()) {
            return Ok(());
        }
        self.reconnects += 1;
        let text = format!("{} is back", self.opts.device.display());
        self.log_note(&text)?;
        self.say(text);
        Ok(())
    }

    fn start_transfer(&mut self, kind: SerialCmd, name: &str) {
        let data = match read_file(name) {
            Ok(d) => d,
            Err(e) => return self.say(e),
        };
        let now = Instant::now();
        let len = data.len();
        let (transfer, how) = match kind {
            SerialCmd::Xmodem1k => {
                (Transfer::Xmodem(xmodem::Sender::new(data, true, now)), "XMODEM-1K, waiting for the receiver")
            }
            SerialCmd::XmodemCrc => {
                (Transfer::Xmodem(xmodem::Sender::new(data, false, now)), "XMODEM-CRC, waiting for the receiver")
            }
            _ => (Transfer::Raw { data, sent: 0, since: now, base: 0 }, "raw"),
        };
        self.transfer = Some(transfer);
        let p = self.p();
        self.say(format!("sending {name} ({len} bytes, {how}; {p} a aborts)"));
    }

    /// Moves the transfer on: raw data within the line rate, XMODEM timeouts; reports its end.
    fn advance_transfer(&mut self, now: Instant) -> Option<Instant> {
        let cps = self.cps;
        let idle = self.pane.input.is_empty();
        let mut out = Vec::new();
        let (next, ended) = match self.transfer.as_mut()? {
            Transfer::Raw { data, sent, since, base } => {
                if idle && *sent < data.len() {
                    let mut allowed = *base + (now.duration_since(*since).as_secs_f64() * cps) as usize + 16;
                    // After a stop (XOFF) the rate starts again instead of catching up in a burst.
                    if allowed > *sent + (cps / 10.0) as usize + 16 {
                        *since = now;
                        *base = *sent;
                        allowed = *sent + 16;
                    }
                    let end = allowed.min(data.len());
                    if end > *sent {
                        out.extend_from_slice(&data[*sent..end]);
                        *sent = end;
                    }
                }
                let done = *sent >= data.len() && idle && out.is_empty();
                let msg = done.then(|| format!("sent {} bytes", data.len()));
                (Some(now + Duration::from_secs_f64((16.0 / cps).max(0.001))), msg)
            }
            Transfer::Xmodem(sender) => {
                sender.tick(now, &mut out);
                let msg = match sender.outcome() {
                    xmodem::Outcome::Running => None,
                    xmodem::Outcome::Done => {
                        Some(format!("XMODEM: sent {} bytes, all acknowledged", sender.progress().1))
                    }
                    xmodem::Outcome::Failed(why) => Some(format!("XMODEM failed: {why}")),
                };
                (Some(sender.deadline()), msg)
            }
        };
        self.pane.input.keys(&out);
        if let Some(msg) = ended {
            self.transfer = None;
            self.say(msg);
            return None;
        }
        next
    }

    fn progress(&self) -> Option<String> {
        match self.transfer.as_ref()? {
            Transfer::Raw { data, sent, .. } => Some(format!("sending: {sent}/{} bytes", data.len())),
            Transfer::Xmodem(s) => {
                let (done, total) = s.progress();
                Some(format!("XMODEM: {done}/{total} bytes acknowledged"))
            }
        }
    }

    fn info(&self) -> String {
        let mut text = format!("RX {} bytes, TX {} bytes, reconnected {} times", self.rx, self.tx, self.reconnects);
        match self.line.fd().and_then(serial::counters) {
            Some(c) => text.push_str(&format!(
                "; driver: rx {} tx {} frame {} overrun {} parity {} break {} buffer overrun {}",
                c.rx, c.tx, c.frame, c.overrun, c.parity, c.brk, c.buf_overrun
            )),
            None => text.push_str("; no error counters on this device"),
        }
        text
    }

    /// A command of [`SERIAL_COMMANDS`].
    fn command(&mut self, cmd: SerialCmd) {
        match cmd {
            SerialCmd::Quit => self.exit = Some(0),
            SerialCmd::SendRaw => self.ui.ask(cmd, "send file (raw)", Some(complete_path)),
            SerialCmd::Xmodem1k => self.ui.ask(cmd, "send file (XMODEM-1K)", Some(complete_path)),
            SerialCmd::XmodemCrc => self.ui.ask(cmd, "send file (XMODEM-CRC)", Some(complete_path)),
            SerialCmd::Abort => match self.transfer.take() {
                Some(Transfer::Xmodem(mut s)) => {
                    let mut out = Vec::new();
                    s.cancel(&mut out);
                    self.pane.input.keys(&out);
                    self.say("transfer aborted");
                }
                Some(Transfer::Raw { sent, .. }) => {
                    self.pane.input.clear();
                    self.say(format!("transfer aborted after {sent} bytes"));
                }
                None => self.say("no transfer to abort"),
            },
            SerialCmd::Hex => {
                if self.hex.take().is_none() {
                    self.hex = Some(HexDump::default());
                    let (cols, rows) = (self.pane.term.screen().cols(), self.pane.term.screen().rows());
                    self.hex_term = Terminal::with_scrollback(cols, rows, self.opts.scrollback);
                    let p = self.p();
                    self.say(format!("hex view ({p} h leaves it)"));
                } else {
                    self.say("text view");
                }
                self.display.dirty = true;
            }
            SerialCmd::Echo => {
                self.echo = !self.echo;
                self.say(if self.echo { "local echo on" } else { "local echo off" });
            }
            SerialCmd::Info => {
                let text = self.info();
                self.say(text);
            }
            SerialCmd::Break => {
                let result = match self.line.fd() {
                    Some(fd) => serial::send_break(fd).map_err(|e| e.to_string()),
                    None => Err("no device".into()),
                };
                self.say(match result {
                    Ok(()) => "break sent".to_string(),
                    Err(e) => format!("cannot send a break: {e}"),
                });
            }
            SerialCmd::Dtr | SerialCmd::Rts => self.toggle(cmd == SerialCmd::Dtr),
        }
    }

    /// Raises or lowers DTR (`dtr`) or RTS.
    fn toggle(&mut self, dtr: bool) {
        let (which, name) = if dtr { (Line::Dtr, "DTR") } else { (Line::Rts, "RTS") };
        let on = if dtr { !self.dtr } else { !self.rts };
        let result = match self.line.fd() {
            Some(fd) => serial::set_line(fd, which, on).map_err(|e| e.to_string()),
            None => Err("no device".into()),
        };
        match result {
            Ok(()) => {
                if dtr {
                    self.dtr = on;
                } else {
                    self.rts = on;
                }
                self.say(format!("{name} {}", if on { "raised" } else { "lowered" }));
            }
            Err(e) => self.say(format!("cannot set {name}: {e}")),
        }
    }

    fn start(opts: Options) -> Result<Console, Error> {
        let line = SerialLine::open(&opts.device, opts.settings, opts.lock)?;
        if !host::is_terminal() {
            return Err(Error::NotATerminal);
        }
        let log = match &opts.log {
            Some(path) => Some(
                Log::append(path, opts.timestamps)
                    .map_err(|cause| Error::Log { path: path.display().to_string(), cause })?,
            ),
            None => None,
        };
        let size = host::size();
        let (cols, rows) = (size.cols as usize, size.rows as usize);
        // SIGTTIN and SIGTTOU keep their default (stop), as in `blitty run`.
        let signals = Signals::new(&[SIGWINCH, SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGCONT])?;
        let raw = RawMode::enter()?;
        let mut display = Display::new(host::frame_output()?, cols, rows, opts.hz, opts.status_colours);
        display.enter();
        let mut c = Console {
            pane: Pane::new(Terminal::with_scrollback(cols, rows, opts.scrollback), log),
            hex_term: Terminal::with_scrollback(cols, rows, opts.scrollback),
            hex: opts.hex.then(HexDump::default),
            echo: opts.echo,
            line,
            transfer: None,
            rx: 0,
            tx: 0,
            reconnects: 0,
            dtr: true,
            rts: true,
            cps: chars_per_second(&opts.settings),
            mapped: Vec::new(),
            screen_line_start: true,
            signals,
            raw,
            display,
            ui: Ui::new(opts.prefix, Place::Bottom, "the line"),
            size,
            exit: None,
            had_status: false,
            buf: vec![0u8; 64 * 1024],
            opts,
        };
        let s = &c.opts.settings;
        let parity = match s.parity {
            serial::Parity::None => 'N',
            serial::Parity::Odd => 'O',
            serial::Parity::Even => 'E',
        };
        let p = c.p();
        let banner = format!(
            "{p} q quits, {p} ? lists commands; {} at {} {}{}{}",
            c.opts.device.display(),
            s.baud,
            s.data_bits,
            parity,
            s.stop_bits
        );
        c.say(banner);
        Ok(c)
    }

    /// One turn: a poll, then the keys, the line (read, then write), the signals and the
    /// frame, in that order.
    fn turn(&mut self) -> Result<(), Error> {
        let ready = self.wait()?;
        // A stop comes before the keys: once continued in the background, a read of the
        // terminal would stop blitty with the host still in its modes.
        let mut sigs = self.signals.take();
        if sigs.iter().any(|&s| s == SIGTSTP || s == SIGCONT) {
            stop_and_continue(sigs.contains(&SIGTSTP), &mut self.display, &mut self.raw)?;
            sigs.retain(|&s| s != SIGTSTP && s != SIGCONT);
            sigs.push(SIGWINCH);
        }
        if ready.keys {
            self.keys();
        }
        if ready.line_in || ready.line_hup {
            self.read_line(ready.line_hup)?;
        }
        if self.line.is_open() {
            let wrote = ready.line_out || ready.keys || ready.transfer_due;
            if !self.pane.input.is_empty() && wrote {
                match self.line.write(self.pane.input.unsent()) {
                    Ok(n) => {
                        self.pane.input.sent(n);
                        self.tx += n as u64;
                    }
                    Err(why) => self.disconnected(&why)?,
                }
            }
        } else {
            self.try_reconnect()?;
        }
        sigs.extend(self.signals.take().into_iter().filter(|&s| s != SIGTSTP && s != SIGCONT));
        self.signals(sigs);
        self.frame();
        Ok(())
    }

    fn wait(&mut self) -> Result<Ready, Error> {
        let now = Instant::now();
        let transfer_due = self.advance_transfer(now);
        let mut wake = Wake::default();
        if let Some(t) = transfer_due {
            wake.at(t);
        }
        if self.display.wants(1, self.pane.generation) || self.ui.dirty {
            wake.at(self.display.due_at(now, self.pane.sync_until()));
        }
        if let Some(t) = self.line.retry_at() {
            wake.at(t);
        }
        if let Some(t) = self.ui.wake_at() {
            wake.at(t);
        }
        let stdin = rustix::stdio::stdin();
        let mut set = PollSet::new();
        set.add(stdin, PollFlags::IN, Part::Keys);
        set.add(self.signals.wake.as_fd(), PollFlags::IN, Part::Signals);
        if !self.display.out.idle() {
            set.add(self.display.out.fd.as_fd(), PollFlags::OUT, Part::Host);
        }
        if let Some(line) = self.line.fd() {
            let mut ev = PollFlags::IN;
            if !self.pane.input.is_empty() {
                ev |= PollFlags::OUT;
            }
            set.add(line, ev, Part::Line);
        }
        set.wait(wake.timeout(now))?;
        let line_ev = set.events(Part::Line);
        let ready = Ready {
            keys: set.events(Part::Keys).intersects(PollFlags::IN | PollFlags::HUP),
            line_in: line_ev.intersects(PollFlags::IN),
            line_out: line_ev.contains(PollFlags::OUT),
            line_hup: line_ev.intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL),
            transfer_due: transfer_due.is_some(),
        };
        let host = set.events(Part::Host).intersects(PollFlags::OUT | PollFlags::ERR | PollFlags::HUP);
        drop(set);
        if host {
            self.display.out.flush();
        }
        Ok(ready)
    }

    fn keys(&mut self) {
        let n = match rustix::io::read(rustix::stdio::stdin(), &mut self.buf[..4096]) {
            Ok(0) => return self.exit = Some(128 + SIGHUP),
            Ok(n) => n,
            Err(Errno::INTR) | Err(Errno::AGAIN) => return,
            Err(_) => return self.exit = Some(128 + SIGHUP),
        };
        let keys = self.buf[..n].to_vec();
        let mut input = &keys[..];
        loop {
            let screen = if self.hex.is_some() { self.hex_term.screen() } else { self.pane.term.screen() };
            let events = self.ui.feed(input, screen, SERIAL_COMMANDS);
            for e in events {
                self.key_event(e);
            }
            input = &[];
            if !self.ui.pending() || self.exit.is_some() {
                break;
            }
        }
    }

    fn key_event(&mut self, e: Event<SerialCmd>) {
        match e {
            Event::Forward(bytes) => {
                if self.transfer.is_some() {
                    let p = self.p();
                    self.say(format!("keys are not sent during a transfer ({p} a aborts it)"));
                } else if self.line.is_open() {
                    self.display.pacer.key(Instant::now());
                    let mut mapped = Vec::new();
                    self.opts.map.output(&bytes, &mut mapped);
                    self.pane.input.keys(&mapped);
                    if self.echo {
                        self.pane.note(&String::from_utf8_lossy(&mapped));
                    }
                }
            }
            Event::Command(cmd) => self.command(cmd),
            Event::Answer(cmd, Some(name)) if !name.is_empty() => self.start_transfer(cmd, &name),
            Event::Answer(..) => self.say("nothing sent"),
            Event::Clipboard(bytes) => self.display.clipboard = bytes,
            Event::Scrolling(on) => self.display.presenter.set_mouse_for_blitty(on),
            Event::Confirmed(_) | Event::Chosen(_) => {}
        }
    }

    /// The line: everything it has (up to a budget).
    fn read_line(&mut self, hung_up: bool) -> Result<(), Error> {
        let mut taken = 0;
        let mut buf = std::mem::take(&mut self.buf);
        let mut gone = None;
        while taken < READ_BUDGET {
            // An empty read after data is not a hang-up yet: the next turn tells.
            match self.line.read(&mut buf, hung_up && taken == 0) {
                Read::Data(n) => {
                    taken += n;
                    let now = Instant::now();
                    self.received(&buf[..n], now)?;
                    self.display.pacer.output(now);
                }
                Read::Empty => break,
                Read::Gone(why) => {
                    gone = Some(why);
                    break;
                }
            }
        }
        self.buf = buf;
        if let Some(why) = gone {
            self.disconnected(&why)?;
        }
        Ok(())
    }

    fn signals(&mut self, sigs: Vec<i32>) {
        for sig in sigs {
            match sig {
                SIGWINCH => {
                    let new = host::size();
                    if new != self.size {
                        self.size = new;
                        let (cols, rows) = (new.cols as usize, new.rows as usize);
                        self.pane.term.resize(cols, rows);
                        self.pane.generation += 1;
                        self.hex_term.resize(cols, rows);
                        self.display.resize(cols, rows);
                        // A resize rewraps the lines: the scrollback mode's places are gone.
                        if self.ui.leave_scrollback() {
                            self.display.presenter.set_mouse_for_blitty(false);
                        }
                    }
                }
                other => self.exit = Some(128 + other),
            }
        }
    }

    fn frame(&mut self) {
        let now = Instant::now();
        self.ui.expire(now);
        let status = self.progress();
        let has_status = self.ui.message.is_some() || status.is_some() || !matches!(self.ui.mode, Mode::Normal);
        if self.had_status && !has_status {
            // The row under the message is drawn again.
            self.ui.dirty = true;
        }
        let wanted = self.display.wants(1, self.pane.generation) || self.ui.dirty;
        if !wanted || self.exit.is_some() || self.pane.sync_hold(now).is_some() || !self.display.ready(now) {
            return;
        }
        let generation = self.pane.generation;
        let rows = self.size.rows as usize;
        let term = if self.hex.is_some() { &mut self.hex_term } else { &mut self.pane.term };
        let frame = self.display.compose(term, (1, generation), &mut self.ui, false, |presenter, ui, frame| {
            ui.draw(presenter, rows, SERIAL_COMMANDS, &[], status.as_deref(), frame)
        });
        if self.display.presenter.cursor_touched() {
            self.raw.cursor_changed();
        }
        self.display.out.send(frame);
        // A transfer's progress keeps changing.
        self.display.dirty = self.transfer.is_some();
        self.had_status = has_status;
    }
}

/// Runs the console until Ctrl-] q (status 0) or a signal that ends blitty (128 + it).
pub fn run(opts: Options) -> Result<i32, Error> {
    let mut c = Console::start(opts)?;
    while c.exit.is_none() {
        c.turn()?;
    }
    let Console { mut display, pane, raw, line, exit, .. } = c;
    restore_host(&mut display, &pane.term, raw);
    drop(line);
    Ok(exit.unwrap_or(0))
}

/// Tab in the file prompt, as a shell completes a path: the longest completion all matches
/// share (a directory gets its `/`), and when several remain, a hint listing the first few.
/// `~/` stands for $HOME.
fn complete_path(text: &str) -> (String, String) {
    let expanded = match (text.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) => format!("{home}/{rest}"),
        _ => text.to_string(),
    };
    let (dir, partial) = match expanded.rfind('/') {
        Some(i) => (expanded[..=i].to_string(), expanded[i + 1..].to_string()),
        None => (String::new(), expanded.clone()),
    };
    let read_from = if dir.is_empty() { ".".to_string() } else { dir.clone() };
    let Ok(entries) = std::fs::read_dir(&read_from) else { return (text.to_string(), "no such directory".into()) };
    let mut names: Vec<(String, bool)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let hidden = name.starts_with('.') && !partial.starts_with('.');
            (name.starts_with(&partial) && !hidden).then(|| (name, e.path().is_dir()))
        })
        .collect();
    names.sort();
    let Some((first, _)) = names.first() else { return (text.to_string(), "no match".into()) };
    let mut common = first.clone();
    for (n, _) in &names[1..] {
        let shared = common.chars().zip(n.chars()).take_while(|(a, b)| a == b).count();
        common = common.chars().take(shared).collect();
    }
    let mut done = format!("{dir}{common}");
    if names.len() == 1 && names[0].1 {
        done.push('/');
    }
    // Back to what was typed: ~/ stays ~/.
    if let (Some(_), Ok(home)) = (text.strip_prefix("~/"), std::env::var("HOME")) {
        if let Some(rest) = done.strip_prefix(&format!("{home}/")) {
            done = format!("~/{rest}");
        }
    }
    let hint = if names.len() > 1 {
        let shown: Vec<&str> = names.iter().take(6).map(|(n, _)| n.as_str()).collect();
        let more = if names.len() > 6 { format!(" and {} more", names.len() - 6) } else { String::new() };
        format!("[{}{more}]", shown.join(" "))
    } else {
        String::new()
    };
    (done, hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tab_completes_a_path_as_a_shell_would() {
        let dir = std::env::temp_dir().join(format!("blitty-complete-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("firmware")).unwrap();
        std::fs::write(dir.join("image-a.bin"), b"").unwrap();
        std::fs::write(dir.join("image-b.bin"), b"").unwrap();
        std::fs::write(dir.join(".hidden"), b"").unwrap();
        let d = dir.display();
        assert_eq!(complete_path(&format!("{d}/fi")), (format!("{d}/firmware/"), String::new()));
        assert_eq!(complete_path(&format!("{d}/im")), (format!("{d}/image-"), "[image-a.bin image-b.bin]".into()));
        assert_eq!(complete_path(&format!("{d}/image-b")), (format!("{d}/image-b.bin"), String::new()));
        assert_eq!(complete_path(&format!("{d}/zz")).1, "no match");
        assert_eq!(complete_path(&format!("{d}/.h")).0, format!("{d}/.hidden"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_hex_view_has_offsets_hex_and_text() {
        let mut h = HexDump::default();
        let mut out = Vec::new();
        h.feed(b"Hello, world!\r\n\x00\xffAB", &mut out);
        assert_eq!(
            String::from_utf8(out).expect("ascii"),
            "00000000  48 65 6c 6c 6f 2c 20 77  6f 72 6c 64 21 0d 0a 00  |Hello, world!...|\r\n00000010  ff 41 42 "
        );
    }

    #[test]
    fn the_line_rate_counts_every_bit_of_a_character() {
        assert_eq!(chars_per_second(&Settings::default()), 11_520.0);
        let s =
            Settings { baud: 9600, data_bits: 7, parity: serial::Parity::Even, stop_bits: 2, ..Settings::default() };
        assert_eq!(chars_per_second(&s), 872.7272727272727);
    }
}
