//! Character sets (ISO 2022 as DEC terminals and xterm implement it: SCS designations of 94- and
//! 96-character sets into G0..G3, the locking shifts SI SO LS2 LS3 into GL and LS1R LS2R LS3R
//! into GR, the single shifts SS2 SS3), saving and restoring the cursor (DECSC DECRC, SCOSC
//! SCORC), and resets (RIS DECSTR).

use super::modes::{CursorShape, Protection};
use super::{cursor, Cursor, Modes, Pen, Screen};
use crate::style::{Attrs, Style};

/// The character sets a designation can select. xterm's default conformance level (VT420)
/// decides which: the national replacement sets (NRCS) only while DECNRCM is set (a national
/// set designated while it is reset selects ASCII, and one designated while it was set stays
/// when it is reset, as in XTerm 379), and not the ISO 8859 sets other than Latin-1 nor DEC's
/// Greek, Hebrew, Turkish and Cyrillic sets (a VT520's): designating one of those selects
/// ASCII, as xterm does for a set it does not know.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Charset {
    #[default]
    Ascii,
    /// ESC ( 0: DEC Special Graphics (line drawing).
    DecSpecial,
    /// ESC ( A: United Kingdom (`#` is `£`).
    Uk,
    /// ESC ( < and ESC ( % 5: DEC Supplemental Graphics (the upper half of the DEC
    /// Multinational set, Latin-1 but for a few positions).
    DecSupplemental,
    /// ESC ( >: DEC Technical (mathematical symbols, Greek letters, bracket pieces).
    DecTechnical,
    /// ESC - A (a 96-character set): ISO Latin-1 Supplemental (U+00A0..U+00FF).
    Latin1,
    /// The national replacement sets, each ASCII with a few positions replaced (DECNRCM).
    /// ESC ( 4.
    Dutch,
    /// ESC ( C, ESC ( 5.
    Finnish,
    /// ESC ( R, ESC ( f.
    French,
    /// ESC ( Q, ESC ( 9.
    FrenchCanadian,
    /// ESC ( K.
    German,
    /// ESC ( Y.
    Italian,
    /// ESC ( `, ESC ( E, ESC ( 6.
    NorwegianDanish,
    /// ESC ( % 6.
    Portuguese,
    /// ESC ( Z.
    Spanish,
    /// ESC ( H, ESC ( 7.
    Swedish,
    /// ESC ( =.
    Swiss,
    /// VT52 mode's graphics (ESC F in VT52 mode invokes it; no designation selects it).
    Vt52Graphics,
}

/// Shown for a position a set leaves undefined (DEC terminals show a reversed question mark;
/// xterm since patch 389 stores U+2426 and draws it so; 379-388 stored U+2E2E).
const UNDEFINED: char = '\u{2426}';

impl Charset {
    /// Whether the set has 96 characters (positions 0x20 and 0x7F included) rather than 94.
    fn is_96(self) -> bool {
        self == Charset::Latin1
    }

    /// What printable byte `b` (0x20..=0x7E) shows as through this set in GL.
    #[inline]
    pub(super) fn map_byte(self, b: u8) -> char {
        self.lookup(b).unwrap_or(b as char)
    }

    /// Every set, for tests that cover them all.
    #[cfg(test)]
    pub(super) const ALL: [Charset; 18] = [
        Charset::Ascii,
        Charset::DecSpecial,
        Charset::Uk,
        Charset::DecSupplemental,
        Charset::DecTechnical,
        Charset::Latin1,
        Charset::Dutch,
        Charset::Finnish,
        Charset::French,
        Charset::FrenchCanadian,
        Charset::German,
        Charset::Italian,
        Charset::NorwegianDanish,
        Charset::Portuguese,
        Charset::Spanish,
        Charset::Swedish,
        Charset::Swiss,
        Charset::Vt52Graphics,
    ];

    /// The character at 7-bit position `pos` (0x20..=0x7F) of this set, or `None` where the
    /// set keeps the ASCII character (and for positions outside the set).
    fn lookup(self, pos: u8) -> Option<char> {
        if !(0x20..=0x7f).contains(&pos) || (!self.is_96() && !(0x21..=0x7e).contains(&pos)) {
            return None;
        }
        match self {
            Charset::Ascii => None,
            Charset::Uk => (pos == b'#').then_some('£'),
            Charset::DecSpecial => dec_special(pos),
            Charset::DecSupplemental => Some(dec_supplemental(pos)),
            Charset::DecTechnical => Some(dec_technical(pos)),
            Charset::Latin1 => char::from_u32(pos as u32 + 0x80),
            Charset::Vt52Graphics => vt52_graphics(pos),
            national => national_replacement(national, pos),
        }
    }
}

