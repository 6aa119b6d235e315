//! Job control of `blitty run` in a real shell in a real tmux: stopped (`kill -TSTP`), blitty
//! gives the shell its terminal as it was; continued with `fg`, it takes it back and redraws;
//! continued with `bg`, it stops again without touching the terminal. `blitty serial` does the
//! same, and so does an attached client (the session goes on; on `fg` it gets the whole screen).

use std::process::Command;

mod common;

use common::{tmux_available, Tmux};

const BLITTY: &str = env!("CARGO_BIN_EXE_blitty");

/// What tmux says of the pane's modes: alternate screen, cursor shown, any mouse tracking.
const MODES: &str = "#{alternate_on} #{cursor_flag} #{mouse_any_flag}";
/// The modes while the program below runs under blitty (mirrored to the host).
const PROGRAM_MODES: &str = "1 0 1";
/// The shell's own modes.
const SHELL_MODES: &str = "0 1 0";
/// What the program prints first (its command line, which the shell shows, says it otherwise).
const READY: &str = "prog-42";

/// Starts, at a shell prompt in tmux, blitty running a program that turns on mouse tracking,
/// hides the cursor, prints [`READY`] and then echoes each line it reads; returns blitty's pid.
fn start(t: &Tmux) -> String {
    t.wait_for("$");
    let program = r#"printf '\033[?1002h\033[?25l'; echo "prog-$((6*7))"; while read l; do echo "got $l"; done"#;
    t.text(&format!("{BLITTY} run -- sh -c '{}'", program.replace('\'', r"'\''")));
    t.keys(&["Enter"]);
    let screen = t.wait_for(READY);
    assert!(screen.contains(READY), "{screen}");
    assert_eq!(t.wait_until_format(MODES, PROGRAM_MODES), PROGRAM_MODES, "{}", t.capture());
    let shell = t.format("#{pane_pid}");
    let pid = Command::new("pgrep").args(["-P", &shell]).output().expect("pgrep runs");
    let pid = String::from_utf8_lossy(&pid.stdout).trim().to_string();
    assert!(!pid.is_empty(), "blitty is not running under the pane's shell");
    pid
}

/// The process's state letter from /proc (T when stopped).
fn state(pid: &str) -> String {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next()).unwrap_or("").to_string()
}

/// Sends TSTP to blitty and waits until the shell has its terminal back.
fn stop(t: &Tmux, pid: &str) {
    Command::new("kill").args(["-TSTP", pid]).status().expect("kill runs");
    let modes = t.wait_until_format(MODES, SHELL_MODES);
    assert_eq!(modes, SHELL_MODES, "the shell's terminal after SIGTSTP (alternate, cursor, mouse):\n{}", t.capture());
    let screen = t.wait_for("Stopped");
    assert!(screen.contains("Stopped"), "the shell reports the stopped job:\n{screen}");
    assert!(!screen.contains(READY), "blitty's screen is still shown:\n{screen}");
    common::wait_until(|| state(pid) == "T");
    assert_eq!(state(pid), "T", "blitty stopped");
}

/// `fg`, then checks blitty's whole screen is back, in raw mode: the prefix reaches blitty
/// at once (a terminal left cooked would hold it until Enter), and lines reach the program.
fn resume(t: &Tmux, line: &str) {
    t.text("fg");
    t.keys(&["Enter"]);
    let modes = t.wait_until_format(MODES, PROGRAM_MODES);
    assert_eq!(modes, PROGRAM_MODES, "blitty's modes after fg:\n{}", t.capture());
    let screen = t.wait_for(READY);
    assert!(screen.starts_with(READY), "blitty's screen is not redrawn after fg:\n{screen}");
    t.keys(&["C-]", "?"]);
    let screen = t.wait_for("then a key");
    assert!(screen.contains("then a key"), "the prefix did not reach blitty (not raw?):\n{screen}");
    // The key that closes the list goes no further, nor what comes with it in one read.
    t.keys(&["Escape"]);
    common::wait_until(|| !t.capture().contains("then a key"));
    t.text(line);
    t.keys(&["Enter"]);
    let want = format!("got {line}");
    let screen = t.wait_for(&want);
    assert!(screen.contains(&want) && !screen.contains("then a key"), "{screen}");
}

#[test]
fn a_stopped_blitty_gives_the_shell_its_terminal_and_takes_it_back_on_fg() {
    assert!(tmux_available());
    let t = Tmux::start("tstp", "bash --norc --noprofile -i");
    let pid = start(&t);
    stop(&t, &pid);
    // The shell has its terminal: a command typed at its prompt runs and echoes.
    t.text("echo at the shell");
    t.keys(&["Enter"]);
    let screen = t.wait_for("\nat the shell");
    assert!(screen.contains("\nat the shell"), "{screen}");
    resume(&t, "one");
    // Again: a second stop works as the first.
    stop(&t, &pid);
    resume(&t, "two");
    // The program ends; so does blitty, giving the terminal back.
    t.keys(&["C-d"]);
    common::wait_until(|| state(&pid).is_empty());
    assert!(state(&pid).is_empty(), "blitty did not end:\n{}", t.capture());
    t.text("echo status=$?");
    t.keys(&["Enter"]);
    let screen = t.wait_for("status=0");
    assert!(screen.contains("status=0"), "{screen}");
    assert_eq!(t.format(MODES), SHELL_MODES);
}

