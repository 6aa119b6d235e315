//! `blitty-lab`: the benchmarks as a program of their own, so that the `blitty` a user installs
//! carries no peer engine and no libvterm. `blitty bench ARGS` runs
//! `blitty-lab bench ARGS` (found beside `blitty` or on PATH) and says where `blitty` is in
//! `BLITTY_BIN`; the lab runs that `blitty` for the targets that need the product (`blitty run`)
//! and itself for its C probes (`blitty-lab probe`).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "blitty-lab", version, about = "blitty's benchmarks: the seed experiments and peer engines")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure speed: every experiment, or one (a full run takes about 20 minutes on a 2-core
    /// machine, most of it the serial-ports ladder; --quick about 2).
    Bench(blitty_lab::cli::BenchArgs),
    /// Write one of `bench engine`'s workloads to a file (the bytes the bench feeds), to
    /// profile the engine on it.
    Workload(blitty_lab::cli::WorkloadArgs),
    /// The benchmarks' C probes, run in a child process of `bench`.
    #[command(hide = true)]
    Probe(blitty_lab::cli::ProbeArgs),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match cli.command {
        Command::Probe(args) => ExitCode::from(blitty_lab::cli::probe(args).clamp(0, 255) as u8),
        Command::Workload(args) => match blitty_lab::cli::workload(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("blitty-lab: {e}");
                ExitCode::from(2)
            }
        },
        Command::Bench(args) => match blitty_lab::cli::run(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("blitty-lab: {e}");
                ExitCode::from(2)
            }
        },
    }
}
