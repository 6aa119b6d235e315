//! What operations cost: the rectangle operations and the scrolls inside left/right margins do
//! their style work once per distinct style, not once per cell, and give what the cell-by-cell
//! forms they replaced gave.

use super::text::cell_width;
use super::Screen;
use crate::cell::Cell;
use crate::grid::Region;
use crate::parser::{Params, Parser, Perform};
use crate::style::{Attrs, Color, Style, Underline};
use crate::Terminal;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The parameters of a CSI sequence, as the parser reads them.
fn params(csi: &str) -> Params {
    struct Take(Option<Params>);
    impl Perform for Take {
        fn print_ascii(&mut self, _: &[u8]) {}
        fn print(&mut self, _: char) {}
        fn execute(&mut self, _: u8) {}
        fn esc_dispatch(&mut self, _: &[u8], _: u8) {}
        fn csi_dispatch(&mut self, p: &Params, _: u8, _: &[u8], _: u8) {
            self.0 = Some(p.clone());
        }
        fn osc_dispatch(&mut self, _: &[u8], _: bool) {}
    }
    let mut take = Take(None);
    Parser::new().advance(&mut take, format!("\x1b[{csi}").as_bytes());
    take.0.expect("a CSI sequence")
}

/// The rectangle operations and the margin scroll as they were written before they worked a
/// row at a time: every cell's style looked up and interned on its own, and DECCRA through a
/// buffer of the whole rectangle. The reference the faster forms are held to.
impl Screen {
    fn reference_fill_rectangle(&mut self, p: &Params) {
        if p.is_empty() {
            return;
        }
        let code = match p.raw(0) {
            0 => 0x20,
            v => v as u32,
        };
        let latin = (0x20..0x7f).contains(&code) || (0xa0..0x100).contains(&code);
        let Some(c) = char::from_u32(code).filter(|&c| latin || cell_width(c) == Some(1)) else { return };
        let c = if latin { self.charsets.peek(c) } else { c };
        let Some(r) = self.rect_at(p, 1) else { return };
        let pen = self.pen.style;
        let coloured = pen.fg != Color::Default || pen.bg != Color::Default;
        for y in r.top..=r.bottom {
            let (s, e) = self.split_wide_edges(y, r.left, r.right + 1);
            if coloured {
                let id = self.pen_id(y);
                self.grid_mut().row_mut(y)[r.left..=r.right].fill(Cell::char(c, false, id));
            } else {
                for x in r.left..=r.right {
                    let line = self.grid().row_ref(y);
                    let Style { fg, bg, .. } = line.style(line[x]);
                    let id = self.grid_mut().intern_at(y, &Style { fg, bg, ..pen });
                    self.grid_mut().row_mut(y)[x] = Cell::char(c, false, id);
                }
            }
            self.touch(y, s, e);
        }
    }

    fn reference_copy_rectangle(&mut self, p: &Params) {
        let Some(src) = self.rect_at(p, 0) else { return };
        let b = self.rect_bounds();
        let top = self.rect_coordinate(p, 5, b.top + 1, true);
        let left = self.rect_coordinate(p, 6, b.left + 1, false);
        let width = src.right + 1 - src.left;
        let mut copied: Vec<(Cell, Style)> = Vec::new();
        for y in src.top..=src.bottom {
            let line = self.grid().row_ref(y);
            for (i, &cell) in line[src.left..=src.right].iter().enumerate() {
                let cut = (i == 0 && cell.is_spacer()) || (i == width - 1 && cell.is_wide());
                let cell = if cut { Cell::blank(cell.style()) } else { cell };
                copied.push((cell, line.style(cell)));
            }
        }
        let right = (left + width - 1).min(b.right);
        for (j, row) in copied.chunks(width).enumerate() {
            let y = top + j;
            if y > b.bottom {
                break;
            }
            let (s, e) = self.split_wide_edges(y, left, right + 1);
            for (x, &(cell, style)) in (left..=right).zip(row) {
                let id = self.grid_mut().intern_at(y, &style);
                self.grid_mut().row_mut(y)[x] = cell.with_style(id);
            }
            let last = self.grid().row(y)[right];
            if last.is_wide() && right < left + width - 1 {
                self.grid_mut().row_mut(y)[right] = Cell::blank(last.style());
            }
            self.touch(y, s, e);
        }
    }

