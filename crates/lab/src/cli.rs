//! `blitty-lab bench` (what `blitty bench` runs): arguments, tables and report files.

use std::fmt::Write as _;
use std::path::PathBuf;

use comfy_table::{presets::ASCII_MARKDOWN, Table};

use crate::charts;
use crate::engine_bench::{self, Options, Report};
use crate::ports_bench;
use crate::probes::Copy;
use crate::run_bench::{self, Flood};
use crate::stdio_bench;
use crate::writes_bench;

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Which experiment to run.
    #[arg(value_enum, default_value = "all")]
    which: Which,
    /// Smaller workloads and fewer runs (for CI).
    #[arg(long)]
    quick: bool,
    /// Where the Markdown, JSON and SVG reports go.
    #[arg(long, default_value = "bench-report")]
    out: PathBuf,
    /// Only these targets (comma-separated: plain, hidden, blitty, tmux, screen, xterm); the
    /// plain reader always runs where a table is relative to it. Default: all.
    #[arg(long, value_delimiter = ',', value_parser = ["plain", "hidden", "blitty", "tmux", "screen", "xterm"])]
    targets: Vec<String>,
    /// Print the report as JSON instead of tables.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Which {
    /// Every experiment below.
    All,
    /// The engine against peer engines on generated and recorded workloads.
    Engine,
    /// Floods and Ctrl-C through blitty run, tmux and xterm.
    Run,
    /// Seed 003: copying a file with standard I/O and with read/write of every buffer size.
    Stdio,
    /// Seed 000: the 16 ways of writing characters, into each target terminal.
    Writes,
    /// Seed 001: lines per second with and without scrolling, presented and hidden.
    Scroll,
    /// Seed 002: one character per write() against 96 per write(), and where the time goes.
    Stones,
    /// Seed 004: many serial lines (pty pairs) received at once, blitty against a naive reader.
    Ports,
}

#[derive(clap::Args)]
pub struct ProbeArgs {
    /// `stdio METHOD [BUFSIZE]`: copy standard input to standard output with getc, fgetc,
    /// fgets, or read with a buffer of BUFSIZE bytes. `writes METHOD cooked|raw TEXT RESULT`:
    /// write TEXT to the terminal one of seed 000's ways and record what it cost.
    #[arg(num_args = 1..)]
    args: Vec<String>,
}

/// Runs a probe; returns the exit status (2 for bad arguments).
pub fn probe(args: ProbeArgs) -> i32 {
    let words: Vec<&str> = args.args.iter().map(String::as_str).collect();
    if let ["writes", method, mode, text, result] = words[..] {
        // 0..8 are seed 000's methods; 8 writes 96-byte strings (seed 002).
        let method: Option<usize> = method.parse().ok().filter(|&m| m <= crate::probes::WRITE_METHODS.len());
        let (Some(method), Ok(text)) = (method, std::fs::read(text)) else {
            eprintln!("blitty-lab: probe writes takes METHOD(0-8) cooked|raw TEXTFILE RESULTFILE");
            return 2;
        };
        let Some(cost) = crate::probes::writes(method, mode == "raw", &text) else { return 2 };
        let line = format!(
            "{} {} {} {} {}\n",
            cost.returned,
            cost.processed.unwrap_or(-1.0),
            cost.user,
            cost.sys,
            cost.write_calls
        );
        return if std::fs::write(result, line).is_ok() { 0 } else { 2 };
    }
    if let ["ports-recv", mode, baud, list] = words[..] {
        return match ports_bench::receive(mode, baud, list) {
            Ok(()) => 0,
            Err(e) => {
                println!("error {e}");
                eprintln!("blitty-lab: {e}");
                2
            }
        };
    }
    match words[..] {
        ["stdio", method] => Copy::parse(method, None),
        ["stdio", method, size] => Copy::parse(method, size.parse().ok()),
        _ => None,
    }
    .map_or_else(
        || {
            eprintln!("blitty-lab: probe takes `stdio getc|fgetc|fgets` or `stdio read BUFSIZE`");
            2
        },
        crate::probes::stdio,
    )
}

type Error = Box<dyn std::error::Error + Send + Sync>;

/// The two programs the experiments run: `blitty` (the product, for `blitty run` targets) and
/// this lab (for its C probes).
struct Programs {
    blitty: PathBuf,
    lab: PathBuf,
}

