//! A blitty session server of a test's own: its own runtime and config directory (so tests
//! never share a server), ended when the test ends.
#![allow(dead_code)]

use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use super::scratch::Scratch;

pub const BLITTY: &str = env!("CARGO_BIN_EXE_blitty");

pub struct Server {
    pub dir: Scratch,
}

impl Server {
    pub fn new(name: &str) -> Server {
        let dir = Scratch::new(&format!("server-{name}"));
        std::fs::create_dir_all(&dir).expect("runtime dir");
        Server { dir }
    }

    /// The environment blitty runs in, as a shell's words.
    pub fn env(&self) -> String {
        format!("env SHELL=/bin/sh XDG_RUNTIME_DIR={} XDG_CONFIG_HOME={}", self.dir.display(), self.dir.display())
    }

    /// A shell command line running blitty with this server, the pane kept afterwards (tmux
    /// 3.3 shows a dead pane's last output blank).
    pub fn cmd(&self, args: &str) -> String {
        format!("sh -c '{} {BLITTY} {args}; sleep 1000'", self.env())
    }

    /// Runs blitty to completion (no terminal).
    pub fn run(&self, args: &[&str]) -> std::process::Output {
        Command::new(BLITTY)
            .args(args)
            .env("XDG_RUNTIME_DIR", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path())
            .env("SHELL", "/bin/sh")
            .output()
            .expect("blitty runs")
    }

    /// Runs blitty and requires it to succeed.
    pub fn ok(&self, args: &[&str]) {
        let out = self.run(args);
        assert!(out.status.success(), "blitty {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }

    pub fn ls(&self) -> String {
        String::from_utf8_lossy(&self.run(&["ls"]).stdout).into_owned()
    }

    /// Waits until `blitty ls` shows `needle` (at most 30 s); returns the last listing.
    pub fn wait_ls(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let ls = self.ls();
            if ls.contains(needle) || Instant::now() > deadline {
                return ls;
            }
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    pub fn socket_dir(&self) -> PathBuf {
        self.dir.join("blitty")
    }

    pub fn socket(&self) -> PathBuf {
        self.socket_dir().join("default")
    }

    /// The server's pid (its command line names the socket).
    pub fn pid(&self) -> i32 {
        let out = Command::new("pgrep")
            .args(["-f", &format!("server --socket {}", self.socket().display())])
            .output()
            .expect("pgrep");
        String::from_utf8_lossy(&out.stdout).lines().next().and_then(|l| l.trim().parse().ok()).expect("server pid")
    }

    pub fn connect(&self) -> UnixStream {
        UnixStream::connect(self.socket()).expect("the server's socket")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Every server whose socket is under this test's directory (socket_dir may move it).
        let _ = Command::new("pkill").args(["-f", &format!("server --socket {}/", self.dir.display())]).status();
    }
}
