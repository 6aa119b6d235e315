//! `blitty bench run`: a flood of output through blitty and through real terminals, side by
//! side in one run, timed as the writer sees it (`cat` of a file, from before it starts to
//! after it ends); Ctrl-C under a flood; and what blitty's frames cost.
//!
//! Targets, each started for real:
//! - a pty drained by a plain reader, the best of blocking 64 KiB reads, poll-then-drain and
//!   poll-wait-1-ms-drain, nothing else (the ceiling; the report checks that it is at least every other figure and
//!   says so when noise beat it),
//! - blitty presenting into that plain reader,
//! - tmux (its client attached to the plain reader, as a user's would be), and blitty in it,
//! - xterm under Xvfb, and blitty in it (when both are installed).

use std::fmt::Write as _;

use comfy_table::{presets::ASCII_MARKDOWN, Table};

use crate::charts;
use crate::common::programs::{screen_argv, tmux_argv, which};
use crate::common::pty::{drained_blocking, drained_by, Reader};
use crate::common::stats::median_of;
use crate::common::texts::{flood_files, writer};
use crate::common::xvfb::Xvfb;
use crate::report::{header, machine, Context, Error, Section};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub struct Options {
    pub quick: bool,
    /// The blitty binary measured.
    pub blitty: PathBuf,
    /// Target keywords to run (plain, blitty, tmux, screen, xterm; empty: all). The plain
    /// reader always runs: the other rows are relative to it.
    pub targets: Vec<String>,
}

impl Options {
    fn wants(&self, keyword: &str) -> bool {
        keyword == "plain" || self.targets.is_empty() || self.targets.iter().any(|k| k == keyword)
    }
}

/// One timed flood: how long `cat` took, and blitty's own statistics when blitty ran.
#[derive(Clone, Debug)]
pub struct Flood {
    pub seconds: f64,
    pub mbps: f64,
    /// For the plain reader: its read() calls per MB.
    pub reads_per_mb: Option<f64>,
    /// For the plain reader: the MB/s of each of its three readers in this run (blocking 64 KiB
    /// reads, poll then drain, poll then wait 1 ms and drain); the ceiling is the best of them.
    pub readers: Option<[f64; 3]>,
    pub blitty: Option<BTreeMap<String, f64>>,
}

pub struct Row {
    pub target: String,
    /// Per file (plain, colour): the median flood, or why it could not run.
    pub results: Vec<Result<Flood, String>>,
    /// For the plain reader, per file: the median MB/s of each of its three readers.
    pub readers: Vec<Option<[f64; 3]>>,
}

/// Milliseconds from Ctrl-C to the prompt: (median, every sample), or why it could not run.
pub type Latency = Result<(f64, Vec<f64>), String>;

pub struct Report {
    pub files: Vec<(String, u64)>,
    pub rows: Vec<Row>,
    /// Ctrl-C to prompt, labelled by `Shell::name`.
    pub ctrl_c: Vec<(String, Latency)>,
    pub runs: usize,
}

/// Runs `argv` on a pty of 80x24 whose master a plain reader drains until the child ends;
/// returns the number of read() calls that returned data.
fn drained(argv: &[String], timeout: Duration) -> Result<u64, String> {
    drained_by(argv, timeout, Reader::Plain)
}

fn read_nanos(path: &Path) -> Result<f64, String> {
    let text = std::fs::read_to_string(path).map_err(|_| "the writer did not finish".to_string())?;
    text.trim().parse::<f64>().map(|ns| ns / 1e9).map_err(|_| format!("bad timing {text:?}"))
}

fn read_stats(path: &Path) -> Option<BTreeMap<String, f64>> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(
        text.lines()
            .filter_map(|l| l.split_once(' ').and_then(|(k, v)| Some((k.to_string(), v.parse().ok()?))))
            .collect(),
    )
}

/// The ways a flood is run; each returns when the writer has ended.
#[derive(Clone, Copy)]
enum Target {
    Ceiling,
    BlittyPty,
    Tmux,
    BlittyTmux,
    Screen,
    BlittyScreen,
    Xterm,
    BlittyXterm,
}