impl Programs {
    /// The lab is this program; `blitty` is `BLITTY_BIN` (set by `blitty bench`), else the
    /// `blitty` beside this program (as cargo builds them), else an error saying so.
    fn find() -> Result<Programs, Error> {
        let lab = std::env::current_exe().map_err(|e| format!("cannot find the blitty-lab binary: {e}"))?;
        let blitty = match std::env::var_os("BLITTY_BIN") {
            Some(path) => PathBuf::from(path),
            None => lab.with_file_name("blitty"),
        };
        if !blitty.is_file() {
            return Err(format!(
                "cannot find blitty at {} (build it with `cargo build --release -p blitty`, or set BLITTY_BIN)",
                blitty.display()
            )
            .into());
        }
        Ok(Programs { blitty, lab })
    }
}

pub fn run(args: BenchArgs) -> Result<(), Error> {
    let programs = Programs::find()?;
    std::fs::create_dir_all(&args.out).map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    // A spinner with what is being measured (indicatif draws nothing when stderr is not a
    // terminal, as in CI).
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {elapsed} measuring {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    let progress = |what: &str| bar.set_message(what.to_string());
    let mut reports = Reports { out: args.out.clone(), markdown: String::new(), json: serde_json::Map::new() };
    if matches!(args.which, Which::All | Which::Engine) {
        let opts = if args.quick {
            Options { bytes_per_workload: 2_000_000, runs: 3 }
        } else {
            Options { bytes_per_workload: 16_000_000, runs: 5 }
        };
        let report = engine_bench::run(&opts, progress);
        let md = engine_markdown(&report, &opts, &command);
        let j = engine_json(&report, &command);
        let groups: Vec<String> = report.rows.iter().map(|r| r.workload.clone()).collect();
        let series: Vec<charts::Series> = report
            .engines
            .iter()
            .enumerate()
            .map(|(k, (name, _))| charts::Series {
                name: name.clone(),
                values: report.rows.iter().map(|r| r.mbps[k]).collect(),
            })
            .collect();
        charts::bars(&args.out.join("engine.svg"), "Engine throughput (MB/s)", "MB/s", &groups, &series)?;
        reports.add("engine", md, j)?;
    }
    if matches!(args.which, Which::All | Which::Writes) {
        let tables = writes_bench::run(
            &writes_bench::Options {
                quick: args.quick,
                blitty: programs.blitty.clone(),
                lab: programs.lab.clone(),
                targets: args.targets.clone(),
            },
            progress,
        )?;
        let md = writes_markdown(&tables, &command);
        let j = serde_json::json!({
            "command": command, "machine": machine(),
            "tables": tables.iter().map(|t| serde_json::json!({
                "target": t.target.name(), "text": t.text,
                "rows": t.rows.as_ref().map(|r| r.iter().map(|(m, c)| serde_json::json!({"method": m, "cost": c})).collect::<Vec<_>>()).map_err(|e| e.clone()),
            })).collect::<Vec<_>>(),
        });
        for (i, text) in
            tables.iter().map(|t| t.text.clone()).collect::<std::collections::BTreeSet<_>>().into_iter().enumerate()
        {
            let of_text: Vec<&writes_bench::Table> = tables.iter().filter(|t| t.text == text).collect();
            let groups: Vec<String> = of_text.iter().map(|t| t.target.name().to_string()).collect();
            let series: Vec<charts::Series> = ["cooked, write", "raw, write", "raw, fwrite"]
                .iter()
                .map(|m| charts::Series {
                    name: m.to_string(),
                    values: of_text
                        .iter()
                        .map(|t| {
                            let chars = if m.starts_with("raw") { t.chars_raw } else { t.chars_cooked } as f64;
                            t.rows
                                .as_ref()
                                .ok()?
                                .iter()
                                .find(|(name, _)| name == m)?
                                .1
                                .processed
                                .map(|p| chars / p.max(1e-9))
                        })
                        .collect(),
                })
                .collect();
            charts::bars(
                &args.out.join(format!("writes-{}.svg", i + 1)),
                &format!("Characters per second until processed: {text}"),
                "chars/s",
                &groups,
                &series,
            )?;
        }
        reports.add("writes", md, j)?;
    }
    if matches!(args.which, Which::All | Which::Stones) {
        let (sizes, rows) = writes_bench::run_stones(
            &writes_bench::Options {
                quick: args.quick,
                blitty: programs.blitty.clone(),
                lab: programs.lab.clone(),
                targets: args.targets.clone(),
            },
            progress,
        )?;
        let md = stones_markdown(&sizes, &rows, &command);
        let j = serde_json::json!({
            "command": command, "machine": machine(), "characters": sizes,
            "rows": rows.iter().map(|r| serde_json::json!({
                "target": r.target.name(),
                "results": r.results.iter().map(|x| match x {
                    Ok((cps, cost)) => serde_json::json!({"chars_per_s": cps, "reader_cpu_s": cost.map(|c| c.cpu), "reader_reads": cost.map(|c| c.reads), "reader_writes": cost.map(|c| c.writes)}),
                    Err(e) => serde_json::json!({"missing": e}),
                }).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        });
        let groups: Vec<String> = rows.iter().map(|r| r.target.name().to_string()).collect();
        let series: Vec<charts::Series> = ["charstones", "stringstones"]
            .iter()
            .enumerate()
            .map(|(k, name)| charts::Series {
                name: name.to_string(),
                values: rows.iter().map(|r| r.results.get(k).and_then(|x| x.as_ref().ok()).map(|x| x.0)).collect(),
            })
            .collect();
        charts::bars(&args.out.join("stones.svg"), "Characters per second", "chars/s", &groups, &series)?;
        reports.add("stones", md, j)?;
    }
    if matches!(args.which, Which::All | Which::Scroll) {
        let (lines, rows) = writes_bench::run_scroll(
            &writes_bench::Options {
                quick: args.quick,
                blitty: programs.blitty.clone(),
                lab: programs.lab.clone(),
                targets: args.targets.clone(),
            },
            progress,
        )?;
        let md = scroll_markdown(lines, &rows, &command);
        let j = serde_json::json!({
            "command": command, "machine": machine(), "lines": lines,
            "columns": ["scroll, opost", "scroll, -opost", "no scroll, opost", "no scroll, -opost"],
            "rows": rows.iter().map(|r| serde_json::json!({"target": r.target.name(), "lines_per_s": r.lines_per_s.as_ref().map(|v| v.to_vec()).map_err(|e| e.clone())})).collect::<Vec<_>>(),
        });
        let groups: Vec<String> = rows.iter().map(|r| r.target.name().to_string()).collect();
        let series: Vec<charts::Series> = ["scroll, opost", "scroll, -opost", "no scroll, opost", "no scroll, -opost"]
            .iter()
            .enumerate()
            .map(|(k, name)| charts::Series {
                name: name.to_string(),
                values: rows.iter().map(|r| r.lines_per_s.as_ref().ok().map(|v| v[k])).collect(),
            })
            .collect();
        charts::bars(&args.out.join("scroll.svg"), "Lines of screen width per second", "lines/s", &groups, &series)?;
        reports.add("scroll", md, j)?;
    }
    if matches!(args.which, Which::All | Which::Stdio) {
        let report =
            stdio_bench::run(&stdio_bench::Options { quick: args.quick, lab: programs.lab.clone() }, progress)?;
        let md = stdio_markdown(&report, &command);
        let j = serde_json::json!({"command": command, "machine": machine(), "bytes": report.bytes, "lines": report.lines, "rows": report.rows});
        let points: Vec<(f64, f64)> = report
            .rows
            .iter()
            .filter_map(|r| {
                r.method.strip_prefix("read/write, BUFFSIZE ").and_then(|n| n.parse::<f64>().ok()).map(|n| (n, r.clock))
            })
            .collect();
        charts::loglog(
            &args.out.join("stdio.svg"),
            "read/write copy: clock seconds by BUFFSIZE",
            "BUFFSIZE (bytes)",
            "clock seconds",
            &points,
        )?;
        reports.add("stdio", md, j)?;
    }
    if matches!(args.which, Which::All | Which::Run) {
        let report = run_bench::run(
            &run_bench::Options { quick: args.quick, blitty: programs.blitty.clone(), targets: args.targets.clone() },
            progress,
        )?;
        let md = run_markdown(&report, &command);
        let j = run_json(&report, &command);
        let groups: Vec<String> = report.rows.iter().map(|r| r.target.clone()).collect();
        let series: Vec<charts::Series> = report
            .files
            .iter()
            .enumerate()
            .map(|(i, (label, _))| charts::Series {
                name: label.clone(),
                values: report.rows.iter().map(|r| r.results[i].as_ref().ok().map(|f| f.mbps)).collect(),
            })
            .collect();
        charts::bars(&args.out.join("run.svg"), "cat floods: MB/s as the writer sees it", "MB/s", &groups, &series)?;
        reports.add("run", md, j)?;
    }
    if matches!(args.which, Which::All | Which::Ports) {
        let report =
            ports_bench::run(&ports_bench::Options { quick: args.quick, lab: programs.lab.clone() }, progress)?;
        let md = ports_markdown(&report, &command);
        let j = serde_json::json!({"command": command, "machine": machine(), "report": report});
        let bauds: Vec<u32> =
            report.rows.iter().map(|r| r.baud).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
        let groups: Vec<String> = bauds.iter().map(|b| format!("{b} baud")).collect();
        let series: Vec<charts::Series> = [ports_bench::Mode::Blitty, ports_bench::Mode::Naive]
            .iter()
            .map(|&m| charts::Series {
                name: m.name().to_string(),
                values: bauds
                    .iter()
                    .map(|b| {
                        report
                            .rows
                            .iter()
                            .find(|r| r.baud == *b && r.mode == m)
                            .and_then(|r| r.best.as_ref())
                            .map(|t| t.ports as f64)
                    })
                    .collect(),
            })
            .collect();
        charts::bars(
            &args.out.join("ports.svg"),
            "Lines received at line speed, losslessly",
            "lines",
            &groups,
            &series,
        )?;
        reports.add("ports", md, j)?;
    }
    bar.finish_and_clear();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&serde_json::Value::Object(reports.json))?);
    } else {
        print!("{}", reports.markdown);
        println!("\n(written to {}/)", args.out.display());
    }
    Ok(())
}

fn stones_markdown(sizes: &[usize], rows: &[writes_bench::StonesRow], command: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "## stones: charstones and stringstones (seed 002)\n");
    let _ = writeln!(s, "command: `{command}`  ");
    let _ = writeln!(s, "machine: {}  ", machine());
    let _ = writeln!(s, "terminals: {}  ", versions());
    let _ = writeln!(
        s,
        "charstones: {} characters, one per write(); stringstones: {} characters, 96 per write(); raw mode; timed until the terminal answers a DSR after them. The reader's cost is what the terminal side paid per 1,000 characters: for the plain reader and the hidden engine, the bench's own thread; for blitty run, its --stats; for tmux, screen and xterm, their processes (client and server) sampled from /proc every 5 ms, including their start-up.  \n",
        sizes.first().unwrap_or(&0),
        sizes.get(1).unwrap_or(&0)
    );
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN);
    t.set_header(vec![
        "target",
        "test",
        "chars/s",
        "reader CPU ms per 1000 chars",
        "reader read() per 1000 chars",
        "reader write() per 1000 chars",
    ]);
    let mut char_cps = Vec::new();
    for r in rows {
        for (k, res) in r.results.iter().enumerate() {
            let test = if k == 0 { "charstones" } else { "stringstones" };
            let n = sizes.get(k).copied().unwrap_or(1) as f64 / 1000.0;
            match res {
                Ok((cps, cost)) => {
                    if k == 0 {
                        char_cps.push((r.target, *cps));
                    }
                    let per = |v: f64| format!("{:.2}", v / n);
                    t.add_row(vec![
                        r.target.name().to_string(),
                        test.into(),
                        format!("{cps:.0}"),
                        cost.map_or("not measured".into(), |c| format!("{:.3}", 1000.0 * c.cpu / n)),
                        cost.map_or("-".into(), |c| per(c.reads)),
                        cost.map_or("-".into(), |c| per(c.writes)),
                    ]);
                }
                Err(e) => {
                    t.add_row(vec![
                        r.target.name().to_string(),
                        test.into(),
                        e.clone(),
                        "-".into(),
                        "-".into(),
                        "-".into(),
                    ]);
                }
            }
        }
    }
    let _ = writeln!(s, "{t}\n");
    let _ = writeln!(s, "The seed (X11R3 on a Sun 3/50, 1988): charstones 112-115 characters/s against stringstones 3,316-4,540 whatever the optimisation; under 2% of the time was drawing, the rest read/select/writev/gettimeofday and call overhead.  ");
    for r in rows {
        if let (Some(Ok((c, Some(cc)))), Some(Ok((st, _)))) = (r.results.first(), r.results.get(1)) {
            let _ = writeln!(
                s,
                "{}: stringstones run {:.0}x faster than charstones; with one character per write() the reader makes {:.0} read() calls per 1,000 characters.  ",
                r.target.name(),
                st / c.max(1e-9),
                cc.reads / (sizes.first().copied().unwrap_or(1) as f64 / 1000.0)
            );
        }
    }
    s
}

