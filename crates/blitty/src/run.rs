//! `blitty run`: a program in a pty, shown in this terminal as frames at a bounded rate.

use std::ffi::OsString;
use std::path::PathBuf;

use anyhow::{anyhow, Result};

use crate::config;

#[derive(clap::Args)]
pub struct Args {
    /// Frames per second at most, 1 to 1000 (20 is enough for text, 200 for animation)
    /// [default: 60, or `hz` in the config file].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
    hz: Option<u32>,
    /// Lines of scrollback kept, at most 100000 (Ctrl-] PageUp pages through them)
    /// [default: 10000, or `scrollback` in the config file].
    #[arg(long, value_parser = crate::scrollback_lines)]
    scrollback: Option<usize>,
    /// Write every byte the program writes to FILE, in order.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// At the end, write the session's statistics to FILE (seconds, bytes, frames, system
    /// calls, CPU), one `key value` per line; `blitty bench run` uses it.
    #[arg(long, value_name = "FILE")]
    stats: Option<PathBuf>,
    /// The prefix key for blitty's commands: C-a .. C-z, C-@, C-\, C-], C-^ or C-_
    /// [default: C-], or `prefix` in the config file].
    #[arg(long, value_name = "KEY", value_parser = crate::prefix_key)]
    prefix: Option<blitty_mux::keys::Prefix>,
    /// Drop the program's clipboard writes (OSC 52) instead of passing them to this terminal
    /// (`clipboard = false` in the config file). Clipboard reads are always refused.
    #[arg(long)]
    no_clipboard: bool,
    /// Read settings from FILE instead of $XDG_CONFIG_HOME/blitty/config.toml.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The program and its arguments (default: `shell` in the config file, else $SHELL).
    #[arg(last = true, value_name = "CMD")]
    command: Vec<OsString>,
}

/// Runs the session and returns the exit status to leave with.
pub fn run(args: Args) -> Result<i32> {
    let cfg = config::load(args.config.as_deref()).map_err(|e| anyhow!(e))?;
    let argv = cfg.command_or_shell(args.command);
    let status = blitty_mux::run::run(blitty_mux::run::Options {
        argv,
        hz: args.hz.or(cfg.hz).unwrap_or(60),
        scrollback: args.scrollback.or(cfg.scrollback).unwrap_or(blitty_vt::term::DEFAULT_SCROLLBACK),
        log: args.log,
        stats: args.stats,
        prefix: args.prefix.or(cfg.prefix).unwrap_or_default(),
        clipboard: !args.no_clipboard && cfg.clipboard.unwrap_or(true),
        status_colours: (cfg.status_fg, cfg.status_bg),
    })?;
    Ok(status)
}
