//! Screen memory: a slab of rows, addressed through a ring of row ids.
//!
//! ```text
//!  lines (VecDeque<u32>, logical order)        cells (one slab, `cols` cells per physical row)
//!  ┌────┬────┬─────┬────┬────┬─────┬────┐       row id 0: [c c c c ... ]
//!  │ h0 │ h1 │ ... │ v0 │ v1 │ ... │ vN │       row id 1: [c c c c ... ]
//!  └────┴────┴─────┴────┴────┴─────┴────┘       ...
//!   oldest history ─►  visible rows, top to bottom
//! ```
//! Invariants: `lines.len() == history_len + rows`; every row id is in exactly one of `lines`
//! and `free`; `cells.len() == ids_allocated * cols`. Scrolling the whole screen up pushes a
//! row id onto the back of `lines` (the old top row becomes the newest history line without
//! being copied) and, once history is at its cap, takes the recycled id from the front: an
//! index move plus clearing one row, and no allocation once the slab has grown to its cap.
//!
//! Damage lives on the physical row (`RowMeta::dirty`), so rows carry it with them when they
//! move; a full-screen scroll only adds to `scrolled`. A presenter reads "scroll by
//! `scrolled`, then redraw the dirty spans", which is exactly what changed.
//!
//! Styles: each row keeps its own list of the styles its cells use, and a cell's style id is
//! an index into its row's list (1-based; 0 is the default style, so plain rows have an empty
//! list). The design is ghostty's page-local style sets, taken down to the row: the list a
//! print writes to is a few hundred bytes that stay in cache, so colour-dense output (a new
//! colour pair for every cell) appends to it instead of hashing every style into one table of
//! megabytes, and nothing global has to be collected when styles go out of use. The list
//! moves with its row (scrolling, recycling and history cost nothing more); cells that move
//! between rows (scrolls inside left/right margins, reflow) take their styles into the
//! destination's list. A list is bounded: at `style_list_cap` entries the ones no cell uses are
//! dropped, and a row entering history keeps at most one entry per cell.
//!
//! Most styles need no list at all: a style of palette colours and attributes, without an
//! underline colour or a hyperlink, fits in the id itself (`Style::pack`, the id's top bit
//! set). Writing one looks nothing up, reading one decodes it, and history keeps nothing for
//! it but the cell; only RGB colours, underline colours and hyperlinks are listed.

use std::collections::VecDeque;

use crate::cell::Cell;
use crate::style::{list_index, Style, PACKED};

mod reflow;
pub use reflow::At;

#[derive(Clone, Copy, Debug, Default)]
pub struct RowMeta {
    /// The row's text continues on the next row (it was left by an automatic wrap).
    pub wrapped: bool,
    /// Bit 0 (`pad_end`): the row's last cell is the blank left where a wide character did
    /// not fit before the wrap: not text (reflow drops it when it joins rows). Bits 1-2: the
    /// row's [`LineSize`]. One byte for both keeps the row's bookkeeping 8 bytes (a 9th cost
    /// 0.7% on every workload, moving it with rows).
    flags: u8,
    /// Dirty columns `[start, end)` since damage was last cleared; empty when start >= end.
    pub dirty: (u16, u16),
    /// Cells at and after this column are default blanks (`Cell::blank(0)`), so recycling
    /// the row clears only the cells before it. Every write widens it through `touch`.
    used: u16,
}

/// A row's size, set by DECSWL, DECDWL and DECDHL (`ESC # 5`, `# 6`, `# 3`, `# 4`). A row of
/// double size shows its first half (columns up to `(cols - 1) / 2`) at twice the width; the
/// cells after that are kept but not shown, as in xterm. A row that is cleared whole (ED,
/// scrolled in, RIS, DECALN) is single again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum LineSize {
    #[default]
    Single,
    DoubleWidth,
    /// The top half of a line shown at double width and height.
    DoubleHeightTop,
    /// The bottom half of one.
    DoubleHeightBottom,
}

impl LineSize {
    /// The columns a row of this size shows on a screen `cols` wide: all of them, or for a
    /// double-size row its first half, up to column `(cols - 1) / 2` (xterm's `LineMaxCol`).
    #[inline]
    pub fn shown_cols(self, cols: usize) -> usize {
        if self == LineSize::Single {
            cols
        } else {
            (cols.max(1) - 1) / 2 + 1
        }
    }
}

impl RowMeta {
    /// A fresh row's: not wrapped, single size, all of it dirty, `used` cells written.
    #[inline(always)]
    fn fresh(cols: usize, used: u16) -> RowMeta {
        RowMeta { wrapped: false, flags: 0, dirty: (0, cols as u16), used }
    }

    /// The row ends in the pad blank a wide character left when it wrapped.
    #[inline]
    pub fn pad_end(&self) -> bool {
        self.flags & 1 != 0
    }

    #[inline]
    fn set_pad_end(&mut self, on: bool) {
        self.flags = (self.flags & !1) | on as u8;
    }

    /// The row's size (DECDWL, DECDHL).
    #[inline]
    pub fn size(&self) -> LineSize {
        match (self.flags >> 1) & 3 {
            0 => LineSize::Single,
            1 => LineSize::DoubleWidth,
            2 => LineSize::DoubleHeightTop,
            _ => LineSize::DoubleHeightBottom,
        }
    }

    #[inline]
    fn set_line_size(&mut self, size: LineSize) {
        self.flags = (self.flags & 1) | (size as u8) << 1;
    }

    #[inline]
    pub fn touch(&mut self, start: usize, end: usize) {
        let (s, e) = (start as u16, end as u16);
        self.used = self.used.max(e);
        if self.dirty.0 >= self.dirty.1 {
            self.dirty = (s, e);
        } else {
            self.dirty = (self.dirty.0.min(s), self.dirty.1.max(e));
        }
    }
}

/// A rectangle of the screen: rows `top..=bottom`, columns `left..=right`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    pub top: usize,
    pub bottom: usize,
    pub left: usize,
    pub right: usize,
}

/// The most cells the scrollback of one screen holds (256 MiB of cells): with the largest
/// scrollback (`term::MAX_SCROLLBACK` lines) a screen wider than 335 columns keeps fewer lines
/// than asked, so that memory is bounded by a documented figure whatever the width. The default
/// scrollback is never cut by it (10,000 lines of up to `term::MAX_COLS` columns fit).
pub const MAX_HISTORY_CELLS: usize = 32 << 20;

/// History lines kept at `cols` columns when `scrollback` lines are asked for.
pub fn history_cap(scrollback: usize, cols: usize) -> usize {
    scrollback.min(MAX_HISTORY_CELLS / cols.max(1))
}

pub struct Grid {
    cols: usize,
    rows: usize,
    /// The scrollback asked for, in lines, and what is kept at this width (`history_cap`).
    scrollback: usize,
    history_cap: usize,
    cells: Vec<Cell>,
    meta: Vec<RowMeta>,
    lines: VecDeque<u32>,
    free: Vec<u32>,
    /// Full-screen scrolls since damage was last cleared (saturates at `rows`).
    scrolled: usize,
    /// Where the screen's top was in the text before the first of a run of resizes, or that
    /// the screen was full to its last row then: kept until output scrolls, so that a resize and
    /// its reverse give back the same screen (reflow.rs).
    anchor: Option<reflow::Anchor>,
    /// Where the cursor was in the text when a resize could not keep it on its character (its
    /// line ran below the screen), with where it was put instead and its pending wrap.
    lost_cursor: Option<(At, reflow::TextPos, bool)>,
    /// Each row's styles, by row id (see the module's comment): a cell's style id `k` is entry
    /// `k - 1` of its row's list, and 0 is the default style.
    styles: Vec<Vec<Style>>,
    /// Counts the times a row's list lost or renumbered entries, so that a style id cached
    /// for a row (the pen's) is known to be still good by one comparison.
    style_epoch: u64,
    /// Lines that scrolling has put into history, ever: numbers lines so that a line keeps its
    /// number while output arrives (line `pushed - history_len + i` is history line `i`).
    pushed: u64,
    /// A cleared list with room, taken from a row that went into history, for the next row
    /// to be written (see `settle_styles`).
    spare_styles: Vec<Style>,
    /// Visible rows `top..=bottom` that are all wholly dirty, known when the last scroll of a
    /// region marked them and nothing has moved rows into them since: valid while `pushed` is
    /// the third field (every scroll of the whole screen counts in `pushed`); emptied by
    /// `clear_damage` and by anything else that moves visible rows. A scroll inside it moves
    /// dirty rows among dirty rows and brings in a fresh row (dirty), so it marks nothing: a
    /// status line under the scrolling text (vim, less, vtebench's scrolling_bottom_region)
    /// cost a pass over the region's rows for every line.
    dirty_run: Option<(usize, usize, u64)>,
    /// A row of cells, a map of one row's list and a list, reused by the operations that move
    /// or restyle spans of cells (`copy_span`, `restyle`), so that none allocates per row.
    scratch: Vec<Cell>,
    style_map: Vec<u32>,
    scratch_styles: Vec<Style>,
    /// Work done, in cells (and style entries) touched: see [`Grid::work`].
    work: u64,
    /// Calls of `intern`: the tests' measure of the style work an operation does per cell.
    #[cfg(test)]
    pub(crate) style_ops: u64,
}

