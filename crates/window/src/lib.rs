//! `blitty window`, blitty's own terminal window on X11 (the syscons console post's console on
//! a bitmap display), and `framebuffer.rs`, the display of `blitty console` (a client of the
//! session server drawn on a Linux framebuffer, a `blitty_mux::client::Surface`). They are the
//! two displays that draw with the pixel renderer, kept here so that the core links no font
//! rasteriser and no X client.
//!
//! A window shows one virtual terminal (vty) at a time: the program it was started with, on a
//! pty of its own, or (`--attach`) a session of the session server, whose frames it takes as
//! one more client, as `blitty attach` does (the server's status row and prefix keys
//! included). Ctrl-Shift-T opens more vtys, each running the user's shell (at most
//! [`MAX_VTYS`]); the hidden ones are read and parsed, never drawn (`vty.rs`). The shown vty's
//! screen is kept by the pixel renderer as a shadow framebuffer in memory, drawing only the
//! damaged cells (a full-screen scroll moves the buffer's rows); at most `hz` times a second
//! the band of rows that changed goes to the X server (`display.rs`): with MIT-SHM (a server
//! on this machine), copied into a shared memory segment and shown with one ShmPutImage, the
//! next frame waiting for the server's completion event; without it (a remote display), in
//! PutImage requests, split only where the server's request limit says so. A window that is
//! not mapped (minimised, on another desktop) presents nothing; the engine goes on parsing.
//! While the shown program is in a synchronized update (mode 2026) its frame waits for the
//! update's end, at most [`SYNC_LIMIT`], as every pane's does: each vty is the core's pane
//! (`blitty_mux::pane::Pane`: its engine, what waits for the program, its bell, clipboard and
//! hold), as `blitty run`'s and every session's.
//!
//! The loop (`Window`) has the shape of blitty's other loops (`blitty_os::event`): one poll
//! over the X connection, the vtys' ptys (or the server's socket) and the signals, a handler
//! for each, frames paced by `blitty_os::pace::Pacer`. What a program or the session server
//! has not taken yet waits in a queue until the poll says there is room: neither can stop
//! the window by not reading.
//!
//! Keys (`keys.rs`) go through xkbcommon's keymap of the layout the X server names, and its
//! compose table for dead keys and Compose (libxkbcommon is loaded when the window starts;
//! without it, the server's core keyboard map), and are encoded as xterm encodes them. The
//! mouse (`mouse.rs`) selects text or is reported to the program that asked; selections are
//! X's PRIMARY and CLIPBOARD, which the programs' OSC 52 writes set too (`clipboard.rs`).
//!
//! What it does not do:
//! - Other displays than X11 (Wayland only through XWayland), or an X screen other than 24-bit
//!   colour at 32 bits a pixel (refused when the window starts).
//! - Input methods (XIM, IBus, fcitx): only what the keymap and the compose table give arrives.
//! - Serve a selection larger than one X request (no INCR on that side: the asker is refused),
//!   take a paste past 16 MiB (the rest is dropped), or let more than [`SESSION_QUEUE`] wait
//!   for an attached session (a paste or keys that would pass it are refused whole, and the
//!   window says so in a notice: a line over its top, in the X server's own "fixed" font, for
//!   a few seconds).
//! - Answer a program's clipboard read (OSC 52 queries are refused by the engine).
//! - Run anything but the shell in a new vty, or keep a program running once the window is
//!   closed (each is hung up, as xterm's are); an attached session is left running.
//! - Show an attached session's history: Shift-PageUp pages through the lines the window's
//!   engine kept of the server's frames; the session's own history is the server's scrollback
//!   mode.

mod clipboard;
mod display;
pub mod framebuffer;
mod keys;
mod mouse;
mod vty;

use std::ffi::OsString;
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use blitty_os::event::{PollSet, Wake};
use blitty_os::pace::Pacer;
use blitty_os::signals::{Signals, SIGCHLD, SIGHUP, SIGINT, SIGQUIT, SIGTERM};
use blitty_pixel::{Fonts, Renderer};
use rustix::event::PollFlags;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    AtomEnum, ButtonPressEvent, ButtonReleaseEvent, ChangeWindowAttributesAux, ConnectionExt as _, EventMask,
    KeyPressEvent, MotionNotifyEvent,
};
use x11rb::protocol::Event;

use blitty_mux::text::Pos;
use clipboard::Clipboard;
use display::{x_err, Display};
use mouse::{Action, Clicks, Selection, Unit};
use vty::{show, Vty};

pub use keys::{encode, Keyboard, Press};
pub use vty::SESSION_QUEUE;

pub struct Options {
    pub argv: Vec<OsString>,
    pub cols: usize,
    pub rows: usize,
    pub title: Option<String>,
    pub fonts: Fonts,
    pub hz: u32,
    pub scrollback: usize,
    /// Keep the window open after the program ended (until it is closed).
    pub hold: bool,
    /// What a new virtual terminal runs (Ctrl-Shift-T): the user's shell.
    pub shell: OsString,
    /// Attach to a session instead of running `argv`: the server's socket and the session.
    pub attach: Option<(std::path::PathBuf, String)>,
}

/// The most pixels a window's side may have (a framebuffer's bound, within X's 16 bits).
pub const MAX_SIDE: usize = 16384;

/// The most virtual terminals one window holds (each is a program and a screen with its
/// scrollback; tmux has no limit, but a window's tabs past a few dozen are a mistake).
pub const MAX_VTYS: usize = 64;

/// How long a frame may be held back while the shown program is in a synchronized update: the
/// core's limit, the same for every pane.
pub use blitty_mux::pane::SYNC_LIMIT;

/// How long a notice stays over the window (the session server shows its own as long).
const NOTICE_FOR: Duration = Duration::from_secs(3);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    X,
    Program,
    /// A virtual terminal not shown, by its place in `others`.
    Hidden(usize),
    Signals,
}

