//! A bench killed by a signal leaves no X server behind: `blitty-lab bench run --targets xterm`
//! is started for real, and once its Xvfb is up the bench is sent SIGTERM (which skips every
//! Drop); the Xvfb must then end too. Needs Xvfb and xterm (scripts/setup.sh installs them).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const LAB: &str = env!("CARGO_BIN_EXE_blitty-lab");

/// The children of `parent` named `name`, from /proc.
fn children_named(parent: u32, name: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        // pid (comm) state ppid ...: comm may hold spaces, so split after its closing paren.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else { continue };
        let comm = &stat[open + 1..close];
        let ppid = stat[close + 1..].split_whitespace().nth(1).and_then(|p| p.parse::<u32>().ok());
        if comm == name && ppid == Some(parent) {
            found.push(pid);
        }
    }
    found
}

fn alive(pid: u32) -> bool {
    // A zombie has ended; only its parent's wait is left (and its parent is gone here).
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rfind(')').and_then(|c| s[c + 1..].split_whitespace().next().map(|st| st != "Z")).unwrap_or(false)
    })
}

#[test]
fn a_bench_killed_with_sigterm_leaves_no_xvfb_running() {
    let out = std::env::temp_dir().join(format!("blitty-xvfb-cleanup-{}", std::process::id()));
    let mut lab = Command::new(LAB)
        .args(["bench", "run", "--quick", "--targets", "xterm", "--out"])
        .arg(&out)
        // The blitty rows are never reached: the bench is killed once its server is up.
        .env("BLITTY_BIN", "/bin/true")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("blitty-lab");
    let lab_pid = lab.id();
    let deadline = Instant::now() + Duration::from_secs(60);
    let xvfb = loop {
        if let Some(&pid) = children_named(lab_pid, "Xvfb").first() {
            break pid;
        }
        if let Some(status) = lab.try_wait().unwrap() {
            panic!(
                "the bench ended ({status}) before its Xvfb was seen: are Xvfb and xterm installed (scripts/setup.sh)?"
            );
        }
        assert!(Instant::now() < deadline, "no Xvfb under the bench after 60 s");
        std::thread::sleep(Duration::from_millis(10));
    };
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(lab_pid as i32).unwrap(),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    let _ = lab.wait();
    let _ = std::fs::remove_dir_all(std::env::temp_dir().join(format!("blitty-bench-run-{lab_pid}")));
    let _ = std::fs::remove_dir_all(&out);
    let deadline = Instant::now() + Duration::from_secs(20);
    while alive(xvfb) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    let still = alive(xvfb);
    if still {
        let _ = Command::new("kill").arg(xvfb.to_string()).status();
    }
    assert!(!still, "Xvfb ({xvfb}) was still running 20 s after its bench was killed with SIGTERM");
}
