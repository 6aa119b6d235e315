//! `blitty window`: the program in blitty's own X11 window (crates/window).

use std::ffi::OsString;
use std::path::PathBuf;

use anyhow::{anyhow, Result};

use crate::config;

#[derive(clap::Args)]
pub struct Args {
    /// The window's size in cells, COLSxROWS (at most 2048x1024, and 16384 pixels a side at the
    /// font's size).
    #[arg(long, value_name = "COLSxROWS", default_value = "80x24", value_parser = crate::replay::parse_size)]
    size: (usize, usize),
    /// The window's title [default: the program's name, then what the program sets (OSC 0 and 2)].
    #[arg(long)]
    title: Option<String>,
    #[command(flatten)]
    font: crate::replay::FontArgs,
    /// Frames per second at most, 1 to 1000 [default: 60, or `hz` in the config file].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
    hz: Option<u32>,
    /// Lines of scrollback kept, at most 100000 [default: 10000, or `scrollback` in the config file].
    #[arg(long, value_parser = crate::scrollback_lines)]
    scrollback: Option<usize>,
    /// Keep the window open after the program ended, until it is closed.
    #[arg(long)]
    hold: bool,
    /// Read settings from FILE instead of $XDG_CONFIG_HOME/blitty/config.toml.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Show session NAME of the session server (as one more client, as `blitty attach`)
    /// instead of running a program; closing the window detaches.
    #[arg(long, value_name = "NAME", conflicts_with = "command")]
    attach: Option<String>,
    /// The program and its arguments (default: `shell` in the config file, else $SHELL).
    #[arg(last = true, value_name = "CMD")]
    command: Vec<OsString>,
}

pub fn run(args: Args) -> Result<i32> {
    let cfg = config::load(args.config.as_deref()).map_err(|e| anyhow!(e))?;
    let argv = cfg.command_or_shell(args.command);
    let fonts = args.font.find()?;
    let opts = blitty_window::Options {
        argv,
        cols: args.size.0,
        rows: args.size.1,
        title: args.title,
        fonts,
        hz: args.hz.or(cfg.hz).unwrap_or(60),
        scrollback: args.scrollback.or(cfg.scrollback).unwrap_or(blitty_vt::term::DEFAULT_SCROLLBACK),
        hold: args.hold,
        shell: cfg.shell(),
        attach: args.attach.map(|name| (crate::sessions::socket(&cfg), name)),
    };
    blitty_window::run(opts).map_err(|e| anyhow!(e))
}
