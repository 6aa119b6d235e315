//! `blitty bench engine`: blitty's engine against its peers on each workload, in one run.
//! Every engine gets the same bytes, in 64 KiB chunks (as a terminal reading a pty), on an
//! 80x24 screen with 10,000 lines of scrollback; the median of several runs is reported.

use std::time::Instant;

use crate::peers::{self, Engine};
use crate::workloads::{self, Rng};

pub const COLS: usize = 80;
pub const ROWS: usize = 24;
pub const SCROLLBACK: usize = 10_000;
const CHUNK: usize = 65536;

pub struct Options {
    pub bytes_per_workload: usize,
    pub runs: usize,
}

pub struct Row {
    pub workload: String,
    pub about: String,
    pub bytes: usize,
    /// MB/s per engine, in `engines` order; None for an engine not installed.
    pub mbps: Vec<Option<f64>>,
}

pub struct Report {
    pub engines: Vec<(String, String)>,
    pub rows: Vec<Row>,
    /// Heap bytes each engine holds after the plain workload filled its scrollback.
    pub memory: Vec<Option<usize>>,
}

fn feed_all(engine: &mut dyn Engine, data: &[u8]) {
    for chunk in data.chunks(CHUNK) {
        engine.feed(chunk);
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

pub fn run(opts: &Options, mut progress: impl FnMut(&str)) -> Report {
    let peers = peers::all();
    let engines = peers.iter().map(|p| (p.name.to_string(), p.missing.to_string())).collect();
    let mut rows = Vec::new();
    for (i, w) in workloads::all().into_iter().enumerate() {
        let data = (w.generate)(&mut Rng::new(i as u64 + 1), opts.bytes_per_workload);
        let mut mbps = Vec::new();
        for p in &peers {
            let Some(make) = p.make else {
                mbps.push(None);
                continue;
            };
            progress(&format!("{} / {}", w.name, p.name));
            let times: Vec<f64> = (0..opts.runs)
                .map(|_| {
                    let mut e = make(COLS, ROWS, SCROLLBACK);
                    let t = Instant::now();
                    feed_all(e.as_mut(), &data);
                    let secs = t.elapsed().as_secs_f64();
                    std::hint::black_box(&e);
                    secs
                })
                .collect();
            mbps.push(Some(data.len() as f64 / 1e6 / median(times)));
        }
        rows.push(Row { workload: w.name.into(), about: w.about.into(), bytes: data.len(), mbps });
    }
    // Memory: enough plain lines to fill 10,000 lines of scrollback.
    let plain = workloads::plain_lines(&mut Rng::new(99), 1_200_000);
    let memory = peers
        .iter()
        .map(|p| {
            let make = p.make?;
            if !crate::alloc::installed() {
                return None;
            }
            progress(&format!("memory / {}", p.name));
            let before = crate::alloc::current();
            let mut e = make(COLS, ROWS, SCROLLBACK);
            feed_all(e.as_mut(), &plain);
            let held = crate::alloc::current().saturating_sub(before);
            drop(e);
            Some(held)
        })
        .collect();
    Report { engines, rows, memory }
}

/// The engine's targets, as ratios of blitty to alacritty_terminal in the same run: 10x on
/// plain lines, 2x on every escape-heavy workload, 4x on the recorded corpus; none is set for
/// the long line and mixed Unicode text.
pub fn target_for(workload: &str) -> Option<f64> {
    match workload {
        "plain" => Some(10.0),
        "corpus" => Some(4.0),
        "sgr-256" | "sgr-truecolor" | "cursor" | "region-scroll" => Some(2.0),
        _ => None,
    }
}
