//! `blitty bench window`: `cat` of plain and colour-dense text into terminal windows under one
//! Xvfb, timed by the writer, as a fraction of what a bare pty reader takes (the ceiling), at
//! 80x24 and 200x60: blitty window against xterm, st, alacritty and kitty.
//!
//! Under Xvfb there is no GPU: alacritty and kitty draw with Mesa's software OpenGL (llvmpipe),
//! which is what these machines have. A terminal that is not installed is reported as missing
//! (scripts/setup.sh installs xterm and st; alacritty and kitty are left to the user:
//! `apt-get install alacritty kitty`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use comfy_table::{presets::ASCII_MARKDOWN, Table};

use crate::report::{header, machine, Context, Error, Section};
use crate::run_bench::{drained_blocking, which, writer};

pub struct Options {
    pub quick: bool,
    pub blitty: PathBuf,
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

/// An X server of the bench's own: `-displayfd` says which display it took once it listens.
struct Xvfb {
    child: std::process::Child,
    display: String,
}

impl Xvfb {
    fn start() -> Result<Xvfb, String> {
        if !which("Xvfb") {
            return Err("not installed (apt-get install xvfb)".into());
        }
        let mut child = Command::new("Xvfb")
            .args(["-displayfd", "1", "-screen", "0", "2560x1600x24", "-nolisten", "tcp"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start Xvfb: {e}"))?;
        let mut line = String::new();
        let out = child.stdout.take().ok_or("no stdout")?;
        std::io::BufRead::read_line(&mut std::io::BufReader::new(out), &mut line).map_err(|e| e.to_string())?;
        if line.trim().is_empty() {
            let _ = child.kill();
            return Err("Xvfb did not start".into());
        }
        Ok(Xvfb { child, display: format!(":{}", line.trim()) })
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts terminal `argv` on X display `display` (software OpenGL for those that use it).
pub(crate) fn spawn_on(argv: &[String], display: &str) -> Result<std::process::Child, String> {
    Command::new(&argv[0])
        .args(&argv[1..])
        .env("DISPLAY", display)
        .env("LIBGL_ALWAYS_SOFTWARE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", argv[0]))
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
}

/// Runs `argv` on `display` (its server's pid `x_pid`) until it ends (at most TIMEOUT), then
/// reads the writer's timing.
fn timed(argv: &[String], display: &str, x_pid: u32, out: &Path) -> Result<Flood, String> {
    use crate::sessions_bench::cpu_seconds;
    let _ = std::fs::remove_file(out);
    let counter = crate::window_latency::DamageCounter::start(display)?;
    let mut child = spawn_on(argv, display)?;
    // The CPU seconds of the terminal and the X server when the window appeared.
    let mut start: Option<(f64, f64)> = None;
    let deadline = Instant::now() + TIMEOUT;
    // The terminal's CPU as last read before it ended (its /proc entry goes with it): the
    // poll is 5 ms, so at most that much is missed.
    let mut cpu = 0.0;
    loop {
        if let Ok(c) = cpu_seconds(child.id()) {
            cpu = c;
            if start.is_none() && counter.found() {
                start = Some((c, cpu_seconds(x_pid)?));
            }
        }
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            let drawn = counter.finish().unwrap_or(0);
            let (cpu0, x0) = start.ok_or("its window never appeared")?;
            let x_cpu = cpu_seconds(x_pid)? - x0;
            return match std::fs::read_to_string(out).ok().and_then(|t| t.trim().parse::<f64>().ok()) {
                Some(ns) => Ok(Flood { secs: ns / 1e9, drawn, cpu: cpu - cpu0, x_cpu }),
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
}

pub fn run(opts: &Options, mut progress: impl FnMut(&str)) -> Result<Report, String> {
    let dir = std::env::temp_dir().join(format!("blitty-bench-window-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let (plain_mb, colour_mb) = if opts.quick { (10, 4) } else { (100, 20) };
    progress("generating files");
    let (plain, colour) = crate::run_bench::flood_files(&dir, plain_mb, colour_mb, 11)?;
    let files = vec![
        (format!("plain text, {plain_mb} MB"), plain),
        (format!("SGR-dense (256-colour per cell), {colour_mb} MB"), colour),
    ];
    let sizes = vec![(80u16, 24u16), (200, 60)];
    let xvfb = Xvfb::start();
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
                let run = match (&xvfb, argv(name, &opts.blitty, cols, lines, &writer(file, &out))) {
                    (Err(e), _) => Err(e.clone()),
                    (_, Err(e)) => Err(e),
                    (Ok(x), Ok(argv)) => timed(&argv, &x.display, x.child.id(), &out),
                };
                per_file.push(run.as_ref().map(|f| mb / f.secs).map_err(|e| e.clone()));
                per_file_drawn.push(run.as_ref().map(|f| f.drawn as f64 / f.secs).map_err(|e| e.clone()));
                per_file_cpu.push(run.map(|f| (f.cpu / (mb / 1e3), f.x_cpu / (mb / 1e3))));
            }
            cells.push(per_file);
            drawn.push(per_file_drawn);
            cpus.push(per_file_cpu);
        }
    }
    let keys = crate::window_latency::keys(opts.quick);
    let mut latency = Vec::new();
    for name in TERMINALS {
        progress(&format!("{name}: key to pixels, {keys} keys"));
        let cell = match (&xvfb, argv(name, &opts.blitty, 80, 24, "exec cat")) {
            (Err(e), _) => Err(e.clone()),
            (_, Err(e)) => Err(e),
            (Ok(x), Ok(argv)) => crate::window_latency::key_to_pixels(&argv, &x.display, keys),
        };
        latency.push((name.to_string(), cell));
    }
    let _ = std::fs::remove_dir_all(&dir);
    let files = files.iter().map(|(l, f)| (l.clone(), std::fs::metadata(f).map(|m| m.len()).unwrap_or(0))).collect();
    Ok(Report { files, sizes, ceiling, rows, drawings, cpu, latency })
}

pub fn experiment(ctx: &Context, progress: &mut dyn FnMut(&str)) -> Result<Section, Error> {
    let report = run(&Options { quick: ctx.quick, blitty: ctx.blitty.clone() }, progress)?;
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
        "key_to_pixels_ms": report.latency.iter().map(|(n, c)| serde_json::json!({
            "terminal": n,
            "result": match c {
                Ok((median, max)) => serde_json::json!({ "median": median, "max": max }),
                Err(e) => serde_json::json!({ "error": e }),
            },
        })).collect::<Vec<_>>(),
    });
    Ok(Section { name: "window", markdown: markdown(&report, &ctx.command), json })
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
        "Key to pixels at 80x24, idle: from a key sent with XTEST to the X server's first damage event on the terminal's window (DAMAGE, level NonEmpty), with `cat` echoing through the pty. Target for blitty window: at most one frame interval (16.7 ms at its default 60 Hz) plus 2 ms, and below every peer's.\n"
    );
    let mut t = Table::new();
    t.load_preset(ASCII_MARKDOWN);
    t.set_header(vec!["terminal", "median ms", "largest ms"]);
    for (name, c) in &r.latency {
        match c {
            Ok((median, max)) => t.add_row(vec![name.clone(), format!("{median:.2}"), format!("{max:.2}")]),
            Err(e) => t.add_row(vec![name.clone(), e.clone(), String::new()]),
        };
    }
    let _ = writeln!(s, "{t}\n");
    let _ = writeln!(s, "Not measured yet: X requests and bytes per frame, and key to pixels during a flood.");
    s
}
