//! The manual pages: blitty(1), a page per command (blitty-run(1), blitty-serial(1), ...) and
//! blitty-config(5), made from what they describe. The options are clap's (the same text as
//! `--help`); the keys after the prefix are the front ends' own command tables
//! (`blitty_mux::server::SESSION_COMMANDS`, `blitty_mux::serial_console::SERIAL_COMMANDS`,
//! `blitty_mux::run::RUN_COMMANDS`) and the rows `blitty_mux::ui::Ui::help_rows` adds to each,
//! read back from the help it draws; the config file's keys are `config::KEYS`, the table next
//! to its parser. What has no table in the code is written here: the scrollback mode's keys
//! (`blitty_mux::copymode` reads them one by one), the window's keys and mouse
//! (`blitty_window`), the descriptions and the examples.
//!
//! The completion scripts are clap's, with the session names added for bash and fish
//! ([`completions`]).

use std::io;
use std::path::{Path, PathBuf};

use blitty_mux::keys::{key_name, Prefix};
use blitty_mux::ui::{Command as UiCommand, Place, Ui};

use crate::config::{self, Key};

/// A manual page: its name (`blitty-run`), section and roff text.
pub struct Page {
    pub name: String,
    pub section: &'static str,
    pub text: String,
}

impl Page {
    pub fn file_name(&self) -> String {
        format!("{}.{}", self.name, self.section)
    }
}

/// One row of a list of keys: the keys as the help names them, and what they do.
struct Row {
    keys: String,
    what: String,
}

/// Which keys a command's page lists.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keys {
    None,
    Run,
    Serial,
    Session,
    Window,
}

/// What a command's page has beyond clap's sections.
struct Spec {
    command: &'static str,
    /// Paragraphs after clap's description.
    more: &'static [&'static str],
    keys: Keys,
    /// Sections of their own: a title and paragraphs.
    sections: &'static [(&'static str, &'static [&'static str])],
    examples: &'static [(&'static str, &'static str)],
    see_also: &'static [&'static str],
}

/// The scrollback mode's keys, as `blitty_mux::copymode::CopyMode` takes them (it has no table:
/// each key is a branch of its `one_key`).
const SCROLLBACK_KEYS: &[(&str, &str)] = &[
    ("PageUp, PageDown; Ctrl-B, Ctrl-F, Space", "a page back, forward"),
    ("Ctrl-U, Ctrl-D", "half a page back, forward"),
    ("Up, Down; k, j", "the cursor a line up, down (the view follows it)"),
    ("Left, Right; h, l", "the cursor a column left, right"),
    ("0, Home; $, End", "the start, the end of the line"),
    ("g, G", "the oldest line, the newest"),
    ("/, ?", "search towards the newest line, towards the oldest: type the text, Enter searches, Escape cancels"),
    ("n, N", "the next match in the search's direction, in the other"),
    ("v, V", "select from the cursor by characters, by whole lines (the same key again: no selection)"),
    (
        "y, Enter",
        "copy the selection to the clipboard (an OSC 52 to the terminal) and leave; Enter with nothing \
         selected leaves",
    ),
    ("q, Escape", "leave (Escape first drops a selection)"),
    ("the wheel", "three lines back, forward"),
    ("a drag of the mouse", "select; releasing the button copies and leaves"),
];

/// How the scrollback mode searches and shows, after its keys.
const SCROLLBACK_NOTES: &str = "Searches wrap around the ends and ignore case unless the text has a capital \
letter (vim's smartcase); every match on the screen is marked. A label on the top row says where the view \
is. Output keeps arriving underneath, and the view, the cursor and a selection stay on their text. A \
resize leaves the mode. While the mode is on, the mouse is blitty's.";

/// The window's own keys (`blitty_window`'s `Window::shortcut` and `Window::key` take them
/// before the program's).
fn window_keys() -> Vec<(String, String)> {
    let vtys = blitty_window::MAX_VTYS;
    [
        ("Ctrl-Shift-T", format!("a new vty running the shell, after the one shown (at most {vtys} in a window)")),
        (
            "Ctrl-PageUp, Ctrl-PageDown",
            "show the vty before, after (wrapping); with one vty alone these keys are the program's".into(),
        ),
        ("Alt-1 .. Alt-9", "show the first .. ninth vty; with one vty alone these keys are the program's".into()),
        (
            "Shift-PageUp, Shift-PageDown",
            "page through the scrollback (on the alternate screen, which has none, they are the program's); \
             a key typed shows the live screen again"
                .into(),
        ),
        ("Ctrl-Shift-C", "copy the selection to CLIPBOARD".into()),
        ("Ctrl-Shift-V", "paste CLIPBOARD".into()),
        ("Shift-Insert", "paste PRIMARY".into()),
    ]
    .into_iter()
    .map(|(k, w)| (k.to_string(), w))
    .collect()
}

/// The window's mouse (`blitty_window`'s `mouse.rs`).
const WINDOW_MOUSE: &[(&str, &str)] = &[
    (
        "left button",
        "a drag selects characters, a double click a word, a triple click a line; releasing gives the \
         selection to PRIMARY; dragging past the top or the bottom scrolls",
    ),
    ("right button", "extend the selection (and give it to PRIMARY)"),
    ("middle button", "paste PRIMARY"),
    ("the wheel", "three lines of scrollback; on the alternate screen with mode 1007, three cursor keys"),
    ("Shift and a button", "select, when the program has asked for the mouse"),
];