impl Target {
    /// The host a row is about, as `--targets` names it (blitty inside a host counts as both).
    fn keywords(self) -> &'static [&'static str] {
        match self {
            Target::Ceiling => &["plain"],
            Target::BlittyPty => &["blitty"],
            Target::Tmux => &["tmux"],
            Target::BlittyTmux => &["blitty", "tmux"],
            Target::Screen => &["screen"],
            Target::BlittyScreen => &["blitty", "screen"],
            Target::Xterm => &["xterm"],
            Target::BlittyXterm => &["blitty", "xterm"],
        }
    }

    fn name(self) -> &'static str {
        match self {
            Target::Ceiling => "plain reader (ceiling)",
            Target::BlittyPty => "blitty -> plain reader",
            Target::Tmux => "tmux",
            Target::BlittyTmux => "blitty in tmux",
            Target::Screen => "GNU screen",
            Target::BlittyScreen => "blitty in GNU screen",
            Target::Xterm => "xterm (Xvfb)",
            Target::BlittyXterm => "blitty in xterm (Xvfb)",
        }
    }
}

struct Env {
    dir: PathBuf,
    blitty: PathBuf,
    xvfb: Result<Xvfb, String>,
    tmux: bool,
}

fn flood_once(env: &Env, target: Target, file: &Path, n: usize) -> Result<Flood, String> {
    let out = env.dir.join(format!("t{n}.ns"));
    let stats = env.dir.join(format!("s{n}.stats"));
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_file(&stats);
    let script = writer(file, &out);
    let blitty = format!("{} run --stats {} -- sh -c '{script}'", env.blitty.display(), stats.display());
    let timeout = Duration::from_secs(600);
    let sock = format!("blitty-bench-{}", std::process::id());
    let mut reads = None;
    let mut readers = None;
    let bytes = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0) as f64;
    match target {
        Target::Ceiling => {
            // The best of three plain readers: blocking 64 KiB reads; poll, then drain
            // everything there is; poll, wait 1 ms, drain. None parses or writes anything;
            // which is fastest depends on the machine, so the ceiling is the least time.
            let argv = ["sh".to_string(), "-c".to_string(), script.clone()];
            let mut best: Option<(f64, u64)> = None;
            let mut each = [0.0; 3];
            for (i, reader) in [None, Some(Reader::Plain), Some(Reader::Batched)].into_iter().enumerate() {
                let n = match reader {
                    None => drained_blocking(&argv, timeout)?,
                    Some(r) => drained_by(&argv, timeout, r)?,
                };
                let secs = read_nanos(&out)?;
                each[i] = bytes / 1e6 / secs;
                if best.is_none_or(|(b, _)| secs < b) {
                    best = Some((secs, n));
                }
            }
            let (secs, n) = best.expect("three readers ran");
            std::fs::write(&out, format!("{}", (secs * 1e9) as u64)).map_err(|e| e.to_string())?;
            reads = Some(n);
            readers = Some(each);
        }
        Target::BlittyPty => {
            drained(&["sh".into(), "-c".into(), blitty.clone()], timeout)?;
        }
        Target::Tmux | Target::BlittyTmux => {
            let cmd = if matches!(target, Target::Tmux) { script.clone() } else { blitty.clone() };
            drained(&tmux_argv(&env.dir, &sock, &cmd)?, timeout)?;
        }
        Target::Screen | Target::BlittyScreen => {
            let cmd = if matches!(target, Target::Screen) { script.clone() } else { blitty.clone() };
            drained(&screen_argv(&env.dir, &cmd)?, timeout)?;
        }
        Target::Xterm | Target::BlittyXterm => {
            let x = env.xvfb.as_ref().map_err(|e| e.clone())?;
            let cmd = if matches!(target, Target::Xterm) { script.clone() } else { blitty.clone() };
            x.xterm(&cmd)?;
        }
    }
    let seconds = read_nanos(&out)?;
    let blitty_stats = matches!(target, Target::BlittyPty | Target::BlittyTmux | Target::BlittyXterm)
        .then(|| read_stats(&stats))
        .flatten();
    let reads_per_mb = reads.map(|r| r as f64 / (bytes / 1e6).max(1e-9));
    Ok(Flood { seconds, mbps: bytes / 1e6 / seconds, reads_per_mb, readers, blitty: blitty_stats })
}

