//! Where the session server listens, and the checks that keep another user out of it.
//!
//! The server runs every program of its user, and its client hands it keys, command lines and
//! log paths, and writes what it answers to the user's terminal. So both ends make sure the
//! other is the same user, as tmux does:
//! - the socket's directory is the user's own: a real directory (not a symbolic link), owned
//!   by the user, with no access for group or others. It is made with mode 0700 when missing
//!   (its parent must exist); one that is not safe is refused, never changed: blitty does not
//!   chmod, chown or delete what it did not make;
//! - a socket file left by a server that ended is removed only when it is a socket of the
//!   user's that no server answers;
//! - the server checks each client's uid and the client the server's (`SO_PEERCRED`).

use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

/// The directory of the sockets: `$XDG_RUNTIME_DIR/blitty`, else `/tmp/blitty-UID` (tmux's
/// choice), or the config file's `socket_dir`.
pub fn socket_dir(configured: Option<&Path>) -> PathBuf {
    if let Some(d) = configured {
        return d.to_path_buf();
    }
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d).join("blitty"),
        None => PathBuf::from(format!("/tmp/blitty-{}", uid())),
    }
}

fn uid() -> u32 {
    rustix::process::getuid().as_raw()
}

fn unsafe_dir(dir: &Path, why: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!(
            "the socket directory {} {why}; blitty uses only a directory of the user's own with mode 0700 \
             (remove it, or set socket_dir in the config file)",
            dir.display()
        ),
    )
}

/// Checks that `dir` is safe for this user's sockets (see the module's comment). `Ok(false)`
/// when it does not exist.
pub fn check(dir: &Path) -> io::Result<bool> {
    let meta = match std::fs::symlink_metadata(dir) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(io::Error::new(e.kind(), format!("the socket directory {}: {e}", dir.display()))),
    };
    if meta.file_type().is_symlink() {
        return Err(unsafe_dir(dir, "is a symbolic link".into()));
    }
    if !meta.is_dir() {
        return Err(unsafe_dir(dir, "is not a directory".into()));
    }
    if meta.uid() != uid() {
        return Err(unsafe_dir(dir, format!("belongs to uid {}, not to uid {}", meta.uid(), uid())));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(unsafe_dir(dir, format!("has mode {:04o}: group or others may use it", meta.mode() & 0o7777)));
    }
    Ok(true)
}

/// Makes `dir` with mode 0700 if it is missing (its parent must exist), then checks it.
pub fn prepare(dir: &Path) -> io::Result<()> {
    if !check(dir)? {
        match std::fs::DirBuilder::new().mode(0o700).create(dir) {
            Ok(()) => {}
            // Made meanwhile (another server starting): the check below decides.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!("cannot make the socket directory {}: {e}", dir.display()),
                ))
            }
        }
        if !check(dir)? {
            return Err(io::Error::new(io::ErrorKind::NotFound, format!("{} went away", dir.display())));
        }
    }
    Ok(())
}

/// Makes way for a new socket at `path`: nothing there, or a socket of this user's that no
/// server answers (removed). Anything else is refused and left as it is.
pub fn clear_stale(path: &Path) -> io::Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let refuse = |why: &str| {
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} {why}; blitty leaves it alone (remove it to start a server there)", path.display()),
        ))
    };
    if !meta.file_type().is_socket() {
        return refuse("is there and is not a socket");
    }
    if meta.uid() != uid() {
        return refuse(&format!("is a socket of uid {}", meta.uid()));
    }
    match UnixStream::connect(path) {
        Ok(_) => Err(io::Error::new(
            io::ErrorKind::AddrInUse,
            format!("a blitty server already answers on {}", path.display()),
        )),
        Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => std::fs::remove_file(path),
        Err(e) => Err(io::Error::new(e.kind(), format!("{}: {e}", path.display()))),
    }
}

/// The uid of the process at the other end of `stream`.
pub fn peer_uid(stream: &UnixStream) -> io::Result<u32> {
    Ok(rustix::net::sockopt::socket_peercred(stream)?.uid.as_raw())
}

/// Checks that the server at the other end of `stream` runs as this user.
pub fn check_server(stream: &UnixStream, path: &Path) -> Result<(), String> {
    match peer_uid(stream) {
        Ok(u) if u == uid() => Ok(()),
        Ok(u) => Err(format!(
            "the server on {} runs as uid {u}, not as uid {}: blitty does not talk to it",
            path.display(),
            uid()
        )),
        Err(e) => Err(format!("cannot tell who runs the server on {}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("blitty-sockdir-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_missing_directory_is_made_private_and_an_open_one_refused_unchanged() {
        let base = scratch("modes");
        let dir = base.join("s");
        prepare(&dir).unwrap();
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        let open = base.join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o1777)).unwrap();
        let e = prepare(&open).unwrap_err().to_string();
        assert!(e.contains("has mode 1777"), "{e}");
        assert_eq!(std::fs::metadata(&open).unwrap().mode() & 0o7777, 0o1777, "left as it was");
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn a_symbolic_link_is_refused_and_its_target_left_alone() {
        let base = scratch("link");
        let target = base.join("target");
        std::fs::create_dir(&target).unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(target.join("default"), b"keep").unwrap();
        let link = base.join("s");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = prepare(&link).unwrap_err().to_string();
        assert!(e.contains("is a symbolic link"), "{e}");
        assert_eq!(std::fs::metadata(&target).unwrap().mode() & 0o777, 0o755);
        assert_eq!(std::fs::read(target.join("default")).unwrap(), b"keep");
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn only_a_dead_socket_of_ours_is_cleared() {
        let base = scratch("stale");
        let file = base.join("file");
        std::fs::write(&file, b"keep").unwrap();
        assert!(clear_stale(&file).unwrap_err().to_string().contains("is not a socket"));
        assert!(file.exists());
        let sock = base.join("sock");
        let listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        assert!(clear_stale(&sock).unwrap_err().to_string().contains("already answers"));
        drop(listener);
        clear_stale(&sock).unwrap();
        assert!(!sock.exists());
        clear_stale(&sock).unwrap();
        std::fs::remove_dir_all(&base).unwrap();
    }
}
