//! The DEC/ANSI parser (Paul Williams' state machine, vt100.net "A parser for DEC's
//! ANSI-compatible video terminals"), reading UTF-8.
//!
//! In the ground state, runs of printable ASCII are found with a vectorised scan and handed
//! to [`Perform::print_ascii`] whole; everything else goes through the state machine one byte
//! (or, for UTF-8, one scalar value) at a time. All state survives between calls, so input may
//! be split anywhere, including inside a UTF-8 sequence or an escape sequence. Nothing here
//! allocates per byte: parameters live in a fixed array and OSC payloads in one reused buffer
//! with a cap.
//!
//! UTF-8 decoding follows the Unicode "maximal subpart" practice: each invalid byte, or
//! truncated sequence, becomes one U+FFFD and the byte that broke the sequence is read again.
//! C1 controls are never executed from UTF-8: the scalar values U+0080..U+009F are characters
//! of no width (not printed; payload inside an OSC string), as in xterm's default UTF-8 mode,
//! alacritty and tmux. Executing them would be a hole: output filters that strip ESC do not
//! strip U+009B, which would otherwise start a CSI. Raw bytes 0x80..0x9F are not valid UTF-8
//! and print as U+FFFD.

use crate::scan;

/// The most parameters kept for one sequence; later ones are dropped (xterm keeps 30).
pub const MAX_PARAMS: usize = 32;
/// The longest OSC payload accepted; a longer one is discarded whole.
pub const MAX_OSC: usize = 1 << 20;

/// What the parser recognises; the screen implements it.
pub trait Perform {
    /// A run of printable ASCII bytes (0x20..=0x7E), in the ground state.
    fn print_ascii(&mut self, run: &[u8]);
    /// One printable ASCII byte between two escape sequences (a colour-dense cell); the same
    /// as [`Perform::print_ascii`] of it, which is what the default does.
    fn print_ascii_byte(&mut self, b: u8) {
        self.print_ascii(&[b]);
    }
    /// One printable character that is not ASCII.
    fn print(&mut self, c: char);
    /// Text at the start of `bytes`, which begins with a byte of 0x80 or above (a UTF-8
    /// sequence, whole, cut by the buffer's end, or invalid) or with a printable ASCII byte
    /// that one follows: a screen may decode and write as much of it as it can in one pass and
    /// returns the bytes it took (whole characters only: whole, valid UTF-8 sequences, and
    /// printable ASCII), having done what [`Perform::print`] of each character (and
    /// [`Perform::print_ascii`] of each ASCII byte) would have done, with U+0080..U+009F
    /// dropped (see the module's comment). The default takes none: the characters then come
    /// one at a time.
    fn print_utf8(&mut self, _bytes: &[u8]) -> usize {
        0
    }
    /// A C0 control (0x00..=0x1F, except ESC, CAN and SUB) or C1 control (0x80..=0x9F).
    fn execute(&mut self, control: u8);
    fn esc_dispatch(&mut self, intermediates: &[u8], final_byte: u8);
    fn csi_dispatch(&mut self, params: &Params, private: u8, intermediates: &[u8], final_byte: u8);
    /// SGR in its shortest forms, whole in one buffer: `CSI m` (`None`) and `CSI Ps m` with one
    /// or two digits (a reset, one attribute or one colour: most of what `ls`, `git`, compilers
    /// and editors send). The same as [`Perform::csi_dispatch`] of those parameters and `m`,
    /// which is what the default does; a screen sets the pen without the general parse.
    fn short_sgr(&mut self, value: Option<u16>) {
        self.csi_dispatch(&Params::of(value), 0, &[], b'm');
    }
    /// Whole lines of plain text at the start of `bytes`, which come straight after a CR LF: each
    /// a run of printable ASCII ending in CR LF. A screen may take as many as it can at once
    /// (the steady state of a flood of text) and returns the bytes it took, having done what
    /// [`Perform::print_ascii`] of each line's text, then [`Perform::execute`] of its CR and
    /// LF, would have done. The default takes none, so that every line comes the general way.
    fn print_lines(&mut self, _bytes: &[u8]) -> usize {
        0
    }
    /// Bytes that are not UTF-8, in the ground state: a byte that starts no sequence, or the
    /// start of a sequence that the next byte does not continue (the maximal subpart). The
    /// default prints one U+FFFD for them; a screen may take them as 8-bit characters instead
    /// (a set invoked into GR).
    fn print_invalid(&mut self, _bytes: &[u8]) {
        self.print('\u{fffd}');
    }
    /// DEL (0x7F) in the ground state. Nothing, for a terminal without 96-character sets; a
    /// screen prints through one in GL (xterm), as its last position.
    fn delete(&mut self) {}
    /// An OSC string (at most [`MAX_OSC`] bytes); `bel` tells whether BEL ended it rather than
    /// ST, so that an answer can end the same way (xterm).
    fn osc_dispatch(&mut self, payload: &[u8], bel: bool);
    /// A DCS sequence's header was read. Return true to receive its data (at most
    /// [`MAX_OSC`] bytes) in [`Perform::dcs_dispatch`] when it ends; false discards it.
    fn dcs_hook(&mut self, _params: &Params, _private: u8, _intermediates: &[u8], _final_byte: u8) -> bool {
        false
    }
    /// The data of the DCS sequence [`Perform::dcs_hook`] asked for, once ST ended it (a DCS
    /// cancelled by CAN or SUB, or longer than the cap, is not dispatched).
    fn dcs_dispatch(&mut self, _data: &[u8]) {}
    /// Whether the screen is in VT52 mode (DECANM reset): then ESC and the byte after it are
    /// a VT52 sequence, dispatched with [`Perform::esc_dispatch`] whatever the byte (`[`, `]`
    /// and `P` start no CSI, OSC or DCS), and ESC Y takes the two bytes after it as a position
    /// ([`Perform::vt52_position`]). Asked at each ESC, so a change takes effect at once.
    fn vt52(&self) -> bool {
        false
    }
    /// VT52's direct cursor address, ESC Y with its two bytes (each the row or column plus 32).
    fn vt52_position(&mut self, _row: u8, _col: u8) {}
    /// The work done so far besides the bytes parsed (a count that only grows, in cells
    /// touched): what [`Parser::advance_bounded`] bounds. The default counts none.
    fn work(&self) -> u64 {
        0
    }
    /// How many printable ASCII characters, given to [`Perform::print_ascii`] now, would each
    /// add exactly one to [`Perform::work`] (no wrap, no insertion); at least 1. Where
    /// [`Parser::advance_bounded`] cuts runs of text. The default: any number.
    fn text_room(&self) -> usize {
        usize::MAX
    }
    /// At most the work [`Perform::print_lines`] adds for one line besides its bytes and the
    /// cells of its text (its scroll). The default: none, for a screen that takes no lines.
    fn line_work(&self) -> u64 {
        0
    }
    /// At least the most [`Perform::line_work`] can become (a control function may resize the
    /// screen): for a test made once for several steps. The default: the current one.
    fn line_work_bound(&self) -> u64 {
        self.line_work()
    }
}

/// CSI/DCS parameters: numbers separated by `;`, sub-parameters by `:`. An empty parameter
/// reads as 0, which every control function treats as its default.
#[derive(Clone, Debug, Default)]
pub struct Params {
    vals: [u16; MAX_PARAMS],
    /// Bit i set: parameter i followed a `:` (it is a sub-parameter of the one before).
    sub: u32,
    len: usize,
    /// More parameters arrived than fit; the rest are dropped.
    full: bool,
}

impl Params {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Parameter `i`, or `default` when it is missing or 0.
    #[inline]
    pub fn get(&self, i: usize, default: u16) -> u16 {
        match self.vals[..self.len].get(i) {
            Some(&v) if v != 0 => v,
            _ => default,
        }
    }

    /// Parameter `i` as given (0 when missing).
    #[inline]
    pub fn raw(&self, i: usize) -> u16 {
        self.vals[..self.len].get(i).copied().unwrap_or(0)
    }

