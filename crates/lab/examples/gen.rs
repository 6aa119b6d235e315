//! Writes a workload's bytes to stdout: `cargo run --release -p blitty-lab --example gen NAME BYTES > FILE`
use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (name, bytes) = (&args[1], args[2].parse().expect("byte count"));
    let (i, w) =
        blitty_lab::workloads::all().into_iter().enumerate().find(|(_, w)| w.name == *name).expect("known workload");
    let data = (w.generate)(&mut blitty_lab::workloads::Rng::new(i as u64 + 1), bytes);
    std::io::stdout().write_all(&data).expect("stdout");
}
