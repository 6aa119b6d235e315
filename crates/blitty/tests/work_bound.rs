//! A turn of an event loop parses a bounded amount of work, not of bytes: a program flooding
//! full-screen rectangle operations on the largest screen (each touching two million cells in
//! 27 bytes) holds back neither keys and signals under `blitty run` nor the server's other
//! sessions. Run in real tmux panes and against a real server.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::process::Command;
use std::time::{Duration, Instant};

mod common;

use blitty_mux::proto::{self, Frames, Msg, Request};
use common::scratch::Scratch;
use common::server::{Server, BLITTY};
use common::{tmux_available, wait_until, Tmux};

/// DECCRA copying the whole screen one row down, then DECFRA filling it, for ever.
const FLOOD: &str =
    "import os\nb=(b'\\x1b[1;1;65535;65535;1;2;1;1$v' + b'\\x1b[88;1;1;65535;65535$x')*2000\nwhile 1: os.write(1,b)\n";

fn child_of(pid: &str) -> String {
    let mut found = String::new();
    wait_until(|| {
        let out = Command::new("pgrep").args(["-P", pid]).output().expect("pgrep runs");
        found = String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or("").to_string();
        !found.is_empty()
    });
    assert!(!found.is_empty(), "no child of {pid}");
    found
}

/// Bytes a process has written (/proc/PID/io).
fn written(pid: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap_or_default();
    text.lines().find_map(|l| l.strip_prefix("wchar: ")).and_then(|v| v.trim().parse().ok()).unwrap_or(0)
}

/// A bash in a 2000x1000 tmux pane running `blitty run` on the flood, once the flood is under
/// way (more written than the pty holds: blitty has taken some). Returns tmux, the flood's
/// script (kept while it runs), blitty's pid and the program's.
fn flood_in_tmux(name: &str) -> (Tmux, Scratch, String, String) {
    assert!(tmux_available(), "tmux is needed");
    let flood = Scratch::new(&format!("{name}.py"));
    std::fs::write(&flood, FLOOD).expect("temp file");
    let t = Tmux::start_sized(name, "bash --norc --noprofile -i", 2000, 1000);
    t.wait_for("$");
    t.text(&format!("{BLITTY} run -- /usr/bin/python3 {}; printf '\\nrc=%s\\n' $?", flood.display()));
    t.keys(&["Enter"]);
    let blitty = child_of(&t.format("#{pane_pid}"));
    let program = child_of(&blitty);
    wait_until(|| written(&program) > 100 << 10);
    assert!(written(&program) > 100 << 10, "the flood did not start: {} bytes written", written(&program));
    (t, flood, blitty, program)
}

#[test]
fn ctrl_c_reaches_a_program_flooding_rectangle_operations_on_a_2000x1000_screen() {
    let (t, _flood, blitty, program) = flood_in_tmux("work-ctrl-c");
    let pressed = Instant::now();
    t.keys(&["C-c"]);
    wait_until(|| !std::path::Path::new(&format!("/proc/{program}")).exists());
    let took = pressed.elapsed();
    // Parsed 64 KiB a turn, the operations cost seconds a turn and Ctrl-C waited minutes.
    assert!(took < Duration::from_secs(2), "Ctrl-C took {took:?} to reach the program");
    // What the program wrote before it ended is still parsed (hundreds of KiB read ahead, at
    // milliseconds an operation); SIGTERM ends that too.
    Command::new("kill").args(["-TERM", &blitty]).status().expect("kill runs");
    let sent = Instant::now();
    wait_until(|| !std::path::Path::new(&format!("/proc/{blitty}")).exists());
    let took = sent.elapsed();
    assert!(took < Duration::from_secs(2), "SIGTERM took {took:?} to end blitty");
}

#[test]
fn sigterm_ends_blitty_run_during_a_flood_of_rectangle_operations() {
    let (t, _flood, blitty, program) = flood_in_tmux("work-term");
    let sent = Instant::now();
    Command::new("kill").args(["-TERM", &blitty]).status().expect("kill runs");
    wait_until(|| !std::path::Path::new(&format!("/proc/{blitty}")).exists());
    let took = sent.elapsed();
    assert!(took < Duration::from_secs(5), "SIGTERM took {took:?} to end blitty");
    assert_eq!(t.format("#{alternate_on} #{cursor_flag}"), "0 1", "the terminal is given back");
    let _ = Command::new("kill").args(["-KILL", &program]).status();
}

/// Attaches to `name` at `cols` x `rows` through the protocol; frames are read and dropped.
fn attach(s: &Server, name: &str, cols: u16, rows: u16) -> UnixStream {
    let mut sock = s.connect();
    let mut out = Vec::new();
    proto::encode(&Msg::Hello { version: proto::VERSION }, &mut out);
    proto::encode(&Msg::Request(Request::Attach { name: Some(name.into()), cols, rows }), &mut out);
    sock.write_all(&out).unwrap();
    sock
}

#[test]
fn another_session_echoes_at_once_while_a_vty_floods_rectangle_operations_at_2048x1024() {
    let s = Server::new("work-server");
    let flood = Scratch::new("work-server.py");
    std::fs::write(&flood, FLOOD).expect("temp file");
    let ok = |out: std::process::Output| assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    ok(s.run(&["new", "-d", "-s", "echo", "--", "cat"]));
    ok(s.run(&["new", "-d", "-s", "flood", "--", "/usr/bin/python3", &flood.display().to_string()]));
    // A client at the largest size makes the flooding session 2048x1024; its frames are read
    // by a thread of its own (a client that does not read is skipped, not waited for).
    let big = attach(&s, "flood", 2048, 1024);
    let reader = {
        let mut big = big.try_clone().unwrap();
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 1 << 16];
            while matches!(big.read(&mut buf), Ok(n) if n > 0) {}
        })
    };
    wait_until(|| String::from_utf8_lossy(&s.run(&["ls"]).stdout).contains("flood: 1 vty, 2048x1023"));
    // The echo of session `echo`, typed ten times.
    let mut probe = attach(&s, "echo", 80, 24);
    probe.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
    let mut frames = Frames::default();
    let mut screen = blitty_vt::Terminal::new(80, 24);
    let mut buf = vec![0u8; 65536];
    let mut times = Vec::new();
    for k in 0..10 {
        let token = format!("<{k}>");
        let mut keys = Vec::new();
        proto::encode(&Msg::Input(format!("{token}\r").into_bytes()), &mut keys);
        let t = Instant::now();
        probe.write_all(&keys).unwrap();
        let deadline = t + Duration::from_secs(60);
        loop {
            while let Ok(Some(m)) = frames.next_msg() {
                if let Msg::Output(b) = m {
                    screen.feed(&b);
                }
            }
            if screen.screen().dump_text().matches(&token).count() >= 2 {
                break;
            }
            assert!(Instant::now() < deadline, "no echo of {token} in 60 s:\n{}", screen.screen().dump_text());
            if let Ok(n) = probe.read(&mut buf) {
                assert!(n > 0, "the server closed the connection");
                frames.push(&buf[..n]);
            }
        }
        times.push(t.elapsed());
    }
    times.sort();
    let (median, worst) = (times[times.len() / 2], times[times.len() - 1]);
    assert!(median < Duration::from_millis(100), "echo beside the flood: median {median:?}, worst {worst:?}");
    assert!(worst < Duration::from_secs(2), "echo beside the flood: median {median:?}, worst {worst:?}");
    ok(s.run(&["kill", "flood"]));
    let _ = big.shutdown(std::net::Shutdown::Both);
    let _ = reader.join();
    ok(s.run(&["kill", "echo"]));
}