    fn reference_change_rectangle_attributes(&mut self, p: &Params, reverse: bool) {
        let Some(r) = self.rect_at(p, 0) else { return };
        let ops: Vec<u16> = (4..p.len()).map(|i| p.raw(i)).collect();
        if ops.is_empty() {
            return;
        }
        let change = |mut style: Style| {
            let a = &mut style.attrs;
            for &op in &ops {
                let (bits, underline) = match op {
                    0 => (Attrs::BOLD | Attrs::BLINK | Attrs::INVERSE, true),
                    1 | 22 => (Attrs::BOLD, false),
                    4 | 24 => (0, true),
                    5 | 25 => (Attrs::BLINK, false),
                    7 | 27 => (Attrs::INVERSE, false),
                    8 | 28 => (Attrs::HIDDEN, false),
                    _ => continue,
                };
                let on = (!reverse).then_some(!matches!(op, 0 | 22..=28));
                match on {
                    Some(on) => a.0 = if on { a.0 | bits } else { a.0 & !bits },
                    None => a.0 ^= bits,
                }
                if underline {
                    let on = on.unwrap_or(a.underline() == Underline::None);
                    a.set_underline(if on { Underline::Single } else { Underline::None });
                }
            }
            style
        };
        let rectangle = self.modes.rectangle_extent;
        for y in r.top..=r.bottom {
            let start = if rectangle || y == r.top { r.left } else { 0 };
            let end = if rectangle || y == r.bottom { r.right } else { self.cols - 1 };
            for x in start..=end {
                let line = self.grid().row_ref(y);
                let cell = line[x];
                let style = change(line.style(cell));
                let id = self.grid_mut().intern_at(y, &style);
                self.grid_mut().row_mut(y)[x] = cell.with_style(id);
            }
            self.touch(y, start, end + 1);
        }
    }

    fn reference_scroll_rect(&mut self, r: Region, up: bool, n: usize, blank: &Style) {
        let Region { top, bottom, left, right } = r;
        let h = bottom + 1 - top;
        let n = n.min(h);
        let grid = self.grid_mut();
        for y in top..=bottom {
            grid.split_wide_at_margins(y, left, right);
        }
        let order: Vec<usize> = if up { (top..=bottom).collect() } else { (top..=bottom).rev().collect() };
        for (i, &y) in order.iter().enumerate() {
            if i + n < h {
                let src = order[i + n];
                for x in left..=right {
                    let line = grid.row_ref(src);
                    let (cell, style) = (line[x], line.style(line[x]));
                    let id = grid.intern_at(y, &style);
                    grid.row_mut(y)[x] = cell.with_style(id);
                }
            } else {
                let blank = grid.blank_at(y, blank);
                grid.row_mut(y)[left..=right].fill(blank);
            }
            grid.touch(y, left, right + 1);
        }
    }
}

/// Every visible cell as its content and its style, with the cursor: what two screens must
/// agree on (their rows' lists may number the styles differently).
fn cells(t: &Terminal) -> Vec<Vec<(u32, Style)>> {
    let s = t.screen();
    (0..s.rows()).map(|y| s.row(y).iter().map(|&c| (c.content(), s.row(y).style(c))).collect()).collect()
}