    /// The parameters grouped with their sub-parameters: `38:2::1:2:3;1` gives
    /// `[38, 2, 0, 1, 2, 3]` then `[1]`.
    pub fn groups(&self) -> impl Iterator<Item = &[u16]> {
        let mut start = 0;
        std::iter::from_fn(move || {
            if start >= self.len {
                return None;
            }
            let mut end = start + 1;
            while end < self.len && self.sub & (1 << end) != 0 {
                end += 1;
            }
            let group = &self.vals[start..end];
            start = end;
            Some(group)
        })
    }

    /// The parameters as given (0 for empty ones), sub-parameters included.
    pub fn values(&self) -> &[u16] {
        &self.vals[..self.len]
    }

    /// Whether any parameter came after a `:`.
    #[inline]
    pub fn has_sub(&self) -> bool {
        self.sub != 0
    }

    /// Whether parameter `i` came after a `:`.
    pub fn is_sub(&self, i: usize) -> bool {
        i < self.len && self.sub & (1 << i) != 0
    }

    /// No parameter, or the one given.
    fn of(value: Option<u16>) -> Params {
        let mut p = Params::default();
        if let Some(v) = value {
            p.vals[0] = v;
            p.len = 1;
        }
        p
    }

    fn clear(&mut self) {
        self.len = 0;
        self.sub = 0;
        self.full = false;
    }

    /// Reads parameter bytes (digits, `;`, `:`) from the front of `bytes`, returning how
    /// many it took. The parameter being read, the count and the flags are kept in registers
    /// and stored once at the end: colour-dense output sends fourteen or more of these bytes
    /// per cell.
    #[inline]
    fn read(&mut self, bytes: &[u8]) -> usize {
        let (mut len, mut sub, mut full) = (self.len, self.sub, self.full);
        if len == 0 {
            self.vals[0] = 0;
            len = 1;
        }
        // `len` is at least 1 and at most MAX_PARAMS here and below.
        let mut cur = self.vals[len - 1] as u32;
        let mut n = 0;
        for &b in bytes {
            let d = b.wrapping_sub(b'0');
            if d < 10 {
                cur = (cur * 10 + d as u32).min(u16::MAX as u32);
            } else if d <= b';' - b'0' {
                // `:` or `;`: the parameter is done; the next starts at 0.
                if !full {
                    self.vals[len - 1] = cur as u16;
                }
                if len < MAX_PARAMS {
                    sub |= ((b == b':') as u32) << len;
                    len += 1;
                } else {
                    full = true;
                }
                cur = 0;
            } else {
                break;
            }
            n += 1;
        }
        if !full {
            self.vals[len - 1] = cur as u16;
        }
        (self.len, self.sub, self.full) = (len, sub, full);
        n
    }
}

/// A CSI sequence whole in the 48 bytes at the start of `bytes` (just after `ESC [`), with at
/// least 52 bytes there: numbers separated by `;`, then a final byte (the form of colour-dense
/// output's SGRs, and of CUP, ED, EL and most others). Reads its parameters into `params`, as
/// [`Params::read`] would, and returns its length with the final byte; None for anything else,
/// which is read the general way: sub-parameters, a private marker, intermediates, a control
/// inside, 32 parameters or more, a longer sequence, the last bytes of a buffer.
///
/// Where each number ends is found for the whole sequence at once (the masks of its digits and
/// semicolons), and each number of up to four digits is read without a branch. The byte at a
/// time loop took about fourteen instructions a byte, and mispredicted where each number of
/// random length ended: colour-dense output sends six numbers or more per cell.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn numeric_csi(bytes: &[u8], params: &mut Params) -> Option<usize> {
    let block: &[u8; 52] = bytes.get(..52)?.try_into().ok()?;
    let (digits, semicolons) = crate::scan::digits_and_semicolons(block);
    // Bits 48 and up are neither: `end` is at most 48.
    let end = (!(digits | semicolons)).trailing_zeros() as usize;
    if end >= 48 || !(0x40..=0x7e).contains(&block[end]) {
        return None;
    }
    let mut ends = semicolons & ((1u64 << end) - 1);
    if end > 30 && ends.count_ones() as usize >= MAX_PARAMS {
        return None;
    }
    let (mut len, mut start) = (0, 0);
    while ends != 0 {
        let e = ends.trailing_zeros() as usize;
        params.vals[len] = number(block, start, e - start);
        len += 1;
        start = e + 1;
        ends &= ends - 1;
    }
    if end > 0 {
        params.vals[len] = number(block, start, end - start);
        len += 1;
    }
    (params.len, params.sub, params.full) = (len, 0, false);
    Some(end + 1)
}

/// The number of the `n` digits at `block[start..]` (`start + n` at most 48), as
/// [`Params::read`] reads it (at most `u16::MAX`). Up to four digits without a branch: the four
/// bytes from `start` are loaded as one word, the digits moved to its top so that what follows
/// them drops off and zeros lead, and the pairs of digits, then the pairs of pairs, combined
/// with two multiplications.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn number(block: &[u8; 52], start: usize, n: usize) -> u16 {
    if n > 4 {
        // Rare (leading zeros, or past 9999): the byte at a time loop, which saturates.
        let mut long = Params::default();
        long.read(&block[start..start + n]);
        return long.raw(0);
    }
    let word = u32::from_le_bytes([block[start], block[start + 1], block[start + 2], block[start + 3]]);
    // Digits are at least b'0': subtracting borrows from none of them, only from the bytes after.
    let word = word.wrapping_sub(0x3030_3030);
    // The first digit of four is the lowest byte: d0 d1 d2 d3 is d0*1000 + d1*100 + d2*10 + d3.
    let word = ((word as u64) << (8 * (4 - n))) as u32;
    let pairs = (word * 10 + (word >> 8)) & 0x00ff_00ff;
    (((pairs as u64 * (1 + (100 << 16))) >> 16) & 0xffff) as u16
}

/// `CSI m`, or `CSI Ps m` with one or two digits, at the start of `bytes` (just after `ESC [`):
/// its parameter (`None` for none) and its length. Anything longer or else is None, and goes
/// the general way, as does a sequence with fewer than three bytes after `ESC [` in the buffer.
/// Every other CSI passes through here too, so a miss is found in as few tests as can be.
#[inline(always)]
fn parse_short_sgr(bytes: &[u8]) -> Option<(Option<u16>, usize)> {
    let &[a, b, c, ..] = bytes else { return None };
    if a == b'm' {
        return Some((None, 1));
    }
    let high = a.wrapping_sub(b'0');
    if high > 9 {
        return None;
    }
    if b == b'm' {
        return Some((Some(high as u16), 2));
    }
    let low = b.wrapping_sub(b'0');
    if low > 9 || c != b'm' {
        return None;
    }
    Some((Some(high as u16 * 10 + low as u16), 3))
}

/// Bounded ([`Parser::advance_bounded`]): how many bytes of text from `bytes[i]` can be written
/// at once without reaching `limit` before their last byte. Text costs at most two units a byte
/// (the byte and a cell), so half of what is left, rounded up: at least 1.
#[inline]
fn text_cap<P: Perform>(p: &P, i: usize, limit: u64) -> usize {
    let left = limit.saturating_sub(p.work().saturating_add(i as u64));
    usize::try_from(left.div_ceil(2)).unwrap_or(usize::MAX).max(1)
}

/// Bounded: whether work of up to `work` more, after the `i` bytes taken, stays below `limit`.
#[inline]
fn below<P: Perform>(p: &P, i: usize, limit: u64, work: u64) -> bool {
    p.work().saturating_add(i as u64).saturating_add(work) < limit
}

/// Bounded: how many of the `n` printable ASCII bytes from `bytes[i]` to write at once. All of
/// them when they cannot reach `limit` whatever they do (a character costs at most its byte,
/// its cell and a line's work: a wrap's scroll, an insertion's shift); else a piece that
/// neither wraps nor shifts ([`Perform::text_room`]), two units a character, that reaches the
/// limit at its last byte if at all ([`text_cap`]).
#[inline]
fn run_cap<P: Perform>(p: &P, i: usize, limit: u64, n: usize) -> usize {
    let left = limit.saturating_sub(p.work().saturating_add(i as u64));
    if (n as u64).saturating_mul(2 + p.line_work()) < left {
        return n;
    }
    text_cap(p, i, limit).min(p.text_room().max(1))
}

