//! Reflow against alacritty_terminal's: the same text through both engines, the same resize,
//! then every row of scrollback and screen compared, text and wrap flag.
//!
//! What is compared is the text's rows from the oldest to the last one that holds anything:
//! how each logical line is rewrapped at the new width, including where a wide character that
//! does not fit leaves its pad. Where the rows split between scrollback and screen is not
//! compared: alacritty anchors the screen at the bottom and narrowing pushes the top rows into
//! the scrollback while blank rows stay below the cursor; blitty uses those free rows first and
//! keeps the screen's top where it was (see `crates/vt/src/grid/reflow.rs`).

use alacritty_terminal::event::VoidListener;
use alacritty_terminal::grid::Dimensions;
use alacritty_terminal::index::{Column, Line};
use alacritty_terminal::term::cell::Flags;
use alacritty_terminal::term::{test::TermSize, Config, Term};
use alacritty_terminal::vte::ansi::Processor;
use blitty_lab::workloads::Rng;

type Rows = Vec<(String, bool)>;

fn alacritty_rows(data: &[u8], size: (usize, usize), to: &[(usize, usize)]) -> Rows {
    let config = Config { scrolling_history: 10_000, ..Config::default() };
    let mut term = Term::new(config, &TermSize::new(size.0, size.1), VoidListener);
    Processor::<alacritty_terminal::vte::ansi::StdSyncHandler>::new().advance(&mut term, data);
    for &(c, r) in to {
        term.resize(TermSize::new(c, r));
    }
    let grid = term.grid();
    let mut rows = Vec::new();
    for y in -(grid.history_size() as i32)..grid.screen_lines() as i32 {
        let row = &grid[Line(y)];
        let mut s = String::new();
        for x in 0..grid.columns() {
            let cell = &row[Column(x)];
            if cell.flags.intersects(Flags::WIDE_CHAR_SPACER | Flags::LEADING_WIDE_CHAR_SPACER) {
                if cell.flags.contains(Flags::LEADING_WIDE_CHAR_SPACER) {
                    s.push(' ');
                }
                continue;
            }
            s.push(cell.c);
            if let Some(z) = cell.zerowidth() {
                s.extend(z);
            }
        }
        let wrapped = row[Column(grid.columns() - 1)].flags.contains(Flags::WRAPLINE);
        rows.push((s.trim_end().to_string(), wrapped));
    }
    trim(rows)
}

fn blitty_rows(data: &[u8], size: (usize, usize), to: &[(usize, usize)]) -> Rows {
    let t = crate::resized_engine(data, size, to);
    let s = t.screen();
    let mut rows = Vec::new();
    for i in 0..s.history_len() {
        rows.push((s.cells_text(&s.history_row(i)), s.history_wrapped(i)));
    }
    for y in 0..s.rows() {
        rows.push((s.row_text(y), s.row_wrapped(y)));
    }
    trim(rows)
}

/// Drops the empty rows after the last one with text (free rows, not text), and the empty
/// rows that end a logical line: blanks at the end of a line are not text to blitty (an
/// explicitly printed trailing space and an erased cell look the same), while alacritty keeps
/// cells it saw written, so a line ending in spaces that wrapped keeps a row of them there.
fn trim(rows: Rows) -> Rows {
    let mut out: Rows = Vec::with_capacity(rows.len());
    for (text, wrapped) in rows {
        if text.is_empty() && !wrapped && out.last().is_some_and(|(_, w)| *w) {
            out.last_mut().expect("checked").1 = false;
            continue;
        }
        out.push((text, wrapped));
    }
    while out.last().is_some_and(|(s, w)| s.is_empty() && !w) {
        out.pop();
    }
    out
}

/// Lines of ASCII words, wide CJK characters, emoji and combining marks, some longer than the
/// screen, separated by CR LF; the cursor ends after the last character.
fn random_text(rng: &mut Rng, width: usize) -> String {
    let mut s = String::new();
    let lines = 1 + rng.below(12);
    for l in 0..lines {
        for _ in 0..rng.below(width * 3 + 1) {
            match rng.below(10) {
                0 => s.push('字'),
                1 => s.push('😀'),
                2 => s.push_str("e\u{301}"),
                3 => s.push(' '),
                _ => s.push((b'a' + rng.below(26) as u8) as char),
            }
        }
        if l + 1 < lines {
            s.push_str("\r\n");
        }
    }
    s
}

/// alacritty_terminal 0.26's known gap: with the cursor pending after a wide character that
/// ends the text, narrowing and widening again loses that character (blitty keeps it). Only
/// that difference, on the last row, is accepted.
fn alacritty_lost_the_last_wide_character(a: &Rows, b: &Rows) -> bool {
    let n = a.len();
    if n == 0 || n != b.len() || a[..n - 1] != b[..n - 1] || a[n - 1].1 != b[n - 1].1 {
        return false;
    }
    let lost = b[n - 1].0.strip_prefix(a[n - 1].0.as_str()).unwrap_or("");
    let mut chars = lost.chars();
    matches!((chars.next(), chars.next()), (Some(c), None) if unicode_width::UnicodeWidthChar::width(c) == Some(2))
}

#[test]
fn rows_after_a_resize_match_alacritty_terminal() {
    let mut rng = Rng::new(0x0a1a_c417);
    let mut differences = Vec::new();
    let mut known = 0;
    for case in 0..500 {
        let from = (2 + rng.below(30), 2 + rng.below(10));
        // One resize, or a resize and back (narrowing then widening, or the reverse).
        let mut to = vec![(2 + rng.below(40), 2 + rng.below(12))];
        if rng.below(2) == 0 {
            to.push(from);
        }
        let text = random_text(&mut rng, from.0);
        let (a, b) = (alacritty_rows(text.as_bytes(), from, &to), blitty_rows(text.as_bytes(), from, &to));
        if a != b && alacritty_lost_the_last_wide_character(&a, &b) {
            known += 1;
        } else if a != b {
            differences.push(format!(
                "case {case}: {from:?} -> {to:?}, text {text:?}\n  alacritty: {a:?}\n  blitty:    {b:?}"
            ));
        }
    }
    eprintln!("{known} of 500 differ only by alacritty's known loss of a final wide character");
    assert!(
        differences.is_empty(),
        "{} of 500 differ:\n{}",
        differences.len(),
        differences[..differences.len().min(3)].join("\n")
    );
}
