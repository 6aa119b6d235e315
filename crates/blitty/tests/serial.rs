//! `blitty serial` end to end: a pty pair stands in for the cable (the test holds the master,
//! the "device" end; blitty opens the slave as its serial device) and a real tmux is the
//! user's terminal. Covered: the log gets every byte in order at full speed, XMODEM-1K to
//! lrzsz's `rx` (a real receiver) with the file arriving intact, XON/XOFF pausing and
//! resuming a raw send paced to the line rate, unplugging and re-plugging the device, the hex
//! view and the input mappings, and typed keys mapped, echoed and counted.

mod common;

use std::fs::File;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

use common::scratch::Scratch;
use common::{tmux_available, Tmux};
use rustix::event::{poll, PollFd, PollFlags, Timespec};

const BLITTY: &str = env!("CARGO_BIN_EXE_blitty");

/// One end of a cable: the pty master (the device's side) and the slave's path (the port).
struct Cable {
    master: File,
    port: String,
}

fn cable() -> Cable {
    let (master, port) = blitty_os::pty::pair().expect("a pty");
    Cable { master: File::from(master), port: port.display().to_string() }
}

fn temp(name: &str) -> Scratch {
    Scratch::new(&format!("serial-{name}"))
}

/// Reads what is available on `f` within `wait`.
fn read_for(f: &File, wait: Duration, out: &mut Vec<u8>) -> usize {
    let deadline = Instant::now() + wait;
    let mut total = 0;
    let mut buf = [0u8; 65536];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return total;
        }
        let ts = Timespec { tv_sec: left.as_secs() as i64, tv_nsec: left.subsec_nanos() as i64 };
        let mut fds = [PollFd::new(f, PollFlags::IN)];
        if poll(&mut fds, Some(&ts)).unwrap_or(0) == 0 {
            continue;
        }
        match (&*f).read(&mut buf) {
            Ok(n) if n > 0 => {
                out.extend_from_slice(&buf[..n]);
                total += n;
            }
            _ => return total,
        }
    }
}

/// Starts `blitty serial PORT ARGS` in tmux and waits for its banner.
fn console(name: &str, port: &str, args: &str) -> Tmux {
    console_with(name, &format!("{port} {args}"), "Ctrl-]")
}

/// Starts `blitty serial ARGS` in tmux and waits for its banner, which names `prefix`.
fn console_with(name: &str, args: &str, prefix: &str) -> Tmux {
    let t = Tmux::start(name, &format!("{BLITTY} serial {args}; echo \"blitty ended: $?\"; sleep 60"));
    let banner = format!("{prefix} q quits");
    let screen = t.wait_for(&banner);
    assert!(screen.contains(&banner), "no banner:\n{screen}");
    t
}

/// Quits with Ctrl-] q and checks blitty ended with status 0.
fn quit(t: &Tmux) {
    quit_with(t, "C-]");
}

/// Quits with the prefix `key` (tmux's name) and q, and checks blitty ended with status 0.
fn quit_with(t: &Tmux, key: &str) {
    t.keys(&[key, "q"]);
    let screen = t.wait_for("blitty ended:");
    assert!(screen.contains("blitty ended: 0"), "{screen}");
}

