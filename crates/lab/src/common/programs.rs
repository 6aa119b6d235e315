//! The programs the benches run that may not be installed: whether one is on PATH, and tmux
//! and GNU screen started as the host of a command (attached to the pty they are started on,
//! as a user's would be), each on a server of its own whose traces are removed afterwards.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Whether `program` is on PATH (as the shell finds it).
pub(crate) fn which(program: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {program}"))
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The directory tmux keeps its sockets in: `$TMUX_TMPDIR/tmux-UID` (`/tmp` by default).
pub fn tmux_socket_dir() -> PathBuf {
    let base = std::env::var_os("TMUX_TMPDIR").unwrap_or_else(|| "/tmp".into());
    Path::new(&base).join(format!("tmux-{}", rustix::process::getuid().as_raw()))
}

/// Removes the socket files of the tmux servers this process started (`blitty-bench-*` names
/// that carry its process id). tmux 3.3 leaves its socket file behind when its server ends,
/// whether by `kill-server` or by its last session ending, so without this every bench run
/// would leave a dozen files in the user's tmux directory.
pub(crate) fn remove_tmux_sockets() {
    let pid = std::process::id();
    let (end, inner) = (format!("-{pid}"), format!("-{pid}-"));
    let Ok(entries) = std::fs::read_dir(tmux_socket_dir()) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("blitty-bench-") && (name.ends_with(&end) || name.contains(&inner)) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// tmux running `cmd` in one 80x24 window on its own server (`socket`), attached to the pty it
/// is started on, as a user's would be. Every experiment runs tmux this way: the status line is
/// off, so the program gets all 24 rows as it does in the other terminals.
pub(crate) fn tmux_argv(dir: &Path, socket: &str, cmd: &str) -> Result<Vec<String>, String> {
    if !which("tmux") {
        return Err("not installed (apt-get install tmux)".into());
    }
    let conf = dir.join("tmux.conf");
    std::fs::write(&conf, "set -g status off\nset -g default-terminal tmux-256color\n").map_err(|e| e.to_string())?;
    Ok(["tmux", "-L", socket, "-f", &conf.display().to_string(), "new-session", "-x", "80", "-y", "24", cmd]
        .iter()
        .map(|s| s.to_string())
        .collect())
}

/// GNU screen running `cmd` in the pty it is started on (attached, as a user's), with no
/// startup message; an error when screen is not installed.
pub(crate) fn screen_argv(dir: &Path, cmd: &str) -> Result<Vec<String>, String> {
    if !which("screen") {
        return Err("not installed (apt-get install screen)".into());
    }
    let rc = dir.join("screenrc");
    std::fs::write(&rc, "startup_message off\n").map_err(|e| e.to_string())?;
    let name = format!("blitty-bench-{}", std::process::id());
    Ok(["screen", "-c", &rc.display().to_string(), "-S", &name, "sh", "-c", cmd]
        .iter()
        .map(|s| s.to_string())
        .collect())
}
