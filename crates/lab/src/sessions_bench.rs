//! `blitty bench sessions`: what a session server costs, blitty's against tmux's, in one run.
//!
//! - **A flood in a vty no client shows**, while a client (attached in a pty a plain reader
//!   drains) shows another: `cat` of plain text, then of colour-dense text, timed by the
//!   writer; the server's CPU seconds per GB (from /proc, the server's whole process). The
//!   engine alone, parsing the same file in this process, is the floor. tmux: the flood in a
//!   window made with `new-window -d` (in the background) of the attached session.
//! - **Memory per vty** with 10,000 lines of scrollback filled (80-column lines): the server's
//!   resident memory with N sessions against with none, over N. tmux with `history-limit 10000`.
//!
//! - **Many vtys printing at once** (100 at 1 MB/s each, paced by `blitty-lab probe pace`),
//!   one other shown: the server's CPU. tmux: 100 background windows.
//! - **Attaching** to a session showing a full 200x60 screen: from starting the client to the
//!   screen's last row in the terminal.
//!
//! - **Serial lines as vtys**: 1,000 pty pairs (50 with --quick), each opened by one server as
//!   a serial vty at 115,200 baud with a log, fed by the far ends as `bench ports` feeds them
//!   (`common::lines::send`); every log is checked byte for byte, and the server's CPU is read
//!   over the steady state. No peer: tmux and screen have no serial vtys of their own.
//!
//! GNU screen is the second peer (`screen_peer`): the same flood, memory, attach and many-vtys
//! experiments.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use comfy_table::{presets::ASCII_MARKDOWN, Table};

use crate::common::procs::{cpu_seconds, settled_rss};
use crate::common::programs::which;
use crate::common::pty::{drained_by, Reader};
use crate::common::stats::median_of;
use crate::common::texts::{flood_files, read_seconds, writer};
use crate::report::{header, machine, Context, Error, Section};
use crate::workloads::{self, Rng};

mod screen_peer;

pub struct Options {
    pub quick: bool,
    pub blitty: PathBuf,
    /// This lab (its `probe pace` writes the many vtys' output).
    pub lab: PathBuf,
}

/// One flood: MB/s as the writer saw it, and the server's CPU seconds per GB.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Flood {
    pub mbps: f64,
    pub cpu_per_gb: f64,
}

pub struct Row {
    pub target: String,
    /// Per file: the flood, or why it could not run.
    pub floods: Vec<Result<Flood, String>>,
    /// Resident memory per vty (MB) with a full scrollback, or why not.
    pub memory: Result<f64, String>,
}

/// (median, every sample) in milliseconds, or why it could not run.
pub type Timing = Result<(f64, Vec<f64>), String>;

pub struct Report {
    pub files: Vec<String>,
    pub rows: Vec<Row>,
    pub vtys: usize,
    /// Milliseconds from starting the attach command to the whole 200x60 screen being in the
    /// terminal: (target, median, samples), or why not.
    pub attach: Vec<(String, Timing)>,
    /// How many vtys printed at once, and the server's CPU (% of one core) meanwhile.
    pub many: usize,
    pub busy: Vec<(String, Result<f64, String>)>,
    pub serial: Result<SerialLines, String>,
}

/// CPU of the server (`pid`) while `n` vtys each print `rate` bytes a second for `seconds`:
/// the pacers start together at a time set ahead, and the CPU is read at that time and when
/// they are done.
fn many_cpu(pid: u32, seconds: f64, start_ns: u128) -> Result<f64, String> {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
    if start_ns > now {
        std::thread::sleep(Duration::from_nanos((start_ns - now) as u64));
    }
    let cpu0 = cpu_seconds(pid)?;
    std::thread::sleep(Duration::from_secs_f64(seconds));
    Ok((cpu_seconds(pid)? - cpu0) / seconds * 100.0)
}

fn start_time(ahead: Duration) -> u128 {
    (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default() + ahead).as_nanos()
}

fn pacer(lab: &Path, seconds: f64, start: u128, file: &Path) -> String {
    format!("{} probe pace {RATE} {seconds} {start} {}", lab.display(), file.display())
}

/// Bytes a second each of the many vtys prints.
const RATE: u32 = 1_000_000;

