//! What waits for a program: typed keys and the engine's answers to its queries.
//!
//! A program that does not read its input (a `sleep`, a program flooding `ESC [ c` and never
//! reading the answers) must not make blitty hold without limit what is written to it, and
//! writing to it must cost what is written, not what waits: both queues drain by moving an
//! offset, together they hold at most [`PROGRAM_INPUT_LIMIT`], and a program whose answers fill
//! half of it has its output left unread until it takes its input, as a terminal whose buffer
//! is full stops taking output. `blitty run` and the session server's vtys share it.

use blitty_vt::Terminal;

/// The most bytes that wait for the program at once: keys typed and the engine's answers to
/// its queries, which it has not read yet. A program that asks without end (`ESC [ c` in a
/// loop) and never reads its input would otherwise make blitty hold its answers without limit
/// (33 MB more in 20 s, and growing). Far above a pty's input buffer (4 KiB on Linux), so a
/// program that reads its input never meets it.
pub const PROGRAM_INPUT_LIMIT: usize = 1 << 20;

/// The program's output is parsed only while less than this of answers waits for it, as a
/// terminal whose buffer is full takes no more output: the program then waits in its write
/// until it reads its input. Answers never take more than this and one piece's worth
/// (a piece of output (4 KiB in `blitty run`, a read in the server)), so keys always find room.
pub const OUTPUT_WAITS_AT: usize = PROGRAM_INPUT_LIMIT / 2;

/// Answers are written in batches of about this many bytes, between which keys go first.
const ANSWER_BATCH: usize = 4096;

/// Bytes in order, drained by moving an offset: a program that takes its input a little at a
/// time costs what it takes, not a move of everything still waiting at each write.
#[derive(Default)]
pub struct Fifo {
    bytes: Vec<u8>,
    /// Where the bytes not written yet start.
    pub at: usize,
}

impl Fifo {
    pub fn unsent(&self) -> &[u8] {
        &self.bytes[self.at..]
    }

