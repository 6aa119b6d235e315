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

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use blitty_present::AnsiPresenter;
use blitty_vt::Terminal;
use rustix::event::PollFlags;
use rustix::io::Errno;

use crate::copymode::CopyMode;
use crate::keys::{self, Action, Keys, Prefix};
use crate::run::{enter_scrollback, present, resize_host, restore_host, scrollback_keys};
use blitty_os::event::{PollSet, Wake};
use blitty_os::host::{self, RawMode};
use blitty_os::output::Output;
use blitty_os::pace::Pacer;
use blitty_os::signals::{Signals, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGWINCH};
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
}

/// The commands of `blitty serial`, as its help lists them (the prefix goes before each).
pub const SERIAL_COMMANDS: &[(&str, &str)] = &[
    ("q", "quit (the log is kept)"),
    ("s", "send a file raw, paced to the line rate"),
    ("x", "send a file with XMODEM-1K"),
    ("c", "send a file with XMODEM-CRC"),
    ("a", "abort the transfer"),
    ("h", "hex view on/off"),
    ("e", "local echo on/off"),
    ("i", "RX/TX counts, error counters, reconnections"),
    ("b", "send a break"),
    ("d", "toggle DTR"),
    ("r", "toggle RTS"),
    ("[ or PageUp", "scrollback: PageUp/PageDown, Up/Down or k/j, g/G, q leaves"),
    ("?", "this help"),
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

/// How long a message stays on the bottom row.
const MESSAGE: Duration = Duration::from_secs(4);
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

/// The capture log: raw bytes, or lines with time stamps.
struct Log {
    file: File,
    path: PathBuf,
    timestamps: bool,
    at_line_start: bool,
    buf: Vec<u8>,
}

impl Log {
    fn open(path: &Path, timestamps: bool) -> Result<Log, Error> {
        // Appended to, never truncated: an earlier capture is never lost by starting again.
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|cause| Error::Log { path: path.display().to_string(), cause })?;
        Ok(Log { file, path: path.to_path_buf(), timestamps, at_line_start: true, buf: Vec::new() })
    }

    fn write_err(&self) -> impl Fn(io::Error) -> Error + '_ {
        |cause| Error::LogWrite { path: self.path.display().to_string(), cause }
    }

    /// Writes `bytes` straight to the file (no user-space buffer: what was read is in the
    /// kernel's hands before it is shown).
    fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        if !self.timestamps {
            return self.file.write_all(bytes).map_err(self.write_err());
        }
        self.buf.clear();
        let stamp = timestamp(SystemTime::now());
        for &b in bytes {
            if self.at_line_start {
                self.buf.extend_from_slice(stamp.as_bytes());
            }
            self.buf.push(b);
            self.at_line_start = b == b'\n';
        }
        (&self.file).write_all(&self.buf).map_err(self.write_err())
    }

    /// A note of blitty's own in the log (disconnections), on a line of its own.
    fn note(&mut self, text: &str) -> Result<(), Error> {
        let mut line = String::new();
        if !self.at_line_start {
            line.push('\n');
        }
        line.push_str(&format!("[blitty {}: {text}]\n", timestamp(SystemTime::now()).trim_end()));
        self.at_line_start = true;
        (&self.file).write_all(line.as_bytes()).map_err(self.write_err())
    }
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum PromptKind {
    Raw,
    Xmodem1k,
    XmodemCrc,
}

struct Prompt {
    kind: PromptKind,
    text: String,
    /// What Tab found when it could not complete alone.
    hint: String,
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

struct Console {
    opts: Options,
    /// The device: its settings and locks are given back when the console ends or the device
    /// goes away, and it is opened again when it comes back (see `line`).
    line: SerialLine,
    log: Option<Log>,
    term: Terminal,
    hex_term: Terminal,
    hex: Option<HexDump>,
    echo: bool,
    to_line: Vec<u8>,
    transfer: Option<Transfer>,
    prompt: Option<Prompt>,
    message: Option<(String, Option<Instant>)>,
    /// The command list is shown (prefix ?) until the next key.
    help: bool,
    dirty: bool,
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
}

impl Console {
    /// The prefix key's name, for messages.
    fn p(&self) -> String {
        self.opts.prefix.name()
    }