fn wait_until(what: &str, mut ok: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !ok() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_log_gets_every_byte_in_order_at_full_speed() {
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let c = cable();
    let log = temp("full.log");
    let t = console("log", &c.port, &format!("--log {}", log.display()));
    // 8 MB: text lines, then every byte value in a scrambled order, then a reset and a marker.
    let mut data = Vec::new();
    let mut x: u32 = 1;
    while data.len() < 8 << 20 {
        for i in 0..200 {
            data.extend_from_slice(format!("line {i} of the dump {}\r\n", data.len()).as_bytes());
        }
        for _ in 0..4096 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            data.push(x as u8);
        }
    }
    data.extend_from_slice(b"\x18\x1bc\r\nEND OF TRANSFER\r\n");
    let started = Instant::now();
    let mut w = c.master.try_clone().expect("dup");
    let payload = data.clone();
    let writer = std::thread::spawn(move || w.write_all(&payload).expect("the line takes it"));
    wait_until("the log to fill", || std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0) >= data.len() as u64);
    let secs = started.elapsed().as_secs_f64();
    writer.join().expect("writer");
    eprintln!("{} MB logged in {secs:.2} s ({:.1} MB/s)", data.len() >> 20, data.len() as f64 / secs / 1e6);
    assert!(std::fs::read(&log).expect("log") == data, "the log differs from what was sent");
    let screen = t.wait_for("END OF TRANSFER");
    assert!(screen.contains("END OF TRANSFER"), "{screen}");
    quit(&t);
    // The log is appended to, never truncated, by a second console on the same file.
    let t = console("log2", &c.port, &format!("--log {} --timestamps", log.display()));
    (&c.master).write_all(b"one\r\ntwo\r\n").expect("write");
    t.wait_for("two");
    quit(&t);
    let all = std::fs::read(&log).expect("log");
    assert!(all.starts_with(&data));
    let tail = String::from_utf8_lossy(&all[data.len()..]).into_owned();
    let lines: Vec<&str> = tail.lines().collect();
    assert_eq!(lines.len(), 2, "{tail:?}");
    for (line, text) in lines.iter().zip(["] one", "] two"]) {
        // "[YYYY-MM-DD hh:mm:ss.mmm] text"
        assert!(line.starts_with("[20") && line.as_bytes()[24] == b']' && line.ends_with(text), "{line:?}");
    }
}

/// A relay between two pty masters: a cable from blitty's port to a program's terminal.
/// Copies what blitty sends on `line` (a cable's device end) to `to`, and what arrives on
/// `from` back onto the line, until `stop`.
fn relay(
    line: File,
    to: File,
    from: File,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        let mut to = Some(to);
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let ts = Timespec { tv_sec: 0, tv_nsec: 20_000_000 };
            let mut fds = [PollFd::new(&line, PollFlags::IN), PollFd::new(&from, PollFlags::IN)];
            if poll(&mut fds, Some(&ts)).unwrap_or(0) == 0 {
                continue;
            }
            let (line_ready, from_ready) = (
                fds[0].revents().intersects(PollFlags::IN | PollFlags::HUP),
                fds[1].revents().intersects(PollFlags::IN | PollFlags::HUP),
            );
            if line_ready {
                if let Ok(n) = (&line).read(&mut buf) {
                    // Once the receiver has gone, what the line sends falls on the floor.
                    if to.as_ref().is_some_and(|t| (&*t).write_all(&buf[..n]).is_err()) {
                        to = None;
                    }
                }
            }
            if from_ready {
                match (&from).read(&mut buf) {
                    Ok(n) if n > 0 => {
                        let _ = (&line).write_all(&buf[..n]);
                    }
                    // The receiver ended: keep draining the line until told to stop.
                    _ => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        }
    })
}

