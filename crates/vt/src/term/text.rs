//! Printing graphic characters: the ASCII fast path, wide characters, combining marks,
//! xterm's pending wrap, and insert mode (IRM).

use super::state::Charset;
use super::{split_wide_cells, Screen, MAX_CLUSTER};
use crate::cell::Cell;
use crate::cluster::Clusters;
use crate::grid::LineSize;
use crate::parser::decode_whole;
use crate::style::Color;

/// The cells a character takes, decided for every value the width table can return:
/// - no width (C0, DEL, C1 controls): 0 cells, not printed (they are controls, never glyphs);
/// - 0 (combining marks, ZWJ, variation selectors, ...): joins the previous cell;
/// - 1 and 2: as the table says (2 for East Asian wide and emoji presentation);
/// - anything larger (unicode-width 0.2 gives U+17D8 KHMER SIGN BEYYAL 3, for the ligature it
///   forms in text): 1, as xterm's wcwidth gives for every spacing character outside the wide
///   ranges. A cell holds one or two columns of a character, never more.
#[inline]
pub(crate) fn cell_width(c: char) -> Option<usize> {
    // Two loads for every plane, from a table build.rs made of `table_width` (below) for every
    // scalar value, instead of unicode-width's walk through its tables per character. (A table
    // of the Basic Multilingual Plane alone, built at the first non-ASCII character, left
    // emoji to that walk: 6% of the unicode workload's instructions.)
    let cp = c as u32;
    let block = WIDTH_BLOCK[(cp >> 8) as usize] as usize;
    match WIDTH_CELLS[block * 256 + (cp & 0xff) as usize] {
        3 => None,
        w => Some(w as usize),
    }
}

include!(concat!(env!("OUT_DIR"), "/widths.rs"));
include!("../width_rule.rs");

/// Entries of the cache of (cell content, mark) -> cluster id in front of the cluster table,
/// as a power of two.
const CLUSTER_CACHE_BITS: u32 = 10;
pub(super) type ClusterCache = [(u32, u32, u32); 1 << CLUSTER_CACHE_BITS];
pub(super) const EMPTY_CLUSTER_CACHE: ClusterCache = [(0, 0, u32::MAX); 1 << CLUSTER_CACHE_BITS];

/// The cache's slot for a key: (cell content, mark or hash of marks).
#[inline]
fn cache_slot(key: (u32, u32)) -> usize {
    ((key.0.wrapping_mul(0x9e37_79b9) ^ key.1.wrapping_mul(0x85eb_ca6b)) >> (32 - CLUSTER_CACHE_BITS)) as usize
}

/// The cell a zero-width character joins when the character it follows ends before column
/// `after`: the one before, or the left half of a wide character. None at the left edge or on a
/// spacer without its wide character (the mark is dropped).
#[inline]
fn mark_target(row: &[Cell], after: usize) -> Option<usize> {
    let mut target = after.checked_sub(1)?;
    if row[target].is_spacer() && target > 0 {
        target -= 1;
    }
    (!row[target].is_spacer()).then_some(target)
}

/// The cluster table wants a collection before it takes a new cluster.
pub(super) struct NeedsCollection;

/// The cluster `cell` becomes with `mark` joined to it: from the cache, or new. None when the
/// mark is dropped (the cluster is at [`MAX_CLUSTER`], or the cell holds nothing to join).
#[inline]
fn joined(
    clusters: &mut Clusters,
    cache: &mut ClusterCache,
    cell: Cell,
    mark: char,
) -> Result<Option<u32>, NeedsCollection> {
    // The same character and mark make the same cluster: text repeats them (accents, skin
    // tones, flags), and a small cache answers without touching the table.
    through_cache(
        clusters,
        cache,
        (cell.content(), mark as u32),
        |_, _| true,
        |clusters| match (cell.char_value(), cell.cluster_index()) {
            (Some(c), _) => Some(clusters.add_pair(c, mark)),
            (None, Some(i)) => clusters.extend(i, mark, MAX_CLUSTER),
            _ => None,
        },
    )
}

/// The cluster cached under `key` when its entry is there and `valid` takes it; else a new one
/// made by `make` (None: nothing to join) and cached, unless the table wants a collection first.
#[inline]
fn through_cache(
    clusters: &mut Clusters,
    cache: &mut ClusterCache,
    key: (u32, u32),
    valid: impl Fn(&Clusters, u32) -> bool,
    make: impl FnOnce(&mut Clusters) -> Option<u32>,
) -> Result<Option<u32>, NeedsCollection> {
    let slot = cache_slot(key);
    match cache[slot] {
        (a, b, id) if (a, b) == key && id != u32::MAX && valid(clusters, id) => Ok(Some(id)),
        _ if clusters.wants_collection() => Err(NeedsCollection),
        _ => {
            let id = make(clusters);
            if let Some(id) = id {
                cache[slot] = (key.0, key.1, id);
            }
            Ok(id)
        }
    }
}