const RUN: Spec = Spec {
    command: "run",
    more: &[
        "CMD runs on a new pty sized like this terminal, and is shown on the terminal's alternate screen as \
         frames: at most --hz a second, at once when output pauses or answers a key. The terminal receives \
         only what blitty draws from its own screen, never the program's output itself, so a flood of \
         output costs frames, not a terminal that falls behind. Keys go to the program as soon as they are \
         read. While the program holds an update for synchronized output (mode 2026) no frame is drawn, for \
         150 ms at most.",
        "At the end the program's main-screen history and last screen are left in the terminal's own \
         scrollback, and the terminal is given back as it was. Stopped (kill -TSTP), blitty gives the \
         terminal back; fg takes it again and redraws. Standard input and output must be a terminal.",
    ],
    keys: Keys::Run,
    sections: &[(
        "EXIT STATUS",
        &["The program's exit status, or 128 + the signal that ended it; 128 + the signal when blitty itself \
             is ended by one. 2 when blitty cannot start (one line on standard error naming what failed)."],
    )],
    examples: &[
        ("blitty run -- vim notes.txt", "vim in this terminal, drawn as frames."),
        ("blitty run --prefix C-a --hz 30 -- htop", "htop at 30 frames a second, the prefix on Ctrl-A."),
        ("blitty run --log session.raw", "the shell, every byte it writes kept in session.raw."),
        (
            "blitty replay session.raw --png last.png",
            "the screen that log leaves, drawn into a PNG (see blitty-replay(1)).",
        ),
    ],
    see_also: &["blitty-serial", "blitty-new", "blitty-replay"],
};

const SERIAL: Spec = Spec {
    command: "serial",
    more: &[
        "The defaults are 115200 baud, 8 data bits, no parity, 1 stop bit, no flow \
         control; the line is raw, at any rate the driver accepts. One loop reads everything the line has, \
         appends it to the log, parses it and shows frames at most --hz a second, written without blocking: \
         a slow terminal costs frames, never bytes of the line. The device's queries (cursor position, DA) \
         are answered on the line, as the terminal it talks to would.",
        "Messages, prompts and a transfer's progress show on the bottom row. A file prompt completes names \
         with Tab. When the device goes away blitty says so, keeps the log, and opens the same path again \
         every 200 ms with the same settings. The device is locked (flock and a UUCP lock file) unless \
         --no-lock, and given back its settings at the end.",
        "DEVICE may name a profile of the config file instead: blitty serial NAME opens \
         [serial.profiles.NAME] of blitty-config(5), its keys over those of [serial], the options over \
         both.",
    ],
    keys: Keys::Serial,
    sections: &[(
        "EXIT STATUS",
        &["0 when the console is quit; 2 on an error (one line on standard error naming the device or the file)."],
    )],
    examples: &[
        ("blitty serial /dev/ttyUSB0 -b 9600 --log console.log", "a console at 9600 baud, every byte kept."),
        ("blitty serial /dev/ttyS0 --parity even --databits 7 --prefix C-a", "7E1, the prefix on Ctrl-A."),
        ("blitty serial router", "the line of [serial.profiles.router] in the config file."),
        ("blitty serial /dev/ttyUSB0 --fastport", "set the port up for raw transfers and print the stty line."),
    ],
    see_also: &["blitty-new", "blitty-run"],
};

/// What every session page says of sessions.
const SESSIONS: &[&str] = &[
    "A session is a set of virtual terminals (vtys) kept by a server of the user's own, which blitty new \
     starts when none answers and which ends with its last vty. Each vty is a program on a pty, or a serial \
     line opened as blitty serial opens it, with its own scrollback and, with --log, a log of every byte it \
     received. Programs and lines go on running when no client is attached.",
    "The status row, the last row of each client (status under [server] in blitty-config(5) turns it \
     off), shows the session and its vtys: * the vty shown, # output not seen, ! a bell. A vty whose program \
     exits closes (blitty ls keeps its status); the session ends with its last vty, and its clients exit with \
     that status. Session names are 1 to 64 characters without colons, dots, control or invisible characters.",
];

const SESSION_FILES: (&str, &[&str]) = (
    "FILES",
    &["$XDG_RUNTIME_DIR/blitty/default, else /tmp/blitty-UID/default, or default in socket_dir under [server] \
       of blitty-config(5): the server's socket. Its directory must be the user's own (a real directory, \
       with no access for group or others); it is made with mode 0700 when missing, and anything else is \
       refused, never changed."],
);

const SESSION_EXAMPLES: &[(&str, &str)] = &[
    ("blitty new -s work -- vim notes.txt", "a session named work running vim, attached to this terminal."),
    (
        "blitty new -s router -d --serial /dev/ttyUSB0 -b 9600 --log router.log",
        "a session whose vty is a serial line, not attached, its bytes logged.",
    ),
    ("blitty ls", "the sessions, their vtys, sizes and clients."),
    ("blitty attach work", "this terminal on session work again."),
    ("blitty kill router", "end session router."),
];

const NEW: Spec = Spec {
    command: "new",
    more: SESSIONS,
    keys: Keys::Session,
    sections: &[SESSION_FILES],
    examples: SESSION_EXAMPLES,
    see_also: &["blitty-attach", "blitty-ls", "blitty-kill", "blitty-console", "blitty-serial"],
};

const ATTACH: Spec = Spec {
    command: "attach",
    more: SESSIONS,
    keys: Keys::Session,
    sections: &[SESSION_FILES],
    examples: SESSION_EXAMPLES,
    see_also: &["blitty-new", "blitty-ls", "blitty-kill", "blitty-window"],
};

