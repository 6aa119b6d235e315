//! # blitty-present: presenters
//!
//! A presenter turns the engine's screen into what a real screen shows. [`ansi`] writes
//! frames for a host terminal: the smallest run of escape sequences that turns what the host
//! shows into the engine's screen, generated from blitty's own model (never forwarded program
//! output), so hostile output cannot reach the host terminal's parser.
//!
//! This room does no I/O: it fills byte buffers that the event loop writes.

pub mod ansi;
mod sgr;
pub mod view;

pub use ansi::AnsiPresenter;
pub use view::View;
