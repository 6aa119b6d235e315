//! Character sets (SCS designations, SI/SO, LS2/LS3, SS2/SS3, DEC special graphics), saving
//! and restoring the cursor (DECSC DECRC, SCOSC SCORC), and resets (RIS DECSTR).

use super::{cursor, Cursor, Modes, Pen, Screen};
use crate::style::{Attrs, Style};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Charset {
    #[default]
    Ascii,
    /// ESC ( 0: DEC Special Graphics (line drawing).
    DecSpecial,
    /// ESC ( A: United Kingdom (`#` is `£`).
    Uk,
}

impl Charset {
    fn map(self, c: char) -> char {
        match self {
            Charset::Ascii => c,
            Charset::Uk => {
                if c == '#' {
                    '£'
                } else {
                    c
                }
            }
            Charset::DecSpecial => dec_special(c),
        }
    }
}

/// DEC Special Graphics: 0x5F..=0x7E as their Unicode equivalents (as xterm draws them).
fn dec_special(c: char) -> char {
    const TABLE: [char; 32] = [
        '\u{a0}', '◆', '▒', '␉', '␌', '␍', '␊', '°', '±', '␤', '␋', '┘', '┐', '┌', '└', '┼', '⎺', '⎻', '─', '⎼', '⎽',
        '├', '┤', '┴', '┬', '│', '≤', '≥', 'π', '≠', '£', '·',
    ];
    match c as u32 {
        0x5f..=0x7e => TABLE[c as usize - 0x5f],
        _ => c,
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Charsets {
    g: [Charset; 4],
    /// Which of G0..G3 is invoked into GL.
    gl: usize,
    /// SS2/SS3: the set used for the next character only.
    single: Option<usize>,
}

impl Charsets {
    #[inline]
    pub(super) fn gl_is_ascii(&self) -> bool {
        self.single.is_none() && self.g[self.gl] == Charset::Ascii
    }

    pub(super) fn map(&mut self, c: char) -> char {
        let set = self.single.take().unwrap_or(self.gl);
        if c.is_ascii() {
            self.g[set].map(c)
        } else {
            c
        }
    }
}

/// What DECSC saves (VT510): position, pending wrap, SGR (with DECSCA), charsets, origin mode.
#[derive(Clone, Copy, Debug)]
pub(super) struct SavedCursor {
    cursor: Cursor,
    pub(super) style: Style,
    charsets: Charsets,
    origin: bool,
}

impl Screen {
    /// SCS (ESC ( F, ESC ) F, ESC * F, ESC + F): designates a set into G0..G3. Unknown sets
    /// leave the designation unchanged.
    pub(crate) fn designate_charset(&mut self, slot: usize, final_byte: u8) {
        let set = match final_byte {
            b'B' => Charset::Ascii,
            b'0' => Charset::DecSpecial,
            b'A' => Charset::Uk,
            _ => return,
        };
        self.charsets.g[slot] = set;
    }

    /// SI (G0 into GL), SO (G1), LS2 (ESC n, G2), LS3 (ESC o, G3).
    pub(crate) fn invoke_charset(&mut self, slot: usize) {
        self.charsets.gl = slot;
    }

    /// SS2 (ESC N), SS3 (ESC O): the next character comes from G2 or G3.
    pub(crate) fn single_shift(&mut self, slot: usize) {
        self.charsets.single = Some(slot);
    }

    /// DECSC (ESC 7), SCOSC (CSI s without DECLRMM), and ?1048 h. Each buffer has its own slot.
    pub(crate) fn save_cursor(&mut self) {
        let saved = SavedCursor {
            cursor: self.cursor,
            style: self.pen.style,
            charsets: self.charsets,
            origin: self.modes.origin,
        };
        if self.alt_active {
            self.saved_alt = Some(saved);
        } else {
            self.saved_main = Some(saved);
        }
    }

    /// DECRC (ESC 8), SCORC (CSI u), ?1048 l. With nothing saved, the cursor goes home with
    /// default attributes (xterm).
    pub(crate) fn restore_cursor(&mut self) {
        let saved = if self.alt_active { self.saved_alt } else { self.saved_main };
        let saved = saved.unwrap_or(SavedCursor {
            cursor: Cursor::default(),
            style: Style::default(),
            charsets: Charsets::default(),
            origin: false,
        });
        self.set_pen(saved.style);
        self.charsets = saved.charsets;
        self.modes.origin = saved.origin;
        // xterm (CursorRestore): in origin mode the saved position is made relative to the
        // margins and set as CUP would, so it is confined to the bottom and (with DECLRMM) the
        // right margin; it may stay above or left of the margins, as xterm's does.
        let (mut x, mut y) = (saved.cursor.x.min(self.cols - 1), saved.cursor.y.min(self.rows - 1));
        if self.modes.origin {
            y = y.min(self.bottom);
            if self.modes.left_right_margins {
                x = x.min(self.right);
            }
        }
        self.cursor =
            Cursor { x, y, pending_wrap: saved.cursor.pending_wrap && x == saved.cursor.x && x == self.cols - 1 };
    }

    /// DECSCA (CSI Ps " q): 1 protects characters written from now on from DECSED/DECSEL.
    pub(crate) fn set_protection(&mut self, ps: u16) {
        let mut style = self.pen.style;
        style.attrs.set(Attrs::PROTECTED, ps == 1);
        self.set_pen(style);
    }

    /// DECSTR (CSI ! p), soft reset, per xterm: cursor shown, IRM off, DECOM off, DECAWM on,
    /// DECCKM off, keypad numeric, full margins, default charsets and SGR, saved cursor reset.
    /// The screen's text and the cursor position stay.
    pub(crate) fn soft_reset(&mut self) {
        let m = &mut self.modes;
        m.cursor_visible = true;
        m.insert = false;
        m.origin = false;
        m.autowrap = true;
        m.application_cursor = false;
        m.application_keypad = false;
        m.left_right_margins = false;
        self.top = 0;
        self.bottom = self.rows - 1;
        self.left = 0;
        self.right = self.cols - 1;
        self.charsets = Charsets::default();
        self.set_pen(Style::default());
        self.saved_main = None;
        self.saved_alt = None;
        self.cursor.pending_wrap = false;
    }

    /// RIS (ESC c), full reset: both buffers cleared, every mode, tab stop, margin and charset
    /// back to its default, the cursor home. The scrollback is kept (what scrolled away is the
    /// user's record), the title is cleared.
    pub(crate) fn full_reset(&mut self) {
        self.alt_active = false;
        self.pen = Pen::default();
        let rows = self.rows;
        let blank = self.blank();
        self.main.clear_rows(0, rows - 1, blank);
        self.alt.clear_rows(0, rows - 1, blank);
        self.modes = Modes::default();
        self.soft_reset();
        self.cursor = Cursor::default();
        self.tabs = cursor::default_tabs(self.cols);
        self.title.clear();
        self.icon_name.clear();
        self.last_char = None;
        self.main.clear_damage();
        self.main.damage_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dec_special_graphics_draw_boxes() {
        let s: String = "lqkxmj".chars().map(dec_special).collect();
        assert_eq!(s, "┌─┐│└┘");
    }
}
