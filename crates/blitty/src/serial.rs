//! `blitty serial DEVICE`: a serial console (the loop is `blitty_io::console`), and
//! `--fastport`, seed 004's conditioning of a port for raw transfers.

use std::path::PathBuf;

use anyhow::{anyhow, Result};
use blitty_io::serial::{self, Flow, Map, Parity, Settings};

#[derive(Clone, Copy, clap::ValueEnum)]
enum ParityArg {
    None,
    Odd,
    Even,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum FlowArg {
    None,
    Soft,
    Hard,
}

#[derive(clap::Args)]
pub struct Args {
    /// The serial device (e.g. /dev/ttyUSB0).
    device: PathBuf,
    /// Baud rate: any rate the driver accepts, standard or not.
    #[arg(short = 'b', long, default_value_t = 115_200, value_parser = clap::value_parser!(u32).range(1..))]
    baud: u32,
    /// Data bits per character (5 to 8).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(5..=8))]
    databits: u8,
    /// Parity bit.
    #[arg(long, value_enum, default_value = "none")]
    parity: ParityArg,
    /// Stop bits (1 or 2).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
    stopbits: u8,
    /// Flow control: none, soft (XON/XOFF) or hard (RTS/CTS).
    #[arg(long, value_enum, default_value = "none")]
    flow: FlowArg,
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
    #[arg(long, value_name = "LIST", default_value = "")]
    map: String,
    /// Frames per second at most.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..=1000))]
    hz: u32,
    /// Lines of scrollback kept, at most 100000 (Ctrl-] PageUp pages through them).
    #[arg(long, default_value_t = blitty_vt::term::DEFAULT_SCROLLBACK, value_parser = crate::scrollback_lines)]
    scrollback: usize,
    /// The prefix key for blitty's commands: C-a .. C-z, C-@, C-\, C-], C-^ or C-_.
    #[arg(long, value_name = "KEY", default_value = "C-]", value_parser = crate::prefix_key)]
    prefix: blitty_io::keys::Prefix,
    /// Open the device even when another program holds it (no flock, no UUCP lock file).
    #[arg(long)]
    no_lock: bool,
    /// Set the port up for raw bulk transfers (raw mode, reads of up to 255 bytes or half a
    /// second), print the equivalent stty line, and exit.
    #[arg(long)]
    fastport: bool,
}

/// Runs the console (or --fastport) and returns the exit status to leave with.
pub fn run(args: Args) -> Result<i32> {
    let map = Map::parse(&args.map).map_err(|e| anyhow!("--map: {e}"))?;
    if args.fastport {
        let fd = serial::open(&args.device)?;
        let stty = serial::fastport(&fd, &args.device, args.vmin.unwrap_or(255), args.vtime.unwrap_or(5))?;
        println!("{stty}");
        return Ok(0);
    }
    let settings = Settings {
        baud: args.baud,
        data_bits: args.databits,
        parity: match args.parity {
            ParityArg::None => Parity::None,
            ParityArg::Odd => Parity::Odd,
            ParityArg::Even => Parity::Even,
        },
        stop_bits: args.stopbits,
        flow: match args.flow {
            FlowArg::None => Flow::None,
            FlowArg::Soft => Flow::Soft,
            FlowArg::Hard => Flow::Hard,
        },
        vmin: args.vmin.unwrap_or(1),
        vtime: args.vtime.unwrap_or(0),
    };
    let status = blitty_io::console::run(blitty_io::console::Options {
        device: args.device,
        settings,
        log: args.log,
        timestamps: args.timestamps,
        hex: args.hex,
        echo: args.echo,
        map,
        hz: args.hz,
        scrollback: args.scrollback,
        prefix: args.prefix,
        lock: !args.no_lock,
    })?;
    Ok(status)
}
