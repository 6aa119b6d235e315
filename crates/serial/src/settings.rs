//! Serial lines: opening a device and setting it up as picocom and tio do (115200 8N1, no
//! flow control by default; raw; any baud rate the driver accepts, standard or not, through
//! termios2 on Linux), and the multi-port serial tuning guide's "fastport" conditioning for raw transfers.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;

use rustix::fs::{Mode, OFlags};
use rustix::termios::{
    tcgetattr, tcsetattr, ControlModes, InputModes, LocalModes, OptionalActions, OutputModes, SpecialCodeIndex,
};

/// On the session protocol a variant is its place in this list (postcard): adding one at the
/// end is compatible, reordering is a new protocol version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Parity {
    None,
    Odd,
    Even,
}

/// On the session protocol a variant is its place in this list (see [`Parity`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Flow {
    None,
    /// XON/XOFF
    Soft,
    /// RTS/CTS
    Hard,
}

/// A line's settings. Defaults: 115200 8N1, no flow control, VMIN 1, VTIME 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    pub baud: u32,
    pub data_bits: u8,
    pub parity: Parity,
    pub stop_bits: u8,
    pub flow: Flow,
    /// Bytes a read waits for (VMIN) and tenths of a second it waits (VTIME).
    pub vmin: u8,
    pub vtime: u8,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            baud: 115_200,
            data_bits: 8,
            parity: Parity::None,
            stop_bits: 1,
            flow: Flow::None,
            vmin: 1,
            vtime: 0,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot open {path}: {cause}")]
    Open { path: String, cause: io::Error },
    #[error("{path} is not a terminal device (a serial line or a pty)")]
    NotATerminal { path: String },
    #[error("the driver does not accept {baud} baud: {cause}")]
    Baud { baud: u32, cause: io::Error },
    #[error("cannot set up {path}: {cause}")]
    Setup { path: String, cause: io::Error },
    #[error(transparent)]
    Lock(#[from] crate::lock::Error),
}

/// Opens `path` for reading and writing, without making it the controlling terminal.
pub fn open(path: &Path) -> Result<OwnedFd, Error> {
    let name = path.display().to_string();
    let fd = rustix::fs::open(path, OFlags::RDWR | OFlags::NOCTTY | OFlags::CLOEXEC | OFlags::NONBLOCK, Mode::empty())
        .map_err(|e| Error::Open { path: name.clone(), cause: e.into() })?;
    if !rustix::termios::isatty(&fd) {
        return Err(Error::NotATerminal { path: name });
    }
    Ok(fd)
}

/// Opens `path` and sets it up with `s`, keeping what it was set to before in the returned
/// guard: the device gets its termios back when the guard is dropped, from the panic hook, and
/// on an abort ([`blitty_os::restore`]), as tio and picocom give a line back.
///
/// With `lock`, the device is locked with flock first (see [`crate::lock`]): a line another
/// console holds is neither set up nor read.
pub fn open_configured(
    path: &Path,
    s: &Settings,
    lock: bool,
) -> Result<(OwnedFd, blitty_os::restore::DeviceGuard), Error> {
    let fd = open(path)?;
    if lock {
        crate::lock::flock(&fd, path)?;
    }
    let guard = blitty_os::restore::DeviceGuard::save(&fd)
        .map_err(|cause| Error::Setup { path: path.display().to_string(), cause })?;
    configure(&fd, path, s)?;
    Ok((fd, guard))
}

/// Sets the line up raw with `s` (data bits, parity, stop bits, flow control, VMIN/VTIME, baud).
pub fn configure(fd: impl AsFd, path: &Path, s: &Settings) -> Result<(), Error> {
    let setup = |e: rustix::io::Errno| Error::Setup { path: path.display().to_string(), cause: e.into() };
    let mut t = tcgetattr(&fd).map_err(setup)?;
    apply(&mut t, s);
    t.set_speed(s.baud).map_err(|e| Error::Baud { baud: s.baud, cause: e.into() })?;
    tcsetattr(&fd, OptionalActions::Now, &t).map_err(|e| Error::Baud { baud: s.baud, cause: e.into() })?;
    Ok(())
}

