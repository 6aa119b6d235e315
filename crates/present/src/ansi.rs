//! Frames for a host terminal (xterm, tmux, ...): a model of what the host shows, and a diff
//! from it to the engine's screen written as one buffer.
//!
//! A frame: hide the cursor; if the engine scrolled the whole screen by k lines since the last
//! frame, one SU (CSI k S) scrolls the host too; then, for each changed row, only the cells
//! that differ are written (short unchanged gaps are written through rather than jumped over;
//! a blank tail becomes one EL); SGR is emitted only when the pen must change; then the modes
//! that change what the host sends (cursor keys, keypad, mouse, bracketed paste, focus) and
//! the cursor's shape, position and visibility are brought in line.

use std::io::Write;

use blitty_vt::{Cell, CursorShape, Line, LineSize, Modes, MouseEncoding, MouseTracking, Screen, Style};

use crate::sgr;
use crate::view::View;

/// One cell as the host shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct HostCell {
    text: Text,
    style: Style,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Text {
    Char(char),
    /// A character with combining marks.
    Cluster(Box<str>),
    /// The right half of a wide character.
    Spacer,
    /// Not known (a double-size row's cells past its half, once it is single again): equal to
    /// no cell a frame wants, so it is written.
    Unknown,
}

impl HostCell {
    fn blank(style: Style) -> HostCell {
        HostCell { text: Text::Char(' '), style }
    }

    fn is_wide(&self, next: Option<&HostCell>) -> bool {
        matches!(next, Some(HostCell { text: Text::Spacer, .. }))
    }
}

/// The host terminal's modes that blitty mirrors from the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct HostModes {
    application_cursor: bool,
    application_keypad: bool,
    mouse: MouseTracking,
    mouse_encoding: MouseEncoding,
    focus_events: bool,
    bracketed_paste: bool,
    reverse_video: bool,
    cursor_shape: CursorShape,
}

impl HostModes {
    fn of(m: &Modes) -> HostModes {
        HostModes {
            application_cursor: m.application_cursor,
            application_keypad: m.application_keypad,
            mouse: m.mouse,
            mouse_encoding: m.mouse_encoding,
            focus_events: m.focus_events,
            bracketed_paste: m.bracketed_paste,
            reverse_video: m.reverse_video,
            cursor_shape: m.cursor_shape,
        }
    }

    /// What the host had before blitty started (and gets back at the end).
    fn initial() -> HostModes {
        HostModes::of(&Modes::default())
    }
}

/// What gives a host terminal back after blitty drew on it: every mode a frame can turn on,
/// turned off, whatever was sent. SGR reset; normal cursor keys (DECCKM) and numeric keypad
/// (DECKPNM); normal video (DECSCNM); every mouse tracking mode (9, 1000, 1002, 1003) and
/// encoding (1005, 1006, 1015, 1016); focus events (1004); bracketed paste (2004); autowrap on;
/// cursor shown; the main screen (1049). It is a constant so that it can be written from
/// anywhere, a signal handler included: the restore after a panic or an abort must not depend
/// on state that may be what broke. The cursor shape is not in it: see [`RESET_CURSOR`].
pub const RESET_HOST: &[u8] = b"\x1b[0m\x1b[?1l\x1b>\x1b[?5l\x1b[?9l\x1b[?1000l\x1b[?1002l\x1b[?1003l\
\x1b[?1005l\x1b[?1006l\x1b[?1015l\x1b[?1016l\x1b[?1004l\x1b[?2004l\x1b[?7h\x1b[?25h\x1b[?1049l";

/// Gives the host its own cursor shape back (DECSCUSR 0), written at the end only when blitty
/// changed the host's shape ([`AnsiPresenter::cursor_touched`]). Most terminals (tmux, kitty,
/// alacritty, foot, VTE) take 0 for the shape their user configured, but xterm takes it for
/// DEC's blinking block (`CASE_DECSCUSR`), whatever its `cursorBlink` resource says: sent after
/// every session, it left an xterm user's steady cursor blinking after any program, one that
/// never touched the cursor included. xterm has no sequence for "your own shape", so after a
/// program that changed the shape an xterm is left with a blinking block, as it is when the
/// program runs in it directly and ends with `CSI 0 SP q`.
pub const RESET_CURSOR: &[u8] = b"\x1b[0 q";

