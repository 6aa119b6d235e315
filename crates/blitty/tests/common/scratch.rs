//! Files and directories a test makes in the temporary directory, removed when the test ends,
//! whether it passed or not: a test run leaves nothing behind.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

pub struct Scratch(PathBuf);

impl Scratch {
    /// `$TMPDIR/blitty-{name}-{pid}`, removed first if an earlier run left it.
    pub fn new(name: &str) -> Scratch {
        let path = std::env::temp_dir().join(format!("blitty-{name}-{}", std::process::id()));
        let scratch = Scratch(path);
        scratch.remove();
        scratch
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    fn remove(&self) {
        if self.0.is_dir() {
            let _ = std::fs::remove_dir_all(&self.0);
        } else {
            let _ = std::fs::remove_file(&self.0);
        }
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<OsStr> for Scratch {
    fn as_ref(&self) -> &OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        self.remove();
    }
}
