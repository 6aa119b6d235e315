//! Colours, attributes, styles, and the interning tables that keep cells small.
//!
//! A [`Style`] is everything SGR (and OSC 8) can attach to a cell. Cells hold a `u32` id: the
//! style itself when it packs into 31 bits ([`Style::pack`]), else an index into their row's
//! list of styles (see [`crate::grid`]). An [`Interner`] holds grapheme clusters
//! and hyperlink targets, shared by the whole screen. Interners never grow without bound: when one has taken its allowance of
//! new entries the screen marks the ids its cells still use and the interner frees the rest
//! ([`Interner::sweep`]). The next allowance is at least what survived and at least a quarter
//! of the cells the collection had to scan, so a collection's work is paid for by the entries
//! added since the last one (amortised O(1) per new entry, whatever the scrollback holds), and
//! memory stays proportional to the cells that exist.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// A colour as SGR sets it: the terminal default, one of 256 palette entries, or RGB.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Color {
    #[default]
    Default,
    Indexed(u8),
    Rgb(u8, u8, u8),
}

/// SGR attributes other than colours, as bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Attrs(pub u16);

impl Attrs {
    pub const BOLD: u16 = 1 << 0;
    pub const DIM: u16 = 1 << 1;
    pub const ITALIC: u16 = 1 << 2;
    pub const BLINK: u16 = 1 << 3;
    pub const RAPID_BLINK: u16 = 1 << 4;
    pub const INVERSE: u16 = 1 << 5;
    pub const HIDDEN: u16 = 1 << 6;
    pub const STRIKE: u16 = 1 << 7;
    pub const OVERLINE: u16 = 1 << 8;
    /// DECSCA: protected from DECSED/DECSEL (selective erase).
    pub const PROTECTED: u16 = 1 << 9;
    const UNDERLINE_SHIFT: u16 = 12;
    const UNDERLINE_MASK: u16 = 0b111 << Self::UNDERLINE_SHIFT;

    pub fn has(self, bit: u16) -> bool {
        self.0 & bit != 0
    }

    pub fn set(&mut self, bit: u16, on: bool) {
        if on {
            self.0 |= bit
        } else {
            self.0 &= !bit
        }
    }

    pub fn underline(self) -> Underline {
        Underline::from_bits((self.0 & Self::UNDERLINE_MASK) >> Self::UNDERLINE_SHIFT)
    }

    pub fn set_underline(&mut self, u: Underline) {
        self.0 = (self.0 & !Self::UNDERLINE_MASK) | ((u as u16) << Self::UNDERLINE_SHIFT);
    }
}

/// Underline styles (SGR 4, 4:0..4:5, 21, 24).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[repr(u16)]
pub enum Underline {
    #[default]
    None = 0,
    Single = 1,
    Double = 2,
    Curly = 3,
    Dotted = 4,
    Dashed = 5,
}

impl Underline {
    fn from_bits(b: u16) -> Underline {
        match b {
            1 => Underline::Single,
            2 => Underline::Double,
            3 => Underline::Curly,
            4 => Underline::Dotted,
            5 => Underline::Dashed,
            _ => Underline::None,
        }
    }
}

/// Everything a cell can carry besides its character.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Style {
    pub fg: Color,
    pub bg: Color,
    pub underline_color: Color,
    pub attrs: Attrs,
    /// 0 for none, else 1 + an id in the hyperlink table.
    pub link: u32,
}

/// A palette entry's 9 bits in a packed id (0 is the default colour).
#[inline]
const fn palette_code(i: u8) -> u32 {
    1 + i as u32
}

/// Style ids with this bit set hold their style themselves ([`Style::pack`]); ids below it
/// are 0 (the default style) or 1-based indexes into the cell's row's list.
pub const PACKED: u32 = 1 << 31;

/// The bits of a packed id that hold its foreground and background (9 bits each).
const PACKED_COLOURS: u32 = 0x3ffff;
/// The bits of a packed id that hold its attributes (13 bits, from bit 18).
const PACKED_ATTRS: u32 = 0x1fff << 18;

/// The attribute bits a packed id has room for: all that [`Attrs`] defines (bits 0-9 and the
/// underline's 12-14). A style with any other bit set is listed, not packed.
const PACKABLE_ATTRS: u16 = 0x3ff | Attrs::UNDERLINE_MASK;

