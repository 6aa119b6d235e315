//! The grapheme clusters cells hold: a base character with combining marks, joiners or
//! variation selectors (`e` + U+0301, a flag, a family emoji).
//!
//! A cell holding a cluster holds its id in this table. The table is an arena: each cluster's
//! text is appended to one byte buffer, and an id names its span. There is no hash table of
//! texts: a new cluster costs an append, and repeated ones are found by the small cache of
//! (cell content, mark) pairs in front of the table (see `Screen::combine`), which is what text
//! repeats (accents, skin tones, flags). A run of marks that arrives together (stacked marks,
//! decomposed text) is made into one cluster at once, cached under the cell and a hash of the
//! marks and checked against the text on a hit, rather than one cluster per mark of which all
//! but the last are garbage at once. Two cells may therefore hold equal clusters under two
//! ids; nothing compares cells by id to compare their text.
//!
//! Why not a deduplicating table: with a hash table of texts, text where most clusters differ
//! (decomposed Vietnamese, Indic scripts, "zalgo" marks, every cell a new cluster) cost a
//! cache-missing lookup in a table of hundreds of thousands of entries per mark, an allocation
//! per new cluster, and a removal per freed one: 5-10 MB/s, a tenth of alacritty_terminal's
//! speed on such text. The arena writes such text at the speed of its appends.
//!
//! Reclamation is mark and compact: the screen marks the ids its cells use, and [`Clusters::sweep`]
//! frees the rest and moves the live texts to the front of a fresh buffer (ids stay). A
//! collection runs once as many clusters were added since the last as survived it, or a quarter
//! of the cells it scanned, so its cost per new cluster stays bounded whatever was fed, and the
//! table holds at most about twice the live clusters.

/// An id's span in the arena: start in the low 56 bits, length (at most 255) in the top 8.
/// A length of 0 marks a free id.
#[derive(Clone, Copy)]
struct Span(u64);

impl Span {
    const FREE: Span = Span(0);

    fn new(start: usize, len: usize) -> Span {
        debug_assert!(len > 0 && len < 256 && start < 1 << 56);
        Span(start as u64 | (len as u64) << 56)
    }
    fn start(self) -> usize {
        (self.0 & ((1 << 56) - 1)) as usize
    }
    fn len(self) -> usize {
        (self.0 >> 56) as usize
    }
}

pub struct Clusters {
    /// The texts, UTF-8 (each span is a whole string).
    text: Vec<u8>,
    spans: Vec<Span>,
    free: Vec<u32>,
    live: usize,
    /// New clusters since the last sweep, and how many are allowed before the next one.
    added: usize,
    allowance: usize,
    min_allowance: usize,
}

impl Clusters {
    pub fn new(min_allowance: usize) -> Self {
        Clusters {
            text: Vec::new(),
            spans: Vec::new(),
            free: Vec::new(),
            live: 0,
            added: 0,
            allowance: min_allowance,
            min_allowance,
        }
    }

    /// The text of cluster `id`, if it is held. (The arena holds bytes; each span is whole
    /// UTF-8, which this checks rather than assumes, as the engine has no `unsafe` here.)
    #[inline]
    pub fn get(&self, id: u32) -> Option<&str> {
        let span = *self.spans.get(id as usize)?;
        std::str::from_utf8(self.text.get(span.start()..span.start() + span.len())?).ok().filter(|_| span.len() > 0)
    }

    /// Whether adding a cluster should first be preceded by a collection.
    #[inline]
    pub fn wants_collection(&self) -> bool {
        self.added >= self.allowance
    }

    /// A new id holding `base` followed by `mark`.
    pub fn add_pair(&mut self, base: char, mark: char) -> u32 {
        let mut buf = [0u8; 8];
        let n = base.encode_utf8(&mut buf[..4]).len();
        let len = n + mark.encode_utf8(&mut buf[n..]).len();
        self.add_text(&buf, len)
    }

