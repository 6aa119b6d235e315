//! What a presenter draws: the engine's live screen, or a window scrolled back into history.

use blitty_vt::{Line, LineSize, Screen};

#[derive(Clone, Copy)]
pub struct View<'a> {
    pub screen: &'a Screen,
    /// Lines scrolled back into history; 0 is the live screen.
    pub offset: usize,
}

impl<'a> View<'a> {
    pub fn live(screen: &'a Screen) -> View<'a> {
        View { screen, offset: 0 }
    }

    /// The most the view can scroll back.
    pub fn max_offset(&self) -> usize {
        self.screen.history_len()
    }

    /// Where row `y` of the view is: a history line or a visible row.
    fn place(&self, y: usize) -> Place {
        let history = self.screen.history_len();
        let line = history - self.offset.min(history) + y;
        if line < history {
            Place::History(line)
        } else {
            Place::Visible(line - history)
        }
    }

    /// Row `y`'s size (DECDWL, DECDHL): a double-size row shows its first half.
    pub fn line_size(&self, y: usize) -> LineSize {
        match self.place(y) {
            Place::History(i) => self.screen.history_line_size(i),
            Place::Visible(y) => self.screen.line_size(y),
        }
    }

    /// Row `y` of the view, with its styles.
    pub fn row(&self, y: usize) -> Line<'a> {
        match self.place(y) {
            Place::History(i) => self.screen.history_row(i),
            Place::Visible(y) => self.screen.row(y),
        }
    }
}

enum Place {
    History(usize),
    Visible(usize),
}
