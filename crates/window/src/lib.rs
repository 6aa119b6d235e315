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
//! The loop has the shape of blitty's other loops (`blitty_io::event`): one poll over the X
//! connection, the program's pty and the signals, frames paced by `blitty_io::session::Pacer`.
//!
//! Keys (`keys.rs`) are read from the X server's keyboard map (core protocol: the keysym of a
//! key with Shift, CapsLock and NumLock taken into account) and encoded as xterm encodes them.
//! Not yet: xkbcommon (dead keys, compose), mouse selection and the X clipboards, mouse
//! reporting, virtual terminals and `--attach` (see the README).

mod keys;

use std::os::fd::AsFd;
use std::time::Instant;

use blitty_io::event::{PollSet, Wake};
use blitty_io::pty::{self, Size};
use blitty_io::session::{shell_status, Pacer};
use blitty_io::signals::{Signals, SIGCHLD, SIGHUP, SIGINT, SIGQUIT, SIGTERM};
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

pub use keys::{encode, Keyboard};

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
}

/// The most pixels a window's side may have (a framebuffer's bound, within X's 16 bits).
pub const MAX_SIDE: usize = 16384;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    X,
    Program,
    Signals,
}

/// Something went wrong with the X server: one line for the user.
fn x_err(e: impl std::fmt::Display) -> String {
    format!("the X server: {e}")
}

