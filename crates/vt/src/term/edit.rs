//! Erasing (ED EL ECH, DECSED DECSEL, with the protection DECSCA and SPA give), inserting and deleting (ICH DCH IL DL), scrolling
//! (SU SD and the scroll region behind IND/RI), and setting margins (DECSTBM DECSLRM).

use super::modes::Protection;
use super::Screen;
use crate::cell::Cell;
use crate::grid::Region;
use crate::style::Attrs;

impl Screen {
    /// Scrolls the scroll region up by `n`. Lines leaving a region whose top is the first row
    /// (full width, main screen) are kept in scrollback, as xterm does.
    pub(crate) fn scroll_region_up(&mut self, n: usize) {
        let blank = self.blank();
        let (top, bottom, left, right) = (self.top, self.bottom, self.left, self.right);
        if self.full_width() {
            let save = !self.alt_active;
            self.grid_mut().scroll_up(top, bottom, n, &blank, save);
        } else {
            self.grid_mut().scroll_rect(Region { top, bottom, left, right }, true, n, &blank);
        }
    }

    /// Scrolls the scroll region down by `n` (blank lines appear at the top margin).
    pub(crate) fn scroll_region_down(&mut self, n: usize) {
        let blank = self.blank();
        let (top, bottom, left, right) = (self.top, self.bottom, self.left, self.right);
        if self.full_width() {
            self.grid_mut().scroll_down(top, bottom, n, &blank);
        } else {
            self.grid_mut().scroll_rect(Region { top, bottom, left, right }, false, n, &blank);
        }
    }

    /// SU (CSI Ps S): scroll up `n` lines; the cursor does not move.
    pub(crate) fn scroll_up(&mut self, n: usize) {
        self.scroll_region_up(n);
    }

    /// SD (CSI Ps T): scroll down `n` lines; the cursor does not move.
    pub(crate) fn scroll_down(&mut self, n: usize) {
        self.scroll_region_down(n);
    }

    /// IL (CSI Ps L): inserts `n` blank lines at the cursor row, pushing lines below it down
    /// within the scroll region. Ignored outside the margins; the cursor goes to the left
    /// margin (DEC STD 070, xterm).
    pub(crate) fn insert_lines(&mut self, n: usize) {
        let (x, y) = (self.cursor.x, self.cursor.y);
        if !self.in_tb(y) || !self.in_lr(x) {
            return;
        }
        let blank = self.blank();
        let (bottom, left, right) = (self.bottom, self.left, self.right);
        if self.full_width() {
            self.grid_mut().scroll_down(y, bottom, n, &blank);
        } else {
            self.grid_mut().scroll_rect(Region { top: y, bottom, left, right }, false, n, &blank);
        }
        self.cursor.x = self.left;
        self.cursor.pending_wrap = false;
    }

    /// DL (CSI Ps M): deletes `n` lines at the cursor row, pulling lines below it up within
    /// the scroll region. Ignored outside the margins; the cursor goes to the left margin.
    pub(crate) fn delete_lines(&mut self, n: usize) {
        let (x, y) = (self.cursor.x, self.cursor.y);
        if !self.in_tb(y) || !self.in_lr(x) {
            return;
        }
        let blank = self.blank();
        let (bottom, left, right) = (self.bottom, self.left, self.right);
        if self.full_width() {
            self.grid_mut().scroll_up(y, bottom, n, &blank, false);
        } else {
            self.grid_mut().scroll_rect(Region { top: y, bottom, left, right }, true, n, &blank);
        }
        self.cursor.x = self.left;
        self.cursor.pending_wrap = false;
    }

    /// The columns of the scroll region from column `at` to the right margin move `n` to the
    /// left (`to_left`, blanks coming in at the right margin) or to the right (blanks at `at`),
    /// on every row between the top and bottom margins: SL and SR (`at` the left margin),
    /// DECDC and DECIC (`at` the cursor's column). As xterm does it (`xtermColScroll`): nothing
    /// happens while the cursor is outside the margins, and the cursor stays where it is.
    pub(crate) fn scroll_columns(&mut self, n: usize, to_left: bool, at: usize) {
        let (x, y, wrap) = (self.cursor.x, self.cursor.y, self.cursor.pending_wrap);
        if n == 0 || !self.in_tb(y) || !self.in_lr(x) {
            return;
        }
        for row in self.top..=self.bottom {
            self.cursor.x = at;
            self.cursor.y = row;
            if to_left {
                self.delete_chars(n);
            } else {
                self.insert_blanks(n);
            }
        }
        (self.cursor.x, self.cursor.y, self.cursor.pending_wrap) = (x, y, wrap);
    }

    /// DECBI (ESC 6) and DECFI (ESC 9): the cursor back (forward) a column; on the left (right)
    /// margin the columns of the scroll region move right (left) instead (xterm's
    /// `xtermColIndex`).
    pub(crate) fn column_index(&mut self, back: bool) {
        let x = self.cursor.x;
        if back && x == self.left && self.in_lr(x) {
            self.scroll_columns(1, false, x);
        } else if !back && x == self.right && self.in_lr(x) {
            self.scroll_columns(1, true, self.left);
        } else if back {
            self.cursor_backward(1);
        } else {
            self.cursor_forward(1);
        }
    }