const LS: Spec = Spec {
    command: "ls",
    more: &["Each session is a line starting with its name and a colon, then a line for each of its vtys and \
             for each of the last vtys that ended, with their status."],
    keys: Keys::None,
    sections: &[SESSION_FILES],
    examples: &[("blitty ls", "the sessions of the server, or no sessions.")],
    see_also: &["blitty-new", "blitty-attach", "blitty-kill"],
};

const KILL: Spec = Spec {
    command: "kill",
    more: &["Each program of the session gets SIGHUP, as when a terminal closes; a serial line is closed; the \
             session's clients are detached."],
    keys: Keys::None,
    sections: &[SESSION_FILES],
    examples: &[("blitty kill work", "end session work.")],
    see_also: &["blitty-new", "blitty-attach", "blitty-ls"],
};

const CONSOLE: Spec = Spec {
    command: "console",
    more: &[
        "The console is one more client of the session server, drawn by the pixel renderer on the \
         framebuffer; keys come from the terminal it runs on, so the prefix keys, vtys, detach and attach \
         work as in blitty attach. -s names the new session; --attach joins one. The device is 32-bit XRGB; \
         its size comes from /sys/class/graphics, or from --fb-size, and a regular file is made that size \
         and stands in for one.",
        SESSIONS[0],
    ],
    keys: Keys::Session,
    sections: &[SESSION_FILES],
    examples: &[
        ("blitty console --fb /dev/fb0", "a new session on the first framebuffer."),
        ("blitty console --fb /dev/fb0 --attach work --font-size 16", "session work there, in a larger font."),
        ("blitty console --fb screen.raw --fb-size 640x480", "a file standing in for a 640x480 framebuffer."),
    ],
    see_also: &["blitty-new", "blitty-attach", "blitty-window"],
};

const WINDOW: Spec = Spec {
    command: "window",
    more: &[
        "CMD runs on a pty in a window of blitty's own on X11, drawn by the pixel renderer. Keys are encoded \
         as xterm encodes them, through the X server's keyboard layout (AltGr, several layouts, dead keys \
         and Compose; libxkbcommon is loaded when a window starts). Ctrl-Shift-T opens more vtys in the \
         window: the hidden ones are read and parsed, not drawn. Resizing the window resizes the program's terminal. \
         Closing it hangs the programs up and blitty exits with 129; when the last program ends the window \
         closes with its status, unless --hold.",
        "With --attach NAME the window is one more client of the session server, as blitty attach: the \
         prefix keys, the session's vtys and the status row are the server's (see blitty-attach(1)); the \
         prefix and d, or closing the window, detach. The window's own keys still work.",
    ],
    keys: Keys::Window,
    sections: &[(
        "ENVIRONMENT",
        &["DISPLAY names the X display. LC_ALL, LC_CTYPE or LANG choose the compose table of dead keys and \
             Compose."],
    )],
    examples: &[
        ("blitty window", "the shell in a window of 80x24 cells."),
        ("blitty window --size 120x40 --font-size 14 -- htop", "htop in a larger window."),
        ("blitty window --attach work", "session work in a window."),
    ],
    see_also: &["blitty-run", "blitty-attach", "blitty-console"],
};

const REPLAY: Spec = Spec {
    command: "replay",
    more: &["The whole file is read first, then fed to the engine in chunks of --chunk bytes, as a terminal \
             reading a pty would. --dump screen prints exactly ROWS lines (trailing spaces removed) and then \
             cursor: ROW COLUMN, both 0-based."],
    keys: Keys::None,
    sections: &[],
    examples: &[
        ("blitty replay session.raw --size 120x40", "the screen the recorded stream leaves at 120x40."),
        ("blitty replay session.raw --dump none --png screen.png", "that screen drawn into a PNG."),
        ("blitty replay session.raw --dump none --stats", "how fast the engine takes the stream."),
    ],
    see_also: &["blitty-run"],
};

const BENCH: Spec = Spec {
    command: "bench",
    more: &["blitty bench runs blitty-lab bench, the benchmark lab, found beside blitty or on PATH; blitty bench \
             --help prints the lab's own help, with its experiments."],
    keys: Keys::None,
    sections: &[],
    examples: &[
        ("blitty bench --quick", "every experiment in quick mode."),
        ("blitty bench engine --out results", "the engine's experiment, its report written into results."),
    ],
    see_also: &[],
};

const COMPLETIONS: Spec = Spec {
    command: "completions",
    more: &["bash and fish complete a session's name after attach, kill and --attach with the names blitty ls \
             lists."],
    keys: Keys::None,
    sections: &[],
    examples: &[
        ("blitty completions bash > ~/.local/share/bash-completion/completions/blitty", "completion for bash."),
        ("blitty completions fish > ~/.config/fish/completions/blitty.fish", "completion for fish."),
    ],
    see_also: &[],
};

const MAN: Spec = Spec {
    command: "man",
    more: &[],
    keys: Keys::None,
    sections: &[],
    examples: &[
        ("blitty man run | man -l -", "read blitty-run(1)."),
        ("blitty man --dir ~/.local/share/man/man1", "install every page for the user (blitty-config(5) into man5)."),
    ],
    see_also: &[],
};

const SPECS: &[Spec] = &[RUN, SERIAL, NEW, ATTACH, LS, KILL, CONSOLE, WINDOW, REPLAY, BENCH, COMPLETIONS, MAN];

