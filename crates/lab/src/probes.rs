//! The programs the experiments run in a child process, started as `blitty-lab probe ...` so
//! that each one's costs are its own: the seed experiments' C probes (built by build.rs with
//! the `cc` crate: `stdio`, `writes`), and `pace` and `flood-echo`, which write into a
//! terminal at a set rate or without end. `ports-recv`, the receiving side of `bench ports`,
//! is in that experiment.

use std::os::raw::{c_int, c_long};
use std::time::{Duration, Instant};

extern "C" {
    fn blitty_probe_stdio(method: c_int, bufsize: c_long) -> c_int;
}

/// The copy methods of the stdio efficiency table (APUE section 5.8 and figure 3.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Copy {
    GetcPutc,
    FgetcFputc,
    FgetsFputs,
    ReadWrite(usize),
}

impl Copy {
    pub fn label(self) -> String {
        match self {
            Copy::GetcPutc => "getc/putc".into(),
            Copy::FgetcFputc => "fgetc/fputc".into(),
            Copy::FgetsFputs => "fgets/fputs".into(),
            Copy::ReadWrite(n) => format!("read/write, BUFFSIZE {n}"),
        }
    }

    /// The arguments of `blitty probe stdio`.
    pub fn args(self) -> Vec<String> {
        match self {
            Copy::GetcPutc => vec!["getc".into()],
            Copy::FgetcFputc => vec!["fgetc".into()],
            Copy::FgetsFputs => vec!["fgets".into()],
            Copy::ReadWrite(n) => vec!["read".into(), n.to_string()],
        }
    }

    pub fn parse(method: &str, size: Option<usize>) -> Option<Copy> {
        match (method, size) {
            ("getc", None) => Some(Copy::GetcPutc),
            ("fgetc", None) => Some(Copy::FgetcFputc),
            ("fgets", None) => Some(Copy::FgetsFputs),
            ("read", Some(n)) if n > 0 => Some(Copy::ReadWrite(n)),
            _ => None,
        }
    }
}

/// Copies standard input to standard output with `method`; returns the probe's exit code.
pub fn stdio(method: Copy) -> i32 {
    let (m, size) = match method {
        Copy::GetcPutc => (0, 0),
        Copy::FgetcFputc => (1, 0),
        Copy::FgetsFputs => (2, 0),
        Copy::ReadWrite(n) => (3, n as c_long),
    };
    // SAFETY: the probe reads fd 0 and writes fd 1 through C stdio or read/write; it takes
    // plain integers and keeps no pointers beyond the call.
    unsafe { blitty_probe_stdio(m, size) }
}

extern "C" {
    fn blitty_probe_writes(method: c_int, raw: c_int, text: *const u8, len: c_long, results: *mut f64) -> c_int;
}

/// The eight ways of the modem-program post, in its order; the last is the control.
pub const WRITE_METHODS: [&str; 8] = [
    "setbuf, fputc",
    "setbuf, putc",
    "setbuf, putchar",
    "fputc, fflush",
    "putc, fflush",
    "putchar, fflush",
    "write",
    "fwrite",
];

/// What one write method cost: seconds until the writes returned, seconds until the terminal
/// had processed them (None when it never answered), user and system CPU, write() calls.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct WriteCost {
    pub returned: f64,
    pub processed: Option<f64>,
    pub user: f64,
    pub sys: f64,
    pub write_calls: f64,
}

fn thread_syscw() -> f64 {
    std::fs::read_to_string("/proc/thread-self/io")
        .ok()
        .and_then(|io| io.lines().find_map(|l| l.strip_prefix("syscw:")).and_then(|v| v.trim().parse().ok()))
        .unwrap_or(0.0)
}

/// Writes `text` to the terminal on standard output with method `method` (0..8), cooked or raw.
pub fn writes(method: usize, raw: bool, text: &[u8]) -> Option<WriteCost> {
    let mut r = [0f64; 4];
    let before = thread_syscw();
    // SAFETY: `text` and `r` outlive the call; the probe reads `len` bytes of `text` and writes
    // four doubles into `r`; it keeps no pointers.
    let rc = unsafe {
        blitty_probe_writes(method as c_int, raw as c_int, text.as_ptr(), text.len() as c_long, r.as_mut_ptr())
    };
    // The DSR query is one more write().
    let calls = (thread_syscw() - before - 1.0).max(0.0);
    (rc == 0).then_some(WriteCost {
        returned: r[0],
        processed: (r[1] >= 0.0).then_some(r[1]),
        user: r[2],
        sys: r[3],
        write_calls: calls,
    })
}