fn scroll_markdown(lines: usize, rows: &[writes_bench::ScrollRow], command: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "## scroll: lines of screen width per second (seed 001)\n");
    let _ = writeln!(s, "command: `{command}`  ");
    let _ = writeln!(s, "machine: {}  ", machine());
    let _ = writeln!(s, "terminals: {}  ", versions());
    let _ = writeln!(
        s,
        "{lines} lines of 80 characters in one write, timed until the terminal answers a DSR after them; \"no scroll\" homes the cursor after each screenful (24 lines); -opost is stty -opost (the text carries its own CR). \"Hidden\" is blitty's engine parsing with nothing presented (the seed's offscreen vty).  \n"
    );
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN);
    t.set_header(vec!["target", "scroll, opost", "scroll, -opost", "no scroll, opost", "no scroll, -opost"]);
    for r in rows {
        let mut cells = vec![r.target.name().to_string()];
        match &r.lines_per_s {
            Ok(v) => cells.extend(v.iter().map(|x| format!("{x:.0}"))),
            Err(e) => cells.extend([e.clone(), "-".into(), "-".into(), "-".into()]),
        }
        t.add_row(cells);
    }
    let _ = writeln!(s, "{t}\n");
    let _ = writeln!(
        s,
        "The seed's figures: syscons scrolls at 50,000 lines/s (FreeBSD-5.2 on a PCI R9200SE); in 1990-era rows, Minix 1.6.25 on a K6/233 took 0.2 s and old Linux 1.1.36 on a 486/33 took 40.26 s for the same run (26 lines/s rescaled).  "
    );
    let get = |target: writes_bench::Target| {
        rows.iter().find(|r| r.target == target).and_then(|r| r.lines_per_s.as_ref().ok())
    };
    if let (Some(h), Some(b)) = (get(writes_bench::Target::HiddenEngine), get(writes_bench::Target::Blitty)) {
        let _ = write!(
            s,
            "Here blitty's hidden engine takes {:.0} lines/s while scrolling ({:.1}x syscons' 50,000) and blitty presenting takes {:.0}",
            h[0],
            h[0] / 50_000.0,
            b[0]
        );
        if let Some(t) = get(writes_bench::Target::Tmux) {
            let _ = write!(s, "; tmux takes {:.0}", t[0]);
        }
        if let Some(x) = get(writes_bench::Target::Xterm) {
            let _ = write!(s, "; xterm takes {:.0}", x[0]);
        }
        let change = 100.0 * (h[2] / h[0].max(1e-9) - 1.0);
        if change > 0.0 {
            let _ = writeln!(s, ". Homing the cursor instead of scrolling makes blitty's hidden engine {change:.0}% faster: scrolling is an index move, not a copy, but recycled rows must be cleared.");
        } else {
            let _ = writeln!(s, ". Scrolling costs blitty's hidden engine nothing here against homing the cursor ({:.0}% the other way): scrolling is an index move, not a copy.", -change);
        }
    }
    s
}

