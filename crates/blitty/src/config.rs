//! The config file: TOML at `$XDG_CONFIG_HOME/blitty/config.toml` (`~/.config/blitty/...`
//! when XDG_CONFIG_HOME is unset), or the file `--config` names. Every key is optional; the
//! command line wins over the file, the file over the built-in defaults. A missing default file
//! is no error (blitty needs none); a missing `--config` file is. A bad file stops blitty with
//! one line naming the file, the line and the key. The file must be a regular file (a symlink
//! to one is fine) of at most [`MAX_SIZE`] bytes: a symlink to `/dev/zero` or a FIFO is refused
//! at once, not read for ever.
//!
//! ```toml
//! prefix = "C-a"        # the prefix key of run and serial (default C-])
//! hz = 60               # frames a second at most, 1 to 1000
//! scrollback = 10000    # lines, 0 to 100000
//! shell = "/bin/zsh"    # what `blitty run` starts without a command (default $SHELL)
//! clipboard = true      # pass programs' clipboard writes (OSC 52) on to the terminal
//!
//! [status]              # blitty's own rows: messages, help, the scrollback label
//! fg = "black"          # a colour: a name (black, red, ..., bright-white), 0-255, or #rrggbb
//! bg = "yellow"
//!
//! [serial]              # defaults of `blitty serial`
//! baud = 115200
//! databits = 8          # 5 to 8
//! parity = "none"       # none, odd, even
//! stopbits = 1          # 1 or 2
//! flow = "none"         # none, soft, hard
//! map = ""              # as --map
//! timestamps = false
//! echo = false
//! hex = false
//! lock = true
//!
//! [server]              # the session server (`blitty new`, `attach`, `ls`, `kill`)
//! socket_dir = "/run/user/1000/blitty"  # default $XDG_RUNTIME_DIR/blitty, else /tmp/blitty-UID
//! status = true         # the status row listing the vtys
//! default_session = "main"  # the name of `blitty new` without -s (default 0, 1, ...)
//!
//! [serial.profiles.router]   # `blitty serial router`, as tio's named profiles
//! device = "/dev/ttyUSB0"
//! baud = 9600               # and any key of [serial]
//! log = "~/router.log"
//! ```

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use blitty_mux::keys::Prefix;
use blitty_vt::Color;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Raw {
    prefix: Option<Spanned<String>>,
    hz: Option<Spanned<i64>>,
    scrollback: Option<Spanned<i64>>,
    shell: Option<String>,
    clipboard: Option<bool>,
    status: Option<RawStatus>,
    serial: Option<RawSerial>,
    server: Option<RawServer>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawServer {
    socket_dir: Option<String>,
    status: Option<bool>,
    default_session: Option<Spanned<String>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawStatus {
    fg: Option<Spanned<RawColour>>,
    bg: Option<Spanned<RawColour>>,
}

/// A colour as the file may write it: a string (a name, `#rrggbb`, or an index in quotes) or a
/// bare palette index.
#[derive(Deserialize)]
#[serde(untagged, expecting = "expected a colour: a name, 0-255, or #rrggbb")]
enum RawColour {
    Text(String),
    Index(i64),
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct RawSerial {
    device: Option<String>,
    baud: Option<Spanned<i64>>,
    databits: Option<Spanned<i64>>,
    parity: Option<Spanned<String>>,
    stopbits: Option<Spanned<i64>>,
    flow: Option<Spanned<String>>,
    map: Option<Spanned<String>>,
    log: Option<String>,
    timestamps: Option<bool>,
    echo: Option<bool>,
    hex: Option<bool>,
    lock: Option<bool>,
    #[serde(default)]
    profiles: BTreeMap<String, RawSerial>,
}

/// The settings a config file gives; `None` where it says nothing.
#[derive(Clone, Debug, Default)]
pub struct Config {
    pub prefix: Option<Prefix>,
    pub hz: Option<u32>,
    pub scrollback: Option<usize>,
    pub shell: Option<String>,
    pub clipboard: Option<bool>,
    pub status_fg: Option<Color>,
    pub status_bg: Option<Color>,
    pub serial: Serial,
    pub profiles: BTreeMap<String, Serial>,
    /// `[server]`: where the session server's socket lives (default `$XDG_RUNTIME_DIR/blitty`,
    /// else `/tmp/blitty-UID`), its status row (default on), and the name `blitty new` gives a
    /// session when -s is not given (default: the first free number, as tmux).
    pub socket_dir: Option<PathBuf>,
    pub server_status: Option<bool>,
    pub default_session: Option<String>,
}

impl Config {
    /// The shell programs start without a command: `shell` here, else $SHELL, else /bin/sh.
    pub fn shell(&self) -> std::ffi::OsString {
        self.shell
            .clone()
            .map(std::ffi::OsString::from)
            .or_else(|| std::env::var_os("SHELL").filter(|s| !s.is_empty()))
            .unwrap_or_else(|| "/bin/sh".into())
    }

    /// `command`, or the shell when it is empty.
    pub fn command_or_shell(&self, command: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
        if command.is_empty() {
            vec![self.shell()]
        } else {
            command
        }
    }
}

/// `[serial]` or one of its profiles.
#[derive(Clone, Debug, Default)]
pub struct Serial {
    pub device: Option<PathBuf>,
    pub baud: Option<u32>,
    pub databits: Option<u8>,
    pub parity: Option<String>,
    pub stopbits: Option<u8>,
    pub flow: Option<String>,
    pub map: Option<String>,
    pub log: Option<PathBuf>,
    pub timestamps: Option<bool>,
    pub echo: Option<bool>,
    pub hex: Option<bool>,
    pub lock: Option<bool>,
}

impl Serial {
    /// `self`, with `base` where `self` says nothing.
    pub fn over(&self, base: &Serial) -> Serial {
        Serial {
            device: self.device.clone().or_else(|| base.device.clone()),
            baud: self.baud.or(base.baud),
            databits: self.databits.or(base.databits),
            parity: self.parity.clone().or_else(|| base.parity.clone()),
            stopbits: self.stopbits.or(base.stopbits),
            flow: self.flow.clone().or_else(|| base.flow.clone()),
            map: self.map.clone().or_else(|| base.map.clone()),
            log: self.log.clone().or_else(|| base.log.clone()),
            timestamps: self.timestamps.or(base.timestamps),
            echo: self.echo.or(base.echo),
            hex: self.hex.or(base.hex),
            lock: self.lock.or(base.lock),
        }
    }
}

/// One key of the config file, as the manual pages list it: blitty-config(5) renders every
/// entry, and each command's page the entries it reads.
pub struct Key {
    /// The table it is in: `""` for the top level, `status`, `serial`, `serial.profiles.NAME`
    /// (which also takes every key of `[serial]`) or `server`.
    pub section: &'static str,
    pub key: &'static str,
    /// The value's TOML type, and the values taken.
    pub kind: &'static str,
    /// What holds when the file does not give the key.
    pub default: &'static str,
    pub meaning: &'static str,
    /// The commands that read it (`run`, `serial`, `new`, ...); `server` is the session server,
    /// which reads the file when `blitty new` or `blitty console` starts it.
    pub read_by: &'static [&'static str],
}

/// Every key [`parse`] reads (a test checks the parser's fields against it both ways).
pub const KEYS: &[Key] = &[
    Key {
        section: "",
        key: "prefix",
        kind: "string: a control key, C-a .. C-z, C-@, C-\\, C-], C-^ or C-_ (also written Ctrl-a or ^a); \
               Ctrl-C, Enter, Escape, Tab, Backspace and Ctrl-J are refused",
        default: "C-]",
        meaning: "The prefix key: blitty's own commands are this key and then a command key.",
        read_by: &["run", "serial", "server"],
    },
    Key {
        section: "",
        key: "hz",
        kind: "integer, 1 to 1000",
        default: "60",
        meaning: "Frames a second at most (20 is enough for text, 200 for animation).",
        read_by: &["run", "serial", "window", "server"],
    },
    Key {
        section: "",
        key: "scrollback",
        kind: "integer, 0 to 100000",
        default: "10000",
        meaning: "Lines of scrollback kept for each program or line.",
        read_by: &["run", "serial", "window", "server"],
    },
    Key {
        section: "",
        key: "shell",
        kind: "string: a program (without arguments)",
        default: "$SHELL, else /bin/sh",
        meaning: "What starts when no command is given (and, in a session, on c).",
        read_by: &["run", "window", "server"],
    },
    Key {
        section: "",
        key: "clipboard",
        kind: "boolean",
        default: "true",
        meaning: "Pass programs' clipboard writes (OSC 52) on to the terminal; false drops them, as \
                  --no-clipboard does. Clipboard reads are always refused.",
        read_by: &["run", "serial", "server"],
    },
    Key {
        section: "status",
        key: "fg",
        kind: "colour: a name (black, red, green, yellow, blue, magenta, cyan, white, bright-black .. \
               bright-white, default), 0 to 255 (bare or quoted), or \"#rrggbb\"",
        default: "none: with neither fg nor bg, the rows are in inverse video",
        meaning: "The text colour of blitty's own rows: messages, prompts, the help, the scrollback label, \
                  the status row.",
        read_by: &["run", "serial", "server"],
    },
    Key {
        section: "status",
        key: "bg",
        kind: "colour, as fg",
        default: "none, as fg",
        meaning: "The background colour of blitty's own rows.",
        read_by: &["run", "serial", "server"],
    },
    Key {
        section: "serial",
        key: "baud",
        kind: "integer, 1 to 4294967295 (any rate the driver accepts, standard or not)",
        default: "115200",
        meaning: "The line's baud rate (-b).",
        read_by: &["serial", "new"],
    },
    Key {
        section: "serial",
        key: "databits",
        kind: "integer, 5 to 8",
        default: "8",
        meaning: "Data bits per character (--databits).",
        read_by: &["serial", "new"],
    },
    Key {
        section: "serial",
        key: "parity",
        kind: "string: none, odd or even",
        default: "none",
        meaning: "The parity bit (--parity).",
        read_by: &["serial", "new"],
    },
    Key {
        section: "serial",
        key: "stopbits",
        kind: "integer, 1 or 2",
        default: "1",
        meaning: "Stop bits (--stopbits).",
        read_by: &["serial", "new"],
    },
    Key {
        section: "serial",
        key: "flow",
        kind: "string: none, soft (XON/XOFF) or hard (RTS/CTS)",
        default: "none",
        meaning: "Flow control (--flow).",
        read_by: &["serial", "new"],
    },
    Key {
        section: "serial",
        key: "map",
        kind: "string: a comma-separated list of ICRNL, IGNCR, INLCR, INLCRNL (what is shown), OCRNL, \
               ONLCRNL, ODELBS, OLTU (what keys send)",
        default: "\"\" (no mapping)",
        meaning: "Byte mappings (--map); the log keeps the bytes as received.",
        read_by: &["serial"],
    },
    Key {
        section: "serial",
        key: "log",
        kind: "string: a file (~/ is the home directory)",
        default: "none",
        meaning: "Append every received byte to this file, in order (--log).",
        read_by: &["serial"],
    },
    Key {
        section: "serial",
        key: "timestamps",
        kind: "boolean",
        default: "false",
        meaning: "Start each line, on the screen and in the log, with its UTC arrival time (--timestamps).",
        read_by: &["serial"],
    },
    Key {
        section: "serial",
        key: "echo",
        kind: "boolean",
        default: "false",
        meaning: "Show typed keys locally, for devices that do not echo (--echo).",
        read_by: &["serial"],
    },
    Key {
        section: "serial",
        key: "hex",
        kind: "boolean",
        default: "false",
        meaning: "Start in the hex view (--hex).",
        read_by: &["serial"],
    },
    Key {
        section: "serial",
        key: "lock",
        kind: "boolean",
        default: "true",
        meaning: "Lock the device (flock and a UUCP lock file); false opens it even when another program \
                  holds it, as --no-lock does.",
        read_by: &["serial", "new"],
    },
    Key {
        section: "serial.profiles.NAME",
        key: "device",
        kind: "string: a device (~/ is the home directory)",
        default: "none: a profile must name one",
        meaning: "The device blitty serial NAME (and blitty new --serial NAME) opens. A profile takes \
                  every key of [serial] too, each over the one in [serial]; the command line's options \
                  win over both. (In [serial] itself a device is read and unused: the device is the \
                  command's argument.)",
        read_by: &["serial", "new"],
    },
    Key {
        section: "server",
        key: "socket_dir",
        kind: "string: a directory (~/ is the home directory)",
        default: "$XDG_RUNTIME_DIR/blitty, else /tmp/blitty-UID",
        meaning: "Where the session server's socket (default) is. The directory must be the user's own, \
                  with no access for group or others; it is made with mode 0700 when missing.",
        read_by: &["new", "attach", "ls", "kill", "console", "window"],
    },
    Key {
        section: "server",
        key: "status",
        kind: "boolean",
        default: "true",
        meaning: "The status row on each client's last row: the session's name and its vtys (* the one \
                  shown, # output not seen, ! a bell).",
        read_by: &["server"],
    },
    Key {
        section: "server",
        key: "default_session",
        kind: "string: 1 to 64 characters, without colons, dots, control or invisible characters",
        default: "the first free number (0, 1, ...)",
        meaning: "The name blitty new (and blitty console) gives a session when -s is not given.",
        read_by: &["new", "console"],
    },
];

/// Where the config file is looked for when `--config` is not given.
pub fn default_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("blitty").join("config.toml"))
}