/// An instance of the state machine's states (named as on vt100.net).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Ground,
    Escape,
    EscapeIntermediate,
    CsiEntry,
    CsiParam,
    CsiIntermediate,
    CsiIgnore,
    DcsEntry,
    DcsParam,
    DcsIntermediate,
    DcsPassthrough,
    DcsIgnore,
    OscString,
    SosPmApcString,
    /// VT52's ESC Y, waiting for its row byte, then its column byte (the row is in `vt52_row`).
    Vt52Row,
    Vt52Col,
}

pub struct Parser {
    state: State,
    params: Params,
    private: u8,
    intermediates: [u8; 2],
    n_intermediates: usize,
    /// More intermediates arrived than fit: the sequence is read but not dispatched.
    intermediate_overflow: bool,
    osc: Vec<u8>,
    osc_overflow: bool,
    /// The DCS being read was asked for by [`Perform::dcs_hook`]: its data goes into `osc`.
    dcs_wanted: bool,
    utf8: [u8; 4],
    utf8_len: u8,
    utf8_need: u8,
    vt52_row: u8,
}

impl Default for Parser {
    fn default() -> Self {
        Self::new()
    }
}

impl Parser {
    /// Whether the parser is between sequences: in the ground state, with no UTF-8
    /// sequence begun (what it reads next is read from scratch).
    pub fn is_ground(&self) -> bool {
        self.state == State::Ground && self.utf8_need == 0
    }

    pub fn new() -> Parser {
        Parser {
            state: State::Ground,
            params: Params::default(),
            private: 0,
            intermediates: [0; 2],
            n_intermediates: 0,
            intermediate_overflow: false,
            osc: Vec::new(),
            osc_overflow: false,
            dcs_wanted: false,
            utf8: [0; 4],
            utf8_len: 0,
            utf8_need: 0,
            vt52_row: 0,
        }
    }

    /// Feeds `bytes` through the state machine into `p`.
    pub fn advance<P: Perform>(&mut self, p: &mut P, bytes: &[u8]) {
        self.run::<P, false>(p, bytes, 0);
    }

    /// Feeds bytes from the start of `bytes` as [`Self::advance`] would, stopping at the first
    /// point between two bytes where the work done since the call (one a byte, plus what
    /// [`Perform::work`] counts) has reached `budget`: returns how many bytes it took, all of
    /// them when the budget was not reached, and at least one of a non-empty `bytes`. What is
    /// left is fed later as the rest of the same stream (the state is kept).
    ///
    /// The point is found without going past it: a byte costs at least a unit, so the budget
    /// is reached within the next `r` bytes when `r` units are left, and each step (a control
    /// function, a run of text) sees no more of the buffer than those; a run of printable
    /// ASCII is cut where its cells could reach the budget (two units a character) or wrap
    /// ([`Perform::text_room`]); whole lines are taken at once ([`Perform::print_lines`]) only
    /// as many as cannot reach it ([`Perform::line_work`]). A step is not divided: one that
    /// does much (a rectangle operation, a collection) ends where it ends.
    pub fn advance_bounded<P: Perform>(&mut self, p: &mut P, bytes: &[u8], budget: u64) -> usize {
        let limit = p.work().saturating_add(budget);
        self.run::<P, true>(p, bytes, limit)
    }

    /// [`Self::advance`], and with `BOUNDED` [`Self::advance_bounded`] until [`Perform::work`]
    /// plus the bytes taken reaches `limit`: the same loop, its bounded steps compiled out of
    /// the unbounded one.
    #[inline(always)]
    fn run<P: Perform, const BOUNDED: bool>(&mut self, p: &mut P, all: &[u8], limit: u64) -> usize {
        let mut i = 0;
        // A byte that did not continue a UTF-8 sequence is read again after the sequence's
        // U+FFFD: that U+FFFD is the byte's work (fed only up to the byte before, it is not
        // printed yet), so no stop comes between.
        let mut reread = false;
        while i < all.len() {
            let bytes = if BOUNDED {
                let done = p.work().saturating_add(i as u64);
                if i > 0 && !reread && done >= limit {
                    return i;
                }
                // The budget is reached within the next `left` bytes: no step sees past them.
                let left = usize::try_from(limit.saturating_sub(done).max(1)).unwrap_or(usize::MAX);
                &all[..all.len().min(i.saturating_add(left))]
            } else {
                all
            };
            if self.utf8_need > 0 {
                reread = !self.utf8_continue(p, bytes[i]);
                if !reread {
                    i += 1;
                }
                continue;
            }
            reread = false;
            match self.state {
                State::Ground => {
                    i = self.ground::<P, BOUNDED>(p, bytes, i, limit);
                    continue;
                }
                State::Vt52Row | State::Vt52Col => {
                    self.vt52_position_byte(p, bytes[i]);
                    i += 1;
                    continue;
                }
                State::CsiEntry | State::CsiParam if matches!(bytes[i], b'0'..=b';') => {
                    // Parameter bytes are most of an escape-heavy stream: read them in a tight
                    // loop rather than one state-machine step each.
                    i += self.params.read(&bytes[i..]);
                    self.state = State::CsiParam;
                    continue;
                }
                _ => {}
            }
            let b = bytes[i];
            i += 1;
            if b < 0x80 {
                self.ascii(p, b);
            } else if let Some((c, len)) = decode_whole(&bytes[i - 1..]) {
                // A whole, valid sequence in the buffer: decoded in place, no state kept.
                i += len - 1;
                self.scalar(p, c);
            } else {
                self.utf8_start(p, b);
            }
        }
        i
    }

