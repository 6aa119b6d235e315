//! What programs ask the terminal about its state, beyond the DSR/DA reports: colours (OSC 4,
//! 5, 10, 11, 12 and their resets 104, 105, 110, 111, 112), settings (DECRQSS, DCS $ q), and the title
//! stack (XTWINOPS 22 and 23). Answers carry only numbers and hexadecimal digits, never text
//! a program chose.

use super::{CursorShape, Screen};
use crate::style::{Attrs, Color, Style, Underline};

/// A colour as red, green and blue.
pub type Rgb = [u8; 3];

/// The titles saved by XTWINOPS 22 at most (xterm's depth); pushing more drops the oldest.
pub const MAX_TITLE_STACK: usize = 10;

/// xterm's special colours, in OSC 5's numbering: what xterm can draw bold, underlined,
/// blinking, reverse and italic text in (its colorBD, colorUL, colorBL, colorRV and colorIT
/// resources).
pub const SPECIAL_COLOURS: usize = 5;

/// The colours the terminal answers queries with: the 256 indexed colours, the default
/// foreground and background, the cursor colour, and xterm's special colours.
///
/// The defaults are xterm's for the indexed colours; for the default foreground and background
/// they are light grey on black (xterm's colour 7 on colour 0), the dark scheme most terminals
/// ship, which is what programs that ask (vim, neovim: OSC 11) should assume when the host's
/// own colours are not known. A host that knows its colours sets them with
/// [`Screen::set_default_colors`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Palette {
    pub indexed: [Rgb; 256],
    pub foreground: Rgb,
    pub background: Rgb,
    pub cursor: Rgb,
    /// The special colours (OSC 5, and OSC 4 from index 256), set and answered as xterm sets
    /// and answers them. As in xterm by default (its colorBDMode and the like are off), text
    /// is not drawn in them: they are kept for the programs that set and ask. Each is the
    /// default foreground until set, as xterm's resources default to XtDefaultForeground.
    pub special: [Rgb; SPECIAL_COLOURS],
}

impl Default for Palette {
    fn default() -> Self {
        Palette {
            indexed: std::array::from_fn(|i| default_indexed(i as u8)),
            foreground: default_indexed(7),
            background: default_indexed(0),
            cursor: default_indexed(7),
            special: [default_indexed(7); SPECIAL_COLOURS],
        }
    }
}

/// xterm's default for indexed colour `i`: its 16 named colours, the 6x6x6 cube, 24 greys.
pub fn default_indexed(i: u8) -> Rgb {
    const NAMED: [Rgb; 16] = [
        [0x00, 0x00, 0x00],
        [0xcd, 0x00, 0x00],
        [0x00, 0xcd, 0x00],
        [0xcd, 0xcd, 0x00],
        [0x00, 0x00, 0xee],
        [0xcd, 0x00, 0xcd],
        [0x00, 0xcd, 0xcd],
        [0xe5, 0xe5, 0xe5],
        [0x7f, 0x7f, 0x7f],
        [0xff, 0x00, 0x00],
        [0x00, 0xff, 0x00],
        [0xff, 0xff, 0x00],
        [0x5c, 0x5c, 0xff],
        [0xff, 0x00, 0xff],
        [0x00, 0xff, 0xff],
        [0xff, 0xff, 0xff],
    ];
    let level = |v: u8| if v == 0 { 0 } else { 55 + 40 * v };
    match i {
        0..=15 => NAMED[i as usize],
        16..=231 => {
            let v = i - 16;
            [level(v / 36), level(v / 6 % 6), level(v % 6)]
        }
        _ => [8 + 10 * (i - 232); 3],
    }
}

/// Reads an X11 colour specification as xterm accepts it in OSC 4/10/11/12: `rgb:R/G/B` with
/// 1 to 4 hexadecimal digits a channel, or `#RGB`, `#RRGGBB`, `#RRRGGGBBB`, `#RRRRGGGGBBBB`.
/// Colour names (`red`, `DarkSlateGray`) need the X server's database and are not read.
pub fn parse_color(spec: &[u8]) -> Option<Rgb> {
    // A channel of `n` hex digits scaled to 8 bits, as XParseColor scales to 16.
    fn channel(digits: &[u8]) -> Option<u8> {
        if digits.is_empty() || digits.len() > 4 || !digits.iter().all(u8::is_ascii_hexdigit) {
            return None;
        }
        let v = u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()?;
        let max = (1u32 << (4 * digits.len())) - 1;
        Some(((v * 255 + max / 2) / max) as u8)
    }
    if let Some(rest) = spec.strip_prefix(b"rgb:") {
        let mut parts = rest.split(|&b| b == b'/');
        let rgb = [channel(parts.next()?)?, channel(parts.next()?)?, channel(parts.next()?)?];
        return parts.next().is_none().then_some(rgb);
    }
    let hex = spec.strip_prefix(b"#")?;
    if hex.is_empty() || hex.len() % 3 != 0 || hex.len() > 12 {
        return None;
    }
    let n = hex.len() / 3;
    // `#` forms give the most significant bits: #RGB is R0G0B0 (XParseColor).
    let top = |d: &[u8]| -> Option<u8> {
        let v = u32::from_str_radix(std::str::from_utf8(d).ok()?, 16).ok()?;
        Some((v << (16 - 4 * n as u32) >> 8) as u8)
    };
    if !hex.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    Some([top(&hex[..n])?, top(&hex[n..2 * n])?, top(&hex[2 * n..])?])
}

