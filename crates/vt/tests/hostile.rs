//! The hostile-input suite: what an attacker (a program, a serial device) or a careless user
//! found, kept as tests. Each test names the finding it keeps fixed. Sized to run in seconds in
//! a release build; CI also runs it under the `checked` profile (overflow checks on, and the
//! screen's integrity checked after every `feed` and `resize`: see `term::integrity`).

use std::hash::BuildHasher;

use blitty_vt::style::{Color, SeededState, Style};
use blitty_vt::term::{MAX_COLS, MAX_ROWS, MAX_SCROLLBACK};
use blitty_vt::Terminal;
use unicode_width::UnicodeWidthChar;

fn check(t: &Terminal, what: &str) {
    if let Err(v) = t.screen().check_integrity() {
        panic!("{what}: {v}\n{}", t.screen().dump_text());
    }
}

use crate::common::Rng;

// ---- 1. No character may crash the engine --------------------------------------------------

#[test]
fn khmer_sign_beyyal_on_a_1x1_screen_without_scrollback() {
    // `printf '\xe1\x9f\x98\n' > k; blitty replay k --size 1x1 --scrollback 0` panicked:
    // unicode-width gives U+17D8 width 3, and the row's used bound ran past its one column.
    let mut t = Terminal::with_scrollback(1, 1, 0);
    t.feed(b"\xe1\x9f\x98\n");
    check(&t, "U+17D8 then LF at 1x1");
    t.feed("\u{17D8}\u{17D8}\r\n\u{17D8}".as_bytes());
    check(&t, "again");
    assert_eq!(t.screen().row_text(0), "\u{17D8}");
}

#[test]
fn khmer_sign_beyyal_in_the_last_columns_then_a_full_scrollback() {
    // 78 x, U+17D8, then 10,030 newlines at 80x24 panicked when the row was recycled.
    let mut t = Terminal::new(80, 24);
    t.feed(&[b'x'; 78]);
    t.feed("\u{17D8}".as_bytes());
    assert_eq!(t.screen().cursor().x, 79, "U+17D8 takes one cell, as in xterm");
    t.feed(&[b'\n'; 10_030]);
    check(&t, "after the scrollback filled");
    // A resize after such lines crashed too.
    for (c, r) in [(79, 24), (3, 2), (1, 1), (200, 50), (80, 24)] {
        t.resize(c, r);
        check(&t, &format!("resize to {c}x{r}"));
    }
}

/// The cells the engine gives a character, stated as xterm's rule: a control is not printed, a
/// zero-width character joins the previous cell, East Asian wide and emoji presentation take
/// two cells, and every other character one (never more, whatever the width table says).
fn xterm_cells(c: char) -> Option<usize> {
    c.width().map(|w| if w == 2 { 2 } else { w.min(1) })
}

/// Prints every Unicode scalar value at every column of the bottom row of a `cols` x `rows`
/// screen, checking the cells it took and the screen's integrity, then a line feed that
/// scrolls and recycles rows.
fn every_scalar_at_every_column(cols: usize, rows: usize) {
    let mut t = Terminal::with_scrollback(cols, rows, 2);
    let mut buf = [0u8; 4];
    for c in (0..=0x10_FFFFu32).filter_map(char::from_u32) {
        let Some(cells) = xterm_cells(c) else { continue };
        for x in 0..cols {
            t.feed(format!("\x1b[{rows};{}H", x + 1).as_bytes());
            t.feed(c.encode_utf8(&mut buf).as_bytes());
            let s = t.screen();
            let row = s.row(rows - 1);
            match cells {
                1 => assert_eq!(row[x].char_value(), Some(c), "U+{:04X} at column {x} of {cols}x{rows}", c as u32),
                2 if x + 1 < cols => {
                    assert!(row[x].is_wide() && row[x + 1].is_spacer(), "U+{:04X} at {x}", c as u32);
                    assert_eq!(row[x].char_value(), Some(c));
                }
                _ => {}
            }
            t.feed(b"\n");
            check(&t, &format!("U+{:04X} at column {x} of {cols}x{rows}", c as u32));
        }
    }
}

#[test]
fn every_scalar_value_at_every_column_of_narrow_screens() {
    let sizes = [(1, 1), (2, 1), (1, 2), (2, 2), (3, 2)];
    std::thread::scope(|s| {
        for (cols, rows) in sizes {
            s.spawn(move || every_scalar_at_every_column(cols, rows));
        }
    });
}