    /// The ground state from `bytes[i]`: text, controls, and escape and control sequences
    /// that are whole in the buffer, each taken in one step here. Returns where it stopped: at
    /// the end of `bytes`, or having handed a sequence the buffer cuts (or one of the rarer
    /// forms: strings, controls inside a sequence) to the state machine, or in the middle of a
    /// UTF-8 sequence the buffer cuts. What is recognised is the same either way.
    ///
    /// `BOUNDED` (see [`Self::advance_bounded`]): one step at a time, runs of text cut, whole
    /// lines taken only as many as keep the work short of `limit`.
    #[inline]
    fn ground<P: Perform, const BOUNDED: bool>(&mut self, p: &mut P, bytes: &[u8], mut i: usize, limit: u64) -> usize {
        // Bounded, a step after the first is taken here only while the work so far plus the
        // whole buffer stays below `limit`: then no stop can come before it and the run loop
        // would hand it the same buffer, uncut. Else the run loop decides, re-reading the work
        // and cutting the buffer, which a turn that nears its budget needs and no other does.
        let fast = if BOUNDED { limit.saturating_sub(bytes.len() as u64) } else { 0 };
        let start = i;
        while let Some(&b) = bytes.get(i) {
            if BOUNDED && i != start && p.work() >= fast {
                return i;
            }
            if (0x20..0x7f).contains(&b) {
                let n = scan::printable_ascii_len(&bytes[i..]);
                if BOUNDED {
                    let cap = run_cap(p, i, limit, n);
                    if n > cap {
                        p.print_ascii(&bytes[i..i + cap]);
                        i += cap;
                        continue;
                    }
                }
                // The last letter before a UTF-8 sequence goes with that sequence to the
                // screen's pass over text (a base and its combining marks, in decomposed
                // text), so that it takes them in one stretch. (The last 8, as the pass joins
                // the ASCII between sequences, measured no better.)
                if bytes.get(i + n).is_some_and(|&c| c >= 0x80) {
                    if n > 1 {
                        p.print_ascii(&bytes[i..i + n - 1]);
                    }
                    i += n - 1;
                    // Bounded, the pass over text sees no more than keeps it short of the limit:
                    // it writes at most a cell a byte, two units.
                    let text =
                        if BOUNDED { &bytes[i..bytes.len().min(i + text_cap(p, i, limit))] } else { &bytes[i..] };
                    match p.print_utf8(text) {
                        0 => {
                            p.print_ascii(&bytes[i..i + 1]);
                            i += 1;
                        }
                        took => i += took,
                    }
                    continue;
                }
                p.print_ascii(&bytes[i..i + n]);
                i += n;
                // Bounded, only when the CR (a byte, no cell) cannot reach the limit: the step
                // ends with the LF if that reaches it, and goes on with as many lines as cannot.
                if bytes.get(i..i + 2) == Some(b"\r\n") && (!BOUNDED || below(p, i, limit, 1)) {
                    // The end of a line of text, most of the time: executed here rather
                    // than by two more turns of the loop.
                    p.execute(b'\r');
                    p.execute(b'\n');
                    i += 2;
                    // More whole lines may follow (a flood of text): the screen takes what it
                    // can of them at once.
                    i += if BOUNDED { self.bounded_lines(p, bytes, i, limit) } else { p.print_lines(&bytes[i..]) };
                }
            } else if b == 0x1b {
                if p.vt52() {
                    self.enter(State::Escape);
                    return i + 1;
                }
                match bytes.get(i + 1) {
                    Some(b'[') => {
                        if let Some((value, n)) = parse_short_sgr(&bytes[i + 2..]) {
                            p.short_sgr(value);
                            i += 2 + n;
                            continue;
                        }
                        #[cfg(target_arch = "x86_64")]
                        if let Some(n) = numeric_csi(&bytes[i + 2..], &mut self.params) {
                            // SGR apart, so that its dispatch is found at compile time.
                            match bytes[i + 1 + n] {
                                b'm' => p.csi_dispatch(&self.params, 0, &[], b'm'),
                                f => p.csi_dispatch(&self.params, 0, &[], f),
                            }
                            i += 2 + n;
                            // Colour-dense output: one character, the next SGR, one character,
                            // ... taken here rather than by two more turns of the loop each. (One
                            // loop for the first sequence and the rest, dispatching the same way,
                            // measured 3% more instructions on sgr-256 and cursor.)
                            // Bounded, a character and its sequence only while no stop can
                            // come before either (as at the top of the loop): one reading of the
                            // work for both, leaving room for the most the character can add (its
                            // cell and a wrap's scroll) on any size a sequence may resize to.
                            let pair = if BOUNDED { fast.saturating_sub(1 + p.line_work_bound()) } else { 0 };
                            while let [c @ 0x20..=0x7e, 0x1b, b'[', ..] = bytes[i..] {
                                if BOUNDED && p.work() >= pair {
                                    break;
                                }
                                // (VT52 mode cannot begin here: only `CSI ? 2 l` enters it, and
                                // these sequences have no private marker.)
                                p.print_ascii_byte(c);
                                i += 1;
                                let Some(n) = numeric_csi(&bytes[i + 2..], &mut self.params) else { break };
                                match bytes[i + 1 + n] {
                                    b'm' => p.csi_dispatch(&self.params, 0, &[], b'm'),
                                    f => self.dispatch_other(p, f),
                                }
                                i += 2 + n;
                            }
                            continue;
                        }
                        // A whole CSI sequence is parsed in one pass; otherwise the state
                        // machine takes it from CSI entry.
                        self.enter(State::CsiEntry);
                        match self.csi_whole(p, &bytes[i + 2..]) {
                            Some(n) => i += 2 + n,
                            None => {
                                self.enter(State::CsiEntry);
                                return i + 2;
                            }
                        }
                    }
                    // ESC and a final byte (DECSC, DECRC, RI, keypad modes, ...).
                    Some(&f @ (0x30..=0x4f | 0x51..=0x57 | 0x59 | 0x5a | 0x5c | 0x60..=0x7e)) => {
                        p.esc_dispatch(&[], f);
                        i += 2;
                    }
                    // ESC, one intermediate and a final byte (the character set designations).
                    Some(&m @ 0x20..=0x2f) if matches!(bytes.get(i + 2), Some(0x30..=0x7e)) => {
                        p.esc_dispatch(&[m], bytes[i + 2]);
                        i += 3;
                    }
                    _ => {
                        self.ascii(p, b);
                        return i + 1;
                    }
                }
            } else if b < 0x20 {
                // CR, LF and the other C0 controls between runs of text; CAN and SUB cancel
                // nothing here.
                if !matches!(b, 0x18 | 0x1a) {
                    p.execute(b);
                }
                i += 1;
                // Only after a CR (or where one may have ended the buffer before): the lines
                // [`Perform::print_lines`] takes end in CR LF, and after a bare LF it looks for
                // them in vain, a scan a line of text written with LFs alone.
                if BOUNDED && b == b'\n' && (i < 2 || bytes[i - 2] == b'\r') {
                    i += self.bounded_lines(p, bytes, i, limit);
                }
            } else if b == 0x7f {
                p.delete();
                i += 1;
            } else if let took @ 1.. =
                p.print_utf8(if BOUNDED { &bytes[i..bytes.len().min(i + text_cap(p, i, limit))] } else { &bytes[i..] })
            {
                // Text the screen wrote in one pass.
                i += took;
            } else if let Some((c, len)) = decode_whole(&bytes[i..]) {
                // A whole, valid sequence in the buffer that the screen did not take: decoded in
                // place, no state kept.
                self.scalar(p, c);
                i += len;
            } else {
                self.utf8_start(p, b);
                i += 1;
                if self.utf8_need > 0 {
                    return i;
                }
            }
        }
        i
    }

    /// After an LF, bounded: the whole lines of plain text at `bytes[i..]` that
    /// [`Perform::print_lines`] takes, as many as cannot reach `limit` (each costs its bytes,
    /// a cell a byte of text and at most [`Perform::line_work`]); the rest come the general
    /// way, step by step. Returns the bytes taken.
    fn bounded_lines<P: Perform>(&mut self, p: &mut P, bytes: &[u8], i: usize, limit: u64) -> usize {
        let done = p.work().saturating_add(i as u64);
        if done >= limit || i >= bytes.len() {
            return 0;
        }
        // `s` bytes of lines (at least 2 a line) cost at most 2s + s/2 line_work: under the
        // half of what is left with s = left / (4 + line_work).
        let left = limit - done;
        let s = usize::try_from(left / (4 + p.line_work())).unwrap_or(usize::MAX);
        if s < 2 {
            return 0;
        }
        p.print_lines(&bytes[i..bytes.len().min(i.saturating_add(s))])
    }

