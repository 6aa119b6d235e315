//! Another process's costs, read from /proc while it runs: its CPU seconds and its resident
//! memory (servers measured from outside, which report nothing themselves).

use std::time::{Duration, Instant};

/// How long [`settled_rss`] waits for memory to settle before giving up.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(300);

/// CPU seconds (user and system) of process `pid`.
pub(crate) fn cpu_seconds(pid: u32) -> Result<f64, String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).map_err(|e| format!("process {pid}: {e}"))?;
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = rustix::param::clock_ticks_per_second() as f64;
    let get = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    Ok((get(11) + get(12)) / ticks)
}

/// Resident memory of process `pid`, in MB.
fn rss_mb(pid: u32) -> Result<f64, String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).map_err(|e| format!("process {pid}: {e}"))?;
    let kb = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .ok_or("no VmRSS")?;
    Ok(kb / 1024.0)
}

/// Waits until `pid`'s resident memory has not changed for half a second.
pub(crate) fn settled_rss(pid: u32) -> Result<f64, String> {
    let mut last = rss_mb(pid)?;
    let mut since = Instant::now();
    let deadline = Instant::now() + SETTLE_TIMEOUT;
    while since.elapsed() < Duration::from_millis(500) {
        if Instant::now() > deadline {
            return Err("memory did not settle".into());
        }
        std::thread::sleep(Duration::from_millis(50));
        let now = rss_mb(pid)?;
        if now != last {
            last = now;
            since = Instant::now();
        }
    }
    Ok(last)
}