/// Tokens from every escape family and every width class, for random streams.
fn token(rng: &mut Rng, out: &mut Vec<u8>) {
    const TOKENS: &[&str] = &[
        "a",
        "xyz",
        " ",
        "\r",
        "\n",
        "\x08",
        "\t",
        "\x07",
        "\x0e",
        "\x0f",
        "\x1b7",
        "\x1b8",
        "\x1bD",
        "\x1bE",
        "\x1bM",
        "\x1bc",
        "\x1b#8",
        "\x1b#6",
        "\x1b#3",
        "\x1b#5",
        "\x1b(0",
        "\x1b(B",
        "\x1b)0",
        "\x1bn",
        "\x1bo",
        "\x1bN",
        "\x1bO",
        "\x1b~",
        "\x1b}",
        "\x1b|",
        "\x1b-A",
        "\x1b+>",
        "\x1b*%5",
        "\u{e9}",
        "\x1bV",
        "\x1bW",
        "\x1b[1\"q",
        "\x1b[?2J",
        "\x1b[2*x",
        "\x1b[42;2;2;9;9$x",
        "\x1b[1;3;4;9$z",
        "\x1b[$z",
        "\x1b[2;1;3;5${",
        "\x1b[1;1;3;6;1;2;3;1$v",
        "\x1b[2;2;4;9;1;4;7$r",
        "\x1b[1;3;9;9;0$t",
        "\x1b[?45h",
        "\x1b[?1045h",
        "\x1b[?45l",
        "\x1b[?3h",
        "\x1b[?95h",
        "\x1b[9999D",
        "\x1b=",
        "\x1b>",
        "\u{17D8}",
        "字",
        "😀",
        "\u{301}",
        "\u{200d}",
        "\u{fe0f}",
        "e\u{301}\u{302}\u{303}",
        "\u{1F1EF}\u{1F1F5}",
        "\u{AD}",
        "\u{E000}",
        "\u{10FFFF}",
        "\u{FFFD}",
        "\x7f",
        "\u{85}",
        "\x1b[?6h",
        "\x1b[?6l",
        "\x1b[?69h",
        "\x1b[?69l",
        "\x1b[?7l",
        "\x1b[?7h",
        "\x1b[4h",
        "\x1b[4l",
        "\x1b[?1049h",
        "\x1b[?1049l",
        "\x1b[?47h",
        "\x1b[?1047l",
        "\x1b[6n",
        "\x1b[?6n",
        "\x1b[c",
        "\x1b[>c",
        "\x1b[?25$p",
        "\x1b[!p",
        "\x1b[s",
        "\x1b[u",
        "\x1b]0;title\x07",
        "\x1b]8;;http://x/\x1b\\",
        "\x1b]8;;\x1b\\",
        "\x1bP$qm\x1b\\",
        "\x1b_apc\x1b\\",
        "\x1b[38;2;1;2;3m",
        "\x1b[58:2::9:8:7m",
        "\x1b[4:3m",
        "\x1b[0m",
        "\x1b[7m",
        "\x1b[3J",
        "\x1b[2J",
        "\x1b[J",
        "\x1b[1K",
    ];
    const CSI_FINALS: &[u8] = b"@ABCDEFGHIJKLMPSTXZ`abdefghlmnqrstu";
    match rng.below(4) {
        0 => {
            // A CSI with random (sometimes huge or many) parameters.
            out.extend_from_slice(b"\x1b[");
            for i in 0..rng.below(4) {
                if i > 0 {
                    out.push(b';');
                }
                let v = match rng.below(4) {
                    0 => 0,
                    1 => rng.below(8),
                    2 => rng.below(100),
                    _ => 65_535 + rng.below(10),
                };
                out.extend_from_slice(v.to_string().as_bytes());
            }
            out.push(CSI_FINALS[rng.below(CSI_FINALS.len())]);
        }
        1 => out.push(rng.next() as u8),
        _ => out.extend_from_slice(TOKENS[rng.below(TOKENS.len())].as_bytes()),
    }
}

