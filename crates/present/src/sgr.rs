//! Writing SGR: the sequence that changes the host's pen from one style to another, adding
//! only what differs, or resetting first when an attribute must be turned off.

use std::io::Write;

use blitty_vt::{Attrs, Color, Style, Underline};

const SIMPLE: [(u16, u8); 9] = [
    (Attrs::BOLD, 1),
    (Attrs::DIM, 2),
    (Attrs::ITALIC, 3),
    (Attrs::BLINK, 5),
    (Attrs::RAPID_BLINK, 6),
    (Attrs::INVERSE, 7),
    (Attrs::HIDDEN, 8),
    (Attrs::STRIKE, 9),
    (Attrs::OVERLINE, 53),
];

/// Appends `sep` and `n` in decimal. (Frames of colour-dense screens write several numbers
/// per cell: `write!` cost more than building the rest of the frame.)
#[inline]
fn num(out: &mut Vec<u8>, sep: u8, n: u8) {
    out.push(sep);
    if n >= 100 {
        out.push(b'0' + n / 100);
    }
    if n >= 10 {
        out.push(b'0' + n / 10 % 10);
    }
    out.push(b'0' + n % 10);
}

fn color(out: &mut Vec<u8>, c: Color, base: u8, bright: u8, extended: u8) {
    match c {
        Color::Default => num(out, b';', extended + 1),
        Color::Indexed(i) if i < 8 => num(out, b';', base + i),
        Color::Indexed(i) if i < 16 => num(out, b';', bright + i - 8),
        Color::Indexed(i) => {
            num(out, b';', extended);
            out.extend_from_slice(b";5");
            num(out, b';', i);
        }
        Color::Rgb(r, g, b) => {
            num(out, b';', extended);
            out.extend_from_slice(b";2");
            num(out, b';', r);
            num(out, b';', g);
            num(out, b';', b);
        }
    }
}

/// Appends the SGR sequence taking the pen from `from` to `to` (nothing when equal).
pub fn transition(out: &mut Vec<u8>, from: &Style, to: &Style) {
    let (fa, ta) = (from.attrs, to.attrs);
    let visual = |s: &Style| (s.fg, s.bg, s.underline_color, s.attrs.0 & !Attrs::PROTECTED);
    if visual(from) == visual(to) {
        return;
    }
    let removes = SIMPLE.iter().any(|&(bit, _)| fa.has(bit) && !ta.has(bit))
        || (fa.underline() != Underline::None && ta.underline() == Underline::None);
    out.extend_from_slice(b"\x1b[");
    let base = if removes {
        out.push(b'0');
        Style::default()
    } else {
        *from
    };
    let start = out.len();
    for &(bit, code) in &SIMPLE {
        if ta.has(bit) && !base.attrs.has(bit) {
            num(out, b';', code);
        }
    }
    let u = ta.underline();
    if u != base.attrs.underline() {
        let _ = match u {
            Underline::None => write!(out, ";24"),
            Underline::Single => write!(out, ";4"),
            Underline::Double => write!(out, ";4:2"),
            Underline::Curly => write!(out, ";4:3"),
            Underline::Dotted => write!(out, ";4:4"),
            Underline::Dashed => write!(out, ";4:5"),
        };
    }
    if to.fg != base.fg {
        color(out, to.fg, 30, 90, 38);
    }
    if to.bg != base.bg {
        color(out, to.bg, 40, 100, 48);
    }
    if to.underline_color != base.underline_color {
        let _ = match to.underline_color {
            Color::Default => write!(out, ";59"),
            Color::Indexed(i) => write!(out, ";58:5:{i}"),
            Color::Rgb(r, g, b) => write!(out, ";58:2::{r}:{g}:{b}"),
        };
    }
    if !removes && out.len() > start {
        // Drop the leading ';' when nothing came before it.
        out.remove(start);
    }
    out.push(b'm');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sgr(from: Style, to: Style) -> String {
        let mut v = Vec::new();
        transition(&mut v, &from, &to);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn adds_only_what_differs_and_resets_to_remove() {
        let red = Style { fg: Color::Indexed(1), ..Style::default() };
        let mut bold_red = red;
        bold_red.attrs.set(Attrs::BOLD, true);
        assert_eq!(sgr(Style::default(), red), "\x1b[31m");
        assert_eq!(sgr(red, bold_red), "\x1b[1m");
        assert_eq!(sgr(bold_red, red), "\x1b[0;31m");
        assert_eq!(sgr(red, red), "");
        let rgb = Style { bg: Color::Rgb(1, 2, 3), fg: Color::Indexed(200), ..Style::default() };
        assert_eq!(sgr(Style::default(), rgb), "\x1b[38;5;200;48;2;1;2;3m");
        assert_eq!(sgr(rgb, Style::default()), "\x1b[39;49m");
    }

    #[test]
    fn every_transition_lands_on_the_target_style() {
        // Applying the emitted SGR in the engine gives exactly the target style.
        let styles = {
            let mut v = vec![Style::default()];
            for (i, &(bit, _)) in SIMPLE.iter().enumerate() {
                let mut s = Style { fg: Color::Indexed(i as u8 * 20), ..Style::default() };
                s.attrs.set(bit, true);
                if i % 2 == 0 {
                    s.attrs.set_underline(Underline::Curly);
                    s.bg = Color::Rgb(i as u8, 9, 9);
                }
                v.push(s);
            }
            v
        };
        for from in &styles {
            for to in &styles {
                let mut t = blitty_vt::Terminal::new(4, 1);
                let mut bytes = Vec::new();
                transition(&mut bytes, &Style::default(), from);
                transition(&mut bytes, from, to);
                bytes.push(b'x');
                t.feed(&bytes);
                let s = t.screen();
                let row = s.row(0);
                assert_eq!(row.style(row[0]), *to, "from {from:?}");
            }
        }
    }

    #[test]
    fn every_colour_number_is_written_as_the_engine_reads_it() {
        let mut t = blitty_vt::Terminal::new(4, 1);
        for v in 0..=255u8 {
            for to in [
                Style { fg: Color::Indexed(v), bg: Color::Indexed(255 - v), ..Style::default() },
                Style { fg: Color::Rgb(v, 255 - v, v / 2), bg: Color::Rgb(v / 3, v, 7), ..Style::default() },
            ] {
                let mut bytes = b"\x1b[H".to_vec();
                transition(&mut bytes, &Style::default(), &to);
                bytes.extend_from_slice(b"x\x1b[0m");
                t.feed(&bytes);
                let row = t.screen().row(0);
                assert_eq!(row.style(row[0]), to, "{:?}", String::from_utf8_lossy(&bytes));
            }
        }
    }
}
