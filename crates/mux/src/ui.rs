//! The keys, written once for every front end: the prefix and one table of commands, the
//! scrollback mode, the help, prompts, lists, questions and messages.
//!
//! A front end gives its table of commands (its own actions: the session server's vtys,
//! serial's transfers and line controls) and gets back events: keys for the program, the
//! commands chosen, the text a prompt took. Everything else (what the prefix does, how a prompt
//! is edited, which keys close what, the words for a key that is not a command) is here, so it
//! is the same in `blitty run`, `blitty serial` and every client of a session.
//!
//! Keys that arrive in one read (a paste, a script, a slow ssh link) are taken one at a time
//! while a prompt, a list or the help is up, and those after the key that closed it are keys
//! again, in rounds (at most [`KEY_ROUNDS`] for one read, so that one read costs a bounded
//! multiple of its length).

use std::time::{Duration, Instant};

use blitty_present::AnsiPresenter;
use blitty_vt::Screen;

use crate::copymode::CopyMode;
use crate::keys::{self, key_len, Action, Keys, Prefix};
use crate::names;
use crate::pane::clipboard_write;

/// How long a message stays up.
pub const MESSAGE: Duration = Duration::from_secs(3);
/// Rounds of keys one read is taken in at most (see the module's comment).
pub const KEY_ROUNDS: usize = 64;
/// Characters a prompt takes at most.
pub const MAX_PROMPT: usize = 1024;

/// Tab in a prompt: the text completed, and a hint when it could not complete alone.
pub type Complete = fn(&str) -> (String, String);

/// One command after the prefix.
pub struct Command<A> {
    /// The keys that choose it (each a whole key: `b"c"`, `b"\x1b[C"`).
    pub keys: &'static [&'static [u8]],
    /// How the help names them.
    pub shown: &'static str,
    pub help: &'static str,
    pub action: A,
}

/// A line of text asked for.
pub struct Prompt<A> {
    pub action: A,
    pub label: String,
    pub text: String,
    /// What Tab found when it could not complete alone.
    pub hint: String,
    /// Characters it takes at most.
    pub max: usize,
    /// Tab: the completed text and a hint (a file prompt completes paths).
    pub complete: Option<Complete>,
}

pub enum Mode<A> {
    Normal,
    /// The command list, until the next key.
    Help,
    Prompt(Prompt<A>),
    /// A list to choose from: the place marked, and how many there are.
    Choose {
        at: usize,
        count: usize,
    },
    /// A yes/no question.
    Confirm {
        action: A,
        question: String,
    },
}

/// What keys did, for the front end.
#[derive(Debug, PartialEq, Eq)]
pub enum Event<A> {
    /// Bytes for the program.
    Forward(Vec<u8>),
    /// A command of the front end's table.
    Command(A),
    /// A prompt ended: its text, or `None` when it was cancelled.
    Answer(A, Option<String>),
    /// A question was answered yes.
    Confirmed(A),
    /// A place in the list was chosen.
    Chosen(usize),
    /// The user's own copy, as the OSC 52 for the display's terminal.
    Clipboard(Vec<u8>),
    /// The scrollback mode began (true) or ended: the mouse is blitty's while it lasts.
    Scrolling(bool),
}

/// Where the front end's rows go: messages and prompts on the top row (sessions, `run`, whose
/// last row may be the status row) or the bottom one (`serial`, whose bottom row is its
/// status: messages, prompts, a transfer's progress).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Top,
    Bottom,
}

pub struct Ui<A> {
    pub keys: Keys,
    pub copy: CopyMode,
    pub mode: Mode<A>,
    /// A message, until its time (or for good, `None`: a device waited for).
    pub message: Option<(String, Option<Instant>)>,
    /// Something of the ui changed: the display draws a frame.
    pub dirty: bool,
    /// Keys not taken yet, from `at` on (see [`Ui::feed`]).
    queue: Vec<u8>,
    at: usize,
    /// Rounds the keys of this read have gone (see [`KEY_ROUNDS`]).
    rounds: usize,
    /// Where the ui's rows go.
    pub place: Place,
    /// What the prefix itself is sent to, for the help ("the program", "the line").
    pub target: &'static str,
}

impl<A: Copy> Ui<A> {
    pub fn new(prefix: Prefix, place: Place, target: &'static str) -> Ui<A> {
        Ui {
            keys: Keys::new(prefix),
            copy: CopyMode::default(),
            mode: Mode::Normal,
            message: None,
            dirty: true,
            queue: Vec::new(),
            at: 0,
            rounds: 0,
            place,
            target,
        }
    }

