//! # blitty: the command line
//!
//! Parses arguments and runs one subcommand; the work itself lives in the library crates
//! (`blitty-vt` the engine, `blitty-lab` the benchmarks). Errors are one sentence on stderr and
//! exit status 2.

mod replay;
mod run;
mod serial;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Counts heap bytes so `blitty bench` can report each engine's memory.
#[global_allocator]
static ALLOC: blitty_lab::alloc::Counting = blitty_lab::alloc::Counting;

#[derive(Parser)]
#[command(name = "blitty", version, about = "A terminal stack that keeps up with its line")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// A serial console: the line in this terminal as frames, a log, file transfer (Ctrl-] ? for commands).
    Serial(serial::Args),
    /// Feed a recorded output stream to the engine and print the resulting screen.
    Replay(replay::Args),
    /// Run a program in a pty and show it in this terminal as frames (default: $SHELL).
    Run(run::Args),
    /// Measure speed: the engine against peer engines on built-in workloads.
    Bench(blitty_lab::cli::BenchArgs),
    /// The benchmarks' C probes, run in a child process of `blitty bench`.
    #[command(hide = true)]
    Probe(blitty_lab::cli::ProbeArgs),
}

/// A `--scrollback` value: 0 to `MAX_SCROLLBACK` (100,000) lines.
fn scrollback_lines(s: &str) -> Result<usize, String> {
    let max = blitty_vt::term::MAX_SCROLLBACK;
    match s.parse::<usize>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!("expected a number of lines from 0 to {max}")),
    }
}

fn main() -> ExitCode {
    // A bug must still end in one clear line, not a stack trace.
    std::panic::set_hook(Box::new(|info| {
        // The user's terminal comes back first, so the message can be read.
        blitty_io::host::restore_now();
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("blitty: internal error{at}: {msg} (please report this)");
    }));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            // The parser's whole message: what is wrong, the usage line, and its hint.
            let _ = e.print();
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Run(args) => match run::run(args) {
            Ok(status) => return ExitCode::from(status.clamp(0, 255) as u8),
            Err(e) => Err(e),
        },
        Command::Replay(args) => replay::run(args),
        Command::Serial(args) => match serial::run(args) {
            Ok(status) => return ExitCode::from(status.clamp(0, 255) as u8),
            Err(e) => Err(e),
        },
        Command::Probe(args) => return ExitCode::from(blitty_lab::cli::probe(args).clamp(0, 255) as u8),
        Command::Bench(args) => blitty_lab::cli::run(args).map_err(|e| anyhow::anyhow!("{e}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("blitty: {e:#}");
            ExitCode::from(2)
        }
    }
}
