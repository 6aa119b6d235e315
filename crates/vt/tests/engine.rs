//! The engine's integration tests, linked as one test binary (see Cargo.toml): the
//! hostile-input suite, reflow on resize, and the robustness properties, each in its own file.

// Shared by the files below (a random generator), declared once.
mod common;

#[path = "hostile.rs"]
mod hostile;
#[path = "reflow.rs"]
mod reflow;
#[path = "robustness.rs"]
mod robustness;
