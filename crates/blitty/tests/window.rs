//! `blitty window` end to end, under a real X server (Xvfb, started by the test): the window's
//! pixels, read back with the X GetImage request, equal `blitty replay --png` of the same
//! output; keys sent with the XTEST extension (what xdotool uses) reach the program; a resize
//! reaches the program; closing the window (WM_DELETE_WINDOW, as a window manager sends it)
//! hangs up the program and ends blitty with 128 + SIGHUP.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::scratch::Scratch;
use common::{line_56, wait_until, LINES_56};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    AtomEnum, ClientMessageEvent, ConfigureWindowAux, ConnectionExt as _, EventMask, ImageFormat, InputFocus,
};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;

const BLITTY: &str = env!("CARGO_BIN_EXE_blitty");

/// An X server of the test's own; killed when dropped.
struct Xvfb {
    child: Child,
    display: String,
}

impl Xvfb {
    fn start() -> Xvfb {
        // -displayfd: the server picks a free display and says which on standard output.
        let mut child = Command::new("Xvfb")
            // -noreset: the server keeps its state (a keyboard layout set) when its last
            // client leaves.
            .args(["-displayfd", "1", "-screen", "0", "1280x1024x24", "-nolisten", "tcp", "-noreset"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb (scripts/setup.sh installs it)");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).expect("Xvfb's display");
        Xvfb { child, display: format!(":{}", line.trim()) }
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The top-level window whose WM_CLASS is blitty's.
fn blitty_window(conn: &RustConnection, root: u32) -> Option<u32> {
    let tree = conn.query_tree(root).ok()?.reply().ok()?;
    tree.children.into_iter().find(|&w| {
        conn.get_property(false, w, AtomEnum::WM_CLASS, AtomEnum::STRING, 0, 64)
            .ok()
            .and_then(|c| c.reply().ok())
            .is_some_and(|p| p.value.starts_with(b"blitty\0"))
    })
}

/// The window's pixels as 0xRRGGBB (the X server is 24-bit, 32 bits a pixel, LSB first).
fn pixels(conn: &RustConnection, win: u32, w: u16, h: u16) -> Vec<u32> {
    let Ok(Ok(img)) = conn.get_image(ImageFormat::Z_PIXMAP, win, 0, 0, w, h, !0).map(|c| c.reply()) else {
        return Vec::new();
    };
    img.data.chunks_exact(4).map(|p| u32::from_le_bytes([p[0], p[1], p[2], 0])).collect()
}

/// The key code that gives `keysym` unshifted.
fn keycode(conn: &RustConnection, keysym: u32) -> u8 {
    let setup = conn.setup();
    let (min, max) = (setup.min_keycode, setup.max_keycode);
    let map = conn.get_keyboard_mapping(min, max - min + 1).unwrap().reply().unwrap();
    let per = map.keysyms_per_keycode as usize;
    let i = map.keysyms.chunks(per).position(|k| k[0] == keysym).expect("a key for the keysym");
    min + i as u8
}

fn tap(conn: &RustConnection, code: u8) {
    conn.xtest_fake_input(2, code, 0, x11rb::NONE, 0, 0, 0).unwrap(); // KeyPress
    conn.xtest_fake_input(3, code, 0, x11rb::NONE, 0, 0, 0).unwrap(); // KeyRelease
    conn.flush().unwrap();
}

/// `blitty window` of 40x8 cells at 10 points running `sh -c script` on the test's X server:
/// the connection, the blitty process and its window (once it is there).
fn window(x: &Xvfb, script: &str) -> (RustConnection, u32, Child, u32) {
    window_env(x, script, &[])
}

/// `window`, with `env` added to blitty's environment.
fn window_env(x: &Xvfb, script: &str, env: &[(&str, &str)]) -> (RustConnection, u32, Child, u32) {
    let (conn, screen_num) = x11rb::connect(Some(&x.display)).expect("the test's X server");
    let root = conn.setup().roots[screen_num].root;
    let mut blitty = Command::new(BLITTY)
        .args(["window", "--size", "40x8", "--font-size", "10", "--", "sh", "-c", script])
        .envs(env.iter().copied())
        .env("DISPLAY", &x.display)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let win = loop {
        if let Some(w) = blitty_window(&conn, root) {
            break w;
        }
        if Instant::now() > deadline {
            let _ = blitty.kill();
            panic!("no blitty window appeared");
        }
        std::thread::sleep(Duration::from_millis(30));
    };
    (conn, root, blitty, win)
}

#[test]
fn a_program_in_the_window_is_drawn_typed_to_resized_and_hung_up_on_close() {
    let x = Xvfb::start();
    let out = Scratch::new("window-keys.out");
    let size_file = Scratch::new("window-size.out");
    let shown = "hello \x1b[1;31mwindow\x1b[0m \u{2500}\u{2500} \u{65e5}\u{672c}\r\n";
    // The program: reports its size after a SIGWINCH (the trap is set first, so no resize is
    // missed), rings the bell, prints, takes five bytes raw, then waits.
    let script = format!(
        "trap 'stty size > {size}.part; mv {size}.part {size}' WINCH; printf '\\a{}'; stty raw -echo; \
         head -c 5 > {out}; while :; do sleep 0.05; done",
        shown.replace('\x1b', "\\033").replace('\r', "\\r").replace('\n', "\\n"),
        out = out.display(),
        size = size_file.display()
    );
    let (conn, root, mut blitty, win) = window(&x, &script);

    // The bell rang while the window had no focus: the urgency hint is set; the focus clears it.
    let urgent = || {
        conn.get_property(false, win, AtomEnum::WM_HINTS, AtomEnum::WM_HINTS, 0, 9)
            .ok()
            .and_then(|c| c.reply().ok())
            .and_then(|p| p.value32().and_then(|mut v| v.next()))
            .is_some_and(|flags| flags & 256 != 0)
    };
    // The window may be up before it has read the program's first output.
    wait_until(&urgent);
    assert!(urgent(), "the bell sets the urgency hint of an unfocused window");
    // Keys typed with XTEST reach the program: a, b and the Up arrow (ESC [ A).
    conn.set_input_focus(InputFocus::POINTER_ROOT, win, x11rb::CURRENT_TIME).unwrap();
    conn.flush().unwrap();
    wait_until(|| !urgent());
    assert!(!urgent(), "the focus clears the urgency hint");
    // Its pixels equal the headless renderer's PNG of the same output (with the focus: without
    // it the cursor is an outline).
    assert_eq!(
        differs_from_replay(&conn, win, shown.as_bytes(), 40, 8),
        0,
        "pixels differing from `blitty replay --png`"
    );
    for sym in [0x61, 0x62, 0xff52] {
        tap(&conn, keycode(&conn, sym));
    }
    wait_until(|| std::fs::metadata(&out).is_ok_and(|m| m.len() >= 5));
    assert_eq!(std::fs::read(&out).unwrap(), b"ab\x1b[A", "the bytes the program read");

    // A resize reaches the program (its terminal's size in cells).
    let geometry = conn.get_geometry(win).unwrap().reply().unwrap();
    let (cw, ch) = (geometry.width as usize / 40, geometry.height as usize / 8);
    conn.configure_window(win, &ConfigureWindowAux::new().width((60 * cw) as u32).height((12 * ch) as u32)).unwrap();
    conn.flush().unwrap();
    wait_until(|| size_file.exists());
    assert_eq!(std::fs::read_to_string(&size_file).unwrap_or_default().trim(), "12 60", "stty size after the resize");

    // Closing the window, as a window manager does: the program is hung up, blitty ends with
    // 128 + SIGHUP.
    let atom = |n: &[u8]| conn.intern_atom(false, n).unwrap().reply().unwrap().atom;
    let (protocols, delete) = (atom(b"WM_PROTOCOLS"), atom(b"WM_DELETE_WINDOW"));
    let msg = ClientMessageEvent::new(32, win, protocols, [delete, 0, 0, 0, 0]);
    conn.send_event(false, win, EventMask::NO_EVENT, msg).unwrap();
    conn.flush().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(s) = blitty.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = blitty.kill();
            panic!("blitty window did not end when its window was closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(129), "128 + SIGHUP");
    assert!(blitty_window(&conn, root).is_none(), "the window is gone");
}

#[test]
fn the_window_closes_with_the_programs_status_and_without_a_display_says_so() {
    let x = Xvfb::start();
    let st = Command::new(BLITTY)
        .args(["window", "--", "sh", "-c", "exit 7"])
        .env("DISPLAY", &x.display)
        .stdin(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(st.code(), Some(7), "the program's status is blitty's");
    let out = Command::new(BLITTY).args(["window", "--", "true"]).env("DISPLAY", ":999").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.starts_with("blitty: cannot open the X display :999:") && err.lines().count() == 1, "{err}");
    let out = Command::new(BLITTY).args(["window", "--", "true"]).env_remove("DISPLAY").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("blitty: cannot open the X display (DISPLAY is not set)"), "{err}");
    // A grid whose pixels would pass 16384 a side: one line, before any window is made.
    let big = Command::new(BLITTY)
        .args(["window", "--size", "2048x1024", "--", "true"])
        .env("DISPLAY", &x.display)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&big.stderr);
    assert_eq!(big.status.code(), Some(2), "{err}");
    assert!(err.contains("larger than 16384x16384 pixels") && err.lines().count() == 1, "{err}");
    let bad = Command::new(BLITTY).args(["window", "--size", "0x5"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected COLSxROWS"));
}

/// Waits until the window shows what `blitty replay --png` draws for `bytes`; the number of
/// pixels that differ then (0 when it does).
fn differs_from_replay(conn: &RustConnection, win: u32, bytes: &[u8], cols: usize, rows: usize) -> usize {
    let (pw, ph, want) = common::replay_png(BLITTY, bytes, cols, rows, &["--font-size", "10"]);
    let mut got = Vec::new();
    wait_until(|| {
        got = pixels(conn, win, pw as u16, ph as u16);
        got == want
    });
    got.iter().zip(&want).filter(|(a, b)| a != b).count() + want.len().abs_diff(got.len())
}

/// Lines `from..=to` of `seq`, CR LF between them, the cursor hidden: a view back in the
/// scrollback as the headless renderer draws it.
fn seq_view(from: u32, to: u32) -> Vec<u8> {
    let lines: Vec<String> = (from..=to).map(|i| i.to_string()).collect();
    format!("\x1b[?25l{}", lines.join("\r\n")).into_bytes()
}

#[test]
fn widening_the_window_joins_the_lines_it_wrapped_and_narrowing_wraps_them_again() {
    // Reflow in the window: what the program printed at 40 columns is drawn, after each resize,
    // as the headless renderer draws the same output printed at the new width.
    let x = Xvfb::start();
    let (conn, _root, mut blitty, win) = window(&x, &format!("{LINES_56}; exec cat > /dev/null"));
    let printed: Vec<u8> = (1..=3).flat_map(|i| format!("{}\r\n", line_56(i)).into_bytes()).collect();
    // With the focus the cursor is drawn solid, as `blitty replay --png` draws it.
    conn.set_input_focus(InputFocus::POINTER_ROOT, win, x11rb::CURRENT_TIME).unwrap();
    assert_eq!(differs_from_replay(&conn, win, &printed, 40, 8), 0, "56-character lines at 40 columns");
    let geometry = conn.get_geometry(win).unwrap().reply().unwrap();
    let (cw, ch) = (geometry.width as u32 / 40, geometry.height as u32 / 8);
    for cols in [60, 40] {
        conn.configure_window(win, &ConfigureWindowAux::new().width(cols * cw).height(8 * ch)).unwrap();
        conn.flush().unwrap();
        let differing = differs_from_replay(&conn, win, &printed, cols as usize, 8);
        assert_eq!(differing, 0, "pixels differing from the lines printed at {cols} columns");
    }
    let _ = blitty.kill();
    let _ = blitty.wait();
}

#[test]
fn shift_page_up_and_the_wheel_scroll_back_and_a_key_comes_back() {
    let x = Xvfb::start();
    let (conn, root, mut blitty, win) = window(&x, "seq 1 100; exec cat > /dev/null");
    // Live: 94 to 100 and the cursor's empty row; history holds 1 to 93.
    let live: Vec<u8> = (1..=100).flat_map(|i| format!("{i}\r\n").into_bytes()).collect();
    conn.set_input_focus(InputFocus::POINTER_ROOT, win, x11rb::CURRENT_TIME).unwrap();
    assert_eq!(differs_from_replay(&conn, win, &live, 40, 8), 0, "the live screen");
    let shift = keycode(&conn, 0xffe1);
    let press = |code: u8, down: bool| {
        conn.xtest_fake_input(if down { 2 } else { 3 }, code, 0, x11rb::NONE, 0, 0, 0).unwrap();
        conn.flush().unwrap();
    };
    // Shift-PageUp: a page (8 lines) back.
    press(shift, true);
    tap(&conn, keycode(&conn, 0xff55));
    press(shift, false);
    assert_eq!(differs_from_replay(&conn, win, &seq_view(86, 93), 40, 8), 0, "a page back");
    // Shift-PageDown: the live screen again.
    press(shift, true);
    tap(&conn, keycode(&conn, 0xff56));
    press(shift, false);
    assert_eq!(differs_from_replay(&conn, win, &live, 40, 8), 0, "back to the live screen");
    // The wheel (button 4) over the window: three lines back.
    conn.xtest_fake_input(6, 0, 0, root, 20, 20, 0).unwrap(); // MotionNotify to (20, 20)
    conn.xtest_fake_input(4, 4, 0, x11rb::NONE, 0, 0, 0).unwrap(); // ButtonPress 4
    conn.xtest_fake_input(5, 4, 0, x11rb::NONE, 0, 0, 0).unwrap(); // ButtonRelease 4
    conn.flush().unwrap();
    assert_eq!(differs_from_replay(&conn, win, &seq_view(91, 98), 40, 8), 0, "three lines back");
    // A key typed goes to the program and shows the live screen again.
    tap(&conn, keycode(&conn, 0x61));
    let mut typed = live.clone();
    typed.push(b'a');
    assert_eq!(differs_from_replay(&conn, win, &typed, 40, 8), 0, "live again, with the echo");
    let _ = blitty.kill();
    let _ = blitty.wait();
}

/// XTEST: the pointer to window pixel (x, y) (the window sits at the root's origin: no window
/// manager), then `times` clicks of `button`, with the keys `held` down meanwhile.
fn click(conn: &RustConnection, root: u32, (x, y): (usize, usize), button: u8, times: usize, held: &[u8]) {
    conn.xtest_fake_input(6, 0, 0, root, x as i16, y as i16, 0).unwrap(); // MotionNotify
    for &k in held {
        conn.xtest_fake_input(2, k, 0, x11rb::NONE, 0, 0, 0).unwrap();
    }
    for _ in 0..times {
        conn.xtest_fake_input(4, button, 0, x11rb::NONE, 0, 0, 0).unwrap(); // ButtonPress
        conn.xtest_fake_input(5, button, 0, x11rb::NONE, 0, 0, 0).unwrap(); // ButtonRelease
    }
    for &k in held {
        conn.xtest_fake_input(3, k, 0, x11rb::NONE, 0, 0, 0).unwrap();
    }
    conn.flush().unwrap();
}

/// `keys` pressed in order and let go in reverse (a chord such as Ctrl-Shift-C).
fn chord(conn: &RustConnection, keys: &[u8]) {
    for &k in keys {
        conn.xtest_fake_input(2, k, 0, x11rb::NONE, 0, 0, 0).unwrap();
    }
    for &k in keys.iter().rev() {
        conn.xtest_fake_input(3, k, 0, x11rb::NONE, 0, 0, 0).unwrap();
    }
    conn.flush().unwrap();
}

/// What `xclip -o` reads of `selection` on the test's X server ("" when it cannot).
fn xclip_out(x: &Xvfb, selection: &str) -> String {
    let out = Command::new("xclip")
        .args(["-o", "-selection", selection])
        .env("DISPLAY", &x.display)
        .stdin(Stdio::null())
        .output()
        .expect("xclip (scripts/setup.sh installs it)");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Gives `selection` to xclip with `text` (xclip serves it from the background).
fn xclip_in(x: &Xvfb, selection: &str, text: &[u8]) {
    let mut c = Command::new("xclip")
        .args(["-i", "-selection", selection])
        .env("DISPLAY", &x.display)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        // It says so when the test's X server goes away under it.
        .stderr(Stdio::null())
        .spawn()
        .expect("xclip");
    std::io::Write::write_all(c.stdin.as_mut().unwrap(), text).unwrap();
    drop(c.stdin.take());
    c.wait().unwrap();
}

#[test]
fn mouse_selections_are_primary_and_clipboard_and_pastes_arrive_bracketed() {
    let x = Xvfb::start();
    let out = Scratch::new("window-paste.out");
    // The program asks for bracketed paste, prints two lines and records what it reads.
    let script = format!(
        "printf '\\033[?2004halpha beta gamma\\nsecond line here\\n'; stty raw -echo; exec cat > {}",
        out.display()
    );
    let (conn, root, mut blitty, win) = window(&x, &script);
    conn.set_input_focus(InputFocus::POINTER_ROOT, win, x11rb::CURRENT_TIME).unwrap();
    let shown = "alpha beta gamma\r\nsecond line here\r\n";
    assert_eq!(differs_from_replay(&conn, win, shown.as_bytes(), 40, 8), 0, "the program's lines");
    let geometry = conn.get_geometry(win).unwrap().reply().unwrap();
    let (cw, ch) = (geometry.width as usize / 40, geometry.height as usize / 8);
    let cell = |col: usize, row: usize| (col * cw + cw / 2, row * ch + ch / 2);
    conn.set_input_focus(InputFocus::POINTER_ROOT, win, x11rb::CURRENT_TIME).unwrap();

    // A double click on "beta" selects the word: PRIMARY holds it, and it is drawn inverted.
    click(&conn, root, cell(7, 0), 1, 2, &[]);
    wait_until(|| xclip_out(&x, "primary") == "beta");
    assert_eq!(xclip_out(&x, "primary"), "beta", "PRIMARY after a double click");
    let inverted = "alpha \x1b[7mbeta\x1b[0m gamma\r\nsecond line here\r\n";
    assert_eq!(differs_from_replay(&conn, win, inverted.as_bytes(), 40, 8), 0, "the selection drawn inverted");

    // A triple click selects the line; Ctrl-Shift-C puts it in CLIPBOARD too.
    click(&conn, root, cell(3, 1), 1, 3, &[]);
    wait_until(|| xclip_out(&x, "primary") == "second line here");
    assert_eq!(xclip_out(&x, "primary"), "second line here", "PRIMARY after a triple click");
    let (ctrl, shift) = (keycode(&conn, 0xffe3), keycode(&conn, 0xffe1));
    chord(&conn, &[ctrl, shift, keycode(&conn, 0x63)]);
    wait_until(|| xclip_out(&x, "clipboard") == "second line here");
    assert_eq!(xclip_out(&x, "clipboard"), "second line here", "CLIPBOARD after Ctrl-Shift-C");

    // A drag selects characters: from "pha" to "gam".
    conn.xtest_fake_input(6, 0, 0, root, cell(2, 0).0 as i16, cell(2, 0).1 as i16, 0).unwrap();
    conn.xtest_fake_input(4, 1, 0, x11rb::NONE, 0, 0, 0).unwrap();
    conn.xtest_fake_input(6, 0, 0, root, cell(8, 0).0 as i16, cell(8, 0).1 as i16, 0).unwrap();
    conn.xtest_fake_input(6, 0, 0, root, cell(13, 0).0 as i16, cell(13, 0).1 as i16, 0).unwrap();
    conn.xtest_fake_input(5, 1, 0, x11rb::NONE, 0, 0, 0).unwrap();
    conn.flush().unwrap();
    wait_until(|| xclip_out(&x, "primary") == "pha beta gam");
    assert_eq!(xclip_out(&x, "primary"), "pha beta gam", "PRIMARY after a drag");

    // Pastes: CLIPBOARD with Ctrl-Shift-V, PRIMARY with the middle button, each bracketed
    // (the program asked), a line feed kept inside the brackets.
    xclip_in(&x, "clipboard", b"pasted\ntext");
    wait_until(|| xclip_out(&x, "clipboard") == "pasted\ntext");
    chord(&conn, &[ctrl, shift, keycode(&conn, 0x76)]);
    let want_clip = b"\x1b[200~pasted\ntext\x1b[201~".to_vec();
    wait_until(|| std::fs::read(&out).unwrap_or_default() == want_clip);
    assert_eq!(std::fs::read(&out).unwrap(), want_clip, "Ctrl-Shift-V pastes CLIPBOARD");
    xclip_in(&x, "primary", b"middle");
    wait_until(|| xclip_out(&x, "primary") == "middle");
    click(&conn, root, cell(0, 3), 2, 1, &[]);
    let mut want = want_clip.clone();
    want.extend_from_slice(b"\x1b[200~middle\x1b[201~");
    wait_until(|| std::fs::read(&out).unwrap_or_default() == want);
    assert_eq!(std::fs::read(&out).unwrap(), want, "the middle button pastes PRIMARY");

    // A paste of 3 MB arrives whole (xclip sends it in pieces: INCR).
    let big: Vec<u8> = (0..3_000_000u32).map(|i| b'a' + (i % 26) as u8).collect();
    xclip_in(&x, "clipboard", &big);
    wait_until(|| xclip_out(&x, "clipboard").len() == big.len());
    chord(&conn, &[ctrl, shift, keycode(&conn, 0x76)]);
    want.extend_from_slice(b"\x1b[200~");
    want.extend_from_slice(&big);
    want.extend_from_slice(b"\x1b[201~");
    wait_until(|| std::fs::metadata(&out).is_ok_and(|m| m.len() >= want.len() as u64));
    assert!(std::fs::read(&out).unwrap() == want, "the 3 MB paste differs");
    let _ = blitty.kill();
    let _ = blitty.wait();
}

#[test]
fn the_mouse_and_the_focus_are_reported_to_programs_that_ask_and_shift_selects() {
    let x = Xvfb::start();
    let out = Scratch::new("window-mouse.out");
    // Button events with motion (1002), SGR encoding (1006), focus events (1004).
    let script = format!(
        "printf '\\033[?25l\\033[?1002h\\033[?1006h\\033[?1004hready'; stty raw -echo; exec cat > {}",
        out.display()
    );
    let (conn, root, mut blitty, win) = window(&x, &script);
    assert_eq!(differs_from_replay(&conn, win, b"\x1b[?25lready", 40, 8), 0, "the program's ready");
    let geometry = conn.get_geometry(win).unwrap().reply().unwrap();
    let (cw, ch) = (geometry.width as usize / 40, geometry.height as usize / 8);
    let cell = |col: usize, row: usize| (col * cw + cw / 2, row * ch + ch / 2);
    conn.set_input_focus(InputFocus::POINTER_ROOT, win, x11rb::CURRENT_TIME).unwrap();
    conn.flush().unwrap();
    wait_until(|| std::fs::read(&out).unwrap_or_default() == b"\x1b[I");
    // A press at column 3, row 2 (1-based), a drag to column 5, a release there.
    conn.xtest_fake_input(6, 0, 0, root, cell(2, 1).0 as i16, cell(2, 1).1 as i16, 0).unwrap();
    conn.xtest_fake_input(4, 1, 0, x11rb::NONE, 0, 0, 0).unwrap();
    conn.xtest_fake_input(6, 0, 0, root, cell(4, 1).0 as i16, cell(4, 1).1 as i16, 0).unwrap();
    conn.xtest_fake_input(5, 1, 0, x11rb::NONE, 0, 0, 0).unwrap();
    // The wheel down, with Ctrl.
    click(&conn, root, cell(4, 1), 5, 1, &[keycode(&conn, 0xffe3)]);
    // With Shift, a double click selects instead of being reported.
    click(&conn, root, cell(1, 0), 1, 2, &[keycode(&conn, 0xffe1)]);
    let want = b"\x1b[I\x1b[<0;3;2M\x1b[<32;5;2M\x1b[<0;5;2m\x1b[<81;5;2M".to_vec();
    wait_until(|| xclip_out(&x, "primary") == "ready");
    assert_eq!(xclip_out(&x, "primary"), "ready", "Shift and a double click select");
    // The selection can be made before the program has written the reports sent with it.
    wait_until(|| std::fs::read(&out).unwrap_or_default() == want);
    assert_eq!(std::fs::read(&out).unwrap(), want, "the reports the program read");
    let _ = blitty.kill();
    let _ = blitty.wait();
}

/// Key code `code` pressed with the key codes `held` down (XTEST).
fn key_with(conn: &RustConnection, held: &[u8], code: u8) {
    let mut keys = held.to_vec();
    keys.push(code);
    chord(conn, &keys);
}

#[test]
fn a_german_layout_types_altgr_dead_keys_and_switches_to_russian() {
    let x = Xvfb::start();
    // The layout set as a user sets it (the X server compiles and loads the keymap, and
    // publishes its names on the root window).
    let layout = |l: &str| {
        let st = Command::new("setxkbmap").args(["-layout", l]).env("DISPLAY", &x.display).status();
        assert!(st.expect("setxkbmap (scripts/setup.sh installs x11-xkb-utils)").success(), "setxkbmap {l}");
    };
    layout("de");
    let out = Scratch::new("window-layout.out");
    let script = format!("printf ready; stty raw -echo; exec cat > {}", out.display());
    let (conn, _root, mut blitty, win) = window(&x, &script);
    conn.set_input_focus(InputFocus::POINTER_ROOT, win, x11rb::CURRENT_TIME).unwrap();
    assert_eq!(differs_from_replay(&conn, win, b"ready", 40, 8), 0, "the program's ready");
    conn.flush().unwrap();
    // Key codes of a PC keyboard (evdev): the keys, not what a layout puts on them.
    let (shift, altgr) = (50, 108);
    let (ad06, ad01, ad03, ae12, ac10, ac01, ae03) = (29, 24, 26, 21, 47, 38, 12);
    // German: Z where US has Y, AltGr-Q is @, the dead acute then e is é, Shift of the dead
    // key is the dead grave, then e is è, Ö has a key of its own, Shift-3 is §.
    key_with(&conn, &[], ad06);
    key_with(&conn, &[altgr], ad01);
    key_with(&conn, &[], ae12);
    key_with(&conn, &[], ad03);
    key_with(&conn, &[shift], ae12);
    key_with(&conn, &[], ad03);
    key_with(&conn, &[], ac10);
    key_with(&conn, &[shift], ae03);
    let want = "z@éèö§";
    wait_until(|| std::fs::read(&out).unwrap_or_default() == want.as_bytes());
    assert_eq!(String::from_utf8_lossy(&std::fs::read(&out).unwrap()), want, "typed on the German layout");
    // Russian, switched while the window runs: the key of A is ф (a legacy Cyrillic keysym).
    layout("ru");
    let deadline = Instant::now() + Duration::from_secs(30);
    // The window reads the keymap again when the server says it changed; until then a key
    // may still be German: keys go, each read before the next, until one comes out Russian.
    loop {
        let before = std::fs::metadata(&out).map_or(0, |m| m.len());
        key_with(&conn, &[], ac01);
        wait_until(|| std::fs::metadata(&out).is_ok_and(|m| m.len() > before));
        let got = String::from_utf8_lossy(&std::fs::read(&out).unwrap_or_default()).into_owned();
        if got.ends_with('ф') {
            break;
        }
        assert!(Instant::now() < deadline, "no Cyrillic after switching to ru: {got:?}");
    }
    let mut want = String::from_utf8_lossy(&std::fs::read(&out).unwrap()).into_owned();
    key_with(&conn, &[shift], ac01);
    want.push('Ф');
    wait_until(|| std::fs::read(&out).unwrap_or_default() == want.as_bytes());
    assert_eq!(String::from_utf8_lossy(&std::fs::read(&out).unwrap()), want, "typed on the Russian layout");
    let _ = blitty.kill();
    let _ = blitty.wait();
}

#[test]
fn a_blinking_cursor_blinks_while_focused_and_is_an_outline_without_the_focus() {
    let x = Xvfb::start();
    // A blinking block (DECSCUSR 1).
    let (conn, _root, mut blitty, win) = window(&x, "printf '\\033[1 qab'; exec cat > /dev/null");
    conn.set_input_focus(InputFocus::POINTER_ROOT, win, x11rb::CURRENT_TIME).unwrap();
    conn.flush().unwrap();
    // On (the block) and off (as if hidden), each seen within the wait.
    assert_eq!(differs_from_replay(&conn, win, b"\x1b[1 qab", 40, 8), 0, "the cursor on");
    assert_eq!(differs_from_replay(&conn, win, b"\x1b[1 qab\x1b[?25l", 40, 8), 0, "the cursor off");
    assert_eq!(differs_from_replay(&conn, win, b"\x1b[1 qab", 40, 8), 0, "the cursor on again");
    // Without the focus: neither the block nor nothing, but an outline, steady.
    conn.set_input_focus(InputFocus::POINTER_ROOT, x11rb::NONE, x11rb::CURRENT_TIME).unwrap();
    conn.flush().unwrap();
    let (pw, ph, block) = common::replay_png(BLITTY, b"\x1b[1 qab", 40, 8, &["--font-size", "10"]);
    let (_, _, hidden) = common::replay_png(BLITTY, b"ab\x1b[?25l", 40, 8, &["--font-size", "10"]);
    let mut got = Vec::new();
    wait_until(|| {
        got = pixels(&conn, win, pw as u16, ph as u16);
        got != block && got != hidden && !got.is_empty()
    });
    assert!(got != block && got != hidden, "the unfocused cursor is an outline");
    let _ = blitty.kill();
    let _ = blitty.wait();
}

/// The window's title (_NET_WM_NAME).
fn title(conn: &RustConnection, win: u32) -> String {
    let atom = |n: &[u8]| conn.intern_atom(false, n).unwrap().reply().unwrap().atom;
    let (name, utf8) = (atom(b"_NET_WM_NAME"), atom(b"UTF8_STRING"));
    conn.get_property(false, win, name, utf8, 0, 256)
        .ok()
        .and_then(|c| c.reply().ok())
        .map(|p| String::from_utf8_lossy(&p.value).into_owned())
        .unwrap_or_default()
}

#[test]
fn virtual_terminals_open_switch_keep_parsing_hidden_and_close_with_their_program() {
    let x = Xvfb::start();
    // A new vty runs the user's shell: here a script that says "two" and echoes what it reads.
    let shell = Scratch::new("window-vty-shell.sh");
    std::fs::write(&shell, "#!/bin/sh\nprintf two; exec cat\n").unwrap();
    std::fs::set_permissions(&shell, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    // The first vty's program waits for a flag file, then writes 1.3 MB (far past what a pty
    // holds unread) and says it is done: it finishes only if its vty is read while hidden.
    let (flag, done) = (Scratch::new("window-vty.flag"), Scratch::new("window-vty.done"));
    let script = format!(
        "printf '\\033]2;first\\007one'; while [ ! -e {f} ]; do sleep 0.02; done; seq 1 200000; touch {d}; exec cat",
        f = flag.display(),
        d = done.display()
    );
    let (conn, _root, mut blitty, win) = window_env(&x, &script, &[("SHELL", shell.to_str().unwrap())]);
    conn.set_input_focus(InputFocus::POINTER_ROOT, win, x11rb::CURRENT_TIME).unwrap();
    conn.flush().unwrap();
    assert_eq!(differs_from_replay(&conn, win, b"one", 40, 8), 0, "the first vty");
    let (ctrl, shift, alt) = (keycode(&conn, 0xffe3), keycode(&conn, 0xffe1), keycode(&conn, 0xffe9));
    // With one vty, Alt-2 is the program's (cat echoes ESC 2 as ^[2).
    chord(&conn, &[alt, keycode(&conn, 0x32)]);
    assert_eq!(differs_from_replay(&conn, win, b"one^[2", 40, 8), 0, "Alt-2 went to the program");
    // Ctrl-Shift-T: a second vty, shown, and the title says so.
    chord(&conn, &[ctrl, shift, keycode(&conn, 0x74)]);
    assert_eq!(differs_from_replay(&conn, win, b"two", 40, 8), 0, "the new vty");
    wait_until(|| title(&conn, win).ends_with("[2/2]"));
    assert!(title(&conn, win).ends_with("[2/2]"), "title: {}", title(&conn, win));
    // Typed into the second, while the hidden first writes its flood.
    tap(&conn, keycode(&conn, 0x62));
    assert_eq!(differs_from_replay(&conn, win, b"twob", 40, 8), 0, "typed into the second");
    std::fs::write(&flag, b"").unwrap();
    wait_until(|| done.exists());
    assert!(done.exists(), "the hidden vty's program could not write: its vty was not read");
    // Ctrl-PageUp shows the first, as the flood left it.
    chord(&conn, &[ctrl, keycode(&conn, 0xff55)]);
    let mut first = b"one^[2".to_vec();
    first.extend((1..=200000).flat_map(|i| format!("{i}\r\n").into_bytes()));
    assert_eq!(differs_from_replay(&conn, win, &first, 40, 8), 0, "Ctrl-PageUp: the first");
    wait_until(|| title(&conn, win) == "first [1/2]");
    assert_eq!(title(&conn, win), "first [1/2]");
    // Alt-2: the second again.
    chord(&conn, &[alt, keycode(&conn, 0x32)]);
    assert_eq!(differs_from_replay(&conn, win, b"twob", 40, 8), 0, "Alt-2: the second");
    // Its program ends (Enter, then Ctrl-D to cat): the vty goes, the first is shown, alone.
    tap(&conn, keycode(&conn, 0xff0d));
    chord(&conn, &[ctrl, keycode(&conn, 0x64)]);
    assert_eq!(differs_from_replay(&conn, win, &first, 40, 8), 0, "the first, after the second ended");
    wait_until(|| title(&conn, win) == "first");
    assert_eq!(title(&conn, win), "first", "one vty: no count in the title");
    assert!(blitty.try_wait().unwrap().is_none(), "the window stays while a vty is left");
    let _ = blitty.kill();
    let _ = blitty.wait();
}

/// Ends the session servers whose sockets are under `dir` (a test's own runtime directory).
struct Servers<'a>(&'a std::path::Path);

impl Drop for Servers<'_> {
    fn drop(&mut self) {
        let _ = Command::new("pkill").args(["-f", &format!("server --socket {}/", self.0.display())]).status();
    }
}

#[test]
fn the_window_attaches_to_a_session_types_into_it_and_detaches() {
    let x = Xvfb::start();
    let dir = Scratch::new("window-attach-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let _servers = Servers(dir.path());
    let out = Scratch::new("window-attach.out");
    let env = [("XDG_RUNTIME_DIR", dir.to_str().unwrap()), ("XDG_CONFIG_HOME", dir.to_str().unwrap())];
    let script = format!("printf '\\033[41m\\033[2J'; exec cat > {}", out.display());
    let new =
        Command::new(BLITTY).args(["new", "-d", "-s", "win", "--", "sh", "-c", &script]).envs(env).output().unwrap();
    assert!(new.status.success(), "{}", String::from_utf8_lossy(&new.stderr));
    // A session that does not exist: one line, status 2, no window.
    let none = Command::new(BLITTY)
        .args(["window", "--attach", "nosuch"])
        .envs(env)
        .env("DISPLAY", &x.display)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&none.stderr);
    assert_eq!(none.status.code(), Some(2), "{err}");
    assert!(err.contains("nosuch") && err.lines().count() == 1, "{err}");

    let (conn, screen_num) = x11rb::connect(Some(&x.display)).unwrap();
    let root = conn.setup().roots[screen_num].root;
    let mut blitty = Command::new(BLITTY)
        .args(["window", "--size", "40x8", "--font-size", "10", "--attach", "win"])
        .envs(env)
        .env("DISPLAY", &x.display)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_until(|| blitty_window(&conn, root).is_some());
    let win = blitty_window(&conn, root).expect("the window");
    conn.set_input_focus(InputFocus::POINTER_ROOT, win, x11rb::CURRENT_TIME).unwrap();
    conn.flush().unwrap();
    // The vty's rows (the status row is the client's last) are the program's red screen.
    let (pw, ph, want) = common::replay_png(BLITTY, b"\x1b[41m\x1b[2J", 40, 7, &["--font-size", "10"]);
    let mut got = Vec::new();
    wait_until(|| {
        got = pixels(&conn, win, pw as u16, ph as u16);
        got == want
    });
    assert!(got == want, "the session's screen differs from the PNG");
    // Typed keys reach the program in the session.
    for sym in [0x68, 0x69, 0xff0d] {
        tap(&conn, keycode(&conn, sym));
    }
    wait_until(|| std::fs::read(&out).unwrap_or_default() == b"hi\n");
    assert_eq!(std::fs::read(&out).unwrap(), b"hi\n", "what the program read");
    // The prefix (Ctrl-]) and d detach: the window ends with 0, the session lives on.
    chord(&conn, &[keycode(&conn, 0xffe3), keycode(&conn, 0x5d)]);
    tap(&conn, keycode(&conn, 0x64));
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(s) = blitty.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "the window did not end on detach");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(blitty.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(err.contains("detached"), "{err}");
    let ls = Command::new(BLITTY).arg("ls").envs(env).output().unwrap();
    assert!(String::from_utf8_lossy(&ls.stdout).contains("win"), "the session lives on");
    let _ = Command::new(BLITTY).args(["kill", "win"]).envs(env).status();
}

#[test]
fn a_selection_dragged_past_the_top_scrolls_back_into_history() {
    let x = Xvfb::start();
    let (conn, root, mut blitty, win) = window(&x, "seq 1 100; exec cat > /dev/null");
    conn.set_input_focus(InputFocus::POINTER_ROOT, win, x11rb::CURRENT_TIME).unwrap();
    // The window moved down, so that the pointer can go above it (no window manager).
    conn.configure_window(win, &ConfigureWindowAux::new().y(300)).unwrap();
    conn.flush().unwrap();
    let live: Vec<u8> = (1..=100).flat_map(|i| format!("{i}\r\n").into_bytes()).collect();
    assert_eq!(differs_from_replay(&conn, win, &live, 40, 8), 0, "the live screen");
    let geometry = conn.get_geometry(win).unwrap().reply().unwrap();
    let ch = geometry.height as i16 / 8;
    wait_until(|| conn.get_geometry(win).ok().and_then(|c| c.reply().ok()).is_some_and(|g| g.y == 300));
    // Press on "95" (row 1), drag above the window and hold there: the view scrolls back.
    conn.xtest_fake_input(6, 0, 0, root, 2, 300 + ch + ch / 2, 0).unwrap();
    conn.xtest_fake_input(4, 1, 0, x11rb::NONE, 0, 0, 0).unwrap();
    conn.xtest_fake_input(6, 0, 0, root, 2, 250, 0).unwrap();
    conn.flush().unwrap();
    // The view leaves the live screen: its bottom row (the live cursor's empty row, which the
    // selection does not reach) shows a line of history.
    let (pw, ph, live_png) = common::replay_png(BLITTY, &live, 40, 8, &["--font-size", "10"]);
    let bottom = |p: &[u32]| p.get(7 * (ph / 8) * pw..).map(|r| r.to_vec()).unwrap_or_default();
    let mut got = Vec::new();
    wait_until(|| {
        got = pixels(&conn, win, pw as u16, ph as u16);
        got.len() == live_png.len() && bottom(&got) != bottom(&live_png)
    });
    assert!(bottom(&got) != bottom(&live_png), "the view did not scroll while the pointer was above the window");
    conn.xtest_fake_input(5, 1, 0, x11rb::NONE, 0, 0, 0).unwrap();
    conn.flush().unwrap();
    wait_until(|| xclip_out(&x, "primary").ends_with("94\n9"));
    let text = xclip_out(&x, "primary");
    assert!(text.ends_with("94\n9"), "the selection ends at the anchor: {text:?}");
    let first: u32 = text.lines().next().and_then(|l| l.trim().parse().ok()).unwrap_or(100);
    assert!(first < 94, "the selection reaches back past the live screen (to {first}): {text:?}");
    let _ = blitty.kill();
    let _ = blitty.wait();
}

#[test]
fn vim_in_the_window_edits_and_saves_a_file_and_its_end_closes_the_window() {
    let x = Xvfb::start();
    let file = Scratch::new("window-vim.txt");
    std::fs::write(&file, "first line\n").unwrap();
    // vim sets the title once it is up (its terminal raw): the keys wait for that.
    let script = format!("exec vim -u NONE -N -c 'set title titlestring=vim-ready' {}", file.display());
    let (conn, _root, mut blitty, win) = window(&x, &script);
    conn.set_input_focus(InputFocus::POINTER_ROOT, win, x11rb::CURRENT_TIME).unwrap();
    wait_until(|| title(&conn, win).contains("vim-ready"));
    assert!(title(&conn, win).contains("vim-ready"), "vim did not start: the title is {:?}", title(&conn, win));
    let shift = keycode(&conn, 0xffe1);
    // o, a line of text, Escape, :wq and Return: as a user saves a change.
    for c in "osecond typed".chars() {
        tap(&conn, keycode(&conn, c as u32));
    }
    tap(&conn, keycode(&conn, 0xff1b));
    key_with(&conn, &[shift], keycode(&conn, ';' as u32));
    for c in "wq".chars() {
        tap(&conn, keycode(&conn, c as u32));
    }
    tap(&conn, keycode(&conn, 0xff0d));
    let mut status = None;
    wait_until(|| {
        status = blitty.try_wait().unwrap();
        status.is_some()
    });
    let saved = std::fs::read_to_string(&file).unwrap();
    if status.is_none() {
        let _ = blitty.kill();
    }
    assert_eq!(saved, "first line\nsecond typed\n", "what vim saved");
    assert_eq!(status.and_then(|s| s.code()), Some(0), "the window ends with vim's status");
}

/// Cell rows `0..rows` of `pixels` (a window `pw` pixels wide, its rows `ch` pixels high):
/// whether each has a pixel other than `bg`.
fn inked_rows(pixels: &[u32], pw: usize, ch: usize, rows: usize, bg: u32) -> Vec<bool> {
    (0..rows).map(|r| pixels.get(r * ch * pw..(r + 1) * ch * pw).is_some_and(|p| p.iter().any(|&c| c != bg))).collect()
}

#[test]
fn a_synchronized_update_is_shown_whole_never_half_drawn() {
    // Six rounds, each an update (mode 2026) that clears the screen and fills it with a letter
    // in two halves, 50 ms apart (well within the 150 ms a frame is held), then 300 ms shown
    // whole. The test reads the window's pixels every few milliseconds meanwhile: no frame may
    // show a round's top half drawn and its bottom half blank. The rounds start when the test
    // is reading. The program is bash waiting with its own `read -t` on a FIFO that nothing
    // writes, not `sleep`: a fork and an exec on a loaded machine could take longer than the
    // hold.
    let x = Xvfb::start();
    let (flag, fifo, file) =
        (Scratch::new("window-sync.flag"), Scratch::new("window-sync.fifo"), Scratch::new("window-sync.sh"));
    let row = |y: usize, c: char| format!("\\033[{y};1H{}", c.to_string().repeat(40));
    let mut program = format!(
        "mkfifo {fifo}; exec 3<>{fifo}\nprintf '\\033[?25l'\nwhile [ ! -e {flag} ]; do read -t 0.02 <&3; done\n",
        fifo = fifo.display(),
        flag = flag.display()
    );
    let mut shown = b"\x1b[?25l".to_vec();
    for c in ['A', 'B', 'C', 'D', 'E', 'F'] {
        let top: String = (1..=4).map(|y| row(y, c)).collect();
        let bottom: String = (5..=8).map(|y| row(y, c)).collect();
        program += &format!(
            "printf '\\033[?2026h\\033[H\\033[2J{top}'; read -t 0.05 <&3\nprintf '{bottom}\\033[?2026l'; read -t 0.3 <&3\n"
        );
        shown.extend_from_slice(
            format!("\x1b[?2026h\x1b[H\x1b[2J{top}{bottom}\x1b[?2026l").replace("\\033", "\x1b").as_bytes(),
        );
    }
    program += "exec cat > /dev/null\n";
    std::fs::write(&file, program).unwrap();
    let script = format!("exec bash {}", file.display());
    let (conn, _root, mut blitty, win) = window(&x, &script);
    let (pw, ph, last) = common::replay_png(BLITTY, &shown, 40, 8, &["--font-size", "10"]);
    let (_, _, blank) = common::replay_png(BLITTY, b"\x1b[?25l", 40, 8, &["--font-size", "10"]);
    let (bg, ch) = (blank[0], ph / 8);
    std::fs::write(&flag, b"").unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let (mut samples, mut got, mut torn) = (0usize, Vec::new(), None);
    while Instant::now() < deadline {
        got = pixels(&conn, win, pw as u16, ph as u16);
        samples += 1;
        let inked = inked_rows(&got, pw, ch, 8, bg);
        if inked[..4].iter().any(|&i| i) && !inked[4..].iter().any(|&i| i) {
            torn = Some(inked);
            break;
        }
        if got == last {
            break;
        }
        // Room for the window and the X server on a machine of two cores.
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = blitty.kill();
    let _ = blitty.wait();
    let summary = |p: &[u32]| {
        let inked = inked_rows(p, pw, ch, 8, bg);
        inked.iter().map(|&i| if i { '#' } else { '.' }).collect::<String>()
    };
    assert!(torn.is_none(), "sample {samples} showed a half-drawn update (rows inked: {})", summary(&got));
    assert!(got == last, "the last round never showed whole after {samples} samples (rows inked: {})", summary(&got));
}

/// Serves `text` as `selection` with xclip in the foreground for one paste: the child ends
/// once the paste has been taken whole.
fn xclip_once(x: &Xvfb, selection: &str, text: &[u8]) -> Child {
    let mut c = Command::new("xclip")
        .args(["-i", "-selection", selection, "-quiet", "-loops", "1"])
        .env("DISPLAY", &x.display)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("xclip");
    std::io::Write::write_all(c.stdin.as_mut().unwrap(), text).unwrap();
    drop(c.stdin.take());
    c
}

/// Waits until `c` ends (30 s at most): whether it did.
fn ended(c: &mut Child) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if c.try_wait().unwrap().is_some() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = c.kill();
    let _ = c.wait();
    false
}

/// A process stopped (SIGSTOP) until dropped (SIGCONT), even when the test fails meanwhile.
struct Stopped(i32);

impl Stopped {
    fn new(pid: i32) -> Stopped {
        let pid = rustix::process::Pid::from_raw(pid).expect("a pid");
        rustix::process::kill_process(pid, rustix::process::Signal::STOP).expect("SIGSTOP");
        Stopped(pid.as_raw_nonzero().get())
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        if let Some(pid) = rustix::process::Pid::from_raw(self.0) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::CONT);
        }
    }
}

/// A child killed when dropped (a test that fails leaves no window behind).
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn an_attached_window_keeps_going_while_the_server_reads_nothing_and_refuses_a_paste_past_its_bound() {
    let x = Xvfb::start();
    let dir = Scratch::new("window-stall-dir");
    std::fs::create_dir_all(&dir).unwrap();
    let _servers = Servers(dir.path());
    let out = Scratch::new("window-stall.out");
    let env = [("XDG_RUNTIME_DIR", dir.to_str().unwrap()), ("XDG_CONFIG_HOME", dir.to_str().unwrap())];
    let script = format!("stty raw -echo; exec cat > {}", out.display());
    let new =
        Command::new(BLITTY).args(["new", "-d", "-s", "stall", "--", "sh", "-c", &script]).envs(env).output().unwrap();
    assert!(new.status.success(), "{}", String::from_utf8_lossy(&new.stderr));
    let (conn, screen_num) = x11rb::connect(Some(&x.display)).unwrap();
    let root = conn.setup().roots[screen_num].root;
    let mut blitty = Killed(
        Command::new(BLITTY)
            .args(["window", "--size", "40x8", "--font-size", "10", "--attach", "stall"])
            .envs(env)
            .env("DISPLAY", &x.display)
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    wait_until(|| blitty_window(&conn, root).is_some());
    let win = blitty_window(&conn, root).expect("the window");
    conn.set_input_focus(InputFocus::POINTER_ROOT, win, x11rb::CURRENT_TIME).unwrap();
    conn.flush().unwrap();
    tap(&conn, keycode(&conn, 0x78));
    wait_until(|| std::fs::read(&out).unwrap_or_default() == b"x");
    assert_eq!(std::fs::read(&out).unwrap_or_default(), b"x", "the session's program reads what is typed");

    // The server stops reading (stopped), and a paste far larger than a socket holds is made.
    let pgrep = Command::new("pgrep").args(["-f", &format!("server --socket {}/", dir.display())]).output().unwrap();
    let pids: Vec<i32> = String::from_utf8_lossy(&pgrep.stdout).lines().filter_map(|l| l.trim().parse().ok()).collect();
    assert_eq!(pids.len(), 1, "one session server: {pids:?}");
    let stopped = Stopped::new(pids[0]);
    let owner = |conn: &RustConnection| {
        let clipboard = conn.intern_atom(false, b"CLIPBOARD").unwrap().reply().unwrap().atom;
        conn.get_selection_owner(clipboard).unwrap().reply().unwrap().owner
    };
    let (ctrl, shift) = (keycode(&conn, 0xffe3), keycode(&conn, 0xffe1));
    let paste: Vec<u8> = (0..900_000u32).map(|i| b'a' + (i % 26) as u8).collect();
    let mut xclip = xclip_once(&x, "clipboard", &paste);
    wait_until(|| owner(&conn) != x11rb::NONE);
    chord(&conn, &[ctrl, shift, keycode(&conn, 0x76)]);
    assert!(ended(&mut xclip), "the window did not take the paste");
    // The window goes on: the focus taken away, its cursor is drawn as an outline.
    let (pw, ph) = {
        let g = conn.get_geometry(win).unwrap().reply().unwrap();
        (g.width, g.height)
    };
    let focused = pixels(&conn, win, pw, ph);
    conn.set_input_focus(InputFocus::POINTER_ROOT, x11rb::NONE, x11rb::CURRENT_TIME).unwrap();
    conn.flush().unwrap();
    let mut unfocused = Vec::new();
    wait_until(|| {
        unfocused = pixels(&conn, win, pw, ph);
        !unfocused.is_empty() && unfocused != focused
    });
    assert!(unfocused != focused, "the window stopped drawing while the server read nothing");

    // A paste larger than what may wait for the session: refused, and the window says so.
    let big: Vec<u8> = (0..2_000_000u32).map(|i| b'A' + (i % 26) as u8).collect();
    conn.set_input_focus(InputFocus::POINTER_ROOT, win, x11rb::CURRENT_TIME).unwrap();
    conn.flush().unwrap();
    let mut focused = Vec::new();
    wait_until(|| {
        focused = pixels(&conn, win, pw, ph);
        !focused.is_empty() && focused != unfocused
    });
    let mut xclip = xclip_once(&x, "clipboard", &big);
    wait_until(|| owner(&conn) != x11rb::NONE);
    chord(&conn, &[ctrl, shift, keycode(&conn, 0x76)]);
    assert!(ended(&mut xclip), "the window did not take the large paste");
    let mut noted = Vec::new();
    wait_until(|| {
        noted = pixels(&conn, win, pw, ph);
        !noted.is_empty() && noted != focused
    });
    assert!(noted != focused, "no message in the window for the refused paste");

    // The server reads again: the first paste arrives whole, the refused one not at all.
    drop(stopped);
    tap(&conn, keycode(&conn, 0x7a));
    let mut want = b"x".to_vec();
    want.extend_from_slice(&paste);
    want.push(b'z');
    wait_until(|| std::fs::metadata(&out).is_ok_and(|m| m.len() >= want.len() as u64));
    let got = std::fs::read(&out).unwrap_or_default();
    assert!(got == want, "the program read {} bytes, {} expected", got.len(), want.len());
    chord(&conn, &[ctrl, keycode(&conn, 0x5d)]);
    tap(&conn, keycode(&conn, 0x64));
    assert!(ended(&mut blitty.0), "the window did not end on detach");
    let mut err = String::new();
    std::io::Read::read_to_string(blitty.0.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(err.contains("not sent"), "{err}");
    let _ = Command::new(BLITTY).args(["kill", "stall"]).envs(env).status();
}
