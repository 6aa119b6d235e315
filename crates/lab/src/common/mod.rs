//! What several experiments use, kept in one place so that no experiment reaches into another
//! for it:
//! - [`programs`] finds a program on PATH, and starts tmux and GNU screen as the host of a
//!   command, each on a server of its own;
//! - [`pty`] runs a program on a pty whose master the bench reads;
//! - [`texts`] makes the texts several experiments write (flood files, the syscons console post's lines), and
//!   the shell script that times writing one;
//! - [`xvfb`] is the benches' X server, and starts terminals on it;
//! - [`procs`] reads another process's CPU time and resident memory from /proc;
//! - [`stats`] takes medians;
//! - [`lines`] plays serial lines with pty pairs, sends at their rate and checks what arrived.
//!
//! Nothing here knows an experiment: the experiments import it, never the other way round.

pub mod lines;
pub mod procs;
pub mod programs;
pub mod pty;
pub mod stats;
pub mod texts;
pub mod xvfb;
