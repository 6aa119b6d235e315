//! The cell: eight bytes, no heap.
//!
//! Layout (decided up front, as the screen's memory is mostly cells):
//! - `content: u32`: bits 0..24 are a Unicode scalar value, or, when [`CLUSTER`] is set, an
//!   index into the screen's grapheme-cluster table (a base character with combining marks);
//!   bits 24..32 are flags: [`WIDE`] (this cell starts a two-cell character) and [`SPACER`]
//!   (the second cell of a two-cell character; its payload is 0 and it draws nothing).
//! - `style: u32`: an id in its row's list of styles (see [`crate::grid`]); 0 is the default
//!   style. A row's styles are listed once for the row because real output uses a handful of
//!   them, and an id keeps the cell at eight bytes where colours, underline colour and
//!   hyperlink stored inline would take 24 or more. Read a cell's style through the row it is
//!   in ([`crate::Line::style`]).
//!
//! A blank cell is a space in some style (xterm's erase uses the current background colour).

const PAYLOAD: u32 = 0x00ff_ffff;
/// The cell starts a character two cells wide; the next cell is its [`SPACER`].
pub const WIDE: u32 = 1 << 24;
/// The cell is the right half of a two-cell character.
pub const SPACER: u32 = 1 << 25;
/// The payload is an index into the grapheme-cluster table, not a scalar value.
pub const CLUSTER: u32 = 1 << 26;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct Cell {
    content: u32,
    style: u32,
}

impl Cell {
    #[inline]
    pub const fn blank(style: u32) -> Cell {
        Cell { content: b' ' as u32, style }
    }

    #[inline]
    pub const fn ascii(byte: u8, style: u32) -> Cell {
        Cell { content: byte as u32, style }
    }

    #[inline]
    pub fn char(c: char, wide: bool, style: u32) -> Cell {
        Cell { content: c as u32 | if wide { WIDE } else { 0 }, style }
    }

    #[inline]
    pub const fn spacer(style: u32) -> Cell {
        Cell { content: SPACER, style }
    }

    #[inline]
    pub fn cluster(index: u32, wide: bool, style: u32) -> Cell {
        Cell { content: (index & PAYLOAD) | CLUSTER | if wide { WIDE } else { 0 }, style }
    }

    #[inline]
    pub fn style(self) -> u32 {
        self.style
    }

    /// The character bits (scalar value or cluster index, and the flags), as a key.
    #[inline]
    pub(crate) fn content(self) -> u32 {
        self.content
    }

    /// The same cell with another style id.
    #[inline]
    pub fn with_style(self, style: u32) -> Cell {
        Cell { content: self.content, style }
    }

    #[inline]
    pub(crate) fn set_style(&mut self, style: u32) {
        self.style = style;
    }

    #[inline]
    pub fn is_wide(self) -> bool {
        self.content & WIDE != 0
    }

    #[inline]
    pub fn is_spacer(self) -> bool {
        self.content & SPACER != 0
    }

    /// The grapheme-cluster table index, when the cell holds a cluster.
    #[inline]
    pub fn cluster_index(self) -> Option<u32> {
        (self.content & CLUSTER != 0).then_some(self.content & PAYLOAD)
    }

    /// The cell's single character (the base character is not available for clusters: use
    /// [`crate::Screen::cell_text`]). Spacers give `None`.
    #[inline]
    pub fn char_value(self) -> Option<char> {
        if self.content & (SPACER | CLUSTER) != 0 {
            None
        } else {
            char::from_u32(self.content & PAYLOAD)
        }
    }

    /// Whether the cell shows nothing but (possibly coloured) background.
    #[inline]
    pub fn is_blank(self) -> bool {
        self.content == b' ' as u32
    }
}

/// Before cells `[start, end)` of `row` are overwritten: a wide character with only one half
/// inside loses its other half too. Returns the span actually affected.
#[inline]
pub(crate) fn split_wide_cells(row: &mut [Cell], start: usize, end: usize) -> (usize, usize) {
    let cols = row.len();
    let (mut s, mut e) = (start, end);
    if start > 0 && start < cols && row[start].is_spacer() {
        row[start - 1] = Cell::blank(row[start - 1].style());
        s = start - 1;
    }
    if end < cols && end > 0 && row[end].is_spacer() {
        row[end] = Cell::blank(row[end].style());
        e = end + 1;
    }
    (s, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_is_eight_bytes() {
        assert_eq!(std::mem::size_of::<Cell>(), 8);
    }

    #[test]
    fn flags_and_payload_round_trip() {
        let c = Cell::char('字', true, 7);
        assert!(c.is_wide() && !c.is_spacer());
        assert_eq!(c.char_value(), Some('字'));
        assert_eq!(c.style(), 7);
        let s = Cell::spacer(7);
        assert!(s.is_spacer() && s.char_value().is_none());
        let k = Cell::cluster(42, false, 0);
        assert_eq!(k.cluster_index(), Some(42));
        assert_eq!(k.char_value(), None);
    }
}
