//! The engines measured side by side: blitty's own and its peers, behind one small trait.
//! Each adapter feeds bytes and can dump its screen in `blitty replay`'s format (rows with
//! trailing spaces removed, then `cursor: R C`), so screens can be compared.

use blitty_vt::Terminal;

pub trait Engine {
    /// Feeds output bytes.
    fn feed(&mut self, bytes: &[u8]);
    /// The visible screen, in `blitty replay --dump screen` format.
    fn dump(&self) -> String;
}

/// Builds an engine of `cols` x `rows` keeping `scrollback` lines.
pub type MakeEngine = fn(cols: usize, rows: usize, scrollback: usize) -> Box<dyn Engine>;

/// An engine the lab knows about; `make` is None when it is not available on this machine.
pub struct Peer {
    pub name: &'static str,
    pub make: Option<MakeEngine>,
    /// Why the peer is missing, when it is.
    pub missing: &'static str,
}

pub fn all() -> Vec<Peer> {
    vec![
        Peer {
            name: "blitty",
            make: Some(|c, r, s| Box::new(Blitty(Terminal::with_scrollback(c, r, s)))),
            missing: "",
        },
        Peer { name: "alacritty_terminal", make: Some(|c, r, s| Box::new(Alacritty::new(c, r, s))), missing: "" },
        Peer { name: "vt100", make: Some(|c, r, s| Box::new(Vt100::new(c, r, s))), missing: "" },
        libvterm::peer(),
    ]
}

fn dump_rows(rows: impl Iterator<Item = String>, cursor: (usize, usize)) -> String {
    let mut out = String::new();
    for row in rows {
        out.push_str(row.trim_end_matches(' '));
        out.push('\n');
    }
    out.push_str(&format!("cursor: {} {}\n", cursor.0, cursor.1));
    out
}

pub struct Blitty(pub Terminal);

impl Engine for Blitty {
    fn feed(&mut self, bytes: &[u8]) {
        self.0.feed(bytes);
    }
    fn dump(&self) -> String {
        self.0.screen().dump_text()
    }
}

mod alacritty {
    use alacritty_terminal::event::VoidListener;
    use alacritty_terminal::grid::Dimensions;
    use alacritty_terminal::index::{Column, Line};
    use alacritty_terminal::term::cell::Flags;
    use alacritty_terminal::term::{test::TermSize, Config, Term};
    use alacritty_terminal::vte::ansi::Processor;

    pub struct Alacritty {
        term: Term<VoidListener>,
        parser: Processor,
    }

    impl Alacritty {
        pub fn new(cols: usize, rows: usize, scrollback: usize) -> Self {
            let config = Config { scrolling_history: scrollback, ..Config::default() };
            Alacritty { term: Term::new(config, &TermSize::new(cols, rows), VoidListener), parser: Processor::new() }
        }
    }

    impl super::Engine for Alacritty {
        fn feed(&mut self, bytes: &[u8]) {
            self.parser.advance(&mut self.term, bytes);
        }
        fn dump(&self) -> String {
            let grid = self.term.grid();
            let rows = (0..grid.screen_lines()).map(|y| {
                let row = &grid[Line(y as i32)];
                let mut s = String::new();
                for x in 0..grid.columns() {
                    let cell = &row[Column(x)];
                    if cell.flags.intersects(Flags::WIDE_CHAR_SPACER) {
                        continue;
                    }
                    if cell.flags.intersects(Flags::LEADING_WIDE_CHAR_SPACER) {
                        s.push(' ');
                        continue;
                    }
                    s.push(cell.c);
                    if let Some(z) = cell.zerowidth() {
                        s.extend(z);
                    }
                }
                s
            });
            let p = grid.cursor.point;
            super::dump_rows(rows, (p.line.0.max(0) as usize, p.column.0))
        }
    }
}
pub use alacritty::Alacritty;

pub struct Vt100(pub vt100::Parser);

impl Vt100 {
    pub fn new(cols: usize, rows: usize, scrollback: usize) -> Vt100 {
        let nz = |v: usize| std::num::NonZeroU16::new(v.clamp(1, u16::MAX as usize) as u16).expect("clamped to 1..");
        Vt100(vt100::Parser::new(nz(rows), nz(cols), scrollback))
    }
}

impl Engine for Vt100 {
    fn feed(&mut self, bytes: &[u8]) {
        self.0.process(bytes);
    }
    fn dump(&self) -> String {
        let screen = self.0.screen();
        let (rows, cols) = screen.size();
        let rows = (0..rows.get()).map(|y| {
            let mut s = String::new();
            for x in 0..cols.get() {
                match screen.cell(y, x) {
                    Some(c) if c.is_wide_continuation() => {}
                    Some(c) if c.has_contents() => s.push_str(c.contents()),
                    _ => s.push(' '),
                }
            }
            s
        });
        let (y, x) = screen.cursor_position();
        dump_rows(rows, (y as usize, x as usize))
    }
}