/// The DEC private mode that turns on mouse tracking `m`.
fn mouse_mode(m: MouseTracking) -> Option<u32> {
    match m {
        MouseTracking::Off => None,
        MouseTracking::X10 => Some(9),
        MouseTracking::Normal => Some(1000),
        MouseTracking::ButtonMotion => Some(1002),
        MouseTracking::AnyMotion => Some(1003),
    }
}

/// The DEC private mode that turns on mouse encoding `m`.
fn encoding_mode(m: MouseEncoding) -> Option<u32> {
    match m {
        MouseEncoding::Default => None,
        MouseEncoding::Utf8 => Some(1005),
        MouseEncoding::Sgr => Some(1006),
        MouseEncoding::Urxvt => Some(1015),
        MouseEncoding::SgrPixels => Some(1016),
    }
}

/// Statistics of the frames written, for benchmarks and tests.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameStats {
    pub frames: u64,
    pub bytes: u64,
    pub scrolls: u64,
}

pub struct AnsiPresenter {
    cols: usize,
    rows: usize,
    host: Vec<HostCell>,
    /// Each host row's size, as the frames set it (`ESC # 3/4/5/6`).
    host_size: Vec<LineSize>,
    /// Where the host's cursor is, when known (unknown after writing the last column).
    cursor: Option<(usize, usize)>,
    pen: Style,
    modes: HostModes,
    /// The next frame compares every cell, not only damaged ones.
    full: bool,
    /// The view drawn by the last frame (its offset), so damage is trusted only for the live view.
    last_offset: Option<usize>,
    last_alt: bool,
    title: String,
    /// Whether a frame has changed the host's cursor shape (then the end gives it back).
    cursor_touched: bool,
    /// The style of blitty's own rows (`overlay`): inverse video unless colours are set.
    overlay_style: Style,
    /// blitty takes the mouse for itself (the scrollback mode): button and motion reports in
    /// SGR encoding, whatever the program asked for.
    mouse_for_blitty: bool,
    pub stats: FrameStats,
}

fn inverse() -> Style {
    let mut style = Style::default();
    style.attrs.set(blitty_vt::Attrs::INVERSE, true);
    style
}

/// Unchanged cells shorter than this are written through instead of moving the cursor.
const GAP: usize = 4;

impl AnsiPresenter {
    pub fn new(cols: usize, rows: usize) -> AnsiPresenter {
        AnsiPresenter {
            cols,
            rows,
            host: vec![HostCell::blank(Style::default()); cols * rows],
            host_size: vec![LineSize::Single; rows],
            cursor: None,
            pen: Style::default(),
            modes: HostModes::initial(),
            full: true,
            last_offset: None,
            last_alt: false,
            title: String::new(),
            cursor_touched: false,
            overlay_style: inverse(),
            mouse_for_blitty: false,
            stats: FrameStats::default(),
        }
    }

