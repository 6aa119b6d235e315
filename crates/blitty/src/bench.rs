//! `blitty bench`: runs `blitty-lab bench`, the benchmark lab, which is a program of its own so
//! that this binary carries no peer engine (alacritty_terminal, vt100, libvterm) and no
//! allocator of the lab's. The lab is looked for beside this binary (where cargo builds both),
//! then on PATH; it is told where this `blitty` is (`BLITTY_BIN`), to measure it.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;

use anyhow::{anyhow, Result};

#[derive(clap::Args)]
#[command(disable_help_flag = true)]
pub struct Args {
    /// What `blitty-lab bench` takes: an experiment (all, engine, run, stdio, writes, scroll,
    /// stones, ports, sessions), --quick, --targets LIST, --out DIR, --json, --help.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "ARGS")]
    args: Vec<OsString>,
}

/// Where `blitty-lab` is: beside this binary, else the first on PATH.
fn find_lab() -> Option<PathBuf> {
    let beside = std::env::current_exe().ok().map(|exe| exe.with_file_name("blitty-lab")).filter(|p| p.is_file());
    beside.or_else(|| {
        std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join("blitty-lab")).find(|p| p.is_file())
    })
}

/// Replaces this process with the lab (returns only on failure).
pub fn run(args: Args) -> Result<i32> {
    let lab = find_lab().ok_or_else(|| {
        anyhow!(
            "blitty bench needs blitty-lab, the benchmark lab, beside blitty or on PATH: \
             build it with `cargo build --release -p blitty-lab` (or install it with `cargo install --path crates/lab`)"
        )
    })?;
    let me = std::env::current_exe().map_err(|e| anyhow!("cannot find this blitty binary: {e}"))?;
    let err = std::process::Command::new(&lab).arg("bench").args(&args.args).env("BLITTY_BIN", me).exec();
    Err(anyhow!("cannot start {}: {err}", lab.display()))
}