#[test]
fn xmodem_1k_sends_a_file_that_lrzsz_rx_receives_intact() {
    if !tmux_available() || std::process::Command::new("rx").arg("--version").output().is_err() {
        eprintln!("skipped: tmux or lrzsz's rx is not installed (scripts/setup.sh installs both)");
        return;
    }
    let line = cable();
    // 200,000 bytes of every value, not a multiple of the block size.
    let data: Vec<u8> = (0..200_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let file = temp("xmodem.bin");
    std::fs::write(&file, &data).expect("file");
    let got = temp("xmodem.got");
    let t = console("xmodem", &line.port, "-b 921600");
    t.keys(&["C-]", "x"]);
    t.text(&file.display().to_string());
    t.keys(&["Enter"]);
    // The receiver stands on the far end of the cable through pipes. (Not a second pty: rx
    // flushes its terminal's queues as it exits (TCFLSH TCIOFLUSH), and on a pty that discards
    // its last ACK if the relay has not read it yet. On a serial line the ACK was on the wire
    // before the flush; the pipes keep that: nothing written can be taken back.)
    let mut rx = std::process::Command::new("rx")
        .args(["-c", "-b", "-q"])
        .arg(&got)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("rx runs");
    let to_rx = File::from(std::os::fd::OwnedFd::from(rx.stdin.take().expect("stdin")));
    let from_rx = File::from(std::os::fd::OwnedFd::from(rx.stdout.take().expect("stdout")));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let r = relay(line.master.try_clone().expect("dup"), to_rx, from_rx, stop.clone());
    let status = rx.wait().expect("rx ends");
    assert!(status.success(), "rx failed: {status:?}");
    let screen = t.wait_for("all acknowledged");
    assert!(screen.contains("XMODEM: sent 200000 bytes, all acknowledged"), "{screen}");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    r.join().expect("relay");
    let received = std::fs::read(&got).expect("rx wrote the file");
    // XMODEM pads the last block with SUB (0x1A): the file is a prefix, then padding.
    assert_eq!(crc32(&received[..data.len()]), crc32(&data));
    assert!(received[data.len()..].iter().all(|&b| b == 0x1a) && received.len() - data.len() < 1024);
    quit(&t);
}

/// CRC-32 (IEEE), to compare the files as a checksum would.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

#[test]
fn xoff_pauses_a_paced_raw_send_and_xon_resumes_it() {
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let c = cable();
    let data: Vec<u8> =
        (0..30_000u32).map(|i| b"abcdefghijklmnopqrstuvwxyz0123456789\r\n"[(i % 38) as usize]).collect();
    let file = temp("raw.txt");
    std::fs::write(&file, &data).expect("file");
    let t = console("xon", &c.port, "--flow soft -b 115200");
    let started = Instant::now();
    t.keys(&["C-]", "s"]);
    t.text(&file.display().to_string());
    t.keys(&["Enter"]);
    let mut got = Vec::new();
    wait_until("the send to start", || {
        read_for(&c.master, Duration::from_millis(20), &mut got);
        got.len() >= 5000
    });
    (&c.master).write_all(&[0x13]).expect("XOFF");
    // What was on its way before the XOFF arrives; then nothing.
    read_for(&c.master, Duration::from_millis(200), &mut got);
    let paused_at = got.len();
    let during = read_for(&c.master, Duration::from_millis(800), &mut got);
    assert_eq!(during, 0, "bytes kept coming after XOFF");
    assert!(paused_at < data.len(), "the whole file went before the XOFF could stop it");
    (&c.master).write_all(&[0x11]).expect("XON");
    wait_until("the rest of the file", || {
        read_for(&c.master, Duration::from_millis(20), &mut got);
        got.len() >= data.len()
    });
    let secs = started.elapsed().as_secs_f64();
    assert!(got == data, "the file arrived changed");
    // 30,000 bytes at 11,520 a second take 2.6 s, plus the pause: the send was paced.
    assert!(secs > 3.0, "sent in {secs:.2} s: faster than the line rate");
    let screen = t.wait_for("sent 30000 bytes");
    assert!(screen.contains("sent 30000 bytes"), "{screen}");
    quit(&t);
}

#[test]
fn unplugging_the_device_keeps_the_log_and_replugging_reconnects() {
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    // A stable name for the device, as udev gives a USB adapter.
    let link = temp("ttyV0");
    let plug = |c: &Cable| {
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&c.port, &link).expect("symlink");
    };
    let first = cable();
    plug(&first);
    let log = temp("replug.log");
    let t = console("replug", &link.display().to_string(), &format!("--log {}", log.display()));
    (&first.master).write_all(b"before the unplug\r\n").expect("write");
    t.wait_for("before the unplug");
    let old_port = first.port.clone();
    let old_lock = blitty_serial::lock::lock_name(std::path::Path::new(&old_port));
    drop(first);
    let _ = std::fs::remove_file(&link);
    let screen = t.wait_for("waiting for it to come back");
    assert!(screen.contains("waiting for it to come back"), "{screen}");
    // The device's name is free while it is away (another device may get it): no lock file
    // of this console is left on it. (Another test running meanwhile may have been given the
    // freed pty's number, and its console locks the name: a lock whose process is not this
    // console, told by the link in its command line, is that one.)
    for dir in blitty_serial::lock::LOCK_DIRS {
        let file = std::path::Path::new(dir).join(&old_lock);
        let Ok(pid) = std::fs::read_to_string(&file) else { continue };
        let cmdline = std::fs::read(format!("/proc/{}/cmdline", pid.trim())).unwrap_or_default();
        let ours = String::from_utf8_lossy(&cmdline).contains(&link.display().to_string());
        assert!(!ours, "{} still locked by this console ({}) while the device is away", file.display(), pid.trim());
    }
    // Not a wait for a condition: the device stays away for a while (several reconnection
    // attempts fail) before it comes back.
    std::thread::sleep(Duration::from_millis(500));
    let second = cable();
    plug(&second);
    let screen = t.wait_for("is back");
    assert!(screen.contains("is back"), "{screen}");
    (&second.master).write_all(b"after the replug\r\n").expect("write");
    let screen = t.wait_for("after the replug");
    assert!(screen.contains("before the unplug") && screen.contains("after the replug"), "{screen}");
    // Keys reach the new device.
    t.text("hi");
    let mut got = Vec::new();
    wait_until("keys on the new line", || {
        read_for(&second.master, Duration::from_millis(20), &mut got);
        got == b"hi"
    });
    quit(&t);
    let text = std::fs::read_to_string(&log).expect("log");
    let a = text.find("before the unplug\r\n").expect("before");
    let gone = text.find("waiting for it to come back]").expect("the unplug is noted");
    let back = text.find("is back]").expect("the replug is noted");
    let b = text.find("after the replug\r\n").expect("after");
    assert!(a < gone && gone < back && back < b, "{text:?}");
    let _ = std::fs::remove_file(&link);
}

