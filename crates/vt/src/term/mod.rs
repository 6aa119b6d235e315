//! Terminal semantics: what each control function does to the screen, following xterm
//! (its "ctlseqs" document decides). One small function per control function, grouped by
//! family in the files beside this one; [`dispatch`] maps sequences to them.

mod cursor;
mod dispatch;
mod edit;
mod integrity;
mod modes;
mod query;
mod rect;
mod report;
mod sgr;
mod state;
mod text;
mod vt52;

use crate::cell::Cell;
use crate::cluster::Clusters;
use crate::grid::{At, Grid, Line, LineSize};
use crate::style::{Interner, Style};

pub use integrity::Violation;
pub use modes::{CursorShape, Modes, MouseEncoding, MouseTracking, Protection};
pub use query::{default_indexed, parse_color, Palette, Rgb, MAX_TITLE_STACK};
pub use report::{base64_decode, base64_encode};
pub use state::Charset;

/// A clipboard write from the program (OSC 52), decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clipboard {
    /// The selections named (xterm's `c`, `p`, `q`, `s`, `0`-`7`; empty means `s0`), each
    /// at most once.
    pub selections: String,
    /// The text (at most [`MAX_CLIPBOARD`] bytes; empty clears the selection).
    pub text: Vec<u8>,
}

/// The most clipboard text one OSC 52 write carries, decoded: what a 1 MiB OSC string
/// ([`crate::parser::MAX_OSC`]) holds in base64.
pub const MAX_CLIPBOARD: usize = 3 * (crate::parser::MAX_OSC / 4);

/// The longest window title or icon name kept, in bytes.
pub const MAX_TITLE: usize = 1024;
/// The most reply bytes held for the host to collect; replies past it are dropped.
pub const MAX_REPLIES: usize = 64 * 1024;
/// The longest grapheme cluster kept in one cell, in bytes; further combining marks are dropped.
pub const MAX_CLUSTER: usize = 64;
/// The longest hyperlink target kept (OSC 8), in bytes; a longer link is ignored.
pub const MAX_LINK: usize = 2048;
/// The longest hyperlink id kept (OSC 8's `id=`), in bytes, as in VTE; a longer id is ignored
/// and the link goes on as one without an id (VTE does the same), so that what a link can make
/// the screen hold is bounded by this and [`MAX_LINK`].
pub const MAX_LINK_ID: usize = 250;
/// Bytes of hyperlinks no cell uses that the screen may hold before it collects them: at least
/// this, and at least the bytes of those in use and 8 for each cell of the screen and history
/// (see [`crate::style::Interner::weighed`]).
const MIN_LINK_GARBAGE: usize = 64 << 10;
/// Scrollback lines kept by default.
pub const DEFAULT_SCROLLBACK: usize = 10_000;
/// The most scrollback lines a screen keeps (alacritty's maximum too); larger requests are
/// clamped here and refused by the command line. Memory is further bounded by
/// [`crate::grid::MAX_HISTORY_CELLS`].
pub const MAX_SCROLLBACK: usize = 100_000;
pub use crate::grid::{MAX_COLS, MAX_ROWS};
/// A turn's budget for [`Terminal::feed_bounded`], in its units of work (a byte parsed, a cell
/// touched): a millisecond or two of the engine's time. Measured (`examples/cost.rs turns`, on
/// the two shared cores this was written on): plain text at 80x24 costs about four units a byte
/// (the byte, its cell, and a row for each line's scroll), so a turn takes 550 KB of it in
/// 1.2 ms; a flood of DECFRA over the whole of the largest screen (2048x1024, two million
/// cells) takes one sequence a turn, 2.1 ms. An operation is not divided, so a turn runs over
/// the budget by at most one: on the largest screen 1-3 ms for any rectangle operation or
/// scroll of a blank screen, up to some 20 ms where every cell has a colour of its own (a
/// style entry each to change).
pub const WORK_PER_TURN: u64 = 1 << 21;

