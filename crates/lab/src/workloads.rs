//! Workloads for the engine benchmark and the differential tests: generated deterministically
//! from a seed (so every engine and every run sees the same bytes), plus the recorded corpus
//! of real programs' output, embedded in the binary.

/// A small, fast, deterministic generator (xorshift64*); quality is ample for test text.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// The recorded corpus: real programs under a pty (scripts/record-corpus.sh), with tmux's
/// rendering of each at the end of its recording.
pub const CORPUS: &[(&str, &[u8], &str)] = &[
    ("ls", include_bytes!("../../../corpus/ls.raw"), include_str!("../../../corpus/ls.tmux.txt")),
    ("vim", include_bytes!("../../../corpus/vim.raw"), include_str!("../../../corpus/vim.tmux.txt")),
    ("less", include_bytes!("../../../corpus/less.raw"), include_str!("../../../corpus/less.tmux.txt")),
    ("htop", include_bytes!("../../../corpus/htop.raw"), include_str!("../../../corpus/htop.tmux.txt")),
    ("dialog", include_bytes!("../../../corpus/dialog.raw"), include_str!("../../../corpus/dialog.tmux.txt")),
    ("bash", include_bytes!("../../../corpus/bash.raw"), include_str!("../../../corpus/bash.tmux.txt")),
    ("unicode", include_bytes!("../../../corpus/unicode.raw"), include_str!("../../../corpus/unicode.tmux.txt")),
];

pub struct Workload {
    pub name: &'static str,
    pub about: &'static str,
    pub generate: fn(rng: &mut Rng, target_bytes: usize) -> Vec<u8>,
}

pub fn all() -> Vec<Workload> {
    vec![
        Workload { name: "plain", about: "ASCII lines of random length 0-79, CRLF", generate: plain_lines },
        Workload { name: "long-line", about: "one very long line, wrapping", generate: long_line },
        Workload { name: "sgr-256", about: "256-colour fg+bg SGR per cell", generate: sgr_256 },
        Workload { name: "sgr-truecolor", about: "truecolor fg+bg SGR per cell", generate: sgr_truecolor },
        Workload { name: "cursor", about: "random CUP, text, EL/ECH", generate: cursor_motion },
        Workload { name: "region-scroll", about: "DECSTBM region, IL/DL, text", generate: region_scroll },
        Workload {
            name: "unicode",
            about: "CJK, emoji (ZWJ, flags, skin tones), combining marks, box drawing",
            generate: unicode_mixed,
        },
        Workload {
            name: "combining",
            about: "letters with 0-3 combining marks each, most clusters distinct (NFD text, stacked marks)",
            generate: combining_marks,
        },
        Workload { name: "corpus", about: "recorded ls, vim, less, htop, dialog, bash", generate: corpus },
    ]
}

/// Workload `index` of [`all`], `bytes` long (about), made as `bench engine` makes it: the same
/// seed gives the same bytes, so a profile of it (scripts/instructions.sh) is of what the bench
/// timed.
pub fn bench_bytes(index: usize, w: &Workload, bytes: usize) -> Vec<u8> {
    (w.generate)(&mut Rng::new(index as u64 + 1), bytes)
}

const WORDS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:-_/()[]{}<>=+*&^%$#@!~";

fn push_text(out: &mut Vec<u8>, rng: &mut Rng, len: usize) {
    for _ in 0..len {
        out.push(WORDS[rng.below(WORDS.len())]);
    }
}

pub fn plain_lines(rng: &mut Rng, target: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(target + 100);
    while out.len() < target {
        let len = rng.below(80);
        push_text(&mut out, rng, len);
        out.extend_from_slice(b"\r\n");
    }
    out
}

pub fn long_line(rng: &mut Rng, target: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(target);
    push_text(&mut out, rng, target);
    out
}

/// Lines of 80 cells, each cell preceded by the SGR that `sgr` writes.
fn coloured_cells(rng: &mut Rng, target: usize, mut sgr: impl FnMut(&mut Rng) -> String) -> Vec<u8> {
    let mut out = Vec::with_capacity(target + 100);
    let mut col = 0;
    while out.len() < target {
        out.extend_from_slice(sgr(rng).as_bytes());
        push_text(&mut out, rng, 1);
        col += 1;
        if col == 80 {
            out.extend_from_slice(b"\x1b[0m\r\n");
            col = 0;
        }
    }
    out
}