/// The hash of a run of marks (see [`joined_run`]), folded a mark at a time from
/// [`MARKS_HASH_START`]. Its top bit is set: a single mark's key is its scalar value, below
/// 2^21, so the two kinds of key never meet in the cache.
#[inline]
fn marks_hash(hash: u32, mark: char) -> u32 {
    (hash.rotate_left(7) ^ mark as u32).wrapping_mul(0x9e37_79b1) | 0x8000_0000
}
const MARKS_HASH_START: u32 = 0x8000_0000;

/// The cluster `cell` becomes with a run of two or more `marks` joined to it, made at once
/// (one table entry, where joining them one by one makes one per mark, all but the last
/// garbage at once): text of stacked marks and decomposed (NFD) text, where most clusters
/// differ. The text is what [`joined`] of each mark in turn gives (a mark that would take the
/// cluster past [`MAX_CLUSTER`] is dropped, a shorter one after it may still fit); a repeated
/// cluster is found in the same cache, under the cell and a hash of the marks, and checked
/// against the table's text, as different runs of marks can share a hash. None when every
/// mark is dropped or the cell holds nothing to join.
fn joined_run(
    clusters: &mut Clusters,
    cache: &mut ClusterCache,
    cell: Cell,
    marks: &[char],
) -> Result<Option<u32>, NeedsCollection> {
    let mut text = [0u8; MAX_CLUSTER];
    let mut len = match (cell.char_value(), cell.cluster_index()) {
        (Some(c), _) => c.encode_utf8(&mut text).len(),
        // (A cluster is never longer than MAX_CLUSTER; one that were could take no mark.)
        (None, Some(i)) => match clusters.get(i).filter(|held| held.len() <= MAX_CLUSTER) {
            Some(held) => {
                text[..held.len()].copy_from_slice(held.as_bytes());
                held.len()
            }
            None => return Ok(None),
        },
        _ => return Ok(None),
    };
    let base_len = len;
    let mut hash = MARKS_HASH_START;
    for &m in marks {
        let n = m.len_utf8();
        if len + n <= MAX_CLUSTER {
            m.encode_utf8(&mut text[len..]);
            len += n;
            hash = marks_hash(hash, m);
        }
    }
    if len == base_len {
        return Ok(None);
    }
    through_cache(
        clusters,
        cache,
        (cell.content(), hash),
        |clusters, id| clusters.holds(id, &text[..len]),
        |clusters| Some(clusters.add_text(&text, len)),
    )
}

/// Whether a UTF-8 sequence (a byte of 0x80 or above) begins within the first 8 bytes of
/// `rest` (the first byte only, when fewer are left): the ASCII before it (the spaces and short
/// words between the words of non-Latin text) is taken with the text around it rather than
/// ending the pass, since a pass ended and another begun cost more than the few characters
/// taken one by one. (With the next byte only, mixed text ended a run at every space: the
/// unicode workload took 60.3 instructions a byte against 54.9. Remembering where the sequence
/// was found, so that the ASCII before it need not look again, measured 41.3 against 39.2.)
#[inline]
fn text_follows(rest: &[u8]) -> bool {
    match rest.first_chunk::<8>() {
        Some(word) => u64::from_le_bytes(*word) & 0x8080_8080_8080_8080 != 0,
        None => rest.first().is_some_and(|&c| c >= 0x80),
    }
}

impl Screen {
    /// The right edge printing stops at: the right margin when the cursor is inside the
    /// left/right margins, else the last column (xterm).
    #[inline]
    fn print_right(&self) -> usize {
        if self.any_double {
            return self.print_right_double();
        }
        self.margin_stop()
    }

    /// How many printable ASCII characters written now each write a cell, with no wrap and
    /// no insertion: to the print area's right edge, or one while a wrap is pending or in
    /// insert mode (`Perform::text_room`).
    pub(crate) fn text_room(&self) -> usize {
        if self.cursor.pending_wrap || self.modes.insert {
            return 1;
        }
        (self.print_right() + 1).saturating_sub(self.cursor.x).max(1)
    }

