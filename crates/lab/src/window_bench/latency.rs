//! The X side of `blitty bench window`, driving and watching a terminal's window: key to pixels
//! (the time from a key sent with XTEST to the X server having the terminal's drawing of its
//! echo, idle and during a flood), a vty hidden behind a second for the syscons console post's lines, and the
//! window's drawings counted during a flood (`DamageCounter`).
//!
//! How, idle: each terminal runs `cat` on its pty (the echo is the line discipline's, the same
//! for every terminal). The bench watches the terminal's window with the DAMAGE extension
//! (level NonEmpty: an event when a drawing request changed pixels) and sends a key; the time
//! is from the XTEST request to the first damage event that follows it, as the X server sees
//! both, so it includes the terminal reading the pty, parsing, drawing and presenting. Blinking
//! cursors are turned off where a terminal blinks by default (kitty), so that only the echo
//! draws.

use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use x11rb::connection::Connection;
use x11rb::protocol::damage::{ConnectionExt as _, ReportLevel};
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat, InputFocus, MapState, Window};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

use crate::common::stats::median_max;
use crate::common::xvfb::spawn_on;

/// Keys timed per terminal (the median is reported), and how long one may take.
pub fn keys(quick: bool) -> usize {
    if quick {
        9
    } else {
        41
    }
}
const KEY_TIMEOUT: Duration = Duration::from_secs(5);

/// The top-level windows that are mapped.
fn mapped(conn: &RustConnection, root: Window) -> Vec<Window> {
    let Ok(Ok(tree)) = conn.query_tree(root).map(|c| c.reply()) else { return Vec::new() };
    tree.children
        .into_iter()
        .filter(|&w| {
            conn.get_window_attributes(w)
                .ok()
                .and_then(|c| c.reply().ok())
                .is_some_and(|a| a.map_state == MapState::VIEWABLE)
        })
        .collect()
}