#[test]
fn random_streams_at_every_small_size_keep_every_invariant() {
    // `--size 1x1, 2x2, 1x2, 2x1` with random input panicked at the same line as U+17D8.
    for cols in 1..=4 {
        for rows in 1..=4 {
            for seed in 0..24u64 {
                let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (seed << 16 | (cols * 8 + rows) as u64));
                let mut t = Terminal::with_scrollback(cols, rows, rng.below(3));
                let mut stream = Vec::new();
                for _ in 0..600 {
                    token(&mut rng, &mut stream);
                }
                for chunk in stream.chunks(1 + rng.below(7)) {
                    t.feed(chunk);
                    check(&t, &format!("{cols}x{rows} seed {seed}"));
                    let _ = t.take_replies();
                }
                t.resize(1 + rng.below(5), 1 + rng.below(5));
                check(&t, &format!("{cols}x{rows} seed {seed} after a resize"));
            }
        }
    }
}

// ---- 3. No input may make the time per byte grow ---------------------------------------------

/// How evenly a family of distinct values spreads over the low bits the hash table indexes by:
/// the share of 2^16 buckets hit by 2^16 values (random hashing hits 1 - 1/e = 63%).
fn bucket_share<T: std::hash::Hash>(values: impl Iterator<Item = T>) -> f64 {
    let state = SeededState::default();
    let mut hit = vec![false; 1 << 16];
    for v in values.take(1 << 16) {
        hit[(state.hash_one(&v) & 0xffff) as usize] = true;
    }
    hit.iter().filter(|&&h| h).count() as f64 / (1 << 16) as f64
}

#[test]
fn distinct_styles_and_links_spread_over_the_table() {
    // 800,000 distinct underline colours took 9-10.5 s (100,000 took 0.1 s): the values fell
    // into a few buckets. Each family a flood can make must spread as random values do.
    let rgb = |i: u32| Color::Rgb((i >> 16) as u8, (i >> 8) as u8, i as u8);
    let families: Vec<(&str, f64)> = vec![
        ("underline colours", bucket_share((0..).map(|i| Style { underline_color: rgb(i), ..Style::default() }))),
        ("foregrounds", bucket_share((0..).map(|i| Style { fg: rgb(i), ..Style::default() }))),
        ("backgrounds", bucket_share((0..).map(|i| Style { bg: rgb(i), ..Style::default() }))),
        ("links", bucket_share((0..).map(|i| format!("\0https://example.com/page/{i}").into_boxed_str()))),
    ];
    for (name, share) in families {
        assert!(share > 0.55, "{name}: only {:.1}% of the buckets are used", share * 100.0);
    }
}

/// Makes the i-th distinct value of a flood.
type Value<'a> = dyn Fn(usize) -> String + 'a;

/// Feeds `n` distinct values made by `value(i)` at 80x24 after filling the default scrollback,
/// and returns the cells the collector scanned meanwhile and the tables' sizes.
fn flood(n: usize, value: impl Fn(usize) -> String) -> (u64, (usize, usize, usize)) {
    let mut t = Terminal::new(80, 24);
    // A full scrollback first: each collection then scans 800,000 cells.
    for i in 0..10_100 {
        t.feed(format!("line {i} of text before the flood\r\n").as_bytes());
    }
    let (_, before) = t.screen().collector_work();
    let mut chunk = String::new();
    for i in 0..n {
        chunk.push_str(&value(i));
        if chunk.len() > 60_000 {
            t.feed(chunk.as_bytes());
            chunk.clear();
        }
    }
    t.feed(chunk.as_bytes());
    check(&t, "after the flood");
    let (_, scanned) = t.screen().collector_work();
    (scanned - before, t.screen().interned_lens())
}

