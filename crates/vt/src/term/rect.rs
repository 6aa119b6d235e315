//! The VT420 rectangular area operations, as xterm (whose default conformance level is a VT420)
//! does them: DECFRA fills a rectangle with a character, DECERA erases it, DECSERA erases what
//! DECSCA did not protect, DECCRA copies it, DECCARA and DECRARA set, clear or reverse
//! attributes in it (or in the stream of cells between its corners: DECSACE).
//!
//! Coordinates are 1-based, top, left, bottom, right; 0 or missing is the page's edge, and they
//! are held to the page. In origin mode they count from the margins' corner and are held to the
//! margins, and a copy is cut at them (xterm). A rectangle whose top is below its bottom, or whose
//! left is right of its right, is empty and nothing happens. The cursor never moves. Pages
//! beyond the first (DECCRA's page numbers) do not exist: there is one page.
//!
//! Where a rectangle's edge cuts a wide character, the character becomes blanks, as every other
//! function that changes part of a row does here. Choices beside xterm's:
//! - DECFRA takes a character one cell wide: xterm also takes a wide one, which would put a
//!   two-cell character in every cell;
//! - DECERA and DECSERA leave erase's blank (a space with the current background colour, as ED
//!   does), where xterm keeps the current attributes (DECERA) or each cell's (DECSERA);
//! - in the stream extent, DECCARA and DECRARA change blank cells too: xterm skips the cells
//!   nothing was written to since they were erased, a difference this engine does not keep.

use super::Screen;
use crate::cell::Cell;
use crate::parser::Params;
use crate::style::{Attrs, Color, Style, Underline};

use super::modes::Protection;
use super::text::cell_width;

/// Rows `top..=bottom`, columns `left..=right` of the screen, 0-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Rect {
    pub(super) top: usize,
    pub(super) left: usize,
    pub(super) bottom: usize,
    pub(super) right: usize,
}

/// The attributes DECCARA's and DECRARA's 0 stand for (xterm's), besides underline (not a bit
/// here): bold, blink, inverse.
const ALL_CHANGEABLE: u16 = Attrs::BOLD | Attrs::BLINK | Attrs::INVERSE;

impl Screen {
    /// The part of the screen rectangles are held to, 0-based and inclusive: the page, or in
    /// origin mode the margins (xterm).
    pub(super) fn rect_bounds(&self) -> Rect {
        if self.modes.origin {
            Rect { top: self.top, left: self.left, bottom: self.bottom, right: self.right }
        } else {
            Rect { top: 0, left: 0, bottom: self.rows - 1, right: self.cols - 1 }
        }
    }

    /// Parameter `i` as a row (`is_row`) or column, 0-based, as xterm reads it: `default`
    /// (1-based) when 0 or missing; in origin mode counted from the top (left) margin; then held
    /// to [`Self::rect_bounds`]. The defaults xterm passes are the bounds' own edges, so in
    /// origin mode a missing top or left is offset by the margin twice, as XTerm 379 shows.
    pub(super) fn rect_coordinate(&self, p: &Params, i: usize, default: usize, is_row: bool) -> usize {
        let b = self.rect_bounds();
        let (min, max, origin) = if is_row { (b.top, b.bottom, self.top) } else { (b.left, b.right, self.left) };
        let v = match p.raw(i) as usize {
            0 => default,
            v => v,
        };
        let v = if self.modes.origin { v + origin } else { v };
        v.clamp(min + 1, max + 1) - 1
    }

    /// The rectangle of parameters `at..at + 4`, None when it is empty.
    pub(super) fn rect_at(&self, p: &Params, at: usize) -> Option<Rect> {
        let b = self.rect_bounds();
        let r = Rect {
            top: self.rect_coordinate(p, at, b.top + 1, true),
            left: self.rect_coordinate(p, at + 1, b.left + 1, false),
            bottom: self.rect_coordinate(p, at + 2, b.bottom + 1, true),
            right: self.rect_coordinate(p, at + 3, b.right + 1, false),
        };
        (r.top <= r.bottom && r.left <= r.right).then_some(r)
    }

