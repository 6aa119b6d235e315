//! `blitty bench window`: `cat` of plain and colour-dense text into terminal windows under one
//! Xvfb, timed by the writer, as a fraction of what a bare pty reader takes (the ceiling), at
//! 80x24 and 200x60: blitty window against xterm, st, alacritty and kitty.
//!
//! Under Xvfb there is no GPU: alacritty and kitty draw with Mesa's software OpenGL (llvmpipe),
//! which is what these machines have. A terminal that is not installed is reported as missing
//! (scripts/setup.sh installs xterm and st; alacritty and kitty are left to the user:
//! `apt-get install alacritty kitty`).
//!
//! Also per terminal: its drawings a second and CPU during the floods, key to pixels idle and
//! during a flood, the X requests it sends per drawing (through the counting proxy,
//! `crate::xproxy`), and the syscons console post's lines a second. Driving and watching the windows is in
//! `latency`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use comfy_table::{presets::ASCII_MARKDOWN, Table};

use crate::common::procs::cpu_seconds;
use crate::common::programs::which;
use crate::common::pty::drained_blocking;
use crate::common::texts::{flood_files, lines_text, writer};
use crate::common::xvfb::{spawn_on, Xvfb};
use crate::report::{header, machine, Context, Error, Section};
use crate::terminals::write_cost;
use crate::xproxy::Proxy;

mod latency;

pub struct Options {
    pub quick: bool,
    pub blitty: PathBuf,
    /// The lab, for its probes (the flood with an echo, the lines written).
    pub lab: PathBuf,
}

/// The terminals, in the order the table lists them.
const TERMINALS: [&str; 5] = ["blitty window", "xterm", "st", "alacritty", "kitty"];

/// The command that runs shell command `cmd` in terminal `name` at `cols` x `rows`, or why not.
fn argv(name: &str, blitty: &Path, cols: u16, rows: u16, cmd: &str) -> Result<Vec<String>, String> {
    let sh = |v: &mut Vec<String>| v.extend(["sh".to_string(), "-c".to_string(), cmd.to_string()]);
    let mut v: Vec<String> = Vec::new();
    let missing = |p: &str, pkg: &str| format!("not installed (apt-get install {pkg}; no {p} on PATH)");
    match name {
        "blitty window" => {
            v.extend([
                blitty.display().to_string(),
                "window".into(),
                "--size".into(),
                format!("{cols}x{rows}"),
                "--".into(),
            ]);
        }
        "xterm" => {
            if !which("xterm") {
                return Err(missing("xterm", "xterm"));
            }
            v.extend(["xterm".into(), "-geometry".into(), format!("{cols}x{rows}"), "-e".into()]);
        }
        "st" => {
            let st = ["stterm", "st"].into_iter().find(|p| which(p)).ok_or_else(|| missing("stterm", "stterm"))?;
            v.extend([st.to_string(), "-g".into(), format!("{cols}x{rows}"), "-e".into()]);
        }
        "alacritty" => {
            if !which("alacritty") {
                return Err(missing("alacritty", "alacritty"));
            }
            v.extend([
                "alacritty".into(),
                "-o".into(),
                format!("window.dimensions.columns={cols}"),
                "-o".into(),
                format!("window.dimensions.lines={rows}"),
                "-e".into(),
            ]);
        }
        "kitty" => {
            if !which("kitty") {
                return Err(missing("kitty", "kitty"));
            }
            v.extend([
                "kitty".into(),
                "-o".into(),
                format!("initial_window_width={cols}c"),
                "-o".into(),
                format!("initial_window_height={rows}c"),
                "-o".into(),
                "remember_window_size=no".into(),
                // Its cursor blinks by default: steady, so that only the echo draws when keys
                // are timed.
                "-o".into(),
                "cursor_blink_interval=0".into(),
            ]);
        }
        _ => return Err("unknown".into()),
    }
    sh(&mut v);
    Ok(v)
}

