//! One test per control function, each stating what xterm's ctlseqs says it does.

use crate::style::{Attrs, Color, Underline};
use crate::{Terminal, Underline as _U};

fn term(cols: usize, rows: usize, input: &str) -> Terminal {
    let mut t = Terminal::with_scrollback(cols, rows, 100);
    t.feed(input.as_bytes());
    t
}

fn lines(t: &Terminal) -> Vec<String> {
    (0..t.screen().rows()).map(|y| t.screen().row_text(y)).collect()
}

fn cur(t: &Terminal) -> (usize, usize) {
    let c = t.screen().cursor();
    (c.y, c.x)
}

/// Two terminals show the same screen: text, cursor (with its pending wrap) and each row's
/// soft-wrap flag.
fn assert_same_screen(a: &Terminal, b: &Terminal, what: &str) {
    assert_eq!(lines(a), lines(b), "{what}");
    assert_eq!(a.screen().cursor(), b.screen().cursor(), "{what}");
    for y in 0..a.screen().rows() {
        assert_eq!(a.screen().row_wrapped(y), b.screen().row_wrapped(y), "{what}: row {y}");
    }
}

/// Sets autowrap (`h`) or resets it (`l`), fills the first two rows of a screen with wide
/// characters, and puts the cursor on the first row at column `x` (0-based).
fn wide_rows_then_column(wrap: &str, x: usize) -> String {
    format!("\x1b[?7{wrap}漢字漢字漢字\r\n漢字漢字漢字\x1b[1;{}H", x + 1)
}

/// The lines of an 80x24 screen fed a recorded vttest stream (given in pieces that fit a line).
fn vttest_screen(stream: &[&str]) -> Vec<String> {
    lines(&term(80, 24, &stream.concat()))
}

fn pen_style(t: &Terminal, y: usize, x: usize) -> crate::Style {
    let row = t.screen().row(y);
    row.style(row[x])
}

// ---- text ----

#[test]
fn text_is_written_at_the_cursor_and_advances_it() {
    let t = term(10, 2, "abc");
    assert_eq!(lines(&t), ["abc", ""]);
    assert_eq!(cur(&t), (0, 3));
}

#[test]
fn pending_wrap_keeps_the_cursor_in_the_last_column_until_the_next_character() {
    let t = term(5, 3, "abcde");
    assert_eq!(cur(&t), (0, 4));
    assert!(t.screen().cursor().pending_wrap);
    let t = term(5, 3, "abcdef");
    assert_eq!(lines(&t), ["abcde", "f", ""]);
    assert_eq!(cur(&t), (1, 1));
    assert!(t.screen().row_wrapped(0));
}

#[test]
fn a_control_between_the_last_column_and_the_next_character_cancels_the_wrap() {
    let t = term(5, 3, "abcde\rX");
    assert_eq!(lines(&t), ["Xbcde", "", ""]);
}

#[test]
fn decawm_off_overwrites_the_last_column() {
    let t = term(5, 2, "\x1b[?7labcdefg");
    assert_eq!(lines(&t), ["abcdg", ""]);
    assert_eq!(cur(&t), (0, 4));
}

#[test]
fn a_mark_after_the_last_column_without_autowrap_joins_the_character_there() {
    // XTerm 379 (scripts/xterm-screens.sh awm-off-mark-joins-last-column): the mark joins the
    // character the overwriting left in the last column, not the one before it; the
    // character-at-a-time path (a run through the print path with marks) too.
    for text in ["abcdefq\u{301}", "abcd\u{e9}q\u{301}", "ab\u{e9}\u{e9}\u{e9}q\u{301}"] {
        let t = term(5, 1, &format!("\x1b[?7l{text}"));
        let kept: String = text.chars().take(4).collect();
        assert_eq!(lines(&t), [format!("{kept}q\u{301}")], "{text:?}");
    }
    // On a double-width row: its last shown column.
    let t = term(10, 1, "\x1b#6\x1b[?7labcdefgq\u{301}");
    assert_eq!(lines(&t), ["abcdq\u{301}"]);
}

#[test]
fn a_pending_wrap_outlasts_decawm_as_in_xterm() {
    // XTerm 379 (awm-pending-kept-through-decawm): text that reached the last column, then
    // DECAWM reset and set again: the next character wraps; one that reached it without
    // autowrap too.
    let t = term(5, 3, "abcde\x1b[?7l\x1b[?7hY");
    assert_eq!(lines(&t), ["abcde", "Y", ""]);
    let t = term(5, 3, "\x1b[?7labcdefg\x1b[?7hY");
    assert_eq!(lines(&t), ["abcdg", "Y", ""]);
    // Without autowrap set again, it overwrites (a CR or a move ends the pending wrap).
    let t = term(5, 3, "abcde\x1b[?7lY\rZ");
    assert_eq!(lines(&t), ["ZbcdY", "", ""]);
}

#[test]
fn without_autowrap_any_character_ends_a_pending_wrap() {
    // A wrap left pending at a right margin that DECSLRM then took away: the next character
    // is written at the cursor, and one that does not reach the margin leaves no wrap pending,
    // so a mark after the next character joins that character (xterm's `dotext` clears
    // `do_wrap` before it looks at autowrap). Whole and byte by byte alike: the property test
    // `runs_of_characters_give_what_one_character_at_a_time_gives` found the run path keeping
    // the stale wrap.
    let input = "\x1b[?7l\x1b[?69h\x1b[3;9s\u{e9}\u{e9}\u{e9}字\u{e9}\u{e9}字\x1b[?69l字 \u{301}字";
    let whole = term(12, 1, input);
    assert_eq!(lines(&whole), ["\u{e9}\u{e9}\u{e9}字\u{e9}\u{e9} 字 \u{301}"]);
    assert_eq!(cur(&whole), (0, 11));
    assert!(!whole.screen().cursor().pending_wrap, "a wide character that does not fit is not written");
    let mut bytes = Terminal::with_scrollback(12, 1, 100);
    for b in input.as_bytes() {
        bytes.feed(&[*b]);
    }
    assert_same_screen(&whole, &bytes, "byte by byte");
    // The property test's own case: the wrap pending after `g`, then a space and a mark.
    let t = term(10, 1, "\x1b[?69h\x1b[3;9s\x1b[?7l字字abcdefg\x1b[?69l \u{301}");
    assert_eq!(lines(&t), ["字字abcd \u{301}"]);
    // At the last column without autowrap: the next character overwrites it and is pending
    // again; a wide one does not fit and is dropped, and a mark after it joins the last
    // column's character (xterm's `last_written_col`).
    let t = term(5, 1, "\x1b[?7labcdeX\u{301}");
    assert_eq!(lines(&t), ["abcdX\u{301}"]);
    assert!(t.screen().cursor().pending_wrap);
    let t = term(5, 1, "\x1b[?7labcde字\u{301}");
    assert_eq!(lines(&t), ["abcde\u{301}"]);
}

#[test]
fn wide_characters_take_two_cells_and_wrap_whole() {
    let t = term(5, 2, "ab字c");
    assert_eq!(lines(&t), ["ab字c", ""]);
    assert_eq!(cur(&t), (0, 4));
    // At the last column a wide character goes to the next line, leaving the last column
    // as it was (XTerm 379: wide-at-last-col-keeps-the-cell).
    let t = term(5, 2, "abcd字");
    assert_eq!(lines(&t), ["abcd", "字"]);
    assert_eq!(cur(&t), (1, 2));
    let t = term(5, 2, "\x1b#8\x1b[1;5H字");
    assert_eq!(lines(&t), ["EEEEE", "字EEE"]);
}

#[test]
fn overwriting_half_of_a_wide_character_erases_the_other_half() {
    let t = term(6, 1, "字字\x1b[2GX");
    assert_eq!(lines(&t), [" X字"]);
    let t = term(6, 1, "字字\x1b[1GX");
    assert_eq!(lines(&t), ["X 字"]);
}

#[test]
fn combining_marks_join_the_previous_character() {
    let t = term(10, 1, "e\u{301}x");
    assert_eq!(lines(&t), ["e\u{301}x"]);
    assert_eq!(cur(&t), (0, 2));
    // On a wide character, and at the last column while a wrap is pending.
    let t = term(3, 2, "字\u{308}a\u{301}");
    assert_eq!(lines(&t), ["字\u{308}a\u{301}", ""]);
    assert_eq!(cur(&t), (0, 2));
}

#[test]
fn a_run_of_marks_joins_as_the_marks_sent_one_at_a_time_join() {
    // Marks that follow one another are joined at once (one cluster for the run); the
    // reference is each mark sent alone (an SGR between them keeps them apart), joined one by
    // one. Runs of 1 to 40 marks of two, three and four bytes (past the 64 bytes a cluster
    // holds, where a mark that does not fit is dropped and a shorter one after it may still
    // fit), on a narrow base, a wide one, one that already holds a cluster and an ASCII letter,
    // at every column of screens 1 to 6 wide, with and without autowrap, over wide characters.
    let marks = ['\u{301}', '\u{20dd}', '\u{302}', '\u{1d167}', '\u{200d}', '\u{323}', '\u{fe0f}'];
    for base in ["é", "字", "e\u{301}", "a"] {
        for len in 1..=40 {
            let run: String = marks.iter().cycle().take(len).collect();
            let apart: String = run.chars().map(|m| format!("{m}\x1b[m")).collect();
            for cols in 1..=6 {
                for x in 0..cols {
                    for wrap in ["h", "l"] {
                        let lead = wide_rows_then_column(wrap, x);
                        let whole = term(cols, 4, &format!("{lead}{base}{run}"));
                        let one_by_one = term(cols, 4, &format!("{lead}{base}\x1b[m{apart}"));
                        let what =
                            format!("{base:?} and {len} marks, {cols} columns, from column {x}, autowrap {wrap}");
                        assert_same_screen(&whole, &one_by_one, &what);
                    }
                }
            }
        }
    }
}

#[test]
fn every_zero_width_character_joins_in_a_run_as_it_joins_alone() {
    // Every scalar value the width table gives no width, in runs of 1 to 6 after a letter and
    // after a wide character (runs long enough to pass a cluster's 64 bytes among them),
    // against the same characters each sent alone.
    let marks: Vec<char> =
        (0..=0x10_ffffu32).filter_map(char::from_u32).filter(|&c| super::text::cell_width(c) == Some(0)).collect();
    assert!(marks.len() > 2000, "{} zero-width characters", marks.len());
    let (mut at, mut k) = (0, 0);
    while at < marks.len() {
        let run = &marks[at..(at + 1 + k % 6).min(marks.len())];
        at += run.len();
        k += 1;
        let run = if k % 3 == 0 { run.repeat(8) } else { run.to_vec() };
        let base = if k % 2 == 0 { "a" } else { "字" };
        let whole: String = run.iter().collect();
        let apart: String = run.iter().map(|m| format!("{m}\x1b[m")).collect();
        let a = term(8, 2, &format!("x{base}{whole}y"));
        let b = term(8, 2, &format!("x{base}\x1b[m{apart}y"));
        assert_same_screen(&a, &b, &format!("{base} and {:?}", run.iter().map(|&c| c as u32).collect::<Vec<_>>()));
    }
}

#[test]
fn a_run_of_marks_makes_one_cluster_and_the_same_run_again_none() {
    let mut t = Terminal::new(80, 24);
    t.feed("a\u{323}\u{302}\u{301}".as_bytes());
    assert_eq!(t.screen().interned_lens().1, 1, "one cluster for three marks");
    // Decomposed Vietnamese: the same stacked vowel again and again (on one row: marks that
    // follow a character in the last column are joined one at a time).
    for _ in 0..30 {
        t.feed("e\u{323}\u{302} ".as_bytes());
    }
    assert_eq!(t.screen().interned_lens().1, 2);
    assert_eq!(t.screen().row_text(0), format!("a\u{323}\u{302}\u{301}{}", "e\u{323}\u{302} ".repeat(30).trim_end()));
}

#[test]
fn invalid_utf8_prints_replacement_characters() {
    let mut t = Terminal::new(10, 1);
    t.feed(b"a\xffb");
    assert_eq!(t.screen().row_text(0), "a\u{fffd}b");
}

#[test]
fn irm_inserts_instead_of_overwriting() {
    let t = term(6, 1, "abcd\x1b[1G\x1b[4hXY\x1b[4lZ");
    assert_eq!(lines(&t), ["XYZbcd"]);
}

#[test]
fn rep_repeats_the_last_graphic_character() {
    let t = term(10, 1, "x\x1b[3b");
    assert_eq!(lines(&t), ["xxxx"]);
    let t = term(10, 1, "字\x1b[2b");
    assert_eq!(lines(&t), ["字字字"]);
}

#[test]
fn rep_repeats_only_a_character_printed_just_before_it_as_xterm_does() {
    // XTerm 379 forgets the character at every control, escape sequence or string, and after
    // REP itself: vttest's REP screen (11.7.2) draws a diagonal of "++" with `+ CSI b CSI 10 b`.
    assert_eq!(lines(&term(20, 1, "+\x1b[b\x1b[10b")), ["++"]);
    assert_eq!(lines(&term(20, 1, " \x1b[1b+\x1b[b\x1b[10b")), ["  ++"]);
    // Anything between the character and REP: a control, ESC, CSI (SGR too), OSC, DCS.
    for between in ["\r", "\x08", "\x1b7", "\x1b[C", "\x1b[1m", "\x1b[m", "\x1b]2;t\x07", "\x1bP$qm\x1b\\", "\x7f"] {
        let t = term(20, 1, &format!("x{between}\x1b[3b"));
        assert_eq!(t.screen().row_text(0).matches('x').count(), 1, "{between:?}");
    }
    // Whole lines (the flood path) end in CR LF: nothing to repeat after them.
    let t = term(20, 3, "\r\n\r\nabc\r\ndef\r\n\x1b[3b");
    assert_eq!(lines(&t), ["abc", "def", ""]);
    // Split anywhere, the same.
    let stream = b"ab\x1b[2b\x1b[2bc\x1b[1b";
    for cut in 0..stream.len() {
        let mut t = Terminal::with_scrollback(20, 1, 0);
        t.feed(&stream[..cut]);
        t.feed(&stream[cut..]);
        assert_eq!(lines(&t), ["abbbcc"], "cut at {cut}");
    }
}

#[test]
fn vt52_mode_takes_the_vt52s_escape_sequences_until_esc_lt() {
    // CSI ? 2 l (DECANM reset) enters VT52 mode, as in xterm; ESC < leaves it.
    let vt52 = "\x1b[?2l";
    // ESC Y row col (each plus 32), ESC A/B/C/D, ESC H, ESC J and ESC K.
    let t = term(10, 4, &format!("{vt52}\x1bY\"%x\x1bAy\x1bB\x1bB\x1bDz\x1bC\x1bCw"));
    assert_eq!(lines(&t), ["", "      y", "     x", "      z  w"]);
    let t = term(6, 3, &format!("abcdef\r\nghijkl\r\nmnopqr{vt52}\x1bY!\"\x1bK\x1bH\x1bC\x1bJ"));
    assert_eq!(lines(&t), ["a", "", ""]);
    // ESC I at the top scrolls down; ESC Z answers ESC / Z.
    let mut t = term(6, 3, &format!("top{vt52}\x1bH\x1bIx\x1bZ"));
    assert_eq!(lines(&t), ["x", "top", ""]);
    assert_eq!(t.take_replies(), b"\x1b/Z");
    // CSI, OSC and DCS are not recognised: ESC and the next byte are ignored, the rest prints.
    let t = term(20, 2, &format!("{vt52}\x1b[2J\x1b]0;t\x07|"));
    assert_eq!(lines(&t), ["2J0;t|", ""]);
    // ESC < goes back to ANSI mode: CSI works again.
    let t = term(20, 2, &format!("{vt52}\x1b<\x1b[2;3Hx"));
    assert_eq!(lines(&t), ["", "  x"]);
    // A position past the screen stops at its edge, as in XTerm 379; a control taken as a
    // position counts from -32 and stops at the first row or column.
    let t = term(10, 4, &format!("\x1b[3;4H{vt52}\x1bY~%a\x1bY\"~b\x1bY\x01\x01c"));
    assert_eq!(lines(&t), ["c", "", "         b", "     a"]);
    // Split at every byte, the same.
    let stream = format!("{vt52}\x1bY\"%x\x1bFa\x1bGa\x1b<\x1b[1;1Hy");
    let whole = term(10, 4, &stream);
    for cut in 0..stream.len() {
        let mut t = Terminal::with_scrollback(10, 4, 0);
        t.feed(&stream.as_bytes()[..cut]);
        t.feed(&stream.as_bytes()[cut..]);
        assert_same_screen(&t, &whole, &format!("cut at {cut}"));
    }
}

#[test]
fn decrqm_reports_ansi_mode_as_set() {
    // DECANM (?2): set outside VT52 mode, as xterm answers (in VT52 mode CSI is not read).
    let mut t = term(10, 2, "\x1b[?2$p\x1b[?2l\x1b[?2$p\x1b<\x1b[?2$p");
    assert_eq!(t.take_replies(), b"\x1b[?2;1$y\x1b[?2;1$y");
}

#[test]
fn vt52_mode_starts_from_reset_modes_and_esc_lt_restores_them() {
    // Entering saves and resets autowrap, origin, insert and newline modes, the pen and the
    // character sets (xterm); ESC < restores them.
    let t = term(4, 3, "\x1b[?2labcdef\x1b<");
    assert_eq!(lines(&t), ["abcf", "", ""], "no autowrap in VT52 mode");
    let t = term(4, 3, "\x1b[?2l\x1b<abcdef");
    assert_eq!(lines(&t), ["abcd", "ef", ""], "autowrap back after ESC <");
    let t = term(4, 3, "\x1b[?7l\x1b[?2l\x1b<abcdef");
    assert_eq!(lines(&t), ["abcf", "", ""], "autowrap stays off when it was off");
    let t = term(8, 2, "\x1b[4h\x1b[?2lab\x1bHX\x1b<\x1b[1;1HY");
    assert_eq!(lines(&t), ["YXb", ""], "insert mode off in VT52 mode, back after");
    let t = term(8, 2, "\x1b[1;31m\x1b[?2lx\x1b<y");
    let (x, y) = (pen_style(&t, 0, 0), pen_style(&t, 0, 1));
    assert_eq!((x.fg, y.fg), (Color::Default, Color::Indexed(1)));
    assert!(!x.attrs.has(Attrs::BOLD) && y.attrs.has(Attrs::BOLD));
    // ESC F invokes the VT52's graphics (not DEC Special Graphics), ESC G leaves them, and a
    // set designated before VT52 mode is back after it.
    let t = term(20, 1, "\x1b(0\x1b[?2l\x1bFafgq~\x1bGq\x1b<q");
    assert_eq!(lines(&t), ["\u{25ae}°±\u{23bc}¶q─"]);
    let t = term(40, 1, "\x1b[?2l\x1bF_`abcdefghijklmnopqrstuvwxyz{|}~");
    assert_eq!(lines(&t), ["  \u{25ae}\u{215f}   °±→…÷↓⎺⎺⎻⎻⎼⎼⎽⎽₀₁₂₃₄₅₆₇₈₉¶"]);
    // ESC c (RIS) is not a VT52 sequence: ignored, as in xterm.
    let t = term(20, 1, "\x1b[?2l\x1bc\x1b[2Cx");
    assert_eq!(lines(&t), ["2Cx"]);
}

