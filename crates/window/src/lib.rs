//! `blitty window`: blitty's own terminal window on X11, seed 001's console on a bitmap
//! display. The program runs on a pty; its output is parsed by the engine; the pixel renderer
//! keeps the screen as a shadow framebuffer in memory, drawing only the damaged cells (a
//! full-screen scroll moves the buffer's rows); at most `hz` times a second the band of rows
//! that changed goes to the X server: with MIT-SHM (the server on this machine), copied into a
//! shared memory segment and shown with one ShmPutImage, the next frame waiting for the
//! server's completion event; without it (a remote display), in PutImage requests, split only
//! where the server's request limit says so. A window that is not mapped (minimised, on another
//! desktop) presents nothing; the engine goes on parsing.
//!
//! The loop has the shape of blitty's other loops (`blitty_os::event`): one poll over the X
//! connection, the program's pty and the signals, frames paced by `blitty_os::pace::Pacer`.
//!
//! Keys (`keys.rs`) are read from the X server's keyboard map (core protocol: the keysym of a
//! key with Shift, CapsLock and NumLock taken into account) and encoded as xterm encodes them.
//! The mouse (`mouse.rs`) selects text or is reported to the program that asked; selections
//! are X's PRIMARY and CLIPBOARD (`clipboard.rs`).
//! Not yet: xkbcommon (dead keys, compose), virtual terminals and `--attach` (see the README).

mod clipboard;
pub mod framebuffer;
mod keys;
mod mouse;

use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use blitty_os::event::{PollSet, Wake};
use blitty_os::pace::Pacer;
use blitty_os::pty::{self, Size};
use blitty_os::signals::{Signals, SIGCHLD, SIGHUP, SIGINT, SIGQUIT, SIGTERM};
use blitty_os::status::shell_status;
use blitty_pixel::{Fonts, Renderer};
use blitty_vt::Terminal;
use rustix::event::PollFlags;
use rustix::io::Errno;
use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::xproto::{
    AtomEnum, ConnectionExt as _, CreateGCAux, CreateWindowAux, EventMask, ImageFormat, ImageOrder, PropMode,
    WindowClass,
};
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

use blitty_mux::text::Pos;
use clipboard::Clipboard;
use mouse::{Action, Clicks, Selection, Unit};

pub use keys::{encode, Keyboard, Press};

pub struct Options {
    pub argv: Vec<std::ffi::OsString>,
    pub cols: usize,
    pub rows: usize,
    pub title: Option<String>,
    pub fonts: Fonts,
    pub hz: u32,
    pub scrollback: usize,
    /// Keep the window open after the program ended (until it is closed).
    pub hold: bool,
    /// What a new virtual terminal runs (Ctrl-Shift-T): the user's shell.
    pub shell: std::ffi::OsString,
    /// Attach to a session instead of running `argv`: the server's socket and the session.
    pub attach: Option<(std::path::PathBuf, String)>,
}

/// The most pixels a window's side may have (a framebuffer's bound, within X's 16 bits).
pub const MAX_SIDE: usize = 16384;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    X,
    Program,
    /// A virtual terminal not shown, by its place in `others`.
    Hidden(usize),
    Signals,
}

/// The most virtual terminals one window holds (each is a program and a screen with its
/// scrollback; tmux has no limit, but a window's tabs past a few dozen are a mistake).
pub const MAX_VTYS: usize = 64;

/// Bytes of a vty's output parsed in one turn of the loop before the keys, the clock and the
/// frame are looked at again.
const READ_BUDGET: usize = 128 << 10;

/// Something went wrong with the X server: one line for the user.
fn x_err(e: impl std::fmt::Display) -> String {
    format!("the X server: {e}")
}