/// Runs the program in a window until it ends (its status is returned; with `hold`, until the
/// window is closed too) or the window is closed (the program gets SIGHUP; 128 + SIGHUP).
pub fn run(opts: Options) -> Result<i32, String> {
    let (conn, screen_num) = x11rb::connect(None).map_err(|e| format!("cannot open the X display: {e}"))?;
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
    let keyboard = Keyboard::load(&conn).map_err(x_err)?;

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
    let mut renderer = Renderer::new(opts.fonts, opts.cols, opts.rows);
    let mut term = Terminal::with_scrollback(opts.cols, opts.rows, opts.scrollback);
    let (mut width, mut height) = ((opts.cols * cw) as u16, (opts.rows * ch) as u16);
    let bg = pixel_of(term.screen().palette().background);
    let mut shm = Shm::available(&conn);

    let win = conn.generate_id().map_err(x_err)?;
    let events = EventMask::EXPOSURE
        | EventMask::KEY_PRESS
        | EventMask::BUTTON_PRESS
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
    let program = opts.argv.first().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
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

    let size = Size { cols: opts.cols as u16, rows: opts.rows as u16 };
    let mut child = pty::spawn(&opts.argv, size).map_err(|e| format!("cannot start {program}: {e}"))?;
    let mut signals = Signals::new(&[SIGCHLD, SIGTERM, SIGHUP, SIGINT, SIGQUIT]).map_err(|e| e.to_string())?;
    let mut pacer = Pacer::new(opts.hz);
    let mut buf = vec![0u8; 64 * 1024];
    let mut to_child: Vec<u8> = Vec::new();
    let mut master_open = true;
    let mut mapped = false;
    let mut dirty = true;
    let mut shown_title = String::new();
    let (mut focused, mut urgent, mut bells_seen) = (false, false, 0u64);
    // Lines the view is scrolled back into history (0: the live screen).
    let mut back = 0usize;
    let mut ended: Option<i32> = None;
    let target =
        Target { conn: &conn, win, gc, depth, big_endian, max_bytes: conn.maximum_request_bytes().saturating_sub(64) };

    let exit = 'run: loop {
        let now = Instant::now();
        let mut wake = Wake::default();
        if dirty && mapped {
            wake.at(pacer.due_at(now));
        }
        let mut set = PollSet::new();
        set.add(conn.stream().as_fd(), PollFlags::IN, Part::X);
        if master_open {
            let mut ev = PollFlags::IN;
            if !to_child.is_empty() {
                ev |= PollFlags::OUT;
            }
            set.add(child.master.as_fd(), ev, Part::Program);
        }
        set.add(signals.wake.as_fd(), PollFlags::IN, Part::Signals);
        // Events the connection has read already (while writing) do not make it readable again:
        // one is taken now, and the poll does not wait if there was one.
        let queued = conn.poll_for_event().map_err(x_err)?;
        set.wait(if queued.is_some() { Some(std::time::Duration::ZERO) } else { wake.timeout(now) })
            .map_err(|e| e.to_string())?;
        let program_ev = set.events(Part::Program);
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
                    let (sym, state) = (keyboard.keysym(k.detail, k.state.into()), u16::from(k.state));
                    let screen = term.screen();
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
                    if !bytes.is_empty() && ended.is_none() {
                        to_child.extend_from_slice(&bytes);
                        pacer.key(Instant::now());
                        // A key typed shows the live screen again (xterm's scrollKey).
                        if back > 0 {
                            back = 0;
                            dirty = true;
                        }
                    }
                }
                // The wheel: three lines through the scrollback; on the alternate screen with
                // mode 1007 (alternate scroll), three cursor keys to the program.
                Event::ButtonPress(b) if b.detail == 4 || b.detail == 5 => {
                    let screen = term.screen();
                    if !screen.alternate_screen() {
                        back =
                            if b.detail == 4 { (back + 3).min(screen.history_len()) } else { back.saturating_sub(3) };
                        dirty = true;
                    } else if screen.modes().alternate_scroll && ended.is_none() {
                        let key = encode(if b.detail == 4 { 0xff52 } else { 0xff54 }, 0, screen.modes());
                        for _ in 0..3 {
                            to_child.extend_from_slice(&key);
                        }
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
                    if urgent {
                        urgent = false;
                        set_urgent(false)?;
                    }
                }
                Event::FocusOut(_) => focused = false,
                Event::ShmCompletion(_) => {
                    if let Some(s) = shm.as_mut() {
                        s.busy = false;
                    }
                }
                Event::ConfigureNotify(c) if (c.width, c.height) != (width, height) => {
                    (width, height) = (c.width, c.height);
                    let cols = (width as usize / cw).clamp(1, blitty_vt::term::MAX_COLS.min(max_cols));
                    let rows = (height as usize / ch).clamp(1, blitty_vt::term::MAX_ROWS.min(max_rows));
                    if (cols, rows) != (term.screen().cols(), term.screen().rows()) {
                        term.resize(cols, rows);
                        renderer.resize(cols, rows);
                        let _ = child.resize(Size { cols: cols as u16, rows: rows as u16 });
                    }
                    renderer.invalidate();
                    dirty = true;
                }
                Event::ClientMessage(m) if m.type_ == wm_protocols && m.data.as_data32()[0] == wm_delete => {
                    // Closed by the user: the program's terminal hangs up, as xterm does.
                    break 'run ended.unwrap_or(128 + SIGHUP);
                }
                _ => {}
            }
        }

        if program_ev.contains(PollFlags::OUT) && !to_child.is_empty() {
            match rustix::io::write(&child.master, &to_child) {
                Ok(n) => {
                    to_child.drain(..n);
                }
                Err(Errno::AGAIN) | Err(Errno::INTR) => {}
                Err(_) => to_child.clear(),
            }
        }
        if program_ev.intersects(PollFlags::IN | PollFlags::HUP | PollFlags::ERR) {
            let mut taken = 0;
            while taken < (1 << 20) {
                match rustix::io::read(&child.master, &mut buf) {
                    Ok(0) => {
                        master_open = false;
                        break;
                    }
                    Ok(n) => {
                        taken += n;
                        term.feed(&buf[..n]);
                    }
                    Err(Errno::AGAIN) => break,
                    Err(Errno::INTR) => {}
                    Err(_) => {
                        master_open = false;
                        break;
                    }
                }
            }
            if taken > 0 {
                to_child.extend_from_slice(&term.take_replies());
                pacer.output(Instant::now());
                dirty = true;
                // Output shows the live screen again (xterm's scrollTtyOutput).
                back = 0;
            }
        }
        for sig in signals.take() {
            match sig {
                SIGCHLD => {}
                other => break 'run 128 + other,
            }
        }
        if ended.is_none() {
            if let Ok(Some(status)) = child.child.try_wait() {
                // What it wrote last is read before the end.
                while let Ok(n @ 1..) = rustix::io::read(&child.master, &mut buf) {
                    term.feed(&buf[..n]);
                }
                master_open = false;
                dirty = true;
                ended = Some(shell_status(status));
                if !opts.hold {
                    break 'run shell_status(status);
                }
            }
        }

        // The bell: the urgency hint while the window does not have the focus (window managers
        // mark the window or its task), cleared when it gets it, as xterm's bellIsUrgent does.
        if term.screen().bells() != bells_seen {
            bells_seen = term.screen().bells();
            if !focused && !urgent {
                urgent = true;
                set_urgent(true)?;
            }
        }
        // The title, as plain text (OSC 0 and 2), unless --title fixed it.
        if fixed_title.is_none() && term.screen().title() != shown_title && !term.screen().title().is_empty() {
            shown_title = term.screen().title().to_string();
            set_title(&shown_title)?;
        }
        let now = Instant::now();
        let shm_busy = shm.as_ref().is_some_and(|s| s.busy);
        if dirty && mapped && !shm_busy && pacer.due(now) {
            let rects = renderer.render_back(term.screen(), back);
            term.screen_mut().clear_damage();
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

    if ended.is_none() && !child.hang_up(std::time::Duration::from_secs(1)) {
        let _ = child.child.kill();
        let _ = child.child.wait();
    }
    let _ = conn.destroy_window(win);
    let _ = conn.flush();
    Ok(exit)
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

fn pixel_of(c: blitty_vt::Rgb) -> u32 {
    (c[0] as u32) << 16 | (c[1] as u32) << 8 | c[2] as u32
}

/// WM_NAME is Latin-1: characters past it become '?'.
fn latin1(text: &str) -> Vec<u8> {
    text.chars().map(|c| if (c as u32) < 256 { c as u8 } else { b'?' }).collect()
}
