//! Dumps every engine's screen after the first N bytes of a workload or file.
//! `cargo run --release -p blitty-lab --example prefix WORKLOAD|FILE SEED BYTES N`
use blitty_lab::{peers, workloads};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let data = match workloads::all().into_iter().find(|w| w.name == args[1]) {
        Some(w) => {
            (w.generate)(&mut workloads::Rng::new(args[2].parse().expect("seed")), args[3].parse().expect("bytes"))
        }
        None => std::fs::read(&args[1]).expect("readable file"),
    };
    let n: usize = args[4].parse().expect("prefix length");
    for p in peers::all() {
        if let Some(make) = p.make {
            let mut e = make(80, 24, 1000);
            e.feed(&data[..n]);
            println!("== {}\n{}", p.name, e.dump());
        }
    }
}
