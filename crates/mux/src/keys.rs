//! Keys typed at the host: forwarded to the child at once, except after the prefix key
//! (`--prefix`, default Ctrl-]), which opens blitty's own commands:
//!
//! | keys | action |
//! |---|---|
//! | prefix PageUp, prefix [ | scroll back a page (enters scrollback) |
//! | prefix Up | scroll back a line (enters scrollback) |
//! | prefix prefix | send the prefix key itself to the program |
//! | prefix ? | list the commands |
//! | prefix other key | a command of `blitty serial` (see `console`); in `blitty run`, a short message |
//!
//! Why Ctrl-] by default: it is telnet's escape key, the serial-console tradition; blitty
//! usually runs inside tmux or screen, which take Ctrl-B and Ctrl-A first; Ctrl-A, Ctrl-E,
//! Ctrl-T and Ctrl-_ are readline's and emacs's editing keys, Ctrl-\ is SIGQUIT. Its cost is
//! vim's "follow tag" (Ctrl-]): pressed twice it reaches vim, and `--prefix` (or `prefix` in
//! the config file) picks another key.
//!
//! In scrollback every key goes to the scrollback mode (`copymode`) until it is left (the
//! session then clears `scrolling`).

/// The default prefix key, Ctrl-].
pub const PREFIX: u8 = 0x1d;

/// A prefix key: a control character.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prefix(pub u8);

impl Default for Prefix {
    fn default() -> Prefix {
        Prefix(PREFIX)
    }
}

impl Prefix {
    /// Reads `C-a`, `Ctrl-a`, `^a` (any case) for a letter or one of `@ [ \ ] ^ _`.
    pub fn parse(s: &str) -> Result<Prefix, String> {
        let lower = s.to_ascii_lowercase();
        let rest = ["ctrl-", "ctrl+", "c-", "^"].iter().find_map(|p| lower.strip_prefix(p).map(|_| &s[p.len()..]));
        let bad = || format!("'{s}' is not a control key: give C-a .. C-z, C-@, C-[, C-\\, C-], C-^ or C-_");
        let rest = rest.ok_or_else(bad)?;
        let mut chars = rest.chars();
        let (Some(c), None) = (chars.next(), chars.next()) else { return Err(bad()) };
        let c = c.to_ascii_uppercase();
        if !matches!(c, '@'..='_') {
            return Err(bad());
        }
        let byte = c as u8 - b'@';
        if matches!(byte, 0x03 | 0x0d | 0x1b | 0x0a | 0x09 | 0x08) {
            // Ctrl-C, Enter, Escape, Ctrl-J, Tab and Backspace are typed too often to give up.
            return Err(format!("'{s}' is a key programs need (Ctrl-C, Enter, Escape, Tab, Backspace): pick another"));
        }
        Ok(Prefix(byte))
    }

    /// The key as the help and messages name it: `Ctrl-]`.
    pub fn name(self) -> String {
        format!("Ctrl-{}", (self.0 + b'@') as char)
    }
}

/// How a key typed after the prefix is named in a message: `z`, `Ctrl-X`, `Escape`, `F1`...
pub fn key_name(key: &[u8]) -> String {
    match key {
        [0x1b] => "Escape".into(),
        [0x1b, ..] => "that key".into(),
        [0x7f] => "Backspace".into(),
        [b' '] => "Space".into(),
        [b] if *b < 0x20 => format!("Ctrl-{}", (b + b'@') as char),
        _ => String::from_utf8_lossy(key).into_owned(),
    }
}

/// The length of the key at the front of `input`: an escape sequence (CSI or SS3, as
/// function and cursor keys send), an Alt-key pair (with `alt`; else Escape alone), or one
/// UTF-8 character. `None` when the key is cut off at the end of `input`.
pub(crate) fn key_len(input: &[u8], alt: bool) -> Option<usize> {
    match input {
        [] => Some(0),
        [0x1b] => Some(1),
        [0x1b, b'[', rest @ ..] => rest.iter().position(|b| (0x40..=0x7e).contains(b)).map(|i| i + 3),
        [0x1b, b'O'] => None,
        [0x1b, b'O', _, ..] => Some(3),
        [0x1b, ..] => Some(if alt { 2 } else { 1 }),
        [b, ..] => {
            let n = match b {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf7 => 4,
                _ => 1,
            };
            (input.len() >= n).then_some(n)
        }
    }
}