#[test]
fn sl_and_sr_shift_the_scroll_region_sideways_within_the_margins() {
    // CSI Ps SP @ (SL) and CSI Ps SP A (SR), ECMA-48, as xterm does them: every row between
    // the top and bottom margins, from the left margin to the right one; the cursor stays.
    let rows = "\x1b[1;1Habcdef\x1b[2;1Hghijkl\x1b[3;1Hmnopqr";
    let t = term(6, 3, &format!("{rows}\x1b[2;3H\x1b[2 @"));
    assert_eq!(lines(&t), ["cdef", "ijkl", "opqr"]);
    assert_eq!(cur(&t), (1, 2));
    let t = term(6, 3, &format!("{rows}\x1b[2;3H\x1b[ A"));
    assert_eq!(lines(&t), [" abcde", " ghijk", " mnopq"]);
    // Inside top/bottom and left/right margins only; nothing while the cursor is outside.
    let t = term(6, 3, &format!("{rows}\x1b[2;3r\x1b[?69h\x1b[2;5s\x1b[2;2H\x1b[ @"));
    assert_eq!(lines(&t), ["abcdef", "gijk l", "mopq r"]);
    let t = term(6, 3, &format!("{rows}\x1b[2;3r\x1b[?69h\x1b[2;5s\x1b[1;1H\x1b[ @"));
    assert_eq!(lines(&t), ["abcdef", "ghijkl", "mnopqr"]);
    // A count past the region's width blanks it.
    let t = term(6, 3, &format!("{rows}\x1b[9 A"));
    assert_eq!(lines(&t), ["", "", ""]);
    // A pending wrap stays pending.
    let t = term(6, 2, "abcdef\x1b[ @X");
    assert_eq!(lines(&t), ["bcdef", "X"]);
}

#[test]
fn decic_and_decdc_insert_and_delete_columns_at_the_cursor() {
    // CSI Ps ' } (DECIC) and CSI Ps ' ~ (DECDC), VT420: the column scroll from the cursor's
    // column to the right margin, on every row of the scroll region.
    let rows = "\x1b[1;1Habcdef\x1b[2;1Hghijkl\x1b[3;1Hmnopqr";
    let t = term(6, 3, &format!("{rows}\x1b[3;3H\x1b[2'}}"));
    assert_eq!(lines(&t), ["ab  cd", "gh  ij", "mn  op"]);
    assert_eq!(cur(&t), (2, 2));
    let t = term(6, 3, &format!("{rows}\x1b[1;2H\x1b['~"));
    assert_eq!(lines(&t), ["acdef", "gijkl", "mopqr"]);
    let t = term(6, 3, &format!("{rows}\x1b[1;3r\x1b[?69h\x1b[1;4s\x1b[1;2H\x1b['~"));
    assert_eq!(lines(&t), ["acd ef", "gij kl", "mop qr"]);
}

#[test]
fn decbi_and_decfi_move_the_cursor_or_scroll_columns_at_a_margin() {
    // ESC 6 (DECBI) and ESC 9 (DECFI), VT420: a column back or forward; at the left (right)
    // margin the region's columns move right (left) instead.
    let rows = "\x1b[1;1Habcdef\x1b[2;1Hghijkl";
    let t = term(6, 2, &format!("{rows}\x1b[1;3H\x1b6"));
    assert_eq!((lines(&t), cur(&t)), (vec!["abcdef".to_string(), "ghijkl".into()], (0, 1)));
    let t = term(6, 2, &format!("{rows}\x1b[1;1H\x1b6"));
    assert_eq!((lines(&t), cur(&t)), (vec![" abcde".to_string(), " ghijk".into()], (0, 0)));
    let t = term(6, 2, &format!("{rows}\x1b[1;6H\x1b9"));
    assert_eq!((lines(&t), cur(&t)), (vec!["bcdef".to_string(), "hijkl".into()], (0, 5)));
    let t = term(6, 2, &format!("{rows}\x1b[?69h\x1b[2;4s\x1b[1;4H\x1b9"));
    assert_eq!((lines(&t), cur(&t)), (vec!["acd ef".to_string(), "gij kl".into()], (0, 3)));
}

// ---- C0 controls ----

#[test]
fn reverse_wraparound_backs_into_the_line_that_wrapped() {
    // "abcdefg" on 5 columns wraps; at column 0 of the second row BS goes to the last column
    // of the first.
    let t = term(5, 3, "abcdefg\r\x1b[?45h\x08X");
    assert_eq!(lines(&t), ["abcdX", "fg", ""]);
    // Without ?45, or without autowrap, BS stops at column 0.
    let t = term(5, 3, "abcdefg\r\x08X");
    assert_eq!(lines(&t), ["abcde", "Xg", ""]);
    let t = term(5, 3, "abcdefg\r\x1b[?45h\x1b[?7l\x08X");
    assert_eq!(lines(&t), ["abcde", "Xg", ""]);
    // A line above that did not wrap stops it.
    let t = term(5, 3, "ab\r\ncd\r\x1b[?45h\x08X");
    assert_eq!(lines(&t), ["ab", "Xd", ""]);
    // A pending wrap takes the first step: the cursor stays in the last column.
    let t = term(5, 3, "abcde\x1b[?45h\x08X");
    assert_eq!(lines(&t), ["abcdX", "", ""]);
    // CUB counts go on across wrapped lines.
    let t = term(5, 3, "abcdefghijk\x1b[?45h\x1b[8DX");
    assert_eq!(lines(&t), ["abcXe", "fghij", "k"]);
}

#[test]
fn extended_reverse_wraparound_wraps_regardless_and_from_top_to_bottom() {
    let t = term(5, 3, "ab\r\ncd\r\x1b[?1045h\x08X");
    assert_eq!(lines(&t), ["ab  X", "cd", ""]);
    let t = term(3, 2, "\x1b[?1045h\x08X");
    assert_eq!(lines(&t), ["", "  X"]);
    // Whole laps of the screen change nothing, however large the count.
    let t = term(3, 2, "\x1b[2;2H\x1b[?1045h\x1b[60000DX");
    assert_eq!(lines(&t), ["", " X"]);
    let t = term(3, 2, "\x1b[2;2H\x1b[?1045h\x1b[60002DX");
    assert_eq!(lines(&t), ["  X", ""]);
}

#[test]
fn decrqm_reports_reverse_wraparound_as_it_is() {
    let mut t = term(5, 1, "\x1b[?45$p\x1b[?45h\x1b[?45$p\x1b[?1045$p");
    assert_eq!(t.take_replies(), b"\x1b[?45;2$y\x1b[?45;1$y\x1b[?1045;2$y");
}

#[test]
fn bs_moves_left_and_stops_at_column_0() {
    let t = term(10, 1, "ab\x08\x08\x08c");
    assert_eq!(lines(&t), ["cb"]);
}

#[test]
fn cr_lf_and_lnm() {
    let t = term(10, 3, "ab\ncd\r\nef");
    assert_eq!(lines(&t), ["ab", "  cd", "ef"]);
    let t = term(10, 3, "\x1b[20hab\ncd");
    assert_eq!(lines(&t), ["ab", "cd", ""]);
}

#[test]
fn lf_at_the_bottom_scrolls_into_scrollback() {
    let t = term(5, 2, "1\r\n2\r\n3");
    assert_eq!(lines(&t), ["2", "3"]);
    assert_eq!(t.screen().history_len(), 1);
    assert_eq!(t.screen().cells_text(&t.screen().history_row(0)), "1");
}

#[test]
fn ht_goes_to_default_stops_every_8_columns() {
    let t = term(20, 1, "a\tb\tc\t\t\td");
    assert_eq!(lines(&t), ["a       b       c  d"]);
}

#[test]
fn so_si_switch_to_g1_and_back() {
    let t = term(10, 1, "\x1b)0a\x0eq\x0fq");
    assert_eq!(lines(&t), ["a─q"]);
}

// ---- ESC sequences ----

#[test]
fn ind_ri_nel() {
    // a, IND (down, same column), b, NEL (next line, column 0), c, RI (up): d lands on b.
    let t = term(5, 3, "a\x1bDb\x1bEc\x1bMd");
    assert_eq!(lines(&t), ["a", " d", "c"]);
    // RI at the top scrolls down.
    let t = term(5, 2, "a\x1bMb");
    assert_eq!(lines(&t), [" b", "a"]);
}

#[test]
fn hts_and_tbc_set_and_clear_stops() {
    let t = term(20, 1, "\x1b[3g\x1b[4G\x1bH\x1b[1G\ta");
    assert_eq!(lines(&t), ["   a"]);
    let t = term(20, 1, "\x1b[9G\x1b[0g\x1b[1G\ta");
    assert_eq!(lines(&t), ["                a"]);
}

#[test]
fn decsc_decrc_restore_position_attributes_and_charsets() {
    let t = term(10, 2, "\x1b[2;3H\x1b[31m\x1b(0\x1b7\x1b[H\x1b[0m\x1b(Bx\x1b8q");
    assert_eq!(lines(&t), ["x", "  ─"]);
    assert_eq!(pen_style(&t, 1, 2).fg, Color::Indexed(1));
}

#[test]
fn decrc_without_decsc_goes_home_with_default_attributes() {
    let t = term(10, 2, "\x1b[2;3H\x1b[1m\x1b8a");
    assert_eq!(lines(&t), ["a", ""]);
    assert!(!pen_style(&t, 0, 0).attrs.has(Attrs::BOLD));
}

#[test]
fn decaln_fills_with_e_resets_the_margins_and_homes() {
    let setup = "\x1b[2;3r\x1b[?69h\x1b[2;3s\x1b[3;3H";
    let t = term(4, 4, setup);
    assert_eq!(t.screen().margins(), (1, 2, 1, 2), "the margins this test resets were set");
    let t = term(4, 4, &format!("{setup}\x1b#8"));
    assert_eq!(lines(&t), ["EEEE"; 4]);
    assert_eq!(cur(&t), (0, 0));
    assert_eq!(t.screen().margins(), (0, 3, 0, 3));
}

#[test]
fn decaln_resets_origin_mode_and_the_pens_attributes_but_not_its_colours_as_xterm() {
    // XTerm 379 (scripts/xterm-screens.sh decaln-resets-origin-mode): after DECALN, DECSTBM
    // homes the cursor to the page's corner, not the region's.
    let t = term(10, 12, "\x1b[5;10r\x1b[?6h\x1b#8\x1b[9;rX");
    assert!(!t.screen().modes().origin);
    assert_eq!(lines(&t)[0], "XEEEEEEEEE");
    // xterm's resetRendition: the SGR attributes go, the colours and DECSCA stay.
    let t = term(10, 2, "\x1b[1;4;7;31m\x1b[1\"q\x1b#8x");
    let s = pen_style(&t, 0, 0);
    assert_eq!(s.fg, Color::Indexed(1));
    assert!(!s.attrs.has(Attrs::BOLD) && !s.attrs.has(Attrs::INVERSE));
    assert_eq!(s.attrs.underline(), Underline::None);
    assert!(s.attrs.has(Attrs::PROTECTED));
}

#[test]
fn ris_clears_screen_and_modes_but_keeps_scrollback() {
    let t = term(5, 2, "1\r\n2\r\n3\x1b[?7l\x1b[4h\x1bc");
    assert_eq!(lines(&t), ["", ""]);
    assert_eq!(cur(&t), (0, 0));
    assert!(t.screen().modes().autowrap && !t.screen().modes().insert);
    assert_eq!(t.screen().history_len(), 1);
}

#[test]
fn uk_charset_maps_hash_to_pound() {
    let t = term(5, 1, "\x1b(A#\x1b(B#");
    assert_eq!(lines(&t), ["£#"]);
}

#[test]
fn a_run_of_text_writes_what_its_characters_one_at_a_time_write() {
    // Runs that end before the right edge are written in one step, the others wrap; the
    // reference is each character sent alone (an SGR between them keeps them apart). Every
    // length and start column on screens 1 to 12 wide, with and without autowrap, over wide
    // characters a run half covers.
    let text = "abcdefghijklmnopqrstuvwxyz";
    for cols in 1..=12 {
        for x in 0..cols {
            for len in 1..=cols + 2 {
                for wrap in ["h", "l"] {
                    let lead = wide_rows_then_column(wrap, x);
                    let run = &text[..len];
                    let apart: String = run.chars().map(|c| format!("{c}\x1b[m")).collect();
                    let whole = term(cols, 4, &format!("{lead}{run}"));
                    let one_by_one = term(cols, 4, &format!("{lead}{apart}"));
                    let what = format!("{cols} columns, {len} characters from column {x}, autowrap {wrap}");
                    assert_same_screen(&whole, &one_by_one, &what);
                }
            }
        }
    }
}

#[test]
fn a_run_through_a_set_shows_what_its_characters_sent_in_utf8_show() {
    // Runs through a 94-character set are written cell by cell in one pass; the reference is the
    // same characters sent one by one in UTF-8. Every printable byte, at every start column of
    // screens 1 to 12 wide, with and without autowrap, over wide characters it half covers.
    use super::state::Charset;
    let sets = [
        ("0", Charset::DecSpecial),
        ("A", Charset::Uk),
        ("<", Charset::DecSupplemental),
        (">", Charset::DecTechnical),
        ("K", Charset::German),
        ("=", Charset::Swiss),
        ("%6", Charset::Portuguese),
    ];
    let run: Vec<u8> = (0x20..=0x7e).collect();
    for (designator, set) in sets {
        // The national sets need DECNRCM.
        let designator = format!("\x1b[?42h\x1b({designator}");
        let mapped: String = run.iter().map(|&b| set.map_byte(b)).collect();
        for cols in 1..=12 {
            for x in 0..cols {
                for wrap in ["h", "l"] {
                    let lead = wide_rows_then_column(wrap, x);
                    let through_set =
                        term(cols, 4, &format!("{lead}{designator}{}", std::str::from_utf8(&run).unwrap()));
                    let in_utf8 = term(cols, 4, &format!("{lead}{mapped}"));
                    let what = format!("{set:?}, {cols} columns, from column {x}, autowrap {wrap}");
                    assert_same_screen(&through_set, &in_utf8, &what);
                }
            }
        }
    }
}

#[test]
fn an_unknown_designation_selects_ascii() {
    let t = term(5, 1, "\x1b(0q\x1b(Wq");
    assert_eq!(lines(&t), ["─q"]);
}

#[test]
fn latin1_supplemental_as_a_96_set_maps_gl_from_0x20() {
    // ESC - A designates Latin-1 into G1; SO invokes it into GL: 0x20 is NBSP, 0x41 is U+00C1.
    let t = term(6, 1, "\x1b-A\x0e A~\x0fA");
    assert_eq!(lines(&t), ["\u{a0}Á\u{fe}A"]);
}

/// What XTerm 379 (`-u8`, 80x24, its default VT420 level) shows for the printable bytes 0x21..=0x7E
/// through each national replacement set designated into G0 with DECNRCM set, as its own screen
/// print gave it (`scripts/xterm-screens.sh`).
const XTERM_379_NRCS: [(&str, &str); 12] = [
    ("A", "!\"£$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"),
    ("4", "!\"£$%&'()*+,-./0123456789:;<=>?¾ABCDEFGHIJKLMNOPQRSTUVWXYZĳ½|^_`abcdefghijklmnopqrstuvwxyz¨ƒ¼´"),
    ("C", "!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÅÜ_éabcdefghijklmnopqrstuvwxyzäöåü"),
    ("R", "!\"£$%&'()*+,-./0123456789:;<=>?àABCDEFGHIJKLMNOPQRSTUVWXYZ°ç§^_`abcdefghijklmnopqrstuvwxyzéùè¨"),
    ("Q", "!\"#$%&'()*+,-./0123456789:;<=>?àABCDEFGHIJKLMNOPQRSTUVWXYZâçêî_ôabcdefghijklmnopqrstuvwxyzéùèû"),
    ("K", "!\"#$%&'()*+,-./0123456789:;<=>?§ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ^_`abcdefghijklmnopqrstuvwxyzäöüß"),
    ("Y", "!\"£$%&'()*+,-./0123456789:;<=>?§ABCDEFGHIJKLMNOPQRSTUVWXYZ°çé^_ùabcdefghijklmnopqrstuvwxyzàòèì"),
    ("`", "!\"#$%&'()*+,-./0123456789:;<=>?ÄABCDEFGHIJKLMNOPQRSTUVWXYZÆØÅÜ_äabcdefghijklmnopqrstuvwxyzæøåü"),
    ("%6", "!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZÃÇÕ^_`abcdefghijklmnopqrstuvwxyzãçõ~"),
    ("Z", "!\"£$%&'()*+,-./0123456789:;<=>?§ABCDEFGHIJKLMNOPQRSTUVWXYZ¡Ñ¿^_`abcdefghijklmnopqrstuvwxyz°ñç~"),
    ("H", "!\"#$%&'()*+,-./0123456789:;<=>?ÉABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÅÜ_éabcdefghijklmnopqrstuvwxyzäöåü"),
    ("=", "!\"ù$%&'()*+,-./0123456789:;<=>?àABCDEFGHIJKLMNOPQRSTUVWXYZéçêîèôabcdefghijklmnopqrstuvwxyzäöüû"),
];

#[test]
fn national_replacement_sets_under_decnrcm_show_what_xterm_shows() {
    let printable: String = (0x21u8..=0x7e).map(char::from).collect();
    for (designator, shown) in XTERM_379_NRCS {
        let t = term(94, 1, &format!("\x1b[?42h\x1b({designator}{printable}"));
        assert_eq!(lines(&t), [shown], "ESC ( {designator}");
    }
    // The other designators of the same sets (xterm's aliases).
    for (alias, designator) in [("5", "C"), ("f", "R"), ("9", "Q"), ("E", "`"), ("6", "`"), ("7", "H")] {
        let a = term(94, 1, &format!("\x1b[?42h\x1b({alias}{printable}"));
        let b = term(94, 1, &format!("\x1b[?42h\x1b({designator}{printable}"));
        assert_eq!(lines(&a), lines(&b), "ESC ( {alias} is ESC ( {designator}");
    }
}

