//! The lab's integration tests, linked as one test binary (see Cargo.toml), each in its own
//! file: the engine against its peers and tmux's renderings, reflow against alacritty_terminal,
//! `blitty-lab workload`, and the benches' X server ending with them.

#[path = "differential.rs"]
mod differential;
#[path = "reflow_vs_alacritty.rs"]
mod reflow_vs_alacritty;
#[path = "reflow_vs_tmux.rs"]
mod reflow_vs_tmux;
#[path = "workload_command.rs"]
mod workload_command;
#[path = "xvfb_cleanup.rs"]
mod xvfb_cleanup;