/// The termios changes `configure` makes, speed aside.
pub fn apply(t: &mut rustix::termios::Termios, s: &Settings) {
    t.make_raw();
    let c = &mut t.control_modes;
    c.remove(
        ControlModes::CSIZE
            | ControlModes::PARENB
            | ControlModes::PARODD
            | ControlModes::CSTOPB
            | ControlModes::CRTSCTS,
    );
    c.insert(match s.data_bits {
        5 => ControlModes::CS5,
        6 => ControlModes::CS6,
        7 => ControlModes::CS7,
        _ => ControlModes::CS8,
    });
    match s.parity {
        Parity::None => {}
        Parity::Odd => c.insert(ControlModes::PARENB | ControlModes::PARODD),
        Parity::Even => c.insert(ControlModes::PARENB),
    }
    if s.stop_bits == 2 {
        c.insert(ControlModes::CSTOPB);
    }
    // CLOCAL: ignore modem control lines (no carrier needed); CREAD: receive.
    c.insert(ControlModes::CLOCAL | ControlModes::CREAD);
    t.input_modes.remove(InputModes::IXON | InputModes::IXOFF | InputModes::IXANY);
    match s.flow {
        Flow::None => {}
        Flow::Soft => t.input_modes.insert(InputModes::IXON | InputModes::IXOFF),
        Flow::Hard => t.control_modes.insert(ControlModes::CRTSCTS),
    }
    t.special_codes[SpecialCodeIndex::VMIN] = s.vmin;
    t.special_codes[SpecialCodeIndex::VTIME] = s.vtime;
}

/// The multi-port serial tuning guide's fastport: conditions the line for raw transfers (no output processing, no
/// canonical input, no signals, no CR translation, no echo) with VMIN/VTIME, leaving its
/// speed and framing alone. Returns the equivalent stty command.
pub fn fastport(fd: impl AsFd, path: &Path, vmin: u8, vtime: u8) -> Result<String, Error> {
    let setup = |e: rustix::io::Errno| Error::Setup { path: path.display().to_string(), cause: e.into() };
    let mut t = tcgetattr(&fd).map_err(setup)?;
    t.output_modes.remove(OutputModes::OPOST | OutputModes::ONLCR);
    t.local_modes.remove(LocalModes::ICANON | LocalModes::ISIG | LocalModes::ECHO);
    t.input_modes.remove(InputModes::ICRNL);
    t.special_codes[SpecialCodeIndex::VMIN] = vmin;
    t.special_codes[SpecialCodeIndex::VTIME] = vtime;
    tcsetattr(&fd, OptionalActions::Now, &t).map_err(setup)?;
    Ok(format!("stty -F {} -opost -icanon -isig -icrnl -echo -onlcr min {vmin} time {vtime}", path.display()))
}

/// Byte mappings, as tio's `--map` names them. Input mappings change what is shown (the log
/// keeps the bytes as received); output mappings change what keys send.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Map {
    /// Input: CR becomes NL.
    pub icrnl: bool,
    /// Input: CR is dropped.
    pub igncr: bool,
    /// Input: NL becomes CR.
    pub inlcr: bool,
    /// Input: NL becomes CR NL (for devices that end lines with a bare NL).
    pub inlcrnl: bool,
    /// Output: CR (the Enter key) becomes NL.
    pub ocrnl: bool,
    /// Output: NL becomes CR NL.
    pub onlcrnl: bool,
    /// Output: DEL (the Backspace key) becomes BS.
    pub odelbs: bool,
    /// Output: lower case becomes upper case.
    pub oltu: bool,
}

impl Map {
    /// Parses a comma-separated list of names (case does not matter), e.g. `INLCRNL,ODELBS`.
    pub fn parse(list: &str) -> Result<Map, String> {
        let mut m = Map::default();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let flag = match name.to_ascii_uppercase().as_str() {
                "ICRNL" => &mut m.icrnl,
                "IGNCR" => &mut m.igncr,
                "INLCR" => &mut m.inlcr,
                "INLCRNL" => &mut m.inlcrnl,
                "OCRNL" => &mut m.ocrnl,
                "ONLCRNL" => &mut m.onlcrnl,
                "ODELBS" => &mut m.odelbs,
                "OLTU" => &mut m.oltu,
                _ => {
                    return Err(format!(
                        "unknown mapping {name:?} (known: ICRNL IGNCR INLCR INLCRNL OCRNL ONLCRNL ODELBS OLTU)"
                    ))
                }
            };
            *flag = true;
        }
        Ok(m)
    }

    pub fn maps_input(&self) -> bool {
        self.icrnl || self.igncr || self.inlcr || self.inlcrnl
    }

    /// Received bytes as they are shown.
    pub fn input(&self, bytes: &[u8], out: &mut Vec<u8>) {
        for &b in bytes {
            match b {
                b'\r' if self.igncr => {}
                b'\r' if self.icrnl => out.push(b'\n'),
                b'\n' if self.inlcrnl => out.extend_from_slice(b"\r\n"),
                b'\n' if self.inlcr => out.push(b'\r'),
                _ => out.push(b),
            }
        }
    }

    /// Typed bytes as they are sent.
    pub fn output(&self, bytes: &[u8], out: &mut Vec<u8>) {
        for &b in bytes {
            match b {
                b'\r' if self.ocrnl => out.push(b'\n'),
                b'\n' if self.onlcrnl => out.extend_from_slice(b"\r\n"),
                0x7f if self.odelbs => out.push(0x08),
                b'a'..=b'z' if self.oltu => out.push(b.to_ascii_uppercase()),
                _ => out.push(b),
            }
        }
    }
}

