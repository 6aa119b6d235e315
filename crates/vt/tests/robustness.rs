//! Robustness: input split anywhere gives the screen that whole input gives; no byte sequence
//! panics, moves the cursor off the screen, or grows memory past the engine's caps.

use blitty_vt::Terminal;
use proptest::prelude::*;

const CORPUS: &[(&str, &[u8])] = &[
    ("ls", include_bytes!("../../../corpus/ls.raw")),
    ("vim", include_bytes!("../../../corpus/vim.raw")),
    ("less", include_bytes!("../../../corpus/less.raw")),
    ("htop", include_bytes!("../../../corpus/htop.raw")),
    ("dialog", include_bytes!("../../../corpus/dialog.raw")),
    ("bash", include_bytes!("../../../corpus/bash.raw")),
    ("unicode", include_bytes!("../../../corpus/unicode.raw")),
];

/// Streams that put every parser state and UTF-8 length at a chunk boundary.
const TRICKY: &[&[u8]] = &[
    "字é😀\u{301}x\u{fe0f}".as_bytes(),
    b"\x1b[38:2::10:20:30;1;4:3mA\x1b[0m\x1b[?1049h\x1b[2;5r\x1b[3L\x1b[?1049l",
    b"\x1b]0;title \xe5\xad\x97\x07\x1b]8;id=1;https://x.example/\x1b\\link\x1b]8;;\x1b\\",
    b"\x1bP1$qm\x1b\\\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\after",
    b"\xc2\x9b2J\xc2\x9d2;c1 title\xc2\x9c\xe0\x80\xed\xa0\x80\xf4\x90\x80\x80\xff",
    b"\x1b(0lqk\x0e\x1b)0x\x0fmj\x1b#8\x1b[5;5H\x1b[4h\xe5\xad\x97\x1b[4l\x1bc",
];

fn screen_after(chunks: &[&[u8]]) -> String {
    let mut t = Terminal::with_scrollback(80, 24, 200);
    for c in chunks {
        t.feed(c);
    }
    let s = t.screen();
    let mut out = s.dump_text();
    out.push_str(&format!("title {:?} history {}\n", s.title(), s.history_len()));
    for y in 0..s.rows() {
        let row = s.row(y);
        out.push_str(&format!("{:?}\n", row.iter().map(|&c| row.style(c)).collect::<Vec<_>>()));
    }
    out
}

#[test]
fn every_stream_split_at_every_byte_gives_the_same_screen() {
    let streams =
        CORPUS.iter().map(|(n, d)| (n.to_string(), *d)).chain(TRICKY.iter().map(|d| ("tricky".to_string(), *d)));
    for (name, data) in streams {
        let whole = screen_after(&[data]);
        for cut in 1..data.len() {
            let split = screen_after(&[&data[..cut], &data[cut..]]);
            assert!(split == whole, "{name}: splitting at byte {cut} of {} changes the screen", data.len());
        }
    }
}