/// Random content for a screen: text, wide characters and marks in palette, RGB and underline
/// colours, hyperlinks and protected characters, written at random places.
fn random_content(rng: &mut Rng, cols: usize, rows: usize) -> String {
    let mut s = String::new();
    for _ in 0..rng.below(200) {
        match rng.below(12) {
            0 => s.push_str(&format!("\x1b[{};{}H", 1 + rng.below(rows), 1 + rng.below(cols))),
            1 => s.push_str(&format!("\x1b[38;2;{};{};{}m", rng.below(4), rng.below(4), rng.below(4))),
            2 => s.push_str(&format!("\x1b[{};{}m", 30 + rng.below(8), 40 + rng.below(8))),
            3 => s.push_str(&format!("\x1b[58:5:{}m", rng.below(4))),
            4 => s.push_str(&format!("\x1b]8;;http://x/{}\x1b\\", rng.below(3))),
            5 => s.push_str(["\x1b[m", "\x1b[1;4m", "\x1b[7m", "\x1b[1\"q", "\x1b[0\"q"][rng.below(5)]),
            6 => s.push('字'),
            7 => s.push_str("e\u{301}"),
            _ => s.push(char::from(b'a' + rng.below(26) as u8)),
        }
    }
    s
}

#[test]
fn rectangle_operations_give_what_the_cell_by_cell_forms_gave() {
    let mut rng = Rng(0x7265_6374_616e_676c);
    for round in 0..3000 {
        let (cols, rows) = (1 + rng.below(14), 1 + rng.below(8));
        let content = random_content(&mut rng, cols, rows);
        let mut setup = content.clone();
        // The pen the operation sees, and the modes that change where rectangles go.
        setup.push_str(["\x1b[m", "\x1b[1;4m", "\x1b[31m", "\x1b[38;2;1;1;1m", "\x1b[58:5:2m"][rng.below(5)]);
        if rng.below(3) == 0 {
            setup.push_str(&format!("\x1b[?69h\x1b[{};{}s", 1 + rng.below(cols), 1 + rng.below(cols)));
            setup.push_str(&format!("\x1b[{};{}r", 1 + rng.below(rows), 1 + rng.below(rows)));
            if rng.below(2) == 0 {
                setup.push_str("\x1b[?6h");
            }
        }
        if rng.below(2) == 0 {
            setup.push_str("\x1b[2*x");
        }
        let coordinate = |rng: &mut Rng, max: usize| match rng.below(6) {
            0 => 0,
            1 => 65_535,
            _ => 1 + rng.below(max + 1),
        };
        let rect = |rng: &mut Rng| {
            let (t, l) = (coordinate(rng, rows), coordinate(rng, cols));
            let (b, r) = (coordinate(rng, rows), coordinate(rng, cols));
            format!("{t};{l};{b};{r}")
        };
        let (csi, kind) = match rng.below(4) {
            0 => (format!("{};{}$x", [0, 32, 69, 0xe9, 0x263a, 0x5b57][rng.below(6)], rect(&mut rng)), 0),
            1 => {
                let (t, l) = (coordinate(&mut rng, rows), coordinate(&mut rng, cols));
                (format!("{};1;{t};{l};1$v", rect(&mut rng)), 1)
            }
            k => {
                let ops: Vec<String> = (0..1 + rng.below(3))
                    .map(|_| [0, 1, 4, 5, 7, 8, 22, 24, 25, 27, 28, 3][rng.below(12)].to_string())
                    .collect();
                (format!("{};{}${}", rect(&mut rng), ops.join(";"), if k == 2 { 'r' } else { 't' }), k)
            }
        };
        let (mut a, mut b) = (Terminal::new(cols, rows), Terminal::new(cols, rows));
        a.feed(setup.as_bytes());
        b.feed(setup.as_bytes());
        a.feed(format!("\x1b[{csi}").as_bytes());
        let p = params(&csi);
        let s = b.screen_mut();
        match kind {
            0 => s.reference_fill_rectangle(&p),
            1 => s.reference_copy_rectangle(&p),
            2 => s.reference_change_rectangle_attributes(&p, false),
            _ => s.reference_change_rectangle_attributes(&p, true),
        }
        assert_eq!(cells(&a), cells(&b), "round {round}: {cols}x{rows}, {setup:?} then CSI {csi}");
        if let Err(v) = a.screen().check_integrity() {
            panic!("round {round}: {v}");
        }
    }
}

