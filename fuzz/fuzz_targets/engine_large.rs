//! Fuzzes the engine with what costs work on large screens, fed as the event loops feed it.
//!
//! The first bytes choose the size (a quarter of the inputs each: tiny, up to 200x100, any up to
//! 2048x1024, and from 1024x512 to the largest, 2048x1024), the scrollback and the budget of a
//! turn. The rest is the stream, where a byte from 0xf8 up (never one of UTF-8) and the byte
//! after it choose a sequence from the table below, its numbers taken from the bytes after (0,
//! 1, 2, the screen's middle, its last row or column, one past it, 65535, or the byte itself):
//! margins (DECSLRM, DECSTBM, DECLRMM, DECOM), IL DL ICH DCH SU SD ECH, SL SR DECIC DECDC,
//! DECCRA DECFRA DECERA DECSERA DECCARA DECRARA DECSACE, DECALN, with text, colours, links,
//! wide characters, marks and modes among them; every other byte goes as it is (the tokens of
//! engine_large.dict too).
//!
//! The stream is fed through `feed_bounded` in turns of the budget, each turn taking at least
//! a byte and at most the stream; the engine must not panic (overflow checks and debug
//! assertions are on: see fuzz/README.md), and every invariant of the screen
//! (`Screen::check_integrity`) must hold after each turn. On screens small enough to feed
//! twice, the turns must leave the screen, history, cursor and styles one `feed` of the stream
//! leaves.
#![no_main]

use blitty_vt::Terminal;
use libfuzzer_sys::fuzz_target;

/// The number byte `b` stands for, on a side of `max` cells: the edges and just past them,
/// the most a parameter holds, or the byte itself.
fn num(b: u8, max: usize) -> usize {
    match b % 8 {
        0 => 0,
        1 => 1,
        2 => 2,
        3 => max.div_ceil(2),
        4 => max.saturating_sub(1).max(1),
        5 => max,
        6 => 65_535,
        _ => b as usize,
    }
}

/// Appends the sequence `pick` chooses, its numbers read from `args`, to `out`.
fn sequence(out: &mut Vec<u8>, pick: u8, args: &mut impl Iterator<Item = u8>, cols: usize, rows: usize) {
    let mut arg = || args.next().unwrap_or(0);
    let row = |a: u8| num(a, rows);
    let col = |a: u8| num(a, cols);
    let s = match pick % 40 {
        0 => "\x1b[?69h".to_string(),
        1 => "\x1b[?69l".to_string(),
        2 => format!("\x1b[{};{}s", col(arg()), col(arg())),
        3 => format!("\x1b[{};{}r", row(arg()), row(arg())),
        4 => format!("\x1b[{}L", row(arg())),
        5 => format!("\x1b[{}M", row(arg())),
        6 => format!("\x1b[{}@", col(arg())),
        7 => format!("\x1b[{}P", col(arg())),
        8 => format!("\x1b[{}S", row(arg())),
        9 => format!("\x1b[{}T", row(arg())),
        10 => format!("\x1b[{}X", col(arg())),
        11..=16 => {
            // A rectangle: top, left, bottom, right.
            let r = format!("{};{};{};{}", row(arg()), col(arg()), row(arg()), col(arg()));
            match pick % 40 {
                11 => format!("\x1b[{r};1;{};{};1$v", row(arg()), col(arg())),
                12 => {
                    let c = [32, 42, 69, 0x7e, 0xe9, 0x263a, 0x5b57, 0x301][arg() as usize % 8];
                    format!("\x1b[{c};{r}$x")
                }
                13 => format!("\x1b[{r}$z"),
                14 => format!("\x1b[{r}${{"),
                k => {
                    let ops = [0, 1, 4, 5, 7, 8, 22, 24, 25, 27, 28];
                    let (a, b) = (ops[arg() as usize % ops.len()], ops[arg() as usize % ops.len()]);
                    format!("\x1b[{r};{a};{b}${}", if k == 15 { 'r' } else { 't' })
                }
            }
        }
        17 => "\x1b#8".to_string(),
        18 => "\x1b[2*x".to_string(),
        19 => "\x1b[*x".to_string(),
        20 => format!("\x1b[{};{}H", row(arg()), col(arg())),
        21 => "\x1b[?6h".to_string(),
        22 => "\x1b[?6l".to_string(),
        23 => format!("\x1b[38;2;{};{};{}m", arg(), arg(), arg()),
        24 => format!("\x1b[{};{}m", 30 + arg() % 8, 40 + arg() % 8),
        25 => ["\x1b[m", "\x1b[1;4;7m", "\x1b[58:5:3m", "\x1b]8;;http://x/\x1b\\", "\x1b]8;;\x1b\\"]
            [arg() as usize % 5]
            .to_string(),
        26 => "a line of text\r\n".repeat(1 + arg() as usize % 4),
        27 => ["字字", "e\u{301}\u{302}", "😀", "abc", "\r\n", "\x08\t"][arg() as usize % 6].to_string(),
        28 => ["\x1b[1\"q", "\x1b[0\"q", "\x1b[4h", "\x1b[4l", "\x1b[?7l", "\x1b[?7h"][arg() as usize % 6].to_string(),
        29 => ["\x1b[?1049h", "\x1b[?1049l", "\x1b#6", "\x1b#5", "\x1b[!p"][arg() as usize % 5].to_string(),
        30 => format!("\x1b[{} @", col(arg())),
        31 => format!("\x1b[{} A", col(arg())),
        32 => format!("\x1b[{}'}}", col(arg())),
        33 => format!("\x1b[{}'~", col(arg())),
        34 => format!("\x1b[{}J", arg() % 4),
        35 => format!("\x1b[{}K", arg() % 3),
        36 => format!("x\x1b[{}b", num(arg(), cols * rows)),
        37 => "\x1bD\x1bM\x1bE".to_string(),
        38 => format!("\x1b[{};{}H\x1b[{}L", row(arg()), col(arg()), row(arg())),
        _ => "\x1bc".to_string(),
    };
    out.extend_from_slice(s.as_bytes());
}

