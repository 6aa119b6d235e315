//! # blitty-os: the operating-system layer
//!
//! What every front end needs from the system, and nothing about terminals' contents: a pty
//! with a child on it ([`pty`]); the host terminal in raw mode, always given back as it was,
//! whatever the end ([`host`], [`restore`]); signals as events ([`signals`]); the one poll loop
//! shape ([`event`]); the reader thread that moves a program's output in large chunks
//! ([`reader`]); output written to a display without blocking ([`output`]); when frames may go
//! ([`pace`]); and the process's costs ([`stats`]).
//!
//! It may use the engine's types (sizes, colours) and the presenter's reset strings, but it
//! parses no output, builds no frames, knows no keys, and links no font rasteriser.

pub mod event;
pub mod host;
pub mod output;
pub mod pace;
pub mod pty;
pub mod reader;
pub mod restore;
pub mod signals;
pub mod stats;
pub mod status;
pub mod time;