/// The version on every page.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Text for roff: backslashes and hyphens escaped (a hyphen stays the ASCII one that options
/// and keys are typed with), and a leading dot or quote made plain.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\e"),
            '-' => out.push_str("\\-"),
            _ => out.push(c),
        }
    }
    if out.starts_with('.') || out.starts_with('\'') {
        out.insert_str(0, "\\&");
    }
    out
}

fn bold(s: &str) -> String {
    format!("\\fB{}\\fR", text(s))
}

/// A page's roff, section by section.
#[derive(Default)]
struct Roff(String);

impl Roff {
    fn raw(&mut self, s: &str) {
        self.0.push_str(s);
        if !s.ends_with('\n') {
            self.0.push('\n');
        }
    }

    fn section(&mut self, title: &str) {
        self.raw(&format!(".SH \"{title}\""));
    }

    fn subsection(&mut self, title: &str) {
        self.raw(&format!(".SS \"{}\"", text(title)));
    }

    fn paragraph(&mut self, s: &str) {
        self.raw(".PP");
        self.raw(&text(s));
    }

    /// A tagged paragraph: `tag` (roff already) over `body`.
    fn item(&mut self, tag: &str, body: &str) {
        self.raw(".TP");
        self.raw(tag);
        self.raw(&text(body));
    }

    /// Lines kept as they are (a file's text).
    fn verbatim(&mut self, lines: &str) {
        self.raw(".PP\n.RS 4\n.nf");
        for line in lines.lines() {
            self.raw(&text(line));
        }
        self.raw(".fi\n.RE");
    }
}

/// The rows of the prefix's help for `table`, as `Ui::help_rows` draws them: the table's
/// commands (an entry with no `shown` is listed with the one before it, as in the help; keys
/// of an entry that its `shown` does not name are added), then the keys every front end has,
/// then the prefix itself, which is sent to `target`. Those last are read back from the rows
/// the help draws, so that the page says what the help says.
fn prefix_rows<A: Copy>(table: &[UiCommand<A>], target: &'static str) -> Vec<Row> {
    let ui: Ui<A> = Ui::new(Prefix::default(), Place::Top, target);
    let drawn = ui.help_rows(table);
    let mut rows: Vec<Row> = Vec::new();
    for c in table.iter().filter(|c| !c.shown.is_empty()) {
        let others: Vec<String> = c.keys[1..]
            .iter()
            .filter(|k| !k.starts_with(b"\x1b"))
            .map(|k| key_name(k))
            .filter(|n| !c.shown.split([' ', ',', '/']).any(|w| w == n))
            .collect();
        let what =
            if others.is_empty() { c.help.to_string() } else { format!("{} (also {})", c.help, others.join(", ")) };
        rows.push(Row { keys: c.shown.to_string(), what });
    }
    let own = rows.len();
    // drawn: the title, a row per entry shown, the front ends' common rows, the prefix's row.
    for line in &drawn[1 + own..] {
        let line = line.trim();
        let (keys, what) = line.split_once("  ").unwrap_or((line, ""));
        rows.push(Row { keys: keys.trim().to_string(), what: what.trim().to_string() });
    }
    if let Some(last) = rows.last_mut() {
        last.keys = format!("{} (the prefix itself)", last.keys);
    }
    rows
}

/// The keys and examples `--help` shows after the options of `command`: the same rows as its
/// page (the key tables of the code), so the two cannot drift apart.
pub fn help_text(command: &str) -> String {
    let Some(spec) = SPECS.iter().find(|s| s.command == command) else { return String::new() };
    let rows = match spec.keys {
        Keys::Run => prefix_rows(blitty_mux::run::RUN_COMMANDS, "the program"),
        Keys::Serial => prefix_rows(blitty_mux::serial_console::SERIAL_COMMANDS, "the line"),
        Keys::Session => prefix_rows(blitty_mux::server::SESSION_COMMANDS, "the program"),
        Keys::None | Keys::Window => Vec::new(),
    };
    let mut out = String::new();
    if !rows.is_empty() {
        let whence = if spec.keys == Keys::Session { "the config file's prefix" } else { "--prefix" };
        out.push_str(&format!(
            "Keys (after the prefix, {} unless {whence} says otherwise):\n",
            Prefix::default().name()
        ));
        let width = rows.iter().map(|r| r.keys.chars().count()).max().unwrap_or(0).min(24);
        for r in &rows {
            out.push_str(&format!("  {:width$}  {}\n", r.keys, r.what));
        }
        out.push_str(&format!("The scrollback mode's keys, and everything else: man blitty-{}\n\n", spec.command));
    }
    if !spec.examples.is_empty() {
        out.push_str("Examples:\n");
        for (cmd, _) in spec.examples {
            out.push_str(&format!("  {cmd}\n"));
        }
    }
    out.trim_end().to_string()
}

