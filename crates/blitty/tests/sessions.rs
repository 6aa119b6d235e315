//! Sessions end to end: `blitty new`, `attach`, `ls`, `kill` and the keys after the prefix,
//! with real tmux servers as the users' terminals and a real blitty server of each test's own
//! (its own XDG_RUNTIME_DIR, so tests never share a server).

mod common;

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::process::Command;
use std::time::{Duration, Instant};

use common::scratch::Scratch;
use common::server::{Server, BLITTY};
use common::{lines_56_at, tmux_available, wait_until, Tmux, LINES_56};

/// The pid of the `blitty attach` (or `new`) client running in a tmux pane.
fn client_pid(t: &Tmux) -> i32 {
    let shell: i32 = t.format("#{pane_pid}").parse().expect("pane pid");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        // The pane's command is blitty itself (exec'd by env) once env has run.
        let comm = std::fs::read_to_string(format!("/proc/{shell}/comm")).unwrap_or_default();
        if comm.trim() == "blitty" {
            return shell;
        }
        let out = Command::new("pgrep").args(["-P", &shell.to_string()]).output().expect("pgrep");
        let text = String::from_utf8_lossy(&out.stdout);
        if let Some(pid) = text.lines().next().and_then(|l| l.trim().parse().ok()) {
            return pid;
        }
        assert!(Instant::now() < deadline, "no client process under pane {shell}");
        std::thread::sleep(Duration::from_millis(30));
    }
}

fn rows(screen: &str) -> Vec<String> {
    screen.lines().map(|l| l.trim_end().to_string()).collect()
}

#[test]
fn detach_and_attach_show_the_same_vim_screen_also_at_another_size() {
    assert!(tmux_available(), "tmux is needed (scripts/setup.sh installs it)");
    let s = Server::new("reattach");
    let file = Scratch::new("sessions-reattach.txt");
    let text: String = (1..=200).map(|i| format!("line {i} of the file\n")).collect();
    std::fs::write(&file, text).unwrap();
    let cmd = s.cmd(&format!("new -s edit -- vim -u NONE -N -n {}", file.display()));
    let t = Tmux::start("sess-vim", &cmd);
    let screen = t.wait_for("line 22 of the file");
    assert!(screen.contains("[edit] 0:vim*"), "the status row names the session and the vty:\n{screen}");
    t.keys(&["4", "0", "G", "d", "d", "o", "added in the session", "Escape"]);
    t.wait_for("added in the session");
    // vim takes a moment to see a lone Escape as the key.
    wait_until(|| !t.capture().contains("-- INSERT --"));
    let before = t.settled();
    assert!(before.contains("added in the session"), "{before}");
    t.keys(&["C-]", "d"]);
    let after = t.wait_for("detached from session edit");
    assert!(after.contains("[blitty: detached from session edit]"), "{after}");
    assert!(s.ls().contains("edit: 1 vty, 80x23, 0 clients attached"), "{}", s.ls());

    // The same size: exactly the same screen.
    let again = Tmux::start("sess-vim-again", &s.cmd("attach edit"));
    again.wait_for("added in the session");
    let shown = again.settled();
    assert_eq!(rows(&shown), rows(&before), "re-attached screen differs");

    // Another size: vim is told the new size and redraws at it.
    drop(again);
    let wide = Tmux::start_sized("sess-vim-wide", &s.cmd("attach"), 100, 30);
    let shown = wide.wait_for("line 28 of the file");
    assert!(shown.contains("added in the session"), "{shown}");
    assert!(s.wait_ls("100x29").contains("edit: 1 vty, 100x29, 1 client attached"), "{}", s.ls());
    wide.keys(&[":qa!", "Enter"]);
    let end = wide.wait_for("session edit ended");
    assert!(end.contains("[blitty: session edit ended: vim exited with status 0]"), "{end}");
    // The last vty ended: the server ends and takes its socket along.
    wait_until(|| !s.socket().exists());
    assert!(!s.socket().exists(), "the server left its socket behind");
}

