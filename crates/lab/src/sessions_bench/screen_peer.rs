//! GNU screen as a peer in `blitty bench sessions`: the same experiments as blitty's server and
//! tmux get, on a screen server of its own (its own `SCREENDIR`, mode 0700, and its own
//! screenrc).
//!
//! screen makes a new window the current one, so the flood's window is made first with a
//! program that waits for a go file, window 0 is selected again, and only then is the file made:
//! the flood runs in a window the attached client does not show. Each screen session is a
//! server process of its own, so memory per window is measured as windows of one session.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::{filler, many_cpu, pacer, screenful, start_time, time_until_then, wait_until, Flood, Timing, TIMEOUT};
use crate::common::procs::{cpu_seconds, settled_rss};
use crate::common::pty::{drained_by, Reader};
use crate::common::stats::median_of;
use crate::common::texts::{read_seconds, writer};

/// A screen server's world: its socket directory and its screenrc.
struct Screen {
    dir: PathBuf,
    rc: PathBuf,
}

impl Screen {
    /// `history`: 10,000 lines of scrollback in every window (`defscrollback`), as tmux gets
    /// `history-limit 10000` for the memory row.
    fn new(base: &Path, name: &str, history: bool) -> Result<Screen, String> {
        let dir = base.join(format!("screen-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        std::fs::set_permissions(&dir, std::os::unix::fs::PermissionsExt::from_mode(0o700))
            .map_err(|e| e.to_string())?;
        let rc = base.join(format!("screenrc-{name}"));
        let mut text = String::from("startup_message off\nvbell off\n");
        if history {
            text.push_str("defscrollback 10000\n");
        }
        std::fs::write(&rc, text).map_err(|e| e.to_string())?;
        Ok(Screen { dir, rc })
    }

    fn env(&self) -> Vec<String> {
        vec![
            "env".into(),
            format!("SCREENDIR={}", self.dir.display()),
            "TERM=xterm-256color".into(),
            "screen".into(),
            "-c".into(),
            self.rc.display().to_string(),
        ]
    }

    /// Runs `screen ARGS` and returns its standard output.
    fn run(&self, args: &[&str]) -> Result<String, String> {
        let argv = self.env();
        let out = Command::new(&argv[0])
            .args(&argv[1..])
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("screen: {e}"))?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(format!(
                "screen {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stdout).trim().to_owned() + String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }

    /// `screen -ls`: it exits 1 while sessions exist, so its status is not looked at.
    fn ls(&self) -> String {
        let argv = self.env();
        Command::new(&argv[0])
            .args(&argv[1..])
            .arg("-ls")
            .stdin(Stdio::null())
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }

    /// A detached session `name` running `cmd` in window 0.
    fn start(&self, name: &str, cmd: &str) -> Result<u32, String> {
        self.run(&["-dmS", name, "sh", "-c", cmd])?;
        let mut pid = None;
        wait_until("screen's session", || {
            pid = self.pid(name);
            pid.is_some()
        })?;
        pid.ok_or_else(|| "no screen server".into())
    }

    /// The pid of session `name`'s server, from `screen -ls` ("PID.NAME (...)").
    fn pid(&self, name: &str) -> Option<u32> {
        self.ls().lines().find_map(|l| {
            let (pid, rest) = l.trim().split_once('.')?;
            rest.split_whitespace().next().filter(|n| *n == name)?;
            pid.parse().ok()
        })
    }

    /// How many windows session `name` has: `-Q windows` lists them as "0* sh  1- sh" (number,
    /// flags, title, two spaces between).
    fn windows(&self, name: &str) -> Result<usize, String> {
        let list = self.run(&["-S", name, "-Q", "windows"])?;
        Ok(list.split("  ").filter(|w| w.trim_start().starts_with(|c: char| c.is_ascii_digit())).count())
    }

    fn attach_argv(&self, name: &str) -> Vec<String> {
        let mut v = self.env();
        v.extend(["-r".into(), name.into()]);
        v
    }

    /// Session `name` with a client attached in a pty a plain reader drains.
    fn attached(&self, name: &str) -> Result<(u32, std::thread::JoinHandle<Result<u64, String>>), String> {
        let pid = self.start(name, "exec sleep 100000")?;
        let argv = self.attach_argv(name);
        let client = std::thread::spawn(move || drained_by(&argv, TIMEOUT, Reader::Plain));
        wait_until("screen's client to attach", || self.ls().contains("(Attached)"))?;
        Ok((pid, client))
    }

    /// A window in session `name` running `cmd` in the background: made waiting for a go file,
    /// then window 0 is selected, then the file is made.
    fn background(&self, name: &str, cmd: &str, go: &Path) -> Result<(), String> {
        let go = go.display();
        let waiting = format!("while [ ! -e {go} ]; do sleep 0.01; done; {cmd}");
        self.run(&["-S", name, "-X", "screen", "sh", "-c", &waiting])?;
        Ok(())
    }

    fn quit(&self) {
        for l in self.ls().lines() {
            if let Some((pid, _)) = l.trim().split_once('.') {
                if let Ok(pid) = pid.parse::<u32>() {
                    let _ = Command::new("kill").arg(pid.to_string()).status();
                }
            }
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        self.quit();
    }
}

pub(super) fn flood(dir: &Path, file: &Path, n: usize) -> Result<Flood, String> {
    let s = Screen::new(dir, &format!("flood{n}"), false)?;
    let (pid, client) = s.attached("shown")?;
    let out = dir.join(format!("timing-screen-{n}"));
    let go = dir.join(format!("go-screen-{n}"));
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&go);
    s.background("shown", &writer(file, &out), &go)?;
    s.run(&["-S", "shown", "-X", "select", "0"])?;
    wait_until("the flood's window", || s.windows("shown").is_ok_and(|w| w == 2))?;
    let cpu0 = cpu_seconds(pid)?;
    std::fs::write(&go, b"").map_err(|e| e.to_string())?;
    wait_until("the flood to end", || out.exists())?;
    // screen has read everything once the window is gone (it reads to the end first).
    wait_until("the flood's window to close", || s.windows("shown").is_ok_and(|w| w == 1))?;
    let cpu1 = cpu_seconds(pid)?;
    let seconds = read_seconds(&out).ok_or("no timing")?;
    s.quit();
    let _ = client.join();
    let bytes = std::fs::metadata(file).map_err(|e| e.to_string())?.len() as f64;
    Ok(Flood { mbps: bytes / seconds / 1e6, cpu_per_gb: (cpu1 - cpu0) / bytes * 1e9 })
}

pub(super) fn memory(dir: &Path, vtys: usize) -> Result<f64, String> {
    let s = Screen::new(dir, "memory", true)?;
    let pid = s.start("base", "exec sleep 100000")?;
    let base = settled_rss(pid)?;
    for _ in 0..vtys {
        s.run(&["-S", "base", "-X", "screen", "sh", "-c", &filler()])?;
    }
    wait_until("screen's windows", || s.windows("base").is_ok_and(|w| w == vtys + 1))?;
    let full = settled_rss(pid)?;
    Ok((full - base) / vtys as f64)
}

pub(super) fn attach(dir: &Path, runs: usize) -> Timing {
    let s = Screen::new(dir, "attach", false)?;
    // Made attached in a 200x60 terminal (a detached screen is 80x24). Each client is detached
    // (`screen -d`) before its terminal closes, as a user's would be.
    let detach = || {
        let _ = s.run(&["-d", "att"]);
        let _ = wait_until("screen to detach", || s.ls().contains("(Detached)"));
    };
    let mut made = s.env();
    made.extend(["-S", "att", "sh", "-c", &screenful()].iter().map(|a| a.to_string()));
    time_until_then(&made, 200, 60, b"last-row-marker", detach)?;
    let mut v = Vec::new();
    for _ in 0..runs {
        v.push(time_until_then(&s.attach_argv("att"), 200, 60, b"last-row-marker", detach)?);
    }
    Ok(median_of(v))
}

pub(super) fn many(lab: &Path, dir: &Path, n: usize, seconds: f64, file: &Path) -> Result<f64, String> {
    let s = Screen::new(dir, "many", false)?;
    let (pid, client) = s.attached("shown")?;
    let go = dir.join("go-screen-many");
    let _ = std::fs::remove_file(&go);
    let start = start_time(Duration::from_millis(600) + Duration::from_millis(20) * n as u32);
    for _ in 0..n {
        s.background("shown", &pacer(lab, seconds, start, file), &go)?;
    }
    s.run(&["-S", "shown", "-X", "select", "0"])?;
    std::fs::write(&go, b"").map_err(|e| e.to_string())?;
    let cpu = many_cpu(pid, seconds, start);
    s.quit();
    let _ = client.join();
    cpu
}