/// The commands of `blitty run`, as its help lists them (the prefix goes before each).
pub const RUN_COMMANDS: &[(&str, &str)] = &[
    ("[ or PageUp", "scrollback: PageUp/PageDown, Up/Down or k/j, g/G, q leaves"),
    ("Up", "scrollback, one line back"),
    ("?", "this help"),
];

/// The help rows for `commands`: one per command, then the prefix itself, which is sent to
/// `target` ("the program", "the line").
pub fn help_rows(prefix: Prefix, commands: &[(&str, &str)], target: &str) -> Vec<String> {
    let name = prefix.name();
    let mut rows = vec![format!(" blitty: {name} then a key (any key closes this) ")];
    let width = commands.iter().map(|(k, _)| k.len()).max().unwrap_or(0).max(name.len());
    for (k, what) in commands {
        rows.push(format!(" {k:width$}  {what} "));
    }
    rows.push(format!(" {name:width$}  send {name} to {target} "));
    let wide = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
    rows.iter().map(|r| format!("{r:wide$}")).collect()
}

#[derive(Debug, PartialEq, Eq)]
pub enum Action {
    Forward(Vec<u8>),
    /// Enter the scrollback mode this many lines back.
    Scrollback(usize),
    /// Another key after the prefix (its whole escape sequence for a function key).
    Command(Vec<u8>),
    /// Keys typed in the scrollback mode (`copymode`), which reads them itself.
    Copy(Vec<u8>),
}

#[derive(Default)]
pub struct Keys {
    prefix: Prefix,
    after_prefix: bool,
    pub scrolling: bool,
}

/// Recognises a navigation key at the front of `input`: (its length, the lines back it means;
/// negative is forward).
fn navigation(input: &[u8], page: isize) -> Option<(usize, isize)> {
    // Lines back per key: a page for PageUp/PageDown, one for the arrows (both encodings).
    let keys: [(&[u8], isize); 6] =
        [(b"\x1b[5~", page), (b"\x1b[6~", -page), (b"\x1b[A", 1), (b"\x1bOA", 1), (b"\x1b[B", -1), (b"\x1bOB", -1)];
    keys.iter().find(|(seq, _)| input.starts_with(seq)).map(|(seq, k)| (seq.len(), *k))
}

impl Keys {
    pub fn new(prefix: Prefix) -> Keys {
        Keys { prefix, ..Keys::default() }
    }

    pub fn prefix(&self) -> Prefix {
        self.prefix
    }

    /// Turns typed bytes into actions; `rows` sets the page size.
    pub fn feed(&mut self, mut input: &[u8], rows: usize, actions: &mut Vec<Action>) {
        while !input.is_empty() {
            let n = self.take(input, rows, actions);
            input = &input[n..];
        }
    }