pub(crate) use crate::cell::split_wide_cells;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    pub x: usize,
    pub y: usize,
    /// xterm's "pending wrap": a character was written in the last column; the next printable
    /// character wraps first. The cursor is still reported in the last column.
    pub pending_wrap: bool,
}

/// The current SGR state, and the id it was last given in a row's style list (computed when
/// a character is printed: SGR often changes several times between printed characters).
#[derive(Clone, Copy, Debug)]
struct Pen {
    style: Style,
    /// The style's id when it is the same in every row ([`Style::fixed_id`]); None for a
    /// listed style.
    fixed: Option<u32>,
    at: Option<PenAt>,
}

impl Default for Pen {
    fn default() -> Pen {
        Pen { style: Style::default(), fixed: Some(0), at: None }
    }
}

/// Where the pen's id is good: a row of one buffer, while that buffer's style epoch stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PenAt {
    alt: bool,
    row: u32,
    epoch: u64,
    id: u32,
}

/// The screen: both buffers, the cursor, modes, margins, tabs and everything the control
/// functions read or set.
pub struct Screen {
    cols: usize,
    rows: usize,
    main: Grid,
    alt: Grid,
    alt_active: bool,
    cursor: Cursor,
    pen: Pen,
    charsets: state::Charsets,
    /// Whether the last designation (SCS) was of a 96-character set: with one in GL, DEL then
    /// prints (xterm keeps this in its parser's state, so DECSC/DECRC leave it).
    last_designation_96: bool,
    saved_main: Option<state::SavedCursor>,
    saved_alt: Option<state::SavedCursor>,
    modes: Modes,
    /// Scroll margins, inclusive, 0-based; left/right are the full width unless DECLRMM is set.
    top: usize,
    bottom: usize,
    left: usize,
    right: usize,
    tabs: Vec<bool>,
    clusters: Clusters,
    /// Recent (cell content, combining mark) -> cluster id, emptied by every collection.
    cluster_cache: Box<text::ClusterCache>,
    /// Hyperlinks, each held once (its slot and the table's map share an `Arc`) and counted in
    /// bytes, so that links no cell uses are collected before their bytes outgrow the cells.
    links: Interner<std::sync::Arc<str>>,
    title: String,
    icon_name: String,
    title_stack: Vec<query::SavedTitles>,
    /// DEC private modes saved by XTSAVE (CSI ? Pm s), with their state, for XTRESTORE: one
    /// entry a mode, and only modes this engine has, so it stays small.
    saved_modes: Vec<(u16, bool)>,
    /// The colours queries are answered with, and what their resets go back to.
    palette: Palette,
    base_palette: Palette,
    replies: Vec<u8>,
    /// The last clipboard write (OSC 52) not yet taken by the host side.
    clipboard: Option<Clipboard>,
    /// The last graphic character printed, for REP.
    last_char: Option<char>,
    /// What entering VT52 mode saved, for ESC < to restore (vt52.rs).
    vt52_saved: Option<vt52::Vt52Saved>,
    bells: u64,
    /// Garbage collections of the interned tables, and the cells they scanned (see
    /// [`Screen::collector_work`]).
    collections: u64,
    cells_scanned: u64,
    /// Work done besides the grids' (which count their own): cells written by text, erased,
    /// shifted or filled, and what collections scanned. See [`Screen::work`].
    work: u64,
    /// Set while [`Terminal::feed_flood`] feeds: lines no one will see may be skipped.
    flood: bool,
    /// The host allows the reports xterm's `allowWindowOps` resource gates (see
    /// [`Screen::allow_window_ops`]); off by default, as in xterm.
    window_ops: bool,
    /// XTCHECKSUM's bits (xterm's `checksumExtension`): how DECRQCRA sums (see `rect.rs`).
    checksum_ext: u16,
    /// What RIS puts `checksum_ext` back to (the host's setting, as xterm's resource).
    base_checksum_ext: u16,
    /// Set once a row was made double-width or double-height (until RIS): only then do the
    /// print paths and forward moves look at the cursor row's size (`print_right`,
    /// `forward_stop`).
    any_double: bool,
}

