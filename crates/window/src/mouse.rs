//! The mouse in the window: selecting text, and reporting the mouse to programs that ask.
//!
//! Choices, against xterm and the terminals users come from:
//! - A drag with the left button selects characters; a double click selects a word (a path or
//!   URL is one word: `blitty_mux::text::WORD_CHARS`), a triple click the whole line (a line
//!   that wrapped is one line); dragging after a double or triple click extends by words or
//!   lines. The right button extends the selection to where it is pressed (xterm).
//! - Releasing the button copies the selection to PRIMARY (xterm, alacritty, kitty); Ctrl-Shift-C
//!   copies it to CLIPBOARD. The middle button and Shift-Insert paste PRIMARY, Ctrl-Shift-V
//!   pastes CLIPBOARD.
//! - Clicks within `MULTI_CLICK` of each other on the same cell count as one double or triple
//!   click (xterm's multiClickTime is 250 ms; 400 ms forgives slower hands, as GTK's default).
//! - A program that turned on mouse reporting (modes 9, 1000, 1002, 1003, encoded as 1005,
//!   1006, 1015 or 1016 say) gets the buttons, the wheel and the motion it asked for; with Shift
//!   held the mouse selects instead, as in xterm.
//! - The selection is kept by line number, so it stays on its text while output scrolls it;
//!   it goes away when output writes over a selected row, when the screen switches to or from
//!   the alternate screen or changes size, and when another client takes PRIMARY.

use std::time::{Duration, Instant};

use blitty_mux::text::{between, logical_line, word_at, Pos};
use blitty_vt::term::{Modes, MouseEncoding, MouseTracking};
use blitty_vt::Screen;

pub const MULTI_CLICK: Duration = Duration::from_millis(400);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Char,
    Word,
    Line,
}

/// A selection: the text between two places, extended to whole words or lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Selection {
    /// Where it started (the first and last character of the word or line clicked).
    anchor: (Pos, Pos),
    unit: Unit,
    /// The first and last characters selected, worked out when the free end moves (the
    /// words and lines are looked up then, not each time the selection is drawn or checked).
    range: (Pos, Pos),
}

impl Selection {
    pub fn new(screen: &Screen, at: Pos, unit: Unit) -> Selection {
        let anchor = span(screen, at, unit);
        Selection { anchor, unit, range: anchor }
    }

    /// Moves the free end to `at`.
    pub fn extend(&mut self, screen: &Screen, at: Pos) {
        let (hs, he) = span(screen, at, self.unit);
        self.range = (self.anchor.0.min(hs), self.anchor.1.max(he));
    }

    /// The first and last characters selected.
    pub fn range(&self) -> (Pos, Pos) {
        self.range
    }

    /// The selected text (see `text::between`).
    pub fn text(&self, screen: &Screen) -> String {
        let (a, b) = self.range;
        between(screen, a, b, false)
    }

    /// Per row of a view whose top line is `top`, the columns `[from, to)` selected.
    pub fn marks(&self, screen: &Screen, top: u64, rows: usize) -> Vec<Option<(usize, usize)>> {
        let (a, b) = self.range;
        let cols = screen.cols();
        (0..rows as u64)
            .map(|y| {
                let line = top + y;
                if line < a.line || line > b.line {
                    return None;
                }
                let from = if line == a.line { a.col } else { 0 };
                // The last character: a wide one takes its right half too.
                let to = if line == b.line { b.col + 1 + wide_at(screen, b) as usize } else { cols };
                Some((from, to.min(cols)))
            })
            .collect()
    }
}

/// Whether the character at `p` is a wide one.
fn wide_at(screen: &Screen, p: Pos) -> bool {
    blitty_mux::text::row_of(screen, p.line).is_some_and(|row| row.get(p.col + 1).is_some_and(|c| c.is_spacer()))
}

/// The first and last character of the `unit` at `at`.
fn span(screen: &Screen, at: Pos, unit: Unit) -> (Pos, Pos) {
    match unit {
        Unit::Char => (at, at),
        Unit::Word => word_at(screen, at),
        Unit::Line => {
            let (top, bottom) = logical_line(screen, at.line);
            (Pos { line: top, col: 0 }, Pos { line: bottom, col: screen.cols().saturating_sub(1) })
        }
    }
}