#[test]
fn a_national_set_designated_without_decnrcm_is_ascii_and_one_designated_with_it_stays() {
    let pattern = "#@[\\]{|}~";
    // Without DECNRCM the designation selects ASCII (it replaces DEC graphics in G0), and setting
    // DECNRCM afterwards does not bring the set back.
    let t = term(20, 2, &format!("\x1b(0\x1b(Kq{pattern}\x1b[?42h{pattern}"));
    assert_eq!(lines(&t), ["q#@[\\]{|}~#@[\\]{|}~", ""]);
    // Designated with it, the set stays when DECNRCM is reset, and through DECSTR's reset of the
    // charsets DECNRCM itself stays set; RIS resets it.
    let t = term(30, 2, &format!("\x1b[?42h\x1b(K\x1b[?42l{pattern}\r\n\x1b[?42h\x1b[!p\x1b(K{pattern}"));
    assert_eq!(lines(&t), ["#§ÄÖÜäöüß", "#§ÄÖÜäöüß"]);
    let t = term(30, 1, &format!("\x1b[?42h\x1bc\x1b(K{pattern}"));
    assert_eq!(lines(&t), ["#@[\\]{|}~"]);
    // SO and the single shifts reach a national set in G1..G3.
    let t = term(20, 1, "\x1b[?42h\x1b)K\x1b*Y\x0e[\x0f[\x1bN}}");
    assert_eq!(lines(&t), ["Ä[è}"]);
}

#[test]
fn latin1_acts_as_the_british_set_while_decnrcm_is_set_as_in_xterm() {
    // Each stream and what XTerm 379 showed (`scripts/xterm-screens.sh`, the nrc-latin1 cases):
    // with DECNRCM set, a Latin-1 set in G0..G3 is the British one whenever it was designated,
    // through GL (`#` is `£`, letters stay, DEL prints nothing) and through GR (raw bytes are
    // their low seven bits' characters); Latin-1 again once DECNRCM is reset.
    for (stream, shown) in [
        (&b"\x1b[?42h\x1b-A\x0e#a\x7fb\x0f|"[..], "£ab|"),
        (b"\x1b-A\x1b[?42h\x0e#a\x0f|", "£a|"),
        (b"\x1b[?42h\x1b-A\x1b~\xa0\xa3\xe9|", " £i|"),
        (b"\x1b-A\x1b[?42h\x1b~\xa3\xe9|", "£i|"),
        (b"\x1b[?42h\x1b-A\x1b[?42l\x1b~\xa3\xe9|", "£é|"),
        (b"\x1b[?42h\x1b-A\x1b[?42l\x0ea\x7f\x0f|", "áÿ|"),
        // A cursor saved under one setting and restored under the other: the sets act as the
        // mode is now. DECSTR resets the sets and leaves DECNRCM set.
        (b"\x1b-A\x1b[?42h\x1b7\x1b[?42l\x1b8\x0ea\x0f|", "á|"),
        (b"\x1b-A\x1b7\x1b[?42h\x1b8\x0ea\x0f|", "a|"),
        (b"\x1b[?42h\x1b[!p\x1b-A\x0ea\x0f|", "a|"),
    ] {
        let mut t = Terminal::new(10, 1);
        t.feed(stream);
        assert_eq!(lines(&t), [shown], "{stream:?}");
    }
}

#[test]
fn decrqm_reports_decnrcm() {
    let mut t = term(10, 1, "\x1b[?42$p\x1b[?42h\x1b[?42$p");
    assert_eq!(t.take_replies(), b"\x1b[?42;2$y\x1b[?42;1$y");
}

#[test]
fn del_prints_the_last_position_of_a_96_character_set_in_gl_as_xterm_does() {
    // Latin-1 in GL (G1, SO): DEL is its 0x7F, ÿ. Each stream and what XTerm 379 showed.
    for (stream, shown) in [
        ("\x1b-A\x0ea\x7fb\x0f|", "áÿâ|"),
        // Through a single shift to a 96-character set.
        ("\x1b.Aa\x1bN\x7fb|", "aÿb|"),
        // A 94-character set in GL: DEL is nothing.
        ("\x1b)0\x0ea\x7fb\x0f|", "▒␉|"),
        // The 96-character set is in GR only: nothing.
        ("\x1b-A\x1b~a\x7fb|", "ab|"),
        // The last designation was of a 94-character set (xterm decides on it): nothing.
        ("\x1b-A\x0e\x1b*0a\x7fb\x0f|", "áâ|"),
        // It prints as a character: the cursor moves on.
        ("\x1b-A\x0e\x7f\x1b[C\x7f\x0f|", "ÿ ÿ|"),
    ] {
        let t = term(10, 1, stream);
        assert_eq!(lines(&t), [shown], "{stream:?}");
    }
}

#[test]
fn raw_8bit_bytes_are_gr_characters_only_while_gr_holds_a_set() {
    // Each stream and what XTerm 379 showed. By default (ASCII in GR) bytes that are not UTF-8
    // are one replacement character for each maximal subpart.
    for (stream, shown) in [
        (&b"a\xe1\xa0b|"[..], "a\u{fffd}b|"),
        // Latin-1 in G2, which GR holds by default: the bytes are Latin-1.
        (b"\x1b.Aa\xe1\xa0b|", "aá\u{a0}b|"),
        // DEC Special Graphics in GR: the low seven bits through it, ASCII where it has nothing.
        (b"\x1b*0a\xe1\xa0\xc1b|", "a▒ Ab|"),
        // Invoked by LS1R; a raw C1 byte stays a replacement character.
        (b"\x1b-A\x1b~\xa9\x9b|", "©\u{fffd}|"),
        // Valid UTF-8 is decoded first, whatever GR holds.
        (b"\x1b.A\xc3\xa9|", "é|"),
    ] {
        let mut t = Terminal::new(10, 1);
        t.feed(stream);
        assert_eq!(lines(&t), [shown], "{stream:?}");
    }
    // vttest's locking-shift screen: GR's whole half, 0xA0..=0xFF, as raw bytes in a row.
    let mut t = Terminal::new(96, 1);
    t.feed(b"\x1b.A");
    t.feed(&(0xa0..=0xffu8).collect::<Vec<u8>>());
    let latin1: String = (0xa0..=0xffu32).filter_map(char::from_u32).collect();
    assert_eq!(lines(&t), [latin1]);
}

#[test]
fn dec_special_graphics_blank_is_a_plain_space_as_in_xterm() {
    // 0x5F is the set's blank: XTerm 379 shows (and copies) a space, not NBSP.
    let t = term(6, 1, "\x1b(0a_b\x1b(B|");
    assert_eq!(lines(&t), ["▒ ␉|"]);
}

#[test]
fn ls2_ls3_invoke_g2_and_g3_into_gl() {
    let t = term(8, 1, "\x1b*0\x1b+>\x1bnq\x1bo\x3c\x0fq");
    assert_eq!(lines(&t), ["─≤q"]);
}

#[test]
fn ls1r_ls2r_ls3r_invoke_into_gr_the_latin1_half() {
    // Default GR (G2, ASCII) leaves U+00E0..U+00FF as Latin-1.
    let t = term(8, 1, "\u{f1}");
    assert_eq!(lines(&t), ["ñ"]);
    // DEC Special Graphics in G1 invoked into GR: U+00F1 (0x71 + 0x80) is a horizontal line.
    let t = term(8, 1, "\x1b)0\x1b~\u{f1}\x1b}\u{f1}");
    assert_eq!(lines(&t), ["─ñ"]);
    let t = term(8, 1, "\x1b+>\x1b|\u{c4}");
    assert_eq!(lines(&t), ["Δ"]);
}

#[test]
fn dec_supplemental_and_technical_sets() {
    let t = term(10, 1, "\x1b(%5\x57\x41\x24\x1b(>\x44\x61\x7e\x1b(<\x77\x1b(B");
    assert_eq!(lines(&t), ["ŒÁ\u{2426}Δα↓œ"]);
}

#[test]
fn single_shifts_apply_to_gl_only_and_once() {
    let t = term(8, 1, "\x1b+0\x1bOqq\x1bO\u{e9}q");
    assert_eq!(lines(&t), ["─qéq"]);
}

#[test]
fn decsc_saves_the_gr_invocation() {
    let t = term(8, 1, "\x1b)0\x1b~\x1b7\x1b}\x1b8\u{f1}");
    assert_eq!(lines(&t), ["─"]);
}

#[test]
fn ss2_applies_to_one_character() {
    let t = term(5, 1, "\x1b*0\x1bNqq");
    assert_eq!(lines(&t), ["─q"]);
}

// ---- cursor motion ----

#[test]
fn cuu_cud_cuf_cub_default_to_1_and_stop_at_edges() {
    let t = term(10, 5, "\x1b[3;3H\x1b[A\x1b[2B\x1b[C\x1b[3Dx");
    assert_eq!(cur(&t), (3, 1));
    let t = term(10, 5, "\x1b[99A\x1b[99D\x1b[0Cx");
    assert_eq!(lines(&t)[0], " x");
    let t = term(10, 5, "\x1b[99B\x1b[99C");
    assert_eq!(cur(&t), (4, 9));
}

#[test]
fn cuu_and_cud_stop_at_the_margins_when_inside_them() {
    let t = term(5, 6, "\x1b[2;4r\x1b[3;1H\x1b[9A");
    assert_eq!(cur(&t), (1, 0));
    let t = term(5, 6, "\x1b[2;4r\x1b[3;1H\x1b[9B");
    assert_eq!(cur(&t), (3, 0));
    // xterm stops CUU at the top margin whenever the cursor is at or below it, even from
    // below the region; from above the region only the screen edge stops it.
    let t = term(5, 6, "\x1b[2;4r\x1b[6;1H\x1b[9A");
    assert_eq!(cur(&t), (1, 0));
    let t = term(5, 6, "\x1b[3;5r\x1b[2;1H\x1b[9A");
    assert_eq!(cur(&t), (0, 0));
}

#[test]
fn cnl_cpl_move_lines_and_go_to_column_1() {
    let t = term(10, 5, "\x1b[3;5H\x1b[2E");
    assert_eq!(cur(&t), (4, 0));
    let t = term(10, 5, "\x1b[3;5H\x1b[2F");
    assert_eq!(cur(&t), (0, 0));
}

#[test]
fn cha_hpa_vpa_cup_hvp_are_1_based_absolute() {
    assert_eq!(cur(&term(10, 5, "\x1b[5G")), (0, 4));
    assert_eq!(cur(&term(10, 5, "\x1b[6`")), (0, 5));
    assert_eq!(cur(&term(10, 5, "\x1b[3d")), (2, 0));
    assert_eq!(cur(&term(10, 5, "\x1b[3;7H")), (2, 6));
    assert_eq!(cur(&term(10, 5, "\x1b[4;2f")), (3, 1));
    assert_eq!(cur(&term(10, 5, "\x1b[99;99H")), (4, 9));
    assert_eq!(cur(&term(10, 5, "\x1b[5;5H\x1b[H")), (0, 0));
}

#[test]
fn hpr_vpr_move_relative() {
    assert_eq!(cur(&term(10, 5, "\x1b[2;2H\x1b[3a\x1b[2e")), (3, 4));
}

#[test]
fn hpr_vpr_set_the_position_past_the_margins_as_xterm() {
    // xterm does HPR and VPR with CursorSet (XTerm 379, scripts/xterm-screens.sh
    // hpr-past-right-margin, vpr-past-bottom-margin, hpr-vpr-origin, hpr-double-width): they
    // pass the margins that stop CUF and CUD, and a double-width row's half.
    assert_eq!(cur(&term(20, 5, "\x1b[?69h\x1b[1;10s\x1b[1;5H\x1b[12a")), (0, 16));
    assert_eq!(cur(&term(20, 5, "\x1b[?69h\x1b[1;10s\x1b[1;5H\x1b[12C")), (0, 9), "CUF stops");
    assert_eq!(cur(&term(10, 8, "\x1b[1;5r\x1b[3;1H\x1b[4e")), (6, 0));
    assert_eq!(cur(&term(10, 8, "\x1b[1;5r\x1b[3;1H\x1b[4B")), (4, 0), "CUD stops");
    assert_eq!(cur(&term(10, 8, "\x1b[99e\x1b[99a")), (7, 9), "held to the page");
    // In origin mode, held to the right and bottom margins.
    let t = term(30, 12, "\x1b[?69h\x1b[5;20s\x1b[5;10r\x1b[?6h\x1b[1;1H\x1b[30a\x1b[30e");
    assert_eq!(cur(&t), (9, 19));
    // Past a double-width row's half: what is printed there is dropped.
    let t = term(20, 2, "\x1b#6\x1b[1;9H\x1b[3aX");
    assert_eq!((lines(&t)[0].as_str(), cur(&t)), ("", (0, 11)));
}

#[test]
fn decom_makes_positions_relative_to_the_margins() {
    let t = term(10, 6, "\x1b[3;5r\x1b[?6h\x1b[1;1Hx\x1b[9;1Hy");
    assert_eq!(lines(&t), ["", "", "x", "", "y", ""]);
    let mut t = term(10, 6, "\x1b[3;5r\x1b[?6h\x1b[2;4H\x1b[6n");
    assert_eq!(t.take_replies(), b"\x1b[2;4R");
}

#[test]
fn decstbm_under_decom_homes_the_cursor_to_the_regions_top() {
    // vttest's origin-mode screen (menu 2): its bytes, after the DECOM vttest set earlier in
    // the stream. DECSTBM puts the cursor at the home position, which DECOM makes the region's
    // top-left (xterm), so the first line of
    // text lands on the bottom row and CUP 1;1 the row above. tmux homes it to the screen's
    // top instead and draws the first line on row 2.
    let t = term(
        80,
        24,
        "\x1b[?6h\x1b[2J\x1b[23;24r\r\nOrigin mode test. This line should be at the bottom of the screen.\
         \x1b[1;1HThis line should be the one above the bottom of the screen. Push <RETURN>",
    );
    let l = lines(&t);
    assert_eq!(l[23], "Origin mode test. This line should be at the bottom of the screen.");
    assert_eq!(l[22], "This line should be the one above the bottom of the screen. Push <RETURN>");
    assert!(l[..22].iter().all(|r| r.is_empty()), "{l:?}");
    assert_eq!(cur(&t), (22, 73));
}

#[test]
fn vttests_autowrap_screen_mixing_controls_and_text_keeps_the_letters_in_order() {
    // vttest's first autowrap screen (menu 1), byte for byte: letters written at the margins of
    // a scrolling region under DECOM, with pending wraps cancelled or taken by BS, HT, CR, LF
    // and CUP. xterm shows each letter's capital in column 1 and its small letter in column 80,
    // I to Z on rows 3-20 (tmux breaks some of these lines).
    let l = vttest_screen(&[
        "\x1b[?3l\x1b[?3lTest of autowrap, mixing control and print characters.\r\r\n",
        "The left/right margins should have letters in order:\r\r\n",
        "\x1b[3;21r\x1b[?6h\x1b[19;1HA\x1b[19;80Ha\r\n",
        "\x1b[18;80HaB\x1b[19;80HB\x08 b\r\n",
        "\x1b[19;80HC\x08\x08\t\tc\x1b[19;2H\x08C\r\n",
        "\x1b[19;80H\r\n",
        "\x1b[18;1HD\x1b[18;80Hd\x1b[19;1HE\x1b[19;80He\r\n",
        "\x1b[18;80HeF\x1b[19;80HF\x08 f\r\n",
        "\x1b[19;80HG\x08\x08\t\tg\x1b[19;2H\x08G\r\n",
        "\x1b[19;80H\r\n",
        "\x1b[18;1HH\x1b[18;80Hh\x1b[19;1HI\x1b[19;80Hi\r\n",
        "\x1b[18;80HiJ\x1b[19;80HJ\x08 j\r\n",
        "\x1b[19;80HK\x08\x08\t\tk\x1b[19;2H\x08K\r\n",
        "\x1b[19;80H\r\n",
        "\x1b[18;1HL\x1b[18;80Hl\x1b[19;1HM\x1b[19;80Hm\r\n",
        "\x1b[18;80HmN\x1b[19;80HN\x08 n\r\n",
        "\x1b[19;80HO\x08\x08\t\to\x1b[19;2H\x08O\r\n",
        "\x1b[19;80H\r\n",
        "\x1b[18;1HP\x1b[18;80Hp\x1b[19;1HQ\x1b[19;80Hq\r\n",
        "\x1b[18;80HqR\x1b[19;80HR\x08 r\r\n",
        "\x1b[19;80HS\x08\x08\t\ts\x1b[19;2H\x08S\r\n",
        "\x1b[19;80H\r\n",
        "\x1b[18;1HT\x1b[18;80Ht\x1b[19;1HU\x1b[19;80Hu\r\n",
        "\x1b[18;80HuV\x1b[19;80HV\x08 v\r\n",
        "\x1b[19;80HW\x08\x08\t\tw\x1b[19;2H\x08W\r\n",
        "\x1b[19;80H\r\n",
        "\x1b[18;1HX\x1b[18;80Hx\x1b[19;1HY\x1b[19;80Hy\r\n",
        "\x1b[18;80HyZ\x1b[19;80HZ\x08 z\r\n",
        "\x1b[?6l\x1b[r\x1b[22;1HPush <RETURN>",
    ]);
    assert_eq!(l[0], "Test of autowrap, mixing control and print characters.");
    assert_eq!(l[1], "The left/right margins should have letters in order:");
    for (y, c) in (2..20).zip('I'..='Z') {
        assert_eq!(l[y], format!("{c}{}{}", " ".repeat(78), c.to_ascii_lowercase()), "row {y}: {l:?}");
    }
    assert_eq!(l[20], "");
    assert_eq!(l[21], "Push <RETURN>");
}