/// Runs the program in a window until it ends (its status is returned; with `hold`, until the
/// window is closed too) or the window is closed (the program gets SIGHUP; 128 + SIGHUP).
pub fn run(opts: Options) -> Result<i32, String> {
    let (conn, screen_num) = x11rb::connect(None).map_err(|e| {
        let name = std::env::var("DISPLAY").ok().filter(|d| !d.is_empty());
        match name {
            Some(d) => format!("cannot open the X display {d}: {e}"),
            None => format!("cannot open the X display (DISPLAY is not set): {e}"),
        }
    })?;
    let setup = conn.setup();
    let screen = &setup.roots[screen_num];
    let (root, depth, visual) = (screen.root, screen.root_depth, screen.root_visual);
    let pad = setup.pixmap_formats.iter().find(|f| f.depth == depth).map(|f| f.bits_per_pixel).unwrap_or(0);
    if depth != 24 || pad != 32 {
        return Err(format!(
            "the X display has depth {depth} at {pad} bits a pixel; blitty window draws 24-bit colour at 32 bits"
        ));
    }
    let big_endian = setup.image_byte_order == ImageOrder::MSB_FIRST;
    // XKB's own key events carry the keyboard group (the layout) in their state.
    {
        use x11rb::protocol::xkb::ConnectionExt as _;
        let _ = conn.xkb_use_extension(1, 0).map(|c| c.reply());
    }
    let mut keyboard = Keyboard::load(&conn, root).map_err(x_err)?;
    // The layout's names change on the root window (setxkbmap): the keymap is read again.
    conn.change_window_attributes(
        root,
        &x11rb::protocol::xproto::ChangeWindowAttributesAux::new().event_mask(EventMask::PROPERTY_CHANGE),
    )
    .map_err(x_err)?;
    let xkb_names = conn.intern_atom(false, b"_XKB_RULES_NAMES").map_err(x_err)?.reply().map_err(x_err)?.atom;

    let (cw, ch) = (opts.fonts.cell_w, opts.fonts.cell_h);
    // The window's pixels are bounded as a framebuffer's (and X's 16-bit sizes): a grid that
    // would not fit is refused, and resizing never makes one.
    let (max_cols, max_rows) = (MAX_SIDE / cw, MAX_SIDE / ch);
    if opts.cols > max_cols || opts.rows > max_rows {
        return Err(format!(
            "a {}x{} window of {cw}x{ch}-pixel cells is larger than {MAX_SIDE}x{MAX_SIDE} pixels; at this font size at most {}x{} cells",
            opts.cols, opts.rows, max_cols.min(blitty_vt::term::MAX_COLS), max_rows.min(blitty_vt::term::MAX_ROWS)
        ));
    }
    // The first vty: the program, or the session attached to (refused before any window
    // shows: no such session, no server).
    let program = match &opts.attach {
        Some((_, name)) => format!("blitty: {name}"),
        None => opts.argv.first().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default(),
    };
    let mut cur = match &opts.attach {
        Some((socket, name)) => Vty::attach(socket, name, opts.cols, opts.rows, opts.scrollback)?,
        None => Vty::start(&opts.argv, opts.cols, opts.rows, opts.scrollback)
            .map_err(|e| format!("cannot start {program}: {e}"))?,
    };
    let mut renderer = Renderer::new(opts.fonts, opts.cols, opts.rows);
    let (mut width, mut height) = ((opts.cols * cw) as u16, (opts.rows * ch) as u16);
    let bg = pixel_of(blitty_vt::Palette::default().background);
    let mut shm = Shm::available(&conn);

    let win = conn.generate_id().map_err(x_err)?;
    let events = EventMask::EXPOSURE
        | EventMask::KEY_PRESS
        | EventMask::BUTTON_PRESS
        | EventMask::BUTTON_RELEASE
        | EventMask::POINTER_MOTION
        | EventMask::PROPERTY_CHANGE
        | EventMask::STRUCTURE_NOTIFY
        | EventMask::FOCUS_CHANGE;
    conn.create_window(
        depth,
        win,
        root,
        0,
        0,
        width,
        height,
        0,
        WindowClass::INPUT_OUTPUT,
        visual,
        &CreateWindowAux::new().background_pixel(bg).event_mask(events),
    )
    .map_err(x_err)?;
    let atom = |name: &[u8]| -> Result<u32, String> {
        Ok(conn.intern_atom(false, name).map_err(x_err)?.reply().map_err(x_err)?.atom)
    };
    let (wm_protocols, wm_delete) = (atom(b"WM_PROTOCOLS")?, atom(b"WM_DELETE_WINDOW")?);
    let (net_wm_name, utf8) = (atom(b"_NET_WM_NAME")?, atom(b"UTF8_STRING")?);
    let net_wm_pid = atom(b"_NET_WM_PID")?;
    conn.change_property32(PropMode::REPLACE, win, wm_protocols, AtomEnum::ATOM, &[wm_delete]).map_err(x_err)?;
    conn.change_property8(PropMode::REPLACE, win, AtomEnum::WM_CLASS, AtomEnum::STRING, b"blitty\0Blitty\0")
        .map_err(x_err)?;
    conn.change_property32(PropMode::REPLACE, win, net_wm_pid, AtomEnum::CARDINAL, &[std::process::id()])
        .map_err(x_err)?;
    let fixed_title = opts.title.clone();
    let set_title = |text: &str| -> Result<(), String> {
        conn.change_property8(PropMode::REPLACE, win, AtomEnum::WM_NAME, AtomEnum::STRING, latin1(text).as_slice())
            .map_err(x_err)?;
        conn.change_property8(PropMode::REPLACE, win, net_wm_name, utf8, text.as_bytes()).map_err(x_err)?;
        Ok(())
    };
    set_title(fixed_title.as_deref().unwrap_or(&program))?;
    // WM_HINTS: input focus wanted; the urgency hint (ICCCM) when the bell rang unseen.
    let set_urgent = |urgent: bool| -> Result<(), String> {
        let flags = 1 | if urgent { 256 } else { 0 };
        conn.change_property32(
            PropMode::REPLACE,
            win,
            AtomEnum::WM_HINTS,
            AtomEnum::WM_HINTS,
            &[flags, 1, 0, 0, 0, 0, 0, 0, 0],
        )
        .map_err(x_err)?;
        Ok(())
    };
    set_urgent(false)?;
    let gc = conn.generate_id().map_err(x_err)?;
    conn.create_gc(gc, win, &CreateGCAux::new()).map_err(x_err)?;
    conn.map_window(win).map_err(x_err)?;
    conn.flush().map_err(x_err)?;

    let mut signals = Signals::new(&[SIGCHLD, SIGTERM, SIGHUP, SIGINT, SIGQUIT]).map_err(|e| e.to_string())?;
    let mut pacer = Pacer::new(opts.hz);
    let mut buf = vec![0u8; 64 * 1024];
    let mut mapped = false;
    let mut dirty = true;
    // What the title shown was made from: the program's title, and the shown vty's place
    // among several.
    let mut title_of: (String, Option<(usize, usize)>) = (String::new(), None);
    let (mut focused, mut urgent) = (false, false);
    // Lines the view is scrolled back into history (0: the live screen).
    let mut back = 0usize;
    let mut clip = Clipboard::new(&conn, win)?;
    let primary: u32 = AtomEnum::PRIMARY.into();
    let mut clicks = Clicks::default();
    // The selection shown, whether the left button is making it (and has moved), the button
    // held while the mouse is reported, and the cell last reported.
    let mut selection: Option<Selection> = None;
    let (mut selecting, mut moved) = (false, false);
    let mut held: Option<u8> = None;
    // A selection dragged past the top or bottom edge scrolls the view a line each
    // AUTOSCROLL while the pointer stays out (xterm): the direction (-1 back, 1 forward), the
    // pointer's x, and when the next line goes.
    let mut autoscroll: Option<(i8, i16, Instant)> = None;
    let mut last_cell: Option<(usize, usize)> = None;
    let mut was_alternate = false;
    // The cursor's look drawn (off in its blink, hollow), and since when it has blinked.
    let mut look = (false, false);
    let mut blink_since = Instant::now();
    // The virtual terminals not shown (seed 001: they cost only the parsing), in order, and the
    // place of the shown one (`cur`) among them all.
    let mut others: Vec<Vty> = Vec::new();
    let mut at = 0usize;
    let mut switch_to: Option<usize> = None;
    let target =
        Target { conn: &conn, win, gc, depth, big_endian, max_bytes: conn.maximum_request_bytes().saturating_sub(64) };

    let exit = 'run: loop {
        let now = Instant::now();
        let mut wake = Wake::default();
        let (off, next) = cursor_blink(cur.term.screen().modes(), focused && cur.ended.is_none(), blink_since, now);
        if (off, !focused) != look {
            look = (off, !focused);
            renderer.set_cursor(off, !focused);
            dirty = true;
        }
        if let Some(next) = next {
            wake.at(next);
        }
        if let Some((dir, x, at)) = autoscroll.filter(|_| selecting) {
            if now >= at {
                let screen = cur.term.screen();
                back = if dir < 0 { (back + 1).min(screen.history_len()) } else { back.saturating_sub(1) };
                let y = if dir < 0 { 0 } else { ((screen.rows() - 1) * ch) as i16 };
                let (_, pos) = view_cell(screen, back, (cw, ch), x, y);
                if let Some(sel) = selection.as_mut() {
                    sel.extend(screen, pos);
                    moved = true;
                }
                dirty = true;
                autoscroll = Some((dir, x, now + AUTOSCROLL));
            }
            wake.at(autoscroll.map_or(now, |a| a.2));
        }
        if dirty && mapped {
            wake.at(pacer.due_at(now));
        }
        let mut set = PollSet::new();
        set.add(conn.stream().as_fd(), PollFlags::IN, Part::X);
        if cur.open {
            let mut ev = PollFlags::IN;
            if !cur.to_child.is_empty() {
                ev |= PollFlags::OUT;
            }
            set.add(cur.fd(), ev, Part::Program);
        }
        for (i, v) in others.iter().enumerate().filter(|(_, v)| v.open) {
            let ev = if v.to_child.is_empty() { PollFlags::IN } else { PollFlags::IN | PollFlags::OUT };
            set.add(v.fd(), ev, Part::Hidden(i));
        }
        set.add(signals.wake.as_fd(), PollFlags::IN, Part::Signals);
        // Events the connection has read already (while writing) do not make it readable again:
        // one is taken now, and the poll does not wait if there was one.
        let queued = conn.poll_for_event().map_err(x_err)?;
        set.wait(if queued.is_some() { Some(Duration::ZERO) } else { wake.timeout(now) }).map_err(|e| e.to_string())?;
        let program_ev = set.events(Part::Program);
        let hidden_ev: Vec<PollFlags> = (0..others.len()).map(|i| set.events(Part::Hidden(i))).collect();
        drop(set);

        // The X server's events: keys first.
        let mut next = queued;
        loop {
            let ev = match next.take() {
                Some(ev) => ev,
                None => match conn.poll_for_event().map_err(x_err)? {
                    Some(ev) => ev,
                    None => break,
                },
            };
            match ev {
                Event::KeyPress(k) => {
                    let state = u16::from(k.state);
                    blink_since = Instant::now();
                    let sym = match keyboard.press(k.detail, state) {
                        Press::Sym(sym) => sym,
                        Press::Pending => continue,
                        // A compose sequence's text goes as it is.
                        Press::Text(text) => {
                            if cur.ended.is_none() {
                                cur.to_child.extend_from_slice(text.as_bytes());
                                pacer.key(Instant::now());
                                back = 0;
                                dirty = true;
                            }
                            continue;
                        }
                    };
                    let screen = cur.term.screen();
                    let ctrl_shift = state & (keys::CONTROL | keys::SHIFT) == keys::CONTROL | keys::SHIFT;
                    // Ctrl-Shift-C copies the selection to CLIPBOARD, Ctrl-Shift-V pastes it,
                    // Shift-Insert pastes PRIMARY (xterm's, and the desktop terminals' keys).
                    if ctrl_shift && matches!(sym, 0x43 | 0x63) {
                        if let Some(sel) = selection {
                            clip.own(&conn, clip.atoms.clipboard, sel.text(screen), k.time)?;
                        }
                        continue;
                    }
                    if ctrl_shift && matches!(sym, 0x56 | 0x76) {
                        clip.paste(&conn, clip.atoms.clipboard, k.time)?;
                        continue;
                    }
                    if state & keys::SHIFT != 0 && matches!(sym, 0xff63 | 0xff9e) {
                        clip.paste(&conn, primary, k.time)?;
                        continue;
                    }
                    // Virtual terminals: Ctrl-Shift-T opens one (running the shell) after the
                    // shown one; with more than one, Ctrl-PageUp/PageDown show the one before
                    // or after and Alt-1..9 the first to ninth (with one alone these keys are
                    // the program's, as vim and emacs use them).
                    let count = others.len() + 1;
                    if ctrl_shift && matches!(sym, 0x54 | 0x74) {
                        if count >= MAX_VTYS {
                            continue;
                        }
                        let (cols, rows) = (screen.cols(), screen.rows());
                        match Vty::start(std::slice::from_ref(&opts.shell), cols, rows, opts.scrollback) {
                            Ok(v) => {
                                others.insert(at, v);
                                switch_to = Some(at + 1);
                            }
                            Err(e) => eprintln!("blitty window: cannot start {}: {e}", opts.shell.to_string_lossy()),
                        }
                        continue;
                    }
                    let plain_ctrl = state & (keys::CONTROL | keys::SHIFT | keys::ALT) == keys::CONTROL;
                    if count > 1 && plain_ctrl && matches!(sym, 0xff55 | 0xff56) {
                        switch_to = Some(if sym == 0xff55 { (at + count - 1) % count } else { (at + 1) % count });
                        continue;
                    }
                    let plain_alt = state & (keys::CONTROL | keys::SHIFT | keys::ALT) == keys::ALT;
                    if count > 1 && plain_alt && (0x31..=0x39).contains(&sym) && ((sym - 0x31) as usize) < count {
                        switch_to = Some((sym - 0x31) as usize);
                        continue;
                    }
                    // Shift-PageUp and Shift-PageDown page through the scrollback (the
                    // alternate screen has none: they go to the program there).
                    if state & keys::SHIFT != 0 && matches!(sym, 0xff55 | 0xff56) && !screen.alternate_screen() {
                        let page = screen.rows();
                        back = if sym == 0xff55 {
                            (back + page).min(screen.history_len())
                        } else {
                            back.saturating_sub(page)
                        };
                        dirty = true;
                        continue;
                    }
                    let bytes = encode(sym, state, screen.modes());
                    if !bytes.is_empty() && cur.ended.is_none() {
                        cur.to_child.extend_from_slice(&bytes);
                        pacer.key(Instant::now());
                        // A key typed shows the live screen again (xterm's scrollKey).
                        if back > 0 {
                            back = 0;
                            dirty = true;
                        }
                    }
                }
                Event::ButtonPress(b) => {
                    let state = u16::from(b.state);
                    let (cell, at) = view_cell(cur.term.screen(), back, (cw, ch), b.event_x, b.event_y);
                    let screen = cur.term.screen();
                    // The mouse is the program's when it asked for it, unless Shift is held.
                    if reports(screen, state) && cur.ended.is_none() {
                        let px = (b.event_x.max(0) as usize, b.event_y.max(0) as usize);
                        let alt_ctrl = (state & keys::ALT != 0, state & keys::CONTROL != 0);
                        if let Some(r) = mouse::report(
                            screen.modes(),
                            Action::Press,
                            Some(b.detail),
                            cell,
                            px,
                            alt_ctrl.0,
                            alt_ctrl.1,
                        ) {
                            cur.to_child.extend_from_slice(&r);
                            pacer.key(Instant::now());
                        }
                        if (1..=3).contains(&b.detail) {
                            held = Some(b.detail);
                        }
                        last_cell = Some(cell);
                        continue;
                    }
                    match b.detail {
                        1 => {
                            let unit = clicks.press(Instant::now(), at);
                            selection = Some(Selection::new(screen, at, unit));
                            (selecting, moved) = (true, unit != Unit::Char);
                            dirty = true;
                        }
                        2 => clip.paste(&conn, primary, b.time)?,
                        3 => {
                            if let Some(sel) = selection.as_mut() {
                                sel.extend(screen, at);
                                clip.own(&conn, primary, sel.text(screen), b.time)?;
                                dirty = true;
                            }
                        }
                        // The wheel: three lines through the scrollback; on the alternate
                        // screen with mode 1007 (alternate scroll), three cursor keys.
                        4 | 5 if !screen.alternate_screen() => {
                            back = if b.detail == 4 {
                                (back + 3).min(screen.history_len())
                            } else {
                                back.saturating_sub(3)
                            };
                            dirty = true;
                        }
                        4 | 5 if screen.modes().alternate_scroll && cur.ended.is_none() => {
                            let key = encode(if b.detail == 4 { 0xff52 } else { 0xff54 }, 0, screen.modes());
                            for _ in 0..3 {
                                cur.to_child.extend_from_slice(&key);
                            }
                            pacer.key(Instant::now());
                        }
                        _ => {}
                    }
                }
                Event::MotionNotify(m) => {
                    let state = u16::from(m.state);
                    let (cell, at) = view_cell(cur.term.screen(), back, (cw, ch), m.event_x, m.event_y);
                    let screen = cur.term.screen();
                    if selecting {
                        if let Some(sel) = selection.as_mut() {
                            if moved || sel.range() != (at, at) {
                                sel.extend(screen, at);
                                moved = true;
                                dirty = true;
                            }
                        }
                        // Past the top (on the main screen, into the scrollback) or the bottom
                        // (back towards the live screen): the view scrolls while it stays there.
                        let dir = if m.event_y < 0 && !screen.alternate_screen() {
                            -1
                        } else if m.event_y >= height as i16 && back > 0 {
                            1
                        } else {
                            0
                        };
                        autoscroll = (dir != 0).then(|| {
                            let next = autoscroll.filter(|a| a.0 == dir).map_or(Instant::now(), |a| a.2);
                            (dir, m.event_x, next)
                        });
                    } else if reports(screen, state) && cur.ended.is_none() && last_cell != Some(cell) {
                        let px = (m.event_x.max(0) as usize, m.event_y.max(0) as usize);
                        let (alt, ctrl) = (state & keys::ALT != 0, state & keys::CONTROL != 0);
                        if let Some(r) = mouse::report(screen.modes(), Action::Motion, held, cell, px, alt, ctrl) {
                            cur.to_child.extend_from_slice(&r);
                        }
                        last_cell = Some(cell);
                    }
                }
                Event::ButtonRelease(b) => {
                    let state = u16::from(b.state);
                    if selecting && b.detail == 1 {
                        selecting = false;
                        autoscroll = None;
                        match selection {
                            // A click without a drag selects nothing (and keeps PRIMARY).
                            Some(_) if !moved => selection = None,
                            Some(sel) => clip.own(&conn, primary, sel.text(cur.term.screen()), b.time)?,
                            None => {}
                        }
                        dirty = true;
                    } else if held == Some(b.detail) {
                        held = None;
                        let (cell, _) = view_cell(cur.term.screen(), back, (cw, ch), b.event_x, b.event_y);
                        let screen = cur.term.screen();
                        if reports(screen, state & !keys::SHIFT) && cur.ended.is_none() {
                            let px = (b.event_x.max(0) as usize, b.event_y.max(0) as usize);
                            let (alt, ctrl) = (state & keys::ALT != 0, state & keys::CONTROL != 0);
                            if let Some(r) =
                                mouse::report(screen.modes(), Action::Release, Some(b.detail), cell, px, alt, ctrl)
                            {
                                cur.to_child.extend_from_slice(&r);
                            }
                        }
                    }
                }
                Event::SelectionRequest(r) => clip.serve(&conn, &r)?,
                Event::SelectionClear(c) => {
                    // Another client's selection: ours is no longer shown (xterm).
                    let ours = clip.lost(c.selection);
                    if ours && c.selection == primary && !selecting {
                        selection = None;
                        dirty = true;
                    }
                }
                Event::SelectionNotify(n) => {
                    if let Some(text) = clip.notified(&conn, &n)? {
                        pasted(&mut cur.to_child, &text, cur.term.screen(), cur.ended.is_none(), &mut back, &mut dirty);
                        pacer.key(Instant::now());
                    }
                }
                Event::MappingNotify(_) => keyboard = Keyboard::load(&conn, root).map_err(x_err)?,
                Event::PropertyNotify(p) if p.window == root && p.atom == xkb_names => {
                    keyboard = Keyboard::load(&conn, root).map_err(x_err)?;
                }
                Event::PropertyNotify(p) if p.window == win => {
                    if let Some(text) = clip.property(&conn, p.atom, p.state)? {
                        pasted(&mut cur.to_child, &text, cur.term.screen(), cur.ended.is_none(), &mut back, &mut dirty);
                        pacer.key(Instant::now());
                    }
                }
                Event::Expose(e) if e.count == 0 => {
                    mapped = true;
                    renderer.invalidate();
                    dirty = true;
                }
                Event::MapNotify(_) => {
                    mapped = true;
                    renderer.invalidate();
                    dirty = true;
                }
                Event::UnmapNotify(_) => mapped = false,
                Event::FocusIn(_) => {
                    focused = true;
                    // Focus events (mode 1004) for the programs that asked.
                    if cur.term.screen().modes().focus_events && cur.ended.is_none() {
                        cur.to_child.extend_from_slice(b"\x1b[I");
                    }
                    if urgent {
                        urgent = false;
                        set_urgent(false)?;
                    }
                }
                Event::FocusOut(_) => {
                    focused = false;
                    if cur.term.screen().modes().focus_events && cur.ended.is_none() {
                        cur.to_child.extend_from_slice(b"\x1b[O");
                    }
                }
                Event::ShmCompletion(_) => {
                    if let Some(s) = shm.as_mut() {
                        s.busy = false;
                    }
                }
                Event::ConfigureNotify(c) if (c.width, c.height) != (width, height) => {
                    (width, height) = (c.width, c.height);
                    let cols = (width as usize / cw).clamp(1, blitty_vt::term::MAX_COLS.min(max_cols));
                    let rows = (height as usize / ch).clamp(1, blitty_vt::term::MAX_ROWS.min(max_rows));
                    if (cols, rows) != (cur.term.screen().cols(), cur.term.screen().rows()) {
                        cur.resize(cols, rows);
                        renderer.resize(cols, rows);
                        // The lines were wrapped again: their numbers changed.
                        selection = None;
                    }
                    renderer.invalidate();
                    dirty = true;
                }
                Event::ClientMessage(m) if m.type_ == wm_protocols && m.data.as_data32()[0] == wm_delete => {
                    // Closed by the user: the program's terminal hangs up, as xterm does.
                    break 'run cur.ended.unwrap_or(128 + SIGHUP);
                }
                _ => {}
            }
        }

        // Keys go at once (the master does not block), not after another turn's poll.
        cur.write();
        if program_ev.intersects(PollFlags::IN | PollFlags::HUP | PollFlags::ERR) && cur.read(&mut buf) > 0 {
            blink_since = Instant::now();
            pacer.output(Instant::now());
            dirty = true;
            // Output shows the live screen again (xterm's scrollTtyOutput).
            back = 0;
        }
        // The hidden virtual terminals: read and parsed, nothing drawn; their answers written.
        for (v, ev) in others.iter_mut().zip(&hidden_ev) {
            v.write();
            if ev.intersects(PollFlags::IN | PollFlags::HUP | PollFlags::ERR) {
                v.read(&mut buf);
            }
        }
        for sig in signals.take() {
            match sig {
                SIGCHLD => {}
                other => break 'run 128 + other,
            }
        }
        // Programs that ended: a hidden vty goes; the shown one goes too while there are others
        // (the next one is shown), and the last one ends the window with its status (`--hold`
        // keeps it, as xterm's -hold).
        let mut i = 0;
        while i < others.len() {
            if others[i].reap(&mut buf).is_some() {
                others.remove(i);
                if i < at {
                    at -= 1;
                }
            } else {
                i += 1;
            }
        }
        if cur.ended.is_none() {
            if let Some(status) = cur.reap(&mut buf) {
                dirty = true;
                if !others.is_empty() {
                    let next = at.min(others.len() - 1);
                    cur = others.remove(next);
                    at = next;
                    back = 0;
                    selection = None;
                    renderer.invalidate();
                } else if !opts.hold {
                    break 'run status;
                }
            }
        }
        if let Some(n) = switch_to.take().filter(|&n| n != at && n <= others.len()) {
            show(&mut others, &mut cur, &mut at, n);
            // The one shown now is drawn whole; the selection was the other's.
            back = 0;
            selection = None;
            renderer.invalidate();
            dirty = true;
        }
        // Each vty's size is the window's (a hidden one resized when the window was).
        let (cols, rows) = (cur.term.screen().cols(), cur.term.screen().rows());
        for v in others.iter_mut().filter(|v| (v.term.screen().cols(), v.term.screen().rows()) != (cols, rows)) {
            v.resize(cols, rows);
        }

        // The bell: the urgency hint while the window does not have the focus (window managers
        // mark the window or its task), cleared when it gets it, as xterm's bellIsUrgent does.
        // Any vty's bell: a hidden one's too.
        let mut rang = false;
        for v in std::iter::once(&mut cur).chain(others.iter_mut()) {
            rang |= v.term.screen().bells() != v.bells;
            v.bells = v.term.screen().bells();
        }
        if rang && !focused && !urgent {
            urgent = true;
            set_urgent(true)?;
        }
        // The program's clipboard writes (OSC 52), as alacritty and kitty take them: `p` is
        // PRIMARY, `c` and `s` (and none named) CLIPBOARD. Reads are refused by the engine.
        if let Some(c) = cur.term.screen_mut().take_clipboard() {
            let text = String::from_utf8_lossy(&c.text).into_owned();
            if !text.is_empty() {
                if c.selections.contains('p') {
                    clip.own(&conn, primary, text.clone(), x11rb::CURRENT_TIME)?;
                }
                if c.selections.is_empty() || c.selections.contains(['c', 's']) {
                    clip.own(&conn, clip.atoms.clipboard, text, x11rb::CURRENT_TIME)?;
                }
            }
        }
        // The selection goes when output writes over it or the screen switches.
        if let Some(sel) = selection {
            let screen = cur.term.screen();
            let (a, b) = sel.range();
            let live = screen.history_pushed();
            let touched = (0..screen.rows())
                .any(|y| screen.row_damage(y).is_some() && (a.line..=b.line).contains(&(live + y as u64)));
            if touched || screen.alternate_screen() != was_alternate {
                selection = None;
                dirty = true;
            }
        }
        was_alternate = cur.term.screen().alternate_screen();
        // The title, as plain text (OSC 0 and 2), unless --title fixed it.
        // The title, with which vty is shown when there are several ("[2/3]"): made again
        // only when the program's title or the vtys changed, not on every turn.
        let place = (!others.is_empty()).then_some((at + 1, others.len() + 1));
        if cur.term.screen().title() != title_of.0 || place != title_of.1 {
            title_of = (cur.term.screen().title().to_string(), place);
            let title = match (&fixed_title, title_of.0.as_str()) {
                (Some(t), _) => t.clone(),
                (None, "") => program.clone(),
                (None, t) => t.to_string(),
            };
            match place {
                Some((i, n)) => set_title(&format!("{title} [{i}/{n}]"))?,
                None => set_title(&title)?,
            }
        }
        let now = Instant::now();
        let shm_busy = shm.as_ref().is_some_and(|s| s.busy);
        if dirty && mapped && !shm_busy && pacer.due(now) {
            let screen = cur.term.screen();
            let top = screen.history_pushed() - back as u64;
            renderer.set_marks(selection.map(|s| s.marks(screen, top, screen.rows())).unwrap_or_default());
            let rects = renderer.render_back(cur.term.screen(), back);
            cur.term.screen_mut().clear_damage();
            if let (Some(top), Some(bottom)) = (rects.iter().map(|r| r.y).min(), rects.iter().map(|r| r.y + r.h).max())
            {
                let fb = &renderer.fb;
                match shm.as_mut().map(|s| s.put(&target, fb, top, bottom)) {
                    Some(Ok(())) => {}
                    Some(Err(_)) => {
                        // The server would not take the segment: PutImage from now on.
                        shm = None;
                        target.put_rows(fb, 0, fb.height)?;
                    }
                    None => target.put_rows(fb, top, bottom)?,
                }
            }
            conn.flush().map_err(x_err)?;
            pacer.sent(now);
            dirty = false;
        }
        let _ = conn.flush();
    };

    // Every program still running is hung up, as when a terminal closes.
    for v in std::iter::once(&mut cur).chain(others.iter_mut()) {
        v.close();
    }
    let _ = conn.destroy_window(win);
    let _ = conn.flush();
    Ok(exit)
}

