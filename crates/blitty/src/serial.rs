//! `blitty serial DEVICE`: a serial console (the loop is `blitty_mux::serial_console`), and
//! `--fastport`, the multi-port serial tuning guide's conditioning of a port for raw transfers.

use std::path::PathBuf;

use anyhow::{anyhow, Result};

use crate::config;
use blitty_serial::settings::{self as serial, Flow, Map, Parity, Settings};

#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum ParityArg {
    None,
    Odd,
    Even,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub(crate) enum FlowArg {
    None,
    Soft,
    Hard,
}

#[derive(clap::Args)]
pub struct Args {
    /// The serial device (e.g. /dev/ttyUSB0), or the name of a profile in the config file.
    device: PathBuf,
    /// Baud rate: any rate the driver accepts, standard or not [default: 115200].
    #[arg(short = 'b', long, value_parser = clap::value_parser!(u32).range(1..))]
    baud: Option<u32>,
    /// Data bits per character, 5 to 8 [default: 8].
    #[arg(long, value_parser = clap::value_parser!(u8).range(5..=8))]
    databits: Option<u8>,
    /// Parity bit [default: none].
    #[arg(long, value_enum)]
    parity: Option<ParityArg>,
    /// Stop bits, 1 or 2 [default: 1].
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=2))]
    stopbits: Option<u8>,
    /// Flow control: none, soft (XON/XOFF) or hard (RTS/CTS) [default: none].
    #[arg(long, value_enum)]
    flow: Option<FlowArg>,
    /// Bytes a read waits for (VMIN; --fastport: 255).
    #[arg(long)]
    vmin: Option<u8>,
    /// Tenths of a second a read waits (VTIME; --fastport: 5).
    #[arg(long)]
    vtime: Option<u8>,
    /// Append every received byte to FILE, in order, as it is read.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Start each line, on the screen and in the log, with its UTC arrival time.
    #[arg(long)]
    timestamps: bool,
    /// Start in the hex view (Ctrl-] h switches; the view shows bytes from when it is switched on).
    #[arg(long)]
    hex: bool,
    /// Show typed keys locally (for devices that do not echo).
    #[arg(long)]
    echo: bool,
    /// Byte mappings, comma-separated: ICRNL IGNCR INLCR INLCRNL (what is shown; the log keeps
    /// the bytes as received), OCRNL ONLCRNL ODELBS OLTU (what keys send).
    #[arg(long, value_name = "LIST")]
    map: Option<String>,
    /// Frames per second at most, 1 to 1000 [default: 60].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1000))]
    hz: Option<u32>,
    /// Lines of scrollback kept, at most 100000 (Ctrl-] PageUp pages through them)
    /// [default: 10000].
    #[arg(long, value_parser = crate::scrollback_lines)]
    scrollback: Option<usize>,
    /// The prefix key for blitty's commands: C-a .. C-z, C-@, C-\, C-], C-^ or C-_
    /// [default: C-]].
    #[arg(long, value_name = "KEY", value_parser = crate::prefix_key)]
    prefix: Option<blitty_mux::keys::Prefix>,
    /// Open the device even when another program holds it (no flock, no UUCP lock file).
    #[arg(long)]
    no_lock: bool,
    /// Drop the device's clipboard writes (OSC 52) instead of passing them to this terminal
    /// (`clipboard = false` in the config file). Clipboard reads are always refused.
    #[arg(long)]
    no_clipboard: bool,
    /// Read settings from FILE instead of $XDG_CONFIG_HOME/blitty/config.toml (every default
    /// above can be set there, and named profiles: `blitty serial NAME`).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Set the port up for raw bulk transfers (raw mode, reads of up to 255 bytes or half a
    /// second), print the equivalent stty line, and exit.
    #[arg(long)]
    fastport: bool,
}

/// A word of the config file (`parity = "even"`) as the option's value; config.rs checks the
/// words against the same names.
fn word<T: clap::ValueEnum>(w: &Option<String>) -> Option<T> {
    w.as_deref().and_then(|w| T::from_str(w, false).ok())
}