fn writes_markdown(tables: &[writes_bench::Table], command: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "## writes: the 16 ways of writing characters (seed 000)\n");
    let _ = writeln!(s, "command: `{command}`  ");
    let _ = writeln!(s, "machine: {}  ", machine());
    let _ = writeln!(s, "terminals: {}  ", versions());
    let _ = writeln!(
        s,
        "\"real, returned\" is until the last write returns; \"real, processed\" is until the terminal answers a DSR sent after the text, which is what the seed asks (how fast the screen takes characters written this way); CPS uses it. A pty holds about 18 KB unread, so a 4 KB text returns at once whatever the terminal. Cooked counts the CR that OPOST adds to each NL.  \n"
    );
    for t in tables {
        let _ = writeln!(s, "### {} — {}\n", t.target.name(), t.text);
        let rows = match &t.rows {
            Ok(rows) => rows,
            Err(e) => {
                let _ = writeln!(s, "{e}\n");
                continue;
            }
        };
        let control = |raw: bool| {
            rows.iter()
                .find(|(m, _)| m == if raw { "raw, fwrite" } else { "cooked, fwrite" })
                .and_then(|(_, c)| c.processed)
        };
        let mut tb = Table::new();
        tb.load_preset(ASCII_MARKDOWN);
        tb.set_header(vec![
            "Method",
            "real, returned",
            "real, processed",
            "user",
            "sys",
            "CPS",
            "% of control",
            "write() per char",
            "1988 console CPS",
            "1988 tty000 CPS",
        ]);
        for (method, c) in rows {
            let raw = method.starts_with("raw");
            let chars = if raw { t.chars_raw } else { t.chars_cooked } as f64;
            let cps = c.processed.map(|p| chars / p.max(1e-9));
            let pct = match (c.processed, control(raw)) {
                (Some(p), Some(ctl)) => format!("{:.1}%", 100.0 * ctl / p.max(1e-9)),
                _ => "-".into(),
            };
            let seed = writes_bench::SEED_CPS.iter().find(|(m, _, _)| *m == method.as_str());
            tb.add_row(vec![
                method.clone(),
                format!("{:.4}", c.returned),
                c.processed.map_or("no answer".into(), |p| format!("{p:.4}")),
                format!("{:.3}", c.user),
                format!("{:.3}", c.sys),
                cps.map_or("-".into(), |v| format!("{v:.0}")),
                pct,
                format!("{:.2}", c.write_calls / t.chars_raw as f64),
                seed.map_or("-".into(), |x| format!("{:.1}", x.1)),
                seed.map_or("-".into(), |x| format!("{:.1}", x.2)),
            ]);
        }
        let _ = writeln!(s, "{tb}\n");
        // What this shows, from the numbers.
        let one = rows.iter().find(|(m, _)| m == "raw, write").and_then(|(_, c)| c.processed);
        if let (Some(one), Some(ctl)) = (one, control(true)) {
            let _ = writeln!(
                s,
                "The control (one fwrite) is {:.0}x faster than 1-byte writes here: each character costs a write() system call ({:.2} per character against {:.4} for the control).\n",
                one / ctl.max(1e-9),
                rows.iter().find(|(m, _)| m == "raw, write").map_or(0.0, |(_, c)| c.write_calls / t.chars_raw as f64),
                rows.iter().find(|(m, _)| m == "raw, fwrite").map_or(0.0, |(_, c)| c.write_calls / t.chars_raw as f64),
            );
        }
    }
    s
}