/// Runs the program in a window until it ends (its status is returned; with `hold`, until the
/// window is closed too) or the window is closed (the program gets SIGHUP; 128 + SIGHUP).
pub fn run(opts: Options) -> Result<i32, String> {
    let mut w = Window::open(opts)?;
    let exit = w.turns()?;
    // Every program still running is hung up, as when a terminal closes.
    for v in std::iter::once(&mut w.cur).chain(w.others.iter_mut()) {
        v.close();
    }
    w.x.destroy();
    Ok(exit)
}

/// What the mouse is doing in the view.
#[derive(Default)]
struct Pointer {
    clicks: Clicks,
    /// The selection shown.
    selection: Option<Selection>,
    /// The left button is making the selection, and has moved since it was pressed.
    selecting: bool,
    moved: bool,
    /// The button held while the mouse is reported, and the cell last reported.
    held: Option<u8>,
    last_cell: Option<(usize, usize)>,
    /// A selection dragged past the top or bottom edge scrolls the view a line each
    /// AUTOSCROLL while the pointer stays out (xterm): the direction (-1 back, 1 forward), the
    /// pointer's x, and when the next line goes.
    autoscroll: Option<(i8, i16, Instant)>,
}

/// The window's title: fixed by `--title`, else the program's (OSC 0 and 2), else the
/// program's name; with the shown vty's place when there are several ("[2/3]").
struct Title {
    fixed: Option<String>,
    program: String,
    /// What the title shown was made from: the program's title, and the shown vty's place.
    made_of: (String, Option<(usize, usize)>),
}

/// Answers of the poll: the event the connection had read already, and what the vtys' fds say.
struct Ready {
    queued: Option<Event>,
    program: PollFlags,
    hidden: Vec<PollFlags>,
}

/// The window's loop: everything it keeps between turns, with one handler for each thing
/// that wakes it.
struct Window {
    x: Display,
    keyboard: Keyboard,
    clip: Clipboard,
    renderer: Renderer,
    signals: Signals,
    pacer: Pacer,
    /// A cell's pixels, and the largest grid the window may have.
    cell: (usize, usize),
    max_grid: (usize, usize),
    /// What a new vty runs and keeps, and whether the window stays once the last program ended.
    shell: OsString,
    scrollback: usize,
    hold: bool,
    /// The vty shown, the others in order, the place of the shown one among them all, and the
    /// one to show at the end of the turn.
    cur: Vty,
    others: Vec<Vty>,
    at: usize,
    switch_to: Option<usize>,
    buf: Vec<u8>,
    /// The view differs from what the window shows.
    dirty: bool,
    title: Title,
    /// Lines the view is scrolled back into history (0: the live screen).
    back: usize,
    pointer: Pointer,
    was_alternate: bool,
    /// The cursor's look drawn (off in its blink, hollow), and since when it has blinked.
    look: (bool, bool),
    blink_since: Instant,
    /// A notice over the window, and until when.
    notice: Option<(String, Instant)>,
}

impl Window {
    /// Connects to the X server, starts the first vty (refused before any window shows: a
    /// program that cannot start, no such session, no server) and makes the window.
    fn open(opts: Options) -> Result<Window, String> {
        let (conn, screen_num) = display::connect()?;
        let root = conn.setup().roots[screen_num].root;
        // XKB's own key events carry the keyboard group (the layout) in their state.
        {
            use x11rb::protocol::xkb::ConnectionExt as _;
            let _ = conn.xkb_use_extension(1, 0).map(|c| c.reply());
        }
        let keyboard = Keyboard::load(&conn, root).map_err(x_err)?;
        // The layout's names change on the root window (setxkbmap): the keymap is read again.
        let aux = ChangeWindowAttributesAux::new().event_mask(EventMask::PROPERTY_CHANGE);
        conn.change_window_attributes(root, &aux).map_err(x_err)?;

        let (cw, ch) = (opts.fonts.cell_w, opts.fonts.cell_h);
        // The window's pixels are bounded as a framebuffer's (and X's 16-bit sizes): a grid
        // that would not fit is refused, and resizing never makes one.
        let (max_cols, max_rows) = (MAX_SIDE / cw, MAX_SIDE / ch);
        if opts.cols > max_cols || opts.rows > max_rows {
            return Err(format!(
                "a {}x{} window of {cw}x{ch}-pixel cells is larger than {MAX_SIDE}x{MAX_SIDE} pixels; at this font size at most {}x{} cells",
                opts.cols, opts.rows, max_cols.min(blitty_vt::term::MAX_COLS), max_rows.min(blitty_vt::term::MAX_ROWS)
            ));
        }
        let program = match &opts.attach {
            Some((_, name)) => format!("blitty: {name}"),
            None => opts.argv.first().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default(),
        };
        let cur = match &opts.attach {
            Some((socket, name)) => Vty::attach(socket, name, opts.cols, opts.rows, opts.scrollback)?,
            None => Vty::start(&opts.argv, opts.cols, opts.rows, opts.scrollback)
                .map_err(|e| format!("cannot start {program}: {e}"))?,
        };
        let palette = blitty_vt::Palette::default();
        let colours = (pixel_of(palette.foreground), pixel_of(palette.background));
        let size = ((opts.cols * cw) as u16, (opts.rows * ch) as u16);
        let x = Display::create(conn, screen_num, size, colours)?;
        x.set_title(opts.title.as_deref().unwrap_or(&program))?;
        x.map()?;
        let clip = Clipboard::new(&x.conn, x.win)?;
        let signals = Signals::new(&[SIGCHLD, SIGTERM, SIGHUP, SIGINT, SIGQUIT]).map_err(|e| e.to_string())?;
        Ok(Window {
            keyboard,
            clip,
            renderer: Renderer::new(opts.fonts, opts.cols, opts.rows),
            signals,
            pacer: Pacer::new(opts.hz),
            cell: (cw, ch),
            max_grid: (max_cols, max_rows),
            shell: opts.shell,
            scrollback: opts.scrollback,
            hold: opts.hold,
            cur,
            others: Vec::new(),
            at: 0,
            switch_to: None,
            buf: vec![0u8; 64 * 1024],
            dirty: true,
            title: Title { fixed: opts.title, program, made_of: (String::new(), None) },
            back: 0,
            pointer: Pointer::default(),
            was_alternate: false,
            look: (false, false),
            blink_since: Instant::now(),
            notice: None,
            x,
        })
    }