#[test]
fn a_stopped_blitty_continued_in_the_background_stops_again_until_fg() {
    assert!(tmux_available());
    let t = Tmux::start("tstp-bg", "bash --norc --noprofile -i");
    let pid = start(&t);
    stop(&t, &pid);
    t.text("bg");
    t.keys(&["Enter"]);
    // Continued, blitty finds the terminal is not its own and stops again, leaving it alone
    // (bash says the job went on, then, before or after its prompt, that it stopped again).
    let screen = t.wait_for(" &\n");
    assert!(screen.contains(" &\n"), "{screen}");
    common::wait_until(|| state(&pid) == "T");
    assert_eq!(state(&pid), "T", "blitty stopped again in the background:\n{}", t.capture());
    assert_eq!(t.format(MODES), SHELL_MODES, "the terminal was touched from the background");
    resume(&t, "back");
}

#[test]
fn a_sigstop_that_blitty_cannot_see_is_repaired_on_fg() {
    // SIGSTOP cannot be caught: the host keeps blitty's modes while the shell prints over it.
    // Continued, blitty takes the terminal again and redraws it whole.
    assert!(tmux_available());
    let t = Tmux::start("sigstop", "bash --norc --noprofile -i");
    let pid = start(&t);
    Command::new("kill").args(["-STOP", &pid]).status().expect("kill runs");
    let screen = t.wait_for("Stopped");
    assert!(screen.contains("Stopped"), "{screen}");
    resume(&t, "again");
    assert!(!t.capture().contains("Stopped"), "the shell's lines are still on blitty's screen:\n{}", t.capture());
}

#[test]
fn a_stopped_serial_console_gives_the_shell_its_terminal_and_takes_it_back_on_fg() {
    use std::io::Write;
    assert!(tmux_available());
    // A pty pair stands in for the cable: the test holds the device's end.
    let (master, port) = blitty_os::pty::pair().expect("a pty");
    let device = std::fs::File::from(master);
    let t = Tmux::start("tstp-serial", "bash --norc --noprofile -i");
    t.wait_for("$");
    t.text(&format!("{BLITTY} serial {}", port.display()));
    t.keys(&["Enter"]);
    t.wait_for("q quits");
    (&device).write_all(b"line-42\r\n").expect("the device writes");
    t.wait_for("line-42");
    let shell = t.format("#{pane_pid}");
    let pid = Command::new("pgrep").args(["-P", &shell]).output().expect("pgrep runs");
    let pid = String::from_utf8_lossy(&pid.stdout).trim().to_string();
    assert!(!pid.is_empty(), "blitty is not running under the pane's shell");
    Command::new("kill").args(["-TSTP", &pid]).status().expect("kill runs");
    let screen = t.wait_for("Stopped");
    assert!(screen.contains("Stopped") && !screen.contains("line-42"), "the shell has its terminal:\n{screen}");
    assert_eq!(t.wait_until_format("#{alternate_on}", "0"), "0", "{}", t.capture());
    common::wait_until(|| state(&pid) == "T");
    t.text("fg");
    t.keys(&["Enter"]);
    let screen = t.wait_for("line-42");
    assert!(screen.starts_with("line-42"), "the console's screen is redrawn after fg:\n{screen}");
    (&device).write_all(b"after-fg\r\n").expect("the device writes");
    t.wait_for("after-fg");
    t.keys(&["C-]", "q"]);
    common::wait_until(|| state(&pid).is_empty());
    assert_eq!(t.format(MODES), SHELL_MODES, "{}", t.capture());
}

#[test]
fn a_stopped_attached_client_gives_the_shell_its_terminal_and_gets_the_whole_screen_on_fg() {
    assert!(tmux_available());
    let s = common::server::Server::new("tstp");
    let t = Tmux::start("tstp-attach", "bash --norc --noprofile -i");
    t.wait_for("$");
    // The session's program prints READY and echoes each line it reads.
    let program = r#"echo "prog-$((6*7))"; while read l; do echo "got $l"; done"#;
    t.text(&format!(
        "{} {} new -s tstp -- sh -c '{}'",
        s.env(),
        common::server::BLITTY,
        program.replace('\'', r"'\''")
    ));
    t.keys(&["Enter"]);
    t.wait_for(READY);
    assert_eq!(t.wait_until_format("#{alternate_on}", "1"), "1", "{}", t.capture());
    let shell = t.format("#{pane_pid}");
    let pid = Command::new("pgrep").args(["-P", &shell]).output().expect("pgrep runs");
    let pid = String::from_utf8_lossy(&pid.stdout).trim().to_string();
    assert!(!pid.is_empty(), "the client is not running under the pane's shell");
    Command::new("kill").args(["-TSTP", &pid]).status().expect("kill runs");
    let screen = t.wait_for("Stopped");
    assert!(screen.contains("Stopped") && !screen.contains(READY), "the shell has its terminal:\n{screen}");
    assert_eq!(t.wait_until_format("#{alternate_on}", "0"), "0", "{}", t.capture());
    common::wait_until(|| state(&pid) == "T");
    // The session goes on while its client is stopped.
    t.text("echo at the shell");
    t.keys(&["Enter"]);
    t.wait_for("\nat the shell");
    t.text("fg");
    t.keys(&["Enter"]);
    let screen = t.wait_for(READY);
    assert!(screen.starts_with(READY), "the session's screen is drawn whole after fg:\n{screen}");
    assert_eq!(t.wait_until_format("#{alternate_on}", "1"), "1", "{}", t.capture());
    t.text("three");
    t.keys(&["Enter"]);
    t.wait_for("got three");
    assert!(s.run(&["kill", "tstp"]).status.success());
    common::wait_until(|| state(&pid).is_empty());
    assert_eq!(t.format(MODES), SHELL_MODES, "{}", t.capture());
}