    /// The state machine alone, one byte at a time, with none of the shortcuts above: what the
    /// tests hold [`Self::advance`] to.
    #[cfg(test)]
    fn advance_by_the_table<P: Perform>(&mut self, p: &mut P, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if matches!(self.state, State::Vt52Row | State::Vt52Col) {
                self.vt52_position_byte(p, b);
                i += 1;
                continue;
            }
            if self.utf8_need > 0 {
                if self.utf8_continue(p, b) {
                    i += 1;
                }
                continue;
            }
            if b < 0x80 {
                self.ascii(p, b);
            } else {
                self.utf8_start(p, b);
            }
            i += 1;
        }
    }

    /// A byte of VT52's ESC Y: its row, then its column, whatever they are (xterm).
    fn vt52_position_byte<P: Perform>(&mut self, p: &mut P, b: u8) {
        if self.state == State::Vt52Row {
            self.vt52_row = b;
            self.state = State::Vt52Col;
        } else {
            p.vt52_position(self.vt52_row, b);
            self.state = State::Ground;
        }
    }

    fn utf8_start<P: Perform>(&mut self, p: &mut P, b: u8) {
        // Only a sequence cut by the end of the buffer, or an invalid one, comes here.
        let need = match b {
            0xc2..=0xdf => 1,
            0xe0..=0xef => 2,
            0xf0..=0xf4 => 3,
            _ => return self.invalid(p, &[b]),
        };
        self.utf8[0] = b;
        self.utf8_len = 1;
        self.utf8_need = need;
    }

    /// Takes one byte of a multi-byte sequence; returns false when the byte does not
    /// continue it (a U+FFFD was produced and the byte must be read again).
    fn utf8_continue<P: Perform>(&mut self, p: &mut P, b: u8) -> bool {
        let (lo, hi) = if self.utf8_len == 1 { second_byte_range(self.utf8[0]) } else { (0x80, 0xbf) };
        if !(lo..=hi).contains(&b) {
            self.utf8_need = 0;
            let (pending, n) = (self.utf8, self.utf8_len as usize);
            self.invalid(p, &pending[..n]);
            return false;
        }
        self.utf8[self.utf8_len as usize] = b;
        self.utf8_len += 1;
        self.utf8_need -= 1;
        if self.utf8_need == 0 {
            let s = std::str::from_utf8(&self.utf8[..self.utf8_len as usize]);
            let c = s.ok().and_then(|s| s.chars().next()).unwrap_or('\u{fffd}');
            self.scalar(p, c);
        }
        true
    }

    /// Bytes that are not UTF-8 (see [`Perform::print_invalid`]): in a string, a U+FFFD.
    fn invalid<P: Perform>(&mut self, p: &mut P, bytes: &[u8]) {
        match self.state {
            State::Ground => p.print_invalid(bytes),
            _ => self.scalar(p, '\u{fffd}'),
        }
    }

    /// A decoded scalar value of U+0080 or above. U+0080..U+009F are not controls here (see
    /// the module's comment): in the ground state they are dropped, having no width.
    fn scalar<P: Perform>(&mut self, p: &mut P, c: char) {
        match self.state {
            State::Ground if (0x80..=0x9f).contains(&(c as u32)) => {}
            State::Ground => p.print(c),
            State::OscString => {
                let mut buf = [0u8; 4];
                self.osc_put(c.encode_utf8(&mut buf).as_bytes());
            }
            _ => {}
        }
    }

    /// Leaving a string state: an OSC is dispatched, and a DCS whose data was asked for
    /// (`terminated`: ST or BEL ended it, not CAN or SUB).
    fn end_string<P: Perform>(&mut self, p: &mut P, bel: bool, terminated: bool) {
        match self.state {
            State::OscString if !self.osc_overflow => p.osc_dispatch(&self.osc, bel),
            State::DcsPassthrough if self.dcs_wanted && terminated && !self.osc_overflow => p.dcs_dispatch(&self.osc),
            _ => {}
        }
        self.dcs_wanted = false;
    }

    fn enter(&mut self, state: State) {
        match state {
            State::Escape | State::CsiEntry | State::DcsEntry => {
                self.params.clear();
                self.private = 0;
                self.n_intermediates = 0;
                self.intermediate_overflow = false;
            }
            State::OscString => {
                self.osc.clear();
                self.osc_overflow = false;
            }
            _ => {}
        }
        self.state = state;
    }

    fn collect(&mut self, b: u8) {
        if self.n_intermediates < self.intermediates.len() {
            self.intermediates[self.n_intermediates] = b;
            self.n_intermediates += 1;
        } else {
            self.intermediate_overflow = true;
        }
    }

    fn osc_put(&mut self, bytes: &[u8]) {
        if self.osc.len() + bytes.len() > MAX_OSC {
            self.osc_overflow = true;
        } else if !self.osc_overflow {
            self.osc.extend_from_slice(bytes);
        }
    }

    fn param_byte(&mut self, b: u8) {
        self.params.read(&[b]);
    }

    /// Parses a complete CSI sequence at the start of `bytes` (just after `ESC [`) in one pass
    /// and dispatches it, returning its length. Returns None, having dispatched nothing, when
    /// the sequence is not whole in `bytes` or holds anything but the plain form
    /// `[private] params [intermediates] final`: the state machine then reads it again.
    #[inline]
    fn csi_whole<P: Perform>(&mut self, p: &mut P, bytes: &[u8]) -> Option<usize> {
        let mut j = 0;
        if let Some(&b @ b'<'..=b'?') = bytes.first() {
            self.private = b;
            j = 1;
        }
        if matches!(bytes.get(j), Some(b'0'..=b';')) {
            j += self.params.read(&bytes[j..]);
        }
        while let Some(&b @ 0x20..=0x2f) = bytes.get(j) {
            self.collect(b);
            j += 1;
        }
        match bytes.get(j) {
            Some(&f @ 0x40..=0x7e) => {
                self.csi_dispatch(p, f);
                Some(j + 1)
            }
            _ => None,
        }
    }

    /// A whole CSI sequence other than SGR that [`numeric_csi`] read, met among colour-dense
    /// cells: dispatched out of line, so that the loop that takes those cells stays small.
    #[inline(never)]
    fn dispatch_other<P: Perform>(&mut self, p: &mut P, f: u8) {
        p.csi_dispatch(&self.params, 0, &[], f);
    }

    fn csi_dispatch<P: Perform>(&mut self, p: &mut P, b: u8) {
        if !self.intermediate_overflow {
            p.csi_dispatch(&self.params, self.private, &self.intermediates[..self.n_intermediates], b);
        }
        self.state = State::Ground;
    }

    fn ascii<P: Perform>(&mut self, p: &mut P, b: u8) {
        use State::*;
        // Transitions from anywhere.
        match b {
            0x18 | 0x1a => {
                self.end_string(p, false, false);
                self.state = Ground;
                return;
            }
            0x1b => {
                // In a string state ESC starts the string terminator (ESC \).
                self.end_string(p, false, true);
                self.enter(Escape);
                return;
            }
            _ => {}
        }
        let c0 = b < 0x20;
        match self.state {
            Ground => {
                if c0 {
                    p.execute(b)
                } else if b != 0x7f {
                    p.print_ascii(&[b])
                } else {
                    p.delete()
                }
            }
            Escape if p.vt52() => match b {
                _ if c0 => p.execute(b),
                b'Y' => self.state = Vt52Row,
                0x20..=0x2f => {
                    self.collect(b);
                    self.state = EscapeIntermediate;
                }
                0x7f => {}
                _ => {
                    p.esc_dispatch(&[], b);
                    self.state = Ground;
                }
            },
            Escape => match b {
                _ if c0 => p.execute(b),
                0x20..=0x2f => {
                    self.collect(b);
                    self.state = EscapeIntermediate;
                }
                b'[' => self.enter(CsiEntry),
                b']' => self.enter(OscString),
                b'P' => self.enter(DcsEntry),
                b'X' | b'^' | b'_' => self.enter(SosPmApcString),
                0x7f => {}
                _ => {
                    p.esc_dispatch(&self.intermediates[..self.n_intermediates], b);
                    self.state = Ground;
                }
            },
            EscapeIntermediate => match b {
                _ if c0 => p.execute(b),
                0x20..=0x2f => self.collect(b),
                0x7f => {}
                _ => {
                    if !self.intermediate_overflow {
                        p.esc_dispatch(&self.intermediates[..self.n_intermediates], b);
                    }
                    self.state = Ground;
                }
            },
            CsiEntry => match b {
                _ if c0 => p.execute(b),
                0x20..=0x2f => {
                    self.collect(b);
                    self.state = CsiIntermediate;
                }
                b'0'..=b';' => {
                    self.param_byte(b);
                    self.state = CsiParam;
                }
                b'<'..=b'?' => {
                    self.private = b;
                    self.state = CsiParam;
                }
                0x7f => {}
                _ => self.csi_dispatch(p, b),
            },
            CsiParam => match b {
                _ if c0 => p.execute(b),
                b'0'..=b';' => self.param_byte(b),
                b'<'..=b'?' => self.state = CsiIgnore,
                0x20..=0x2f => {
                    self.collect(b);
                    self.state = CsiIntermediate;
                }
                0x7f => {}
                _ => self.csi_dispatch(p, b),
            },
            CsiIntermediate => match b {
                _ if c0 => p.execute(b),
                0x20..=0x2f => self.collect(b),
                0x30..=0x3f => self.state = CsiIgnore,
                0x7f => {}
                _ => self.csi_dispatch(p, b),
            },
            CsiIgnore => match b {
                _ if c0 => p.execute(b),
                0x40..=0x7e => self.state = Ground,
                _ => {}
            },
            DcsEntry | DcsParam | DcsIntermediate => match b {
                _ if c0 || b == 0x7f => {}
                0x20..=0x2f => {
                    self.collect(b);
                    self.state = DcsIntermediate;
                }
                b'0'..=b';' if self.state != DcsIntermediate => {
                    self.param_byte(b);
                    self.state = DcsParam;
                }
                b'<'..=b'?' if self.state == DcsEntry => {
                    self.private = b;
                    self.state = DcsParam;
                }
                0x30..=0x3f => self.state = DcsIgnore,
                _ => {
                    self.dcs_wanted = !self.intermediate_overflow
                        && p.dcs_hook(&self.params, self.private, &self.intermediates[..self.n_intermediates], b);
                    self.osc.clear();
                    self.osc_overflow = false;
                    self.state = DcsPassthrough;
                }
            },
            DcsPassthrough => {
                if self.dcs_wanted && !c0 && b != 0x7f {
                    self.osc_put(&[b]);
                }
            }
            DcsIgnore | SosPmApcString => {}
            // Taken by `advance` before a byte gets here.
            Vt52Row | Vt52Col => {}
            OscString => match b {
                0x07 => {
                    self.end_string(p, true, true);
                    self.state = Ground;
                }
                _ if c0 => {}
                _ => self.osc_put(&[b]),
            },
        }
    }
}