    /// Turns the loop until the window ends: the status it ends with.
    fn turns(&mut self) -> Result<i32, String> {
        loop {
            let now = Instant::now();
            self.clocks(now);
            let ready = self.wait(self.wake_at(now), now)?;
            if let Some(status) = self.x_events(ready.queued)? {
                return Ok(status);
            }
            self.program_output(ready.program);
            self.hidden_output(&ready.hidden);
            if let Some(status) = self.signals() {
                return Ok(status);
            }
            if let Some(status) = self.programs_ended() {
                return Ok(status);
            }
            self.switch();
            self.bells()?;
            self.clipboard_writes()?;
            self.selection_follows();
            self.update_title()?;
            self.frame(Instant::now())?;
            let _ = self.x.conn.flush();
        }
    }

    /// What changes with the clock alone: the cursor's blink, a selection scrolling the view
    /// while the pointer is past an edge, a notice's end.
    fn clocks(&mut self, now: Instant) {
        let active = self.x.focused && self.cur.ended.is_none();
        let (off, _) = cursor_blink(self.cur.pane.term.screen().modes(), active, self.blink_since, now);
        if (off, !self.x.focused) != self.look {
            self.look = (off, !self.x.focused);
            self.renderer.set_cursor(off, !self.x.focused);
            self.dirty = true;
        }
        if let Some((dir, x, at)) = self.pointer.autoscroll.filter(|_| self.pointer.selecting) {
            if now >= at {
                let screen = self.cur.pane.term.screen();
                self.back =
                    if dir < 0 { (self.back + 1).min(screen.history_len()) } else { self.back.saturating_sub(1) };
                let y = if dir < 0 { 0 } else { ((screen.rows() - 1) * self.cell.1) as i16 };
                let (_, pos) = view_cell(screen, self.back, self.cell, x, y);
                if let Some(sel) = self.pointer.selection.as_mut() {
                    sel.extend(screen, pos);
                    self.pointer.moved = true;
                }
                self.dirty = true;
                self.pointer.autoscroll = Some((dir, x, now + AUTOSCROLL));
            }
        }
        if self.notice.as_ref().is_some_and(|(_, until)| now >= *until) {
            // The renderer's pixels under it are shown again, all of them.
            self.notice = None;
            self.renderer.invalidate();
            self.dirty = true;
        }
    }

    /// When the loop must wake if nothing else wakes it.
    fn wake_at(&self, now: Instant) -> Wake {
        let mut wake = Wake::default();
        let active = self.x.focused && self.cur.ended.is_none();
        if let (_, Some(next)) = cursor_blink(self.cur.pane.term.screen().modes(), active, self.blink_since, now) {
            wake.at(next);
        }
        if let Some((_, _, next)) = self.pointer.autoscroll.filter(|_| self.pointer.selecting) {
            wake.at(next);
        }
        if let Some((_, until)) = &self.notice {
            wake.at(*until);
        }
        // While a ShmPutImage is in flight its completion event wakes the loop.
        if self.dirty && self.x.mapped && !self.x.busy() {
            // A frame held for a synchronized update waits for the hold's limit or the
            // program's next output (which may end the update), not for the pacer's time
            // (already past: the loop would wake at once, again and again).
            let held_until = self.cur.pane.sync_until().filter(|&t| t > now);
            wake.at(held_until.unwrap_or_else(|| self.pacer.due_at(now)));
        }
        wake
    }

    /// Polls the X connection, the vtys and the signals until one has something or `wake`.
    fn wait(&self, wake: Wake, now: Instant) -> Result<Ready, String> {
        let mut set = PollSet::new();
        set.add(self.x.conn.stream().as_fd(), PollFlags::IN, Part::X);
        if self.cur.open {
            set.add(self.cur.fd(), self.cur.events(), Part::Program);
        }
        for (i, v) in self.others.iter().enumerate().filter(|(_, v)| v.open) {
            set.add(v.fd(), v.events(), Part::Hidden(i));
        }
        set.add(self.signals.wake.as_fd(), PollFlags::IN, Part::Signals);
        // Events the connection has read already (while writing) do not make it readable
        // again: one is taken now, and the poll does not wait if there was one.
        let queued = self.x.conn.poll_for_event().map_err(x_err)?;
        set.wait(if queued.is_some() { Some(Duration::ZERO) } else { wake.timeout(now) }).map_err(|e| e.to_string())?;
        let hidden = (0..self.others.len()).map(|i| set.events(Part::Hidden(i))).collect();
        Ok(Ready { queued, program: set.events(Part::Program), hidden })
    }

    /// The X server's events, `first` and all those it has sent: the status to end with when
    /// the window was closed.
    fn x_events(&mut self, mut first: Option<Event>) -> Result<Option<i32>, String> {
        loop {
            let ev = match first.take() {
                Some(ev) => ev,
                None => match self.x.conn.poll_for_event().map_err(x_err)? {
                    Some(ev) => ev,
                    None => return Ok(None),
                },
            };
            if let Some(status) = self.x_event(ev)? {
                return Ok(Some(status));
            }
        }
    }

