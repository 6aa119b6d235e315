//! The scrollback mode of `blitty run` and `blitty serial` (prefix [ or prefix PageUp), as
//! tmux's copy mode with vi keys, less and vim have users expect it:
//!
//! | keys | action |
//! |---|---|
//! | PageUp/PageDown, Ctrl-B/Ctrl-F | a page back, forward |
//! | Ctrl-U/Ctrl-D | half a page |
//! | Up/Down, k/j; Left/Right, h/l | the cursor by a line, a column |
//! | 0, Home; $, End | start, end of the line |
//! | g, G | the oldest line, the newest |
//! | / and ? | search forward (towards the newest line) or back; Enter searches, Escape cancels |
//! | n, N | the next match in the search's direction, in the other |
//! | v, V | select from the cursor, by characters or whole lines (again: no selection) |
//! | y or Enter | copy the selection to the clipboard (OSC 52 to the terminal) and leave |
//! | q, Escape | leave (Escape first drops a selection) |
//! | the wheel | three lines back or forward |
//! | mouse drag | select; releasing copies and leaves |
//!
//! Searches wrap around the ends (vim's wrapscan), and are case-insensitive unless the text
//! has a capital letter (vim's smartcase). Every match on the screen is marked, the one at the
//! cursor more strongly. A label on the top row says where the view is for as long as the
//! mode is on. Output keeps arriving underneath: lines keep their numbers (see
//! `Screen::history_pushed`), so the view, the cursor and a selection stay on their text until
//! it leaves the scrollback. The mouse is blitty's while the mode is on (the terminal reports
//! it in SGR encoding) and the program's again after.

use blitty_present::{AnsiPresenter, View};
use blitty_vt::{Attrs, Color, Screen, Style};

use crate::text::{between, bounds, line_cells, line_end_col, row_of, Pos};

/// What a key did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The mode is over.
    pub leave: bool,
    /// Text to put in the clipboard.
    pub copy: Option<String>,
    /// What was typed after the key that left the mode, in the same read (Ctrl-] q typed fast
    /// after q): the caller handles it as keys outside the mode.
    pub rest: Vec<u8>,
}

#[derive(Default)]
pub struct CopyMode {
    pub active: bool,
    /// The line at the top of the view.
    top: u64,
    cursor: Pos,
    /// Where a selection started, and whether it takes whole lines.
    anchor: Option<(Pos, bool)>,
    /// The search being typed: its direction (true: forward) and text.
    prompt: Option<(bool, String)>,
    /// The last search: its text and direction.
    search: Option<(String, bool)>,
    /// A note on the label ("no match", "copied 3 lines").
    note: Option<String>,
    /// A key sequence cut by the end of a read.
    pending: Vec<u8>,
}

/// Lines back and forward a wheel step moves.
const WHEEL: i64 = 3;

impl CopyMode {
    /// Enters the mode with the view `back` lines above the live screen and the cursor on the
    /// program's cursor (moved into the view).
    pub fn enter(&mut self, screen: &Screen, back: usize) {
        let c = screen.cursor();
        *self = CopyMode { active: true, ..CopyMode::default() };
        let live = screen.history_pushed();
        self.cursor = Pos { line: live + c.y as u64, col: c.x };
        self.top = live;
        self.scroll(screen, -(back as i64));
        self.cursor.line = self.cursor.line.min(self.top + screen.rows() as u64 - 1);
    }

    /// Leaves the mode.
    pub fn leave(&mut self) {
        *self = CopyMode::default();
    }

    /// Lines above the live screen the view shows (what `View::offset` takes).
    pub fn offset(&self, screen: &Screen) -> usize {
        if !self.active {
            return 0;
        }
        screen.history_pushed().saturating_sub(self.top) as usize
    }