/// The largest config file blitty reads, in bytes. Every key fits in a few hundred; the limit
/// stops a file that is not a config (a log, an image) from costing its size in memory first.
pub const MAX_SIZE: u64 = 1 << 20;

/// Reads the config: `explicit` (which must exist) or the default file (which may not).
pub fn load(explicit: Option<&Path>) -> Result<Config, String> {
    let (path, must_exist) = match explicit {
        Some(p) => (p.to_path_buf(), true),
        None => match default_path() {
            Some(p) => (p, false),
            None => return Ok(Config::default()),
        },
    };
    let text = match read(&path) {
        Ok(t) => t,
        Err(Unreadable::Io(e)) if e.kind() == std::io::ErrorKind::NotFound && !must_exist => {
            return Ok(Config::default())
        }
        Err(e) => return Err(format!("cannot read the config file {}: {e}", path.display())),
    };
    parse(&text).map_err(|e| format!("config file {}: {e}", path.display()))
}

/// Why a config file was not read.
enum Unreadable {
    Io(std::io::Error),
    /// What it is instead, when it is a kind with a name.
    NotAFile(Option<&'static str>),
    TooLarge,
    NotText,
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Unreadable::Io(e) => write!(f, "{e}"),
            Unreadable::NotAFile(Some(what)) => write!(f, "it is {what}, not a regular file"),
            Unreadable::NotAFile(None) => write!(f, "it is not a regular file"),
            Unreadable::TooLarge => write!(f, "it is larger than {} KiB", MAX_SIZE >> 10),
            Unreadable::NotText => write!(f, "it is not UTF-8 text"),
        }
    }
}