#[test]
fn vttests_protected_areas_screen_leaves_a_solid_box() {
    // vttest's DECSCA screen (menu 11.1.2.4), byte for byte: a box of protected `*`s, then
    // unprotected `*`s around it that DECSED (CSI ? J, all three forms) and DECSEL (CSI ? K)
    // must erase while sparing the box. xterm ends with the solid box alone; tmux, which has
    // no protected areas, keeps every `*`.
    let l = vttest_screen(&[
        "\x1b[2J\x1b[1\"q\x1b[5;21H*****************************************",
        "\x1b[6;21H*****************************************",
        "\x1b[7;21H*****************************************",
        "\x1b[8;21H*****************************************",
        "\x1b[9;21H*****************************************",
        "\x1b[10;21H*****************************************",
        "\x1b[11;21H*****************************************",
        "\x1b[12;21H*****************************************",
        "\x1b[13;21H*****************************************",
        "\x1b[14;21H*****************************************",
        "\x1b[15;21H*****************************************",
        "\x1b[16;21H*****************************************",
        "\x1b[17;21H*****************************************\x1b[0\"q\x1b[1;18H*",
        "\x1b[1;64H*\x1b[2;19H*\x1b[2;63H*\x1b[3;20H*\x1b[3;62H*\x1b[4;21H*\x1b[4;61H*",
        "\x1b[18;21H*\x1b[18;61H*\x1b[19;20H*\x1b[19;62H*\x1b[20;19H*\x1b[20;63H*",
        "\x1b[21;18H*\x1b[21;64H*\x1b[22;17H*\x1b[22;65H*\x1b[23;16H*\x1b[23;66H*",
        "\x1b[11;39H\x1b[?0J\x1b[1;19H*\x1b[1;63H*\x1b[2;20H*\x1b[2;62H*\x1b[3;21H*",
        "\x1b[3;61H*\x1b[4;22H*\x1b[4;60H*\x1b[18;22H*\x1b[18;60H*\x1b[19;21H*",
        "\x1b[19;61H*\x1b[20;20H*\x1b[20;62H*\x1b[21;19H*\x1b[21;63H*\x1b[22;18H*",
        "\x1b[22;64H*\x1b[23;17H*\x1b[23;65H*\x1b[11;39H\x1b[?1J\x1b[1;20H*\x1b[1;62H*",
        "\x1b[2;21H*\x1b[2;61H*\x1b[3;22H*\x1b[3;60H*\x1b[4;23H*\x1b[4;59H*\x1b[18;23H*",
        "\x1b[18;59H*\x1b[19;22H*\x1b[19;60H*\x1b[20;21H*\x1b[20;61H*\x1b[21;20H*",
        "\x1b[21;62H*\x1b[22;19H*\x1b[22;63H*\x1b[23;18H*\x1b[23;64H*\x1b[11;39H\x1b[?2J",
        "\x1b[7;62H*\x1b[13;62H*\x1b[7;63H*\x1b[13;63H*\x1b[7;64H*\x1b[13;64H*\x1b[7;65H*",
        "\x1b[13;65H*\x1b[7;66H*\x1b[13;66H*\x1b[7;67H*\x1b[13;67H*\x1b[7;68H*",
        "\x1b[13;68H*\x1b[7;69H*\x1b[13;69H*\x1b[7;70H*\x1b[13;70H*\x1b[7;71H*",
        "\x1b[13;71H*\x1b[7;72H*\x1b[13;72H*\x1b[7;73H*\x1b[13;73H*\x1b[7;74H*",
        "\x1b[13;74H*\x1b[7;75H*\x1b[13;75H*\x1b[7;76H*\x1b[13;76H*\x1b[7;77H*",
        "\x1b[13;77H*\x1b[7;78H*\x1b[13;78H*\x1b[7;79H*\x1b[13;79H*\x1b[7;80H*",
        "\x1b[13;80H*\x1b[7;81H*\x1b[13;81H*\x1b[13;41H\x1b[?0K\x1b[7;2H*\x1b[13;2H*",
        "\x1b[7;3H*\x1b[13;3H*\x1b[7;4H*\x1b[13;4H*\x1b[7;5H*\x1b[13;5H*\x1b[7;6H*",
        "\x1b[13;6H*\x1b[7;7H*\x1b[13;7H*\x1b[7;8H*\x1b[13;8H*\x1b[7;9H*\x1b[13;9H*",
        "\x1b[7;10H*\x1b[13;10H*\x1b[7;11H*\x1b[13;11H*\x1b[7;12H*\x1b[13;12H*\x1b[7;13H*",
        "\x1b[13;13H*\x1b[7;14H*\x1b[13;14H*\x1b[7;15H*\x1b[13;15H*\x1b[7;16H*",
        "\x1b[13;16H*\x1b[7;17H*\x1b[13;17H*\x1b[7;18H*\x1b[13;18H*\x1b[7;19H*",
        "\x1b[13;19H*\x1b[7;20H*\x1b[13;20H*\x1b[13;41H\x1b[?1K\x1b[7;41H\x1b[?2K",
        "\x1b[21;1H",
        "\x1b[0JIf your terminal supports DEC protected areas (DECSCA, DECSED, DECSEL),\r\r\n",
        "there will be an solid box made of *'s in the middle of the screen.\r\r\n",
        "Push <RETURN>",
    ]);
    let solid = format!("{}{}", " ".repeat(20), "*".repeat(41));
    for (y, row) in l.iter().enumerate().take(20) {
        let want = if (4..17).contains(&y) { solid.as_str() } else { "" };
        assert_eq!(row, want, "row {y}: {l:?}");
    }
    assert_eq!(l[20], "If your terminal supports DEC protected areas (DECSCA, DECSED, DECSEL),");
    assert_eq!(l[21], "there will be an solid box made of *'s in the middle of the screen.");
    assert_eq!(l[22], "Push <RETURN>");
}

#[test]
fn cht_and_cbt_move_by_tab_stops() {
    assert_eq!(cur(&term(30, 1, "\x1b[2I")), (0, 16));
    assert_eq!(cur(&term(30, 1, "\x1b[20G\x1b[2Z")), (0, 8));
    assert_eq!(cur(&term(30, 1, "\x1b[5G\x1b[9Z")), (0, 0));
}

// ---- erasing ----

#[test]
fn el_erases_right_left_and_whole_line() {
    let base = "abcdef\x1b[1;3H";
    assert_eq!(lines(&term(6, 1, &format!("{base}\x1b[K"))), ["ab"]);
    assert_eq!(lines(&term(6, 1, &format!("{base}\x1b[1K"))), ["   def"]);
    assert_eq!(lines(&term(6, 1, &format!("{base}\x1b[2K"))), [""]);
}

#[test]
fn ed_erases_below_above_all_and_scrollback() {
    let base = "aa\r\nbb\r\ncc\x1b[2;2H";
    assert_eq!(lines(&term(2, 3, &format!("{base}\x1b[J"))), ["aa", "b", ""]);
    assert_eq!(lines(&term(2, 3, &format!("{base}\x1b[1J"))), ["", "", "cc"]);
    assert_eq!(lines(&term(2, 3, &format!("{base}\x1b[2J"))), ["", "", ""]);
    let t = term(2, 2, "1\r\n2\r\n3\x1b[3J");
    assert_eq!(t.screen().history_len(), 0);
    assert_eq!(lines(&t), ["2", "3"]);
}

#[test]
fn erase_uses_the_current_background_colour() {
    let t = term(4, 1, "\x1b[44m\x1b[2K");
    assert_eq!(pen_style(&t, 0, 3).bg, Color::Indexed(4));
    assert_eq!(pen_style(&t, 0, 3).fg, Color::Default);
}

#[test]
fn decsed_and_decsel_spare_protected_cells() {
    let t = term(6, 2, "\x1b[1\"qab\x1b[0\"qcd\r\nxy\x1b[?2J");
    assert_eq!(lines(&t), ["ab", ""]);
    let t = term(6, 1, "\x1b[1\"qab\x1b[0\"qcd\x1b[?2K");
    assert_eq!(lines(&t), ["ab"]);
    // ED ignores protection.
    let t = term(6, 1, "\x1b[1\"qab\x1b[2J");
    assert_eq!(lines(&t), [""]);
    // A selective erase of the whole screen that finds nothing protected leaves the pen
    // protecting: what is written next is spared by the next one (xterm's `do_erase_display`
    // turns its protected mode off there, and erases it; see the README's "Protection").
    let t = term(6, 1, "\x1b[1\"q\x1b[?0Ju\x1b[?1J");
    assert_eq!(lines(&t), ["u"]);
}

#[test]
fn ech_erases_without_moving_the_cursor() {
    let t = term(6, 1, "abcdef\x1b[2G\x1b[3X");
    assert_eq!(lines(&t), ["a   ef"]);
    assert_eq!(cur(&t), (0, 1));
}

#[test]
fn a_guarded_area_is_kept_by_ed_el_and_ech_where_decsca_protection_is_not() {
    // SPA (ESC V) .. EPA (ESC W): every erase but the rectangular ones keeps it (XTerm 379).
    for erase in ["\x1b[2J", "\x1b[2K", "\x1b[1;1H\x1b[8X", "\x1b[?2J", "\x1b[1;8H\x1b[1K"] {
        let t = term(8, 2, &format!("\x1bVab\x1bWcd{erase}"));
        assert_eq!(lines(&t), ["ab", ""], "{erase:?}");
    }
    let t = term(8, 1, "\x1bVab\x1bWcd\x1b[1;1;1;8$z");
    assert_eq!(lines(&t), [""], "DECERA erases a guarded area");
    let t = term(8, 1, "\x1bVab\x1bWcd\x1b[1;1;1;8${");
    assert_eq!(lines(&t), [""], "DECSERA keeps only what DECSCA protected");
    // DECSCA's protection after a guarded area: ED erases everything again.
    let t = term(8, 1, "\x1bVab\x1bW\x1b[0\"qcd\x1b[2J");
    assert_eq!(lines(&t), [""]);
    // DECSTR ends protection: even the selective erases erase what was protected before it.
    for reset in ["\x1bVab\x1bWcd\x1b[!p\x1b[2J", "\x1b[1\"qab\x1b[0\"qcd\x1b[!p\x1b[?2J"] {
        let t = term(8, 1, reset);
        assert_eq!(lines(&t), [""], "{reset:?}");
    }
}

#[test]
fn a_protected_wide_character_a_selective_erase_cuts_stays_whole() {
    // The erase starts on the second half of a protected wide character: it stays, both
    // halves (XTerm 379); an unprotected one becomes blanks. Before, the first case left a
    // second half without its first (the screen's invariants broken).
    let t = term(8, 1, "\x1b[1\"q日本\x1b[0\"qab\x1b[1;2H\x1b[?0K");
    assert_eq!(lines(&t), ["日本"]);
    let t = term(8, 1, "\x1b[1\"q日本\x1b[0\"qab\x1b[1;3H\x1b[?1K");
    assert_eq!(lines(&t), ["日本ab"]);
    let t = term(8, 1, "日本\x1b[1\"qab\x1b[0\"q\x1b[1;2H\x1b[?0K");
    assert_eq!(lines(&t), ["    ab"]);
    let t = term(8, 1, "\x1bV日本\x1bWab\x1b[1;4H\x1b[3X");
    assert_eq!(lines(&t), ["日本"]);
    let t = term(8, 1, "\x1b[1\"q日本\x1b[0\"qab\x1b[1;2;1;8${");
    assert_eq!(lines(&t), ["日本"]);
    t.screen().check_integrity().unwrap();
}

#[test]
fn controls_other_than_sgr_with_sub_parameters_are_ignored() {
    // xterm rejects a ':' in any control but SGR: the whole control is ignored.
    let t = term(8, 4, "a\x1b[2:3CX\x1b[3:4HY");
    assert_eq!(lines(&t), ["aXY", "", "", ""]);
    let t = term(8, 2, "abcdef\x1b[1;2H\x1b[2:1@\x1b[2:1J\x1b[?7:1l");
    assert_eq!(lines(&t), ["abcdef", ""]);
    assert!(t.screen().modes().autowrap);
    let t = term(8, 1, "\x1b[4:3mA\x1b[38:2::1:2:3mB");
    assert_eq!(pen_style(&t, 0, 0).attrs.underline(), Underline::Curly);
    assert_eq!(pen_style(&t, 0, 1).fg, Color::Rgb(1, 2, 3));
}

// ---- rectangular areas ----

/// A 6x4 screen whose rows are `abcdef`, `ghijkl`, `mnopqr`, `stuvwx`, then `more`.
fn lettered(more: &str) -> Terminal {
    term(6, 4, &format!("abcdef\r\nghijkl\r\nmnopqr\r\nstuvwx{more}"))
}

#[test]
fn decfra_fills_a_rectangle_with_a_character_in_the_current_rendition() {
    let t = lettered("\x1b[2;4H\x1b[1m\x1b[42;2;2;3;4$x");
    assert_eq!(lines(&t), ["abcdef", "g***kl", "m***qr", "stuvwx"]);
    assert!(pen_style(&t, 1, 1).attrs.has(Attrs::BOLD));
    assert_eq!(cur(&t), (1, 3), "the cursor stays");
    // Defaults: the whole page; 0 is the page's edge too.
    let t = lettered("\x1b[46$x");
    assert_eq!(lines(&t), ["......"; 4]);
    let t = lettered("\x1b[46;0;0;0;2$x");
    assert_eq!(lines(&t), ["..cdef", "..ijkl", "..opqr", "..uvwx"]);
    // Past the page: held to it. Top below bottom: nothing.
    let t = lettered("\x1b[46;3;5;99;99$x");
    assert_eq!(lines(&t), ["abcdef", "ghijkl", "mnop..", "stuv.."]);
    let t = lettered("\x1b[46;3;1;2;6$x\x1b[46;1;4;4;3$x");
    assert_eq!(lines(&t), ["abcdef", "ghijkl", "mnopqr", "stuvwx"]);
    // No parameters, or not a printable character: nothing. Latin-1 and other one-cell
    // characters fill; a wide one does not.
    for not in ["\x1b[$x", "\x1b[127$x", "\x1b[10$x", "\x1b[159$x", "\x1b[12354$x"] {
        assert_eq!(lines(&lettered(not)), ["abcdef", "ghijkl", "mnopqr", "stuvwx"], "{not:?}");
    }
    let t = lettered("\x1b[233;1;1;1;2$x\x1b[937;2;1;2;2$x");
    assert_eq!(lines(&t)[..2], ["ééцdef", "ΩΩijkl"].map(|s| s.replace('ц', "c")));
}

#[test]
fn decfra_counts_from_the_margins_in_origin_mode_and_cuts_wide_characters() {
    let t = lettered("\x1b[2;3r\x1b[?6h\x1b[42;1;1;1;2$x\x1b[?6l");
    assert_eq!(lines(&t), ["abcdef", "**ijkl", "mnopqr", "stuvwx"]);
    // Held to the margins (the bottom here); a missing top or left is offset twice (XTerm 379).
    let t = lettered("\x1b[?69h\x1b[3;5s\x1b[2;3r\x1b[?6h\x1b[42;2;1;9;1$x\x1b[?6l");
    assert_eq!(lines(&t), ["abcdef", "ghijkl", "mn*pqr", "stuvwx"]);
    let t = term(6, 8, "\x1b[3;7r\x1b[?6h\x1b[42;0;1;0;2$x\x1b[?6l");
    assert_eq!(lines(&t), ["", "", "", "", "**", "**", "**", ""]);
    // A copy is cut at the margins too.
    let t = lettered("\x1b[2;3r\x1b[?6h\x1b[1;1;2;2;1;2;5;1$v\x1b[?6l");
    assert_eq!(lines(&t), ["abcdef", "ghijkl", "mnopgh", "stuvwx"]);
    // A wide character half inside becomes blanks, both halves.
    let t = term(8, 1, "日本語\x1b[88;1;2;1;3$x");
    assert_eq!(lines(&t), [" XX 語"]);
    // Through the character sets invoked, as xterm since patch 398 (DEC graphics here).
    let t = term(6, 1, "\x1b(0\x1b[113;1;1;1;3$x\x1b(B");
    assert_eq!(lines(&t), ["───"]);
    t.screen().check_integrity().unwrap();
}

#[test]
fn decera_erases_a_rectangle_and_decsera_spares_what_decsca_protected() {
    let t = lettered("\x1b[2;2;3;4$z");
    assert_eq!(lines(&t), ["abcdef", "g   kl", "m   qr", "stuvwx"]);
    let t = term(8, 1, "\x1b[1\"qab\x1b[0\"qcd\x1b[1;1;1;8$z");
    assert_eq!(lines(&t), [""], "DECERA erases protected characters");
    let t = term(8, 1, "\x1b[1\"qab\x1b[0\"qcd\x1b[1;1;1;8${");
    assert_eq!(lines(&t), ["ab"]);
    let t = term(8, 1, "日本語\x1b[1;2;1;2$z");
    assert_eq!(lines(&t), ["  本語"]);
}

#[test]
fn deccra_copies_a_rectangle_as_if_through_a_buffer() {
    let t = lettered("\x1b[1;1;2;2;1;3;5;1$v");
    assert_eq!(lines(&t), ["abcdef", "ghijkl", "mnopab", "stuvgh"]);
    // Overlapping, down and to the right, then up and to the left.
    let t = lettered("\x1b[1;1;3;4;1;2;2;1$v");
    assert_eq!(lines(&t), ["abcdef", "gabcdl", "mghijr", "smnopx"]);
    let t = lettered("\x1b[2;2;4;5;1;1;1;1$v");
    assert_eq!(lines(&t), ["hijkef", "nopqkl", "tuvwqr", "stuvwx"]);
    // What falls off the page is dropped; a missing destination is the top left corner.
    let t = lettered("\x1b[1;1;2;3;1;4;5;1$v");
    assert_eq!(lines(&t), ["abcdef", "ghijkl", "mnopqr", "stuvab"]);
    let t = lettered("\x1b[3;3;4;4$v");
    assert_eq!(lines(&t), ["opcdef", "uvijkl", "mnopqr", "stuvwx"]);
    // Renditions travel with their characters.
    let t = term(6, 2, "\x1b[1;31mab\x1b[m\x1b[1;1;1;2;1;2;3;1$v");
    assert_eq!(lines(&t), ["ab", "  ab"]);
    assert_eq!(pen_style(&t, 1, 3).fg, Color::Indexed(1));
    assert!(pen_style(&t, 1, 3).attrs.has(Attrs::BOLD));
    // Wide characters: one the source's edge cuts is copied as a blank; one that would hang
    // off the page's edge too; one the destination's edge cuts becomes blanks.
    let t = term(8, 3, "日本語\r\n\r\n字字字\x1b[1;2;1;5;1;2;1;1$v\x1b[1;1;1;2;1;1;8;1$v");
    assert_eq!(lines(&t), ["日本語", " 本", "字字字"]);
    let t = term(8, 3, "日本語\r\n\r\n字字字\x1b[1;3;1;4;1;3;2;1$v");
    assert_eq!(lines(&t), ["日本語", "", " 本 字"]);
    t.screen().check_integrity().unwrap();
}

#[test]
fn deccara_and_decrara_change_attributes_in_the_stream_or_the_rectangle() {
    // The stream (the default): from the first corner to the end of its row, whole rows, then
    // the last row up to the second corner.
    let t = lettered("\x1b[1;3;3;4;1;4$r");
    let bold = |t: &Terminal| -> Vec<String> {
        (0..4)
            .map(|y| (0..6).map(|x| if pen_style(t, y, x).attrs.has(Attrs::BOLD) { 'B' } else { '.' }).collect())
            .collect()
    };
    assert_eq!(bold(&t), ["..BBBB", "BBBBBB", "BBBB..", "......"]);
    assert_eq!(pen_style(&t, 1, 0).attrs.underline(), Underline::Single);
    // DECSACE 2: the rectangle itself.
    let t = lettered("\x1b[2*x\x1b[1;3;3;4;1$r");
    assert_eq!(bold(&t), ["..BB..", "..BB..", "..BB..", "......"]);
    // Clearing (22, 0), and reversing (DECRARA): bold cells lose it, the others gain it.
    let t = lettered("\x1b[2*x\x1b[1;1;4;6;1;7$r\x1b[1;1;1;6;22$r\x1b[2;1;2;6;0$r");
    assert_eq!(bold(&t), ["......", "......", "BBBBBB", "BBBBBB"]);
    assert!(!pen_style(&t, 0, 0).attrs.has(Attrs::BOLD) && pen_style(&t, 0, 0).attrs.has(Attrs::INVERSE));
    assert!(!pen_style(&t, 1, 0).attrs.has(Attrs::INVERSE));
    let t = lettered("\x1b[2*x\x1b[1;1;1;6;1$r\x1b[1;4;2;6;1;4$t");
    assert_eq!(bold(&t), ["BBB...", "...BBB", "......", "......"]);
    assert_eq!(pen_style(&t, 0, 3).attrs.underline(), Underline::Single);
    // Colours stay; no attribute given changes nothing.
    let t = term(4, 1, "\x1b[32mab\x1b[m\x1b[1;1;1;4$r\x1b[1;1;1;4;5$r");
    assert_eq!(pen_style(&t, 0, 0).fg, Color::Indexed(2));
    assert!(pen_style(&t, 0, 0).attrs.has(Attrs::BLINK));
}

