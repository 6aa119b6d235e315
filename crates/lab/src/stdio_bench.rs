//! `blitty bench stdio` (the stdio efficiency table, APUE 5.8 and figure 3.6): copying a file from standard
//! input to standard output (/dev/null) with getc/putc, fgetc/fputc, fgets/fputs, and
//! read/write with buffers of 1 to 524,288 bytes; user, system and clock seconds and the
//! read() and write() system calls of each. Each copy runs as its own process (`blitty probe
//! stdio`); its CPU times come from getrusage(RUSAGE_CHILDREN) and its system calls from the
//! parent's /proc/self/io, to which Linux adds a reaped child's counters. The start-up cost of
//! the probe process, measured on an empty input, is subtracted.

use std::fmt::Write as _;

use comfy_table::{presets::ASCII_MARKDOWN, Table};

use crate::charts;
use crate::report::{header, machine, Context, Error, Section};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::probes::Copy;

pub struct Options {
    pub quick: bool,
    /// The lab, whose `probe stdio` does the copies.
    pub lab: PathBuf,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Row {
    pub method: String,
    pub user: f64,
    pub sys: f64,
    pub clock: f64,
    pub reads: f64,
    pub writes: f64,
    /// Figures measured on a shorter input and multiplied by this.
    pub scaled: Option<f64>,
}

pub struct Report {
    pub bytes: u64,
    pub lines: u64,
    pub short_bytes: u64,
    pub rows: Vec<Row>,
}

/// (user seconds, system seconds) of this process's reaped children, to the microsecond
/// (getrusage; /proc's clock ticks are 10 ms, too coarse for short copies).
fn children_cpu() -> (f64, f64) {
    // SAFETY: getrusage fills the zeroed struct it is given and keeps no pointer to it.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (secs(usage.ru_utime), secs(usage.ru_stime))
}

/// (read calls, write calls) of this process and its reaped children.
fn syscalls() -> (f64, f64) {
    let io = std::fs::read_to_string("/proc/self/io").unwrap_or_default();
    let get = |k: &str| {
        io.lines()
            .find_map(|l| l.strip_prefix(k))
            .and_then(|v| v.trim_start_matches(':').trim().parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (get("syscr"), get("syscw"))
}

fn once(lab: &Path, input: &Path, method: Copy) -> Result<Row, String> {
    let stdin = std::fs::File::open(input).map_err(|e| e.to_string())?;
    let stdout = std::fs::OpenOptions::new().write(true).open("/dev/null").map_err(|e| e.to_string())?;
    let (cpu0, io0) = (children_cpu(), syscalls());
    let t = Instant::now();
    let status = Command::new(lab)
        .arg("probe")
        .arg("stdio")
        .args(method.args())
        .stdin(Stdio::from(stdin))
        .stdout(Stdio::from(stdout))
        .status()
        .map_err(|e| format!("cannot start the probe: {e}"))?;
    let clock = t.elapsed().as_secs_f64();
    let (cpu1, io1) = (children_cpu(), syscalls());
    if !status.success() {
        return Err(format!("the {} probe failed: {status}", method.label()));
    }
    Ok(Row {
        method: method.label(),
        user: cpu1.0 - cpu0.0,
        sys: cpu1.1 - cpu0.1,
        clock,
        reads: io1.0 - io0.0,
        writes: io1.1 - io0.1,
        scaled: None,
    })
}

pub fn run(opts: &Options, mut progress: impl FnMut(&str)) -> Result<Report, String> {
    let dir = std::env::temp_dir().join(format!("blitty-bench-stdio-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    // The book's file: 98.5 MB in 3 million lines (about 33 bytes a line).
    let (mb, short_kb) = if opts.quick { (10, 1000) } else { (100, 10_000) };
    progress("stdio: generating the input");
    let mut rng = crate::workloads::Rng::new(3);
    let mut text = Vec::with_capacity(mb * 1_000_000 + 100);
    while text.len() < mb * 1_000_000 {
        let len = 10 + rng.below(45);
        for _ in 0..len {
            text.push(b"abcdefghijklmnopqrstuvwxyz      "[rng.below(32)]);
        }
        text.push(b'\n');
    }
    let lines = text.iter().filter(|&&b| b == b'\n').count() as u64;
    let input = dir.join("input.txt");
    std::fs::write(&input, &text).map_err(|e| e.to_string())?;
    let short = dir.join("short.txt");
    let cut = text[..short_kb * 1000].iter().rposition(|&b| b == b'\n').map_or(short_kb * 1000, |i| i + 1);
    std::fs::write(&short, &text[..cut]).map_err(|e| e.to_string())?;
    let empty = dir.join("empty.txt");
    std::fs::write(&empty, b"").map_err(|e| e.to_string())?;
    let scale = text.len() as f64 / cut as f64;
    drop(text);

    let mut methods = vec![Copy::GetcPutc, Copy::FgetcFputc, Copy::FgetsFputs];
    methods.extend((0..20).map(|k| Copy::ReadWrite(1 << k)));
    let mut rows = Vec::new();
    for method in methods {
        progress(&format!("stdio: {}", method.label()));
        let base = once(&opts.lab, &empty, method)?;
        let small = matches!(method, Copy::ReadWrite(n) if n < 64);
        let mut row = once(&opts.lab, if small { &short } else { &input }, method)?;
        // What the probe costs before it copies anything (start-up, loading).
        row.user = (row.user - base.user).max(0.0);
        row.sys = (row.sys - base.sys).max(0.0);
        row.clock = (row.clock - base.clock).max(0.0);
        row.reads = (row.reads - base.reads).max(0.0);
        row.writes = (row.writes - base.writes).max(0.0);
        if small {
            for v in [&mut row.user, &mut row.sys, &mut row.clock, &mut row.reads, &mut row.writes] {
                *v *= scale;
            }
            row.scaled = Some(scale);
        }
        rows.push(row);
    }
    let bytes = std::fs::metadata(&input).map(|m| m.len()).unwrap_or(0);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(Report { bytes, lines, short_bytes: cut as u64, rows })
}

/// `bench stdio`: the copies, their table, chart and verdicts.
pub fn experiment(ctx: &Context, progress: &mut dyn FnMut(&str)) -> Result<Section, Error> {
    let report = run(&Options { quick: ctx.quick, lab: ctx.lab.clone() }, &mut *progress)?;
    let md = stdio_markdown(&report, &ctx.command);
    let j = serde_json::json!({"command": ctx.command, "machine": machine(), "bytes": report.bytes, "lines": report.lines, "rows": report.rows});
    let points: Vec<(f64, f64)> = report
        .rows
        .iter()
        .filter_map(|r| {
            r.method.strip_prefix("read/write, BUFFSIZE ").and_then(|n| n.parse::<f64>().ok()).map(|n| (n, r.clock))
        })
        .collect();
    charts::loglog(
        &ctx.out.join("stdio.svg"),
        "read/write copy: clock seconds by BUFFSIZE",
        "BUFFSIZE (bytes)",
        "clock seconds",
        &points,
    )?;
    Ok(Section { name: "stdio", markdown: md, json: j })
}

fn stdio_markdown(r: &Report, command: &str) -> String {
    let mut s = header(
        "stdio: copying a file to /dev/null (the stdio efficiency table, APUE figures 3.6 and 5.6)",
        command,
        false,
    );
    let _ = writeln!(
        s,
        "input: {:.1} MB in {} lines; rows marked * were measured on the first {:.1} MB and scaled up  \n",
        r.bytes as f64 / 1e6,
        r.lines,
        r.short_bytes as f64 / 1e6
    );
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN);
    t.set_header(vec!["method", "user s", "sys s", "clock s", "read() calls", "write() calls"]);
    for row in &r.rows {
        let star = if row.scaled.is_some() { " *" } else { "" };
        t.add_row(vec![
            format!("{}{star}", row.method),
            format!("{:.3}", row.user),
            format!("{:.3}", row.sys),
            format!("{:.3}", row.clock),
            format!("{:.0}", row.reads),
            format!("{:.0}", row.writes),
        ]);
    }
    let _ = writeln!(s, "{t}\n");
    let _ = writeln!(
        s,
        "The book (98.5 MB, 3 million lines): fgetc is almost 12 times faster in user CPU than BUFFSIZE=1 and makes 25,222 system calls; getc/putc costs about 0.11 s of CPU per MB; fgets/fputs is almost twice as fast as getc/putc.  "
    );
    let find = |m: &str| r.rows.iter().find(|row| row.method == m);
    let mb = r.bytes as f64 / 1e6;
    if let (Some(one), Some(best)) = (
        find("read/write, BUFFSIZE 1"),
        r.rows.iter().filter(|row| row.method.starts_with("read/write")).min_by(|a, b| a.clock.total_cmp(&b.clock)),
    ) {
        let _ = writeln!(
            s,
            "Here: 1-byte read/write makes {:.0} system calls and takes {:.2} s; the fastest buffer ({}) takes {:.4} s with {:.0} calls, {:.0}x faster.  ",
            one.reads + one.writes,
            one.clock,
            best.method.trim_start_matches("read/write, "),
            best.clock,
            best.reads + best.writes,
            one.clock / best.clock.max(1e-6)
        );
    }
    if let (Some(g), Some(f), Some(one)) = (find("getc/putc"), find("fgets/fputs"), find("read/write, BUFFSIZE 1")) {
        let _ = writeln!(
            s,
            "getc/putc makes the same number of function calls as 1-byte read/write but only {:.0} system calls, and is {:.0}x faster in clock time; it costs {:.3} s of CPU per MB; fgets/fputs is {:.1}x faster than getc/putc.",
            g.reads + g.writes,
            one.clock / g.clock.max(1e-6),
            (g.user + g.sys) / mb,
            g.clock / f.clock.max(1e-6)
        );
    }
    s
}
