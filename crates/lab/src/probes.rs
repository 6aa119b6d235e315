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