    /// [`Self::print_right`] once a row was made double size: on such a row, half the margin
    /// while the cursor is inside it, else the row's last shown column (xterm's `dotext`). A
    /// cursor right of that (CUP, CHA or HPA can put it there, and DECDWL leaves it one past)
    /// prints nothing: the text is dropped, as xterm drops it.
    #[cold]
    fn print_right_double(&self) -> usize {
        let size = self.grid().meta(self.cursor.y).size();
        if size == LineSize::Single {
            return self.margin_stop();
        }
        let half = self.right / 2;
        if self.cursor.x <= half {
            half
        } else {
            size.shown_cols(self.cols) - 1
        }
    }

    /// DECDHL, DECSWL, DECDWL (`ESC # 3` and `# 4`, `# 5`, `# 6`, the final byte `f`): the
    /// cursor row's size. As in
    /// xterm: ignored while left/right margins are enabled (DECLRMM) and when the row has that
    /// size already; a row made double keeps its cells (those past its shown half come back
    /// when it is single again), and a cursor past the shown half goes to column `cols / 2`,
    /// where it prints nothing until it moves.
    #[cold]
    pub(crate) fn set_line_size(&mut self, f: u8) {
        let size = match f {
            b'3' => LineSize::DoubleHeightTop,
            b'4' => LineSize::DoubleHeightBottom,
            b'6' => LineSize::DoubleWidth,
            _ => LineSize::Single,
        };
        let y = self.cursor.y;
        if self.modes.left_right_margins || self.grid().meta(y).size() == size {
            return;
        }
        if size != LineSize::Single {
            self.any_double = true;
            self.cursor.x = self.cursor.x.min(self.cols / 2);
        }
        self.grid_mut().set_size(y, size);
    }

    /// Autowrap: the row is marked as continuing, and the cursor goes to the left margin of
    /// the next line, scrolling if it was on the bottom margin.
    fn wrap_line(&mut self) {
        let y = self.cursor.y;
        self.grid_mut().set_wrapped(y, true);
        self.cursor.pending_wrap = false;
        self.cursor.x = self.left;
        self.index();
    }

    /// One printable ASCII byte between escape sequences (colour-dense output): written in
    /// place when it needs no wrap, no insert, no charset and does not touch a wide character;
    /// [`Self::print_ascii_run`] otherwise. Inlined into the parser's loop for such cells.
    #[inline(always)]
    pub(crate) fn print_ascii_one(&mut self, b: u8) {
        let (x, y) = (self.cursor.x, self.cursor.y);
        if !self.cursor.pending_wrap && x < self.print_right() && !self.modes.insert && self.charsets.gl_is_ascii() {
            let style = self.pen_id(y);
            let grid = if self.alt_active { &mut self.alt } else { &mut self.main };
            let (row, meta) = grid.row_meta_mut(y);
            let old = row[x];
            if !old.is_wide() && !old.is_spacer() {
                row[x] = Cell::ascii(b, style);
                meta.touch(x, x + 1);
                self.work += 1;
                self.cursor.x = x + 1;
                self.last_char = Some(b as char);
                return;
            }
        }
        self.print_ascii_run_slow(&[b]);
    }

    /// A run of printable ASCII bytes: whole slices are written into the row at once.
    pub(crate) fn print_ascii_run(&mut self, run: &[u8]) {
        let (x, y) = (self.cursor.x, self.cursor.y);
        if let [b] = run {
            return self.print_ascii_one(*b);
        } else if !self.cursor.pending_wrap
            && x + run.len() <= self.print_right()
            && !self.modes.insert
            && self.charsets.gl_is_ascii()
            && !run.is_empty()
        {
            // A longer run that ends before the right edge (most lines, and most runs between
            // escape sequences): written in place, with no wrap to look after.
            let n = run.len();
            let style = self.pen_id(y);
            let grid = if self.alt_active { &mut self.alt } else { &mut self.main };
            let (row, meta) = grid.row_meta_mut(y);
            // A wide character half-covered by the run loses its other half.
            let (s, e) = split_wide_cells(row, x, x + n);
            crate::scan::write_ascii(&mut row[x..x + n], run, style);
            meta.touch(s, e);
            self.work += n as u64;
            self.cursor.x = x + n;
            self.last_char = Some(run[n - 1] as char);
            return;
        }
        self.print_ascii_run_slow(run);
    }