fn blitty_many(opts: &Options, dir: &Path, n: usize, seconds: f64, file: &Path) -> Result<f64, String> {
    let b = Blitty::new(&opts.blitty, dir.join("rt-many"))?;
    b.run(&["new", "-d", "-s", "shown", "--", "sleep", "100000"])?;
    let pid = b.server_pid()?;
    let argv = b.attach_argv("shown");
    let client = std::thread::spawn(move || drained_by(&argv, TIMEOUT, Reader::Plain));
    wait_until("the client to attach", || b.ls().contains("1 client attached"))?;
    let start = start_time(Duration::from_millis(300) + Duration::from_millis(15) * n as u32);
    for k in 0..n {
        b.run(&["new", "-d", "-s", &format!("v{k}"), "--", "sh", "-c", &pacer(&opts.lab, seconds, start, file)])?;
    }
    let cpu = many_cpu(pid, seconds, start);
    b.run(&["kill", "shown"])?;
    let _ = client.join();
    cpu
}

fn tmux_many(opts: &Options, dir: &Path, n: usize, seconds: f64, file: &Path) -> Result<f64, String> {
    let sock = format!("blitty-bench-sessions-many-{}", std::process::id());
    let (conf, pid, client) = tmux_attached(dir, &sock)?;
    let result = (|| {
        let start = start_time(Duration::from_millis(300) + Duration::from_millis(15) * n as u32);
        for _ in 0..n {
            tmux(&sock, &conf, &["new-window", "-d", "-t", "shown", &pacer(&opts.lab, seconds, start, file)])?;
        }
        let cpu = many_cpu(pid, seconds, start);
        let _ = tmux(&sock, &conf, &["kill-server"]);
        let _ = client.join();
        cpu
    })();
    let _ = tmux(&sock, &conf, &["kill-server"]);
    result
}

/// The program of the attach experiment: 60 rows of 200 columns, the last one marked.
fn screenful() -> String {
    "i=1; while [ $i -lt 60 ]; do printf 'row %03d %0191d\\n' $i 0; i=$((i+1)); done; printf 'last-row-marker'; exec sleep 100000".to_string()
}

/// Runs `argv` on a pty of `cols` x `rows` and returns the milliseconds until `needle` has
/// arrived on the master.
fn time_until(argv: &[String], cols: u16, rows: u16, needle: &[u8]) -> Result<f64, String> {
    time_until_then(argv, cols, rows, needle, || {})
}

/// As [`time_until`], and runs `then` once the needle has arrived, before the client is killed
/// and its terminal closed (GNU screen's server sleeps a second when a client's terminal goes
/// away under it, so its client is detached first, as a user's would be).
fn time_until_then(argv: &[String], cols: u16, rows: u16, needle: &[u8], then: impl FnOnce()) -> Result<f64, String> {
    let argv: Vec<std::ffi::OsString> = argv.iter().map(std::ffi::OsString::from).collect();
    let t0 = Instant::now();
    let mut pty = blitty_os::pty::spawn(&argv, blitty_os::pty::Size { cols, rows })
        .map_err(|e| format!("cannot start {}: {e}", argv[0].to_string_lossy()))?;
    let mut seen: Vec<u8> = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let result = loop {
        let mut fds = [rustix::event::PollFd::new(&pty.master, rustix::event::PollFlags::IN)];
        let _ = rustix::event::poll(&mut fds, Some(&rustix::event::Timespec { tv_sec: 0, tv_nsec: 10_000_000 }));
        while let Ok(n @ 1..) = rustix::io::read(&pty.master, &mut buf) {
            seen.extend_from_slice(&buf[..n]);
        }
        if seen.windows(needle.len()).any(|w| w == needle) {
            break Ok(t0.elapsed().as_secs_f64() * 1e3);
        }
        if t0.elapsed() > Duration::from_secs(30) {
            break Err("the screen did not arrive".to_string());
        }
        if let Ok(Some(_)) = pty.child.try_wait() {
            break Err(format!(
                "it ended first: {}",
                String::from_utf8_lossy(&seen).chars().take(200).collect::<String>()
            ));
        }
    };
    if result.is_ok() {
        then();
    }
    let _ = pty.child.kill();
    let _ = pty.child.wait();
    result
}

