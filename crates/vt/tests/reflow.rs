//! Reflow on resize, tested as properties over random text and every small size: the text of
//! the scrollback and screen survives any resize, and a resize followed by its reverse gives
//! back the same rows and cursor when no line was cut (no line dropped off the scrollback's
//! cap, no wide character squeezed into one column). The differential test against
//! alacritty_terminal's reflow lives with the lab (`crates/lab/tests/reflow_vs_alacritty.rs`).

use blitty_vt::Terminal;

use crate::common::Rng;

/// Random lines of text (ASCII, wide CJK, emoji, combining marks, coloured runs), ended by
/// CR LF, with the cursor left at the end of the last one or moved back into it.
fn random_text(rng: &mut Rng, width: usize, lines: usize, wide: bool) -> String {
    let mut s = String::new();
    for l in 0..lines {
        let len = rng.below(width * 3 + 1);
        for _ in 0..len {
            match rng.below(12) {
                0 if wide => s.push('字'),
                1 if wide => s.push('😀'),
                2 => s.push_str("e\u{301}"),
                3 => s.push(' '),
                4 => s.push_str("\x1b[31m"),
                5 => s.push_str("\x1b[0m"),
                // An RGB colour: a style the rows' lists hold (palette ones are packed).
                6 => s.push_str(&format!("\x1b[38;2;{};0;1m", rng.below(256))),
                _ => s.push((b'a' + rng.below(26) as u8) as char),
            }
        }
        if l + 1 < lines {
            s.push_str("\r\n");
        }
    }
    if rng.below(3) == 0 {
        s.push_str(&format!("\x1b[{}D", rng.below(width + 1)));
    }
    s
}

/// Every row of scrollback and screen: its text, whether it wraps, its styles. A row of
/// default blanks that ends a logical line after a wrap is left out (and the wrap before it
/// with it): blanks at the end of a line are not text (README, "Reflow": a printed trailing
/// space and an erased cell look the same), so a resize may not give that row back.
fn rows(t: &Terminal) -> Vec<(String, bool, Vec<blitty_vt::Style>)> {
    let s = t.screen();
    let mut all: Vec<(String, bool, Vec<blitty_vt::Style>)> = Vec::new();
    for i in 0..s.history_len() {
        let cells = s.history_row(i);
        all.push((s.cells_text(&cells), s.history_wrapped(i), cells.iter().map(|&c| cells.style(c)).collect()));
    }
    for y in 0..s.rows() {
        let row = s.row(y);
        all.push((s.row_text(y), s.row_wrapped(y), row.iter().map(|&c| row.style(c)).collect()));
    }
    let mut out: Vec<(String, bool, Vec<blitty_vt::Style>)> = Vec::with_capacity(all.len());
    for (text, wrapped, styles) in all {
        let default_blanks = text.is_empty() && styles.iter().all(|st| st.is_default());
        if default_blanks && !wrapped && out.last().is_some_and(|r| r.1) {
            out.last_mut().expect("checked").1 = false;
            continue;
        }
        out.push((text, wrapped, styles));
    }
    out
}

