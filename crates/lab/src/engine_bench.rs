//! `blitty bench engine`: blitty's engine against its peers on each workload, in one run.
//! Every engine gets the same bytes, in 64 KiB chunks (as a terminal reading a pty), on an
//! 80x24 screen with 10,000 lines of scrollback; the median of several runs is reported.

use std::fmt::Write as _;

use comfy_table::{presets::ASCII_MARKDOWN, Table};

use crate::charts;
use crate::common::stats::median;
use crate::report::{header, machine, Context, Error, Section};
use std::time::Instant;

use crate::peers::{self, Engine};
use crate::workloads::{self, Rng};

pub const COLS: usize = 80;
pub const ROWS: usize = 24;
pub const SCROLLBACK: usize = 10_000;
const CHUNK: usize = 65536;

pub struct Options {
    pub bytes_per_workload: usize,
    pub runs: usize,
}

pub struct Row {
    pub workload: String,
    pub about: String,
    pub bytes: usize,
    /// MB/s per engine, in `engines` order; None for an engine not installed.
    pub mbps: Vec<Option<f64>>,
}

pub struct Report {
    pub engines: Vec<(String, String)>,
    pub rows: Vec<Row>,
    /// Heap bytes each engine holds after the plain workload filled its scrollback.
    pub memory: Vec<Option<usize>>,
}

fn feed_all(engine: &mut dyn Engine, data: &[u8]) {
    for chunk in data.chunks(CHUNK) {
        engine.feed(chunk);
    }
}

/// Bytes malloc has handed out and not had back: glibc's mallinfo2, chunks in use in the heap
/// (uordblks) plus chunks it mapped on their own (hblkhd). It counts every allocation, Rust's
/// (whose global allocator is malloc) and C's (libvterm's) alike.
fn malloc_in_use() -> usize {
    // SAFETY: mallinfo2 only reads malloc's statistics and returns them by value.
    let m = unsafe { libc::mallinfo2() };
    m.uordblks + m.hblkhd
}

/// Each engine's MB/s on `data` (None for an engine not installed), in `peers` order: `runs`
/// runs each on a fresh 80x24 engine with 10,000 lines of scrollback, fed in 64 KiB chunks,
/// the median taken. `progress` is told the engine and round (from 1) before each run.
pub fn throughput(
    peers: &[peers::Peer],
    data: &[u8],
    runs: usize,
    mut progress: impl FnMut(&str, usize),
) -> Vec<Option<f64>> {
    // The engines take turns, one run each per round, each round starting with the next
    // engine: on a shared machine a slow spell then costs every engine alike, where runs done
    // back to back gave it to whichever engine was running (the corpus row moved from 2.4x to
    // 1.3x between two such runs of the same code).
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); peers.len()];
    for round in 0..runs {
        for k in 0..peers.len() {
            let at = (round + k) % peers.len();
            let Some(make) = peers[at].make else { continue };
            progress(peers[at].name, round + 1);
            let mut e = make(COLS, ROWS, SCROLLBACK);
            let t = Instant::now();
            feed_all(e.as_mut(), data);
            times[at].push(t.elapsed().as_secs_f64());
            std::hint::black_box(&e);
        }
    }
    times.into_iter().map(|t| (!t.is_empty()).then(|| data.len() as f64 / 1e6 / median(t))).collect()
}

pub fn run(opts: &Options, mut progress: impl FnMut(&str)) -> Report {
    let peers = peers::all();
    let engines = peers.iter().map(|p| (p.name.to_string(), p.missing.to_string())).collect();
    let mut rows = Vec::new();
    for (i, w) in workloads::all().into_iter().enumerate() {
        let data = workloads::bench_bytes(i, &w, opts.bytes_per_workload);
        let mbps = throughput(&peers, &data, opts.runs, |peer, round| {
            progress(&format!("{} / {peer} (round {round} of {})", w.name, opts.runs))
        });
        rows.push(Row { workload: w.name.into(), about: w.about.into(), bytes: data.len(), mbps });
    }
    // Memory: enough plain lines to fill 10,000 lines of scrollback, measured as what malloc
    // holds (Rust's allocator is malloc here, and libvterm calls malloc itself).
    let plain = workloads::plain_lines(&mut Rng::new(99), 1_200_000);
    let memory = peers
        .iter()
        .map(|p| {
            let make = p.make?;
            progress(&format!("memory / {}", p.name));
            let before = malloc_in_use();
            let mut e = make(COLS, ROWS, SCROLLBACK);
            feed_all(e.as_mut(), &plain);
            let held = malloc_in_use().saturating_sub(before);
            drop(e);
            Some(held)
        })
        .collect();
    Report { engines, rows, memory }
}

/// The engine's targets, as ratios of blitty to alacritty_terminal in the same run: 10x on
/// plain and long lines, 2x on every escape-heavy workload and on mixed Unicode text and combining marks, 4x on
/// the recorded corpus. Every workload has one.
pub fn target_for(workload: &str) -> Option<f64> {
    match workload {
        "plain" | "long-line" => Some(10.0),
        "corpus" => Some(4.0),
        "sgr-256" | "sgr-truecolor" | "cursor" | "region-scroll" | "unicode" | "combining" => Some(2.0),
        _ => None,
    }
}

/// `bench engine`: the run, its tables, chart and verdicts.
pub fn experiment(ctx: &Context, progress: &mut dyn FnMut(&str)) -> Result<Section, Error> {
    let opts = if ctx.quick {
        Options { bytes_per_workload: 2_000_000, runs: 3 }
    } else {
        Options { bytes_per_workload: 16_000_000, runs: 7 }
    };
    let report = run(&opts, &mut *progress);
    let md = engine_markdown(&report, &opts, &ctx.command);
    let j = engine_json(&report, &ctx.command);
    let groups: Vec<String> = report.rows.iter().map(|r| r.workload.clone()).collect();
    let series = charts::series(report.engines.iter().map(|(name, _)| name.clone()), &report.rows, |r, k| r.mbps[k]);
    charts::bars(&ctx.out.join("engine.svg"), "Engine throughput (MB/s)", "MB/s", &groups, &series)?;
    Ok(Section { name: "engine", markdown: md, json: j })
}

