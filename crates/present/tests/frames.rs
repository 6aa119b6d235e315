//! The presenter's frames, fed to a second engine standing in for the host terminal, must
//! make it show exactly the engine's screen: text, styles, cursor and mirrored modes, after
//! every frame, however the output was chunked.

use blitty_present::{AnsiPresenter, View};
use blitty_vt::Terminal;
use proptest::prelude::*;

const CORPUS: &[&[u8]] = &[
    include_bytes!("../../../corpus/ls.raw"),
    include_bytes!("../../../corpus/vim.raw"),
    include_bytes!("../../../corpus/less.raw"),
    include_bytes!("../../../corpus/htop.raw"),
    include_bytes!("../../../corpus/dialog.raw"),
    include_bytes!("../../../corpus/bash.raw"),
    include_bytes!("../../../corpus/unicode.raw"),
];

fn cells(t: &Terminal) -> Vec<Vec<(String, blitty_vt::Style)>> {
    let s = t.screen();
    (0..s.rows())
        .map(|y| {
            let row = s.row(y);
            row.iter()
                .map(|&c| {
                    let mut text = String::new();
                    s.push_cell_text(c, &mut text);
                    (text, row.style(c))
                })
                .collect()
        })
        .collect()
}

/// Text as the presenter sends it to the host: without VS15 and VS16, and without a ZWJ after
/// an emoji (which terminals such as kitty would join into one picture of another width).
fn host_form(text: &str) -> String {
    let emoji = |c: char| matches!(c as u32, 0x1f000..=0x1faff | 0x2190..=0x2bff);
    let mut out = String::new();
    for c in text.chars() {
        let joins_emoji = c == '\u{200d}' && out.chars().last().is_some_and(emoji);
        if !matches!(c, '\u{fe0e}' | '\u{fe0f}') && !joins_emoji {
            out.push(c);
        }
    }
    out
}

fn host_cells(t: &Terminal) -> Vec<Vec<(String, blitty_vt::Style)>> {
    cells(t).into_iter().map(|row| row.into_iter().map(|(text, style)| (host_form(&text), style)).collect()).collect()
}

/// Feeds `chunks` to an engine and presents after each; checks the host after each frame.
/// Returns the total frame bytes.
fn present_and_check(chunks: &[&[u8]], cols: usize, rows: usize) -> usize {
    let mut engine = Terminal::new(cols, rows);
    let mut host = Terminal::new(cols, rows);
    let mut p = AnsiPresenter::new(cols, rows);
    let mut out = Vec::new();
    p.enter(&mut out);
    let mut total = 0;
    for (i, chunk) in chunks.iter().enumerate() {
        engine.feed(chunk);
        p.frame(View::live(engine.screen()), &mut out);
        engine.screen_mut().clear_damage();
        host.feed(&out);
        total += out.len();
        out.clear();
        assert_eq!(host.screen().dump_text(), host_form(&engine.screen().dump_text()), "text after frame {i}");
        assert!(cells(&host) == host_cells(&engine), "styles after frame {i}");
        let (h, e) = (host.screen().modes(), engine.screen().modes());
        assert_eq!(
            (
                h.application_cursor,
                h.application_keypad,
                h.mouse,
                h.mouse_encoding,
                h.bracketed_paste,
                h.cursor_visible
            ),
            (
                e.application_cursor,
                e.application_keypad,
                e.mouse,
                e.mouse_encoding,
                e.bracketed_paste,
                e.cursor_visible
            ),
            "modes after frame {i}"
        );
    }
    total
}

#[test]
fn the_host_shows_the_engine_screen_after_every_frame_of_each_recording() {
    for data in CORPUS {
        let chunks: Vec<&[u8]> = data.chunks(97).collect();
        present_and_check(&chunks, 80, 24);
    }
}

/// Row `y` as it is shown: its text, cut at the half of a double-size row (what follows is
/// kept by the engine but not shown, so a host may hold something else there).
fn shown(t: &Terminal, y: usize) -> (blitty_vt::LineSize, String) {
    let s = t.screen();
    let size = s.line_size(y);
    let text = s.row_text(y);
    let cut: String = text.chars().take(size.shown_cols(s.cols())).collect();
    (size, cut.trim_end().to_string())
}