/// Where a virtual terminal's output comes from.
enum Source {
    /// A program on a pty of the window's own.
    Pty(pty::Pty),
    /// A session of the session server (`--attach`): its frames come on the socket, keys and
    /// sizes go there (the window is one more client, as `blitty attach` is).
    Session { stream: std::os::unix::net::UnixStream, frames: blitty_mux::proto::Frames, exit: Option<(i32, String)> },
}

/// A virtual terminal of the window: a program on a pty (or a session), the engine parsing its
/// output, the bytes it has not taken yet.
struct Vty {
    term: Terminal,
    src: Source,
    to_child: Vec<u8>,
    /// Its pty can still be read.
    open: bool,
    /// Its program ended, with this status.
    ended: Option<i32>,
    /// The bells of its screen already passed on.
    bells: u64,
}

impl Vty {
    fn start(argv: &[std::ffi::OsString], cols: usize, rows: usize, scrollback: usize) -> std::io::Result<Vty> {
        let pty = pty::spawn(argv, Size { cols: cols as u16, rows: rows as u16 })?;
        let term = Terminal::with_scrollback(cols, rows, scrollback);
        Ok(Vty { term, src: Source::Pty(pty), to_child: Vec::new(), open: true, ended: None, bells: 0 })
    }

    /// Attaches to session `name` of the server on `socket` as a client of `cols` x `rows`.
    fn attach(
        socket: &std::path::Path,
        name: &str,
        cols: usize,
        rows: usize,
        scrollback: usize,
    ) -> Result<Vty, String> {
        use blitty_mux::{client, proto};
        let stream = client::connect(socket, None)?;
        let req = proto::Request::Attach { name: Some(name.to_string()), cols: cols as u16, rows: rows as u16 };
        let (stream, frames, first) = client::attach(stream, req)?;
        let mut v = Vty {
            term: Terminal::with_scrollback(cols, rows, scrollback),
            src: Source::Session { stream, frames, exit: None },
            to_child: Vec::new(),
            open: true,
            ended: None,
            bells: 0,
        };
        v.message(first);
        v.send(&proto::Msg::Resize { cols: cols as u16, rows: rows as u16 });
        Ok(v)
    }