    pub fn prefix(&self) -> Prefix {
        self.keys.prefix()
    }

    /// A message for [`MESSAGE`].
    pub fn say(&mut self, text: impl Into<String>) {
        self.message = Some((text.into(), Some(Instant::now() + MESSAGE)));
        self.dirty = true;
    }

    /// Asks for a line of text (`label: text_`).
    pub fn ask(&mut self, action: A, label: impl Into<String>, complete: Option<Complete>) {
        self.mode = Mode::Prompt(Prompt {
            action,
            label: label.into(),
            text: String::new(),
            hint: String::new(),
            max: MAX_PROMPT,
            complete,
        });
        self.dirty = true;
    }

    /// Asks yes or no.
    pub fn confirm(&mut self, action: A, question: impl Into<String>) {
        self.mode = Mode::Confirm { action, question: question.into() };
        self.dirty = true;
    }

    /// Opens a list of `count` with `at` marked.
    pub fn choose(&mut self, at: usize, count: usize) {
        self.mode = Mode::Choose { at, count };
        self.dirty = true;
    }

    /// When the message goes, if it has a time.
    pub fn wake_at(&self) -> Option<Instant> {
        self.message.as_ref().and_then(|(_, until)| *until)
    }

    /// Drops a message whose time is up; true when one went (its row is drawn again).
    pub fn expire(&mut self, now: Instant) -> bool {
        if matches!(&self.message, Some((_, Some(until))) if now >= *until) {
            self.message = None;
            self.dirty = true;
            return true;
        }
        false
    }

    /// Leaves the scrollback mode (a resize rewraps the lines: its places are gone, or the
    /// pane shown changed). True when it was on.
    pub fn leave_scrollback(&mut self) -> bool {
        if !self.copy.active {
            return false;
        }
        self.copy.leave();
        self.keys.scrolling = false;
        self.dirty = true;
        true
    }

    /// Typed `bytes`, with `screen` the pane shown and `commands` the front end's table. The
    /// events end after the first command of the table: the front end acts on it (it may open
    /// a prompt, which the keys typed after it belong to), then calls `feed` again with nothing
    /// new while [`Ui::pending`] says keys wait.
    pub fn feed(&mut self, bytes: &[u8], screen: &Screen, commands: &[Command<A>]) -> Vec<Event<A>> {
        if !self.pending() {
            self.queue.clear();
            self.at = 0;
            self.rounds = 0;
        }
        self.queue.extend_from_slice(bytes);
        let mut events = Vec::new();
        while self.pending() {
            if self.step(screen, commands, &mut events) {
                break;
            }
        }
        if !self.pending() {
            self.queue.clear();
            self.at = 0;
        }
        events
    }

    /// Keys wait for the front end to act on a command first.
    pub fn pending(&self) -> bool {
        self.at < self.queue.len()
    }

    /// Takes keys from the queue up to a command; true when it was one of the table's.
    fn step(&mut self, screen: &Screen, commands: &[Command<A>], events: &mut Vec<Event<A>>) -> bool {
        let queue = std::mem::take(&mut self.queue);
        let mut at = self.at;
        while at < queue.len() && !matches!(self.mode, Mode::Normal) {
            let n = key_len(&queue[at..], false).unwrap_or(queue.len() - at).max(1);
            self.mode_key(&queue[at..at + n], events);
            at += n;
        }
        let mut actions = Vec::new();
        at += self.keys.take(&queue[at..], screen.rows(), &mut actions);
        let mut again = None;
        let mut stop = false;
        for a in actions {
            match a {
                Action::Forward(b) => events.push(Event::Forward(b)),
                Action::Scrollback(back) => {
                    self.copy.enter(screen, back);
                    self.dirty = true;
                    events.push(Event::Scrolling(true));
                }
                Action::Copy(b) => {
                    let done = self.copy.key(&b, screen);
                    if let Some(text) = done.copy {
                        let c = blitty_vt::term::Clipboard { selections: "c".into(), text: text.into_bytes() };
                        events.push(Event::Clipboard(clipboard_write(&c)));
                    }
                    if done.leave {
                        self.keys.scrolling = false;
                        events.push(Event::Scrolling(false));
                        again = Some(done.rest);
                    }
                    self.dirty = true;
                }
                Action::Command(k) => stop = self.command(&k, commands, events),
            }
        }
        match again {
            // The keys typed after the one that left the scrollback mode are keys again.
            Some(rest) if self.rounds + 1 >= KEY_ROUNDS && !rest.is_empty() => {
                self.say(format!(
                    "{} bytes of keys dropped: they left a mode {KEY_ROUNDS} times in one read",
                    rest.len()
                ));
                self.at = 0;
            }
            Some(rest) => {
                self.rounds += 1;
                self.queue = rest;
                self.at = 0;
            }
            None => {
                self.queue = queue;
                self.at = at;
            }
        }
        stop
    }

