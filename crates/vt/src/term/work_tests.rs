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