fn stdio_markdown(r: &stdio_bench::Report, command: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "## stdio: copying a file to /dev/null (seed 003, APUE figures 3.6 and 5.6)\n");
    let _ = writeln!(s, "command: `{command}`  ");
    let _ = writeln!(s, "machine: {}  ", machine());
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

fn run_markdown(r: &run_bench::Report, command: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "## blitty run: floods (MB/s as the writer sees it, median of {} runs)\n", r.runs);
    let _ = writeln!(s, "command: `{command}`  ");
    let _ = writeln!(s, "machine: {}  ", machine());
    let _ = writeln!(
        s,
        "files: {}; 80x24; `cat FILE` timed by the writer from start to end  \n",
        r.files.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>().join("; ")
    );
    let ceiling: Vec<Option<f64>> = (0..r.files.len())
        .map(|i| r.rows.first().and_then(|row| row.results[i].as_ref().ok()).map(|f| f.mbps))
        .collect();
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
                    cells.push(ceiling[i].map_or("-".into(), |c| format!("{:.0}%", 100.0 * f.mbps / c)));
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
    // What blitty's frames cost.
    let mut c = Table::new();
    c.load_preset(ASCII_MARKDOWN);
    c.set_header(vec!["reader", "file", "frames/s", "host bytes/s", "read() per MB", "write() per MB", "CPU s per GB"]);
    if let Some(row) = r.rows.first() {
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
    let find = |name: &str, i: usize| {
        r.rows.iter().find(|row| row.target == name).and_then(|row| row.results[i].as_ref().ok()).map(|f| f.mbps)
    };
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
    if let [(_, Ok((t, _))), (_, Ok((b, _)))] = &r.ctrl_c[..] {
        let _ = writeln!(
            s,
            "Ctrl-C reaches the prompt in {b:.1} ms through blitty against {t:.1} ms in tmux alone ({}).",
            if b <= t { "no slower" } else { "slower" }
        );
    }
    s
}