    fn say(&mut self, text: impl Into<String>) {
        self.message = Some((text.into(), Some(Instant::now() + MESSAGE)));
        self.dirty = true;
    }

    /// Bytes from the line: the log first, then the transfer or the display.
    fn received(&mut self, bytes: &[u8], now: Instant) -> Result<(), Error> {
        self.rx += bytes.len() as u64;
        if let Some(log) = self.log.as_mut() {
            log.write(bytes)?;
        }
        if let Some(Transfer::Xmodem(sender)) = self.transfer.as_mut() {
            sender.feed(bytes, now, &mut self.to_line);
            return Ok(());
        }
        let shown: &[u8] = if self.opts.map.maps_input() {
            self.mapped.clear();
            self.opts.map.input(bytes, &mut self.mapped);
            &self.mapped
        } else {
            bytes
        };
        if self.opts.timestamps {
            // Each line shown starts with its arrival time, as in the log.
            let stamp = timestamp(SystemTime::now());
            let mut stamped = Vec::with_capacity(shown.len() + 32);
            for &b in shown {
                if self.screen_line_start {
                    stamped.extend_from_slice(stamp.as_bytes());
                }
                stamped.push(b);
                self.screen_line_start = b == b'\n';
            }
            self.term.feed(&stamped);
        } else {
            self.term.feed(shown);
        }
        if let Some(h) = self.hex.as_mut() {
            self.mapped.clear();
            h.feed(bytes, &mut self.mapped);
            self.hex_term.feed(&self.mapped);
        }
        self.dirty = true;
        Ok(())
    }

    fn disconnected(&mut self, why: &str) -> Result<(), Error> {
        self.line.went_away();
        self.to_line.clear();
        if self.transfer.take().is_some() {
            self.say("transfer aborted: the device went away");
        }
        let text = format!("{} {why}; waiting for it to come back", self.opts.device.display());
        if let Some(log) = self.log.as_mut() {
            log.note(&text)?;
        }
        self.message = Some((format!("{text} ({} q quits; the log is kept)", self.p()), None));
        self.dirty = true;
        Ok(())
    }

    fn try_reconnect(&mut self) -> Result<(), Error> {
        if !self.line.try_reopen(Instant::now()) {
            return Ok(());
        }
        self.reconnects += 1;
        let text = format!("{} is back", self.opts.device.display());
        if let Some(log) = self.log.as_mut() {
            log.note(&text)?;
        }
        self.say(text);
        Ok(())
    }

    fn start_transfer(&mut self, kind: PromptKind, name: &str) {
        let data = match read_file(name) {
            Ok(d) => d,
            Err(e) => return self.say(e),
        };
        let now = Instant::now();
        let len = data.len();
        self.transfer = Some(match kind {
            PromptKind::Raw => Transfer::Raw { data, sent: 0, since: now, base: 0 },
            PromptKind::Xmodem1k => Transfer::Xmodem(xmodem::Sender::new(data, true, now)),
            PromptKind::XmodemCrc => Transfer::Xmodem(xmodem::Sender::new(data, false, now)),
        });
        let how = match kind {
            PromptKind::Raw => "raw",
            PromptKind::Xmodem1k => "XMODEM-1K, waiting for the receiver",
            PromptKind::XmodemCrc => "XMODEM-CRC, waiting for the receiver",
        };
        let p = self.p();
        self.say(format!("sending {name} ({len} bytes, {how}; {p} a aborts)"));
    }