    /// DECFRA (CSI Pch ; Pt ; Pl ; Pb ; Pr $ x): fills the rectangle with character `Pch` (a
    /// printable ASCII or Latin-1 code, through the character sets invoked, or any other
    /// character one cell wide) in the current rendition. xterm keeps each cell's colours
    /// unless the current rendition has a colour of its own, and so does this.
    pub(crate) fn fill_rectangle(&mut self, p: &Params) {
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
        let fill = Cell::char(c, false, 0);
        // Uncoloured: each cell keeps its colours and takes the rest of the pen. Between fixed
        // styles (palette colours) that is an exchange of bits of the ids.
        let pen_fixed = self.pen.fixed;
        let mut fixed = |old: u32| pen_fixed.map(|id| Style::with_colours_of(id, old));
        let take_colours = |old: Style| Style { fg: old.fg, bg: old.bg, ..pen };
        for y in r.top..=r.bottom {
            let (s, e) = self.split_wide_edges(y, r.left, r.right + 1);
            if coloured {
                let id = self.pen_id(y);
                self.work += (r.right + 1 - r.left) as u64;
                self.grid_mut().row_mut(y)[r.left..=r.right].fill(fill.with_style(id));
            } else {
                self.grid_mut().restyle(y, r.left, r.right + 1, Some(fill), &mut fixed, &take_colours);
            }
            self.touch(y, s, e);
        }
    }

    /// DECERA (CSI Pt ; Pl ; Pb ; Pr $ z) erases the rectangle, protected characters too;
    /// DECSERA (CSI Pt ; Pl ; Pb ; Pr $ {, `selective`) erases what DECSCA did not protect.
    pub(crate) fn erase_rectangle(&mut self, p: &Params, selective: bool) {
        let Some(r) = self.rect_at(p, 0) else { return };
        let keep = selective && self.modes.protection == Protection::Dec;
        for y in r.top..=r.bottom {
            self.erase_cells(y, r.left, r.right + 1, keep);
        }
    }

    /// DECCRA (CSI Pts ; Pls ; Pbs ; Prs ; Pps ; Ptd ; Pld ; Ppd $ v): copies the rectangle, its
    /// characters and their renditions, to the one whose top left corner is (Ptd, Pld); what
    /// would fall off the page is dropped. The source is read whole before anything is
    /// written, so overlapping rectangles copy as if through a buffer (as xterm does).
    pub(crate) fn copy_rectangle(&mut self, p: &Params) {
        let Some(src) = self.rect_at(p, 0) else { return };
        let b = self.rect_bounds();
        let top = self.rect_coordinate(p, 5, b.top + 1, true);
        let left = self.rect_coordinate(p, 6, b.left + 1, false);
        let width = src.right + 1 - src.left;
        let right = (left + width - 1).min(b.right);
        let n = right + 1 - left;
        let height = (src.bottom + 1 - src.top).min(b.bottom + 1 - top);
        // Row by row, each source row read before anything is written over it: a copy down the
        // page goes from its bottom row up, any other from its top row down (and in one row
        // `copy_span` reads the span before writing). What the rows hold is then what a copy
        // through a buffer of the whole rectangle gives, without one.
        let down = top > src.top;
        for j in 0..height {
            let j = if down { height - 1 - j } else { j };
            let (s, e) = self.grid_mut().copy_span(src.top + j, src.left, top + j, left, n, |cells| {
                // Half of a wide character the source's edge cuts is copied as a blank, and so
                // is a wide character whose second half would fall off the page or the margins.
                if cells[0].is_spacer() {
                    cells[0] = Cell::blank(cells[0].style());
                }
                if cells[n - 1].is_wide() {
                    cells[n - 1] = Cell::blank(cells[n - 1].style());
                }
            });
            self.touch(top + j, s, e);
        }
    }