#[test]
fn hex_view_and_input_mappings() {
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let c = cable();
    let t = console("hex", &c.port, "--hex --map INLCRNL");
    (&c.master).write_all(b"AB\x00\x1b[2J\xff").expect("write");
    let screen = t.wait_for("41 42 00 1b");
    assert!(screen.contains("00000000  41 42 00 1b 5b 32 4a ff"), "{screen}");
    t.keys(&["C-]", "h"]);
    // The bare NL is shown as a new line, at its start.
    (&c.master).write_all(b"\x1b[H\x1b[2Jfirst\nsecond").expect("write");
    let screen = t.wait_for("second");
    assert!(screen.starts_with("first\nsecond\n"), "{screen}");
    quit(&t);
}

#[test]
fn typed_keys_are_mapped_echoed_and_counted() {
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let c = cable();
    let t = console("echo", &c.port, "--echo --map OLTU");
    t.text("abc");
    t.keys(&["Enter"]);
    let mut got = Vec::new();
    wait_until("the keys on the line", || {
        read_for(&c.master, Duration::from_millis(20), &mut got);
        got.len() >= 4
    });
    assert_eq!(got, b"ABC\r");
    let screen = t.wait_for("ABC");
    assert!(screen.starts_with("ABC\n"), "{screen}");
    (&c.master).write_all(b"ok\r\n").expect("write");
    t.wait_for("ok");
    t.keys(&["C-]", "i"]);
    let screen = t.wait_for("TX 4 bytes");
    assert!(screen.contains("RX 4 bytes, TX 4 bytes"), "{screen}");
    quit(&t);
}

#[test]
fn a_file_name_typed_in_the_same_burst_as_the_command_goes_to_the_prompt() {
    // `s`, the file name and Enter in one write after the prefix: they reach blitty in one
    // read, and everything after the command belongs to the prompt it opened (it was sent to
    // the line before, and the prompt waited for a name forever).
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let c = cable();
    let data: Vec<u8> = (0..2_000u32).map(|i| b"burst test line\r\n"[(i % 17) as usize]).collect();
    let file = temp("burst.txt");
    std::fs::write(&file, &data).expect("file");
    let t = console("burst", &c.port, "-b 921600");
    t.keys(&["C-]"]);
    t.text(&format!("s{}\r", file.display()));
    let mut got = Vec::new();
    wait_until("the file on the line", || {
        read_for(&c.master, Duration::from_millis(20), &mut got);
        got.len() >= data.len()
    });
    assert_eq!(got, data, "the line got the file, and nothing typed");
    quit(&t);
}

