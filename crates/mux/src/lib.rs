//! # blitty-mux: the core
//!
//! What every front end is made of, written once: panes (a source, its engine, its log, what
//! waits for the program), displays (where frames go, paced, without blocking), the keys (the
//! prefix, the commands, the scrollback mode, prompts and messages), sessions of vtys and the
//! server that keeps them, its client and the protocol between them. `blitty run` and
//! `blitty serial` are loops over the same parts with the user's terminal as their one display.
//!
//! It does not draw pixels: the pixel displays (the X11 window, the framebuffer console) sit
//! above it and use its client and its text model.

pub mod client;
pub mod copymode;
pub mod display;
pub mod keys;
pub mod names;
pub mod pane;
pub mod proto;
pub mod queue;
pub mod run;
pub mod serial_console;
pub mod server;
pub mod sockdir;
pub mod text;
pub mod ui;