    /// Whole lines of plain text, each printable ASCII no wider than the screen and ending in
    /// CR LF, written while the cursor is at the start of the bottom row of a screen that
    /// scrolls whole (a flood of text): each line's cells are written into the bottom row, then
    /// the screen scrolls as LF scrolls it (`index`: into the history, recycling its oldest
    /// row once it is full). What [`Self::print_ascii_run`], CR and LF would do for each, with
    /// what decides where and how a run is written tested once for all the lines. Returns the
    /// bytes taken: none when the screen is in any other state, and up to the first line that
    /// is not whole, plain and no wider than the screen.
    #[inline(never)]
    pub(crate) fn print_whole_lines(&mut self, bytes: &[u8]) -> usize {
        if !self.takes_whole_lines() {
            return 0;
        }
        let (y, cols) = (self.cursor.y, self.cols);
        let mut taken = 0;
        // A line wider than the screen wraps: the general way. One exactly as wide leaves a
        // pending wrap that its CR takes back, so it is taken here.
        while let Some(n) = crate::scan::whole_line(&bytes[taken..], cols) {
            self.write_line_text(y, &bytes[taken..taken + n]);
            taken += n + 2;
            // CR leaves the cursor where it is (column 0, as the text was written from there
            // without moving it), and LF scrolls: the cursor stays at the start of the bottom row.
            // In the steady state (history full, a pen with the default background that needs no
            // row's style list) this LF and the next line's text are one pass over the recycled
            // row, for as long as whole lines follow; the 16 MB plain workload went from 403 to
            // 321 instructions a line (-20%).
            if let (Some(style), Color::Default) = (self.pen.fixed, self.pen.style.bg) {
                let (from, pushed) = (taken, self.main.pushed());
                while let Some(n) = crate::scan::whole_line(&bytes[taken..], cols) {
                    if !self.main.scroll_in_line(&bytes[taken..taken + n], style) {
                        break;
                    }
                    taken += n + 2;
                }
                // Each line's cells (its bytes but CR LF) and its scroll, a row: counted here
                // for them all, the lines being those pushed into the history.
                let lines = (self.main.pushed() - pushed) as usize;
                self.work += (taken - from + lines * cols - 2 * lines) as u64;
            }
            // The last LF: the steady state of `index`, inline (the state it tests first holds
            // for the whole stretch); `index` itself otherwise.
            if !self.recycle_line() {
                self.index();
            }
        }
        // Each line ended in CR LF: nothing is left for REP to repeat.
        if taken > 0 {
            self.last_char = None;
        }
        taken
    }

    /// Whole lines of plain text (as [`Self::print_whole_lines`] takes them) written at the
    /// bottom of a scroll region that is not the whole screen (a status line under it: vim,
    /// less, apt's progress bar, vtebench's scrolling regions): each line's cells are written
    /// into the region's bottom row, then the region scrolls up a line as LF scrolls it
    /// (`Grid::scroll_region_one`, or `Grid::scroll_up` in a coloured blank: the scroll `index`
    /// would make, without `index`'s way to it). What
    /// [`Self::print_ascii_run`], CR and LF would do for each, taken without the parser's turns.
    /// Returns the bytes taken: none in any other state.
    #[inline(never)]
    pub(crate) fn print_region_lines(&mut self, bytes: &[u8]) -> usize {
        let (top, y, cols) = (self.top, self.bottom, self.cols);
        if !(self.at_plain_line_start() && self.cursor.y == y && (top > 0 || y + 1 < self.rows)) {
            return 0;
        }
        let (blank, save) = (self.blank(), !self.alt_active);
        let default_blank = blank.is_default();
        let mut taken = 0;
        while let Some(n) = crate::scan::whole_line(&bytes[taken..], cols) {
            self.write_line_text(y, &bytes[taken..taken + n]);
            taken += n + 2;
            if default_blank {
                // `scroll_up` would take this way too, after its own tests: called here
                // directly, lines at a region's bottom cost 10-13% fewer instructions (callgrind,
                // vtebench's scrolling_bottom_region and scrolling_top_region).
                self.grid_mut().scroll_region_one(top, y, save);
            } else {
                self.grid_mut().scroll_up(top, y, 1, &blank, save);
            }
        }
        if taken > 0 {
            self.last_char = None;
        }
        taken
    }

    /// Whether lines of plain text written now would each go into the bottom row from its
    /// first column and scroll the whole main screen (the state [`Self::print_whole_lines`]
    /// and [`Self::skip_unseen_lines`] need).
    fn takes_whole_lines(&self) -> bool {
        self.at_plain_line_start()
            && self.cursor.y + 1 == self.rows
            && self.bottom + 1 == self.rows
            && self.top == 0
            && !self.alt_active
    }

    /// Whether a line of plain text written now would go into the cursor's row from its first
    /// column, cell for byte, with no margin, wrap, insert, character set or double size to
    /// look after (what [`Self::print_whole_lines`] and [`Self::print_region_lines`] share).
    #[inline]
    fn at_plain_line_start(&self) -> bool {
        self.cursor.x == 0
            && !self.cursor.pending_wrap
            && self.full_width()
            && !self.modes.insert
            && self.charsets.gl_is_ascii()
            && !self.any_double
    }

