//! Serial lines without serial hardware: each line is a pty pair, the slave the line's device
//! and the master its far end, which the bench plays by writing at the line's rate without
//! waiting, as a UART without flow control sends; what the line cannot take is lost, as it
//! would be. What arrived is then checked against what was sent, byte for byte.

use std::os::fd::OwnedFd;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The text every line sends, over and over.
pub(crate) fn pattern() -> Vec<u8> {
    let mut p = Vec::new();
    let mut i = 0;
    while p.len() < 1 << 16 {
        p.extend_from_slice(format!("{i:06} the quick brown fox jumps over the lazy dog 0123456789\r\n").as_bytes());
        i += 1;
    }
    p.truncate(1 << 16);
    p
}

/// Raises the open-file limit to its hard limit (a port is a file, twice).
pub fn raise_file_limit() {
    // SAFETY: getrlimit/setrlimit read and write one rlimit struct we own.
    unsafe {
        let mut r = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) == 0 && r.rlim_cur < r.rlim_max {
            r.rlim_cur = r.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &r);
        }
    }
}

/// One line: `master` is its far end (non-blocking, so that a full line drops what it cannot
/// take), `slave` the device a receiver opens.
pub(crate) struct Line {
    pub master: OwnedFd,
    pub slave: PathBuf,
}

/// A line on a fresh pty pair.
pub(crate) fn open_line() -> Result<Line, String> {
    let (master, slave) = blitty_os::pty::pair().map_err(|e| format!("cannot open a pty: {e}"))?;
    rustix::fs::fcntl_setfl(&master, rustix::fs::OFlags::NONBLOCK).map_err(|e| format!("fcntl: {e}"))?;
    Ok(Line { master, slave })
}

/// What the far ends of the lines did: per line, the bytes due, written and dropped.
pub(crate) struct Sent {
    pub sent: Vec<u64>,
    pub written: Vec<u64>,
    pub dropped: Vec<u64>,
}

/// Plays the far ends: writes `pattern` over and over into every line's master at `baud`/10
/// characters a second, every 20 ms, for `seconds`, without blocking (what a line cannot take
/// is dropped, as a UART without flow control loses it). `mark` is called once at a quarter
/// and once at nine tenths of the time.
pub(crate) fn send(lines: &[Line], pattern: &[u8], baud: u32, seconds: f64, mut mark: impl FnMut()) -> Sent {
    let ports = lines.len();
    let doubled = [pattern, pattern].concat();
    let cps = baud as f64 / 10.0;
    let mut sent = vec![0u64; ports];
    let mut written = vec![0u64; ports];
    let mut dropped = vec![0u64; ports];
    let start = Instant::now();
    let tick = Duration::from_millis(20);
    let mut next = start;
    let marks = [seconds / 4.0, seconds * 0.9];
    let mut marked = 0;
    loop {
        let now = Instant::now();
        let t = now.duration_since(start).as_secs_f64().min(seconds);
        let due = (t * cps) as u64;
        for i in 0..ports {
            let mut left = due - sent[i];
            while left > 0 {
                let at = (sent[i] % pattern.len() as u64) as usize;
                let n = (left as usize).min(pattern.len());
                match rustix::io::write(&lines[i].master, &doubled[at..at + n]) {
                    Ok(k) => {
                        written[i] += k as u64;
                        if k < n {
                            dropped[i] += (n - k) as u64;
                        }
                    }
                    Err(rustix::io::Errno::INTR) => continue,
                    Err(_) => dropped[i] += n as u64,
                }
                sent[i] += n as u64;
                left -= n as u64;
            }
        }
        if marked < marks.len() && t >= marks[marked] {
            mark();
            marked += 1;
        }
        if t >= seconds {
            break;
        }
        next += tick;
        if let Some(d) = next.checked_duration_since(Instant::now()) {
            std::thread::sleep(d);
        }
    }
    Sent { sent, written, dropped }
}

/// Bytes lost: every capture must be exactly what its line carried (the pattern over and over,
/// as long as what was written), and what was dropped at the sending end is lost too.
pub(crate) fn lost(captures: &[PathBuf], pattern: &[u8], written: &[u64], dropped: &[u64]) -> u64 {
    let mut lost: u64 = dropped.iter().sum();
    for i in 0..captures.len() {
        let cap = std::fs::read(&captures[i]).unwrap_or_default();
        let intact = if dropped[i] == 0 {
            cap.len() as u64 == written[i] && cap.chunks(pattern.len()).all(|c| c == &pattern[..c.len()])
        } else {
            cap.len() as u64 == written[i]
        };
        if !intact {
            lost += written[i].saturating_sub(cap.len() as u64).max(1);
        }
    }
    lost
}