    fn x_event(&mut self, ev: Event) -> Result<Option<i32>, String> {
        let (root, win) = (self.x.root, self.x.win);
        let a = &self.x.atoms;
        let (wm_protocols, wm_delete, xkb_names) = (a.wm_protocols, a.wm_delete, a.xkb_names);
        match ev {
            Event::KeyPress(k) => self.key(&k)?,
            Event::ButtonPress(b) => self.button_press(&b)?,
            Event::MotionNotify(m) => self.motion(&m),
            Event::ButtonRelease(b) => self.button_release(&b)?,
            Event::SelectionRequest(r) => self.clip.serve(&self.x.conn, &r)?,
            Event::SelectionClear(c) => {
                // Another client's selection: ours is no longer shown (xterm).
                let ours = self.clip.lost(c.selection);
                if ours && c.selection == primary() && !self.pointer.selecting {
                    self.pointer.selection = None;
                    self.dirty = true;
                }
            }
            Event::SelectionNotify(n) => {
                if let Some(text) = self.clip.notified(&self.x.conn, &n)? {
                    self.pasted(&text);
                }
            }
            Event::MappingNotify(_) => self.keyboard = Keyboard::load(&self.x.conn, root).map_err(x_err)?,
            Event::PropertyNotify(p) if p.window == root && p.atom == xkb_names => {
                self.keyboard = Keyboard::load(&self.x.conn, root).map_err(x_err)?;
            }
            Event::PropertyNotify(p) if p.window == win => {
                if let Some(text) = self.clip.property(&self.x.conn, p.atom, p.state)? {
                    self.pasted(&text);
                }
            }
            Event::Expose(e) if e.count == 0 => self.exposed(),
            Event::MapNotify(_) => self.exposed(),
            Event::UnmapNotify(_) => self.x.mapped = false,
            Event::FocusIn(_) => self.focus(true)?,
            Event::FocusOut(_) => self.focus(false)?,
            Event::ShmCompletion(_) => self.x.completed(),
            Event::ConfigureNotify(c) if (c.width, c.height) != self.x.size => self.configured(c.width, c.height),
            Event::ClientMessage(m) if m.type_ == wm_protocols && m.data.as_data32()[0] == wm_delete => {
                // Closed by the user: the program's terminal hangs up, as xterm does.
                return Ok(Some(self.cur.ended.unwrap_or(128 + SIGHUP)));
            }
            _ => {}
        }
        Ok(None)
    }

    /// Bytes for the shown vty's program; what it refuses (a session that does not read) is
    /// said in a notice.
    fn send(&mut self, bytes: &[u8]) {
        if let Err(why) = self.cur.input(bytes) {
            self.notify(why);
        }
    }

    /// Shows `text` over the window for NOTICE_FOR, and says it on the standard error (once
    /// while it shows: keys refused one by one say it once).
    fn notify(&mut self, text: String) {
        if self.notice.is_none() {
            eprintln!("blitty window: {text}");
        }
        self.notice = Some((text, Instant::now() + NOTICE_FOR));
        self.dirty = true;
    }

    fn key(&mut self, k: &KeyPressEvent) -> Result<(), String> {
        let state = u16::from(k.state);
        self.blink_since = Instant::now();
        let sym = match self.keyboard.press(k.detail, state) {
            Press::Sym(sym) => sym,
            Press::Pending => return Ok(()),
            // A compose sequence's text goes as it is.
            Press::Text(text) => {
                if self.cur.ended.is_none() {
                    self.send(text.as_bytes());
                    self.pacer.key(Instant::now());
                    self.back = 0;
                    self.dirty = true;
                }
                return Ok(());
            }
        };
        if self.shortcut(sym, state, k.time)? {
            return Ok(());
        }
        // Shift-PageUp and Shift-PageDown page through the scrollback (the alternate screen
        // has none: they go to the program there).
        let screen = self.cur.pane.term.screen();
        if state & keys::SHIFT != 0 && matches!(sym, 0xff55 | 0xff56) && !screen.alternate_screen() {
            let page = screen.rows();
            self.back = if sym == 0xff55 {
                (self.back + page).min(screen.history_len())
            } else {
                self.back.saturating_sub(page)
            };
            self.dirty = true;
            return Ok(());
        }
        let bytes = encode(sym, state, screen.modes());
        if !bytes.is_empty() && self.cur.ended.is_none() {
            self.send(&bytes);
            self.pacer.key(Instant::now());
            // A key typed shows the live screen again (xterm's scrollKey).
            if self.back > 0 {
                self.back = 0;
                self.dirty = true;
            }
        }
        Ok(())
    }