#[test]
fn rectangle_operations_hold_the_screens_invariants_at_every_size() {
    // Every operation with corners on, inside and past every edge, on screens from 1x1 to 9x5
    // of wide characters, in the stream and the rectangle extents and in origin mode.
    let ops = ["42;{t};{l};{b};{r}$x", "{t};{l};{b};{r}$z", "{t};{l};{b};{r}${", "{t};{l};{b};{r};1;{l};{t};1$v"];
    let ops2 = ["{t};{l};{b};{r};1;4;7$r", "{t};{l};{b};{r};0;8$t"];
    for cols in 1..=9 {
        for rows in 1..=5 {
            for (t, l, b, r) in [(0, 0, 0, 0), (1, 2, 3, 4), (2, 1, 99, 3), (3, 3, 1, 1), (1, cols, rows, cols)] {
                for op in ops.iter().chain(&ops2) {
                    let op = op
                        .replace("{t}", &t.to_string())
                        .replace("{l}", &l.to_string())
                        .replace("{b}", &b.to_string())
                        .replace("{r}", &r.to_string());
                    for extent in ["", "\x1b[2*x", "\x1b[?69h\x1b[2;3s\x1b[2;3r\x1b[?6h"] {
                        let input = format!("{extent}\x1b[1\"q日本語日本語\x1b[m字字字\x1b[2;2H\x1b[{op}");
                        let t = term(cols, rows, &input);
                        t.screen().check_integrity().unwrap_or_else(|v| panic!("{cols}x{rows} {input:?}: {v}"));
                    }
                }
            }
        }
    }
}

// ---- inserting and deleting ----

#[test]
fn ich_inserts_blanks_and_drops_cells_off_the_end() {
    let t = term(6, 1, "abcdef\x1b[2G\x1b[2@");
    assert_eq!(lines(&t), ["a  bcd"]);
}

#[test]
fn dch_deletes_and_pulls_the_line_left() {
    let t = term(6, 1, "abcdef\x1b[2G\x1b[2P");
    assert_eq!(lines(&t), ["adef"]);
}

#[test]
fn il_dl_work_inside_the_scroll_region_and_go_to_the_left_margin() {
    let t = term(3, 5, "1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r\x1b[3;2H\x1b[L");
    assert_eq!(lines(&t), ["1", "2", "", "3", "5"]);
    assert_eq!(cur(&t), (2, 0));
    let t = term(3, 5, "1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r\x1b[2;1H\x1b[2M");
    assert_eq!(lines(&t), ["1", "4", "", "", "5"]);
    // Outside the region: ignored.
    let t = term(3, 5, "1\r\n2\r\n3\r\n4\r\n5\x1b[2;4r\x1b[5;1H\x1b[L");
    assert_eq!(lines(&t), ["1", "2", "3", "4", "5"]);
}

// ---- scrolling ----

#[test]
fn su_sd_scroll_the_region_without_moving_the_cursor() {
    let t = term(3, 4, "1\r\n2\r\n3\r\n4\x1b[2;3r\x1b[4;1H\x1b[S");
    assert_eq!(lines(&t), ["1", "3", "", "4"]);
    assert_eq!(cur(&t), (3, 0));
    let t = term(3, 4, "1\r\n2\r\n3\r\n4\x1b[2T");
    assert_eq!(lines(&t), ["", "", "1", "2"]);
}

#[test]
fn sd_with_an_explicit_zero_or_more_parameters_is_xterms_mouse_tracking_and_does_not_scroll() {
    // XTerm 379: `CSI 0 T` resets highlight mouse tracking; `CSI Ps ; ... T` starts it.
    for seq in ["\x1b[0T", "\x1b[1;2T", "\x1b[1;1;1;2;3T", "\x1b[;T"] {
        let t = term(3, 2, &format!("d{seq}"));
        assert_eq!(lines(&t), ["d", ""], "{seq:?}");
    }
    for seq in ["\x1b[T", "\x1b[1T"] {
        let t = term(3, 2, &format!("d{seq}"));
        assert_eq!(lines(&t), ["", "d"], "{seq:?}");
    }
}

#[test]
fn decstbm_confines_scrolling_and_homes_the_cursor() {
    let t = term(3, 4, "1\r\n2\r\n3\r\n4\x1b[2;3r");
    assert_eq!(cur(&t), (0, 0));
    let t = term(3, 4, "1\r\n2\r\n3\r\n4\x1b[2;3r\x1b[3;1H\n\nx");
    assert_eq!(lines(&t), ["1", "", "x", "4"]);
    assert_eq!(t.screen().history_len(), 0, "a region below the top row saves nothing");
    // top >= bottom is ignored
    let t = term(3, 4, "\x1b[3;3r");
    assert_eq!(t.screen().margins().0..=t.screen().margins().1, 0..=3);
}

#[test]
fn declrmm_and_decslrm_confine_printing_and_scrolling() {
    let t = term(6, 3, "abcdef\r\nghijkl\r\nmnopqr\x1b[?69h\x1b[2;4s\x1b[3;2H\n");
    assert_eq!(lines(&t), ["ahijef", "gnopkl", "m   qr"]);
    // Text wraps at the right margin back to the left margin.
    let t = term(6, 2, "\x1b[?69h\x1b[2;4s\x1b[1;2HWXYZ");
    assert_eq!(lines(&t), [" WXY", " Z"]);
    // Without DECLRMM, CSI s saves the cursor.
    let t = term(6, 2, "\x1b[2;3H\x1b[s\x1b[H\x1b[ux");
    assert_eq!(lines(&t), ["", "  x"]);
}

// ---- modes ----

#[test]
fn dectcem_decckm_decscnm_and_friends_are_recorded() {
    let t = term(5, 1, "\x1b[?25l\x1b[?1h\x1b[?5h\x1b[?2004h\x1b[?1006h\x1b[?1002h\x1b[?2026h\x1b[5 q");
    let m = t.screen().modes();
    assert!(!m.cursor_visible && m.application_cursor && m.reverse_video && m.bracketed_paste);
    assert!(m.synchronized_output);
    assert_eq!(m.mouse, crate::MouseTracking::ButtonMotion);
    assert_eq!(m.mouse_encoding, crate::MouseEncoding::Sgr);
    assert_eq!(m.cursor_shape, crate::CursorShape::BlinkingBar);
}

#[test]
fn deccolm_clears_the_screen_resets_the_margins_and_homes() {
    let setup = "abc\r\ndef\x1b[2;3r\x1b[?69h\x1b[2;3s\x1b[3;3H";
    let t = term(4, 4, setup);
    assert_eq!(t.screen().margins(), (1, 2, 1, 2), "the margins this test resets were set");
    for mode in ["\x1b[?3h", "\x1b[?3l"] {
        let t = term(4, 4, &format!("{setup}{mode}"));
        assert_eq!(lines(&t), ["", "", "", ""], "{mode:?}");
        assert_eq!(cur(&t), (0, 0));
        assert_eq!(t.screen().margins(), (0, 3, 0, 3));
        assert_eq!(t.screen().cols(), 4, "the size is the host's");
    }
    let mut t = term(4, 4, "\x1b[?3h\x1b[?3$p");
    assert_eq!(t.take_replies(), b"\x1b[?3;1$y");
}

#[test]
fn decncsm_keeps_the_screen_on_deccolm() {
    let t = term(4, 2, "abc\x1b[?95h\x1b[?3h");
    assert_eq!(lines(&t), ["abc", ""]);
    assert_eq!(cur(&t), (0, 0));
}

#[test]
fn deccolm_and_declrmm_make_the_rows_single_size_as_xterm() {
    // XTerm 379 (scripts/xterm-screens.sh dwl-deccolm-ncsm, dwl-declrmm): DECCOLM makes every
    // row single size; setting DECLRMM every row but the bottom one, as DECALN does.
    let setup = "\x1b#6ab\r\n\x1b#3cd\r\n\x1b#6ef";
    let t = term(20, 3, &format!("{setup}\x1b[?95h\x1b[?3h"));
    for y in 0..3 {
        assert_eq!(t.screen().line_size(y), crate::LineSize::Single, "DECCOLM: row {y}");
    }
    assert_eq!(lines(&t), ["ab", "cd", "ef"], "DECNCSM keeps the text");
    // DECLRMM set and DECALN (decaln-bottom-double-row): every row but the bottom one.
    for control in ["\x1b[?69h", "\x1b#8"] {
        let t = term(20, 3, &format!("{setup}{control}"));
        let sizes: Vec<_> = (0..3).map(|y| t.screen().line_size(y)).collect();
        assert_eq!(
            sizes,
            [crate::LineSize::Single, crate::LineSize::Single, crate::LineSize::DoubleWidth],
            "{control:?}"
        );
    }
}

#[test]
fn alternate_screen_1049_saves_the_cursor_and_restores_the_main_screen() {
    let t = term(5, 2, "main\x1b[?1049hALT");
    assert_eq!(lines(&t), ["    A", "LT"]);
    assert!(t.screen().alternate_screen());
    let t = term(5, 2, "main\x1b[?1049hALT\x1b[?1049lx");
    assert_eq!(lines(&t), ["mainx", ""]);
}

#[test]
fn alternate_screen_47_keeps_its_contents_and_1047_clears_on_leaving() {
    let t = term(5, 1, "a\x1b[?47hb\x1b[?47l\x1b[?47h");
    assert_eq!(lines(&t), [" b"]);
    let t = term(5, 1, "a\x1b[?1047hb\x1b[?1047l\x1b[?1047h");
    assert_eq!(lines(&t), [""]);
}

#[test]
fn the_alternate_screen_has_no_scrollback() {
    let t = term(3, 2, "\x1b[?1049h1\r\n2\r\n3\r\n4");
    assert_eq!(t.screen().history_len(), 0);
}

#[test]
fn decrqm_reports_set_reset_and_unknown() {
    let mut t = term(5, 1, "\x1b[?25$p\x1b[?7l\x1b[?7$p\x1b[?9999$p\x1b[4h\x1b[4$p");
    assert_eq!(t.take_replies(), b"\x1b[?25;1$y\x1b[?7;2$y\x1b[?9999;0$y\x1b[4;1$y");
}

#[test]
fn decstr_resets_modes_and_margins_but_keeps_text() {
    let setup = "ab\x1b[?25l\x1b[4h\x1b[2;3r\x1b[?69h\x1b[2;4s\x1b[1m";
    let t = term(5, 4, setup);
    assert_eq!(t.screen().margins(), (1, 2, 1, 3), "the margins this test resets were set");
    let t = term(5, 4, &format!("{setup}\x1b[!p"));
    assert_eq!(lines(&t), ["ab", "", "", ""]);
    let m = t.screen().modes();
    assert!(m.cursor_visible && !m.insert && !m.left_right_margins);
    assert_eq!(t.screen().margins(), (0, 3, 0, 4));
}

// ---- SGR ----

#[test]
fn sgr_sets_and_clears_attributes() {
    let t = term(10, 1, "\x1b[1;2;3;4;5;7;8;9;53mA\x1b[22;23;24;25;27;28;29;55mB\x1b[1mC\x1b[mD");
    let a = pen_style(&t, 0, 0).attrs;
    for bit in [Attrs::BOLD, Attrs::DIM, Attrs::ITALIC, Attrs::BLINK, Attrs::INVERSE, Attrs::HIDDEN, Attrs::STRIKE] {
        assert!(a.has(bit));
    }
    assert_eq!(a.underline(), Underline::Single);
    assert_eq!(pen_style(&t, 0, 1).attrs, Attrs::default());
    assert!(pen_style(&t, 0, 2).attrs.has(Attrs::BOLD));
    assert_eq!(pen_style(&t, 0, 3), crate::Style::default());
}

#[test]
fn sgr_of_one_or_two_parameters_does_what_the_general_walk_does() {
    // One and two plain parameters take a short path; a third parameter the engine ignores (10,
    // the primary font) sends the same values through the general walk. Every pair of values up
    // to 110 but the extended colours (which would take the 10 as their argument), from a pen
    // with attributes and colours set and from the default pen.
    for start in ["\x1b[1;3;4;7;31;42;58;5;9m", ""] {
        let plain = (0..=110u16).filter(|n| !matches!(n, 38 | 48 | 58));
        for a in plain.clone() {
            for b in plain.clone().map(Some).chain([None]) {
                let params = b.map_or(format!("{a}"), |b| format!("{a};{b}"));
                let short = term(2, 1, &format!("{start}\x1b[{params}mx"));
                let walked = term(2, 1, &format!("{start}\x1b[{params};10mx"));
                assert_eq!(pen_style(&short, 0, 0), pen_style(&walked, 0, 0), "SGR {params} after {start:?}");
            }
        }
        let empty = term(2, 1, &format!("{start}\x1b[mx"));
        assert_eq!(pen_style(&empty, 0, 0), pen_style(&term(2, 1, &format!("{start}\x1b[0;10mx")), 0, 0));
    }
}

#[test]
fn the_shortest_sgrs_set_the_pen_as_the_general_parse_does() {
    // `CSI m` and `CSI Ps m` with one or two digits (leading zero or not) go from the parser
    // straight to the pen. The same parameter with a second the engine ignores (10, the primary
    // font) goes the general way, and so does the sequence fed a byte at a time (the state
    // machine). From pens with attributes, colours, a hyperlink and DECSCA protection set (SGR 0
    // keeps the last two), and from the default pen.
    let starts = ["\x1b[1;3;4;7;31;42;58;5;9m\x1b]8;;http://x\x1b\\\x1b[1\"q", "\x1b[2;5;53;38;2;1;2;3;100m", ""];
    let mut forms: Vec<String> = vec![String::new()];
    forms.extend((0..10).map(|d| d.to_string()));
    forms.extend((0..100).map(|n| format!("{n:02}")));
    for start in starts {
        for form in &forms {
            let input = format!("{start}\x1b[{form}mx");
            let short = term(2, 1, &input);
            let general = if form.is_empty() { "0;10".to_string() } else { format!("{form};10") };
            let walked = term(2, 1, &format!("{start}\x1b[{general}mx"));
            let mut stepped = Terminal::with_scrollback(2, 1, 100);
            for b in input.as_bytes() {
                stepped.feed(std::slice::from_ref(b));
            }
            let what = format!("SGR {form:?} after {start:?}");
            assert_eq!(pen_style(&short, 0, 0), pen_style(&walked, 0, 0), "{what}");
            assert_eq!(pen_style(&short, 0, 0), pen_style(&stepped, 0, 0), "{what}, a byte at a time");
        }
    }
}

#[test]
fn sgr_colours_in_every_form() {
    let t = term(12, 1, "\x1b[31;42mA\x1b[91;102mB\x1b[38;5;200;48;2;1;2;3mC\x1b[38:2::4:5:6mD\x1b[38:2:7:8:9mE\x1b[39;49mF\x1b[58:5:3mG\x1b[59mH");
    let s = |x| pen_style(&t, 0, x);
    assert_eq!((s(0).fg, s(0).bg), (Color::Indexed(1), Color::Indexed(2)));
    assert_eq!((s(1).fg, s(1).bg), (Color::Indexed(9), Color::Indexed(10)));
    assert_eq!((s(2).fg, s(2).bg), (Color::Indexed(200), Color::Rgb(1, 2, 3)));
    assert_eq!(s(3).fg, Color::Rgb(4, 5, 6));
    assert_eq!(s(4).fg, Color::Rgb(7, 8, 9));
    assert_eq!((s(5).fg, s(5).bg), (Color::Default, Color::Default));
    assert_eq!(s(6).underline_color, Color::Indexed(3));
    assert_eq!(s(7).underline_color, Color::Default);
}

#[test]
fn sgr_underline_styles() {
    let t = term(10, 1, "\x1b[4:3mA\x1b[21mB\x1b[4:0mC\x1b[4:5mD");
    let u = |x| pen_style(&t, 0, x).attrs.underline();
    assert_eq!([u(0), u(1), u(2), u(3)], [_U::Curly, _U::Double, _U::None, _U::Dashed]);
}

#[test]
fn sgr_with_out_of_range_colour_is_ignored() {
    let t = term(5, 1, "\x1b[38;5;300mA\x1b[38;2;1;2mB");
    assert_eq!(pen_style(&t, 0, 0).fg, Color::Default);
}

#[test]
fn sgr_extended_colours_are_read_as_xterm_reads_them() {
    // Each checked against XTerm 379's own print of its screen (scripts/xterm-sweep.py --kind
    // attrs found the first three).
    let t = term(
        12,
        1,
        "\x1b[38;5mA\x1b[0;48;2;184;91mB\x1b[0;48;48;2;195;104mC\x1b[0;38;62;1mD\x1b[0;38;5:7mE\
         \x1b[0;38;2:1:2:3mF\x1b[0;38;2:0:4:5:6mG\x1b[0;38;5;300;1mH\x1b[0;1:2;3mI\x1b[0;38:5:1:2:3:4mJ",
    );
    let s = |x| pen_style(&t, 0, x);
    // Values the sequence lacks count as 0.
    assert_eq!(s(0).fg, Color::Indexed(0));
    assert_eq!(s(1).bg, Color::Rgb(184, 91, 0));
    // A selector other than 5 and 2 is skipped with its 38 or 48, and what follows is read as
    // attributes: 48;48 names no colour, then 2 is faint and 104 a bright background.
    assert_eq!((s(2).fg, s(2).bg), (Color::Default, Color::Indexed(12)));
    assert!(s(2).attrs.has(Attrs::DIM) && !s(2).attrs.has(Attrs::BOLD));
    assert_eq!(s(3).fg, Color::Default);
    assert!(s(3).attrs.has(Attrs::BOLD));
    // The selector's own sub-parameters, with a colour space when there are four.
    assert_eq!(s(4).fg, Color::Indexed(7));
    assert_eq!(s(5).fg, Color::Rgb(1, 2, 3));
    assert_eq!(s(6).fg, Color::Rgb(4, 5, 6));
    // A value out of range names no colour but is skipped all the same.
    assert_eq!(s(7).fg, Color::Default);
    assert!(s(7).attrs.has(Attrs::BOLD));
    // A parameter with sub-parameters that takes none is ignored (xterm since patch 392; 379
    // went on to set colour 0 there).
    assert!(!s(8).attrs.has(Attrs::BOLD) && s(8).attrs.has(Attrs::ITALIC));
    assert_eq!(s(8).fg, Color::Default);
    // 38's own sub-parameters: with more than four, the first is the colour space.
    assert_eq!(s(9).fg, Color::Indexed(2));
}

