//! Engine throughput on any files, against the peer engines, as `bench engine` measures its
//! own workloads: 80x24, 10,000 lines of scrollback, 64 KiB chunks, a fresh engine per run, the
//! engines taking turns, medians of 9. For text made outside the bench (another program's
//! output, a language's text).
//! `cargo run --release -p blitty-lab --example filebench FILE...`
use blitty_lab::peers;
use std::time::Instant;

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
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); peers.len()];
        for round in 0..RUNS {
            for k in 0..peers.len() {
                let at = (round + k) % peers.len();
                let Some(make) = peers[at].make else { continue };
                let mut e = make(80, 24, 10_000);
                let t = Instant::now();
                for chunk in data.chunks(64 << 10) {
                    e.feed(chunk);
                }
                times[at].push(t.elapsed().as_secs_f64());
                std::hint::black_box(&e);
            }
        }
        let mbps: Vec<Option<f64>> = times
            .into_iter()
            .map(|mut t| {
                t.sort_by(|a, b| a.total_cmp(b));
                t.get(t.len() / 2).map(|m| data.len() as f64 / 1e6 / m)
            })
            .collect();
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