    /// Turns typed bytes into actions up to and with the first command (what follows it may
    /// be for a prompt the command opens); returns the bytes taken.
    pub fn take(&mut self, whole: &[u8], rows: usize, actions: &mut Vec<Action>) -> usize {
        let page = rows.saturating_sub(1).max(1) as isize;
        let mut input = whole;
        while !input.is_empty() {
            if self.scrolling {
                actions.push(Action::Copy(input.to_vec()));
                return whole.len();
            }
            if self.after_prefix {
                self.after_prefix = false;
                if input[0] == self.prefix.0 {
                    actions.push(Action::Forward(vec![self.prefix.0]));
                    input = &input[1..];
                } else if input[0] == b'[' {
                    self.scrolling = true;
                    actions.push(Action::Scrollback(page as usize));
                    input = &input[1..];
                } else if let Some((n, k)) = navigation(input, page) {
                    if k > 0 {
                        self.scrolling = true;
                        actions.push(Action::Scrollback(k as usize));
                    }
                    input = &input[n..];
                } else {
                    // A key cut off by the end of the read is taken as what arrived.
                    let n = key_len(input, true).unwrap_or(input.len());
                    actions.push(Action::Command(input[..n].to_vec()));
                    return whole.len() - input.len() + n;
                }
                continue;
            }
            match input.iter().position(|&b| b == self.prefix.0) {
                Some(i) => {
                    if i > 0 {
                        actions.push(Action::Forward(input[..i].to_vec()));
                    }
                    self.after_prefix = true;
                    input = &input[i + 1..];
                }
                None => {
                    actions.push(Action::Forward(input.to_vec()));
                    input = &[];
                }
            }
        }
        whole.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(k: &mut Keys, input: &[u8]) -> Vec<Action> {
        let mut a = Vec::new();
        k.feed(input, 24, &mut a);
        a
    }

    #[test]
    fn plain_keys_are_forwarded_whole() {
        let mut k = Keys::default();
        assert_eq!(run(&mut k, b"ls\r\x03"), [Action::Forward(b"ls\r\x03".to_vec())]);
    }

    #[test]
    fn prefix_pageup_enters_scrollback_which_then_reads_every_key() {
        let mut k = Keys::default();
        assert_eq!(run(&mut k, b"a\x1d\x1b[5~"), [Action::Forward(b"a".to_vec()), Action::Scrollback(23)]);
        assert!(k.scrolling);
        // The scrollback mode reads every key until the session says it is over.
        assert_eq!(run(&mut k, b"kj\x1dq"), [Action::Copy(b"kj\x1dq".to_vec())]);
        k.scrolling = false;
        assert_eq!(run(&mut k, b"z"), [Action::Forward(b"z".to_vec())]);
        assert_eq!(run(&mut k, b"\x1d[?abc"), [Action::Scrollback(23), Action::Copy(b"?abc".to_vec())]);
    }

    #[test]
    fn a_chosen_prefix_replaces_ctrl_bracket_which_then_reaches_the_program() {
        let mut k = Keys::new(Prefix::parse("C-a").unwrap());
        assert_eq!(run(&mut k, b"\x1d"), [Action::Forward(b"\x1d".to_vec())], "vim's Ctrl-] goes through");
        assert_eq!(run(&mut k, b"\x01\x01"), [Action::Forward(vec![1])]);
        assert_eq!(run(&mut k, b"\x01z"), [Action::Command(b"z".to_vec())]);
        // A function key after the prefix is one command, not Escape and then text for the program.
        assert_eq!(
            run(&mut k, b"\x01\x1b[15~x"),
            [Action::Command(b"\x1b[15~".to_vec()), Action::Forward(b"x".to_vec())]
        );
        assert_eq!(run(&mut k, b"\x01\x1bOPy"), [Action::Command(b"\x1bOP".to_vec()), Action::Forward(b"y".to_vec())]);
        assert_eq!(run(&mut k, "\x01é".as_bytes()), [Action::Command("é".as_bytes().to_vec())]);
    }

    #[test]
    fn prefix_names_parse_and_print() {
        for (s, b) in
            [("C-a", 1), ("ctrl-A", 1), ("^]", 0x1d), ("C-\\", 0x1c), ("Ctrl+_", 0x1f), ("c-@", 0), ("C-^", 0x1e)]
        {
            assert_eq!(Prefix::parse(s), Ok(Prefix(b)), "{s}");
        }
        for s in ["a", "C-", "C-ab", "M-a", "C-1", "C-c", "C-m", "C-[", "C-i", "", "C-é"] {
            assert!(Prefix::parse(s).is_err(), "{s}");
        }
        assert_eq!(Prefix(0x1d).name(), "Ctrl-]");
        assert_eq!(Prefix(1).name(), "Ctrl-A");
        assert_eq!(key_name(b"z"), "z");
        assert_eq!(key_name(b"\x18"), "Ctrl-X");
    }

    #[test]
    fn help_rows_are_one_width_and_name_every_command_and_the_prefix() {
        let rows = help_rows(Prefix(1), RUN_COMMANDS, "the program");
        assert_eq!(rows.len(), RUN_COMMANDS.len() + 2);
        assert!(rows.iter().all(|r| r.chars().count() == rows[0].chars().count()));
        assert!(rows.last().unwrap().contains("send Ctrl-A to the program"));
    }

    #[test]
    fn the_prefix_split_across_reads_and_a_literal_prefix() {
        let mut k = Keys::default();
        assert_eq!(run(&mut k, b"\x1d"), []);
        assert_eq!(run(&mut k, b"\x1d"), [Action::Forward(vec![PREFIX])]);
        assert_eq!(run(&mut k, b"\x1d"), []);
        assert_eq!(run(&mut k, b"["), [Action::Scrollback(23)]);
    }
}