// ---- reports ----

#[test]
fn decrqm_answers_ansi_modes_as_xterm_does_with_blittys_fixed_ones() {
    // XTerm 379's answers (scripts/xterm-sweep.py --kind replies), but KAM, which blitty never
    // sets (permanently reset), and SRM, which it never clears (permanently set).
    let mut t = term(10, 1, "\x1b[4h\x1b[20h");
    let mut expected = Vec::new();
    for (mode, value) in [(1, 4), (2, 4), (3, 2), (4, 1), (5, 4), (6, 0), (7, 4), (8, 0), (9, 0), (10, 4), (11, 4)]
        .into_iter()
        .chain([(12, 3), (13, 4), (14, 4), (15, 4), (16, 4), (17, 4), (18, 4), (19, 4), (20, 1), (21, 0), (34, 0)])
    {
        t.feed(format!("\x1b[{mode}$p").as_bytes());
        expected.extend(format!("\x1b[{mode};{value}$y").bytes());
    }
    assert_eq!(String::from_utf8_lossy(&t.take_replies()), String::from_utf8_lossy(&expected));
}

#[test]
fn dsr_answers_the_vt220s_printer_keys_and_keyboard_reports() {
    // As xterm does at the VT220 level that DA1 names; the VT330's and VT420's reports are not
    // answered, and DECXCPR has no page.
    let mut t = term(
        10,
        2,
        "\x1b[?15n\x1b[?25n\x1b[?26n\x1b[?53n\x1b[?55n\x1b[?56n\x1b[?62n\x1b[?63;1n\x1b[?75n\x1b[?85n\x1b[?6n",
    );
    assert_eq!(t.take_replies(), b"\x1b[?13n\x1b[?21n\x1b[?27;1n\x1b[?1;1R");
    // Not the ANSI forms.
    let mut t = term(10, 2, "\x1b[15n\x1b[25n\x1b[26n");
    assert!(t.take_replies().is_empty());
}

#[test]
fn decscusr_and_mode_12_share_one_blink_as_xterm_reports_them() {
    // What XTerm 379 answered (scripts/xterm-sweep.py --kind replies): the report's blink is
    // ?12's. But DECSCUSR 0, which xterm takes for DEC's blinking block, is the start again
    // here (README), reported as at the start.
    let ask = "\x1bP$q q\x1b\\\x1b[?12$p";
    for (input, shape, blink) in [
        ("", 2, 2),
        ("\x1b[ q", 2, 2),
        ("\x1b[5 q\x1b[0 q", 2, 2),
        ("\x1b[4 q", 4, 2),
        ("\x1b[5 q", 5, 1),
        ("\x1b[6 q\x1b[?12h", 5, 1),
        ("\x1b[3 q\x1b[?12l", 4, 2),
        ("\x1b[?12h", 1, 1),
        ("\x1b[?12h\x1b[2 q", 2, 2),
    ] {
        let mut t = term(4, 1, &format!("{input}{ask}"));
        let want = format!("\x1bP1$r{shape} q\x1b\\\x1b[?12;{blink}$y");
        assert_eq!(String::from_utf8_lossy(&t.take_replies()), want, "after {input:?}");
    }
}

#[test]
fn decstr_resets_reverse_wraparound_the_cursor_style_and_the_indexed_colours_as_xterm() {
    // What XTerm 379 answered after DECSTR (scripts/xterm-sweep.py --kind replies found the
    // first): ?45 reset, the shape and blink back, OSC 4's colours the host's again; OSC 11's
    // background stays.
    let mut t = term(
        4,
        1,
        "\x1b[?45h\x1b[?1045h\x1b[5 q\x1b]4;1;rgb:12/34/56\x07\x1b]11;rgb:01/02/03\x07\x1b[!p\
         \x1b[?45$p\x1b[?1045$p\x1bP$q q\x1b\\\x1b[?12$p\x1b]4;1;?\x07\x1b]11;?\x07",
    );
    let replies = String::from_utf8_lossy(&t.take_replies()).into_owned();
    assert_eq!(
        replies,
        "\x1b[?45;2$y\x1b[?1045;2$y\x1bP1$r2 q\x1b\\\x1b[?12;2$y\x1b]4;1;rgb:cdcd/0000/0000\x07\x1b]11;rgb:0101/0202/0303\x07"
    );
    assert_eq!(t.screen().modes().cursor_shape, crate::CursorShape::Default);
}

#[test]
fn a_mouse_encodings_reset_undoes_only_the_encoding_in_effect() {
    // xterm: the encodings exclude each other, and "a reset is only effective against the
    // matching mode" (?1015 h ?1016 l keeps urxvt's).
    let mut t = term(4, 1, "\x1b[?1015h\x1b[?1016l\x1b[?1006l\x1b[?1015$p");
    assert_eq!(t.take_replies(), b"\x1b[?1015;1$y");
    assert_eq!(t.screen().modes().mouse_encoding, crate::MouseEncoding::Urxvt);
    let mut t = term(4, 1, "\x1b[?1006h\x1b[?1015h\x1b[?1006l\x1b[?1015l\x1b[?1006$p\x1b[?1015$p");
    assert_eq!(t.take_replies(), b"\x1b[?1006;2$y\x1b[?1015;2$y");
    assert_eq!(t.screen().modes().mouse_encoding, crate::MouseEncoding::Default);
}

#[test]
fn dsr_da1_da2_answer_into_the_reply_buffer() {
    let mut t = term(10, 5, "\x1b[5n\x1b[3;4H\x1b[6n\x1b[c\x1b[>c\x1b[?6n");
    assert_eq!(t.take_replies(), b"\x1b[0n\x1b[3;4R\x1b[?62;22c\x1b[>1;10;0c\x1b[?3;4R");
    assert!(t.take_replies().is_empty());
}

#[test]
fn title_reports_and_clipboard_reads_are_refused() {
    let mut t = term(10, 1, "\x1b]2;evil\x07\x1b[21t\x1b[20t\x1b]52;c;?\x07");
    assert_eq!(t.screen().title(), "evil");
    assert!(t.take_replies().is_empty());
}

#[test]
fn osc_0_1_2_set_title_and_icon_name() {
    let t = term(10, 1, "\x1b]0;both\x07\x1b]1;icon\x1b\\");
    assert_eq!((t.screen().title(), t.screen().icon_name()), ("both", "icon"));
    let t = term(10, 1, "\x1b]2;ti\x01tle\x07");
    assert_eq!(t.screen().title(), "title", "control characters are dropped");
}

#[test]
fn osc_8_hyperlinks_attach_to_the_text_between() {
    let t = term(10, 1, "\x1b]8;;https://a.example/\x1b\\ab\x1b]8;;\x1b\\c");
    let link = pen_style(&t, 0, 0).link;
    assert_eq!(t.screen().link(link), Some("https://a.example/"));
    assert_eq!(pen_style(&t, 0, 1).link, link);
    assert_eq!(pen_style(&t, 0, 2).link, 0);
}

// ---- damage ----

#[test]
fn damage_records_changed_spans_and_scrolls() {
    let mut t = term(10, 3, "");
    t.screen_mut().clear_damage();
    t.feed(b"\x1b[2;3Hab");
    assert_eq!(t.screen().row_damage(0), None);
    assert_eq!(t.screen().row_damage(1), Some((2, 4)));
    t.screen_mut().clear_damage();
    t.feed(b"\x1b[3;1H\nx");
    assert_eq!(t.screen().scrolled(), 1);
    assert_eq!(t.screen().row_damage(2), Some((0, 10)));
    assert_eq!(t.screen().row_damage(1), None);
}

#[test]
fn a_line_feed_at_the_bottom_scrolls_as_su_does_whatever_the_history_holds() {
    // A line feed on the bottom row of the whole screen with history full takes a short path;
    // SU (CSI S) scrolls by the general one. The same lines, ended by CR LF or by CR and SU,
    // leave the same history (text, styles, wrap flags) and screen, for histories of 0 to 3
    // lines on screens 1 to 4 rows high and 1 to 6 wide, in the default background and in a
    // coloured one (back-colour erase).
    let texts = ["a", "bc", "def", "字g", "hijklmn", "\x1b[44mop\x1b[49m", "", "\x1b[31mqrs\x1b[m", "tu"];
    for scrollback in 0..=3 {
        for rows in 1..=4 {
            for cols in 1..=6 {
                for bg in ["", "\x1b[42m"] {
                    let start = format!("\x1b[{rows};1H");
                    let (mut by_lf, mut by_su) = (start.clone(), start);
                    for (i, text) in texts.iter().cycle().take(14).enumerate() {
                        by_lf.push_str(&format!("{text}{i}{bg}\r\n"));
                        by_su.push_str(&format!("{text}{i}{bg}\r\x1b[S"));
                    }
                    let mut a = Terminal::with_scrollback(cols, rows, scrollback);
                    let mut b = Terminal::with_scrollback(cols, rows, scrollback);
                    a.feed(by_lf.as_bytes());
                    b.feed(by_su.as_bytes());
                    let what = format!("{cols}x{rows}, {scrollback} lines of history, background {bg:?}");
                    assert_eq!(history(&a), history(&b), "{what}");
                    assert_same_screen(&a, &b, &what);
                    let (sa, sb) = (a.screen(), b.screen());
                    for i in 0..sa.history_len() {
                        let (ra, rb) = (sa.history_row(i), sb.history_row(i));
                        let styles = |r: &crate::Line| r.iter().map(|&c| r.style(c)).collect::<Vec<_>>();
                        assert_eq!(styles(&ra), styles(&rb), "{what}: history line {i}");
                    }
                    for y in 0..rows {
                        assert_eq!(pen_style(&a, y, cols - 1), pen_style(&b, y, cols - 1), "{what}: row {y}");
                    }
                }
            }
        }
    }
}

#[test]
fn colour_dense_lines_keep_their_styles_in_history_and_on_screen() {
    // Rows going into history keep their lists at their exact size and hand the roomy ones to
    // the rows written next; every cell must keep its style through that, including the
    // coloured blanks a line feed fills new rows with (back-colour erase), whether the history
    // is filling or full. Lines alternate between palette colours (packed in the cell, no
    // list) and RGB ones (listed), and so do the blanks' backgrounds, on a different beat.
    let colour = |line: usize, n: usize| {
        let k = (n % 256) as u8;
        if line.is_multiple_of(2) {
            Color::Indexed(k)
        } else {
            Color::Rgb(k, 255 - k, line as u8)
        }
    };
    let sgr = |c: Color, ground: u8| match c {
        Color::Indexed(k) => format!("\x1b[{ground}8;5;{k}m"),
        Color::Rgb(r, g, b) => format!("\x1b[{ground}8;2;{r};{g};{b}m"),
        Color::Default => unreachable!(),
    };
    for scrollback in [0, 3, 40] {
        let (cols, rows, lines_fed) = (40, 3, 30);
        let mut t = Terminal::with_scrollback(cols, rows, scrollback);
        for j in 0..lines_fed {
            for i in 0..cols - 2 {
                t.feed(format!("{}{}", sgr(colour(j, j * 16 + i), 3), (b'a' + (i % 26) as u8) as char).as_bytes());
            }
            t.feed(format!("{}\r\n", sgr(colour(j / 3, j), 4)).as_bytes());
            t.screen().check_integrity().unwrap();
        }
        let s = t.screen();
        let expect = |line: usize, row: &crate::Line| {
            for i in 0..cols - 2 {
                let st = row.style(row[i]);
                assert_eq!(st.fg, colour(line, line * 16 + i), "line {line}, cell {i}");
            }
            // The blanks at the end came from the line feed that scrolled this line's row in
            // (the screen's first rows were there from the start).
            let bg = if line < rows { Color::Default } else { colour((line - 1) / 3, line - 1) };
            assert_eq!(row.style(row[cols - 1]).bg, bg, "line {line}, last cell");
        };
        let first = lines_fed - (rows - 1) - s.history_len();
        for h in 0..s.history_len() {
            expect(first + h, &s.history_row(h));
        }
        for y in 0..rows - 1 {
            expect(first + s.history_len() + y, &s.row(y));
        }
    }
}

// ---- resize ----

fn history(t: &Terminal) -> Vec<String> {
    let s = t.screen();
    (0..s.history_len()).map(|i| s.cells_text(&s.history_row(i))).collect()
}

#[test]
fn narrowing_rewraps_lines_and_widening_gives_the_same_screen_back() {
    let mut t = term(10, 3, "abcdefghij\r\n12\r\n34");
    t.resize(4, 2);
    assert_eq!(history(&t), ["abcd", "efgh", "ij"]);
    assert_eq!(lines(&t), ["12", "34"]);
    assert_eq!(cur(&t), (1, 2));
    t.resize(10, 3);
    assert_eq!(history(&t), Vec::<String>::new());
    assert_eq!(lines(&t), ["abcdefghij", "12", "34"]);
    assert_eq!(cur(&t), (2, 2));
    t.feed(b"\x1b[99;99Hz");
    assert_eq!(cur(&t), (2, 9));
}

#[test]
fn a_history_grown_by_narrowing_is_numbered_from_line_0_on() {
    // History line `i` is line `history_pushed() - history_len() + i`: narrowing made 3 rows of
    // history where no line had been pushed, and the oldest must not be numbered below 0 (the
    // scrollback mode panicked on it). The live screen's top keeps its number after that.
    let mut t = term(10, 3, "abcdefghij\r\n12\r\n34");
    assert_eq!(t.screen().history_pushed(), 0);
    t.resize(4, 2);
    assert_eq!(history(&t), ["abcd", "efgh", "ij"]);
    assert_eq!(t.screen().history_pushed(), 3);
    t.resize(10, 3);
    assert_eq!(t.screen().history_len(), 0);
    assert_eq!(t.screen().history_pushed(), 3);
    t.feed(b"\r\nnext");
    assert_eq!((t.screen().history_len(), t.screen().history_pushed()), (1, 4));
}

#[test]
fn a_full_screen_narrowed_then_grown_past_its_size_pulls_lines_back_from_the_history() {
    // A screen full to its last row stays anchored at the bottom through a run of resizes, as
    // when it grows at once (alacritty, xterm, tmux): narrowed, then made taller than it was, it
    // shows lines from the history above its old top, not blank rows under the prompt.
    let text: String = (0..10).map(|i| format!("line {i}\r\n")).collect::<String>() + "$ ";
    let mut t = term(10, 4, &text);
    assert_eq!(lines(&t), ["line 7", "line 8", "line 9", "$"]);
    let mut direct = term(10, 4, &text);
    direct.resize(10, 6);
    assert_eq!(lines(&direct), ["line 5", "line 6", "line 7", "line 8", "line 9", "$"]);
    t.resize(4, 4);
    assert_eq!(lines(&t), [" 8", "line", " 9", "$"]);
    t.resize(10, 6);
    assert_eq!(lines(&t), lines(&direct));
    assert_eq!(cur(&t), (5, 2));
    // And back: the same screen as before the run.
    t.resize(10, 4);
    assert_eq!(lines(&t), ["line 7", "line 8", "line 9", "$"]);
    assert_eq!(cur(&t), (3, 2));
}

#[test]
fn soft_wrapped_lines_rejoin_when_widened() {
    let mut t = term(4, 4, "abcdefghij");
    assert_eq!(lines(&t), ["abcd", "efgh", "ij", ""]);
    t.resize(12, 4);
    assert_eq!(lines(&t), ["abcdefghij", "", "", ""]);
    assert_eq!(cur(&t), (0, 10));
    assert!(!t.screen().row_wrapped(0));
}

#[test]
fn the_cursor_stays_on_its_character() {
    let mut t = term(20, 3, "hello world\x1b[1;8H");
    assert_eq!(cur(&t), (0, 7));
    t.resize(5, 3);
    assert_eq!(lines(&t), ["hello", " worl", "d"]);
    assert_eq!(cur(&t), (1, 2), "still on the 'o' of world");
    t.resize(20, 3);
    assert_eq!(cur(&t), (0, 7));
}

#[test]
fn a_pending_wrap_survives_reflow() {
    let mut t = term(5, 3, "abcde");
    assert!(t.screen().cursor().pending_wrap);
    t.resize(10, 3);
    assert_eq!(cur(&t), (0, 5));
    assert!(!t.screen().cursor().pending_wrap);
    t.resize(5, 3);
    assert_eq!(cur(&t), (0, 4));
    assert!(t.screen().cursor().pending_wrap);
    t.feed(b"f");
    assert_eq!(lines(&t), ["abcde", "f", ""]);
}

#[test]
fn a_wide_character_moves_whole_and_its_pad_is_not_text() {
    let mut t = term(3, 3, "ab字c");
    assert_eq!(lines(&t), ["ab", "字c", ""]);
    t.resize(5, 3);
    assert_eq!(lines(&t), ["ab字c", "", ""]);
    t.resize(3, 3);
    assert_eq!(lines(&t), ["ab", "字c", ""]);
    t.resize(1, 3);
    assert!(lines(&t).iter().all(|l| l.chars().count() <= 1));
}

#[test]
fn narrowing_a_half_empty_screen_uses_its_free_rows_first() {
    let mut t = term(10, 5, "one two three\r\n$ ");
    assert_eq!(lines(&t), ["one two th", "ree", "$", "", ""]);
    t.resize(5, 5);
    assert_eq!(history(&t), Vec::<String>::new());
    assert_eq!(lines(&t), ["one t", "wo th", "ree", "$", ""]);
    assert_eq!(cur(&t), (3, 2));
}

#[test]
fn a_cleared_screen_stays_clear_through_a_resize() {
    let mut t = term(10, 3, "1\r\n2\r\n3\r\n4\r\n5\x1b[2J\x1b[H");
    let before = history(&t);
    t.resize(8, 5);
    assert_eq!(lines(&t), ["", "", "", "", ""]);
    assert_eq!(cur(&t), (0, 0));
    assert_eq!(history(&t), before);
}

#[test]
fn a_full_screen_pulls_lines_back_from_history_as_it_grows() {
    let mut t = term(10, 3, "1\r\n2\r\n3\r\n4\r\n5");
    t.resize(10, 5);
    assert_eq!(lines(&t), ["1", "2", "3", "4", "5"]);
    assert_eq!(cur(&t), (4, 1));
}

