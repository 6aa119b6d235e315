//! The benches' own X server (Xvfb), shared by every bench that draws into a window, and the
//! terminals started on it.
//!
//! - **Which display:** the server picks a free one and says which once it listens
//!   (`-displayfd`), so two benches (or a bench and a test) never fight over a number, and the
//!   bench waits on that line rather than on a sleep.
//! - **It never outlives the bench:** Drop kills it on every normal end. A bench killed by a
//!   signal runs no Drop, so the server is also started with the parent-death signal set
//!   (`PR_SET_PDEATHSIG`, SIGTERM): when the bench process goes, however it goes (Ctrl-C,
//!   SIGTERM, SIGKILL, a panic that aborts), the kernel stops its Xvfb. Without it, a `bench
//!   run` ended with SIGTERM left its Xvfb running, taking 8% of a core and disturbing the
//!   next engine runs.
//!
//! The signal comes when the thread that started the server ends, not only the process: each
//! bench starts it from its main thread, which lives as long as the bench.

use std::io::BufRead as _;
use std::os::unix::process::CommandExt as _;
use std::process::{Child, Command, Stdio};

use crate::common::programs::which;

pub(crate) struct Xvfb {
    child: Child,
    pub(crate) display: String,
}

impl Xvfb {
    /// Starts a server with one screen of `width`x`height` at 24 bits.
    pub(crate) fn start(width: u32, height: u32) -> Result<Xvfb, String> {
        if !which("Xvfb") {
            return Err("not installed (apt-get install xvfb)".into());
        }
        let mut cmd = Command::new("Xvfb");
        // -noreset: without it the server resets each time its last client goes (between two
        // terminals) and drops a connection that arrives meanwhile.
        cmd.args(["-displayfd", "1", "-screen", "0", &format!("{width}x{height}x24"), "-nolisten", "tcp", "-noreset"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        die_with_parent(&mut cmd);
        let mut child = cmd.spawn().map_err(|e| format!("cannot start Xvfb: {e}"))?;
        let mut line = String::new();
        let out = child.stdout.take().ok_or("Xvfb has no standard output")?;
        // The server closes its side if it cannot start: the read then returns nothing.
        let _ = std::io::BufReader::new(out).read_line(&mut line);
        if line.trim().is_empty() {
            let _ = child.kill();
            let _ = child.wait();
            return Err("Xvfb did not start".into());
        }
        Ok(Xvfb { child, display: format!(":{}", line.trim()) })
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A server for the benches that run xterm in it (1280x1024): not started when xterm is
    /// not installed, since nothing would draw into it.
    pub(crate) fn for_xterm() -> Result<Xvfb, String> {
        if !which("xterm") {
            return Err("not installed (apt-get install xvfb xterm)".into());
        }
        Xvfb::start(1280, 1024)
    }

    /// Runs `cmd` (a shell command) in an 80x24 xterm on this display until it ends.
    pub(crate) fn xterm(&self, cmd: &str) -> Result<(), String> {
        let status = Command::new("xterm")
            .env("DISPLAY", &self.display)
            .args(["-geometry", "80x24", "-e", "sh", "-c", cmd])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .map_err(|e| format!("cannot start xterm: {e}"))?;
        if !status.success() {
            return Err(format!("xterm failed: {status}"));
        }
        Ok(())
    }
}

/// Starts terminal `argv` on X display `display` (software OpenGL for those that use it).
pub(crate) fn spawn_on(argv: &[String], display: &str) -> Result<Child, String> {
    Command::new(&argv[0])
        .args(&argv[1..])
        .env("DISPLAY", display)
        .env("LIBGL_ALWAYS_SOFTWARE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", argv[0]))
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Makes the child started by `cmd` receive SIGTERM when the thread that starts it ends
/// (`PR_SET_PDEATHSIG`). A parent that ended between the fork and the call is caught too: the
/// child then has another parent already, and ends at once.
pub(crate) fn die_with_parent(cmd: &mut Command) {
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: prctl, getppid and _exit are async-signal-safe, as pre_exec requires; nothing
    // here allocates or takes a lock.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM as libc::c_ulong, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// The mechanism itself, with a real child: a process started with `die_with_parent` from
    /// a thread ends when that thread ends (what happens to the server when the bench process
    /// is killed, whose main thread started it). The end-to-end case (a real bench and its
    /// Xvfb, the bench killed with SIGTERM) is in tests/xvfb_cleanup.rs.
    #[test]
    fn a_child_started_to_die_with_its_parent_ends_when_the_starting_thread_ends() {
        let mut child = std::thread::spawn(|| {
            let mut cmd = Command::new("sleep");
            cmd.arg("600");
            die_with_parent(&mut cmd);
            cmd.spawn().expect("sleep")
        })
        .join()
        .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("the child (sleep 600) was still running 20 s after its starting thread ended");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        use std::os::unix::process::ExitStatusExt as _;
        assert_eq!(status.signal(), Some(libc::SIGTERM), "ended by the parent-death signal: {status:?}");
    }
}