#[test]
fn byte_at_a_time_gives_the_same_screen() {
    for (name, data) in CORPUS {
        let bytes: Vec<&[u8]> = data.chunks(1).collect();
        assert!(screen_after(&bytes) == screen_after(&[data]), "{name}: one byte per read changes the screen");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_chunking_gives_the_same_screen(which in 0..CORPUS.len(), sizes in prop::collection::vec(1usize..4096, 1..64)) {
        let data = CORPUS[which].1;
        let mut chunks = Vec::new();
        let mut at = 0;
        for s in sizes.iter().cycle() {
            if at >= data.len() { break; }
            let end = (at + s).min(data.len());
            chunks.push(&data[at..end]);
            at = end;
        }
        prop_assert!(screen_after(&chunks) == screen_after(&[data]));
    }
}

const ESCAPES: &[&[u8]] = &[
    b"\x1b7", b"\x1b8", b"\x1bM", b"\x1bD", b"\x1bE", b"\x1bc", b"\x1b#8", b"\x1b#6", b"\x1b#3", b"\x1b#4", b"\x1b#5",
    b"\x1b(0", b"\x1b(B", b"\x0e", b"\x0f", b"\r\n", b"\t", b"\x08",
];
const MODES: &[&[u8]] = &[
    b"\x1b[?1049h",
    b"\x1b[?1049l",
    b"\x1b[?47h",
    b"\x1b[?69h",
    b"\x1b[2;5s",
    b"\x1b[?6h",
    b"\x1b[4h",
    b"\x1b[?7l",
    b"\x1b]8;;u\x07",
    b"\x1b]2;t\x07",
];

const RUN_CONTROLS: &[&[u8]] = &[
    b"\x1b[4h",
    b"\x1b[4l",
    b"\x1b[?7l",
    b"\x1b[?7h",
    b"\x1b[?69h\x1b[3;9s",
    b"\x1b[?69l",
    b"\x1bN",
    b"\x1bO",
    b"\x1b-A\x1b~",
    b"\x1b}",
    b"\x1b*0\x1b}",
    b"\x1b(0",
    b"\x1b(B",
    b"\x1b*B",
    b"\r\n",
    b"\x1b[2;5r",
    b"\x1b[r",
    b"\x08",
    b"\x1b[38;2;1;2;3m",
    b"\x1b[0m",
    b"\x1b#6",
    b"\x1b#3",
    b"\x1b#5",
    b"\x1b[?1049h",
    b"\x1b[?1049l",
];

/// Text that is mostly runs of characters that are not ASCII (wide, narrow, combining and runs of
/// more marks than the screen joins at once, ZWJ, regional indicators, skin tones, C1 sent in
/// UTF-8, an unassigned code point, Latin-1 that a charset in GR maps, and the ASCII before them,
/// spaces and words up to 8 bytes, which go with their runs, and longer, which do not; REP after
/// them), between the controls that change where and how a run is written: cursor moves onto
/// halves of wide characters, margins, insert mode, autowrap off, single shifts, sets in GL and
/// GR, double-size rows, the alternate screen.
fn unicode_runs() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        6 => prop::collection::vec(prop::sample::select(&["字", "é", "Ω", "─", "😀", "\u{301}", "\u{fe0f}", "\u{85}", "\u{e9}", "\u{ad}", "a", "\u{e0100}", " ", "ok ", "abcdefg", "\x1b[b", "\u{200d}", "👩", "🇯", "🇵", "🏽", "한", "\u{302}\u{303}\u{304}\u{305}\u{306}\u{307}\u{308}\u{309}\u{30a}\u{30b}\u{30c}\u{30d}\u{30e}\u{30f}\u{310}\u{311}\u{312}", "\u{9f}", "\u{378}"][..]), 1..40)
            .prop_map(|v| v.concat().into_bytes()),
        2 => (1u8..30, 1u8..12).prop_map(|(x, y)| format!("\x1b[{y};{x}H").into_bytes()),
        1 => prop::sample::select(RUN_CONTROLS).prop_map(|b| b.to_vec()),
    ];
    prop::collection::vec(piece, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// The parser hands whole runs of such characters to the screen, which writes a row's
    /// stretch of them at once; one byte per read, each comes alone.
    #[test]
    fn runs_of_characters_give_what_one_character_at_a_time_gives(data in unicode_runs(), cols in 1usize..30, rows in 1usize..12, cut in 0usize..10_000) {
        let bytes: Vec<&[u8]> = data.chunks(1).collect();
        let want = observed(cols, rows, 20, &bytes, false);
        prop_assert_eq!(observed(cols, rows, 20, &[&data], false), want.clone());
        let cut = cut % (data.len() + 1);
        prop_assert_eq!(observed(cols, rows, 20, &[&data[..cut], &data[cut..]], false), want);
    }
}

/// Every scalar value from U+0080 up, written as text arrives (whole buffers, which the screen
/// decodes and writes in one pass), gives the screen that the same bytes one per read give
/// (each character decoded and printed alone): wide, narrow, marks, characters with no width,
/// unassigned and private-use values, in blocks of 97 after ASCII or a wide character, on a
/// screen that wraps them and scrolls.
#[test]
fn every_scalar_value_written_in_one_pass_gives_what_one_at_a_time_gives() {
    let mut whole = Terminal::with_scrollback(40, 6, 0);
    let mut single = Terminal::with_scrollback(40, 6, 0);
    let chars: Vec<char> = (0x80..=0x10_ffffu32).filter_map(char::from_u32).collect();
    for (k, block) in chars.chunks(97).enumerate() {
        let lead = ["", "ab ", "字"][k % 3];
        let text: String = lead.chars().chain(block.iter().copied()).collect();
        whole.feed(text.as_bytes());
        for b in text.as_bytes().chunks(1) {
            single.feed(b);
        }
        let (a, b) = (whole.screen(), single.screen());
        let (ca, cb) = (a.cursor(), b.cursor());
        assert!(
            a.dump_text() == b.dump_text() && (ca.x, ca.y, ca.pending_wrap) == (cb.x, cb.y, cb.pending_wrap),
            "U+{:04X}..U+{:04X} after {lead:?}: in one pass\n{}\none at a time\n{}",
            block[0] as u32,
            block[block.len() - 1] as u32,
            a.dump_text(),
            b.dump_text()
        );
    }
}