/// A colour number in OSC 4, 5, 104 or 105: decimal digits, at most 3 of them (no palette
/// entry has a larger number).
fn parse_index(digits: &[u8]) -> Option<usize> {
    if digits.is_empty() || digits.len() > 3 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// A colour as xterm reports it: `rgb:RRRR/GGGG/BBBB`, 16 bits a channel.
fn format_color(c: Rgb) -> String {
    let w = |v: u8| v as u16 * 257;
    format!("rgb:{:04x}/{:04x}/{:04x}", w(c[0]), w(c[1]), w(c[2]))
}

/// A saved title-stack entry: what XTWINOPS 22 saved (either may be absent).
#[derive(Clone, Debug, Default)]
pub(super) struct SavedTitles {
    icon_name: Option<String>,
    title: Option<String>,
}

impl Screen {
    /// The colours queries are answered with.
    pub fn palette(&self) -> &Palette {
        &self.palette
    }

    /// Sets the default foreground and background (and the cursor colour to the foreground):
    /// a host that knows its own colours passes them on, so that OSC 10/11 answers tell the
    /// truth. OSC 110/111/112 go back to these.
    pub fn set_default_colors(&mut self, foreground: Rgb, background: Rgb) {
        self.base_palette.foreground = foreground;
        self.base_palette.background = background;
        self.base_palette.cursor = foreground;
        self.palette.foreground = foreground;
        self.palette.background = background;
        self.palette.cursor = foreground;
        for i in 0..SPECIAL_COLOURS {
            // A special colour the program set stays; the others follow the foreground.
            if self.palette.special[i] == self.base_palette.special[i] {
                self.palette.special[i] = foreground;
            }
            self.base_palette.special[i] = foreground;
        }
    }

    fn osc_terminator(bel: bool) -> &'static str {
        if bel {
            "\x07"
        } else {
            "\x1b\\"
        }
    }

    /// The palette entry OSC 4's index `i` names: the 256 indexed colours, then (256 to 260)
    /// the special colours, as xterm built with 256 colours numbers them.
    fn osc4_slot(palette: &mut Palette, i: usize) -> Option<&mut Rgb> {
        match i {
            0..=255 => Some(&mut palette.indexed[i]),
            _ => palette.special.get_mut(i - 256),
        }
    }

    /// OSC 4 ; c ; spec [; c ; spec ...] (indexed colours, and from 256 the special colours)
    /// and OSC 5 ; c ; spec [...] (the special colours by their own number): each colour set,
    /// or answered for `?` in the form it was asked in.
    pub(crate) fn osc_set_colors(&mut self, code: u8, rest: &[u8], bel: bool) {
        let offset = if code == 5 { 256 } else { 0 };
        let mut items = rest.split(|&b| b == b';');
        while let (Some(index), Some(spec)) = (items.next(), items.next()) {
            let Some(i) = parse_index(index) else { continue };
            let Some(slot) = Self::osc4_slot(&mut self.palette, i + offset) else { continue };
            if spec == b"?" {
                let answer = format!("\x1b]{code};{i};{}{}", format_color(*slot), Self::osc_terminator(bel));
                self.reply(answer.as_bytes());
            } else if let Some(rgb) = parse_color(spec) {
                *slot = rgb;
            }
        }
    }

    /// OSC 104 [; c ...] and OSC 105 [; c ...]: the listed colours (numbered as OSC 4 and
    /// OSC 5 number them) back to the host's; with none listed, every colour OSC 4 numbers
    /// (104: the indexed and the special colours, as xterm's ResetAnsiColorRequest goes up
    /// to its MAXCOLORS) or every special colour (105).
    pub(crate) fn osc_reset_colors(&mut self, code: u8, rest: &[u8]) {
        if rest.is_empty() {
            if code != 5 {
                self.palette.indexed = self.base_palette.indexed;
            }
            self.palette.special = self.base_palette.special;
            return;
        }
        let offset = if code == 5 { 256 } else { 0 };
        for index in rest.split(|&b| b == b';') {
            let Some(i) = parse_index(index) else { continue };
            let base = Self::osc4_slot(&mut self.base_palette, i + offset).copied();
            if let (Some(base), Some(slot)) = (base, Self::osc4_slot(&mut self.palette, i + offset)) {
                *slot = base;
            }
        }
    }

    /// OSC 10/11/12 ; spec [; spec ...]: the default foreground, background and cursor colour,
    /// set or (with `?`) reported. Further specs go to the following codes (xterm: OSC 10;?;?
    /// asks for the foreground and the background).
    pub(crate) fn osc_dynamic_colors(&mut self, code: u8, rest: &[u8], bel: bool) {
        for (n, spec) in rest.split(|&b| b == b';').enumerate() {
            let code = code as usize + n;
            let slot = match code {
                10 => &mut self.palette.foreground,
                11 => &mut self.palette.background,
                12 => &mut self.palette.cursor,
                _ => return,
            };
            if spec == b"?" {
                let answer = format!("\x1b]{code};{}{}", format_color(*slot), Self::osc_terminator(bel));
                self.reply(answer.as_bytes());
            } else if let Some(rgb) = parse_color(spec) {
                *slot = rgb;
            }
        }
    }

    /// OSC 110/111/112: the default foreground, background or cursor colour back to the host's.
    pub(crate) fn osc_reset_dynamic_color(&mut self, code: u8) {
        match code {
            110 => self.palette.foreground = self.base_palette.foreground,
            111 => self.palette.background = self.base_palette.background,
            112 => self.palette.cursor = self.base_palette.cursor,
            _ => {}
        }
    }

    /// DECRQSS (DCS $ q Pt ST): answers DCS 1 $ r <setting> ST for the settings xterm reports
    /// that this engine has (SGR, DECSTBM, DECSLRM, DECSCUSR, DECSCA, DECSCL, DECSNLS, DECSLPP),
    /// DCS 0 $ r ST otherwise.
    pub(crate) fn request_setting(&mut self, request: &[u8]) {
        let answer = match request {
            b"m" => Some(format!("{}m", sgr_report(&self.pen.style))),
            b"r" => Some(format!("{};{}r", self.top + 1, self.bottom + 1)),
            b"s" => Some(format!("{};{}s", self.left + 1, self.right + 1)),
            b" q" => Some(format!("{} q", cursor_shape_report(self.modes.cursor_shape, self.modes.cursor_blink))),
            // The conformance level, as DA1 names it (a VT220), with 7-bit controls.
            b"\"p" => Some("62;1\"p".to_string()),
            // DECSNLS: the lines on the screen; DECSLPP: lines per page, as XTerm 379 answers it
            // (the last row's index, at least 24).
            b"*|" => Some(format!("{}*|", self.rows)),
            b"t" => Some(format!("{}t", (self.rows - 1).max(24))),
            b"\"q" => Some(format!("{}\"q", u8::from(self.pen.style.attrs.has(Attrs::PROTECTED)))),
            _ => None,
        };
        let reply = match answer {
            Some(a) => format!("\x1bP1$r{a}\x1b\\"),
            None => "\x1bP0$r\x1b\\".to_string(),
        };
        self.reply(reply.as_bytes());
    }

    /// XTWINOPS 22 (CSI 22 ; Ps t): saves the icon name (Ps 1), the title (2) or both (0).
    pub(crate) fn push_titles(&mut self, which: u16) {
        let entry = SavedTitles {
            icon_name: matches!(which, 0 | 1).then(|| self.icon_name.clone()),
            title: matches!(which, 0 | 2).then(|| self.title.clone()),
        };
        if entry.icon_name.is_none() && entry.title.is_none() {
            return;
        }
        if self.title_stack.len() == MAX_TITLE_STACK {
            self.title_stack.remove(0);
        }
        self.title_stack.push(entry);
    }

    /// XTWINOPS 23 (CSI 23 ; Ps t): restores what the last 22 saved (of the icon name, the
    /// title, or both) and drops that entry.
    pub(crate) fn pop_titles(&mut self, which: u16) {
        if !matches!(which, 0..=2) {
            return;
        }
        let Some(entry) = self.title_stack.pop() else { return };
        if matches!(which, 0 | 1) {
            if let Some(icon) = entry.icon_name {
                self.icon_name = icon;
            }
        }
        if matches!(which, 0 | 2) {
            if let Some(title) = entry.title {
                self.title = title;
            }
        }
    }

    /// Titles saved by XTWINOPS 22, for tests.
    pub fn title_stack_len(&self) -> usize {
        self.title_stack.len()
    }
}