#[test]
fn attaching_from_a_narrower_terminal_rewraps_the_shells_lines_and_a_wider_one_joins_them() {
    // The vty takes the size of the terminal attached to it, and its screen and history are
    // reflowed to it (as a tmux pane is): lines the shell printed at 80 columns are rewrapped
    // at 25, and joined again at 80. Without reflow they would be cut at 25 and stay cut.
    assert!(tmux_available(), "tmux is needed");
    let s = Server::new("reflow");
    let t = Tmux::start("sess-reflow", &s.cmd("new -s wrap -- sh"));
    t.wait_for("[wrap] 0:sh*");
    t.text(LINES_56);
    t.keys(&["Enter"]);
    let whole = lines_56_at(80);
    let screen = t.wait_for(&whole);
    assert!(screen.contains(&whole), "{screen}");
    t.keys(&["C-]", "d"]);
    t.wait_for("detached from session wrap");
    drop(t);

    let narrow = Tmux::start_sized("sess-reflow-narrow", &s.cmd("attach wrap"), 25, 24);
    let cut = lines_56_at(25);
    let screen = narrow.wait_for(&cut);
    assert!(screen.contains(&cut), "the lines are not rewrapped at 25 columns:\n{screen}");
    assert!(s.wait_ls("25x23").contains("wrap: 1 vty, 25x23"), "{}", s.ls());
    narrow.tmux(&["resize-window", "-x", "80", "-y", "24"]);
    let screen = narrow.wait_for(&whole);
    assert!(screen.contains(&whole), "the lines are not joined again at 80 columns:\n{screen}");
    narrow.text("exit\n");
    let end = narrow.wait_for("session wrap ended");
    assert!(end.contains("session wrap ended"), "{end}");
}

#[test]
fn vtys_are_made_switched_renamed_and_killed_with_the_prefix_keys() {
    assert!(tmux_available(), "tmux is needed");
    let s = Server::new("keys");
    let t = Tmux::start("sess-keys", &s.cmd("new -s work -- sh"));
    t.wait_for("[work] 0:sh*");
    t.text("echo first-vty\n");
    t.wait_for_line("first-vty");
    t.keys(&["C-]", "c"]);
    let screen = t.wait_for("1:sh*");
    assert!(screen.contains("[work] 0:sh  1:sh*"), "{screen}");
    t.text("echo second-vty\n");
    t.wait_for_line("second-vty");
    t.keys(&["C-]", "0"]);
    let screen = t.wait_for("0:sh* 1:sh");
    assert!(screen.contains("first-vty") && !screen.contains("second-vty"), "{screen}");
    t.keys(&["C-]", "n"]);
    let screen = t.wait_for("1:sh*");
    assert!(screen.contains("second-vty"), "{screen}");
    // Rename with a prompt.
    t.keys(&["C-]", ","]);
    t.wait_for("rename vty:");
    // The name and Enter in one write, as a paste or a script types them.
    t.keys(&["logs", "Enter"]);
    let screen = t.wait_for("1:logs*");
    assert!(screen.contains("0:sh  1:logs*"), "{screen}");
    // Output in a vty not shown marks it.
    t.keys(&["C-]", "p"]);
    t.wait_for("0:sh* 1:logs");
    t.keys(&["C-]", "1"]);
    t.wait_for("1:logs*");
    t.text("sleep 1; echo late\n");
    t.keys(&["C-]", "0"]);
    let screen = t.wait_for("1:logs#");
    assert!(screen.contains("0:sh* 1:logs#"), "activity in the hidden vty is marked:\n{screen}");
    // Kill the shown vty, after the question.
    t.keys(&["C-]", "&"]);
    t.wait_for("kill vty 0");
    t.keys(&["y"]);
    let screen = t.wait_for("[work] 0:logs*");
    assert!(screen.contains("late"), "the other vty is shown:\n{screen}");
    let ls = s.wait_ls("ended: sh");
    assert!(ls.contains("work: 1 vty") && ls.contains("ended: sh"), "{ls}");
    // An unknown key says so; ? lists the commands.
    t.keys(&["C-]", "z"]);
    let screen = t.wait_for("not a command");
    assert!(screen.contains("Ctrl-] z: not a command"), "{screen}");
    t.keys(&["C-]", "?"]);
    let screen = t.wait_for("choose a vty from a list");
    assert!(screen.contains("detach"), "{screen}");
    t.keys(&["q"]);
    // The prefix twice sends it to the program.
    t.text("cat -v\n");
    t.keys(&["C-]", "C-]", "Enter"]);
    let screen = t.wait_for_line("^]");
    assert!(rows(&screen).contains(&"^]".to_string()), "{screen}");
    t.keys(&["C-d"]);
    t.text("exit\n");
    let end = t.wait_for("session work ended");
    assert!(end.contains("session work ended"), "{end}");
}

