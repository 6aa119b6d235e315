//! Runs of printable ASCII: finding where one ends, and writing one into cells. The engine's
//! one audited `unsafe` module.
//!
//! Plain text is most of what programs write, so the parser hands whole runs of bytes in
//! 0x20..=0x7E to the screen at once. This module finds where such a run ends, and widens it
//! into cells, sixteen bytes at a time with SSE2 (part of every x86-64 CPU), and byte by byte
//! elsewhere.

use crate::cell::Cell;

/// Writes `src` into `dst` (the shorter decides) as cells of one style: what
/// `Cell::ascii(b, style)` gives for each byte.
#[inline]
pub fn write_ascii(dst: &mut [Cell], src: &[u8], style: u32) {
    let n = dst.len().min(src.len());
    #[cfg(target_arch = "x86_64")]
    let done = sse2::write_ascii(&mut dst[..n], &src[..n], style);
    #[cfg(not(target_arch = "x86_64"))]
    let done = 0;
    for (d, &b) in dst[done..n].iter_mut().zip(&src[done..n]) {
        *d = Cell::ascii(b, style);
    }
}

/// Returns the length of the longest prefix of `bytes` whose bytes are all printable ASCII
/// (0x20..=0x7E).
#[inline]
pub fn printable_ascii_len(bytes: &[u8]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        sse2::printable_ascii_len(bytes)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        scalar_len(bytes, 0)
    }
}

/// Counts the whole lines at the start of `bytes`, each printable ASCII of at most `cols`
/// bytes then CR LF (what the screen takes at once in a flood); returns how many, and the
/// bytes they take. By blocks of 64 bytes with SSE2 for screens of 63 columns or more (a line
/// inside a block is then never too wide, so only the lines that cross blocks are measured): a
/// flood of short lines (`yes`) costs its bytes, not a step per line. Narrower screens go a line
/// at a time.
pub fn whole_lines(bytes: &[u8], cols: usize) -> (usize, usize) {
    #[cfg(target_arch = "x86_64")]
    let end = if cols >= 63 { sse2::whole_lines_end(bytes, cols) } else { 0 };
    #[cfg(not(target_arch = "x86_64"))]
    let end = 0;
    // Each whole line holds one LF, its last byte: counted at memchr's speed.
    let lines = memchr::memchr_iter(b'\n', &bytes[..end]).count();
    let (more, taken) = whole_lines_scalar(&bytes[end..], cols);
    (lines + more, end + taken)
}

/// The length of the text of the line at the start of `bytes` when it is a whole line:
/// printable ASCII, at most `cols` bytes, then CR LF (which it does not count). `None` for
/// anything else (a longer line wraps; a control or UTF-8 goes the general way).
#[inline]
pub fn whole_line(bytes: &[u8], cols: usize) -> Option<usize> {
    let n = printable_ascii_len(bytes);
    (n <= cols && bytes.get(n..n + 2) == Some(b"\r\n")).then_some(n)
}

/// Two masks of the 48 bytes at the start of `bytes` (which holds at least 48), bit k for byte
/// k: digits, and semicolons, up to the first byte that is neither: the bits past the 16 bytes
/// that hold it are left 0. What the parser finds an SGR's numbers by.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn digits_and_semicolons(bytes: &[u8]) -> (u64, u64) {
    sse2::digits_and_semicolons(bytes)
}

/// [`whole_lines`] a line at a time: the definition.
fn whole_lines_scalar(bytes: &[u8], cols: usize) -> (usize, usize) {
    let (mut lines, mut at) = (0, 0);
    while let Some(n) = whole_line(&bytes[at..], cols) {
        lines += 1;
        at += n + 2;
    }
    (lines, at)
}

#[inline]
fn is_printable(b: u8) -> bool {
    (0x20..0x7f).contains(&b)
}