/// VT52 graphics at `pos`: the VT52's chart (its manual's "graphics" mode; 0x61 the solid
/// rectangle, then the fractions, symbols, scan-line bars and subscripts), as XTerm 379 shows
/// it. The fractions 3/, 5/ and 7/ have no Unicode character and show as blanks, as in xterm.
fn vt52_graphics(pos: u8) -> Option<char> {
    Some(match pos {
        0x5f..=0x60 | 0x63..=0x65 => ' ',
        0x61 => '\u{25ae}',
        0x62 => '\u{215f}',
        0x66 => '°',
        0x67 => '±',
        0x68 => '→',
        0x69 => '…',
        0x6a => '÷',
        0x6b => '↓',
        0x6c..=0x6d => '\u{23ba}',
        0x6e..=0x6f => '\u{23bb}',
        0x70..=0x71 => '\u{23bc}',
        0x72..=0x73 => '\u{23bd}',
        0x74..=0x7d => char::from_u32(0x2080 + (pos - 0x74) as u32)?,
        0x7e => '¶',
        _ => return None,
    })
}

/// A national replacement set's character at `pos`, or `None` where it keeps ASCII. The
/// positions and characters are the VT220's (its programmer reference, table 2-5), and each
/// table was checked against what XTerm 379 shows with DECNRCM set
/// (`scripts/xterm-screens.sh`, the `nrcs` cases).
fn national_replacement(set: Charset, pos: u8) -> Option<char> {
    //                    #    @    [    \    ]    ^    _    `    {    |    }    ~
    const POSITIONS: [u8; 12] = [0x23, 0x40, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f, 0x60, 0x7b, 0x7c, 0x7d, 0x7e];
    let table: [char; 12] = match set {
        Charset::Dutch => ['£', '¾', 'ĳ', '½', '|', '^', '_', '`', '¨', 'ƒ', '¼', '´'],
        Charset::Finnish => ['#', '@', 'Ä', 'Ö', 'Å', 'Ü', '_', 'é', 'ä', 'ö', 'å', 'ü'],
        Charset::French => ['£', 'à', '°', 'ç', '§', '^', '_', '`', 'é', 'ù', 'è', '¨'],
        Charset::FrenchCanadian => ['#', 'à', 'â', 'ç', 'ê', 'î', '_', 'ô', 'é', 'ù', 'è', 'û'],
        Charset::German => ['#', '§', 'Ä', 'Ö', 'Ü', '^', '_', '`', 'ä', 'ö', 'ü', 'ß'],
        Charset::Italian => ['£', '§', '°', 'ç', 'é', '^', '_', 'ù', 'à', 'ò', 'è', 'ì'],
        Charset::NorwegianDanish => ['#', 'Ä', 'Æ', 'Ø', 'Å', 'Ü', '_', 'ä', 'æ', 'ø', 'å', 'ü'],
        Charset::Portuguese => ['#', '@', 'Ã', 'Ç', 'Õ', '^', '_', '`', 'ã', 'ç', 'õ', '~'],
        Charset::Spanish => ['£', '§', '¡', 'Ñ', '¿', '^', '_', '`', '°', 'ñ', 'ç', '~'],
        Charset::Swedish => ['#', 'É', 'Ä', 'Ö', 'Å', 'Ü', '_', 'é', 'ä', 'ö', 'å', 'ü'],
        Charset::Swiss => ['ù', 'à', 'é', 'ç', 'ê', 'î', 'è', 'ô', 'ä', 'ö', 'ü', 'û'],
        _ => return None,
    };
    let i = POSITIONS.iter().position(|&p| p == pos)?;
    Some(table[i]).filter(|&c| c != pos as char)
}

