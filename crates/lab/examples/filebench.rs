//! Engine throughput on any files, against the peer engines, as `bench engine` measures its
//! own workloads: 80x24, 10,000 lines of scrollback, 64 KiB chunks, a fresh engine per run, the
//! engines taking turns, medians of 9. For text made outside the bench (another program's
//! output, a language's text).
//! `cargo run --release -p blitty-lab --example filebench FILE...`
use blitty_lab::{engine_bench, peers};

const RUNS: usize = 9;

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: filebench FILE...");
        std::process::exit(2);
    }
    let peers = peers::all();
    for f in files {
        let data = match std::fs::read(&f) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("filebench: {f}: {e}");
                std::process::exit(2);
            }
        };
        let mbps = engine_bench::throughput(&peers, &data, RUNS, |_, _| {});
        let mut line = format!("{f} ({} KB):", data.len() / 1000);
        for (p, m) in peers.iter().zip(&mbps) {
            match m {
                Some(m) => line += &format!(" {} {m:.0} MB/s;", p.name),
                None => line += &format!(" {} missing;", p.name),
            }
        }
        let of = |name: &str| peers.iter().position(|p| p.name == name).and_then(|i| mbps[i]);
        if let (Some(b), Some(a)) = (of("blitty"), of("alacritty_terminal")) {
            line += &format!(" blitty / alacritty_terminal {:.2}x", b / a);
        }
        println!("{line}");
    }
}
