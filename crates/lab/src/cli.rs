//! `blitty bench`: arguments, tables and report files.

use std::fmt::Write as _;
use std::path::PathBuf;

use comfy_table::{presets::ASCII_MARKDOWN, Table};

use crate::engine_bench::{self, Options, Report};

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Which experiment to run.
    #[arg(value_enum, default_value = "engine")]
    which: Which,
    /// Smaller workloads and fewer runs (for CI).
    #[arg(long)]
    quick: bool,
    /// Where the Markdown and JSON reports go.
    #[arg(long, default_value = "bench-report")]
    out: PathBuf,
    /// Print the report as JSON instead of tables.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Which {
    Engine,
}

type Error = Box<dyn std::error::Error + Send + Sync>;

pub fn run(args: BenchArgs) -> Result<(), Error> {
    let Which::Engine = args.which;
    let opts = if args.quick {
        Options { bytes_per_workload: 2_000_000, runs: 3 }
    } else {
        Options { bytes_per_workload: 16_000_000, runs: 5 }
    };
    let report = engine_bench::run(&opts, |what| eprint!("\r\x1b[K  measuring {what} ..."));
    eprint!("\r\x1b[K");
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let markdown = engine_markdown(&report, &opts, &command);
    let json = engine_json(&report, &command);
    std::fs::create_dir_all(&args.out).map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    std::fs::write(args.out.join("engine.md"), &markdown)?;
    std::fs::write(args.out.join("engine.json"), serde_json::to_string_pretty(&json)?)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        print!("{markdown}");
        println!("\n(written to {}/engine.md and engine.json)", args.out.display());
    }
    Ok(())
}

fn machine() -> String {
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    format!("{cpu}, {cores} cores, Linux {}", kernel.trim())
}

fn engine_markdown(r: &Report, opts: &Options, command: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "## Engine throughput (MB/s, median of {} runs, higher is better)\n", opts.runs);
    let _ = writeln!(s, "command: `{command}`  ");
    let _ = writeln!(s, "machine: {}  ", machine());
    let _ = writeln!(
        s,
        "screen: {}x{}, {} lines of scrollback, fed in 64 KiB chunks, {:.1} MB per workload  ",
        engine_bench::COLS,
        engine_bench::ROWS,
        engine_bench::SCROLLBACK,
        opts.bytes_per_workload as f64 / 1e6
    );
    let _ = writeln!(s, "peers: alacritty_terminal 0.26, vt100 0.18, libvterm (system library)\n");
    let alac = r.engines.iter().position(|(n, _)| n == "alacritty_terminal");
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
        let ratio = match (row.mbps[0], alac.and_then(|a| row.mbps[a])) {
            (Some(b), Some(a)) if a > 0.0 => Some(b / a),
            _ => None,
        };
        let target = engine_bench::target_for(&row.workload);
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
    let mut cells = vec!["heap MB".to_string()];
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
    if let (Some(Some(b)), Some(Some(a))) = (r.memory.first(), alac.map(|i| r.memory[i])) {
        let _ = writeln!(
            s,
            "With 10,000 lines of scrollback filled, blitty holds {:.1} MB against alacritty_terminal's {:.1} MB ({:.0}%; target at most 50%).",
            *b as f64 / 1e6,
            a as f64 / 1e6,
            100.0 * *b as f64 / a as f64
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
        "screen": { "cols": engine_bench::COLS, "rows": engine_bench::ROWS, "scrollback": engine_bench::SCROLLBACK },
        "engines": r.engines.iter().map(|(n, m)| serde_json::json!({"name": n, "missing": if m.is_empty() { None } else { Some(m) }})).collect::<Vec<_>>(),
        "workloads": r.rows.iter().map(|row| serde_json::json!({
            "name": row.workload, "about": row.about, "bytes": row.bytes,
            "mb_per_s": r.engines.iter().zip(&row.mbps).map(|((n, _), v)| (n.clone(), serde_json::json!(v))).collect::<serde_json::Map<_, _>>(),
        })).collect::<Vec<_>>(),
        "memory_bytes": r.engines.iter().zip(&r.memory).map(|((n, _), v)| (n.clone(), serde_json::json!(v))).collect::<serde_json::Map<_, _>>(),
    })
}