/// Sends a break (a quarter to half a second of zero bits; on a pty, nothing).
pub fn send_break(fd: impl AsFd) -> io::Result<()> {
    rustix::termios::tcsendbreak(fd)?;
    Ok(())
}

/// Modem control lines that blitty can drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    Dtr,
    Rts,
}

/// Raises or lowers DTR or RTS (a pty has no modem lines: an error).
pub fn set_line(fd: impl AsFd, line: Line, on: bool) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let bits: libc::c_int = match line {
        Line::Dtr => libc::TIOCM_DTR,
        Line::Rts => libc::TIOCM_RTS,
    };
    let request = if on { libc::TIOCMBIS } else { libc::TIOCMBIC };
    // SAFETY: TIOCMBIS/TIOCMBIC read one c_int through the pointer, which outlives the call.
    let r = unsafe { libc::ioctl(fd.as_fd().as_raw_fd(), request, &bits as *const libc::c_int) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The driver's line counters (TIOCGICOUNT): bytes and errors the UART saw.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counters {
    pub rx: u64,
    pub tx: u64,
    pub frame: u64,
    pub overrun: u64,
    pub parity: u64,
    pub brk: u64,
    pub buf_overrun: u64,
}

/// The driver's counters, or None when the device keeps none (a pty, many USB adapters).
pub fn counters(fd: impl AsFd) -> Option<Counters> {
    use std::os::fd::AsRawFd;
    // struct serial_icounter_struct from <linux/serial.h>.
    #[repr(C)]
    #[derive(Default)]
    struct Icount {
        cts: libc::c_int,
        dsr: libc::c_int,
        rng: libc::c_int,
        dcd: libc::c_int,
        rx: libc::c_int,
        tx: libc::c_int,
        frame: libc::c_int,
        overrun: libc::c_int,
        parity: libc::c_int,
        brk: libc::c_int,
        buf_overrun: libc::c_int,
        reserved: [libc::c_int; 9],
    }
    let mut c = Icount::default();
    // SAFETY: TIOCGICOUNT writes one serial_icounter_struct, which `c` is, laid out as C.
    let r = unsafe { libc::ioctl(fd.as_fd().as_raw_fd(), libc::TIOCGICOUNT, &mut c as *mut Icount) };
    if r < 0 {
        return None;
    }
    let u = |v: libc::c_int| v as u32 as u64;
    Some(Counters {
        rx: u(c.rx),
        tx: u(c.tx),
        frame: u(c.frame),
        overrun: u(c.overrun),
        parity: u(c.parity),
        brk: u(c.brk),
        buf_overrun: u(c.buf_overrun),
    })
}