/// Lines of plain text ending in CR LF (of every length from empty to wider than the screen),
/// between what decides whether the screen may take a stretch of them at once, and how it
/// writes and scrolls them: the pen (default, a palette colour, a background, an RGB colour), a
/// wide character on the bottom row, the cursor off the bottom row (and above a bottom row with
/// text on it, so that the first line taken at once overwrites it), scroll margins top/bottom
/// and left/right (a region with rows under or over it, its bottom row holding the cursor),
/// insert mode, autowrap off, newline mode, DEC graphics in GL, the alternate screen, LF alone,
/// and REP after them.
fn plain_lines() -> impl Strategy<Value = Vec<u8>> {
    let line = (prop_oneof![3 => 0usize..8, 1 => 0usize..34], any::<u8>()).prop_map(|(n, seed)| {
        let mut l: Vec<u8> = (0..n).map(|i| 0x20 + ((seed as usize + 7 * i) % 95) as u8).collect();
        l.extend_from_slice(b"\r\n");
        l
    });
    const STATE: &[&[u8]] = &[
        b"\x1b[m",
        b"\x1b[31m",
        b"\x1b[44m",
        b"\x1b[38;2;1;2;3m",
        b"\x1b[1;4;7m",
        b"\xe5\xad\x97",
        b"\x1b[999;1H\x1b[C\xe5\xad\x97\r",
        b"\x1b[2;1H",
        b"\x1b[999;1H\xe5\xad\x97ab\xe5\xad\x97\x1b[A\r",
        b"\x1b[?69h\x1b[1;3s\x1b[999;1H",
        b"\x1b[?69h\x1b[2;4s\x1b[999;1H",
        b"\x1b[2r",
        b"\x1b[r",
        // Regions with rows under them (a status line) or over them, the cursor on their
        // bottom row: lines there are taken at once too (`print_region_lines`).
        b"\x1b[1;3r\x1b[3;1H",
        b"\x1b[2;4r\x1b[4;1H",
        b"\x1b[1;2r\x1b[2;1H",
        // The line before goes to the region's bottom row without scrolling: the first taken
        // at once is written over a wide character there.
        b"\x1b[1;3r\x1b[3;2H\xe5\xad\x97\x1b[2;1H",
        b"\x1b[?69h\x1b[2;5s",
        b"\x1b[?69l",
        b"\x1b[4h",
        b"\x1b[4l",
        b"\x1b[?7l",
        b"\x1b[?7h",
        b"\x1b[20h",
        b"\x1b[20l",
        b"\x1b(0",
        b"\x1b(B",
        b"\x1b[?1049h",
        b"\x1b[?1049l",
        b"x\n",
        b"\x1b[3b",
        b"\x1b[999;1H",
    ];
    let piece = prop_oneof![
        8 => prop::collection::vec(line, 1..12).prop_map(|v| v.concat()),
        2 => prop::sample::select(STATE).prop_map(|b| b.to_vec()),
    ];
    prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16384, ..ProptestConfig::default() })]

    /// The parser offers the screen the whole lines after a CR LF, which it takes at once in a
    /// flood (the bottom row of a screen that scrolls whole); one byte per read, every line
    /// comes the general way. The screen, the history, the styles, the cursor, what is damaged
    /// and REP's character must not tell the two apart, at every size from 1x1 and with a
    /// history that fills after a few lines (and none).
    #[test]
    fn whole_lines_at_once_give_what_one_byte_at_a_time_gives(data in plain_lines(), cols in 1usize..30, rows in 1usize..8, scrollback in 0usize..6) {
        let bytes: Vec<&[u8]> = data.chunks(1).collect();
        prop_assert_eq!(observed(cols, rows, scrollback, &[&data], false), observed(cols, rows, scrollback, &bytes, false));
    }

    /// A flood fed at once (`feed_flood`, as `blitty run` feeds what came between two frames)
    /// skips the whole lines that later lines of the same feed scroll out of the history: what
    /// can be read of the screen afterwards must be what one byte at a time gives, whole or
    /// cut anywhere, with histories small enough that most feeds skip.
    #[test]
    fn a_flood_skipping_lines_no_one_sees_gives_what_one_byte_at_a_time_gives(data in plain_lines(), cols in 1usize..30, rows in 1usize..8, scrollback in 0usize..6, cut in 0usize..10_000) {
        let bytes: Vec<&[u8]> = data.chunks(1).collect();
        let want = observed(cols, rows, scrollback, &bytes, false);
        prop_assert_eq!(observed(cols, rows, scrollback, &[&data], true), want.clone());
        let cut = cut % (data.len() + 1);
        prop_assert_eq!(observed(cols, rows, scrollback, &[&data[..cut], &data[cut..]], true), want.clone());
        // Skipped first and fed after (`skip_unseen`, as `blitty run` trims what it gathers),
        // from wherever a feed left the screen.
        let mut t = Terminal::with_scrollback(cols, rows, scrollback);
        t.feed(&data[..cut]);
        let skipped = t.skip_unseen(&data[cut..]);
        t.feed(&data[cut + skipped..]);
        prop_assert_eq!(observe(t), want);
    }
}

