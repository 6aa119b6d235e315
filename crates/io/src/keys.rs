//! Keys typed at the host: forwarded to the child at once, except after the prefix key,
//! Ctrl-] (0x1d, telnet's escape character: rarely bound by programs), which opens
//! blitty's own commands:
//!
//! | keys | action |
//! |---|---|
//! | Ctrl-] PageUp, Ctrl-] [ | scroll back a page (enters scrollback) |
//! | Ctrl-] Up | scroll back a line (enters scrollback) |
//! | Ctrl-] Ctrl-] | send a literal Ctrl-] |
//! | Ctrl-] other key | a command of `blitty serial` (see `console`); ignored by `blitty run` |
//!
//! In scrollback: PageUp/PageDown, Up/Down (or k/j) scroll; g and G go to the top and the
//! bottom; q, Escape or Enter leave. Other keys are ignored there; output keeps arriving
//! underneath and is shown when scrollback is left.

pub const PREFIX: u8 = 0x1d;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scroll {
    /// Lines back (positive) or forward (negative).
    By(isize),
    Top,
    Bottom,
    Leave,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Action {
    Forward(Vec<u8>),
    Scroll(Scroll),
    /// Another key after the prefix: the console's commands (`blitty run` has none).
    Command(u8),
}

#[derive(Default)]
pub struct Keys {
    after_prefix: bool,
    pub scrolling: bool,
}

/// Recognises a navigation key at the front of `input`: (its length, the scroll it means).
fn navigation(input: &[u8], page: isize) -> Option<(usize, Scroll)> {
    // Lines back per key: a page for PageUp/PageDown, one for the arrows (both encodings).
    let keys: [(&[u8], isize); 6] =
        [(b"\x1b[5~", page), (b"\x1b[6~", -page), (b"\x1b[A", 1), (b"\x1bOA", 1), (b"\x1b[B", -1), (b"\x1bOB", -1)];
    keys.iter().find(|(seq, _)| input.starts_with(seq)).map(|(seq, k)| (seq.len(), Scroll::By(*k)))
}

impl Keys {
    /// Turns typed bytes into actions; `rows` sets the page size.
    pub fn feed(&mut self, mut input: &[u8], rows: usize, actions: &mut Vec<Action>) {
        let page = rows.saturating_sub(1).max(1) as isize;
        while !input.is_empty() {
            if self.scrolling {
                let (n, scroll) = if let Some(nav) = navigation(input, page) {
                    nav
                } else {
                    let s = match input[0] {
                        b'k' => Some(Scroll::By(1)),
                        b'j' => Some(Scroll::By(-1)),
                        b'g' => Some(Scroll::Top),
                        b'G' => Some(Scroll::Bottom),
                        b'q' | b'\r' | 0x1b => Some(Scroll::Leave),
                        _ => None,
                    };
                    match s {
                        Some(s) => (1, s),
                        None => {
                            input = &input[1..];
                            continue;
                        }
                    }
                };
                if scroll == Scroll::Leave {
                    self.scrolling = false;
                }
                actions.push(Action::Scroll(scroll));
                input = &input[n..];
                continue;
            }
            if self.after_prefix {
                self.after_prefix = false;
                if input[0] == PREFIX {
                    actions.push(Action::Forward(vec![PREFIX]));
                    input = &input[1..];
                } else if input[0] == b'[' {
                    self.scrolling = true;
                    actions.push(Action::Scroll(Scroll::By(page)));
                    input = &input[1..];
                } else if let Some((n, s @ Scroll::By(k))) = navigation(input, page) {
                    if k > 0 {
                        self.scrolling = true;
                        actions.push(Action::Scroll(s));
                    }
                    input = &input[n..];
                } else {
                    actions.push(Action::Command(input[0]));
                    input = &input[1..];
                }
                continue;
            }
            match input.iter().position(|&b| b == PREFIX) {
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
    fn prefix_pageup_enters_scrollback_and_q_leaves() {
        let mut k = Keys::default();
        assert_eq!(run(&mut k, b"a\x1d\x1b[5~"), [Action::Forward(b"a".to_vec()), Action::Scroll(Scroll::By(23))]);
        assert!(k.scrolling);
        assert_eq!(
            run(&mut k, b"kjxq"),
            [Action::Scroll(Scroll::By(1)), Action::Scroll(Scroll::By(-1)), Action::Scroll(Scroll::Leave)]
        );
        assert!(!k.scrolling);
        assert_eq!(run(&mut k, b"z"), [Action::Forward(b"z".to_vec())]);
    }

    #[test]
    fn the_prefix_split_across_reads_and_a_literal_prefix() {
        let mut k = Keys::default();
        assert_eq!(run(&mut k, b"\x1d"), []);
        assert_eq!(run(&mut k, b"\x1d"), [Action::Forward(vec![PREFIX])]);
        assert_eq!(run(&mut k, b"\x1d"), []);
        assert_eq!(run(&mut k, b"["), [Action::Scroll(Scroll::By(23))]);
    }
}
