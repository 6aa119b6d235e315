//! SGR (CSI Pm m): character attributes and colours, in both the semicolon form
//! (`38;5;n`, `38;2;r;g;b`) and xterm's colon form (`38:5:n`, `38:2:cs:r:g:b`, also
//! accepted without the colour-space id), underline styles (`4:0`..`4:5`) and underline
//! colour (58/59).

use super::Screen;
use crate::parser::Params;
use crate::style::{Attrs, Color, Style, Underline};

/// Reads an extended colour (the part after 38/48/58). `group` is the parameter with its
/// colon sub-parameters; `rest` yields the following parameters for the semicolon form.
fn extended_color<'a>(group: &[u16], rest: &mut impl Iterator<Item = &'a [u16]>) -> Option<Color> {
    if group.len() > 1 {
        // Colon form: 38:5:n or 38:2:[cs:]r:g:b
        return match group[1] {
            5 => group.get(2).and_then(|&n| u8::try_from(n).ok()).map(Color::Indexed),
            2 => {
                let rgb = if group.len() >= 6 { &group[3..6] } else { group.get(2..5)? };
                rgb_color(rgb[0], rgb[1], rgb[2])
            }
            _ => None,
        };
    }
    let mut next = || rest.next().map(|g| g[0]);
    match next()? {
        5 => next().and_then(|n| u8::try_from(n).ok()).map(Color::Indexed),
        2 => {
            let (r, g, b) = (next()?, next()?, next()?);
            rgb_color(r, g, b)
        }
        _ => None,
    }
}

fn rgb_color(r: u16, g: u16, b: u16) -> Option<Color> {
    Some(Color::Rgb(u8::try_from(r).ok()?, u8::try_from(g).ok()?, u8::try_from(b).ok()?))
}

impl Screen {
    /// SGR: applies every attribute in `params` to the pen. Unknown values are ignored.
    pub(crate) fn select_graphic_rendition(&mut self, params: &Params) {
        let mut s = self.pen.style;
        if params.is_empty() {
            s = reset(s);
        }
        let mut groups = params.groups();
        while let Some(group) = groups.next() {
            let a = &mut s.attrs;
            match group[0] {
                0 => s = reset(s),
                1 => a.set(Attrs::BOLD, true),
                2 => a.set(Attrs::DIM, true),
                3 => a.set(Attrs::ITALIC, true),
                4 => a.set_underline(match group.get(1) {
                    None => Underline::Single,
                    Some(0) => Underline::None,
                    Some(2) => Underline::Double,
                    Some(3) => Underline::Curly,
                    Some(4) => Underline::Dotted,
                    Some(5) => Underline::Dashed,
                    Some(_) => Underline::Single,
                }),
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
                n @ 30..=37 => s.fg = Color::Indexed((n - 30) as u8),
                38 => {
                    if let Some(c) = extended_color(group, &mut groups) {
                        s.fg = c
                    }
                }
                39 => s.fg = Color::Default,
                n @ 40..=47 => s.bg = Color::Indexed((n - 40) as u8),
                48 => {
                    if let Some(c) = extended_color(group, &mut groups) {
                        s.bg = c
                    }
                }
                49 => s.bg = Color::Default,
                53 => a.set(Attrs::OVERLINE, true),
                55 => a.set(Attrs::OVERLINE, false),
                58 => {
                    if let Some(c) = extended_color(group, &mut groups) {
                        s.underline_color = c
                    }
                }
                59 => s.underline_color = Color::Default,
                n @ 90..=97 => s.fg = Color::Indexed((n - 90 + 8) as u8),
                n @ 100..=107 => s.bg = Color::Indexed((n - 100 + 8) as u8),
                _ => {}
            }
        }
        self.set_pen(s);
    }
}

/// SGR 0: everything off, but the hyperlink (OSC 8) and DECSCA protection are not SGR's.
fn reset(s: Style) -> Style {
    let mut fresh = Style { link: s.link, ..Style::default() };
    fresh.attrs.set(Attrs::PROTECTED, s.attrs.has(Attrs::PROTECTED));
    fresh
}