    /// Takes over the host: its alternate screen, cleared, default pen, autowrap on.
    pub fn enter(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"\x1b[?1049h\x1b[0m\x1b[?7h\x1b[H\x1b[2J");
        self.reset_model();
    }

    /// The host changed size: the model is cleared and the next frame redraws everything.
    pub fn resize(&mut self, cols: usize, rows: usize, out: &mut Vec<u8>) {
        self.cols = cols;
        self.rows = rows;
        out.extend_from_slice(b"\x1b[0m\x1b[H\x1b[2J");
        self.reset_model();
    }

    /// Forgets what the host shows (it was cleared to default blanks).
    fn reset_model(&mut self) {
        self.host = vec![HostCell::blank(Style::default()); self.cols * self.rows];
        // Clearing the screen makes its lines single size (xterm's ClearBufRows).
        self.host_size = vec![LineSize::Single; self.rows];
        self.cursor = Some((0, 0));
        self.pen = Style::default();
        self.full = true;
    }

    /// Gives the host back: [`RESET_HOST`], whatever the presenter believes the host has on.
    /// The cursor shape goes back to the host's own only if a frame changed it.
    pub fn leave(&mut self, out: &mut Vec<u8>) {
        self.modes = HostModes::initial();
        out.extend_from_slice(RESET_HOST);
        if std::mem::take(&mut self.cursor_touched) {
            out.extend_from_slice(RESET_CURSOR);
        }
    }

    /// Whether a frame has changed the host's cursor shape since the start (or the last
    /// [`AnsiPresenter::leave`]): a restore that cannot ask the presenter (a panic, an abort)
    /// needs to know whether to write [`RESET_CURSOR`].
    /// The host's size this presenter draws for: (columns, rows).
    pub fn size(&self) -> (usize, usize) {
        (self.cols, self.rows)
    }

    pub fn cursor_touched(&self) -> bool {
        self.cursor_touched
    }

    /// Writes the frame that makes the host show `view` into `out` (appended). The caller
    /// clears the engine's damage once the frame is written.
    pub fn frame(&mut self, view: View, out: &mut Vec<u8>) {
        let screen = view.screen;
        let start = out.len();
        out.extend_from_slice(b"\x1b[?25l");
        let live = view.offset == 0;
        let trusted = !self.full
            && live
            && self.last_offset == Some(0)
            && self.last_alt == screen.alternate_screen()
            && screen.cols() == self.cols
            && screen.rows() == self.rows;
        if trusted {
            let k = screen.scrolled();
            if k > 0 && k < self.rows {
                self.scroll_host(k, out);
            }
        }
        let rows = self.rows.min(screen.rows());
        for y in 0..rows {
            let resized = self.set_line_size(y, view.line_size(y), out);
            let span = if trusted && !resized {
                match screen.row_damage(y) {
                    Some((s, e)) => (s, e.min(self.cols)),
                    None => continue,
                }
            } else {
                (0, self.cols)
            };
            self.draw_row(view, y, span, out);
        }
        self.full = false;
        self.last_offset = Some(view.offset);
        self.last_alt = screen.alternate_screen();
        let mut modes = HostModes::of(screen.modes());
        if self.mouse_for_blitty {
            modes.mouse = blitty_vt::MouseTracking::ButtonMotion;
            modes.mouse_encoding = blitty_vt::MouseEncoding::Sgr;
        }
        self.set_modes(modes, out);
        self.set_title(screen.title(), out);
        let c = screen.cursor();
        if live {
            self.move_to(c.y.min(self.rows - 1), c.x.min(self.cols - 1), out);
            if screen.modes().cursor_visible {
                out.extend_from_slice(b"\x1b[?25h");
            }
        }
        self.stats.frames += 1;
        self.stats.bytes += (out.len() - start) as u64;
    }

    /// Scrolls the host's whole screen up by `k` (the engine did the same).
    fn scroll_host(&mut self, k: usize, out: &mut Vec<u8>) {
        // New lines take the host pen's background: use the default.
        self.set_pen(&Style::default(), out);
        let _ = write!(out, "\x1b[{k}S");
        self.host.drain(..k * self.cols);
        self.host.resize(self.rows * self.cols, HostCell::blank(Style::default()));
        // A line's size moves with it; the lines scrolled in are single size.
        self.host_size.drain(..k);
        self.host_size.resize(self.rows, LineSize::Single);
        self.stats.scrolls += 1;
    }

    /// Gives host row `y` the size `want` (DECSWL, DECDWL, DECDHL), as a terminal that has
    /// them shows it (xterm, VTE, konsole); one that has not (tmux, alacritty) ignores the
    /// sequence and shows the row's first half at single width, the rest blank. Returns
    /// whether it changed: the row is then compared whole.
    fn set_line_size(&mut self, y: usize, want: LineSize, out: &mut Vec<u8>) -> bool {
        if self.host_size[y] == want {
            return false;
        }
        self.move_to(y, 0, out);
        let n = match want {
            LineSize::Single => b'5',
            LineSize::DoubleWidth => b'6',
            LineSize::DoubleHeightTop => b'3',
            LineSize::DoubleHeightBottom => b'4',
        };
        out.extend_from_slice(&[0x1b, b'#', n]);
        if want == LineSize::Single {
            // The host kept the cells past the half it showed; what the frames wrote there
            // was dropped (xterm drops text past a double-size line's half), so they are not
            // known: the row's cells are all written again.
            let unknown = HostCell { text: Text::Unknown, style: Style::default() };
            self.host[y * self.cols..(y + 1) * self.cols].fill(unknown);
        }
        self.host_size[y] = want;
        true
    }

    /// The columns host row `y` shows: all, or the first half of a double-size row.
    fn row_end(&self, y: usize) -> usize {
        self.host_size[y].shown_cols(self.cols)
    }

    fn host_cell(&self, y: usize, x: usize) -> &HostCell {
        &self.host[y * self.cols + x]
    }

    /// The engine cell as the host would show it.
    fn wanted(screen: &Screen, row: &Line, cell: Cell) -> HostCell {
        let text = if cell.is_spacer() {
            Text::Spacer
        } else if let Some(c) = cell.char_value() {
            Text::Char(c)
        } else {
            let mut s = String::new();
            screen.push_cell_text(cell, &mut s);
            Text::Cluster(for_any_host(s).into_boxed_str())
        };
        HostCell { text, style: row.style(cell) }
    }

    fn draw_row(&mut self, view: View, y: usize, span: (usize, usize), out: &mut Vec<u8>) {
        let screen = view.screen;
        let row = view.row(y);
        // A double-size row shows its first half, and only that is written: the host keeps
        // the cells after it but does not show them (and text sent there would wrap from its
        // last shown column to the next row).
        let cols = self.row_end(y).min(row.len());
        let mut wanted: Vec<HostCell> = row[..cols].iter().map(|&c| Self::wanted(screen, &row, c)).collect();
        if cols < row.len() && row[cols].is_spacer() {
            // A wide character across the half is not shown whole.
            wanted[cols - 1] = HostCell::blank(Style::default());
        }
        // A blank tail with one background becomes a single EL.
        let tail_style = wanted.last().map(|c| c.style).unwrap_or_default();
        let erasable = |c: &HostCell| c.text == Text::Char(' ') && c.style == tail_style;
        let mut tail = cols;
        while tail > 0 && erasable(&wanted[tail - 1]) {
            tail -= 1;
        }
        let bce_ok = tail_style == Style { bg: tail_style.bg, ..Style::default() };
        let (mut x, end) = (span.0.min(cols), span.1.min(cols));
        // Start on the left half of a wide character.
        if x > 0 && wanted[x].text == Text::Spacer {
            x -= 1;
        }
        while x < end {
            if *self.host_cell(y, x) == wanted[x] {
                x += 1;
                continue;
            }
            if bce_ok && x >= tail && cols - x > GAP && (x..cols).any(|i| *self.host_cell(y, i) != wanted[i]) {
                self.move_to(y, x, out);
                self.set_pen(&tail_style, out);
                out.extend_from_slice(b"\x1b[K");
                for i in x..cols {
                    self.set_host(y, i, HostCell::blank(tail_style));
                }
                break;
            }
            self.move_to(y, x, out);
            // Write this cell and through short gaps of unchanged cells to the next change.
            let mut last_change = x;
            while x < end.max(last_change + 1) && x < cols {
                if *self.host_cell(y, x) != wanted[x] {
                    last_change = x;
                } else if x - last_change > GAP {
                    break;
                }
                x = self.put(y, x, &wanted, out);
            }
        }
    }

    /// Writes `wanted[x]` (a wide character takes two cells) at the host cursor, which is at
    /// (y, x); returns the next column.
    fn put(&mut self, y: usize, x: usize, wanted: &[HostCell], out: &mut Vec<u8>) -> usize {
        self.move_to(y, x, out);
        let cell = &wanted[x];
        let wide = cell.is_wide(wanted.get(x + 1));
        if cell.text == Text::Spacer {
            // A right half whose left half is unchanged: rewrite from the left half.
            return x + 1;
        }
        self.set_pen(&cell.style, out);
        let mut buf = [0u8; 4];
        match &cell.text {
            Text::Char(c) => {
                let c = if c.is_control() { ' ' } else { *c };
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            Text::Cluster(s) => out.extend_from_slice(s.as_bytes()),
            Text::Spacer | Text::Unknown => {}
        }
        self.set_host(y, x, cell.clone());
        let next = if wide {
            self.set_host(y, x + 1, wanted[x + 1].clone());
            x + 2
        } else {
            x + 1
        };
        self.cursor = if next < self.row_end(y) { Some((y, next)) } else { None };
        next
    }

    /// Records that the host cell (y, x) now shows `cell`, with the side effects a real
    /// terminal has: overwriting half of a wide character blanks the other half.
    fn set_host(&mut self, y: usize, x: usize, cell: HostCell) {
        let i = y * self.cols + x;
        if cell.text != Text::Spacer {
            if x > 0 && self.host[i].text == Text::Spacer {
                let style = self.host[i - 1].style;
                self.host[i - 1] = HostCell::blank(style);
            }
            if x + 1 < self.cols && self.host[i + 1].text == Text::Spacer {
                let style = self.host[i + 1].style;
                self.host[i + 1] = HostCell::blank(style);
            }
        }
        self.host[i] = cell;
    }

    fn set_pen(&mut self, style: &Style, out: &mut Vec<u8>) {
        sgr::transition(out, &self.pen, style);
        self.pen = *style;
    }

    /// Moves the host cursor, with the shortest sequence that does it.
    fn move_to(&mut self, y: usize, x: usize, out: &mut Vec<u8>) {
        match self.cursor {
            Some((cy, cx)) if (cy, cx) == (y, x) => {}
            // CUF stops at a double-size row's half; CHA does not.
            Some((cy, cx)) if cy == y && x > cx && self.host_size[y] == LineSize::Single => {
                let _ = if x - cx == 1 { write!(out, "\x1b[C") } else { write!(out, "\x1b[{}C", x - cx) };
            }
            Some((cy, _)) if cy == y && x == 0 => out.push(b'\r'),
            Some((cy, _)) if cy == y => {
                let _ = write!(out, "\x1b[{}G", x + 1);
            }
            _ => {
                let _ = if x == 0 { write!(out, "\x1b[{}H", y + 1) } else { write!(out, "\x1b[{};{}H", y + 1, x + 1) };
            }
        }
        self.cursor = Some((y, x));
    }

    fn set_modes(&mut self, want: HostModes, out: &mut Vec<u8>) {
        let have = self.modes;
        if have == want {
            return;
        }
        let dec = |out: &mut Vec<u8>, mode: u32, on: bool| {
            let _ = write!(out, "\x1b[?{mode}{}", if on { 'h' } else { 'l' });
        };
        if have.application_cursor != want.application_cursor {
            dec(out, 1, want.application_cursor);
        }
        if have.application_keypad != want.application_keypad {
            out.extend_from_slice(if want.application_keypad { b"\x1b=" } else { b"\x1b>" });
        }
        // Mouse tracking and encoding are each one of several modes: the old one goes off,
        // then the new one on.
        let mut switch = |from: Option<u32>, to: Option<u32>| {
            if from != to {
                from.into_iter().for_each(|c| dec(out, c, false));
                to.into_iter().for_each(|c| dec(out, c, true));
            }
        };
        switch(mouse_mode(have.mouse), mouse_mode(want.mouse));
        switch(encoding_mode(have.mouse_encoding), encoding_mode(want.mouse_encoding));
        if have.focus_events != want.focus_events {
            dec(out, 1004, want.focus_events);
        }
        if have.bracketed_paste != want.bracketed_paste {
            dec(out, 2004, want.bracketed_paste);
        }
        if have.reverse_video != want.reverse_video {
            dec(out, 5, want.reverse_video);
        }
        if have.cursor_shape != want.cursor_shape {
            let n = match want.cursor_shape {
                CursorShape::Default => 0,
                CursorShape::BlinkingBlock => 1,
                CursorShape::SteadyBlock => 2,
                CursorShape::BlinkingUnderline => 3,
                CursorShape::SteadyUnderline => 4,
                CursorShape::BlinkingBar => 5,
                CursorShape::SteadyBar => 6,
            };
            let _ = write!(out, "\x1b[{n} q");
            self.cursor_touched = true;
        }
        self.modes = want;
    }

    /// The window title, from the engine's (already control-free) title.
    fn set_title(&mut self, title: &str, out: &mut Vec<u8>) {
        if title != self.title {
            let clean: String = title.chars().filter(|c| !c.is_control()).collect();
            out.extend_from_slice(b"\x1b]2;");
            out.extend_from_slice(clean.as_bytes());
            out.push(0x07);
            self.title = title.to_string();
        }
    }

    /// Draws `text` right-aligned on row `y` in reverse video, over whatever the view shows
    /// (the scrollback position indicator). The next frame repaints what it covers.
    pub fn overlay(&mut self, y: usize, text: &str, out: &mut Vec<u8>) {
        if y >= self.rows {
            return;
        }
        // blitty's own row is single width (the next frame gives the row its size back).
        self.set_line_size(y, LineSize::Single, out);
        let style = self.overlay_style;
        let chars: Vec<char> = text.chars().filter(|c| !c.is_control()).take(self.cols).collect();
        let x0 = self.cols - chars.len();
        let mut row = vec![HostCell::blank(Style::default()); self.cols];
        for (i, &c) in chars.iter().enumerate() {
            row[x0 + i] = HostCell { text: Text::Char(c), style };
        }
        for x in x0..self.cols {
            self.put(y, x, &row, out);
        }
    }

    /// Puts the host's cursor back on the program's (after overlays moved it), shown if the
    /// program shows it.
    pub fn place_cursor(&mut self, screen: &Screen, out: &mut Vec<u8>) {
        let c = screen.cursor();
        if self.rows > 0 && self.cols > 0 {
            self.move_to(c.y.min(self.rows - 1), c.x.min(self.cols - 1), out);
        }
        if screen.modes().cursor_visible {
            out.extend_from_slice(b"\x1b[?25h");
        }
    }

    /// Colours for blitty's own rows (messages, help, the scrollback label); with neither,
    /// they are drawn in inverse video.
    pub fn set_overlay_colours(&mut self, fg: Option<blitty_vt::Color>, bg: Option<blitty_vt::Color>) {
        self.overlay_style = if fg.is_none() && bg.is_none() {
            inverse()
        } else {
            Style { fg: fg.unwrap_or_default(), bg: bg.unwrap_or_default(), ..Style::default() }
        };
    }

    /// While on, the host reports the mouse to blitty (buttons, motion with a button held,
    /// the wheel; SGR encoding); off gives the program's own modes back. Takes effect with the
    /// next frame.
    pub fn set_mouse_for_blitty(&mut self, on: bool) {
        self.mouse_for_blitty = on;
    }

    /// Draws cells `[x0, x1)` of row `y` of `view` again with `restyle` applied to their style
    /// (search matches, a selection, a cursor), after a frame. The next frame must compare
    /// every cell ([`Self::invalidate`]) to take the marks away.
    pub fn mark(
        &mut self,
        view: View,
        y: usize,
        x0: usize,
        x1: usize,
        restyle: impl Fn(Style) -> Style,
        out: &mut Vec<u8>,
    ) {
        if y >= self.rows {
            return;
        }
        let row = view.row(y);
        // Only a double-size row's shown half (see `draw_row`).
        let cols = self.row_end(y).min(row.len());
        let mut wanted: Vec<HostCell> = row[..cols].iter().map(|&c| Self::wanted(view.screen, &row, c)).collect();
        let (mut x, end) = (x0.min(cols), x1.min(cols));
        // Whole wide characters.
        if x > 0 && wanted[x].text == Text::Spacer {
            x -= 1;
        }
        for c in &mut wanted[x..end.max(x)] {
            c.style = restyle(c.style);
        }
        if end < cols && wanted[end].text == Text::Spacer {
            wanted[end].style = restyle(wanted[end].style);
        }
        while x < end {
            x = self.put(y, x, &wanted, out);
        }
    }

    /// Forces the next frame to compare every cell (after the view changed).
    pub fn invalidate(&mut self) {
        self.full = true;
    }
}