/// The KEYS section of a page.
fn keys_section(r: &mut Roff, keys: Keys) {
    let prefix = Prefix::default().name();
    let rows = match keys {
        Keys::None => return,
        Keys::Run => prefix_rows(blitty_mux::run::RUN_COMMANDS, "the program"),
        Keys::Serial => prefix_rows(blitty_mux::serial_console::SERIAL_COMMANDS, "the line"),
        Keys::Session => prefix_rows(blitty_mux::server::SESSION_COMMANDS, "the program"),
        Keys::Window => {
            r.section("KEYS");
            r.paragraph(
                "Keys go to the program, but for the window's own, taken first (with --attach, the session's \
                 prefix keys then work as in blitty-attach(1)):",
            );
            for (k, what) in window_keys() {
                r.item(&bold(&k), &what);
            }
            r.subsection("The mouse");
            r.paragraph(
                "When the program has asked for the mouse it is reported to the program; otherwise, and with \
                 Shift held:",
            );
            for (k, what) in WINDOW_MOUSE {
                r.item(&bold(k), what);
            }
            return;
        }
    };
    let (whose, whence) = match keys {
        Keys::Session => ("The server's", "prefix in blitty-config(5) as the server read it when it started"),
        _ => ("blitty's", "--prefix, or prefix in blitty-config(5)"),
    };
    r.section("KEYS");
    r.paragraph(&format!(
        "Keys go to {} as soon as they are read. {whose} own commands are the prefix key ({prefix}, or \
         {whence}) and then one of these keys:",
        if keys == Keys::Serial { "the line" } else { "the program" },
    ));
    for row in rows {
        r.item(&bold(&row.keys), &row.what);
    }
    r.paragraph(&format!(
        "Any other key after the prefix is named in a message ({prefix} z: not a command); a function key \
         after it is taken whole."
    ));
    if keys != Keys::Run {
        r.paragraph(
            "A command that asks for text (a name, a file) opens a prompt: Enter takes the text, Escape or \
             Ctrl-C cancels, Backspace and Ctrl-U edit, Tab completes a file's name. Keys typed in the same read \
             as the command (a paste, a script) go to the prompt, and those after the Enter are keys again.",
        );
    }
    if keys == Keys::Session {
        r.paragraph(
            "The list of w takes Enter or a vty's number, j and k (or Up and Down) move, q or Escape closes it; \
             the question of & takes y, any other key is no.",
        );
    }
    r.subsection("The scrollback mode");
    r.paragraph(&format!(
        "{prefix} [ or {prefix} PageUp enters it a page back, {prefix} Up a line back; every key is then the \
         mode's until it is left:"
    ));
    for (k, what) in SCROLLBACK_KEYS {
        r.item(&bold(k), what);
    }
    r.paragraph(SCROLLBACK_NOTES);
}

/// The entry of `key` as a page lists it.
fn config_item(r: &mut Roff, key: &Key) {
    let name = if key.section.is_empty() { key.key.to_string() } else { format!("{}.{}", key.section, key.key) };
    r.item(&bold(&name), key.meaning);
    r.raw(&format!(".br\n{}", text(&format!("Values: {}. Default: {}.", key.kind, key.default))));
}

/// The CONFIGURATION section of command `cmd`'s page: the keys it reads, and those the session
/// server reads for the sessions it shows.
fn config_section(r: &mut Roff, cmd: &str) {
    let own: Vec<&Key> = config::KEYS.iter().filter(|k| k.read_by.contains(&cmd)).collect();
    let server_note = match cmd {
        "new" | "console" => Some(
            "The session server this command starts (when none runs) reads these keys of the same file; a server \
             already running keeps the settings it started with:",
        ),
        "attach" | "window" => Some(
            "A session's keys and rows are its server's, which took these keys from its config file when it \
             started (see blitty-new(1)):",
        ),
        _ => None,
    };
    if own.is_empty() && server_note.is_none() {
        return;
    }
    r.section("CONFIGURATION");
    r.paragraph(
        "Settings come from the options, else the config file ($XDG_CONFIG_HOME/blitty/config.toml, or the file \
         --config names; see blitty-config(5)), else the defaults.",
    );
    if !own.is_empty() {
        r.paragraph(if cmd == "new" {
            "The keys this command reads ([serial] and its profiles for the line of --serial):"
        } else {
            "The keys this command reads:"
        });
        for key in own {
            config_item(r, key);
        }
    }
    if let Some(note) = server_note {
        r.paragraph(note);
        for key in config::KEYS.iter().filter(|k| k.read_by.contains(&"server")) {
            config_item(r, key);
        }
    }
}

fn examples_section(r: &mut Roff, examples: &[(&str, &str)]) {
    if examples.is_empty() {
        return;
    }
    r.section("EXAMPLES");
    for (command, what) in examples {
        r.item(&bold(command), what);
    }
}

fn see_also_section(r: &mut Roff, pages: &[&str]) {
    r.section("SEE ALSO");
    let list: Vec<String> = pages
        .iter()
        .map(|p| if p.ends_with("config") { format!("{}(5)", bold(p)) } else { format!("{}(1)", bold(p)) })
        .collect();
    r.raw(&list.join(",\n"));
}

/// A section of clap's for `man`'s command, rendered by clap_mangen.
fn clap_section(man: &clap_mangen::Man, which: fn(&clap_mangen::Man, &mut dyn io::Write) -> io::Result<()>) -> String {
    let mut out = Vec::new();
    which(man, &mut out).expect("writes into memory");
    String::from_utf8_lossy(&out).into_owned()
}

fn title(r: &mut Roff, name: &str, section: &str) {
    let manual = if section == "5" { "File Formats" } else { "User Commands" };
    r.raw(&format!(".TH {name} {section} \"\" \"blitty {VERSION}\" \"{manual}\""));
    // Options and keys are not hyphenated across lines, and lines are not stretched.
    r.raw(".nh\n.ad l");
}

