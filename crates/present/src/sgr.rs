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
    // The underline in the forms every host reads: xterm (379 to 410) ignores an SGR 4 with a
    // sub-parameter altogether and keeps single (4) and double (21) as two flags, so double is
    // 21 (as in ECMA-48, read by tmux, VTE, kitty and alacritty too), the other styles are 4
    // then 4:n (a single underline in xterm, the style where it is known), and a change from one
    // underline to another ends the old one first (24).
    let (u, was) = (ta.underline(), base.attrs.underline());
    if u != was {
        if was != Underline::None {
            out.extend_from_slice(b";24");
        }
        out.extend_from_slice(match u {
            Underline::None => b"",
            Underline::Single => b";4",
            Underline::Double => b";21",
            Underline::Curly => b";4;4:3",
            Underline::Dotted => b";4;4:4",
            Underline::Dashed => b";4;4:5",
        });
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

    /// The underline an xterm (379 to 410) shows after `bytes`: its single (4) and double (21)
    /// flags, with an SGR parameter that has sub-parameters ignored, as its `CASE_SGR` does.
    fn xterm_underline(bytes: &[u8]) -> (bool, bool) {
        let (mut single, mut double) = (false, false);
        let text = String::from_utf8_lossy(bytes);
        for seq in text.split("\x1b[").skip(1) {
            let params = seq.split('m').next().unwrap_or("");
            for p in params.split(';') {
                match p {
                    "" | "0" => (single, double) = (false, false),
                    "4" => single = true,
                    "21" => double = true,
                    "24" => (single, double) = (false, false),
                    _ => {}
                }
            }
        }
        (single, double)
    }

    #[test]
    fn every_underline_change_reaches_xterm_and_the_engine() {
        // From each underline style (with bold, so that some changes do not reset) to each:
        // blitty's engine gets the style, and xterm, which ignores 4:n and keeps 4 and 21 as
        // two flags, a single underline for each style but double, a double one for double.
        let all = [
            Underline::None,
            Underline::Single,
            Underline::Double,
            Underline::Curly,
            Underline::Dotted,
            Underline::Dashed,
        ];
        let style = |u: Underline| {
            let mut s = Style::default();
            s.attrs.set(Attrs::BOLD, true);
            s.attrs.set_underline(u);
            s
        };
        for from in all {
            for to in all {
                let mut bytes = Vec::new();
                transition(&mut bytes, &Style::default(), &style(from));
                transition(&mut bytes, &style(from), &style(to));
                let shown = match to {
                    Underline::None => (false, false),
                    Underline::Double => (false, true),
                    _ => (true, false),
                };
                let text = String::from_utf8_lossy(&bytes).into_owned();
                assert_eq!(xterm_underline(&bytes), shown, "{from:?} -> {to:?}: {text:?}");
                let mut t = blitty_vt::Terminal::new(4, 1);
                bytes.push(b'x');
                t.feed(&bytes);
                let row = t.screen().row(0);
                assert_eq!(row.style(row[0]).attrs.underline(), to, "{from:?} -> {to:?}: {text:?}");
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
