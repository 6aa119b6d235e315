//! The seed experiments' C probes (built by build.rs with the `cc` crate). Each runs in a
//! child process started as `blitty probe ...`, so its costs are its own.

use std::os::raw::{c_int, c_long};

extern "C" {
    fn blitty_probe_stdio(method: c_int, bufsize: c_long) -> c_int;
}

/// The copy methods of seed 003 (APUE section 5.8 and figure 3.6).
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

/// The eight ways of seed 000, in its order; the last is the control.
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