    /// A message of the session server.
    fn message(&mut self, msg: blitty_mux::proto::Msg) {
        use blitty_mux::proto::Msg;
        let Source::Session { exit, .. } = &mut self.src else { return };
        match msg {
            Msg::Output(bytes) => {
                self.term.feed(&bytes);
                // The server's engine answers the program; this one's answers go nowhere.
                let _ = self.term.take_replies();
            }
            Msg::Exit { reason, status } => *exit = Some((status as i32, reason)),
            Msg::Error(e) => *exit = Some((2, e)),
            _ => {}
        }
    }

    fn send(&mut self, msg: &blitty_mux::proto::Msg) {
        if let Source::Session { stream, exit, .. } = &mut self.src {
            if blitty_mux::client::send(stream, msg).is_err() && exit.is_none() {
                *exit = Some((1, "the blitty server went away".into()));
            }
        }
    }

    /// What the poll waits on.
    fn fd(&self) -> std::os::fd::BorrowedFd<'_> {
        match &self.src {
            Source::Pty(p) => p.master.as_fd(),
            Source::Session { stream, .. } => stream.as_fd(),
        }
    }

    /// Reads what the program wrote (at most 1 MiB a turn, so one flooding vty cannot hold the
    /// loop) into the engine; its answers are queued. How many bytes.
    fn read(&mut self, buf: &mut [u8]) -> usize {
        let pty = match &mut self.src {
            Source::Pty(p) => p,
            Source::Session { stream, frames, exit } => {
                // One read: the poll said there is something (the socket blocks).
                let n = match std::io::Read::read(stream, buf) {
                    Ok(0) | Err(_) => {
                        self.open = false;
                        exit.get_or_insert((1, "the blitty server went away".into()));
                        return 0;
                    }
                    Ok(n) => n,
                };
                frames.push(&buf[..n]);
                let mut msgs = Vec::new();
                while let Ok(Some(m)) = frames.next_msg() {
                    msgs.push(m);
                }
                msgs.into_iter().for_each(|m| self.message(m));
                return n;
            }
        };
        let mut taken = 0;
        while taken < READ_BUDGET {
            match rustix::io::read(&pty.master, &mut *buf) {
                Ok(0) => {
                    self.open = false;
                    break;
                }
                Ok(n) => {
                    taken += n;
                    self.term.feed(&buf[..n]);
                }
                Err(Errno::AGAIN) => break,
                Err(Errno::INTR) => {}
                Err(_) => {
                    self.open = false;
                    break;
                }
            }
        }
        if taken > 0 {
            self.to_child.extend_from_slice(&self.term.take_replies());
        }
        taken
    }

    /// Writes what the program has not taken yet, as much as the pty takes now (to a session,
    /// as one message).
    fn write(&mut self) {
        if !self.open || self.to_child.is_empty() {
            return;
        }
        let pty = match &mut self.src {
            Source::Pty(p) => p,
            Source::Session { .. } => {
                // In pieces the server takes (a paste can be larger than one message).
                let keys = std::mem::take(&mut self.to_child);
                for piece in keys.chunks(64 * 1024) {
                    self.send(&blitty_mux::proto::Msg::Input(piece.to_vec()));
                }
                return;
            }
        };
        match rustix::io::write(&pty.master, &self.to_child) {
            Ok(n) => {
                self.to_child.drain(..n);
            }
            Err(Errno::AGAIN) | Err(Errno::INTR) => {}
            Err(_) => self.to_child.clear(),
        }
    }

    /// The program's status if it has ended (what it wrote last is read first); a session's
    /// when the server said the attachment is over (detached, or the session ended), with why.
    fn reap(&mut self, buf: &mut [u8]) -> Option<i32> {
        if self.ended.is_some() {
            return None;
        }
        let status = match &mut self.src {
            Source::Pty(pty) => {
                let status = pty.child.try_wait().ok().flatten()?;
                while let Ok(n @ 1..) = rustix::io::read(&pty.master, &mut *buf) {
                    self.term.feed(&buf[..n]);
                }
                shell_status(status)
            }
            Source::Session { exit, .. } => {
                let (status, reason) = exit.clone()?;
                eprintln!("blitty window: {}", blitty_mux::names::defanged(&reason));
                status
            }
        };
        self.open = false;
        self.ended = Some(status);
        self.ended
    }

    fn resize(&mut self, cols: usize, rows: usize) {
        self.term.resize(cols, rows);
        let size = Size { cols: cols as u16, rows: rows as u16 };
        match &mut self.src {
            Source::Pty(p) => {
                let _ = p.resize(size);
            }
            Source::Session { .. } => self.send(&blitty_mux::proto::Msg::Resize { cols: size.cols, rows: size.rows }),
        }
    }

    /// The window closes: a program is hung up (killed if it will not go); a session is left
    /// running (the window detaches, as a closed terminal does in tmux).
    fn close(&mut self) {
        if self.ended.is_some() {
            return;
        }
        if let Source::Pty(p) = &mut self.src {
            if !p.hang_up(Duration::from_secs(1)) {
                let _ = p.child.kill();
                let _ = p.child.wait();
            }
        }
    }
}

