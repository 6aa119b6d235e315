//! How long the renderer takes to draw a screen of text whose glyphs are all cached (each cell
//! a cache hit), the work of every frame of a busy terminal. Run by hand:
//! `cargo run --release -p blitty-pixel --example render_speed`.

use std::time::Instant;

use blitty_pixel::{Fonts, Renderer};
use blitty_vt::Terminal;

fn main() {
    let (cols, rows, frames) = (160, 50, 400);
    let mut t = Terminal::new(cols, rows);
    let words = "the quick brown fox jumps over the lazy dog 0123456789 {}[]()<>=+-*/ ";
    let mut text = String::new();
    for i in 0..rows {
        let sgr = ["", "\x1b[1m", "\x1b[3m", "\x1b[31m"][i % 4];
        let line: String = words.chars().cycle().skip(i * 7).take(cols).collect();
        text.push_str(&format!("\x1b[{};1H{sgr}{line}\x1b[0m", i + 1));
    }
    t.feed(text.as_bytes());
    let fonts = Fonts::find("DejaVu Sans Mono", 12.0, 1.0).expect("DejaVu Sans Mono");
    let mut r = Renderer::new(fonts, cols, rows);
    r.render(t.screen());
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let start = Instant::now();
        for _ in 0..frames {
            r.invalidate();
            r.render(t.screen());
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    let cells = (cols * rows * frames) as f64;
    println!(
        "{cols}x{rows} cells, {frames} full frames: best of 5 {:.3} s, {:.2} ms a frame, {:.1} ns a cell",
        best,
        best * 1e3 / frames as f64,
        best * 1e9 / cells
    );
}
