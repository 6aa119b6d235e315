//! Fuzzes the parser and screen together: the first bytes choose the size (from 1x1), the
//! scrollback, how the input is split, when the screen is resized, whether window operations
//! (DECRQCRA) are allowed and whether chunks are fed
//! as floods (`feed_flood`, which skips lines no one will see); the engine must not panic
//! (overflow checks and debug assertions are on: see fuzz/README.md), every invariant of the
//! screen (`Screen::check_integrity`) must hold after every chunk, and a screen fed floods must
//! read the same as one fed the same chunks with `feed`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 5 {
        return;
    }
    let cols = 1 + data[0] as usize % 120;
    let rows = 1 + data[1] as usize % 50;
    let split = data[2] as usize;
    let resize_at = data[3] as usize;
    let scrollback = data[4] as usize % 4 * 20;
    let flood = data[4] & 0x80 != 0;
    // Window operations allowed: DECRQCRA's checksums, XTCHECKSUM and the size reports answer.
    let window_ops = data[4] & 0x40 != 0;
    let input = &data[5..];
    let new = || {
        let mut t = blitty_vt::Terminal::with_scrollback(cols, rows, scrollback);
        t.screen_mut().allow_window_ops(window_ops);
        t
    };
    let mut t = new();
    // Fed with `feed`, to compare a flood's screen with.
    let mut plain = flood.then(new);
    for (i, chunk) in input.chunks(split.max(1)).enumerate() {
        if let Some(p) = plain.as_mut() {
            t.feed_flood(chunk);
            p.feed(chunk);
            let (a, b) = (t.screen(), p.screen());
            assert_eq!(a.dump_text(), b.dump_text());
            assert_eq!((a.history_len(), a.history_pushed(), a.scrolled()), (b.history_len(), b.history_pushed(), b.scrolled()));
            for k in 0..a.history_len() {
                assert_eq!(a.cells_text(&a.history_row(k)), b.cells_text(&b.history_row(k)), "history row {k}");
            }
        } else {
            t.feed(chunk);
        }
        if let Err(v) = t.screen().check_integrity() {
            panic!("{v}");
        }
        // A cursor report names a position on the screen.
        let replies = t.take_replies();
        for answer in String::from_utf8_lossy(&replies).split('\x1b') {
            let Some(report) = answer.strip_prefix('[').and_then(|a| a.strip_suffix('R')) else { continue };
            let nums: Vec<usize> = report.trim_start_matches('?').split(';').filter_map(|n| n.parse().ok()).collect();
            if let [r, c] = nums[..] {
                assert!((1..=t.screen().rows()).contains(&r) && (1..=t.screen().cols()).contains(&c), "{report}");
            }
        }
        // Resized after the replies are read: a report names the size it was made at. The main
        // screen reflows; a chunk later it goes back to its size (reflow's reverse).
        if i == resize_at || i == resize_at + 1 {
            let (c, r) = if i == resize_at { (1 + (cols * 7 + 3) % 120, 1 + (rows * 5 + 1) % 50) } else { (cols, rows) };
            t.resize(c, r);
            if let Some(p) = plain.as_mut() {
                p.resize(c, r);
            }
            if let Err(v) = t.screen().check_integrity() {
                panic!("{v}");
            }
        }
    }
    let _ = t.screen().dump_text();
});