/// Where frames go: the window, its graphics context, and the server's pixel format and
/// request limit.
struct Target<'a> {
    conn: &'a RustConnection,
    win: u32,
    gc: u32,
    depth: u8,
    big_endian: bool,
    /// Largest PutImage: the server's limit less the request's header.
    max_bytes: usize,
}

impl Target<'_> {
    /// Sends framebuffer rows `[top, bottom)` in as few PutImage requests as the server takes.
    fn put_rows(&self, fb: &blitty_pixel::Framebuffer, top: usize, bottom: usize) -> Result<(), String> {
        let stride = fb.width * 4;
        let per = (self.max_bytes / stride).max(1);
        let bottom = bottom.min(fb.height);
        let mut y = top;
        let mut data = Vec::new();
        while y < bottom {
            let n = per.min(bottom - y);
            data.resize(n * stride, 0);
            self.encode(&fb.pixels[y * fb.width..(y + n) * fb.width], &mut data);
            self.conn
                .put_image(
                    ImageFormat::Z_PIXMAP,
                    self.win,
                    self.gc,
                    fb.width as u16,
                    n as u16,
                    0,
                    y as i16,
                    0,
                    self.depth,
                    &data,
                )
                .map_err(x_err)?;
            y += n;
        }
        Ok(())
    }

    /// `pixels` (0xRRGGBB) as the server's 32-bit pixels, into `out` (4 bytes each).
    fn encode(&self, pixels: &[u32], out: &mut [u8]) {
        for (dst, p) in out.chunks_exact_mut(4).zip(pixels) {
            dst.copy_from_slice(&if self.big_endian { p.to_be_bytes() } else { p.to_le_bytes() });
        }
    }
}

