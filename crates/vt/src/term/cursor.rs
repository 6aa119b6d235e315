//! Cursor motion (CUU CUD CUF CUB CNL CPL CHA HPA VPA CUP HVP HPR VPR, BS, CR), line
//! motion that may scroll (IND RI NEL, LF), and tab stops (HT HTS TBC CHT CBT).
//! Every motion clears xterm's pending wrap.

use super::Screen;
use crate::style::Color;

pub(super) fn default_tabs(cols: usize) -> Vec<bool> {
    (0..cols).map(|x| x > 0 && x % 8 == 0).collect()
}

pub(super) fn resize_tabs(tabs: &mut Vec<bool>, cols: usize) {
    let old = tabs.len();
    tabs.resize(cols, false);
    for (x, t) in tabs.iter_mut().enumerate().skip(old) {
        *t = x % 8 == 0;
    }
}

impl Screen {
    fn goto(&mut self, x: usize, y: usize) {
        self.cursor.x = x.min(self.cols - 1);
        self.cursor.y = y.min(self.rows - 1);
        self.cursor.pending_wrap = false;
    }

    /// CUU (CSI Ps A): up `n`, stopping at the top margin if the cursor is below it.
    pub(crate) fn cursor_up(&mut self, n: usize) {
        let stop = if self.cursor.y >= self.top { self.top } else { 0 };
        self.goto(self.cursor.x, self.cursor.y.saturating_sub(n).max(stop));
    }

    /// CUD (CSI Ps B): down `n`, stopping at the bottom margin if above it.
    pub(crate) fn cursor_down(&mut self, n: usize) {
        let stop = if self.cursor.y <= self.bottom { self.bottom } else { self.rows - 1 };
        self.goto(self.cursor.x, self.cursor.y.saturating_add(n).min(stop));
    }

    /// HPR (CSI Ps a) and VPR (CSI Ps e): `dx` columns right, `dy` rows down, as xterm does them:
    /// a position set (its `CursorSet`) rather than a move, so neither stops at a margin nor at
    /// a double-size row's half (CUF and CUD do); held to the page, or in origin mode to the
    /// right and bottom margins.
    pub(crate) fn cursor_relative(&mut self, dx: usize, dy: usize) {
        let (mut x, mut y) = (self.cursor.x.saturating_add(dx), self.cursor.y.saturating_add(dy));
        if self.modes.origin {
            (x, y) = (x.min(self.right), y.min(self.bottom));
        }
        self.goto(x, y);
    }

    /// CUF (CSI Ps C): right `n`, stopping at the right margin if left of it.
    pub(crate) fn cursor_forward(&mut self, n: usize) {
        let stop = self.forward_stop();
        self.goto(self.cursor.x.saturating_add(n).min(stop), self.cursor.y);
    }

    /// Where CUF and HT stop: the right margin when the cursor is inside the margins, else the
    /// last column; on a double-size row without left/right margins, the row's last shown
    /// column (xterm's `LineMaxCol`), to which a cursor past it comes back.
    #[inline]
    fn forward_stop(&self) -> usize {
        if self.any_double && !self.modes.left_right_margins {
            let size = self.grid().meta(self.cursor.y).size();
            if size != crate::grid::LineSize::Single {
                return size.shown_cols(self.cols) - 1;
            }
        }
        self.margin_stop()
    }

    /// The right margin when the cursor is inside the margins, else the last column: where
    /// printing and forward moves stop on a single-size row (xterm).
    #[inline]
    pub(crate) fn margin_stop(&self) -> usize {
        if self.cursor.x <= self.right {
            self.right
        } else {
            self.cols - 1
        }
    }