    /// The window's own keys, taken before the program's: whether `sym` was one.
    fn shortcut(&mut self, sym: u32, state: u16, time: u32) -> Result<bool, String> {
        let ctrl_shift = state & (keys::CONTROL | keys::SHIFT) == keys::CONTROL | keys::SHIFT;
        // Ctrl-Shift-C copies the selection to CLIPBOARD, Ctrl-Shift-V pastes it, Shift-Insert
        // pastes PRIMARY (xterm's, and the desktop terminals' keys).
        if ctrl_shift && matches!(sym, 0x43 | 0x63) {
            if let Some(sel) = self.pointer.selection {
                let text = sel.text(self.cur.pane.term.screen());
                self.clip.own(&self.x.conn, self.clip.atoms.clipboard, text, time)?;
            }
            return Ok(true);
        }
        if ctrl_shift && matches!(sym, 0x56 | 0x76) {
            self.clip.paste(&self.x.conn, self.clip.atoms.clipboard, time)?;
            return Ok(true);
        }
        if state & keys::SHIFT != 0 && matches!(sym, 0xff63 | 0xff9e) {
            self.clip.paste(&self.x.conn, primary(), time)?;
            return Ok(true);
        }
        // Virtual terminals: Ctrl-Shift-T opens one (running the shell) after the shown one;
        // with more than one, Ctrl-PageUp/PageDown show the one before or after and Alt-1..9
        // the first to ninth (with one alone these keys are the program's, as vim and emacs
        // use them).
        let count = self.others.len() + 1;
        if ctrl_shift && matches!(sym, 0x54 | 0x74) {
            if count < MAX_VTYS {
                let (cols, rows) = (self.cur.pane.term.screen().cols(), self.cur.pane.term.screen().rows());
                match Vty::start(std::slice::from_ref(&self.shell), cols, rows, self.scrollback) {
                    Ok(v) => {
                        self.others.insert(self.at, v);
                        self.switch_to = Some(self.at + 1);
                    }
                    Err(e) => eprintln!("blitty window: cannot start {}: {e}", self.shell.to_string_lossy()),
                }
            }
            return Ok(true);
        }
        let alone = |modifier: u16| state & (keys::CONTROL | keys::SHIFT | keys::ALT) == modifier;
        if count > 1 && alone(keys::CONTROL) && matches!(sym, 0xff55 | 0xff56) {
            let at = self.at;
            self.switch_to = Some(if sym == 0xff55 { (at + count - 1) % count } else { (at + 1) % count });
            return Ok(true);
        }
        if count > 1 && alone(keys::ALT) && (0x31..=0x39).contains(&sym) && ((sym - 0x31) as usize) < count {
            self.switch_to = Some((sym - 0x31) as usize);
            return Ok(true);
        }
        Ok(false)
    }

    /// A mouse report for the program, if `modes` ask for this one.
    fn report(
        &self,
        action: Action,
        button: Option<u8>,
        cell: (usize, usize),
        (x, y): (i16, i16),
        state: u16,
    ) -> Option<Vec<u8>> {
        let px = (x.max(0) as usize, y.max(0) as usize);
        let (alt, ctrl) = (state & keys::ALT != 0, state & keys::CONTROL != 0);
        mouse::report(self.cur.pane.term.screen().modes(), action, button, cell, px, alt, ctrl)
    }

    fn button_press(&mut self, b: &ButtonPressEvent) -> Result<(), String> {
        let state = u16::from(b.state);
        let (cell, at) = view_cell(self.cur.pane.term.screen(), self.back, self.cell, b.event_x, b.event_y);
        // The mouse is the program's when it asked for it, unless Shift is held.
        if reports(self.cur.pane.term.screen(), state) && self.cur.ended.is_none() {
            if let Some(r) = self.report(Action::Press, Some(b.detail), cell, (b.event_x, b.event_y), state) {
                self.send(&r);
                self.pacer.key(Instant::now());
            }
            if (1..=3).contains(&b.detail) {
                self.pointer.held = Some(b.detail);
            }
            self.pointer.last_cell = Some(cell);
            return Ok(());
        }
        let screen = self.cur.pane.term.screen();
        match b.detail {
            1 => {
                let unit = self.pointer.clicks.press(Instant::now(), at);
                self.pointer.selection = Some(Selection::new(screen, at, unit));
                (self.pointer.selecting, self.pointer.moved) = (true, unit != Unit::Char);
                self.dirty = true;
            }
            2 => self.clip.paste(&self.x.conn, primary(), b.time)?,
            3 => {
                if let Some(sel) = self.pointer.selection.as_mut() {
                    sel.extend(screen, at);
                    self.clip.own(&self.x.conn, primary(), sel.text(screen), b.time)?;
                    self.dirty = true;
                }
            }
            // The wheel: three lines through the scrollback; on the alternate screen with
            // mode 1007 (alternate scroll), three cursor keys.
            4 | 5 if !screen.alternate_screen() => {
                self.back =
                    if b.detail == 4 { (self.back + 3).min(screen.history_len()) } else { self.back.saturating_sub(3) };
                self.dirty = true;
            }
            4 | 5 if screen.modes().alternate_scroll && self.cur.ended.is_none() => {
                let key = encode(if b.detail == 4 { 0xff52 } else { 0xff54 }, 0, screen.modes());
                self.send(&key.repeat(3));
                self.pacer.key(Instant::now());
            }
            _ => {}
        }
        Ok(())
    }

    fn motion(&mut self, m: &MotionNotifyEvent) {
        let state = u16::from(m.state);
        let (cell, at) = view_cell(self.cur.pane.term.screen(), self.back, self.cell, m.event_x, m.event_y);
        let screen = self.cur.pane.term.screen();
        let p = &mut self.pointer;
        if p.selecting {
            if let Some(sel) = p.selection.as_mut() {
                if p.moved || sel.range() != (at, at) {
                    sel.extend(screen, at);
                    p.moved = true;
                    self.dirty = true;
                }
            }
            // Past the top (on the main screen, into the scrollback) or the bottom (back
            // towards the live screen): the view scrolls while it stays there.
            let dir = if m.event_y < 0 && !screen.alternate_screen() {
                -1
            } else if m.event_y >= self.x.size.1 as i16 && self.back > 0 {
                1
            } else {
                0
            };
            p.autoscroll = (dir != 0).then(|| {
                let next = p.autoscroll.filter(|a| a.0 == dir).map_or(Instant::now(), |a| a.2);
                (dir, m.event_x, next)
            });
        } else if reports(screen, state) && self.cur.ended.is_none() && p.last_cell != Some(cell) {
            p.last_cell = Some(cell);
            let held = p.held;
            if let Some(r) = self.report(Action::Motion, held, cell, (m.event_x, m.event_y), state) {
                self.send(&r);
            }
        }
    }