/// Where a style id points: `Some(i)` for entry `i` of its row's list; `None` for the
/// default style (0) and for packed ids, which need no list.
#[inline]
pub fn list_index(id: u32) -> Option<usize> {
    (id != 0 && id & PACKED == 0).then(|| id as usize - 1)
}

impl Style {
    /// Whether this is the default style (what a cell's style id 0 means).
    #[inline]
    pub fn is_default(&self) -> bool {
        matches!(self.fg, Color::Default)
            && matches!(self.bg, Color::Default)
            && matches!(self.underline_color, Color::Default)
            && self.attrs.0 == 0
            && self.link == 0
    }

    /// The style's id when it is the same in every row: 0 for the default style, the packed id
    /// for a style that packs; None for a style that needs an entry in its row's list.
    #[inline]
    pub fn fixed_id(&self) -> Option<u32> {
        // The default style packs to PACKED alone, and no other style does: one test after
        // packing, rather than testing every field for the default first.
        self.pack().map(|id| if id == PACKED { 0 } else { id })
    }

    /// The style as a style id that holds it whole, when it fits in 31 bits: foreground and
    /// background each default or one of the 256 palette entries (9 bits each), the
    /// attributes (13 bits), no underline colour and no hyperlink. Most styles programs set
    /// are such (every style of a 256-colour or 16-colour palette), and a cell with one
    /// needs no entry in its row's list: nothing to look up when it is written or read, and
    /// nothing for history to keep but the cell. RGB colours, underline colours and
    /// hyperlinks are listed. The default style is id 0, never packed.
    #[inline]
    pub fn pack(&self) -> Option<u32> {
        fn colour(c: Color) -> Option<u32> {
            match c {
                Color::Default => Some(0),
                Color::Indexed(i) => Some(palette_code(i)),
                Color::Rgb(..) => None,
            }
        }
        if self.link != 0 || self.underline_color != Color::Default || self.attrs.0 & !PACKABLE_ATTRS != 0 {
            return None;
        }
        let (fg, bg) = (colour(self.fg)?, colour(self.bg)?);
        let a = self.attrs.0 as u32;
        let attrs = (a & 0x3ff) | ((a >> Attrs::UNDERLINE_SHIFT) & 0b111) << 10;
        Some(PACKED | fg | bg << 9 | attrs << 18)
    }

    /// The fixed id ([`Style::fixed_id`]: 0 or packed) of the style whose fixed id is `id`, with
    /// its foreground and background set to palette entries `fg` and `bg`: the other fields of a
    /// fixed style fit in the id, so it is changed in place (colour-dense output's
    /// `38;5;n;48;5;n`) rather than packed again from every field.
    #[inline]
    pub fn with_palette_colours(id: u32, fg: u8, bg: u8) -> u32 {
        debug_assert!(id == 0 || id & PACKED != 0, "a fixed id");
        PACKED | (id & !0x3ffff) | palette_code(fg) | palette_code(bg) << 9
    }

    /// The fixed id of the fixed style `id` with the foreground and background of the fixed
    /// style `colours`: the fields are bits of the ids, so nothing is unpacked.
    #[inline]
    pub fn with_colours_of(id: u32, colours: u32) -> u32 {
        debug_assert!((id == 0 || id & PACKED != 0) && (colours == 0 || colours & PACKED != 0), "fixed ids");
        let packed = PACKED | (id & PACKED_ATTRS) | (colours & PACKED_COLOURS);
        if packed == PACKED {
            0
        } else {
            packed
        }
    }

    /// The style a packed id holds ([`Style::pack`]'s inverse).
    #[inline]
    pub fn unpack(id: u32) -> Style {
        fn colour(c: u32) -> Color {
            match c {
                0 => Color::Default,
                c => Color::Indexed((c - 1) as u8),
            }
        }
        let attrs = (id >> 18) & 0x1fff;
        let attrs = (attrs & 0x3ff) | ((attrs >> 10) & 0b111) << Attrs::UNDERLINE_SHIFT;
        Style {
            fg: colour(id & 0x1ff),
            bg: colour((id >> 9) & 0x1ff),
            underline_color: Color::Default,
            attrs: Attrs(attrs as u16),
            link: 0,
        }
    }
}

