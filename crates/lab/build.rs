//! Builds the C probes, and links libvterm (Neovim's engine, Debian's libvterm-dev) when pkg-config finds it, so the
//! benchmark can measure it; without it, libvterm is reported as "not installed".
fn main() {
    // The C probes of the seed experiments, linked into the lab and run by `blitty probe`.
    println!("cargo::rerun-if-changed=probes");
    cc::Build::new().file("probes/stdio.c").file("probes/writes.c").warnings(true).compile("blitty_probes");
    println!("cargo::rustc-check-cfg=cfg(has_libvterm)");
    println!("cargo::rerun-if-changed=build.rs");
    let probe = std::process::Command::new("pkg-config").args(["--libs", "vterm"]).output();
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
