//! Fuzzes what the session server does first with a client's bytes: splitting the stream into
//! frames under the client limit and decoding each. Nothing may panic (overflow checks are on:
//! see fuzz/README.md); an error ends the stream as it ends the connection; every message
//! decoded encodes back to a frame that decodes to the same message.
#![no_main]

use blitty_mux::proto::{self, Frames, MAX_CLIENT_FRAME};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&split, stream)) = data.split_first() else { return };
    let mut frames = Frames::with_max(MAX_CLIENT_FRAME);
    for read in stream.chunks(1 + split as usize) {
        frames.push(read);
        loop {
            match frames.next_msg() {
                Ok(Some(msg)) => {
                    let mut again = Vec::new();
                    proto::encode(&msg, &mut again);
                    let back = proto::decode(&again[4..]).expect("an encoded message decodes");
                    assert_eq!(back, msg);
                }
                Ok(None) => break,
                Err(_) => return,
            }
        }
        assert!(frames.pending() <= MAX_CLIENT_FRAME + 4 + read.len());
    }
});
