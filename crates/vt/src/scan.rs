//! Finding the end of a run of printable ASCII: the engine's one audited `unsafe` module.
//!
//! Plain text is most of what programs write, so the parser hands whole runs of bytes in
//! 0x20..=0x7E to the screen at once. This module finds where such a run ends, sixteen
//! bytes at a time with SSE2 (part of every x86-64 CPU), and byte by byte elsewhere.

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
        __m128i, _mm_cmpgt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_xor_si128,
    };

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
