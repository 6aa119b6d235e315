//! Feeds a file to an 80x24 terminal with 10,000 lines of scrollback in 4 KiB pieces, as the
//! event loop does, either whole (`feed`) or bounded by a turn's work (`feed_bounded` with
//! [`WORK_PER_TURN`]), to compare the two under callgrind, whose instruction counts stay
//! steady on a busy machine where wall-clock time does not.
//! `cargo run --release -p blitty-vt --example bounded_cost -- feed|bounded FILE`.

use blitty_vt::{Terminal, WORK_PER_TURN};

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_default();
    let path = args.next().expect("usage: bounded_cost feed|bounded FILE");
    let data = std::fs::read(&path).expect("read the file");
    let mut t = Terminal::with_scrollback(80, 24, 10_000);
    let bounded = match mode.as_str() {
        "feed" => false,
        "bounded" => true,
        _ => panic!("mode: feed or bounded"),
    };
    for piece in data.chunks(4096) {
        if bounded {
            let mut rest = piece;
            while !rest.is_empty() {
                let n = t.feed_bounded(rest, WORK_PER_TURN);
                rest = &rest[n..];
            }
        } else {
            t.feed(piece);
        }
    }
    std::hint::black_box(&t);
    eprintln!("{} bytes", data.len());
}