    /// ICH (CSI Ps @), and IRM's insertion: `n` blanks at the cursor, shifting the rest of the
    /// line right up to the right margin; cells pushed past it are lost.
    pub(crate) fn insert_blanks(&mut self, n: usize) {
        let (x, y) = (self.cursor.x, self.cursor.y);
        if !self.in_lr(x) {
            return;
        }
        let right = self.right;
        let n = n.min(right + 1 - x);
        self.work += (right + 1 - x) as u64;
        let blank = self.blank_cell(y);
        // Only the cells from the cursor to the right margin move: a wide character the left
        // margin cuts, left of the cursor, stays (as in xterm); one the cursor cuts is blanked
        // here, as at the right margin.
        self.grid_mut().split_wide_at_margins(y, x, right);
        let row = self.grid_mut().row_mut(y);
        row.copy_within(x..right + 1 - n, x + n);
        row[x..x + n].fill(blank);
        if row[right].is_wide() {
            row[right] = Cell::blank(row[right].style());
        }
        self.touch(y, x, right + 1);
        self.cursor.pending_wrap = false;
    }

    /// DCH (CSI Ps P): deletes `n` cells at the cursor, pulling the rest of the line (up to the
    /// right margin) left and filling with blanks.
    pub(crate) fn delete_chars(&mut self, n: usize) {
        let (x, y) = (self.cursor.x, self.cursor.y);
        if !self.in_lr(x) {
            return;
        }
        let right = self.right;
        let n = n.min(right + 1 - x);
        self.work += (right + 1 - x) as u64;
        let blank = self.blank_cell(y);
        // As in `insert_blanks`: the cells from the cursor move.
        self.grid_mut().split_wide_at_margins(y, x, right);
        let (s, _) = self.split_wide_edges(y, x, x + n);
        let row = self.grid_mut().row_mut(y);
        row.copy_within(x + n..right + 1, x);
        row[right + 1 - n..=right].fill(blank);
        if row[right].is_wide() {
            row[right] = Cell::blank(row[right].style());
        }
        self.touch(y, s, right + 1);
        self.cursor.pending_wrap = false;
    }

    /// Erases cells `[start, end)` of row `y`; with `keep`, protected cells stay. A wide
    /// character the range cuts loses its other half too, unless its half inside is kept: a
    /// protected one stays whole.
    pub(super) fn erase_cells(&mut self, y: usize, start: usize, end: usize, keep: bool) {
        if start >= end {
            return;
        }
        self.work += (end - start) as u64;
        let blank = self.blank_cell(y);
        let line = self.grid().row_ref(y);
        let kept: Vec<bool> = if keep {
            line[start..end].iter().map(|&c| line.style(c).attrs.has(Attrs::PROTECTED)).collect()
        } else {
            Vec::new()
        };
        let is_kept = |i: usize| kept.get(i).copied().unwrap_or(false);
        let cut_left = start > 0 && line[start].is_spacer() && !is_kept(0);
        let cut_right = end < self.cols && line[end].is_spacer() && !is_kept(end - start - 1);
        let row = self.grid_mut().row_mut(y);
        if cut_left {
            row[start - 1] = Cell::blank(row[start - 1].style());
        }
        if cut_right {
            row[end] = Cell::blank(row[end].style());
        }
        if keep {
            for (i, cell) in row[start..end].iter_mut().enumerate() {
                if !is_kept(i) {
                    *cell = blank;
                }
            }
        } else {
            row[start..end].fill(blank);
        }
        if end == self.cols {
            self.grid_mut().set_wrapped(y, false);
        }
        self.touch(y, start - usize::from(cut_left), end + usize::from(cut_right));
    }

    /// Whether an erase keeps protected characters, as xterm decides it: the selective erases
    /// (DECSED, DECSEL) do once anything was protected, the others (ED, EL, ECH) only inside
    /// an ISO guarded area's protection (SPA), not DECSCA's.
    fn keeps_protected(&self, selective: bool) -> bool {
        match self.modes.protection {
            Protection::Off => false,
            Protection::Dec => selective,
            Protection::Iso => true,
        }
    }

    /// EL (CSI Ps K) and DECSEL (CSI ? Ps K): 0 erases from the cursor to the end of the line,
    /// 1 from the start to the cursor inclusive, 2 the whole line.
    pub(crate) fn erase_line(&mut self, mode: u16, selective: bool) {
        let (x, y, cols) = (self.cursor.x, self.cursor.y, self.cols);
        let keep = self.keeps_protected(selective);
        match mode {
            0 => self.erase_cells(y, x, cols, keep),
            1 => self.erase_cells(y, 0, x + 1, keep),
            2 => self.erase_cells(y, 0, cols, keep),
            _ => return,
        }
        self.cursor.pending_wrap = false;
    }

