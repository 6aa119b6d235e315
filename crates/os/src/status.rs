//! Child processes' ends as a shell reports them.

use std::os::unix::process::ExitStatusExt;

/// The child's status as a shell reports it: its exit code, or 128 + the signal that killed it.
pub fn shell_status(status: std::process::ExitStatus) -> i32 {
    status.code().or_else(|| status.signal().map(|s| 128 + s)).unwrap_or(1)
}
