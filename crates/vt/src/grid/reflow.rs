//! Resizing the main screen with reflow: soft-wrapped lines rejoin and rewrap at the new width,
//! in the scrollback and on the screen, and the cursor stays on its character (tmux, alacritty,
//! kitty, foot and ghostty do the same; the alternate screen is truncated instead, as theirs).
//!
//! The text is a list of logical lines (rows joined where an automatic wrap continued them).
//! A resize rewraps every logical line at the new width, then decides which rows are on the
//! screen:
//! - rows below both the cursor and the last non-blank row are free space, not text: they are
//!   dropped before and padded after, so narrowing a half-empty screen uses that space before
//!   it pushes anything into the scrollback;
//! - the screen's top row stays where it was in the text (a cleared screen stays clear), unless
//!   the text from there down no longer fits, when the top rows go into the scrollback; a screen
//!   that was full to its last row is anchored at the bottom instead, pulling lines back from
//!   the scrollback as it gets room (alacritty, xterm);
//! - the top of the screen before the first of a run of resizes is remembered until output
//!   scrolls, so narrowing and widening again (or shrinking and growing) gives back the same
//!   screen, not only the same text; a screen that was full to its last row then stays
//!   anchored at the bottom through the run instead (narrowed, then made taller than it was,
//!   it pulls lines back from the scrollback as a screen grown at once does).

use super::{Grid, RowMeta};
use crate::cell::Cell;
use crate::style::{list_index, Style};

/// The cursor, in visible coordinates, with xterm's pending wrap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At {
    pub x: usize,
    pub y: usize,
    pub pending: bool,
}

/// What a run of resizes keeps the screen to (see the module's comment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// The screen's top stays at this place in the text.
    Top(TextPos),
    /// The screen was full to its last row: its last row stays the text's last row (a screen
    /// that grows pulls lines back from the scrollback, as alacritty, xterm and tmux do).
    Bottom,
}

/// A place in the text: a logical line (counted from the oldest line kept) and a cell offset in
/// it. Unlike a row, it means the same thing at every width.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TextPos {
    line: usize,
    offset: usize,
}

/// The cells of one logical line, read from its rows: the blank a wide character left at the
/// end of a row it did not fit is dropped, and so are the default blanks at the end, but for
/// the first `keep` cells (blanks before the cursor are text). The rows' style lists are
/// joined into `styles`, and the cells' ids renumbered into it.
fn logical_cells(grid: &Grid, rows: std::ops::Range<usize>, keep: usize, out: &mut Vec<Cell>, styles: &mut Vec<Style>) {
    out.clear();
    styles.clear();
    for i in rows {
        let base = styles.len() as u32;
        styles.extend_from_slice(&grid.styles[grid.lines[i] as usize]);
        let cells = &grid.line(i)[..row_width(grid, i)];
        out.extend(
            cells.iter().map(|&c| if list_index(c.style()).is_none() { c } else { c.with_style(c.style() + base) }),
        );
    }
    let text = out.iter().rposition(|&c| c != Cell::blank(0)).map_or(0, |i| i + 1);
    out.truncate(text.max(keep).min(out.len()));
    out.resize(out.len().max(keep), Cell::blank(0));
}

/// Cells of line `i` that belong to its logical line's text: all but the pad blank a wide
/// character left at the end of a wrapped row (unless something was written over it since);
/// of a double-size row that wrapped, the half it shows (text wrapped from its last shown
/// column; the cells after it are not shown).
fn row_width(grid: &Grid, i: usize) -> usize {
    let meta = grid.meta[grid.lines[i] as usize];
    if meta.wrapped && meta.size() != super::LineSize::Single {
        return meta.size().shown_cols(grid.cols);
    }
    let pad = meta.wrapped && meta.pad_end() && grid.line(i).last().is_some_and(|c| c.is_blank());
    grid.cols - usize::from(pad)
}

/// The rows being built at the new width.
struct Builder {
    cols: usize,
    cells: Vec<Cell>,
    meta: Vec<RowMeta>,
    styles: Vec<Vec<Style>>,
    col: usize,
    /// For each entry of the logical line's styles: the row (plus one) it was last added to,
    /// and its id there.
    remap: Vec<(u32, u32)>,
}

impl Builder {
    fn new_row(&mut self) {
        self.cells.resize(self.cells.len() + self.cols, Cell::blank(0));
        self.meta.push(RowMeta::fresh(self.cols, 0));
        self.styles.push(Vec::new());
        self.col = 0;
    }

    /// The cell with its id (into the logical line's `styles`) renumbered into the current row's
    /// list.
    fn restyle(&mut self, cell: Cell, styles: &[Style]) -> Cell {
        let Some(i) = list_index(cell.style()) else {
            return cell;
        };
        let k = i + 1;
        let row = self.meta.len() as u32;
        let (at, id) = self.remap[k - 1];
        if at == row {
            return cell.with_style(id);
        }
        let list = self.styles.last_mut().expect("a row");
        list.push(styles[k - 1]);
        let id = list.len() as u32;
        self.remap[k - 1] = (row, id);
        cell.with_style(id)
    }