#[test]
fn scrolls_inside_margins_give_what_the_cell_by_cell_form_gave() {
    let mut rng = Rng(0x6d61_7267_696e_7321);
    for round in 0..3000 {
        let (cols, rows) = (1 + rng.below(14), 1 + rng.below(8));
        let content = random_content(&mut rng, cols, rows);
        let (mut a, mut b) = (Terminal::new(cols, rows), Terminal::new(cols, rows));
        a.feed(content.as_bytes());
        b.feed(content.as_bytes());
        let (t, bo) = (rng.below(rows), rng.below(rows));
        let (l, r) = (rng.below(cols), rng.below(cols));
        let region = Region { top: t.min(bo), bottom: t.max(bo), left: l.min(r), right: l.max(r) };
        let (up, n) = (rng.below(2) == 0, rng.below(rows + 2));
        let blank = [Style::default(), Style { bg: Color::Rgb(1, 2, 3), ..Style::default() }][rng.below(2)];
        a.screen_mut().grid_mut().scroll_rect(region, up, n, &blank);
        b.screen_mut().reference_scroll_rect(region, up, n, &blank);
        assert_eq!(cells(&a), cells(&b), "round {round}: {cols}x{rows}, {content:?}, {region:?} up {up} by {n}");
        if let Err(v) = a.screen().check_integrity() {
            panic!("round {round}: {v}");
        }
    }
}

/// The styles `seq` interned or added to rows' lists one at a time (`Grid::style_ops`), on a
/// screen of `cols` x `rows` whose every row holds text in two listed styles and two packed
/// ones, each a run of a quarter of the row.
fn style_work(cols: usize, rows: usize, setup: &str, seq: &str) -> u64 {
    let mut t = Terminal::new(cols, rows);
    let quarter = "x".repeat(cols / 4);
    for y in 0..rows {
        let rgb = format!("\x1b[38;2;{y};1;1m{quarter}\x1b[58:5:{}m{quarter}", y % 256);
        t.feed(format!("\x1b[{};1H{rgb}\x1b[m\x1b[31m{quarter}\x1b[1;44m{quarter}\x1b[m", y + 1).as_bytes());
    }
    t.feed(setup.as_bytes());
    let before = t.screen().main.style_ops;
    t.feed(seq.as_bytes());
    if let Err(v) = t.screen().check_integrity() {
        panic!("{seq:?}: {v}");
    }
    t.screen().main.style_ops - before
}

#[test]
fn rectangle_operations_and_margin_scrolls_change_each_style_once_a_row() {
    // At 2048x1024 DECCRA of the whole screen took 113 ms (every cell's style looked up and
    // interned, through a buffer of every cell and its style), DECFRA, DECCARA and DECRARA
    // 26-35 ms, and IL, DL and SU inside left/right margins a millisecond each. Now each row's
    // distinct styles (four here) are looked up once: the style work is a few entries a row,
    // whatever the width.
    let (cols, rows) = (400, 30);
    let margins = "\x1b[?69h\x1b[2;399s\x1b[1;2H";
    let cases = [
        ("DECCRA of the whole screen", "", "\x1b[1;1;65535;65535;1;2;1;1$v"),
        ("DECCRA of a part, to the right", "", "\x1b[1;1;20;300;1;3;9;1$v"),
        ("DECCRA of a part, up and left", "", "\x1b[5;9;30;400;1;1;1;1$v"),
        ("DECFRA keeping colours", "\x1b[1;4m", "\x1b[42;1;1;65535;65535$x"),
        ("DECFRA of a part keeping colours", "\x1b[1;4m", "\x1b[42;3;7;29;333$x"),
        ("DECFRA keeping colours, a listed pen", "\x1b[58:5:9m", "\x1b[42;1;1;65535;65535$x"),
        ("DECCARA", "", "\x1b[1;1;65535;65535;1;4$r"),
        ("DECCARA of a rectangle", "\x1b[2*x", "\x1b[3;7;29;333;0;7$r"),
        ("DECRARA", "", "\x1b[1;1;65535;65535;7$t"),
        ("IL inside left/right margins", margins, "\x1b[L"),
        ("DL inside left/right margins", margins, "\x1b[3M"),
        ("SU inside left/right margins", margins, "\x1b[S"),
        ("SD inside left/right margins", margins, "\x1b[2T"),
    ];
    for (what, setup, seq) in cases {
        let work = style_work(cols, rows, setup, seq);
        assert!(work <= 4 * rows as u64, "{what}: {work} styles for {rows} rows of {cols} cells");
    }
}

