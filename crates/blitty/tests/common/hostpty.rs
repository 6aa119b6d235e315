//! A pty as the user's terminal, played by blitty's own engine: every byte blitty writes to it
//! is kept and parsed, so a test can ask for *every* mode the host ends up in (tmux 3.3's
//! formats do not show focus events, bracketed paste or the cursor shape), and read the host
//! tty's termios before and after.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use blitty_vt::Terminal;
use rustix::termios::{tcgetattr, tcsetwinsize, Termios, Winsize};

pub struct HostPty {
    master: File,
    /// The host tty's termios (`termios_key`) before blitty started.
    pub before: String,
    pub child: Child,
    /// Everything blitty wrote, and the host screen it makes.
    seen: Arc<Mutex<(Vec<u8>, Terminal)>>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl HostPty {
    /// Starts `blitty ARGS` with a new pty (80x24, cooked as a login terminal is) as its
    /// standard input, output and error.
    pub fn spawn(blitty: &str, args: &[&str]) -> HostPty {
        HostPty::spawn_ignoring(blitty, args, &[])
    }

    /// [`HostPty::spawn`], with blitty started with `ignored` signals ignored (as a background
    /// job of a script starts with SIGINT and SIGQUIT ignored, or `nohup` with SIGHUP).
    pub fn spawn_ignoring(blitty: &str, args: &[&str], ignored: &'static [i32]) -> HostPty {
        HostPty::spawn_with(blitty, args, ignored, None)
    }

    /// [`HostPty::spawn`] with a host that answers queries (DA1, OSC 10/11 from these default
    /// colours), as a real terminal does.
    pub fn spawn_answering(blitty: &str, args: &[&str], colours: ([u8; 3], [u8; 3])) -> HostPty {
        HostPty::spawn_with(blitty, args, &[], Some(colours))
    }

    fn spawn_with(blitty: &str, args: &[&str], ignored: &'static [i32], answer: Option<([u8; 3], [u8; 3])>) -> HostPty {
        let (master, slave) = blitty_os::pty::pair().expect("a pty");
        let slave_fd: OwnedFd =
            rustix::fs::open(&slave, rustix::fs::OFlags::RDWR | rustix::fs::OFlags::NOCTTY, rustix::fs::Mode::empty())
                .expect("open the slave");
        tcsetwinsize(&slave_fd, Winsize { ws_row: 24, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0 }).expect("winsize");
        let before = termios_key(&tcgetattr(&master).expect("tcgetattr"));
        let mut cmd = Command::new(blitty);
        cmd.args(args)
            .env("TERM", "xterm-256color")
            .stdin(Stdio::from(slave_fd.try_clone().expect("dup")))
            .stdout(Stdio::from(slave_fd.try_clone().expect("dup")))
            .stderr(Stdio::from(slave_fd));
        // SAFETY: setsid and signal are async-signal-safe; the child gets a session of its own
        // so that signals meant for the test runner do not reach it.
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(move || {
                for &sig in ignored {
                    libc::signal(sig, libc::SIG_IGN);
                }
                rustix::process::setsid().map(|_| ()).map_err(Into::into)
            });
        }
        let child = cmd.spawn().expect("blitty starts");
        let master = File::from(master);
        let mut host = Terminal::with_scrollback(80, 24, 1000);
        if let Some((fg, bg)) = answer {
            host.screen_mut().set_default_colors(fg, bg);
        }
        let seen = Arc::new(Mutex::new((Vec::new(), host)));
        let reader = {
            let seen = Arc::clone(&seen);
            let mut m = master.try_clone().expect("dup master");
            let answers = answer.is_some();
            std::thread::spawn(move || {
                let mut buf = [0u8; 65536];
                // Ends with EIO once every slave descriptor is closed.
                while let Ok(n) = m.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    let mut s = seen.lock().expect("lock");
                    s.0.extend_from_slice(&buf[..n]);
                    s.1.feed(&buf[..n]);
                    let replies = s.1.take_replies();
                    if answers && !replies.is_empty() {
                        let _ = m.write_all(&replies);
                    }
                }
            })
        };
        HostPty { master, before, child, seen, reader: Some(reader) }
    }

    /// The host tty's settings (a pty's master and slave share them).
    pub fn termios(&self) -> Termios {
        tcgetattr(&self.master).expect("tcgetattr")
    }

    pub fn send(&self, bytes: &[u8]) {
        (&self.master).write_all(bytes).expect("write to the host pty");
    }

    /// The host's screen as text.
    pub fn screen(&self) -> String {
        self.seen.lock().expect("lock").1.screen().dump_text()
    }

    /// Waits (at most 20 s) until the host's screen contains `needle`; panics with the screen.
    pub fn wait_for(&self, needle: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !self.screen().contains(needle) {
            assert!(Instant::now() < deadline, "never showed {needle:?}; the host shows:\n{}", self.screen());
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits (at most 20 s) for blitty to end, then for its last bytes; panics with the screen.
    pub fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("try_wait") {
                break s;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("blitty did not end; the host shows:\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        if let Some(r) = self.reader.take() {
            let _ = r.join();
        }
        status
    }

    /// Everything blitty wrote to the host, and the modes the host is left in.
    pub fn output(&self) -> (Vec<u8>, blitty_vt::Modes, bool) {
        let s = self.seen.lock().expect("lock");
        (s.0.clone(), *s.1.screen().modes(), s.1.screen().alternate_screen())
    }
}

impl Drop for HostPty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The termios fields blitty must give back, for comparison.
pub fn termios_key(t: &Termios) -> String {
    format!(
        "iflag {:?} oflag {:?} cflag {:?} lflag {:?} ispeed {} ospeed {} vmin {} vtime {}",
        t.input_modes,
        t.output_modes,
        t.control_modes,
        t.local_modes,
        t.input_speed(),
        t.output_speed(),
        t.special_codes[rustix::termios::SpecialCodeIndex::VMIN],
        t.special_codes[rustix::termios::SpecialCodeIndex::VTIME]
    )
}
