//! # blitty: the command line
//!
//! Parses arguments and runs one subcommand; the work itself lives in the library crates
//! (`blitty-vt` the engine, `blitty-os` the system layer, `blitty-serial` serial lines, `blitty-mux` the core). The benchmarks
//! are a program of their own (`blitty-lab`, which `blitty bench` runs), so this binary carries
//! no peer engine and no allocator of the lab's. Argument errors are the parser's message,
//! usage and hint; other errors one sentence on stderr; both exit with status 2.

mod replay;
mod run;
mod serial;
mod sessions;
mod window;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

mod bench;
mod config;
mod manual;

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
    #[command(after_help = manual::help_text("serial"))]
    Serial(serial::Args),
    /// Feed a recorded output stream to the engine and print the resulting screen.
    Replay(replay::Args),
    /// Run a program in a pty and show it in this terminal as frames (default: $SHELL).
    #[command(after_help = manual::help_text("run"))]
    Run(run::Args),
    /// A new session of virtual terminals kept by the blitty server, then attach to it (-d: not).
    #[command(after_help = manual::help_text("new"))]
    New(sessions::NewArgs),
    /// Attach this terminal to a session (default: the one used last).
    #[command(after_help = manual::help_text("attach"))]
    Attach(sessions::AttachArgs),
    /// A session on a framebuffer (Linux fbdev, or a file standing in for one), keys from this
    /// terminal: the pixel renderer draws the session's frames.
    #[command(after_help = manual::help_text("console"))]
    Console(sessions::ConsoleArgs),
    /// Run a program in blitty's own X11 window (default: $SHELL).
    Window(window::Args),
    /// List the sessions: their vtys, sizes, attached clients, and the vtys that ended.
    Ls(sessions::LsArgs),
    /// End a session: its programs get SIGHUP, its clients are detached.
    Kill(sessions::KillArgs),
    /// The session server itself (started by `blitty new`; not for typing).
    #[command(hide = true)]
    Server(sessions::ServerArgs),
    /// Measure speed against peers (runs blitty-lab; `blitty bench --help` lists the experiments).
    Bench(bench::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish or powershell) to standard output.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print a manual page (roff) to standard output (`blitty man run | man -l -`), or with --dir
    /// write every page into DIR: blitty.1, a page per command (blitty-run.1, ...) and blitty-config.5.
    Man {
        /// The page: blitty (the default), a command (run, serial, new, ...) or config, the config
        /// file's.
        #[arg(value_name = "PAGE", conflicts_with = "dir")]
        page: Option<String>,
        /// Write every page into DIR (for example ~/.local/share/man/man1) instead; a DIR named
        /// man1 gets blitty-config.5 in the man5 beside it.
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
    },
}

/// `blitty run vim` (or `blitty new vim` later): the program goes after `--`, which clap's
/// own hint does not say for a first word that is not an option.
fn command_tip(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some("run") {
        return None;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else { return None };
    if arg.starts_with('-') {
        return None;
    }
    let at = args.iter().position(|a| a == arg)?;
    let rest = args[at..].join(" ");
    Some(format!("tip: the program to run goes after '--': blitty run -- {rest}"))
}

/// A `--prefix` value (see `blitty_mux::keys::Prefix::parse`).
fn prefix_key(s: &str) -> Result<blitty_mux::keys::Prefix, String> {
    blitty_mux::keys::Prefix::parse(s)
}

/// A `--scrollback` value: 0 to `MAX_SCROLLBACK` (100,000) lines.
fn scrollback_lines(s: &str) -> Result<usize, String> {
    let max = blitty_vt::term::MAX_SCROLLBACK;
    match s.parse::<usize>() {
        Ok(n) if n <= max => Ok(n),
        _ => Err(format!("expected a number of lines from 0 to {max}")),
    }
}

/// An exit status from a subcommand that returns one (errors: one line, status 2).
fn status(r: anyhow::Result<i32>) -> ExitCode {
    match r {
        Ok(s) => ExitCode::from(s.clamp(0, 255) as u8),
        Err(e) => {
            eprintln!("blitty: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Writes `bytes` to standard output. A reader that stops early (`| head`, `| true`) is not
/// an error: the rest was not wanted, as with any Unix filter.
fn to_stdout(bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

fn main() -> ExitCode {
    // A bug must still end in one clear line, not a stack trace.
    std::panic::set_hook(Box::new(|info| {
        // The user's terminal comes back first, so the message can be read.
        blitty_os::restore::restore_all();
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown".into());
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("blitty: internal error{at}: {msg} (please report this)");
    }));
    blitty_os::signals::ignore_file_size_limit_signal();
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
            if let Some(tip) = command_tip(&e) {
                eprintln!("{tip}");
            }
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
        Command::New(args) => return status(sessions::new(args)),
        Command::Attach(args) => return status(sessions::attach(args)),
        Command::Ls(args) => return status(sessions::ls(args)),
        Command::Console(args) => return status(sessions::console(args)),
        Command::Window(args) => match window::run(args) {
            Ok(status) => return ExitCode::from(status.clamp(0, 255) as u8),
            Err(e) => Err(e),
        },
        Command::Kill(args) => return status(sessions::kill(args)),
        Command::Server(args) => return status(sessions::server(args)),
        Command::Bench(args) => match bench::run(args) {
            Ok(status) => return ExitCode::from(status.clamp(0, 255) as u8),
            Err(e) => Err(e),
        },
        Command::Completions { shell } => {
            let script = manual::completions(shell, &mut Cli::command());
            to_stdout(&script).map_err(|e| anyhow::anyhow!("cannot write the completion script: {e}"))
        }
        Command::Man { page, dir: None } => match manual::page(Cli::command(), page.as_deref().unwrap_or("blitty")) {
            Ok(p) => to_stdout(p.text.as_bytes()).map_err(|e| anyhow::anyhow!("cannot write the manual page: {e}")),
            Err(e) => Err(anyhow::anyhow!(e)),
        },
        Command::Man { dir: Some(dir), .. } => manual::write(Cli::command(), &dir)
            .map(|_| ())
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
