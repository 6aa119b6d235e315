//! This process's and this thread's costs, from /proc: what `--stats` reports and what the
//! benchmarks read.

/// This thread's CPU seconds, to the nanosecond: /proc/thread-self/schedstat holds the
/// nanoseconds on the CPU, then waiting, then time slices.
pub fn thread_cpu() -> f64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse::<f64>().ok()))
        .unwrap_or(0.0)
        / 1e9
}

/// This thread's read() and write() system calls, from /proc/thread-self/io. (The process's
/// /proc/self/io would also count the children it has reaped.)
pub fn thread_syscalls() -> (u64, u64) {
    let mut counts = (0, 0);
    if let Ok(io) = std::fs::read_to_string("/proc/thread-self/io") {
        for line in io.lines() {
            let mut it = line.split(':');
            let (k, v) = (it.next().unwrap_or(""), it.next().unwrap_or("").trim().parse().unwrap_or(0));
            match k {
                "syscr" => counts.0 = v,
                "syscw" => counts.1 = v,
                _ => {}
            }
        }
    }
    counts
}
