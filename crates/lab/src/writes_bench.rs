//! `blitty bench writes` (seed 000, the 1988 Pcomm test): the 16 ways of writing characters
//! (cooked or raw, times eight methods) into each target terminal, for a 4 KB text like the
//! original's and a 1 MB one. A Linux pty takes about 18 KB before its writer blocks, so a
//! 4 KB write returns before the terminal has seen it: each method is timed both until the
//! writes return and until the terminal answers a DSR sent after the text. The second column
//! answers the seed's question (how fast can the screen show characters written this way).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::probes::{WriteCost, WRITE_METHODS};
use crate::run_bench::{drained_by, screen_argv, which, Reader, Xvfb};

pub struct Options {
    pub quick: bool,
    /// The product, for the `blitty run` target.
    pub blitty: PathBuf,
    /// The lab, for its probes (`blitty-lab probe writes`).
    pub lab: PathBuf,
    /// Target keywords to run (empty: all); see `Target::keyword`.
    pub targets: Vec<String>,
}

impl Options {
    fn wants(&self, t: Target) -> bool {
        t == Target::PlainReader || self.targets.is_empty() || self.targets.iter().any(|k| k == t.keyword())
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
/// Where the text goes: "plain reader" is a pty drained by a reader that answers DSR and
/// does nothing else; "blitty, hidden" is blitty's engine parsing with nothing presented (a
/// hidden terminal); "blitty run" presents frames into a plain reader.
pub enum Target {
    PlainReader,
    HiddenEngine,
    Blitty,
    Tmux,
    Screen,
    Xterm,
}

/// Every target, in the order tables list them.
const ALL: [Target; 6] =
    [Target::PlainReader, Target::HiddenEngine, Target::Blitty, Target::Tmux, Target::Screen, Target::Xterm];

impl Target {
    /// The word `--targets` selects it by.
    pub fn keyword(self) -> &'static str {
        match self {
            Target::PlainReader => "plain",
            Target::HiddenEngine => "hidden",
            Target::Blitty => "blitty",
            Target::Tmux => "tmux",
            Target::Screen => "screen",
            Target::Xterm => "xterm",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Target::PlainReader => "plain reader",
            Target::HiddenEngine => "blitty, hidden",
            Target::Blitty => "blitty run",
            Target::Tmux => "tmux",
            Target::Screen => "GNU screen",
            Target::Xterm => "xterm (Xvfb)",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Table {
    pub target: Target,
    pub text: String,
    /// Characters the terminal receives: in cooked mode OPOST adds a CR to every NL.
    pub chars_cooked: usize,
    pub chars_raw: usize,
    /// (method label, cost) in the seed's order: cooked first, then raw.
    pub rows: Result<Vec<(String, WriteCost)>, String>,
}

/// The 4 KB text: C source, as the original test wrote its own source (3,994 characters).
fn texts(quick: bool) -> Vec<(String, Vec<u8>)> {
    let source = include_str!("../probes/writes.c").as_bytes();
    let mut small: Vec<u8> = source.iter().copied().cycle().take(3994).collect();
    if let Some(last) = small.last_mut() {
        *last = b'\n';
    }
    let big_len = if quick { 100_000 } else { 1_000_000 };
    let big: Vec<u8> = source.iter().copied().cycle().take(big_len).collect();
    let big_label = if quick { "100 KB text" } else { "1 MB text" };
    vec![("4 KB text (3,994 characters, like the original)".into(), small), (big_label.into(), big)]
}

fn probe_once(
    opts: &Options,
    target: Target,
    xvfb: &Result<Xvfb, String>,
    dir: &Path,
    text: &Path,
    method: usize,
    raw: bool,
) -> Result<WriteCost, String> {
    let result = dir.join("result.txt");
    let _ = std::fs::remove_file(&result);
    let probe = format!(
        "{} probe writes {method} {} {} {}",
        opts.lab.display(),
        if raw { "raw" } else { "cooked" },
        text.display(),
        result.display()
    );
    let timeout = Duration::from_secs(300);
    let sh = |cmd: String| vec!["sh".to_string(), "-c".to_string(), cmd];
    match target {
        Target::PlainReader => drained_by(&sh(probe), timeout, Reader::AnswersDsr).map(|_| ())?,
        Target::HiddenEngine => drained_by(&sh(probe), timeout, Reader::Engine).map(|_| ())?,
        Target::Blitty => {
            drained_by(&sh(format!("{} run -- {probe}", opts.blitty.display())), timeout, Reader::Plain).map(|_| ())?
        }
        Target::Tmux => {
            if !which("tmux") {
                return Err("not installed (apt-get install tmux)".into());
            }
            let sock = format!("blitty-bench-w-{}", std::process::id());
            let argv: Vec<String> =
                ["tmux", "-L", &sock, "-f", "/dev/null", "new-session", "-x", "80", "-y", "24", &probe]
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
            drained_by(&argv, timeout, Reader::Plain).map(|_| ())?;
        }
        Target::Screen => drained_by(&screen_argv(dir, &probe)?, timeout, Reader::Plain).map(|_| ())?,
        Target::Xterm => xvfb.as_ref().map_err(|e| e.clone())?.xterm(&probe)?,
    }
    let text = std::fs::read_to_string(&result).map_err(|_| "the probe did not finish".to_string())?;
    let v: Vec<f64> = text.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    if v.len() < 5 {
        return Err(format!("bad probe result {text:?}"));
    }
    Ok(WriteCost { returned: v[0], processed: (v[1] >= 0.0).then_some(v[1]), user: v[2], sys: v[3], write_calls: v[4] })
}

pub fn run(opts: &Options, mut progress: impl FnMut(&str)) -> Result<Vec<Table>, String> {
    let dir = std::env::temp_dir().join(format!("blitty-bench-writes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let xvfb = Xvfb::start();
    let mut tables = Vec::new();
    for (label, text) in texts(opts.quick) {
        let path = dir.join("text.txt");
        std::fs::write(&path, &text).map_err(|e| e.to_string())?;
        let newlines = text.iter().filter(|&&b| b == b'\n').count();
        for target in ALL.into_iter().filter(|&t| opts.wants(t)) {
            let mut rows = Vec::new();
            let mut error = None;
            'modes: for raw in [false, true] {
                for (m, name) in WRITE_METHODS.iter().enumerate() {
                    progress(&format!(
                        "writes: {} / {label} / {} {name}",
                        target.name(),
                        if raw { "raw" } else { "cooked" }
                    ));
                    match probe_once(opts, target, &xvfb, &dir, &path, m, raw) {
                        Ok(cost) => rows.push((format!("{}, {name}", if raw { "raw" } else { "cooked" }), cost)),
                        Err(e) => {
                            error = Some(e);
                            break 'modes;
                        }
                    }
                }
            }
            tables.push(Table {
                target,
                text: label.clone(),
                chars_cooked: text.len() + newlines,
                chars_raw: text.len(),
                rows: error.map_or(Ok(rows), Err),
            });
        }
    }
    drop(xvfb);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(tables)
}

/// Seed 000's figures, characters per second: (method, console at 9600 baud, tty000 at 9600).
pub const SEED_CPS: [(&str, f64, f64); 16] = [
    ("cooked, setbuf, fputc", 137.4, 708.8),
    ("cooked, setbuf, putc", 136.2, 719.0),
    ("cooked, setbuf, putchar", 137.3, 721.0),
    ("cooked, fputc, fflush", 134.3, 638.7),
    ("cooked, putc, fflush", 134.6, 667.5),
    ("cooked, putchar, fflush", 135.1, 667.5),
    ("cooked, write", 137.9, 744.5),
    ("cooked, fwrite", 451.8, 953.2),
    ("raw, setbuf, fputc", 121.0, 665.7),
    ("raw, setbuf, putc", 120.8, 675.0),
    ("raw, setbuf, putchar", 121.2, 675.0),
    ("raw, fputc, fflush", 118.8, 619.2),
    ("raw, putc, fflush", 119.5, 627.3),
    ("raw, putchar, fflush", 119.0, 616.0),
    ("raw, write", 120.4, 694.6),
    ("raw, fwrite", 351.9, 994.4),
];

/// One target's `scroll` figures: lines per second for (scrolling, OPOST), in the order
/// scroll+opost, scroll-opost, no-scroll+opost, no-scroll-opost.
pub struct ScrollRow {
    pub target: Target,
    pub lines_per_s: Result<[f64; 4], String>,
}

/// `blitty bench scroll` (seed 001): lines of screen width written with scrolling, and
/// without (cursor home after each screenful), with OPOST on and off, into each target;
/// presented (blitty run, tmux, xterm) against hidden (blitty's engine parsing only). Each
/// text is written with one fwrite and timed until the terminal answers a DSR after it.
pub fn run_scroll(opts: &Options, mut progress: impl FnMut(&str)) -> Result<(usize, Vec<ScrollRow>), String> {
    let dir = std::env::temp_dir().join(format!("blitty-bench-scroll-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let lines = if opts.quick { 5_000 } else { 50_000 };
    let line: Vec<u8> = (0..80).map(|i| b'!' + (i % 94) as u8).collect();
    // With OPOST the kernel turns \n into \r\n; without it the text carries the \r itself.
    let text = |scroll: bool, opost: bool| {
        let mut t = Vec::with_capacity(lines * 84);
        for i in 0..lines {
            t.extend_from_slice(&line);
            if !scroll && i % 24 == 23 {
                t.extend_from_slice(b"\x1b[H");
            } else if opost {
                t.push(b'\n');
            } else {
                t.extend_from_slice(b"\r\n");
            }
        }
        t
    };
    let mut files = Vec::new();
    for (k, (scroll, opost)) in [(true, true), (true, false), (false, true), (false, false)].into_iter().enumerate() {
        let path = dir.join(format!("scroll{k}.txt"));
        std::fs::write(&path, text(scroll, opost)).map_err(|e| e.to_string())?;
        files.push((path, opost));
    }
    let xvfb = Xvfb::start();
    let mut rows = Vec::new();
    for target in ALL.into_iter().filter(|&t| opts.wants(t)) {
        let mut speeds = [0f64; 4];
        let mut error = None;
        for (k, (path, opost)) in files.iter().enumerate() {
            progress(&format!("scroll: {} / case {}", target.name(), k + 1));
            // The control method (one fwrite), cooked (OPOST on) or raw (off).
            match probe_once(opts, target, &xvfb, &dir, path, 7, !opost) {
                Ok(cost) => match cost.processed {
                    Some(p) => speeds[k] = lines as f64 / p.max(1e-9),
                    None => {
                        error = Some("the terminal did not answer the DSR".to_string());
                        break;
                    }
                },
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        rows.push(ScrollRow { target, lines_per_s: error.map_or(Ok(speeds), Err) });
    }
    drop(xvfb);
    let _ = std::fs::remove_dir_all(&dir);
    Ok((lines, rows))
}

/// What the reading side paid during a stones run, when it is measured.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReaderCost {
    pub cpu: f64,
    pub reads: f64,
    pub writes: f64,
}

pub struct StonesRow {
    pub target: Target,
    /// (characters per second, the reader's cost) for charstones, then stringstones.
    pub results: Vec<Result<(f64, Option<ReaderCost>), String>>,
}

/// This thread's CPU seconds and read()/write() calls (the bench's own reader runs here).
fn thread_cost() -> ReaderCost {
    // SAFETY: getrusage fills the zeroed struct it is given and keeps no pointer to it.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_THREAD, &mut usage);
        usage
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let io = std::fs::read_to_string("/proc/thread-self/io").unwrap_or_default();
    let get =
        |k: &str| io.lines().find_map(|l| l.strip_prefix(k)).and_then(|v| v.trim().parse::<f64>().ok()).unwrap_or(0.0);
    ReaderCost { cpu: secs(usage.ru_utime) + secs(usage.ru_stime), reads: get("syscr:"), writes: get("syscw:") }
}

/// Watches the processes of a terminal program (tmux, screen, xterm) while a probe runs in
/// it: every 5 ms it reads /proc for processes whose program is `program` and whose command
/// line mentions `marker` (this run's socket, session or directory), keeping each one's last
/// read()/write() counts and CPU nanoseconds (schedstat). Processes that exit are counted
/// up to their last sample, so up to 5 ms of their end can be missed.
struct Sampler {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    handle: std::thread::JoinHandle<ReaderCost>,
}

impl Sampler {
    fn start(program: &'static str, marker: String) -> Sampler {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = std::sync::Arc::clone(&stop);
        let handle = std::thread::spawn(move || {
            let mut last: std::collections::HashMap<u32, ReaderCost> = std::collections::HashMap::new();
            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
                    let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
                    let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else { continue };
                    let argv0 = cmdline.split(|&b| b == 0).next().unwrap_or(&[]);
                    let name =
                        String::from_utf8_lossy(argv0.rsplit(|&b| b == b'/').next().unwrap_or(&[])).to_lowercase();
                    if name != program || !String::from_utf8_lossy(&cmdline).contains(&marker) {
                        continue;
                    }
                    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap_or_default();
                    let get = |k: &str| {
                        io.lines()
                            .find_map(|l| l.strip_prefix(k))
                            .and_then(|v| v.trim().parse::<f64>().ok())
                            .unwrap_or(0.0)
                    };
                    let cpu = std::fs::read_to_string(format!("/proc/{pid}/schedstat"))
                        .ok()
                        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse::<f64>().ok()))
                        .unwrap_or(0.0)
                        / 1e9;
                    last.insert(pid, ReaderCost { cpu, reads: get("syscr:"), writes: get("syscw:") });
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            last.values().fold(ReaderCost::default(), |a, c| ReaderCost {
                cpu: a.cpu + c.cpu,
                reads: a.reads + c.reads,
                writes: a.writes + c.writes,
            })
        });
        Sampler { stop, handle }
    }

    fn finish(self) -> ReaderCost {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.handle.join().unwrap_or_default()
    }
}

/// `blitty bench stones` (seed 002): charstones (one character per write()) and stringstones
/// (a 96-character string per write()) into each target; characters per second, and what the
/// reading side paid per 1,000 characters (CPU, read() and write() calls) where blitty can
/// measure it: its own plain reader and hidden engine, and `blitty run` (from its --stats).
pub fn run_stones(opts: &Options, mut progress: impl FnMut(&str)) -> Result<(Vec<usize>, Vec<StonesRow>), String> {
    let dir = std::env::temp_dir().join(format!("blitty-bench-stones-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let sizes = if opts.quick { vec![20_000, 200_000] } else { vec![200_000, 2_000_000] };
    let source = include_str!("../probes/writes.c").as_bytes();
    let xvfb = Xvfb::start();
    let mut rows = Vec::new();
    for target in ALL.into_iter().filter(|&t| opts.wants(t)) {
        let mut results = Vec::new();
        for (k, &n) in sizes.iter().enumerate() {
            let path = dir.join(format!("stones{k}.txt"));
            let text: Vec<u8> = source.iter().copied().cycle().take(n).collect();
            std::fs::write(&path, &text).map_err(|e| e.to_string())?;
            progress(&format!("stones: {} / {}", target.name(), if k == 0 { "charstones" } else { "stringstones" }));
            let method = if k == 0 { 6 } else { 8 };
            let before = thread_cost();
            let sampler = match target {
                Target::Tmux => Some(Sampler::start("tmux", format!("blitty-bench-w-{}", std::process::id()))),
                Target::Screen => Some(Sampler::start("screen", format!("blitty-bench-{}", std::process::id()))),
                Target::Xterm => Some(Sampler::start("xterm", dir.display().to_string())),
                _ => None,
            };
            let res = if target == Target::Blitty {
                probe_with_stats(opts, &dir, &path, method)
            } else {
                probe_once(opts, target, &xvfb, &dir, &path, method, true).map(|c| (c, None))
            };
            let sampled = sampler.map(Sampler::finish);
            let after = thread_cost();
            results.push(res.and_then(|(cost, stats)| {
                let p = cost.processed.ok_or("the terminal did not answer the DSR")?;
                let reader = match target {
                    Target::PlainReader | Target::HiddenEngine => Some(ReaderCost {
                        cpu: after.cpu - before.cpu,
                        reads: after.reads - before.reads,
                        writes: after.writes - before.writes,
                    }),
                    Target::Blitty => stats,
                    _ => sampled,
                };
                Ok((n as f64 / p.max(1e-9), reader))
            }));
        }
        rows.push(StonesRow { target, results });
    }
    drop(xvfb);
    let _ = std::fs::remove_dir_all(&dir);
    Ok((sizes, rows))
}

/// The probe under `blitty run --stats`, presented into a plain reader; returns blitty's cost.
fn probe_with_stats(
    opts: &Options,
    dir: &Path,
    text: &Path,
    method: usize,
) -> Result<(WriteCost, Option<ReaderCost>), String> {
    let result = dir.join("result.txt");
    let stats = dir.join("stats.txt");
    let _ = std::fs::remove_file(&result);
    let cmd = format!(
        "{b} run --stats {} -- {lab} probe writes {method} raw {} {}",
        stats.display(),
        text.display(),
        result.display(),
        b = opts.blitty.display(),
        lab = opts.lab.display()
    );
    drained_by(&["sh".to_string(), "-c".to_string(), cmd], Duration::from_secs(300), Reader::Plain)?;
    let text = std::fs::read_to_string(&result).map_err(|_| "the probe did not finish".to_string())?;
    let v: Vec<f64> = text.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    if v.len() < 5 {
        return Err(format!("bad probe result {text:?}"));
    }
    let cost = WriteCost {
        returned: v[0],
        processed: (v[1] >= 0.0).then_some(v[1]),
        user: v[2],
        sys: v[3],
        write_calls: v[4],
    };
    let st: std::collections::HashMap<String, f64> = std::fs::read_to_string(&stats)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once(' ').and_then(|(k, v)| Some((k.to_string(), v.parse().ok()?))))
        .collect();
    let get = |k: &str| st.get(k).copied().unwrap_or(0.0);
    Ok((cost, Some(ReaderCost { cpu: get("cpu"), reads: get("syscr"), writes: get("syscw") })))
}