    pub fn len(&self) -> usize {
        self.bytes.len() - self.at
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn sent(&mut self, n: usize) {
        self.at = (self.at + n).min(self.bytes.len());
        if self.at == self.bytes.len() {
            self.bytes.clear();
            self.at = 0;
        }
    }

    pub fn push(&mut self, more: &[u8]) {
        // The written part is dropped once it is the larger part: each byte is moved at most
        // once more than it is queued.
        if self.at > 0 && self.at >= self.len() {
            self.bytes.drain(..self.at);
            self.at = 0;
        }
        self.bytes.extend_from_slice(more);
    }
}

/// What waits for the program: typed keys, and the engine's answers to its queries.
///
/// Keys go before answers that have not started: behind the answers to a program that takes
/// its input slowly, Ctrl-C took seconds to reach it (3.2 to 3.8 s in the end-to-end test);
/// ahead of them it waits at most for the batch being written (30 to 110 ms). Answers are never cut (each batch is whole answers) and a
/// paste is never split by one (keys go on while any wait). A program cannot tell the order
/// apart from a terminal that parsed its query a little later.
#[derive(Default)]
pub struct ProgramInput {
    pub keys: Fifo,
    answers: Fifo,
    /// The lengths of the answers' batches, in order, not counting `writing`.
    batches: std::collections::VecDeque<usize>,
    /// What is left to write of the batch of answers being written (0: none is).
    writing: usize,
}

impl ProgramInput {
    pub fn len(&self) -> usize {
        self.keys.len() + self.answers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What to write next: the rest of the batch of answers being written, else the keys, else
    /// the next batch.
    pub fn unsent(&self) -> &[u8] {
        let answers = if self.writing > 0 {
            self.writing
        } else if !self.keys.is_empty() {
            return self.keys.unsent();
        } else {
            self.batches.front().copied().unwrap_or(0)
        };
        &self.answers.unsent()[..answers]
    }

    /// `n` bytes of [`Self::unsent`] were written.
    pub fn sent(&mut self, n: usize) {
        if self.writing == 0 && !self.keys.is_empty() {
            self.keys.sent(n);
            return;
        }
        if self.writing == 0 {
            self.writing = self.batches.pop_front().unwrap_or(0);
        }
        let n = n.min(self.writing);
        self.writing -= n;
        self.answers.sent(n);
    }

    pub fn clear(&mut self) {
        *self = ProgramInput::default();
    }

    /// Whether the program's output may be parsed (see [`OUTPUT_WAITS_AT`]).
    pub fn takes_output(&self) -> bool {
        self.answers.len() < OUTPUT_WAITS_AT
    }

    /// Queues the engine's answers (all of them: a program waits for the answer it asked for);
    /// returns whether more output may be parsed.
    pub fn answers(&mut self, term: &mut Terminal) -> bool {
        let replies = term.take_replies();
        if !replies.is_empty() {
            self.answers.push(&replies);
            match self.batches.back_mut() {
                Some(last) if *last < ANSWER_BATCH => *last += replies.len(),
                _ => self.batches.push_back(replies.len()),
            }
        }
        self.takes_output()
    }

    /// Queues typed keys if they fit under [`PROGRAM_INPUT_LIMIT`]; returns how many bytes were
    /// refused (all or none: a cut could fall inside a character or a key's sequence). The end
    /// of a bracketed paste is queued even so, or the program would take all that follows for
    /// the paste.
    pub fn keys(&mut self, keys: &[u8]) -> usize {
        if self.len() + keys.len() <= PROGRAM_INPUT_LIMIT {
            self.keys.push(keys);
            return 0;
        }
        const PASTE_END: &[u8] = b"\x1b[201~";
        if keys.windows(PASTE_END.len()).any(|w| w == PASTE_END) {
            self.keys.push(PASTE_END);
        }
        keys.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_go_before_waiting_answers_but_never_into_one_being_written() {
        let mut input = ProgramInput::default();
        let mut term = Terminal::with_scrollback(20, 5, 0);
        // Two answers to DA1 in one batch, then keys.
        term.feed(b"\x1b[c\x1b[c");
        assert!(input.answers(&mut term));
        let answer = input.unsent().to_vec();
        assert!(answer.starts_with(b"\x1b[?") && answer.len() % 2 == 0, "{answer:?}");
        assert_eq!(input.keys(b"ab"), 0);
        assert_eq!(input.unsent(), b"ab", "keys first");
        input.sent(1);
        assert_eq!(input.unsent(), b"b", "then the rest of the keys");
        input.sent(1);
        // The batch starts; keys typed now wait until it is whole.
        input.sent(3);
        assert_eq!(input.keys(b"\x03"), 0);
        assert_eq!(input.unsent(), &answer[3..]);
        let left = input.unsent().len();
        input.sent(left);
        assert_eq!(input.unsent(), b"\x03");
        input.sent(1);
        assert!(input.is_empty() && input.unsent().is_empty());
    }

    #[test]
    fn a_fifo_drained_a_little_at_a_time_keeps_its_order_and_moves_each_byte_rarely() {
        let mut fifo = Fifo::default();
        let mut out = Vec::new();
        let mut next = 0u32;
        for round in 0..2000 {
            for _ in 0..3 {
                fifo.push(&next.to_le_bytes());
                next += 1;
            }
            let n = fifo.len().min(if round % 7 == 0 { 1 } else { 9 });
            out.extend_from_slice(&fifo.unsent()[..n]);
            fifo.sent(n);
            // The part written and kept is never more than the part waiting (plus one push).
            assert!(fifo.at <= fifo.len() + 12, "{} written, {} waiting", fifo.at, fifo.len());
        }
        out.extend_from_slice(fifo.unsent());
        let want: Vec<u8> = (0..next).flat_map(u32::to_le_bytes).collect();
        assert_eq!(out, want);
    }
}
