//! The invariants of a screen that its checks report when one does not hold (see
//! `term/integrity.rs`, which checks the screen, and `Grid::check_structure`, which checks the
//! ring of rows): below both, so neither refers to the other.

/// An invariant that does not hold; `line` counts history and visible rows from the oldest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    RingLength {
        lines: usize,
        rows: usize,
    },
    HistoryOverCap {
        history: usize,
        cap: usize,
    },
    /// More history rows than lines ever pushed: the oldest line's number
    /// (`history_pushed() - history_len()`) would be below 0.
    HistoryOverPushed {
        history: usize,
        pushed: u64,
    },
    RowIdsNotAPartition {
        ids: usize,
        allocated: usize,
    },
    SlabSize {
        cells: usize,
        rows_allocated: usize,
        cols: usize,
    },
    UsedPastColumns {
        line: usize,
        used: usize,
        cols: usize,
    },
    NotBlankPastUsed {
        line: usize,
        col: usize,
    },
    DamagePastColumns {
        line: usize,
        end: usize,
        cols: usize,
    },
    /// A visible row inside the run of rows known to be wholly dirty is not.
    KnownDirtyRowIsNot {
        y: usize,
        dirty: (u16, u16),
    },
    WideWithoutSpacer {
        line: usize,
        col: usize,
    },
    SpacerWithoutWide {
        line: usize,
        col: usize,
    },
    DeadStyle {
        line: usize,
        col: usize,
        id: u32,
    },
    BadPackedStyle {
        line: usize,
        col: usize,
        id: u32,
    },
    StyleListOverCap {
        line: usize,
        len: usize,
        cap: usize,
    },
    DeadCluster {
        line: usize,
        col: usize,
        id: u32,
    },
    CursorOffScreen {
        x: usize,
        y: usize,
        cols: usize,
        rows: usize,
    },
    MarginsOffScreen {
        top: usize,
        bottom: usize,
        left: usize,
        right: usize,
    },
    TabStops {
        len: usize,
        cols: usize,
    },
    GridSize {
        cols: usize,
        rows: usize,
    },
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "screen invariant broken: {self:?}")
    }
}

impl std::error::Error for Violation {}
