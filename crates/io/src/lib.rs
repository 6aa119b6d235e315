//! # blitty-io: ptys, the host terminal, signals and the event loop
//!
//! Everything that touches the operating system lives here: opening a pty and starting a
//! child on it ([`pty`]), putting the host terminal in raw mode and always giving it back
//! ([`host`]), turning signals into events ([`signals`]), and the event loop of `blitty run`
//! ([`session`]) that reads output in large chunks into the engine and presents frames at a
//! bounded rate; the serial console's loop ([`console`]) with its line set-up ([`serial`]) and
//! file transfer ([`xmodem`]). It does not parse terminal output (the engine does) or build frames (the
//! presenter does).

pub mod client;
pub mod console;
pub mod copymode;
pub mod event;
pub mod host;
pub mod keys;
pub mod line;
pub mod lock;
pub mod names;
pub mod ports;
pub mod proto;
pub mod pty;
pub mod queue;
pub mod reader;
pub mod restore;
pub mod serial;
pub mod server;
pub mod session;
pub mod signals;
pub mod sockdir;
pub mod text;
pub mod xmodem;
