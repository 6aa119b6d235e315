//! # blitty-vt: the engine
//!
//! Turns the bytes a program writes to a terminal into a screen held in memory, at memory
//! speed: a DEC/ANSI parser ([`parser`]) feeding xterm's semantics ([`term`]) into a screen
//! of compact cells ([`cell`], [`style`]) in a ring of rows ([`grid`]) that records what
//! changed (damage) for presenters to read.
//!
//! This room does no I/O (no files, ptys, clocks or threads) and has no `unsafe` outside the
//! audited SIMD scan in [`scan`]. Answers the program asked for (DSR, DA, DECRQM) are queued
//! for the host to write back ([`Terminal::take_replies`]).
//!
//! ```
//! let mut t = blitty_vt::Terminal::new(80, 24);
//! t.feed(b"hello\r\n\x1b[1;31mworld");
//! assert_eq!(t.screen().row_text(1), "world");
//! ```

pub mod cell;
pub mod cluster;
pub mod grid;
pub mod parser;
pub mod scan;
pub mod style;
pub mod term;
pub mod violation;

pub use cell::Cell;
pub use grid::{Line, LineSize};
pub use style::{Attrs, Color, Style, Underline};
pub use term::{
    default_indexed, parse_color, Cursor, CursorShape, Modes, MouseEncoding, MouseTracking, Palette, Protection, Rgb,
    Screen, Terminal, MAX_TITLE_STACK, WORK_PER_TURN,
};