    /// CUB (CSI Ps D), BS: left `n`, stopping at the left margin if right of it. With
    /// reverse wraparound (?45, with autowrap) the cursor goes on from the left margin to the
    /// right margin of the line above when that line wrapped into this one; with extended
    /// reverse wraparound (?1045) it goes on regardless, from the top margin to the bottom one.
    pub(crate) fn cursor_backward(&mut self, n: usize) {
        let m = &self.modes;
        let (rev, rev_ext) = (m.autowrap && m.reverse_wrap, m.autowrap && m.reverse_wrap_extended);
        let left = if self.cursor.x >= self.left { self.left } else { 0 };
        if !(rev || rev_ext) {
            return self.goto(self.cursor.x.saturating_sub(n).max(left), self.cursor.y);
        }
        self.reverse_wrap_back(n, left, rev_ext);
    }

    /// CUB's walk with reverse wraparound (xterm's rules, a line at a time): a pending wrap takes
    /// the first step; a line above that did not wrap stops the walk at the left margin. The walk
    /// costs at most a few steps per row, whatever `n` is.
    fn reverse_wrap_back(&mut self, n: usize, left: usize, extended: bool) {
        let (right, top, bottom) = (self.right, self.top, self.bottom);
        let (mut x, mut y) = (self.cursor.x as isize, self.cursor.y);
        let mut count = n;
        if count > 0 {
            if self.cursor.pending_wrap {
                count -= 1;
            } else {
                x -= 1;
            }
        }
        loop {
            if x < left as isize {
                if extended {
                    if y == top {
                        // From here the walk laps the margins: whole laps change nothing.
                        y = bottom;
                        let lap = (right + 1 - left) * (bottom + 1 - top);
                        count = (count - 1) % lap + 1;
                    } else {
                        y = y.saturating_sub(1);
                    }
                } else if y == 0 || !self.grid().meta(y - 1).wrapped {
                    x = left as isize;
                    break;
                } else {
                    y -= 1;
                }
                x = right as isize;
            }
            if count <= 1 {
                break;
            }
            // Along the line in one step: to the left margin, or one past it to wrap again.
            let step = (count - 1).min((x - left as isize + 1) as usize);
            count -= step;
            x -= step as isize;
        }
        self.goto(x.max(0) as usize, y);
    }

    /// CNL (CSI Ps E): down `n`, then to the left margin.
    pub(crate) fn cursor_next_line(&mut self, n: usize) {
        self.cursor_down(n);
        self.carriage_return();
    }

    /// CPL (CSI Ps F): up `n`, then to the left margin.
    pub(crate) fn cursor_previous_line(&mut self, n: usize) {
        self.cursor_up(n);
        self.carriage_return();
    }

    /// CHA (CSI Ps G), HPA (CSI Ps `): to column `col` (1-based), relative to the left margin
    /// in origin mode.
    pub(crate) fn cursor_column(&mut self, col: usize) {
        let x = if self.modes.origin { (self.left + col - 1).min(self.right) } else { col - 1 };
        self.goto(x, self.cursor.y);
    }

    /// VPA (CSI Ps d): to row `row` (1-based), relative to the top margin in origin mode.
    pub(crate) fn cursor_row(&mut self, row: usize) {
        let y = if self.modes.origin { (self.top + row - 1).min(self.bottom) } else { row - 1 };
        self.goto(self.cursor.x, y);
    }

    /// CUP (CSI Ps ; Ps H), HVP (CSI Ps ; Ps f): to row and column (1-based), relative to
    /// and confined by the margins in origin mode.
    pub(crate) fn cursor_position(&mut self, row: usize, col: usize) {
        if self.modes.origin {
            let y = (self.top + row - 1).min(self.bottom);
            let x = (self.left + col - 1).min(self.right);
            self.goto(x, y);
        } else {
            self.goto(col - 1, row - 1);
        }
    }

    /// CR: to the left margin, or to column 0 when the cursor is left of the margin.
    pub(crate) fn carriage_return(&mut self) {
        let x = if self.cursor.x >= self.left { self.left } else { 0 };
        self.goto(x, self.cursor.y);
    }