    fn rows(&self) -> usize {
        self.meta.len()
    }

    /// Ends the current row as continuing on the next one.
    fn wrap(&mut self) {
        self.meta.last_mut().expect("a row").wrapped = true;
        self.new_row();
    }

    fn put(&mut self, cell: Cell) {
        let r = self.rows() - 1;
        self.cells[r * self.cols + self.col] = cell;
        self.col += 1;
        let m = &mut self.meta[r];
        m.used = m.used.max(self.col as u16);
    }

    /// Lays out one logical line, returning the (row, column) of each offset asked for in
    /// `find` (in the order given, offsets inside the line).
    fn line(&mut self, cells: &[Cell], styles: &[Style], find: &[usize], found: &mut Vec<(usize, usize)>) {
        self.new_row();
        self.remap.clear();
        self.remap.resize(styles.len(), (0, 0));
        let mut places = vec![(usize::MAX, 0); find.len()];
        let mut i = 0;
        while i < cells.len() {
            let cell = cells[i];
            let wide = cell.is_wide() && cells.get(i + 1).is_some_and(|c| c.is_spacer());
            // A spacer without its character (never made by the engine) reads as a blank.
            let cell = if cell.is_spacer() || (cell.is_wide() && !wide) { Cell::blank(cell.style()) } else { cell };
            let width = if wide { 2 } else { 1 };
            if self.col + width > self.cols {
                if width == 2 && self.cols >= 2 && self.col < self.cols {
                    // The wide character goes whole onto the next row, leaving a pad blank.
                    self.put(Cell::blank(0));
                    self.meta.last_mut().expect("a row").set_pad_end(true);
                }
                self.wrap();
            }
            let r = self.rows() - 1;
            for (k, &o) in find.iter().enumerate() {
                if o == i || (wide && o == i + 1) {
                    places[k] = (r, (self.col + o - i).min(self.cols - 1));
                }
            }
            if wide && self.cols >= 2 {
                let (a, b) = (self.restyle(cell, styles), self.restyle(cells[i + 1], styles));
                self.put(a);
                self.put(b);
            } else {
                let c = self.restyle(if wide { Cell::blank(cell.style()) } else { cell }, styles);
                self.put(c);
            }
            i += width;
        }
        let last = self.rows() - 1;
        found.extend(places.into_iter().map(|p| if p.0 == usize::MAX { (last, 0) } else { p }));
    }
}

impl Grid {
    /// The last line index (into `lines`) that is text: the cursor's row or the last visible
    /// row that is not all default blanks, whichever is lower.
    fn text_end(&self, cursor_y: usize) -> usize {
        let base = self.history_len();
        let last = (cursor_y + 1..self.rows).rev().find(|&y| self.row(y).iter().any(|&c| c != Cell::blank(0)));
        base + last.unwrap_or(cursor_y)
    }

    /// The text position of column `x` of line `i` (an index into `lines`).
    fn text_pos(&self, i: usize, x: usize) -> TextPos {
        let mut line = 0;
        let mut start = 0;
        for j in 0..i {
            if self.meta[self.lines[j] as usize].wrapped {
                start += row_width(self, j);
            } else {
                line += 1;
                start = 0;
            }
        }
        TextPos { line, offset: start + x }
    }