/// A MIT-SHM segment shared with the X server (a memfd it maps, SHM 1.2), as large as the
/// framebuffer; made again when the window grows.
struct Shm {
    seg: u32,
    map: *mut u8,
    len: usize,
    /// A ShmPutImage is in flight: the server may still be reading the segment.
    busy: bool,
}

impl Shm {
    /// None when the server has no MIT-SHM 1.2 (fd passing): a remote display.
    fn available(conn: &RustConnection) -> Option<Shm> {
        use x11rb::protocol::shm::ConnectionExt as _;
        let v = conn.shm_query_version().ok()?.reply().ok()?;
        ((v.major_version, v.minor_version) >= (1, 2)).then_some(Shm {
            seg: 0,
            map: std::ptr::null_mut(),
            len: 0,
            busy: false,
        })
    }

    /// A segment of at least `len` bytes.
    fn ensure(&mut self, conn: &RustConnection, len: usize) -> Result<(), String> {
        use x11rb::protocol::shm::ConnectionExt as _;
        if len <= self.len {
            return Ok(());
        }
        self.release(conn);
        let fd =
            rustix::fs::memfd_create("blitty-window", rustix::fs::MemfdFlags::CLOEXEC).map_err(|e| e.to_string())?;
        rustix::fs::ftruncate(&fd, len as u64).map_err(|e| e.to_string())?;
        // SAFETY: a fresh shared mapping of our own memfd, `len` bytes; it is unmapped only in
        // `release`, after the server has been told to let go of it.
        let map = unsafe {
            rustix::mm::mmap(
                std::ptr::null_mut(),
                len,
                rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::WRITE,
                rustix::mm::MapFlags::SHARED,
                &fd,
                0,
            )
        }
        .map_err(|e| e.to_string())?;
        let seg = conn.generate_id().map_err(x_err)?;
        conn.shm_attach_fd(seg, fd, true).map_err(x_err)?;
        (self.seg, self.map, self.len) = (seg, map.cast(), len);
        Ok(())
    }

