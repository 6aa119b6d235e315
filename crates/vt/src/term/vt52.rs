//! VT52 mode (DECANM reset, `CSI ? 2 l`), as xterm emulates it: until ESC <, escape sequences
//! are the VT52's (ESC A-D cursor moves, ESC F/G graphics on and off, ESC H home, ESC I
//! reverse line feed, ESC J/K erase to the end of the screen/line, ESC Y row col, ESC Z
//! identify, ESC = / ESC > keypad), CSI, OSC and DCS are not recognised, and anything else
//! after ESC is ignored. The parser asks [`Perform::vt52`](crate::parser::Perform::vt52) at
//! each ESC.
//!
//! Entering saves what xterm saves (its mode flags and character sets) and starts from them
//! reset: no autowrap, origin, insert or newline mode, reverse wraparound off, the pen's
//! attributes and colours off, G0 ASCII and G1 the VT52's graphics (ESC F invokes it). ESC <
//! restores them. Keypad modes set in VT52 mode stay, as in xterm.

use super::state::Charsets;
use super::Screen;
use crate::style::Style;

/// What entering VT52 mode saved.
#[derive(Clone, Copy, Debug)]
pub(super) struct Vt52Saved {
    autowrap: bool,
    origin: bool,
    insert: bool,
    newline: bool,
    reverse_wrap: bool,
    reverse_wrap_extended: bool,
    pen: Style,
    charsets: Charsets,
}

impl Screen {
    /// DECANM reset: into VT52 mode (nothing when already in it).
    pub(crate) fn enter_vt52(&mut self) {
        if self.modes.vt52 {
            return;
        }
        let m = &mut self.modes;
        self.vt52_saved = Some(Vt52Saved {
            autowrap: m.autowrap,
            origin: m.origin,
            insert: m.insert,
            newline: m.newline,
            reverse_wrap: m.reverse_wrap,
            reverse_wrap_extended: m.reverse_wrap_extended,
            pen: self.pen.style,
            charsets: self.charsets,
        });
        m.vt52 = true;
        (m.autowrap, m.origin, m.insert, m.newline) = (false, false, false, false);
        (m.reverse_wrap, m.reverse_wrap_extended) = (false, false);
        self.set_pen(Style::default());
        self.charsets = Charsets::vt52();
        self.cursor.pending_wrap = false;
    }

    /// ESC <: back to ANSI mode, with what entering saved.
    fn exit_vt52(&mut self) {
        self.modes.vt52 = false;
        if let Some(s) = self.vt52_saved.take() {
            let m = &mut self.modes;
            (m.autowrap, m.origin, m.insert, m.newline) = (s.autowrap, s.origin, s.insert, s.newline);
            (m.reverse_wrap, m.reverse_wrap_extended) = (s.reverse_wrap, s.reverse_wrap_extended);
            self.set_pen(s.pen);
            self.charsets = s.charsets;
            self.charsets_follow_nrc();
        }
    }

    /// ESC and `final_byte` in VT52 mode (an intermediate makes it one xterm ignores).
    pub(crate) fn vt52_escape(&mut self, intermediates: &[u8], final_byte: u8) {
        if !intermediates.is_empty() {
            return;
        }
        match final_byte {
            b'A' => self.cursor_up(1),
            b'B' => self.cursor_down(1),
            b'C' => self.cursor_forward(1),
            b'D' => self.cursor_backward(1),
            b'F' => self.invoke_charset(1),
            b'G' => self.invoke_charset(0),
            b'H' => self.cursor_position(1, 1),
            b'I' => self.reverse_index(),
            b'J' => self.erase_display(0, false),
            b'K' => self.erase_line(0, false),
            b'Z' => self.reply(b"\x1b/Z"),
            b'=' => self.modes.application_keypad = true,
            b'>' => self.modes.application_keypad = false,
            b'<' => self.exit_vt52(),
            _ => {}
        }
    }

    /// ESC Y: row and column, each plus 32, clamped to the screen as XTerm 379 does (a
    /// position past an edge stops at it; a control taken as a position counts from -32 and
    /// stops at the first row or column). Later xterms keep the row, and the column, when it
    /// is out of range; the VT52's manuals differ among themselves.
    pub(crate) fn vt52_position(&mut self, row: u8, col: u8) {
        let clamp = |v: u8, n: usize| ((v & 0x7f) as usize).saturating_sub(32).min(n - 1);
        (self.cursor.x, self.cursor.y) = (clamp(col, self.cols), clamp(row, self.rows));
        self.cursor.pending_wrap = false;
    }
}