fn engine_markdown(r: &Report, opts: &Options, command: &str) -> String {
    let mut s = header(
        &format!("Engine throughput (MB/s, median of {} runs, the engines taking turns, higher is better)", opts.runs),
        command,
        false,
    );
    let _ = writeln!(
        s,
        "screen: {}x{}, {} lines of scrollback, fed in 64 KiB chunks, {:.1} MB per workload  ",
        COLS,
        ROWS,
        SCROLLBACK,
        opts.bytes_per_workload as f64 / 1e6
    );
    let _ = writeln!(s, "peers: alacritty_terminal 0.26, vt100 0.18, libvterm (system library)\n");
    // Columns are found by the engine's name, never by position.
    let alac = r.engines.iter().position(|(n, _)| n == "alacritty_terminal");
    let me = r.engines.iter().position(|(n, _)| n == "blitty");
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN);
    let mut header = vec!["workload".to_string()];
    header.extend(r.engines.iter().map(|(n, _)| n.clone()));
    header.extend(["blitty / alacritty".into(), "target".into()]);
    t.set_header(header);
    let mut verdicts = Vec::new();
    for row in &r.rows {
        let mut cells = vec![row.workload.clone()];
        cells.extend(row.mbps.iter().map(|m| m.map_or("not installed".into(), |v| format!("{v:.0}"))));
        let ratio = match (me.and_then(|m| row.mbps[m]), alac.and_then(|a| row.mbps[a])) {
            (Some(b), Some(a)) if a > 0.0 => Some(b / a),
            _ => None,
        };
        let target = target_for(&row.workload);
        cells.push(ratio.map_or("-".into(), |x| format!("{x:.2}x")));
        cells.push(target.map_or("none set".into(), |t| format!("{t}x")));
        if let (Some(x), Some(t)) = (ratio, target) {
            verdicts.push((row.workload.clone(), x, t));
        }
        t.add_row(cells);
    }
    let _ = writeln!(s, "{t}\n");
    let mut m = Table::new();
    m.load_preset(ASCII_MARKDOWN);
    let mut header = vec!["memory after filling scrollback".to_string()];
    header.extend(r.engines.iter().map(|(n, _)| n.clone()));
    m.set_header(header);
    let mut cells = vec!["malloc'd MB".to_string()];
    cells.extend(r.engines.iter().zip(&r.memory).map(|((_, missing), mem)| match mem {
        Some(b) => format!("{:.1}", *b as f64 / 1e6),
        None if !missing.is_empty() => "not installed".into(),
        None => "unknown".into(),
    }));
    m.add_row(cells);
    let _ = writeln!(s, "{m}\n");
    // What this shows, from the numbers.
    let met: Vec<_> = verdicts.iter().filter(|(_, x, t)| x >= t).map(|(w, x, _)| format!("{w} {x:.1}x")).collect();
    let missed: Vec<_> =
        verdicts.iter().filter(|(_, x, t)| x < t).map(|(w, x, t)| format!("{w} {x:.1}x of {t}x")).collect();
    let _ = writeln!(
        s,
        "What this shows: blitty meets its target against alacritty_terminal on {} of {} workloads{}{}.",
        met.len(),
        verdicts.len(),
        if met.is_empty() { String::new() } else { format!(" ({})", met.join(", ")) },
        if missed.is_empty() { String::new() } else { format!("; it misses {}", missed.join(", ")) }
    );
    if let (Some(Some(b)), Some(Some(a))) = (me.map(|i| r.memory[i]), alac.map(|i| r.memory[i])) {
        let _ = writeln!(
            s,
            "With 10,000 lines of scrollback filled, blitty holds {:.1} MB against alacritty_terminal's {:.1} MB ({:.0}%; target at most 50%).",
            b as f64 / 1e6,
            a as f64 / 1e6,
            100.0 * b as f64 / a as f64
        );
    }
    if r.engines.iter().any(|(n, m)| n == "libvterm" && m.is_empty()) {
        let _ = writeln!(
            s,
            "libvterm keeps no scrollback of its own (it hands each line that scrolls off to its embedder, which drops it here), so its figure is its screen alone."
        );
    }
    for (name, missing) in &r.engines {
        if !missing.is_empty() {
            let _ = writeln!(s, "{name}: {missing}.");
        }
    }
    s
}

fn engine_json(r: &Report, command: &str) -> serde_json::Value {
    serde_json::json!({
        "command": command,
        "machine": machine(),
        "screen": { "cols": COLS, "rows": ROWS, "scrollback": SCROLLBACK },
        "engines": r.engines.iter().map(|(n, m)| serde_json::json!({"name": n, "missing": if m.is_empty() { None } else { Some(m) }})).collect::<Vec<_>>(),
        "workloads": r.rows.iter().map(|row| serde_json::json!({
            "name": row.workload, "about": row.about, "bytes": row.bytes,
            "mb_per_s": r.engines.iter().zip(&row.mbps).map(|((n, _), v)| (n.clone(), serde_json::json!(v))).collect::<serde_json::Map<_, _>>(),
        })).collect::<Vec<_>>(),
        "memory_bytes": r.engines.iter().zip(&r.memory).map(|((n, _), v)| (n.clone(), serde_json::json!(v))).collect::<serde_json::Map<_, _>>(),
    })
}
