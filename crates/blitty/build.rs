//! Records the git commit blitty is built from, for `blitty --version` ("unknown" outside a git
//! checkout, as when built from a source archive).
fn main() {
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    let dirty = std::process::Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .is_some_and(|o| !o.stdout.is_empty());
    println!("cargo::rustc-env=BLITTY_COMMIT={commit}{}", if dirty { "-modified" } else { "" });
    // Rebuilt when the checked-out commit changes.
    if let Ok(top) = std::process::Command::new("git").args(["rev-parse", "--git-dir"]).output() {
        let dir = String::from_utf8_lossy(&top.stdout).trim().to_string();
        if !dir.is_empty() {
            println!("cargo::rerun-if-changed={dir}/HEAD");
            println!("cargo::rerun-if-changed={dir}/refs/heads");
            println!("cargo::rerun-if-changed={dir}/index");
        }
    }
    println!("cargo::rerun-if-changed=build.rs");
}