/// A row's cells with the styles their ids name: what readers of the screen get. It derefs to
/// the cells.
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    cells: &'a [Cell],
    styles: &'a [Style],
}

impl<'a> Line<'a> {
    /// The style of a cell of this row.
    #[inline]
    pub fn style(&self, cell: Cell) -> Style {
        match cell.style() {
            0 => Style::default(),
            k if k & PACKED != 0 => Style::unpack(k),
            k => self.styles.get(k as usize - 1).copied().unwrap_or_default(),
        }
    }
}

impl std::ops::Deref for Line<'_> {
    type Target = [Cell];
    fn deref(&self) -> &[Cell] {
        self.cells
    }
}

/// A row's list with this much room beyond its entries is copied to an exact one when the row
/// goes into history (see `Grid::settle_styles`).
const SPARE_STYLES_WORTH_KEEPING: usize = 8;

/// The work of a style entry copied, changed or compacted, in cells: an entry is 20 bytes to a
/// cell's 8, and is read through a map or changed where a cell is copied (a DECCARA of a screen
/// whose every cell has a colour of its own took eight times a blank screen's time a cell).
const STYLE_WORK: u64 = 4;

/// The widest screen, in columns: more than a 7680-pixel-wide display shows with a 4-pixel font.
/// Wider requests are clamped here and refused by the command line.
pub const MAX_COLS: usize = 2048;
/// The tallest screen, in rows: more than an 8192-pixel-tall display shows with an 8-pixel font.
pub const MAX_ROWS: usize = 1024;
/// Default blanks, as many as the widest row ([`MAX_COLS`]), to clear rows from.
static BLANK_ROW: [Cell; MAX_COLS] = [Cell::blank(0); MAX_COLS];

/// A row's list of styles holds at most this many entries (then unused ones are dropped):
/// twice the width, so that dropping, which visits the row, is paid for by the entries added.
#[inline]
fn style_list_cap(cols: usize) -> usize {
    2 * cols + 8
}

