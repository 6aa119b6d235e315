//! `blitty bench ports` (the multi-port serial tuning guide): many virtual serial lines received at once.
//!
//! Each line is a pty pair. The bench holds the masters and plays the far ends: one thread
//! writes each line's share every 20 ms at baud/10 bytes a second, without blocking; what a
//! line cannot take at that moment is dropped and counted as lost, as a UART without flow
//! control loses it (the lines and their far ends are `common::lines`, which `bench sessions`
//! feeds its serial vtys with too). The receiver runs in a child process (`blitty-lab probe
//! ports-recv`), so its CPU time (user and system, all its threads) is its own:
//! - blitty: `crate::ports::Receiver`, one thread for all ports, VMIN/VTIME tuned, an
//!   engine per port, a capture file per port;
//! - picocom and tio: a process per line, each with a pty of its own as its terminal, logging
//!   to the capture file (their CPU and read() calls come from /proc);
//! - threads 4K: a thread per port, VMIN 1, 4 KiB read()s each written to the capture file
//!   (picocom's way, in one process);
//! - naive 1-byte: a thread per port, VMIN 1, read() of one byte at a time into a buffered
//!   capture file (no engine: it does less work than blitty per byte).
//!
//! A trial sends for a few seconds, waits until the receiver has everything (at most 5 s
//! more), then checks every capture file against what was sent. A line count is "sustained at
//! line speed" when nothing was lost, the effective baud rate over the sending time's steady
//! state (from a quarter of it to nine tenths, sampled by the receiver with its CPU time) is at
//! least 95% of the line's, and the last byte arrived within 0.5 s of the end. For
//! each baud rate the bench tries 1, 4, 16, 64, 250, 1,000, 2,000 and 4,000 lines (as many as
//! the machine's ptys and open-file limit allow) and stops at the first count that fails.

use std::fmt::Write as _;

use comfy_table::{presets::ASCII_MARKDOWN, Table};

use crate::charts;
use crate::common::lines::{lost, open_line, pattern, raise_file_limit, send, Line, Sent};
use crate::common::programs::which;
use crate::report::{header, machine, Context, Error, Section};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

pub struct Options {
    pub quick: bool,
    /// The lab, whose `probe ports-recv` runs each receiver in a process of its own.
    pub lab: PathBuf,
}

/// The receivers, in the order the tables list them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Mode {
    /// `crate::ports::Receiver`: one thread for every line.
    Blitty,
    /// picocom, one process per line with its own pty as its terminal, logging to a file.
    Picocom,
    /// tio, likewise.
    Tio,
    /// A thread per line, VMIN 1, 4 KiB read()s, each written to the capture file: what
    /// picocom does, in one process.
    Threads,
    /// A thread per line, VMIN 1, 1-byte read()s into a buffered capture file (a strawman: no
    /// serial program reads one byte at a time).
    Naive,
}

impl Mode {
    pub const ALL: [Mode; 5] = [Mode::Blitty, Mode::Picocom, Mode::Tio, Mode::Threads, Mode::Naive];