/// The pen as SGR parameters, in xterm's order (0, then 1 4 5 7 8 2 3 9 21, then colours),
/// followed by what xterm does not have: the other underline styles, overline, rapid blink
/// and the underline colour.
fn sgr_report(style: &Style) -> String {
    let a = style.attrs;
    let mut out = String::from("0");
    let underline = a.underline();
    for (on, code) in [
        (a.has(Attrs::BOLD), "1"),
        (underline == Underline::Single, "4"),
        (a.has(Attrs::BLINK), "5"),
        (a.has(Attrs::INVERSE), "7"),
        (a.has(Attrs::HIDDEN), "8"),
        (a.has(Attrs::DIM), "2"),
        (a.has(Attrs::ITALIC), "3"),
        (a.has(Attrs::STRIKE), "9"),
        (underline == Underline::Double, "21"),
    ] {
        if on {
            out.push(';');
            out.push_str(code);
        }
    }
    push_color(&mut out, style.fg, 30, 90, 38);
    push_color(&mut out, style.bg, 40, 100, 48);
    match underline {
        Underline::Curly => out.push_str(";4:3"),
        Underline::Dotted => out.push_str(";4:4"),
        Underline::Dashed => out.push_str(";4:5"),
        _ => {}
    }
    if a.has(Attrs::RAPID_BLINK) {
        out.push_str(";6");
    }
    if a.has(Attrs::OVERLINE) {
        out.push_str(";53");
    }
    push_color(&mut out, style.underline_color, 0, 0, 58);
    out
}