#[test]
fn the_alternate_screen_is_not_reflowed_but_the_main_screen_under_it_is() {
    let mut t = term(4, 3, "abcdefg\x1b[?1049h0123");
    assert_eq!(lines(&t), ["", "   0", "123"]);
    t.resize(8, 3);
    assert_eq!(lines(&t), ["", "   0", "123"], "the alternate screen is cut or padded, never rejoined");
    t.feed(b"\x1b[?1049l");
    assert_eq!(lines(&t), ["abcdefg", "", ""]);
    assert_eq!(cur(&t), (0, 7), "the saved cursor was reflowed with its line");
}

// ---- memory bounds ----

#[test]
fn truecolor_floods_do_not_grow_the_style_table_without_bound() {
    let mut t = Terminal::with_scrollback(20, 5, 10);
    for i in 0..200_000u32 {
        let s = format!("\x1b[38;2;{};{};{}mx", i & 255, (i >> 8) & 255, (i >> 16) & 255);
        t.feed(s.as_bytes());
    }
    // 20 x (5 + 10) cells can use at most 300 distinct styles. A history row keeps at most
    // one entry per cell, a visible row at most 2 x 20 + 8.
    assert!(t.screen().styles_len() <= 10 * 20 + 5 * 48, "{}", t.screen().styles_len());
    assert_eq!(t.screen().row_text(4).len(), 20);
    let i = 199_999u32;
    let last = Color::Rgb((i & 255) as u8, ((i >> 8) & 255) as u8, ((i >> 16) & 255) as u8);
    let (y, x) = cur(&t);
    assert_eq!(pen_style(&t, y, x).fg, last, "the last cell printed has the last colour");
    t.screen().check_integrity().unwrap();
}

#[test]
fn a_row_redrawn_forever_in_new_colours_keeps_a_bounded_list_and_the_right_styles() {
    // htop and watch redraw the same rows forever: the row's list drops what no cell uses.
    let mut t = Terminal::with_scrollback(8, 2, 0);
    let colour = |i: u32| Color::Rgb(i as u8, (i >> 8) as u8, (i >> 16) as u8);
    for round in 0..20_000u32 {
        t.feed(b"\r");
        for x in 0..8u32 {
            let c = colour(round * 8 + x);
            let Color::Rgb(r, g, b) = c else { unreachable!() };
            t.feed(format!("\x1b[48;2;{r};{g};{b}m{}", x).as_bytes());
        }
    }
    assert!(t.screen().styles_len() <= 2 * (2 * 8 + 8), "{}", t.screen().styles_len());
    for x in 0..8 {
        assert_eq!(pen_style(&t, 0, x).bg, colour(19_999 * 8 + x as u32), "column {x}");
    }
    t.screen().check_integrity().unwrap();
}

#[test]
fn the_pen_is_given_a_new_id_after_its_row_is_cleared() {
    // The pen remembers its id in the row it last printed to; clearing the row empties the
    // row's list, and the next character in the same pen must not use the old id. (An RGB
    // pen is listed; a palette one is packed, the same in every row.)
    for (sgr, fg) in [("\x1b[38;2;1;2;3m", Color::Rgb(1, 2, 3)), ("\x1b[31m", Color::Indexed(1))] {
        let mut t = Terminal::new(10, 3);
        t.feed(format!("{sgr}a\x1b[2J\x1b[Hb\x1b[1;5H\x1b[Kc").as_bytes());
        assert_eq!(pen_style(&t, 0, 0).fg, fg);
        assert_eq!(pen_style(&t, 0, 4).fg, fg);
        t.feed(b"\r\n\n\n\nd");
        let (y, _) = cur(&t);
        assert_eq!(pen_style(&t, y, 0).fg, fg, "after the row was recycled by a scroll");
        t.screen().check_integrity().unwrap();
    }
}

#[test]
fn styles_move_with_cells_scrolled_inside_left_right_margins() {
    // DECSLRM scrolls move cells between rows: each keeps its colour in its new row, whether
    // the colour is packed in the cell (palette) or an entry of the row's list (RGB).
    let palette = [Color::Indexed(1), Color::Indexed(2), Color::Indexed(3)];
    let rgb = [Color::Rgb(1, 0, 0), Color::Rgb(0, 2, 0), Color::Rgb(0, 0, 3)];
    for [c1, c2, c3] in [palette, rgb] {
        let sgr = |c: Color| match c {
            Color::Indexed(k) => format!("\x1b[3{k}m"),
            Color::Rgb(r, g, b) => format!("\x1b[38;2;{r};{g};{b}m"),
            Color::Default => unreachable!(),
        };
        let mut t = Terminal::new(6, 3);
        t.feed(format!("{}aaaaaa{}bbbbbb{}cccccc", sgr(c1), sgr(c2), sgr(c3)).as_bytes());
        t.feed(b"\x1b[0m\x1b[?69h\x1b[2;5s\x1b[S");
        assert_eq!(lines(&t), ["abbbba", "bccccb", "c    c"]);
        let fg = |y, x| pen_style(&t, y, x).fg;
        assert_eq!([fg(0, 0), fg(0, 1), fg(0, 4), fg(0, 5)], [c1, c2, c2, c1]);
        assert_eq!([fg(1, 0), fg(1, 1), fg(1, 5)], [c2, c3, c2]);
        assert_eq!([fg(2, 1), fg(2, 5)], [Color::Default, c3]);
        t.screen().check_integrity().unwrap();
    }
}

#[test]
fn colours_stay_on_their_characters_through_reflow() {
    // Palette colours (packed in the cells) and RGB ones (entries of the rows' lists, which
    // reflow joins and splits with the rows).
    let palette = ("\x1b[31m", Color::Indexed(1), "\x1b[42m", Color::Indexed(2));
    let rgb = ("\x1b[38;2;9;8;7m", Color::Rgb(9, 8, 7), "\x1b[48;2;1;2;3m", Color::Rgb(1, 2, 3));
    for (set_fg, fg, set_bg, bg) in [palette, rgb] {
        let mut t = Terminal::new(10, 3);
        t.feed(format!("{set_fg}abcdefghij{set_bg}klmno\x1b[0m").as_bytes());
        let check = |t: &Terminal| {
            let s = t.screen();
            let mut seen = Vec::new();
            let history = (0..s.history_len()).map(|i| s.history_row(i));
            for row in history.chain((0..s.rows()).map(|y| s.row(y))) {
                for &c in row.iter() {
                    if let Some(ch) = c.char_value().filter(|c| c.is_ascii_lowercase()) {
                        seen.push((ch, row.style(c).fg, row.style(c).bg));
                    }
                }
            }
            let want: Vec<_> =
                "abcdefghijklmno".chars().map(|ch| (ch, fg, if ch < 'k' { Color::Default } else { bg })).collect();
            assert_eq!(seen, want, "{}x{}", s.cols(), s.rows());
        };
        check(&t);
        for (c, r) in [(4, 3), (15, 3), (3, 8), (10, 3)] {
            t.resize(c, r);
            check(&t);
            t.screen().check_integrity().unwrap();
        }
    }
}

#[test]
fn the_scrollback_is_capped() {
    let mut t = Terminal::with_scrollback(5, 2, 50);
    for i in 0..1000 {
        t.feed(format!("{i}\r\n").as_bytes());
    }
    assert_eq!(t.screen().history_len(), 50);
    assert_eq!(t.screen().cells_text(&t.screen().history_row(49)), "998");
}

#[test]
fn a_wide_character_cut_by_a_margin_does_not_move_half_way() {
    // 字 straddles the left margin (columns 1-2, margin at column 2); IL inside the margins.
    let t = term(4, 2, "\x1b[1;2H字x\x1b[?69h\x1b[3;4s\x1b[1;3H\x1b[L");
    assert_eq!(lines(&t), ["", "   x"], "x moves down inside the margins");
    let row = t.screen().row(0);
    assert!(row.iter().all(|c| !c.is_wide() && !c.is_spacer()));
}

#[test]
fn inserting_next_to_a_wide_character_cut_by_the_right_margin_blanks_it() {
    // 字 at columns 3-4 straddles the right margin (column 4 of 1-based 2..4).
    let t = term(6, 1, "\x1b[1;4H字\x1b[?69h\x1b[2;4s\x1b[1;2H\x1b[@");
    let row = t.screen().row(0);
    assert!(row.iter().all(|c| !c.is_wide() && !c.is_spacer()), "{:?}", t.screen().row_text(0));
}

#[test]
fn inserting_or_deleting_right_of_a_wide_character_the_left_margin_cuts_keeps_it() {
    // Only the cells from the cursor to the right margin move: 字 across the left margin
    // (columns 20-21, margin at 21, 0-based), left of the cursor, stays whole, as in XTerm 379
    // (the random sweep's text kind, seed 29: insert mode with the cursor left of the margin).
    let x20 = "x".repeat(20);
    let t = term(80, 1, &format!("\x1b[4h\x1b[?69h\x1b[22;27s{x20}字|"));
    assert_eq!(lines(&t), [format!("{x20}字|")]);
    let t = term(30, 1, &format!("\x1b[?69h\x1b[22;27s{x20}字abc\x1b[1;24H\x1b[P\x1b[@\x1b[1'}}\x1b[1'~"));
    assert_eq!(lines(&t), [format!("{x20}字a c")]);
    // With the cursor on the margin, the half there moves: the character is blanked.
    let t = term(30, 1, &format!("\x1b[?69h\x1b[22;27s{x20}字abc\x1b[1;22H\x1b[@"));
    assert!(t.screen().row(0).iter().all(|c| !c.is_wide() && !c.is_spacer()), "{:?}", t.screen().row_text(0));
}

// ---- queries ----

fn replies(input: &str) -> String {
    let mut t = term(10, 4, input);
    String::from_utf8(t.take_replies()).unwrap()
}

#[test]
fn osc_10_11_12_answer_the_default_colours_with_the_querys_terminator() {
    assert_eq!(replies("\x1b]11;?\x07"), "\x1b]11;rgb:0000/0000/0000\x07");
    assert_eq!(replies("\x1b]10;?\x1b\\"), "\x1b]10;rgb:e5e5/e5e5/e5e5\x1b\\");
    assert_eq!(replies("\x1b]12;?\x07"), "\x1b]12;rgb:e5e5/e5e5/e5e5\x07");
    // Further parameters go to the following codes.
    assert_eq!(replies("\x1b]10;?;?\x07"), "\x1b]10;rgb:e5e5/e5e5/e5e5\x07\x1b]11;rgb:0000/0000/0000\x07");
}

#[test]
fn osc_10_11_set_colours_that_queries_then_report_and_110_111_reset() {
    assert_eq!(replies("\x1b]11;#102030\x07\x1b]11;?\x07"), "\x1b]11;rgb:1010/2020/3030\x07");
    assert_eq!(replies("\x1b]10;rgb:ff/ff/ff\x07\x1b]110\x07\x1b]10;?\x07"), "\x1b]10;rgb:e5e5/e5e5/e5e5\x07");
    assert_eq!(replies("\x1b]11;red\x07\x1b]11;?\x07"), "\x1b]11;rgb:0000/0000/0000\x07", "names are not read");
}

#[test]
fn a_host_sets_the_colours_that_osc_11_reports() {
    let mut t = Terminal::new(10, 2);
    t.screen_mut().set_default_colors([0x22, 0x22, 0x22], [0xfa, 0xfa, 0xfa]);
    t.feed(b"\x1b]11;#000000\x07\x1b]111\x07\x1b]11;?\x07");
    assert_eq!(t.take_replies(), b"\x1b]11;rgb:fafa/fafa/fafa\x07");
}

#[test]
fn osc_4_sets_and_reports_indexed_colours_and_104_resets() {
    assert_eq!(replies("\x1b]4;1;?\x07"), "\x1b]4;1;rgb:cdcd/0000/0000\x07");
    assert_eq!(
        replies("\x1b]4;1;#00ff00;200;?\x07\x1b]4;1;?\x1b\\"),
        "\x1b]4;200;rgb:ffff/0000/d7d7\x07\x1b]4;1;rgb:0000/ffff/0000\x1b\\"
    );
    assert_eq!(replies("\x1b]4;1;#00ff00\x07\x1b]104;1\x07\x1b]4;1;?\x07"), "\x1b]4;1;rgb:cdcd/0000/0000\x07");
    assert_eq!(replies("\x1b]4;2;#00ff00\x07\x1b]104\x07\x1b]4;2;?\x07"), "\x1b]4;2;rgb:0000/cdcd/0000\x07");
    assert_eq!(replies("\x1b]4;261;?\x07\x1b]4;x;?\x07\x1b]4;0256;?\x07"), "", "no such colour");
}

#[test]
fn osc_5_and_osc_4_from_256_set_and_report_xterms_special_colours_and_105_resets() {
    // Each is the default foreground until set (xterm's colorBD and the others default to
    // XtDefaultForeground); XTerm 379 answers OSC 5 in OSC 5's numbering, OSC 4 in OSC 4's.
    assert_eq!(replies("\x1b]5;0;?\x1b\\"), "\x1b]5;0;rgb:e5e5/e5e5/e5e5\x1b\\");
    assert_eq!(
        replies("\x1b]5;0;#aaaabbbbcccc;1;rgb:f0/00/00\x07\x1b]5;0;?;1;?\x07\x1b]4;256;?;257;?\x07"),
        "\x1b]5;0;rgb:aaaa/bbbb/cccc\x07\x1b]5;1;rgb:f0f0/0000/0000\x07\
         \x1b]4;256;rgb:aaaa/bbbb/cccc\x07\x1b]4;257;rgb:f0f0/0000/0000\x07"
    );
    assert_eq!(replies("\x1b]4;260;#010203\x07\x1b]5;4;?\x07"), "\x1b]5;4;rgb:0101/0202/0303\x07");
    assert_eq!(replies("\x1b]5;5;?\x07"), "", "no sixth special colour");
    let grey = "rgb:e5e5/e5e5/e5e5";
    // 105 with numbers resets those; without, all five; 104 without numbers resets them too,
    // as do DECSTR and RIS; 104 with numbers counts as OSC 4 does.
    let set = "\x1b]5;0;#111111;1;#222222;2;#333333\x07";
    assert_eq!(
        replies(&format!("{set}\x1b]105;1\x07\x1b]5;0;?;1;?\x07")),
        format!("\x1b]5;0;rgb:1111/1111/1111\x07\x1b]5;1;{grey}\x07")
    );
    assert_eq!(replies(&format!("{set}\x1b]105\x07\x1b]5;0;?\x07")), format!("\x1b]5;0;{grey}\x07"));
    assert_eq!(replies(&format!("{set}\x1b]104\x07\x1b]5;2;?\x07")), format!("\x1b]5;2;{grey}\x07"));
    assert_eq!(
        replies(&format!("{set}\x1b]104;257\x07\x1b]5;1;?;0;?\x07")),
        format!("\x1b]5;1;{grey}\x07\x1b]5;0;rgb:1111/1111/1111\x07")
    );
    assert_eq!(replies(&format!("{set}\x1b[!p\x1b]5;0;?\x07")), format!("\x1b]5;0;{grey}\x07"));
    assert_eq!(replies(&format!("{set}\x1bc\x1b]5;0;?\x07")), format!("\x1b]5;0;{grey}\x07"));
    // A host that tells its colours moves the special colours the program did not set.
    let mut t = Terminal::new(10, 2);
    t.feed(b"\x1b]5;1;#222222\x07");
    t.screen_mut().set_default_colors([1, 2, 3], [0, 0, 0]);
    t.feed(b"\x1b]5;0;?;1;?\x07");
    assert_eq!(
        String::from_utf8(t.take_replies()).unwrap(),
        "\x1b]5;0;rgb:0101/0202/0303\x07\x1b]5;1;rgb:2222/2222/2222\x07"
    );
}

#[test]
fn decrqss_reports_sgr_in_xterms_form() {
    assert_eq!(replies("\x1bP$qm\x1b\\"), "\x1bP1$r0m\x1b\\");
    assert_eq!(replies("\x1b[1;4;31;104m\x1bP$qm\x1b\\"), "\x1bP1$r0;1;4;31;104m\x1b\\");
    assert_eq!(replies("\x1b[3;38;5;200;48;2;1;2;3m\x1bP$qm\x1b\\"), "\x1bP1$r0;3;38:5:200;48:2::1:2:3m\x1b\\");
    assert_eq!(replies("\x1b[4:3;53;58:5:9m\x1bP$qm\x1b\\"), "\x1bP1$r0;4:3;53;58:5:9m\x1b\\");
}

#[test]
fn decrqss_reports_margins_cursor_shape_and_protection() {
    assert_eq!(replies("\x1b[2;3r\x1bP$qr\x1b\\"), "\x1bP1$r2;3r\x1b\\");
    assert_eq!(replies("\x1b[?69h\x1b[3;7s\x1bP$qs\x1b\\"), "\x1bP1$r3;7s\x1b\\");
    assert_eq!(replies("\x1bP$q q\x1b\\\x1b[5 q\x1bP$q q\x1b\\"), "\x1bP1$r2 q\x1b\\\x1bP1$r5 q\x1b\\");
    assert_eq!(replies("\x1b[1\"q\x1bP$q\"q\x1b\\"), "\x1bP1$r1\"q\x1b\\");
}

#[test]
fn decrqss_answers_invalid_for_what_it_does_not_know() {
    assert_eq!(replies("\x1bP$qx\x1b\\"), "\x1bP0$r\x1b\\");
    assert_eq!(replies("\x1bP$q$}\x1b\\"), "\x1bP0$r\x1b\\");
    // Other DCS functions are not answered at all.
    assert_eq!(replies("\x1bP+q544e\x1b\\"), "");
}

#[test]
fn the_title_stack_saves_and_restores_titles() {
    let t = term(10, 1, "\x1b]0;one\x07\x1b[22;0t\x1b]0;two\x07\x1b[23;0t");
    assert_eq!((t.screen().title(), t.screen().icon_name()), ("one", "one"));
    // Saving the title only leaves the icon name alone on restore.
    let t = term(10, 1, "\x1b]0;one\x07\x1b[22;2t\x1b]0;two\x07\x1b[23;0t");
    assert_eq!((t.screen().title(), t.screen().icon_name()), ("one", "two"));
    // Restoring the icon name only.
    let t = term(10, 1, "\x1b]0;one\x07\x1b[22t\x1b]0;two\x07\x1b[23;1t");
    assert_eq!((t.screen().title(), t.screen().icon_name()), ("two", "one"));
    // An empty stack restores nothing.
    let t = term(10, 1, "\x1b]0;one\x07\x1b[23;0t");
    assert_eq!(t.screen().title(), "one");
}

#[test]
fn the_title_stack_is_bounded_and_drops_the_oldest() {
    let mut input = String::new();
    for i in 0..crate::MAX_TITLE_STACK + 5 {
        input.push_str(&format!("\x1b]2;t{i}\x07\x1b[22;2t"));
    }
    for _ in 0..crate::MAX_TITLE_STACK + 5 {
        input.push_str("\x1b[23;2t");
    }
    let t = term(10, 1, &input);
    assert_eq!(t.screen().title_stack_len(), 0);
    // The oldest kept is t5: the first five were dropped.
    assert_eq!(t.screen().title(), "t5");
}

