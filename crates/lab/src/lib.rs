//! # blitty-lab: the benchmarks
//!
//! Workload generators, adapters for peer engines (alacritty_terminal, vt100, libvterm when
//! installed), and reports. Speed is measured here, side by side in one run, never in unit
//! tests. This room may do I/O and time things; it never changes the engine's behaviour.

pub mod charts;
pub mod cli;
pub mod engine_bench;
pub mod peers;
pub mod ports;
pub mod ports_bench;
pub mod probes;
pub mod report;
pub mod run_bench;
pub mod screen_peer;
pub mod scroll_bench;
pub mod sessions_bench;
pub mod stdio_bench;
pub mod stones_bench;
pub mod terminals;
pub mod window_bench;
pub mod window_latency;
pub mod workloads;
pub mod writes_bench;
pub mod xproxy;
mod xvfb;