/// DEC Special Graphics: 0x5F..=0x7E as their Unicode equivalents (as xterm draws them); 0x5F,
/// the blank, is a space, as in xterm (not NBSP: copied text gets a plain space).
fn dec_special(pos: u8) -> Option<char> {
    const TABLE: [char; 32] = [
        ' ', '◆', '▒', '␉', '␌', '␍', '␊', '°', '±', '␤', '␋', '┘', '┐', '┌', '└', '┼', '⎺', '⎻', '─', '⎼', '⎽', '├',
        '┤', '┴', '┬', '│', '≤', '≥', 'π', '≠', '£', '·',
    ];
    (0x5f..=0x7e).contains(&pos).then(|| TABLE[pos as usize - 0x5f])
}

/// DEC Supplemental Graphics: the upper half of Latin-1 position for position, except where
/// the DEC Multinational set differs (currency sign, OE ligatures, Y with diaeresis) or leaves
/// the position reserved.
fn dec_supplemental(pos: u8) -> char {
    match pos {
        0x28 => '¤',
        0x57 => 'Œ',
        0x5d => 'Ÿ',
        0x77 => 'œ',
        0x7d => 'ÿ',
        0x24 | 0x26 | 0x2c..=0x2f | 0x34 | 0x38 | 0x3e | 0x50 | 0x5e | 0x70 | 0x7e => UNDEFINED,
        _ => char::from_u32(pos as u32 + 0x80).unwrap_or(UNDEFINED),
    }
}

/// DEC Technical, 0x21..=0x7E (VT330/VT340 reference, table 2-6), as Unicode. The seven pieces
/// of the large sigma (0x31..=0x37) have no Unicode equivalent and show as undefined.
fn dec_technical(pos: u8) -> char {
    const TABLE: [char; 94] = [
        // 0x21..=0x30: radical, box and integral pieces, bracket and brace pieces
        '⎷', '┌', '─', '⌠', '⌡', '│', '⎡', '⎣', '⎤', '⎦', '⎧', '⎩', '⎫', '⎭', '⎨', '⎬',
        // 0x31..=0x3F: sigma pieces, four reserved, then ≤ ≠ ≥ ∫
        UNDEFINED, UNDEFINED, UNDEFINED, UNDEFINED, UNDEFINED, UNDEFINED, UNDEFINED, UNDEFINED, UNDEFINED, UNDEFINED,
        UNDEFINED, '≤', '≠', '≥', '∫', // 0x40..=0x4F
        '∴', '∝', '∞', '÷', 'Δ', '∇', 'Φ', 'Γ', '∼', '≃', 'Θ', '×', 'Λ', '⇔', '⇒', '≡', // 0x50..=0x5F
        'Π', 'Ψ', UNDEFINED, 'Σ', UNDEFINED, UNDEFINED, '√', 'Ω', 'Ξ', 'Υ', '⊂', '⊃', '∩', '∪', '∧', '∨',
        // 0x60..=0x6F
        '¬', 'α', 'β', 'χ', 'δ', 'ε', 'φ', 'γ', 'η', 'ι', 'θ', 'κ', 'λ', UNDEFINED, 'ν', '∂', // 0x70..=0x7E
        'π', 'ψ', 'ρ', 'σ', 'τ', UNDEFINED, 'ƒ', 'ω', 'ξ', 'υ', 'ζ', '←', '↑', '→', '↓',
    ];
    TABLE.get((pos as usize).wrapping_sub(0x21)).copied().unwrap_or(UNDEFINED)
}

/// The national replacement set a 94-character designation selects under DECNRCM (ASCII for
/// one this engine does not have). Out of line: `ESC ( B`, which most programs send with every
/// attribute reset, stays a short match.
#[cold]
#[inline(never)]
fn national_set(prefix: Option<u8>, final_byte: u8) -> Charset {
    match (prefix, final_byte) {
        (None, b'4') => Charset::Dutch,
        (None, b'C' | b'5') => Charset::Finnish,
        (None, b'R' | b'f') => Charset::French,
        (None, b'Q' | b'9') => Charset::FrenchCanadian,
        (None, b'K') => Charset::German,
        (None, b'Y') => Charset::Italian,
        (None, b'`' | b'E' | b'6') => Charset::NorwegianDanish,
        (None, b'Z') => Charset::Spanish,
        (None, b'H' | b'7') => Charset::Swedish,
        (None, b'=') => Charset::Swiss,
        (Some(b'%'), b'6') => Charset::Portuguese,
        _ => Charset::Ascii,
    }
}