    /// Resizes the main screen to `cols` x `rows`, reflowing its text (see the module's
    /// comment). Returns where the cursor `at` is afterwards.
    pub fn reflow(&mut self, cols: usize, rows: usize, at: At) -> At {
        let at = At { y: at.y.min(self.rows - 1), x: at.x.min(self.cols - 1), ..at };
        let end = self.text_end(at.y);
        let cursor_line = self.history_len() + at.y;
        let mut cursor = self.text_pos(cursor_line, at.x + at.pending as usize);
        let mut at = at;
        if let Some((left_at, pos, pending)) = self.lost_cursor.take() {
            // The cursor has not moved since a resize put it off its character: use that place.
            if left_at == at && self.anchor.is_some() {
                cursor = pos;
                at.pending = pending;
            }
        }
        // A screen full to its last row at the first resize of a run stays anchored at the
        // bottom through the run; another keeps its top where it was in the text.
        let (bottom, anchor) = match self.anchor {
            Some(Anchor::Top(pos)) => (false, pos),
            Some(Anchor::Bottom) => (true, self.text_pos(self.history_len(), 0)),
            None => (end + 1 == self.lines.len(), self.text_pos(self.history_len(), 0)),
        };
        let old_cols = self.cols;

        // Lay every logical line out again at the new width.
        let mut b =
            Builder { cols, cells: Vec::new(), meta: Vec::new(), styles: Vec::new(), col: 0, remap: Vec::new() };
        let mut cells = Vec::with_capacity(old_cols);
        let mut styles = Vec::new();
        let mut found = Vec::new();
        let (mut cursor_place, mut anchor_row, mut cursor_after_end) = ((0, 0), 0, false);
        let (mut line, mut start) = (0, 0);
        while start <= end {
            let mut stop = start;
            while stop < end && self.meta[self.lines[stop] as usize].wrapped {
                stop += 1;
            }
            let rows_of_line = start..stop + 1;
            // The cursor's line keeps its cells up to the cursor (blanks before it are text).
            // The cursor is on a cell of the line, or just after its last cell.
            let (mut find, mut keep) = (Vec::new(), 0);
            if line == anchor.line {
                find.push(anchor.offset);
            }
            let cursor_target = if at.pending { cursor.offset - 1 } else { cursor.offset };
            if line == cursor.line {
                keep = cursor_target + usize::from(at.pending);
            }
            logical_cells(self, rows_of_line, keep, &mut cells, &mut styles);
            if line == anchor.line && anchor.offset >= cells.len() {
                find[0] = cells.len().saturating_sub(1);
            }
            let cursor_inside = line == cursor.line && cursor_target < cells.len();
            if cursor_inside {
                find.push(cursor_target);
            }
            found.clear();
            let rows_before = b.rows();
            b.line(&cells, &styles, &find, &mut found);
            // A double-size line that is one row and stays one keeps its size (xterm keeps it
            // on a resize); one that wrapped or now wraps is rewrapped as single rows.
            let size = self.meta[self.lines[start] as usize].size();
            if start == stop && size != super::LineSize::Single && b.rows() == rows_before + 1 {
                b.meta.last_mut().expect("a row").set_line_size(size);
            }
            if line == anchor.line {
                anchor_row = found[0].0;
            }
            if cursor_inside {
                cursor_place = *found.last().expect("the cursor's place");
            } else if line == cursor.line {
                // Just after the line's last cell: a full row leaves it pending in the last column.
                let last = b.rows() - 1;
                cursor_after_end = b.col == cols;
                cursor_place = (last, b.col.min(cols - 1));
            }
            line += 1;
            start = stop + 1;
        }
        let n = b.rows();

        // Which rows are on the screen.
        let (cursor_row, mut cursor_x) = cursor_place;
        let mut pending = cursor_after_end;
        if at.pending {
            if cursor_x + 1 < cols {
                cursor_x += 1;
            } else {
                pending = true;
            }
        }
        let mut top = if bottom { n.saturating_sub(rows) } else { anchor_row };
        // The text's last row stays on the screen: nothing below it can go anywhere else. The
        // cursor stays on its character when that leaves it on the screen, else it goes to the
        // top row; where it was in the text is remembered for the reverse resize.
        top = top.max(n.saturating_sub(rows));
        let mut at_after = At { x: cursor_x.min(cols - 1), y: cursor_row.saturating_sub(top), pending };
        let cursor_lost = cursor_row < top;
        if cursor_lost {
            at_after.pending = false;
        }
        // At the new width the scrollback may hold fewer lines (MAX_HISTORY_CELLS): the oldest go.
        self.history_cap = super::history_cap(self.scrollback, cols);
        let drop = top.saturating_sub(self.history_cap);
        let keep_rows = top + rows;
        // The new slab: history and screen rows, padded with blank rows to the screen's height.
        let mut cells = b.cells;
        let mut meta = b.meta;
        let mut row_styles = b.styles;
        cells.drain(..drop * cols);
        meta.drain(..drop);
        row_styles.drain(..drop);
        cells.truncate((keep_rows.min(n) - drop) * cols);
        meta.truncate(keep_rows.min(n) - drop);
        row_styles.truncate(keep_rows.min(n) - drop);
        while meta.len() < keep_rows - drop {
            cells.resize(cells.len() + cols, Cell::blank(0));
            meta.push(RowMeta::fresh(cols, 0));
            row_styles.push(Vec::new());
        }
        cells.shrink_to_fit();
        meta.shrink_to_fit();
        self.cells = cells;
        self.meta = meta;
        self.styles = row_styles;
        self.style_epoch += 1;
        self.lines = (0..self.meta.len() as u32).collect();
        self.dirty_run = None;
        self.free.clear();
        self.cols = cols;
        self.rows = rows;
        self.scrolled = 0;
        // Lines are numbered by `pushed` (history line `i` is line `pushed - history_len + i`):
        // narrowing can leave more history rows than were ever pushed, and the oldest line's
        // number must not go below 0. The live screen's top keeps its number when it can.
        self.pushed = self.pushed.max(self.history_len() as u64);
        self.damage_all();
        // The intended top is kept for the next resize, unless lines were lost off the top; so
        // is the cursor's place in the text when it could not stay on it.
        self.anchor = (drop == 0).then_some(if bottom { Anchor::Bottom } else { Anchor::Top(anchor) });
        self.lost_cursor = (drop == 0 && cursor_lost).then_some((at_after, cursor, at.pending));
        at_after
    }
}
