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
        __m128i, _mm_cmpgt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi32, _mm_set1_epi8,
        _mm_setzero_si128, _mm_storeu_si128, _mm_unpackhi_epi16, _mm_unpackhi_epi32, _mm_unpackhi_epi8,
        _mm_unpacklo_epi16, _mm_unpacklo_epi32, _mm_unpacklo_epi8, _mm_xor_si128,
    };

    use crate::cell::Cell;

    // A cell is two little-endian u32 words, content then style (`#[repr(C)]`), and an ASCII
    // cell's content is the byte itself: the layout the stores below write.
    const _: () = assert!(std::mem::size_of::<Cell>() == 8);

    /// Widens `src` into `dst` (equal lengths) sixteen bytes at a time when it has at least
    /// sixteen; returns how many were written (all or none).
    pub fn write_ascii(dst: &mut [Cell], src: &[u8], style: u32) -> usize {
        debug_assert_eq!(dst.len(), src.len());
        let mut i = 0;
        while i + 16 <= src.len() {
            widen16(dst, src, i, style);
            i += 16;
        }
        if i < src.len() && src.len() >= 16 {
            // The last few bytes: the last sixteen are widened again, overlapping cells just
            // written with the same values (the scalar loop took about five instructions a
            // cell, and the average line ends with eight).
            widen16(dst, src, src.len() - 16, style);
            i = src.len();
        }
        i
    }

    /// Widens `src[i..i + 16]` into `dst[i..i + 16]`.
    #[inline(always)]
    fn widen16(dst: &mut [Cell], src: &[u8], i: usize, style: u32) {
        assert!(i + 16 <= src.len() && src.len() == dst.len());
        // SAFETY: asserted `i + 16 <= src.len() == dst.len()`: the 16 bytes read lie inside
        // `src` and the 16 cells (128 bytes) written lie inside `dst`. The unaligned load
        // and stores have no alignment requirement; SSE2 is part of the x86-64 baseline.
        // Each cell is written as its two u32 words, content (the byte) then style, which
        // is `Cell`'s `#[repr(C)]` layout on this little-endian target.
        unsafe {
            let zero = _mm_setzero_si128();
            let sty = _mm_set1_epi32(style as i32);
            let chunk = _mm_loadu_si128(src.as_ptr().add(i) as *const __m128i);
            let halves = [_mm_unpacklo_epi8(chunk, zero), _mm_unpackhi_epi8(chunk, zero)];
            let out = dst.as_mut_ptr().add(i) as *mut __m128i;
            let mut k = 0;
            for h in halves {
                for quad in [_mm_unpacklo_epi16(h, zero), _mm_unpackhi_epi16(h, zero)] {
                    _mm_storeu_si128(out.add(k), _mm_unpacklo_epi32(quad, sty));
                    _mm_storeu_si128(out.add(k + 1), _mm_unpackhi_epi32(quad, sty));
                    k += 2;
                }
            }
        }
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
