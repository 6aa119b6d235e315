//! Output commands behind a pipe whose reader has gone (`blitty completions zsh | true`,
//! `blitty man | head -1`): the rest was not wanted, so blitty ends quietly with status 0, as
//! any Unix filter, never with an internal error.

use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Command, Stdio};

const BLITTY: &str = env!("CARGO_BIN_EXE_blitty");

/// Runs blitty with standard output a pipe whose read end is already closed.
fn into_closed_pipe(args: &[&str]) -> std::process::Output {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe() returns; each is owned once below.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors were just returned by pipe() and are owned by nothing else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    Command::new(BLITTY).args(args).stdout(Stdio::from(write)).stderr(Stdio::piped()).output().expect("blitty runs")
}

#[test]
fn completions_and_the_manual_end_quietly_when_the_reader_has_gone() {
    for args in [&["completions", "zsh"][..], &["completions", "bash"], &["completions", "fish"], &["man"]] {
        let out = into_closed_pipe(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err}");
    }
}
