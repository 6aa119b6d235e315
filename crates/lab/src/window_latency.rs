//! Key to pixels in `blitty bench window`: the time from a key sent with XTEST to the X server
//! having the terminal's drawing of its echo, per terminal, while idle.
//!
//! How: each terminal runs `cat` on its pty (the echo is the line discipline's, the same for
//! every terminal). The bench watches the terminal's window with the DAMAGE extension (level
//! NonEmpty: an event when a drawing request changed pixels) and sends a key; the time is from
//! the XTEST request to the first damage event that follows it, as the X server sees both, so
//! it includes the terminal reading the pty, parsing, drawing and presenting. Blinking cursors
//! are turned off where a terminal blinks by default (kitty), so that only the echo draws.

use std::process::Child;
use std::time::{Duration, Instant};

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use x11rb::connection::Connection;
use x11rb::protocol::damage::{ConnectionExt as _, ReportLevel};
use x11rb::protocol::xproto::{ConnectionExt as _, InputFocus, MapState, Window};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::protocol::Event;
use x11rb::rust_connection::RustConnection;
use x11rb::wrapper::ConnectionExt as _;

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

/// Starts `argv` (a terminal running `cat`) on `display` and times `n` keys: the median and
/// the largest, in milliseconds.
pub fn key_to_pixels(argv: &[String], display: &str, n: usize) -> Result<(f64, f64), String> {
    let (conn, screen) = x11rb::connect(Some(display)).map_err(|e| format!("cannot open {display}: {e}"))?;
    let root = conn.setup().roots[screen].root;
    conn.damage_query_version(1, 1).map_err(|e| e.to_string())?.reply().map_err(|e| e.to_string())?;
    let before = mapped(&conn, root);
    let mut child = Killed(crate::window_bench::spawn_on(argv, display)?);
    // Its window: the new mapped top-level window.
    let deadline = Instant::now() + Duration::from_secs(30);
    let win =
        new_window(&conn, root, &before, || Instant::now() > deadline || child.0.try_wait().ok().flatten().is_some())?;
    conn.set_input_focus(InputFocus::POINTER_ROOT, win, x11rb::CURRENT_TIME).map_err(|e| e.to_string())?;
    let damage = conn.generate_id().map_err(|e| e.to_string())?;
    conn.damage_create(damage, win, ReportLevel::NON_EMPTY).map_err(|e| e.to_string())?;
    conn.flush().map_err(|e| e.to_string())?;
    // The start-up drawing settles: no damage for 300 ms (at most 10 s).
    let quiet = |conn: &RustConnection, for_: Duration| -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut last = Instant::now();
        while last.elapsed() < for_ && Instant::now() < deadline {
            conn.damage_subtract(damage, x11rb::NONE, x11rb::NONE).map_err(|e| e.to_string())?;
            conn.flush().map_err(|e| e.to_string())?;
            while let Some(ev) = conn.poll_for_event().map_err(|e| e.to_string())? {
                if matches!(ev, Event::DamageNotify(_)) {
                    last = Instant::now();
                }
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(())
    };
    quiet(&conn, Duration::from_millis(300))?;
    let setup = conn.setup();
    let (min, max) = (setup.min_keycode, setup.max_keycode);
    let map =
        conn.get_keyboard_mapping(min, max - min + 1).map_err(|e| e.to_string())?.reply().map_err(|e| e.to_string())?;
    let per = map.keysyms_per_keycode as usize;
    let code_of = |sym: u32| map.keysyms.chunks(per).position(|k| k[0] == sym).map(|i| min + i as u8);
    let mut times = Vec::with_capacity(n);
    for i in 0..n {
        let code = code_of(0x61 + (i % 26) as u32).ok_or("no key for a letter")?;
        conn.damage_subtract(damage, x11rb::NONE, x11rb::NONE).map_err(|e| e.to_string())?;
        // Events before the key are not its drawing.
        conn.sync().map_err(|e| e.to_string())?;
        while conn.poll_for_event().map_err(|e| e.to_string())?.is_some() {}
        let sent = Instant::now();
        conn.xtest_fake_input(2, code, 0, x11rb::NONE, 0, 0, 0).map_err(|e| e.to_string())?;
        conn.xtest_fake_input(3, code, 0, x11rb::NONE, 0, 0, 0).map_err(|e| e.to_string())?;
        conn.flush().map_err(|e| e.to_string())?;
        loop {
            match conn.poll_for_event().map_err(|e| e.to_string())? {
                Some(Event::DamageNotify(_)) => break,
                Some(_) => {}
                None => {
                    if sent.elapsed() > KEY_TIMEOUT {
                        return Err("a key's echo was not drawn within 5 s".into());
                    }
                    // Wait on the connection (not a busy loop: the terminal needs the cores).
                    let mut fds = [PollFd::new(conn.stream(), PollFlags::IN)];
                    let _ = poll(&mut fds, Some(&Timespec { tv_sec: 0, tv_nsec: 5_000_000 }));
                }
            }
        }
        times.push(sent.elapsed().as_secs_f64() * 1e3);
        // The next key once this one's drawing is over.
        quiet(&conn, Duration::from_millis(50))?;
    }
    times.sort_by(|a, b| a.total_cmp(b));
    Ok((times[times.len() / 2], times[times.len() - 1]))
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
