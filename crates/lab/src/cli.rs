//! `blitty-lab bench` (what `blitty bench` runs): the arguments, and the dispatch to each
//! experiment. Each experiment lives in its own module with its run, tables, chart and verdict
//! sentences; what their reports share is in [`crate::report`].

use std::path::PathBuf;

use crate::ports_bench;
use crate::probes::Copy;
use crate::report::{Context, Error, Reports, Section};
use crate::{
    engine_bench, run_bench, scroll_bench, sessions_bench, stdio_bench, stones_bench, window_bench, writes_bench,
};

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
    /// Copying a file with getc, fgets and read/write at every buffer size (how much buffering pays).
    Stdio,
    /// Sixteen ways of writing characters to a terminal, one at a time to a line at a time, into each terminal.
    Writes,
    /// Lines per second with and without scrolling, on screen and hidden.
    Scroll,
    /// One character per write() against 96 per write(), and where the time goes.
    Stones,
    /// Many serial lines (pty pairs) received at once: blitty against picocom, tio and simple readers.
    Ports,
    /// The session server: a flood in a vty no client shows, and memory per vty, against tmux.
    Sessions,
    /// cat into terminal windows under Xvfb (blitty window, xterm, st, alacritty, kitty).
    Window,
}

#[derive(clap::Args)]
pub struct ProbeArgs {
    /// `stdio METHOD [BUFSIZE]`: copy standard input to standard output with getc, fgetc,
    /// fgets, or read with a buffer of BUFSIZE bytes. `writes METHOD cooked|raw TEXT RESULT`:
    /// write TEXT to the terminal one of the modem-program post's ways and record what it cost. `flood-echo
    /// FILE`: flood the terminal with FILE and echo keys in its top row.
    #[arg(num_args = 1..)]
    args: Vec<String>,
}

#[derive(clap::Args)]
pub struct WorkloadArgs {
    /// The workload, by its name in `bench engine`'s table.
    #[arg(value_parser = workload_names())]
    name: String,
    /// Its size in MB, 1 to 1000 (`bench engine` feeds 16, 2 with --quick).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u64).range(1..=1000))]
    mb: u64,
    /// The file to write.
    #[arg(long)]
    out: PathBuf,
}

fn workload_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(crate::workloads::all().iter().map(|w| w.name))
}

/// Writes one of `bench engine`'s workloads, the same bytes the bench feeds, to a file: for
/// profiling the engine on what the bench timed (scripts/instructions.sh).
pub fn workload(args: WorkloadArgs) -> Result<(), String> {
    let all = crate::workloads::all();
    let (i, w) = all.iter().enumerate().find(|(_, w)| w.name == args.name).ok_or("no such workload")?;
    let data = crate::workloads::bench_bytes(i, w, args.mb as usize * 1_000_000);
    std::fs::write(&args.out, data).map_err(|e| format!("cannot write {}: {e}", args.out.display()))
}

/// Runs a probe; returns the exit status (2 for bad arguments).
pub fn probe(args: ProbeArgs) -> i32 {
    let words: Vec<&str> = args.args.iter().map(String::as_str).collect();
    if let ["writes", method, mode, text, result] = words[..] {
        // 0..8 are the modem-program post's methods; 8 writes 96-byte strings (the X server charstones).
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
    if let ["pace", rate, seconds, start, file] = words[..] {
        return match crate::probes::pace(rate, seconds, start, file) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("blitty-lab: {e}");
                2
            }
        };
    }
    if let ["flood-echo", file] = words[..] {
        return match crate::probes::flood_echo(file) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("blitty-lab: {e}");
                2
            }
        };
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

/// An experiment: runs, then returns its report section.
type Experiment = fn(&Context, &mut dyn FnMut(&str)) -> Result<Section, Error>;

/// Every experiment, in the order `all` runs them.
const EXPERIMENTS: [(Which, Experiment); 9] = [
    (Which::Engine, engine_bench::experiment),
    (Which::Writes, writes_bench::experiment),
    (Which::Stones, stones_bench::experiment),
    (Which::Scroll, scroll_bench::experiment),
    (Which::Stdio, stdio_bench::experiment),
    (Which::Run, run_bench::experiment),
    (Which::Ports, ports_bench::experiment),
    (Which::Sessions, sessions_bench::experiment),
    (Which::Window, window_bench::experiment),
];

pub fn run(args: BenchArgs) -> Result<(), Error> {
    let programs = Programs::find()?;
    std::fs::create_dir_all(&args.out).map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let ctx = Context {
        quick: args.quick,
        out: args.out.clone(),
        targets: args.targets.clone(),
        blitty: programs.blitty,
        lab: programs.lab,
        command: std::env::args().collect::<Vec<_>>().join(" "),
    };
    // A spinner with what is being measured (indicatif draws nothing when stderr is not a
    // terminal, as in CI).
    let bar = indicatif::ProgressBar::new_spinner();
    bar.set_style(
        indicatif::ProgressStyle::with_template("{spinner} {elapsed} measuring {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
    );
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    let mut progress = |what: &str| bar.set_message(what.to_string());
    let mut reports = Reports { out: args.out.clone(), markdown: String::new(), json: serde_json::Map::new() };
    let measured = (|| -> Result<(), Error> {
        for (which, experiment) in EXPERIMENTS {
            if args.which == Which::All || args.which == which {
                reports.add(experiment(&ctx, &mut progress)?)?;
            }
        }
        Ok(())
    })();
    crate::common::programs::remove_tmux_sockets();
    measured?;
    bar.finish_and_clear();
    if args.json {
        println!("{}", serde_json::to_string_pretty(&serde_json::Value::Object(reports.json))?);
    } else {
        print!("{}", reports.markdown);
        println!("\n(written to {}/)", args.out.display());
    }
    Ok(())
}
