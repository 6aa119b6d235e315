//! The text on the screen and in the scrollback, by line number, for the places that let a
//! user select and copy it (the scrollback mode of run and serial, and the window's mouse
//! selection). A line keeps its number while output arrives (`Screen::history_pushed`): the
//! oldest line still held is `bounds().0`, the live screen's top line `bounds().1`.

use blitty_vt::{Line, Screen};

/// A place in the text: a line number and a column.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    pub line: u64,
    pub col: usize,
}

/// The oldest line still held, and the live screen's top line.
pub fn bounds(screen: &Screen) -> (u64, u64) {
    let live = screen.history_pushed();
    (live - screen.history_len() as u64, live)
}

/// Line `line`, if it is still (or already) held.
pub fn row_of(screen: &Screen, line: u64) -> Option<Line<'_>> {
    let (first, live) = bounds(screen);
    if line < first {
        None
    } else if line < live {
        Some(screen.history_row((line - first) as usize))
    } else if line < live + screen.rows() as u64 {
        Some(screen.row((line - live) as usize))
    } else {
        None
    }
}

/// Line `line`'s cells: its text, and each character's column with its text (wide characters
/// once, at their left column). `None` for a line no longer (or not yet) held.
pub fn line_cells(screen: &Screen, line: u64) -> Option<(String, Vec<(usize, String)>)> {
    let row = row_of(screen, line)?;
    let mut cells = Vec::with_capacity(row.len());
    let mut text = String::new();
    for (x, &c) in row.iter().enumerate() {
        if c.is_spacer() {
            continue;
        }
        let mut s = String::new();
        screen.push_cell_text(c, &mut s);
        text.push_str(&s);
        cells.push((x, s));
    }
    Some((text, cells))
}

/// Whether line `line` continues on the next one (an automatic wrap left it).
pub fn wrapped(screen: &Screen, line: u64) -> bool {
    let (first, live) = bounds(screen);
    if line < live {
        line >= first && screen.history_wrapped((line - first) as usize)
    } else {
        line < live + screen.rows() as u64 && screen.row_wrapped((line - live) as usize)
    }
}

/// The column of the last non-blank character of `line` (0 for a blank line).
pub fn line_end_col(screen: &Screen, line: u64) -> usize {
    line_cells(screen, line)
        .and_then(|(_, cells)| cells.iter().rev().find(|(_, s)| s != " ").map(|(x, _)| *x))
        .unwrap_or(0)
}

/// The text from `a` to `b` (both included, `a` first), or of the whole lines `a.line` to
/// `b.line` with `lines`: lines joined by newlines, except where a line wrapped; trailing blanks
/// dropped from each line (a terminal cannot tell them from empty cells).
pub fn between(screen: &Screen, a: Pos, b: Pos, lines: bool) -> String {
    let mut out = String::new();
    for line in a.line..=b.line {
        let Some((_, cells)) = line_cells(screen, line) else { continue };
        let (from, to) = if lines {
            (0, usize::MAX)
        } else {
            (if line == a.line { a.col } else { 0 }, if line == b.line { b.col } else { usize::MAX })
        };
        let mut text: String = cells.iter().filter(|(c, _)| *c >= from && *c <= to).map(|(_, s)| s.as_str()).collect();
        let wrapped = wrapped(screen, line) && (line != b.line || lines || to == usize::MAX);
        if !wrapped {
            text.truncate(text.trim_end_matches(' ').len());
        }
        out.push_str(&text);
        if line != b.line && !wrapped {
            out.push('\n');
        }
    }
    if lines {
        out.push('\n');
    }
    out
}

/// The most rows a word or a line selected by a click may span (a wrapped line of a flood can
/// be as long as the scrollback): the search stops there.
pub const MAX_LOGICAL_ROWS: u64 = 1000;

