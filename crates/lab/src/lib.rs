//! # blitty-lab: the benchmarks
//!
//! Speed is measured here, side by side in one run, never in unit tests. This room may do I/O
//! and time things; it never changes the engine's behaviour.
//!
//! The layout:
//! - **Experiments**, one top-level module each, named after `blitty bench NAME`:
//!   `engine_bench`, `run_bench`, `stdio_bench`, `writes_bench`, `scroll_bench`,
//!   `stones_bench`, `ports_bench`, `sessions_bench` and `window_bench`. Each runs its
//!   measurements and writes its tables, chart and verdicts. A part that serves one
//!   experiment only is a child of its module: `sessions_bench::screen_peer` (GNU screen as
//!   the second peer), `window_bench::latency` (key to pixels, drawings counted).
//! - **Shared helpers**, in `common`: programs on PATH and tmux or screen as hosts, pty
//!   readers, the texts several experiments write and the script that times them, the X
//!   server, another process's CPU and memory, medians, serial lines played by pty pairs.
//! - **Shared infrastructure** the experiments build on: `terminals` (the targets the seed
//!   experiments write into), `probes` (programs run in a child process), `workloads`
//!   (generated text and the recorded corpus), `peers` (the engines compared), `xproxy` (a
//!   counting X proxy) and `ports` (the multi-port serial receiver that `bench ports`
//!   measures).
//! - **Reports**: `report` (an experiment's context and section, headers, the files written)
//!   and `charts` (SVG).
//! - `cli`: `blitty-lab bench`'s arguments, and the dispatch to each experiment.
//!
//! The rule: no experiment imports another, and nothing but `cli` imports an experiment, so
//! that each can be read, changed or removed alone; what two experiments both need moves into
//! `common`. The references between modules form no cycle. A test (`layout_check`) reads the
//! sources and fails on either.

pub mod charts;
pub mod cli;
pub mod common;
pub mod engine_bench;
pub mod peers;
pub mod ports;
pub mod ports_bench;
pub mod probes;
pub mod report;
pub mod run_bench;
pub mod scroll_bench;
pub mod sessions_bench;
pub mod stdio_bench;
pub mod stones_bench;
pub mod terminals;
pub mod window_bench;
pub mod workloads;
pub mod writes_bench;
pub mod xproxy;

#[cfg(test)]
mod layout_check;
