//! `blitty new`, `attach`, `ls`, `kill`: sessions of virtual terminals kept by a per-user
//! server (`blitty_mux::server`), which `new` starts when none runs.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use anyhow::{anyhow, Result};
use blitty_mux::client::{self, Outcome};
use blitty_mux::proto::{Request, VtySpec};

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
pub struct ConsoleArgs {
    /// The framebuffer: a Linux fbdev device (/dev/fb0), or a file standing in for one.
    #[arg(long, value_name = "DEVICE")]
    fb: PathBuf,
    /// The framebuffer's size in pixels, WIDTHxHEIGHT (at most 16384 each) [default: the
    /// device's, from /sys/class/graphics].
    #[arg(long, value_name = "WxH", value_parser = fb_size)]
    fb_size: Option<(usize, usize)>,
    #[command(flatten)]
    font: crate::replay::FontArgs,
    /// Attach to this session instead of starting one.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["name", "command"])]
    attach: Option<String>,
    /// The new session's name.
    #[arg(short = 's', long = "session", value_name = "NAME")]
    name: Option<String>,
    /// Read settings from FILE instead of $XDG_CONFIG_HOME/blitty/config.toml.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// The program and its arguments (default: the shell).
    #[arg(last = true, value_name = "CMD")]
    command: Vec<OsString>,
}

/// `WxH` in pixels, each 1 to 16384.
fn fb_size(s: &str) -> Result<(usize, usize), String> {
    let max = blitty_window::framebuffer::MAX_FB_SIDE;
    let bad = || format!("expected WIDTHxHEIGHT in pixels, each 1 to {max}");
    match crate::replay::pair(s) {
        Some((w, h)) if (1..=max).contains(&w) && (1..=max).contains(&h) => Ok((w, h)),
        _ => Err(bad()),
    }
}

