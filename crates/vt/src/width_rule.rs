// The rule every character's cell count follows, shared by the build script (which tabulates it
// for every scalar value, see build.rs) and the engine (whose tests hold the table to it).
// Included with `include!` by both, so it is one definition.

/// `cell_width` as the width table gives it, but for U+00AD SOFT HYPHEN: one cell, as xterm and
/// the C library's `wcwidth` (which programs lay their lines out by) give it; the table's 0
/// (a default-ignorable character) would join it to the character before and shift the rest of
/// the line one column left of where the program put it (vttest's single-shift screen shows it).
/// Anything wider than 2 (unicode-width 0.2 gives U+17D8 KHMER SIGN BEYYAL 3) is 1.
#[inline]
#[allow(dead_code)]
fn table_width(c: char) -> Option<usize> {
    if c == '\u{ad}' {
        return Some(1);
    }
    match unicode_width::UnicodeWidthChar::width(c) {
        None => None,
        Some(w) if w > 2 => Some(1),
        w => w,
    }
}