/// The median MB/s of each plain reader over the runs (None when not the plain reader's row).
fn median_readers(v: &[Flood]) -> Option<[f64; 3]> {
    let all: Vec<[f64; 3]> = v.iter().filter_map(|f| f.readers).collect();
    if all.is_empty() {
        return None;
    }
    Some(std::array::from_fn(|i| median_of(all.iter().map(|r| r[i]).collect()).0))
}

fn median_flood(mut v: Vec<Flood>) -> Flood {
    v.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
    v[v.len() / 2].clone()
}

/// Where the Ctrl-C test runs: the command started on the observer's pty.
#[derive(Clone, Copy)]
enum Shell {
    /// bash on the pty itself: no terminal program in between (the floor).
    Direct,
    Blitty,
    Tmux,
    BlittyInTmux,
}

impl Shell {
    fn name(self) -> &'static str {
        match self {
            Shell::Direct => "bash on the pty (no terminal program)",
            Shell::Blitty => "blitty",
            Shell::Tmux => "tmux",
            Shell::BlittyInTmux => "blitty in tmux",
        }
    }
}

/// The observer plays the user's terminal: it runs `argv` on a pty, parses everything the pty
/// shows with blitty's engine, types `yes` and then Ctrl-C, and times from writing Ctrl-C to
/// the moment its screen shows the prompt again.
fn ctrl_c_once(env: &Env, shell: Shell, n: usize) -> Result<f64, String> {
    let bash = "env PS1=READY$ bash --norc --noprofile -i";
    let blitty = format!("{} run -- {bash}", env.blitty.display());
    let sock = format!("blitty-bench-c{n}-{}", std::process::id());
    let argv: Vec<String> = match shell {
        Shell::Direct => vec!["sh".into(), "-c".into(), bash.into()],
        Shell::Blitty => vec!["sh".into(), "-c".into(), blitty.clone()],
        Shell::Tmux => tmux_argv(&env.dir, &sock, bash)?,
        Shell::BlittyInTmux => tmux_argv(&env.dir, &sock, &blitty)?,
    };
    let argv: Vec<OsString> = argv.iter().map(OsString::from).collect();
    let mut pty =
        blitty_os::pty::spawn(&argv, blitty_os::pty::Size { cols: 80, rows: 24 }).map_err(|e| e.to_string())?;
    // The observer drains what is there and then looks at its screen: a blocking read would
    // wait for output that never comes once the prompt is back.
    rustix::fs::fcntl_setfl(&pty.master, rustix::fs::OFlags::NONBLOCK).map_err(|e| e.to_string())?;
    let mut screen = blitty_vt::Terminal::with_scrollback(80, 24, 0);
    let mut buf = vec![0u8; 1 << 16];
    let prompt_last = |t: &blitty_vt::Terminal| {
        let s = t.screen();
        (0..s.rows())
            .rev()
            .map(|y| s.row_text(y))
            .find(|l| !l.trim().is_empty())
            .is_some_and(|l| l.trim_end() == "READY$")
    };
    // Reads and parses what the pty shows until `done` holds or `limit` passes.
    let mut pump = |pty: &mut blitty_os::pty::Pty,
                    screen: &mut blitty_vt::Terminal,
                    limit: Duration,
                    done: &dyn Fn(&blitty_vt::Terminal) -> bool| {
        let t = Instant::now();
        while t.elapsed() < limit {
            let mut fds = [rustix::event::PollFd::new(&pty.master, rustix::event::PollFlags::IN)];
            let _ = rustix::event::poll(&mut fds, Some(&rustix::event::Timespec { tv_sec: 0, tv_nsec: 1_000_000 }));
            while let Ok(n @ 1..) = rustix::io::read(&pty.master, &mut buf) {
                screen.feed(&buf[..n]);
                let replies = screen.take_replies();
                let _ = rustix::io::write(&pty.master, &replies);
            }
            if done(screen) {
                return true;
            }
        }
        false
    };
    let type_keys = |pty: &blitty_os::pty::Pty, keys: &[u8]| {
        rustix::io::write(&pty.master, keys).map(|_| ()).map_err(|e| e.to_string())
    };
    let result = (|| {
        if !pump(&mut pty, &mut screen, Duration::from_secs(10), &prompt_last) {
            return Err("no prompt".to_string());
        }
        type_keys(&pty, b"yes 'flood flood flood flood flood'\r")?;
        pump(&mut pty, &mut screen, Duration::from_millis(500), &|_| false);
        type_keys(&pty, b"\x03")?;
        let t0 = Instant::now();
        if !pump(&mut pty, &mut screen, Duration::from_secs(20), &prompt_last) {
            // The observer's last rows, so that a failure says what was on the screen.
            let s = screen.screen();
            let last: Vec<String> = (0..s.rows()).map(|y| s.row_text(y)).filter(|l| !l.trim().is_empty()).collect();
            let tail = last[last.len().saturating_sub(2)..].join(" | ");
            return Err(format!("the prompt did not come back (the screen ended with: {tail})"));
        }
        Ok(t0.elapsed().as_secs_f64() * 1000.0)
    })();
    let _ = type_keys(&pty, b"exit\r");
    pump(&mut pty, &mut screen, Duration::from_millis(300), &|_| false);
    let _ = pty.child.kill();
    let _ = pty.child.wait();
    let _ = Command::new("tmux").args(["-L", &sock, "kill-server"]).output();
    result
}