    /// DECCARA (CSI Pt ; Pl ; Pb ; Pr ; Ps... $ r) sets and clears attributes, DECRARA
    /// (CSI Pt ; Pl ; Pb ; Pr ; Ps... $ t, `reverse`) reverses them, in the rectangle or, unless
    /// DECSACE chose the rectangle, in the stream of cells from its top left corner to its
    /// bottom right one. The attributes are SGR's 1 (bold), 4 (underline), 5 (blink), 7
    /// (inverse) and 8 (hidden, as xterm extends it), 0 for the first four, and for DECCARA
    /// 22, 24, 25, 27 and 28 to clear them. Colours and other attributes stay.
    pub(crate) fn change_rectangle_attributes(&mut self, p: &Params, reverse: bool) {
        let Some(r) = self.rect_at(p, 0) else { return };
        let ops: Vec<u16> = (4..p.len()).map(|i| p.raw(i)).collect();
        if ops.is_empty() {
            return;
        }
        let apply = |mut a: Attrs| {
            for &op in &ops {
                let (bits, underline) = match op {
                    0 => (ALL_CHANGEABLE, true),
                    1 | 22 => (Attrs::BOLD, false),
                    4 | 24 => (0, true),
                    5 | 25 => (Attrs::BLINK, false),
                    7 | 27 => (Attrs::INVERSE, false),
                    8 | 28 => (Attrs::HIDDEN, false),
                    _ => continue,
                };
                // Set, clear, or (DECRARA) reverse.
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
            a
        };
        // Each distinct set of attributes is changed once, through a small cache: a row's
        // cells share a few (the styles around them differ in colours).
        let cache = std::cell::RefCell::new([(u32::MAX, Attrs(0)); 32]);
        let change_attrs = |a: Attrs| {
            let slot = (a.0 ^ a.0 >> 5 ^ a.0 >> 10) as usize % 32;
            let mut cache = cache.borrow_mut();
            if cache[slot].0 != u32::from(a.0) {
                cache[slot] = (u32::from(a.0), apply(a));
            }
            cache[slot].1
        };
        let change = |style: Style| Style { attrs: change_attrs(style.attrs), ..style };
        // The attributes changed are ones a packed id holds: a default or packed style stays one.
        let mut fixed = |old: u32| change(if old == 0 { Style::default() } else { Style::unpack(old) }).fixed_id();
        let rectangle = self.modes.rectangle_extent;
        for y in r.top..=r.bottom {
            let start = if rectangle || y == r.top { r.left } else { 0 };
            let end = if rectangle || y == r.bottom { r.right } else { self.cols - 1 };
            self.grid_mut().restyle(y, start, end + 1, None, &mut fixed, &change);
            self.touch(y, start, end + 1);
        }
    }

    /// DECRQCRA (CSI Pi ; Pg ; Pt ; Pl ; Pb ; Pr * y): answers `DCS Pi ! ~ xxxx ST`, a 16-bit
    /// checksum of the rectangle in hexadecimal, when the host allows window operations
    /// ([`Screen::allow_window_ops`]); the page `Pg` is ignored (there is one). The sum is
    /// xterm's: each cell's character, plus its attributes (protected 0x4, invisible 0x8,
    /// underline 0x10, inverse 0x20, blink 0x40, bold 0x80), spaces left out but for the first
    /// cell, the total negated; XTCHECKSUM's bits turn these off (1: not negated, 2: no
    /// attributes, 4: spaces counted) or (16) sum whole code points and combining marks, where
    /// otherwise a character beyond Latin-1 counts as ESC (0x1b), as xterm's does (in both
    /// halves of a wide one: xterm's right half holds a character beyond Latin-1). xterm's bit
    /// 8 (skip cells never written) changes nothing here: this engine does not tell a cell that
    /// was never written from a space.
    pub(crate) fn checksum_rectangle(&mut self, p: &Params) {
        if !self.window_ops {
            return;
        }
        const POSITIVE: u16 = 1;
        const NO_ATTRS: u16 = 2;
        const NO_TRIM: u16 = 4;
        const WHOLE: u16 = 16;
        let mode = self.checksum_ext;
        let mut total: u32 = 0;
        if let Some(r) = self.rect_at(p, 2) {
            self.work += ((r.bottom + 1 - r.top) * (r.right + 1 - r.left)) as u64;
            let mut first = true;
            let mut text = String::new();
            for y in r.top..=r.bottom {
                let line = self.grid().row_ref(y);
                for &cell in &line[r.left..=r.right] {
                    let mut ch = if mode & WHOLE != 0 {
                        if cell.is_spacer() {
                            continue;
                        }
                        text.clear();
                        self.push_cell_text(cell, &mut text);
                        text.chars().map(|c| c as u32).fold(0u32, u32::wrapping_add)
                    } else {
                        match cell.char_value() {
                            Some(c) if (' '..='\u{ff}').contains(&c) => c as u32,
                            _ => 0x1b,
                        }
                    };
                    if mode & NO_ATTRS == 0 {
                        let a = line.style(cell).attrs;
                        for (bit, add) in [
                            (Attrs::PROTECTED, 0x4),
                            (Attrs::HIDDEN, 0x8),
                            (Attrs::INVERSE, 0x20),
                            (Attrs::BLINK, 0x40),
                            (Attrs::BOLD, 0x80),
                        ] {
                            if a.has(bit) {
                                ch += add;
                            }
                        }
                        if a.underline() != Underline::None {
                            ch += 0x10;
                        }
                    }
                    if first || ch != u32::from(b' ') || mode & NO_TRIM != 0 {
                        total = total.wrapping_add(ch);
                    }
                    first = false;
                }
            }
        }
        if mode & POSITIVE == 0 {
            total = total.wrapping_neg();
        }
        let answer = format!("\x1bP{}!~{:04X}\x1b\\", p.raw(0), total & 0xffff);
        self.reply(answer.as_bytes());
    }
}