/// The designated sets and their invocations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Charsets {
    g: [Charset; 4],
    /// Which of G0..G3 is invoked into GL (SI SO LS2 LS3).
    gl: usize,
    /// Which of G1..G3 is invoked into GR (LS1R LS2R LS3R); G2 by default. In UTF-8 the
    /// right half is U+00A0..U+00FF: with an ASCII set there (the default), those are Latin-1.
    gr: usize,
    /// SS2/SS3: the set used for the next character only.
    single: Option<usize>,
    /// Which of G0..G3 (bit n for Gn) hold a designated Latin-1 set. While DECNRCM is set such
    /// a set acts as the British one (a 94-character set: `#` is `£`, DEL is not printed, a
    /// byte in GR is its low seven bits' character), whenever it was designated, as XTerm 379
    /// shows it (vttest's locking-shift screens with NRC mode on), and as Latin-1 again once
    /// DECNRCM is reset: `g` holds the set each acts as, so look-ups test nothing more
    /// (`Screen::charsets_follow_nrc` sets them when the mode or the sets change wholesale).
    latin1: u8,
}

impl Default for Charsets {
    fn default() -> Self {
        Charsets { g: [Charset::Ascii; 4], gl: 0, gr: 2, single: None, latin1: 0 }
    }
}

impl Charsets {
    /// Designates `set` into G`slot`, as it acts under DECNRCM set (`nrc`) or reset.
    #[inline]
    fn designate(&mut self, slot: usize, set: Charset, nrc: bool) {
        if set == Charset::Latin1 || self.latin1 != 0 {
            return self.designate_with_latin1(slot, set, nrc);
        }
        self.g[slot] = set;
    }

    /// [`Self::designate`] when Latin-1 is designated or was: out of line, so that `ESC ( B`,
    /// which many programs send with every attribute reset, stays short in the parser's loop.
    #[cold]
    #[inline(never)]
    fn designate_with_latin1(&mut self, slot: usize, set: Charset, nrc: bool) {
        let latin1 = set == Charset::Latin1;
        self.latin1 = (self.latin1 & !(1 << slot)) | (latin1 as u8) << slot;
        self.g[slot] = if latin1 && nrc { Charset::Uk } else { set };
    }

    /// The designated Latin-1 sets act as British while DECNRCM is set (see `latin1`).
    fn follow_nrc(&mut self, nrc: bool) {
        for slot in 0..4 {
            if self.latin1 & (1 << slot) != 0 {
                self.g[slot] = if nrc { Charset::Uk } else { Charset::Latin1 };
            }
        }
    }

    /// VT52 mode's sets (xterm's `resetCharsets` at VT level 0): ASCII, and VT52 graphics in
    /// G1 for ESC F.
    pub(super) fn vt52() -> Charsets {
        let mut c = Charsets::default();
        c.g[1] = Charset::Vt52Graphics;
        c
    }

    /// Whether printable ASCII prints as itself (the fast path's condition).
    #[inline]
    pub(super) fn gl_is_ascii(&self) -> bool {
        self.gl_set() == Some(Charset::Ascii)
    }

    /// The first code point from which every printable character is itself under the current
    /// invocations (C1 and DEL never come to be printed): U+0020 when ASCII is in GL and in GR
    /// (the default), U+00A0 when only GR holds ASCII, U+0100 when another set is in GR, none
    /// while a single shift is pending.
    #[inline]
    pub(super) fn unmapped_from(&self) -> u32 {
        match (self.single, self.g[self.gl], self.g[self.gr]) {
            (Some(_), _, _) => u32::MAX,
            (None, Charset::Ascii, Charset::Ascii) => 0x20,
            (None, _, Charset::Ascii) => 0xa0,
            (None, _, _) => 0x100,
        }
    }

    /// The set invoked into GR.
    #[inline]
    pub(super) fn gr_set(&self) -> Charset {
        self.g[self.gr]
    }

    /// The set printable ASCII goes through, when no single shift is pending.
    #[inline]
    pub(super) fn gl_set(&self) -> Option<Charset> {
        self.single.is_none().then(|| self.g[self.gl])
    }

    /// The character `c` stands for under the current invocations: 0x20..=0x7F through GL (or
    /// the single shift's set), U+00A0..=U+00FF through GR; anything else is itself.
    pub(super) fn map(&mut self, c: char) -> char {
        // A single shift applies to GL only (xterm).
        let single = self.single.take();
        let slot = if (c as u32) < 0x80 { single.unwrap_or(self.gl) } else { self.gr };
        self.through(slot, c)
    }