pub fn run(opts: &Options, mut progress: impl FnMut(&str)) -> Result<Report, String> {
    let dir = std::env::temp_dir().join(format!("blitty-bench-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let (plain_mb, colour_mb, runs) = if opts.quick { (10, 5, 1) } else { (200, 50, 5) };
    progress("generating files");
    let (plain, colour) = flood_files(&dir, plain_mb, colour_mb, 5)?;
    let env = Env { dir: dir.clone(), blitty: opts.blitty.clone(), xvfb: Xvfb::for_xterm(), tmux: which("tmux") };
    let files = [
        (format!("plain text, {plain_mb} MB"), plain),
        (format!("SGR-dense (256-colour per cell), {colour_mb} MB"), colour),
    ];
    let targets: Vec<Target> = [
        Target::Ceiling,
        Target::BlittyPty,
        Target::Tmux,
        Target::BlittyTmux,
        Target::Screen,
        Target::BlittyScreen,
        Target::Xterm,
        Target::BlittyXterm,
    ]
    .into_iter()
    .filter(|t| t.keywords().iter().all(|k| opts.wants(k)))
    .collect();
    // The targets take turns: run 1 of every target and file, then run 2, and so on, so that a
    // slow spell of a shared machine falls on every row alike rather than on the rows measured
    // during it (each row's median is of its own runs). A target that fails once is not run again.
    let mut floods: Vec<Vec<Result<Vec<Flood>, String>>> =
        targets.iter().map(|_| files.iter().map(|_| Ok(Vec::new())).collect()).collect();
    let mut n = 0;
    for run in 0..runs {
        for (target, per_file) in targets.iter().zip(floods.iter_mut()) {
            for ((label, file), slot) in files.iter().zip(per_file.iter_mut()) {
                let Ok(done) = slot else { continue };
                progress(&format!("flood {}/{runs}: {} / {label}", run + 1, target.name()));
                n += 1;
                match flood_once(&env, *target, file, n) {
                    Ok(f) => done.push(f),
                    Err(e) => *slot = Err(e),
                }
            }
        }
    }
    let rows: Vec<Row> = targets
        .iter()
        .zip(floods)
        .map(|(target, per_file)| Row {
            target: target.name().into(),
            readers: per_file.iter().map(|r| r.as_ref().ok().and_then(|v| median_readers(v))).collect(),
            results: per_file.into_iter().map(|r| r.map(median_flood)).collect(),
        })
        .collect();
    let mut ctrl_c = Vec::new();
    let samples = if opts.quick { 3 } else { 9 };
    for shell in [Shell::Direct, Shell::Blitty, Shell::Tmux, Shell::BlittyInTmux].into_iter().filter(|s| match s {
        Shell::Direct => true,
        Shell::Blitty => opts.wants("blitty"),
        Shell::Tmux => opts.wants("tmux"),
        Shell::BlittyInTmux => opts.wants("blitty") && opts.wants("tmux"),
    }) {
        let label = shell.name();
        let mut v = Vec::new();
        let mut err = None;
        for i in 0..samples {
            progress(&format!("Ctrl-C: {label}"));
            if matches!(shell, Shell::Tmux | Shell::BlittyInTmux) && !env.tmux {
                err = Some("not installed (apt-get install tmux)".to_string());
                break;
            }
            match ctrl_c_once(&env, shell, i) {
                Ok(ms) => v.push(ms),
                Err(e) => {
                    err = Some(e);
                    break;
                }
            }
        }
        ctrl_c.push((
            label.to_string(),
            match err {
                Some(e) => Err(e),
                None => Ok(median_of(v)),
            },
        ));
    }
    let files = files.iter().map(|(l, p)| (l.clone(), std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))).collect();
    drop(env);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Report { files, rows, ctrl_c, runs })
}