    /// ED (CSI Ps J) and DECSED (CSI ? Ps J): 0 erases from the cursor to the end of the
    /// screen, 1 from the start to the cursor inclusive, 2 the whole screen, 3 the scrollback
    /// (xterm's "erase saved lines"; the screen stays).
    pub(crate) fn erase_display(&mut self, mode: u16, selective: bool) {
        let (x, y, cols, rows) = (self.cursor.x, self.cursor.y, self.cols, self.rows);
        let keep = self.keeps_protected(selective);
        match mode {
            0 => {
                self.erase_cells(y, x, cols, keep);
                for row in y + 1..rows {
                    self.erase_cells(row, 0, cols, keep);
                }
                // xterm erases the whole screen (ED 2) for ED 0 from the first cell.
                let first = if (x, y) == (0, 0) { 0 } else { y + 1 };
                self.single_size_rows(first..rows, keep);
            }
            1 => {
                for row in 0..y {
                    self.erase_cells(row, 0, cols, keep);
                }
                self.erase_cells(y, 0, x + 1, keep);
                // And for ED 1 from the last cell.
                let end = if (x, y) == (cols - 1, rows - 1) { rows } else { y };
                self.single_size_rows(0..end, keep);
            }
            2 => {
                if keep {
                    (0..rows).for_each(|row| self.erase_cells(row, 0, cols, true));
                } else {
                    let blank = self.blank();
                    self.grid_mut().clear_rows(0, rows - 1, &blank);
                }
            }
            3 => self.main.clear_history(),
            _ => return,
        }
        self.cursor.pending_wrap = false;
    }

    /// Rows that ED erased whole are single size again, as xterm's `ClearBufRows` makes them;
    /// not when protected cells were kept (xterm then erases cell by cell).
    pub(super) fn single_size_rows(&mut self, rows: std::ops::Range<usize>, keep: bool) {
        if self.any_double && !keep {
            for y in rows {
                self.grid_mut().set_size(y, crate::grid::LineSize::Single);
            }
        }
    }

    /// Every row single size but the bottom one, as xterm's `xterm_ResetDouble` does it (its
    /// loop stops one row short, in XTerm 379 and patch 410 alike): setting DECLRMM and DECALN
    /// (scripts/xterm-screens.sh dwl-declrmm, decaln-bottom-double-row).
    pub(super) fn reset_double(&mut self) {
        self.single_size_rows(0..self.rows - 1, false);
    }

    /// ECH (CSI Ps X): erases `n` cells from the cursor, not past the end of the line; the
    /// cursor does not move.
    pub(crate) fn erase_chars(&mut self, n: usize) {
        let (x, y) = (self.cursor.x, self.cursor.y);
        let end = x.saturating_add(n).min(self.cols);
        let keep = self.keeps_protected(false);
        self.erase_cells(y, x, end, keep);
        self.cursor.pending_wrap = false;
    }

    /// DECSTBM (CSI Ps ; Ps r): top and bottom margins (1-based, inclusive; defaults the whole
    /// screen). Ignored unless top < bottom. The cursor goes home.
    pub(crate) fn set_top_bottom_margins(&mut self, top: usize, bottom: usize) {
        let bottom = bottom.min(self.rows);
        if top >= bottom {
            return;
        }
        self.top = top - 1;
        self.bottom = bottom - 1;
        self.cursor_position(1, 1);
    }

    /// DECSLRM (CSI Ps ; Ps s, only while DECLRMM is set): left and right margins (1-based,
    /// inclusive). Ignored unless left < right. The cursor goes home.
    pub(crate) fn set_left_right_margins(&mut self, left: usize, right: usize) {
        let right = right.min(self.cols);
        if left >= right {
            return;
        }
        self.left = left - 1;
        self.right = right - 1;
        self.cursor_position(1, 1);
    }

    /// DECALN (ESC # 8): fills the screen with `E` in the default style, resets the margins,
    /// origin mode and the pen's attributes (not its colours), makes the rows single size (but
    /// the bottom one: [`Self::reset_double`]) and homes the cursor, as XTerm 379 does
    /// (`CASE_DECALN`).
    pub(crate) fn alignment_test(&mut self) {
        self.modes.origin = false;
        let mut style = self.pen.style;
        style.attrs = crate::style::Attrs(style.attrs.0 & crate::style::Attrs::PROTECTED);
        self.set_pen(style);
        self.top = 0;
        self.bottom = self.rows - 1;
        self.left = 0;
        self.right = self.cols - 1;
        let rows = self.rows;
        self.work += (rows * self.cols) as u64;
        let grid = self.grid_mut();
        for y in 0..rows {
            grid.row_mut(y).fill(Cell::ascii(b'E', 0));
            grid.set_wrapped(y, false);
        }
        grid.damage_all();
        self.reset_double();
        self.cursor_position(1, 1);
    }
}
