//! What the engine's expensive operations cost: milliseconds per sequence for the rectangle
//! operations and the scrolls inside left/right margins on the largest screen, and MB/s for
//! lines of plain text. `cargo run --release -p blitty-vt --example cost [plain|ops]`.

use std::time::Instant;

/// CPU time this thread has run, in seconds (the first field of its schedstat): the machine
/// is shared, and wall-clock time counts the time others had the CPU.
fn cpu_time() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    stat.split_whitespace().next().and_then(|ns| ns.parse::<u64>().ok()).unwrap_or(0) as f64 / 1e9
}

use blitty_vt::term::{MAX_COLS, MAX_ROWS};
use blitty_vt::Terminal;

/// A deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// The largest screen, every cell written in a colour of its own row's list (RGB): the rows'
/// style lists full, as colour-dense output leaves them.
fn full_screen() -> Terminal {
    let mut t = Terminal::with_scrollback(MAX_COLS, MAX_ROWS, 1000);
    let mut s = Vec::new();
    for y in 0..MAX_ROWS {
        s.extend_from_slice(format!("\x1b[{};1H", y + 1).as_bytes());
        for x in 0..MAX_COLS {
            s.extend_from_slice(
                format!("\x1b[38;2;{};{};{}m{}", x & 255, x >> 8, y & 255, (b'a' + (x % 26) as u8) as char).as_bytes(),
            );
        }
    }
    s.extend_from_slice(b"\x1b[m\x1b[H");
    t.feed(&s);
    t
}

const CASES: &[(&str, &str, &str)] = &[
    ("DECCRA", "", "\x1b[1;1;65535;65535;1;2;1;1$v"),
    ("DECFRA", "", "\x1b[42;1;1;65535;65535$x"),
    ("DECFRA coloured", "\x1b[31m", "\x1b[42;1;1;65535;65535$x"),
    ("DECERA", "", "\x1b[1;1;65535;65535$z"),
    ("DECSERA", "", "\x1b[1;1;65535;65535${"),
    ("DECCARA", "", "\x1b[1;1;65535;65535;1$r"),
    ("DECRARA", "", "\x1b[1;1;65535;65535;7$t"),
    ("DECALN", "", "\x1b#8"),
    ("IL in DECSLRM", "\x1b[?69h\x1b[1;2047s", "\x1b[L"),
    ("DL in DECSLRM", "\x1b[?69h\x1b[1;2047s", "\x1b[M"),
    ("SU in DECSLRM", "\x1b[?69h\x1b[1;2047s", "\x1b[S"),
    ("SD in DECSLRM", "\x1b[?69h\x1b[1;2047s", "\x1b[T"),
    ("DL 1000 full width, top margin 2", "\x1b[2;1024r\x1b[2H", "\x1b[1000M"),
];

/// One case, `n` times, for counting instructions (`perf stat`) against `n` = 0.
fn one(name: &str, filled: bool, n: usize) {
    let &(_, setup, seq) = CASES.iter().find(|c| c.0 == name).expect("a case");
    let mut t = if filled { full_screen() } else { Terminal::with_scrollback(MAX_COLS, MAX_ROWS, 1000) };
    t.feed(setup.as_bytes());
    t.feed(seq.repeat(n).as_bytes());
}

fn ops(only: Option<&str>) {
    for &(name, setup, seq) in CASES {
        if only.is_some_and(|o| !name.starts_with(o)) {
            continue;
        }
        for filled in [false, true] {
            let mut t = if filled { full_screen() } else { Terminal::with_scrollback(MAX_COLS, MAX_ROWS, 1000) };
            t.feed(setup.as_bytes());
            let n = 20;
            let stream = seq.repeat(n);
            let (start, cpu) = (Instant::now(), cpu_time());
            t.feed(stream.as_bytes());
            let ms = start.elapsed().as_secs_f64() * 1000.0 / n as f64;
            let cpu_ms = (cpu_time() - cpu) * 1000.0 / n as f64;
            let state = if filled { "filled" } else { "blank" };
            println!("{name:36} {state:6} {ms:9.3} ms a sequence ({cpu_ms:.3} ms of CPU)");
        }
    }
}

/// Lines of printable ASCII, 0 to 100 bytes, each ending in CR LF.
fn plain_lines(bytes: usize) -> Vec<u8> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::with_capacity(bytes + 128);
    while out.len() < bytes {
        let n = (rng.next() % 101) as usize;
        for _ in 0..n {
            out.push(b' ' + (rng.next() % 95) as u8);
        }
        out.extend_from_slice(b"\r\n");
    }
    out
}

fn plain(bounded: bool) {
    let text = plain_lines(64 << 20);
    let mb = text.len() as f64 / 1e6;
    for round in 0..5 {
        let mut t = Terminal::new(80, 24);
        let (start, cpu) = (Instant::now(), cpu_time());
        for chunk in text.chunks(64 << 10) {
            t.feed(chunk);
        }
        let feed = mb / start.elapsed().as_secs_f64();
        let feed_cpu = mb / (cpu_time() - cpu);
        println!("round {round}: feed {feed:7.0} MB/s ({feed_cpu:.0} MB/s of CPU time)");
        if bounded {
            bounded_round(&text, mb);
        }
    }
}