/// A colour as SGR: the 8 and bright 8 by their own codes (`base`, `bright`, when not 0), the
/// rest as `extended:5:n` or `extended:2::r:g:b`.
fn push_color(out: &mut String, color: Color, base: u8, bright: u8, extended: u8) {
    match color {
        Color::Default => {}
        Color::Indexed(i) if i < 8 && base != 0 => out.push_str(&format!(";{}", base + i)),
        Color::Indexed(i) if i < 16 && bright != 0 => out.push_str(&format!(";{}", bright + i - 8)),
        Color::Indexed(i) => out.push_str(&format!(";{extended}:5:{i}")),
        Color::Rgb(r, g, b) => out.push_str(&format!(";{extended}:2::{r}:{g}:{b}")),
    }
}

/// DECSCUSR's parameter, as xterm reports it: the shape's steady form (a shape never set, or
/// the host's own, is a block), less one when the cursor blinks (?12, which DECSCUSR sets too).
fn cursor_shape_report(shape: CursorShape, blink: bool) -> u8 {
    let steady = match shape {
        CursorShape::Default | CursorShape::SteadyBlock | CursorShape::BlinkingBlock => 2,
        CursorShape::BlinkingUnderline | CursorShape::SteadyUnderline => 4,
        CursorShape::BlinkingBar | CursorShape::SteadyBar => 6,
    };
    steady - u8::from(blink)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_specifications_in_every_form() {
        assert_eq!(parse_color(b"rgb:ff/80/00"), Some([0xff, 0x80, 0x00]));
        assert_eq!(parse_color(b"rgb:f/8/0"), Some([0xff, 0x88, 0x00]));
        assert_eq!(parse_color(b"rgb:ffff/8080/0000"), Some([0xff, 0x80, 0x00]));
        assert_eq!(parse_color(b"#f80"), Some([0xf0, 0x80, 0x00]));
        assert_eq!(parse_color(b"#ff8000"), Some([0xff, 0x80, 0x00]));
        assert_eq!(parse_color(b"#fff888000"), Some([0xff, 0x88, 0x00]));
        assert_eq!(parse_color(b"#ffff88880000"), Some([0xff, 0x88, 0x00]));
        for bad in [&b"rgb:ff/80"[..], b"rgb:fffff/0/0", b"rgb:g/0/0", b"#ff", b"#", b"red", b"rgb:1/2/3/4"] {
            assert_eq!(parse_color(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn the_default_palette_is_xterms() {
        assert_eq!(default_indexed(1), [0xcd, 0, 0]);
        assert_eq!(default_indexed(16), [0, 0, 0]);
        assert_eq!(default_indexed(196), [0xff, 0, 0]);
        assert_eq!(default_indexed(231), [0xff, 0xff, 0xff]);
        assert_eq!(default_indexed(232), [8, 8, 8]);
        assert_eq!(default_indexed(255), [0xee, 0xee, 0xee]);
    }
}