/// Waits for a top-level window mapped that is not one of `before` (looking every 5 ms), until
/// `give_up` says so.
fn new_window(
    conn: &RustConnection,
    root: Window,
    before: &[Window],
    mut give_up: impl FnMut() -> bool,
) -> Result<Window, String> {
    loop {
        if let Some(w) = mapped(conn, root).into_iter().find(|w| !before.contains(w)) {
            return Ok(w);
        }
        if give_up() {
            return Err("no window appeared".into());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A terminal started for keys to be sent to it: its window, found and given the focus.
struct Driven {
    conn: RustConnection,
    win: Window,
    damage: u32,
    keymap: x11rb::protocol::xproto::GetKeyboardMappingReply,
    min_keycode: u8,
    _child: Killed,
}

impl Driven {
    fn start(argv: &[String], display: &str) -> Result<Driven, String> {
        let (conn, screen) = x11rb::connect(Some(display)).map_err(|e| format!("cannot open {display}: {e}"))?;
        let root = conn.setup().roots[screen].root;
        conn.damage_query_version(1, 1).map_err(|e| e.to_string())?.reply().map_err(|e| e.to_string())?;
        let before = mapped(&conn, root);
        let mut child = Killed(spawn_on(argv, display)?);
        // Its window: the new mapped top-level window.
        let deadline = Instant::now() + Duration::from_secs(30);
        let win = new_window(&conn, root, &before, || {
            Instant::now() > deadline || child.0.try_wait().ok().flatten().is_some()
        })?;
        conn.set_input_focus(InputFocus::POINTER_ROOT, win, x11rb::CURRENT_TIME).map_err(|e| e.to_string())?;
        let damage = conn.generate_id().map_err(|e| e.to_string())?;
        conn.damage_create(damage, win, ReportLevel::NON_EMPTY).map_err(|e| e.to_string())?;
        let (min, max) = (conn.setup().min_keycode, conn.setup().max_keycode);
        let keymap = conn
            .get_keyboard_mapping(min, max - min + 1)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| e.to_string())?;
        conn.flush().map_err(|e| e.to_string())?;
        Ok(Driven { conn, win, damage, keymap, min_keycode: min, _child: child })
    }

    /// The key code of keysym `sym` (unshifted).
    fn code(&self, sym: u32) -> Result<u8, String> {
        let per = self.keymap.keysyms_per_keycode as usize;
        let at = self.keymap.keysyms.chunks(per).position(|k| k[0] == sym).ok_or(format!("no key for {sym:#x}"))?;
        Ok(self.min_keycode + at as u8)
    }

    /// The key code of the letter key `i` (a to z, then again).
    fn letter(&self, i: usize) -> Result<u8, String> {
        self.code(0x61 + (i % 26) as u32)
    }

    /// Presses `codes` in order and releases them the other way; the instant it was sent.
    fn chord(&self, codes: &[u8]) -> Result<Instant, String> {
        let sent = Instant::now();
        for &code in codes {
            self.conn.xtest_fake_input(2, code, 0, x11rb::NONE, 0, 0, 0).map_err(|e| e.to_string())?;
        }
        for &code in codes.iter().rev() {
            self.conn.xtest_fake_input(3, code, 0, x11rb::NONE, 0, 0, 0).map_err(|e| e.to_string())?;
        }
        self.conn.flush().map_err(|e| e.to_string())?;
        Ok(sent)
    }

    /// Presses and releases key `code`; the instant it was sent.
    fn press(&self, code: u8) -> Result<Instant, String> {
        self.chord(&[code])
    }

    /// The atom named `name`.
    fn atom(&self, name: &[u8]) -> Result<u32, String> {
        Ok(self.conn.intern_atom(false, name).map_err(|e| e.to_string())?.reply().map_err(|e| e.to_string())?.atom)
    }

    /// The window's title: its property `name` (_NET_WM_NAME) of type `utf8` (UTF8_STRING).
    fn title(&self, (name, utf8): (u32, u32)) -> Result<String, String> {
        let p = self.conn.get_property(false, self.win, name, utf8, 0, 256).map_err(|e| e.to_string())?;
        Ok(String::from_utf8_lossy(&p.reply().map_err(|e| e.to_string())?.value).into_owned())
    }

    /// Takes the window's damage away and drops the events so far.
    fn settle(&self) -> Result<(), String> {
        self.conn.damage_subtract(self.damage, x11rb::NONE, x11rb::NONE).map_err(|e| e.to_string())?;
        self.conn.sync().map_err(|e| e.to_string())?;
        while self.conn.poll_for_event().map_err(|e| e.to_string())?.is_some() {}
        Ok(())
    }

    /// Waits for the next damage event (false: none before `deadline`), on the connection
    /// (not a busy loop: the terminal needs the cores).
    fn damaged(&self, deadline: Instant) -> Result<bool, String> {
        loop {
            match self.conn.poll_for_event().map_err(|e| e.to_string())? {
                Some(Event::DamageNotify(_)) => return Ok(true),
                Some(_) => {}
                None => {
                    if Instant::now() > deadline {
                        return Ok(false);
                    }
                    let mut fds = [PollFd::new(self.conn.stream(), PollFlags::IN)];
                    let _ = poll(&mut fds, Some(&Timespec { tv_sec: 0, tv_nsec: 5_000_000 }));
                }
            }
        }
    }

    /// No damage for `for_` (at most 10 s).
    fn quiet(&self, for_: Duration) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut last = Instant::now();
        while last.elapsed() < for_ && Instant::now() < deadline {
            self.conn.damage_subtract(self.damage, x11rb::NONE, x11rb::NONE).map_err(|e| e.to_string())?;
            self.conn.flush().map_err(|e| e.to_string())?;
            while let Some(ev) = self.conn.poll_for_event().map_err(|e| e.to_string())? {
                if matches!(ev, Event::DamageNotify(_)) {
                    last = Instant::now();
                }
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(())
    }

    /// The pixels of the window's rectangle `(x, y, w, h)`.
    fn pixels(&self, (x, y, w, h): (i16, i16, u16, u16)) -> Result<Vec<u8>, String> {
        let image = self
            .conn
            .get_image(ImageFormat::Z_PIXMAP, self.win, x, y, w, h, !0)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| e.to_string())?;
        Ok(image.data)
    }
}

/// Starts `argv` (a terminal running `cat`) on `display` and times `n` keys: the median and
/// the largest, in milliseconds.
pub fn key_to_pixels(argv: &[String], display: &str, n: usize) -> Result<(f64, f64), String> {
    let t = Driven::start(argv, display)?;
    // The start-up drawing settles: no damage for 300 ms.
    t.quiet(Duration::from_millis(300))?;
    let mut times = Vec::with_capacity(n);
    for i in 0..n {
        let code = t.letter(i)?;
        // Events before the key are not its drawing.
        t.settle()?;
        let sent = t.press(code)?;
        if !t.damaged(sent + KEY_TIMEOUT)? {
            return Err("a key's echo was not drawn within 5 s".into());
        }
        times.push(sent.elapsed().as_secs_f64() * 1e3);
        // The next key once this one's drawing is over.
        t.quiet(Duration::from_millis(50))?;
    }
    Ok(median_max(times))
}

/// Starts `argv` (a terminal running `blitty-lab probe flood-echo`, at `rows` rows) on
/// `display` and times `n` keys while the flood runs: from the key to the top row's pixels
/// changing, the only row the flood leaves alone. The window's damage says when to look
/// (GetImage of the top row's band, three quarters of a row high so that no terminal's border
/// or padding brings the second row in); every terminal draws the whole window or more
/// at each frame of a flood, so the damage alone cannot tell the echo. Median and largest, ms.
pub fn key_during_flood(argv: &[String], display: &str, rows: u16, n: usize) -> Result<(f64, f64), String> {
    let t = Driven::start(argv, display)?;
    let geometry = t.conn.get_geometry(t.win).map_err(|e| e.to_string())?.reply().map_err(|e| e.to_string())?;
    let band = (0, 0, geometry.width, (geometry.height / rows * 3 / 4).max(1));
    // The flood is under way: twenty drawings seen (at most 10 s).
    let deadline = Instant::now() + Duration::from_secs(10);
    for _ in 0..20 {
        t.damaged(deadline)?;
        t.settle()?;
    }
    let mut times = Vec::with_capacity(n);
    for i in 0..n {
        let code = t.letter(i)?;
        t.settle()?;
        let before = t.pixels(band)?;
        let sent = t.press(code)?;
        loop {
            if !t.damaged(sent + KEY_TIMEOUT)? {
                return Err("a key's echo was not drawn within 5 s of a flood".into());
            }
            while t.conn.poll_for_event().map_err(|e| e.to_string())?.is_some() {}
            t.conn.damage_subtract(t.damage, x11rb::NONE, x11rb::NONE).map_err(|e| e.to_string())?;
            if t.pixels(band)? != before {
                break;
            }
        }
        times.push(sent.elapsed().as_secs_f64() * 1e3);
        // A frame or two before the next key, the flood going on.
        std::thread::sleep(Duration::from_millis(40));
    }
    Ok(median_max(times))
}

/// Runs blitty's window `argv`, whose program waits for FIFO `go` to be opened and closed,
/// hides that vty behind a second (Ctrl-Shift-T, as a user opens one), lets the program go
/// and waits (at most `timeout`) for file `done` to appear: the syscons console post's offscreen vty.
pub fn in_hidden_vty(argv: &[String], display: &str, go: &Path, done: &Path, timeout: Duration) -> Result<(), String> {
    let t = Driven::start(argv, display)?;
    t.quiet(Duration::from_millis(300))?;
    let keys = [t.code(0xffe3)?, t.code(0xffe1)?, t.code(0x74)?];
    t.chord(&keys)?;
    let deadline = Instant::now() + Duration::from_secs(10);
    let title = (t.atom(b"_NET_WM_NAME")?, t.atom(b"UTF8_STRING")?);
    while !t.title(title)?.ends_with("[2/2]") {
        if Instant::now() > deadline {
            return Err("Ctrl-Shift-T opened no second vty".into());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    // Opened without waiting (ENXIO until the program opens it for reading), then closed:
    // the program reads its end.
    let fifo = loop {
        match std::fs::OpenOptions::new().write(true).custom_flags(libc::O_NONBLOCK).open(go) {
            Ok(f) => break f,
            Err(_) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("the hidden vty's program did not start: {e}")),
        }
    };
    drop(fifo);
    let deadline = Instant::now() + timeout;
    while !done.exists() {
        if Instant::now() > deadline {
            return Err("timed out".into());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}

/// Kills the terminal when the measurement ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Counts a terminal window's drawings during a flood: the X server's DAMAGE notifications
/// (level NonEmpty, the damage taken away after each), on a thread with a connection of its
/// own. For blitty's window, which shows a frame with one request, that is its frames; a
/// terminal that draws a frame in several requests may be counted more than once a frame, so
/// the figure is at most its frames there.
pub struct DamageCounter {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// The window has appeared (its start-up is over).
    found: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<Result<u64, String>>,
}

impl DamageCounter {
    /// Starts watching `display` for the next top-level window to be mapped (start the
    /// terminal after this).
    pub fn start(display: &str) -> Result<DamageCounter, String> {
        use std::sync::atomic::{AtomicBool, Ordering};
        let (conn, screen) = x11rb::connect(Some(display)).map_err(|e| format!("cannot open {display}: {e}"))?;
        let root = conn.setup().roots[screen].root;
        conn.damage_query_version(1, 1).map_err(|e| e.to_string())?.reply().map_err(|e| e.to_string())?;
        let before = mapped(&conn, root);
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let stop_thread = stop.clone();
        let found = std::sync::Arc::new(AtomicBool::new(false));
        let found_thread = found.clone();
        let thread = std::thread::spawn(move || -> Result<u64, String> {
            let err = |e: x11rb::errors::ConnectionError| e.to_string();
            let win = new_window(&conn, root, &before, || stop_thread.load(Ordering::Relaxed))?;
            let damage = conn.generate_id().map_err(|e| e.to_string())?;
            conn.damage_create(damage, win, ReportLevel::NON_EMPTY).map_err(err)?;
            conn.flush().map_err(err)?;
            found_thread.store(true, Ordering::Relaxed);
            let mut count = 0u64;
            while !stop_thread.load(Ordering::Relaxed) {
                let mut fds = [PollFd::new(conn.stream(), PollFlags::IN)];
                let _ = poll(&mut fds, Some(&Timespec { tv_sec: 0, tv_nsec: 10_000_000 }));
                let mut seen = false;
                // A window that went away ends the count with an error event: what was
                // counted stands.
                while let Ok(Some(ev)) = conn.poll_for_event() {
                    seen |= matches!(ev, Event::DamageNotify(_));
                    count += matches!(ev, Event::DamageNotify(_)) as u64;
                }
                if seen {
                    let _ = conn.damage_subtract(damage, x11rb::NONE, x11rb::NONE);
                    let _ = conn.flush();
                }
            }
            Ok(count)
        });
        Ok(DamageCounter { stop, found, thread })
    }

    /// Whether the window has appeared.
    pub fn found(&self) -> bool {
        self.found.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Stops counting: the drawings counted.
    pub fn finish(self) -> Result<u64, String> {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.thread.join().map_err(|_| "the counter failed".to_string())?
    }
}