    /// Moves the transfer on: raw data within the line rate, XMODEM timeouts; reports its end.
    fn advance_transfer(&mut self, now: Instant) -> Option<Instant> {
        let cps = self.cps;
        let (next, ended) = match self.transfer.as_mut()? {
            Transfer::Raw { data, sent, since, base } => {
                if self.to_line.is_empty() && *sent < data.len() {
                    let mut allowed = *base + (now.duration_since(*since).as_secs_f64() * cps) as usize + 16;
                    // After a stop (XOFF) the rate starts again instead of catching up in a burst.
                    if allowed > *sent + (cps / 10.0) as usize + 16 {
                        *since = now;
                        *base = *sent;
                        allowed = *sent + 16;
                    }
                    let end = allowed.min(data.len());
                    if end > *sent {
                        self.to_line.extend_from_slice(&data[*sent..end]);
                        *sent = end;
                    }
                }
                let done = *sent >= data.len() && self.to_line.is_empty();
                let msg = done.then(|| format!("sent {} bytes", data.len()));
                (Some(now + Duration::from_secs_f64((16.0 / cps).max(0.001))), msg)
            }
            Transfer::Xmodem(sender) => {
                sender.tick(now, &mut self.to_line);
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

    /// A command after the prefix key. Returns true to quit.
    fn command(&mut self, keys: &[u8]) -> bool {
        let key = if keys.len() == 1 { keys[0] } else { 0 };
        match key {
            b'q' | b'Q' | 0x11 => return true,
            b's' => self.prompt = Some(Prompt { kind: PromptKind::Raw, text: String::new(), hint: String::new() }),
            b'x' => self.prompt = Some(Prompt { kind: PromptKind::Xmodem1k, text: String::new(), hint: String::new() }),
            b'c' => {
                self.prompt = Some(Prompt { kind: PromptKind::XmodemCrc, text: String::new(), hint: String::new() })
            }
            b'a' => match self.transfer.take() {
                Some(Transfer::Xmodem(mut s)) => {
                    s.cancel(&mut self.to_line);
                    self.say("transfer aborted");
                }
                Some(Transfer::Raw { sent, .. }) => {
                    self.to_line.clear();
                    self.say(format!("transfer aborted after {sent} bytes"));
                }
                None => self.say("no transfer to abort"),
            },
            b'h' => {
                if self.hex.take().is_none() {
                    self.hex = Some(HexDump::default());
                    let (cols, rows) = (self.term.screen().cols(), self.term.screen().rows());
                    self.hex_term = Terminal::with_scrollback(cols, rows, self.opts.scrollback);
                    let p = self.p();
                    self.say(format!("hex view ({p} h leaves it)"));
                } else {
                    self.say("text view");
                }
            }
            b'e' => {
                self.echo = !self.echo;
                self.say(if self.echo { "local echo on" } else { "local echo off" });
            }
            b'i' => {
                let text = self.info();
                self.say(text);
            }
            b'b' => {
                let result = match self.line.fd() {
                    Some(fd) => serial::send_break(fd).map_err(|e| e.to_string()),
                    None => Err("no device".into()),
                };
                self.say(match result {
                    Ok(()) => "break sent".to_string(),
                    Err(e) => format!("cannot send a break: {e}"),
                });
            }
            b'd' | b'r' => {
                let (which, name) = if key == b'd' { (Line::Dtr, "DTR") } else { (Line::Rts, "RTS") };
                let on = if key == b'd' { !self.dtr } else { !self.rts };
                let result = match self.line.fd() {
                    Some(fd) => serial::set_line(fd, which, on).map_err(|e| e.to_string()),
                    None => Err("no device".into()),
                };
                match result {
                    Ok(()) => {
                        if key == b'd' {
                            self.dtr = on;
                        } else {
                            self.rts = on;
                        }
                        self.say(format!("{name} {}", if on { "raised" } else { "lowered" }));
                    }
                    Err(e) => self.say(format!("cannot set {name}: {e}")),
                }
            }
            b'?' => {
                self.help = true;
                self.dirty = true;
            }
            _ => {
                let p = self.p();
                self.say(format!("{p} {}: not a command — {p} ? for help", keys::key_name(keys)));
            }
        }
        false
    }

    /// A key typed while a file name is asked for.
    fn prompt_key(&mut self, bytes: &[u8]) {
        for &b in bytes {
            let Some(p) = self.prompt.as_mut() else { return };
            if b != b'\t' {
                p.hint.clear();
            }
            match b {
                b'\r' | b'\n' => {
                    let p = self.prompt.take().expect("a prompt");
                    if p.text.is_empty() {
                        self.say("nothing sent");
                    } else {
                        self.start_transfer(p.kind, &p.text);
                    }
                }
                0x1b | 0x03 | 0x07 => {
                    self.prompt = None;
                    self.say("nothing sent");
                }
                0x7f | 0x08 => {
                    p.text.pop();
                }
                0x15 => p.text.clear(),
                b'\t' => {
                    let (text, hint) = complete_path(&p.text);
                    p.text = text;
                    p.hint = hint;
                    continue;
                }
                c if c >= 0x20 => p.text.push(c as char),
                _ => {}
            }
        }
        // UTF-8 typed byte by byte becomes Latin-1 above; take it back as UTF-8.
        if let Some(p) = self.prompt.as_mut() {
            let bytes: Vec<u8> = p.text.chars().map(|c| c as u32 as u8).collect();
            if let Ok(s) = String::from_utf8(bytes) {
                if s.chars().count() != p.text.chars().count() {
                    p.text = s;
                }
            }
        }
        self.dirty = true;
    }

    /// Drops a message whose time is up; says whether the bottom row has something to show.
    fn has_status(&mut self, now: Instant) -> bool {
        if matches!(&self.message, Some((_, Some(until))) if now >= *until) {
            self.message = None;
        }
        self.prompt.is_some() || self.message.is_some() || self.transfer.is_some()
    }

    /// The bottom row's text: a prompt, a message, or a transfer's progress.
    fn status(&self) -> Option<String> {
        if let Some(p) = &self.prompt {
            let what = match p.kind {
                PromptKind::Raw => "send file (raw)",
                PromptKind::Xmodem1k => "send file (XMODEM-1K)",
                PromptKind::XmodemCrc => "send file (XMODEM-CRC)",
            };
            if !p.hint.is_empty() {
                return Some(format!("{what}: {}_  {}", p.text, p.hint));
            }
            return Some(format!("{what}: {}_  (Tab completes, Enter sends, Esc cancels)", p.text));
        }
        if let Some((text, _)) = &self.message {
            return Some(text.clone());
        }
        self.progress()
    }
}

/// Runs the console until Ctrl-] q (status 0) or a signal that ends blitty (128 + it).
pub fn run(opts: Options) -> Result<i32, Error> {
    let line = SerialLine::open(&opts.device, opts.settings, opts.lock)?;
    if !host::is_terminal() {
        return Err(Error::NotATerminal);
    }
    let log = match &opts.log {
        Some(path) => Some(Log::open(path, opts.timestamps)?),
        None => None,
    };
    let mut size = host::size();
    let (cols, rows) = (size.cols as usize, size.rows as usize);
    let mut signals = Signals::new(&[SIGWINCH, SIGTERM, SIGHUP, SIGINT, SIGQUIT])?;
    let mut presenter = AnsiPresenter::new(cols, rows);
    presenter.set_overlay_colours(opts.status_colours.0, opts.status_colours.1);
    let raw = RawMode::enter()?;
    let mut writer = Output::new(host::frame_output()?);
    let mut first = Vec::new();
    presenter.enter(&mut first);
    writer.send(first);

    let cps = chars_per_second(&opts.settings);
    let mut c = Console {
        term: Terminal::with_scrollback(cols, rows, opts.scrollback),
        hex_term: Terminal::with_scrollback(cols, rows, opts.scrollback),
        hex: opts.hex.then(HexDump::default),
        echo: opts.echo,
        line,
        log,
        to_line: Vec::new(),
        transfer: None,
        prompt: None,
        message: None,
        help: false,
        dirty: true,
        rx: 0,
        tx: 0,
        reconnects: 0,
        dtr: true,
        rts: true,
        cps,
        mapped: Vec::new(),
        screen_line_start: true,
        opts,
    };
    let s = &c.opts.settings;
    let parity = match s.parity {
        serial::Parity::None => 'N',
        serial::Parity::Odd => 'O',
        serial::Parity::Even => 'E',
    };
    let p = c.p();
    c.say(format!(
        "{p} q quits, {p} ? lists commands; {} at {} {}{}{}",
        c.opts.device.display(),
        s.baud,
        s.data_bits,
        parity,
        s.stop_bits
    ));

    let mut pacer = Pacer::new(c.opts.hz);
    let mut keys = Keys::new(c.opts.prefix);
    let mut copy = CopyMode::default();
    // A copy from the scrollback mode for the host's clipboard, sent with the next frame.
    let mut clipboard_out: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut actions = Vec::new();
    let mut exit: Option<i32> = None;
    let mut had_status = false;

    while exit.is_none() {
        let now = Instant::now();
        let transfer_due = c.advance_transfer(now);
        let mut wake = Wake::default();
        if let Some(t) = transfer_due {
            wake.at(t);
        }
        if c.dirty && writer.idle() {
            wake.at(pacer.due_at(now));
        }
        if let Some(t) = c.line.retry_at() {
            wake.at(t);
        }
        if let Some((_, Some(until))) = &c.message {
            wake.at(*until);
        }
        let stdin = rustix::stdio::stdin();
        let mut set = PollSet::new();
        set.add(stdin, PollFlags::IN, Part::Keys);
        set.add(signals.wake.as_fd(), PollFlags::IN, Part::Signals);
        if !writer.idle() {
            set.add(writer.fd.as_fd(), PollFlags::OUT, Part::Host);
        }
        if let Some(line) = c.line.fd() {
            let mut ev = PollFlags::IN;
            if !c.to_line.is_empty() {
                ev |= PollFlags::OUT;
            }
            set.add(line, ev, Part::Line);
        }
        set.wait(wake.timeout(now))?;
        let line_ev = set.events(Part::Line);
        let (key_ready, host_ready, line_in, line_out, line_hup) = (
            set.events(Part::Keys).intersects(PollFlags::IN | PollFlags::HUP),
            set.events(Part::Host).intersects(PollFlags::OUT | PollFlags::ERR | PollFlags::HUP),
            line_ev.intersects(PollFlags::IN),
            line_ev.contains(PollFlags::OUT),
            line_ev.intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::NVAL),
        );
        drop(set);
        if host_ready {
            writer.flush();
        }

        // Keys first.
        if key_ready {
            match rustix::io::read(stdin, &mut buf[..4096]) {
                Ok(0) => exit = Some(128 + SIGHUP),
                Ok(n) => {
                    if c.help {
                        // Any key closes the list, and goes no further.
                        c.help = false;
                        presenter.invalidate();
                        c.dirty = true;
                    } else if c.prompt.is_some() {
                        c.prompt_key(&buf[..n]);
                    } else {
                        actions.clear();
                        keys.feed(&buf[..n], size.rows as usize, &mut actions);
                        // Keys typed after the one that left the scrollback mode go round again.
                        let mut again = Vec::new();
                        loop {
                            for a in actions.drain(..) {
                                match a {
                                    // Keys that came in the same read as the command that opened
                                    // a prompt (Ctrl-] s and a file name typed fast, or pasted)
                                    // belong to the prompt, not the line.
                                    Action::Forward(bytes) if c.prompt.is_some() => c.prompt_key(&bytes),
                                    Action::Forward(bytes) => {
                                        if c.transfer.is_some() {
                                            let p = c.p();
                                            c.say(format!("keys are not sent during a transfer ({p} a aborts it)"));
                                        } else if c.line.is_open() {
                                            pacer.key(Instant::now());
                                            let start = c.to_line.len();
                                            c.opts.map.output(&bytes, &mut c.to_line);
                                            if c.echo {
                                                c.term.feed(&c.to_line[start..]);
                                                c.dirty = true;
                                            }
                                        }
                                    }
                                    Action::Scrollback(back) => {
                                        enter_scrollback(&mut copy, &mut presenter, c.active().screen(), back);
                                        c.dirty = true;
                                    }
                                    Action::Copy(bytes) => {
                                        let screen = c.active().screen();
                                        let (clip, rest) =
                                            scrollback_keys(&mut copy, &mut keys, &mut presenter, &bytes, screen);
                                        if let Some(clip) = clip {
                                            clipboard_out = clip;
                                        }
                                        again = rest;
                                        c.dirty = true;
                                    }
                                    Action::Command(k) => {
                                        if c.command(&k) {
                                            exit = Some(0);
                                        }
                                        presenter.invalidate();
                                    }
                                }
                            }
                            if again.is_empty() {
                                break;
                            }
                            keys.feed(&std::mem::take(&mut again), size.rows as usize, &mut actions);
                        }
                    }
                }
                Err(Errno::INTR) | Err(Errno::AGAIN) => {}
                Err(_) => exit = Some(128 + SIGHUP),
            }
        }

        // The line: read everything it has (up to a budget), then write what is waiting.
        if line_in || line_hup {
            let mut taken = 0;
            let mut gone: Option<String> = None;
            while taken < READ_BUDGET {
                // An empty read after data is not a hang-up yet: the next turn tells.
                match c.line.read(&mut buf, line_hup && taken == 0) {
                    Read::Data(n) => {
                        taken += n;
                        let now = Instant::now();
                        c.received(&buf[..n], now)?;
                        pacer.output(now);
                    }
                    Read::Empty => break,
                    Read::Gone(why) => {
                        gone = Some(why);
                        break;
                    }
                }
            }
            if let Some(why) = gone {
                c.disconnected(&why)?;
            }
        }
        if c.line.is_open() {
            if !c.to_line.is_empty() && (line_out || key_ready || transfer_due.is_some()) {
                match c.line.write(&mut c.to_line) {
                    Ok(n) => c.tx += n as u64,
                    Err(why) => c.disconnected(&why)?,
                }
            }
        } else {
            c.try_reconnect()?;
        }

        for sig in signals.take() {
            match sig {
                SIGWINCH => {
                    let new = host::size();
                    if new != size {
                        size = new;
                        let (cols, rows) = (size.cols as usize, size.rows as usize);
                        c.term.resize(cols, rows);
                        c.hex_term.resize(cols, rows);
                        resize_host(&mut writer, &mut presenter, size);
                        // A resize rewraps the lines: the scrollback mode's places are gone.
                        if copy.active {
                            copy.leave();
                            keys.scrolling = false;
                            presenter.set_mouse_for_blitty(false);
                        }
                        c.dirty = true;
                    }
                }
                other => exit = Some(128 + other),
            }
        }

        copy.follow(c.active().screen());
        let now = Instant::now();
        let has_status = c.has_status(now);
        if had_status && !has_status {
            // The row under the message is drawn again.
            presenter.invalidate();
            c.dirty = true;
        }
        if c.dirty && writer.idle() && exit.is_none() && pacer.due(now) {
            let status = c.status();
            let mut frame = writer.buffer();
            frame.append(&mut clipboard_out);
            present_with_status(
                &mut presenter,
                c.active(),
                copy.offset(c.active().screen()),
                status.as_deref(),
                &mut frame,
            );
            if presenter.cursor_touched() {
                raw.cursor_changed();
            }
            if copy.active {
                copy.draw(&mut presenter, c.active().screen(), &mut frame);
                presenter.invalidate();
            }
            if c.help {
                // Above the status row, so that nothing is cut on a short screen but the top.
                let rows = keys::help_rows(c.opts.prefix, SERIAL_COMMANDS, "the line");
                let bottom = c.active().screen().rows().saturating_sub(1);
                for (i, row) in rows.iter().rev().enumerate() {
                    if let Some(y) = bottom.checked_sub(1 + i) {
                        presenter.overlay(y, row, &mut frame);
                    }
                }
            }
            c.term.screen_mut().clear_damage();
            c.hex_term.screen_mut().clear_damage();
            writer.send(frame);
            // A transfer's progress keeps changing.
            c.dirty = c.transfer.is_some();
            pacer.sent(now);
            had_status = status.is_some();
        }
    }

    restore_host(&mut writer, &mut presenter, &c.term, raw);
    drop(c.line);
    Ok(exit.unwrap_or(0))
}

impl Console {
    /// The terminal the user looks at: the line's, or the hex view's.
    fn active(&self) -> &Terminal {
        if self.hex.is_some() {
            &self.hex_term
        } else {
            &self.term
        }
    }
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

/// The view (see `session::present`) with `status` over the whole bottom row, left-aligned.
fn present_with_status(
    presenter: &mut AnsiPresenter,
    term: &Terminal,
    offset: usize,
    status: Option<&str>,
    out: &mut Vec<u8>,
) {
    present(presenter, term, offset, out);
    if let Some(text) = status {
        let (cols, rows) = (term.screen().cols(), term.screen().rows());
        let mut line: String = text.chars().filter(|c| !c.is_control()).take(cols).collect();
        let pad = cols.saturating_sub(line.chars().count());
        line.extend(std::iter::repeat_n(' ', pad));
        presenter.overlay(rows.saturating_sub(1), &line, out);
    }
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