    /// A new id holding the first `len` bytes of `buf` (whole UTF-8, 1 to 255 bytes): a pair, or
    /// a cluster made at once from a base and a run of marks.
    pub fn add_text<const N: usize>(&mut self, buf: &[u8; N], len: usize) -> u32 {
        let start = self.append(buf, len);
        self.hold(Span::new(start, len))
    }

    /// Appends the first `len` bytes of `buf` to the arena and returns where they start. The
    /// whole buffer is appended and then cut to length: one copy of fixed size, where a copy of
    /// `len` bytes is a call to memcpy (most texts are a few bytes).
    #[inline]
    fn append<const N: usize>(&mut self, buf: &[u8; N], len: usize) -> usize {
        let start = self.text.len();
        self.text.extend_from_slice(buf);
        self.text.truncate(start + len);
        start
    }

    /// Whether cluster `id` holds exactly `text`.
    #[inline]
    pub fn holds(&self, id: u32, text: &[u8]) -> bool {
        self.spans.get(id as usize).is_some_and(|span| {
            span.len() == text.len() && self.text.get(span.start()..span.start() + span.len()) == Some(text)
        })
    }

    /// A new id holding cluster `id`'s text followed by `mark`, or None when `id` is not held or
    /// the text would pass `max` bytes. Cluster `id` is unchanged. When its text is the last
    /// thing appended (a base followed by several marks adds one after another), the new text
    /// shares its bytes and only the mark is appended.
    pub fn extend(&mut self, id: u32, mark: char, max: usize) -> Option<u32> {
        let span = *self.spans.get(id as usize).filter(|s| s.len() > 0)?;
        let len = span.len() + mark.len_utf8();
        if len > max.min(255) {
            return None;
        }
        let start = if span.start() + span.len() == self.text.len() {
            span.start()
        } else {
            let start = self.text.len();
            self.text.extend_from_within(span.start()..span.start() + span.len());
            start
        };
        let mut buf = [0u8; 4];
        let n = mark.encode_utf8(&mut buf).len();
        self.append(&buf, n);
        Some(self.hold(Span::new(start, len)))
    }

    fn hold(&mut self, span: Span) -> u32 {
        self.added += 1;
        self.live += 1;
        match self.free.pop() {
            Some(id) => {
                self.spans[id as usize] = span;
                id
            }
            None => {
                self.spans.push(span);
                (self.spans.len() - 1) as u32
            }
        }
    }

    /// The number of id slots, live or free: marks are indexed by id below this.
    pub fn capacity(&self) -> usize {
        self.spans.len()
    }

    /// Frees every id not marked (`live[id]` false or absent) and compacts the texts of the
    /// rest. `scanned` is the work the marking took (cells visited): the next allowance covers it.
    pub fn sweep(&mut self, live: &[bool], scanned: usize) {
        // The live texts are copied to the front of a new buffer in id order. Most are short,
        // and are moved as a fixed 16 bytes (the buffers have that much slack at their ends)
        // rather than by a call to memcpy each.
        const CHUNK: usize = 16;
        let old = std::mem::take(&mut self.text);
        let mut text = vec![0u8; old.len() + CHUNK];
        let mut at = 0;
        let mut kept = 0;
        for (id, span) in self.spans.iter_mut().enumerate() {
            let (start, len) = (span.start(), span.len());
            if len > 0 && live.get(id).copied().unwrap_or(false) {
                // Texts that share bytes (see `Self::extend`) are copied apart, so the total can pass
                // the old buffer's length.
                if at + len.max(CHUNK) > text.len() {
                    text.resize(2 * text.len() + len.max(CHUNK), 0);
                }
                if len <= CHUNK && start + CHUNK <= old.len() {
                    text[at..at + CHUNK].copy_from_slice(&old[start..start + CHUNK]);
                } else {
                    text[at..at + len].copy_from_slice(&old[start..start + len]);
                }
                *span = Span::new(at, len);
                at += len;
                kept += 1;
            } else {
                *span = Span::FREE;
            }
        }
        text.truncate(at);
        text.shrink_to(2 * at);
        self.text = text;
        // Trailing free ids are dropped, the others reused from the lowest.
        while self.spans.last().is_some_and(|s| s.len() == 0) {
            self.spans.pop();
        }
        self.free.clear();
        self.free.extend(self.spans.iter().enumerate().rev().filter(|(_, s)| s.len() == 0).map(|(id, _)| id as u32));
        self.live = kept;
        self.added = 0;
        self.allowance = kept.max(self.min_allowance).max(scanned / 2);
    }

