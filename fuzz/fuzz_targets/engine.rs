//! Fuzzes the parser and screen together: the first bytes choose the size and how the input
//! is split; the engine must not panic, and the cursor must stay on the screen.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let cols = 1 + data[0] as usize % 120;
    let rows = 1 + data[1] as usize % 50;
    let split = data[2] as usize;
    let resize_at = data[3] as usize;
    let input = &data[4..];
    let mut t = blitty_vt::Terminal::with_scrollback(cols, rows, 64);
    for (i, chunk) in input.chunks(split.max(1)).enumerate() {
        t.feed(chunk);
        if i == resize_at {
            t.resize(1 + (cols * 7 + 3) % 120, 1 + (rows * 5 + 1) % 50);
        }
        let c = t.screen().cursor();
        assert!(c.x < t.screen().cols() && c.y < t.screen().rows());
    }
    let _ = t.take_replies();
    let _ = t.screen().dump_text();
});