    /// A whole line's text (printable ASCII, at most the width) written in the pen from the
    /// first column of row `y`, as [`Self::print_ascii_run`] writes it (the cursor left alone).
    #[inline(always)]
    fn write_line_text(&mut self, y: usize, text: &[u8]) {
        if text.is_empty() {
            return;
        }
        let n = text.len();
        let style = self.pen_id(y);
        self.work += n as u64;
        let (row, meta) = self.grid_mut().row_meta_mut(y);
        let (s, e) = split_wide_cells(row, 0, n);
        crate::scan::write_ascii(&mut row[..n], text, style);
        meta.touch(s, e);
    }

    /// In a flood ([`crate::Terminal::feed_flood`]): of the whole lines of plain text at the
    /// start of `bytes` (as [`Self::print_whole_lines`] takes them), those that the lines after
    /// them would scroll out of the history before this feed ends are counted as scrolled and
    /// not written. Returns the bytes they take; 0 when the screen is in another state, or
    /// when no more whole lines follow than the screen and its history hold.
    ///
    /// Why it gives the same screen as writing them: each whole line leaves the cursor at the
    /// start of the bottom row and scrolls the whole screen by one row, whatever the line
    /// holds. After `rows + history_cap` more such lines every row that was on the screen or
    /// in the history before them has left the history, the first of the kept lines too
    /// (which is written over what was left on the bottom row, as the skipped lines would
    /// have been); and the pen, modes, margins, sets and tab stops are what plain text leaves
    /// them. What the skipped lines leave is only the count of rows scrolled and pushed into
    /// history, which is counted here. The caller writes the kept lines next, before anything
    /// reads the screen: `print_lines` at once, [`crate::Terminal::skip_unseen`]'s caller as
    /// its contract says.
    pub(crate) fn skip_unseen_lines(&mut self, bytes: &[u8]) -> usize {
        let keep = self.rows + self.main.history_cap();
        // A whole line takes at least its CR LF: too few bytes for more than `keep` lines.
        if bytes.len() < 2 * (keep + 1) || !self.takes_whole_lines() {
            return 0;
        }
        let (lines, end) = crate::scan::whole_lines(bytes, self.cols);
        if lines <= keep {
            return 0;
        }
        // The skipped lines end with the LF before the kept ones (a whole line holds no LF but
        // its last byte): found from the end, over the kept lines only.
        let Some(lf) = memchr::memrchr_iter(b'\n', &bytes[..end]).nth(keep) else { return 0 };
        self.main.count_unseen_scrolls(lines - keep);
        lf + 1
    }

    /// The runs [`Self::print_ascii_run`] does not write in place: wrapping, insert mode, a
    /// character set, a wide character under a single byte. Out of line, so that the common
    /// case saves and restores fewer registers.
    #[inline(never)]
    fn print_ascii_run_slow(&mut self, run: &[u8]) {
        match self.charsets.gl_set() {
            Some(Charset::Ascii) if !self.modes.insert => {
                if let Some(&last) = run.last() {
                    self.last_char = Some(last as char);
                }
                self.write_run(run, |b| b as char, crate::scan::write_ascii);
            }
            // A run through another set (DEC line drawing in dialog, htop, mc): cell by cell.
            Some(set) if !self.modes.insert => self.print_mapped_run(run, set),
            // A single shift or insert mode.
            _ => {
                for &b in run {
                    self.print_char(b as char);
                }
            }
        }
    }

    /// A run of printable bytes through `set` (one that maps each to a character one cell wide).
    #[inline(never)]
    fn print_mapped_run(&mut self, run: &[u8], set: Charset) {
        if let Some(&last) = run.last() {
            self.last_char = Some(set.map_byte(last));
        }
        self.write_run(
            run,
            |b| set.map_byte(b),
            |cells, bytes, style| {
                for (cell, &b) in cells.iter_mut().zip(bytes) {
                    *cell = Cell::char(set.map_byte(b), false, style);
                }
            },
        );
    }