impl Grid {
    pub fn new(cols: usize, rows: usize, scrollback: usize) -> Grid {
        let mut g = Grid {
            cols,
            rows,
            scrollback,
            history_cap: history_cap(scrollback, cols),
            cells: Vec::new(),
            meta: Vec::new(),
            lines: VecDeque::with_capacity(rows),
            free: Vec::new(),
            scrolled: 0,
            anchor: None,
            lost_cursor: None,
            styles: Vec::new(),
            style_epoch: 0,
            pushed: 0,
            spare_styles: Vec::new(),
            dirty_run: None,
            scratch: Vec::new(),
            style_map: Vec::new(),
            scratch_styles: Vec::new(),
            work: 0,
            #[cfg(test)]
            style_ops: 0,
        };
        for _ in 0..rows {
            let id = g.fresh_row(&Style::default());
            g.lines.push_back(id);
        }
        g
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn history_len(&self) -> usize {
        self.lines.len() - self.rows
    }

    pub fn history_cap(&self) -> usize {
        self.history_cap
    }

    /// The work the grid has done since it was made: cells written, cleared or moved, and
    /// style entries copied or changed (each four cells' worth: `STYLE_WORK`), with a scroll of
    /// a line costing a row (a ring turn) plus the rows of a region it moves. What [`crate::Terminal::feed_bounded`] bounds a turn by, with the
    /// screen's own.
    #[inline]
    pub fn work(&self) -> u64 {
        self.work
    }

    /// The work of scrolling rows `top..=bottom` by a line: a row cleared, and the region's
    /// rows moved in the ring unless it is the whole screen (then the ring turns).
    #[inline(always)]
    fn line_scroll_work(&self, top: usize, bottom: usize) -> u64 {
        let moved = if top == 0 && bottom + 1 == self.rows { 0 } else { bottom + 1 - top };
        (self.cols + moved) as u64
    }

    /// Bytes held by cells, row bookkeeping, style lists and ids (for memory reports).
    pub fn memory_bytes(&self) -> usize {
        self.cells.capacity() * std::mem::size_of::<Cell>()
            + self.meta.capacity() * std::mem::size_of::<RowMeta>()
            + self.styles.capacity() * std::mem::size_of::<Vec<Style>>()
            + self.styles.iter().map(|l| l.capacity() * std::mem::size_of::<Style>()).sum::<usize>()
            + self.spare_styles.capacity() * std::mem::size_of::<Style>()
            + (self.lines.capacity() + self.free.capacity()) * 4
            + self.scratch.capacity() * std::mem::size_of::<Cell>()
            + self.style_map.capacity() * 4
            + self.scratch_styles.capacity() * std::mem::size_of::<Style>()
    }

    // ---- styles (see the module's comment) ----

    /// The id of `style` in row `id`'s list, adding it if it is not among the last entries.
    /// Entries are not looked up further back: colour-dense output changes the style for every
    /// cell, and appending costs less than any search; a full list drops the entries no cell
    /// uses (`compact_styles`), which bounds it by `style_list_cap`.
    #[inline]
    pub fn intern(&mut self, id: u32, style: &Style) -> u32 {
        #[cfg(test)]
        {
            self.style_ops += 1;
        }
        match style.fixed_id() {
            Some(fixed) => fixed,
            None => self.intern_listed(id, style),
        }
    }

    /// The id of a style that is neither default nor packed, in row `id`'s list.
    pub(crate) fn intern_listed(&mut self, id: u32, style: &Style) -> u32 {
        let list = &self.styles[id as usize];
        let n = list.len();
        if n > 0 && list[n - 1] == *style {
            return n as u32;
        }
        if n > 1 && list[n - 2] == *style {
            return n as u32 - 1;
        }
        if n >= style_list_cap(self.cols) {
            self.compact_styles(id);
        }
        let list = &mut self.styles[id as usize];
        list.push(*style);
        list.len() as u32
    }

    /// The id of `style` in visible row `y`'s list.
    #[inline]
    pub fn intern_at(&mut self, y: usize, style: &Style) -> u32 {
        let id = self.visible_id(y);
        self.intern(id, style)
    }

    /// A blank in `style` for visible row `y`.
    #[inline]
    pub fn blank_at(&mut self, y: usize, style: &Style) -> Cell {
        Cell::blank(self.intern_at(y, style))
    }

    /// Drops the entries of row `id`'s list that no cell uses, renumbering the cells.
    fn compact_styles(&mut self, id: u32) {
        let len = self.styles[id as usize].len();
        if len == 0 {
            return;
        }
        let start = id as usize * self.cols;
        self.work += len as u64 * STYLE_WORK + self.cols as u64;
        // The entries the cells use, then their new ids in the list's order: done in place,
        // with the map the span operations reuse, so that compacting allocates nothing.
        let mut new_id = std::mem::take(&mut self.style_map);
        new_id.clear();
        new_id.resize(len, 0);
        for cell in &self.cells[start..start + self.cols] {
            if let Some(i) = list_index(cell.style()).filter(|&i| i < len) {
                new_id[i] = 1;
            }
        }
        let mut next = 0;
        for k in new_id.iter_mut().filter(|k| **k != 0) {
            next += 1;
            *k = next;
        }
        let mut i = 0;
        self.styles[id as usize].retain(|_| {
            i += 1;
            new_id[i - 1] != 0
        });
        for cell in &mut self.cells[start..start + self.cols] {
            if let Some(i) = list_index(cell.style()).filter(|&i| i < len) {
                cell.set_style(new_id[i]);
            }
        }
        self.style_map = new_id;
        self.style_epoch += 1;
    }

    /// The id of `style` in row `id`'s list, appended without looking for it, where the caller
    /// has made room (`compact_styles`) and maps each style it adds once: `copy_span` and
    /// `restyle`, which add up to a span's width.
    #[inline]
    fn push_style(&mut self, id: u32, style: &Style) -> u32 {
        #[cfg(test)]
        {
            self.style_ops += 1;
        }
        if let Some(fixed) = style.fixed_id() {
            return fixed;
        }
        self.work += STYLE_WORK;
        let list = &mut self.styles[id as usize];
        debug_assert!(list.len() < style_list_cap(self.cols));
        list.push(*style);
        list.len() as u32
    }

    /// `n` full-screen scrolls of lines that no one will see (they would leave the history
    /// before anything reads it: see `Screen::skip_unseen_lines`), counted as `scroll_up`
    /// counts them, with no row written.
    pub(crate) fn count_unseen_scrolls(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        self.anchor = None;
        self.scrolled = (self.scrolled + n).min(self.rows);
        if self.history_cap > 0 {
            self.pushed += n as u64;
        }
    }

    /// Lines scrolling has put into history since the grid was made.
    pub fn pushed(&self) -> u64 {
        self.pushed
    }

    /// Changes whenever a row's list loses or renumbers entries.
    #[inline]
    pub fn style_epoch(&self) -> u64 {
        self.style_epoch
    }

    /// Every style list of the history and visible rows (for marking live hyperlinks).
    pub fn for_each_style(&self, mut f: impl FnMut(&Style)) {
        for &id in &self.lines {
            self.styles[id as usize].iter().for_each(&mut f);
        }
    }

    /// Styles in the lists of the history and visible rows.
    pub fn styles_held(&self) -> usize {
        self.lines.iter().map(|&id| self.styles[id as usize].len()).sum()
    }

    /// A row id that is blank: recycled from `free`, or newly allocated in the slab.
    fn fresh_row(&mut self, blank: &Style) -> u32 {
        match self.free.pop() {
            Some(id) => {
                self.reset_row(id, blank);
                id
            }
            None => {
                let id = self.start_new_row();
                let cell = Cell::blank(self.intern(id, blank));
                self.cells.resize(self.cells.len() + self.cols, cell);
                let used = if cell == Cell::blank(0) { 0 } else { self.cols as u16 };
                self.meta.push(RowMeta::fresh(self.cols, used));
                id
            }
        }
    }

    /// The id of the row the slab is about to take on (its rows are `meta.len()`), with room
    /// reserved for it and its empty style list pushed; its cells and `meta` are the caller's
    /// to push.
    #[inline]
    fn start_new_row(&mut self) -> u32 {
        if self.meta.len() == self.meta.capacity() {
            // Grow geometrically, but never past what the screen plus a full history needs:
            // the slab's capacity is exactly its cap once history is full.
            let cap = self.rows + self.history_cap + 1;
            let want = (self.meta.len() * 2).max(64).min(cap).max(self.meta.len() + 1);
            self.meta.reserve_exact(want - self.meta.len());
            self.cells.reserve_exact(want * self.cols - self.cells.len());
        }
        self.styles.push(Vec::new());
        self.meta.len() as u32
    }

    /// Empties row `id`'s style list (a new epoch when it had entries: ids change meaning).
    #[inline(always)]
    fn clear_styles(&mut self, id: u32) {
        let list = &mut self.styles[id as usize];
        if !list.is_empty() {
            list.clear();
            self.style_epoch += 1;
        }
    }

    #[inline(always)]
    fn reset_row(&mut self, id: u32, blank: &Style) {
        if blank.is_default() {
            return self.reset_row_default(id);
        }
        self.clear_styles(id);
        let list = &mut self.styles[id as usize];
        let start = id as usize * self.cols;
        let style = blank.pack().unwrap_or_else(|| {
            list.push(*blank);
            1
        });
        self.cells[start..start + self.cols].fill(Cell::blank(style));
        self.meta[id as usize] = RowMeta::fresh(self.cols, self.cols as u16);
    }

    #[inline]
    pub(crate) fn visible_id(&self, y: usize) -> u32 {
        self.lines[self.lines.len() - self.rows + y]
    }

    #[inline]
    pub fn row(&self, y: usize) -> &[Cell] {
        let start = self.visible_id(y) as usize * self.cols;
        &self.cells[start..start + self.cols]
    }

    /// A visible row to modify with its bookkeeping, found with one lookup (the print path).
    #[inline]
    pub fn row_meta_mut(&mut self, y: usize) -> (&mut [Cell], &mut RowMeta) {
        let id = self.visible_id(y) as usize;
        (&mut self.cells[id * self.cols..(id + 1) * self.cols], &mut self.meta[id])
    }

    /// A visible row to modify. The caller must mark what it changed with [`Self::touch`]:
    /// besides damage, that keeps the row's `used` bound (what recycling clears) true.
    #[inline]
    pub fn row_mut(&mut self, y: usize) -> &mut [Cell] {
        let start = self.visible_id(y) as usize * self.cols;
        &mut self.cells[start..start + self.cols]
    }

    #[inline]
    pub fn meta(&self, y: usize) -> RowMeta {
        self.meta[self.visible_id(y) as usize]
    }

    #[inline]
    pub fn set_wrapped(&mut self, y: usize, wrapped: bool) {
        let id = self.visible_id(y) as usize;
        self.meta[id].wrapped = wrapped;
        if !wrapped {
            self.meta[id].set_pad_end(false);
        }
    }

    /// Sets visible row `y`'s size (DECSWL, DECDWL, DECDHL); the row is redrawn whole.
    #[inline]
    pub fn set_size(&mut self, y: usize, size: LineSize) {
        let id = self.visible_id(y) as usize;
        if self.meta[id].size() != size {
            self.meta[id].set_line_size(size);
            self.meta[id].dirty = (0, self.cols as u16);
        }
    }

    /// Marks visible row `y` as ending in the pad blank a wide character left when it wrapped.
    #[inline]
    pub fn set_pad_end(&mut self, y: usize) {
        let id = self.visible_id(y) as usize;
        self.meta[id].set_pad_end(true);
    }

    /// Marks columns `[start, end)` of visible row `y` as changed.
    #[inline]
    pub fn touch(&mut self, y: usize, start: usize, end: usize) {
        let id = self.visible_id(y) as usize;
        self.meta[id].touch(start, end);
    }

    /// A history row, 0 being the oldest.
    pub fn history_row(&self, i: usize) -> &[Cell] {
        let start = self.lines[i] as usize * self.cols;
        &self.cells[start..start + self.cols]
    }

    /// Line `i` of history and visible rows together (0 the oldest), with its styles.
    pub fn line_ref(&self, i: usize) -> Line<'_> {
        let id = self.lines[i] as usize;
        Line { cells: &self.cells[id * self.cols..(id + 1) * self.cols], styles: &self.styles[id] }
    }