    /// Keeps the view and the cursor on lines that still exist (output pushed the oldest out).
    pub fn follow(&mut self, screen: &Screen) {
        if !self.active {
            return;
        }
        let (first, live) = bounds(screen);
        let last = live + screen.rows() as u64 - 1;
        self.top = self.top.clamp(first, live);
        self.cursor.line = self.cursor.line.clamp(first, last);
        if let Some((a, _)) = self.anchor.as_mut() {
            a.line = a.line.clamp(first, last);
        }
    }

    /// Moves the view by `n` lines (negative: back), the cursor with it.
    fn scroll(&mut self, screen: &Screen, n: i64) {
        let (first, live) = bounds(screen);
        let top = (self.top as i64 + n).clamp(first as i64, live as i64) as u64;
        let moved = top as i64 - self.top as i64;
        self.top = top;
        let last = live + screen.rows() as u64 - 1;
        self.cursor.line = (self.cursor.line as i64 + moved).clamp(first as i64, last as i64) as u64;
    }

    /// Moves the cursor by `n` lines, the view following it.
    fn move_lines(&mut self, screen: &Screen, n: i64) {
        let (first, live) = bounds(screen);
        let last = live + screen.rows() as u64 - 1;
        self.cursor.line = (self.cursor.line as i64 + n).clamp(first as i64, last as i64) as u64;
        self.reveal(screen);
    }

    /// Scrolls so that the cursor is in the view.
    fn reveal(&mut self, screen: &Screen) {
        let rows = screen.rows() as u64;
        if self.cursor.line < self.top {
            self.top = self.cursor.line;
        } else if self.cursor.line >= self.top + rows {
            self.top = self.cursor.line + 1 - rows;
        }
        let (first, live) = bounds(screen);
        self.top = self.top.clamp(first, live);
    }

    /// Takes typed bytes.
    pub fn key(&mut self, bytes: &[u8], screen: &Screen) -> Outcome {
        let mut input = std::mem::take(&mut self.pending);
        input.extend_from_slice(bytes);
        let mut out = Outcome::default();
        let mut at = 0;
        while at < input.len() && !out.leave {
            let rest = &input[at..];
            let n = match crate::keys::key_len(rest, false) {
                Some(n) => n,
                None => {
                    self.pending = rest.to_vec();
                    break;
                }
            };
            self.one_key(&rest[..n], screen, &mut out);
            at += n;
        }
        if out.leave {
            out.rest = input[at..].to_vec();
            self.leave();
        }
        out
    }