/// The first and last rows of the logical line (rows joined by automatic wraps) holding `line`.
pub fn logical_line(screen: &Screen, line: u64) -> (u64, u64) {
    let (first, live) = bounds(screen);
    let last = live + screen.rows() as u64 - 1;
    let mut top = line;
    while top > first && line - top < MAX_LOGICAL_ROWS && wrapped(screen, top - 1) {
        top -= 1;
    }
    let mut bottom = line;
    while bottom < last && bottom - line < MAX_LOGICAL_ROWS && wrapped(screen, bottom) {
        bottom += 1;
    }
    (top, bottom)
}

/// Characters that are part of a word besides letters and digits, so that a double click
/// takes a whole path, URL or e-mail address (kitty's default set, with ':' for URLs and
/// `file:line` references; xterm's default classes split them).
pub const WORD_CHARS: &str = "-./_~?&=%+#:@";

/// Which characters a double click takes together: blanks with blanks, word characters with
/// word characters, any other character with copies of itself.
fn class(s: &str) -> Option<char> {
    let c = s.chars().next().unwrap_or(' ');
    if c == ' ' {
        None
    } else if c.is_alphanumeric() || WORD_CHARS.contains(c) {
        Some('a')
    } else {
        Some(c)
    }
}

/// The word at `p` (see `class`): its first and last characters, across automatic wraps.
pub fn word_at(screen: &Screen, p: Pos) -> (Pos, Pos) {
    let (top, bottom) = logical_line(screen, p.line);
    let mut chars: Vec<(Pos, String)> = Vec::new();
    for line in top..=bottom {
        if let Some((_, cells)) = line_cells(screen, line) {
            chars.extend(cells.into_iter().map(|(col, s)| (Pos { line, col }, s)));
        }
    }
    // The character at p (the left column of a wide one).
    let Some(at) = chars.iter().rposition(|(q, _)| *q <= p) else { return (p, p) };
    let want = class(&chars[at].1);
    let start = chars[..at].iter().rposition(|(_, s)| class(s) != want).map_or(0, |i| i + 1);
    let end = chars[at..].iter().position(|(_, s)| class(s) != want).map_or(chars.len() - 1, |i| at + i - 1);
    (chars[start].0, chars[end].0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use blitty_vt::Terminal;

    #[test]
    fn a_word_is_a_path_or_url_and_crosses_wrapped_rows() {
        let mut t = Terminal::with_scrollback(10, 4, 100);
        // Row 0: "see http:/", row 1: "/x.org/a b" (wrapped), row 2: "((( 日本".
        t.feed("see http://x.org/a b\r\n((( \u{65e5}\u{672c}".as_bytes());
        let s = t.screen();
        let live = s.history_pushed();
        let at = |line: u64, col: usize| Pos { line: live + line, col };
        assert_eq!(word_at(s, at(0, 6)), (at(0, 4), at(1, 7)));
        assert_eq!(between(s, at(0, 4), at(1, 7), false), "http://x.org/a");
        assert_eq!(word_at(s, at(1, 9)), (at(1, 9), at(1, 9)));
        assert_eq!(word_at(s, at(0, 3)), (at(0, 3), at(0, 3)), "a blank alone");
        assert_eq!(word_at(s, at(2, 1)), (at(2, 0), at(2, 2)), "a run of the same character");
        // A wide character's right half belongs to it.
        assert_eq!(word_at(s, at(2, 7)), (at(2, 4), at(2, 6)));
        assert_eq!(between(s, at(2, 4), at(2, 6), false), "\u{65e5}\u{672c}");
        assert_eq!(logical_line(s, at(1, 0).line), (live, live + 1));
    }

    #[test]
    fn lines_past_the_screen_or_gone_from_history_have_no_text() {
        let mut t = Terminal::with_scrollback(5, 2, 3);
        for i in 0..10 {
            t.feed(format!("l{i}\r\n").as_bytes());
        }
        let s = t.screen();
        let (first, live) = bounds(s);
        assert_eq!(live - first, 3);
        assert!(row_of(s, first - 1).is_none());
        assert!(row_of(s, live + 2).is_none());
        assert!(!wrapped(s, live + 2));
        assert_eq!(between(s, Pos { line: first - 1, col: 0 }, Pos { line: first, col: 4 }, false), "l6");
    }
}