// ---- feed_bounded: a turn bounded by work ----

/// Tokens for streams that exercise what costs work: text (whole lines, wide characters, marks),
/// margins and scroll regions, every operation that moves or fills cells, modes that change how
/// text is written, strings.
const TOKENS: &[&str] = &[
    "a",
    "xyz",
    "hello world",
    "0123456789abcdefghijklmnopqrstuvwxyz",
    "line of text\r\n",
    "short\r\n",
    "\r\n",
    "\r",
    "\n",
    "\x08",
    "\t",
    " ",
    "字",
    "字字字",
    "e\u{301}",
    "\u{301}\u{302}",
    "😀",
    "é",
    "\u{85}",
    "\x1b[31m",
    "\x1b[38;2;1;2;3m",
    "\x1b[58:5:4m",
    "\x1b[m",
    "\x1b[1;4;7m",
    "\x1b]8;;http://x/\x1b\\",
    "\x1b]8;id=1;http://y/\x1b\\",
    "\x1b]8;;\x1b\\",
    "\x1b]0;title\x07",
    "\x1b[?69h",
    "\x1b[?69l",
    "\x1b[2;5s",
    "\x1b[3;9s",
    "\x1b[2;4r",
    "\x1b[r",
    "\x1b[L",
    "\x1b[3L",
    "\x1b[M",
    "\x1b[2M",
    "\x1b[@",
    "\x1b[3@",
    "\x1b[P",
    "\x1b[2P",
    "\x1b[S",
    "\x1b[2T",
    "\x1b[3X",
    "\x1b[J",
    "\x1b[1J",
    "\x1b[2J",
    "\x1b[K",
    "\x1b[2K",
    "\x1b[3J",
    "\x1b[42;1;1;9;9$x",
    "\x1b[65;2;2$x",
    "\x1b[1;1;3;4$z",
    "\x1b[2;2;4;5${",
    "\x1b[1;1;65535;65535;1;2;1;1$v",
    "\x1b[2;2;4;6;1;1;3;1$v",
    "\x1b[1;1;9;9;1;4$r",
    "\x1b[2;1;4;9;7$t",
    "\x1b[2*x",
    "\x1b[*x",
    "\x1b#8",
    "\x1b#6",
    "\x1b#3",
    "\x1b[5b",
    "\x1b[4h",
    "\x1b[4l",
    "\x1b[?7l",
    "\x1b[?7h",
    "\x1b[?6h",
    "\x1b[?6l",
    "\x1b[20h",
    "\x1b[20l",
    "\x1b[?1049h",
    "\x1b[?1049l",
    "\x1b[1\"q",
    "\x1b[0\"q",
    "\x1b(0",
    "\x1b(B",
    "\x1bN",
    "\x1b7",
    "\x1b8",
    "\x1bD",
    "\x1bM",
    "\x1bE",
    "\x1b[2 @",
    "\x1b[ A",
    "\x1b[3'}",
    "\x1b[2'~",
    "\x1b[6n",
    "\x1b[H",
    "\x1b[9999;9999H",
    "\x1b[3;3H",
    "\x1b[99C",
    "\x1b[5I",
    "\x1b[3g",
    "\x1bc",
];

