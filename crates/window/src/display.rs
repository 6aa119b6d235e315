//! The X side of the window: the connection, the window and its properties, the frames put
//! into it (MIT-SHM on this machine's server, PutImage elsewhere), and the notices drawn over
//! them by the server itself.

use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::xproto::{
    AtomEnum, ConnectionExt as _, CreateGCAux, CreateWindowAux, EventMask, ImageFormat, ImageOrder, PropMode,
    WindowClass,
};
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

/// Something went wrong with the X server: one line for the user.
pub fn x_err(e: impl std::fmt::Display) -> String {
    format!("the X server: {e}")
}

/// The atoms the loop compares events with.
pub struct Atoms {
    pub wm_protocols: u32,
    pub wm_delete: u32,
    /// The root window's property that names the keyboard's layout (setxkbmap changes it).
    pub xkb_names: u32,
    net_wm_name: u32,
    utf8: u32,
}

/// The connection and the window, with what the server told about itself.
pub struct Display {
    pub conn: RustConnection,
    pub root: u32,
    pub win: u32,
    pub atoms: Atoms,
    target: Target,
    /// None: no MIT-SHM (a remote display), or the server would not take a segment.
    shm: Option<Shm>,
    /// The window's size in pixels, as the server last said.
    pub size: (u16, u16),
    /// Mapped (shown): an unmapped window presents nothing.
    pub mapped: bool,
    pub focused: bool,
    /// The urgency hint is set (the bell rang while the window did not have the focus).
    pub urgent: bool,
    /// The graphics context of notices and its font's ascent; None until the first notice,
    /// Some(None) when the server has no "fixed" font.
    notice: Option<Option<(u32, i16)>>,
    /// Notices are drawn in the screen's colours swapped: (text, background).
    notice_colours: (u32, u32),
}

/// The connection to the X server named by DISPLAY, refused unless its screen takes the
/// renderer's pixels as they are (24-bit colour at 32 bits a pixel).
pub fn connect() -> Result<(RustConnection, usize), String> {
    let (conn, screen_num) = x11rb::connect(None).map_err(|e| {
        let name = std::env::var("DISPLAY").ok().filter(|d| !d.is_empty());
        match name {
            Some(d) => format!("cannot open the X display {d}: {e}"),
            None => format!("cannot open the X display (DISPLAY is not set): {e}"),
        }
    })?;
    let setup = conn.setup();
    let depth = setup.roots[screen_num].root_depth;
    let pad = setup.pixmap_formats.iter().find(|f| f.depth == depth).map(|f| f.bits_per_pixel).unwrap_or(0);
    if depth != 24 || pad != 32 {
        return Err(format!(
            "the X display has depth {depth} at {pad} bits a pixel; blitty window draws 24-bit colour at 32 bits"
        ));
    }
    Ok((conn, screen_num))
}

fn atom(conn: &RustConnection, name: &[u8]) -> Result<u32, String> {
    Ok(conn.intern_atom(false, name).map_err(x_err)?.reply().map_err(x_err)?.atom)
}

impl Display {
    /// Makes the window, `width` x `height` pixels (`fg` and `bg`: the screen's default
    /// colours as pixels, for its background and the notices).
    pub fn create(
        conn: RustConnection,
        screen_num: usize,
        (width, height): (u16, u16),
        (fg, bg): (u32, u32),
    ) -> Result<Display, String> {
        let setup = conn.setup();
        let screen = &setup.roots[screen_num];
        let (root, depth, visual) = (screen.root, screen.root_depth, screen.root_visual);
        let big_endian = setup.image_byte_order == ImageOrder::MSB_FIRST;
        let shm = Shm::available(&conn);
        let win = conn.generate_id().map_err(x_err)?;
        let events = EventMask::EXPOSURE
            | EventMask::KEY_PRESS
            | EventMask::BUTTON_PRESS
            | EventMask::BUTTON_RELEASE
            | EventMask::POINTER_MOTION
            | EventMask::PROPERTY_CHANGE
            | EventMask::STRUCTURE_NOTIFY
            | EventMask::FOCUS_CHANGE;
        let aux = CreateWindowAux::new().background_pixel(bg).event_mask(events);
        conn.create_window(depth, win, root, 0, 0, width, height, 0, WindowClass::INPUT_OUTPUT, visual, &aux)
            .map_err(x_err)?;
        let atoms = Atoms {
            wm_protocols: atom(&conn, b"WM_PROTOCOLS")?,
            wm_delete: atom(&conn, b"WM_DELETE_WINDOW")?,
            xkb_names: atom(&conn, b"_XKB_RULES_NAMES")?,
            net_wm_name: atom(&conn, b"_NET_WM_NAME")?,
            utf8: atom(&conn, b"UTF8_STRING")?,
        };
        let net_wm_pid = atom(&conn, b"_NET_WM_PID")?;
        conn.change_property32(PropMode::REPLACE, win, atoms.wm_protocols, AtomEnum::ATOM, &[atoms.wm_delete])
            .map_err(x_err)?;
        conn.change_property8(PropMode::REPLACE, win, AtomEnum::WM_CLASS, AtomEnum::STRING, b"blitty\0Blitty\0")
            .map_err(x_err)?;
        conn.change_property32(PropMode::REPLACE, win, net_wm_pid, AtomEnum::CARDINAL, &[std::process::id()])
            .map_err(x_err)?;
        let gc = conn.generate_id().map_err(x_err)?;
        let max_bytes = conn.maximum_request_bytes().saturating_sub(64);
        let mut d = Display {
            conn,
            root,
            win,
            atoms,
            target: Target { win, gc, depth, big_endian, max_bytes },
            shm,
            size: (width, height),
            mapped: false,
            focused: false,
            urgent: false,
            notice: None,
            notice_colours: (bg, fg),
        };
        d.set_urgent(false)?;
        d.conn.create_gc(gc, win, &CreateGCAux::new()).map_err(x_err)?;
        Ok(d)
    }