#[test]
fn two_clients_see_one_session_and_a_stopped_client_holds_nothing_back() {
    assert!(tmux_available(), "tmux is needed");
    let s = Server::new("two");
    let out = s.run(&["new", "-d", "-s", "shared", "--", "sh"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let a = Tmux::start("sess-two-a", &s.cmd("attach shared"));
    let b = Tmux::start("sess-two-b", &s.cmd("attach shared"));
    a.wait_for("[shared] 0:sh*");
    b.wait_for("[shared] 0:sh*");
    assert!(s.wait_ls("2 clients attached").contains("2 clients attached"), "{}", s.ls());
    a.text("echo typed-in-a\n");
    let screen = b.wait_for_line("typed-in-a");
    assert!(rows(&screen).contains(&"typed-in-a".to_string()), "client b sees what a typed:\n{screen}");

    // Client a stops (as Ctrl-Z or a dead ssh link would); a flood runs; b and the program
    // go on; a, continued, shows the latest screen.
    let pid = client_pid(&a);
    unsafe { libc::kill(pid, libc::SIGSTOP) };
    b.text("seq 1 300000; echo flood-done\n");
    let screen = b.wait_for_line("flood-done");
    assert!(rows(&screen).contains(&"flood-done".to_string()), "client b saw the flood end:\n{screen}");
    unsafe { libc::kill(pid, libc::SIGCONT) };
    let screen = a.wait_for_line("flood-done");
    assert!(rows(&screen).contains(&"flood-done".to_string()), "client a caught up:\n{screen}");
    assert!(rows(&screen).contains(&"300000".to_string()), "{screen}");
    assert_eq!(rows(&a.settled()), rows(&b.settled()), "both clients show the same screen");

    // A client killed with -9: the session lives on, and attaching again works.
    let pid = client_pid(&a);
    unsafe { libc::kill(pid, libc::SIGKILL) };
    let ls = s.wait_ls("1 client attached");
    assert!(ls.contains("shared: 1 vty, 80x23, 1 client attached"), "{ls}");
    let c = Tmux::start("sess-two-c", &s.cmd("attach shared"));
    c.wait_for_line("flood-done");
    let out = s.run(&["kill", "shared"]);
    assert!(out.status.success());
    let end = b.wait_for("session shared was killed");
    assert!(end.contains("[blitty: session shared was killed]"), "{end}");
}

/// A client inside the session it would attach to is refused (it would show its own screen
/// inside itself); from inside, another session attaches as usual; and when the smaller of two
/// clients goes, the session takes the size of the one left at once.
#[test]
fn nesting_is_refused_and_a_leaving_client_gives_the_size_back() {
    assert!(tmux_available(), "tmux is needed");
    let s = Server::new("nest");
    let out = s.run(&["new", "-d", "-s", "other", "--", "sh", "-c", "echo in-the-other-one; exec sleep 1000"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let t = Tmux::start("sess-nest", &s.cmd("new -s nest"));
    t.wait_for("[nest] 0:sh*");
    t.text(&format!("{} {BLITTY} attach nest\n", s.env()));
    let screen = t.wait_for("nested with care");
    let joined = screen.replace('\n', "");
    assert!(
        joined.contains("blitty: sessions should be nested with care: this client runs inside session nest"),
        "{screen}"
    );
    // A job in the background, left by its shell (its parent is init), keeps the session's
    // pty as its terminal: refused too.
    t.text("clear\n");
    wait_until(|| !t.capture().contains("nested with care"));
    t.text(&format!("( {} {BLITTY} attach nest < /dev/tty & )\n", s.env()));
    let screen = t.wait_for("nested with care");
    assert!(screen.contains("nested with care"), "{screen}");
    let ls = s.ls();
    assert!(ls.contains("nest: 1 vty, 80x23, 1 client attached"), "{ls}");
    // A smaller client attaches, then detaches: the session is 80x23 again.
    let small = Tmux::start_sized("sess-nest-small", &s.cmd("attach nest"), 40, 12);
    small.wait_for("[nest]");
    assert!(s.wait_ls("nest: 1 vty, 40x11").contains("nest: 1 vty, 40x11"), "{}", s.ls());
    small.keys(&["C-]", "d"]);
    let ls = s.wait_ls("nest: 1 vty, 80x23");
    assert!(ls.contains("nest: 1 vty, 80x23, 1 client attached"), "the size of the client left: {ls}");
    // Another session attaches from inside.
    t.text(&format!("{} {BLITTY} attach other\n", s.env()));
    let screen = t.wait_for("in-the-other-one");
    assert!(screen.contains("[other]"), "{screen}");
    assert!(s.run(&["kill", "other"]).status.success());
    assert!(s.run(&["kill", "nest"]).status.success());
}

#[test]
fn the_log_keeps_every_byte_in_order() {
    let s = Server::new("log");
    let log = Scratch::new("sessions-vty.log");
    // Every byte value, then a long run, from a program that ends by itself.
    let script = "i=0; while [ $i -lt 256 ]; do printf \"\\\\$(printf %o $i)\"; i=$((i+1)); done; seq 1 20000";
    let out = s.run(&["new", "-d", "-s", "logged", "--log", &log.display().to_string(), "--", "sh", "-c", script]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    wait_until(|| !s.socket().exists());
    let got = std::fs::read(&log).expect("the log");
    // What the program wrote, through the pty's output processing (LF becomes CR LF).
    let mut want = Vec::new();
    for b in 0..=255u8 {
        if b == b'\n' {
            want.extend_from_slice(b"\r\n");
        } else {
            want.push(b);
        }
    }
    for i in 1..=20000 {
        want.extend_from_slice(format!("{i}\r\n").as_bytes());
    }
    assert_eq!(got.len(), want.len(), "log length");
    assert!(got == want, "the log differs from what the program wrote");
}

#[test]
fn ls_kill_and_attach_name_what_is_wrong() {
    let s = Server::new("errors");
    let out = s.run(&["ls"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("no sessions"));
    let out = s.run(&["kill", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("blitty: no blitty server is running on") && err.lines().count() == 1, "{err}");
    assert!(s.run(&["new", "-d", "-s", "one", "--", "sleep", "100"]).status.success());
    let out = s.run(&["new", "-d", "-s", "one", "--", "sleep", "100"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "blitty: a session named one exists already\n");
    let out = s.run(&["kill", "two"]);
    assert_eq!(String::from_utf8_lossy(&out.stderr), "blitty: no session named two (there are: one)\n");
    let out = s.run(&["new", "-d", "-s", "bad", "--", "/no/such/program"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("blitty: cannot start /no/such/program:"), "{err}");
    // A bad config file: one line naming the file, the line and the key.
    let conf = Scratch::new("sessions-bad.toml");
    std::fs::write(&conf, "[server]\nstatus = \"yes\"\n").unwrap();
    let out = s.run(&["ls", "--config", &conf.display().to_string()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("config file {}: line 2", conf.display())) && err.lines().count() == 1, "{err}");
    assert!(s.run(&["kill", "one"]).status.success());
}

#[test]
fn a_client_of_another_protocol_version_gets_a_clear_error() {
    let s = Server::new("version");
    assert!(s.run(&["new", "-d", "-s", "v", "--", "sleep", "100"]).status.success());
    let mut sock = UnixStream::connect(s.socket()).expect("the server's socket");
    // A hello of version 999: length, kind 1, the magic, the version.
    let mut hello = vec![9, 0, 0, 0, 1];
    hello.extend_from_slice(b"BLTY");
    hello.extend_from_slice(&999u32.to_le_bytes());
    sock.write_all(&hello).unwrap();
    sock.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut answer = Vec::new();
    let _ = sock.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer);
    assert!(answer.get(4) == Some(&7), "an error message: {answer:?}");
    let versions = format!("protocol version {} and this client 999", blitty_mux::proto::VERSION);
    assert!(text.contains(&versions), "{text}");
    // Garbage instead of a hello: an error, and the server lives on.
    let mut sock = UnixStream::connect(s.socket()).unwrap();
    sock.write_all(b"GET / HTTP/1.0\r\n\r\n").unwrap();
    let _ = sock.shutdown(std::net::Shutdown::Write);
    let mut junk = Vec::new();
    sock.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let _ = sock.read_to_end(&mut junk);
    assert!(s.ls().contains("v: 1 vty"), "{}", s.ls());
    assert!(s.run(&["kill", "v"]).status.success());
}

#[test]
fn another_user_is_refused() {
    if !rustix::process::getuid().is_root() {
        eprintln!("skipped: only root can run a client as another user");
        return;
    }
    let s = Server::new("uid");
    assert!(s.run(&["new", "-d", "-s", "mine", "--", "sleep", "100"]).status.success());
    let as_nobody = |args: &[&str]| {
        Command::new("setpriv")
            .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", BLITTY])
            .args(args)
            .env("XDG_RUNTIME_DIR", s.dir.path())
            .env("XDG_CONFIG_HOME", "/nonexistent")
            .output()
            .expect("setpriv runs")
    };
    // The directory is private: nobody cannot reach the socket at all.
    let out = as_nobody(&["ls"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // With the directory and socket opened up, nobody's blitty refuses the directory (it is
    // not nobody's) ...
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(s.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(s.dir.join("blitty"), std::fs::Permissions::from_mode(0o711)).unwrap();
    std::fs::set_permissions(s.socket(), std::fs::Permissions::from_mode(0o666)).unwrap();
    let out = as_nobody(&["ls"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("belongs to uid 0, not to uid 65534") && err.lines().count() == 1, "{err}");
    // ... and a client that connects anyway is refused by the server, which checks its uid
    // before reading a byte.
    let script = format!(
        "import socket, sys\ns = socket.socket(socket.AF_UNIX)\ns.connect({:?})\n\
         got = b''\nwhile True:\n    d = s.recv(4096)\n    if not d: break\n    got += d\n\
         sys.stdout.write(got[5:].decode())\n",
        s.socket().display().to_string()
    );
    let out = Command::new("setpriv")
        .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", "-c", &script])
        .output()
        .expect("setpriv runs");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.starts_with("this blitty server belongs to uid 0; uid 65534 may not use it"), "{said} {out:?}");
    std::fs::set_permissions(s.dir.join("blitty"), std::fs::Permissions::from_mode(0o700)).unwrap();
    assert!(s.run(&["kill", "mine"]).status.success());
}

/// `blitty new --serial` takes a line as `blitty serial` does: a profile's device and baud
/// rate, and the config file's stop bits and flow control. (A pty stands in for the line: it
/// keeps 8 bits and no parity whatever is asked, so parity cannot be seen there; it goes the
/// same way as the stop bits.)
#[test]
fn a_serial_vty_follows_the_config_files_profile_and_serial_keys() {
    let s = Server::new("serial-config");
    let (master, port) = blitty_os::pty::pair().expect("a pty");
    std::fs::write(
        s.dir.join("blitty.toml"),
        format!(
            "[serial]\nparity = \"even\"\nstopbits = 2\nflow = \"soft\"\n[serial.profiles.board]\ndevice = \"{}\"\nbaud = 57600\n",
            port.display()
        ),
    )
    .unwrap();
    let conf = s.dir.join("blitty.toml").display().to_string();
    let out = s.run(&["new", "-d", "-s", "board", "--config", &conf, "--serial", "board"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ls = s.wait_ls("57600 baud");
    assert!(ls.contains(&format!("{} 57600 baud", port.display())), "the profile's device and rate: {ls}");
    // The line's settings as the server set them.
    let t = rustix::termios::tcgetattr(&master).expect("termios of the line");
    use rustix::termios::{ControlModes, InputModes};
    assert!(t.control_modes.contains(ControlModes::CSTOPB), "two stop bits: {:?}", t.control_modes);
    assert!(t.input_modes.contains(InputModes::IXON), "soft flow control: {:?}", t.input_modes);
    assert!(s.run(&["kill", "board"]).status.success());
}

#[test]
fn a_serial_vty_survives_its_device_going_away_and_coming_back() {
    assert!(tmux_available(), "tmux is needed");
    let s = Server::new("serial");
    let link = Scratch::new("sessions-ttyV0");
    let log = Scratch::new("sessions-serial.log");
    let plug = || {
        let (master, port) = blitty_os::pty::pair().expect("a pty");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&port, &link).expect("symlink");
        std::fs::File::from(master)
    };
    let first = plug();
    let args = format!("new -s line --serial {} -b 9600 --log {}", link.display(), log.display());
    let t = Tmux::start("sess-serial", &s.cmd(&args));
    t.wait_for("[line] 0:");
    (&first).write_all(b"before the unplug\r\n").unwrap();
    t.wait_for("before the unplug");
    // The server holds the line as `blitty serial` would (the same code): another console is
    // refused, naming the holder.
    let second = s.run(&["serial", &link.display().to_string(), "-b", "9600"]);
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{err}");
    assert!(err.contains("is in use by process") && err.contains("(blitty)"), "{err}");
    drop(first);
    let _ = std::fs::remove_file(&link);
    let screen = t.wait_for("went away");
    assert!(screen.contains("went away"), "{screen}");
    let second = plug();
    let screen = t.wait_for("is back");
    assert!(screen.contains("is back"), "{screen}");
    (&second).write_all(b"after the replug\r\n").unwrap();
    let screen = t.wait_for("after the replug");
    assert!(screen.contains("after the replug"), "{screen}");
    // Keys reach the device.
    t.text("typed");
    let mut got = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut buf = [0u8; 256];
    while !String::from_utf8_lossy(&got).contains("typed") && Instant::now() < deadline {
        let mut fds = [rustix::event::PollFd::new(&second, rustix::event::PollFlags::IN)];
        let ready = rustix::event::poll(&mut fds, Some(&rustix::event::Timespec { tv_sec: 0, tv_nsec: 50_000_000 }));
        if matches!(ready, Ok(n) if n > 0) {
            if let Ok(n) = (&second).read(&mut buf) {
                got.extend_from_slice(&buf[..n]);
            }
        }
    }
    assert!(String::from_utf8_lossy(&got).contains("typed"), "{got:?}");
    let logged = std::fs::read(&log).unwrap();
    assert_eq!(logged, b"before the unplug\r\nafter the replug\r\n", "the log holds the line's bytes only");
    // Prefix & closes the line: the session ends with it.
    t.keys(&["C-]", "&"]);
    t.wait_for("kill vty 0");
    t.keys(&["y"]);
    let end = t.wait_for("session line ended");
    assert!(end.contains("[blitty: session line ended:") && end.contains("was closed (prefix &)"), "{end}");
}

/// Several serial lines in one server, each logged: each line keeps the raw settings it was
/// opened with while the others are opened (a second line used to put the first back as it
/// was found, cooked, which turned CR into LF and held back every unfinished line).
#[test]
fn serial_vtys_of_one_server_each_get_their_bytes_raw() {
    let s = Server::new("serial-many");
    let lines: Vec<_> = (0..4).map(|_| blitty_os::pty::pair().expect("a pty")).collect();
    let logs: Vec<Scratch> = (0..4).map(|i| Scratch::new(&format!("sessions-many-{i}.log"))).collect();
    for (i, ((_, port), log)) in lines.iter().zip(&logs).enumerate() {
        let (port, log) = (port.display().to_string(), log.display().to_string());
        let out = s.run(&["new", "-d", "-s", &format!("l{i}"), "--log", &log, "--serial", &port, "-b", "115200"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    // Every byte value, then CRs and a last line that does not end.
    let mut sent: Vec<u8> = (0..=255u8).collect();
    sent.extend_from_slice(b"one\r\ntwo\rthree\nno end");
    for (master, _) in &lines {
        std::fs::File::from(master.try_clone().unwrap()).write_all(&sent).unwrap();
    }
    wait_until(|| logs.iter().all(|l| std::fs::metadata(l).map_or(0, |m| m.len()) >= sent.len() as u64));
    for log in &logs {
        assert!(std::fs::read(log).unwrap() == sent, "{} differs from what the line carried", log.display());
    }
}

/// The server raises its own open-file limit (1,000 logged serial lines need 2,000 descriptors);
/// its programs still get the limit their user set.
#[test]
fn programs_get_the_open_file_limit_the_user_set() {
    let s = Server::new("nofile");
    let out_file = Scratch::new("sessions-nofile.txt");
    let script = format!(
        "ulimit -Sn 200 && {} {BLITTY} new -d -s lim -- sh -c 'ulimit -Sn > {}.part; mv {}.part {}; sleep 1000'",
        s.env(),
        out_file.display(),
        out_file.display(),
        out_file.display()
    );
    let st = Command::new("sh").arg("-c").arg(&script).status().expect("sh");
    assert!(st.success());
    wait_until(|| out_file.exists());
    let got = std::fs::read_to_string(&out_file).unwrap_or_default();
    assert_eq!(got.trim(), "200", "the program's open-file limit");
    let pid = String::from_utf8_lossy(
        &Command::new("pgrep")
            .args(["-f", &format!("server --socket {}", s.socket().display())])
            .output()
            .unwrap()
            .stdout,
    )
    .trim()
    .to_string();
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap_or_default();
    let line = limits.lines().find(|l| l.starts_with("Max open files")).unwrap_or("").to_string();
    let soft_hard: Vec<&str> = line.split_whitespace().skip(3).take(2).collect();
    assert!(soft_hard.len() == 2 && soft_hard[0] == soft_hard[1], "the server's own limit is raised: {line}");
}

/// The config file's `[server]` keys: where the socket lives, the name of a session made
/// without -s, and the status row turned off (the vty then has every row of the terminal).
#[test]
fn the_server_section_of_the_config_file_is_followed() {
    assert!(tmux_available(), "tmux is needed");
    let s = Server::new("config");
    let sockets = s.dir.join("elsewhere");
    let conf_dir = s.dir.join("blitty");
    std::fs::create_dir_all(&conf_dir).unwrap();
    std::fs::write(
        conf_dir.join("config.toml"),
        format!("[server]\nsocket_dir = \"{}\"\nstatus = false\ndefault_session = \"main\"\n", sockets.display()),
    )
    .unwrap();
    let t = Tmux::start("sess-config", &s.cmd("new -- sh -c \"echo con\"\"figured; exec sleep 1000\""));
    let screen = t.wait_for("configured");
    assert!(!screen.contains("[main]"), "status = false: no status row\n{screen}");
    let ls = s.ls();
    assert!(ls.contains("main: 1 vty, 80x24, 1 client attached"), "the default name, every row for the vty: {ls}");
    let socket = sockets.join("default");
    assert!(socket.exists(), "the socket is in socket_dir");
    assert!(!s.socket().exists(), "and not in the runtime directory");
    let out = s.run(&["kill", "main"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    wait_until(|| !socket.exists());
}

#[test]
fn a_programs_clipboard_write_and_the_scrollback_copy_reach_the_clients_terminal() {
    assert!(tmux_available(), "tmux is needed");
    let s = Server::new("clip");
    let t = Tmux::start("sess-clip", &s.cmd("new -s clip -- sh"));
    t.tmux(&["set-option", "-g", "set-clipboard", "on"]);
    t.wait_for("[clip] 0:sh*");
    // OSC 52 from the program ("from a session" in base64).
    t.text("printf '\\033]52;c;ZnJvbSBhIHNlc3Npb24=\\007'; echo sent\n");
    t.wait_for_line("sent");
    assert_eq!(t.wait_for_buffer("from a session"), "from a session");
    // The scrollback mode of the session: a line found and copied.
    t.text("seq -f 'entry %g' 1 3000\n");
    t.wait_for_line("entry 3000");
    t.keys(&["C-]", "["]);
    t.wait_for("[scrollback");
    t.text("?entry 1500");
    t.keys(&["Enter"]);
    let screen = t.wait_for_line("entry 1500");
    assert!(screen.lines().any(|l| l.trim_end() == "entry 1500"), "{screen}");
    t.keys(&["V", "y"]);
    assert_eq!(t.wait_for_buffer("entry 1500\n"), "entry 1500\n");
    assert!(s.run(&["kill", "clip"]).status.success());
}

/// The framebuffer file's pixels as 0xRRGGBB (XRGB8888, little-endian).
fn fb_pixels(path: &std::path::Path) -> Vec<u32> {
    std::fs::read(path).unwrap_or_default().chunks_exact(4).map(|p| u32::from_le_bytes([p[0], p[1], p[2], 0])).collect()
}

#[test]
fn the_console_draws_the_session_into_a_framebuffer_file_as_the_png_shows_it() {
    assert!(tmux_available(), "tmux is needed (the console reads keys from a terminal)");
    let s = Server::new("console");
    let fb = Scratch::new("sessions-fb.raw");
    let (w, h) = (640usize, 480usize);
    let fonts = blitty_pixel::Fonts::find("DejaVu Sans Mono", 12.0, 1.0).expect("DejaVu Sans Mono");
    let (cw, ch) = (fonts.cell_w, fonts.cell_h);
    let (cols, rows) = (w / cw, h / ch);
    let red = blitty_vt::default_indexed(1);
    let red = (red[0] as u32) << 16 | (red[1] as u32) << 8 | red[2] as u32;
    let script = Scratch::new("sessions-fb.sh");
    std::fs::write(&script, "printf '\\033[41m\\033[2J'; read x; printf '\\033[44m\\033[2J'; sleep 1000\n").unwrap();
    let args = format!("console --fb {} --fb-size {w}x{h} -s fb -- sh {}", fb.display(), script.display());
    let t = Tmux::start("sess-console", &s.cmd(&args));
    // A pixel in the middle of the screen, clear of the cursor and the status row.
    let probe = (h / 2) * w + w / 2;
    // The screen turns red.
    wait_until(|| fb_pixels(&fb).get(probe) == Some(&red));
    let pixels = fb_pixels(&fb);
    assert_eq!(pixels.len(), w * h, "the file is the framebuffer's size");
    assert_eq!(pixels[probe], red, "the program's red screen:\n{}", t.capture());

    // The same screen drawn by `blitty replay --png`: the vty's rows (the status row is the
    // console's last) are the same pixels.
    let (pw, ph, want) = common::replay_png(BLITTY, b"\x1b[41m\x1b[2J", cols, rows - 1, &[]);
    assert_eq!((pw, ph), (cols * cw, (rows - 1) * ch));
    let mut differ = 0;
    for y in 0..ph {
        for x in 0..pw {
            if pixels[y * w + x] != want[y * pw + x] {
                differ += 1;
            }
        }
    }
    assert_eq!(differ, 0, "pixels differing from the PNG");

    // A key typed in the terminal reaches the program: the screen turns blue.
    t.keys(&["Enter"]);
    let blue = blitty_vt::default_indexed(4);
    let blue = (blue[0] as u32) << 16 | (blue[1] as u32) << 8 | blue[2] as u32;
    wait_until(|| fb_pixels(&fb).get(probe) == Some(&blue));
    assert_eq!(fb_pixels(&fb)[probe], blue, "{}", t.capture());
    assert!(s.run(&["kill", "fb"]).status.success());
}

/// CPU seconds (user and system) of process `pid`.
fn cpu_seconds(pid: &str) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r).to_string();
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

#[test]
fn a_program_that_closes_its_terminal_costs_the_server_nothing_while_it_runs() {
    let s = Server::new("hangup");
    let out = s.run(&["new", "-d", "-s", "quiet", "--", "sh", "-c", "exec >/dev/null 2>&1 </dev/null; sleep 3"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let pgrep =
        Command::new("pgrep").args(["-f", &format!("server --socket {}", s.socket().display())]).output().unwrap();
    let pid = String::from_utf8_lossy(&pgrep.stdout).lines().next().unwrap_or("").trim().to_string();
    assert!(!pid.is_empty(), "no server");
    let before = cpu_seconds(&pid);
    // Not a wait for a condition: the CPU the server spends over a second of its program's
    // silence is the measure.
    std::thread::sleep(Duration::from_secs(1));
    let spent = cpu_seconds(&pid) - before;
    assert!(spent < 0.2, "the server spent {spent} s of CPU in 1 s on a hung-up pty");
    assert!(s.ls().contains("quiet: 1 vty"), "{}", s.ls());
    // It ends with its program.
    let ls = s.wait_ls("no sessions");
    assert!(ls.contains("no sessions"), "{ls}");
}

#[test]
fn a_programs_bell_rings_in_the_users_terminal_through_run_and_through_a_session() {
    assert!(tmux_available(), "tmux is needed");
    let s = Server::new("bell");
    for (name, args) in [("run", "run -- sh"), ("session", "new -s bell -- sh")] {
        let t = Tmux::start(&format!("sess-bell-{name}"), &s.cmd(args));
        t.wait_for("$");
        let capture = Scratch::new(&format!("sessions-bell-{name}.out"));
        t.tmux(&["pipe-pane", "-o", &format!("cat >> {}", capture.display())]);
        t.text("printf '\\a'; echo rang\n");
        t.wait_for_line("rang");
        wait_until(|| std::fs::read(&capture).unwrap_or_default().contains(&0x07));
        let out = std::fs::read(&capture).unwrap_or_default();
        assert!(out.contains(&0x07), "{name}: no BEL reached the terminal: {:?}", String::from_utf8_lossy(&out));
    }
    assert!(s.run(&["kill", "bell"]).status.success());
}

#[test]
fn an_update_the_program_marks_as_synchronized_reaches_the_client_whole() {
    assert!(tmux_available(), "tmux is needed");
    let s = Server::new("sync");
    // Row 3 first, then row 1, in one update (mode 2026) with a pause inside it shorter than
    // the hold: shown whole, the frame draws row 1 before row 3; shown torn, row 3's text goes
    // out first.
    let script = Scratch::new("sessions-sync.sh");
    std::fs::write(
        &script,
        "stty -echo; echo go; read x; printf '\\033[?2026h\\033[3;1HBBBB'; sleep 0.03; \
         printf '\\033[1;1HAAAA\\033[?2026l'; sleep 30\n",
    )
    .unwrap();
    let t = Tmux::start("sess-sync", &s.cmd(&format!("new -s sync -- sh {}", script.display())));
    t.wait_for("go");
    let capture = Scratch::new("sessions-sync.out");
    t.tmux(&["pipe-pane", "-o", &format!("cat >> {}", capture.display())]);
    t.keys(&["Enter"]);
    t.wait_for("AAAA");
    let out = std::fs::read(&capture).unwrap_or_default();
    let at = |n: &[u8]| out.windows(n.len()).rposition(|w| w == n);
    let (a, b) = (at(b"AAAA"), at(b"BBBB"));
    assert!(a.is_some() && b.is_some() && a < b, "the update was shown torn: {:?}", String::from_utf8_lossy(&out));
    assert!(s.run(&["kill", "sync"]).status.success());
}

#[test]
fn an_attached_client_whose_terminal_stops_taking_output_still_sends_the_keys() {
    let s = Server::new("stuckterm");
    let out = Scratch::new("sessions-stuckterm.out");
    // The program floods its screen and waits for a line, which it writes to a file.
    let program = format!("yes & read x; echo \"$x\" > {}; kill $!; sleep 100", out.display());
    s.ok(&["new", "-d", "-s", "stuck", "--", "sh", "-c", &program]);
    // The client's terminal is a pty whose other end the test never reads: its output fills.
    let (master, slave) = blitty_os::pty::pair().expect("a pty");
    let master = std::fs::File::from(master);
    let tty = std::fs::OpenOptions::new().read(true).write(true).open(&slave).expect("the pty's terminal");
    let mut client = Command::new(BLITTY)
        .args(["attach", "stuck"])
        .env("XDG_RUNTIME_DIR", s.dir.path())
        .env("XDG_CONFIG_HOME", s.dir.path())
        .stdin(tty.try_clone().unwrap())
        .stdout(tty.try_clone().unwrap())
        .stderr(tty)
        .spawn()
        .expect("blitty attach starts");
    // Until the terminal has stopped taking output: what waits to be read no longer grows.
    let pending = || rustix::io::ioctl_fionread(&master).unwrap_or(0);
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut last = 0;
    loop {
        std::thread::sleep(Duration::from_millis(200));
        let now = pending();
        if now > 0 && now == last {
            break;
        }
        assert!(Instant::now() < deadline, "the client's terminal never filled ({now} bytes waiting)");
        last = now;
    }
    (&master).write_all(b"typed-through\r").unwrap();
    wait_until(|| std::fs::read_to_string(&out).is_ok_and(|t| t.contains("typed-through")));
    let got = std::fs::read_to_string(&out).unwrap_or_default();
    assert_eq!(got.trim(), "typed-through", "the keys reached the program while the terminal was full");
    let _ = client.kill();
    let _ = client.wait();
    assert!(s.run(&["kill", "stuck"]).status.success());
}