/// The text of the file at `path` (a symlink followed), if it is a regular file of at most
/// [`MAX_SIZE`] bytes: what it is is asked before it is opened (without waiting: opening a FIFO
/// waits for a writer); asked again of the descriptor opened, so that what is read is what was checked;
/// and it is read up to one byte past the limit, for a file that grows meanwhile.
fn read(path: &Path) -> Result<String, Unreadable> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    regular_file(&std::fs::metadata(path).map_err(Unreadable::Io)?)?;
    // Without waiting, should a FIFO have taken the file's place since the question.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .map_err(Unreadable::Io)?;
    let size = regular_file(&file.metadata().map_err(Unreadable::Io)?)?;
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(MAX_SIZE + 1).read_to_end(&mut bytes).map_err(Unreadable::Io)?;
    if bytes.len() as u64 > MAX_SIZE {
        return Err(Unreadable::TooLarge);
    }
    String::from_utf8(bytes).map_err(|_| Unreadable::NotText)
}

/// The size of a regular file of at most [`MAX_SIZE`] bytes, or why it is not one.
fn regular_file(meta: &std::fs::Metadata) -> Result<u64, Unreadable> {
    use std::os::unix::fs::FileTypeExt;
    let kind = meta.file_type();
    if kind.is_file() {
        return if meta.len() > MAX_SIZE { Err(Unreadable::TooLarge) } else { Ok(meta.len()) };
    }
    Err(Unreadable::NotAFile(if kind.is_dir() {
        Some("a directory")
    } else if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_char_device() {
        Some("a character device")
    } else if kind.is_block_device() {
        Some("a block device")
    } else if kind.is_socket() {
        Some("a socket")
    } else {
        None
    }))
}