    fn release(&mut self, conn: &RustConnection) {
        use x11rb::protocol::shm::ConnectionExt as _;
        if self.len > 0 {
            let _ = conn.shm_detach(self.seg);
            // SAFETY: the mapping made in `ensure`, not used after this.
            let _ = unsafe { rustix::mm::munmap(self.map.cast(), self.len) };
            self.len = 0;
        }
    }

    /// Copies framebuffer rows `[top, bottom)` into the segment and shows them with one
    /// ShmPutImage; the server says when it is done (ShmCompletion).
    fn put(&mut self, t: &Target, fb: &blitty_pixel::Framebuffer, top: usize, bottom: usize) -> Result<(), String> {
        use x11rb::protocol::shm::ConnectionExt as _;
        let bottom = bottom.min(fb.height);
        if top >= bottom {
            return Ok(());
        }
        let conn = t.conn;
        self.ensure(conn, fb.width * fb.height * 4)?;
        // SAFETY: the segment is at least width * height * 4 bytes (ensure), and the server is
        // not reading it (no ShmPutImage in flight: `busy` is false).
        let seg = unsafe { std::slice::from_raw_parts_mut(self.map, self.len) };
        let (from, to) = (top * fb.width, bottom * fb.width);
        t.encode(&fb.pixels[from..to], &mut seg[from * 4..to * 4]);
        conn.shm_put_image(
            t.win,
            t.gc,
            fb.width as u16,
            fb.height as u16,
            0,
            top as u16,
            fb.width as u16,
            (bottom - top) as u16,
            0,
            top as i16,
            t.depth,
            ImageFormat::Z_PIXMAP.into(),
            true,
            self.seg,
            0,
        )
        .map_err(x_err)?;
        self.busy = true;
        Ok(())
    }
}