    /// Writes a run of bytes that are a cell each, wrapping at the right margin as xterm does:
    /// `write` fills a slice of cells from as many bytes, `map` gives one byte's character.
    #[inline(always)]
    fn write_run(&mut self, run: &[u8], map: impl Fn(u8) -> char, write: impl Fn(&mut [Cell], &[u8], u32)) {
        let autowrap = self.modes.autowrap;
        // A cell a byte, whatever becomes of it (without autowrap most are written over, past a
        // double-size row's half they are dropped): the same count however the run is cut.
        self.work += run.len() as u64;
        let mut run = run;
        while !run.is_empty() {
            if self.cursor.pending_wrap {
                if autowrap {
                    self.wrap_line();
                } else {
                    // Without autowrap the next character overwrites the last column.
                    self.cursor.pending_wrap = false;
                }
            }
            let (x, y) = (self.cursor.x, self.cursor.y);
            let right = self.print_right();
            if x > right {
                // Past the shown half of a double-size row: dropped (see `print_right_double`).
                return;
            }
            let style = self.pen_id(y);
            let n = run.len().min(right + 1 - x);
            let grid = if self.alt_active { &mut self.alt } else { &mut self.main };
            let (row, meta) = grid.row_meta_mut(y);
            // A wide character half-covered by the run loses its other half.
            let (s, e) = split_wide_cells(row, x, x + n);
            write(&mut row[x..x + n], &run[..n], style);
            run = &run[n..];
            meta.touch(s, e);
            if x + n > right {
                if !autowrap {
                    if let Some(&last) = run.last() {
                        // Without autowrap, the rest overwrites the last column: only the last stays.
                        row[right] = Cell::char(map(last), false, style);
                        run = &[];
                    }
                }
                // Pending even without autowrap, as xterm's `do_wrap` is: a mark joins the
                // character in the last column, and turning autowrap on wraps the next one.
                self.cursor.x = right;
                self.cursor.pending_wrap = true;
            } else {
                self.cursor.x = x + n;
            }
        }
    }

    /// Text at the start of `bytes`, decoded and written in one pass (see
    /// `Perform::print_utf8`): the characters that need nothing but cells (characters no charset
    /// maps, see `Charsets::unmapped_from`, one or two cells wide, that end before the print
    /// area's last column, where writing sets a pending wrap) and the marks that join them, with
    /// no insert mode and no wrap pending; printable ASCII only while a UTF-8 sequence follows
    /// within 8 bytes (the spaces and short words of non-Latin text: a longer stretch is the
    /// ASCII path's). Characters with no width (C1 controls sent in UTF-8) are dropped, as
    /// [`Self::print_char`] drops them. Returns the bytes it took; with 0 it wrote nothing, and
    /// the first character goes the general way.
    ///
    /// One pass, where the parser once decoded a run of up to 32 characters into a buffer and
    /// this read them back: 49.6 instructions a byte on the unicode workload before (README,
    /// Benchmark).
    #[inline]
    pub(crate) fn print_utf8_in_row(&mut self, bytes: &[u8]) -> usize {
        let unmapped = self.charsets.unmapped_from();
        if self.modes.insert || self.cursor.pending_wrap {
            return 0;
        }
        let (x0, y) = (self.cursor.x, self.cursor.y);
        // Past the shown half of a double-size row (x0 > right) nothing fits: only marks join.
        let right = self.print_right();
        let style = self.pen_id(y);
        let grid = if self.alt_active { &mut self.alt } else { &mut self.main };
        let (row, meta) = grid.row_meta_mut(y);
        let right_half_at_start = x0 > 0 && row[x0].is_spacer();
        let mut x = x0;
        let mut i = 0;
        let mut last = None;
        let mut joined_from = usize::MAX;
        let mut marks_joined = 0;
        // The character after a run of marks, decoded and measured when the run ended.
        let mut known: Option<(char, usize, Option<usize>)> = None;
        loop {
            let (c, len, width) = match known.take() {
                Some(k) => k,
                None => match bytes.get(i) {
                    Some(&b @ 0x20..=0x7e) if text_follows(&bytes[i + 1..]) => (b as char, 1, Some(1)),
                    Some(0x80..) => match decode_whole(&bytes[i..]) {
                        Some((c, len)) => (c, len, cell_width(c)),
                        None => break,
                    },
                    _ => break,
                },
            };
            if (c as u32) < unmapped {
                break;
            }
            match width {
                Some(1) if x < right => {
                    row[x] = Cell::char(c, false, style);
                    x += 1;
                }
                Some(2) if x + 2 <= right => {
                    row[x] = Cell::char(c, true, style);
                    row[x + 1] = Cell::spacer(style);
                    x += 2;
                }
                // A mark joins the character before the cursor (see `combine`); a run of them
                // joins at once.
                Some(0) => {
                    let mut marks = [c; 16];
                    let mut n = 1;
                    let mut end = i + len;
                    while n < marks.len() {
                        let Some(&(0x80..)) = bytes.get(end) else { break };
                        let Some((m, len)) = decode_whole(&bytes[end..]) else { break };
                        match cell_width(m) {
                            Some(0) if m as u32 >= unmapped => {
                                marks[n] = m;
                                n += 1;
                                end += len;
                            }
                            w => {
                                known = Some((m, len, w));
                                break;
                            }
                        }
                    }
                    if let Some(target) = mark_target(row, x) {
                        let cell = row[target];
                        let id = if n == 1 {
                            joined(&mut self.clusters, &mut self.cluster_cache, cell, c)
                        } else {
                            joined_run(&mut self.clusters, &mut self.cluster_cache, cell, &marks[..n])
                        };
                        match id {
                            Ok(Some(id)) => {
                                row[target] = Cell::cluster(id, cell.is_wide(), cell.style());
                                joined_from = joined_from.min(target);
                            }
                            Ok(None) => {}
                            Err(NeedsCollection) => break,
                        }
                    }
                    // A cell touched a mark, as `combine` counts it.
                    marks_joined += n;
                    i = end;
                    continue;
                }
                // No width (C1 controls sent in UTF-8, which do nothing): dropped.
                None => {
                    i += len;
                    continue;
                }
                _ => break,
            }
            last = Some(c);
            i += len;
        }
        if i == 0 {
            return 0;
        }
        // A wide character with one half overwritten loses the other.
        let mut start = x0;
        let mut end = x;
        if x > x0 {
            if right_half_at_start {
                row[x0 - 1] = Cell::blank(row[x0 - 1].style());
                start = x0 - 1;
            }
            if x < row.len() && row[x].is_spacer() {
                row[x] = Cell::blank(row[x].style());
                end = x + 1;
            }
        }
        start = start.min(joined_from);
        if start < end {
            meta.touch(start, end);
        }
        self.work += (x - x0 + marks_joined) as u64;
        self.cursor.x = x;
        if last.is_some() {
            self.last_char = last;
        }
        i
    }