/// The page of subcommand `sub` (already built by its parent).
fn command_page(sub: &clap::Command, spec: Option<&Spec>) -> Page {
    let name = sub.get_display_name().unwrap_or(sub.get_name()).to_string();
    let man = clap_mangen::Man::new(sub.clone());
    let mut r = Roff::default();
    title(&mut r, &name, "1");
    r.raw(&clap_section(&man, clap_mangen::Man::render_name_section));
    r.raw(&clap_section(&man, clap_mangen::Man::render_synopsis_section));
    r.raw(&clap_section(&man, clap_mangen::Man::render_description_section));
    if let Some(spec) = spec {
        for p in spec.more {
            r.paragraph(p);
        }
    }
    if sub.get_arguments().any(|a| !a.is_hide_set()) {
        r.raw(&clap_section(&man, clap_mangen::Man::render_options_section));
    }
    // clap's after_help (the keys of --help) is not rendered: the keys come from their tables.
    if let Some(spec) = spec {
        keys_section(&mut r, spec.keys);
    }
    config_section(&mut r, sub.get_name());
    if let Some(spec) = spec {
        for (heading, paragraphs) in spec.sections {
            r.section(heading);
            for p in *paragraphs {
                r.paragraph(p);
            }
        }
        examples_section(&mut r, spec.examples);
    }
    let mut see: Vec<&str> = vec!["blitty"];
    see.extend(spec.map_or(&[][..], |s| s.see_also));
    see.push("blitty-config");
    see_also_section(&mut r, &see);
    Page { name, section: "1", text: r.0 }
}

/// blitty(1).
fn main_page(cli: &clap::Command) -> Page {
    let man = clap_mangen::Man::new(cli.clone());
    let mut r = Roff::default();
    title(&mut r, "blitty", "1");
    r.raw(&clap_section(&man, clap_mangen::Man::render_name_section));
    r.raw(&clap_section(&man, clap_mangen::Man::render_synopsis_section));
    r.raw(&clap_section(&man, clap_mangen::Man::render_description_section));
    r.paragraph(
        "blitty is a terminal stack that keeps up with its line: one terminal engine behind several displays. \
         Programs and serial lines produce text faster than terminals show it; blitty keeps the screen in \
         memory, tracks what changed, and puts it on the real screen at a bounded rate, so a flood of output \
         costs frames, never a terminal that falls behind or a key that waits. The terminal only ever receives \
         what blitty draws from its own screen, and every size, queue and count blitty holds has a maximum.",
    );
    r.paragraph(
        "Its displays: this terminal (blitty run), a serial line (blitty serial), sessions kept by a server to \
         detach from and attach to again (blitty new, attach, ls, kill), its own X11 window (blitty window) \
         and a Linux framebuffer (blitty console). Each command has a page of its own, with its keys and the \
         keys of the config file it reads.",
    );
    r.raw(&clap_section(&man, clap_mangen::Man::render_options_section));
    r.raw(&clap_section(&man, clap_mangen::Man::render_subcommands_section));
    let prefix = Prefix::default().name();
    r.section("KEYS");
    r.paragraph(&format!(
        "In run, serial, sessions and the console blitty's own commands follow a prefix key, {prefix} unless \
         --prefix or prefix in blitty-config(5) names another. {prefix} ? lists them; {prefix} {prefix} sends \
         the key itself; {prefix} [ enters the scrollback mode (search with / and ?, select with v, copy with \
         y, leave with q). Each command's page lists its keys: blitty-run(1), blitty-serial(1), \
         blitty-new(1), blitty-window(1)."
    ));
    r.section("FILES");
    r.item(
        &bold("$XDG_CONFIG_HOME/blitty/config.toml"),
        "The config file (~/.config/blitty/config.toml when XDG_CONFIG_HOME is unset); see blitty-config(5).",
    );
    r.item(
        &bold("$XDG_RUNTIME_DIR/blitty/default"),
        "The session server's socket (/tmp/blitty-UID/default when XDG_RUNTIME_DIR is unset).",
    );
    r.section("ENVIRONMENT");
    for (var, what) in [
        ("SHELL", "The program run, window, new and console start without a command, unless shell in the config file."),
        ("XDG_CONFIG_HOME, HOME", "Where the config file is."),
        ("XDG_RUNTIME_DIR", "Where the session server's socket is."),
        ("DISPLAY", "The X display of blitty window."),
        ("PATH", "Where blitty bench looks for blitty-lab when it is not beside blitty."),
    ] {
        r.item(&bold(var), what);
    }
    r.section("EXIT STATUS");
    r.paragraph(
        "run, serial, window and a session's client exit with the status of what they showed (see their \
         pages). An argument the parser refuses prints its message, the usage and a hint; any other error is \
         one line on standard error naming what failed. Both exit with status 2.",
    );
    examples_section(
        &mut r,
        &[
            ("blitty run -- htop", "htop in this terminal, drawn as frames."),
            ("blitty serial /dev/ttyUSB0 -b 9600", "a serial console."),
            ("blitty new -s work", "a session named work; detach with Ctrl-] d, come back with blitty attach work."),
            ("blitty window", "the shell in blitty's own window."),
            ("blitty man config | man -l -", "read blitty-config(5)."),
        ],
    );
    let mut see: Vec<String> = cli
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| s.get_display_name().unwrap_or(s.get_name()).to_string())
        .collect();
    see.push("blitty-config".into());
    see_also_section(&mut r, &see.iter().map(String::as_str).collect::<Vec<_>>());
    Page { name: "blitty".into(), section: "1", text: r.0 }
}

/// A config file with every key, as blitty-config(5) shows it (a test parses it).
pub const EXAMPLE_FILE: &str = r##"prefix = "C-a"
hz = 60
scrollback = 10000
shell = "/bin/zsh"
clipboard = true