/// `probe flood-echo FILE` (key to pixels during a flood, `blitty bench window`): writes FILE
/// (plain text, no escapes) to the terminal over and over in 4 KiB writes, in the rows from the
/// second down (a scroll region, the cursor hidden), and puts each key it reads in the top row's
/// first cell, in one write between two of the flood's (a write to a tty is not interleaved
/// with another's). The key's echo waits behind what of the flood the pty holds, as any
/// program's answer does. Runs until its terminal goes.
pub fn flood_echo(file: &str) -> Result<(), String> {
    use rustix::event::{poll, PollFd, PollFlags};
    use rustix::termios::{tcgetattr, tcgetwinsize, tcsetattr, LocalModes, OptionalActions};
    let text = std::fs::read(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    if text.is_empty() || text.contains(&0x1b) {
        return Err(format!("{file}: needs plain text, without escapes"));
    }
    let (stdin, stdout) = (rustix::stdio::stdin(), rustix::stdio::stdout());
    let rows = tcgetwinsize(stdout).map_err(|e| format!("not a terminal: {e}"))?.ws_row.max(3);
    let mut t = tcgetattr(stdin).map_err(|e| format!("not a terminal: {e}"))?;
    t.local_modes.remove(LocalModes::ICANON | LocalModes::ECHO);
    tcsetattr(stdin, OptionalActions::Now, &t).map_err(|e| e.to_string())?;
    let write_all = |mut b: &[u8]| -> Result<(), String> {
        while !b.is_empty() {
            match rustix::io::write(stdout, b) {
                Ok(n) => b = &b[n..],
                Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        Ok(())
    };
    write_all(format!("\x1b[?25l\x1b[2J\x1b[2;{rows}r\x1b[2;1H").as_bytes())?;
    let mut at = 0;
    let mut key = [0u8; 64];
    loop {
        let mut fds = [PollFd::new(&stdin, PollFlags::IN), PollFd::new(&stdout, PollFlags::OUT)];
        match poll(&mut fds, None) {
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.to_string()),
        }
        let (input, output) = (fds[0].revents(), fds[1].revents());
        if input.intersects(PollFlags::IN | PollFlags::HUP | PollFlags::ERR) {
            let n = rustix::io::read(stdin, &mut key).map_err(|e| e.to_string())?;
            if n == 0 {
                return Ok(());
            }
            write_all(&[b"\x1b7\x1b[1;1H", &key[n - 1..n], b"\x1b8"].concat())?;
        }
        if output.contains(PollFlags::OUT) {
            let end = (at + 4096).min(text.len());
            write_all(&text[at..end])?;
            at = if end == text.len() { 0 } else { end };
        }
        if output.intersects(PollFlags::HUP | PollFlags::ERR) {
            return Ok(());
        }
    }
}

/// `probe pace RATE SECONDS START FILE`: from START (ns since the epoch) writes FILE over and
/// over to standard output, RATE bytes a second in 10 ms steps, for SECONDS.
pub fn pace(rate: &str, seconds: &str, start: &str, file: &str) -> Result<(), String> {
    let rate: f64 = rate.parse().map_err(|_| "RATE: bytes a second")?;
    let seconds: f64 = seconds.parse().map_err(|_| "SECONDS: a number")?;
    let start: u128 = start.parse().map_err(|_| "START: nanoseconds since the epoch")?;
    let data = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    if data.is_empty() {
        return Err(format!("{file} is empty"));
    }
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
    if start > now {
        std::thread::sleep(Duration::from_nanos((start - now) as u64));
    }
    let t0 = Instant::now();
    let mut out = std::io::stdout().lock();
    let (mut sent, mut at) = (0f64, 0usize);
    while t0.elapsed().as_secs_f64() < seconds {
        let due = t0.elapsed().as_secs_f64() * rate;
        while sent < due {
            let n = ((due - sent) as usize).clamp(1, data.len() - at);
            std::io::Write::write_all(&mut out, &data[at..at + n]).map_err(|e| e.to_string())?;
            sent += n as f64;
            at = (at + n) % data.len();
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}