/// Colour-dense output: SGRs of every kind (256-colour and RGB pairs, attributes, resets,
/// colours out of range, numbers past 65535, empty and missing parameters, sub-parameters, more
/// parameters than are kept), each followed by a few characters or none, between what decides
/// how a cell is written: the cursor moved about, the right edge and autowrap, insert mode, DEC
/// graphics, a wide character, margins, a hyperlink (styles that need a row's list), VT52 mode,
/// the alternate screen, REP.
fn coloured_cells() -> impl Strategy<Value = Vec<u8>> {
    let item = prop_oneof![
        4 => (0u32..300).prop_map(|n| format!("38;5;{n}")),
        4 => (0u32..300).prop_map(|n| format!("48;5;{n}")),
        3 => (0u32..300, 0u32..300, 0u32..300).prop_map(|(r, g, b)| format!("38;2;{r};{g};{b}")),
        2 => (0u32..300, 0u32..300, 0u32..300).prop_map(|(r, g, b)| format!("48;2;{r};{g};{b}")),
        3 => (0u32..110).prop_map(|n| n.to_string()),
        1 => prop::sample::select(vec!["", "38", "38;5", "48;2;1", "58;5;3", "70000", "0000001", "38:5:9", "4:3"])
            .prop_map(str::to_string),
    ];
    let sgr = prop::collection::vec(item, 0..6).prop_map(|v| format!("\x1b[{}m", v.join(";")).into_bytes());
    const STATE: &[&[u8]] = &[
        b"\r\n",
        b"\x1b[1;1H",
        b"\x1b[2;7H",
        b"\x1b[999;999H",
        b"\x1b[4h",
        b"\x1b[4l",
        b"\x1b(0",
        b"\x1b(B",
        b"\xe5\xad\x97",
        b"\x1b[?7l",
        b"\x1b[?7h",
        b"\x1b[?2l",
        b"\x1b<",
        b"\x1b[3b",
        b"\x1b[?1049h",
        b"\x1b[?1049l",
        b"\x1b[?69h\x1b[2;5s",
        b"\x1b[?69l",
        b"\x1b[2;4r",
        b"\x1b]8;;http://x\x07",
        b"\x1b]8;;\x07",
        b"\x1b[K",
    ];
    let cell = (sgr, prop::collection::vec(0x20u8..0x7f, 0..4)).prop_map(|(mut s, text)| {
        s.extend(text);
        s
    });
    let piece = prop_oneof![
        12 => prop::collection::vec(cell, 1..12).prop_map(|v| v.concat()),
        2 => prop::sample::select(STATE).prop_map(|b| b.to_vec()),
    ];
    prop::collection::vec(piece, 0..30).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    /// Whole SGRs are read by masks, and a character between two of them is taken without a
    /// turn of the parser's loop; one byte per read, each comes the general way. The screen,
    /// the history, the styles, the cursor, damage and REP's character must not tell the two
    /// apart, nor a cut anywhere.
    #[test]
    fn colour_dense_cells_at_once_give_what_one_byte_at_a_time_gives(data in coloured_cells(), cols in 1usize..90, rows in 1usize..8, scrollback in 0usize..6, cut in 0usize..10_000) {
        let bytes: Vec<&[u8]> = data.chunks(1).collect();
        let want = observed(cols, rows, scrollback, &bytes, false);
        prop_assert_eq!(observed(cols, rows, scrollback, &[&data], false), want.clone());
        let cut = cut % (data.len() + 1);
        prop_assert_eq!(observed(cols, rows, scrollback, &[&data[..cut], &data[cut..]], false), want);
    }
}