    /// One graphic character, after charset mapping.
    pub(crate) fn print_char(&mut self, c: char) {
        let c = self.charsets.map(c);
        self.print_mapped_char(c);
    }

    /// One graphic character that is already what the screen shows (charsets applied).
    #[inline(always)]
    pub(crate) fn print_mapped_char(&mut self, c: char) {
        let Some(width) = cell_width(c) else { return };
        if width == 0 {
            return self.combine(c);
        }
        self.work += width as u64;
        self.last_char = Some(c);
        if self.cursor.pending_wrap && self.modes.autowrap {
            self.wrap_line();
        }
        let right = self.print_right();
        if self.cursor.x > right {
            // Past the shown half of a double-size row: dropped (see `print_right_double`).
            return;
        }
        if width == 2 && self.cursor.x == right {
            if !self.modes.autowrap || right == self.left {
                // No room and no wrap: xterm does not print it.
                return;
            }
            // The character goes on the next line and the last column keeps what it had, as
            // in XTerm 379 (scripts/xterm-screens.sh wide-at-last-col-keeps-the-cell).
            let (x, y) = (self.cursor.x, self.cursor.y);
            if x + 1 == self.cols {
                // Reflow drops the last cell when it joins the rows again if it is blank (not
                // text); what was written there stays in the line.
                self.grid_mut().set_pad_end(y);
            }
            self.wrap_line();
        }
        // A character written ends a pending wrap, as xterm's `dotext` clears `do_wrap`
        // whether or not autowrap is on: without autowrap it goes at the cursor, and the wrap
        // is pending again only if it reaches the right margin. (One dropped above leaves the
        // wrap as it was, so a mark after it joins the last column's character, as xterm's
        // `last_written_col` does.)
        self.cursor.pending_wrap = false;
        let (x, y) = (self.cursor.x, self.cursor.y);
        if self.modes.insert {
            self.insert_blanks(width);
        }
        let style = self.pen_id(y);
        let grid = if self.alt_active { &mut self.alt } else { &mut self.main };
        let (row, meta) = grid.row_meta_mut(y);
        // A wide character half-covered by this one loses its other half.
        let (s, e) = split_wide_cells(row, x, x + width);
        if width == 2 {
            row[x] = Cell::char(c, true, style);
            row[x + 1] = Cell::spacer(style);
        } else {
            row[x] = Cell::char(c, false, style);
        }
        meta.touch(s, e);
        if x + width > right {
            // Pending even without autowrap (see `write_run`).
            self.cursor.x = right;
            self.cursor.pending_wrap = true;
        } else {
            self.cursor.x = x + width;
        }
    }

