//! The command line as a user meets it: replay's dump format, one-line errors with exit
//! status 2, and `serial --fastport` on a pty standing in for a serial cable.

use std::process::Command;

const BLITTY: &str = env!("CARGO_BIN_EXE_blitty");

fn blitty(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BLITTY).args(args).output().expect("blitty runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn replay_prints_exactly_rows_lines_then_the_cursor() {
    let file = std::env::temp_dir().join(format!("blitty-cli-{}.raw", std::process::id()));
    std::fs::write(&file, "hello   \r\n\x1b[31m字e\u{301}\x1b(0lq\x1b(B   \r\nabcdefghij".as_bytes())
        .expect("temp file");
    let (code, out, err) = blitty(&["replay", file.to_str().expect("utf-8 path"), "--size", "10x4"]);
    assert_eq!(code, 0, "{err}");
    // Trailing spaces removed, the wide character once, the combining mark after its base,
    // DEC graphics as Unicode; a cursor waiting to wrap is in the last column.
    assert_eq!(out, "hello\n字e\u{301}┌─\nabcdefghij\n\ncursor: 2 9\n");
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    for args in [
        &["replay", "/nonexistent/file"][..],
        &["replay", "/etc/hostname", "--size", "80y24"],
        &["replay", "/etc/hostname", "--size", "0x24"],
        &["replay", "/etc/hostname", "--chunk", "0"],
        &["serial", "/etc/hostname"],
        &["serial", "/dev/null", "--databits", "9"],
        &["serial", "/dev/null", "--map", "ICRNL,BOGUS"],
        &["serial", "/dev/null", "--baud", "0"],
        &["serial", "/nonexistent/ttyUSB9"],
        &["run", "--hz", "0"],
        &["bench", "--targets", "nonsense"],
        &["no-such-command"],
    ] {
        let (code, _, err) = blitty(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("blitty: "), "{args:?}: {err}");
    }
}

#[test]
fn serial_fastport_conditions_a_line_and_prints_the_stty_equivalent() {
    let (_master, slave) = blitty_io::pty::pair().expect("a pty");
    let slave = slave.display().to_string();
    let (code, out, err) = blitty(&["serial", &slave, "--fastport"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.trim(), format!("stty -F {slave} -opost -icanon -isig -icrnl -echo -onlcr min 255 time 5"));
    // The line really is conditioned: check it from a second open of the same device.
    let fd = rustix::fs::open(
        slave.as_str(),
        rustix::fs::OFlags::RDWR | rustix::fs::OFlags::NOCTTY,
        rustix::fs::Mode::empty(),
    )
    .expect("reopen");
    let t = rustix::termios::tcgetattr(&fd).expect("tcgetattr");
    assert!(!t.local_modes.contains(rustix::termios::LocalModes::ICANON));
    assert_eq!(t.special_codes[rustix::termios::SpecialCodeIndex::VMIN], 255);
}

#[test]
fn serial_without_a_terminal_says_so_after_checking_the_device() {
    let (_master, slave) = blitty_io::pty::pair().expect("a pty");
    let slave = slave.display().to_string();
    let out = Command::new(BLITTY).args(["serial", &slave]).stdin(std::process::Stdio::null()).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end(),
        "blitty: standard input and output must be a terminal: blitty serial shows the line in your terminal"
    );
}