    pub fn name(self) -> &'static str {
        match self {
            Mode::Blitty => "blitty",
            Mode::Picocom => "picocom",
            Mode::Tio => "tio",
            Mode::Threads => "threads 4K",
            Mode::Naive => "naive 1-byte",
        }
    }

    /// The word `probe ports-recv` takes.
    fn keyword(self) -> &'static str {
        match self {
            Mode::Blitty => "blitty",
            Mode::Picocom => "picocom",
            Mode::Tio => "tio",
            Mode::Threads => "threads",
            Mode::Naive => "naive",
        }
    }

    /// Why it cannot run here (a program that is not installed).
    fn missing(self) -> Option<String> {
        let program = match self {
            Mode::Picocom => "picocom",
            Mode::Tio => "tio",
            _ => return None,
        };
        (!which(program)).then(|| format!("not installed (apt-get install {program})"))
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Trial {
    pub ports: usize,
    pub baud: u32,
    /// Characters received per second, all lines together.
    pub cps: f64,
    /// 10 x cps / ports.
    pub effective_baud: f64,
    /// The receiver's CPU time over the trial, as % of one core.
    pub cpu_percent: f64,
    pub lost: u64,
    pub sent: u64,
    /// The receiver's read() calls over the trial (blitty: those that returned data).
    pub reads: Option<u64>,
    /// From the end of sending until the receiver had every byte.
    pub drain_seconds: f64,
    pub sustained: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub baud: u32,
    pub mode: Mode,
    /// The largest count sustained at line speed, and the count that failed after it.
    pub best: Option<Trial>,
    pub failed: Option<Trial>,
    pub error: Option<String>,
    /// The largest count on the ladder (the machine's ptys and open files allowing).
    pub most_tried: usize,
    /// Every count tried, in order.
    pub trials: Vec<Trial>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub quick: bool,
    pub seconds: f64,
    pub rows: Vec<Row>,
    pub pty_max: Option<u64>,
}

/// A count is sustained when the steady-state rate is at least this fraction of the line's
/// (the samples are instants, each within one 20 ms sending burst of the truth: about 2% of
/// a 1 s window, so 95% and not more), nothing was lost, and the receiver had everything
/// within MAX_DRAIN of the end (a receiver falling behind builds a backlog that takes longer).
pub const THRESHOLD: f64 = 0.95;
pub const MAX_DRAIN: f64 = 0.5;

/// This process's CPU seconds (user + system, all threads).
pub fn cpu_seconds() -> f64 {
    // SAFETY: getrusage fills one rusage struct we own.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

fn trial(opts: &Options, mode: Mode, ports: usize, baud: u32, seconds: f64, dir: &Path) -> Result<Trial, String> {
    let lines: Vec<Line> = (0..ports).map(|_| open_line()).collect::<Result<_, _>>()?;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let captures: Vec<PathBuf> = (0..ports).map(|i| dir.join(format!("port{i}.cap"))).collect();
    let list = dir.join("ports.list");
    let text: String =
        lines.iter().zip(&captures).map(|(l, c)| format!("{}\t{}\n", l.slave.display(), c.display())).collect();
    std::fs::write(&list, text).map_err(|e| format!("cannot write {}: {e}", list.display()))?;
    let mut child = Command::new(&opts.lab)
        .args(["probe", "ports-recv", mode.keyword(), &baud.to_string()])
        .arg(&list)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start the receiver: {e}"))?;
    let mut to = child.stdin.take().ok_or("no stdin")?;
    let mut from = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let mut answer = String::new();
    let mut ask = |q: &str, to: &mut std::process::ChildStdin| -> Result<String, String> {
        if !q.is_empty() {
            writeln!(to, "{q}").map_err(|e| format!("the receiver is gone: {e}"))?;
        }
        answer.clear();
        from.read_line(&mut answer).map_err(|e| format!("the receiver is gone: {e}"))?;
        if answer.is_empty() {
            return Err("the receiver ended early".into());
        }
        Ok(answer.trim().to_string())
    };
    let ready = ask("", &mut to)?;
    if ready != "ready" {
        let _ = child.kill();
        return Err(format!("the receiver said {ready:?}"));
    }

    let pattern = pattern();
    // Throughput and CPU are sampled by the receiver at a quarter and at nine tenths of the
    // sending time: the steady state, without the start-up and the last bytes. Both samples
    // are taken while the lines still send, so the receiver's delay in answering (up to one of
    // its ticks) counts the same at both ends.
    let mut mark_err = Ok(());
    let Sent { sent, written, dropped } = send(&lines, &pattern, baud, seconds, || {
        if mark_err.is_ok() {
            mark_err = writeln!(to, "total").map_err(|e| format!("the receiver is gone: {e}"));
        }
    });
    mark_err?;
    // "total BYTES CLOCK CPU": bytes received, the monotonic clock and the receiver's CPU
    // seconds, all taken by the receiver when it answers.
    let sample = |answer: String| -> Result<[f64; 3], String> {
        let v: Vec<f64> = answer.split_whitespace().skip(1).filter_map(|w| w.parse().ok()).collect();
        match v[..] {
            [bytes, clock, cpu] if answer.starts_with("total ") => Ok([bytes, clock, cpu]),
            _ => Err(format!("the receiver said {answer:?}")),
        }
    };
    let first = sample(ask("", &mut to)?)?;
    let last = sample(ask("", &mut to)?)?;
    let total_written: u64 = written.iter().sum();
    let ended = Instant::now();
    let deadline = ended + Duration::from_secs(5);
    loop {
        let got = sample(ask("total", &mut to)?)?[0] as u64;
        if got >= total_written || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let drain = ended.elapsed().as_secs_f64();
    let done = ask("stop", &mut to)?;
    let mut words = done.split_whitespace();
    let reads = match (words.next(), words.next()) {
        (Some("done"), Some(reads)) => reads.parse::<u64>().ok(),
        _ => return Err(format!("the receiver said {done:?}")),
    };
    let window = (last[1] - first[1]).max(1e-3);
    let (agg, cpu) = ((last[0] - first[0]) / window, (last[2] - first[2]) / window);
    let _ = child.wait();
    drop(lines);

    let lost = lost(&captures, &pattern, &written, &dropped);
    let _ = std::fs::remove_dir_all(dir);
    let effective_baud = agg * 10.0 / ports as f64;
    Ok(Trial {
        ports,
        baud,
        cps: agg,
        effective_baud,
        cpu_percent: 100.0 * cpu,
        lost,
        sent: sent.iter().sum(),
        reads,
        drain_seconds: drain,
        sustained: lost == 0 && effective_baud >= THRESHOLD * baud as f64 && drain <= MAX_DRAIN,
    })
}

pub fn run(opts: &Options, mut progress: impl FnMut(&str)) -> Result<Report, String> {
    raise_file_limit();
    let (bauds, seconds): (&[u32], f64) =
        if opts.quick { (&[115_200], 1.0) } else { (&[9600, 19_200, 38_400, 115_200, 921_600], 1.5) };
    // Up to 4,000 lines where the machine allows them: ptys free (a line is one) and open
    // files (the receiver holds a line and a capture file for each).
    let pty = |f: &str| std::fs::read_to_string(format!("/proc/sys/kernel/pty/{f}")).ok()?.trim().parse::<usize>().ok();
    let free_ptys = pty("max").unwrap_or(4096).saturating_sub(pty("nr").unwrap_or(0) + 32);
    // SAFETY: getrlimit fills one rlimit struct we own.
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) };
    let files = (lim.rlim_cur as usize).saturating_sub(64) / 2;
    let ladder: Vec<usize> =
        [1, 4, 16, 64, 250, 1000, 2000, 4000].into_iter().filter(|&n| n <= free_ptys && n <= files).collect();
    let dir = std::env::temp_dir().join(format!("blitty-ports-{}", std::process::id()));
    let mut rows = Vec::new();
    for &baud in bauds {
        for mode in Mode::ALL {
            let mut row = Row { baud, mode, best: None, failed: None, error: None, most_tried: 0, trials: Vec::new() };
            if let Some(why) = mode.missing() {
                row.error = Some(why);
                rows.push(row);
                continue;
            }
            // Quick mode goes straight to the target for blitty. The programs run one process
            // and two ptys per line: their ladder stops at 1,000.
            let rungs: Vec<usize> = if opts.quick && mode == Mode::Blitty {
                vec![1000]
            } else if opts.quick {
                vec![4, 16, 64]
            } else if matches!(mode, Mode::Picocom | Mode::Tio) {
                ladder.iter().copied().filter(|&n| n <= 1000 && 2 * n <= free_ptys).collect()
            } else {
                ladder.clone()
            };
            row.most_tried = rungs.iter().copied().max().unwrap_or(0);
            for n in rungs {
                progress(&format!("ports: {} receiving {n} lines at {baud} baud", mode.name()));
                match trial(opts, mode, n, baud, seconds, &dir) {
                    Ok(t) if t.sustained => {
                        row.trials.push(t.clone());
                        row.best = Some(t);
                    }
                    Ok(t) => {
                        row.trials.push(t.clone());
                        row.failed = Some(t);
                        break;
                    }
                    Err(e) => {
                        row.error = Some(e);
                        break;
                    }
                }
            }
            rows.push(row);
        }
    }
    let pty_max = std::fs::read_to_string("/proc/sys/kernel/pty/max").ok().and_then(|s| s.trim().parse().ok());
    Ok(Report { quick: opts.quick, seconds, rows, pty_max })
}

/// The receiving side, in the child: `ports-recv MODE BAUD LIST`. Prints `ready` once every
/// port is open; answers `total` with the bytes received so far; on `stop` takes the last
/// bytes, prints `done CPU_SECONDS READS` and returns.
pub fn receive(mode: &str, baud: &str, list: &str) -> Result<(), String> {
    raise_file_limit();
    let baud: u32 = baud.parse().map_err(|_| format!("bad baud rate {baud:?}"))?;
    let text = std::fs::read_to_string(list).map_err(|e| format!("cannot read {list}: {e}"))?;
    let mut paths = Vec::new();
    let mut captures = Vec::new();
    for line in text.lines() {
        let (p, c) = line.split_once('\t').ok_or_else(|| format!("bad line in {list}: {line:?}"))?;
        paths.push(PathBuf::from(p));
        captures.push(PathBuf::from(c));
    }
    let settings = blitty_serial::settings::Settings { baud, ..Default::default() };
    match mode {
        "blitty" => receive_blitty(&paths, &captures, &settings),
        "naive" => receive_threads(&paths, &captures, &settings, 1),
        "threads" => receive_threads(&paths, &captures, &settings, 4096),
        "picocom" | "tio" => receive_program(mode, &paths, &captures, baud),
        _ => Err(format!("unknown receiver {mode:?}")),
    }
}

fn say(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}").and_then(|_| out.flush()).map_err(|e| e.to_string())
}