#[test]
fn collecting_distinct_values_costs_the_same_per_value_at_any_count() {
    // The collector's work per new value must not grow with what was seen (it is paid for by
    // the values added since the last collection), and the tables stay bounded by the cells
    // that exist (80 x (24 + 10,000) here), whatever the count.
    let cells = 80 * (24 + 10_000);
    let underline = |i: usize| format!("\x1b[58:2::{}:{}:{}mx", i >> 16 & 255, i >> 8 & 255, i & 255);
    let link = |i: usize| format!("\x1b]8;;https://example.com/{i}\x1b\\x");
    let cluster = |i: usize| {
        let mark = |k: usize| char::from_u32(0x300 + (k % 112) as u32).unwrap_or('\u{301}');
        format!("{}{}{}{}", char::from(b'a' + (i % 26) as u8), mark(i / 26), mark(i / 2912), mark(i / 326_144))
    };
    // Values no cell keeps (a link never printed, a cluster overwritten in place): the tables
    // hold few live entries, and a collection after every few hundred new ones scanned the
    // whole scrollback each time (33 MB of unprinted links: 4.1 s, 1 s now).
    let bare_link = |i: usize| format!("\x1b]8;;https://example.com/{i}\x1b\\");
    let overwritten = |i: usize| format!("\r{}", cluster(i));
    // With the entries each value adds to the tables: a printed link is a link and a style, a
    // cluster of three marks is one cluster, or two when the screen's pass is cut inside its
    // marks (at a read's end, or after 16 marks: the rest join the first part's cluster).
    let families: [(&str, &Value<'_>, u64); 5] = [
        ("underline colours", &underline, 1),
        ("links", &link, 2),
        ("clusters", &cluster, 2),
        ("links never printed", &bare_link, 1),
        ("clusters overwritten", &overwritten, 2),
    ];
    for (name, value, entries) in families {
        for n in [100_000, 800_000] {
            // At most 4 cells per new entry, plus the first collections (each scans every
            // cell) before the allowance has grown to a quarter of the cells, and the last one.
            let (scanned, _) = flood(n, value);
            let bound = 4 * entries * n as u64 + 3 * cells as u64;
            assert!(scanned <= bound, "{name}: {scanned} cells scanned for {n} values (at most {bound})");
        }
        let (_, sizes) = flood(800_000, value);
        let (styles, clusters, links) = sizes;
        for (table, len) in [("styles", styles), ("clusters", clusters), ("links", links)] {
            assert!(len <= 2 * cells + 4096, "{name}: {len} {table} kept for {cells} cells");
        }
    }
}

#[test]
fn distinct_clusters_keep_their_text_through_every_collection() {
    // Clusters live in an arena that each collection compacts, and a cluster grown by one more
    // mark shares its prefix's bytes. Lines of mostly distinct clusters (a base and 1-6 marks,
    // some repeated so the cache answers, some overwritten in place) must read back exactly,
    // in the scrollback and on the screen, after each of many collections.
    let (cols, rows, keep) = (40, 4, 30);
    let mut t = Terminal::with_scrollback(cols, rows, keep);
    let mut rng = Rng(0x5eed_c105);
    let mut lines: Vec<String> = Vec::new();
    let cluster = |rng: &mut Rng| {
        let mut s = String::new();
        s.push(char::from(b'a' + rng.below(26) as u8));
        for _ in 0..1 + rng.below(6) {
            s.push(char::from_u32(0x300 + rng.below(112) as u32).unwrap());
        }
        s
    };
    let mut repeated = cluster(&mut rng);
    for round in 0..3000 {
        let mut line = String::new();
        let mut bytes = String::new();
        for x in 0..cols - 1 {
            let c = match rng.below(8) {
                0 => repeated.clone(),
                1 => {
                    repeated = cluster(&mut rng);
                    repeated.clone()
                }
                2 => "é".to_string(),
                _ => cluster(&mut rng),
            };
            if x == 5 && round % 3 == 0 {
                // A cluster overwritten in place: printed, then the cursor goes back over it.
                bytes.push_str(&cluster(&mut rng));
                bytes.push('\x08');
            }
            bytes.push_str(&c);
            line.push_str(&c);
        }
        bytes.push_str("\r\n");
        t.feed(bytes.as_bytes());
        lines.push(line);
        if round > 100 && round % 97 == 0 || round == 2999 {
            check(&t, "after a line of clusters");
            let s = t.screen();
            let held: Vec<String> = (0..s.history_len())
                .map(|i| s.cells_text(&s.history_row(i)))
                .chain((0..rows - 1).map(|y| s.row_text(y)))
                .collect();
            let want = &lines[lines.len() - held.len()..];
            assert_eq!(held, want, "after line {round}");
        }
    }
    let (collections, _) = t.screen().collector_work();
    assert!(collections >= 20, "only {collections} collections: the test did not exercise them");
}

// ---- 4. Bounds on every size ---------------------------------------------------------------

#[test]
fn absurd_sizes_are_clamped_and_memory_stays_bounded() {
    // `--size 65534x65534` aborted on an 8 GB allocation; `65534x1` took 5 GB for 1 MB.
    let t = Terminal::with_scrollback(65_534, 65_534, 99_999_999_999);
    assert_eq!((t.screen().cols(), t.screen().rows()), (MAX_COLS, MAX_ROWS));
    let cells = 8 * MAX_COLS * MAX_ROWS;
    assert!(
        t.screen().memory_bytes() <= 2 * cells + (1 << 20),
        "{} bytes before any content",
        t.screen().memory_bytes()
    );
    let mut t = Terminal::with_scrollback(65_534, 1, MAX_SCROLLBACK * 10);
    t.feed(&vec![b'\n'; 1 << 20]);
    check(&t, "a megabyte of newlines on the widest row");
    let bound = 8 * (blitty_vt::grid::MAX_HISTORY_CELLS + 2 * MAX_COLS) * 2;
    assert!(t.screen().memory_bytes() <= bound, "{} bytes", t.screen().memory_bytes());
    let mut t = Terminal::new(80, 24);
    t.resize(usize::MAX, usize::MAX);
    assert_eq!((t.screen().cols(), t.screen().rows()), (MAX_COLS, MAX_ROWS));
    t.resize(0, 0);
    assert_eq!((t.screen().cols(), t.screen().rows()), (1, 1));
}

// ---- 5. Cursor reports never name a position off the screen ----------------------------------

fn answer(t: &mut Terminal, bytes: &[u8]) -> String {
    let _ = t.take_replies();
    t.feed(bytes);
    String::from_utf8(t.take_replies()).expect("ASCII")
}

#[test]
fn a_cursor_restored_above_the_margins_is_reported_on_the_screen() {
    // Reported as row 18446744073709551613.
    let mut t = Terminal::new(80, 24);
    assert_eq!(answer(&mut t, b"\x1b[?6h\x1b7\x1b[5;10r\x1b8\x1b[6n"), "\x1b[1;1R");
    assert_eq!(answer(&mut t, b"\x1b[?6n"), "\x1b[?1;1R");
    // With left/right margins: column 18446744073709551608.
    let mut t = Terminal::new(80, 24);
    assert_eq!(answer(&mut t, b"\x1b[?69h\x1b[?6h\x1b7\x1b[10;20s\x1b8\x1b[6n"), "\x1b[1;1R");
}

#[test]
fn every_restore_under_every_margin_reports_a_position_on_the_screen() {
    // xterm's DECRC in origin mode sets the saved position as CUP would, relative to the
    // margins: confined to the bottom (and, with DECLRMM, right) margin, possibly above or
    // left of the region. The report is relative to the margins, and never below 1.
    let (cols, rows) = (6, 5);
    for (sx, sy) in (0..cols).flat_map(|x| (0..rows).map(move |y| (x, y))) {
        for (top, bottom) in (0..rows).flat_map(|t| (t + 1..rows).map(move |b| (t, b))) {
            for (left, right) in (0..cols).flat_map(|l| (l + 1..cols).map(move |r| (l, r))) {
                // Saved in origin mode with the full screen as the region (DECSC saves DECOM too),
                // restored after the margins narrowed.
                let mut t = Terminal::new(cols, rows);
                t.feed(format!("\x1b[?69h\x1b[?6h\x1b[{};{}H\x1b7", sy + 1, sx + 1).as_bytes());
                t.feed(format!("\x1b[{};{}s\x1b[{};{}r\x1b8", left + 1, right + 1, top + 1, bottom + 1).as_bytes());
                let c = t.screen().cursor();
                assert_eq!(
                    (c.x, c.y),
                    (sx.min(right), sy.min(bottom)),
                    "saved {sx},{sy} margins {top}-{bottom} {left}-{right}"
                );
                let want =
                    format!("\x1b[{};{}R", (c.y + 1).saturating_sub(top).max(1), (c.x + 1).saturating_sub(left).max(1));
                assert_eq!(answer(&mut t, b"\x1b[6n"), want);
                check(&t, "after the restore");
            }
        }
    }
}

// ---- Streams of the attack, at scale --------------------------------------------------------

#[test]
fn random_bytes_with_every_width_class_at_80x24_keep_every_invariant() {
    // `cat` of random bytes crashed `blitty run` (U+17D8 is 3 random bytes away).
    let mut rng = Rng(42);
    let mut t = Terminal::new(80, 24);
    for round in 0..40 {
        let mut stream = Vec::new();
        for _ in 0..4000 {
            token(&mut rng, &mut stream);
        }
        t.feed(&stream);
        check(&t, &format!("round {round}"));
        let _ = t.take_replies();
    }
}
