//! The screen's invariants, checked (as ghostty's page integrity checks are): written down here,
//! each with a typed violation, and checked after every `feed` and `resize` in builds with debug
//! assertions (the `checked` profile the hostile-input suite runs under, the fuzz target, and
//! debug builds). [`Screen::check_integrity`] is public so tests can call it in any build.
//!
//! What is checked:
//! - the ring: `lines` holds the history then exactly `rows` visible rows; history is within its
//!   cap and no longer than the count of lines pushed (which numbers them); every row id is in
//!   exactly one of `lines` and `free`; the slab has `cols` cells a row;
//! - damage: the rows a scroll of a region knows to be wholly dirty (`Grid::dirty_run`) are;
//! - each row: its `used` bound and damage stay within the columns, and every cell from `used`
//!   on is a default blank (recycling clears only up to `used`, so a wrong bound would leak old
//!   text into a new line: the U+17D8 crash was this bound running past the row);
//! - wide characters: a wide cell is followed by its spacer and a spacer follows a wide cell;
//! - styles: every cell's style id is in its row's list or is a packed style (one that decodes
//!   to a style packing back to the same id: its colours and attributes in range), and the list
//!   is within its cap;
//! - interned ids: every cell's cluster id is live in its table;
//! - the cursor and margins are on the screen, and the tab stops are one per column.
//!
//! History rows are not written after they leave the screen (only resize rewrites them, and a
//! resize is followed by a full check), so the check after `feed` visits the visible rows and the
//! newest screenful of history; a collection of the interned tables is followed by a full check,
//! as it is what could free an id a history row still uses.

use super::Screen;
use crate::grid::Grid;

pub use crate::violation::Violation;

/// Which lines of a grid a check visits.
#[derive(Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(debug_assertions), allow(dead_code))]
pub(crate) enum Extent {
    /// Every history and visible line.
    Full,
    /// The visible lines and the newest screenful of history.
    Recent,
}

impl Screen {
    /// Checks every invariant of the screen, history included.
    pub fn check_integrity(&self) -> Result<(), Violation> {
        self.check(Extent::Full)
    }

    pub(crate) fn check(&self, extent: Extent) -> Result<(), Violation> {
        let (cols, rows) = (self.cols, self.rows);
        if self.cursor.x >= cols || self.cursor.y >= rows {
            return Err(Violation::CursorOffScreen { x: self.cursor.x, y: self.cursor.y, cols, rows });
        }
        if !(self.top <= self.bottom && self.bottom < rows && self.left <= self.right && self.right < cols) {
            return Err(Violation::MarginsOffScreen {
                top: self.top,
                bottom: self.bottom,
                left: self.left,
                right: self.right,
            });
        }
        if self.tabs.len() != cols {
            return Err(Violation::TabStops { len: self.tabs.len(), cols });
        }
        for grid in [&self.main, &self.alt] {
            if grid.cols() != cols || grid.rows() != rows {
                return Err(Violation::GridSize { cols: grid.cols(), rows: grid.rows() });
            }
            grid.check_structure()?;
            let total = grid.history_len() + rows;
            let first = match extent {
                Extent::Full => 0,
                Extent::Recent => grid.history_len().saturating_sub(rows),
            };
            for line in first..total {
                self.check_line(grid, line)?;
            }
        }
        Ok(())
    }

    fn check_line(&self, grid: &Grid, line: usize) -> Result<(), Violation> {
        let cells = grid.line(line);
        for (col, &cell) in cells.iter().enumerate() {
            if cell.is_wide() && !cells.get(col + 1).is_some_and(|c| c.is_spacer()) {
                return Err(Violation::WideWithoutSpacer { line, col });
            }
            if cell.is_spacer() && !(col > 0 && cells[col - 1].is_wide()) {
                return Err(Violation::SpacerWithoutWide { line, col });
            }
            if let Some(id) = cell.cluster_index() {
                if self.clusters.get(id).is_none() {
                    return Err(Violation::DeadCluster { line, col, id });
                }
            }
        }
        Ok(())
    }
}
