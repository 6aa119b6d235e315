//! XMODEM as state machines with no I/O of their own: the serial console feeds them the bytes
//! it reads from the line and writes what they return, so a transfer never blocks the display,
//! the keys or the log.
//!
//! The sender speaks XMODEM-1K (1024-byte STX blocks, the tail in 128-byte SOH blocks) or
//! plain 128-byte blocks, with a CRC-16 when the receiver starts with `C` and the 1-byte
//! checksum of the original XMODEM when it starts with NAK (then always 128-byte blocks, as
//! a checksum-only receiver may not know STX). Timeouts and retries follow Ward
//! Christensen's protocol and Chuck Forsberg's XMODEM/YMODEM reference: 10 tries per block,
//! 10 s for an answer, 60 s for the receiver to start, CAN CAN ends the transfer.
//! The receiver is the other half (the tests use it as the far end of a cable, and it is
//! the reference the sender is checked against); it keeps the padding of the last block
//! (0x1A), as XMODEM has no length.

use std::time::{Duration, Instant};

pub const SOH: u8 = 0x01;
pub const STX: u8 = 0x02;
pub const EOT: u8 = 0x04;
pub const ACK: u8 = 0x06;
pub const NAK: u8 = 0x15;
pub const CAN: u8 = 0x18;
pub const PAD: u8 = 0x1a;

const TRIES: u32 = 10;
const ANSWER: Duration = Duration::from_secs(10);
const START: Duration = Duration::from_secs(60);

/// CRC-16/XMODEM (polynomial 0x1021, initial value 0).
pub fn crc16(data: &[u8]) -> u16 {
    let mut crc = 0u16;
    for &b in data {
        crc ^= (b as u16) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 { (crc << 1) ^ 0x1021 } else { crc << 1 };
        }
    }
    crc
}

