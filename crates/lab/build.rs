//! Builds the C probes, and links libvterm (Neovim's engine, Debian's libvterm-dev) when pkg-config finds it, so the
//! benchmark can measure it; without it, libvterm is reported as "not installed".
use std::path::Path;
use std::process::Command;

fn main() {
    // The C probes of the seed experiments, linked into the lab and run by `blitty-lab probe`.
    println!("cargo::rerun-if-changed=probes");
    cc::Build::new().file("probes/stdio.c").file("probes/writes.c").warnings(true).compile("blitty_probes");
    println!("cargo::rustc-check-cfg=cfg(has_libvterm)");
    println!("cargo::rerun-if-changed=build.rs");
    watch_pkg_config_dirs();
    let probe = Command::new("pkg-config").args(["--libs", "vterm"]).output();
    if let Ok(out) = probe {
        if out.status.success() {
            for flag in String::from_utf8_lossy(&out.stdout).split_whitespace() {
                if let Some(dir) = flag.strip_prefix("-L") {
                    println!("cargo::rustc-link-search=native={dir}");
                } else if let Some(lib) = flag.strip_prefix("-l") {
                    println!("cargo::rustc-link-lib={lib}");
                }
            }
            println!("cargo::rustc-cfg=has_libvterm");
        }
    }
}

/// Runs this script again when a library is installed or removed after the first build: a
/// package adds or removes its `.pc` file in one of pkg-config's directories, which changes
/// the directory. (Without this, libvterm installed after a first build stayed "not installed"
/// in the benchmark until a clean build.)
fn watch_pkg_config_dirs() {
    for var in ["PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR"] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    let default = Command::new("pkg-config").args(["--variable", "pc_path", "pkg-config"]).output();
    let default = default.map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default();
    let from_env = ["PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR"].map(|v| std::env::var(v).unwrap_or_default());
    for dir in from_env.iter().map(String::as_str).chain([default.as_str()]).flat_map(|p| p.split(':')) {
        if !dir.is_empty() && Path::new(dir).is_dir() {
            println!("cargo::rerun-if-changed={dir}");
        }
    }
}