    /// Maps the window: it shows once the server (or the window manager) says so.
    pub fn map(&self) -> Result<(), String> {
        self.conn.map_window(self.win).map_err(x_err)?;
        self.conn.flush().map_err(x_err)
    }

    /// The window's title: WM_NAME (Latin-1) and _NET_WM_NAME (UTF-8).
    pub fn set_title(&self, text: &str) -> Result<(), String> {
        let (conn, win) = (&self.conn, self.win);
        conn.change_property8(PropMode::REPLACE, win, AtomEnum::WM_NAME, AtomEnum::STRING, latin1(text).as_slice())
            .map_err(x_err)?;
        conn.change_property8(PropMode::REPLACE, win, self.atoms.net_wm_name, self.atoms.utf8, text.as_bytes())
            .map_err(x_err)?;
        Ok(())
    }

    /// WM_HINTS: input focus wanted; the urgency hint (ICCCM) when the bell rang unseen.
    pub fn set_urgent(&mut self, urgent: bool) -> Result<(), String> {
        let flags = 1 | if urgent { 256 } else { 0 };
        let hints = [flags, 1, 0, 0, 0, 0, 0, 0, 0];
        self.conn
            .change_property32(PropMode::REPLACE, self.win, AtomEnum::WM_HINTS, AtomEnum::WM_HINTS, &hints)
            .map_err(x_err)?;
        self.urgent = urgent;
        Ok(())
    }

    /// A ShmPutImage is in flight: the next frame waits for its completion event.
    pub fn busy(&self) -> bool {
        self.shm.as_ref().is_some_and(|s| s.busy)
    }

    /// The server is done with the last ShmPutImage.
    pub fn completed(&mut self) {
        if let Some(s) = self.shm.as_mut() {
            s.busy = false;
        }
    }

    /// Shows framebuffer rows `[top, bottom)`.
    pub fn put(&mut self, fb: &blitty_pixel::Framebuffer, top: usize, bottom: usize) -> Result<(), String> {
        match self.shm.as_mut().map(|s| s.put(&self.conn, &self.target, fb, top, bottom)) {
            Some(Ok(())) => Ok(()),
            Some(Err(_)) => {
                // The server would not take the segment: PutImage from now on.
                self.shm = None;
                self.target.put_rows(&self.conn, fb, 0, fb.height)
            }
            None => self.target.put_rows(&self.conn, fb, top, bottom),
        }
    }

    /// Draws `text` over the top of the window, in the server's "fixed" font (every X server
    /// has it built in): a line the window says without touching the screen of any vty, drawn
    /// again after each frame while it lasts. Nothing is drawn if the server has no such font.
    pub fn draw_notice(&mut self, text: &str) -> Result<(), String> {
        if self.notice.is_none() {
            self.notice = Some(self.notice_gc());
        }
        let Some(Some((gc, ascent))) = self.notice else {
            return Ok(());
        };
        let mut line = latin1(&format!(" {text} "));
        // ImageText8 carries at most 255 characters; the window's edge cuts the rest anyway.
        line.truncate(255);
        self.conn.image_text8(self.win, gc, 0, ascent, &line).map_err(x_err)?;
        Ok(())
    }

    fn notice_gc(&self) -> Option<(u32, i16)> {
        let conn = &self.conn;
        let font = conn.generate_id().ok()?;
        conn.open_font(font, b"fixed").ok()?.check().ok()?;
        let ascent = conn.query_font(font).ok()?.reply().ok()?.font_ascent;
        let gc = conn.generate_id().ok()?;
        let (fg, bg) = self.notice_colours;
        conn.create_gc(gc, self.win, &CreateGCAux::new().font(font).foreground(fg).background(bg)).ok()?;
        Some((gc, ascent))
    }

    /// The window goes (the vtys are closed first: the server's answer is not waited for).
    pub fn destroy(&self) {
        let _ = self.conn.destroy_window(self.win);
        let _ = self.conn.flush();
    }
}

/// Where frames go: the window, its graphics context, and the server's pixel format and
/// request limit.
struct Target {
    win: u32,
    gc: u32,
    depth: u8,
    big_endian: bool,
    /// Largest PutImage: the server's limit less the request's header.
    max_bytes: usize,
}

impl Target {
    /// Sends framebuffer rows `[top, bottom)` in as few PutImage requests as the server takes.
    fn put_rows(
        &self,
        conn: &RustConnection,
        fb: &blitty_pixel::Framebuffer,
        top: usize,
        bottom: usize,
    ) -> Result<(), String> {
        let stride = fb.width * 4;
        let per = (self.max_bytes / stride).max(1);
        let bottom = bottom.min(fb.height);
        let mut y = top;
        let mut data = Vec::new();
        while y < bottom {
            let n = per.min(bottom - y);
            data.resize(n * stride, 0);
            self.encode(&fb.pixels[y * fb.width..(y + n) * fb.width], &mut data);
            conn.put_image(
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
    fn put(
        &mut self,
        conn: &RustConnection,
        t: &Target,
        fb: &blitty_pixel::Framebuffer,
        top: usize,
        bottom: usize,
    ) -> Result<(), String> {
        use x11rb::protocol::shm::ConnectionExt as _;
        let bottom = bottom.min(fb.height);
        if top >= bottom {
            return Ok(());
        }
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

/// WM_NAME is Latin-1: characters past it become '?'.
fn latin1(text: &str) -> Vec<u8> {
    text.chars().map(|c| if (c as u32) < 256 { c as u8 } else { b'?' }).collect()
}
