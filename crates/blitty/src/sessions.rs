//! `blitty new`, `attach`, `ls`, `kill`: sessions of virtual terminals kept by a per-user
//! server (`blitty_io::server`), which `new` starts when none runs.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use anyhow::{anyhow, Result};
use blitty_io::client::{self, Outcome};
use blitty_io::proto::{Request, VtySpec};

use crate::config::{self, Config};
use crate::serial::{FlowArg, ParityArg};

#[derive(clap::Args)]
pub struct NewArgs {
    /// The session's name [default: `default_session` in the config file, else 0, 1, ...].
    #[arg(short = 's', long = "session", value_name = "NAME")]
    name: Option<String>,
    /// Do not attach: the session runs with no client.
    #[arg(short = 'd', long)]
    detached: bool,
    /// The vty is this serial line (with `blitty serial`'s settings) instead of a program.
    #[arg(long, value_name = "DEV", conflicts_with = "command")]
    serial: Option<PathBuf>,
    /// Baud rate of --serial [default: 115200].
    #[arg(short = 'b', long, value_parser = clap::value_parser!(u32).range(1..), requires = "serial")]
    baud: Option<u32>,
    /// Data bits of --serial, 5 to 8 [default: 8].
    #[arg(long, value_parser = clap::value_parser!(u8).range(5..=8), requires = "serial")]
    databits: Option<u8>,
    /// Parity of --serial [default: none].
    #[arg(long, value_enum, requires = "serial")]
    parity: Option<ParityArg>,
    /// Stop bits of --serial, 1 or 2 [default: 1].
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=2), requires = "serial")]
    stopbits: Option<u8>,
    /// Flow control of --serial [default: none].
    #[arg(long, value_enum, requires = "serial")]
    flow: Option<FlowArg>,
    /// Open --serial even when another program holds it.
    #[arg(long, requires = "serial")]
    no_lock: bool,
    /// Append every byte the vty receives to FILE, in order (lossless, as `blitty run --log`).
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Read settings from FILE instead of $XDG_CONFIG_HOME/blitty/config.toml.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The program and its arguments (default: `shell` in the config file, else $SHELL).
    #[arg(last = true, value_name = "CMD")]
    command: Vec<OsString>,
}

