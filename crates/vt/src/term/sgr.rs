//! SGR (CSI Pm m): character attributes and colours, in both the semicolon form
//! (`38;5;n`, `38;2;r;g;b`) and xterm's colon form (`38:5:n`, `38:2:cs:r:g:b`, also
//! accepted without the colour-space id), underline styles (`4:0`..`4:5`) and underline
//! colour (58/59).

use super::Screen;
use crate::parser::Params;
use crate::style::{Attrs, Color, Style, Underline};

/// Reads the extended colour of the parameter at `i` (38, 48 or 58) as xterm's
/// `parse_extended_colors` does. Returns the colour, if valid, and the index of the first
/// parameter after it.
/// - `38:5:n`, `38:2:r:g:b`, `38:2:cs:r:g:b`: the values are 38's sub-parameters; the colour
///   space is there when there are more than four.
/// - `38;5:n`, `38;2:r:g:b`, `38;2:cs:r:g:b`: the values are the selector's sub-parameters.
/// - `38;5;n`, `38;2;r;g;b`: the values are the parameters after the selector, and ones the
///   sequence lacks count as 0 (`CSI 38;5 m` is colour 0, `CSI 38;2;9 m` is RGB 9,0,0), as
///   xterm reads its cleared parameter array past the last one.
/// - A selector other than 5 and 2 names no colour: it and 38 are skipped and the parameters
///   after it are read as attributes (`CSI 38;62;1 m` sets bold).
/// - A value of 256 or more names no colour but is skipped all the same.
fn extended_color(p: &Params, i: usize) -> (Option<Color>, usize) {
    let v = p.values();
    // Sub-parameters after index `at`: how many.
    let subs = |at: usize| (at + 1..v.len()).take_while(|&j| p.is_sub(j)).count();
    let need = |code: u16| match code {
        5 => 1,
        2 => 3,
        _ => 0,
    };
    let pick = |code: u16, value: &dyn Fn(usize) -> Option<u16>| match code {
        5 => value(0).and_then(|n| u8::try_from(n).ok()).map(Color::Indexed),
        2 => rgb(value(0)?, value(1)?, value(2)?),
        _ => None,
    };
    let have = subs(i);
    if have > 0 {
        let code = v[i + 1];
        let first = i + 2 + usize::from(have > 4);
        let color = pick(code, &|n| (first + n <= i + have).then(|| v[first + n]));
        return (color, i + 1 + have);
    }
    let Some(&code) = v.get(i + 1) else { return (None, i + 1) };
    let have = subs(i + 1);
    if have > 0 {
        let first = i + 2 + usize::from(have > 3);
        let color = pick(code, &|n| (first + n <= i + 1 + have).then(|| v[first + n]));
        return (color, i + 2 + have);
    }
    let color = pick(code, &|n| Some(v.get(i + 2 + n).copied().unwrap_or(0)));
    (color, (i + 2 + need(code)).min(v.len()))
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
                // Sub-parameters on one that takes none: xterm ignores the parameter.
                _ if next > i + 1 && !matches!(v[i], 38 | 48 | 58) => {}
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
