//! SGR (CSI Pm m): character attributes and colours, in both the semicolon form
//! (`38;5;n`, `38;2;r;g;b`) and xterm's colon form (`38:5:n`, `38:2:cs:r:g:b`, also
//! accepted without the colour-space id), underline styles (`4:0`..`4:5`) and underline
//! colour (58/59).

use super::Screen;
use crate::parser::Params;
use crate::style::{Attrs, Color, Style, Underline};

/// Reads the extended colour of the parameter at `i` (38, 48 or 58). Returns the colour, if
/// valid, and the index of the first parameter after it.
fn extended_color(p: &Params, i: usize) -> (Option<Color>, usize) {
    let v = p.values();
    if p.is_sub(i + 1) {
        // Colon form: 38:5:n or 38:2:[cs:]r:g:b; the group ends at the next non-sub parameter.
        let mut end = i + 1;
        while end < v.len() && p.is_sub(end) {
            end += 1;
        }
        let group = &v[i..end];
        let color = match group.get(1) {
            Some(5) => group.get(2).and_then(|&n| u8::try_from(n).ok()).map(Color::Indexed),
            Some(2) if group.len() >= 6 => rgb(group[3], group[4], group[5]),
            Some(2) if group.len() == 5 => rgb(group[2], group[3], group[4]),
            _ => None,
        };
        return (color, end);
    }
    match v.get(i + 1) {
        Some(5) => (v.get(i + 2).and_then(|&n| u8::try_from(n).ok()).map(Color::Indexed), (i + 3).min(v.len())),
        Some(2) if v.len() >= i + 5 => (rgb(v[i + 2], v[i + 3], v[i + 4]), i + 5),
        Some(_) => (None, v.len()),
        None => (None, i + 1),
    }
}

#[inline]
fn rgb(r: u16, g: u16, b: u16) -> Option<Color> {
    Some(Color::Rgb(u8::try_from(r).ok()?, u8::try_from(g).ok()?, u8::try_from(b).ok()?))
}

fn underline(sub: Option<u16>) -> Underline {
    match sub {
        None => Underline::Single,
        Some(0) => Underline::None,
        Some(2) => Underline::Double,
        Some(3) => Underline::Curly,
        Some(4) => Underline::Dotted,
        Some(5) => Underline::Dashed,
        Some(_) => Underline::Single,
    }
}

impl Screen {
    /// SGR: applies every attribute in `params` to the pen. Unknown values are ignored.
    ///
    /// The pen's style is changed where it lies, a field at a time, not copied out, changed and
    /// stored back whole: the whole copy read the fields just stored one by one with one wide
    /// load, which the CPU cannot forward from the narrower stores and waits for them to
    /// retire (a quarter of the corpus's time went to that wait).
    pub(crate) fn select_graphic_rendition(&mut self, params: &Params) {
        let s = &mut self.pen.style;
        let v = params.values();
        if !params.has_sub() {
            // The shapes real output sends most (`CSI m`, one attribute or colour, colour-dense
            // output's pair of 256-colour or RGB colours), set without the general walk.
            let idx = |n: u16| u8::try_from(n).ok().map(Color::Indexed);
            let (fg, bg) = match *v {
                [] => return self.short_graphic_rendition(None),
                [n] if !matches!(n, 38 | 48 | 58) => return self.short_graphic_rendition(Some(n)),
                [a, b] if !matches!(a, 38 | 48 | 58) && !matches!(b, 38 | 48 | 58) => {
                    simple(s, a);
                    simple(s, b);
                    return self.pen_changed();
                }
                [38, 5, f] => (idx(f), None),
                [48, 5, b] => (None, idx(b)),
                [38, 5, f, 48, 5, b] if f < 256 && b < 256 => {
                    // Colour-dense output's pair: a fixed pen stays fixed, its id changed in place.
                    // (The same in place change for every colour shape below, through their
                    // Options, measured 22.3-23.4 instructions a byte on sgr-256 against 21.0,
                    // and gained nothing on the corpus.)
                    (s.fg, s.bg) = (Color::Indexed(f as u8), Color::Indexed(b as u8));
                    self.pen.fixed = match self.pen.fixed {
                        Some(id) => Some(Style::with_palette_colours(id, f as u8, b as u8)),
                        None => self.pen.style.fixed_id(),
                    };
                    self.pen.at = None;
                    return;
                }
                [38, 5, f, 48, 5, b] => (idx(f), idx(b)),
                [38, 2, r, g, b] => (rgb(r, g, b), None),
                [48, 2, r, g, b] => (None, rgb(r, g, b)),
                [38, 2, r, g, b, 48, 2, r2, g2, b2] => (rgb(r, g, b), rgb(r2, g2, b2)),
                _ => (None, None),
            };
            if fg.is_some() || bg.is_some() {
                if let Some(fg) = fg {
                    s.fg = fg;
                }
                if let Some(bg) = bg {
                    s.bg = bg;
                }
                return self.pen_changed();
            }
        }
        let mut i = 0;
        while i < v.len() {
            let mut next = i + 1;
            // Sub-parameters not consumed below belong to this parameter and are skipped.
            while next < v.len() && params.is_sub(next) && !matches!(v[i], 38 | 48 | 58) {
                next += 1;
            }
            match v[i] {
                4 => s.attrs.set_underline(underline(params.is_sub(i + 1).then(|| v[i + 1]))),
                38 | 48 | 58 => {
                    let (color, after) = extended_color(params, i);
                    if let Some(c) = color {
                        match v[i] {
                            38 => s.fg = c,
                            48 => s.bg = c,
                            _ => s.underline_color = c,
                        }
                    }
                    next = after;
                }
                n => simple(s, n),
            }
            i = next;
        }
        self.pen_changed();
    }