fn scalar_len(bytes: &[u8], start: usize) -> usize {
    bytes[start..].iter().position(|&b| !is_printable(b)).map_or(bytes.len(), |p| start + p)
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi8, _mm_and_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cvtsi32_si128, _mm_cvtsi64_si128,
        _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi32, _mm_set1_epi8, _mm_setzero_si128,
        _mm_storeu_si128, _mm_unpackhi_epi16, _mm_unpackhi_epi32, _mm_unpackhi_epi8, _mm_unpacklo_epi16,
        _mm_unpacklo_epi32, _mm_unpacklo_epi8, _mm_xor_si128,
    };

    use crate::cell::Cell;

    // A cell is two little-endian u32 words, content then style (`#[repr(C)]`), and an ASCII
    // cell's content is the byte itself: the layout the stores below write.
    const _: () = assert!(std::mem::size_of::<Cell>() == 8);

    /// Widens `src` into `dst` (equal lengths) sixteen bytes at a time when it has at least
    /// sixteen, and a shorter run of four or more as two blocks of eight or of four that
    /// overlap; returns how many were written (all, or none for fewer than four).
    #[inline(always)]
    pub fn write_ascii(dst: &mut [Cell], src: &[u8], style: u32) -> usize {
        debug_assert_eq!(dst.len(), src.len());
        let n = src.len();
        // Short runs (text between cursor moves): no loop whose end is mispredicted.
        if n < 16 {
            if n >= 8 {
                widen8(dst, src, 0, style);
                widen8(dst, src, n - 8, style);
                return n;
            }
            if n >= 4 {
                widen4(dst, src, 0, style);
                widen4(dst, src, n - 4, style);
                return n;
            }
            return 0;
        }
        let mut i = 0;
        while i + 16 <= n {
            widen16(dst, src, i, style);
            i += 16;
        }
        if i < n {
            // The last few bytes: the last sixteen are widened again, overlapping cells just
            // written with the same values (the scalar loop took about five instructions a
            // cell, and the average line ends with eight).
            widen16(dst, src, n - 16, style);
        }
        n
    }

    /// Writes the four 32-bit lanes of `quad` (a byte each, zero-extended) as four cells of
    /// style `sty` at `out`: each cell as its two u32 words, content then style, which is
    /// `Cell`'s `#[repr(C)]` layout on this little-endian target.
    ///
    /// # Safety
    /// `out` points at four cells that may be written. (The unaligned stores have no alignment
    /// requirement; SSE2 is part of the x86-64 baseline.)
    #[inline(always)]
    unsafe fn store4(out: *mut Cell, quad: __m128i, sty: __m128i) {
        let out = out as *mut __m128i;
        _mm_storeu_si128(out, _mm_unpacklo_epi32(quad, sty));
        _mm_storeu_si128(out.add(1), _mm_unpackhi_epi32(quad, sty));
    }

    /// As [`store4`], for the eight 16-bit lanes of `half` as eight cells.
    ///
    /// # Safety
    /// `out` points at eight cells that may be written.
    #[inline(always)]
    unsafe fn store8(out: *mut Cell, half: __m128i, sty: __m128i) {
        let zero = _mm_setzero_si128();
        store4(out, _mm_unpacklo_epi16(half, zero), sty);
        store4(out.add(4), _mm_unpackhi_epi16(half, zero), sty);
    }

    /// Widens `src[i..i + 4]` into `dst[i..i + 4]`.
    #[inline(always)]
    fn widen4(dst: &mut [Cell], src: &[u8], i: usize, style: u32) {
        assert!(i + 4 <= src.len() && src.len() == dst.len());
        let word = u32::from_le_bytes(src[i..i + 4].try_into().unwrap());
        // SAFETY: asserted `i + 4 <= dst.len()`: the 4 cells written lie inside `dst`.
        unsafe {
            let zero = _mm_setzero_si128();
            let quad = _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(word as i32), zero), zero);
            store4(dst.as_mut_ptr().add(i), quad, _mm_set1_epi32(style as i32));
        }
    }

    /// Widens `src[i..i + 8]` into `dst[i..i + 8]`.
    #[inline(always)]
    fn widen8(dst: &mut [Cell], src: &[u8], i: usize, style: u32) {
        assert!(i + 8 <= src.len() && src.len() == dst.len());
        let word = u64::from_le_bytes(src[i..i + 8].try_into().unwrap());
        // SAFETY: asserted `i + 8 <= dst.len()`: the 8 cells written lie inside `dst`.
        unsafe {
            let half = _mm_unpacklo_epi8(_mm_cvtsi64_si128(word as i64), _mm_setzero_si128());
            store8(dst.as_mut_ptr().add(i), half, _mm_set1_epi32(style as i32));
        }
    }

    /// Widens `src[i..i + 16]` into `dst[i..i + 16]`.
    #[inline(always)]
    fn widen16(dst: &mut [Cell], src: &[u8], i: usize, style: u32) {
        assert!(i + 16 <= src.len() && src.len() == dst.len());
        // SAFETY: asserted `i + 16 <= src.len() == dst.len()`: the 16 bytes read lie inside
        // `src` (the unaligned load has no alignment requirement) and the 16 cells written
        // lie inside `dst`.
        unsafe {
            let (zero, sty) = (_mm_setzero_si128(), _mm_set1_epi32(style as i32));
            let chunk = _mm_loadu_si128(src.as_ptr().add(i) as *const __m128i);
            let out = dst.as_mut_ptr().add(i);
            store8(out, _mm_unpacklo_epi8(chunk, zero), sty);
            store8(out.add(8), _mm_unpackhi_epi8(chunk, zero), sty);
        }
    }

    /// See `super::digits_and_semicolons`. Digits are the bytes above `/` and below `:` as
    /// signed bytes (bytes from 0x80 are negative, so never digits).
    #[inline(always)]
    pub fn digits_and_semicolons(bytes: &[u8]) -> (u64, u64) {
        assert!(bytes.len() >= 48);
        let (mut digits, mut semicolons) = (0u64, 0u64);
        for k in 0..3 {
            if k > 0 && (digits | semicolons) != (1u64 << (16 * k)) - 1 {
                // A byte that is neither came before: the masks past it are not looked at.
                // (Most sequences end in the first 16 bytes: this saves two of the three
                // loads and compares, about 20 instructions a sequence.)
                break;
            }
            // SAFETY: asserted `bytes.len() >= 48`: the 16 bytes read at `16 * k` (k < 3) lie
            // inside `bytes`; the unaligned load has no alignment requirement, and SSE2 is part
            // of x86-64.
            let (d, s) = unsafe {
                let chunk = _mm_loadu_si128(bytes.as_ptr().add(16 * k) as *const __m128i);
                let digit = _mm_and_si128(
                    _mm_cmpgt_epi8(chunk, _mm_set1_epi8(b'/' as i8)),
                    _mm_cmpgt_epi8(_mm_set1_epi8(b':' as i8), chunk),
                );
                let semicolon = _mm_cmpeq_epi8(chunk, _mm_set1_epi8(b';' as i8));
                (_mm_movemask_epi8(digit) as u32 as u64, _mm_movemask_epi8(semicolon) as u32 as u64)
            };
            digits |= d << (16 * k);
            semicolons |= s << (16 * k);
        }
        (digits, semicolons)
    }

    /// Three masks of the 64 bytes at `bytes[i..]` (bit k for byte i + k): bytes that are
    /// neither printable ASCII nor CR nor LF, CRs, and LFs. A byte b is printable ASCII
    /// (0x20..=0x7E) exactly when b + 1 (wrapping), as a signed byte, is above 0x20: 0x7F
    /// becomes -128, and 0x80..=0xFF negative or 0.
    #[inline(always)]
    fn line_masks(bytes: &[u8], i: usize) -> (u64, u64, u64) {
        assert!(i + 64 <= bytes.len());
        let (mut other, mut cr, mut lf) = (0u64, 0u64, 0u64);
        for k in 0..4 {
            // SAFETY: asserted `i + 64 <= bytes.len()`: the 16 bytes read at `i + 16 * k`
            // (k < 4) lie inside `bytes`; the unaligned load has no alignment requirement, and
            // SSE2 is part of x86-64.
            let (o, c, l) = unsafe {
                let chunk = _mm_loadu_si128(bytes.as_ptr().add(i + 16 * k) as *const __m128i);
                let printable = _mm_cmpgt_epi8(_mm_add_epi8(chunk, _mm_set1_epi8(1)), _mm_set1_epi8(0x20));
                (
                    !_mm_movemask_epi8(printable) as u32 & 0xffff,
                    _mm_movemask_epi8(_mm_cmpeq_epi8(chunk, _mm_set1_epi8(b'\r' as i8))) as u32,
                    _mm_movemask_epi8(_mm_cmpeq_epi8(chunk, _mm_set1_epi8(b'\n' as i8))) as u32,
                )
            };
            other |= (o as u64) << (16 * k);
            cr |= (c as u64) << (16 * k);
            lf |= (l as u64) << (16 * k);
        }
        (other & !(cr | lf), cr, lf)
    }

    /// Where the whole lines at the start of `bytes` end (see `super::whole_lines`), found by
    /// blocks of 64 bytes, for `cols >= 63`: up to the block where the lines stop being whole
    /// (the caller goes on a line at a time from there).
    pub fn whole_lines_end(bytes: &[u8], cols: usize) -> usize {
        debug_assert!(cols >= 63);
        // `start`: where the line being read starts; `end`: just after the last whole line;
        // `carry`: the block before ended in CR (so this one must start with its LF).
        let (mut start, mut end) = (0, 0);
        let mut i = 0;
        let mut carry = 0;
        while i + 64 <= bytes.len() {
            let (other, cr, lf) = line_masks(bytes, i);
            // Every CR must be followed by an LF and every LF preceded by a CR.
            let broken = other | (lf ^ ((cr << 1) | carry));
            let good_lf = if broken == 0 { lf } else { lf & ((1 << broken.trailing_zeros()) - 1) };
            if good_lf != 0 {
                // The line ending at the first LF may have begun blocks ago; those after it in
                // this block are under 64 bytes, never wider than the screen.
                let first = i + good_lf.trailing_zeros() as usize;
                if first - 1 - start > cols {
                    return end;
                }
                start = i + (63 - good_lf.leading_zeros()) as usize + 1;
                end = start;
            }
            // The line running on into the next block is already too wide (its bytes so far
            // are printable, and a CR at most).
            if broken != 0 || i + 64 - start > cols + 1 {
                return end;
            }
            carry = cr >> 63;
            i += 64;
        }
        end
    }

    pub fn printable_ascii_len(bytes: &[u8]) -> usize {
        let mut i = 0;
        // Flip the sign bit so that a signed compare orders bytes as unsigned ones:
        // a byte is printable when (b ^ 0x80) > (0x1f ^ 0x80) and (b ^ 0x80) < (0x7f ^ 0x80).
        while i + 16 <= bytes.len() {
            // SAFETY: `i + 16 <= bytes.len()`, so the 16 bytes read start and end inside
            // `bytes`; `_mm_loadu_si128` has no alignment requirement, and SSE2 is part of
            // the x86-64 baseline, so the intrinsics are available on every target CPU.
            let mask = unsafe {
                let chunk = _mm_loadu_si128(bytes.as_ptr().add(i) as *const __m128i);
                let flipped = _mm_xor_si128(chunk, _mm_set1_epi8(i8::MIN));
                let below = _mm_cmpgt_epi8(_mm_set1_epi8((0x20u8 ^ 0x80) as i8), flipped);
                let above = _mm_cmpgt_epi8(flipped, _mm_set1_epi8((0x7eu8 ^ 0x80) as i8));
                _mm_movemask_epi8(_mm_or_si128(below, above)) as u32
            };
            if mask != 0 {
                return i + mask.trailing_zeros() as usize;
            }
            i += 16;
        }
        super::scalar_len(bytes, i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writing_a_run_gives_the_cells_of_each_byte_at_every_length() {
        for len in 0..70 {
            let src: Vec<u8> = (0..len).map(|i| 0x20 + (i * 7 % 95) as u8).collect();
            for style in [0u32, 1, 0xdead_beef, u32::MAX] {
                let mut dst = vec![Cell::blank(3); len + 3];
                write_ascii(&mut dst[..len], &src, style);
                for (i, &b) in src.iter().enumerate() {
                    assert_eq!(dst[i], Cell::ascii(b, style), "len {len} at {i}");
                }
                assert!(dst[len..].iter().all(|&c| c == Cell::blank(3)), "nothing written past the run");
            }
        }
    }

    /// Lines of every length from 0 to past `cols`, ended by CR LF, with one byte at one
    /// place replaced by each byte that matters (every control, DEL, 8-bit, a printable one).
    #[test]
    fn whole_lines_agree_with_the_line_at_a_time_definition_everywhere() {
        let mut checked = 0;
        for cols in [1, 2, 15, 16, 17, 31, 40, 62, 63, 64, 80, 130] {
            for seed in 0..40usize {
                // Line lengths from a little walk, so that lines cross blocks every way.
                let mut text = Vec::new();
                let mut len = seed % (cols + 3);
                for _ in 0..12 {
                    text.extend((0..len).map(|k| 0x20 + ((seed + 3 * k) % 95) as u8));
                    text.extend_from_slice(b"\r\n");
                    len = (len * 7 + seed + 5) % (cols + 3);
                }
                assert_eq!(whole_lines(&text, cols), whole_lines_scalar(&text, cols), "cols {cols} seed {seed}");
                for pos in 0..text.len() {
                    for b in (0u8..0x20).chain([b'a', 0x7f, 0x80, 0xc3, 0xff]) {
                        let mut t = text.clone();
                        t[pos] = b;
                        assert_eq!(
                            whole_lines(&t, cols),
                            whole_lines_scalar(&t, cols),
                            "cols {cols} seed {seed} pos {pos} byte {b:#x}"
                        );
                        checked += 1;
                    }
                    let cut = &text[..pos];
                    assert_eq!(whole_lines(cut, cols), whole_lines_scalar(cut, cols), "cut at {pos}");
                }
            }
        }
        assert!(checked > 100_000);
        assert_eq!(whole_lines(&b"y\r\n".repeat(1000), 80), (1000, 3000));
    }

    #[test]
    fn agrees_with_the_definition_at_every_position_and_byte() {
        for len in 0..40 {
            for pos in 0..len {
                for bad in [0x00u8, 0x1b, 0x1f, 0x7f, 0x80, 0xff] {
                    let mut v = vec![b'a'; len];
                    v[pos] = bad;
                    assert_eq!(printable_ascii_len(&v), pos, "len {len} pos {pos} byte {bad:#x}");
                }
            }
            assert_eq!(printable_ascii_len(&vec![b'~'; len]), len);
        }
        let all: Vec<u8> = (0x20..0x7f).collect();
        assert_eq!(printable_ascii_len(&all), all.len());
    }
}