/// Everything that can be read of a screen fed `chunks` (with `feed_flood` when `flood`): the
/// text, the cursor and pending wrap, rows scrolled and pushed, each row's styles, wrap flag and
/// damage, every history row with its styles and wrap flag, and REP's character.
fn observed(cols: usize, rows: usize, scrollback: usize, chunks: &[&[u8]], flood: bool) -> String {
    let mut t = Terminal::with_scrollback(cols, rows, scrollback);
    for c in chunks {
        if flood {
            t.feed_flood(c);
        } else {
            t.feed(c);
        }
    }
    observe(t)
}

/// What [`observed`] reads of `t`.
fn observe(mut t: Terminal) -> String {
    if let Err(v) = t.screen().check_integrity() {
        panic!("{v}");
    }
    // REP repeats the last character printed, wherever the cursor is now.
    t.feed(b"\x1b[?1049l\x1b[1;1H\x1b[2b");
    let s = t.screen();
    let mut out = s.dump_text();
    let c = s.cursor();
    out.push_str(&format!(
        "cursor {} {} {} scrolled {} pushed {}\n",
        c.x,
        c.y,
        c.pending_wrap,
        s.scrolled(),
        s.history_pushed()
    ));
    for y in 0..s.rows() {
        let row = s.row(y);
        out.push_str(&format!(
            "{:?} {:?} {:?}\n",
            row.iter().map(|&c| row.style(c)).collect::<Vec<_>>(),
            s.row_wrapped(y),
            s.row_damage(y)
        ));
    }
    for i in 0..s.history_len() {
        let row = s.history_row(i);
        out.push_str(&format!(
            "{:?} {:?} {:?}\n",
            s.cells_text(&row),
            row.iter().map(|&c| row.style(c)).collect::<Vec<_>>(),
            s.history_wrapped(i)
        ));
    }
    out
}

/// Bytes biased towards what terminals parse: escapes, CSI parameters, UTF-8 lead bytes.
fn terminal_bytes() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => prop::collection::vec(any::<u8>(), 1..16),
        2 => "[ -~]{1,20}".prop_map(|s| s.into_bytes()),
        3 => (prop::sample::select(&b"@ABCDEFGHIJKLMPSTXZ`abcdefghlmnpqrstuvxz{}~"[..]), prop::collection::vec(0u32..70000, 0..9), prop::sample::select(&["", "?", ">", "!", "$", " ", "\"", "*", "'"][..]))
            .prop_map(|(f, ps, m)| {
                let ps: Vec<String> = ps.iter().map(|p| p.to_string()).collect();
                let (private, inter) = if matches!(m, "?" | ">") { (m, "") } else { ("", m) };
                format!("\x1b[{private}{}{inter}{}", ps.join(";"), f as char).into_bytes()
            }),
        1 => prop::sample::select(ESCAPES).prop_map(|b| b.to_vec()),
        1 => prop::sample::select(&["字", "é", "\u{301}", "😀", "\u{200d}", "\u{fe0f}"][..]).prop_map(|s| s.as_bytes().to_vec()),
        1 => prop::sample::select(MODES).prop_map(|b| b.to_vec()),
        // Styles of both kinds: palette colours (packed in the cell) and RGB ones (listed).
        1 => (0u8..=255, prop::bool::ANY, prop::bool::ANY).prop_map(|(k, rgb, bg)| {
            let ground = if bg { 4 } else { 3 };
            if rgb { format!("\x1b[{ground}8;2;{k};{};7m", 255 - k) } else { format!("\x1b[{ground}8;5;{k}m") }.into_bytes()
        }),
    ];
    prop::collection::vec(piece, 0..200).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn no_input_panics_escapes_the_screen_or_exceeds_caps(data in terminal_bytes(), cols in 1usize..100, rows in 1usize..40, resize in proptest::option::of((1usize..100, 1usize..40))) {
        let mut t = Terminal::with_scrollback(cols, rows, 50);
        let half = data.len() / 2;
        t.feed(&data[..half]);
        if let Some((c, r)) = resize {
            t.resize(c, r);
        }
        t.feed(&data[half..]);
        let s = t.screen();
        let c = s.cursor();
        prop_assert!(c.x < s.cols() && c.y < s.rows(), "cursor {:?} outside {}x{}", c, s.cols(), s.rows());
        let (top, bottom, left, right) = s.margins();
        prop_assert!(top <= bottom && bottom < s.rows() && left <= right && right < s.cols());
        prop_assert!(s.history_len() <= 50);
        prop_assert!(s.title().len() <= blitty_vt::term::MAX_TITLE);
        for y in 0..s.rows() {
            let row = s.row(y);
            prop_assert_eq!(row.len(), s.cols());
            // A wide character's right half always follows its left half.
            for x in 0..row.len() {
                if row[x].is_spacer() {
                    prop_assert!(x > 0 && row[x - 1].is_wide(), "orphan spacer at {},{}", y, x);
                }
                if row[x].is_wide() {
                    prop_assert!(x + 1 < row.len() && row[x + 1].is_spacer(), "wide without spacer at {},{}", y, x);
                }
            }
        }
        let replies = t.take_replies();
        prop_assert!(replies.len() <= blitty_vt::term::MAX_REPLIES);
    }
}