    fn button_release(&mut self, b: &ButtonReleaseEvent) -> Result<(), String> {
        let state = u16::from(b.state);
        let p = &mut self.pointer;
        if p.selecting && b.detail == 1 {
            p.selecting = false;
            p.autoscroll = None;
            match p.selection {
                // A click without a drag selects nothing (and keeps PRIMARY).
                Some(_) if !p.moved => p.selection = None,
                Some(sel) => self.clip.own(&self.x.conn, primary(), sel.text(self.cur.pane.term.screen()), b.time)?,
                None => {}
            }
            self.dirty = true;
        } else if p.held == Some(b.detail) {
            p.held = None;
            let (cell, _) = view_cell(self.cur.pane.term.screen(), self.back, self.cell, b.event_x, b.event_y);
            if reports(self.cur.pane.term.screen(), state & !keys::SHIFT) && self.cur.ended.is_none() {
                if let Some(r) = self.report(Action::Release, Some(b.detail), cell, (b.event_x, b.event_y), state) {
                    self.send(&r);
                }
            }
        }
        Ok(())
    }

    /// A paste arrived: it goes to the program (see `mouse::paste_bytes`), and the view to the
    /// live screen.
    fn pasted(&mut self, text: &[u8]) {
        if self.cur.ended.is_none() && !text.is_empty() {
            let bytes = mouse::paste_bytes(text, self.cur.pane.term.screen().modes());
            self.send(&bytes);
            if self.back > 0 {
                self.back = 0;
                self.dirty = true;
            }
        }
        self.pacer.key(Instant::now());
    }

    /// The window shows (again): every pixel is drawn.
    fn exposed(&mut self) {
        self.x.mapped = true;
        self.renderer.invalidate();
        self.dirty = true;
    }

    fn focus(&mut self, focused: bool) -> Result<(), String> {
        self.x.focused = focused;
        // Focus events (mode 1004) for the programs that asked.
        if self.cur.pane.term.screen().modes().focus_events && self.cur.ended.is_none() {
            self.send(if focused { b"\x1b[I" } else { b"\x1b[O" });
        }
        if focused && self.x.urgent {
            self.x.set_urgent(false)?;
        }
        Ok(())
    }

    /// The window has a new size: the shown vty gets the grid that fits (the hidden ones get
    /// it when the turn ends).
    fn configured(&mut self, width: u16, height: u16) {
        self.x.size = (width, height);
        let (cw, ch) = self.cell;
        let cols = (width as usize / cw).clamp(1, blitty_vt::term::MAX_COLS.min(self.max_grid.0));
        let rows = (height as usize / ch).clamp(1, blitty_vt::term::MAX_ROWS.min(self.max_grid.1));
        if (cols, rows) != (self.cur.pane.term.screen().cols(), self.cur.pane.term.screen().rows()) {
            self.cur.resize(cols, rows);
            self.renderer.resize(cols, rows);
            // The lines were wrapped again: their numbers changed.
            self.pointer.selection = None;
        }
        self.renderer.invalidate();
        self.dirty = true;
    }

    /// The shown vty: what waits for it is written (keys go at once, the master does not
    /// block, not after another turn's poll), and what it wrote is read.
    fn program_output(&mut self, ev: PollFlags) {
        self.cur.write();
        if ev.intersects(PollFlags::IN | PollFlags::HUP | PollFlags::ERR) && self.cur.read(&mut self.buf) > 0 {
            let now = Instant::now();
            self.blink_since = now;
            self.pacer.output(now);
            self.dirty = true;
            // Output shows the live screen again (xterm's scrollTtyOutput).
            self.back = 0;
        }
    }

    /// The hidden vtys: read and parsed, nothing drawn; their answers written.
    fn hidden_output(&mut self, ready: &[PollFlags]) {
        for (v, ev) in self.others.iter_mut().zip(ready) {
            v.write();
            if ev.intersects(PollFlags::IN | PollFlags::HUP | PollFlags::ERR) {
                v.read(&mut self.buf);
            }
        }
    }

    /// The status to end with when a signal says so.
    fn signals(&mut self) -> Option<i32> {
        self.signals.take().into_iter().find(|&sig| sig != SIGCHLD).map(|sig| 128 + sig)
    }

    /// Programs that ended: a hidden vty goes; the shown one goes too while there are others
    /// (the next one is shown), and the last one ends the window with its status (`--hold`
    /// keeps it, as xterm's -hold).
    fn programs_ended(&mut self) -> Option<i32> {
        let mut i = 0;
        while i < self.others.len() {
            if self.others[i].reap(&mut self.buf).is_some() {
                self.others.remove(i);
                if i < self.at {
                    self.at -= 1;
                }
            } else {
                i += 1;
            }
        }
        if self.cur.ended.is_none() {
            if let Some(status) = self.cur.reap(&mut self.buf) {
                self.dirty = true;
                if !self.others.is_empty() {
                    let next = self.at.min(self.others.len() - 1);
                    self.cur = self.others.remove(next);
                    self.at = next;
                    self.shown_changed();
                } else if !self.hold {
                    return Some(status);
                }
            }
        }
        None
    }

    /// Another vty is shown: drawn whole, live; the selection and the update waited for
    /// were the other's.
    fn shown_changed(&mut self) {
        self.back = 0;
        self.pointer.selection = None;
        self.renderer.invalidate();
        self.dirty = true;
    }

    /// The vty asked for is shown; each vty's size is the window's (a hidden one resized
    /// when the window was).
    fn switch(&mut self) {
        if let Some(n) = self.switch_to.take().filter(|&n| n != self.at && n <= self.others.len()) {
            show(&mut self.others, &mut self.cur, &mut self.at, n);
            self.shown_changed();
        }
        let (cols, rows) = (self.cur.pane.term.screen().cols(), self.cur.pane.term.screen().rows());
        for v in self
            .others
            .iter_mut()
            .filter(|v| (v.pane.term.screen().cols(), v.pane.term.screen().rows()) != (cols, rows))
        {
            v.resize(cols, rows);
        }
    }