/// A random stream of `tokens` tokens, with now and then a random byte or a CSI with random
/// parameters (some huge); with `lines`, mostly whole lines of text (which the screen takes
/// many at a time), under and inside scroll regions.
fn random_stream(rng: &mut Rng, tokens: usize, lines: bool) -> Vec<u8> {
    const LINES: &[&str] =
        &["ab\r\n", "a line\r\n", "\r\n", "wider than the screen is\r\n", "\x1b[2;3r\x1b[3H", "\x1b[r"];
    let mut out = Vec::new();
    for _ in 0..tokens {
        if lines && rng.below(4) != 0 {
            out.extend_from_slice(LINES[rng.below(LINES.len())].as_bytes());
            continue;
        }
        match rng.below(12) {
            0 => out.push(rng.next() as u8),
            1 => {
                out.extend_from_slice(b"\x1b[");
                for k in 0..rng.below(5) {
                    if k > 0 {
                        out.push(b';');
                    }
                    let v = [0, 1, 2, 3, 7, 80, 65_535][rng.below(7)];
                    out.extend_from_slice(v.to_string().as_bytes());
                }
                out.push(b"@ALMPSTXZbdrs"[rng.below(13)]);
            }
            _ => out.extend_from_slice(TOKENS[rng.below(TOKENS.len())].as_bytes()),
        }
    }
    out
}

/// What a screen shows and holds, for comparing two: every cell of the history and the screen
/// (its text, width and style), the wrap flags, the cursor, margins, modes, pen, titles, the
/// counters of lines, and the replies waiting.
fn snapshot(t: &mut Terminal) -> String {
    let replies = t.take_replies();
    let s = t.screen();
    let line = |row: crate::Line<'_>| {
        let mut out = String::new();
        for &c in row.iter() {
            s.push_cell_text(c, &mut out);
            out.push_str(&format!("{}{}{:?}|", u8::from(c.is_wide()), u8::from(c.is_spacer()), row.style(c)));
        }
        out
    };
    let mut out = String::new();
    for i in 0..s.history_len() {
        out.push_str(&format!("h{i} {} {}\n", s.history_wrapped(i), line(s.history_row(i))));
    }
    for y in 0..s.rows() {
        out.push_str(&format!("r{y} {} {:?} {}\n", s.row_wrapped(y), s.line_size(y), line(s.row(y))));
    }
    out.push_str(&format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {} {} {:?}\n",
        s.cursor(),
        s.margins(),
        s.modes(),
        s.pen(),
        s.title(),
        s.icon_name(),
        s.history_pushed(),
        s.alternate_screen(),
        replies
    ));
    out
}

/// Feeds `bytes` through `feed_bounded` with `budget` until all are taken, checking what each
/// call returns.
fn feed_in_turns(t: &mut Terminal, bytes: &[u8], budget: u64) {
    let mut at = 0;
    while at < bytes.len() {
        let n = t.feed_bounded(&bytes[at..], budget);
        assert!(n >= 1 && n <= bytes.len() - at, "took {n} of {}", bytes.len() - at);
        at += n;
    }
}

#[test]
fn a_stream_fed_in_bounded_turns_leaves_the_screen_feeding_it_whole_leaves() {
    let mut rng = Rng(0x6275_6467_6574_2121);
    for round in 0..120 {
        let (cols, rows) = if round % 10 == 0 { (80, 24) } else { (1 + rng.below(12), 1 + rng.below(8)) };
        let scrollback = rng.below(3) * 5;
        let stream = random_stream(&mut rng, 150, round % 3 == 0);
        let mut whole = Terminal::with_scrollback(cols, rows, scrollback);
        whole.feed(&stream);
        let want = snapshot(&mut whole);
        // Every budget from 1 (a byte a turn, or a step) to past most steps, and larger ones.
        for budget in (1..=80).chain([97, 150, 400, 1000, 5000, 1 << 20]) {
            let mut t = Terminal::with_scrollback(cols, rows, scrollback);
            feed_in_turns(&mut t, &stream, budget);
            if let Err(v) = t.screen().check_integrity() {
                panic!("round {round}, budget {budget}: {v}");
            }
            assert_eq!(
                snapshot(&mut t),
                want,
                "round {round}, {cols}x{rows}, budget {budget}: b\"{}\"",
                stream.escape_ascii()
            );
        }
    }
}

