//! The user's terminal and a serial device are given back after every end: a normal exit, a
//! signal, a fatal error (the log cannot be written), and an abort (SIGABRT, and a real
//! allocation failure under a memory limit). The user's terminal is a pty played by blitty's
//! own engine (`common::hostpty`), so *every* mode can be checked, with its termios.

mod common;

use std::os::unix::process::ExitStatusExt;
use std::time::{Duration, Instant};

use common::hostpty::{termios_key, HostPty};

const BLITTY: &str = env!("CARGO_BIN_EXE_blitty");

/// A program that turns on every mode blitty mirrors to the host, says `ready`, and waits.
const MODES_ON: &str =
    "printf '\\033[?1h\\033=\\033[?1002h\\033[?1006h\\033[?1004h\\033[?2004h\\033[5 q\\033[?5h\\033[?25l'; echo ready;";

fn temp(name: &str) -> common::scratch::Scratch {
    common::scratch::Scratch::new(&format!("restore-{name}"))
}

/// The host is as it was: cooked termios, every mode off, the main screen.
fn assert_host_restored(host: &HostPty, before: &str) {
    let (bytes, modes, alt) = host.output();
    assert_eq!(termios_key(&host.termios()), before, "the host's termios");
    assert!(!alt, "the host is left on the alternate screen");
    assert_eq!(
        modes,
        blitty_vt::Modes::default(),
        "the host's modes; blitty wrote:\n{}",
        String::from_utf8_lossy(&bytes)
    );
}