    /// IND (ESC D), LF, VT, FF: down one line; on the bottom margin (inside the left/right
    /// margins) the scroll region scrolls up instead.
    pub(crate) fn index(&mut self) {
        self.cursor.pending_wrap = false;
        if self.cursor.y == self.bottom {
            // Output scrolling the whole main screen with history full, in the default
            // background (what lines of text do): taken at once.
            if self.bottom + 1 == self.rows
                && self.top == 0
                && self.full_width()
                && !self.alt_active
                && self.recycle_line()
            {
                return;
            }
            if self.in_lr(self.cursor.x) {
                self.scroll_region_up(1);
            }
        } else if self.cursor.y + 1 < self.rows {
            self.cursor.y += 1;
        }
    }

    /// The steady state of a scroll of the whole main screen (the caller knows it is one): in
    /// the default background, with the history full, the oldest history row becomes the new
    /// bottom row at once. False, having done nothing, otherwise (the general scroll then).
    #[inline(always)]
    pub(crate) fn recycle_line(&mut self) -> bool {
        self.pen.style.bg == Color::Default && self.main.scroll_screen_into_full_history()
    }

    /// LF, VT, FF: IND, plus CR in newline mode (LNM).
    pub(crate) fn line_feed(&mut self) {
        self.index();
        if self.modes.newline {
            self.carriage_return();
        }
    }

    /// RI (ESC M): up one line; on the top margin the scroll region scrolls down instead.
    pub(crate) fn reverse_index(&mut self) {
        self.cursor.pending_wrap = false;
        if self.cursor.y == self.top {
            if self.in_lr(self.cursor.x) {
                self.scroll_region_down(1);
            }
        } else if self.cursor.y > 0 {
            self.cursor.y -= 1;
        }
    }

    /// NEL (ESC E): IND then CR, in xterm's order: IND at the bottom margin does not scroll
    /// when the cursor is outside the left and right margins, and CR would first move it inside
    /// them (esctest's `test_NEL_MovesDoesNotScrollOutsideLeftRight`).
    pub(crate) fn next_line(&mut self) {
        self.index();
        self.carriage_return();
    }

    /// HT, CHT (CSI Ps I): to the `n`th next tab stop, stopping at the right margin (or the
    /// last column when right of it).
    pub(crate) fn tab_forward(&mut self, n: usize) {
        if self.modes.curses_fix && self.cursor.pending_wrap && self.modes.autowrap {
            self.index();
            self.cursor.x = 0;
            self.cursor.pending_wrap = false;
        }
        let stop = self.forward_stop();
        let mut x = self.cursor.x.min(stop);
        // Once at the stop, the rest of `n` (up to 65,535) moves nothing.
        for _ in 0..n.min(stop + 1 - x.min(stop)) {
            while x < stop {
                x += 1;
                if self.tabs[x] {
                    break;
                }
            }
        }
        // xterm keeps the pending-wrap state when a tab cannot move the cursor.
        if x != self.cursor.x {
            self.goto(x, self.cursor.y);
        }
    }

    /// CBT (CSI Ps Z): to the `n`th previous tab stop, stopping at column 0, or in origin mode
    /// at the left margin, as xterm's `TabToPrevStop` does (a left margin alone does not stop
    /// it: esctest's `test_CBT_IgnoresRegion`).
    pub(crate) fn tab_backward(&mut self, n: usize) {
        let stop = if self.modes.origin { self.left } else { 0 };
        let mut x = self.cursor.x;
        for _ in 0..n.min(x.saturating_sub(stop) + 1) {
            while x > stop {
                x -= 1;
                if self.tabs[x] {
                    break;
                }
            }
        }
        self.goto(x, self.cursor.y);
    }

    /// HTS (ESC H): a tab stop at the cursor's column.
    pub(crate) fn set_tab(&mut self) {
        self.tabs[self.cursor.x] = true;
    }

    /// TBC (CSI Ps g): 0 clears the stop at the cursor, 3 clears all stops.
    pub(crate) fn clear_tabs(&mut self, which: u16) {
        match which {
            0 => self.tabs[self.cursor.x] = false,
            3 => self.tabs.iter_mut().for_each(|t| *t = false),
            _ => {}
        }
    }
}