/// Characters a second the line carries: start bit, data bits, parity, stop bits.
pub fn chars_per_second(s: &Settings) -> f64 {
    let bits = 1 + s.data_bits as u32 + u32::from(s.parity != Parity::None) + s.stop_bits as u32;
    s.baud as f64 / bits as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pty pair stands in for a cable: the slave end is the "device".
    fn cable() -> (OwnedFd, std::path::PathBuf) {
        blitty_os::pty::pair().expect("a pty")
    }

    #[test]
    fn settings_become_the_termios_framing_and_flow_flags() {
        let (_master, path) = cable();
        let fd = open(&path).expect("opens");
        let mut t = tcgetattr(&fd).expect("tcgetattr");
        let s = Settings {
            baud: 9600,
            data_bits: 7,
            parity: Parity::Odd,
            stop_bits: 2,
            flow: Flow::Hard,
            vmin: 0,
            vtime: 5,
        };
        apply(&mut t, &s);
        let c = t.control_modes;
        assert!(c & ControlModes::CSIZE == ControlModes::CS7);
        assert!(c.contains(ControlModes::PARENB | ControlModes::PARODD | ControlModes::CSTOPB | ControlModes::CRTSCTS));
        assert!(c.contains(ControlModes::CLOCAL | ControlModes::CREAD));
        apply(&mut t, &Settings::default());
        let c = t.control_modes;
        assert!(c & ControlModes::CSIZE == ControlModes::CS8);
        assert!(!c.intersects(ControlModes::PARENB | ControlModes::CSTOPB | ControlModes::CRTSCTS));
    }

    #[test]
    fn configure_sets_flow_timing_and_speed_on_a_real_line() {
        // A pty keeps these; it forces CS8 and no parity, so framing is checked above.
        let (_master, path) = cable();
        let fd = open(&path).expect("opens");
        let s = Settings {
            baud: 9600,
            data_bits: 7,
            parity: Parity::Even,
            stop_bits: 2,
            flow: Flow::Soft,
            vmin: 0,
            vtime: 5,
        };
        configure(&fd, &path, &s).expect("configures");
        let t = tcgetattr(&fd).expect("tcgetattr");
        assert!(t.input_modes.contains(InputModes::IXON | InputModes::IXOFF));
        assert!(!t.local_modes.contains(LocalModes::ICANON) && !t.output_modes.contains(OutputModes::OPOST));
        assert_eq!((t.special_codes[SpecialCodeIndex::VMIN], t.special_codes[SpecialCodeIndex::VTIME]), (0, 5));
        assert_eq!(t.output_speed(), 9600);
    }

    #[test]
    fn a_non_standard_baud_rate_is_set_exactly() {
        let (_master, path) = cable();
        let fd = open(&path).expect("opens");
        let s = Settings { baud: 250_000, ..Settings::default() };
        configure(&fd, &path, &s).expect("configures");
        assert_eq!(tcgetattr(&fd).expect("tcgetattr").output_speed(), 250_000);
    }

    #[test]
    fn fastport_conditions_the_line_and_says_how() {
        let (_master, path) = cable();
        let fd = open(&path).expect("opens");
        let stty = fastport(&fd, &path, 255, 1).expect("conditions");
        let t = tcgetattr(&fd).expect("tcgetattr");
        assert!(!t.output_modes.contains(OutputModes::OPOST) && !t.output_modes.contains(OutputModes::ONLCR));
        assert!(!t.local_modes.intersects(LocalModes::ICANON | LocalModes::ISIG | LocalModes::ECHO));
        assert!(!t.input_modes.contains(InputModes::ICRNL));
        assert_eq!(stty, format!("stty -F {} -opost -icanon -isig -icrnl -echo -onlcr min 255 time 1", path.display()));
    }

    #[test]
    fn maps_change_shown_and_sent_bytes_and_unknown_names_are_refused() {
        let m = Map::parse("inlcrnl, ODELBS,oltu").expect("parses");
        let mut out = Vec::new();
        m.input(b"a\nb\r", &mut out);
        assert_eq!(out, b"a\r\nb\r");
        out.clear();
        m.output(b"ls\x7f\r", &mut out);
        assert_eq!(out, b"LS\x08\r");
        let m = Map::parse("IGNCR,OCRNL").expect("parses");
        out.clear();
        m.input(b"x\r\n", &mut out);
        m.output(b"\r", &mut out);
        assert_eq!(out, b"x\n\n");
        assert!(Map::parse("ICRNL,BOGUS").expect_err("refused").contains("\"BOGUS\""));
    }

    #[test]
    fn a_pty_has_no_modem_lines_or_counters_and_says_so() {
        let (_master, path) = cable();
        let fd = open(&path).expect("opens");
        assert!(set_line(&fd, Line::Dtr, false).is_err());
        assert!(counters(&fd).is_none());
        // A pty takes a break request (and sends nothing).
        send_break(&fd).expect("break");
    }

    #[test]
    fn a_missing_device_or_a_plain_file_is_a_clear_error() {
        let e = open(Path::new("/dev/blitty-no-such-device")).expect_err("missing");
        assert!(e.to_string().starts_with("cannot open /dev/blitty-no-such-device"), "{e}");
        let e = open(Path::new("/etc/hostname")).expect_err("not a tty");
        assert_eq!(e.to_string(), "/etc/hostname is not a terminal device (a serial line or a pty)");
    }
}