/// Waits until the modes a program turned on have reached the host (a frame mirrored them).
fn wait_mirrored(host: &HostPty) {
    host.wait_for("ready");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !host.output().1.bracketed_paste {
        assert!(Instant::now() < deadline, "modes never mirrored:\n{}", host.screen());
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn pid_of(host: &HostPty) -> String {
    host.child.id().to_string()
}

/// Sets blitty's own limit `resource` to `value` while it runs (prlimit on its pid).
fn limit(host: &HostPty, resource: rustix::process::Resource, value: u64) {
    let pid = rustix::process::Pid::from_raw(host.child.id() as i32).expect("pid");
    rustix::process::prlimit(
        Some(pid),
        resource,
        rustix::process::Rlimit { current: Some(value), maximum: Some(value) },
    )
    .expect("prlimit");
}

#[test]
fn the_host_is_restored_after_a_normal_exit_with_every_mode_on() {
    let mut host = HostPty::spawn(BLITTY, &["run", "--", "sh", "-c", &format!("{MODES_ON} read x")]);
    let before = host.before.clone();
    wait_mirrored(&host);
    host.send(b"\r");
    assert_eq!(host.wait_exit().code(), Some(0));
    assert_host_restored(&host, &before);
}

#[test]
fn the_host_is_restored_after_each_signal_that_ends_blitty() {
    for (sig, name) in [(15, "TERM"), (1, "HUP"), (2, "INT"), (3, "QUIT")] {
        let mut host = HostPty::spawn(BLITTY, &["run", "--", "sh", "-c", &format!("{MODES_ON} sleep 30")]);
        let before = host.before.clone();
        wait_mirrored(&host);
        std::process::Command::new("kill").args([&format!("-{name}"), &pid_of(&host)]).status().expect("kill");
        assert_eq!(host.wait_exit().code(), Some(128 + sig), "SIG{name}");
        assert_host_restored(&host, &before);
    }
}

#[test]
fn ctrl_c_stops_the_program_even_when_blitty_was_started_with_sigint_ignored() {
    // Started as a background job of a script, blitty inherits SIGINT and SIGQUIT ignored; the
    // program it runs must not: a terminal gives its program default signals (found by the
    // Ctrl-C benchmark, whose `yes` went on for 20 s after Ctrl-C when it ran in the background).
    let mut host = HostPty::spawn_ignoring(
        BLITTY,
        &["run", "--", "sh", "-c", "echo ready; exec sleep 30"],
        &[libc::SIGINT, libc::SIGQUIT],
    );
    host.wait_for("ready");
    host.send(b"\x03");
    assert_eq!(host.wait_exit().code(), Some(128 + libc::SIGINT), "the program died of Ctrl-C's SIGINT");
}

#[test]
fn a_program_that_never_touched_the_cursor_leaves_the_host_s_cursor_shape_alone() {
    // xterm takes DECSCUSR 0 for a blinking block: blitty sends it only to undo a shape it
    // gave the host, at a normal end and after an abort alike.
    for end in ["exit", "abort"] {
        let mut host = HostPty::spawn(BLITTY, &["run", "--", "sh", "-c", "echo ready; read x"]);
        host.wait_for("ready");
        if end == "exit" {
            host.send(b"\r");
            assert_eq!(host.wait_exit().code(), Some(0));
        } else {
            std::process::Command::new("kill").args(["-ABRT", &pid_of(&host)]).status().expect("kill");
            assert_eq!(host.wait_exit().signal(), Some(6));
        }
        let (bytes, modes, _) = host.output();
        assert!(!bytes.windows(3).any(|w| w == b" q\x1b" || w == b"0 q"), "{end}: {}", String::from_utf8_lossy(&bytes));
        assert!(bytes.windows(8).any(|w| w == b"\x1b[?1049l"), "{end}: the host was given back");
        assert_eq!(modes.cursor_shape, blitty_vt::CursorShape::Default);
    }
}

#[test]
fn the_host_is_restored_after_sigabrt() {
    let mut host = HostPty::spawn(BLITTY, &["run", "--", "sh", "-c", &format!("{MODES_ON} sleep 30")]);
    let before = host.before.clone();
    wait_mirrored(&host);
    std::process::Command::new("kill").args(["-ABRT", &pid_of(&host)]).status().expect("kill");
    assert_eq!(host.wait_exit().signal(), Some(6), "blitty still dies of the signal");
    assert_host_restored(&host, &before);
}

#[test]
fn the_host_is_restored_after_an_allocation_failure() {
    // A real allocation failure: once the modes are on, blitty's address space is limited to
    // what it uses now plus 48 MiB, and the program floods lines into a 100,000-line
    // scrollback (64 MB of cells at 80 columns). Rust aborts on the failed allocation.
    let mut host = HostPty::spawn(
        BLITTY,
        &["run", "--scrollback", "100000", "--", "sh", "-c", &format!("{MODES_ON} read x; yes 'flood line'")],
    );
    let before = host.before.clone();
    wait_mirrored(&host);
    let pid = host.child.id() as i32;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    let vm_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmSize");
    limit(&host, rustix::process::Resource::As, (vm_kib + 48 * 1024) * 1024);
    host.send(b"\r");
    let status = host.wait_exit();
    assert_eq!(status.signal(), Some(6), "an abort on the failed allocation, not {status:?}");
    let (bytes, _, _) = host.output();
    assert!(String::from_utf8_lossy(&bytes).contains("memory allocation of"), "Rust's own message");
    assert_host_restored(&host, &before);
}

#[test]
fn a_full_disk_under_the_log_is_one_line_naming_the_log() {
    let mut host = HostPty::spawn(BLITTY, &["run", "--log", "/dev/full", "--", "sh", "-c", "echo hi; sleep 30"]);
    let before = host.before.clone();
    assert_eq!(host.wait_exit().code(), Some(2));
    let (bytes, _, _) = host.output();
    let text = String::from_utf8_lossy(&bytes);
    let msg = "blitty: cannot write the log file /dev/full: No space left on device (os error 28)";
    assert_eq!(text.matches("No space left on device").count(), 1, "said once: {text}");
    assert!(text.contains(msg), "{text}");
    assert_host_restored(&host, &before);
}

#[test]
fn a_log_that_fails_mid_session_restores_every_mode() {
    // Once the program's modes are on the host, blitty's file-size limit is set to what its log
    // holds: the next write fails (EFBIG: blitty ignores SIGXFSZ), a fatal error.
    let log = temp("limited.log");
    let mut host = HostPty::spawn(
        BLITTY,
        &[
            "run",
            "--log",
            log.to_str().expect("utf-8"),
            "--",
            "sh",
            "-c",
            &format!("{MODES_ON} read x; echo more; sleep 30"),
        ],
    );
    let before = host.before.clone();
    wait_mirrored(&host);
    limit(&host, rustix::process::Resource::Fsize, std::fs::metadata(&log).expect("the log exists").len());
    host.send(b"\r");
    assert_eq!(host.wait_exit().code(), Some(2));
    let text = String::from_utf8_lossy(&host.output().0).into_owned();
    assert!(text.contains(&format!("blitty: cannot write the log file {}: File too large", log.display())), "{text}");
    assert_host_restored(&host, &before);
}

#[test]
fn a_bad_stats_path_is_refused_before_the_program_runs() {
    let marker = temp("ran");
    let out = std::process::Command::new(BLITTY)
        .args(["run", "--stats", "/nonexistent/dir/stats", "--", "touch", marker.to_str().expect("utf-8")])
        .output()
        .expect("blitty runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "blitty: cannot create the statistics file /nonexistent/dir/stats: No such file or directory (os error 2)"
    );
    assert!(!marker.exists(), "the program must not have run");
}

/// A pty standing in for a serial device, set to "sane 115200" as a user's port might be.
fn device() -> (std::fs::File, String, String) {
    let (master, port) = blitty_os::pty::pair().expect("a pty");
    let mut t = rustix::termios::tcgetattr(&master).expect("tcgetattr");
    t.set_speed(115_200).expect("speed");
    rustix::termios::tcsetattr(&master, rustix::termios::OptionalActions::Now, &t).expect("tcsetattr");
    let key = termios_key(&rustix::termios::tcgetattr(&master).expect("tcgetattr"));
    (std::fs::File::from(master), port.display().to_string(), key)
}

#[test]
fn serial_gives_the_device_and_the_host_back_after_quit_sigterm_and_sigabrt() {
    use std::io::Write;
    for end in ["quit", "TERM", "ABRT"] {
        let (mut dev, port, dev_before) = device();
        let mut host = HostPty::spawn(BLITTY, &["serial", &port, "-b", "9600"]);
        let before = host.before.clone();
        // The console has set the line up once the device's text shows.
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            dev.write_all(b"hello from the device\r\n").expect("device writes");
            std::thread::sleep(Duration::from_millis(100));
            if host.screen().contains("hello from the device") {
                break;
            }
            assert!(Instant::now() < deadline, "the device's text never showed:\n{}", host.screen());
        }
        let during = termios_key(&rustix::termios::tcgetattr(&dev).expect("tcgetattr"));
        assert_ne!(during, dev_before, "blitty set the line up (9600, raw)");
        let status = match end {
            "quit" => {
                host.send(b"\x1dq");
                host.wait_exit()
            }
            sig => {
                std::process::Command::new("kill").args([&format!("-{sig}"), &pid_of(&host)]).status().expect("kill");
                host.wait_exit()
            }
        };
        match end {
            "quit" => assert_eq!(status.code(), Some(0)),
            "TERM" => assert_eq!(status.code(), Some(143)),
            _ => assert_eq!(status.signal(), Some(6)),
        }
        let after = termios_key(&rustix::termios::tcgetattr(&dev).expect("tcgetattr"));
        assert_eq!(after, dev_before, "the device's settings after {end}");
        assert_host_restored(&host, &before);
    }
}

#[test]
fn programs_asking_for_the_background_get_the_host_terminals_colours() {
    // vim and neovim ask OSC 11 to choose a light or a dark theme: blitty asks the host at the
    // start and answers with what the user sees (here a light terminal: black on white).
    let script = "printf '\\033]11;?\\007'; stty raw -echo min 0 time 10; \
                  a=$(dd bs=64 count=1 2>/dev/null | tr -d '\\033\\007'); stty sane; echo \"answer=$a\"; sleep 0.3";
    let mut host = HostPty::spawn_answering(BLITTY, &["run", "--", "sh", "-c", script], ([0, 0, 0], [255, 255, 255]));
    host.wait_for("answer=");
    assert!(host.screen().contains("answer=]11;rgb:ffff/ffff/ffff"), "{}", host.screen());
    assert!(host.wait_exit().success());
}

#[test]
fn keys_typed_while_blitty_asks_the_terminal_for_its_colours_reach_the_program() {
    // This host answers nothing, so blitty waits its whole 300 ms for the colours; keys typed
    // meanwhile are read with the (missing) answers and must still arrive, as keys.
    let mut host = HostPty::spawn(BLITTY, &["run", "--", "sh", "-c", "read line; echo \"got=$line\"; sleep 0.3"]);
    host.send(b"typed early\r");
    host.wait_for("got=typed early");
    assert!(host.wait_exit().success());
}