/// The 1-based line of byte offset `at`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].bytes().filter(|&b| b == b'\n').count() + 1
}

/// `line N: KEY: what` for a value at `span`.
fn at(text: &str, span: Range<usize>, key: &str, what: impl std::fmt::Display) -> String {
    format!("line {}: {key}: {what}", line_of(text, span.start))
}

/// Parses a config file's text (see the module's comment).
pub fn parse(text: &str) -> Result<Config, String> {
    let raw: Raw = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start));
        // The key the error is about: the one the message names, else the one on its line.
        let key = e.span().and_then(|s| {
            let line_start = text[..s.start.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
            let line_text = text[line_start..].lines().next().unwrap_or("");
            line_text.split_once('=').map(|(k, _)| k.trim().to_string())
        });
        let msg = e.message().trim().to_string();
        match (line, key) {
            (Some(l), Some(k)) if !msg.contains(&format!("`{k}`")) => format!("line {l}: {k}: {msg}"),
            (Some(l), _) => format!("line {l}: {msg}"),
            (None, _) => msg,
        }
    })?;
    let mut c = Config { shell: raw.shell.filter(|s| !s.is_empty()), clipboard: raw.clipboard, ..Config::default() };
    if let Some(server) = raw.server {
        c.socket_dir = server.socket_dir.filter(|d| !d.is_empty()).map(|d| expand_home(&d));
        c.server_status = server.status;
        if let Some(name) = server.default_session {
            let n = name.get_ref();
            if blitty_mux::names::check_session_name(n).is_err() {
                return Err(at(
                    text,
                    name.span(),
                    "server.default_session",
                    "a name of 1 to 64 characters without colons, dots, control or invisible characters",
                ));
            }
            c.default_session = Some(n.clone());
        }
    }
    if let Some(p) = raw.prefix {
        c.prefix = Some(Prefix::parse(p.get_ref()).map_err(|e| at(text, p.span(), "prefix", e))?);
    }
    if let Some(h) = raw.hz {
        let v = *h.get_ref();
        if !(1..=1000).contains(&v) {
            return Err(at(text, h.span(), "hz", format!("expected 1 to 1000 frames a second, got {v}")));
        }
        c.hz = Some(v as u32);
    }
    if let Some(s) = raw.scrollback {
        let (v, max) = (*s.get_ref(), blitty_vt::term::MAX_SCROLLBACK as i64);
        if !(0..=max).contains(&v) {
            return Err(at(text, s.span(), "scrollback", format!("expected 0 to {max} lines, got {v}")));
        }
        c.scrollback = Some(v as usize);
    }
    if let Some(status) = raw.status {
        for (key, v, slot) in [("status.fg", status.fg, &mut c.status_fg), ("status.bg", status.bg, &mut c.status_bg)] {
            if let Some(v) = v {
                let colour = match v.get_ref() {
                    RawColour::Text(name) => parse_colour(name),
                    RawColour::Index(i) => u8::try_from(*i)
                        .map(Color::Indexed)
                        .map_err(|_| format!("{i} is not a colour (a palette index is 0 to 255)")),
                };
                *slot = Some(colour.map_err(|e| at(text, v.span(), key, e))?);
            }
        }
    }
    if let Some(serial) = raw.serial {
        c.serial = serial_section(text, &serial, "serial")?;
        for (name, p) in &serial.profiles {
            if !p.profiles.is_empty() {
                return Err(format!("serial.profiles.{name}: a profile holds no profiles"));
            }
            c.profiles.insert(name.clone(), serial_section(text, p, &format!("serial.profiles.{name}"))?);
        }
    }
    Ok(c)
}