fn blitty_attach(bin: &Path, dir: &Path, runs: usize) -> Timing {
    let b = Blitty::new(bin, dir.join("rt-attach"))?;
    // Made in a 200x61 terminal, so the vty is 200x60 (the status row is the 61st).
    let mut made = b.attach_argv("");
    made.truncate(4);
    made.extend(["new", "-d", "-s", "att", "--", "sh", "-c", &screenful()].iter().map(|s| s.to_string()));
    // `new -d` ends at once; it ran in the terminal only for its size.
    let _ = time_until(&made, 200, 61, b"the text that never comes");
    wait_until("the session", || b.ls().contains("att: 1 vty, 200x60"))?;
    let mut v = Vec::new();
    for _ in 0..runs {
        v.push(time_until(&b.attach_argv("att"), 200, 61, b"last-row-marker")?);
    }
    Ok(median_of(v))
}

fn tmux_attach(dir: &Path, runs: usize) -> Timing {
    let conf = tmux_conf(dir, false)?;
    let sock = format!("blitty-bench-sessions-att-{}", std::process::id());
    tmux(&sock, &conf, &["new-session", "-d", "-s", "att", "-x", "200", "-y", "60", &screenful()])?;
    let result = (|| {
        wait_until("the window", || {
            tmux(&sock, &conf, &["capture-pane", "-p", "-t", "att"]).is_ok_and(|p| p.contains("last-row-marker"))
        })?;
        let argv: Vec<String> = ["tmux", "-L", &sock, "attach", "-t", "att"].iter().map(|s| s.to_string()).collect();
        let mut v = Vec::new();
        for _ in 0..runs {
            v.push(time_until(&argv, 200, 60, b"last-row-marker")?);
        }
        Ok(median_of(v))
    })();
    let _ = tmux(&sock, &conf, &["kill-server"]);
    result
}

const TIMEOUT: Duration = Duration::from_secs(300);