    /// A zero-width character (combining mark, ZWJ, variation selector) joins the character
    /// before the cursor; with nothing before it, it is dropped.
    fn combine(&mut self, mark: char) {
        self.work += 1;
        let (x, y) = (self.cursor.x, self.cursor.y);
        // With a wrap pending, the character before the cursor is the one under it.
        let after = x + self.cursor.pending_wrap as usize;
        let row = self.grid().row(y);
        let Some(target) = mark_target(row, after) else { return };
        let cell = row[target];
        let id = match joined(&mut self.clusters, &mut self.cluster_cache, cell, mark) {
            Ok(id) => id,
            Err(NeedsCollection) => {
                // The target's cluster is in a cell, so it survives.
                self.collect_garbage();
                joined(&mut self.clusters, &mut self.cluster_cache, cell, mark).unwrap_or(None)
            }
        };
        let Some(id) = id else { return };
        self.grid_mut().row_mut(y)[target] = Cell::cluster(id, cell.is_wide(), cell.style());
        self.touch(y, target, target + 1);
    }

    /// REP: repeats `last`, the graphic character printed just before the sequence, `n` times
    /// (bounded by the screen's size). As in xterm, it is repeated once only: a second REP
    /// right after the first repeats nothing, as in XTerm 379 (ECMA-48 leaves it undefined;
    /// vttest's REP screen expects xterm's answer).
    pub(crate) fn repeat_last(&mut self, last: Option<char>, n: usize) {
        if let Some(c) = last {
            let n = n.min(self.cols * self.rows);
            if c.is_ascii() && !c.is_ascii_control() {
                let buf = [c as u8; 256];
                let mut left = n;
                while left > 0 {
                    let k = left.min(buf.len());
                    self.print_ascii_run(&buf[..k]);
                    left -= k;
                }
            } else {
                for _ in 0..n {
                    self.print_char(c);
                }
            }
            self.last_char = None;
        }
    }
}

#[cfg(test)]
mod width_tests {
    use super::*;

    #[test]
    fn a_run_of_marks_found_in_the_cache_is_checked_against_the_table() {
        // Different runs of marks can share a hash (and so a cache entry): an entry whose
        // cluster holds other marks is not taken, and the run gets a cluster of its own.
        let mut clusters = Clusters::new(1024);
        let mut cache = Box::new(EMPTY_CLUSTER_CACHE);
        let cell = Cell::char('a', false, 0);
        let (one, other) = (['\u{301}', '\u{302}'], ['\u{303}', '\u{304}']);
        let first = joined_run(&mut clusters, &mut cache, cell, &one).ok().flatten().unwrap();
        assert_eq!(joined_run(&mut clusters, &mut cache, cell, &one).ok().flatten(), Some(first), "a cache hit");
        assert_eq!(clusters.len(), 1);
        // The entry the other run looks up now names the first run's cluster, as a collision
        // of hashes would.
        let key = (cell.content(), other.iter().fold(MARKS_HASH_START, |h, &m| marks_hash(h, m)));
        cache[cache_slot(key)] = (key.0, key.1, first);
        let second = joined_run(&mut clusters, &mut cache, cell, &other).ok().flatten().unwrap();
        assert_ne!(second, first);
        assert_eq!(clusters.get(second), Some("a\u{303}\u{304}"));
        assert_eq!(clusters.get(first), Some("a\u{301}\u{302}"));
    }

    #[test]
    fn every_set_maps_every_printable_byte_to_one_cell() {
        // The run path writes each byte of a run through a set as one cell.
        for set in Charset::ALL {
            for b in 0x20..=0x7eu8 {
                assert_eq!(cell_width(set.map_byte(b)), Some(1), "{set:?} {b:#04x}");
            }
        }
    }

    #[test]
    fn soft_hyphen_takes_a_cell_as_in_xterm_and_wcwidth() {
        assert_eq!(cell_width('\u{ad}'), Some(1));
        // Sent in UTF-8 or through Latin-1 in GL, it is a character of its own.
        for stream in ["(\u{ad})", "\x1b-A\x0e(-)\x0f"] {
            let mut t = crate::Terminal::new(6, 1);
            t.feed(stream.as_bytes());
            assert_eq!(t.screen().cursor().x, 3, "{stream:?}");
        }
    }

    #[test]
    fn the_width_table_agrees_with_table_width_for_every_scalar_value() {
        for cp in 0..=0x10_FFFFu32 {
            if let Some(c) = char::from_u32(cp) {
                assert_eq!(cell_width(c), table_width(c), "U+{cp:04X}");
            }
        }
    }
}