// ---- clipboard (OSC 52) ----

#[test]
fn osc_52_writes_are_kept_decoded_for_the_host_and_reads_are_refused() {
    use super::{base64_decode, base64_encode, Clipboard};
    let mut t = Terminal::new(10, 2);
    t.feed(b"\x1b]52;c;aGVsbG8gd29ybGQ=\x07");
    assert_eq!(
        t.screen_mut().take_clipboard(),
        Some(Clipboard { selections: "c".into(), text: b"hello world".to_vec() })
    );
    assert_eq!(t.screen_mut().take_clipboard(), None, "taken once");
    // ST-terminated, several selections (a repeated one once), no padding, the last write wins.
    t.feed(b"\x1b]52;pcc;Zmlyc3Q\x1b\\\x1b]52;;c2Vjb25k\x1b\\");
    assert_eq!(t.screen_mut().take_clipboard(), Some(Clipboard { selections: "".into(), text: b"second".to_vec() }));
    t.feed(b"\x1b]52;pcc;Zmlyc3Q\x1b\\");
    assert_eq!(t.screen_mut().take_clipboard().map(|c| c.selections), Some("pc".into()));
    // A read is never answered; bad base64 or an unknown selection is dropped.
    t.feed(b"\x1b]52;c;?\x07\x1b]52;c;a*b=\x07\x1b]52;x;aGk=\x07\x1b]52;c\x07");
    assert_eq!(t.screen_mut().take_clipboard(), None);
    assert!(t.take_replies().is_empty());
    // Large writes come through whole, up to the OSC limit.
    let big: Vec<u8> = (0..600_000u32).map(|i| (i % 251) as u8).collect();
    t.feed(format!("\x1b]52;c;{}\x07", base64_encode(&big)).as_bytes());
    assert_eq!(t.screen_mut().take_clipboard().map(|c| c.text), Some(big));
    // Round trips at every length up to a few blocks.
    for len in 0..200usize {
        let data: Vec<u8> = (0..len).map(|i| (i * 37 + len) as u8).collect();
        assert_eq!(base64_decode(base64_encode(&data).as_bytes()), Some(data), "{len}");
    }
    assert_eq!(base64_decode(b"a"), None);
    assert_eq!(base64_decode(b"aGk=="), None);
    assert_eq!(base64_decode(b"aG=k"), None);
}

// ---- double-width and double-height lines (DECDWL, DECDHL, DECSWL) ----
// Each case below was shown in XTerm 379 (scripts/xterm-screens.sh, its `dwl-` and `dhl-`
// streams); the assertions are what its screen print held.

fn ys(n: usize) -> String {
    "y".repeat(n)
}

#[test]
fn decdwl_text_wraps_at_the_half_width() {
    let t = term(80, 4, &format!("\x1b#6{}", ys(50)));
    assert_eq!(lines(&t)[..2], [ys(40), ys(10)]);
    assert_eq!(t.screen().line_size(0), crate::LineSize::DoubleWidth);
    assert_eq!(t.screen().line_size(1), crate::LineSize::Single);
    assert!(t.screen().row_wrapped(0));
    // Double height (top and bottom halves) halves the width the same way; an odd width
    // shows (cols - 1) / 2 + 1 columns, as xterm's LineMaxCol says.
    let t = term(80, 4, &format!("\x1b#3{}\r\n\x1b#4{}", ys(45), ys(41)));
    assert_eq!(lines(&t)[..4], [ys(40), ys(5), ys(40), ys(1)]);
    assert_eq!(t.screen().line_size(0), crate::LineSize::DoubleHeightTop);
    let t = term(9, 3, &format!("\x1b#6{}", ys(6)));
    assert_eq!(lines(&t)[..2], [ys(5), ys(1)]);
}

#[test]
fn cuf_and_ht_stop_at_the_last_shown_column_of_a_double_width_line() {
    let t = term(80, 2, "\x1b#6ab\x1b[60Cc");
    assert_eq!(lines(&t)[0], format!("ab{}c", " ".repeat(37)));
    let t = term(80, 2, "\x1b#6a\t\t\t\t\t\tb");
    assert_eq!(lines(&t)[0], format!("a{}b", " ".repeat(38)));
    // From past the shown half (CUP put it there) they bring the cursor back to its end.
    let t = term(80, 2, "\x1b#6\x1b[1;70H\x1b[CQ");
    assert_eq!(lines(&t)[0], format!("{}Q", " ".repeat(39)));
    let t = term(80, 2, "\x1b#6\x1b[1;70H\tQ");
    assert_eq!(lines(&t)[0], format!("{}Q", " ".repeat(39)));
}

#[test]
fn text_past_the_shown_half_of_a_double_width_line_is_dropped_as_in_xterm() {
    // CUP does not stop at the half (xterm's CursorSet); what is printed there is dropped.
    let t = term(80, 2, "\x1b#6\x1b[1;70Hq");
    assert_eq!(lines(&t), ["", ""]);
    assert_eq!(cur(&t), (0, 69));
    // DECDWL puts a cursor past the half at column cols / 2, one past the last shown one.
    let t = term(80, 2, &format!("{}\x1b#6Z", "x".repeat(60)));
    assert_eq!(lines(&t)[0], "x".repeat(60), "the hidden half is kept");
    assert_eq!(cur(&t), (0, 40));
    // A wrap pending from the full row is kept: the next character goes to the next line.
    let t = term(80, 2, &format!("{}\x1b#6Z", "x".repeat(80)));
    assert_eq!(lines(&t), ["x".repeat(80), "Z".into()]);
    // Through the other print paths: wide characters, a character set, REP, insert mode.
    for input in ["\x1b#6\x1b[1;70H漢", "\x1b#6\x1b(0\x1b[1;70Hq", "\x1b#6\x1b[1;70H\x1b[4hq"] {
        let t = term(80, 2, input);
        assert_eq!(lines(&t), ["", ""], "{input:?}");
    }
    let t = term(80, 2, "\x1b#6a\x1b[60b");
    assert_eq!(lines(&t)[..2], [format!("a{}", "a".repeat(39)), "a".repeat(21)]);
}

#[test]
fn decswl_shows_the_hidden_half_again_and_keeps_the_cursor() {
    let t = term(80, 2, &format!("{}\x1b#6\x1b#5Z", "x".repeat(60)));
    assert_eq!(lines(&t)[0], format!("{}Z{}", "x".repeat(40), "x".repeat(19)));
    assert_eq!(t.screen().line_size(0), crate::LineSize::Single);
}

#[test]
fn rows_erased_whole_become_single_width_and_el_keeps_the_size() {
    let after = |input: &str, y: usize| {
        let t = term(80, 24, &format!("{input}\x1b[{};1H{}", y + 1, ys(60)));
        (t.screen().line_size(y), lines(&t)[y].clone())
    };
    let double = (crate::LineSize::DoubleWidth, ys(40));
    let single = (crate::LineSize::Single, ys(60));
    // ED below the cursor, above it, the whole screen; ED 0 from the first cell and ED 1 from
    // the last one are ED 2 in xterm.
    assert_eq!(after("\x1b[2;1H\x1b#6\x1b[1;1H\x1b[J", 1), single);
    assert_eq!(after("\x1b#6\x1b[3;1H\x1b[1J", 0), single);
    assert_eq!(after("\x1b#6\x1b[2J", 0), single);
    assert_eq!(after("\x1b#6\x1b[J", 0), single);
    assert_eq!(after("\x1b#6\x1b[1;2H\x1b[J", 0), double);
    let bottom = |input: &str| term(80, 24, input).screen().line_size(23);
    assert_eq!(bottom("\x1b[24;1H\x1b#6\x1b[24;80H\x1b[1J"), crate::LineSize::Single);
    assert_eq!(bottom("\x1b[24;1H\x1b#6\x1b[24;79H\x1b[1J"), crate::LineSize::DoubleWidth);
    // EL erases the cells only, and so does ED when it keeps protected cells: ISO-protected
    // ones (SPA) under ED, DECSCA-protected ones under DECSED. DECSED with nothing protected,
    // and ED over DECSCA-protected cells (which it does not keep), clear whole rows.
    assert_eq!(after("\x1b#6abc\x1b[2K", 0), double);
    assert_eq!(after("\x1b#6\x1bVP\x1bW\x1b[2J", 0), double);
    assert_eq!(after("\x1b#6\x1b[1\"qP\x1b[0\"q\x1b[?2J", 0), double);
    assert_eq!(after("\x1b#6\x1b[?J", 0), single);
    assert_eq!(after("\x1b#6\x1b[1\"qP\x1b[0\"q\x1b[2J", 0), single);
    // DECALN, RIS and the alternate screen's clear.
    assert_eq!(term(80, 2, "\x1b#6\x1b#8").screen().line_size(0), crate::LineSize::Single);
    assert_eq!(after("\x1b#6\x1bc", 0), single);
}

#[test]
fn a_double_width_line_moves_with_its_row() {
    // IL pushes it down, LF at the bottom scrolls it up, RI at the top pushes it down; the
    // rows that come in are single width.
    let t = term(80, 24, &format!("\x1b#6\x1b[L{}\x1b[2;1H{}", ys(50), ys(50)));
    assert_eq!(lines(&t)[..3], [ys(50), ys(40), ys(10)]);
    let t = term(80, 24, &format!("\x1b[24;1H\x1b#6\n\x1b[23;1H{}", ys(50)));
    assert_eq!(t.screen().line_size(22), crate::LineSize::DoubleWidth);
    assert_eq!(t.screen().line_size(23), crate::LineSize::Single);
    let t = term(80, 24, &format!("\x1b#6\x1bM{}", ys(50)));
    assert_eq!(lines(&t)[..2], [ys(50), String::new()]);
    assert_eq!(t.screen().line_size(1), crate::LineSize::DoubleWidth);
}

#[test]
fn line_size_controls_are_ignored_with_left_right_margins() {
    let t = term(80, 2, &format!("\x1b[?69h\x1b#6{}", ys(50)));
    assert_eq!(lines(&t)[0], ys(50));
    assert_eq!(t.screen().line_size(0), crate::LineSize::Single);
}

#[test]
fn wide_characters_on_a_double_width_line_wrap_at_its_half() {
    let t = term(80, 2, &format!("\x1b#6{}", "中".repeat(25)));
    assert_eq!(lines(&t), ["中".repeat(20), "中".repeat(5)]);
}

#[test]
fn a_resize_keeps_a_one_row_double_width_line_and_rewraps_a_wrapped_one_as_single_rows() {
    // A double-width line that wrapped (its shown half, then the next row) is one logical
    // line: rewrapped at the new width as single rows.
    let mut t = term(80, 4, &format!("\x1b#6{}\r\nnext", ys(50)));
    t.resize(60, 4);
    assert_eq!(t.screen().line_size(0), crate::LineSize::Single);
    assert_eq!(lines(&t)[..2], [ys(50), "next".to_string()]);
    // One that fits in its row keeps its size through a change of height or width, as in
    // xterm, with its hidden cells; narrowed until it wraps, it is rewrapped as single rows.
    let mut t = term(80, 4, &format!("{}\r\x1b#6abc", "x".repeat(30)));
    t.resize(80, 6);
    assert_eq!(t.screen().line_size(0), crate::LineSize::DoubleWidth);
    t.resize(40, 6);
    assert_eq!(
        (t.screen().line_size(0), lines(&t)[0].clone()),
        (crate::LineSize::DoubleWidth, format!("abc{}", "x".repeat(27)))
    );
    t.resize(20, 6);
    assert_eq!(t.screen().line_size(0), crate::LineSize::Single);
    assert_eq!(lines(&t)[..2], [format!("abc{}", "x".repeat(17)), "x".repeat(10)]);
}

// ---- found by esctest (scripts/esctest.sh), each checked against xterm's source ----

#[test]
fn nel_at_the_bottom_margin_outside_the_left_and_right_margins_does_not_scroll() {
    // Margins rows 2-5, columns 2-5; an x at (row 5, column 3); the cursor right of the right
    // margin on the bottom margin. NEL is IND then CR: IND does not scroll outside the
    // margins, then CR goes to the left margin.
    let t = term(10, 8, "\x1b[2;5r\x1b[?69h\x1b[2;5s\x1b[5;3Hx\x1b[5;6H\x1bE");
    assert_eq!(t.screen().row_text(4), "  x");
    assert_eq!(cur(&t), (4, 1));
    // Inside the margins it scrolls the region, as before.
    let t = term(10, 8, "\x1b[2;5r\x1b[?69h\x1b[2;5s\x1b[5;3Hx\x1b[5;4H\x1bE");
    assert_eq!(t.screen().row_text(3), "  x");
    assert_eq!(t.screen().row_text(4), "");
    assert_eq!(cur(&t), (4, 1));
}

#[test]
fn cbt_passes_a_left_margin_and_stops_at_it_only_in_origin_mode() {
    let t = term(40, 10, "\x1b[?69h\x1b[5;30s\x1b[9;7H\x1b[2Z");
    assert_eq!(cur(&t), (8, 0));
    let t = term(40, 10, "\x1b[?69h\x1b[5;30s\x1b[?6h\x1b[1;3H\x1b[5Z");
    assert_eq!(cur(&t), (0, 4));
}

#[test]
fn decid_answers_as_da1() {
    let mut t = term(10, 3, "\x1bZ");
    assert_eq!(t.take_replies(), b"\x1b[?62;22c");
}

#[test]
fn xtsave_and_xtrestore_put_back_a_private_mode() {
    // Autowrap saved on, turned off, restored: text wraps again.
    let t = term(5, 3, "\x1b[?7h\x1b[?7s\x1b[?7l\x1b[?7r\x1b[1;4Hxxx");
    assert_eq!(lines(&t), ["   xx", "x", ""]);
    // Saved off, turned on, restored off: the last column is overwritten.
    let t = term(5, 3, "\x1b[?7l\x1b[?7s\x1b[?7h\x1b[?7r\x1b[1;4Hxxx");
    assert_eq!(lines(&t), ["   xx", "", ""]);
    // Several modes in one sequence; a mode never saved is left as it is.
    let mut t = term(5, 3, "\x1b[?1;6s\x1b[?1h\x1b[?6h\x1b[?25l\x1b[?1;6;25r\x1b[?1$p\x1b[?6$p\x1b[?25$p");
    assert_eq!(t.take_replies(), b"\x1b[?1;2$y\x1b[?6;2$y\x1b[?25;2$y");
    // The alternate screen comes back as DECSET would bring it.
    let t = term(5, 3, "main\x1b[?1049s\x1b[?1049h\x1b[?1049r");
    assert!(!t.screen().alternate_screen());
    assert_eq!(t.screen().row_text(0), "main");
}

#[test]
fn the_curses_fix_takes_a_tab_after_the_last_column_to_the_next_line() {
    let t = term(20, 4, "\x1b[?41h\x1b[2;1H12345678901234567890\t1");
    assert_eq!(t.screen().row_text(2), "        1");
    // Off (the default): the tab cannot move, the wrap stays pending, and the 1 wraps.
    let t = term(20, 4, "\x1b[2;1H12345678901234567890\t1");
    assert_eq!(t.screen().row_text(1), "12345678901234567890");
    assert_eq!(t.screen().row_text(2), "1");
    let mut t = term(20, 4, "\x1b[?41h\x1b[?41$p");
    assert_eq!(t.take_replies(), b"\x1b[?41;1$y");
}

#[test]
fn decrqss_answers_the_level_and_the_page_length() {
    let mut t = term(80, 25, "\x1bP$q\"p\x1b\\\x1bP$q*|\x1b\\\x1bP$qt\x1b\\");
    assert_eq!(t.take_replies(), b"\x1bP1$r62;1\"p\x1b\\\x1bP1$r25*|\x1b\\\x1bP1$r24t\x1b\\");
    // DECSACE is not reported by XTerm 379.
    let mut t = term(80, 25, "\x1bP$q*x\x1b\\");
    assert_eq!(t.take_replies(), b"\x1bP0$r\x1b\\");
}

#[test]
fn decrqcra_and_size_reports_answer_only_when_the_host_allows_window_operations() {
    let mut t = term(10, 3, "ab");
    t.feed(b"\x1b[1;1;1;1;1;10*y\x1b[18t");
    assert_eq!(t.take_replies(), b"", "refused by default, as by xterm");
    t.screen_mut().allow_window_ops(true);
    // DEC's sum: characters and attributes, spaces but the first left out, negated.
    t.feed(b"\x1b[7;0;1;1;1;10*y");
    assert_eq!(t.take_replies(), format!("\x1bP7!~{:04X}\x1b\\", (0x10000 - (0x61 + 0x62)) & 0xffff).as_bytes());
    t.feed(b"\x1b[1m\x1b[2;1Hc\x1b[0m\x1b[8;0;2;1;2;1*y");
    assert_eq!(t.take_replies(), format!("\x1bP8!~{:04X}\x1b\\", 0x10000 - (0x63 + 0x80)).as_bytes());
    // XTCHECKSUM 1 | 2 | 4: positive, no attributes, every space counted.
    t.feed(b"\x1b[7#y\x1b[9;0;1;1;2;10*y");
    assert_eq!(t.take_replies(), format!("\x1bP9!~{:04X}\x1b\\", 0x61 + 0x62 + 0x63 + 17 * 0x20).as_bytes());
    // Beyond Latin-1 a character counts as ESC, both halves of a wide one, unless bit 16 asks
    // for code points (the right half then counts nothing).
    t.feed("\x1b[3;1H字é\x1b[1;0;3;1;3;3*y".as_bytes());
    assert_eq!(t.take_replies(), format!("\x1bP1!~{:04X}\x1b\\", 2 * 0x1b + 0xe9).as_bytes());
    t.feed(b"\x1b[23#y\x1b[1;0;3;1;3;3*y");
    assert_eq!(t.take_replies(), format!("\x1bP1!~{:04X}\x1b\\", 0x5b57 + 0xe9).as_bytes());
    t.feed(b"\x1b[18t\x1b[19t");
    assert_eq!(t.take_replies(), b"\x1b[8;3;10t\x1b[9;3;10t");
    // RIS puts the checksum's bits back to the host's setting.
    t.screen_mut().set_checksum_extension(3);
    t.feed(b"\x1b[7#y\x1bc\x1b[1;0;1;1;1;1*y");
    assert_eq!(t.take_replies(), b"\x1bP1!~0020\x1b\\");
}

#[test]
fn xtversion_names_the_terminal_and_its_version() {
    let mut t = term(10, 3, "\x1b[>q\x1b[>0q\x1b[>1q");
    let one = format!("\x1bP>|blitty({})\x1b\\", env!("CARGO_PKG_VERSION"));
    assert_eq!(String::from_utf8(t.take_replies()).unwrap(), one.repeat(2));
}