/// The bytes that may follow lead byte `lead` in a valid sequence (Unicode table 3-7): narrower
/// than 0x80..=0xBF after E0 and F0 (no overlong forms), ED (no surrogates) and F4 (nothing
/// above U+10FFFF).
#[inline]
fn second_byte_range(lead: u8) -> (u8, u8) {
    match lead {
        0xe0 => (0xa0, 0xbf),
        0xed => (0x80, 0x9f),
        0xf0 => (0x90, 0xbf),
        0xf4 => (0x80, 0x8f),
        _ => (0x80, 0xbf),
    }
}

/// Decodes the UTF-8 sequence starting `bytes` (its lead byte is 0x80 or above) when it is
/// whole and valid (the same ranges as the stateful decoder accepts: no overlong forms, no
/// surrogates, nothing above U+10FFFF), returning the character and its length. Anything else
/// is left to the stateful decoder, which also handles a sequence cut by the buffer's end.
#[inline(always)]
pub(crate) fn decode_whole(bytes: &[u8]) -> Option<(char, usize)> {
    // Four bytes at hand (all but the buffer's last three): the continuation bytes are tested
    // by their top bits, and overlong forms, surrogates and values above U+10FFFF by the value
    // they give, with no look-up of the second byte's range. (A byte-by-byte form, out of
    // line, cost 45 instructions a character on the unicode workload.)
    let Some(&[b0, b1, b2, b3]) = bytes.first_chunk::<4>() else { return decode_whole_short(bytes) };
    let cont = |b: u8| (b & 0xc0 == 0x80) as u32;
    let (cp, len) = if b0 < 0xe0 {
        // 0xc2..=0xdf: two bytes (0x80..=0xc1 are no lead: none, as 0xc0 and 0xc1 would be
        // overlong).
        if b0 < 0xc2 || cont(b1) == 0 {
            return None;
        }
        ((b0 as u32 & 0x1f) << 6 | (b1 as u32 & 0x3f), 2)
    } else if b0 < 0xf0 {
        let cp = (b0 as u32 & 0x0f) << 12 | (b1 as u32 & 0x3f) << 6 | (b2 as u32 & 0x3f);
        if cont(b1) & cont(b2) == 0 || cp < 0x800 {
            return None;
        }
        (cp, 3)
    } else {
        let cp = (b0 as u32 & 0x07) << 18 | (b1 as u32 & 0x3f) << 12 | (b2 as u32 & 0x3f) << 6 | (b3 as u32 & 0x3f);
        if b0 > 0xf4 || cont(b1) & cont(b2) & cont(b3) == 0 || cp < 0x1_0000 {
            return None;
        }
        (cp, 4)
    };
    // Surrogates and values above U+10FFFF are no characters.
    char::from_u32(cp).map(|c| (c, len))
}