    /// Clusters held, live or awaiting collection (for tests and memory reports).
    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.text.capacity() + self.spans.capacity() * 8 + self.free.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cluster `base` + `marks` made as the screen makes it: a pair, then one mark at a time.
    fn make(c: &mut Clusters, base: char, marks: &str) -> u32 {
        let mut marks = marks.chars();
        let mut id = c.add_pair(base, marks.next().unwrap());
        for m in marks {
            id = c.extend(id, m, 255).unwrap();
        }
        id
    }

    #[test]
    fn a_sweep_keeps_marked_ids_and_their_texts_and_reuses_the_others() {
        let mut c = Clusters::new(4);
        let e = c.add_pair('e', '\u{301}');
        let flag = c.add_pair('🇯', '🇵');
        let thumb = c.add_pair('👍', '🏽');
        let a = make(&mut c, 'a', "\u{30a}\u{323}");
        assert_eq!([e, flag, thumb, a], [0, 1, 2, 4], "the stacked cluster's first mark made id 3");
        assert_eq!(c.get(3), Some("a\u{30a}"), "growing a cluster leaves the one it grew from");
        assert!(c.wants_collection());
        c.sweep(&[true, false, true, false, true], 40);
        assert_eq!(c.len(), 3);
        assert_eq!([c.get(0), c.get(2), c.get(4)], [Some("e\u{301}"), Some("👍🏽"), Some("a\u{30a}\u{323}")]);
        assert_eq!([c.get(1), c.get(3), c.get(99)], [None, None, None]);
        assert!(!c.wants_collection(), "the allowance covers the scan: 40 cells / 2");
        assert_eq!(c.add_pair('x', '\u{301}'), 1, "the lowest free id first");
        assert_eq!(c.add_pair('y', '\u{301}'), 3);
        assert_eq!(
            c.extend(1, '\u{302}', 255).map(|id| c.get(id).map(str::to_owned)),
            Some(Some("x\u{301}\u{302}".into()))
        );
        c.sweep(&[true, false, true, true, true], 0);
        assert_eq!(c.capacity(), 5, "trailing free ids are dropped");
        assert_eq!([c.get(0), c.get(3), c.get(4)], [Some("e\u{301}"), Some("y\u{301}"), Some("a\u{30a}\u{323}")]);
        c.sweep(&[], 0);
        assert!(c.is_empty());
        assert_eq!(c.capacity(), 0);
    }

    #[test]
    fn every_length_up_to_the_cap_reads_back_and_longer_is_refused() {
        let mut c = Clusters::new(1 << 20);
        // 'a' then U+0301 (two bytes) repeatedly, each step kept: lengths 3, 5, ... 63; then the
        // same from a base that is not at the arena's end, so the text is copied, not shared.
        let mut ids = vec![c.add_pair('a', '\u{301}')];
        while let Some(id) = c.extend(*ids.last().unwrap(), '\u{301}', 64) {
            ids.push(id);
        }
        assert_eq!(c.get(*ids.last().unwrap()).map(str::len), Some(63));
        let copied = c.extend(ids[0], 'b', 64).unwrap();
        assert_eq!(c.get(copied), Some("a\u{301}b"));
        for (k, id) in ids.iter().enumerate() {
            assert_eq!(c.get(*id), Some(format!("a{}", "\u{301}".repeat(k + 1)).as_str()));
        }
        let live: Vec<bool> = (0..c.capacity()).map(|i| i % 3 == 0).collect();
        c.sweep(&live, 0);
        for (k, id) in ids.iter().enumerate() {
            let want = format!("a{}", "\u{301}".repeat(k + 1));
            assert_eq!(c.get(*id), (*id % 3 == 0).then_some(want.as_str()));
        }
    }
}