impl Screen {
    /// A screen of `cols` x `rows` (each clamped to 1 and [`MAX_COLS`] / [`MAX_ROWS`]) keeping
    /// `scrollback` lines (at most [`MAX_SCROLLBACK`]).
    pub fn new(cols: usize, rows: usize, scrollback: usize) -> Screen {
        let (cols, rows) = (cols.clamp(1, MAX_COLS), rows.clamp(1, MAX_ROWS));
        let scrollback = scrollback.min(MAX_SCROLLBACK);
        Screen {
            cols,
            rows,
            main: Grid::new(cols, rows, scrollback),
            alt: Grid::new(cols, rows, 0),
            alt_active: false,
            cursor: Cursor::default(),
            pen: Pen::default(),
            charsets: state::Charsets::default(),
            last_designation_96: false,
            saved_main: None,
            saved_alt: None,
            modes: Modes::default(),
            top: 0,
            bottom: rows - 1,
            left: 0,
            right: cols - 1,
            tabs: cursor::default_tabs(cols),
            clusters: Clusters::new(1024),
            cluster_cache: Box::new(text::EMPTY_CLUSTER_CACHE),
            links: Interner::weighed(256, |link| link.len() + 16, MIN_LINK_GARBAGE, 8),
            title: String::new(),
            icon_name: String::new(),
            title_stack: Vec::new(),
            saved_modes: Vec::new(),
            palette: Palette::default(),
            base_palette: Palette::default(),
            replies: Vec::new(),
            clipboard: None,
            last_char: None,
            vt52_saved: None,
            bells: 0,
            collections: 0,
            cells_scanned: 0,
            work: 0,
            flood: false,
            window_ops: false,
            checksum_ext: 0,
            base_checksum_ext: 0,
            any_double: false,
        }
    }

    // ---- reading the screen (the presenters' API) ----

    pub fn cols(&self) -> usize {
        self.cols
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cursor(&self) -> Cursor {
        self.cursor
    }

    pub fn modes(&self) -> &Modes {
        &self.modes
    }

    /// The pen: the style SGR (and OSC 8) has set, that printed characters take.
    pub fn pen(&self) -> Style {
        self.pen.style
    }

    /// Whether the alternate screen buffer is shown.
    pub fn alternate_screen(&self) -> bool {
        self.alt_active
    }

    pub fn title(&self) -> &str {
        &self.title
    }

    pub fn icon_name(&self) -> &str {
        &self.icon_name
    }

    pub fn bells(&self) -> u64 {
        self.bells
    }

    /// The scroll margins: (top, bottom, left, right), inclusive and 0-based.
    pub fn margins(&self) -> (usize, usize, usize, usize) {
        (self.top, self.bottom, self.left, self.right)
    }

    /// Visible row `y` (0 is the top), with its styles.
    pub fn row(&self, y: usize) -> Line<'_> {
        self.grid().row_ref(y)
    }

    /// Whether visible row `y` continues on the next row (an automatic wrap left it).
    pub fn row_wrapped(&self, y: usize) -> bool {
        self.grid().meta(y).wrapped
    }

    /// Visible row `y`'s size (DECDWL, DECDHL): a row of double size shows its first cells
    /// ([`LineSize::shown_cols`]) at twice the width.
    pub fn line_size(&self, y: usize) -> LineSize {
        self.grid().meta(y).size()
    }

    /// Lines of scrollback held (the main screen's; the alternate screen has none).
    pub fn history_len(&self) -> usize {
        self.main.history_len()
    }

