//! # blitty: the command line
//!
//! Parses arguments and runs one subcommand; the work itself lives in the library crates
//! (`blitty-vt` the engine, `blitty-io` ptys, serial lines and the event loops). The benchmarks
//! are a program of their own (`blitty-lab`, which `blitty bench` runs), so this binary carries
//! no peer engine and no allocator of the lab's. Argument errors are the parser's message,
//! usage and hint; other errors one sentence on stderr; both exit with status 2.

mod replay;
mod run;
mod serial;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

mod bench;

/// The version and the git commit it was built from.
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("BLITTY_COMMIT"), ")");

#[derive(Parser)]
#[command(name = "blitty", version = VERSION, about = "A terminal stack that keeps up with its line")]
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
    /// Measure speed against peers (runs blitty-lab; `blitty bench --help` lists the experiments).
    Bench(bench::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish or powershell) to standard output.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) to standard output (`blitty man | man -l -`), or with --dir
    /// write blitty.1 and a page per subcommand (blitty-run.1, ...) into DIR.
    Man {
        /// Write the pages into DIR (for example /usr/local/share/man/man1) instead.
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
    },
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
        blitty_io::restore::restore_all();
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("blitty: internal error{at}: {msg} (please report this)");
    }));
    blitty_io::signals::ignore_file_size_limit_signal();
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
        Command::Bench(args) => match bench::run(args) {
            Ok(status) => return ExitCode::from(status.clamp(0, 255) as u8),
            Err(e) => Err(e),
        },
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "blitty", &mut std::io::stdout());
            Ok(())
        }
        Command::Man { dir: None } => clap_mangen::Man::new(Cli::command())
            .render(&mut std::io::stdout())
            .map_err(|e| anyhow::anyhow!("cannot write the manual page: {e}")),
        Command::Man { dir: Some(dir) } => clap_mangen::generate_to(Cli::command(), &dir)
            .map_err(|e| anyhow::anyhow!("cannot write the manual pages into {}: {e}", dir.display())),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("blitty: {e:#}");
            ExitCode::from(2)
        }
    }
}