/// [`decode_whole`] for a buffer's last three bytes: padded with zeros, which continue no
/// sequence, so one that the buffer cuts is left to the stateful decoder.
#[inline(never)]
fn decode_whole_short(bytes: &[u8]) -> Option<(char, usize)> {
    let mut word = [0u8; 4];
    word[..bytes.len()].copy_from_slice(bytes);
    decode_whole(&word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_sequences_decode_as_the_standard_library_does() {
        // Every scalar value, encoded, decodes to itself; every cut or invalid sequence is left
        // to the stateful decoder.
        let mut buf = [0u8; 4];
        for c in (0x80..=0x10ffff).filter_map(char::from_u32) {
            let s = c.encode_utf8(&mut buf);
            assert_eq!(decode_whole(s.as_bytes()), Some((c, s.len())), "{c:?}");
            assert_eq!(decode_whole(&s.as_bytes()[..s.len() - 1]), None, "{c:?} cut");
        }
        for bad in [&b"\xc0\xaf"[..], b"\xe0\x80\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xff", b"\x80"] {
            assert_eq!(decode_whole(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn every_lead_and_continuation_decodes_as_the_standard_library_decodes_it() {
        // Every first, second and third byte after a lead byte, with the fourth at each edge of
        // the continuation range and beyond it; whole (the word-at-a-time path) and cut to
        // 1-3 bytes (the buffer's last bytes, padded), each against `str::from_utf8`.
        fn reference(bytes: &[u8]) -> Option<(char, usize)> {
            let len = match bytes[0] {
                0xc2..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf4 => 4,
                _ => return None,
            };
            let s = std::str::from_utf8(bytes.get(..len)?).ok()?;
            s.chars().next().map(|c| (c, len))
        }
        let mut checked = 0u64;
        for b0 in 0x80..=0xffu8 {
            for b1 in 0..=0xffu8 {
                for b2 in 0..=0xffu8 {
                    for b3 in [0x00, 0x7f, 0x80, 0x8f, 0x90, 0xa0, 0xbf, 0xc0, 0xff] {
                        let w = [b0, b1, b2, b3];
                        assert_eq!(decode_whole(&w), reference(&w), "{w:02x?}");
                        checked += 1;
                    }
                    for cut in 1..=3 {
                        let w = &[b0, b1, b2][..cut];
                        assert_eq!(decode_whole(w), reference(w), "{w:02x?}");
                    }
                }
            }
        }
        assert_eq!(checked, 128 * 256 * 256 * 9);
    }

    /// Records what the parser recognised, as text, for assertions. In VT52 mode from a
    /// DECANM reset (`CSI ? 2 l`) to ESC <, as a screen is.
    #[derive(Default)]
    struct Log(Vec<String>, bool);

    impl Perform for Log {
        fn print_ascii(&mut self, run: &[u8]) {
            self.0.push(format!("print {}", String::from_utf8_lossy(run)));
        }
        fn print(&mut self, c: char) {
            self.0.push(format!("print {c}"));
        }
        fn execute(&mut self, control: u8) {
            self.0.push(format!("exec {control:#04x}"));
        }
        fn delete(&mut self) {
            self.0.push("del".into());
        }
        fn esc_dispatch(&mut self, i: &[u8], f: u8) {
            self.0.push(format!("esc {}{}", String::from_utf8_lossy(i), f as char));
            if self.1 && i.is_empty() && f == b'<' {
                self.1 = false;
            }
        }
        fn vt52(&self) -> bool {
            self.1
        }
        fn vt52_position(&mut self, row: u8, col: u8) {
            self.0.push(format!("vt52 position {row} {col}"));
        }
        fn csi_dispatch(&mut self, params: &Params, private: u8, i: &[u8], f: u8) {
            let groups: Vec<String> = params.groups().map(|g| format!("{g:?}")).collect();
            let private = if private == 0 { String::new() } else { (private as char).to_string() };
            self.0.push(format!("csi {private}{} {}{}", groups.join(""), String::from_utf8_lossy(i), f as char));
            if private == "?" && groups == ["[2]"] && i.is_empty() && f == b'l' {
                self.1 = true;
            }
        }
        fn osc_dispatch(&mut self, payload: &[u8], bel: bool) {
            let end = if bel { " (bel)" } else { "" };
            self.0.push(format!("osc {}{end}", String::from_utf8_lossy(payload)));
        }
        fn dcs_hook(&mut self, _params: &Params, _private: u8, i: &[u8], f: u8) -> bool {
            self.0.push(format!("dcs {}{}", String::from_utf8_lossy(i), f as char));
            i == b"$" && f == b'q'
        }
        fn dcs_dispatch(&mut self, data: &[u8]) {
            self.0.push(format!("dcs data {}", String::from_utf8_lossy(data)));
        }
    }

    fn parse(chunks: &[&[u8]]) -> Vec<String> {
        let mut p = Parser::new();
        let mut log = Log::default();
        for c in chunks {
            p.advance(&mut log, c);
        }
        log.0
    }

    #[test]
    fn vt52_mode_sends_esc_and_the_next_byte_and_esc_y_takes_two_bytes() {
        let s = b"\x1b[?2l\x1b[2J\x1bY\x1b\xc3x\x1b]\x1bF\x1b<\x1b[1m";
        let want = [
            "csi ?[2] l",
            "esc [",
            "print 2J",
            "vt52 position 27 195",
            "print x",
            "esc ]",
            "esc F",
            "esc <",
            "csi [1] m",
        ];
        assert_eq!(parse_joined(&[s]), want);
        for cut in 0..s.len() {
            assert_eq!(parse_joined(&[&s[..cut], &s[cut..]]), want, "cut at {cut}");
        }
        let mut reference = Log::default();
        Parser::new().advance_by_the_table(&mut reference, s);
        assert_eq!(join_runs(reference.0), want);
    }

    #[test]
    fn text_controls_and_csi() {
        assert_eq!(
            parse(&[b"ab\r\n\x1b[1;22H\x1b[?25l"]),
            ["print ab", "exec 0x0d", "exec 0x0a", "csi [1][22] H", "csi ?[25] l"]
        );
    }

    #[test]
    fn lines_of_text_give_the_same_calls_however_the_input_is_cut() {
        // The line-end shortcut after a run of text (CR LF taken at once) must not change what
        // is recognised: cut at every byte, including between CR and LF.
        let s = b"ab\r\ncd\r\n\r\nef\r\x1b[1m\r\ng\n\r\n";
        let whole = parse(&[s]);
        assert_eq!(whole[..4], ["print ab", "exec 0x0d", "exec 0x0a", "print cd"]);
        for cut in 0..s.len() {
            // A run of text cut in two arrives as two runs.
            assert_eq!(parse_joined(&[&s[..cut], &s[cut..]]), whole, "cut at {cut}");
        }
    }

    /// The calls for `chunks`, with consecutive runs of ASCII text joined (chunks cut runs, and
    /// ignored bytes such as DEL split them).
    fn parse_joined(chunks: &[&[u8]]) -> Vec<String> {
        join_runs(parse(chunks))
    }

    fn join_runs(calls: Vec<String>) -> Vec<String> {
        let mut joined: Vec<String> = Vec::new();
        for part in calls {
            let ascii_run = |s: &str| s.strip_prefix("print ").filter(|t| t.is_ascii()).map(str::to_owned);
            match (joined.last_mut(), ascii_run(&part)) {
                (Some(last), Some(t)) if ascii_run(last).is_some() => last.push_str(&t),
                _ => joined.push(part),
            }
        }
        joined
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// The ground state takes whole sequences in one step and hands cut ones to the state
        /// machine: any stream of text, controls, escapes, CSI, OSC, DCS and UTF-8 pieces, fed
        /// whole, cut in two anywhere, or a byte at a time, is recognised as the state machine
        /// alone recognises it.
        #[test]
        fn a_stream_is_recognised_as_the_state_machine_alone_recognises_it(
            pieces in proptest::collection::vec(proptest::sample::select(vec![
                &b"a"[..], b"xyz", b"\r\n", b"\r", b"\n", b"\x08", b"\x07", b"\x00", b"\x7f", b"\x18", b"\x1a",
                b"\x1b", b"\x1b[", b"\x1b[1;2H", b"\x1b[m", b"\x1b[1m", b"\x1b[42m", b"\x1b[107m",
                b"\x1b[38:5:1m", b"\x1b[?25l", b"\x1b[>c", b"\x1b[ q",
                b"\x1b[1$p", b"1", b";", b":", b"?", b"m", b"\x1b(0", b"\x1b(", b"\x1b)B", b"\x1b7", b"\x1b8",
                b"\x1bM", b"\x1bP", b"\x1bP$qm", b"\x1b\\", b"\x1b]0;t", b"\x1b]", b"\x1bX", b"\x1b^", b"\x1b_",
                b"\x1b[", b"\x1b#8", b"\x1b %", b"\x1b\x7f", b"\x1b\r", b"\xc3\xa9", b"\xe5\xad\x97", b"\xe5",
                b"\xad", b"\xf0\x9f\x98\x80", b"\xc2\x9b", b"\x80", b"\xff", b"\x9b",
                b"\x1b[?2l", b"\x1b<", b"\x1bY", b"\x1bY!!", b"\x1bA",
                // Colour-dense cells, read by masks when the buffer holds 52 bytes after `ESC [`.
                b"\x1b[38;5;196;48;5;21m", b"\x1b[38;2;255;128;0;48;2;1;22;133m", b"\x1b[0;1;4;38;5;9m",
                b"\x1b[;;m", b"12345", b"\x1b[1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1m",
            ]), 0..60),
            cut in 0usize..1000,
        ) {
            let s: Vec<u8> = pieces.concat();
            let mut reference = Log::default();
            Parser::new().advance_by_the_table(&mut reference, &s);
            let reference = join_runs(reference.0);
            proptest::prop_assert_eq!(&parse_joined(&[&s]), &reference, "whole");
            let bytes: Vec<&[u8]> = s.chunks(1).collect();
            proptest::prop_assert_eq!(&parse_joined(&bytes), &reference, "a byte at a time");
            let cut = cut % (s.len() + 1);
            proptest::prop_assert_eq!(&parse_joined(&[&s[..cut], &s[cut..]]), &reference, "cut at {}", cut);
        }
    }

    #[test]
    fn the_shortest_sgrs_are_recognised_as_the_state_machine_recognises_them() {
        // `CSI m` and `CSI Ps m` with one or two digits take a lane of their own; three digits,
        // two parameters, a private marker or an intermediate go the general way. Each is
        // followed by text and fed whole, and must read as the table reads it.
        let mut forms: Vec<String> = vec![String::new()];
        forms.extend((0..10).map(|d| d.to_string()));
        forms.extend((0..100).map(|n| format!("{n:02}")));
        forms.extend(["100", "007", "1;", ";1", "?1", "1 ", "1:2", ":"].map(String::from));
        for form in forms {
            let s = format!("\x1b[{form}mx\x1b[{form}m");
            let mut reference = Log::default();
            Parser::new().advance_by_the_table(&mut reference, s.as_bytes());
            assert_eq!(parse_joined(&[s.as_bytes()]), join_runs(reference.0), "CSI {form} m");
        }
        assert_eq!(parse(&[b"\x1b[mx\x1b[7m\x1b[42my"]), ["csi  m", "print x", "csi [7] m", "csi [42] m", "print y"]);
    }

    #[test]
    fn colon_subparameters_group_with_their_parameter() {
        assert_eq!(parse(&[b"\x1b[38:2::10:20:30;1m"]), ["csi [38, 2, 0, 10, 20, 30][1] m"]);
    }

    #[test]
    fn controls_inside_csi_are_executed_in_place() {
        assert_eq!(parse(&[b"\x1b[1\r2H"]), ["exec 0x0d", "csi [12] H"]);
    }

    #[test]
    fn osc_ends_with_bel_or_st_and_may_be_split() {
        assert_eq!(parse(&[b"\x1b]0;ti", b"tle\x07"]), ["osc 0;title (bel)"]);
        assert_eq!(parse(&[b"\x1b]2;t\x1b", b"\\x"]), ["osc 2;t", "esc \\", "print x"]);
    }

    #[test]
    fn an_oversized_osc_is_dropped_whole() {
        let mut s = b"\x1b]2;".to_vec();
        s.extend(std::iter::repeat_n(b'x', MAX_OSC + 10));
        s.extend(b"\x07ok");
        assert_eq!(parse(&[&s]), ["print ok"]);
    }

    #[test]
    fn utf8_split_across_reads_decodes_once() {
        let s = "é字😀".as_bytes();
        for cut in 0..s.len() {
            assert_eq!(parse(&[&s[..cut], &s[cut..]]), ["print é", "print 字", "print 😀"], "cut at {cut}");
        }
    }

    #[test]
    fn invalid_utf8_becomes_replacement_characters() {
        // A truncated 3-byte sequence, a lone continuation byte, an overlong lead byte.
        assert_eq!(parse(&[b"\xe5\x97a\x80\xc0"]), ["print \u{fffd}", "print a", "print \u{fffd}", "print \u{fffd}"]);
    }

    #[test]
    fn c1_controls_encoded_in_utf8_are_not_executed() {
        // U+009B (CSI), U+009D (OSC), U+0085 (NEL), U+0084 (IND), U+0090 (DCS): no sequence
        // starts, nothing is executed, the text around them prints (xterm's UTF-8 mode).
        assert_eq!(parse(&["\u{9b}2J".as_bytes()]), ["print 2J"]);
        assert_eq!(parse(&["a\u{85}b\u{84}c\u{90}d".as_bytes()]), ["print a", "print b", "print c", "print d"]);
        // (The letter before a UTF-8 sequence goes with its run, so the text comes in two calls.)
        assert_eq!(parse_joined(&["\u{9d}0;x\u{9c}".as_bytes()]), ["print 0;x"]);
    }

    /// Every number of up to four digits (leading zeros too), followed by every byte, at the
    /// start, the middle and the last place of a block: what the byte at a time loop reads.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn numbers_read_a_word_at_a_time_are_what_the_byte_at_a_time_loop_reads() {
        let mut checked = 0;
        for n in 0..=4u32 {
            for value in 0..10u32.pow(n) {
                let digits = format!("{value:0width$}", width = n as usize);
                let digits = if n == 0 { String::new() } else { digits };
                for after in 0..=255u8 {
                    for start in [0, 17, 48 - n as usize] {
                        let mut block = [after; 52];
                        block[start..start + n as usize].copy_from_slice(digits.as_bytes());
                        let mut p = Params::default();
                        p.read(&block[start..start + n as usize]);
                        assert_eq!(
                            number(&block, start, n as usize),
                            p.raw(0),
                            "{digits:?} then {after:#x} at {start}"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 11_111 * 256 * 3);
        // Longer ones saturate as the loop does.
        let block = *b"0000065535;65536;123456789;00000000000000000001;m...";
        assert_eq!(
            [number(&block, 0, 10), number(&block, 11, 5), number(&block, 17, 9), number(&block, 27, 20)],
            [65535, 65535, 65535, 1]
        );
    }

    /// CSI parameters of every shape (empty ones, numbers of every length, as many as fit and
    /// more, sub-parameters, private markers, intermediates, a control inside, every final
    /// byte), with what follows them in the buffer: where [`numeric_csi`] reads a sequence, its
    /// parameters and length are what [`Params::read`] gives, and it reads every sequence of
    /// numbers and semicolons that ends in a final byte within 48 bytes with under 32 numbers.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn whole_sequences_read_by_masks_give_the_parameters_the_byte_at_a_time_loop_gives() {
        let numbers = ["", "0", "5", "38", "255", "1000", "9999", "65535", "65536", "000007", "123456"];
        let mut taken = 0;
        let mut checked = 0;
        for count in 0..=34usize {
            for shape in 0..numbers.len() * 3 {
                let mut body = String::new();
                for k in 0..count {
                    if k > 0 {
                        body.push(if shape >= numbers.len() * 2 && k == count / 2 { ':' } else { ';' });
                    }
                    body.push_str(numbers[(shape + k * 7) % numbers.len()]);
                }
                for end in ["m", "H", "@", "~", "?m", " q", "\n", ":m", "\x1b", "\u{7f}"] {
                    for lead in ["", "?", ">"] {
                        let text = format!("{lead}{body}{end}");
                        let mut buf = text.into_bytes();
                        buf.resize(buf.len().max(52) + 8, b'7');
                        let mut fast = Params::default();
                        let mut slow = Params::default();
                        // As the parser reads them: only a parameter byte starts parameters.
                        let read = if lead.is_empty() && matches!(buf[0], b'0'..=b';') { slow.read(&buf) } else { 0 };
                        match numeric_csi(&buf, &mut fast) {
                            Some(n) => {
                                assert!(lead.is_empty() && (0x40..=0x7e).contains(&buf[read]), "{buf:?}");
                                assert_eq!(n, read + 1, "{buf:?}");
                                assert_eq!(
                                    (fast.values(), fast.sub, fast.full),
                                    (slow.values(), slow.sub, slow.full),
                                    "{buf:?}"
                                );
                                taken += 1;
                            }
                            None => {
                                let simple = lead.is_empty()
                                    && read < 48
                                    && (0x40..=0x7e).contains(&buf[read])
                                    && !buf[..read].contains(&b':')
                                    && buf[..read].iter().filter(|&&b| b == b';').count() < MAX_PARAMS - 1;
                                assert!(!simple, "not read by masks: {buf:?}");
                            }
                        }
                        checked += 1;
                    }
                }
            }
        }
        assert!(taken > 1000 && checked > 20_000, "{taken} of {checked}");
    }

    #[test]
    fn too_many_parameters_are_dropped_not_stored() {
        let mut s = b"\x1b[".to_vec();
        for _ in 0..100 {
            s.extend(b"1;");
        }
        s.push(b'm');
        let out = parse(&[&s]);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].matches('[').count(), MAX_PARAMS);
    }

    #[test]
    fn parameters_read_the_same_however_the_input_is_cut() {
        // Sub-parameters, empty ones, a number past 65535 (saturates), and more parameters
        // than are kept: every cut gives what the whole sequence gives.
        let mut s = b"\x1b[38:2::10:20:30;;1;99999999;48;5;7".to_vec();
        for i in 0..40 {
            s.extend(format!(";{i}").as_bytes());
        }
        s.push(b'm');
        let whole = parse(&[&s]);
        assert!(whole[0].starts_with("csi [38, 2, 0, 10, 20, 30][0][1][65535][48][5][7][0][1]"), "{whole:?}");
        // MAX_PARAMS values kept: the first group holds six of them.
        assert_eq!(whole[0].matches('[').count(), MAX_PARAMS - 5, "{whole:?}");
        for cut in 0..s.len() {
            assert_eq!(parse(&[&s[..cut], &s[cut..]]), whole, "cut at {cut}");
        }
    }

    #[test]
    fn can_and_sub_abort_a_sequence() {
        assert_eq!(parse(&[b"\x1b[12\x18x"]), ["print x"]);
    }

    #[test]
    fn dcs_data_goes_where_the_hook_asked_and_apc_is_swallowed() {
        // The Log asks for DECRQSS (DCS $ q) data only.
        assert_eq!(
            parse(&[b"\x1bP$q\"q\x1b\\a\x1bP1+q544e\x1b\\b\x1b_hidden\x1b\\c"]),
            ["dcs $q", "dcs data \"q", "esc \\", "print a", "dcs +q", "esc \\", "print b", "esc \\", "print c"]
        );
        // Split anywhere, the data arrives whole; CAN cancels it.
        let s = b"\x1bP$qm\x1b\\";
        for cut in 0..s.len() {
            assert_eq!(parse(&[&s[..cut], &s[cut..]]), ["dcs $q", "dcs data m", "esc \\"], "cut at {cut}");
        }
        assert_eq!(parse(&[b"\x1bP$qm\x18x"]), ["dcs $q", "print x"]);
        // Longer than the cap: dropped whole.
        let mut s = b"\x1bP$q".to_vec();
        s.extend(std::iter::repeat_n(b'r', MAX_OSC + 1));
        s.extend(b"\x1b\\");
        assert_eq!(parse(&[&s]), ["dcs $q", "esc \\"]);
    }
}