#[test]
fn the_help_lists_every_command_on_its_own_row_and_unknown_keys_are_named() {
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let c = cable();
    let t = console_with("serial-help", &format!("{} --prefix C-t", c.port), "Ctrl-T");
    t.keys(&["C-t", "?"]);
    let screen = t.wait_for("toggle RTS");
    for want in ["quit", "XMODEM-1K", "hex view", "toggle DTR", "toggle RTS", "scrollback", "send Ctrl-T to the line"] {
        assert!(screen.lines().any(|l| l.contains(want)), "{want} is not on a row of its own:\n{screen}");
    }
    // Escape alone: the next keys wait for the help to close, or, on a busy machine, ESC and
    // the prefix could reach blitty in one read, as Alt with the prefix.
    t.keys(&["Escape"]);
    wait_until("the help to close", || !t.capture().contains("toggle RTS"));
    t.keys(&["C-t", "z"]);
    let screen = t.wait_for("not a command");
    assert!(screen.contains("Ctrl-T z: not a command — Ctrl-T ? for help"), "{screen}");
    assert!(!screen.contains("toggle RTS"), "the help closed:\n{screen}");
    quit_with(&t, "C-t");
}

#[test]
fn a_second_console_on_a_held_line_is_refused_naming_the_holder() {
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let c = cable();
    let t = console("lock", &c.port, "");
    let second = std::process::Command::new(BLITTY).args(["serial", &c.port]).output().expect("blitty runs");
    let err = String::from_utf8_lossy(&second.stderr).into_owned();
    assert_eq!(second.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains(&format!("{} is in use by process", c.port)) && err.contains("(blitty)"), "{err}");
    // --no-lock goes past the lock (and then needs a terminal, which this test has not).
    let forced = std::process::Command::new(BLITTY).args(["serial", &c.port, "--no-lock"]).output().expect("runs");
    let err = String::from_utf8_lossy(&forced.stderr).into_owned();
    assert!(err.contains("must be a terminal"), "{err}");
    // The first console still has the line, and its lock file goes when it ends. It is in the
    // first lock directory that can be written (on some machines none can: then only flock).
    let writable = |d: &std::path::Path| {
        let probe = d.join(format!("blitty-test-probe-{}", std::process::id()));
        let ok = std::fs::write(&probe, b"").is_ok();
        let _ = std::fs::remove_file(&probe);
        ok
    };
    let dir = blitty_serial::lock::LOCK_DIRS.iter().map(std::path::Path::new).find(|d| d.is_dir() && writable(d));
    let lock = dir.map(|d| d.join(blitty_serial::lock::lock_name(std::path::Path::new(&c.port))));
    let lockable = lock.is_some();
    let lock = lock.unwrap_or_default();
    if lockable {
        assert!(lock.exists(), "{} while the console runs", lock.display());
    }
    quit(&t);
    if lockable {
        assert!(!lock.exists(), "{} removed at the end", lock.display());
    }
}

#[test]
fn timestamps_mark_lines_on_screen_and_tab_completes_the_file_to_send() {
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let mut c = cable();
    let file = temp("completion-target.bin");
    std::fs::write(&file, b"x").expect("file");
    let t = console("stamps", &c.port, "--timestamps");
    c.master.write_all(b"first line\r\nsecond line\r\n").expect("write");
    let screen = t.wait_for("second line");
    let stamped =
        |what: &str| screen.lines().any(|l| l.starts_with("[20") && l.trim_end().ends_with(&format!("] {what}")));
    assert!(stamped("first line") && stamped("second line"), "{screen}");
    // Tab completes the unique name; the prompt shows it whole.
    let path = file.display().to_string();
    let partial = &path[..path.len() - "target.bin".len()];
    t.keys(&["C-]", "s"]);
    t.text(partial);
    t.keys(&["Tab"]);
    let screen = t.wait_for(&format!("{path}_"));
    assert!(screen.contains(&format!("{path}_")), "{screen}");
    // As in the help's test: the prompt closes before the prefix comes.
    t.keys(&["Escape"]);
    wait_until("the prompt to close", || !t.capture().contains(&format!("{path}_")));
    quit(&t);
}

#[test]
fn a_named_profile_in_the_config_file_opens_its_device_with_its_settings() {
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let c = cable();
    let config = temp("profile.toml");
    std::fs::write(
        &config,
        format!("prefix = \"C-t\"\n[serial]\nbaud = 57600\ndatabits = 7\n[serial.profiles.bench]\ndevice = \"{}\"\nparity = \"even\"\n", c.port),
    )
    .expect("config");
    let t = console_with("serial-profile", &format!("bench --config {}", config.display()), "Ctrl-T");
    let screen = t.wait_for(&format!("{} at 57600 7E1", c.port));
    assert!(screen.contains(&format!("{} at 57600 7E1", c.port)), "{screen}");
    quit_with(&t, "C-t");
}

