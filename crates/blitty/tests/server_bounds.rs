//! The session server's safety and bounds, tried as an attacker would: another user's
//! directory or server where the socket should be, a client streaming messages, a paste into
//! a program that does not read, a program flooding queries, a resize storm, names made to
//! set the user's title, killed sessions. Each test talks to a real server of its own (its own
//! XDG_RUNTIME_DIR), through the `blitty` program or the protocol itself.

mod common;

use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use blitty_mux::proto::{self, Frames, Msg, Request};
use common::server::Server;
use common::wait_until;

fn is_root() -> bool {
    rustix::process::getuid().is_root()
}

/// Resident memory of a process in KiB.
fn rss_kib(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn frame(msg: &Msg) -> Vec<u8> {
    let mut out = Vec::new();
    proto::encode(msg, &mut out);
    out
}

/// A client speaking the protocol itself, attached to a session; its frames are shown on a
/// screen of its own (an engine), as a terminal would show them.
struct Raw {
    sock: UnixStream,
    frames: Frames,
    screen: blitty_vt::Terminal,
}

impl Raw {
    fn attach(s: &Server, name: &str, cols: u16, rows: u16) -> Raw {
        let mut sock = s.connect();
        let mut hello = frame(&Msg::Hello { version: proto::VERSION });
        hello.extend(frame(&Msg::Request(Request::Attach { name: Some(name.into()), cols, rows })));
        sock.write_all(&hello).unwrap();
        sock.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
        let mut raw =
            Raw { sock, frames: Frames::default(), screen: blitty_vt::Terminal::new(cols as usize, rows as usize) };
        assert!(raw.wait_frames(true, |_| true, Duration::from_secs(30)), "no first frame from session {name}");
        raw
    }

    /// Reads frames until `ok` holds for the screen's text, or `limit` passes; whether it held.
    fn wait_screen(&mut self, ok: impl FnMut(&str) -> bool, limit: Duration) -> bool {
        self.wait_frames(false, ok, limit)
    }

    /// As `wait_screen`; with `new`, what `ok` is asked of must include a frame not seen yet.
    fn wait_frames(&mut self, new: bool, mut ok: impl FnMut(&str) -> bool, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let mut got = !new;
        let mut buf = vec![0u8; 65536];
        loop {
            while let Ok(Some(m)) = self.frames.next_msg() {
                match m {
                    Msg::Output(b) => {
                        self.screen.feed(&b);
                        got = true;
                    }
                    Msg::Exit { reason, .. } | Msg::Error(reason) => panic!("the server ended the client: {reason}"),
                    _ => {}
                }
            }
            if got && ok(&self.screen.screen().dump_text()) {
                return true;
            }
            if Instant::now() > deadline {
                return false;
            }
            match self.sock.read(&mut buf) {
                Ok(0) => panic!("the server closed the connection"),
                Ok(n) => self.frames.push(&buf[..n]),
                Err(_) => {}
            }
        }
    }

    fn send(&mut self, msg: &Msg) {
        self.sock.write_all(&frame(msg)).unwrap();
    }

    fn text(&self) -> String {
        self.screen.screen().dump_text()
    }

    /// Types `token` and Enter, and returns how long until `cat` printed it back.
    fn echo(&mut self, token: &str) -> Duration {
        let t = Instant::now();
        self.send(&Msg::Input(format!("{token}\r").into_bytes()));
        // The terminal's echo and cat's copy: two lines.
        let found = self.wait_screen(|text| text.matches(token).count() >= 2, Duration::from_secs(60));
        let took = t.elapsed();
        assert!(found, "no echo of {token} within 60 s; the screen:\n{}", self.text());
        took
    }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Echo times of session `echo` (running `cat`) typed `n` times while `load` runs in another
/// thread, until `load` returns: the median and the worst.
fn echo_while(s: &Server, load: impl FnOnce() + Send + 'static) -> (Duration, Duration, usize) {
    let mut probe = Raw::attach(s, "echo", 80, 24);
    let worker = std::thread::spawn(load);
    let mut times = Vec::new();
    let mut k = 0;
    while !worker.is_finished() || times.len() < 5 {
        k += 1;
        times.push(probe.echo(&format!("<{k}>")));
        if times.len() > 2000 {
            break;
        }
    }
    worker.join().expect("the load");
    let worst = *times.iter().max().unwrap();
    (median(times.clone()), worst, times.len())
}

// ---- who is at the other end ----

#[test]
fn a_socket_directory_open_to_others_is_refused_by_client_and_server_and_left_as_it_is() {
    let s = Server::new("open-dir");
    let dir = s.socket_dir();
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    for args in [&["ls"][..], &["attach"], &["kill", "x"], &["new", "-d", "-s", "x", "--", "sleep", "1"]] {
        let out = s.run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&format!("the socket directory {} has mode 0755", dir.display())), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o7777, 0o755, "never chmod'ed");
    assert!(!s.socket().exists(), "no server started there");
}

#[test]
fn a_configured_shared_directory_keeps_its_mode_and_sticky_bit() {
    let s = Server::new("shared-dir");
    let shared = s.dir.join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let conf = s.dir.join("blitty.toml");
    std::fs::write(&conf, format!("[server]\nsocket_dir = \"{}\"\n", shared.display())).unwrap();
    let out = s.run(&["new", "-d", "--config", &conf.display().to_string(), "--", "sleep", "1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("has mode 1777"), "{out:?}");
    assert_eq!(std::fs::metadata(&shared).unwrap().mode() & 0o7777, 0o1777);
}

#[test]
fn a_symbolic_link_in_place_of_the_directory_is_refused_and_its_target_untouched() {
    let s = Server::new("symlink-dir");
    let target = s.dir.join("elsewhere");
    std::fs::create_dir(&target).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(target.join("default"), b"a file of the user's").unwrap();
    std::os::unix::fs::symlink(&target, s.socket_dir()).unwrap();
    let out = s.run(&["new", "-d", "-s", "x", "--", "sleep", "2"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a symbolic link"), "{out:?}");
    assert_eq!(std::fs::metadata(&target).unwrap().mode() & 0o7777, 0o755, "the target keeps its mode");
    assert_eq!(std::fs::read(target.join("default")).unwrap(), b"a file of the user's", "and its file");
}

#[test]
fn a_file_where_the_socket_goes_is_left_alone() {
    let s = Server::new("file-socket");
    std::fs::create_dir(s.socket_dir()).unwrap();
    std::fs::set_permissions(s.socket_dir(), std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::write(s.socket(), b"not a socket").unwrap();
    let out = s.run(&["new", "-d", "-s", "x", "--", "sleep", "2"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("is there and is not a socket"), "{out:?}");
    assert_eq!(std::fs::read(s.socket()).unwrap(), b"not a socket");
}

#[test]
fn a_directory_planted_by_another_user_is_refused() {
    if !is_root() {
        eprintln!("skipped: only root can make a directory of another user's");
        return;
    }
    let s = Server::new("planted-dir");
    let dir = s.socket_dir();
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).unwrap();
    for args in [&["ls"][..], &["attach"], &["new", "-d", "-s", "work", "--", "sleep", "1"]] {
        let out = s.run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("belongs to uid 65534, not to uid 0"), "{args:?}: {err}");
    }
    assert_eq!(std::fs::metadata(&dir).unwrap().uid(), 65534, "never chown'ed");
}

/// A fake server as another user in a directory that passes every check: made by root, the
/// socket bound as root, then the process becomes `nobody` and listens (the peer credentials
/// of a listening socket are its listener's). What reaches it is written to `log`.
fn fake_server(socket: &Path, log: &Path) -> std::process::Child {
    let script = format!(
        "import os, socket\n\
         s = socket.socket(socket.AF_UNIX)\n\
         s.bind({socket:?})\n\
         os.chmod({socket:?}, 0o666)\n\
         os.setgid(65534); os.setuid(65534)\n\
         s.listen(8)\n\
         print('listening', flush=True)\n\
         while True:\n\
         \x20   c, _ = s.accept()\n\
         \x20   c.settimeout(2)\n\
         \x20   try: c.sendall(b'\\x1b]2;owned\\x07')\n\
         \x20   except Exception: pass\n\
         \x20   got = b''\n\
         \x20   try:\n\
         \x20       while True:\n\
         \x20           d = c.recv(65536)\n\
         \x20           if not d: break\n\
         \x20           got += d\n\
         \x20   except Exception: pass\n\
         \x20   open({log:?}, 'ab').write(got + b'|')\n",
        socket = socket.display().to_string(),
        log = log.display().to_string(),
    );
    let mut child = Command::new("/usr/bin/python3")
        .args(["-c", &script])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs (scripts/setup.sh)");
    let mut line = [0u8; 10];
    child.stdout.as_mut().unwrap().read_exact(&mut line).expect("the fake server listens");
    child
}

#[test]
fn a_server_of_another_user_gets_nothing_from_the_client() {
    if !is_root() {
        eprintln!("skipped: only root can run a server as another user");
        return;
    }
    let s = Server::new("fake-server");
    std::fs::create_dir(s.socket_dir()).unwrap();
    std::fs::set_permissions(s.socket_dir(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let log = s.dir.join("fake.log");
    std::fs::write(&log, b"").unwrap();
    std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o666)).unwrap();
    let mut fake = fake_server(&s.socket(), &log);
    let secret = s.dir.join("secret.log");
    for args in [
        &["ls"][..],
        &["attach"],
        &["kill", "work"],
        &["new", "-d", "-s", "work", "--log", &secret.display().to_string(), "--", "mysql", "-psecretpw"],
    ] {
        let out = s.run(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("runs as uid 65534, not as uid 0: blitty does not talk to it"), "{args:?}: {err}");
        assert!(
            !out.stdout.contains(&0x1b) && !out.stderr.contains(&0x1b),
            "nothing of the fake's reaches the terminal"
        );
    }
    // The fake saw four connections and not one byte on any.
    wait_until(|| std::fs::read(&log).map(|l| l.len() >= 4).unwrap_or(false));
    let got = std::fs::read(&log).unwrap_or_default();
    assert_eq!(got, b"||||", "the fake server received: {:?}", String::from_utf8_lossy(&got));
    let _ = fake.kill();
    let _ = fake.wait();
}

// ---- names ----

#[test]
fn names_are_listed_printable_and_refused_when_they_hide_characters() {
    let s = Server::new("names");
    // A program whose name sets the terminal's title when printed raw.
    let bin = s.dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let evil = bin.join("ev\x1b]2;INJECTED\x07");
    std::os::unix::fs::symlink("/bin/sleep", &evil).unwrap();
    s.ok(&["new", "-d", "-s", "n", "--", &evil.display().to_string(), "100"]);
    let out = s.run(&["ls"]);
    assert!(out.status.success());
    assert!(!out.stdout.contains(&0x1b) && !out.stdout.contains(&0x07), "{:?}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("ev\\x1b]2;INJECTED\\x07"), "{out:?}");
    for bad in ["a\u{202e}b", "x\u{200b}", "tab\tname", &"long".repeat(17)] {
        let out = s.run(&["new", "-d", "-s", bad, "--", "sleep", "1"]);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.chars().all(|c| !c.is_control() || c == '\n') && !err.contains('\u{202e}'), "{err:?}");
    }
    // A 60 MB name is refused in one short line, and the listing still works.
    let huge = "y".repeat(60 << 20);
    let mut sock = s.connect();
    let mut req = frame(&Msg::Hello { version: proto::VERSION });
    req.extend(frame(&Msg::Request(Request::Kill { name: huge })));
    let _ = sock.write_all(&req);
    let mut answer = Vec::new();
    sock.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let _ = sock.read_to_end(&mut answer);
    assert!(answer.len() < 4096, "a short refusal ({} bytes)", answer.len());
    assert!(s.run(&["ls"]).status.success());
    s.ok(&["kill", "n"]);
}

// ---- processes ----

/// The zombie children of `pid`.
fn zombies_of(pid: i32) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        // pid (comm) state ppid ...: comm may hold spaces, the rest follows its last ')'.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else { continue };
        let f: Vec<&str> = rest.split_whitespace().collect();
        if f.len() > 1 && f[0] == "Z" && f[1] == pid.to_string() {
            found.push(stat);
        }
    }
    found
}

#[test]
fn killed_sessions_leave_no_zombies() {
    let s = Server::new("zombies");
    s.ok(&["new", "-d", "-s", "keep", "--", "sleep", "1000"]);
    for k in 0..5 {
        s.ok(&["new", "-d", "-s", &format!("z{k}"), "--", "sleep", "1000"]);
    }
    for k in 0..5 {
        s.ok(&["kill", &format!("z{k}")]);
    }
    let pid = s.pid();
    wait_until(|| zombies_of(pid).is_empty());
    assert_eq!(zombies_of(pid), Vec::<String>::new(), "the server reaped its killed programs");
    s.ok(&["kill", "keep"]);
}

// ---- bounded work and memory ----

#[test]
fn a_client_streaming_small_messages_does_not_hold_up_another_session() {
    let s = Server::new("stream");
    s.ok(&["new", "-d", "-s", "echo", "--", "cat"]);
    s.ok(&["new", "-d", "-s", "other", "--", "cat"]);
    let mut flood = Raw::attach(&s, "other", 80, 24);
    // 10 MiB of resizes to the size it has (9 bytes each), written as fast as the server takes
    // them, alongside the echo probes.
    let noop = frame(&Msg::Resize { cols: 80, rows: 24 });
    let stream: Vec<u8> = noop.iter().copied().cycle().take((10 << 20) / noop.len() * noop.len()).collect();
    let mut sock = flood.sock.try_clone().unwrap();
    let (med, worst, n) = echo_while(&s, move || {
        sock.write_all(&stream).unwrap();
    });
    assert!(med < Duration::from_millis(100), "echo while a client streams: median {med:?}, worst {worst:?} of {n}");
    assert!(worst < Duration::from_secs(2), "echo while a client streams: median {med:?}, worst {worst:?} of {n}");
    // The streaming client is still attached and served: its own keys reach its program.
    flood.echo("still-here");
    s.ok(&["kill", "echo"]);
    s.ok(&["kill", "other"]);
}

#[test]
fn a_huge_paste_into_a_program_that_does_not_read_is_cut_and_memory_stays_bounded() {
    let s = Server::new("paste");
    s.ok(&["new", "-d", "-s", "echo", "--", "cat"]);
    s.ok(&["new", "-d", "-s", "stuck", "--", "sleep", "1000"]);
    let pid = s.pid();
    let before = rss_kib(pid);
    let mut paster = Raw::attach(&s, "stuck", 80, 24);
    let mut sock = paster.sock.try_clone().unwrap();
    // 1 GiB in reads of 64 KiB, as a client sends a paste.
    let (med, worst, n) = echo_while(&s, move || {
        let chunk = frame(&Msg::Input(vec![b'p'; 65536]));
        for _ in 0..(1 << 14) {
            sock.write_all(&chunk).unwrap();
        }
    });
    let after = rss_kib(pid);
    assert!(after < before + 64 * 1024, "server RSS {before} KiB before, {after} KiB after a 1 GiB paste");
    assert!(med < Duration::from_millis(100), "echo during the paste: median {med:?}, worst {worst:?} of {n}");
    // The user is told.
    assert!(
        paster.wait_screen(|text| text.contains("not reading its input"), Duration::from_secs(30)),
        "a message says the paste was cut; the screen:\n{}",
        paster.text()
    );
    s.ok(&["kill", "echo"]);
    s.ok(&["kill", "stuck"]);
}

#[test]
fn a_program_flooding_queries_and_not_reading_the_answers_is_held_not_buffered() {
    let s = Server::new("queries");
    // 10 MB of primary device attribute queries, then a mark; it never reads its input, which
    // is raw (in canonical mode the kernel drops what does not fit in a line).
    let script = "import os, tty\ntty.setraw(0)\nb = b'\\x1b[c' * 100000\nfor _ in range(35): os.write(1, b)\nos.write(1, b'ALL-WRITTEN')\nimport time\ntime.sleep(1000)\n";
    s.ok(&["new", "-d", "-s", "q", "--", "/usr/bin/python3", "-c", script]);
    let pid = s.pid();
    let mut watch = Raw::attach(&s, "q", 80, 24);
    // Held: the answers wait for the program (at most 1 MiB), so it blocks writing and its
    // mark never comes; the server's memory stays put. Watched for 3 s.
    let deadline = Instant::now() + Duration::from_secs(3);
    let mut peak = 0;
    while Instant::now() < deadline {
        peak = peak.max(rss_kib(pid));
        assert!(
            !watch.wait_screen(|text| text.contains("ALL-WRITTEN"), Duration::from_millis(100)),
            "the program wrote 10 MB of queries without reading an answer"
        );
    }
    assert!(peak < 64 * 1024, "server RSS {peak} KiB");
    s.ok(&["kill", "q"]);
}

#[test]
fn a_resize_storm_is_coalesced_and_other_sessions_keep_being_served() {
    let s = Server::new("storm");
    s.ok(&["new", "-d", "-s", "echo", "--", "cat"]);
    s.ok(&["new", "-d", "-s", "big", "--", "sh", "-c", "seq 1 10000; exec sleep 1000"]);
    let mut storm = Raw::attach(&s, "big", 80, 24);
    assert!(storm.wait_screen(|text| text.contains("10000"), Duration::from_secs(30)), "{}", storm.text());
    let mut sock = storm.sock.try_clone().unwrap();
    // 100 resizes alternating 2048x1024 and 1x1 in one write, three times.
    let mut sizes = Vec::new();
    for k in 0..100 {
        let (cols, rows) = if k % 2 == 0 { (2048, 1024) } else { (1, 1) };
        sizes.extend(frame(&Msg::Resize { cols, rows }));
    }
    sizes.extend(frame(&Msg::Resize { cols: 100, rows: 30 }));
    let (med, worst, n) = echo_while(&s, move || {
        for _ in 0..3 {
            sock.write_all(&sizes).unwrap();
        }
    });
    assert!(med < Duration::from_millis(100), "echo during the storm: median {med:?}, worst {worst:?} of {n}");
    assert!(worst < Duration::from_secs(2), "echo during the storm: median {med:?}, worst {worst:?} of {n}");
    // The last size wins.
    wait_until(|| String::from_utf8_lossy(&s.run(&["ls"]).stdout).contains("big: 1 vty, 100x29"));
    let ls = String::from_utf8_lossy(&s.run(&["ls"]).stdout).into_owned();
    assert!(ls.contains("big: 1 vty, 100x29"), "{ls}");
    s.ok(&["kill", "echo"]);
    s.ok(&["kill", "big"]);
}

#[test]
fn a_command_line_past_the_frame_limit_is_refused_before_it_is_sent() {
    let s = Server::new("argv");
    // Eleven arguments of 100 KB (Linux takes at most 128 KiB in one).
    let arg = "a".repeat(100_000);
    let mut args = vec!["new", "-d", "-s", "long", "--", "echo"];
    args.extend(std::iter::repeat_n(arg.as_str(), 11));
    let out = s.run(&args);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("more than the server takes (1024 KiB)") && err.lines().count() == 1, "{err}");
}

#[test]
fn connections_are_counted_and_one_past_the_most_is_told_so() {
    let s = Server::new("conns");
    s.ok(&["new", "-d", "-s", "c", "--", "sleep", "1000"]);
    let max = blitty_mux::server::MAX_CLIENTS;
    let mut held = Vec::new();
    for _ in 0..max {
        let mut c = s.connect();
        c.write_all(&frame(&Msg::Hello { version: proto::VERSION })).unwrap();
        let mut hello = [0u8; 13];
        c.read_exact(&mut hello).unwrap();
        held.push(c);
    }
    let out = s.run(&["ls"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("has {max} connections already")), "{out:?}");
    drop(held);
    wait_until(|| s.run(&["ls"]).status.success());
    s.ok(&["kill", "c"]);
}

// ---- found by reading the server as an attacker ----

#[test]
fn keys_that_enter_and_leave_the_scrollback_mode_60000_times_in_one_message_do_not_crash_the_server() {
    let s = Server::new("key-rounds");
    s.ok(&["new", "-d", "-s", "k", "--", "sleep", "1000"]);
    let mut c = Raw::attach(&s, "k", 80, 24);
    c.send(&Msg::Input(b"\x1d[q".repeat(60_000)));
    // The server answers at once and keeps its session (it recursed once a round: a stack
    // overflow ended it, and every session with it).
    let t = Instant::now();
    let out = s.run(&["ls"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("k: 1 vty"), "{out:?}");
    assert!(t.elapsed() < Duration::from_secs(10), "ls took {:?}", t.elapsed());
    assert!(c.wait_screen(|text| text.contains("keys dropped"), Duration::from_secs(30)), "{}", c.text());
    s.ok(&["kill", "k"]);
}

#[test]
fn a_log_that_is_a_fifo_is_refused_without_holding_the_server() {
    let s = Server::new("log-fifo");
    s.ok(&["new", "-d", "-s", "keep", "--", "sleep", "1000"]);
    let fifo = s.dir.join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out = s.run(&["new", "-d", "-s", "f", "--log", &fifo.display().to_string(), "--", "sleep", "100"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    // And with a reader holding it open (that never reads): still refused.
    let mut reader = Command::new("sh").arg("-c").arg(format!("exec sleep 1000 < {}", fifo.display())).spawn().unwrap();
    let out = s.run(&["new", "-d", "-s", "f", "--log", &fifo.display().to_string(), "--", "sleep", "100"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a regular file"), "{out:?}");
    let _ = reader.kill();
    let _ = reader.wait();
    assert!(s.run(&["ls"]).status.success());
    s.ok(&["kill", "keep"]);
}

#[test]
fn a_connection_makes_one_request() {
    let s = Server::new("one-request");
    s.ok(&["new", "-d", "-s", "first", "--", "sleep", "1000"]);
    let mut sock = s.connect();
    let mut out = frame(&Msg::Hello { version: proto::VERSION });
    for k in 0..3000 {
        out.extend(frame(&Msg::Request(Request::New {
            name: Some(format!("n{k}")),
            detached: false,
            vty: blitty_mux::proto::VtySpec::Program {
                argv: vec![b"sleep".to_vec(), b"1000".to_vec()],
                cwd: b"/".to_vec(),
            },
            cols: 80,
            rows: 24,
            log: None,
        })));
    }
    let _ = sock.write_all(&out);
    let t = Instant::now();
    let ls = String::from_utf8_lossy(&s.run(&["ls"]).stdout).into_owned();
    assert!(t.elapsed() < Duration::from_secs(10), "ls took {:?}", t.elapsed());
    let sessions = ls.lines().filter(|l| !l.starts_with(' ')).count();
    assert!(sessions <= 2, "one request was served, not thousands: {sessions} sessions");
    drop(sock);
    wait_until(|| !s.run(&["ls"]).stdout.windows(3).any(|w| w == b"n0:"));
    s.ok(&["kill", "first"]);
}

#[test]
fn connections_that_say_nothing_are_closed() {
    let s = Server::new("idle");
    s.ok(&["new", "-d", "-s", "c", "--", "sleep", "1000"]);
    let held: Vec<UnixStream> = (0..blitty_mux::server::MAX_CLIENTS).map(|_| s.connect()).collect();
    // Full at first; within some seconds the silent ones are closed and the server takes
    // requests again.
    wait_until(|| s.run(&["ls"]).status.success());
    let out = s.run(&["ls"]);
    assert!(out.status.success(), "{out:?}");
    drop(held);
    s.ok(&["kill", "c"]);
}

#[test]
fn a_programs_name_on_the_status_row_and_in_the_list_is_shown_escaped() {
    let s = Server::new("status-names");
    let bin = s.dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let evil = bin.join("ev\u{202e}live\u{200b}\x1b]2;PWN\x07x");
    std::os::unix::fs::symlink("/bin/sleep", &evil).unwrap();
    s.ok(&["new", "-d", "-s", "h", "--", &evil.display().to_string(), "1000"]);
    let mut c = Raw::attach(&s, "h", 100, 24);
    assert!(c.wait_screen(|text| text.contains("[h] 0:"), Duration::from_secs(30)), "{}", c.text());
    let text = c.text();
    assert!(text.contains("ev\\u{202e}live\\u{200b}\\x1b]2;PWN\\x07x"), "{text}");
    assert!(!text.contains('\u{202e}') && !text.contains('\u{200b}'), "{text}");
    // The list of vtys (prefix w) too.
    c.send(&Msg::Input(b"\x1dw".to_vec()));
    assert!(c.wait_screen(|text| text.contains("> 0: ev\\u{202e}"), Duration::from_secs(30)), "{}", c.text());
    s.ok(&["kill", "h"]);
}
