//! What waits for a program under `blitty run` is bounded: a program that floods queries
//! (`ESC [ c`, whose answers are three times its size) and never reads them is made to wait in
//! its write, as a terminal whose buffer is full makes it; blitty stays small and answers keys;
//! a paste past the limit is refused, and said so. Run in a shell in a real tmux.

use std::process::Command;
use std::time::{Duration, Instant};

mod common;

use common::scratch::Scratch;
use common::{tmux_available, Tmux};

const BLITTY: &str = env!("CARGO_BIN_EXE_blitty");

/// The program of the report: writes DA1 queries for ever and never reads its input.
const FLOOD: &str = "import os\nb=b'\\x1b[c'*100000\nwhile 1: os.write(1,b)\n";

/// blitty at most this much above its size when its program started.
const GROWTH_KIB: u64 = 16 * 1024;

fn child_of(pid: &str) -> String {
    let mut found = String::new();
    common::wait_until(|| {
        let out = Command::new("pgrep").args(["-P", pid]).output().expect("pgrep runs");
        found = String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or("").to_string();
        !found.is_empty()
    });
    assert!(!found.is_empty(), "no child of {pid}");
    found
}

/// A field of /proc/PID/status in KiB (VmRSS), or of /proc/PID/io in bytes (wchar).
fn proc_field(pid: &str, file: &str, key: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/{file}")).unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn rss_kib(pid: &str) -> u64 {
    proc_field(pid, "status", "VmRSS")
}

fn written(pid: &str) -> u64 {
    proc_field(pid, "io", "wchar")
}

/// Starts `blitty run ARGS -- sh -c SCRIPT` at a shell prompt in tmux, its status printed
/// after it as `rc=N` on a line of its own; returns blitty's pid and its program's (the shell
/// that `exec`s the program keeps its pid).
fn start(t: &Tmux, args: &str, script: &str) -> (String, String) {
    t.wait_for("$");
    t.text(&format!("{BLITTY} run {args} -- sh -c '{script}'; printf '\\nrc=%s\\n' $?"));
    t.keys(&["Enter"]);
    let blitty = child_of(&t.format("#{pane_pid}"));
    let program = child_of(&blitty);
    (blitty, program)
}

/// Waits until `value` has not changed for a second (at most 30 s); returns whether it settled.
fn settles(mut value: impl FnMut() -> u64) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    let (mut last, mut since) = (value(), Instant::now());
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        let now = value();
        if now != last {
            (last, since) = (now, Instant::now());
        } else if since.elapsed() >= Duration::from_secs(1) {
            return true;
        }
    }
    false
}

/// The prefix still reaches blitty: its command list shows, and goes on the next key.
fn prefix_answers(t: &Tmux) {
    t.keys(&["C-]", "?"]);
    let screen = t.wait_for("then a key");
    assert!(screen.contains("then a key"), "blitty does not answer its prefix:\n{screen}");
    t.keys(&["Escape"]);
    common::wait_until(|| !t.capture().contains("then a key"));
}

#[test]
fn a_program_flooding_queries_it_never_reads_is_made_to_wait_and_blitty_stays_small() {
    assert!(tmux_available());
    let flood = Scratch::new("input-flood.py");
    std::fs::write(&flood, FLOOD).expect("temp file");
    let t = Tmux::start("input-wait", "bash --norc --noprofile -i");
    // Not canonical: the pty's input buffer (4 KiB) fills and stays full, as the program
    // never reads; blitty's answers can only wait.
    let (blitty, program) = start(&t, "", &format!("stty -icanon -echo; exec python3 {}", flood.display()));
    common::wait_until(|| written(&program) > 0);
    let before = rss_kib(&blitty);
    // blitty stops taking output once half a megabyte of answers waits: the program waits in
    // its write, having written a few hundred KiB (blitty's reader and the pty hold some).
    let waits = settles(|| written(&program));
    let (wrote, rss) = (written(&program), rss_kib(&blitty));
    assert!(waits && wrote < 8 << 20, "the program was never made to wait: it wrote {wrote} bytes");
    assert!(rss < before + GROWTH_KIB, "blitty grew from {before} KiB to {rss} KiB");
    prefix_answers(&t);
    // The program's end ends blitty (its output left waiting is parsed, its answers dropped).
    Command::new("kill").arg(&program).status().expect("kill runs");
    let screen = t.wait_for("rc=143");
    assert!(screen.contains("rc=143"), "{screen}");
    assert_eq!(t.format("#{alternate_on} #{cursor_flag}"), "0 1");
}

#[test]
fn ctrl_c_reaches_a_program_flooding_queries_while_its_answers_wait() {
    // The program's terminal is cooked: its line discipline drops what overflows a line, so
    // the answers drain slowly. Ctrl-C goes before the answers still waiting.
    assert!(tmux_available());
    let flood = Scratch::new("input-cooked.py");
    std::fs::write(&flood, FLOOD).expect("temp file");
    let t = Tmux::start("input-ctrl-c", "bash --norc --noprofile -i");
    let (blitty, program) = start(&t, "--scrollback 100", &format!("exec python3 {}", flood.display()));
    common::wait_until(|| written(&program) > 0);
    let before = rss_kib(&blitty);
    // A few megabytes of queries parsed: about three times as many bytes of answers.
    common::wait_until(|| written(&program) > 2 << 20);
    let (wrote, rss) = (written(&program), rss_kib(&blitty));
    assert!(wrote > 2 << 20, "the program wrote {wrote} bytes only:\n{}", t.capture());
    assert!(rss < before + GROWTH_KIB, "blitty grew from {before} KiB to {rss} KiB");
    prefix_answers(&t);
    // Behind the answers, Ctrl-C took 3.2 to 3.8 s here (and longer the longer the program
    // had run); ahead of them 30 to 110 ms.
    let pressed = Instant::now();
    t.keys(&["C-c"]);
    common::wait_until(|| !std::path::Path::new(&format!("/proc/{program}")).exists());
    let took = pressed.elapsed();
    assert!(took < Duration::from_secs(1), "Ctrl-C took {took:?} to reach the program");
    let screen = t.wait_for("rc=130");
    assert!(screen.contains("rc=130"), "Ctrl-C did not reach the program:\n{screen}");
}

#[test]
fn a_paste_past_the_limit_is_refused_and_said_so() {
    assert!(tmux_available());
    let paste = Scratch::new("input-paste.txt");
    std::fs::write(&paste, vec![b'x'; 3 << 20]).expect("temp file");
    let t = Tmux::start("input-paste", "bash --norc --noprofile -i");
    let (blitty, program) = start(&t, "", "stty -icanon -echo; echo waiting; exec sleep 1000");
    let screen = t.wait_for("waiting");
    assert!(screen.contains("waiting"), "{screen}");
    let before = rss_kib(&blitty);
    t.tmux(&["load-buffer", &paste.display().to_string()]);
    t.tmux(&["paste-buffer", "-d"]);
    let screen = t.wait_for("keys dropped");
    let top = screen.lines().next().unwrap_or("");
    assert!(top.contains("bytes of keys dropped: the program has not read its input"), "{screen}");
    // All of the paste read (what blitty reads stops growing), none of it left for the shell.
    assert!(settles(|| proc_field(&blitty, "io", "rchar")), "blitty never finished reading the paste");
    let rss = rss_kib(&blitty);
    assert!(rss < before + GROWTH_KIB, "blitty grew from {before} KiB to {rss} KiB");
    prefix_answers(&t);
    Command::new("kill").arg(&program).status().expect("kill runs");
    let screen = t.wait_for("rc=143");
    assert!(screen.contains("rc=143"), "{screen}");
}