#[test]
fn the_scrollback_mode_searches_the_lines_history_too() {
    if !tmux_available() {
        eprintln!("skipped: tmux is not installed");
        return;
    }
    let mut c = cable();
    let t = console("copy", &c.port, "");
    let text: String = (1..=3000).map(|i| format!("boot message {i}\r\n")).collect();
    c.master.write_all(text.as_bytes()).expect("write");
    t.wait_for("boot message 3000");
    t.keys(&["C-]", "["]);
    t.wait_for("[scrollback");
    t.text("?message 1234");
    t.keys(&["Enter"]);
    let screen = t.wait_for("boot message 1234\n");
    assert!(screen.lines().any(|l| l.trim_end() == "boot message 1234"), "{screen}");
    assert!(screen.contains("[scrollback"), "{screen}");
    // q then Ctrl-] q at once, usually one read: the keys after the q quit (they were lost).
    t.keys(&["q", "C-]", "q"]);
    let screen = t.wait_for("blitty ended:");
    assert!(screen.contains("blitty ended: 0"), "{screen}");
}

/// Where `a` first appears before `b` in `hay` (both must be there).
fn first_before(hay: &[u8], a: &[u8], b: &[u8]) -> Option<bool> {
    let at = |n: &[u8]| hay.windows(n.len()).position(|w| w == n);
    Some(at(a)? < at(b)?)
}

#[test]
fn the_devices_queries_are_answered_and_its_bell_and_clipboard_reach_the_terminal() {
    assert!(tmux_available(), "tmux is needed");
    let c = cable();
    let t = console("answers", &c.port, "");
    let capture = temp("answers.out");
    t.tmux(&["pipe-pane", "-o", &format!("cat >> {}", capture.display())]);
    // A boot loader asks the console where its cursor is (how it learns the screen's size)
    // and what terminal it is.
    (&c.master).write_all(b"ready\x1b[6n\x1b[c").unwrap();
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !(got.windows(6).any(|w| w == b"\x1b[1;6R") && got.windows(3).any(|w| w == b"\x1b[?"))
        && Instant::now() < deadline
    {
        read_for(&c.master, Duration::from_millis(100), &mut got);
    }
    assert!(
        got.windows(6).any(|w| w == b"\x1b[1;6R"),
        "no cursor report on the line: {:?}",
        String::from_utf8_lossy(&got)
    );
    assert!(got.windows(3).any(|w| w == b"\x1b[?"), "no DA answer on the line: {:?}", String::from_utf8_lossy(&got));
    (&c.master).write_all(b"\x07\x1b]52;c;aGVsbG8=\x07rang\r\n").unwrap();
    t.wait_for("rang");
    wait_until("the bell and the clipboard write", || {
        let out = std::fs::read(&capture).unwrap_or_default();
        out.contains(&0x07) && out.windows(15).any(|w| w == b"\x1b]52;c;aGVsbG8=")
    });
    quit(&t);
}

#[test]
fn an_update_the_device_marks_as_synchronized_is_shown_whole() {
    assert!(tmux_available(), "tmux is needed");
    let c = cable();
    let t = console("sync", &c.port, "");
    let capture = temp("sync.out");
    t.tmux(&["pipe-pane", "-o", &format!("cat >> {}", capture.display())]);
    // Row 3 first, then row 1, in one update (mode 2026) with a pause inside it shorter than
    // blitty's hold: shown whole, the frame draws row 1 before row 3; shown torn, row 3's
    // text goes out first.
    (&c.master).write_all(b"\x1b[?2026h\x1b[3;1HBBBB").unwrap();
    std::thread::sleep(Duration::from_millis(30));
    (&c.master).write_all(b"\x1b[1;1HAAAA\x1b[?2026l").unwrap();
    t.wait_for("BBBB");
    let out = std::fs::read(&capture).unwrap_or_default();
    let whole = first_before(&out, b"AAAA", b"BBBB");
    assert_eq!(whole, Some(true), "the update was shown torn: {:?}", String::from_utf8_lossy(&out));
    quit(&t);
}
