//! The lab's integration tests, linked as one test binary (see Cargo.toml), each in its own
//! file: the engine against its peers and tmux's renderings, reflow against alacritty_terminal
//! and tmux, `blitty-lab workload`, and the benches' X server ending with them.

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

/// blitty's engine (10,000 lines of scrollback) fed `data` at `from` (columns, rows), then
/// resized to each size of `to` in turn: the engine's side of both reflow comparisons.
fn resized_engine(data: &[u8], from: (usize, usize), to: &[(usize, usize)]) -> blitty_vt::Terminal {
    let mut t = blitty_vt::Terminal::with_scrollback(from.0, from.1, 10_000);
    t.feed(data);
    for &(c, r) in to {
        t.resize(c, r);
    }
    t
}