/// The line settings given on a command line (each `None` when not given).
#[derive(Default)]
pub struct LineArgs {
    pub baud: Option<u32>,
    pub databits: Option<u8>,
    pub parity: Option<ParityArg>,
    pub stopbits: Option<u8>,
    pub flow: Option<FlowArg>,
    pub vmin: Option<u8>,
    pub vtime: Option<u8>,
}

/// A serial line as a device argument names it: the device, its settings, and the config
/// file's `[serial]` keys that apply (a profile's over the section's).
pub struct Line {
    pub device: PathBuf,
    pub settings: Settings,
    pub file: config::Serial,
}

/// Resolves `device` (a path, or the name of a profile in the config file: a name without a
/// `/`) and its settings: each from `given`, else the profile, else the config file's
/// `[serial]`, else the default. `blitty serial` and `blitty new --serial` both take a line so.
pub fn line(cfg: &config::Config, device: &std::path::Path, given: &LineArgs) -> Result<Line> {
    let name = device.to_string_lossy().into_owned();
    let profile = (!name.contains('/')).then(|| cfg.profiles.get(&name)).flatten();
    let file = match profile {
        Some(p) => p.over(&cfg.serial),
        None => cfg.serial.clone(),
    };
    let device = match profile {
        Some(p) => p.device.clone().ok_or_else(|| anyhow!("the config file's profile {name} names no device"))?,
        None => device.to_path_buf(),
    };
    let parity = match given.parity.or_else(|| word(&file.parity)).unwrap_or(ParityArg::None) {
        ParityArg::None => Parity::None,
        ParityArg::Odd => Parity::Odd,
        ParityArg::Even => Parity::Even,
    };
    let flow = match given.flow.or_else(|| word(&file.flow)).unwrap_or(FlowArg::None) {
        FlowArg::None => Flow::None,
        FlowArg::Soft => Flow::Soft,
        FlowArg::Hard => Flow::Hard,
    };
    let settings = Settings {
        baud: given.baud.or(file.baud).unwrap_or(115_200),
        data_bits: given.databits.or(file.databits).unwrap_or(8),
        parity,
        stop_bits: given.stopbits.or(file.stopbits).unwrap_or(1),
        flow,
        vmin: given.vmin.unwrap_or(1),
        vtime: given.vtime.unwrap_or(0),
    };
    Ok(Line { device, settings, file })
}

/// Runs the console (or --fastport) and returns the exit status to leave with.
pub fn run(args: Args) -> Result<i32> {
    let cfg = config::load(args.config.as_deref()).map_err(|e| anyhow!(e))?;
    let given = LineArgs {
        baud: args.baud,
        databits: args.databits,
        parity: args.parity,
        stopbits: args.stopbits,
        flow: args.flow,
        vmin: args.vmin,
        vtime: args.vtime,
    };
    let Line { device, settings, file } = line(&cfg, &args.device, &given)?;
    let map_text = args.map.clone().or(file.map.clone()).unwrap_or_default();
    let map = Map::parse(&map_text).map_err(|e| anyhow!("--map: {e}"))?;
    if args.fastport {
        let fd = serial::open(&device)?;
        let stty = serial::fastport(&fd, &device, args.vmin.unwrap_or(255), args.vtime.unwrap_or(5))?;
        println!("{stty}");
        return Ok(0);
    }
    let status = blitty_mux::serial_console::run(blitty_mux::serial_console::Options {
        device,
        settings,
        log: args.log.or(file.log),
        timestamps: args.timestamps || file.timestamps.unwrap_or(false),
        hex: args.hex || file.hex.unwrap_or(false),
        echo: args.echo || file.echo.unwrap_or(false),
        map,
        hz: args.hz.or(cfg.hz).unwrap_or(60),
        scrollback: args.scrollback.or(cfg.scrollback).unwrap_or(blitty_vt::term::DEFAULT_SCROLLBACK),
        prefix: args.prefix.or(cfg.prefix).unwrap_or_default(),
        lock: !args.no_lock && file.lock.unwrap_or(true),
        status_colours: (cfg.status_fg, cfg.status_bg),
        clipboard: !args.no_clipboard && cfg.clipboard.unwrap_or(true),
    })?;
    Ok(status)
}