fn run_json(r: &run_bench::Report, command: &str) -> serde_json::Value {
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
        })).collect::<Vec<_>>(),
        "ctrl_c_ms": r.ctrl_c.iter().map(|(l, res)| serde_json::json!({"target": l, "median": res.as_ref().ok().map(|x| x.0), "samples": res.as_ref().ok().map(|x| x.1.clone()), "missing": res.as_ref().err()})).collect::<Vec<_>>(),
    })
}

/// The report being assembled: each experiment's Markdown and JSON go to files in `out` and
/// into the combined report printed at the end.
struct Reports {
    out: PathBuf,
    markdown: String,
    json: serde_json::Map<String, serde_json::Value>,
}

impl Reports {
    fn add(&mut self, name: &str, md: String, json: serde_json::Value) -> Result<(), Error> {
        std::fs::write(self.out.join(format!("{name}.md")), &md)?;
        std::fs::write(self.out.join(format!("{name}.json")), serde_json::to_string_pretty(&json)?)?;
        if !self.markdown.is_empty() {
            self.markdown.push('\n');
        }
        self.markdown.push_str(&md);
        self.json.insert(name.into(), json);
        Ok(())
    }
}

/// Versions of the host terminals and multiplexers measured, or "not installed".
fn versions() -> String {
    let version = |cmd: &str, args: &[&str]| -> String {
        match std::process::Command::new(cmd).args(args).output() {
            Ok(o) => {
                let text = if o.stdout.is_empty() { o.stderr } else { o.stdout };
                String::from_utf8_lossy(&text).lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string()
            }
            Err(_) => format!("{cmd} not installed"),
        }
    };
    format!("{}; {}; {}", version("tmux", &["-V"]), version("screen", &["-v"]), version("xterm", &["-version"]))
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

/// One adapter's receive figures in seed 004: max ports, char/s, effective Kb/s, CPU %.
type SeedFigures = (u32, u32, f64, u32);

/// Seed 004's receive figures by baud rate, for the 8/16-port, 64-port and 128-port adapters.
const SEED_RECEIVE: [(u32, [SeedFigures; 3]); 3] = [
    (9600, [(12, 11_500, 9.6, 96), (20, 19_200, 9.6, 99), (128, 122_700, 9.6, 27)]),
    (19_200, [(6, 11_090, 18.5, 93), (10, 18_000, 18.0, 92), (128, 245_900, 19.2, 39)]),
    (38_400, [(4, 10_550, 26.4, 98), (7, 15_750, 22.5, 81), (75, 255_600, 34.0, 37)]),
];

fn ports_markdown(r: &ports_bench::Report, command: &str) -> String {
    use ports_bench::Mode;
    let mut s = String::new();
    let _ = writeln!(s, "## ports: many serial lines received at once (seed 004)\n");
    let _ = writeln!(s, "command: `{command}`  ");
    let _ = writeln!(s, "machine: {}  ", machine());
    let _ = writeln!(
        s,
        "lines: pty pairs; each far end sends baud/10 characters a second in 20 ms bursts without waiting (what a line cannot take is lost), for {} s; {}, stopping at the first count not sustained (bytes lost, an effective baud rate under 95% of the line's, or more than 0.5 s after the end until the receiver had every byte). Characters per second, effective baud and CPU are the steady state: sampled by the receiver at a quarter and at nine tenths of the sending time, while the lines send. Receivers run in their own process; CPU is theirs (user + system, % of one core). blitty: one thread, VMIN/VTIME tuned, an engine and a capture file per line. naive: a thread per line, VMIN 1, 1-byte read()s into a buffered capture file. Seed figures: AIX 3.2 on an RS/6000 Model 530, receive, from seed 004's table.  ",
        r.seconds,
        if r.quick {
            "quick mode: 115200 baud only, blitty tried at 1000 lines, the naive reader at 4, 16, 64, 250"
        } else {
            "tried 1, 4, 16, 64, 250, 1000, 2000, 4000 lines per baud rate (as many as the machine's ptys and open files allow)"
        }
    );
    if let Some(max) = r.pty_max {
        let _ = writeln!(s, "ptys allowed on this machine: {max}  ");
    }
    let _ = writeln!(s);
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN);
    t.set_header(vec!["line speed", "", "blitty", "naive", "seed 8/16-port", "seed 64-port", "seed 128-port"]);
    let bauds: std::collections::BTreeSet<u32> = r.rows.iter().map(|x| x.baud).collect();
    let find = |b: u32, m: Mode| r.rows.iter().find(|x| x.baud == b && x.mode == m);
    let cell = |row: Option<&ports_bench::Row>, f: &dyn Fn(&ports_bench::Trial) -> String| -> String {
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
        let (blitty, naive) = (find(*b, Mode::Blitty), find(*b, Mode::Naive));
        let seed = SEED_RECEIVE.iter().find(|(sb, _)| sb == b).map(|(_, v)| v);
        let seeds = |f: &dyn Fn(&SeedFigures) -> String| -> Vec<String> {
            (0..3).map(|k| seed.map_or("-".into(), |v| f(&v[k]))).collect()
        };
        let max_cell = |row: Option<&ports_bench::Row>| match row.and_then(|r| r.best.as_ref().map(|b| (r, b))) {
            Some((r, b)) => format!("{}{}", b.ports, if b.ports == r.most_tried { " (most tried)" } else { "" }),
            None => cell(row, &|x| x.ports.to_string()),
        };
        let mut first = vec![format!("{b} baud"), "max ports".into(), max_cell(blitty), max_cell(naive)];
        first.extend(seeds(&|v| v.0.to_string()));
        t.add_row(first);
        let mut add = |label: &str, f: &dyn Fn(&ports_bench::Trial) -> String, sf: &dyn Fn(&SeedFigures) -> String| {
            let first = if label == "max ports" { format!("{b} baud") } else { String::new() };
            let mut row = vec![first, label.to_string(), cell(blitty, f), cell(naive, f)];
            row.extend(seeds(sf));
            t.add_row(row);
        };
        add("char/s", &|x| format!("{:.0}", x.cps), &|v| v.1.to_string());
        add("eff. Kb/s", &|x| format!("{:.1}", x.effective_baud / 1000.0), &|v| format!("{:.1}", v.2));
        add("CPU %", &|x| format!("{:.1}", x.cpu_percent), &|v| v.3.to_string());
        add("char/s per 1% CPU", &|x| format!("{:.0}", x.cps / x.cpu_percent.max(0.01)), &|v| {
            format!("{:.0}", v.1 as f64 / v.3 as f64)
        });
        add("bytes lost", &|x| x.lost.to_string(), &|_| "-".into());
    }
    let _ = writeln!(s, "{t}\n");
    // Where the next count failed, for the record.
    let mut fails = Vec::new();
    for x in &r.rows {
        if let Some(f) = &x.failed {
            fails.push(format!(
                "{} at {} baud with {} lines: {:.1} Kb/s per line, {} bytes lost, the last byte {:.2} s after the end, CPU {:.0}%",
                x.mode.name(),
                x.baud,
                f.ports,
                f.effective_baud / 1000.0,
                f.lost,
                f.drain_seconds,
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
        let per_char = |x: &ports_bench::Trial| x.cpu_percent / 100.0 / x.cps.max(1.0);
        if let Some(n) = find(115_200, Mode::Naive).and_then(|x| x.best.as_ref().or(x.failed.as_ref())) {
            let ratio = per_char(n) / per_char(best);
            shows.push(format!(
                "blitty spends {:.3} µs of CPU per character against the naive reader's {:.3} µs ({} lines): {ratio:.0}x fewer CPU seconds per character (target at least 10x: {})",
                per_char(best) * 1e6,
                per_char(n) * 1e6,
                n.ports,
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