    /// SGR with no parameter (`None`) or one, no sub-parameter: the parser's lane for the
    /// shortest SGRs, and the same shapes in [`Self::select_graphic_rendition`]. 38, 48 and 58 alone
    /// name no colour and change nothing there, as [`simple`] ignores them here. Not inlined:
    /// the parser's loop, where it is called, keeps its registers.
    #[inline(never)]
    pub(crate) fn short_graphic_rendition(&mut self, value: Option<u16>) {
        let s = &mut self.pen.style;
        match value {
            None => *s = reset(*s),
            Some(n) => simple(s, n),
        }
        self.pen_changed();
    }
}

/// One SGR parameter that takes no sub-parameters and no following parameters (everything but
/// 38, 48 and 58; 4 here is a plain single underline). Unknown values are ignored.
#[inline]
fn simple(s: &mut Style, n: u16) {
    let a = &mut s.attrs;
    match n {
        0 => *s = reset(*s),
        1 => a.set(Attrs::BOLD, true),
        2 => a.set(Attrs::DIM, true),
        3 => a.set(Attrs::ITALIC, true),
        4 => a.set_underline(Underline::Single),
        5 => a.set(Attrs::BLINK, true),
        6 => a.set(Attrs::RAPID_BLINK, true),
        7 => a.set(Attrs::INVERSE, true),
        8 => a.set(Attrs::HIDDEN, true),
        9 => a.set(Attrs::STRIKE, true),
        21 => a.set_underline(Underline::Double),
        22 => {
            a.set(Attrs::BOLD, false);
            a.set(Attrs::DIM, false);
        }
        23 => a.set(Attrs::ITALIC, false),
        24 => a.set_underline(Underline::None),
        25 => {
            a.set(Attrs::BLINK, false);
            a.set(Attrs::RAPID_BLINK, false);
        }
        27 => a.set(Attrs::INVERSE, false),
        28 => a.set(Attrs::HIDDEN, false),
        29 => a.set(Attrs::STRIKE, false),
        30..=37 => s.fg = Color::Indexed((n - 30) as u8),
        39 => s.fg = Color::Default,
        40..=47 => s.bg = Color::Indexed((n - 40) as u8),
        49 => s.bg = Color::Default,
        53 => a.set(Attrs::OVERLINE, true),
        55 => a.set(Attrs::OVERLINE, false),
        59 => s.underline_color = Color::Default,
        90..=97 => s.fg = Color::Indexed((n - 90 + 8) as u8),
        100..=107 => s.bg = Color::Indexed((n - 100 + 8) as u8),
        _ => {}
    }
}

/// SGR 0: everything off, but the hyperlink (OSC 8) and DECSCA protection are not SGR's.
fn reset(s: Style) -> Style {
    let mut fresh = Style { link: s.link, ..Style::default() };
    fresh.attrs.set(Attrs::PROTECTED, s.attrs.has(Attrs::PROTECTED));
    fresh
}
