//! Prints where blitty's screen differs from each peer's, per workload and corpus stream.
//! `cargo run --release -p blitty-lab --example compare [BYTES | FILE...]`
use blitty_lab::{peers, workloads};

fn main() {
    let files: Vec<String> = std::env::args().skip(1).filter(|a| a.parse::<usize>().is_err()).collect();
    let bytes: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(20_000);
    if !files.is_empty() {
        let streams = files.iter().map(|f| (f.clone(), std::fs::read(f).expect("readable file"))).collect();
        return compare(&streams);
    }
    let mut streams: Vec<(String, Vec<u8>)> = workloads::all()
        .into_iter()
        .enumerate()
        .map(|(i, w)| (w.name.to_string(), (w.generate)(&mut workloads::Rng::new(i as u64 + 7), bytes)))
        .collect();
    for (name, raw, _) in workloads::CORPUS {
        streams.push((format!("corpus/{name}"), raw.to_vec()));
    }
    compare(&streams);
}

fn compare(streams: &Vec<(String, Vec<u8>)>) {
    for (name, data) in streams {
        let dumps: Vec<(&str, String)> = peers::all()
            .iter()
            .filter_map(|p| {
                let mut e = (p.make?)(80, 24, 1000);
                e.feed(data);
                Some((p.name, e.dump()))
            })
            .collect();
        let ours = &dumps[0].1;
        for (peer, theirs) in &dumps[1..] {
            let diff: Vec<String> = ours
                .lines()
                .zip(theirs.lines())
                .enumerate()
                .filter(|(_, (a, b))| a != b)
                .map(|(i, (a, b))| format!("    row {i}:\n      blitty: {a:?}\n      {peer}: {b:?}"))
                .collect();
            if !diff.is_empty() && std::env::var_os("DIVERGE").is_some() {
                let pi = peers::all().iter().position(|p| p.name == *peer).expect("peer listed");
                if let Some(n) = first_divergence(data, pi) {
                    let from = n.saturating_sub(60);
                    println!("  first differs after byte {n}: ...{:?}", String::from_utf8_lossy(&data[from..n]));
                }
            }
            if diff.is_empty() {
                println!("{name}: same as {peer}");
            } else {
                println!("{name}: {} rows differ from {peer}", diff.len());
                for d in diff.iter().take(2) {
                    println!("{d}");
                }
            }
        }
    }
}

/// The shortest prefix of `data` after which blitty's and the peer's screens differ.
pub fn first_divergence(data: &[u8], peer: usize) -> Option<usize> {
    let dump = |n: usize, which: usize| {
        let p = &peers::all()[which];
        let mut e = (p.make.expect("installed peer"))(80, 24, 1000);
        e.feed(&data[..n]);
        e.dump()
    };
    if dump(data.len(), 0) == dump(data.len(), peer) {
        return None;
    }
    // Screens may agree again after differing, so scan forward in steps, then narrow down.
    let mut lo = 0;
    let step = 256;
    while lo + step < data.len() && dump(lo + step, 0) == dump(lo + step, peer) {
        lo += step;
    }
    (lo..=data.len()).find(|&n| dump(n, 0) != dump(n, peer))
}