/// Counts clicks into single, double and triple ones.
#[derive(Default)]
pub struct Clicks {
    last: Option<(Instant, Pos)>,
    count: u8,
}

impl Clicks {
    /// A press of the left button at `at`: the unit it selects by.
    pub fn press(&mut self, now: Instant, at: Pos) -> Unit {
        let again = self.last.is_some_and(|(t, p)| p == at && now.duration_since(t) <= MULTI_CLICK);
        self.count = if again { self.count % 3 + 1 } else { 1 };
        self.last = Some((now, at));
        match self.count {
            1 => Unit::Char,
            2 => Unit::Word,
            _ => Unit::Line,
        }
    }
}

/// What happened to the mouse, for a report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Press,
    Release,
    Motion,
}

/// xterm's button numbers from X's: 1-3 the buttons, 4-7 the wheel, 8-11 the extra buttons;
/// `None` (motion with no button held) is 3.
fn button_code(button: Option<u8>) -> Option<u32> {
    match button {
        None => Some(3),
        Some(b @ 1..=3) => Some(b as u32 - 1),
        Some(b @ 4..=7) => Some(64 + b as u32 - 4),
        Some(b @ 8..=11) => Some(128 + b as u32 - 8),
        _ => None,
    }
}

/// The bytes that report the mouse to a program in `modes`, or `None` when it did not ask
/// for this event. `cell` is 0-based (column, row), `pixel` 0-based (x, y) for mode 1016;
/// `shift`, `alt` and `ctrl` are the modifiers held.
#[allow(clippy::too_many_arguments)]
pub fn report(
    modes: &Modes,
    action: Action,
    button: Option<u8>,
    cell: (usize, usize),
    pixel: (usize, usize),
    alt: bool,
    ctrl: bool,
) -> Option<Vec<u8>> {
    let wheel = matches!(button, Some(4..=7));
    match (modes.mouse, action) {
        (MouseTracking::Off, _) => return None,
        // X10: presses of the three buttons only (not the wheel), without modifiers.
        (MouseTracking::X10, Action::Press) if matches!(button, Some(1..=3)) => {}
        (MouseTracking::X10, _) => return None,
        (MouseTracking::Normal, Action::Motion) => return None,
        (MouseTracking::ButtonMotion, Action::Motion) if button.is_none() => return None,
        _ => {}
    }
    // The wheel has no release.
    if wheel && action == Action::Release {
        return None;
    }
    let mut code = button_code(button)?;
    if modes.mouse != MouseTracking::X10 {
        code += 8 * alt as u32 + 16 * ctrl as u32;
    }
    if action == Action::Motion {
        code += 32;
    }
    let sgr = matches!(modes.mouse_encoding, MouseEncoding::Sgr | MouseEncoding::SgrPixels);
    // The encodings before SGR cannot say which button was let go.
    if action == Action::Release && !sgr {
        code = 3 + (code & !3 & !64 & !128);
    }
    let (x, y) = if modes.mouse_encoding == MouseEncoding::SgrPixels {
        (pixel.0 as u32 + 1, pixel.1 as u32 + 1)
    } else {
        (cell.0 as u32 + 1, cell.1 as u32 + 1)
    };
    match modes.mouse_encoding {
        MouseEncoding::Sgr | MouseEncoding::SgrPixels => {
            let end = if action == Action::Release { 'm' } else { 'M' };
            Some(format!("\x1b[<{code};{x};{y}{end}").into_bytes())
        }
        MouseEncoding::Urxvt => Some(format!("\x1b[{};{x};{y}M", code + 32).into_bytes()),
        MouseEncoding::Utf8 => {
            // The code, then each place plus 33 as a UTF-8 character (one byte below 128).
            // Places from 2015 (0-based) on are sent as a zero byte, xterm's mark for "past
            // the end" (its EmitMousePosition), so that a click there still arrives.
            let mut out = b"\x1b[M".to_vec();
            let mut b = [0; 4];
            let c = char::from_u32(code + 32)?;
            out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            for v in [x - 1, y - 1] {
                match char::from_u32(v + 33).filter(|_| v < UTF8_MOUSE_LIMIT) {
                    Some(c) => out.extend_from_slice(c.encode_utf8(&mut b).as_bytes()),
                    None => out.push(0),
                }
            }
            Some(out)
        }
        // One byte each, the place plus 33: places from 223 (0-based) on, which a byte cannot
        // say, are sent as a zero byte, as xterm sends them.
        MouseEncoding::Default => {
            let place = |v: u32| if v < MOUSE_LIMIT { (v + 33) as u8 } else { 0 };
            Some(vec![0x1b, b'[', b'M', (code + 32) as u8, place(x - 1), place(y - 1)])
        }
    }
}