    /// A key after the prefix: true when it is one of the table's commands.
    fn command(&mut self, k: &[u8], commands: &[Command<A>], events: &mut Vec<Event<A>>) -> bool {
        if k == b"?" {
            self.mode = Mode::Help;
            self.message = None;
            self.dirty = true;
            return false;
        }
        match commands.iter().find(|c| c.keys.contains(&k)) {
            Some(c) => {
                events.push(Event::Command(c.action));
                true
            }
            None => {
                let p = self.prefix().name();
                self.say(format!("{p} {}: not a command — {p} ? for help", keys::key_name(k)));
                false
            }
        }
    }

    fn mode_key(&mut self, key: &[u8], events: &mut Vec<Event<A>>) {
        self.dirty = true;
        self.mode = match std::mem::replace(&mut self.mode, Mode::Normal) {
            Mode::Normal | Mode::Help => Mode::Normal,
            Mode::Choose { at, count } => match key {
                b"\r" | b"\n" => {
                    events.push(Event::Chosen(at));
                    Mode::Normal
                }
                [d @ b'0'..=b'9'] if ((d - b'0') as usize) < count => {
                    events.push(Event::Chosen((d - b'0') as usize));
                    Mode::Normal
                }
                b"j" | b"\x1b[B" | b"\x1bOB" => Mode::Choose { at: (at + 1).min(count.saturating_sub(1)), count },
                b"k" | b"\x1b[A" | b"\x1bOA" => Mode::Choose { at: at.saturating_sub(1), count },
                b"q" | b"\x1b" | b"\x03" => Mode::Normal,
                _ => Mode::Choose { at, count },
            },
            Mode::Confirm { action, .. } => {
                if key == b"y" || key == b"Y" {
                    events.push(Event::Confirmed(action));
                }
                Mode::Normal
            }
            Mode::Prompt(mut p) => match edit(&mut p, key) {
                Some(done) => {
                    events.push(Event::Answer(p.action, done.then_some(p.text)));
                    Mode::Normal
                }
                None => Mode::Prompt(p),
            },
        };
    }

    /// The help rows for `commands`: one per command, then the scrollback mode and the help,
    /// then the prefix itself.
    pub fn help_rows(&self, commands: &[Command<A>]) -> Vec<String> {
        let mut list: Vec<(&str, &str)> =
            commands.iter().filter(|c| !c.shown.is_empty()).map(|c| (c.shown, c.help)).collect();
        list.push(("[ or PageUp", "scrollback: search with / and ?, v/V select, y copies, q leaves"));
        list.push(("Up", "scrollback, one line back"));
        list.push(("?", "this help"));
        help_rows(self.prefix(), &list, self.target)
    }