[status]
fg = "black"
bg = "yellow"

[serial]
baud = 115200
databits = 8
parity = "none"
stopbits = 1
flow = "none"
map = "ICRNL"
log = "~/serial.log"
timestamps = false
echo = false
hex = false
lock = true

[serial.profiles.router]
device = "/dev/serial/by-id/usb-FTDI_FT232R-if00-port0"
baud = 9600

[server]
socket_dir = "/run/user/1000/blitty"
status = true
default_session = "main"
"##;

/// blitty-config(5).
fn config_page(commands: &[String]) -> Page {
    let mut r = Roff::default();
    title(&mut r, "blitty-config", "5");
    r.section("NAME");
    r.raw("blitty\\-config \\- the configuration file of blitty");
    r.section("SYNOPSIS");
    r.raw(&format!("{}\n.br\n{}", bold("$XDG_CONFIG_HOME/blitty/config.toml"), bold("~/.config/blitty/config.toml")));
    r.section("DESCRIPTION");
    r.paragraph(
        "blitty reads its settings from a TOML file: $XDG_CONFIG_HOME/blitty/config.toml \
         (~/.config/blitty/config.toml when XDG_CONFIG_HOME is unset), or the file the --config option of a \
         command names. Every key is optional: the command line wins over the file, the file over the \
         built-in defaults. A missing default file is no error (blitty needs none); a missing --config file is.",
    );
    r.paragraph(&format!(
        "Only a regular file (a symbolic link to one is fine) of at most {} MiB is read, opened without \
         waiting. A bad file stops blitty with one line naming the file, the line and the key, and exit \
         status 2, for example: blitty: config file /home/me/.config/blitty/config.toml: line 3: \
         serial.parity: 'mark' is not one of none, odd, even. A key the file does not know is refused the \
         same way.",
        config::MAX_SIZE >> 20
    ));
    r.paragraph(
        "The session server reads the file when it starts (blitty new --config FILE and blitty console \
         --config FILE pass FILE to the server they start): a server already running keeps the settings it \
         started with.",
    );
    let sections: [(&str, &str, &str); 5] = [
        ("", "The top level", "Settings of every command that shows a program or a line."),
        ("status", "[status]", "blitty's own rows: messages, prompts, the help, the scrollback label, the status row."),
        ("serial", "[serial]", "The defaults of blitty serial (and of the line of blitty new --serial)."),
        (
            "serial.profiles.NAME",
            "[serial.profiles.NAME]",
            "A named line, as tio's profiles: blitty serial NAME (or blitty new --serial NAME) opens its device \
             with its settings. A profile takes every key of [serial], each over the one in [serial], and a \
             device; it holds no profiles of its own.",
        ),
        ("server", "[server]", "The session server (blitty new, attach, ls, kill, console, window --attach)."),
    ];
    r.section("KEYS");
    for (section, heading, about) in sections {
        r.subsection(heading);
        r.paragraph(about);
        for key in config::KEYS.iter().filter(|k| k.section == section) {
            config_item(&mut r, key);
            let readers: Vec<String> = key
                .read_by
                .iter()
                .map(|c| match *c {
                    "server" => "the session server (blitty-new(1), blitty-console(1))".to_string(),
                    c => format!("blitty-{c}(1)"),
                })
                .collect();
            r.raw(&format!(".br\n{}", text(&format!("Read by {}.", readers.join(", ")))));
        }
    }
    r.section("EXAMPLE");
    r.paragraph("Every key, each with its default where it has one:");
    r.verbatim(EXAMPLE_FILE);
    r.section("SEE ALSO");
    let mut see = vec![format!("{}(1)", bold("blitty"))];
    see.extend(commands.iter().map(|c| format!("{}(1)", bold(c))));
    r.raw(&see.join(",\n"));
    Page { name: "blitty-config".into(), section: "5", text: r.0 }
}

/// Every page: blitty(1), a page per command, blitty-config(5).
pub fn pages(cli: clap::Command) -> Vec<Page> {
    let mut cli = cli.disable_help_subcommand(true);
    cli.build();
    let mut pages = vec![main_page(&cli)];
    let mut commands = Vec::new();
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        let spec = SPECS.iter().find(|s| s.command == sub.get_name());
        let page = command_page(sub, spec);
        commands.push(page.name.clone());
        pages.push(page);
    }
    pages.push(config_page(&commands));
    pages
}

/// The page `name` names: `blitty`, a command (`run` or `blitty-run`) or `config`.
pub fn page(cli: clap::Command, name: &str) -> Result<Page, String> {
    let all = pages(cli);
    let want =
        if name == "blitty" || name.starts_with("blitty-") { name.to_string() } else { format!("blitty-{name}") };
    let names: Vec<String> = all.iter().map(|p| p.name.trim_start_matches("blitty-").to_string()).collect();
    all.into_iter()
        .find(|p| p.name == want)
        .ok_or_else(|| format!("no manual page {name}: the pages are {}", names.join(", ")))
}

/// Writes every page into `dir`; a page of section 5 goes into `../man5` beside a directory
/// named `man1` (made when missing), else into `dir` too. Returns the files written.
pub fn write(cli: clap::Command, dir: &Path) -> io::Result<Vec<PathBuf>> {
    if !dir.is_dir() {
        return Err(io::Error::new(io::ErrorKind::NotFound, "no such directory"));
    }
    let mut written = Vec::new();
    for page in pages(cli) {
        let into = match (page.section, dir.file_name().and_then(|n| n.to_str()), dir.parent()) {
            ("1", _, _) => dir.to_path_buf(),
            (s, Some("man1"), Some(parent)) => {
                let other = parent.join(format!("man{s}"));
                std::fs::create_dir_all(&other)?;
                other
            }
            _ => dir.to_path_buf(),
        };
        let path = into.join(page.file_name());
        std::fs::write(&path, page.text.as_bytes())?;
        written.push(path);
    }
    Ok(written)
}