/// The first 0-based column or row the default mouse encoding cannot say (xterm's
/// MOUSE_LIMIT, 255 - 32).
const MOUSE_LIMIT: u32 = 255 - 32;
/// The same for the UTF-8 encoding (mode 1005; xterm's EXT_MOUSE_LIMIT, 2047 - 32).
const UTF8_MOUSE_LIMIT: u32 = 2047 - 32;

/// What a paste sends to the program: with bracketed paste (mode 2004) between ESC [ 200 ~
/// and ESC [ 201 ~, the text's own ESC characters taken out so that it cannot end the paste
/// early (what alacritty and kitty do); otherwise newlines as carriage returns, as xterm
/// sends them (Enter sends CR).
pub fn paste_bytes(text: &[u8], modes: &Modes) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 12);
    if modes.bracketed_paste {
        out.extend_from_slice(b"\x1b[200~");
        out.extend(text.iter().filter(|&&b| b != 0x1b));
        out.extend_from_slice(b"\x1b[201~");
    } else {
        let mut i = 0;
        while i < text.len() {
            match text[i] {
                b'\r' if text.get(i + 1) == Some(&b'\n') => {
                    out.push(b'\r');
                    i += 1;
                }
                b'\n' => out.push(b'\r'),
                b => out.push(b),
            }
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use blitty_vt::Terminal;

    fn modes_after(setup: &str) -> Modes {
        let mut t = Terminal::new(300, 300);
        t.feed(setup.as_bytes());
        *t.screen().modes()
    }

    #[test]
    fn the_mouse_is_reported_as_the_program_asked() {
        let off = modes_after("");
        assert_eq!(report(&off, Action::Press, Some(1), (0, 0), (0, 0), false, false), None);
        // 1000, default encoding: press and release (button 3), no motion.
        let m = modes_after("\x1b[?1000h");
        assert_eq!(report(&m, Action::Press, Some(1), (4, 2), (0, 0), false, false).unwrap(), b"\x1b[M %#");
        assert_eq!(report(&m, Action::Release, Some(1), (4, 2), (0, 0), false, false).unwrap(), b"\x1b[M#%#");
        assert_eq!(report(&m, Action::Motion, Some(1), (4, 2), (0, 0), false, false), None);
        assert_eq!(report(&m, Action::Press, Some(3), (0, 0), (0, 0), true, true).unwrap(), b"\x1b[M:!!");
        assert_eq!(report(&m, Action::Press, Some(4), (0, 0), (0, 0), false, false).unwrap(), b"\x1b[M`!!");
        assert_eq!(report(&m, Action::Release, Some(4), (0, 0), (0, 0), false, false), None, "the wheel");
        // Past what a byte can say: a zero byte, as xterm sends it.
        assert_eq!(report(&m, Action::Press, Some(1), (222, 0), (0, 0), false, false).unwrap(), b"\x1b[M \xff!");
        assert_eq!(report(&m, Action::Press, Some(1), (223, 0), (0, 0), false, false).unwrap(), b"\x1b[M \0!");
        assert_eq!(report(&m, Action::Press, Some(1), (0, 299), (0, 0), false, false).unwrap(), b"\x1b[M !\0");
        // 1002 with SGR: drags, the released button named.
        let m = modes_after("\x1b[?1002h\x1b[?1006h");
        assert_eq!(report(&m, Action::Motion, Some(1), (9, 0), (0, 0), false, false).unwrap(), b"\x1b[<32;10;1M");
        assert_eq!(report(&m, Action::Motion, None, (9, 0), (0, 0), false, false), None);
        assert_eq!(report(&m, Action::Release, Some(2), (9, 0), (0, 0), false, false).unwrap(), b"\x1b[<1;10;1m");
        assert_eq!(report(&m, Action::Press, Some(5), (299, 299), (0, 0), false, true).unwrap(), b"\x1b[<81;300;300M");
        // 1003: all motion.
        let m = modes_after("\x1b[?1003h\x1b[?1006h");
        assert_eq!(report(&m, Action::Motion, None, (0, 1), (0, 0), false, false).unwrap(), b"\x1b[<35;1;2M");
        // 1015 and 1005 and 1016.
        let m = modes_after("\x1b[?1000h\x1b[?1015h");
        assert_eq!(report(&m, Action::Press, Some(1), (0, 1), (0, 0), false, false).unwrap(), b"\x1b[32;1;2M");
        let m = modes_after("\x1b[?1000h\x1b[?1005h");
        assert_eq!(
            report(&m, Action::Press, Some(1), (250, 1), (0, 0), false, false).unwrap(),
            "\x1b[M \u{11b}\"".as_bytes()
        );
        assert_eq!(
            report(&m, Action::Press, Some(1), (2014, 0), (0, 0), false, false).unwrap(),
            "\x1b[M \u{7ff}!".as_bytes()
        );
        assert_eq!(report(&m, Action::Press, Some(1), (2015, 0), (0, 0), false, false).unwrap(), b"\x1b[M \0!");
        let m = modes_after("\x1b[?1000h\x1b[?1016h");
        assert_eq!(report(&m, Action::Press, Some(1), (3, 1), (37, 20), false, false).unwrap(), b"\x1b[<0;38;21M");
        // 9: X10, presses only and no modifiers.
        let m = modes_after("\x1b[?9h");
        assert_eq!(report(&m, Action::Press, Some(1), (0, 0), (0, 0), true, true).unwrap(), b"\x1b[M !!");
        assert_eq!(report(&m, Action::Release, Some(1), (0, 0), (0, 0), false, false), None);
        // X10 reports the three buttons only: xterm leaves out the wheel in this mode.
        assert_eq!(report(&m, Action::Press, Some(4), (0, 0), (0, 0), false, false), None);
        assert_eq!(report(&m, Action::Press, Some(3), (0, 0), (0, 0), false, false).unwrap(), b"\x1b[M\"!!");
    }

    #[test]
    fn pastes_are_bracketed_when_asked_and_cannot_end_the_bracket_early() {
        let plain = modes_after("");
        assert_eq!(paste_bytes(b"a\nb\r\nc", &plain), b"a\rb\rc");
        let br = modes_after("\x1b[?2004h");
        assert_eq!(paste_bytes(b"x\x1b[201~rm -rf\n", &br), b"\x1b[200~x[201~rm -rf\n\x1b[201~");
    }

    #[test]
    fn clicks_count_to_three_on_one_cell_within_the_interval() {
        let mut c = Clicks::default();
        let t = Instant::now();
        let p = Pos { line: 5, col: 2 };
        assert_eq!(c.press(t, p), Unit::Char);
        assert_eq!(c.press(t + Duration::from_millis(100), p), Unit::Word);
        assert_eq!(c.press(t + Duration::from_millis(200), p), Unit::Line);
        assert_eq!(c.press(t + Duration::from_millis(300), p), Unit::Char, "a fourth click starts again");
        assert_eq!(c.press(t + Duration::from_millis(400), Pos { line: 5, col: 3 }), Unit::Char, "another cell");
        assert_eq!(c.press(t + Duration::from_secs(2), Pos { line: 5, col: 3 }), Unit::Char, "too late");
    }

    #[test]
    fn a_selection_by_words_and_lines_marks_and_copies_what_it_covers() {
        let mut t = Terminal::with_scrollback(10, 4, 100);
        t.feed("ab cd\r\nhello world!\r\n\u{65e5}\u{672c} x".as_bytes());
        let s = t.screen();
        let live = s.history_pushed();
        let at = |line: u64, col: usize| Pos { line: live + line, col };
        let mut sel = Selection::new(s, at(0, 4), Unit::Word);
        assert_eq!(sel.text(s), "cd");
        sel.extend(s, at(1, 1));
        assert_eq!(sel.text(s), "cd\nhello", "a drag back takes whole words");
        assert_eq!(sel.marks(s, live, 4), vec![Some((3, 10)), Some((0, 5)), None, None]);
        let line = Selection::new(s, at(2, 0), Unit::Line);
        assert_eq!(line.text(s), "hello world!", "the wrapped line whole");
        let wide = Selection::new(s, at(3, 0), Unit::Char);
        assert_eq!(wide.marks(s, live, 4)[3], Some((0, 2)), "a wide character's two cells");
    }
}