    /// Draws the ui's rows over a frame of `rows` rows: the help, or the prompt, the list
    /// (`choices` names its entries), the question or the message. `status`: a row of the
    /// front end's own, shown where the message goes when there is none (serial's transfer).
    pub fn draw(
        &self,
        presenter: &mut AnsiPresenter,
        rows: usize,
        commands: &[Command<A>],
        choices: &[String],
        status: Option<&str>,
        frame: &mut Vec<u8>,
    ) {
        let row = match self.place {
            Place::Top => 0,
            Place::Bottom => rows.saturating_sub(1),
        };
        let line = match &self.mode {
            Mode::Help => {
                let help = self.help_rows(commands);
                match self.place {
                    Place::Top => {
                        for (y, text) in help.iter().enumerate() {
                            presenter.overlay(y, text, frame);
                        }
                    }
                    // Above the bottom row, so that nothing is cut on a short screen but the top.
                    Place::Bottom => {
                        for (i, text) in help.iter().rev().enumerate() {
                            if let Some(y) = row.checked_sub(1 + i) {
                                presenter.overlay(y, text, frame);
                            }
                        }
                    }
                }
                return;
            }
            Mode::Choose { at, .. } => {
                presenter.overlay(0, " choose: Enter or its number; j/k move; q closes ", frame);
                for (k, name) in choices.iter().enumerate() {
                    let mark = if k == *at { ">" } else { " " };
                    let text = format!("{mark} {k}: {} ", names::printable(name));
                    presenter.overlay(k + 1, &format!("{text:<40}"), frame);
                }
                return;
            }
            Mode::Prompt(p) if !p.hint.is_empty() => format!("{}: {}_  {}", p.label, p.text, p.hint),
            Mode::Prompt(p) if p.complete.is_some() => {
                format!("{}: {}_  (Tab completes, Enter takes it, Esc cancels)", p.label, p.text)
            }
            Mode::Prompt(p) => format!("{}: {}_", p.label, p.text),
            Mode::Confirm { question, .. } => format!("{question} y/n"),
            Mode::Normal => match (&self.message, status) {
                (Some((text, _)), _) => text.clone(),
                (None, Some(text)) => text.to_string(),
                (None, None) => return,
            },
        };
        match self.place {
            Place::Top => presenter.overlay(row, &format!(" {line} "), frame),
            Place::Bottom => {
                // Over the whole bottom row, left-aligned.
                let cols = presenter.size().0;
                let mut text: String = line.chars().filter(|c| !c.is_control()).take(cols).collect();
                let pad = cols.saturating_sub(text.chars().count());
                text.extend(std::iter::repeat_n(' ', pad));
                presenter.overlay(row, &text, frame);
            }
        }
    }

    /// Whether the ui covers the program's cursor (the cursor is left where blitty drew).
    pub fn covers(&self) -> bool {
        self.copy.active || !matches!(self.mode, Mode::Normal)
    }
}

/// Edits a prompt with one key: `Some(true)` taken (Enter), `Some(false)` cancelled (Escape,
/// Ctrl-C, Ctrl-G), `None` goes on.
fn edit<A>(p: &mut Prompt<A>, key: &[u8]) -> Option<bool> {
    if key != b"\t" {
        p.hint.clear();
    }
    match key {
        b"\r" | b"\n" => return Some(true),
        [0x1b, ..] | b"\x03" | b"\x07" => return Some(false),
        b"\x7f" | b"\x08" => {
            p.text.pop();
        }
        b"\x15" => p.text.clear(),
        b"\t" => {
            if let Some(complete) = p.complete {
                (p.text, p.hint) = complete(&p.text);
            }
        }
        _ => {
            if let Ok(s) = std::str::from_utf8(key) {
                let room = p.max.saturating_sub(p.text.chars().count());
                p.text.extend(s.chars().filter(|&c| names::shown_as_is(c)).take(room));
            }
        }
    }
    None
}