/// The answer to `total`: bytes so far, the monotonic clock, this process's CPU seconds.
fn total(bytes: u64) -> String {
    total_with(bytes, cpu_seconds())
}

/// The answer to `total` with the receiver's CPU seconds `cpu`.
fn total_with(bytes: u64, cpu: f64) -> String {
    // SAFETY: clock_gettime fills one timespec we own.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    format!("total {bytes} {:.6} {cpu:.6}", ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9)
}

/// Reads one command from standard input (blocking: it is only called when input is ready).
fn command() -> String {
    let mut line = String::new();
    let _ = std::io::stdin().lock().read_line(&mut line);
    line.trim().to_string()
}

fn receive_blitty(
    paths: &[PathBuf],
    captures: &[PathBuf],
    settings: &blitty_serial::settings::Settings,
) -> Result<(), String> {
    let mut rx = crate::ports::Receiver::open(paths, captures, settings).map_err(|e| e.to_string())?;
    let stdin = std::io::stdin();
    rx.watch(std::os::fd::AsFd::as_fd(&stdin)).map_err(|e| e.to_string())?;
    say("ready")?;
    loop {
        if rx.step().map_err(|e| e.to_string())? {
            match command().as_str() {
                "total" => {
                    // Everything the lines hold now, so the count does not depend on where
                    // each line is against VMIN.
                    rx.sweep_all().map_err(|e| e.to_string())?;
                    say(&total(rx.totals().iter().sum::<u64>()))?
                }
                _ => {
                    rx.sweep_all().map_err(|e| e.to_string())?;
                    return say(&format!("done {}", rx.reads));
                }
            }
        }
    }
}