    fn one_key(&mut self, key: &[u8], screen: &Screen, out: &mut Outcome) {
        if let Some((forward, text)) = self.prompt.as_mut() {
            match key {
                b"\r" | b"\n" => {
                    let (forward, text) = (*forward, std::mem::take(text));
                    self.prompt = None;
                    if !text.is_empty() {
                        self.search = Some((text, forward));
                    }
                    self.find(screen, true);
                }
                b"\x1b" | b"\x03" | b"\x07" => self.prompt = None,
                b"\x7f" | b"\x08" if text.pop().is_none() => self.prompt = None,
                b"\x7f" | b"\x08" => {}
                b"\x15" => text.clear(),
                k if k[0] >= 0x20 && k[0] != 0x7f => text.push_str(&String::from_utf8_lossy(k)),
                _ => {}
            }
            return;
        }
        self.note = None;
        let rows = screen.rows() as i64;
        let cols = screen.cols();
        match key {
            b"q" => out.leave = true,
            b"\x1b" if self.anchor.take().is_none() => out.leave = true,
            b"\x1b" => {}
            b"\x1b[5~" | b"\x02" => self.scroll(screen, -(rows - 1).max(1)),
            b"\x1b[6~" | b"\x06" | b" " => self.scroll(screen, (rows - 1).max(1)),
            b"\x15" => self.scroll(screen, -(rows / 2).max(1)),
            b"\x04" => self.scroll(screen, (rows / 2).max(1)),
            b"\x1b[A" | b"\x1bOA" | b"k" => self.move_lines(screen, -1),
            b"\x1b[B" | b"\x1bOB" | b"j" => self.move_lines(screen, 1),
            b"\x1b[D" | b"\x1bOD" | b"h" => self.cursor.col = self.cursor.col.saturating_sub(1),
            b"\x1b[C" | b"\x1bOC" | b"l" => self.cursor.col = (self.cursor.col + 1).min(cols - 1),
            b"0" | b"\x1b[H" | b"\x1bOH" | b"\x1b[1~" => self.cursor.col = 0,
            b"$" | b"\x1b[F" | b"\x1bOF" | b"\x1b[4~" => {
                self.cursor.col = line_end_col(screen, self.cursor.line).min(cols - 1);
            }
            b"g" => {
                let (first, _) = bounds(screen);
                self.cursor = Pos { line: first, col: 0 };
                self.reveal(screen);
            }
            b"G" => {
                let (_, live) = bounds(screen);
                self.cursor = Pos { line: live + rows as u64 - 1, col: 0 };
                self.reveal(screen);
            }
            b"/" => self.prompt = Some((true, String::new())),
            b"?" => self.prompt = Some((false, String::new())),
            b"n" => self.find(screen, true),
            b"N" => self.find(screen, false),
            b"v" | b"V" => {
                let lines = key == b"V";
                self.anchor = match self.anchor {
                    Some((_, l)) if l == lines => None,
                    Some((a, _)) => Some((a, lines)),
                    None => Some((self.cursor, lines)),
                };
            }
            b"y" | b"\r" | b"\n" => {
                if let Some(text) = self.selection_text(screen) {
                    out.copy = Some(text);
                    out.leave = true;
                } else if key == b"y" {
                    self.note = Some("nothing selected: v or V starts a selection".into());
                } else {
                    out.leave = true;
                }
            }
            k if k.starts_with(b"\x1b[<") => self.mouse(k, screen, out),
            _ => {}
        }
    }

    /// An SGR mouse report: `ESC [ < b ; x ; y M` (press, motion) or `m` (release).
    fn mouse(&mut self, k: &[u8], screen: &Screen, out: &mut Outcome) {
        let body = String::from_utf8_lossy(&k[3..k.len() - 1]).into_owned();
        let release = k.ends_with(b"m");
        let mut f = body.split(';').map(|v| v.parse::<u64>().unwrap_or(0));
        let (b, x, y) = (f.next().unwrap_or(0), f.next().unwrap_or(1), f.next().unwrap_or(1));
        let at = Pos {
            line: self.top + y.saturating_sub(1).min(screen.rows() as u64 - 1),
            col: (x.saturating_sub(1) as usize).min(screen.cols() - 1),
        };
        match (b & !0b11100, b & 32 != 0, release) {
            (64, _, false) => self.scroll(screen, -WHEEL),
            (65, _, false) => self.scroll(screen, WHEEL),
            (0, false, false) => {
                self.cursor = at;
                self.anchor = Some((at, false));
            }
            (0, true, false) => {
                self.cursor = at;
                if self.anchor.is_none() {
                    self.anchor = Some((at, false));
                }
            }
            (0, _, true) => {
                self.cursor = at;
                if self.anchor.is_some_and(|(a, _)| a != at) {
                    out.copy = self.selection_text(screen);
                    out.leave = out.copy.is_some();
                } else {
                    self.anchor = None;
                }
            }
            _ => {}
        }
    }