fn checksum(data: &[u8]) -> u8 {
    data.iter().fold(0u8, |a, &b| a.wrapping_add(b))
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Running,
    Done,
    Failed(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Start,
    Block,
    Eot,
}

pub struct Sender {
    data: Vec<u8>,
    one_k: bool,
    crc: bool,
    phase: Phase,
    /// Offset of the block in flight, and its length.
    at: usize,
    len: usize,
    /// Its number (mod 256).
    number: u8,
    tries: u32,
    deadline: Instant,
    cans: u32,
    outcome: Outcome,
}

impl Sender {
    /// A sender of `data`, in 1K blocks if `one_k`, waiting for the receiver to start.
    pub fn new(data: Vec<u8>, one_k: bool, now: Instant) -> Sender {
        Sender {
            data,
            one_k,
            crc: true,
            phase: Phase::Start,
            at: 0,
            len: 0,
            number: 1,
            tries: 0,
            deadline: now + START,
            cans: 0,
            outcome: Outcome::Running,
        }
    }

    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    /// Bytes acknowledged so far, and the total.
    pub fn progress(&self) -> (usize, usize) {
        (self.at.min(self.data.len()), self.data.len())
    }

    /// When `tick` must be called next.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// Ends the transfer from this side: CAN CAN CAN tells the receiver.
    pub fn cancel(&mut self, out: &mut Vec<u8>) {
        if self.outcome == Outcome::Running {
            out.extend_from_slice(&[CAN; 3]);
            self.outcome = Outcome::Failed("cancelled".into());
        }
    }

    fn put_block(&mut self, out: &mut Vec<u8>) {
        let rest = self.data.len() - self.at;
        let size = if self.one_k && self.crc && rest > 128 { 1024 } else { 128 };
        self.len = size.min(rest);
        out.push(if size == 1024 { STX } else { SOH });
        out.push(self.number);
        out.push(!self.number);
        let start = out.len();
        out.extend_from_slice(&self.data[self.at..self.at + self.len]);
        out.resize(start + size, PAD);
        if self.crc {
            let c = crc16(&out[start..]);
            out.extend_from_slice(&c.to_be_bytes());
        } else {
            let c = checksum(&out[start..]);
            out.push(c);
        }
    }

    /// The next block, or EOT when all are acknowledged.
    fn next(&mut self, now: Instant, out: &mut Vec<u8>) {
        self.tries = 0;
        self.deadline = now + ANSWER;
        if self.at >= self.data.len() {
            self.phase = Phase::Eot;
            out.push(EOT);
        } else {
            self.phase = Phase::Block;
            self.put_block(out);
        }
    }

    fn retry(&mut self, now: Instant, out: &mut Vec<u8>) {
        self.tries += 1;
        if self.tries >= TRIES {
            out.extend_from_slice(&[CAN; 3]);
            let what = if self.phase == Phase::Eot {
                "the end of the file".to_string()
            } else {
                format!("block {}", self.number)
            };
            self.outcome = Outcome::Failed(format!("the receiver did not take {what} after {TRIES} tries"));
            return;
        }
        self.deadline = now + ANSWER;
        match self.phase {
            Phase::Block => self.put_block(out),
            Phase::Eot => out.push(EOT),
            Phase::Start => {}
        }
    }

    /// Takes bytes from the receiver; appends what to send to `out`.
    pub fn feed(&mut self, input: &[u8], now: Instant, out: &mut Vec<u8>) {
        for &b in input {
            if self.outcome != Outcome::Running {
                return;
            }
            if b == CAN {
                self.cans += 1;
                if self.cans >= 2 {
                    self.outcome = Outcome::Failed("the receiver cancelled".into());
                }
                continue;
            }
            self.cans = 0;
            match (self.phase, b) {
                (Phase::Start, b'C') => {
                    self.crc = true;
                    self.next(now, out);
                }
                (Phase::Start, NAK) => {
                    self.crc = false;
                    self.next(now, out);
                }
                (Phase::Block, ACK) => {
                    self.at += self.len;
                    self.number = self.number.wrapping_add(1);
                    self.next(now, out);
                }
                (Phase::Block, NAK) => self.retry(now, out),
                (Phase::Eot, ACK) => self.outcome = Outcome::Done,
                (Phase::Eot, NAK) => self.retry(now, out),
                // Noise, or the receiver's repeated 'C' while the first block travels.
                _ => {}
            }
        }
    }

    /// Called at `deadline`: resends, or gives up.
    pub fn tick(&mut self, now: Instant, out: &mut Vec<u8>) {
        if self.outcome != Outcome::Running || now < self.deadline {
            return;
        }
        if self.phase == Phase::Start {
            self.outcome = Outcome::Failed("the receiver did not start (no C or NAK in 60 s)".into());
        } else {
            self.retry(now, out);
        }
    }
}

/// The receiving half: asks for CRC mode with `C`, checks every block, acknowledges it.
pub struct Receiver {
    pub data: Vec<u8>,
    buf: Vec<u8>,
    expect: u8,
    started: bool,
    deadline: Instant,
    outcome: Outcome,
    tries: u32,
}

impl Receiver {
    /// A receiver; `out` gets its first `C`.
    pub fn new(now: Instant, out: &mut Vec<u8>) -> Receiver {
        out.push(b'C');
        Receiver {
            data: Vec::new(),
            buf: Vec::new(),
            expect: 1,
            started: false,
            deadline: now + Duration::from_secs(3),
            outcome: Outcome::Running,
            tries: 0,
        }
    }

    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    pub fn feed(&mut self, input: &[u8], now: Instant, out: &mut Vec<u8>) {
        self.buf.extend_from_slice(input);
        while self.outcome == Outcome::Running && !self.buf.is_empty() {
            let size = match self.buf[0] {
                SOH => 128,
                STX => 1024,
                EOT => {
                    self.buf.remove(0);
                    out.push(ACK);
                    self.outcome = Outcome::Done;
                    return;
                }
                CAN => {
                    self.outcome = Outcome::Failed("the sender cancelled".into());
                    return;
                }
                _ => {
                    // Not a block start: skip it (line noise).
                    self.buf.remove(0);
                    continue;
                }
            };
            let total = 3 + size + 2;
            if self.buf.len() < total {
                return;
            }
            let block: Vec<u8> = self.buf.drain(..total).collect();
            self.started = true;
            self.deadline = now + ANSWER;
            let (n, inv, payload) = (block[1], block[2], &block[3..3 + size]);
            let crc = u16::from_be_bytes([block[3 + size], block[4 + size]]);
            if n != !inv || crc16(payload) != crc {
                self.buf.clear();
                out.push(NAK);
                continue;
            }
            if n == self.expect {
                self.data.extend_from_slice(payload);
                self.expect = self.expect.wrapping_add(1);
            }
            // A repeat of the last block (our ACK was lost) is acknowledged again.
            out.push(ACK);
        }
    }

    /// Repeats `C` until the sender starts; gives up after 10 tries.
    pub fn tick(&mut self, now: Instant, out: &mut Vec<u8>) {
        if self.outcome != Outcome::Running || now < self.deadline {
            return;
        }
        self.tries += 1;
        if self.tries >= TRIES {
            self.outcome = Outcome::Failed("the sender went quiet".into());
            return;
        }
        out.push(if self.started { NAK } else { b'C' });
        self.deadline = now + Duration::from_secs(3);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc16_matches_the_xmodem_check_value() {
        // The catalogue's check value for CRC-16/XMODEM over "123456789".
        assert_eq!(crc16(b"123456789"), 0x31c3);
    }

    /// Runs a sender against a receiver through a "line" that may corrupt bytes.
    fn transfer(data: &[u8], one_k: bool, mut damage: impl FnMut(usize, &mut Vec<u8>)) -> Vec<u8> {
        let now = Instant::now();
        let mut to_sender = Vec::new();
        let mut rx = Receiver::new(now, &mut to_sender);
        let mut tx = Sender::new(data.to_vec(), one_k, now);
        let mut round = 0;
        while *tx.outcome() == Outcome::Running && round < 10_000 {
            let mut to_receiver = Vec::new();
            tx.feed(&std::mem::take(&mut to_sender), now, &mut to_receiver);
            damage(round, &mut to_receiver);
            rx.feed(&to_receiver, now, &mut to_sender);
            round += 1;
        }
        assert_eq!(*tx.outcome(), Outcome::Done);
        assert_eq!(*rx.outcome(), Outcome::Done);
        rx.data
    }

    fn sample(n: usize) -> Vec<u8> {
        (0..n).map(|i| (i * 7 + i / 255) as u8).collect()
    }

    #[test]
    fn one_k_and_128_byte_transfers_arrive_whole_with_padding() {
        for (n, one_k) in [(0, true), (1, true), (128, true), (1024, true), (3000, true), (3000, false), (70_000, true)]
        {
            let data = sample(n);
            let got = transfer(&data, one_k, |_, _| {});
            assert_eq!(&got[..n], &data[..], "{n} {one_k}");
            assert!(got[n..].iter().all(|&b| b == PAD) && got.len() - n < 1024, "{n} {one_k}");
        }
    }

    #[test]
    fn a_corrupted_block_is_sent_again() {
        let data = sample(5000);
        let got = transfer(&data, true, |round, bytes| {
            if round == 2 && bytes.len() > 100 {
                bytes[50] ^= 0xff;
            }
        });
        assert_eq!(&got[..5000], &data[..]);
    }

    #[test]
    fn a_checksum_receiver_gets_128_byte_blocks() {
        let now = Instant::now();
        let mut tx = Sender::new(sample(300), true, now);
        let mut out = Vec::new();
        tx.feed(&[NAK], now, &mut out);
        assert_eq!(out.len(), 3 + 128 + 1);
        assert_eq!(out[0], SOH);
        assert_eq!(out[131], checksum(&out[3..131]));
    }

    #[test]
    fn silence_and_cancels_end_the_transfer() {
        let now = Instant::now();
        let mut tx = Sender::new(sample(10), true, now);
        let mut out = Vec::new();
        tx.tick(now + START, &mut out);
        assert!(matches!(tx.outcome(), Outcome::Failed(_)));
        let mut tx = Sender::new(sample(10), true, now);
        tx.feed(b"C", now, &mut out);
        tx.feed(&[CAN, CAN], now, &mut out);
        assert_eq!(*tx.outcome(), Outcome::Failed("the receiver cancelled".into()));
        let mut tx = Sender::new(sample(10), true, now);
        out.clear();
        tx.feed(b"C", now, &mut out);
        for i in 1..=TRIES {
            tx.tick(now + ANSWER * i, &mut out);
        }
        assert!(matches!(tx.outcome(), Outcome::Failed(m) if m.contains("10 tries")));
        assert!(out.ends_with(&[CAN; 3]));
    }
}
