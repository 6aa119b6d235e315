//! `blitty serial DEVICE`: a serial console. Built so far: opening and setting up the line
//! (any baud rate the driver accepts, 5-8 data bits, parity, stop bits, flow control,
//! VMIN/VTIME), and `--fastport`. The console itself (display, log, keys, file transfer,
//! reconnection) is not built yet: without `--fastport` blitty says so and exits 2.

use std::path::PathBuf;

use anyhow::{bail, Result};
use blitty_io::serial::{self, Flow, Parity, Settings};

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
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u8).range(5..=8))]
    databits: u8,
    #[arg(long, value_enum, default_value = "none")]
    parity: ParityArg,
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
    stopbits: u8,
    /// Flow control: none, soft (XON/XOFF) or hard (RTS/CTS).
    #[arg(long, value_enum, default_value = "none")]
    flow: FlowArg,
    /// Bytes a read waits for (VMIN; --fastport: 255, as seed 004's script).
    #[arg(long)]
    vmin: Option<u8>,
    /// Tenths of a second a read waits (VTIME; --fastport: 5, as seed 004's script).
    #[arg(long)]
    vtime: Option<u8>,
    /// Condition the port for raw transfers as seed 004's fastport script does, print the
    /// equivalent stty line, and exit.
    #[arg(long)]
    fastport: bool,
}

pub fn run(args: Args) -> Result<()> {
    let fd = serial::open(&args.device)?;
    if args.fastport {
        let stty = serial::fastport(&fd, &args.device, args.vmin.unwrap_or(255), args.vtime.unwrap_or(5))?;
        println!("{stty}");
        return Ok(());
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
    serial::configure(&fd, &args.device, &settings)?;
    bail!("the serial console is not built yet: only --fastport works so far (the line was checked and set up)")
}