/// `bench run`: floods, Ctrl-C, frames; tables, chart and verdicts.
pub fn experiment(ctx: &Context, progress: &mut dyn FnMut(&str)) -> Result<Section, Error> {
    let report =
        run(&Options { quick: ctx.quick, blitty: ctx.blitty.clone(), targets: ctx.targets.clone() }, progress)?;
    let md = run_markdown(&report, &ctx.command);
    let j = run_json(&report, &ctx.command);
    let groups: Vec<String> = report.rows.iter().map(|r| r.target.clone()).collect();
    let series = charts::series(report.files.iter().map(|(label, _)| label.clone()), &report.rows, |r, i| {
        r.results[i].as_ref().ok().map(|f| f.mbps)
    });
    charts::bars(&ctx.out.join("run.svg"), "cat floods: MB/s as the writer sees it", "MB/s", &groups, &series)?;
    Ok(Section { name: "run", markdown: md, json: j })
}

fn run_markdown(r: &Report, command: &str) -> String {
    let mut s = header(
        &format!(
            "blitty run: floods (MB/s as the writer sees it, median of {} runs, the targets taking turns)",
            r.runs
        ),
        command,
        false,
    );
    let _ = writeln!(
        s,
        "files: {}; 80x24; `cat FILE` timed by the writer from start to end  \n",
        r.files.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>().join("; ")
    );
    // Every figure is looked up by its row's name, never by position.
    let find = |name: &str, i: usize| {
        r.rows.iter().find(|row| row.target == name).and_then(|row| row.results[i].as_ref().ok()).map(|f| f.mbps)
    };
    let ceiling_name = Target::Ceiling.name();
    let ceiling: Vec<Option<f64>> = (0..r.files.len()).map(|i| find(ceiling_name, i)).collect();
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN);
    let mut header = vec!["target".to_string()];
    for (label, _) in &r.files {
        let short = label.split(',').next().unwrap_or(label).to_string();
        header.push(format!("{short} MB/s"));
        header.push(format!("{short} % of ceiling"));
    }
    t.set_header(header);
    for row in &r.rows {
        let mut cells = vec![row.target.clone()];
        for (i, res) in row.results.iter().enumerate() {
            match res {
                Ok(f) => {
                    cells.push(format!("{:.0}", f.mbps));
                    cells.push(ceiling[i].map_or("-".into(), |c| {
                        let pct = 100.0 * f.mbps / c;
                        // The ceiling's own row is 100% (100 * x / x may round above 100).
                        if row.target != ceiling_name && pct >= 100.5 {
                            format!("{pct:.0}% (above the ceiling)")
                        } else {
                            format!("{pct:.0}%")
                        }
                    }));
                }
                Err(e) => {
                    cells.push(e.clone());
                    cells.push("-".into());
                }
            }
        }
        t.add_row(cells);
    }
    let _ = writeln!(s, "{t}\n");
    // The three plain readers one by one: the issue that set the 0.9 target measured against the
    // first alone; the ceiling above is the best of the three in each run.
    if let Some(row) = r.rows.iter().find(|row| row.target == ceiling_name) {
        if row.readers.iter().any(Option::is_some) {
            let mut p = Table::new();
            p.load_preset(ASCII_MARKDOWN);
            let mut header = vec!["plain reader (median of its own runs)".to_string()];
            for (label, _) in &r.files {
                let short = label.split(',').next().unwrap_or(label);
                header.push(format!("{short} MB/s"));
                header.push(format!("blitty in tmux, % of it on {short}"));
            }
            p.set_header(header);
            let names = ["blocking 64 KiB reads", "poll, then drain", "poll, wait 1 ms, drain"];
            for (k, name) in names.iter().enumerate() {
                let mut cells = vec![name.to_string()];
                for (i, per) in row.readers.iter().enumerate() {
                    match per {
                        Some(m) => {
                            cells.push(format!("{:.0}", m[k]));
                            cells.push(
                                find("blitty in tmux", i).map_or("-".into(), |b| format!("{:.0}%", 100.0 * b / m[k])),
                            );
                        }
                        None => cells.extend(["-".to_string(), "-".to_string()]),
                    }
                }
                p.add_row(cells);
            }
            let _ = writeln!(s, "{p}\n");
        }
    }
    // What blitty's frames cost.
    let mut c = Table::new();
    c.load_preset(ASCII_MARKDOWN);
    c.set_header(vec!["reader", "file", "frames/s", "host bytes/s", "read() per MB", "write() per MB", "CPU s per GB"]);
    if let Some(row) = r.rows.iter().find(|row| row.target == ceiling_name) {
        for (i, res) in row.results.iter().enumerate() {
            if let Ok(Flood { reads_per_mb: Some(rpm), .. }) = res {
                let file = r.files[i].0.split(',').next().unwrap_or("").to_string();
                c.add_row(vec![
                    row.target.clone(),
                    file,
                    "-".into(),
                    "-".into(),
                    format!("{rpm:.1}"),
                    "-".into(),
                    "-".into(),
                ]);
            }
        }
    }
    for row in r.rows.iter().filter(|row| row.target.starts_with("blitty")) {
        for (i, res) in row.results.iter().enumerate() {
            if let Ok(Flood { blitty: Some(st), .. }) = res {
                let get = |k: &str| st.get(k).copied().unwrap_or(0.0);
                let (secs, mb) = (get("seconds").max(1e-9), get("child_bytes") / 1e6);
                c.add_row(vec![
                    row.target.clone(),
                    r.files[i].0.split(',').next().unwrap_or("").to_string(),
                    format!("{:.1}", get("frames") / secs),
                    format!("{:.0}", get("host_bytes") / secs),
                    format!("{:.1}", get("syscr") / mb.max(1e-9)),
                    format!("{:.2}", get("syscw") / mb.max(1e-9)),
                    format!("{:.2}", get("cpu") / (mb / 1000.0).max(1e-9)),
                ]);
            }
        }
    }
    let _ = writeln!(s, "{c}\n");
    let mut k = Table::new();
    k.load_preset(ASCII_MARKDOWN);
    k.set_header(vec!["Ctrl-C under `yes`, until the prompt is on the user's screen", "median ms", "samples ms"]);
    for (label, res) in &r.ctrl_c {
        match res {
            Ok((m, v)) => k.add_row(vec![
                label.clone(),
                format!("{m:.1}"),
                v.iter().map(|x| format!("{x:.0}")).collect::<Vec<_>>().join(" "),
            ]),
            Err(e) => k.add_row(vec![label.clone(), e.clone(), "-".into()]),
        };
    }
    let _ = writeln!(s, "{k}\n");
    // What this shows, from the numbers.
    for (i, (label, _)) in r.files.iter().enumerate() {
        let short = label.split(',').next().unwrap_or(label);
        let Some(c) = ceiling[i] else { continue };
        let above: Vec<String> = r
            .rows
            .iter()
            .filter(|row| row.target != ceiling_name)
            .filter_map(|row| {
                row.results[i]
                    .as_ref()
                    .ok()
                    .filter(|f| f.mbps > c)
                    .map(|f| format!("{} ({:.0} MB/s)", row.target, f.mbps))
            })
            .collect();
        if above.is_empty() {
            let _ = writeln!(s, "On {short}, the ceiling ({c:.0} MB/s, the best of three plain readers of the pty: blocking 64 KiB reads, poll then drain, poll then wait 1 ms and drain) is at least every target's figure.");
        } else {
            let _ = writeln!(s, "On {short}, the ceiling ({c:.0} MB/s) was below {} in this run: those rows are within this machine's noise of the ceiling, not above what a pty can carry.", above.join(", "));
        }
    }
    for (i, (label, _)) in r.files.iter().enumerate() {
        let short = label.split(',').next().unwrap_or(label);
        if let (Some(c), Some(b)) = (ceiling[i], find("blitty in tmux", i)) {
            let tmux = find("tmux", i);
            let _ = write!(s, "On {short}, blitty in tmux accepts {:.0}% of what a plain reader takes", 100.0 * b / c);
            if let Some(t) = tmux {
                let _ = write!(s, " ({:.1}x tmux alone, which takes {:.0}%)", b / t, 100.0 * t / c);
            }
            if let Some(x) = find("xterm (Xvfb)", i) {
                let _ = write!(s, "; xterm alone takes {:.0}%", 100.0 * x / c);
            }
            let _ = writeln!(s, ".");
        }
    }
    // Ctrl-C: each blitty row against the same host without blitty, by name.
    let latency = |shell: Shell| {
        r.ctrl_c.iter().find(|(label, _)| label == shell.name()).and_then(|(_, res)| res.as_ref().ok()).map(|x| x.0)
    };
    for (with, without) in [(Shell::Blitty, Shell::Direct), (Shell::BlittyInTmux, Shell::Tmux)] {
        if let (Some(b), Some(t)) = (latency(with), latency(without)) {
            let _ = writeln!(
                s,
                "Ctrl-C reaches the prompt in {b:.1} ms through {} against {t:.1} ms with {} ({}).",
                with.name(),
                without.name(),
                if b <= t { "no slower" } else { "slower" }
            );
        }
    }
    s
}

fn run_json(r: &Report, command: &str) -> serde_json::Value {
    serde_json::json!({
        "command": command,
        "machine": machine(),
        "files": r.files.iter().map(|(l, b)| serde_json::json!({"label": l, "bytes": b})).collect::<Vec<_>>(),
        "floods": r.rows.iter().map(|row| serde_json::json!({
            "target": row.target,
            "results": row.results.iter().map(|res| match res {
                Ok(f) => serde_json::json!({"seconds": f.seconds, "mb_per_s": f.mbps, "blitty": f.blitty}),
                Err(e) => serde_json::json!({"missing": e}),
            }).collect::<Vec<_>>(),
            "plain_readers_mb_per_s": row.readers,
        })).collect::<Vec<_>>(),
        "ctrl_c_ms": r.ctrl_c.iter().map(|(l, res)| serde_json::json!({"target": l, "median": res.as_ref().ok().map(|x| x.0), "samples": res.as_ref().ok().map(|x| x.1.clone()), "missing": res.as_ref().err()})).collect::<Vec<_>>(),
    })
}