    /// Scrollback line `i`, 0 being the oldest, with its styles.
    pub fn history_row(&self, i: usize) -> Line<'_> {
        self.main.line_ref(i)
    }

    /// Scrollback line `i`'s size (a double-width or double-height line keeps it in history).
    pub fn history_line_size(&self, i: usize) -> LineSize {
        self.main.line_size(i)
    }

    /// Lines output has scrolled into the main screen's history, ever, or the history's length
    /// if a narrowing rewrapped it into more rows than that: never less than `history_len()`.
    /// With it a line has a number that stays while output arrives: history line `i` is line
    /// `history_pushed() - history_len() + i`, visible row `y` is `history_pushed() + y`
    /// (until a resize, which rewraps the lines).
    pub fn history_pushed(&self) -> u64 {
        self.main.pushed()
    }

    /// Whether scrollback line `i` continues on the next line (an automatic wrap left it).
    pub fn history_wrapped(&self, i: usize) -> bool {
        self.main.history_wrapped(i)
    }

    /// The hyperlink target of a style's `link` field.
    pub fn link(&self, link: u32) -> Option<&str> {
        let key = link.checked_sub(1).and_then(|id| self.links.get(id))?;
        // Links are interned as "id\0uri" so that equal OSC 8 ids join one link.
        key.split_once('\0').map(|(_, uri)| uri)
    }

    /// Appends what a cell shows to `out`: nothing for the right half of a wide character.
    pub fn push_cell_text(&self, cell: Cell, out: &mut String) {
        if let Some(c) = cell.char_value() {
            out.push(c);
        } else if let Some(s) = cell.cluster_index().and_then(|i| self.clusters.get(i)) {
            out.push_str(s);
        }
    }

    /// Visible row `y` as text, trailing blanks removed.
    pub fn row_text(&self, y: usize) -> String {
        self.cells_text(&self.row(y))
    }

    pub fn cells_text(&self, cells: &[Cell]) -> String {
        let mut s = String::with_capacity(cells.len());
        for &c in cells {
            self.push_cell_text(c, &mut s);
        }
        s.truncate(s.trim_end_matches(' ').len());
        s
    }

    /// Dirty columns `[start, end)` of visible row `y` since damage was last cleared.
    pub fn row_damage(&self, y: usize) -> Option<(usize, usize)> {
        let (s, e) = self.grid().meta(y).dirty;
        (s < e).then_some((s as usize, e as usize))
    }

    /// Full-screen scrolls since damage was last cleared: a presenter scrolls by this much
    /// first (when below `rows`), then redraws the dirty spans.
    pub fn scrolled(&self) -> usize {
        self.grid().scrolled()
    }

    pub fn clear_damage(&mut self) {
        self.grid_mut().clear_damage();
    }

    /// Bytes the program asked the terminal to send back (DSR, DA, DECRQM answers).
    pub fn take_replies(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.replies)
    }

    /// The last clipboard write the program made (OSC 52), once: what a host side passes on
    /// to the user's terminal, or drops.
    pub fn take_clipboard(&mut self) -> Option<Clipboard> {
        self.clipboard.take()
    }

    /// Approximate heap bytes held by the screen (cells, rows, style lists, clusters, links).
    pub fn memory_bytes(&self) -> usize {
        self.main.memory_bytes()
            + self.alt.memory_bytes()
            + self.tabs.capacity()
            + self.clusters.memory_bytes()
            + self.links.memory_bytes()
    }

    /// The work the screen has done since it was made, in cells touched: each character's cells,
    /// every cell an erase, an insertion, a deletion or a rectangle operation changes, a row
    /// (plus the rows a region moves) for each line scrolled, the cells and style entries a
    /// collection scans. A measure of the time a stream costs besides its bytes, which
    /// [`Terminal::feed_bounded`] bounds a turn by.
    pub(crate) fn work(&self) -> u64 {
        self.work + self.main.work() + self.alt.work()
    }

    /// Collections of the interned tables so far and the cells they scanned: the work a flood of
    /// distinct styles, clusters or links costs, which must stay proportional to what was fed.
    pub fn collector_work(&self) -> (u64, u64) {
        (self.collections, self.cells_scanned)
    }

    /// Styles in the rows' lists, and interned grapheme clusters and hyperlinks held (live or
    /// awaiting collection).
    pub fn interned_lens(&self) -> (usize, usize, usize) {
        (self.styles_len(), self.clusters.len(), self.links.len())
    }

    /// Styles held in the rows' lists, both buffers (bounded by the rows' widths).
    pub fn styles_len(&self) -> usize {
        self.main.styles_held() + self.alt.styles_held()
    }

    // ---- shared helpers for the control functions ----

    fn grid(&self) -> &Grid {
        if self.alt_active {
            &self.alt
        } else {
            &self.main
        }
    }

    fn grid_mut(&mut self) -> &mut Grid {
        if self.alt_active {
            &mut self.alt
        } else {
            &mut self.main
        }
    }

    /// The id of the current pen's style in visible row `y` (its fixed id, or its entry in the
    /// row's list).
    #[inline]
    fn pen_id(&mut self, y: usize) -> u32 {
        if let Some(id) = self.pen.fixed {
            return id;
        }
        let alt = self.alt_active;
        let grid = if alt { &mut self.alt } else { &mut self.main };
        let row = grid.visible_id(y);
        let epoch = grid.style_epoch();
        if let Some(at) = self.pen.at {
            if at.row == row && at.epoch == epoch && at.alt == alt {
                return at.id;
            }
        }
        // Neither default nor packed (`fixed` says): a listed style.
        let id = grid.intern_listed(row, &self.pen.style);
        // Interning may have renumbered the row's list (a new epoch): read it after.
        self.pen.at = Some(PenAt { alt, row, epoch: grid.style_epoch(), id });
        id
    }

    /// The style erasing leaves: a space with the current background colour (xterm's
    /// back-colour erase; xterm-256color's terminfo declares `bce`).
    #[inline]
    fn blank(&self) -> Style {
        Style { bg: self.pen.style.bg, ..Style::default() }
    }

    /// The blank cell of visible row `y` (see [`Self::blank`]).
    #[inline]
    fn blank_cell(&mut self, y: usize) -> Cell {
        let blank = self.blank();
        self.grid_mut().blank_at(y, &blank)
    }

    #[inline]
    fn set_pen(&mut self, style: Style) {
        // Not compared with the pen's style first: most SGRs change it, and the id's lookup in
        // the row's list finds an unchanged style as the list's last entry.
        self.pen.style = style;
        self.pen_changed();
    }

    /// After the pen's style was changed in place: its fixed id, and no cached list id.
    #[inline]
    fn pen_changed(&mut self) {
        self.pen.fixed = self.pen.style.fixed_id();
        self.pen.at = None;
    }

    /// Frees interned clusters and links that no cell (nor the pen, nor a saved cursor) uses
    /// any more.
    fn collect_garbage(&mut self) {
        *self.cluster_cache = text::EMPTY_CLUSTER_CACHE;
        let mut clusters = vec![false; self.clusters.capacity()];
        let scanned = self.main.cells_in_use() + self.alt.cells_in_use();
        self.collections += 1;
        self.cells_scanned += scanned as u64;
        self.work += (scanned + self.styles_len() + self.clusters.capacity() + self.links.capacity()) as u64;
        for grid in [&self.main, &self.alt] {
            grid.for_each_cell(|c| {
                if let Some(k) = c.cluster_index().and_then(|i| clusters.get_mut(i as usize)) {
                    *k = true;
                }
            });
        }
        self.clusters.sweep(&clusters, scanned);
        let mut links = vec![false; self.links.capacity()];
        let mut mark_link = |style: &Style| {
            if let Some(l) = style.link.checked_sub(1).and_then(|l| links.get_mut(l as usize)) {
                *l = true;
            }
        };
        for grid in [&self.main, &self.alt] {
            grid.for_each_style(&mut mark_link);
        }
        mark_link(&self.pen.style);
        for saved in [&self.saved_main, &self.saved_alt].into_iter().flatten() {
            mark_link(&saved.style);
        }
        self.links.sweep(&links, scanned);
        #[cfg(debug_assertions)]
        self.assert_integrity(integrity::Extent::Full);
    }

    /// Panics naming the broken invariant (debug builds only call this).
    #[cfg(debug_assertions)]
    fn assert_integrity(&self, extent: integrity::Extent) {
        if let Err(v) = self.check(extent) {
            panic!("{v}");
        }
    }

    /// Marks columns `[start, end)` of row `y` dirty.
    #[inline]
    fn touch(&mut self, y: usize, start: usize, end: usize) {
        self.grid_mut().touch(y, start, end);
    }

    /// Whether column `x` is inside the left/right margins.
    #[inline]
    fn in_lr(&self, x: usize) -> bool {
        (self.left..=self.right).contains(&x)
    }

    /// Whether row `y` is inside the top/bottom margins.
    #[inline]
    fn in_tb(&self, y: usize) -> bool {
        (self.top..=self.bottom).contains(&y)
    }

    /// Whether the margins are the full width (whole-row operations are possible).
    #[inline]
    fn full_width(&self) -> bool {
        self.left == 0 && self.right + 1 == self.cols
    }

    /// Before cells `[start, end)` of row `y` are overwritten: a wide character with only one
    /// half inside loses its other half too. Returns the span actually affected.
    fn split_wide_edges(&mut self, y: usize, start: usize, end: usize) -> (usize, usize) {
        split_wide_cells(self.grid_mut().row_mut(y), start, end)
    }

    fn reply(&mut self, bytes: &[u8]) {
        if self.replies.len() + bytes.len() <= MAX_REPLIES {
            self.replies.extend_from_slice(bytes);
        }
    }

    /// Changes the size (each side clamped as in [`Screen::new`]). The main screen reflows:
    /// soft-wrapped lines rejoin and rewrap at the new width, in the scrollback too, and the
    /// cursor stays on its character (see `grid/reflow.rs`); the alternate screen is cut or
    /// padded (full-screen programs redraw it on SIGWINCH). Margins are reset.
    pub fn resize(&mut self, cols: usize, rows: usize) {
        let (cols, rows) = (cols.clamp(1, MAX_COLS), rows.clamp(1, MAX_ROWS));
        if (cols, rows) == (self.cols, self.rows) {
            return;
        }
        let at = |c: Cursor| At { x: c.x, y: c.y, pending: c.pending_wrap };
        // While the alternate screen is shown, the main screen's cursor is the one 1049 saved.
        let main_at = match (self.alt_active, self.saved_main) {
            (true, Some(saved)) => at(saved.cursor),
            _ => at(self.cursor),
        };
        let main_at = self.main.reflow(cols, rows, main_at);
        let alt_y = self.alt.resize(cols, rows, self.cursor.y);
        self.cols = cols;
        self.rows = rows;
        let moved = |a: At| Cursor { x: a.x, y: a.y, pending_wrap: a.pending };
        if self.alt_active {
            self.cursor = Cursor { x: self.cursor.x.min(cols - 1), y: alt_y.min(rows - 1), pending_wrap: false };
            if let Some(saved) = self.saved_main.as_mut() {
                saved.cursor = moved(main_at);
            }
        } else {
            self.cursor = moved(main_at);
        }
        for saved in [self.saved_main.as_mut(), self.saved_alt.as_mut()].into_iter().flatten() {
            saved.cursor.x = saved.cursor.x.min(cols - 1);
            saved.cursor.y = saved.cursor.y.min(rows - 1);
        }
        self.top = 0;
        self.bottom = rows - 1;
        self.left = 0;
        self.right = cols - 1;
        cursor::resize_tabs(&mut self.tabs, cols);
    }

    /// The screen as `blitty replay --dump screen` prints it: one line per row, trailing
    /// spaces removed, then `cursor: R C` (0-based).
    pub fn dump_text(&self) -> String {
        let mut out = String::new();
        for y in 0..self.rows {
            out.push_str(&self.row_text(y));
            out.push('\n');
        }
        out.push_str(&format!("cursor: {} {}\n", self.cursor.y, self.cursor.x));
        out
    }
}