/// One flood through a terminal: the writer's seconds, the window's drawings counted
/// meanwhile (see `DamageCounter`), and the CPU seconds of the terminal's own process (its
/// threads, not the shell and `cat` it runs) and of the X server from the moment its window
/// appeared (its start-up, fonts and OpenGL, left out) to its end.
struct Flood {
    secs: f64,
    drawn: u64,
    cpu: f64,
    x_cpu: f64,
    /// Through the counting proxy: the requests and bytes the terminal sent meanwhile.
    sent: (u64, u64),
}

/// Runs `argv` on `x` until it ends (at most TIMEOUT), then reads the writer's timing; with
/// `proxy`, the terminal talks to the server through it.
fn timed(argv: &[String], x: &Xvfb, proxy: Option<&Proxy>, out: &Path) -> Result<Flood, String> {
    let (display, x_pid) = (&x.display, x.pid());
    let _ = std::fs::remove_file(out);
    let counter = latency::DamageCounter::start(display)?;
    let mut child = spawn_on(argv, proxy.map_or(display, |p| &p.display))?;
    let sent = || proxy.map_or((0, 0), |p| p.read());
    // The CPU seconds of the terminal and the X server, and what it sent, when the window
    // appeared.
    let mut start: Option<(f64, f64, (u64, u64))> = None;
    let deadline = Instant::now() + TIMEOUT;
    // The terminal's CPU as last read before it ended (its /proc entry goes with it): the
    // poll is 5 ms, so at most that much is missed.
    let mut cpu = 0.0;
    loop {
        if let Ok(c) = cpu_seconds(child.id()) {
            cpu = c;
            if start.is_none() && counter.found() {
                start = Some((c, cpu_seconds(x_pid)?, sent()));
            }
        }
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            let drawn = counter.finish().unwrap_or(0);
            let (cpu0, x0, sent0) = start.ok_or("its window never appeared")?;
            let x_cpu = cpu_seconds(x_pid)? - x0;
            let (requests, bytes) = sent();
            let sent = (requests - sent0.0, bytes - sent0.1);
            return match std::fs::read_to_string(out).ok().and_then(|t| t.trim().parse::<f64>().ok()) {
                Some(ns) => Ok(Flood { secs: ns / 1e9, drawn, cpu: cpu - cpu0, x_cpu, sent }),
                None => Err(format!("it ended ({status}) without the flood's timing")),
            };
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err("timed out".into());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

const TIMEOUT: Duration = Duration::from_secs(600);

/// One cell of the table: MB/s, or why not.
type Cell = Result<f64, String>;

/// Key to pixels: the median and largest in ms, or why not.
type Latency = Result<(f64, f64), String>;

/// Lines a second scrolling and homing, or why not.
type Lines = Result<[f64; 2], String>;

/// CPU seconds per GB of the terminal and of the X server, or why not.
type Cpu = Result<(f64, f64), String>;

pub struct Report {
    pub files: Vec<(String, u64)>,
    pub sizes: Vec<(u16, u16)>,
    /// Per size, per file: the ceiling's MB/s, then per terminal.
    pub ceiling: Vec<Vec<Cell>>,
    pub rows: Vec<(String, Vec<Vec<Cell>>)>,
    /// Per terminal, per size, per file: the window's drawings a second during the flood.
    pub drawings: Vec<(String, Vec<Vec<Cell>>)>,
    /// Per terminal, per size, per file: CPU seconds per GB.
    pub cpu: Vec<(String, Vec<Vec<Cpu>>)>,
    /// Per terminal, key to pixels at 80x24 while idle: the median and largest, in ms.
    pub latency: Vec<(String, Latency)>,
    /// Per terminal, key to pixels at 80x24 during a flood of plain text.
    pub flood_latency: Vec<(String, Latency)>,
    /// Per terminal, per file, at 80x24 through the counting proxy: X requests and bytes sent
    /// per drawing, and drawings a second.
    pub requests: Vec<(String, Vec<Result<PerFrame, String>>)>,
    /// Lines of 80 characters a second, scrolling and homing (the syscons console post), per terminal, and
    /// for blitty window in a hidden vty; and the lines written.
    pub lines: Vec<(String, Lines)>,
    pub lines_written: usize,
}

/// X requests and bytes a terminal sent per drawing, and drawings a second.
#[derive(Clone, Copy)]
pub struct PerFrame {
    pub requests: f64,
    pub bytes: f64,
    pub per_second: f64,
}

pub fn run(opts: &Options, mut progress: impl FnMut(&str)) -> Result<Report, String> {
    let dir = std::env::temp_dir().join(format!("blitty-bench-window-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let (plain_mb, colour_mb) = if opts.quick { (10, 4) } else { (100, 20) };
    progress("generating files");
    let (plain, colour) = flood_files(&dir, plain_mb, colour_mb, 11)?;
    let files = vec![
        (format!("plain text, {plain_mb} MB"), plain),
        (format!("SGR-dense (256-colour per cell), {colour_mb} MB"), colour),
    ];
    let sizes = vec![(80u16, 24u16), (200, 60)];
    let xvfb = Xvfb::start(2560, 1600);
    let out = dir.join("timing");
    let mut ceiling = Vec::new();
    let mut rows: Vec<(String, Vec<Vec<Cell>>)> = TERMINALS.iter().map(|t| (t.to_string(), Vec::new())).collect();
    let mut drawings = rows.clone();
    let mut cpu: Vec<(String, Vec<Vec<Cpu>>)> = TERMINALS.iter().map(|t| (t.to_string(), Vec::new())).collect();
    for &(cols, lines) in &sizes {
        let mut per_file = Vec::new();
        for (label, file) in &files {
            progress(&format!("a bare pty reader, {label}"));
            let cmd = writer(file, &out);
            let argv: Vec<String> = vec!["sh".into(), "-c".into(), cmd.clone()];
            let _ = std::fs::remove_file(&out);
            let mb = std::fs::metadata(file).map_err(|e| e.to_string())?.len() as f64 / 1e6;
            per_file.push(drained_blocking(&argv, TIMEOUT).and_then(|_| {
                let ns: f64 = std::fs::read_to_string(&out)
                    .map_err(|e| e.to_string())?
                    .trim()
                    .parse()
                    .map_err(|_| "no timing")?;
                Ok(mb / (ns / 1e9))
            }));
        }
        ceiling.push(per_file);
        for (((name, cells), (_, drawn)), (_, cpus)) in rows.iter_mut().zip(drawings.iter_mut()).zip(cpu.iter_mut()) {
            let (mut per_file, mut per_file_drawn, mut per_file_cpu) = (Vec::new(), Vec::new(), Vec::new());
            for (label, file) in &files {
                progress(&format!("{name} at {cols}x{lines}, {label}"));
                let mb = std::fs::metadata(file).map_err(|e| e.to_string())?.len() as f64 / 1e6;
                let run = on(&xvfb, argv(name, &opts.blitty, cols, lines, &writer(file, &out)), |x, argv| {
                    timed(argv, x, None, &out)
                });
                per_file.push(run.as_ref().map(|f| mb / f.secs).map_err(|e| e.clone()));
                per_file_drawn.push(run.as_ref().map(|f| f.drawn as f64 / f.secs).map_err(|e| e.clone()));
                per_file_cpu.push(run.map(|f| (f.cpu / (mb / 1e3), f.x_cpu / (mb / 1e3))));
            }
            cells.push(per_file);
            drawn.push(per_file_drawn);
            cpus.push(per_file_cpu);
        }
    }
    // Each terminal's X traffic per drawing, in floods of its own through the counting proxy
    // (apart from the timed ones: the proxy's copying costs the cores).
    let mut requests = Vec::new();
    for name in TERMINALS {
        let mut per_file = Vec::new();
        for (label, file) in &files {
            progress(&format!("{name}: X requests per drawing, 80x24, {label}"));
            let run = on(&xvfb, argv(name, &opts.blitty, 80, 24, &writer(file, &out)), |x, argv| {
                Proxy::start(&x.display).and_then(|proxy| timed(argv, x, Some(&proxy), &out))
            });
            per_file.push(run.map(|f| {
                let frames = f.drawn.max(1) as f64;
                PerFrame {
                    requests: f.sent.0 as f64 / frames,
                    bytes: f.sent.1 as f64 / frames,
                    per_second: f.drawn as f64 / f.secs,
                }
            }));
        }
        requests.push((name.to_string(), per_file));
    }
    let keys = latency::keys(opts.quick);
    let (mut latency, mut flood_latency) = (Vec::new(), Vec::new());
    let flood = format!("exec {} probe flood-echo {}", opts.lab.display(), files[0].1.display());
    for name in TERMINALS {
        progress(&format!("{name}: key to pixels, {keys} keys, idle and during a flood"));
        let idle = on(&xvfb, argv(name, &opts.blitty, 80, 24, "exec cat"), |x, argv| {
            latency::key_to_pixels(argv, &x.display, keys)
        });
        let during = on(&xvfb, argv(name, &opts.blitty, 80, 24, &flood), |x, argv| {
            latency::key_during_flood(argv, &x.display, 24, keys)
        });
        latency.push((name.to_string(), idle));
        flood_latency.push((name.to_string(), during));
    }
    let lines_written = if opts.quick { 5_000 } else { 50_000 };
    let lines = match &xvfb {
        Ok(x) => lines_per_second(opts, x, &dir, lines_written, &mut progress)?,
        Err(e) => TERMINALS.iter().map(|t| (t.to_string(), Err(e.clone()))).collect(),
    };
    let _ = std::fs::remove_dir_all(&dir);
    let files = files.iter().map(|(l, f)| (l.clone(), std::fs::metadata(f).map(|m| m.len()).unwrap_or(0))).collect();
    Ok(Report { files, sizes, ceiling, rows, drawings, cpu, latency, flood_latency, requests, lines, lines_written })
}

/// `f` on the bench's X server with the terminal's command, or why either is not there.
fn on<T>(
    xvfb: &Result<Xvfb, String>,
    argv: Result<Vec<String>, String>,
    f: impl FnOnce(&Xvfb, &[String]) -> Result<T, String>,
) -> Result<T, String> {
    f(xvfb.as_ref().map_err(|e| e.clone())?, &argv?)
}

/// The syscons console post's table for the windows: `lines` lines of 80 characters written with one fwrite
/// (`blitty-lab probe writes 7`, timed until the terminal answers a DSR after them), scrolling
/// and with the cursor homed after each screenful, into each terminal at 80x24, and into a
/// hidden vty of blitty's window.
fn lines_per_second(
    opts: &Options,
    x: &Xvfb,
    dir: &Path,
    lines: usize,
    progress: &mut impl FnMut(&str),
) -> Result<Vec<(String, Lines)>, String> {
    let mut texts = Vec::new();
    for scroll in [true, false] {
        let path = dir.join(format!("lines-{scroll}.txt"));
        std::fs::write(&path, lines_text(lines, scroll, true)).map_err(|e| e.to_string())?;
        texts.push(path);
    }
    let result = dir.join("lines-result");
    let go = dir.join("lines-go");
    let probe = |text: &Path| {
        let r = result.display();
        format!("{} probe writes 7 cooked {} {r}.part && mv {r}.part {r}", opts.lab.display(), text.display())
    };
    let read = || -> Result<f64, String> {
        match write_cost(&result)?.processed {
            Some(secs) => Ok(lines as f64 / secs.max(1e-9)),
            None => Err("the terminal did not answer the DSR".into()),
        }
    };
    let mut rows = Vec::new();
    let names = TERMINALS.iter().flat_map(|&t| {
        let hidden = (t == "blitty window").then_some("blitty window, hidden vty");
        std::iter::once(t).chain(hidden)
    });
    for name in names {
        let mut speeds = [0f64; 2];
        let mut error = None;
        for (k, text) in texts.iter().enumerate() {
            progress(&format!("{name}: lines per second, {}", ["scrolling", "homing"][k]));
            let _ = std::fs::remove_file(&result);
            let run = if name.ends_with("hidden vty") {
                let _ = std::fs::remove_file(&go);
                let (fifo, mode) = (rustix::fs::FileType::Fifo, rustix::fs::Mode::from_raw_mode(0o600));
                rustix::fs::mknodat(rustix::fs::CWD, &go, fifo, mode, 0)
                    .map_err(|e| format!("cannot make the fifo {}: {e}", go.display()))?;
                let cmd = format!("cat {} >/dev/null; {}", go.display(), probe(text));
                argv("blitty window", &opts.blitty, 80, 24, &cmd)
                    .and_then(|argv| latency::in_hidden_vty(&argv, &x.display, &go, &result, TIMEOUT))
            } else {
                argv(name, &opts.blitty, 80, 24, &probe(text)).and_then(|argv| until_done(&argv, x, &result))
            };
            match run.and_then(|_| read()) {
                Ok(v) => speeds[k] = v,
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        rows.push((name.to_string(), error.map_or(Ok(speeds), Err)));
    }
    Ok(rows)
}

/// Runs `argv` on `x` until file `done` appears and the terminal ends (at most TIMEOUT).
fn until_done(argv: &[String], x: &Xvfb, done: &Path) -> Result<(), String> {
    let mut child = spawn_on(argv, &x.display)?;
    let deadline = Instant::now() + TIMEOUT;
    while child.try_wait().map_err(|e| e.to_string())?.is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err("timed out".into());
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    if done.exists() {
        Ok(())
    } else {
        Err("it ended without the probe's result".into())
    }
}

pub fn experiment(ctx: &Context, progress: &mut dyn FnMut(&str)) -> Result<Section, Error> {
    let report = run(&Options { quick: ctx.quick, blitty: ctx.blitty.clone(), lab: ctx.lab.clone() }, progress)?;
    let cell_json = |c: &Cell| match c {
        Ok(v) => serde_json::json!(v),
        Err(e) => serde_json::json!({ "error": e }),
    };
    let json = serde_json::json!({
        "command": ctx.command, "machine": machine(),
        "files": report.files.iter().map(|(l, _)| l).collect::<Vec<_>>(),
        "sizes": report.sizes.iter().map(|(c, r)| format!("{c}x{r}")).collect::<Vec<_>>(),
        "ceiling_mbps": report.ceiling.iter().map(|s| s.iter().map(cell_json).collect::<Vec<_>>()).collect::<Vec<_>>(),
        "terminals_mbps": rows_json(&report.rows, "mbps", |v| serde_json::json!(v)),
        "drawings_per_second": rows_json(&report.drawings, "per_second", |v| serde_json::json!(v)),
        "cpu_seconds_per_gb": rows_json(&report.cpu, "terminal_and_x_server", |(t, x)| serde_json::json!([t, x])),
        "key_to_pixels_ms": latency_json(&report.latency),
        "key_to_pixels_during_flood_ms": latency_json(&report.flood_latency),
        "x_traffic_80x24_per_drawing": report.requests.iter().map(|(n, per_file)| serde_json::json!({
            "terminal": n,
            "per_file": per_file.iter().map(|c| match c {
                Ok(f) => serde_json::json!({ "requests": f.requests, "bytes": f.bytes, "drawings_per_second": f.per_second }),
                Err(e) => serde_json::json!({ "error": e }),
            }).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "lines_written": report.lines_written,
        "lines_per_second": report.lines.iter().map(|(n, c)| serde_json::json!({
            "terminal": n,
            "result": match c {
                Ok([scroll, home]) => serde_json::json!({ "scrolling": scroll, "homing": home }),
                Err(e) => serde_json::json!({ "error": e }),
            },
        })).collect::<Vec<_>>(),
    });
    Ok(Section { name: "window", markdown: markdown(&report, &ctx.command), json })
}

fn latency_json(rows: &[(String, Latency)]) -> serde_json::Value {
    rows.iter()
        .map(|(n, c)| {
            serde_json::json!({
                "terminal": n,
                "result": match c {
                    Ok((median, max)) => serde_json::json!({ "median": median, "max": max }),
                    Err(e) => serde_json::json!({ "error": e }),
                },
            })
        })
        .collect()
}

/// A table with a column per size and file (its header's labels ending in `unit`).
fn flood_table(r: &Report, unit: &str) -> Table {
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN);
    let mut head = vec!["terminal".to_string()];
    for (cols, rows) in &r.sizes {
        for (label, _) in &r.files {
            head.push(format!("{cols}x{rows}, {label}{unit}"));
        }
    }
    t.set_header(head);
    t
}

/// A row per terminal: each size's and file's figure as `cell(size, file, figure)` says, or why
/// there is none.
type PerTerminal<T> = [(String, Vec<Vec<Result<T, String>>>)];

fn add_rows<T>(t: &mut Table, rows: &PerTerminal<T>, cell: impl Fn(usize, usize, &T) -> String) {
    for (name, per_size) in rows {
        let mut cells = vec![name.clone()];
        for (si, per_file) in per_size.iter().enumerate() {
            for (fi, c) in per_file.iter().enumerate() {
                cells.push(c.as_ref().map_or_else(|e| e.clone(), |v| cell(si, fi, v)));
            }
        }
        t.add_row(cells);
    }
}

/// The same rows as JSON: per terminal, per size, per file, `value(figure)` or the error.
fn rows_json<T>(rows: &PerTerminal<T>, key: &str, value: impl Fn(&T) -> serde_json::Value) -> serde_json::Value {
    rows.iter()
        .map(|(n, s)| {
            let figures: Vec<Vec<serde_json::Value>> = s
                .iter()
                .map(|f| {
                    f.iter().map(|c| c.as_ref().map_or_else(|e| serde_json::json!({ "error": e }), &value)).collect()
                })
                .collect();
            serde_json::json!({ "terminal": n, key: figures })
        })
        .collect()
}

fn markdown(r: &Report, command: &str) -> String {
    let mut s =
        header("window: cat into terminal windows under Xvfb, as a fraction of a bare pty reader", command, false);
    let _ = writeln!(
        s,
        "The writer times `cat`; a bare pty reader (blocking 64 KiB reads, nothing else) is the ceiling. Software rendering: Xvfb has no GPU, so alacritty and kitty draw with Mesa's llvmpipe. Target for blitty window: at least 0.9 of the ceiling on both files at both sizes.  \n"
    );
    let mut t = flood_table(r, ": MB/s (fraction)");
    let mut ceiling = vec!["bare pty reader (ceiling)".to_string()];
    for per_size in &r.ceiling {
        for c in per_size {
            ceiling.push(c.as_ref().map_or_else(|e| e.clone(), |v| format!("{v:.0}")));
        }
    }
    t.add_row(ceiling);
    add_rows(&mut t, &r.rows, |si, fi, v| match r.ceiling.get(si).and_then(|s| s.get(fi)) {
        Some(Ok(top)) => format!("{v:.1} ({:.2})", v / top),
        _ => format!("{v:.1}"),
    });
    let _ = writeln!(s, "{t}\n");
    let _ = writeln!(
        s,
        "Drawings a second during the floods above: the X server's DAMAGE notifications on the terminal's window (level NonEmpty, taken away after each), over the writer's time. For blitty window, which shows a frame with one request, these are its frames (at most its hz, 60); for a terminal that draws a frame in several requests they are at most its frames times those requests.\n"
    );
    let mut t = flood_table(r, "");
    add_rows(&mut t, &r.drawings, |_, _, v| format!("{v:.0}"));
    let _ = writeln!(s, "{t}\n");
    let _ = writeln!(
        s,
        "CPU seconds per GB of text during the floods above, from the moment the terminal's window appeared (its start-up left out) to its end: the terminal's own process (all its threads, not the shell and `cat` it runs), then the X server's (Xvfb: the drawing the terminal asked of it). Read from /proc in clock ticks (10 ms): quick mode's small floods give coarse figures.\n"
    );
    let mut t = flood_table(r, ": terminal + X server");
    add_rows(&mut t, &r.cpu, |_, _, (t, x)| format!("{t:.1} + {x:.1}"));
    let _ = writeln!(s, "{t}\n");
    let _ = writeln!(
        s,
        "Key to pixels at 80x24. Idle: from a key sent with XTEST to the X server's first damage event on the terminal's window (DAMAGE, level NonEmpty), with `cat` echoing through the pty. During a flood: the terminal runs `blitty-lab probe flood-echo`, which writes plain text without end into rows 2-24 (a scroll region) and puts each key it reads in the top row; the time is from the key to the top row's pixels changing (read with GetImage at each damage event: every terminal draws more than that row at each frame of a flood). The echo waits behind what of the flood the pty holds, as any program's answer does. Target for blitty window: at most one frame interval (16.7 ms at its default 60 Hz) plus 2 ms, and below every peer's.\n"
    );
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN);
    t.set_header(vec!["terminal", "idle: median ms", "idle: largest ms", "flood: median ms", "flood: largest ms"]);
    for ((name, idle), (_, flood)) in r.latency.iter().zip(&r.flood_latency) {
        let mut cells = vec![name.clone()];
        for c in [idle, flood] {
            match c {
                Ok((median, max)) => cells.extend([format!("{median:.2}"), format!("{max:.2}")]),
                Err(e) => cells.extend([e.clone(), String::new()]),
            }
        }
        t.add_row(cells);
    }
    let _ = writeln!(s, "{t}\n");
    let _ = writeln!(
        s,
        "X traffic per drawing at 80x24, in floods of their own with the terminal talking to Xvfb through a counting proxy (`crates/lab/src/xproxy.rs`: it frames the client's requests, as xscope does): the requests and bytes the terminal sent from its window's appearance to its end, over the damage events counted meanwhile (for blitty window: its frames). Pixels sent through MIT-SHM (blitty window; Mesa's software OpenGL) are in shared memory, not in these bytes.\n"
    );
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN);
    let mut head = vec!["terminal".to_string()];
    for (label, _) in &r.files {
        head.extend([format!("{label}: requests"), "bytes".into(), "drawings/s".into()]);
    }
    t.set_header(head);
    for (name, per_file) in &r.requests {
        let mut cells = vec![name.clone()];
        for c in per_file {
            match c {
                Ok(f) => cells.extend([
                    format!("{:.1}", f.requests),
                    format!("{:.0}", f.bytes),
                    format!("{:.0}", f.per_second),
                ]),
                Err(e) => cells.extend([e.clone(), String::new(), String::new()]),
            }
        }
        t.add_row(cells);
    }
    let _ = writeln!(s, "{t}\n");
    let _ = writeln!(
        s,
        "The syscons console post's table for the windows: {} lines of 80 characters in one write (`blitty-lab probe writes 7`), timed until the terminal answers a DSR after them, scrolling, and with the cursor homed after each screenful (24 lines), at 80x24. \"Hidden vty\" writes into the first of two vtys of one blitty window while the second is shown (opened with Ctrl-Shift-T): parsing only, the seed's offscreen vty. The seed's syscons scrolls 50,000 lines/s.\n",
        r.lines_written
    );
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN);
    t.set_header(vec!["terminal", "scrolling, lines/s", "homing, lines/s", "scrolling / syscons' 50,000"]);
    for (name, c) in &r.lines {
        match c {
            Ok([scroll, home]) => t.add_row(vec![
                name.clone(),
                format!("{scroll:.0}"),
                format!("{home:.0}"),
                format!("{:.1}x", scroll / 50_000.0),
            ]),
            Err(e) => t.add_row(vec![name.clone(), e.clone(), String::new(), String::new()]),
        };
    }
    let _ = writeln!(s, "{t}\n");
    s
}
