//! The config file as found on disk: only a regular file (a symlink to one is fine) of at most
//! 1 MiB is read; anything else is one line and exit status 2, at once. blitty runs with
//! XDG_CONFIG_HOME (and HOME) in a directory of the test's own.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::scratch::Scratch;

const BLITTY: &str = env!("CARGO_BIN_EXE_blitty");

/// `blitty run -- true` with its config directory in `home` (and `--config FILE` with
/// `explicit`), stopped if it takes more than 10 s; returns the exit status and standard error.
fn run(home: &Path, explicit: Option<&Path>) -> (Option<i32>, String) {
    let mut cmd = Command::new(BLITTY);
    cmd.arg("run");
    if let Some(file) = explicit {
        cmd.arg("--config").arg(file);
    }
    let mut child = cmd
        .args(["--", "true"])
        .env("XDG_CONFIG_HOME", home)
        .env("HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("blitty starts");
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.try_wait().expect("wait").is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("blitty was still reading its config file after 10 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().expect("output");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A config directory whose `blitty/config.toml` is made by `make`.
fn home(name: &str, make: impl FnOnce(&Path)) -> Scratch {
    let dir = Scratch::new(&format!("config-{name}"));
    std::fs::create_dir_all(dir.join("blitty")).expect("dir");
    make(&dir.join("blitty/config.toml"));
    dir
}

fn refused(err: &str, path: &Path, why: &str) {
    let want = format!("blitty: cannot read the config file {}: {why}", path.display());
    assert_eq!(err.trim_end(), want);
}

#[test]
fn a_config_file_that_is_a_symlink_to_dev_zero_is_refused_at_once() {
    let dir = home("zero", |file| std::os::unix::fs::symlink("/dev/zero", file).expect("symlink"));
    let (code, err) = run(&dir, None);
    assert_eq!(code, Some(2), "{err}");
    refused(&err, &dir.join("blitty/config.toml"), "it is a character device, not a regular file");
}

#[test]
fn a_config_file_that_is_a_fifo_is_refused_without_waiting_for_a_writer() {
    let dir = home("fifo", |file| {
        let path = std::ffi::CString::new(file.as_os_str().as_encoded_bytes()).expect("path");
        // SAFETY: mkfifo reads a NUL-terminated path and touches no memory of ours.
        assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0, "mkfifo");
    });
    let file = dir.join("blitty/config.toml");
    for explicit in [None, Some(file.as_path())] {
        let (code, err) = run(&dir, explicit);
        assert_eq!(code, Some(2), "{err}");
        refused(&err, &file, "it is a FIFO, not a regular file");
    }
}

#[test]
fn a_config_file_larger_than_a_mebibyte_is_refused_before_it_is_read() {
    // Valid TOML all through (comments), so nothing but its size is wrong with it.
    let dir = home("large", |file| {
        let line = format!("# {}\n", "x".repeat(77));
        std::fs::write(file, line.repeat((2 << 20) / line.len())).expect("file");
    });
    let (code, err) = run(&dir, None);
    assert_eq!(code, Some(2), "{err}");
    refused(&err, &dir.join("blitty/config.toml"), "it is larger than 1024 KiB");
    // A directory where the file should be is said as plainly.
    let dir = home("dir", |file| std::fs::create_dir(file).expect("dir"));
    let (code, err) = run(&dir, None);
    assert_eq!(code, Some(2), "{err}");
    refused(&err, &dir.join("blitty/config.toml"), "it is a directory, not a regular file");
}

#[test]
fn status_colours_as_bare_numbers_are_taken_and_a_symlink_to_a_file_is_read() {
    // The README documents 0-255 for [status] fg and bg. Taken, the file lets blitty go on to
    // its next check (here: no terminal), instead of stopping at the file.
    let dir = home("colours", |file| {
        let real = file.with_file_name("real.toml");
        std::fs::write(&real, "[status]\nfg = 5\nbg = 230\n").expect("file");
        std::os::unix::fs::symlink(&real, file).expect("symlink");
    });
    let (code, err) = run(&dir, None);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("must be a terminal") && !err.contains("config"), "{err}");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[status]\nbg = 300\n").expect("file");
    let (code, err) = run(&dir, Some(&bad));
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        err.trim_end(),
        format!(
            "blitty: config file {}: line 2: status.bg: 300 is not a colour (a palette index is 0 to 255)",
            bad.display()
        )
    );
}