/// The help rows for `commands`: one per command, then the prefix itself, which is sent to
/// `target` ("the program", "the line").
pub fn help_rows(prefix: Prefix, commands: &[(&str, &str)], target: &str) -> Vec<String> {
    let name = prefix.name();
    let mut rows = vec![format!(" blitty: {name} then a key (any key closes this) ")];
    let width = commands.iter().map(|(k, _)| k.chars().count()).max().unwrap_or(0).max(name.len());
    for (k, what) in commands {
        rows.push(format!(" {k:width$}  {what} "));
    }
    rows.push(format!(" {name:width$}  send {name} to {target} "));
    let wide = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
    rows.iter().map(|r| format!("{r:wide$}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use blitty_vt::Terminal;

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum A {
        Rename,
        Kill,
        Next,
    }

    const TABLE: &[Command<A>] = &[
        Command { keys: &[b","], shown: ",", help: "rename", action: A::Rename },
        Command { keys: &[b"&"], shown: "&", help: "kill", action: A::Kill },
        Command { keys: &[b"n", b"\x1b[C"], shown: "n", help: "next", action: A::Next },
    ];

    fn ui() -> Ui<A> {
        Ui::new(Prefix::default(), Place::Top, "the program")
    }

    /// What a front end does: the commands that ask for text open a prompt, and the keys go
    /// on until none wait.
    fn feed(ui: &mut Ui<A>, bytes: &[u8]) -> Vec<Event<A>> {
        let term = Terminal::with_scrollback(20, 5, 100);
        let mut all = Vec::new();
        let mut input = bytes;
        loop {
            for e in ui.feed(input, term.screen(), TABLE) {
                match e {
                    Event::Command(A::Rename) => ui.ask(A::Rename, "rename", None),
                    Event::Command(A::Kill) => ui.confirm(A::Kill, "kill?"),
                    e => all.push(e),
                }
            }
            input = &[];
            if !ui.pending() {
                return all;
            }
        }
    }

    #[test]
    fn a_name_and_its_enter_in_one_read_go_to_the_prompt_then_keys_go_on() {
        let mut u = ui();
        assert_eq!(
            feed(&mut u, b"\x1d,logs\rls\r"),
            vec![Event::Answer(A::Rename, Some("logs".into())), Event::Forward(b"ls\r".to_vec())]
        );
        assert_eq!(feed(&mut u, b"\x1d,x"), vec![]);
        assert!(matches!(&u.mode, Mode::Prompt(p) if p.text == "x"));
    }

    #[test]
    fn prompts_cancel_edit_and_refuse_control_characters() {
        let mut u = ui();
        u.ask(A::Rename, "rename", None);
        assert_eq!(feed(&mut u, b"ab\x7fc\x01\r"), vec![Event::Answer(A::Rename, Some("ac".into()))]);
        u.ask(A::Rename, "rename", None);
        assert_eq!(feed(&mut u, b"abc\x1b"), vec![Event::Answer(A::Rename, None)]);
        u.ask(A::Rename, "rename", None);
        assert_eq!(feed(&mut u, "é字\x15z\r".as_bytes()), vec![Event::Answer(A::Rename, Some("z".into()))]);
    }

    #[test]
    fn questions_lists_and_the_help_take_one_key_and_pass_the_rest_on() {
        let mut u = ui();
        u.confirm(A::Kill, "kill?");
        assert_eq!(feed(&mut u, b"yx"), vec![Event::Confirmed(A::Kill), Event::Forward(b"x".to_vec())]);
        u.confirm(A::Kill, "kill?");
        assert_eq!(feed(&mut u, b"nx"), vec![Event::Forward(b"x".to_vec())]);
        u.choose(0, 3);
        assert_eq!(feed(&mut u, b"j\x1b[B\x1b[Bj\rz"), vec![Event::Chosen(2), Event::Forward(b"z".to_vec())]);
        u.choose(0, 3);
        assert_eq!(feed(&mut u, b"7q"), vec![]);
        assert!(matches!(u.mode, Mode::Normal));
        assert_eq!(feed(&mut u, b"\x1d?"), vec![]);
        assert!(matches!(u.mode, Mode::Help));
        assert_eq!(feed(&mut u, b" a"), vec![Event::Forward(b"a".to_vec())]);
    }

    #[test]
    fn commands_by_any_of_their_keys_and_a_message_for_others() {
        let mut u = ui();
        assert_eq!(feed(&mut u, b"\x1dn\x1d\x1b[C"), vec![Event::Command(A::Next), Event::Command(A::Next)]);
        assert_eq!(feed(&mut u, b"\x1dz"), vec![]);
        let (text, _) = u.message.clone().unwrap();
        assert!(text.contains("z: not a command") && text.contains("? for help"), "{text}");
        assert_eq!(feed(&mut u, b"\x1d\x1d"), vec![Event::Forward(vec![0x1d])]);
    }

    #[test]
    fn leaving_the_scrollback_mode_and_entering_it_again_in_one_read_is_bounded() {
        let mut u = ui();
        let events = feed(&mut u, &b"\x1d[q".repeat(10_000));
        let entered = events.iter().filter(|e| **e == Event::Scrolling(true)).count();
        assert!((KEY_ROUNDS - 1..=KEY_ROUNDS + 1).contains(&entered), "{entered} entries");
        assert!(u.message.as_ref().is_some_and(|(t, _)| t.contains("dropped")));
        // A read of many commands is taken whole, each acted on in turn.
        let events = feed(&mut u, &b"\x1dn".repeat(10_000));
        assert_eq!(events.len(), 10_000);
    }

    #[test]
    fn help_rows_are_one_width_and_name_every_command_and_the_prefix() {
        let u = ui();
        let rows = u.help_rows(TABLE);
        let w = rows[0].chars().count();
        assert!(rows.iter().all(|r| r.chars().count() == w));
        for c in TABLE {
            assert!(rows.iter().any(|r| r.contains(c.help)));
        }
        assert!(rows.last().unwrap().contains("Ctrl-]"));
    }
}