#[derive(clap::Args)]
pub struct AttachArgs {
    /// The session [default: the one used last].
    name: Option<String>,
    /// Read settings from FILE instead of $XDG_CONFIG_HOME/blitty/config.toml.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct LsArgs {
    /// Read settings from FILE instead of $XDG_CONFIG_HOME/blitty/config.toml.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct KillArgs {
    /// The session to end (its programs get SIGHUP, as when a terminal closes).
    name: String,
    /// Read settings from FILE instead of $XDG_CONFIG_HOME/blitty/config.toml.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct ServerArgs {
    /// The socket to listen on.
    #[arg(long)]
    socket: PathBuf,
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

fn socket(cfg: &Config) -> PathBuf {
    client::socket_path(&blitty_io::server::socket_dir(cfg.socket_dir.as_deref()))
}

fn bytes(p: &std::path::Path) -> Vec<u8> {
    p.as_os_str().as_bytes().to_vec()
}

/// The size of this terminal (80x24 when it is not one).
fn size() -> (u16, u16) {
    let s = blitty_io::host::size();
    (s.cols, s.rows)
}

fn finish(outcome: Outcome) -> Result<i32> {
    match outcome {
        Outcome::Text(t) => {
            print!("{t}");
            Ok(0)
        }
        Outcome::Ended { reason, status } => {
            eprintln!("[blitty: {reason}]");
            Ok(status as i32)
        }
    }
}

fn need_terminal() -> Result<()> {
    if !blitty_io::host::is_terminal() {
        return Err(anyhow!("standard input and output must be a terminal to attach (blitty new -d needs none)"));
    }
    Ok(())
}

pub fn new(args: NewArgs) -> Result<i32> {
    let cfg = config::load(args.config.as_deref()).map_err(|e| anyhow!(e))?;
    if !args.detached {
        need_terminal()?;
    }
    let vty = match &args.serial {
        Some(dev) => VtySpec::Serial {
            device: bytes(dev),
            baud: args.baud.or(cfg.serial.baud).unwrap_or(115_200),
            data_bits: args.databits.or(cfg.serial.databits).unwrap_or(8),
            parity: match args.parity.unwrap_or(ParityArg::None) {
                ParityArg::None => 0,
                ParityArg::Odd => 1,
                ParityArg::Even => 2,
            },
            stop_bits: args.stopbits.or(cfg.serial.stopbits).unwrap_or(1),
            flow: match args.flow.unwrap_or(FlowArg::None) {
                FlowArg::None => 0,
                FlowArg::Soft => 1,
                FlowArg::Hard => 2,
            },
            lock: !args.no_lock && cfg.serial.lock.unwrap_or(true),
        },
        None => VtySpec::Program {
            argv: args.command.iter().map(|a| a.as_bytes().to_vec()).collect(),
            cwd: std::env::current_dir().map(|d| bytes(&d)).unwrap_or_default(),
        },
    };
    // The log path as the user wrote it, made absolute here (the server runs elsewhere).
    let log = args.log.as_ref().map(|l| std::path::absolute(l).unwrap_or_else(|_| l.clone())).map(|l| bytes(&l));
    let (cols, rows) = size();
    let name = args.name.or(cfg.default_session.clone());
    let path = socket(&cfg);
    let exe = std::env::current_exe().map_err(|e| anyhow!("cannot find the blitty program: {e}"))?;
    let mut start: Vec<OsString> = vec![exe.into(), "server".into(), "--socket".into(), path.clone().into()];
    if let Some(c) = &args.config {
        start.push("--config".into());
        start.push(std::path::absolute(c).unwrap_or_else(|_| c.clone()).into());
    }
    let stream = client::connect(&path, Some(&start)).map_err(|e| anyhow!(e))?;
    let outcome = client::request(stream, Request::New { name, detached: args.detached, vty, cols, rows, log })
        .map_err(|e| anyhow!(e))?;
    finish(outcome)
}

pub fn attach(args: AttachArgs) -> Result<i32> {
    let cfg = config::load(args.config.as_deref()).map_err(|e| anyhow!(e))?;
    need_terminal()?;
    let (cols, rows) = size();
    let stream = client::connect(&socket(&cfg), None).map_err(|e| anyhow!(e))?;
    finish(client::request(stream, Request::Attach { name: args.name, cols, rows }).map_err(|e| anyhow!(e))?)
}

pub fn ls(args: LsArgs) -> Result<i32> {
    let cfg = config::load(args.config.as_deref()).map_err(|e| anyhow!(e))?;
    let path = socket(&cfg);
    match std::os::unix::net::UnixStream::connect(&path) {
        Ok(stream) => finish(client::request(stream, Request::List).map_err(|e| anyhow!(e))?),
        Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused) => {
            println!("no sessions (no server on {})", path.display());
            Ok(0)
        }
        Err(e) => Err(anyhow!("cannot connect to {}: {e}", path.display())),
    }
}

pub fn kill(args: KillArgs) -> Result<i32> {
    let cfg = config::load(args.config.as_deref()).map_err(|e| anyhow!(e))?;
    let stream = client::connect(&socket(&cfg), None).map_err(|e| anyhow!(e))?;
    finish(client::request(stream, Request::Kill { name: args.name }).map_err(|e| anyhow!(e))?)
}

/// The server itself (started by `blitty new`): binds, tells the starting client it is up
/// by closing its standard error, and serves.
pub fn server(args: ServerArgs) -> Result<i32> {
    let cfg = config::load(args.config.as_deref()).map_err(|e| anyhow!(e))?;
    let shell = cfg
        .shell
        .clone()
        .map(OsString::from)
        .or_else(|| std::env::var_os("SHELL").filter(|s| !s.is_empty()))
        .unwrap_or_else(|| "/bin/sh".into());
    let opts = blitty_io::server::Options {
        socket: args.socket.clone(),
        hz: cfg.hz.unwrap_or(60),
        scrollback: cfg.scrollback.unwrap_or(blitty_vt::term::DEFAULT_SCROLLBACK),
        prefix: cfg.prefix.unwrap_or_default(),
        status: cfg.server_status.unwrap_or(true),
        status_colours: (cfg.status_fg, cfg.status_bg),
        shell,
        clipboard: cfg.clipboard.unwrap_or(true),
    };
    let server = blitty_io::server::Server::bind(opts)
        .map_err(|e| anyhow!("cannot listen on {}: {e}", args.socket.display()))?;
    // Standard error goes to /dev/null from here: the server has no terminal, and the client
    // that started it stops reading the pipe once it has connected.
    blitty_io::server::quiet_stderr();
    server.serve().map_err(|e| anyhow!("the server failed: {e}"))?;
    Ok(0)
}