    /// Moves the cursor to the next match of the last search: in its direction when `same`,
    /// else the other way, wrapping around the ends.
    fn find(&mut self, screen: &Screen, same: bool) {
        let Some((text, forward)) = self.search.clone() else {
            self.note = Some("no search yet: / or ? starts one".into());
            return;
        };
        let forward = forward == same;
        let (first, live) = bounds(screen);
        let last = live + screen.rows() as u64 - 1;
        let total = last - first + 1;
        let start = self.cursor;
        for step in 0..=total {
            let line = if forward {
                first + (start.line - first + step) % total
            } else {
                first + (start.line - first + total - step % total) % total
            };
            let hits = matches_in(screen, line, &text);
            let pick = if forward {
                hits.into_iter().find(|&(c, _)| step > 0 || c > start.col)
            } else {
                hits.into_iter().rev().find(|&(c, _)| step > 0 || c < start.col)
            };
            if let Some((col, _)) = pick {
                let wrapped = if forward { line < start.line } else { line > start.line };
                self.cursor = Pos { line, col };
                // A match off the view comes to its middle (clear of the label on the top row).
                let rows = screen.rows() as u64;
                if line < self.top || line >= self.top + rows {
                    let (first, live) = bounds(screen);
                    self.top = line.saturating_sub(rows / 2).clamp(first, live);
                }
                self.reveal(screen);
                if wrapped {
                    self.note =
                        Some(if forward { "search wrapped to the top" } else { "search wrapped to the bottom" }.into());
                }
                return;
            }
        }
        self.note = Some(format!("not found: {text}"));
    }

    /// The selected text (see `text::between`).
    fn selection_text(&self, screen: &Screen) -> Option<String> {
        let (anchor, lines) = self.anchor?;
        let (a, b) = if anchor <= self.cursor { (anchor, self.cursor) } else { (self.cursor, anchor) };
        Some(between(screen, a, b, lines))
    }

    /// Draws the mode over a frame of the view: search matches, the selection, the cursor, the
    /// label (or the search being typed) on the top row.
    pub fn draw(&self, presenter: &mut AnsiPresenter, screen: &Screen, out: &mut Vec<u8>) {
        if !self.active {
            return;
        }
        let view = View { screen, offset: self.offset(screen) };
        let rows = screen.rows();
        let sel = self.anchor.map(|(a, lines)| {
            let (a, b) = if a <= self.cursor { (a, self.cursor) } else { (self.cursor, a) };
            (a, b, lines)
        });
        let found = |s: Style| Style { fg: Color::Indexed(0), bg: Color::Indexed(11), attrs: Attrs(0), ..s };
        let inverse = |mut s: Style| {
            s.attrs.set(Attrs::INVERSE, !s.attrs.has(Attrs::INVERSE));
            s
        };
        for y in 0..rows {
            let line = self.top + y as u64;
            if let Some((text, _)) = &self.search {
                for (col, width) in matches_in(screen, line, text) {
                    presenter.mark(view, y, col, col + width, found, out);
                }
            }
            if let Some((a, b, lines)) = sel {
                if (a.line..=b.line).contains(&line) {
                    let from = if lines || line != a.line { 0 } else { a.col };
                    let to = if lines || line != b.line { screen.cols() } else { b.col + 1 };
                    presenter.mark(view, y, from, to, inverse, out);
                }
            }
            if line == self.cursor.line {
                let c = self.cursor.col;
                presenter.mark(
                    view,
                    y,
                    c,
                    c + 1,
                    |s| Style { fg: Color::Indexed(0), bg: Color::Indexed(14), ..s },
                    out,
                );
            }
        }
        let label = match &self.prompt {
            Some((forward, text)) => format!("{}{text}_", if *forward { '/' } else { '?' }),
            None => {
                let (first, live) = bounds(screen);
                let back = live.saturating_sub(self.top);
                let mut l = format!("[scrollback {back}/{}", live - first);
                if let Some((a, lines)) = self.anchor {
                    let n = a.line.abs_diff(self.cursor.line) + 1;
                    l.push_str(&format!(
                        ", {} {n} line{}",
                        if lines { "lines" } else { "selecting" },
                        if n == 1 { "" } else { "s" }
                    ));
                }
                l.push(']');
                match &self.note {
                    Some(note) => format!("{note} {l}"),
                    None => l,
                }
            }
        };
        presenter.overlay(0, &format!(" {label} "), out);
    }
}

