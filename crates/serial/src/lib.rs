//! # blitty-serial: serial lines
//!
//! A serial device's settings and how a user names them ([`settings`]), opening it with its
//! settings saved and given back at every end, locked against other programs ([`lock`]), and
//! opened again when it comes back ([`line`]); file transfer by XMODEM ([`xmodem`]).
//!
//! It knows nothing of screens, keys or sessions: the core's panes read and write lines
//! through it.

pub mod line;
pub mod lock;
pub mod settings;
pub mod xmodem;
