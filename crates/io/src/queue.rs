//! Bytes waiting for a program: typed keys and the engine's answers to its queries.
//!
//! A program that does not read its input (a `sleep`, a program flooding `ESC [ c` and never
//! reading the answers) must not make blitty hold without limit what is written to it, and
//! writing to it must cost what is written, not what waits: the queue is drained by moving an
//! offset, and holds at most [`MAX_QUEUED`] bytes of keys. Answers are always queued (dropping
//! one would leave its program waiting for it); instead, a vty whose queue is full is not read
//! until the program takes its input, as a terminal whose buffer is full stops taking output.

/// Bytes of keys that may wait for a program at most; a paste past it is cut, and the user
/// told. Larger than any pty's input buffer (4 KiB on Linux), so a program that reads its
/// input never meets it.
pub const MAX_QUEUED: usize = 1 << 20;

#[derive(Default)]
pub struct Queue {
    buf: Vec<u8>,
    /// Where the bytes not written yet start.
    at: usize,
}

impl Queue {
    /// The bytes not written yet.
    pub fn unsent(&self) -> &[u8] {
        &self.buf[self.at..]
    }

    pub fn len(&self) -> usize {
        self.buf.len() - self.at
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the program's output waits for it to read its input.
    pub fn full(&self) -> bool {
        self.len() >= MAX_QUEUED
    }

    /// Queues keys, as many as fit under [`MAX_QUEUED`]; returns how many did not.
    pub fn keys(&mut self, bytes: &[u8]) -> usize {
        let room = MAX_QUEUED.saturating_sub(self.len());
        let take = bytes.len().min(room);
        self.push(&bytes[..take]);
        bytes.len() - take
    }

    /// Queues answers, whatever the length (see the module's comment).
    pub fn answers(&mut self, bytes: &[u8]) {
        self.push(bytes);
    }

    fn push(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        // The bytes written are dropped when they are the larger part, so each byte is moved
        // at most once more than it is queued.
        if self.at > 0 && self.at >= self.buf.len() - self.at {
            self.buf.drain(..self.at);
            self.at = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// `n` bytes were written.
    pub fn written(&mut self, n: usize) {
        self.at = (self.at + n).min(self.buf.len());
        if self.at == self.buf.len() {
            self.buf.clear();
            self.at = 0;
        }
    }

    pub fn clear(&mut self) {
        self.buf.clear();
        self.at = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_past_the_cap_are_refused_and_what_fits_is_kept_in_order() {
        let mut q = Queue::default();
        assert_eq!(q.keys(&vec![b'a'; MAX_QUEUED - 10]), 0);
        assert_eq!(q.keys(b"0123456789abcdef"), 6);
        assert!(q.full());
        assert_eq!(&q.unsent()[MAX_QUEUED - 10..], b"0123456789");
        // Answers still go in: their program is waiting for them.
        q.answers(b"\x1b[?1;2c");
        assert_eq!(q.len(), MAX_QUEUED + 7);
        q.written(MAX_QUEUED);
        assert_eq!(q.unsent(), b"\x1b[?1;2c");
        q.written(7);
        assert!(q.is_empty());
    }

    #[test]
    fn draining_in_small_writes_moves_each_byte_a_bounded_number_of_times() {
        // A full queue written 10 bytes at a time while keys keep coming: the buffer never
        // holds more than twice what waits.
        let mut q = Queue::default();
        q.keys(&vec![b'x'; MAX_QUEUED]);
        for k in 0..200_000 {
            q.written(10);
            q.keys(&[(k % 251) as u8; 10]);
            assert!(q.buf.len() <= 2 * MAX_QUEUED + 10);
        }
        assert_eq!(q.len(), MAX_QUEUED);
    }
}