fn serial_section(text: &str, r: &RawSerial, section: &str) -> Result<Serial, String> {
    let key = |k: &str| format!("{section}.{k}");
    let number = |v: &Option<Spanned<i64>>, k: &str, range: Range<i64>, what: &str| -> Result<Option<i64>, String> {
        match v {
            Some(v) if range.contains(v.get_ref()) => Ok(Some(*v.get_ref())),
            Some(v) => Err(at(text, v.span(), &key(k), format!("expected {what}, got {}", v.get_ref()))),
            None => Ok(None),
        }
    };
    let word = |v: &Option<Spanned<String>>, k: &str, allowed: &[&str]| -> Result<Option<String>, String> {
        match v {
            Some(v) if allowed.contains(&v.get_ref().as_str()) => Ok(Some(v.get_ref().clone())),
            Some(v) => {
                Err(at(text, v.span(), &key(k), format!("'{}' is not one of {}", v.get_ref(), allowed.join(", "))))
            }
            None => Ok(None),
        }
    };
    if let Some(m) = &r.map {
        blitty_serial::settings::Map::parse(m.get_ref()).map_err(|e| at(text, m.span(), &key("map"), e))?;
    }
    Ok(Serial {
        device: r.device.as_deref().map(expand_home),
        baud: number(&r.baud, "baud", 1..u32::MAX as i64 + 1, "a baud rate from 1")?.map(|v| v as u32),
        databits: number(&r.databits, "databits", 5..9, "5 to 8 data bits")?.map(|v| v as u8),
        parity: word(&r.parity, "parity", &["none", "odd", "even"])?,
        stopbits: number(&r.stopbits, "stopbits", 1..3, "1 or 2 stop bits")?.map(|v| v as u8),
        flow: word(&r.flow, "flow", &["none", "soft", "hard"])?,
        map: r.map.as_ref().map(|m| m.get_ref().clone()),
        log: r.log.as_deref().map(expand_home),
        timestamps: r.timestamps,
        echo: r.echo,
        hex: r.hex,
        lock: r.lock,
    })
}