/// The work feeding `bytes` whole costs a new terminal: a unit a byte and what the screen counts.
fn work_of(cols: usize, rows: usize, scrollback: usize, bytes: &[u8]) -> u64 {
    let mut t = Terminal::with_scrollback(cols, rows, scrollback);
    t.feed(bytes);
    bytes.len() as u64 + t.screen().work()
}

#[test]
fn feed_bounded_stops_at_the_first_point_the_work_reaches_the_budget() {
    // Fed from a new terminal, `feed_bounded` takes the shortest start of the stream whose work
    // (fed whole) reaches the budget: one byte less falls short of it.
    let mut rng = Rng(0x6669_7273_7421_2121);
    for round in 0..600 {
        let (cols, rows) = if round % 10 == 0 { (80, 24) } else { (1 + rng.below(12), 1 + rng.below(8)) };
        let scrollback = rng.below(3) * 5;
        let lines = round % 2 == 0;
        let stream = random_stream(&mut rng, if lines { 400 } else { 40 }, lines);
        let total = work_of(cols, rows, scrollback, &stream);
        for _ in 0..8 {
            let budget = rng.below(total as usize + 20) as u64;
            let mut t = Terminal::with_scrollback(cols, rows, scrollback);
            let n = t.feed_bounded(&stream, budget);
            let what = format!(
                "round {round}, {cols}x{rows}, scrollback {scrollback}, budget {budget} of {total}: b\"{}\"",
                stream.escape_ascii()
            );
            assert_eq!(n as u64 + t.screen().work(), work_of(cols, rows, scrollback, &stream[..n]), "{what}");
            if n < stream.len() {
                assert!(work_of(cols, rows, scrollback, &stream[..n]) >= budget, "{what}: stopped short at {n}");
            }
            if n > 1 {
                assert!(work_of(cols, rows, scrollback, &stream[..n - 1]) < budget, "{what}: went on past {}", n - 1);
            }
        }
    }
}

#[test]
fn a_turn_of_work_per_turn_costs_about_that_much_whatever_the_stream() {
    // At 2048x1024 a DECCRA of the whole screen took 113 ms for its 27 bytes, and a loop that
    // bounded a turn by bytes could take seconds a turn. Fed in turns of WORK_PER_TURN, a turn's
    // work is within the budget plus one operation (the largest here touches every cell, twice
    // for a copy's styles), and each operation counts the cells it touches.
    use crate::term::{MAX_COLS, MAX_ROWS, WORK_PER_TURN};
    let cells = (MAX_COLS * MAX_ROWS) as u64;
    let floods: [(&str, &str, &str, u64); 8] = [
        ("DECFRA", "", "\x1b[42;1;1;65535;65535$x", cells),
        ("DECCRA", "\x1b[38;2;1;2;3mx", "\x1b[1;1;65535;65535;1;2;1;1$v", cells - MAX_COLS as u64),
        ("DECCARA", "", "\x1b[1;1;65535;65535;1$r", cells),
        ("DECALN", "", "\x1b#8", cells),
        ("IL inside left/right margins", "\x1b[?69h\x1b[1;2047s", "\x1b[L", cells - MAX_ROWS as u64),
        ("ED", "", "\x1b[2J", cells),
        ("DL of a region", "\x1b[2;1024r\x1b[2H", "\x1b[1000M", 1000 * MAX_COLS as u64),
        ("plain text", "\x1b[1024H", "a line of text, as a program prints them\r\n", 42 + MAX_COLS as u64),
    ];
    for (what, setup, seq, least) in floods {
        let mut t = Terminal::with_scrollback(MAX_COLS, MAX_ROWS, 100);
        t.feed(setup.as_bytes());
        let before = t.screen().work();
        t.feed(seq.as_bytes());
        let one = seq.len() as u64 + t.screen().work() - before;
        assert!((least..=3 * least + 64).contains(&one), "{what}: one costs {one}, touching {least} cells");
        let stream = seq.repeat(((4 * WORK_PER_TURN) / one + 2) as usize).into_bytes();
        let mut at = 0;
        let mut turns = 0;
        while at < stream.len() {
            let w = t.screen().work();
            let n = t.feed_bounded(&stream[at..], WORK_PER_TURN);
            let work = n as u64 + t.screen().work() - w;
            at += n;
            turns += 1;
            assert!(work <= WORK_PER_TURN + one, "{what}: a turn did {work} for a budget of {WORK_PER_TURN}");
            if at < stream.len() {
                assert!(work >= WORK_PER_TURN, "{what}: a turn stopped at {work}");
            }
        }
        assert!(turns >= 2, "{what}: {turns} turns");
    }
}