/// Shows the `n`th of all the vtys (in order: `others[..at]`, the shown `cur`, `others[at..]`):
/// it changes places with `cur`, which goes back to its own place among the others.
fn show<T>(others: &mut Vec<T>, cur: &mut T, at: &mut usize, n: usize) {
    let shown = others.remove(n - (n > *at) as usize);
    let was = std::mem::replace(cur, shown);
    others.insert(*at - (n < *at) as usize, was);
    *at = n;
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

/// A paste arrived: it goes to the program (see `mouse::paste_bytes`), and the view to the live
/// screen.
fn pasted(
    to_child: &mut Vec<u8>,
    text: &[u8],
    screen: &blitty_vt::Screen,
    running: bool,
    back: &mut usize,
    dirty: &mut bool,
) {
    if running && !text.is_empty() {
        to_child.extend_from_slice(&mouse::paste_bytes(text, screen.modes()));
        if *back > 0 {
            *back = 0;
            *dirty = true;
        }
    }
}

fn pixel_of(c: blitty_vt::Rgb) -> u32 {
    (c[0] as u32) << 16 | (c[1] as u32) << 8 | c[2] as u32
}

/// WM_NAME is Latin-1: characters past it become '?'.
fn latin1(text: &str) -> Vec<u8> {
    text.chars().map(|c| if (c as u32) < 256 { c as u8 } else { b'?' }).collect()
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