/// The visible screen as text with SGR, one line per row, as `tmux capture-pane -ep` prints a
/// pane (`blitty replay --dump styled`): each row starts from the default pen, with `ESC # 6`,
/// `ESC # 3` or `ESC # 4` first when it is double size (then its shown half only), and ends
/// with the pen back at the default. Trailing blanks are dropped unless they carry a
/// background colour; the right half of a wide character writes nothing.
pub fn styled_rows(screen: &Screen, out: &mut Vec<u8>) {
    let mut text = String::new();
    for y in 0..screen.rows() {
        let row = screen.row(y);
        let size = screen.line_size(y);
        out.extend_from_slice(match size {
            LineSize::Single => b"",
            LineSize::DoubleWidth => b"\x1b#6",
            LineSize::DoubleHeightTop => b"\x1b#3",
            LineSize::DoubleHeightBottom => b"\x1b#4",
        });
        let end = last_shown(&row, size.shown_cols(row.len())).map_or(0, |e| e + 1);
        let mut pen = Style::default();
        write_cells(screen, &row, end, &mut pen, &mut text, out);
        sgr::transition(out, &pen, &Style::default());
        out.push(b'\n');
    }
}

/// The last of a row's first `shown` cells that shows something: a character, or a blank with
/// a background colour.
fn last_shown(row: &Line, shown: usize) -> Option<usize> {
    row[..shown].iter().rposition(|c| !c.is_blank() || row.style(*c).bg != blitty_vt::Color::Default)
}