#[cfg(has_libvterm)]
mod libvterm {
    //! libvterm through its C API (Debian's libvterm-dev). Only the functions the lab calls
    //! are declared. Its screen keeps no scrollback of its own (a host stores pushed lines
    //! through a callback), so it is measured without one.
    use std::os::raw::{c_int, c_void};

    #[repr(C)]
    struct VTermPos {
        row: c_int,
        col: c_int,
    }

    extern "C" {
        fn vterm_new(rows: c_int, cols: c_int) -> *mut c_void;
        fn vterm_free(vt: *mut c_void);
        fn vterm_set_utf8(vt: *mut c_void, is_utf8: c_int);
        fn vterm_input_write(vt: *mut c_void, bytes: *const u8, len: usize) -> usize;
        fn vterm_obtain_screen(vt: *mut c_void) -> *mut c_void;
        fn vterm_obtain_state(vt: *mut c_void) -> *mut c_void;
        fn vterm_screen_reset(screen: *mut c_void, hard: c_int);
        fn vterm_screen_enable_altscreen(screen: *mut c_void, enable: c_int);
        fn vterm_screen_get_cell(screen: *const c_void, pos: VTermPos, cell: *mut u32) -> c_int;
        fn vterm_state_get_cursorpos(state: *const c_void, pos: *mut VTermPos);
    }

    pub struct Libvterm {
        vt: *mut c_void,
        screen: *mut c_void,
        rows: usize,
        cols: usize,
    }

    impl Libvterm {
        pub fn new(cols: usize, rows: usize) -> Self {
            // SAFETY: vterm_new returns an owned handle (freed in Drop); the screen pointer
            // belongs to it and lives as long as it does.
            unsafe {
                let vt = vterm_new(rows as c_int, cols as c_int);
                vterm_set_utf8(vt, 1);
                let screen = vterm_obtain_screen(vt);
                vterm_screen_enable_altscreen(screen, 1);
                vterm_screen_reset(screen, 1);
                Libvterm { vt, screen, rows, cols }
            }
        }
    }

    impl Drop for Libvterm {
        fn drop(&mut self) {
            // SAFETY: `vt` came from vterm_new and is freed once.
            unsafe { vterm_free(self.vt) }
        }
    }

    impl super::Engine for Libvterm {
        fn feed(&mut self, bytes: &[u8]) {
            // SAFETY: the pointer and length describe `bytes`, which outlives the call.
            unsafe {
                vterm_input_write(self.vt, bytes.as_ptr(), bytes.len());
            }
        }
        fn dump(&self) -> String {
            let mut rows = Vec::new();
            for y in 0..self.rows {
                let mut s = String::new();
                let mut x = 0;
                while x < self.cols {
                    // VTermScreenCell starts with chars[6] (u32) then the width; the rest of
                    // the struct (attributes, colours) is not read. 32 u32s hold it whole.
                    let mut cell = [0u32; 32];
                    let pos = VTermPos { row: y as c_int, col: x as c_int };
                    // SAFETY: `cell` is larger than VTermScreenCell and aligned for it.
                    unsafe { vterm_screen_get_cell(self.screen, pos, cell.as_mut_ptr()) };
                    let chars: Vec<char> =
                        cell[..6].iter().take_while(|&&c| c != 0).filter_map(|&c| char::from_u32(c)).collect();
                    if chars.is_empty() {
                        s.push(' ');
                    } else {
                        s.extend(chars);
                    }
                    let width = (cell[6] & 0xff) as usize;
                    x += width.max(1);
                }
                rows.push(s);
            }
            let mut pos = VTermPos { row: 0, col: 0 };
            // SAFETY: the state belongs to `vt`; `pos` is a valid out-pointer.
            unsafe { vterm_state_get_cursorpos(vterm_obtain_state(self.vt), &mut pos) };
            super::dump_rows(rows.into_iter(), (pos.row.max(0) as usize, pos.col.max(0) as usize))
        }
    }

    pub fn peer() -> super::Peer {
        super::Peer { name: "libvterm", make: Some(|c, r, _| Box::new(Libvterm::new(c, r))), missing: "" }
    }
}

#[cfg(not(has_libvterm))]
mod libvterm {
    pub fn peer() -> super::Peer {
        super::Peer { name: "libvterm", make: None, missing: "not installed (apt-get install libvterm-dev)" }
    }
}