    /// What DECFRA's fill character `c` shows as: as [`Charsets::map`] maps it, except that a
    /// pending single shift (which applies to both halves here, as in xterm) stays pending.
    pub(super) fn peek(&self, c: char) -> char {
        let slot = self.single.unwrap_or(if (c as u32) < 0x80 { self.gl } else { self.gr });
        self.through(slot, c)
    }

    /// `c` through the set in G`slot`: 0x20..=0x7F as its GL positions, U+00A0..=U+00FF as its
    /// GR ones (a set that keeps a position ASCII leaves the Latin-1 character); anything else
    /// is itself.
    #[inline]
    fn through(&self, slot: usize, c: char) -> char {
        let code = c as u32;
        if code < 0x80 {
            self.g[slot].lookup(code as u8).unwrap_or(c)
        } else if (0xa0..0x100).contains(&code) {
            self.g[slot].lookup(code as u8 - 0x80).filter(|m| !m.is_ascii()).unwrap_or(c)
        } else {
            c
        }
    }
}

/// What DECSC saves (VT510): position, pending wrap, SGR (with DECSCA), charsets, origin mode.
#[derive(Clone, Copy, Debug)]
pub(super) struct SavedCursor {
    pub(super) cursor: Cursor,
    pub(super) style: Style,
    charsets: Charsets,
    origin: bool,
}

impl Screen {
    /// SCS: designates a 94-character set into G0..G3 (ESC ( F, ESC ) F, ESC * F, ESC + F, with
    /// an optional second intermediate such as `%`) or a 96-character set into G1..G3
    /// (ESC - F, ESC . F, ESC / F). A set this engine does not have designates ASCII (xterm), as
    /// does a national replacement set while DECNRCM is reset.
    #[inline]
    pub(crate) fn designate_charset(&mut self, slot: usize, size96: bool, prefix: Option<u8>, final_byte: u8) {
        let set = match (size96, prefix, final_byte) {
            (false, None, b'B') => Charset::Ascii,
            (false, None, b'0') => Charset::DecSpecial,
            (false, None, b'A') => Charset::Uk,
            (false, None, b'<') | (false, Some(b'%'), b'5') => Charset::DecSupplemental,
            (false, None, b'>') => Charset::DecTechnical,
            (true, None, b'A') => Charset::Latin1,
            (false, prefix, f) if self.modes.national => national_set(prefix, f),
            _ => Charset::Ascii,
        };
        self.charsets.designate(slot, set, self.modes.national);
        self.last_designation_96 = size96;
    }

    /// Bytes that are not UTF-8: one U+FFFD for them, except while GR holds a set other than
    /// ASCII. A program that designated a set and invoked it into GR (vttest's character-set
    /// tests) sends that set's characters as raw 8-bit bytes, and XTerm 379 shows them through
    /// GR: each byte of 0xA0..=0xFF is then the GR set's character at its low seven bits (a
    /// 94-character set's unmapped positions are their ASCII characters, 0x20 is a space and
    /// 0x7F nothing, as XTerm 379 shows them). Raw C1 bytes (0x80..=0x9F) stay replacement
    /// characters. Valid UTF-8 is decoded first whatever GR holds.
    #[cold]
    #[inline(never)]
    pub(crate) fn print_8bit(&mut self, bytes: &[u8]) {
        let set = self.charsets.gr_set();
        if set == Charset::Ascii || bytes.iter().any(|&b| b < 0xa0) {
            self.print_char('\u{fffd}');
            return;
        }
        for &b in bytes {
            let seven = b & 0x7f;
            // Latin-1, the one 96-character set, maps every position; a 94-character set
            // leaves its unmapped positions ASCII.
            let c = match set.lookup(seven) {
                Some(c) => c,
                None if (0x20..=0x7e).contains(&seven) => seven as char,
                None => continue,
            };
            // Printed as itself: a single shift pending applies to GL only.
            self.print_mapped_char(c);
        }
    }

    /// DEL in the ground state: nothing, except through a 96-character set, whose last position
    /// it is (ÿ in Latin-1). As xterm: only when the set for the next character (GL's, or the
    /// single shift's) has 96 characters and the last designation was of a 96-character set.
    #[cold]
    #[inline(never)]
    pub(crate) fn print_del(&mut self) {
        if !self.last_designation_96 {
            return;
        }
        let slot = self.charsets.single.unwrap_or(self.charsets.gl);
        if self.charsets.g[slot].is_96() {
            self.print_char('\u{7f}');
        }
    }