extern "C" fn wake(_: libc::c_int) {}

/// A thread per line, VMIN 1, blocking read()s of `size` bytes: with 1, each byte goes into a
/// buffered capture file (the naive reader); larger, each read is written to the capture file
/// as it comes (what picocom does with its log).
fn receive_threads(
    paths: &[PathBuf],
    captures: &[PathBuf],
    settings: &blitty_serial::settings::Settings,
    size: usize,
) -> Result<(), String> {
    use std::os::unix::thread::JoinHandleExt;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Arc;
    // SIGUSR1 interrupts a blocked read (no SA_RESTART), so a thread can be told to stop.
    // SAFETY: installs a handler that does nothing, with a zeroed sigaction we own.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = wake as *const () as usize;
        libc::sigaction(libc::SIGUSR1, &sa, std::ptr::null_mut());
    }
    let stop = Arc::new(AtomicBool::new(false));
    let counter = Arc::new(AtomicU64::new(0));
    let read_calls = Arc::new(AtomicU64::new(0));
    let line = blitty_serial::settings::Settings { vmin: 1, vtime: 0, ..*settings };
    let mut threads = Vec::new();
    for (path, capture) in paths.iter().zip(captures) {
        let fd = blitty_serial::settings::open(path).map_err(|e| e.to_string())?;
        blitty_serial::settings::configure(&fd, path, &line).map_err(|e| e.to_string())?;
        rustix::fs::fcntl_setfl(&fd, rustix::fs::OFlags::empty()).map_err(|e| e.to_string())?;
        let file = std::fs::File::create(capture).map_err(|e| format!("{}: {e}", capture.display()))?;
        let (stop, total, reads) = (stop.clone(), counter.clone(), read_calls.clone());
        let t = std::thread::Builder::new()
            .stack_size(64 << 10)
            .spawn(move || {
                let mut out = std::io::BufWriter::with_capacity(if size == 1 { 64 << 10 } else { 0 }, file);
                let mut b = vec![0u8; size];
                loop {
                    match rustix::io::read(&fd, &mut b) {
                        Ok(n @ 1..) => {
                            let _ = out.write_all(&b[..n]);
                            if size > 1 {
                                let _ = out.flush();
                            }
                            total.fetch_add(n as u64, Ordering::Relaxed);
                            reads.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(rustix::io::Errno::INTR) if !stop.load(Ordering::Relaxed) => {}
                        _ => break,
                    }
                }
                let _ = out.flush();
            })
            .map_err(|e| format!("cannot start a thread: {e}"))?;
        threads.push(t);
    }
    say("ready")?;
    while command() == "total" {
        say(&total(counter.load(Ordering::Relaxed)))?;
    }
    // What is still in the lines is taken before the threads stop.
    std::thread::sleep(Duration::from_millis(50));
    stop.store(true, Ordering::Relaxed);
    while threads.iter().any(|t| !t.is_finished()) {
        for t in threads.iter().filter(|t| !t.is_finished()) {
            // SAFETY: the thread is alive (not finished, not joined), so its pthread_t is valid.
            unsafe { libc::pthread_kill(t.as_pthread_t(), libc::SIGUSR1) };
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    for t in threads {
        let _ = t.join();
    }
    say(&format!("done {}", read_calls.load(Ordering::Relaxed)))
}

/// A process's counters: bytes its read()s returned (every descriptor's), its read() calls,
/// and the CPU seconds of all its threads (schedstat, to the nanosecond).
fn process_counters(pid: u32) -> (u64, u64, f64) {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap_or_default();
    let get = |k: &str| io.lines().find_map(|l| l.strip_prefix(k)).and_then(|v| v.trim().parse().ok()).unwrap_or(0);
    let mut cpu = 0.0;
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).into_iter().flatten().flatten() {
        if let Ok(st) = std::fs::read_to_string(task.path().join("schedstat")) {
            cpu += st.split_whitespace().next().and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0) / 1e9;
        }
    }
    (get("rchar:"), get("syscr:"), cpu)
}