    /// The bell, any vty's (a hidden one's too): the urgency hint while the window does not
    /// have the focus (window managers mark the window or its task), cleared when it gets it,
    /// as xterm's bellIsUrgent does.
    fn bells(&mut self) -> Result<(), String> {
        let mut rang = false;
        for v in std::iter::once(&mut self.cur).chain(self.others.iter_mut()) {
            rang |= v.pane.term.screen().bells() != v.bells;
            v.bells = v.pane.term.screen().bells();
        }
        if rang && !self.x.focused && !self.x.urgent {
            self.x.set_urgent(true)?;
        }
        Ok(())
    }

    /// The program's clipboard writes (OSC 52), as alacritty and kitty take them: `p` is
    /// PRIMARY, `c` and `s` (and none named) CLIPBOARD. Reads are refused by the engine.
    fn clipboard_writes(&mut self) -> Result<(), String> {
        let Some(c) = self.cur.pane.term.screen_mut().take_clipboard() else { return Ok(()) };
        let text = String::from_utf8_lossy(&c.text).into_owned();
        if text.is_empty() {
            return Ok(());
        }
        if c.selections.contains('p') {
            self.clip.own(&self.x.conn, primary(), text.clone(), x11rb::CURRENT_TIME)?;
        }
        if c.selections.is_empty() || c.selections.contains(['c', 's']) {
            self.clip.own(&self.x.conn, self.clip.atoms.clipboard, text, x11rb::CURRENT_TIME)?;
        }
        Ok(())
    }

    /// The selection goes when output writes over it or the screen switches.
    fn selection_follows(&mut self) {
        let screen = self.cur.pane.term.screen();
        if let Some(sel) = self.pointer.selection {
            let (a, b) = sel.range();
            let live = screen.history_pushed();
            let touched = (0..screen.rows())
                .any(|y| screen.row_damage(y).is_some() && (a.line..=b.line).contains(&(live + y as u64)));
            if touched || screen.alternate_screen() != self.was_alternate {
                self.pointer.selection = None;
                self.dirty = true;
            }
        }
        self.was_alternate = screen.alternate_screen();
    }

    /// The title, made again only when the program's title or the vtys changed, not on every
    /// turn.
    fn update_title(&mut self) -> Result<(), String> {
        let place = (!self.others.is_empty()).then_some((self.at + 1, self.others.len() + 1));
        let t = &mut self.title;
        if self.cur.pane.term.screen().title() == t.made_of.0 && place == t.made_of.1 {
            return Ok(());
        }
        t.made_of = (self.cur.pane.term.screen().title().to_string(), place);
        let title = match (&t.fixed, t.made_of.0.as_str()) {
            (Some(fixed), _) => fixed.clone(),
            (None, "") => t.program.clone(),
            (None, program) => program.to_string(),
        };
        match place {
            Some((i, n)) => self.x.set_title(&format!("{title} [{i}/{n}]")),
            None => self.x.set_title(&title),
        }
    }

    /// Whether the frame waits for the shown program's synchronized update (mode 2026), as
    /// every pane's frames do (see `Pane::sync_hold`).
    fn held(&mut self, now: Instant) -> bool {
        self.cur.held(now).is_some()
    }

    /// The frame, when the view changed, the window shows, the last frame is done with, no
    /// synchronized update holds it and the pacer lets it go.
    fn frame(&mut self, now: Instant) -> Result<(), String> {
        let held = self.held(now);
        if !self.dirty || !self.x.mapped || self.x.busy() || held || !self.pacer.due(now) {
            return Ok(());
        }
        let screen = self.cur.pane.term.screen();
        let top = screen.history_pushed() - self.back as u64;
        let marks = self.pointer.selection.map(|s| s.marks(screen, top, screen.rows())).unwrap_or_default();
        self.renderer.set_marks(marks);
        let rects = self.renderer.render_back(self.cur.pane.term.screen(), self.back);
        self.cur.pane.term.screen_mut().clear_damage();
        if let (Some(top), Some(bottom)) = (rects.iter().map(|r| r.y).min(), rects.iter().map(|r| r.y + r.h).max()) {
            self.x.put(&self.renderer.fb, top, bottom)?;
        }
        if let Some((text, _)) = &self.notice {
            self.x.draw_notice(text)?;
        }
        self.x.conn.flush().map_err(x_err)?;
        self.pacer.sent(now);
        self.dirty = false;
        Ok(())
    }
}

fn primary() -> u32 {
    AtomEnum::PRIMARY.into()
}

/// How often a selection dragged past the window's edge scrolls the view a line (xterm
/// scrolls about as fast).
const AUTOSCROLL: Duration = Duration::from_millis(50);

/// xterm's cursorOnTime and cursorOffTime.
const BLINK_ON: Duration = Duration::from_millis(600);
const BLINK_OFF: Duration = Duration::from_millis(300);
/// A cursor stops blinking (and stays on) this long after the last key or output, so that an
/// idle window sends no frames (alacritty stops after 5 s, kitty after 15 s).
const BLINK_FOR: Duration = Duration::from_secs(10);

