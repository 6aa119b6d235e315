//! The glyph cache: glyphs rasterised once and kept, within a byte budget.
//!
//! Every drawn cell looks its glyph up here, so a hit costs what it did in a plain map: one
//! hash lookup, and setting the glyph's mark. The work of keeping the budget is done on a
//! miss that takes the cache past it, as a sweep of the whole table (second chance, a clock
//! whose hand goes round at once): the glyphs not drawn since the previous sweep go, those
//! drawn lose their mark; if that is not enough (the glyphs drawn since outgrow the budget),
//! any go. A sweep leaves the cache an eighth under its budget, so sweeps are at least that
//! many bytes of new glyphs apart and their cost, linear in the glyphs kept, is spread over
//! those misses.

use std::collections::HashMap;

use crate::fallback::Glyph;

/// The most bytes the glyph cache of one renderer holds: 64 MiB (67,108,864), its glyphs'
/// bitmaps and its table, between draws.
///
/// A glyph's bitmap is a byte a pixel of about its cell, so a screen of all different
/// characters needs about a byte a pixel of the screen: 64 MiB holds one the size of an 8K
/// display (7680x4320, 33 M pixels) with room to spare, so a frame does not evict the glyphs
/// it draws; a screen of ordinary text uses a small part of it. The largest glyph
/// (a wide character on a double-height row at [`crate::MAX_SCALED_PT`]) is under 1.6 MB,
/// a fortieth. Unbounded, showing every character once took 465 MB at 16 points and
/// 1.69 GB at 40.
pub const GLYPH_CACHE_BYTES: usize = 64 << 20;

/// A character, its face (regular, bold, italic, bold italic) and its scale.
pub(crate) type Key = (char, u8, crate::Scale);

pub(crate) struct Cached {
    pub glyph: Glyph,
    /// Drawn since the last sweep.
    pub used: bool,
}

/// What a glyph costs besides its bitmap: its slot in the table, three times over (the table
/// keeps an eighth of its slots free and doubles when full, so it has up to 2.3 slots a
/// glyph), and the allocator's header of the bitmap.
const ENTRY_BYTES: usize = 3 * (std::mem::size_of::<(Key, Cached)>() + 1) + 16;

pub(crate) struct GlyphCache {
    pub map: HashMap<Key, Cached>,
    /// The glyphs' bitmaps (their allocations).
    bitmap_bytes: usize,
    pub budget: usize,
}

impl GlyphCache {
    pub fn new() -> GlyphCache {
        GlyphCache { map: HashMap::new(), bitmap_bytes: 0, budget: GLYPH_CACHE_BYTES }
    }

    /// The glyph of `key`, made by `make` if it is not kept.
    pub fn get(&mut self, key: Key, make: impl FnOnce() -> Glyph) -> &Glyph {
        let bitmap_bytes = &mut self.bitmap_bytes;
        let entry = self.map.entry(key).or_insert_with(|| {
            let glyph = make();
            *bitmap_bytes += glyph.coverage.capacity();
            Cached { glyph, used: false }
        });
        entry.used = true;
        &entry.glyph
    }

    /// What the cache counts against its budget.
    fn charged(&self) -> usize {
        self.bitmap_bytes + self.map.len() * ENTRY_BYTES
    }

    /// Whether a sweep is due (after a miss took the cache past its budget).
    pub fn over(&self) -> bool {
        self.charged() > self.budget
    }

    /// The bytes the cache holds: its bitmaps and its table.
    pub fn bytes(&self) -> usize {
        let slot = std::mem::size_of::<(Key, Cached)>() + 1;
        self.bitmap_bytes + self.map.len() * 16 + self.map.capacity() * 8 / 7 * slot
    }

    /// Sweeps the cache down to an eighth under its budget.
    pub fn evict(&mut self) {
        let target = self.budget - self.budget / 8;
        let mut charged = self.charged();
        self.map.retain(|_, e| {
            let keep = std::mem::replace(&mut e.used, false);
            if !keep {
                charged -= e.glyph.coverage.capacity() + ENTRY_BYTES;
            }
            keep
        });
        if charged > target {
            self.map.retain(|_, e| {
                let keep = charged <= target;
                if !keep {
                    charged -= e.glyph.coverage.capacity() + ENTRY_BYTES;
                }
                keep
            });
        }
        self.bitmap_bytes = charged - self.map.len() * ENTRY_BYTES;
        // The table keeps its size when glyphs go: one left at more than twice the glyphs'
        // slots (many small glyphs replaced by a few large ones) is made smaller.
        if self.map.capacity() > 2 * self.map.len() {
            self.map.shrink_to(self.map.len());
        }
    }
}