#[test]
fn huge_parameters_and_payloads_stay_within_caps() {
    let mut t = Terminal::with_scrollback(80, 24, 100);
    t.feed(b"\x1b[99999999999999999999;99999999999999999999H");
    let c = t.screen().cursor();
    assert_eq!((c.y, c.x), (23, 79));
    let mut title = b"\x1b]2;".to_vec();
    title.extend(std::iter::repeat_n(b'x', 3000));
    title.push(7);
    t.feed(&title);
    assert!(t.screen().title().len() <= blitty_vt::term::MAX_TITLE);
    for _ in 0..100_000 {
        t.feed(b"\x1b[6n");
    }
    assert!(t.take_replies().len() <= blitty_vt::term::MAX_REPLIES);
    t.feed(b"\x1b[65535b\x1b[65535@\x1b[65535L\x1b[65535S");
    let mut combining = b"e".to_vec();
    for _ in 0..10_000 {
        combining.extend("\u{301}".as_bytes());
    }
    t.feed(&combining);
    let c = t.screen().cursor();
    assert!(c.x < 80 && c.y < 24);
}

/// Scrolls of a region in one sequence (`CSI n S`, `CSI n T`) and in single lines (`CSI S`
/// n times): a single line takes the short way (`Grid::scroll_region_one`), several at once
/// the general one. Regions at the top, the bottom and in the middle, on the main screen (with
/// a history that fills) and the alternate screen, in the default blank and a coloured one,
/// with text between. (At most the region's height at once: xterm scrolls no more than that.)
fn region_scrolls() -> impl Strategy<Value = Vec<(Vec<u8>, u8, usize)>> {
    let op = prop_oneof![
        (1usize..8, 0usize..8).prop_map(|(t, b)| (format!("\x1b[{t};{}r", t + b).into_bytes(), 0, 0)),
        Just((b"\x1b[r".to_vec(), 0, 0)),
        (1usize..9, 0u8..20).prop_map(|(y, k)| (format!("\x1b[{y};1Hline {k}").into_bytes(), 0, 0)),
        Just((b"\x1b[44m".to_vec(), 0, 0)),
        Just((b"\x1b[m".to_vec(), 0, 0)),
        Just((b"\x1b[?1049h".to_vec(), 0, 0)),
        Just((b"\x1b[?1049l".to_vec(), 0, 0)),
        (prop::sample::select(b"ST".to_vec()), 1usize..5).prop_map(|(f, n)| (Vec::new(), f, n)),
    ];
    prop::collection::vec(op, 0..40)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn a_region_scrolled_n_lines_at_once_gives_what_n_single_lines_give(ops in region_scrolls(), cols in 1usize..12, rows in 1usize..9, scrollback in 0usize..5) {
        let mut probe = Terminal::with_scrollback(cols, rows, scrollback);
        let mut at_once = Vec::new();
        let mut singly = Vec::new();
        for (bytes, f, n) in &ops {
            if *n == 0 {
                probe.feed(bytes);
                at_once.extend_from_slice(bytes);
                singly.extend_from_slice(bytes);
            } else {
                let (top, bottom, _, _) = probe.screen().margins();
                let n = (*n).min(bottom + 1 - top);
                at_once.extend_from_slice(format!("\x1b[{n}{}", *f as char).as_bytes());
                for _ in 0..n {
                    singly.extend_from_slice(format!("\x1b[{}", *f as char).as_bytes());
                }
            }
        }
        prop_assert_eq!(observed(cols, rows, scrollback, &[&at_once], false), observed(cols, rows, scrollback, &[&singly], false));
    }
}