#[test]
fn double_width_and_double_height_lines_reach_the_host_with_their_size() {
    // The host (an engine, which has the line sizes as xterm has them) gets each row's size
    // and its shown half, after every frame, with the output cut at every byte.
    let x60 = "x".repeat(60);
    let streams = [
        format!("\x1b#6{}", "y".repeat(50)),
        format!("{x60}\x1b#6Z\r\n\x1b#3top\r\n\x1b#4bottom"),
        format!("{x60}\x1b#6\x1b#5Z"),
        format!("\x1b#6abc\x1b[1;70Hq\x1b[2;1H\x1b#6{}\x1b[J", "中".repeat(25)),
        format!("\x1b[24;1H\x1b#6wide\n\n\x1b#6again{x60}\x1bM\x1b[L"),
        format!("\x1b#6{x60}\x1b[1;1H\x1b#5\x1b[2J\x1b#6half\x1b#8"),
    ];
    for stream in &streams {
        let bytes = stream.as_bytes();
        for cut in 0..=bytes.len() {
            let mut engine = Terminal::new(80, 24);
            let mut host = Terminal::new(80, 24);
            let mut p = AnsiPresenter::new(80, 24);
            let mut out = Vec::new();
            p.enter(&mut out);
            for chunk in [&bytes[..cut], &bytes[cut..]] {
                engine.feed(chunk);
                p.frame(View::live(engine.screen()), &mut out);
                engine.screen_mut().clear_damage();
                host.feed(&out);
                out.clear();
                for y in 0..24 {
                    assert_eq!(shown(&host, y), shown(&engine, y), "{stream:?} cut at {cut}, row {y}");
                }
                assert_eq!(host.screen().cursor().y, engine.screen().cursor().y, "{stream:?} cut at {cut}: cursor row");
            }
        }
    }
}

#[test]
fn a_full_screen_scroll_is_sent_as_one_scroll_not_a_repaint() {
    let mut engine = Terminal::new(80, 24);
    let mut p = AnsiPresenter::new(80, 24);
    let mut out = Vec::new();
    p.enter(&mut out);
    for i in 0..24 {
        engine.feed(format!("line {i} with some text to make it longer than a scroll\r\n").as_bytes());
    }
    p.frame(View::live(engine.screen()), &mut out);
    engine.screen_mut().clear_damage();
    out.clear();
    engine.feed(b"one more line\r\n");
    p.frame(View::live(engine.screen()), &mut out);
    let frame = String::from_utf8_lossy(&out);
    assert!(frame.contains("\x1b[1S"), "{frame:?}");
    assert!(out.len() < 60, "a one-line scroll costs {} bytes: {frame:?}", out.len());
}

#[test]
fn an_unchanged_screen_costs_almost_nothing() {
    let mut engine = Terminal::new(80, 24);
    engine.feed(include_bytes!("../../../corpus/htop.raw"));
    let mut p = AnsiPresenter::new(80, 24);
    let mut out = Vec::new();
    p.enter(&mut out);
    p.frame(View::live(engine.screen()), &mut out);
    engine.screen_mut().clear_damage();
    out.clear();
    p.frame(View::live(engine.screen()), &mut out);
    assert!(out.len() <= 16, "{:?}", String::from_utf8_lossy(&out));
}