/// The completion script for `shell`: clap's, and for bash and fish the session names
/// `blitty ls` lists after `attach`, `kill` and `--attach`.
pub fn completions(shell: clap_complete::Shell, cli: &mut clap::Command) -> Vec<u8> {
    let mut script = Vec::new();
    clap_complete::generate(shell, cli, "blitty", &mut script);
    match shell {
        clap_complete::Shell::Bash => {
            let script =
                String::from_utf8_lossy(&script).replace("complete -F _blitty ", "complete -F _blitty_sessions ");
            format!("{script}\n{BASH_SESSIONS}").into_bytes()
        }
        clap_complete::Shell::Fish => {
            script.extend_from_slice(b"\n");
            script.extend_from_slice(FISH_SESSIONS.as_bytes());
            script
        }
        _ => script,
    }
}

/// The session names for bash: `_blitty_sessions` completes them where a session is named and
/// hands every other position to clap's `_blitty`. A session's line in `blitty ls` is its name,
/// a colon, and its count of vtys; the lines of its vtys are indented.
const BASH_SESSIONS: &str = r#"# The sessions `blitty ls` lists (with the --config the command line gives).
_blitty_session_names() {
    local i config=()
    for ((i = 2; i < COMP_CWORD; i++)); do
        case "${COMP_WORDS[i]}" in
            --config)
                if [[ ${COMP_WORDS[i+1]} == = ]]; then
                    config=(--config "${COMP_WORDS[i+2]}")
                else
                    config=(--config "${COMP_WORDS[i+1]}")
                fi
                ;;
        esac
    done
    "${COMP_WORDS[0]/#\~/$HOME}" ls "${config[@]}" 2>/dev/null |
        sed -n 's/^\([^ :][^:]*\): [0-9][0-9]* vtys\{0,1\}, .*/\1/p'
}

# Session names after `attach` and `kill` (their one argument) and after `--attach` (window,
# console); clap's completion everywhere else.
_blitty_sessions() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" i named=0 name
    local want=0
    case "${COMP_WORDS[1]}" in
        attach|kill)
            if [[ $cur != -* && $prev != --config && $prev != = ]]; then
                for ((i = 2; i < COMP_CWORD; i++)); do
                    case "${COMP_WORDS[i]}" in
                        --config) [[ ${COMP_WORDS[i+1]} == = ]] && ((i++)); ((i++)) ;;
                        -*) ;;
                        *) ((named++)) ;;
                    esac
                done
                ((named == 0)) && want=1
            fi
            ;;
        window|console)
            [[ $prev == --attach ]] && want=1
            ;;
    esac
    if ((want)); then
        COMPREPLY=()
        while IFS= read -r name; do
            [[ $name == "$cur"* ]] && COMPREPLY+=("$(printf '%q' "$name")")
        done < <(_blitty_session_names)
        return 0
    fi
    _blitty "$@"
}
"#;

/// The session names for fish.
const FISH_SESSIONS: &str = r#"# The sessions `blitty ls` lists, after attach, kill and --attach.
function __fish_blitty_sessions
    command blitty ls 2>/dev/null | string replace -rf '^([^ :][^:]*): \d+ vtys?, .*' '$1'
end
complete -c blitty -n "__fish_blitty_using_subcommand attach; or __fish_blitty_using_subcommand kill" -f -a "(__fish_blitty_sessions)"
complete -c blitty -n "__fish_blitty_using_subcommand window; or __fish_blitty_using_subcommand console" -l attach -r -f -a "(__fish_blitty_sessions)"
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_file_is_read_by_the_parser() {
        let c = config::parse(EXAMPLE_FILE).expect("the example parses");
        assert_eq!(c.profiles["router"].baud, Some(9600));
        // Every key of the table is in it.
        for k in config::KEYS {
            assert!(EXAMPLE_FILE.lines().any(|l| l.starts_with(&format!("{} = ", k.key))), "{}", k.key);
        }
    }

    #[test]
    fn text_escapes_what_roff_would_take_as_markup() {
        assert_eq!(text("a-b \\x"), "a\\-b \\ex");
        assert_eq!(text(".start"), "\\&.start");
        assert_eq!(text("'quote"), "\\&'quote");
    }

    #[test]
    fn the_prefix_rows_are_the_tables_then_the_common_keys_then_the_prefix() {
        let rows = prefix_rows(blitty_mux::serial_console::SERIAL_COMMANDS, "the line");
        assert_eq!(rows[0].keys, "q");
        assert!(rows[0].what.contains("also Q, Ctrl-Q"), "{}", rows[0].what);
        let last = rows.last().unwrap();
        assert_eq!((last.keys.as_str(), last.what.as_str()), ("Ctrl-] (the prefix itself)", "send Ctrl-] to the line"));
        assert!(rows.iter().any(|r| r.keys == "[ or PageUp"));
        let run = prefix_rows(blitty_mux::run::RUN_COMMANDS, "the program");
        assert_eq!(run.iter().map(|r| r.keys.as_str()).collect::<Vec<_>>()[..3], ["[ or PageUp", "Up", "?"]);
    }
}