/// Where `text` occurs in `line`: (column, cells wide) of each match, left to right.
/// Case is ignored unless `text` has a capital letter.
fn matches_in(screen: &Screen, line: u64, text: &str) -> Vec<(usize, usize)> {
    if text.is_empty() {
        return Vec::new();
    }
    let fold = !text.chars().any(char::is_uppercase);
    let norm = |s: &str| if fold { s.to_lowercase() } else { s.to_string() };
    // Most lines hold no match: their text alone says so, without a string per cell.
    let Some(row) = row_of(screen, line) else { return Vec::new() };
    let mut whole = String::with_capacity(row.len());
    for &c in row.iter() {
        screen.push_cell_text(c, &mut whole);
    }
    if !norm(&whole).contains(&norm(text)) {
        return Vec::new();
    }
    let Some((_, cells)) = line_cells(screen, line) else { return Vec::new() };
    let want: Vec<char> = norm(text).chars().collect();
    // One entry per character of the line, with the cell it is in.
    let mut chars: Vec<(char, usize)> = Vec::new();
    for (x, s) in &cells {
        for c in norm(s).chars() {
            chars.push((c, *x));
        }
    }
    let mut hits = Vec::new();
    let mut i = 0;
    while i + want.len() <= chars.len() {
        if chars[i..i + want.len()].iter().map(|(c, _)| *c).eq(want.iter().copied()) {
            let start = chars[i].1;
            let end_cell = chars[i + want.len() - 1].1;
            let wide = cells
                .iter()
                .position(|(x, _)| *x == end_cell)
                .and_then(|k| cells.get(k + 1))
                .map_or(end_cell + 1, |(x, _)| *x);
            hits.push((start, wide - start));
            i += want.len();
        } else {
            i += 1;
        }
    }
    hits
}

#[cfg(test)]
mod tests {
    use super::*;
    use blitty_vt::Terminal;

    fn term_with_lines(n: usize) -> Terminal {
        let mut t = Terminal::with_scrollback(20, 5, 10_000);
        for i in 1..=n {
            t.feed(format!("line {i}\r\n").as_bytes());
        }
        t
    }

    #[test]
    fn keys_after_the_one_that_leaves_come_back_to_the_caller() {
        // `q` then Ctrl-] q typed fast, in one read: the mode takes the `q`, the rest is the
        // caller's (it was dropped, so the quit was lost: a CI run of the serial test found it).
        let t = term_with_lines(50);
        let s = t.screen();
        let mut m = CopyMode::default();
        m.enter(s, 3);
        let out = m.key(b"kq\x1dq", s);
        assert!(out.leave && !m.active);
        assert_eq!(out.rest, b"\x1dq");
        // A key cut by the end of the read waits for the rest, as before; nothing is left over.
        m.enter(s, 3);
        let out = m.key(b"\x1b[", s);
        assert!(!out.leave && out.rest.is_empty());
        let out = m.key(b"Aq", s);
        assert!(out.leave && out.rest.is_empty());
    }

    #[test]
    fn search_finds_a_line_thousands_back_and_wraps() {
        let t = term_with_lines(6000);
        let s = t.screen();
        let mut m = CopyMode::default();
        m.enter(s, 0);
        m.key(b"?line 1000\r", s);
        assert_eq!(line_cells(s, m.cursor.line).unwrap().0.trim_end(), "line 1000");
        assert!(m.offset(s) >= 4990, "the view went back: {}", m.offset(s));
        m.key(b"n", s);
        assert_eq!(line_cells(s, m.cursor.line).unwrap().0.trim_end(), "line 1000", "searching back again wraps to it");
        m.key(b"/LINE 5\r", s);
        assert_eq!(m.note.as_deref(), Some("not found: LINE 5"), "a capital letter makes the case count");
        m.key(b"/line 5999\r", s);
        assert_eq!(line_cells(s, m.cursor.line).unwrap().0.trim_end(), "line 5999");
    }

