//! The terminals the seed experiments write into (`writes`, `scroll`, `stones`), and how one
//! C probe is run into each: a plain reader that answers DSR, blitty's hidden engine, `blitty
//! run`, tmux, GNU screen and xterm under Xvfb. Each is timed both until its writes return and
//! until the terminal answers a DSR sent after the text: that answer comes once the terminal
//! has *parsed* the text (blitty and tmux answer before they present it), so it measures
//! parsing, not how fast a screen shows the characters. `bench window` reads the same probe's
//! record (`write_cost`) for the terminal windows it writes the syscons console post's lines into.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::programs::{screen_argv, tmux_argv};
use crate::common::pty::{drained_by, Reader};
use crate::common::xvfb::Xvfb;
use crate::probes::WriteCost;

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
    /// The options an experiment's context gives.
    pub fn of(ctx: &crate::report::Context) -> Options {
        Options { quick: ctx.quick, blitty: ctx.blitty.clone(), lab: ctx.lab.clone(), targets: ctx.targets.clone() }
    }

    pub(crate) fn wants(&self, t: Target) -> bool {
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
pub(crate) const ALL: [Target; 6] =
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

pub(crate) fn probe_once(
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
            let sock = format!("blitty-bench-w-{}", std::process::id());
            drained_by(&tmux_argv(dir, &sock, &probe)?, timeout, Reader::Plain).map(|_| ())?;
        }
        Target::Screen => drained_by(&screen_argv(dir, &probe)?, timeout, Reader::Plain).map(|_| ())?,
        Target::Xterm => xvfb.as_ref().map_err(|e| e.clone())?.xterm(&probe)?,
    }
    write_cost(&result)
}

/// What `blitty-lab probe writes` recorded in `result`.
pub(crate) fn write_cost(result: &Path) -> Result<WriteCost, String> {
    let text = std::fs::read_to_string(result).map_err(|_| "the probe did not finish".to_string())?;
    let v: Vec<f64> = text.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    if v.len() < 5 {
        return Err(format!("bad probe result {text:?}"));
    }
    Ok(WriteCost { returned: v[0], processed: (v[1] >= 0.0).then_some(v[1]), user: v[2], sys: v[3], write_calls: v[4] })
}

/// What the reading side paid during a stones run, when it is measured.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReaderCost {
    pub cpu: f64,
    pub reads: f64,
    pub writes: f64,
}

/// This thread's CPU seconds and read()/write() calls (the bench's own reader runs here).
pub(crate) fn thread_cost() -> ReaderCost {
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
pub(crate) struct Sampler {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    handle: std::thread::JoinHandle<ReaderCost>,
}

impl Sampler {
    pub(crate) fn start(program: &'static str, marker: String) -> Sampler {
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

    pub(crate) fn finish(self) -> ReaderCost {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.handle.join().unwrap_or_default()
    }
}

/// The probe under `blitty run --stats`, presented into a plain reader; returns blitty's cost.
pub(crate) fn probe_with_stats(
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