    /// SI (G0 into GL), SO (G1), LS2 (ESC n, G2), LS3 (ESC o, G3).
    pub(crate) fn invoke_charset(&mut self, slot: usize) {
        self.charsets.gl = slot;
    }

    /// LS1R (ESC ~), LS2R (ESC }), LS3R (ESC |): G1, G2 or G3 into GR.
    pub(crate) fn invoke_charset_right(&mut self, slot: usize) {
        self.charsets.gr = slot;
    }

    /// The sets act as DECNRCM says (see `Charsets::latin1`): called wherever the mode or the
    /// sets change wholesale (a restored cursor's sets were saved under the mode of then).
    #[cold]
    #[inline(never)]
    pub(crate) fn charsets_follow_nrc(&mut self) {
        self.charsets.follow_nrc(self.modes.national);
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
        self.charsets_follow_nrc();
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

    /// DECSCA (CSI Ps " q): 1 protects characters written from now on from the selective
    /// erases (DECSED, DECSEL, DECSERA); 0 and 2 end that.
    pub(crate) fn set_protection(&mut self, ps: u16) {
        self.modes.protection = Protection::Dec;
        if matches!(ps, 0..=2) {
            self.protect(ps == 1);
        }
    }

    /// SPA (ESC V) and EPA (ESC W): the start and the end of a guarded area. Characters written
    /// between them are protected from every erase but DECERA and DECSERA (xterm).
    pub(crate) fn guard(&mut self, on: bool) {
        if on {
            self.modes.protection = Protection::Iso;
        }
        self.protect(on);
    }

    fn protect(&mut self, on: bool) {
        let mut style = self.pen.style;
        style.attrs.set(Attrs::PROTECTED, on);
        self.set_pen(style);
    }

    /// DECSTR (CSI ! p), soft reset, per xterm: cursor shown, IRM off, DECOM off, DECAWM on,
    /// reverse wraparound off, DECCKM off, keypad numeric, full margins, default charsets and
    /// SGR, saved cursor reset, the cursor's shape and blink and the indexed colours reset.
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
        m.protection = Protection::Off;
        // As xterm's soft reset also does: reverse wraparound back off (its initial value),
        // the cursor's shape and blink back to the start, the indexed and special colours (OSC
        // 4 and 5) back to the host's (OSC 10 and 11 stay).
        m.reverse_wrap = false;
        m.reverse_wrap_extended = false;
        m.cursor_shape = CursorShape::Default;
        m.cursor_blink = false;
        self.palette.indexed = self.base_palette.indexed;
        self.palette.special = self.base_palette.special;
        self.top = 0;
        self.bottom = self.rows - 1;
        self.left = 0;
        self.right = self.cols - 1;
        self.charsets = Charsets::default();
        // DECSTR leaves DECNRCM as it is.
        self.charsets_follow_nrc();
        self.set_pen(Style::default());
        self.saved_main = None;
        self.saved_alt = None;
        self.cursor.pending_wrap = false;
    }

    /// RIS (ESC c), full reset: both buffers cleared, every mode, tab stop, margin and charset
    /// back to its default, the cursor home. The scrollback is kept (what scrolled away is the
    /// user's record); the title and its stack are cleared, the colours go back to the host's.
    pub(crate) fn full_reset(&mut self) {
        self.alt_active = false;
        self.pen = Pen::default();
        let rows = self.rows;
        let blank = self.blank();
        self.main.clear_rows(0, rows - 1, &blank);
        self.alt.clear_rows(0, rows - 1, &blank);
        self.modes = Modes::default();
        self.last_designation_96 = false;
        self.soft_reset();
        self.cursor = Cursor::default();
        self.tabs = cursor::default_tabs(self.cols);
        self.title.clear();
        self.icon_name.clear();
        self.title_stack.clear();
        self.saved_modes.clear();
        self.palette = self.base_palette.clone();
        self.last_char = None;
        self.vt52_saved = None;
        self.any_double = false;
        self.checksum_ext = self.base_checksum_ext;
        self.main.clear_damage();
        self.main.damage_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dec_special_graphics_draw_boxes() {
        let s: String = "lqkxmj".bytes().filter_map(dec_special).collect();
        assert_eq!(s, "┌─┐│└┘");
    }
}