/// picocom or tio on every line, each a process of its own with a pty of its own as its terminal
/// (what the terminal would show is read and dropped by one thread here, as a terminal that
/// draws nothing), logging what it receives to the capture file. Bytes received are what the
/// logs hold; read() calls and CPU come from /proc and are theirs, not this process's.
fn receive_program(program: &str, paths: &[PathBuf], captures: &[PathBuf], baud: u32) -> Result<(), String> {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let mut children = Vec::new();
    let mut terminals = Vec::new();
    let result = (|| {
        for (path, capture) in paths.iter().zip(captures) {
            let (master, slave) = blitty_os::pty::pair().map_err(|e| format!("cannot open a pty: {e}"))?;
            let slave = rustix::fs::open(
                &slave,
                rustix::fs::OFlags::RDWR | rustix::fs::OFlags::NOCTTY,
                rustix::fs::Mode::empty(),
            )
            .map_err(|e| format!("cannot open a pty: {e}"))?;
            let b = baud.to_string();
            let (line, log) = (path.display().to_string(), capture.display().to_string());
            let args: Vec<&str> = match program {
                "picocom" => vec!["-b", &b, "-q", "--noreset", "-g", &log, &line],
                _ => vec!["-b", &b, "--mute", "-l", "--log-file", &log, &line],
            };
            let mut cmd = Command::new(program);
            // A session of its own with its pty as the controlling terminal, as a terminal
            // window gives the program it starts (and so that no signal it sends to its
            // process group reaches the bench).
            // SAFETY: setsid and ioctl(TIOCSCTTY) are async-signal-safe; nothing else runs
            // between fork and exec.
            unsafe {
                use std::os::unix::process::CommandExt;
                cmd.pre_exec(|| {
                    rustix::process::setsid()?;
                    rustix::process::ioctl_tiocsctty(rustix::stdio::stdin())?;
                    Ok(())
                });
            }
            let child = cmd
                .args(&args)
                .env("TERM", "xterm-256color")
                .env("HOME", std::env::temp_dir())
                .stdin(Stdio::from(slave.try_clone().map_err(|e| e.to_string())?))
                .stdout(Stdio::from(slave.try_clone().map_err(|e| e.to_string())?))
                .stderr(Stdio::from(slave))
                .spawn()
                .map_err(|e| format!("cannot start {program}: {e}"))?;
            children.push(child);
            // Drained without blocking: one quiet terminal must not hold up the others.
            rustix::fs::fcntl_setfl(&master, rustix::fs::OFlags::NONBLOCK).map_err(|e| e.to_string())?;
            terminals.push(master);
        }
        Ok::<(), String>(())
    })();
    // The keys a user quits with, typed on each program's terminal: picocom's C-a C-x, tio's
    // C-t q. Both then close their log as they do for a user.
    let quit_keys: &[u8] = if program == "picocom" { b"\x01\x18" } else { b"\x14q" };
    let keyboards: Vec<std::os::fd::OwnedFd> = terminals.iter().filter_map(|m| m.try_clone().ok()).collect();
    let stop = Arc::new(AtomicBool::new(false));
    let drain = {
        let stop = Arc::clone(&stop);
        let terminals = std::mem::take(&mut terminals);
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 1 << 16];
            while !stop.load(Ordering::Relaxed) {
                let mut fds: Vec<_> =
                    terminals.iter().map(|m| rustix::event::PollFd::new(m, rustix::event::PollFlags::IN)).collect();
                let ts = rustix::event::Timespec { tv_sec: 0, tv_nsec: 20_000_000 };
                let _ = rustix::event::poll(&mut fds, Some(&ts));
                let ready: Vec<usize> =
                    fds.iter().enumerate().filter(|(_, f)| !f.revents().is_empty()).map(|(i, _)| i).collect();
                for i in ready {
                    while let Ok(1..) = rustix::io::read(&terminals[i], &mut buf) {}
                }
            }
        })
    };
    let end = |children: &mut Vec<std::process::Child>| {
        for k in &keyboards {
            let _ = rustix::io::write(k, quit_keys);
        }
        // A program that does not quit within 5 s is terminated.
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline && children.iter_mut().any(|c| c.try_wait().ok().flatten().is_none()) {
            std::thread::sleep(Duration::from_millis(10));
        }
        for c in children.iter_mut() {
            if c.try_wait().ok().flatten().is_none() {
                let _ = Command::new("kill").args(["-TERM", &c.id().to_string()]).status();
            }
            let _ = c.wait();
        }
    };
    if let Err(e) = result {
        end(&mut children);
        stop.store(true, Ordering::Relaxed);
        let _ = drain.join();
        return Err(e);
    }
    // Ready once every program has its log open (each creates it when it has opened its line).
    let deadline = Instant::now() + Duration::from_secs(20);
    while !captures.iter().all(|c| c.exists()) {
        if Instant::now() > deadline || children.iter_mut().any(|c| c.try_wait().ok().flatten().is_some()) {
            end(&mut children);
            stop.store(true, Ordering::Relaxed);
            let _ = drain.join();
            return Err(format!("{program} did not open every line"));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    // Read calls and CPU from /proc; bytes received are what the logs hold (their read()
    // counts in /proc include more than the line: tio's exceed the line rate).
    let counters = |children: &[std::process::Child]| {
        children.iter().map(|c| process_counters(c.id())).fold((0, 0.0), |a, c| (a.0 + c.1, a.1 + c.2))
    };
    let logged = || captures.iter().map(|c| std::fs::metadata(c).map_or(0, |m| m.len())).sum::<u64>();
    let start = counters(&children);
    say("ready")?;
    while command() == "total" {
        let now = counters(&children);
        say(&total_with(logged(), now.1))?;
    }
    let last = counters(&children);
    end(&mut children);
    stop.store(true, Ordering::Relaxed);
    let _ = drain.join();
    say(&format!("done {}", last.0 - start.0))
}

/// `bench ports`: the ladder of line counts, its table, chart and verdicts.
pub fn experiment(ctx: &Context, progress: &mut dyn FnMut(&str)) -> Result<Section, Error> {
    let report = run(&Options { quick: ctx.quick, lab: ctx.lab.clone() }, &mut *progress)?;
    let md = ports_markdown(&report, &ctx.command);
    let j = serde_json::json!({"command": ctx.command, "machine": machine(), "report": report});
    let bauds: Vec<u32> =
        report.rows.iter().map(|r| r.baud).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    let groups: Vec<String> = bauds.iter().map(|b| format!("{b} baud")).collect();
    let series = charts::series(Mode::ALL.iter().map(|m| m.name().to_string()), &bauds, |b, k| {
        report
            .rows
            .iter()
            .find(|r| r.baud == *b && r.mode == Mode::ALL[k])
            .and_then(|r| r.best.as_ref())
            .map(|t| t.ports as f64)
    });
    charts::bars(&ctx.out.join("ports.svg"), "Lines received at line speed, losslessly", "lines", &groups, &series)?;
    Ok(Section { name: "ports", markdown: md, json: j })
}

/// One adapter's receive figures in the multi-port serial tuning guide: max ports, char/s, effective Kb/s, CPU %.
type SeedFigures = (u32, u32, f64, u32);

/// The multi-port serial tuning guide's receive figures by baud rate, for the 8/16-port, 64-port and 128-port adapters.
const SEED_RECEIVE: [(u32, [SeedFigures; 3]); 3] = [
    (9600, [(12, 11_500, 9.6, 96), (20, 19_200, 9.6, 99), (128, 122_700, 9.6, 27)]),
    (19_200, [(6, 11_090, 18.5, 93), (10, 18_000, 18.0, 92), (128, 245_900, 19.2, 39)]),
    (38_400, [(4, 10_550, 26.4, 98), (7, 15_750, 22.5, 81), (75, 255_600, 34.0, 37)]),
];

fn ports_markdown(r: &Report, command: &str) -> String {
    let mut s =
        header("ports: many serial lines received at once (the multi-port serial tuning guide)", command, false);
    let _ = writeln!(
        s,
        "lines: pty pairs; each far end sends baud/10 characters a second in 20 ms bursts without waiting (what a line cannot take is lost), for {} s; {}, stopping at the first count not sustained (bytes lost, an effective baud rate under 95% of the line's, or more than 0.5 s after the end until the receiver had every byte). Characters per second, effective baud and CPU are the steady state: sampled by the receiver at a quarter and at nine tenths of the sending time, while the lines send. Receivers run in their own process; CPU is theirs (user + system, % of one core). blitty: one thread, VMIN/VTIME tuned, an engine and a capture file per line. picocom and tio: one process per line, each with a pty of its own as its terminal (drained and dropped), logging to a capture file; their bytes are what the logs hold, their read() calls and CPU come from /proc. threads 4K: a thread per line, VMIN 1, 4 KiB read()s each written to the capture file (picocom's way, in one process). naive 1-byte: a thread per line, 1-byte read()s into a buffered file (no real program reads so). read() per KB counts every read() call of the trial over the bytes sent. Seed figures: AIX 3.2 on an RS/6000 Model 530, receive, from the multi-port serial tuning guide's table.  ",
        r.seconds,
        if r.quick {
            "quick mode: 115200 baud only, blitty tried at 1000 lines, the others at 4, 16, 64"
        } else {
            "tried 1, 4, 16, 64, 250, 1000, 2000, 4000 lines per baud rate (as many as the machine's ptys and open files allow; picocom and tio up to 1000)"
        }
    );
    if let Some(max) = r.pty_max {
        let _ = writeln!(s, "ptys allowed on this machine: {max}  ");
    }
    let _ = writeln!(s);
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN);
    let mut head = vec!["line speed".to_string(), String::new()];
    head.extend(Mode::ALL.iter().map(|m| m.name().to_string()));
    head.extend(["seed 8/16-port".into(), "seed 64-port".into(), "seed 128-port".into()]);
    t.set_header(head);
    let bauds: std::collections::BTreeSet<u32> = r.rows.iter().map(|x| x.baud).collect();
    let find = |b: u32, m: Mode| r.rows.iter().find(|x| x.baud == b && x.mode == m);
    let cell = |row: Option<&Row>, f: &dyn Fn(&Trial) -> String| -> String {
        match row {
            None => "-".into(),
            Some(x) => match (&x.best, &x.error, &x.failed) {
                (Some(b), _, _) => f(b),
                (None, Some(e), _) => format!("error: {e}"),
                (None, None, Some(fail)) => format!("none sustained ({} lines: {})", fail.ports, f(fail)),
                _ => "-".into(),
            },
        }
    };
    for b in &bauds {
        let modes: Vec<Option<&Row>> = Mode::ALL.iter().map(|&m| find(*b, m)).collect();
        let seed = SEED_RECEIVE.iter().find(|(sb, _)| sb == b).map(|(_, v)| v);
        let seeds = |f: &dyn Fn(&SeedFigures) -> String| -> Vec<String> {
            (0..3).map(|k| seed.map_or("-".into(), |v| f(&v[k]))).collect()
        };
        let max_cell = |row: Option<&Row>| match row.and_then(|r| r.best.as_ref().map(|b| (r, b))) {
            Some((r, b)) => format!("{}{}", b.ports, if b.ports == r.most_tried { " (most tried)" } else { "" }),
            None => cell(row, &|x| x.ports.to_string()),
        };
        let mut first = vec![format!("{b} baud"), "max ports".into()];
        first.extend(modes.iter().map(|&m| max_cell(m)));
        first.extend(seeds(&|v| v.0.to_string()));
        t.add_row(first);
        let mut add = |label: &str, f: &dyn Fn(&Trial) -> String, sf: &dyn Fn(&SeedFigures) -> String| {
            let mut row = vec![String::new(), label.to_string()];
            row.extend(modes.iter().map(|&m| cell(m, f)));
            row.extend(seeds(sf));
            t.add_row(row);
        };
        add("char/s", &|x| format!("{:.0}", x.cps), &|v| v.1.to_string());
        add("eff. Kb/s", &|x| format!("{:.1}", x.effective_baud / 1000.0), &|v| format!("{:.1}", v.2));
        add("CPU %", &|x| format!("{:.1}", x.cpu_percent), &|v| v.3.to_string());
        add("char/s per 1% CPU", &|x| format!("{:.0}", x.cps / x.cpu_percent.max(0.01)), &|v| {
            format!("{:.0}", v.1 as f64 / v.3 as f64)
        });
        add(
            "read() per KB",
            &|x| x.reads.map_or("-".into(), |r| format!("{:.2}", r as f64 / (x.sent as f64 / 1000.0).max(1e-9))),
            &|_| "-".into(),
        );
        add("bytes lost", &|x| x.lost.to_string(), &|_| "-".into());
    }
    let _ = writeln!(s, "{t}\n");
    // Where the next count failed, for the record.
    let mut fails = Vec::new();
    for x in &r.rows {
        if let Some(f) = &x.failed {
            // Why it failed, from the numbers: loss, a rate under the line's, or a late last byte
            // with nothing lost (a receiver, or its log, holding bytes back).
            let why = if f.lost > 0 {
                format!("{} bytes lost", f.lost)
            } else if f.effective_baud < THRESHOLD * x.baud as f64 {
                "below line speed, nothing lost".to_string()
            } else {
                format!("nothing lost, but the last byte was only there {:.2} s after the end", f.drain_seconds)
            };
            fails.push(format!(
                "{} at {} baud with {} lines ({why}): {:.1} Kb/s per line, CPU {:.0}%",
                x.mode.name(),
                x.baud,
                f.ports,
                f.effective_baud / 1000.0,
                f.cpu_percent
            ));
        }
    }
    if !fails.is_empty() {
        let _ = writeln!(s, "The first count not sustained: {}.\n", fails.join("; "));
    }
    // What this shows, against the targets.
    let mut shows = Vec::new();
    let at_1000 = find(115_200, Mode::Blitty).and_then(|x| x.trials.iter().find(|t| t.ports == 1000));
    if let Some(best) = at_1000 {
        let target = best.sustained && best.cpu_percent < 50.0;
        shows.push(format!(
            "At 115200 baud blitty received 1000 lines {} at {:.1} Kb/s each ({} bytes lost) using {:.1}% of one core: the target (1000 lines, lossless, under 50%) is {}",
            if best.sustained { "at line speed" } else { "below line speed" },
            best.effective_baud / 1000.0,
            best.lost,
            best.cpu_percent,
            if target { "met" } else { "missed" }
        ));
        if let Some(most) = find(115_200, Mode::Blitty).and_then(|x| x.best.as_ref()).filter(|m| m.ports > 1000) {
            shows.push(format!("It sustained {} lines at {:.1}% of one core", most.ports, most.cpu_percent));
        }
        // CPU per character against every other receiver at the same baud rate, each at the
        // largest count it sustained (or the count it failed at), and the best of them.
        let per_char = |x: &Trial| x.cpu_percent / 100.0 / x.cps.max(1.0);
        let others: Vec<(Mode, &Trial)> = Mode::ALL[1..]
            .iter()
            .filter_map(|&m| find(115_200, m).and_then(|x| x.best.as_ref().or(x.failed.as_ref())).map(|t| (m, t)))
            .collect();
        for (m, t) in &others {
            shows.push(format!(
                "{} spends {:.3} µs of CPU per character ({} lines), blitty {:.3} µs: {:.1}x",
                m.name(),
                per_char(t) * 1e6,
                t.ports,
                per_char(best) * 1e6,
                per_char(t) / per_char(best)
            ));
        }
        if let Some((m, t)) = others.iter().min_by(|a, b| per_char(a.1).total_cmp(&per_char(b.1))) {
            let ratio = per_char(t) / per_char(best);
            shows.push(format!(
                "Against the best of them ({}), blitty uses {ratio:.1}x fewer CPU seconds per character: the target of at least 10x is {}",
                m.name(),
                if ratio >= 10.0 { "met" } else { "missed" }
            ));
        }
    } else if let Some(x) = find(115_200, Mode::Blitty) {
        shows.push(format!(
            "At 115200 baud blitty did not get to 1000 lines{}: the target (1000 lines) is missed",
            x.error.as_ref().map(|e| format!(" ({e})")).unwrap_or_default()
        ));
    }
    if !shows.is_empty() {
        let _ = writeln!(s, "What this shows: {}.", shows.join(". "));
    }
    s
}