#[test]
fn hostile_output_never_reaches_the_host() {
    // Title report requests, clipboard writes and reads, DCS, a huge parameter, an OSC title
    // with escape characters: none of it may appear in the frames.
    let hostile: &[u8] = b"\x1b]2;pwn\x1b[21t\x1b]52;c;ZWNobyBoaQ==\x07\x1b]52;c;?\x07\x1bP$q\"p\x1b\\\
        \x1b[99999999999999999999A\x1b]0;\x1b[6n\x07\x1b[?1049h\x1b[?1000h\x1b]4;1;?\x07ok";
    let mut engine = Terminal::new(40, 5);
    let mut p = AnsiPresenter::new(40, 5);
    let mut out = Vec::new();
    p.enter(&mut out);
    engine.feed(hostile);
    p.frame(View::live(engine.screen()), &mut out);
    let frame = String::from_utf8_lossy(&out);
    for bad in ["\x1b]52", "[21t", "[6n", "\x1bP", "]4;", "99999"] {
        assert!(!frame.contains(bad), "{bad:?} reached the host: {frame:?}");
    }
    // A title, when sent, is only text: no escape or other control characters in it.
    for sent in frame.split("\x1b]2;").skip(1) {
        let title = sent.split('\x07').next().unwrap_or("");
        assert!(!title.chars().any(|c| c.is_control()), "{title:?}");
    }
    // ESC inside the OSC ended it: the title set last is empty, the first one was "pwn".
    assert_eq!(engine.screen().title(), "");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn any_chunking_of_any_recording_presents_correctly(which in 0..CORPUS.len(), sizes in prop::collection::vec(1usize..3000, 1..40)) {
        let data = CORPUS[which];
        let mut chunks = Vec::new();
        let mut at = 0;
        for s in sizes.iter().cycle() {
            if at >= data.len() { break; }
            let end = (at + s).min(data.len());
            chunks.push(&data[at..end]);
            at = end;
        }
        present_and_check(&chunks, 80, 24);
    }

    #[test]
    fn generated_text_with_colours_wide_characters_and_scrolling_presents_correctly(
        pieces in prop::collection::vec(prop_oneof![
            "[a-z ]{0,30}".prop_map(|s| s.into_bytes()),
            Just(b"\r\n".to_vec()),
            Just("字e\u{301}😀".as_bytes().to_vec()),
            // Emoji whose width some terminals change (VS16, VS15, ZWJ), and a ZWJ in Sinhala.
            Just("❤\u{fe0f}⌚\u{fe0e}👨\u{200d}👩\u{200d}👧#\u{fe0f}ස\u{dca}\u{200d}ර".as_bytes().to_vec()),
            (0u8..8, 0u8..8).prop_map(|(f, b)| format!("\x1b[3{f};4{b}m").into_bytes()),
            Just(b"\x1b[0m\x1b[1;4m".to_vec()),
            (1u8..10, 1u8..30).prop_map(|(r, c)| format!("\x1b[{r};{c}H").into_bytes()),
            Just(b"\x1b[K\x1b[2L\x1b[3P\x1b[2@".to_vec()),
            Just(b"\x1b[2;8r\x1b[8;1H\n\n\x1b[r".to_vec()),
            // Regions scrolled again and again between frames (damage a region scroll knows
            // to be there already): a status line under the text, RI at a top margin, SU, SD.
            Just(b"\x1b[1;9r\x1b[9;1Hy\r\nyy\r\nyyy\r\n".to_vec()),
            Just(b"\x1b[3;7r\x1b[3;1H\x1bMa\x1bMb\x1b[2Tc\x1b[S".to_vec()),
            Just(b"\x1b[r".to_vec()),
            Just(b"\x1b[10;1H\nz".to_vec()),
            Just(b"\x1b[?1049h".to_vec()),
            Just(b"\x1b[?1049l".to_vec()),
        ], 1..120),
        cut in 1usize..50,
    ) {
        let data = pieces.concat();
        let chunks: Vec<&[u8]> = data.chunks(cut).collect();
        present_and_check(&chunks, 30, 10);
    }
}

#[test]
fn blitty_s_own_row_over_a_double_width_row_is_single_width_until_the_next_frame() {
    let mut engine = Terminal::new(40, 3);
    let mut host = Terminal::new(40, 3);
    let mut p = AnsiPresenter::new(40, 3);
    let mut out = Vec::new();
    p.enter(&mut out);
    engine.feed(b"\x1b[3;1H\x1b#6double");
    p.frame(View::live(engine.screen()), &mut out);
    engine.screen_mut().clear_damage();
    host.feed(&out);
    out.clear();
    assert_eq!(host.screen().line_size(2), blitty_vt::LineSize::DoubleWidth);
    p.overlay(2, "(scrollback)", &mut out);
    host.feed(&out);
    out.clear();
    assert_eq!(host.screen().line_size(2), blitty_vt::LineSize::Single);
    assert!(host.screen().row_text(2).ends_with("(scrollback)"), "{:?}", host.screen().row_text(2));
    p.frame(View::live(engine.screen()), &mut out);
    host.feed(&out);
    assert_eq!(shown(&host, 2), shown(&engine, 2));
    assert_eq!(shown(&host, 2), (blitty_vt::LineSize::DoubleWidth, "double".to_string()));
}

/// The bytes that give the host back after the program wrote `outputs`, each presented in a
/// frame of its own.
fn leave_after(outputs: &[&[u8]]) -> Vec<u8> {
    let mut engine = Terminal::new(20, 4);
    let mut p = AnsiPresenter::new(20, 4);
    let mut out = Vec::new();
    p.enter(&mut out);
    for output in outputs {
        engine.feed(output);
        p.frame(View::live(engine.screen()), &mut out);
    }
    out.clear();
    p.leave(&mut out);
    out
}