/// What the two screens must agree on: every cell's text and style, the history, the cursor.
fn state(t: &Terminal) -> String {
    let s = t.screen();
    let mut out = s.dump_text();
    for i in 0..s.history_len() {
        out.push_str(&s.cells_text(&s.history_row(i)));
        out.push('\n');
    }
    for y in 0..s.rows() {
        let row = s.row(y);
        for &c in row.iter() {
            out.push_str(&format!("{:?}{}{}|", row.style(c), c.is_wide(), c.is_spacer()));
        }
        out.push('\n');
    }
    out.push_str(&format!("{:?} {:?} {:?}", s.cursor(), s.margins(), s.modes()));
    out
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 6 {
        return;
    }
    let (cols, rows) = match data[0] % 4 {
        0 => (1 + data[1] as usize % 16, 1 + data[2] as usize % 8),
        1 => (1 + data[1] as usize % 200, 1 + data[2] as usize % 100),
        2 => (1 + u16::from_le_bytes([data[1], data[3]]) as usize % 2048, 1 + data[2] as usize * 4),
        _ => (
            1024 + u16::from_le_bytes([data[1], data[3]]) as usize % 1025,
            512 + u16::from_le_bytes([data[2], data[5]]) as usize % 513,
        ),
    };
    let scrollback = data[5] as usize % 4 * 10;
    // Small turns: on small screens down to a byte a turn; on large ones from a quarter of
    // the screen's cells to two screens' worth (a turn of the event loops is one screen of the
    // largest), so that the checks after each turn (of every cell, under the coverage
    // instrumentation) leave the fuzzer some time.
    let cells = (cols * rows) as u64;
    let small = cells <= 20_000;
    let budget = if small {
        1 + data[4] as u64 % 64 * (1 + (data[4] >> 6) as u64 * 100)
    } else {
        (cells / 4) * (1 + data[4] as u64 % 8)
    };
    let mut stream = Vec::with_capacity(data.len() * 4);
    let mut rest = data[6..].iter().copied();
    while let Some(b) = rest.next() {
        if b >= 0xf8 {
            let pick = rest.next().unwrap_or(b);
            sequence(&mut stream, pick, &mut rest, cols, rows);
        } else {
            stream.push(b);
        }
    }

    let mut t = Terminal::with_scrollback(cols, rows, scrollback);
    let mut at = 0;
    while at < stream.len() {
        let n = t.feed_bounded(&stream[at..], budget);
        assert!(n >= 1 && n <= stream.len() - at, "a turn took {n} of {} bytes", stream.len() - at);
        at += n;
        // With debug assertions (cargo fuzz's default) `feed_bounded` has just checked the
        // visible rows and the newest screenful of history itself: the whole check again is
        // left to small screens, where it costs little, and to builds without them.
        if small || !cfg!(debug_assertions) {
            if let Err(v) = t.screen().check_integrity() {
                panic!("{v}");
            }
        }
        let _ = t.take_replies();
    }
    if small {
        let mut whole = Terminal::with_scrollback(cols, rows, scrollback);
        whole.feed(&stream);
        assert_eq!(state(&t), state(&whole), "{cols}x{rows}, turns of {budget}");
    }
});