pub fn sgr_256(rng: &mut Rng, target: usize) -> Vec<u8> {
    coloured_cells(rng, target, |rng| format!("\x1b[38;5;{};48;5;{}m", rng.below(256), rng.below(256)))
}

pub fn sgr_truecolor(rng: &mut Rng, target: usize) -> Vec<u8> {
    coloured_cells(rng, target, |rng| {
        let v = rng.next_u64();
        let c = |s: u32| (v >> s) & 255;
        format!("\x1b[38;2;{};{};{};48;2;{};{};{}m", c(0), c(8), c(16), c(24), c(32), c(40))
    })
}

pub fn cursor_motion(rng: &mut Rng, target: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(target + 100);
    while out.len() < target {
        let (r, c) = (rng.below(24) + 1, rng.below(80) + 1);
        out.extend_from_slice(format!("\x1b[{r};{c}H").as_bytes());
        let len = rng.below(12);
        push_text(&mut out, rng, len);
        match rng.below(6) {
            0 => out.extend_from_slice(b"\x1b[K"),
            1 => out.extend_from_slice(format!("\x1b[{}X", rng.below(10) + 1).as_bytes()),
            2 => out.extend_from_slice(format!("\x1b[{}A\x1b[{}C", rng.below(5), rng.below(9)).as_bytes()),
            _ => {}
        }
    }
    out
}

pub fn region_scroll(rng: &mut Rng, target: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(target + 100);
    out.extend_from_slice(b"\x1b[3;21r");
    while out.len() < target {
        let r = rng.below(19) + 3;
        out.extend_from_slice(format!("\x1b[{r};1H").as_bytes());
        match rng.below(3) {
            0 => out.extend_from_slice(format!("\x1b[{}L", rng.below(3) + 1).as_bytes()),
            1 => out.extend_from_slice(format!("\x1b[{}M", rng.below(3) + 1).as_bytes()),
            _ => {}
        }
        let len = rng.below(80);
        push_text(&mut out, rng, len);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\x1b[r");
    out
}

const UNICODE: &[&str] = &[
    "日本語",
    "中文字符",
    "한국어",
    "e\u{301}",
    "n\u{303}",
    "a\u{30a}\u{323}",
    "😀",
    "🎉",
    "ok",
    " ",
    "Ωμέγα",
    "—",
    "→",
    "┌──┐",
    "│",
    "└──┘",
    "═╬═",
    "👍🏽",
    "🇯🇵",
    "👨\u{200d}👩\u{200d}👧",
];

pub fn unicode_mixed(rng: &mut Rng, target: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(target + 100);
    while out.len() < target {
        let words = rng.below(12);
        for _ in 0..words {
            out.extend_from_slice(UNICODE[rng.below(UNICODE.len())].as_bytes());
            out.push(b' ');
        }
        out.extend_from_slice(b"\r\n");
    }
    out
}

/// Words of letters each carrying 0-3 combining marks from U+0300-U+036F: decomposed
/// (NFD) text and stacked marks, where most grapheme clusters differ from the ones before
/// them, so an engine cannot answer them from what it has already seen.
pub fn combining_marks(rng: &mut Rng, target: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(target + 200);
    while out.len() < target {
        for _ in 0..1 + rng.below(10) {
            for _ in 0..2 + rng.below(8) {
                out.push(b'a' + rng.below(26) as u8);
                for _ in 0..rng.below(4) {
                    let mark = char::from_u32(0x300 + rng.below(0x70) as u32).unwrap_or('\u{301}');
                    out.extend_from_slice(mark.encode_utf8(&mut [0; 4]).as_bytes());
                }
            }
            out.push(b' ');
        }
        out.extend_from_slice(b"\r\n");
    }
    out
}

pub fn corpus(_rng: &mut Rng, target: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(target + 10_000);
    while out.len() < target {
        for (_, bytes, _) in CORPUS {
            out.extend_from_slice(bytes);
        }
        // Leave the alternate screen and reset modes between rounds, as a shell would.
        out.extend_from_slice(b"\x1b[?1049l\x1b[r\x1b[0m\r\n");
    }
    out
}