/// `~/x` is `$HOME/x`.
fn expand_home(s: &str) -> PathBuf {
    match (s.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ => PathBuf::from(s),
    }
}

/// A colour: a name (`black` .. `white`, `bright-black` .. `bright-white`, `default`), a
/// palette index 0-255, or `#rrggbb`.
pub fn parse_colour(s: &str) -> Result<Color, String> {
    const NAMES: [&str; 8] = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"];
    let lower = s.to_ascii_lowercase();
    if lower == "default" {
        return Ok(Color::Default);
    }
    if let Some(i) = NAMES.iter().position(|n| *n == lower) {
        return Ok(Color::Indexed(i as u8));
    }
    if let Some(i) = lower.strip_prefix("bright-").and_then(|n| NAMES.iter().position(|m| *m == n)) {
        return Ok(Color::Indexed(8 + i as u8));
    }
    if let Ok(i) = lower.parse::<u8>() {
        return Ok(Color::Indexed(i));
    }
    if let Some(hex) = lower.strip_prefix('#').filter(|h| h.len() == 6) {
        if let Ok(v) = u32::from_str_radix(hex, 16) {
            return Ok(Color::Rgb((v >> 16) as u8, (v >> 8) as u8, v as u8));
        }
    }
    Err(format!("'{s}' is not a colour (a name such as red or bright-blue, 0-255, or #rrggbb)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_default_session_name_is_checked_as_blitty_new_checks_it() {
        assert_eq!(parse("[server]\ndefault_session = \"main\"\n").unwrap().default_session.as_deref(), Some("main"));
        for bad in ["a\u{202e}b", "x\u{200b}", "a.b", "", &"n".repeat(65)] {
            let e = parse(&format!("[server]\ndefault_session = \"{bad}\"\n")).unwrap_err();
            assert!(e.contains("server.default_session"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn every_key_is_read() {
        let c = parse(
            "prefix = \"C-a\"\nhz = 30\nscrollback = 500\nshell = \"/bin/zsh\"\nclipboard = false\n\
             [status]\nfg = \"black\"\nbg = \"#ffcc00\"\n\
             [serial]\nbaud = 9600\ndatabits = 7\nparity = \"even\"\nstopbits = 2\nflow = \"soft\"\nmap = \"ICRNL\"\n\
             timestamps = true\necho = true\nhex = false\nlock = false\n\
             [serial.profiles.router]\ndevice = \"/dev/ttyUSB0\"\nbaud = 57600\n",
        )
        .unwrap();
        assert_eq!(c.prefix, Some(Prefix(1)));
        assert_eq!(
            (c.hz, c.scrollback, c.shell.as_deref(), c.clipboard),
            (Some(30), Some(500), Some("/bin/zsh"), Some(false))
        );
        assert_eq!((c.status_fg, c.status_bg), (Some(Color::Indexed(0)), Some(Color::Rgb(255, 204, 0))));
        assert_eq!((c.serial.baud, c.serial.databits, c.serial.stopbits), (Some(9600), Some(7), Some(2)));
        assert_eq!((c.serial.parity.as_deref(), c.serial.flow.as_deref()), (Some("even"), Some("soft")));
        assert_eq!(
            (c.serial.timestamps, c.serial.echo, c.serial.hex, c.serial.lock),
            (Some(true), Some(true), Some(false), Some(false))
        );
        let router = c.profiles["router"].over(&c.serial);
        assert_eq!((router.device, router.baud, router.databits), (Some("/dev/ttyUSB0".into()), Some(57600), Some(7)));
        assert!(parse("").is_ok());
    }

    #[test]
    fn a_bad_file_is_one_line_naming_the_line_and_the_key() {
        for (text, says) in [
            ("hz = 60\nhzz = 3\n", "line 2: unknown field `hzz`"),
            ("hz = 0\n", "line 1: hz: expected 1 to 1000 frames a second, got 0"),
            ("hz = \"fast\"\n", "line 1: hz: invalid type: string \"fast\""),
            ("\n\nprefix = \"x\"\n", "line 3: prefix: 'x' is not a control key"),
            ("scrollback = 100001\n", "line 1: scrollback: expected 0 to 100000 lines"),
            ("[serial]\nparity = \"mark\"\n", "line 2: serial.parity: 'mark' is not one of none, odd, even"),
            ("[serial]\n\ndatabits = 9\n", "line 3: serial.databits: expected 5 to 8 data bits, got 9"),
            ("[serial.profiles.x]\nbaud = 0\n", "line 2: serial.profiles.x.baud: expected a baud rate from 1"),
            ("[serial]\nmap = \"NOPE\"\n", "line 2: serial.map:"),
            ("[status]\nfg = \"purple\"\n", "line 2: status.fg: 'purple' is not a colour"),
            ("[status]\nfg = 256\n", "line 2: status.fg: 256 is not a colour (a palette index is 0 to 255)"),
            ("[status]\n\nbg = -1\n", "line 3: status.bg: -1 is not a colour"),
            ("[status]\nfg = true\n", "line 2: fg: expected a colour: a name, 0-255, or #rrggbb"),
            ("hz = \n", "line 1"),
        ] {
            let err = parse(text).err().unwrap_or_else(|| panic!("{text:?} was accepted"));
            assert!(err.starts_with(says), "{text:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{text:?}: {err}");
        }
    }

    /// The fields a struct's `Deserialize` knows: serde hands them to `deserialize_struct`,
    /// where this deserializer keeps them (and stops).
    fn fields<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
        use serde::de::{value::Error, Error as _, Visitor};
        struct Probe<'a>(&'a mut &'static [&'static str]);
        impl<'de> serde::Deserializer<'de> for Probe<'_> {
            type Error = Error;
            fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
                Err(Error::custom("not a struct"))
            }
            fn deserialize_struct<V: Visitor<'de>>(
                self,
                _: &'static str,
                fields: &'static [&'static str],
                _: V,
            ) -> Result<V::Value, Error> {
                *self.0 = fields;
                Err(Error::custom("fields taken"))
            }
            serde::forward_to_deserialize_any! {
                bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
                option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
            }
        }
        let mut found: &'static [&'static str] = &[];
        let _ = T::deserialize(Probe(&mut found));
        assert!(!found.is_empty(), "{} has no fields", std::any::type_name::<T>());
        found
    }

    #[test]
    fn the_key_table_names_every_key_the_parser_reads_and_no_other() {
        let mut parsed: Vec<String> = Vec::new();
        let tables = ["status", "serial", "server"];
        for f in fields::<Raw>().iter().filter(|f| !tables.contains(f)) {
            parsed.push(f.to_string());
        }
        for f in fields::<RawStatus>() {
            parsed.push(format!("status.{f}"));
        }
        for f in fields::<RawServer>() {
            parsed.push(format!("server.{f}"));
        }
        for f in fields::<RawSerial>().iter().filter(|f| **f != "profiles") {
            // The device is a profile's (in [serial] itself it is read and unused).
            parsed.push(if *f == "device" { "serial.profiles.NAME.device".into() } else { format!("serial.{f}") });
        }
        let mut listed: Vec<String> = KEYS
            .iter()
            .map(|k| if k.section.is_empty() { k.key.to_string() } else { format!("{}.{}", k.section, k.key) })
            .collect();
        assert_eq!(fields::<Raw>().iter().filter(|f| tables.contains(f)).count(), tables.len());
        parsed.sort();
        listed.sort();
        assert_eq!(parsed, listed);
        for k in KEYS {
            assert!(!k.kind.is_empty() && !k.default.is_empty() && !k.meaning.is_empty(), "{}", k.key);
            for who in k.read_by {
                assert!(
                    ["run", "serial", "new", "attach", "ls", "kill", "console", "window", "server"].contains(who),
                    "{}: {who}",
                    k.key
                );
            }
        }
    }

    #[test]
    fn the_key_table_says_the_limits_and_defaults_the_parser_and_the_commands_use() {
        let key = |section: &str, name: &str| KEYS.iter().find(|k| k.section == section && k.key == name).unwrap();
        let scrollback = key("", "scrollback");
        let (max, default) = (blitty_vt::term::MAX_SCROLLBACK, blitty_vt::term::DEFAULT_SCROLLBACK);
        assert_eq!((scrollback.kind, scrollback.default), (&*format!("integer, 0 to {max}"), &*default.to_string()));
        assert!(parse(&format!("scrollback = {max}")).is_ok() && parse(&format!("scrollback = {}", max + 1)).is_err());
        assert!(key("", "hz").kind.ends_with("1 to 1000") && parse("hz = 1000").is_ok() && parse("hz = 1001").is_err());
        assert!(parse(&format!("[serial]\nbaud = {}\n", u32::MAX)).is_ok());
        assert!(key("serial", "baud").kind.contains(&u32::MAX.to_string()));
        assert_eq!(key("", "prefix").default, Prefix::default().name().replace("Ctrl-", "C-"));
    }

    #[test]
    fn colours_by_name_index_and_hex() {
        assert_eq!(parse_colour("bright-red"), Ok(Color::Indexed(9)));
        assert_eq!(parse_colour("200"), Ok(Color::Indexed(200)));
        assert_eq!(parse_colour("#0a0B0c"), Ok(Color::Rgb(10, 11, 12)));
        assert_eq!(parse_colour("default"), Ok(Color::Default));
        assert!(parse_colour("256").is_err() && parse_colour("#12345").is_err());
        // The README gives 0-255: written bare as well as in quotes.
        let c = parse("[status]\nfg = 5\nbg = \"17\"\n").unwrap();
        assert_eq!((c.status_fg, c.status_bg), (Some(Color::Indexed(5)), Some(Color::Indexed(17))));
        let c = parse("[status]\nfg = 0\nbg = 255\n").unwrap();
        assert_eq!((c.status_fg, c.status_bg), (Some(Color::Indexed(0)), Some(Color::Indexed(255))));
    }
}