/// The text as logical lines (wrapped rows joined), spaces left out (a wide character that
/// did not fit leaves a pad blank that is not text) and trailing empty lines dropped: what
/// a resize must never change.
fn logical_text(t: &Terminal) -> Vec<String> {
    let s = t.screen();
    let mut rows: Vec<(String, bool)> = Vec::new();
    for i in 0..s.history_len() {
        rows.push((s.cells_text(&s.history_row(i)), s.history_wrapped(i)));
    }
    for y in 0..s.rows() {
        rows.push((s.row_text(y), s.row_wrapped(y)));
    }
    let mut lines = Vec::new();
    let mut cur = String::new();
    for (text, wrapped) in rows {
        cur.extend(text.chars().filter(|&c| c != ' '));
        if !wrapped {
            lines.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

fn check(t: &Terminal, what: &str) {
    if let Err(v) = t.screen().check_integrity() {
        panic!("{what}: {v}\n{}", t.screen().dump_text());
    }
}

#[test]
fn narrow_then_widen_is_the_identity_for_text_that_was_never_cut() {
    let mut rng = Rng(0x5eed_0001);
    for case in 0..400 {
        let (w1, h1) = (1 + rng.below(30), 1 + rng.below(10));
        let wide = w1 >= 2 && rng.below(2) == 0;
        let (w2, h2) = (if wide { 2 } else { 1 } + rng.below(40), 1 + rng.below(12));
        let n = 1 + rng.below(8);
        let text = random_text(&mut rng, w1, n, wide);
        let mut t = Terminal::with_scrollback(w1, h1, 10_000);
        t.feed(text.as_bytes());
        let (before, cursor) = (rows(&t), t.screen().cursor());
        t.resize(w2, h2);
        check(&t, "after the first resize");
        t.resize(w1, h1);
        check(&t, "after the second resize");
        let what = format!("case {case}: {w1}x{h1} -> {w2}x{h2} -> back, text {text:?}");
        assert_eq!(rows(&t), before, "{what}\n{}", t.screen().dump_text());
        assert_eq!(t.screen().cursor(), cursor, "{what}");
    }
}

#[test]
fn any_run_of_resizes_keeps_the_text() {
    let mut rng = Rng(0x5eed_0002);
    for case in 0..200 {
        let (w, h) = (2 + rng.below(20), 1 + rng.below(8));
        let n = 1 + rng.below(8);
        let text = random_text(&mut rng, w, n, true);
        let mut t = Terminal::with_scrollback(w, h, 10_000);
        t.feed(text.as_bytes());
        let before = logical_text(&t);
        for step in 0..6 {
            let (w, h) = (2 + rng.below(30), 1 + rng.below(10));
            t.resize(w, h);
            check(&t, &format!("case {case} step {step}"));
            assert_eq!(logical_text(&t), before, "case {case} step {step} at {w}x{h}: {text:?}");
        }
    }
}

#[test]
fn every_size_from_1x1_resizes_to_every_other_small_size() {
    let text = "ab字c😀e\u{301}\r\nxyz\x1b[41m  \x1b[0m1234567890\r\n\r\nend";
    for (w, h) in (1..=8).flat_map(|w| (1..=5).map(move |h| (w, h))) {
        for (w2, h2) in (1..=8).flat_map(|w| (1..=5).map(move |h| (w, h))) {
            let mut t = Terminal::with_scrollback(w, h, 3);
            t.feed(text.as_bytes());
            t.resize(w2, h2);
            check(&t, &format!("{w}x{h} -> {w2}x{h2}"));
            t.feed(b"more text\r\n");
            check(&t, &format!("{w}x{h} -> {w2}x{h2}, then output"));
        }
    }
}

#[test]
fn output_after_a_resize_starts_a_new_anchor() {
    // Narrow, then output scrolls, then widen: the screen is bottom-anchored again, not
    // taken back to where it was before the first resize.
    let mut t = Terminal::with_scrollback(10, 3, 100);
    t.feed(b"1\r\n2\r\n3");
    t.resize(5, 3);
    t.feed(b"\r\n4\r\n5");
    t.resize(10, 3);
    let s = t.screen();
    let screen: Vec<String> = (0..3).map(|y| s.row_text(y)).collect();
    assert_eq!(screen, ["3", "4", "5"]);
}

#[test]
fn narrowing_past_the_scrollback_cap_drops_the_oldest_lines_only() {
    let mut t = Terminal::with_scrollback(10, 2, 3);
    t.feed(b"aaaaaaaaaa\r\nbbbbbbbbbb\r\ncccccccccc\r\ndddddddddd");
    t.resize(5, 2);
    check(&t, "narrowed");
    let s = t.screen();
    assert_eq!(s.history_len(), 3);
    let hist: Vec<String> = (0..3).map(|i| s.cells_text(&s.history_row(i))).collect();
    assert_eq!(hist, ["bbbbb", "ccccc", "ccccc"]);
    assert_eq!((s.row_text(0), s.row_text(1)), ("ddddd".to_string(), "ddddd".to_string()));
}