/// A terminal: the parser feeding the screen.
pub struct Terminal {
    parser: crate::parser::Parser,
    screen: Screen,
}

impl Terminal {
    /// A terminal of `cols` x `rows` with the default scrollback.
    pub fn new(cols: usize, rows: usize) -> Terminal {
        Terminal::with_scrollback(cols, rows, DEFAULT_SCROLLBACK)
    }

    pub fn with_scrollback(cols: usize, rows: usize, scrollback: usize) -> Terminal {
        Terminal { parser: crate::parser::Parser::new(), screen: Screen::new(cols, rows, scrollback) }
    }

    /// Parses `bytes` into the screen. Input may be split anywhere.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.parser.advance(&mut self.screen, bytes);
        #[cfg(debug_assertions)]
        self.screen.assert_integrity(integrity::Extent::Recent);
    }

    /// Parses bytes from the start of `bytes` as [`Terminal::feed`] would, stopping at the first
    /// point (between two bytes) after which the work done since the call reaches `budget`;
    /// returns how many bytes were consumed (`bytes.len()` when the budget was not reached),
    /// at least one of a non-empty `bytes`. The parser's state is kept, so the caller feeds the
    /// rest later, split anywhere: fed in such pieces, a stream leaves the same screen as fed
    /// whole. Work is counted in units: one a byte parsed, plus the cells each operation
    /// touched (text written, erases, scrolls within margins, rectangle operations, DECALN; a
    /// cell copied counts its source and its destination, a style entry copied or changed four;
    /// a scroll of the whole screen, a turn of the ring, costs about a row), plus the cells a
    /// collection of the interned tables scans. An operation is not divided: one that touches
    /// two million cells ends the turn it is in. For a loop that bounds one turn by the work
    /// done rather than by bytes ([`WORK_PER_TURN`]).
    pub fn feed_bounded(&mut self, bytes: &[u8], budget: u64) -> usize {
        let n = self.parser.advance_bounded(&mut self.screen, bytes, budget);
        #[cfg(debug_assertions)]
        self.screen.assert_integrity(integrity::Extent::Recent);
        n
    }

    /// Parses `bytes` into the screen as [`Terminal::feed`] does, except that whole lines of
    /// plain text that later lines of the same `bytes` scroll out of the history are counted
    /// and not written: the screen, the history and their counters come out the same, and a
    /// flood of text costs the lines that can still be seen (the screen's rows and the
    /// history's) rather than every line. For a caller that gathers output between frames or
    /// shows it later (with 10,000 lines of history, a frame's 1 MB of 40-byte lines writes
    /// 10,024 of its 25,000 lines); `blitty run` does not (see the README's benchmark).
    pub fn feed_flood(&mut self, bytes: &[u8]) {
        self.screen.flood = true;
        self.feed(bytes);
        self.screen.flood = false;
    }

    /// The part of a flood that [`Terminal::feed_flood`] would skip, counted now without
    /// feeding the rest: returns how many bytes at the start of `bytes` were taken (whole
    /// lines of plain text that the whole lines after them in `bytes` scroll out of the
    /// history), 0 unless the parser is between sequences and the screen waits at the start
    /// of its bottom row (after a CR LF). **The caller must feed `bytes[n..]` next, before
    /// anything reads the screen**: the counters already include the skipped lines, and the
    /// lines after them are what evicts the rows they would have pushed. For a caller that
    /// gathers a flood between frames and keeps only the tail it still has to parse.
    pub fn skip_unseen(&mut self, bytes: &[u8]) -> usize {
        if !self.parser.is_ground() {
            return 0;
        }
        self.screen.skip_unseen_lines(bytes)
    }

    pub fn screen(&self) -> &Screen {
        &self.screen
    }

    pub fn screen_mut(&mut self) -> &mut Screen {
        &mut self.screen
    }

    pub fn resize(&mut self, cols: usize, rows: usize) {
        self.screen.resize(cols, rows);
        #[cfg(debug_assertions)]
        self.screen.assert_integrity(integrity::Extent::Full);
    }

    pub fn take_replies(&mut self) -> Vec<u8> {
        self.screen.take_replies()
    }
}

#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod work_tests;