    #[test]
    fn selections_copy_by_characters_and_by_lines() {
        let mut t = Terminal::with_scrollback(10, 4, 100);
        t.feed(b"alpha beta\r\ngamma\r\n0123456789abc\r\n");
        let s = t.screen();
        let mut m = CopyMode::default();
        m.enter(s, 0);
        m.key(b"g", s);
        assert_eq!(m.cursor, Pos { line: 0, col: 0 });
        let out = m.key(b"llllllvlllly", s);
        assert_eq!(out, Outcome { leave: true, copy: Some("beta".into()), rest: Vec::new() });
        m.enter(s, 0);
        m.key(b"gjV", s);
        let out = m.key(b"jjy", s);
        // "0123456789abc" wrapped at 10 columns: its two rows are one line for the clipboard.
        assert_eq!(out.copy.as_deref(), Some("gamma\n0123456789abc\n"));
        m.enter(s, 0);
        assert_eq!(m.key(b"y", s), Outcome::default(), "y without a selection stays");
        assert!(m.key(b"q", s).leave);
    }

    #[test]
    fn the_mouse_wheel_scrolls_and_a_drag_copies() {
        let t = term_with_lines(100);
        let s = t.screen();
        let mut m = CopyMode::default();
        m.enter(s, 0);
        m.key(b"\x1b[<64;1;1M", s);
        assert_eq!(m.offset(s), 3);
        m.key(b"\x1b[<65;1;1M\x1b[<65;1;1M", s);
        assert_eq!(m.offset(s), 0);
        // Press on "line 97" (row 1), drag to its end, release: copied.
        m.key(b"\x1b[<0;1;1M\x1b[<32;4;1M", s);
        let out = m.key(b"\x1b[<0;4;1m", s);
        assert_eq!(out.copy.as_deref(), Some("line"));
        assert!(out.leave);
    }

    #[test]
    fn a_sequence_cut_between_reads_is_one_key() {
        let t = term_with_lines(100);
        let s = t.screen();
        let mut m = CopyMode::default();
        m.enter(s, 0);
        m.key(b"\x1b[5", s);
        assert_eq!(m.offset(s), 0);
        m.key(b"~", s);
        assert_eq!(m.offset(s), 4);
    }

    #[test]
    fn after_narrowing_the_mode_reaches_the_oldest_rewrapped_row() {
        // Narrowing rewraps 8 lines of history and screen into 32 rows, more than output ever
        // pushed (4): the rows are still numbered from 0 up. The mode panicked here once, the
        // oldest row's number having gone below 0 (found by hand: `blitty run`, the host
        // narrowed, then the scrollback mode).
        let mut t = Terminal::with_scrollback(20, 5, 100);
        for i in 1..=8 {
            t.feed(format!("line {i} abcdefghij\r\n").as_bytes());
        }
        let mut m = CopyMode::default();
        m.enter(t.screen(), 2);
        t.resize(5, 5);
        m.follow(t.screen());
        let s = t.screen();
        m.key(b"kkkkg", s);
        assert_eq!(line_cells(s, m.cursor.line).unwrap().0, "line ");
        assert_eq!(line_cells(s, m.cursor.line + 1).unwrap().0, "1 abc");
        m.key(b"G", s);
        assert_eq!(m.offset(s), 0);
        // Entered after the resize too.
        m.enter(s, 100);
        assert_eq!(line_cells(s, m.top).unwrap().0, "line ");
    }

    #[test]
    fn output_arriving_keeps_the_view_on_its_text() {
        let mut t = term_with_lines(50);
        let mut m = CopyMode::default();
        m.enter(t.screen(), 10);
        let top = line_cells(t.screen(), m.top).unwrap().0;
        for i in 0..30 {
            t.feed(format!("more {i}\r\n").as_bytes());
        }
        m.follow(t.screen());
        assert_eq!(line_cells(t.screen(), m.top).unwrap().0, top);
        assert_eq!(m.offset(t.screen()), 40);
    }
}
