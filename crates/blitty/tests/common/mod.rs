//! What the end-to-end tests share: a tmux server of their own as the host terminal.

#![allow(dead_code)]

pub mod scratch;
pub mod server;

use std::process::Command;
use std::time::{Duration, Instant};

/// A tmux server of its own with one 80x24 pane running `command`.
pub struct Tmux {
    pub socket: String,
}

impl Tmux {
    pub fn start(name: &str, command: &str) -> Tmux {
        Self::start_sized(name, command, 80, 24)
    }

    pub fn start_sized(name: &str, command: &str, cols: u16, rows: u16) -> Tmux {
        let socket = format!("blitty-e2e-{name}-{}", std::process::id());
        let t = Tmux { socket };
        let _ = t.tmux(&["kill-server"]);
        let env = "env TERM=xterm-256color LANG=C.UTF-8 PS1='$ ' HOME=/tmp";
        let full = format!("{env} {command}");
        let ok = t
            .tmux(&["-f", "/dev/null", "new-session", "-d", "-x", &cols.to_string(), "-y", &rows.to_string(), &full])
            .status
            .success();
        assert!(ok, "tmux did not start");
        t.tmux(&["set-option", "-g", "status", "off"]);
        t.tmux(&["set-option", "-g", "remain-on-exit", "on"]);
        t
    }

    pub fn tmux(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux").arg("-L").arg(&self.socket).args(args).output().expect("tmux runs")
    }

    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    pub fn text(&self, text: &str) {
        self.tmux(&["send-keys", "-l", text]);
    }

    pub fn capture(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p"]).stdout).into_owned()
    }

    pub fn format(&self, f: &str) -> String {
        String::from_utf8_lossy(&self.tmux(&["display-message", "-p", f]).stdout).trim().to_string()
    }

    /// The pane once it has not changed for 500 ms (at most 20 s).
    pub fn settled(&self) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        let mut last = self.capture();
        let mut since = Instant::now();
        while Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
            let now = self.capture();
            if now != last {
                last = now;
                since = Instant::now();
            } else if since.elapsed() > Duration::from_millis(500) {
                break;
            }
        }
        last
    }

    /// Waits until the pane shows `needle` (at most 30 s: a loaded machine is slow, not wrong);
    /// returns the last screen either way, for the caller's assertion to print.
    pub fn wait_for(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let screen = self.capture();
            if screen.contains(needle) || Instant::now() > deadline {
                return screen;
            }
            std::thread::sleep(Duration::from_millis(30));
        }
    }
}

impl Tmux {
    /// Waits until tmux's newest paste buffer (what a clipboard write put there) is `want` (at
    /// most 30 s); returns its last content.
    pub fn wait_for_buffer(&self, want: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let buffer = String::from_utf8_lossy(&self.tmux(&["show-buffer"]).stdout).into_owned();
            if buffer == want || Instant::now() > deadline {
                return buffer;
            }
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// Waits until a row of the pane is `line` (trailing blanks aside; at most 30 s); returns
    /// the last screen either way.
    pub fn wait_for_line(&self, line: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let screen = self.capture();
            if screen.lines().any(|l| l.trim_end() == line) || Instant::now() > deadline {
                return screen;
            }
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// Waits until the format `f` expands to `want` (at most 30 s); returns its last value.
    pub fn wait_until_format(&self, f: &str, want: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let got = self.format(f);
            if got == want || Instant::now() > deadline {
                return got;
            }
            std::thread::sleep(Duration::from_millis(30));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        kill_tmux(&self.socket);
    }
}

/// Ends the tmux server on `socket` and removes its socket file, which tmux 3.3 leaves behind
/// (`$TMUX_TMPDIR/tmux-UID/SOCKET`, `/tmp` by default): without this every test run would
/// leave one file per test in the user's tmux directory.
pub fn kill_tmux(socket: &str) {
    let _ = Command::new("tmux").args(["-L", socket, "kill-server"]).output();
    let base = std::env::var_os("TMUX_TMPDIR").unwrap_or_else(|| "/tmp".into());
    let dir = std::path::Path::new(&base).join(format!("tmux-{}", rustix::process::getuid().as_raw()));
    let _ = std::fs::remove_file(dir.join(socket));
}

/// Waits until `ok` holds (at most 30 s: a loaded machine is slow, not wrong); the caller's
/// assertion says what failed.
pub fn wait_until(mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !ok() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(30));
    }
}

/// A shell command printing three lines of 56 characters, [`line_56`] 1 to 3 (the reflow
/// tests: they wrap at narrow widths and fit at 80).
pub const LINES_56: &str = "for i in 1 2 3; do printf 'line%d-' $i; printf 'abcdefghij%.0s' 1 2 3 4 5; echo; done";

/// Line `i` of what [`LINES_56`] prints.
pub fn line_56(i: usize) -> String {
    format!("line{i}-{}", "abcdefghij".repeat(5))
}

/// The three lines [`LINES_56`] prints as a pane `cols` wide shows them: each cut into rows of
/// `cols` characters (whole from 56 columns on), a row to a line of the capture.
pub fn lines_56_at(cols: usize) -> String {
    let rows = (1..=3).flat_map(|i| {
        let line = line_56(i);
        line.as_bytes().chunks(cols).map(|r| String::from_utf8_lossy(r).into_owned()).collect::<Vec<_>>()
    });
    rows.collect::<Vec<_>>().join("\n")
}

pub fn tmux_available() -> bool {
    Command::new("tmux").arg("-V").output().map(|o| o.status.success()).unwrap_or(false)
}
pub mod hostpty;

/// `blitty replay --png` of `bytes` on a `cols` x `rows` screen (with `args` added, a font
/// size say): its width, height and pixels as 0xRRGGBB.
pub fn replay_png(blitty: &str, bytes: &[u8], cols: usize, rows: usize, args: &[&str]) -> (usize, usize, Vec<u32>) {
    // Names of their own: tests run at once in one process, and share its pid.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let input = scratch::Scratch::new(&format!("replay-input-{n}"));
    std::fs::write(&input, bytes).unwrap();
    let png_path = scratch::Scratch::new(&format!("replay-{n}.png"));
    let out = Command::new(blitty)
        .args(["replay", &input.display().to_string(), "--size", &format!("{cols}x{rows}"), "--dump", "none"])
        .args(["--png", &png_path.display().to_string()])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let decoder = png::Decoder::new(std::fs::File::open(&png_path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut data = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut data).unwrap();
    let px = data[..info.buffer_size()]
        .chunks_exact(3)
        .map(|p| (p[0] as u32) << 16 | (p[1] as u32) << 8 | p[2] as u32)
        .collect();
    (info.width as usize, info.height as usize, px)
}