    /// Visible row `y` with its styles.
    pub fn row_ref(&self, y: usize) -> Line<'_> {
        self.line_ref(self.lines.len() - self.rows + y)
    }

    pub fn history_wrapped(&self, i: usize) -> bool {
        self.meta[self.lines[i] as usize].wrapped
    }

    /// Line `i`'s size (DECDWL, DECDHL), 0 being the oldest history line.
    pub fn line_size(&self, i: usize) -> LineSize {
        self.meta[self.lines[i] as usize].size()
    }

    /// Line `i` of history and visible rows together, 0 being the oldest history line.
    pub fn line(&self, i: usize) -> &[Cell] {
        let start = self.lines[i] as usize * self.cols;
        &self.cells[start..start + self.cols]
    }

    /// The ring's and the slab's invariants (see `term::integrity`), and each line's `used`
    /// bound and damage.
    pub(crate) fn check_structure(&self) -> Result<(), crate::violation::Violation> {
        use crate::violation::Violation as V;
        if self.lines.len() < self.rows {
            return Err(V::RingLength { lines: self.lines.len(), rows: self.rows });
        }
        if self.history_len() > self.history_cap {
            return Err(V::HistoryOverCap { history: self.history_len(), cap: self.history_cap });
        }
        if self.history_len() as u64 > self.pushed {
            return Err(V::HistoryOverPushed { history: self.history_len(), pushed: self.pushed });
        }
        let allocated = self.meta.len();
        if self.cells.len() != allocated * self.cols || self.styles.len() != allocated {
            return Err(V::SlabSize { cells: self.cells.len(), rows_allocated: allocated, cols: self.cols });
        }
        let mut seen = vec![false; allocated];
        for &id in self.lines.iter().chain(self.free.iter()) {
            match seen.get_mut(id as usize) {
                Some(s) if !*s => *s = true,
                _ => return Err(V::RowIdsNotAPartition { ids: self.lines.len() + self.free.len(), allocated }),
            }
        }
        if self.lines.len() + self.free.len() != allocated {
            return Err(V::RowIdsNotAPartition { ids: self.lines.len() + self.free.len(), allocated });
        }
        if let Some((top, bottom, _)) = self.dirty_run.filter(|&(t, b, _)| self.known_dirty(t, b)) {
            for y in top..=bottom.min(self.rows - 1) {
                let dirty = self.meta[self.visible_id(y) as usize].dirty;
                if dirty != (0, self.cols as u16) {
                    return Err(V::KnownDirtyRowIsNot { y, dirty });
                }
            }
        }
        for (line, &id) in self.lines.iter().enumerate() {
            let meta = self.meta[id as usize];
            let used = meta.used as usize;
            if used > self.cols {
                return Err(V::UsedPastColumns { line, used, cols: self.cols });
            }
            if meta.dirty.0 < meta.dirty.1 && meta.dirty.1 as usize > self.cols {
                return Err(V::DamagePastColumns { line, end: meta.dirty.1 as usize, cols: self.cols });
            }
            if let Some(col) = self.line(line)[used..].iter().position(|&c| c != Cell::blank(0)) {
                return Err(V::NotBlankPastUsed { line, col: used + col });
            }
            let styles = self.styles[id as usize].len();
            if styles > style_list_cap(self.cols) {
                return Err(V::StyleListOverCap { line, len: styles, cap: style_list_cap(self.cols) });
            }
            // A listed id must be in the row's list; a packed one must decode to a style that
            // packs back to it.
            let bad = |id: u32| match list_index(id) {
                Some(i) => i >= styles,
                None => id != 0 && Style::unpack(id).pack() != Some(id),
            };
            if let Some(col) = self.line(line).iter().position(|c| bad(c.style())) {
                let id = self.line(line)[col].style();
                return Err(if id & PACKED != 0 {
                    V::BadPackedStyle { line, col, id }
                } else {
                    V::DeadStyle { line, col, id }
                });
            }
        }
        Ok(())
    }

    /// Cells in history and visible rows (what marking live ids visits).
    pub fn cells_in_use(&self) -> usize {
        self.lines.len() * self.cols
    }

    /// Every cell in use, history and visible (for marking live style ids).
    pub fn for_each_cell(&self, mut f: impl FnMut(Cell)) {
        for &id in &self.lines {
            let start = id as usize * self.cols;
            self.cells[start..start + self.cols].iter().for_each(|&c| f(c));
        }
    }

    pub fn scrolled(&self) -> usize {
        self.scrolled
    }

    pub fn clear_damage(&mut self) {
        self.scrolled = 0;
        self.dirty_run = None;
        for y in 0..self.rows {
            let id = self.visible_id(y) as usize;
            self.meta[id].dirty = (0, 0);
        }
    }

    /// Marks every visible row wholly written (after a change of every cell: `used` widens to
    /// the edge).
    pub fn damage_all(&mut self) {
        self.work += self.rows as u64;
        for y in 0..self.rows {
            self.touch(y, 0, self.cols);
        }
    }

    /// One line of `scroll_up` of rows `top..=bottom`, its damage left to the caller. From a
    /// region at the top with `save` and history kept, the top row goes into history and a new
    /// row (or the oldest history row, cleared) becomes the region's bottom row, as xterm keeps
    /// lines leaving such a region; otherwise the row leaving it is cleared and becomes its
    /// bottom row. Where the ring's front is the region's top (history kept, or none in the
    /// ring) the ring turns as for a scroll of the whole screen, and the rows under the region
    /// go back under it (`lift_bottom_row`); elsewhere the row moves by `remove` and `insert`.
    /// `DEFAULT` says `blank` is the default style, known where the caller knows it, so that
    /// the rows are cleared without asking (`reset_row_default`).
    #[inline(always)]
    fn scroll_up_line<const DEFAULT: bool>(&mut self, top: usize, bottom: usize, blank: &Style, save: bool) {
        self.work += self.line_scroll_work(top, bottom);
        if save && top == 0 && self.history_cap > 0 {
            // [.. h, v0, v1 .. vb, vb+1 ..] -> [.. h, v0 | v1 .. vb, NEW, vb+1 ..]
            self.settle_styles(self.visible_id(0));
            self.pushed += 1;
            let id = if self.history_len() >= self.history_cap {
                let id = self.lines.pop_front().expect("lines hold at least the screen");
                self.reset_line_row::<DEFAULT>(id, blank);
                id
            } else {
                self.fresh_row(blank)
            };
            self.lend_spare_styles(id);
            self.lines.push_back(id);
            self.lift_bottom_row(bottom);
        } else {
            let at = self.lines.len() - self.rows + top;
            let id = if at == 0 {
                self.lines.pop_front().expect("lines hold the screen")
            } else {
                self.lines.remove(at).expect("row inside the screen")
            };
            self.reset_line_row::<DEFAULT>(id, blank);
            if at == 0 {
                self.lines.push_back(id);
                self.lift_bottom_row(bottom);
            } else {
                self.lines.insert(at - top + bottom, id);
            }
        }
    }

    /// `reset_row`, in the default blank without asking when `DEFAULT`.
    #[inline(always)]
    fn reset_line_row<const DEFAULT: bool>(&mut self, id: u32, blank: &Style) {
        if DEFAULT {
            self.reset_row_default(id)
        } else {
            self.reset_row(id, blank)
        }
    }

    /// A region scroll of one line in the default blank (LF at a region's bottom, whole lines
    /// written there: `Screen::print_region_lines`), with its damage: `scroll_up`'s line, its
    /// rows cleared without asking what the blank is. vtebench's scrolling_bottom_region (a
    /// status line under the text: vim's and less's shape) took 890 instructions a line before
    /// this, `dirty_run` and `print_region_lines`, and 325 after; alacritty_terminal was 1.6
    /// times as fast, and is 0.6 times.
    #[inline(never)]
    pub(crate) fn scroll_region_one(&mut self, top: usize, bottom: usize, save: bool) {
        debug_assert!(top <= bottom && (top > 0 || bottom + 1 < self.rows));
        if top == 0 {
            self.anchor = None;
        }
        let were_dirty = self.known_dirty(top, bottom);
        self.scroll_up_line::<true>(top, bottom, &Style::default(), save);
        self.region_moved(top, bottom, were_dirty);
    }

    /// `reset_row` in the default blank, written out: its styles dropped, the cells it used
    /// blanked, a fresh row's bookkeeping.
    #[inline(always)]
    fn reset_row_default(&mut self, id: u32) {
        self.clear_styles(id);
        let start = id as usize * self.cols;
        let meta = &mut self.meta[id as usize];
        let used = (meta.used as usize).min(self.cols);
        let row = &mut self.cells[start..start + used];
        if used <= 8 {
            // Short lines (a word, a number): stores in place rather than a call of memcpy.
            row.fill(Cell::blank(0));
        } else {
            row.copy_from_slice(&BLANK_ROW[..used]);
        }
        *meta = RowMeta::fresh(self.cols, 0);
    }

    /// The bottom visible row, just pushed, moves up to visible row `bottom`, and the rows
    /// under it (a status line under a scrolling region) move down one each: a swap per row
    /// when they are a few, where `VecDeque::insert` cost a region scroll about 50 instructions;
    /// `insert` when they are more (12 swaps cost more than it).
    #[inline(always)]
    fn lift_bottom_row(&mut self, bottom: usize) {
        let last = self.lines.len() - 1;
        let at = last + 1 - self.rows + bottom;
        if last - at <= 2 {
            for i in (at..last).rev() {
                self.lines.swap(i, i + 1);
            }
        } else {
            // More rows under the region: one move of them (`insert`) is cheaper than a swap each.
            let id = self.lines.pop_back().expect("lines hold the screen");
            self.lines.insert(at, id);
        }
    }

    /// Whether visible rows `top..=bottom` are known to be all wholly dirty (`dirty_run`).
    #[inline]
    fn known_dirty(&self, top: usize, bottom: usize) -> bool {
        matches!(self.dirty_run, Some((t, b, pushed)) if t <= top && bottom <= b && pushed == self.pushed)
    }

    /// Rows `top..=bottom` moved among themselves, some of them cleared (fresh rows are wholly
    /// dirty): all of them are marked wholly dirty, unless they were known to be already, and
    /// are then known to be.
    #[inline]
    fn region_moved(&mut self, top: usize, bottom: usize, were_dirty: bool) {
        if !were_dirty {
            self.redraw_rows(top, bottom);
        }
        self.dirty_run = Some((top, bottom, self.pushed));
    }

    /// Marks visible rows `top..=bottom` wholly dirty (rows that moved: what they show changed
    /// though their cells did not). Their `used` bounds stay: `touch` would widen each to the
    /// edge, and recycling those rows would then clear every cell instead of their text.
    fn redraw_rows(&mut self, top: usize, bottom: usize) {
        self.dirty_run = None;
        let base = self.lines.len() - self.rows;
        let cols = self.cols as u16;
        for &id in self.lines.range(base + top..=base + bottom) {
            self.meta[id as usize].dirty = (0, cols);
        }
    }

    /// The steady state of scrolling output, taken without `scroll_up`'s general checks: the
    /// whole screen scrolls up a line into a full history, and the oldest history row becomes
    /// the new bottom row, cleared to default blanks. Returns false, having done nothing, when
    /// the history is not full (or not kept).
    #[inline]
    pub fn scroll_screen_into_full_history(&mut self) -> bool {
        if self.history_cap == 0 || self.history_len() < self.history_cap {
            return false;
        }
        self.anchor = None;
        self.recycle_oldest_as_bottom(&Style::default());
        true
    }

    /// [`Self::scroll_screen_into_full_history`] and then `text` (printable ASCII, at most
    /// `cols` bytes) written in `style` (default or packed: an id that needs no list) from the
    /// new bottom row's first column, in one pass over the recycled row: the text's cells are
    /// written once, where clearing the row first wrote them twice, and only the cells after
    /// the text that the row's old contents used are cleared. The steady state of a flood of
    /// whole lines (`Screen::print_whole_lines`), where it is a line's LF and the next line's
    /// text. While the history fills, the same in one step over a new row of the slab
    /// ([`Self::grow_in_line`]). Returns false, having done nothing, when no history is kept,
    /// or when a row freed earlier would be the new one. The caller counts the work (a row
    /// for the scroll, and the text's cells: [`Self::work`]), once for a run of lines.
    #[inline(always)]
    pub fn scroll_in_line(&mut self, text: &[u8], style: u32) -> bool {
        debug_assert!(text.len() <= self.cols && (style == 0 || style & PACKED != 0));
        if self.history_cap == 0 {
            return false;
        }
        if self.history_len() < self.history_cap {
            return self.grow_in_line(text, style);
        }
        self.anchor = None;
        let id = self.take_oldest();
        self.clear_styles(id);
        let start = id as usize * self.cols;
        let meta = &mut self.meta[id as usize];
        let row = &mut self.cells[start..start + self.cols];
        let n = text.len();
        crate::scan::write_ascii(&mut row[..n], text, style);
        let used = (meta.used as usize).min(row.len());
        if used > n {
            row[n..used].copy_from_slice(&BLANK_ROW[n..used]);
        }
        *meta = RowMeta::fresh(self.cols, n as u16);
        self.put_bottom(id);
        true
    }

    /// [`Self::scroll_in_line`] while the history is not full: the screen's top row stays in
    /// the history, and the new bottom row is a new row of the slab, made with `text` and blanks
    /// after it, as `scroll_up` with a row from [`Self::fresh_row`] and the text written into it
    /// would leave it. A new terminal's first lines of a flood (10,000 of them at the default
    /// history) came the general way, LF by LF: the first 10,100 lines of the plain workload
    /// into a new 80x24 terminal went at 131 MB/s, and go at 140 (medians of 99, three
    /// alternations); most of the rest is the kernel faulting in the slab's pages. False,
    /// having done nothing, when rows freed earlier are waiting to be used again (`fresh_row`
    /// takes those).
    #[inline(never)]
    fn grow_in_line(&mut self, text: &[u8], style: u32) -> bool {
        if !self.free.is_empty() {
            return false;
        }
        self.anchor = None;
        self.settle_styles(self.visible_id(0));
        let id = self.start_new_row();
        let start = self.cells.len();
        let n = text.len();
        self.cells.resize(start + self.cols, Cell::blank(0));
        crate::scan::write_ascii(&mut self.cells[start..start + n], text, style);
        self.meta.push(RowMeta::fresh(self.cols, n as u16));
        self.put_bottom(id);
        true
    }

    /// With history full, the screen's top row goes into history and the oldest history row
    /// becomes the new bottom row, blank in `blank`: the steady state of scrolling output.
    #[inline(always)]
    fn recycle_oldest_as_bottom(&mut self, blank: &Style) {
        // The two halves written out rather than through `take_oldest` and `put_bottom`: the
        // calls changed how this inlines into its callers, and plain text took 2% more
        // instructions (10.01 -> 10.21 a byte; long lines 8.92 -> 9.07).
        self.work += self.cols as u64;
        self.settle_styles(self.visible_id(0));
        let id = self.lines.pop_front().expect("lines hold at least the screen");
        self.reset_row(id, blank);
        self.lend_spare_styles(id);
        self.lines.push_back(id);
        self.scrolled = (self.scrolled + 1).min(self.rows);
        self.pushed += 1;
    }

    /// The first half of a scroll of the whole screen into a full history: the top row's
    /// styles settled as it becomes history, and the oldest history row taken off the ring
    /// (its id returned, its cells as they were).
    #[inline(always)]
    fn take_oldest(&mut self) -> u32 {
        self.settle_styles(self.visible_id(0));
        self.lines.pop_front().expect("lines hold at least the screen")
    }

    /// The second half: row `id`, written, becomes the screen's new bottom row.
    #[inline(always)]
    fn put_bottom(&mut self, id: u32) {
        self.lend_spare_styles(id);
        self.lines.push_back(id);
        self.scrolled = (self.scrolled + 1).min(self.rows);
        self.pushed += 1;
    }

    /// Scrolls rows `top..=bottom` up by `n`, filling with `blank`. With `save` and
    /// `top == 0`, the rows leaving the top become history (xterm saves lines whenever the
    /// top margin is the first row and the left/right margins are the full width).
    pub fn scroll_up(&mut self, top: usize, bottom: usize, n: usize, blank: &Style, save: bool) {
        let full = top == 0 && bottom + 1 == self.rows;
        if top == 0 {
            // The screen's top moves in the text: a resize after this starts afresh.
            self.anchor = None;
        }
        if full && n == 1 && save && self.history_len() >= self.history_cap && self.history_cap > 0 {
            return self.recycle_oldest_as_bottom(blank);
        }
        if n == 1 && !full && blank.is_default() {
            return self.scroll_region_one(top, bottom, save);
        }
        let n = n.min(bottom + 1 - top);
        let were_dirty = !full && self.known_dirty(top, bottom);
        for _ in 0..n {
            self.scroll_up_line::<false>(top, bottom, blank, save);
        }
        if full {
            self.scrolled = (self.scrolled + n).min(self.rows);
            self.dirty_run = None;
        } else {
            self.region_moved(top, bottom, were_dirty);
        }
    }

    /// A row going into history keeps no more entries than it has cells: it is not written
    /// again, so what it does not use is dropped once. A list with room to spare is copied to
    /// one of its exact size, and the roomy one is kept (`spare_styles`) for the next row to be
    /// written, so that rows filling with styles (colour-dense output) do not grow their lists
    /// again and again, and history holds no spare room.
    #[inline(always)]
    fn settle_styles(&mut self, id: u32) {
        let list = &self.styles[id as usize];
        // Rows of default-style text have no list at all: one test.
        if list.capacity() != 0
            && (list.len() > self.cols || list.capacity() >= list.len() + SPARE_STYLES_WORTH_KEEPING)
        {
            self.settle_styles_cold(id);
        }
    }

    #[cold]
    fn settle_styles_cold(&mut self, id: u32) {
        self.work += self.styles[id as usize].len() as u64 * STYLE_WORK;
        if self.styles[id as usize].len() > self.cols {
            self.compact_styles(id);
        }
        let list = &mut self.styles[id as usize];
        let exact = list.as_slice().to_vec();
        let mut roomy = std::mem::replace(list, exact);
        roomy.clear();
        if roomy.capacity() > self.spare_styles.capacity() {
            self.spare_styles = roomy;
        }
    }

    /// Gives row `id` (just cleared, about to be written) the kept roomy list when its own
    /// has less room; the entries it has (a coloured blank's style) move with it.
    #[inline(always)]
    fn lend_spare_styles(&mut self, id: u32) {
        let list = &mut self.styles[id as usize];
        if self.spare_styles.capacity() > list.capacity() {
            self.spare_styles.extend_from_slice(list);
            std::mem::swap(list, &mut self.spare_styles);
            self.spare_styles.clear();
        }
    }

    /// Scrolls rows `top..=bottom` down by `n`, filling the top with `blank`.
    pub fn scroll_down(&mut self, top: usize, bottom: usize, n: usize, blank: &Style) {
        let n = n.min(bottom + 1 - top);
        let were_dirty = self.known_dirty(top, bottom);
        self.work += n as u64 * self.line_scroll_work(top, bottom);
        for _ in 0..n {
            let base = self.lines.len() - self.rows;
            let id = self.lines.remove(base + bottom).expect("row inside the screen");
            self.reset_row(id, blank);
            self.lines.insert(base + top, id);
        }
        self.region_moved(top, bottom, were_dirty);
    }

    /// A wide character cut by the margins `left..=right` of row `y` cannot move half-way:
    /// both its halves become blanks, before cells inside the margins are shifted.
    pub fn split_wide_at_margins(&mut self, y: usize, left: usize, right: usize) {
        let cols = self.cols;
        let row = self.row_mut(y);
        let mut cut = None;
        if left > 0 && row[left].is_spacer() {
            row[left - 1] = Cell::blank(row[left - 1].style());
            row[left] = Cell::blank(row[left].style());
            cut = Some((left - 1, left + 1));
        }
        if right + 1 < cols && row[right].is_wide() {
            row[right] = Cell::blank(row[right].style());
            row[right + 1] = Cell::blank(row[right + 1].style());
            cut = Some((cut.map_or(right, |c| c.0), right + 2));
        }
        if let Some((s, e)) = cut {
            self.touch(y, s, e);
        }
    }

    /// Scrolls the rectangle `r` up (`up`) or down by `n` by moving cells: the path for
    /// scrolls inside left/right margins (DECSLRM). Each row is written once, from the row `n`
    /// below (above) it, in the order that reads every source row before it is written.
    pub fn scroll_rect(&mut self, r: Region, up: bool, n: usize, blank: &Style) {
        let Region { top, bottom, left, right } = r;
        let h = bottom + 1 - top;
        let n = n.min(h);
        let w = right + 1 - left;
        for y in top..=bottom {
            self.split_wide_at_margins(y, left, right);
        }
        for i in 0..h {
            let y = if up { top + i } else { bottom - i };
            if i + n < h {
                let src = if up { y + n } else { y - n };
                self.copy_span(src, left, y, left, w, |_| {});
            } else {
                let blank = self.blank_at(y, blank);
                self.row_mut(y)[left..=right].fill(blank);
                self.work += w as u64;
            }
            self.touch(y, left, right + 1);
        }
    }

    /// Copies cells `from..from + n` of visible row `sy` to columns `to..to + n` of visible row
    /// `dy`, after `edit` has changed the copy (its style ids are still the source row's); a
    /// wide character the destination span half covers loses its other half. The source is
    /// read whole before anything is written, so the spans may overlap in one row. Returns the
    /// columns changed, for the caller to mark (`touch`).
    ///
    /// Styles are not looked up cell by cell: a span of default and packed styles is copied as
    /// it is; otherwise each listed style moves once, through a map of a list. A span of at
    /// most half the row takes its styles into the destination's list; a wider one gives the
    /// destination the source's list and takes the styles of the cells outside it (at most
    /// half the row) into that. A copy of a span is a copy of its cells and of at most a list.
    pub(crate) fn copy_span(
        &mut self,
        sy: usize,
        from: usize,
        dy: usize,
        to: usize,
        n: usize,
        edit: impl FnOnce(&mut [Cell]),
    ) -> (usize, usize) {
        let cols = self.cols;
        // A cell copied touches two: the one read and the one written.
        self.work += 2 * n as u64;
        let (sid, did) = (self.visible_id(sy) as usize, self.visible_id(dy) as usize);
        let (src, dst) = (sid * cols + from..sid * cols + from + n, did * cols + to..did * cols + to + n);
        if sid == did {
            // In one row the ids are the row's own; the span goes through a buffer, as the
            // destination's edges may be inside the source.
            let mut span = std::mem::take(&mut self.scratch);
            span.clear();
            span.extend_from_slice(&self.cells[src]);
            edit(&mut span);
            let changed = crate::cell::split_wide_cells(&mut self.cells[did * cols..(did + 1) * cols], to, to + n);
            self.cells[dst].copy_from_slice(&span);
            self.scratch = span;
            return changed;
        }
        let changed = crate::cell::split_wide_cells(&mut self.cells[did * cols..(did + 1) * cols], to, to + n);
        if !self.cells[src.clone()].iter().any(|c| list_index(c.style()).is_some()) {
            self.cells.copy_within(src, to + did * cols);
            edit(&mut self.cells[dst]);
            return changed;
        }
        if 2 * n >= cols {
            self.take_list(sid, did, to, n);
            self.cells.copy_within(src, to + did * cols);
            edit(&mut self.cells[dst]);
            return changed;
        }
        // The cells under the span go first, so that room made in the list drops what only
        // they used; with room for `n` more entries the list is not compacted below, which
        // would renumber what the map holds.
        self.cells[dst.clone()].fill(Cell::blank(0));
        if self.styles[did].len() + n > style_list_cap(cols) {
            self.compact_styles(did as u32);
        }
        self.cells.copy_within(src, to + did * cols);
        edit(&mut self.cells[dst.clone()]);
        let mut map = std::mem::take(&mut self.style_map);
        map.clear();
        map.resize(self.styles[sid].len(), u32::MAX);
        for x in dst {
            let Some(i) = list_index(self.cells[x].style()) else { continue };
            let id = match map.get(i) {
                Some(&u32::MAX) => {
                    let style = self.styles[sid][i];
                    let id = self.push_style(did as u32, &style);
                    map[i] = id;
                    id
                }
                Some(&id) => id,
                // (An id past its row's list, which the integrity checks rule out.)
                None => 0,
            };
            self.cells[x].set_style(id);
        }
        self.style_map = map;
        changed
    }

    /// Row `did`'s list becomes a copy of row `sid`'s, so that cells copied from `sid` keep
    /// their ids, and the styles of `did`'s cells outside columns `to..to + n` are taken into
    /// it, each once. (`copy_span` for a span of more than half the row.)
    fn take_list(&mut self, sid: usize, did: usize, to: usize, n: usize) {
        let cols = self.cols;
        if self.styles[sid].len() + (cols - n) > style_list_cap(cols) {
            self.compact_styles(sid as u32);
        }
        let mut list = std::mem::take(&mut self.scratch_styles);
        list.clear();
        list.extend_from_slice(&self.styles[sid]);
        self.work += list.len() as u64 * STYLE_WORK + (cols - n) as u64;
        let mut old = std::mem::replace(&mut self.styles[did], list);
        let mut map = std::mem::take(&mut self.style_map);
        map.clear();
        map.resize(old.len(), u32::MAX);
        let base = did * cols;
        for x in (0..to).chain(to + n..cols) {
            let Some(i) = list_index(self.cells[base + x].style()) else { continue };
            let id = match map.get(i) {
                Some(&u32::MAX) => {
                    let id = self.push_style(did as u32, &old[i]);
                    map[i] = id;
                    id
                }
                Some(&id) => id,
                None => 0,
            };
            self.cells[base + x].set_style(id);
        }
        self.style_map = map;
        old.clear();
        self.scratch_styles = old;
        self.style_epoch += 1;
    }

    /// Gives each cell of columns `start..end` of visible row `y` the style `f` makes of its
    /// own, and with `fill` that cell's content. `fixed` maps a default or packed id straight to
    /// the new id when it can (None: through `f`). Each distinct listed style is changed and
    /// interned once, and a run of cells of one style costs a comparison a cell: DECFRA, DECCARA
    /// and DECRARA over the whole screen cost a pass over its cells. The caller marks what
    /// changed (`touch`).
    pub(crate) fn restyle(
        &mut self,
        y: usize,
        start: usize,
        end: usize,
        fill: Option<Cell>,
        fixed: &mut impl FnMut(u32) -> Option<u32>,
        f: &impl Fn(Style) -> Style,
    ) {
        let cols = self.cols;
        let id = self.visible_id(y);
        self.work += (end - start) as u64;
        // Room for one new entry a cell, so that interning below never compacts the list
        // (which would renumber the cells not yet visited).
        if self.styles[id as usize].len() + (end - start) > style_list_cap(cols) {
            self.compact_styles(id);
        }
        let mut map = std::mem::take(&mut self.style_map);
        map.clear();
        map.resize(self.styles[id as usize].len(), u32::MAX);
        if start == 0 && end == cols {
            // Every cell of the row: each entry of its list is changed in place, and the cells
            // keep their ids (but those whose style became a fixed one).
            self.work += self.styles[id as usize].len() as u64 * STYLE_WORK;
            for (i, style) in self.styles[id as usize].iter_mut().enumerate() {
                let new = f(*style);
                map[i] = match new.fixed_id() {
                    Some(fixed) => fixed,
                    None => {
                        *style = new;
                        i as u32 + 1
                    }
                };
            }
            self.style_epoch += 1;
        }
        let base = id as usize * cols;
        let mut x = start;
        while x < end {
            let old = self.cells[base + x].style();
            let new = match list_index(old) {
                Some(i) => match map.get(i) {
                    Some(&u32::MAX) => {
                        let style = f(self.styles[id as usize][i]);
                        let new = self.push_style(id, &style);
                        map[i] = new;
                        new
                    }
                    Some(&new) => new,
                    None => 0,
                },
                None => match fixed(old) {
                    Some(new) => new,
                    None => {
                        let style = if old == 0 { Style::default() } else { Style::unpack(old) };
                        self.push_style(id, &f(style))
                    }
                },
            };
            // The run of cells of this style, in one tight loop.
            let run = &mut self.cells[base + x..base + end];
            let n = run.iter().position(|c| c.style() != old).unwrap_or(run.len());
            match fill {
                Some(c) => run[..n].fill(c.with_style(new)),
                None => run[..n].iter_mut().for_each(|c| c.set_style(new)),
            }
            x += n;
        }
        self.style_map = map;
    }

    /// Clears every visible row to `blank`.
    pub fn clear_rows(&mut self, top: usize, bottom: usize, blank: &Style) {
        self.work += ((bottom + 1 - top) * self.cols) as u64;
        for y in top..=bottom {
            let id = self.visible_id(y);
            self.reset_row(id, blank);
        }
    }

    /// Drops all history (ED 3).
    pub fn clear_history(&mut self) {
        self.anchor = None;
        self.work += self.history_len() as u64;
        while self.history_len() > 0 {
            let id = self.lines.pop_front().expect("history is not empty");
            self.free.push(id);
        }
    }

    /// Moves the top visible row into history (used when the screen loses rows on resize).
    fn push_top_into_history(&mut self) {
        if self.history_len() >= self.history_cap {
            let id = self.lines.pop_front().expect("lines hold at least the screen");
            self.free.push(id);
        }
        self.rows -= 1;
    }

    /// Resizes to `cols` x `rows`. Rows are truncated or padded with blanks (no reflow).
    /// Losing rows first drops blank rows below `cursor_y`, then pushes top rows into history;
    /// gaining rows pulls lines back from history first (as alacritty and xterm do). Returns
    /// the cursor row after the change.
    pub fn resize(&mut self, cols: usize, rows: usize, cursor_y: usize) -> usize {
        self.dirty_run = None;
        let mut cursor_y = cursor_y;
        if cols != self.cols {
            // At the new width the scrollback may hold fewer lines (MAX_HISTORY_CELLS): the
            // oldest go first.
            self.history_cap = history_cap(self.scrollback, cols);
            while self.history_len() > self.history_cap {
                let id = self.lines.pop_front().expect("history is not empty");
                self.free.push(id);
            }
            let old = self.cols;
            let mut cells = Vec::with_capacity(self.lines.len() * cols);
            let mut meta = Vec::with_capacity(self.lines.len());
            let mut styles = Vec::with_capacity(self.lines.len());
            for (new_id, id) in self.lines.iter_mut().enumerate() {
                let start = *id as usize * old;
                let row = &self.cells[start..start + old];
                let keep = old.min(cols);
                let mut kept = &row[..keep];
                // A wide character cut in half loses both halves.
                let cut_wide = keep < old && keep > 0 && row[keep - 1].is_wide();
                if cut_wide {
                    kept = &row[..keep - 1];
                }
                cells.extend_from_slice(kept);
                cells.resize((new_id + 1) * cols, Cell::blank(0));
                let mut m = self.meta[*id as usize];
                m.dirty = (0, cols as u16);
                m.used = cols as u16;
                meta.push(m);
                styles.push(std::mem::take(&mut self.styles[*id as usize]));
                *id = new_id as u32;
            }
            self.cells = cells;
            self.meta = meta;
            self.styles = styles;
            self.style_epoch += 1;
            self.free.clear();
            self.cols = cols;
            // A narrower row may keep fewer entries than its list has.
            for id in 0..self.lines.len() as u32 {
                if self.styles[id as usize].len() > style_list_cap(cols) {
                    self.compact_styles(id);
                }
            }
        }
        while self.rows > rows {
            let bottom = self.rows - 1;
            if bottom > cursor_y && self.row(bottom).iter().all(|c| c.is_blank() && c.style() == 0) {
                let id = self.lines.pop_back().expect("visible row");
                self.free.push(id);
                self.rows -= 1;
            } else {
                self.push_top_into_history();
                cursor_y = cursor_y.saturating_sub(1);
            }
        }
        while self.rows < rows {
            if self.history_len() > 0 {
                self.rows += 1;
                cursor_y += 1;
            } else {
                let id = self.fresh_row(&Style::default());
                self.lines.push_back(id);
                self.rows += 1;
            }
        }
        self.scrolled = 0;
        self.damage_all();
        cursor_y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(g: &mut Grid, y: usize, s: &str) {
        for (x, b) in s.bytes().enumerate() {
            g.row_mut(y)[x] = Cell::ascii(b, 0);
        }
        g.touch(y, 0, s.len());
    }

    fn text(g: &Grid, y: usize) -> String {
        g.row(y).iter().map(|c| c.char_value().unwrap_or('?')).collect::<String>().trim_end().to_string()
    }

    fn hist(g: &Grid) -> Vec<String> {
        (0..g.history_len())
            .map(|i| g.history_row(i).iter().filter_map(|c| c.char_value()).collect::<String>().trim_end().to_string())
            .collect()
    }

    #[test]
    fn the_integrity_check_knows_packed_listed_and_bad_style_ids() {
        use crate::style::{Attrs, Color};
        use crate::violation::Violation;
        let mut g = Grid::new(4, 1, 0);
        let red = Style { fg: Color::Indexed(1), attrs: Attrs(Attrs::BOLD), ..Style::default() };
        let rgb = Style { fg: Color::Rgb(1, 2, 3), ..Style::default() };
        let (packed, listed) = (g.intern(0, &red), g.intern(0, &rgb));
        assert_eq!((packed & PACKED != 0, listed), (true, 1));
        g.row_mut(0)[0] = Cell::ascii(b'a', packed);
        g.row_mut(0)[1] = Cell::ascii(b'b', listed);
        g.touch(0, 0, 2);
        assert_eq!(g.check_structure(), Ok(()));
        // A packed id whose foreground code is past the palette's 256 entries.
        g.row_mut(0)[2] = Cell::ascii(b'c', PACKED | 300);
        g.touch(0, 2, 3);
        assert_eq!(g.check_structure(), Err(Violation::BadPackedStyle { line: 0, col: 2, id: PACKED | 300 }));
        // A listed id past the row's list.
        g.row_mut(0)[2] = Cell::ascii(b'c', 2);
        assert_eq!(g.check_structure(), Err(Violation::DeadStyle { line: 0, col: 2, id: 2 }));
    }

    #[test]
    fn full_scroll_moves_the_top_row_into_history_without_copying() {
        // before: history [], screen [a b c]; after one scroll: history [a], screen [b c _]
        let mut g = Grid::new(4, 3, 2);
        for (y, s) in ["a", "b", "c"].iter().enumerate() {
            put(&mut g, y, s);
        }
        let slab = g.cells.len();
        g.scroll_up(0, 2, 1, &Style::default(), true);
        assert_eq!(hist(&g), ["a"]);
        assert_eq!([text(&g, 0), text(&g, 1), text(&g, 2)], ["b", "c", ""]);
        assert_eq!(g.scrolled(), 1);
        // Two more: history is capped at 2, the oldest row id is recycled, nothing allocated.
        put(&mut g, 2, "d");
        g.scroll_up(0, 2, 1, &Style::default(), true);
        put(&mut g, 2, "e");
        g.scroll_up(0, 2, 1, &Style::default(), true);
        assert_eq!(hist(&g), ["b", "c"]);
        assert_eq!([text(&g, 0), text(&g, 1), text(&g, 2)], ["d", "e", ""]);
        assert_eq!(g.cells.len(), slab + 2 * 4, "slab grows only until history is full");
        g.scroll_up(0, 2, 1, &Style::default(), true);
        assert_eq!(g.cells.len(), slab + 2 * 4);
    }

    #[test]
    fn a_region_scroll_moves_only_the_rows_inside() {
        // screen [a b c d], region rows 1..=2 up by 1 -> [a c _ d], no history
        let mut g = Grid::new(2, 4, 10);
        for (y, s) in ["a", "b", "c", "d"].iter().enumerate() {
            put(&mut g, y, s);
        }
        g.scroll_up(1, 2, 1, &Style::default(), true);
        assert_eq!((0..4).map(|y| text(&g, y)).collect::<Vec<_>>(), ["a", "c", "", "d"]);
        assert_eq!(g.history_len(), 0);
        g.scroll_down(0, 3, 1, &Style::default());
        assert_eq!((0..4).map(|y| text(&g, y)).collect::<Vec<_>>(), ["", "a", "c", ""]);
    }

    #[test]
    fn a_region_at_the_top_saves_its_rows_like_xterm() {
        // screen [a b c d], region rows 0..=1 up by 1 -> history [a], screen [b _ c d]
        let mut g = Grid::new(2, 4, 10);
        for (y, s) in ["a", "b", "c", "d"].iter().enumerate() {
            put(&mut g, y, s);
        }
        g.scroll_up(0, 1, 1, &Style::default(), true);
        assert_eq!(hist(&g), ["a"]);
        assert_eq!((0..4).map(|y| text(&g, y)).collect::<Vec<_>>(), ["b", "", "c", "d"]);
        // Lines are numbered by the count of those pushed, the history's cap reached or not.
        assert_eq!(g.pushed(), 1);
        let mut g = Grid::new(2, 4, 1);
        for k in 1..=3 {
            put(&mut g, 0, &k.to_string());
            g.scroll_up(0, 2, 1, &Style::default(), true);
            assert_eq!((hist(&g), g.pushed()), (vec![k.to_string()], k as u64));
        }
        assert_eq!(g.check_structure(), Ok(()));
    }

    /// A region at the top scrolled without keeping its row (DL at the first row, the
    /// alternate screen) drops the visible top row, never a history row, and keeps the rows
    /// under it in place, whatever the history holds.
    #[test]
    fn a_region_at_the_top_scrolled_without_saving_leaves_history_alone() {
        for (scrollback, pushed) in [(0, 0), (10, 0), (10, 2)] {
            let mut g = Grid::new(2, 4, scrollback);
            for _ in 0..pushed {
                g.scroll_up(0, 3, 1, &Style::default(), true);
            }
            let before = hist(&g);
            for (y, s) in ["a", "b", "c", "d"].iter().enumerate() {
                put(&mut g, y, s);
            }
            g.scroll_up(0, 1, 1, &Style::default(), false);
            assert_eq!(hist(&g), before, "scrollback {scrollback}, {pushed} lines in history");
            assert_eq!((0..4).map(|y| text(&g, y)).collect::<Vec<_>>(), ["b", "", "c", "d"]);
            g.scroll_up(0, 2, 1, &Style::default(), false);
            assert_eq!((0..4).map(|y| text(&g, y)).collect::<Vec<_>>(), ["", "c", "", "d"]);
            assert_eq!(g.check_structure(), Ok(()));
        }
    }

    /// Rows a region scroll moves are wholly dirty (what they show changed), and each keeps the
    /// `used` bound of its text: recycling one later clears its text, not the whole row.
    #[test]
    fn a_region_scroll_damages_the_rows_it_moves_and_keeps_their_used_bounds() {
        let mut g = Grid::new(8, 4, 10);
        for (y, s) in ["a", "bb", "ccc", "dddd"].iter().enumerate() {
            put(&mut g, y, s);
        }
        g.clear_damage();
        g.scroll_down(1, 3, 1, &Style::default());
        assert_eq!((0..4).map(|y| text(&g, y)).collect::<Vec<_>>(), ["a", "", "bb", "ccc"]);
        assert_eq!((0..4).map(|y| g.meta(y).dirty).collect::<Vec<_>>(), [(0, 0), (0, 8), (0, 8), (0, 8)]);
        assert_eq!((0..4).map(|y| g.meta(y).used).collect::<Vec<_>>(), [1, 0, 2, 3]);
        g.clear_damage();
        g.scroll_up(0, 2, 1, &Style::default(), false);
        assert_eq!((0..4).map(|y| text(&g, y)).collect::<Vec<_>>(), ["", "bb", "", "ccc"]);
        assert_eq!((0..4).map(|y| g.meta(y).dirty).collect::<Vec<_>>(), [(0, 8), (0, 8), (0, 8), (0, 0)]);
        assert_eq!((0..4).map(|y| g.meta(y).used).collect::<Vec<_>>(), [0, 2, 0, 3]);
        assert_eq!(g.check_structure(), Ok(()));
    }

    #[test]
    fn damage_travels_with_rows_on_a_full_scroll() {
        let mut g = Grid::new(4, 3, 10);
        g.clear_damage();
        g.touch(2, 1, 2);
        g.scroll_up(0, 2, 1, &Style::default(), true);
        assert_eq!(g.meta(1).dirty, (1, 2), "row 2's damage is now on row 1");
        assert_eq!(g.meta(2).dirty, (0, 4), "the new row is dirty");
        assert_eq!(g.meta(0).dirty.0, g.meta(0).dirty.1, "row 0 is clean");
    }

    #[test]
    fn resize_keeps_text_and_moves_rows_through_history() {
        let mut g = Grid::new(4, 3, 10);
        for (y, s) in ["abcd", "ef", "gh"].iter().enumerate() {
            put(&mut g, y, s);
        }
        let cy = g.resize(2, 2, 2);
        assert_eq!(cy, 1);
        assert_eq!(hist(&g), ["ab"]);
        assert_eq!([text(&g, 0), text(&g, 1)], ["ef", "gh"]);
        let cy = g.resize(3, 3, cy);
        assert_eq!(cy, 2);
        assert_eq!([text(&g, 0), text(&g, 1), text(&g, 2)], ["ab", "ef", "gh"]);
    }
}