// ---- hyperlinks: bounded ids, each link held once, collected when no cell uses it ----

/// Feeds `n` hyperlinks made by `link(i)` to a terminal of 80x24 with 100 lines of scrollback,
/// each followed by `text` (nothing, or a cell printed with the link) and the link's end, and
/// returns the screen's memory (in bytes) above what it held after its first screenful of
/// lines, the most it reached at any feed, and the links it holds at the end.
fn link_flood(n: usize, link: impl Fn(usize) -> String, text: &str) -> (usize, usize) {
    let mut t = Terminal::with_scrollback(80, 24, 100);
    for i in 0..200 {
        t.feed(format!("line {i} before the links\r\n").as_bytes());
    }
    let base = t.screen().memory_bytes();
    let mut most = 0;
    let mut chunk = String::new();
    for i in 0..n {
        chunk.push_str(&format!("\x1b]8;{}\x1b\\{text}\x1b]8;;\x1b\\", link(i)));
        if chunk.len() > 1 << 20 {
            t.feed(chunk.as_bytes());
            chunk.clear();
            most = most.max(t.screen().memory_bytes().saturating_sub(base));
        }
    }
    t.feed(chunk.as_bytes());
    most = most.max(t.screen().memory_bytes().saturating_sub(base));
    if let Err(v) = t.screen().check_integrity() {
        panic!("{v}");
    }
    (most, t.screen().interned_lens().2)
}

#[test]
fn hyperlinks_with_long_ids_take_memory_bounded_by_the_cells_that_use_them() {
    // 262 MB of hyperlinks with long ids took 754 MB in `blitty replay`: an id had no bound
    // (an OSC string may be 1 MiB), each link was held twice (its slot and the table's key),
    // and the table was collected by its count of links, not their bytes. 50 MB of them now:
    // an id past 250 bytes is ignored (the link keeps its URI), and ids of 250 bytes, each link
    // on a cell of its own, cost the cells that use them (80 x 124 here) and at most as much
    // again awaiting collection.
    let long_id = |i: usize| format!("id={}{i};http://example.com/{i}", "i".repeat(10_000));
    let (most, links) = link_flood(5_000, long_id, "x");
    assert!(most <= 4 << 20, "links with 10 kB ids: {most} bytes more");
    assert!(links <= 2 * 80 * 124, "{links} links held");
    let longest_id = |i: usize| format!("id={:0>250};http://example.com/", i);
    let (most, _) = link_flood(180_000, longest_id, "x");
    let per_link = 250 + "\0http://example.com/".len() + 16 + 24 + 5 + 20;
    assert!(most <= 2 * 80 * 124 * per_link + (2 << 20), "links with 250-byte ids: {most} bytes more");
}

#[test]
fn hyperlinks_no_cell_uses_leave_nothing_but_what_awaits_collection() {
    // 50 MB of distinct links never printed: what the table holds stays within what a
    // collection allows (64 kB, or 8 bytes a cell), whatever was fed.
    let longest_id = |i: usize| format!("id={:0>250};http://example.com/{i}", i);
    let (most, links) = link_flood(180_000, longest_id, "");
    assert!(most <= 1 << 20, "{most} bytes more for links no cell uses");
    assert!(links <= 512, "{links} links held");
}
