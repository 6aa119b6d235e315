//! `blitty-lab workload`: writes the bytes `bench engine` feeds, so that a profile of the file
//! (scripts/instructions.sh) is a profile of what the bench timed.

use std::process::Command;

use blitty_lab::workloads;

#[test]
fn the_file_holds_the_bytes_the_bench_feeds_and_bad_input_is_refused() {
    let dir = std::env::temp_dir().join(format!("blitty-lab-workload-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lab = env!("CARGO_BIN_EXE_blitty-lab");
    for (i, w) in workloads::all().iter().enumerate() {
        let out = dir.join(w.name);
        let status = Command::new(lab).args(["workload", w.name, "--mb", "1", "--out"]).arg(&out).status().unwrap();
        assert!(status.success(), "{}", w.name);
        let written = std::fs::read(&out).unwrap();
        assert_eq!(written, workloads::bench_bytes(i, w, 1_000_000), "{}", w.name);
        assert!(written.len() >= 1_000_000, "{}: {} bytes", w.name, written.len());
    }
    // An unknown name, a size past its maximum, an unwritable file: status 2 and one message.
    for args in [&["workload", "nope", "--out", "x"][..], &["workload", "plain", "--mb", "1001", "--out", "x"]] {
        let o = Command::new(lab).args(args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("invalid value"), "{args:?}");
    }
    let o = Command::new(lab).args(["workload", "plain", "--mb", "1", "--out", "/nonexistent/dir/x"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("blitty-lab: cannot write /nonexistent/dir/x"));
    std::fs::remove_dir_all(&dir).unwrap();
}