fn wait_until(what: &str, mut ok: impl FnMut() -> bool) -> Result<(), String> {
    let deadline = Instant::now() + TIMEOUT;
    while !ok() {
        if Instant::now() > deadline {
            return Err(format!("timed out waiting for {what}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// A blitty server of its own (a runtime directory of its own).
struct Blitty {
    bin: PathBuf,
    rt: PathBuf,
}

impl Blitty {
    fn new(bin: &Path, rt: PathBuf) -> Result<Blitty, String> {
        std::fs::create_dir_all(&rt).map_err(|e| e.to_string())?;
        Ok(Blitty { bin: bin.to_path_buf(), rt })
    }

    fn cmd(&self) -> Command {
        let mut c = Command::new(&self.bin);
        c.env("XDG_RUNTIME_DIR", &self.rt)
            .env("XDG_CONFIG_HOME", &self.rt)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        c
    }

    fn run(&self, args: &[&str]) -> Result<(), String> {
        let out = self.cmd().args(args).output().map_err(|e| e.to_string())?;
        if out.status.success() {
            Ok(())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
        }
    }

    fn ls(&self) -> String {
        self.cmd()
            .arg("ls")
            .stdout(Stdio::piped())
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    }

    fn server_pid(&self) -> Result<u32, String> {
        let socket = self.rt.join("blitty").join("default");
        let out = Command::new("pgrep")
            .args(["-f", &format!("server --socket {}", socket.display())])
            .output()
            .map_err(|e| format!("pgrep: {e}"))?;
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .and_then(|l| l.trim().parse().ok())
            .ok_or("no server process".into())
    }

    fn attach_argv(&self, name: &str) -> Vec<String> {
        vec![
            "env".into(),
            format!("XDG_RUNTIME_DIR={}", self.rt.display()),
            format!("XDG_CONFIG_HOME={}", self.rt.display()),
            self.bin.display().to_string(),
            "attach".into(),
            name.into(),
        ]
    }
}

impl Drop for Blitty {
    /// Ends the server and waits (up to 10 s) until it is gone, so that the next experiment
    /// does not share the cores with its end.
    fn drop(&mut self) {
        if let Ok(pid) = self.server_pid() {
            let _ = Command::new("kill").arg(pid.to_string()).status();
            let deadline = Instant::now() + Duration::from_secs(10);
            while std::path::Path::new(&format!("/proc/{pid}")).exists() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    }
}

fn blitty_flood(bin: &Path, dir: &Path, file: &Path, n: usize) -> Result<Flood, String> {
    let b = Blitty::new(bin, dir.join(format!("rt-flood-{n}")))?;
    b.run(&["new", "-d", "-s", "shown", "--", "sleep", "100000"])?;
    let pid = b.server_pid()?;
    let argv = b.attach_argv("shown");
    let client = std::thread::spawn(move || drained_by(&argv, TIMEOUT, Reader::Plain));
    wait_until("the client to attach", || b.ls().contains("1 client attached"))?;
    let out = dir.join(format!("timing-blitty-{n}"));
    let _ = std::fs::remove_file(&out);
    let cpu0 = cpu_seconds(pid)?;
    b.run(&["new", "-d", "-s", "flood", "--", "sh", "-c", &writer(file, &out)])?;
    wait_until("the flood to end", || out.exists())?;
    // The server has read everything once the flood's session has ended (its program's output
    // is read before it is reaped).
    wait_until("the flood's session to end", || !b.ls().contains("flood:"))?;
    let cpu1 = cpu_seconds(pid)?;
    let seconds = read_seconds(&out).ok_or("no timing")?;
    b.run(&["kill", "shown"])?;
    let _ = client.join();
    let bytes = std::fs::metadata(file).map_err(|e| e.to_string())?.len() as f64;
    Ok(Flood { mbps: bytes / seconds / 1e6, cpu_per_gb: (cpu1 - cpu0) / bytes * 1e9 })
}

fn tmux_conf(dir: &Path, history: bool) -> Result<PathBuf, String> {
    let conf = dir.join(if history { "tmux-history.conf" } else { "tmux.conf" });
    let mut text = String::from("set -g status off\nset -g default-terminal tmux-256color\n");
    if history {
        text.push_str("set -g history-limit 10000\n");
    }
    std::fs::write(&conf, text).map_err(|e| e.to_string())?;
    Ok(conf)
}

fn tmux(sock: &str, conf: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("tmux")
        .args(["-L", sock, "-f", &conf.display().to_string()])
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// A tmux server on `sock` with a session "shown" and a client attached to it (in a pty a plain
/// reader drains): its config, the server's pid and the client's thread.
type Drained = std::thread::JoinHandle<Result<u64, String>>;
fn tmux_attached(dir: &Path, sock: &str) -> Result<(PathBuf, u32, Drained), String> {
    let conf = tmux_conf(dir, false)?;
    tmux(sock, &conf, &["new-session", "-d", "-s", "shown", "-x", "80", "-y", "24", "sleep 100000"])?;
    let attached = (|| {
        let pid: u32 = tmux(sock, &conf, &["display-message", "-p", "#{pid}"])?.parse().map_err(|_| "no tmux pid")?;
        let argv: Vec<String> = ["tmux", "-L", sock, "attach", "-t", "shown"].iter().map(|s| s.to_string()).collect();
        let client = std::thread::spawn(move || drained_by(&argv, TIMEOUT, Reader::Plain));
        wait_until("tmux's client", || tmux(sock, &conf, &["list-clients"]).is_ok_and(|c| !c.is_empty()))?;
        Ok((pid, client))
    })();
    match attached {
        Ok((pid, client)) => Ok((conf, pid, client)),
        Err(e) => {
            let _ = tmux(sock, &conf, &["kill-server"]);
            Err(e)
        }
    }
}

fn tmux_flood(dir: &Path, file: &Path, n: usize) -> Result<Flood, String> {
    let sock = format!("blitty-bench-sessions-{}-{n}", std::process::id());
    let (conf, pid, client) = tmux_attached(dir, &sock)?;
    let result = (|| {
        let out = dir.join(format!("timing-tmux-{n}"));
        let _ = std::fs::remove_file(&out);
        let cpu0 = cpu_seconds(pid)?;
        tmux(&sock, &conf, &["new-window", "-d", "-t", "shown", &writer(file, &out)])?;
        wait_until("the flood to end", || out.exists())?;
        wait_until("the flood's window to close", || {
            tmux(&sock, &conf, &["list-windows", "-t", "shown"]).is_ok_and(|w| w.lines().count() == 1)
        })?;
        let cpu1 = cpu_seconds(pid)?;
        let seconds = read_seconds(&out).ok_or("no timing")?;
        let _ = tmux(&sock, &conf, &["kill-server"]);
        let _ = client.join();
        let bytes = std::fs::metadata(file).map_err(|e| e.to_string())?.len() as f64;
        Ok(Flood { mbps: bytes / seconds / 1e6, cpu_per_gb: (cpu1 - cpu0) / bytes * 1e9 })
    })();
    let _ = tmux(&sock, &conf, &["kill-server"]);
    result
}

/// The engine alone parsing `file` in 64 KiB chunks: MB/s and CPU seconds per GB of this thread.
fn engine_flood(file: &Path) -> Result<Flood, String> {
    let data = std::fs::read(file).map_err(|e| e.to_string())?;
    let mut term = blitty_vt::Terminal::with_scrollback(80, 23, blitty_vt::term::DEFAULT_SCROLLBACK);
    let cpu0 = blitty_os::stats::thread_cpu();
    let t0 = Instant::now();
    for chunk in data.chunks(64 * 1024) {
        term.feed(chunk);
    }
    let secs = t0.elapsed().as_secs_f64();
    let cpu = blitty_os::stats::thread_cpu() - cpu0;
    std::hint::black_box(&term);
    let bytes = data.len() as f64;
    Ok(Flood { mbps: bytes / secs / 1e6, cpu_per_gb: cpu / bytes * 1e9 })
}

/// The serial-lines experiment: `lines` pty pairs opened by one server as serial vtys, each
/// logged, sent `baud`/10 characters a second each for `seconds`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SerialLines {
    pub lines: usize,
    pub baud: u32,
    pub seconds: f64,
    /// Bytes the far ends wrote, and bytes missing or wrong in the logs (or dropped because a
    /// line's buffer was full: the server did not read it in time).
    pub sent: u64,
    pub lost: u64,
    /// The server's CPU over the steady state (a quarter to nine tenths of the time), % of one
    /// core, and the characters a second its logs grew by meanwhile, all lines together.
    pub cpu_percent: f64,
    pub cps: f64,
    /// From the end of sending until every log was complete.
    pub drain_seconds: f64,
}

fn blitty_serial_lines(bin: &Path, dir: &Path, n: usize, baud: u32, seconds: f64) -> Result<SerialLines, String> {
    use crate::common::lines::{lost, open_line, pattern, raise_file_limit, send, Sent};
    raise_file_limit();
    let b = Blitty::new(bin, dir.join("rt-serial"))?;
    let lines = (0..n).map(|_| open_line()).collect::<Result<Vec<_>, _>>()?;
    let logs: Vec<PathBuf> = (0..n).map(|i| dir.join(format!("line{i}.log"))).collect();
    let baud_s = baud.to_string();
    for (i, (l, log)) in lines.iter().zip(&logs).enumerate() {
        let (dev, log) = (l.slave.display().to_string(), log.display().to_string());
        b.run(&["new", "-d", "-s", &format!("l{i}"), "--log", &log, "--serial", &dev, "-b", &baud_s])?;
    }
    let pid = b.server_pid()?;
    let logged = || logs.iter().map(|l| std::fs::metadata(l).map_or(0, |m| m.len())).sum::<u64>();
    let pattern = pattern();
    let mut samples = Vec::new();
    let Sent { sent, written, dropped } = send(&lines, &pattern, baud, seconds, || {
        samples.push((Instant::now(), cpu_seconds(pid).unwrap_or(0.0), logged()));
    });
    let ended = Instant::now();
    let total: u64 = written.iter().sum();
    let deadline = ended + Duration::from_secs(5);
    while logged() < total && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let drain_seconds = ended.elapsed().as_secs_f64();
    let lost = lost(&logs, &pattern, &written, &dropped);
    drop(b);
    for l in &logs {
        let _ = std::fs::remove_file(l);
    }
    let [(t0, c0, b0), (t1, c1, b1)] = samples[..] else { return Err("no samples".into()) };
    let window = (t1 - t0).as_secs_f64().max(1e-3);
    Ok(SerialLines {
        lines: n,
        baud,
        seconds,
        sent: sent.iter().sum(),
        lost,
        cpu_percent: (c1 - c0) / window * 100.0,
        cps: (b1 - b0) as f64 / window,
        drain_seconds,
    })
}

/// A program that fills 10,000 lines of scrollback with 80-column lines, then waits.
fn filler() -> String {
    "yes $(printf '%079d' 0) | head -n 12000; exec sleep 100000".to_string()
}

fn blitty_memory(bin: &Path, dir: &Path, vtys: usize) -> Result<f64, String> {
    let b = Blitty::new(bin, dir.join("rt-memory"))?;
    b.run(&["new", "-d", "-s", "base", "--", "sleep", "100000"])?;
    let pid = b.server_pid()?;
    let base = settled_rss(pid)?;
    for k in 0..vtys {
        b.run(&["new", "-d", "-s", &format!("m{k}"), "--", "sh", "-c", &filler()])?;
    }
    let full = settled_rss(pid)?;
    Ok((full - base) / vtys as f64)
}

fn tmux_memory(dir: &Path, vtys: usize) -> Result<f64, String> {
    let conf = tmux_conf(dir, true)?;
    let sock = format!("blitty-bench-sessions-mem-{}", std::process::id());
    tmux(&sock, &conf, &["new-session", "-d", "-s", "base", "-x", "80", "-y", "24", "sleep 100000"])?;
    let result = (|| {
        let pid: u32 = tmux(&sock, &conf, &["display-message", "-p", "#{pid}"])?.parse().map_err(|_| "no tmux pid")?;
        let base = settled_rss(pid)?;
        for k in 0..vtys {
            tmux(&sock, &conf, &["new-session", "-d", "-s", &format!("m{k}"), "-x", "80", "-y", "24", &filler()])?;
        }
        let full = settled_rss(pid)?;
        Ok((full - base) / vtys as f64)
    })();
    let _ = tmux(&sock, &conf, &["kill-server"]);
    result
}

pub fn run(opts: &Options, mut progress: impl FnMut(&str)) -> Result<Report, String> {
    let dir = std::env::temp_dir().join(format!("blitty-bench-sessions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let (plain_mb, colour_mb, vtys) = if opts.quick { (10, 4, 4) } else { (100, 20, 10) };
    progress("generating files");
    let (plain, colour) = flood_files(&dir, plain_mb, colour_mb, 7)?;
    let files = [plain.clone(), colour.clone()];
    let labels = vec![format!("plain text, {plain_mb} MB"), format!("SGR-dense (256-colour per cell), {colour_mb} MB")];
    let mut rows = Vec::new();

    progress("the engine alone");
    rows.push(Row {
        target: "the engine alone (the floor)".into(),
        floods: files.iter().map(|f| engine_flood(f)).collect(),
        memory: Err("-".into()),
    });
    progress("blitty's server: a flood in a vty no client shows");
    let mut floods = Vec::new();
    for (i, f) in files.iter().enumerate() {
        floods.push(blitty_flood(&opts.blitty, &dir, f, i));
    }
    progress("blitty's server: memory per vty");
    let memory = blitty_memory(&opts.blitty, &dir, vtys);
    rows.push(Row { target: "blitty server, vty not shown".into(), floods, memory });
    type Flooder = fn(&Path, &Path, usize) -> Result<Flood, String>;
    type Counter = fn(&Path, usize) -> Result<f64, String>;
    let peers: [(&str, &str, &str, Flooder, Counter); 2] = [
        ("tmux", "tmux", "tmux", tmux_flood, tmux_memory),
        ("GNU screen", "screen", "screen", screen_peer::flood, screen_peer::memory),
    ];
    for (name, program, package, flood, memory) in peers {
        if !which(program) {
            let missing = format!("not installed (apt-get install {package})");
            rows.push(Row {
                target: name.into(),
                floods: vec![Err(missing.clone()), Err(missing.clone())],
                memory: Err(missing),
            });
            continue;
        }
        progress(&format!("{name}: a flood in a background window"));
        let floods = files.iter().enumerate().map(|(i, f)| flood(&dir, f, i)).collect();
        progress(&format!("{name}: memory per window"));
        let memory = memory(&dir, vtys);
        rows.push(Row { target: format!("{name}, window in the background"), floods, memory });
    }
    // Attaching first: the many vtys' programs take a while to go after their run.
    let runs = if opts.quick { 3 } else { 9 };
    progress("attaching to a 200x60 screen");
    let mut attach = vec![("blitty attach".to_string(), blitty_attach(&opts.blitty, &dir, runs))];
    if which("tmux") {
        attach.push(("tmux attach".to_string(), tmux_attach(&dir, runs)));
    }
    if which("screen") {
        attach.push(("screen -r".to_string(), screen_peer::attach(&dir, runs)));
    }
    // What starting a client costs before it can attach: `blitty --version` in the same pty,
    // until its answer arrives.
    let version = vec![opts.blitty.display().to_string(), "--version".to_string()];
    let start: Timing =
        (0..runs).map(|_| time_until(&version, 200, 61, b"blitty")).collect::<Result<Vec<_>, _>>().map(median_of);
    attach.push(("for scale: starting `blitty --version` (no attach)".to_string(), start));
    let (many, seconds) = if opts.quick { (10, 2.0) } else { (100, 5.0) };
    progress("many vtys printing at once");
    let mixed = dir.join("mixed.txt");
    let mut text = workloads::plain_lines(&mut Rng::new(9), 200_000);
    text.extend(workloads::sgr_256(&mut Rng::new(10), 100_000));
    text.extend(workloads::unicode_mixed(&mut Rng::new(11), 100_000));
    text.extend(workloads::corpus(&mut Rng::new(12), 100_000));
    std::fs::write(&mixed, &text).map_err(|e| e.to_string())?;
    let mut busy = vec![("blitty server".to_string(), blitty_many(opts, &dir, many, seconds, &mixed))];
    if which("tmux") {
        busy.push(("tmux".to_string(), tmux_many(opts, &dir, many, seconds, &mixed)));
    }
    if which("screen") {
        busy.push(("GNU screen".to_string(), screen_peer::many(&opts.lab, &dir, many, seconds, &mixed)));
    }
    let (lines, secs) = if opts.quick { (50, 2.0) } else { (1000, 10.0) };
    progress("serial lines as vtys, each logged");
    let serial = blitty_serial_lines(&opts.blitty, &dir, lines, 115_200, secs);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Report { files: labels, rows, vtys, attach, many, busy, serial })
}

pub fn experiment(ctx: &Context, progress: &mut dyn FnMut(&str)) -> Result<Section, Error> {
    let report = run(&Options { quick: ctx.quick, blitty: ctx.blitty.clone(), lab: ctx.lab.clone() }, progress)?;
    let md = markdown(&report, &ctx.command);
    let json = serde_json::json!({
        "command": ctx.command, "machine": machine(), "files": report.files, "vtys": report.vtys,
        "many_vtys": report.many,
        "serial_lines": match &report.serial { Ok(l) => serde_json::json!(l), Err(e) => serde_json::json!({"error": e}) },
        "busy_cpu_percent": report.busy.iter().map(|(t, c)| match c {
            Ok(c) => serde_json::json!({"target": t, "cpu_percent": c}),
            Err(e) => serde_json::json!({"target": t, "error": e}),
        }).collect::<Vec<_>>(),
        "attach_ms": report.attach.iter().map(|(t, r)| match r {
            Ok((m, v)) => serde_json::json!({"target": t, "median": m, "samples": v}),
            Err(e) => serde_json::json!({"target": t, "error": e}),
        }).collect::<Vec<_>>(),
        "rows": report.rows.iter().map(|r| serde_json::json!({
            "target": r.target,
            "floods": r.floods.iter().map(|f| match f { Ok(f) => serde_json::json!(f), Err(e) => serde_json::json!({"error": e}) }).collect::<Vec<_>>(),
            "memory_mb_per_vty": match &r.memory { Ok(m) => serde_json::json!(m), Err(e) => serde_json::json!({"error": e}) },
        })).collect::<Vec<_>>(),
    });
    Ok(Section { name: "sessions", markdown: md, json })
}

fn markdown(r: &Report, command: &str) -> String {
    let mut s = header("sessions: a flood in a vty no client shows, and memory per vty", command, false);
    let _ = writeln!(
        s,
        "A client is attached (in a pty a plain reader drains) and shows another vty; the flood is `cat` timed by the writer; CPU is the server's whole process. Memory: resident memory with {} vtys each holding 10,000 lines of 80 columns in their scrollback, less the server's with one idle vty, over {}.  \n",
        r.vtys, r.vtys
    );
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN);
    let mut head = vec!["target".to_string()];
    for f in &r.files {
        head.push(format!("{f}: MB/s"));
        head.push(format!("{f}: CPU s per GB"));
    }
    head.push("MB per vty".into());
    t.set_header(head);
    for row in &r.rows {
        let mut cells = vec![row.target.clone()];
        for f in &row.floods {
            match f {
                Ok(f) => {
                    cells.push(format!("{:.0}", f.mbps));
                    cells.push(format!("{:.2}", f.cpu_per_gb));
                }
                Err(e) => {
                    cells.push(e.clone());
                    cells.push("-".into());
                }
            }
        }
        cells.push(match &row.memory {
            Ok(m) => format!("{m:.2}"),
            Err(e) => e.clone(),
        });
        t.add_row(cells);
    }
    let _ = writeln!(s, "{t}\n");
    let find = |name: &str| r.rows.iter().find(|row| row.target.starts_with(name));
    if let (Some(b), Some(e)) = (find("blitty"), find("the engine")) {
        for (i, label) in r.files.iter().enumerate() {
            if let (Ok(bf), Ok(ef)) = (&b.floods[i], &e.floods[i]) {
                let _ = write!(
                    s,
                    "On {label}, the server spends {:.2} CPU s per GB on a vty no client shows; the engine alone {:.2} ({:.0}% more: the server reads the pty a few KiB per system call, and polls between reads).",
                    bf.cpu_per_gb,
                    ef.cpu_per_gb,
                    100.0 * (bf.cpu_per_gb / ef.cpu_per_gb - 1.0)
                );
                for (peer, name) in [("tmux,", "tmux"), ("GNU screen,", "GNU screen")] {
                    if let Some(Ok(tf)) = find(peer).map(|t| &t.floods[i]) {
                        let _ = write!(
                            s,
                            " {name} spends {:.2} ({:.1}x blitty's); the writer ran at {:.0} MB/s through blitty, {:.0} through {name} ({:.1}x).",
                            tf.cpu_per_gb,
                            tf.cpu_per_gb / bf.cpu_per_gb,
                            bf.mbps,
                            tf.mbps,
                            bf.mbps / tf.mbps
                        );
                    }
                }
                let _ = writeln!(s, "  ");
            }
        }
        for (peer, name) in [("tmux,", "tmux"), ("GNU screen,", "GNU screen")] {
            if let (Ok(bm), Some(Ok(tm))) = (&b.memory, find(peer).map(|t| &t.memory)) {
                let _ = writeln!(
                    s,
                    "Memory per vty: blitty {bm:.2} MB, {name} {tm:.2} MB ({:.0}% of {name}'s).  ",
                    100.0 * bm / tm
                );
            }
        }
    }
    let _ = writeln!(
        s,
        "\n| attach to a 200x60 screen, until its last row is in the terminal | median ms | samples ms |\n|---|---|---|"
    );
    for (target, r) in &r.attach {
        match r {
            Ok((m, v)) => {
                let samples: Vec<String> = v.iter().map(|x| format!("{x:.1}")).collect();
                let _ = writeln!(s, "| {target} | {m:.1} | {} |", samples.join(" "));
            }
            Err(e) => {
                let _ = writeln!(s, "| {target} | {e} | |");
            }
        }
    }
    let _ = writeln!(s, "\nThe time includes starting the client program, connecting and the hello.  ");
    let _ = writeln!(
        s,
        "\n| {} vtys each printing {} MB/s of mixed text (plain, colour, Unicode, the corpus), one other shown | server CPU, % of one core |\n|---|---|",
        r.many,
        RATE / 1_000_000
    );
    for (target, c) in &r.busy {
        match c {
            Ok(c) => {
                let _ = writeln!(s, "| {target} | {c:.0}% |");
            }
            Err(e) => {
                let _ = writeln!(s, "| {target} | {e} |");
            }
        }
    }
    let _ = writeln!(
        s,
        "\n| serial lines (pty pairs) as vtys of one server, each logged | baud | seconds | bytes sent | bytes lost | server CPU, % of one core | characters/s logged | last byte logged after |\n|---|---|---|---|---|---|---|---|"
    );
    match &r.serial {
        Ok(l) => {
            let _ = writeln!(
                s,
                "| {} | {} | {:.0} | {} | {} | {:.0}% | {:.0} ({:.0}% of the lines' rate) | {:.2} s |",
                l.lines,
                l.baud,
                l.seconds,
                l.sent,
                l.lost,
                l.cpu_percent,
                l.cps,
                100.0 * l.cps / (l.lines as f64 * l.baud as f64 / 10.0),
                l.drain_seconds
            );
        }
        Err(e) => {
            let _ = writeln!(s, "| {e} | | | | | | | |");
        }
    }
    s
}