/// The interners' hash: Firefox's and rustc's multiply-rotate step per word, started from a
/// per-table random seed and finished with murmur3's avalanche (`fmix64`).
///
/// Why the finish matters: the multiply-rotate step carries a difference only towards the high
/// bits, and the table picks buckets by the low bits. Values that differ only in a word's high
/// half (an underline colour packed above the attributes, a grapheme cluster or hyperlink whose
/// distinct bytes come late in a chunk) then fell into a few buckets, and interning N of them
/// took time growing as N² (800,000 distinct underline colours: 10 s). The avalanche makes every
/// input bit reach every output bit; the seed keeps a program from choosing values that collide
/// on purpose (it would have to guess the seed).
#[derive(Clone, Copy)]
pub struct FxHasher(u64);

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut buf = [0u8; 8];
            buf.copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(buf));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.write_u64(u64::from_le_bytes(buf));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64)
    }
    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.write_u64(i as u64)
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64)
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64)
    }
    #[inline]
    fn finish(&self) -> u64 {
        fmix64(self.0)
    }
}

/// murmur3's 64-bit finaliser: every input bit flips each output bit with probability ~1/2.
#[inline]
pub fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Builds [`FxHasher`]s from one random seed per table (std's per-process random keys, so the
/// engine needs no I/O for it).
#[derive(Clone, Copy)]
pub struct SeededState(u64);

impl Default for SeededState {
    fn default() -> Self {
        use std::hash::BuildHasher;
        SeededState(std::collections::hash_map::RandomState::new().hash_one(0x006c_6974_7479_u64))
    }
}

impl std::hash::BuildHasher for SeededState {
    type Hasher = FxHasher;
    #[inline]
    fn build_hasher(&self) -> FxHasher {
        FxHasher(self.0)
    }
}

type FxMap<K, V> = HashMap<K, V, SeededState>;

/// A table of distinct values addressed by `u32` ids, with mark-and-sweep reclamation.
/// Ids below `pinned` are never freed (the default style is id 0). Each value is held once:
/// the id's slot and the map from values share it (`T` is cheap to clone: an `Arc`, a `Copy`
/// value).
pub struct Interner<T: Hash + Eq + Clone> {
    items: Vec<Option<T>>,
    ids: FxMap<T, u32>,
    free: Vec<u32>,
    pinned: u32,
    /// New entries since the last sweep, and how many are allowed before the next one.
    added: usize,
    allowance: usize,
    min_allowance: usize,
    /// The heap bytes a value holds besides its slot and its map entry (a string's length).
    weigh: fn(&T) -> usize,
    /// Bytes the live values hold (by `weigh`), bytes added since the last sweep, and how many
    /// may be added before the next one (see [`Interner::weighed`]).
    bytes: usize,
    added_bytes: usize,
    byte_allowance: usize,
    min_byte_allowance: usize,
    bytes_per_cell: usize,
}

impl<T: Hash + Eq + Clone> Interner<T> {
    pub fn new(pinned: &[T], min_allowance: usize) -> Self {
        let mut me = Interner {
            items: Vec::new(),
            ids: FxMap::default(),
            free: Vec::new(),
            pinned: pinned.len() as u32,
            added: 0,
            allowance: min_allowance,
            min_allowance,
            weigh: |_| 0,
            bytes: 0,
            added_bytes: 0,
            byte_allowance: usize::MAX,
            min_byte_allowance: usize::MAX,
            bytes_per_cell: 0,
        };
        for p in pinned {
            me.intern(p);
        }
        me.added = 0;
        me
    }

    /// A table whose values hold heap bytes (`weigh` says how many): besides the count of new
    /// entries, the bytes they add call for a collection, once they reach the most of the
    /// live values' bytes, `min_bytes`, and `bytes_per_cell` for each cell the last collection
    /// scanned. So the bytes of values no cell uses stay within that allowance (proportional
    /// to the cells that exist), and a collection's scan is still paid for by what was added:
    /// each byte a value holds came in at least one byte of input.
    pub fn weighed(min_allowance: usize, weigh: fn(&T) -> usize, min_bytes: usize, bytes_per_cell: usize) -> Self {
        let mut me = Interner::new(&[], min_allowance);
        me.weigh = weigh;
        me.byte_allowance = min_bytes;
        me.min_byte_allowance = min_bytes;
        me.bytes_per_cell = bytes_per_cell;
        me
    }

    pub fn get(&self, id: u32) -> Option<&T> {
        self.items.get(id as usize).and_then(|v| v.as_ref())
    }

    pub fn lookup<Q: Hash + Eq + ?Sized>(&self, value: &Q) -> Option<u32>
    where
        T: std::borrow::Borrow<Q>,
    {
        self.ids.get(value).copied()
    }

    /// Whether inserting a new value should first be preceded by a collection.
    pub fn wants_collection(&self) -> bool {
        self.added >= self.allowance || self.added_bytes >= self.byte_allowance
    }

    /// The id of `value`, adding it if new (one hash either way). Callers run a collection
    /// first when [`Self::wants_collection`] says so.
    pub fn intern(&mut self, value: &T) -> u32 {
        self.intern_with(value, || value.clone())
    }

    /// [`Self::intern`] by a borrowed form of the value (`&str` for `Box<str>`): the owned value
    /// is made only when it is new.
    pub fn intern_with<Q: Hash + Eq + ?Sized>(&mut self, key: &Q, owned: impl FnOnce() -> T) -> u32
    where
        T: std::borrow::Borrow<Q>,
    {
        // Looked up first so that a value already held is neither cloned nor allocated (the
        // common case); only a new value is hashed a second time, to insert it.
        if let Some(&id) = self.ids.get(key) {
            return id;
        }
        let value = owned();
        let id = self.slot(value.clone());
        self.ids.insert(value, id);
        id
    }

    /// Stores a new value in a free slot (or a new one) and counts it against the allowance.
    fn slot(&mut self, value: T) -> u32 {
        self.added += 1;
        let weight = (self.weigh)(&value);
        self.bytes += weight;
        self.added_bytes += weight;
        match self.free.pop() {
            Some(id) => {
                self.items[id as usize] = Some(value);
                id
            }
            None => {
                self.items.push(Some(value));
                (self.items.len() - 1) as u32
            }
        }
    }

    /// The number of id slots, live or free: marks are indexed by id below this.
    pub fn capacity(&self) -> usize {
        self.items.len()
    }

    /// Frees every id not marked (and not pinned); `live[id]` says whether id is in use.
    /// `scanned` is the work the marking took (cells visited): the next allowance covers it.
    pub fn sweep(&mut self, live: &[bool], scanned: usize) {
        let mut kept = 0;
        for id in self.pinned as usize..self.items.len() {
            if live.get(id).copied().unwrap_or(false) {
                kept += 1;
            } else if let Some(v) = self.items[id].take() {
                self.bytes -= (self.weigh)(&v);
                self.ids.remove(&v);
                self.free.push(id as u32);
            }
        }
        self.added = 0;
        self.added_bytes = 0;
        self.allowance = kept.max(self.min_allowance).max(scanned / 4);
        self.byte_allowance = self.bytes.max(self.min_byte_allowance).max(scanned.saturating_mul(self.bytes_per_cell));
        // Room for everything until the next collection, so the table never rehashes between.
        self.ids.reserve(self.allowance);
    }

    /// Live entries (for tests and memory reports).
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Approximate heap bytes held: the slots, the map (a value, an id and a control byte an
    /// entry of its capacity), the free list, and what the values hold (`weigh`).
    pub fn memory_bytes(&self) -> usize {
        self.items.capacity() * std::mem::size_of::<Option<T>>()
            + self.ids.capacity() * (std::mem::size_of::<T>() + 4 + 1)
            + self.free.capacity() * 4
            + self.bytes
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Drops everything but the pinned entries.
    pub fn clear(&mut self) {
        let none = vec![false; self.items.len()];
        self.sweep(&none, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every colour a packed id can hold: the default and the 256 palette entries.
    fn palette_colours() -> impl Iterator<Item = Color> {
        std::iter::once(Color::Default).chain((0..=255).map(Color::Indexed))
    }

    #[test]
    fn every_pair_of_palette_colours_packs_and_unpacks_to_itself() {
        // 257 x 257 colour pairs, under attribute sets that reach each attribute field's ends.
        let attr_sets = [0, Attrs::BOLD, Attrs::PROTECTED | Attrs::INVERSE, PACKABLE_ATTRS];
        for fg in palette_colours() {
            for bg in palette_colours() {
                for attrs in attr_sets {
                    let s = Style { fg, bg, attrs: Attrs(attrs), ..Style::default() };
                    if s.is_default() {
                        continue;
                    }
                    let id = s.pack().unwrap_or_else(|| panic!("{s:?} does not pack"));
                    assert!(id & PACKED != 0 && id != PACKED, "{s:?} packs to {id:#x}");
                    assert_eq!(list_index(id), None);
                    assert_eq!(Style::unpack(id), s);
                }
            }
        }
    }

    #[test]
    fn a_fixed_id_given_two_palette_colours_is_the_fixed_id_of_the_style_given_them() {
        let attr_sets = [0, Attrs::BOLD, Attrs::PROTECTED | Attrs::INVERSE, PACKABLE_ATTRS];
        for fg in palette_colours() {
            for bg in palette_colours() {
                for attrs in attr_sets {
                    let s = Style { fg, bg, attrs: Attrs(attrs), ..Style::default() };
                    let id = s.fixed_id().expect("palette styles are fixed");
                    for (f, b) in [(0u8, 0u8), (255, 255), (7, 200), (196, 21)] {
                        let want = Style { fg: Color::Indexed(f), bg: Color::Indexed(b), ..s }.fixed_id();
                        assert_eq!(Some(Style::with_palette_colours(id, f, b)), want, "{s:?} {f} {b}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_attribute_value_packs_exactly_when_it_has_room() {
        // All 65,536 values of the attribute bits, over a few colour pairs: the bits Attrs
        // defines round-trip, and a value with any other bit set is listed rather than cut.
        for bits in 0..=u16::MAX {
            for (fg, bg) in [(Color::Default, Color::Default), (Color::Indexed(255), Color::Indexed(0))] {
                let s = Style { fg, bg, attrs: Attrs(bits), ..Style::default() };
                match s.pack() {
                    Some(id) => {
                        assert_eq!(bits & !PACKABLE_ATTRS, 0, "{bits:#x} packed");
                        assert_eq!(Style::unpack(id), s, "{bits:#x}");
                    }
                    None => assert!(bits & !PACKABLE_ATTRS != 0, "{bits:#x} did not pack"),
                }
            }
        }
    }

    #[test]
    fn rgb_colours_underline_colours_and_links_are_listed() {
        let base = Style { fg: Color::Indexed(3), attrs: Attrs(Attrs::BOLD), ..Style::default() };
        let listed = [
            Style { fg: Color::Rgb(1, 2, 3), ..base },
            Style { bg: Color::Rgb(0, 0, 0), ..base },
            Style { underline_color: Color::Indexed(1), ..base },
            Style { underline_color: Color::Rgb(9, 9, 9), ..base },
            Style { link: 1, ..base },
        ];
        for s in listed {
            assert_eq!(s.pack(), None, "{s:?}");
        }
        assert!(base.pack().is_some());
        assert_eq!(list_index(0), None);
        assert_eq!(list_index(1), Some(0));
        assert_eq!(list_index(PACKED - 1), Some(PACKED as usize - 2));
    }

    #[test]
    fn interning_is_stable_and_sweep_frees_unmarked_ids() {
        let mut t = Interner::new(&[Style::default()], 4096);
        let red = Style { fg: Color::Indexed(1), ..Style::default() };
        let blue = Style { fg: Color::Rgb(0, 0, 255), ..Style::default() };
        let r = t.intern(&red);
        let b = t.intern(&blue);
        assert_eq!(t.intern(&red), r);
        assert_ne!(r, b);
        let mut live = vec![false; t.capacity()];
        live[b as usize] = true;
        t.sweep(&live, 0);
        assert_eq!(t.get(r as usize as u32), None);
        assert_eq!(t.get(b), Some(&blue));
        assert_eq!(t.get(0), Some(&Style::default()), "the default style is pinned");
        assert_eq!(t.intern(&red), r, "a freed id is reused");
    }

    #[test]
    fn underline_style_packs_beside_other_attributes() {
        let mut a = Attrs::default();
        a.set(Attrs::BOLD, true);
        a.set_underline(Underline::Curly);
        assert_eq!(a.underline(), Underline::Curly);
        assert!(a.has(Attrs::BOLD));
        a.set_underline(Underline::None);
        assert!(a.has(Attrs::BOLD) && a.underline() == Underline::None);
    }
}