/// Whether a cursor in `modes` that has blinked since `since` is off at `now`, and when that
/// changes next. It blinks when the program chose a blinking shape (DECSCUSR 1, 3, 5) or
/// turned mode 12 on with the default shape, and the window has the focus (`active`).
fn cursor_blink(modes: &blitty_vt::term::Modes, active: bool, since: Instant, now: Instant) -> (bool, Option<Instant>) {
    // One blink state, set by ?12 and by DECSCUSR alike (as in xterm).
    let blinks = modes.cursor_blink;
    let age = now.saturating_duration_since(since);
    if !blinks || !active || !modes.cursor_visible || age >= BLINK_FOR {
        return (false, None);
    }
    let period = BLINK_ON + BLINK_OFF;
    let phase = Duration::from_nanos((age.as_nanos() % period.as_nanos()) as u64);
    let (off, left) = if phase < BLINK_ON { (false, BLINK_ON - phase) } else { (true, period - phase) };
    // The last phase ends on, for good.
    let next = (now + left).min(since + BLINK_FOR);
    (off, Some(next))
}

/// Whether the mouse goes to the program: it asked for it (a tracking mode) and Shift is not
/// held (Shift lets the user select, as in xterm).
fn reports(screen: &blitty_vt::Screen, state: u16) -> bool {
    screen.modes().mouse != blitty_vt::term::MouseTracking::Off && state & keys::SHIFT == 0
}

/// The cell under pixel (x, y) of the window, clamped to the grid: as (column, row) of the view
/// (what mouse reports carry: the column of the window's grid, as xterm reports it on any row)
/// and as a place in the text of a view `back` lines into the scrollback (on a double-width or
/// double-height row, the cell drawn under the pointer, twice as wide).
fn view_cell(
    screen: &blitty_vt::Screen,
    back: usize,
    (cw, ch): (usize, usize),
    x: i16,
    y: i16,
) -> ((usize, usize), Pos) {
    let row = (y.max(0) as usize / ch).min(screen.rows() - 1);
    let col = (x.max(0) as usize / cw).min(screen.cols() - 1);
    let history = screen.history_len();
    let at = history - back.min(history) + row;
    let size = if at < history { screen.history_line_size(at) } else { screen.line_size(at - history) };
    let text_col = if size == blitty_vt::LineSize::Single { col } else { col / 2 };
    let line = screen.history_pushed() - back as u64 + row as u64;
    ((col, row), Pos { line, col: text_col })
}

fn pixel_of(c: blitty_vt::Rgb) -> u32 {
    (c[0] as u32) << 16 | (c[1] as u32) << 8 | c[2] as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn showing_any_vty_keeps_every_other_in_its_place() {
        // Every count up to 6, every shown one, every one to show: the order stays.
        for count in 1..=6usize {
            for at0 in 0..count {
                for n in 0..count {
                    let mut others: Vec<usize> = (0..count).filter(|&i| i != at0).collect();
                    let (mut cur, mut at) = (at0, at0);
                    if n != at {
                        show(&mut others, &mut cur, &mut at, n);
                    }
                    let mut all = others.clone();
                    all.insert(at, cur);
                    assert_eq!((cur, at), (n, n));
                    assert_eq!(all, (0..count).collect::<Vec<_>>(), "{count} vtys, {at0} shown, {n} asked");
                }
            }
        }
    }

    #[test]
    fn a_blinking_cursor_is_on_600_ms_off_300_and_on_for_good_after_10_s() {
        let mut t = blitty_vt::Terminal::new(5, 2);
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let steady = *t.screen().modes();
        assert_eq!(cursor_blink(&steady, true, t0, at(700)), (false, None), "the default shape is steady");
        t.feed(b"\x1b[5 q");
        let bar = *t.screen().modes();
        assert_eq!(cursor_blink(&bar, true, t0, at(100)), (false, Some(at(600))));
        assert_eq!(cursor_blink(&bar, true, t0, at(700)), (true, Some(at(900))));
        assert_eq!(cursor_blink(&bar, true, t0, at(950)), (false, Some(at(1500))));
        assert_eq!(cursor_blink(&bar, true, t0, at(9_850)), (true, Some(at(9_900))));
        assert_eq!(cursor_blink(&bar, true, t0, at(9_950)), (false, Some(at(10_000))), "the last phase");
        assert_eq!(cursor_blink(&bar, true, t0, at(10_000)), (false, None), "on for good");
        assert_eq!(cursor_blink(&bar, false, t0, at(700)), (false, None), "without the focus");
        t.feed(b"\x1b[0 q\x1b[?12h");
        assert!(cursor_blink(t.screen().modes(), true, t0, at(700)).0, "mode 12");
        t.feed(b"\x1b[2 q");
        assert!(!cursor_blink(t.screen().modes(), true, t0, at(700)).0, "a steady block");
    }

    #[test]
    fn the_pointer_on_a_double_width_row_selects_the_cell_drawn_there_and_reports_the_grid_column() {
        // Cells 10 x 20 pixels; row 1 double width, rows 0 and 2 single; then the view one
        // line back into the scrollback, where the double row is row 2. The selection's column
        // is the cell drawn under the pointer; the report's, the window grid's (as xterm's).
        let mut t = blitty_vt::Terminal::with_scrollback(20, 3, 10);
        t.feed(b"a\r\n\x1b#6b\r\nc");
        let at = |t: &blitty_vt::Terminal, back: usize, x: i16, y: i16| {
            let ((col, row), pos) = view_cell(t.screen(), back, (10, 20), x, y);
            (col, row, pos.col)
        };
        assert_eq!(at(&t, 0, 35, 5), (3, 0, 3));
        assert_eq!(at(&t, 0, 35, 25), (3, 1, 1));
        assert_eq!(at(&t, 0, 199, 25), (19, 1, 9));
        assert_eq!(at(&t, 0, 35, 45), (3, 2, 3));
        t.feed(b"\r\n");
        assert_eq!(t.screen().line_size(0), blitty_vt::LineSize::DoubleWidth);
        assert_eq!(at(&t, 0, 35, 5), (3, 0, 1));
        assert_eq!(at(&t, 1, 35, 5), (3, 0, 3));
        assert_eq!(at(&t, 1, 35, 25), (3, 1, 1));
    }
}
