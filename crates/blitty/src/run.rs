//! `blitty run`: a program in a pty, shown in this terminal as frames at a bounded rate.

use std::ffi::OsString;
use std::path::PathBuf;

use anyhow::Result;

#[derive(clap::Args)]
pub struct Args {
    /// Frames per second at most (20 is enough for text, 200 for animation).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=1000))]
    hz: u32,
    /// Lines of scrollback kept, at most 100000 (Ctrl-] PageUp pages through them).
    #[arg(long, default_value_t = blitty_vt::term::DEFAULT_SCROLLBACK, value_parser = crate::scrollback_lines)]
    scrollback: usize,
    /// Write every byte the program writes to FILE, in order.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// At the end, write the session's statistics to FILE (seconds, bytes, frames, system
    /// calls, CPU), one `key value` per line; `blitty bench run` uses it.
    #[arg(long, value_name = "FILE")]
    stats: Option<PathBuf>,
    /// The prefix key for blitty's commands: C-a .. C-z, C-@, C-\, C-], C-^ or C-_.
    #[arg(long, value_name = "KEY", default_value = "C-]", value_parser = crate::prefix_key)]
    prefix: blitty_io::keys::Prefix,
    /// Drop the program's clipboard writes (OSC 52) instead of passing them to this terminal.
    /// Clipboard reads are always refused.
    #[arg(long)]
    no_clipboard: bool,
    /// The program and its arguments (default: $SHELL).
    #[arg(last = true, value_name = "CMD")]
    command: Vec<OsString>,
}

/// Runs the session and returns the exit status to leave with.
pub fn run(args: Args) -> Result<i32> {
    let argv = if args.command.is_empty() {
        vec![std::env::var_os("SHELL").filter(|s| !s.is_empty()).unwrap_or_else(|| "/bin/sh".into())]
    } else {
        args.command
    };
    let status = blitty_io::session::run(blitty_io::session::Options {
        argv,
        hz: args.hz,
        scrollback: args.scrollback,
        log: args.log,
        stats: args.stats,
        prefix: args.prefix,
        clipboard: !args.no_clipboard,
    })?;
    Ok(status)
}