/// Appends the row's cells `..end` as text with SGR, the pen `pen` going along (a control
/// shown as a space, the right half of a wide character as nothing); `text` is a buffer for
/// each cell's text. Returns the columns written.
fn write_cells(
    screen: &Screen,
    row: &Line,
    end: usize,
    pen: &mut Style,
    text: &mut String,
    out: &mut Vec<u8>,
) -> usize {
    let mut written = 0;
    for &cell in &row[..end] {
        if cell.is_spacer() {
            continue;
        }
        let style = row.style(cell);
        sgr::transition(out, pen, &style);
        *pen = style;
        text.clear();
        screen.push_cell_text(cell, text);
        for c in text.chars() {
            let c = if c.is_control() { ' ' } else { c };
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
        written += if cell.is_wide() { 2 } else { 1 };
    }
    written
}

/// What the program left on the main screen, for the host's normal screen when blitty ends:
/// every history line, then the screen's rows up to the last one with text (or the cursor's),
/// as text with SGR, in one piece. The host's own scrollback then holds what the program
/// printed, as it would had the program run without blitty (tmux and screen lose it).
/// - A row that wrapped is written whole and not ended, so the host wraps it itself and knows
///   it for one line; other rows lose their trailing blanks and end with CR LF.
/// - Nothing follows the cursor's row: the host's cursor is left on it, at its column, so the
///   shell's prompt comes where it would have come (no blank line is added).
pub fn transcript(screen: &Screen, out: &mut Vec<u8>) {
    let last = (0..screen.rows()).rev().find(|&y| !screen.row_text(y).is_empty()).unwrap_or(0);
    let cursor = screen.cursor();
    let last = last.max(cursor.y).min(screen.rows().saturating_sub(1));
    let history = screen.history_len();
    let mut pen = Style::default();
    // One buffer for every cell's text: a colour-dense history of 10,000 lines is 800,000 cells.
    let mut text = String::new();
    for i in 0..history + last + 1 {
        let (row, wrapped, size) = if i < history {
            (screen.history_row(i), screen.history_wrapped(i), screen.history_line_size(i))
        } else {
            let y = i - history;
            (screen.row(y), screen.row_wrapped(y), screen.line_size(y))
        };
        // A double-size row's text is its shown half, written at single width.
        let shown = size.shown_cols(row.len());
        let is_last = i == history + last;
        let whole = wrapped && !is_last;
        let end = if whole { Some(shown - 1) } else { last_shown(&row, shown) };
        let written = write_cells(screen, &row, end.map_or(0, |e| e + 1), &mut pen, &mut text, out);
        sgr::transition(out, &pen, &Style::default());
        pen = Style::default();
        if is_last {
            if i - history == cursor.y && cursor.x != written {
                // The cursor's column on its row (CHA).
                out.extend_from_slice(format!("\x1b[{}G", cursor.x + 1).as_bytes());
            } else if i - history != cursor.y {
                out.extend_from_slice(b"\r\n");
            }
        } else if !whole {
            out.extend_from_slice(b"\r\n");
        }
    }
}

/// A cell's cluster as it is sent to the host terminal: without the characters that make some
/// terminals give it another width than the engine's (which is xterm's and the C library's
/// `wcwidth`, by which programs lay out their lines). VS16 (U+FE0F) widens a narrow emoji to
/// two cells in kitty, foot, ghostty, konsole and tmux 3.4 (`❤️`, `⚠️`, `#️`: one cell here),
/// VS15 (U+FE0E) narrows a wide one there (`⌚︎`: two cells here), and a ZWJ after an emoji
/// joins the next emoji into one two-cell picture there (`👨‍👩‍👧`: six cells here, as in
/// xterm and alacritty). The engine keeps the cell as the program wrote it; only the host gets
/// the character without them, so that what follows stays in its column in every terminal
/// (measured by ucs-detect: `scripts/ucs-detect.sh`). A ZWJ after anything else (Indic
/// conjuncts, which no terminal widens) is kept.
fn for_any_host(cluster: String) -> String {
    let emoji_base = cluster.chars().next().is_some_and(is_emoji_block);
    let dropped = |c: char| matches!(c, '\u{fe0e}' | '\u{fe0f}') || (c == '\u{200d}' && emoji_base);
    if !cluster.chars().any(dropped) {
        return cluster;
    }
    let kept: String = cluster.chars().filter(|&c| !dropped(c)).collect();
    // A cluster of nothing but those (a mark at the start of a row) still takes its cell.
    if kept.is_empty() {
        " ".to_string()
    } else {
        kept
    }
}

/// Whether `c` is in the blocks that hold emoji (Extended_Pictographic's): the symbols and
/// pictographs from U+1F000, arrows to miscellaneous symbols and dingbats (U+2190..U+2BFF),
/// and the few elsewhere (©, ®, ‼, ⁉, ™, ℹ, Ⓜ, 〰, 〽, ㊗, ㊙).
fn is_emoji_block(c: char) -> bool {
    matches!(c as u32, 0x1f000..=0x1faff | 0x2190..=0x2bff | 0xa9 | 0xae | 0x203c | 0x2049 | 0x2122 | 0x2139
        | 0x3030 | 0x303d | 0x3297 | 0x3299)
}