/// A framebuffer device's size from sysfs (32 bits a pixel only).
fn device_size(fb: &std::path::Path) -> Result<(usize, usize)> {
    let name = fb.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let sys = PathBuf::from("/sys/class/graphics").join(&name);
    let read = |f: &str| std::fs::read_to_string(sys.join(f)).map(|s| s.trim().to_string());
    let size = read("virtual_size").map_err(|_| {
        anyhow!("{} is not a framebuffer device this machine knows (give --fb-size for a file)", fb.display())
    })?;
    let bpp = read("bits_per_pixel").unwrap_or_default();
    if bpp != "32" {
        return Err(anyhow!("{} has {bpp} bits a pixel; blitty console draws 32", fb.display()));
    }
    let (w, h) = size.split_once(',').ok_or_else(|| anyhow!("{}: odd virtual_size {size:?}", sys.display()))?;
    Ok((w.parse()?, h.parse()?))
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

pub fn socket(cfg: &Config) -> PathBuf {
    client::socket_path(&blitty_mux::sockdir::socket_dir(cfg.socket_dir.as_deref()))
}

fn bytes(p: &std::path::Path) -> Vec<u8> {
    p.as_os_str().as_bytes().to_vec()
}

/// The size of this terminal (80x24 when it is not one).
fn size() -> (u16, u16) {
    let s = blitty_os::host::size();
    (s.cols, s.rows)
}

fn finish(outcome: Outcome) -> Result<i32> {
    match outcome {
        // What the server says is made printable here too: it names sessions, programs and
        // devices, which are not all the user's choice.
        Outcome::Text(t) => {
            print!("{}", blitty_mux::names::defanged(&t));
            Ok(0)
        }
        Outcome::Ended { reason, status } => {
            eprintln!("[blitty: {}]", blitty_mux::names::defanged(&reason));
            Ok(status as i32)
        }
    }
}

fn need_terminal() -> Result<()> {
    if !blitty_os::host::is_terminal() {
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
        // The line as `blitty serial` takes it: the options, else a profile or the config
        // file's [serial] keys, else the defaults.
        Some(dev) => {
            let given = crate::serial::LineArgs {
                baud: args.baud,
                databits: args.databits,
                parity: args.parity,
                stopbits: args.stopbits,
                flow: args.flow,
                vmin: None,
                vtime: None,
            };
            let line = crate::serial::line(&cfg, dev, &given)?;
            let s = line.settings;
            VtySpec::Serial {
                device: bytes(&line.device),
                baud: s.baud,
                data_bits: s.data_bits,
                parity: s.parity,
                stop_bits: s.stop_bits,
                flow: s.flow,
                lock: !args.no_lock && line.file.lock.unwrap_or(true),
            }
        }
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
    let start = server_argv(&path, args.config.as_deref())?;
    let running = client::connect_if_running(&path).map_err(|e| anyhow!(e))?;
    if let (Some(_), Some(file)) = (&running, &args.config) {
        // The running server read its settings when it started; this file changes nothing now.
        eprintln!(
            "blitty: a server already runs on {}: its settings stay, and {} is read by the next \
             server (when its sessions have ended)",
            path.display(),
            file.display()
        );
    }
    let stream = match running {
        Some(s) => s,
        None => client::connect(&path, Some(&start)).map_err(|e| anyhow!(e))?,
    };
    let outcome = client::request(stream, Request::New { name, detached: args.detached, vty, cols, rows, log })
        .map_err(|e| anyhow!(e))?;
    finish(outcome)
}

/// `blitty console`: a session shown on a framebuffer, keys from this terminal.
pub fn console(args: ConsoleArgs) -> Result<i32> {
    let cfg = config::load(args.config.as_deref()).map_err(|e| anyhow!(e))?;
    need_terminal()?;
    let (w, h) = match args.fb_size {
        Some(s) => s,
        None => device_size(&args.fb)?,
    };
    let fonts = args.font.find()?;
    let display = blitty_window::framebuffer::PixelDisplay::open(&args.fb, w, h, fonts).map_err(|e| anyhow!(e))?;
    let (cols, rows) = (display.cols, display.rows);
    let path = socket(&cfg);
    let req = match args.attach {
        Some(name) => Request::Attach { name: Some(name), cols, rows },
        None => Request::New {
            name: args.name.or(cfg.default_session.clone()),
            detached: false,
            vty: VtySpec::Program {
                argv: args.command.iter().map(|a| a.as_bytes().to_vec()).collect(),
                cwd: std::env::current_dir().map(|d| bytes(&d)).unwrap_or_default(),
            },
            cols,
            rows,
            log: None,
        },
    };
    let start = matches!(req, Request::New { .. }).then(|| server_argv(&path, args.config.as_deref())).transpose()?;
    let stream = client::connect(&path, start.as_deref()).map_err(|e| anyhow!(e))?;
    finish(client::request_on(stream, req, client::Display::Pixels(Box::new(display))).map_err(|e| anyhow!(e))?)
}

/// The command that starts a server on `path`.
fn server_argv(path: &std::path::Path, config: Option<&std::path::Path>) -> Result<Vec<OsString>> {
    let exe = std::env::current_exe().map_err(|e| anyhow!("cannot find the blitty program: {e}"))?;
    let mut start: Vec<OsString> = vec![exe.into(), "server".into(), "--socket".into(), path.into()];
    if let Some(c) = config {
        start.push("--config".into());
        start.push(std::path::absolute(c).unwrap_or_else(|_| c.to_path_buf()).into());
    }
    Ok(start)
}

pub fn attach(args: AttachArgs) -> Result<i32> {
    let cfg = config::load(args.config.as_deref()).map_err(|e| anyhow!(e))?;
    // Whom it would talk to is checked first: a planted server or directory is the news.
    let stream = client::connect(&socket(&cfg), None).map_err(|e| anyhow!(e))?;
    need_terminal()?;
    let (cols, rows) = size();
    finish(client::request(stream, Request::Attach { name: args.name, cols, rows }).map_err(|e| anyhow!(e))?)
}

pub fn ls(args: LsArgs) -> Result<i32> {
    let cfg = config::load(args.config.as_deref()).map_err(|e| anyhow!(e))?;
    let path = socket(&cfg);
    match client::connect_if_running(&path).map_err(|e| anyhow!(e))? {
        Some(stream) => finish(client::request(stream, Request::List).map_err(|e| anyhow!(e))?),
        None => {
            println!("no sessions (no server on {})", path.display());
            Ok(0)
        }
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
    let shell = cfg.shell();
    let opts = blitty_mux::server::Options {
        socket: args.socket.clone(),
        hz: cfg.hz.unwrap_or(60),
        scrollback: cfg.scrollback.unwrap_or(blitty_vt::term::DEFAULT_SCROLLBACK),
        prefix: cfg.prefix.unwrap_or_default(),
        status: cfg.server_status.unwrap_or(true),
        status_colours: (cfg.status_fg, cfg.status_bg),
        shell,
        clipboard: cfg.clipboard.unwrap_or(true),
    };
    let server = blitty_mux::server::Server::bind(opts)
        .map_err(|e| anyhow!("cannot listen on {}: {e}", args.socket.display()))?;
    // Standard error goes to /dev/null from here: the server has no terminal, and the client
    // that started it stops reading the pipe once it has connected.
    blitty_mux::server::quiet_stderr();
    server.serve().map_err(|e| anyhow!("the server failed: {e}"))?;
    Ok(0)
}