#[test]
fn the_host_s_cursor_shape_is_reset_at_the_end_only_if_a_frame_changed_it() {
    let reset = blitty_present::ansi::RESET_CURSOR;
    let has_reset = |b: &[u8]| b.windows(reset.len()).any(|w| w == reset);
    // xterm takes DECSCUSR 0 for a blinking block: a program that never touched the cursor
    // must not leave an xterm user's cursor blinking.
    let untouched = leave_after(&[b"hello\r\n\x1b[?1049h", b"\x1b[?1049l"]);
    assert!(!has_reset(&untouched), "{}", String::from_utf8_lossy(&untouched));
    assert!(untouched.starts_with(blitty_present::ansi::RESET_HOST));
    // Nor one whose changes cancelled out within a frame: the host never saw them.
    let cancelled = leave_after(&[b"\x1b[6 qbar\x1b[0 q"]);
    assert!(!has_reset(&cancelled), "{}", String::from_utf8_lossy(&cancelled));
    // A shape the program set reached the host, so the end gives the host its own back, also
    // when the program set it back to 0 itself (the host was told 0 already, and is again).
    let shapes: [&[&[u8]]; 3] = [&[b"\x1b[5 q"], &[b"\x1b[6 qbar", b"\x1b[0 q"], &[b"\x1b[2 q"]];
    for outputs in shapes {
        let after = leave_after(outputs);
        assert!(has_reset(&after), "{outputs:?}: {}", String::from_utf8_lossy(&after));
        let mut host = Terminal::new(20, 4);
        host.feed(b"\x1b[4 q");
        host.feed(&after);
        assert_eq!(host.screen().modes().cursor_shape, blitty_vt::CursorShape::Default);
    }
}

#[test]
fn emoji_whose_width_terminals_disagree_on_reach_the_host_in_the_engine_s_cells() {
    // VS16 after a narrow emoji, VS15 after a wide one, a ZWJ family, a keycap base: the host
    // gets each without the selector or joiner, so a terminal that widens, narrows or joins them
    // still puts the text after them where the engine has it.
    let text = "a❤\u{fe0f}b⌚\u{fe0e}c👨\u{200d}👩\u{200d}👧d#\u{fe0f}eස\u{dca}\u{200d}රf";
    let mut engine = Terminal::new(40, 3);
    engine.feed(text.as_bytes());
    let mut p = AnsiPresenter::new(40, 3);
    let mut out = Vec::new();
    p.enter(&mut out);
    p.frame(View::live(engine.screen()), &mut out);
    let sent = String::from_utf8_lossy(&out).into_owned();
    assert!(!sent.contains('\u{fe0f}') && !sent.contains('\u{fe0e}'), "{sent:?}");
    assert!(sent.contains("👨👩👧"), "the family is sent as three pictures: {sent:?}");
    assert!(sent.contains("ස\u{dca}\u{200d}ර"), "a ZWJ in Sinhala is kept: {sent:?}");
    let mut host = Terminal::new(40, 3);
    host.feed(&out);
    // The engine's columns: a 0, ❤ 1, b 2, ⌚ 3-4, c 5, three wide emoji 6-11, d 12, # 13, e 14.
    let row = host.screen().row(0);
    let col = |x: usize| {
        let mut s = String::new();
        host.screen().push_cell_text(row[x], &mut s);
        s
    };
    assert_eq!([col(2), col(5), col(12), col(14)], ["b", "c", "d", "e"]);
    assert_eq!(host.screen().row_text(0), host_form(&engine.screen().row_text(0)));
}

#[test]
fn rows_scrolled_into_a_region_known_dirty_are_redrawn() {
    // A region scroll knows its rows are all dirty until the next frame; a scroll of the whole
    // screen in between brings a clean row into the region, which the next region scroll must
    // mark (on the alternate screen, whose scrolls do not count as history).
    let fill: String = (0..10).map(|i| format!("\x1b[{};1Hrow {i}", i + 1)).collect();
    let first = format!("\x1b[?1049h{fill}");
    let then = "\x1b[1;9r\x1b[9;1H\n\x1b[r\x1b[10;1H\n\x1b[1;9r\x1b[9;1H\n";
    present_and_check(&[first.as_bytes(), then.as_bytes()], 20, 10);
    let main = "\x1b[?1049l\x1b[1;9r\x1b[9;1H\n\x1b[r\x1b[10;1H\n\x1b[1;9r\x1b[9;1H\n";
    present_and_check(&[fill.as_bytes(), main.as_bytes()], 20, 10);
}