/// The plain text again, fed as an event loop would: each 64 KiB read in turns of
/// `WORK_PER_TURN`.
fn bounded_round(text: &[u8], mb: f64) {
    let mut t = Terminal::new(80, 24);
    let (start, cpu) = (Instant::now(), cpu_time());
    let mut turns = 0;
    for chunk in text.chunks(64 << 10) {
        let mut at = 0;
        while at < chunk.len() {
            at += t.feed_bounded(&chunk[at..], blitty_vt::WORK_PER_TURN);
            turns += 1;
        }
    }
    let rate = mb / start.elapsed().as_secs_f64();
    let rate_cpu = mb / (cpu_time() - cpu);
    println!("         feed_bounded {rate:7.0} MB/s ({rate_cpu:.0} MB/s of CPU time), {turns} turns");
}

fn main() {
    let only = std::env::args().nth(2);
    match std::env::args().nth(1).as_deref() {
        Some("plain") => plain(true),
        Some("ops") => ops(only.as_deref()),
        // For counting instructions (valgrind): the text made and fed once, or only made.
        Some(how @ ("feed-once" | "bounded-once" | "make-only")) => {
            let text = plain_lines(std::env::args().nth(2).and_then(|m| m.parse().ok()).unwrap_or(8) << 20);
            let mut t = Terminal::new(80, 24);
            for chunk in text.chunks(64 << 10) {
                match how {
                    "feed-once" => t.feed(chunk),
                    "bounded-once" => bounded_chunk(&mut t, chunk),
                    _ => {}
                }
            }
            println!("{}", t.screen().row_text(0).len());
        }
        Some("turns") => turns(),
        Some("links") => links(),
        Some("one") => {
            let args: Vec<String> = std::env::args().collect();
            one(&args[2], args[3] == "filled", args[4].parse().expect("a count"));
        }
        _ => {
            ops(None);
            plain(true);
        }
    }
}

fn bounded_chunk(t: &mut Terminal, chunk: &[u8]) {
    let mut at = 0;
    while at < chunk.len() {
        at += t.feed_bounded(&chunk[at..], blitty_vt::WORK_PER_TURN);
    }
}

/// What a turn of `WORK_PER_TURN` costs: plain text at 80x24, and floods of the rectangle
/// operations and margin scrolls on the largest screen (blank and every cell in a colour of
/// its own), in milliseconds of CPU a turn.
fn turns() {
    let budget = blitty_vt::WORK_PER_TURN;
    let text = plain_lines(64 << 20);
    let mut t = Terminal::new(80, 24);
    let (cpu, mut turns, mut at) = (cpu_time(), 0, 0);
    while at < text.len() {
        at += t.feed_bounded(&text[at..], budget);
        turns += 1;
    }
    let ms = (cpu_time() - cpu) * 1000.0 / turns as f64;
    println!("plain text 80x24                     {ms:7.3} ms a turn, {} bytes a turn", text.len() / turns);
    for &(name, setup, seq) in CASES {
        for filled in [false, true] {
            let mut t = if filled { full_screen() } else { Terminal::with_scrollback(MAX_COLS, MAX_ROWS, 1000) };
            t.feed(setup.as_bytes());
            let stream = seq.repeat(40).into_bytes();
            let (cpu, mut turns, mut at) = (cpu_time(), 0, 0);
            while at < stream.len() {
                at += t.feed_bounded(&stream[at..], budget);
                turns += 1;
            }
            let ms = (cpu_time() - cpu) * 1000.0 / turns as f64;
            let state = if filled { "filled" } else { "blank" };
            println!("{name:30} {state:6} {ms:7.3} ms a turn, {:.1} sequences a turn", 40.0 / turns as f64);
        }
    }
}

/// 262 MB of hyperlinks with 64 kB ids, none printed, at 80x24 with the default scrollback
/// full: the peak resident memory (VmHWM) and what the screen reports.
fn links() {
    let mut t = Terminal::new(80, 24);
    for i in 0..10_100 {
        t.feed(format!("line {i} of the history, before the links\r\n").as_bytes());
    }
    let id = "i".repeat(64 << 10);
    let mut fed = 0;
    let mut i = 0;
    while fed < 262 << 20 {
        let link = format!("\x1b]8;id={id}{i};http://example.com/{i}\x1b\\\x1b]8;;\x1b\\");
        t.feed(link.as_bytes());
        fed += link.len();
        i += 1;
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let hwm = status.lines().find(|l| l.starts_with("VmHWM")).unwrap_or("VmHWM: ?");
    println!("{} MB of links fed: {hwm}, memory_bytes {}", fed >> 20, t.screen().memory_bytes());
}
