//! Tabulates the cell count of every Unicode scalar value (src/width_rule.rs) into two levels,
//! written to OUT_DIR/widths.rs: the engine then looks a character's width up with two loads,
//! whatever plane it is in, with nothing built at run time.
//!
//! Layout: code points go in blocks of 256; a block's widths are a byte each (3: no width), 256
//! bytes; identical blocks are stored once (most of the 4,352 blocks are unassigned or all wide
//! ideographs), and `WIDTH_BLOCK[cp >> 8]` names the stored block of a code point.

use std::collections::HashMap;
use std::fmt::Write as _;

include!("src/width_rule.rs");

fn main() {
    println!("cargo:rerun-if-changed=src/width_rule.rs");
    println!("cargo:rerun-if-changed=build.rs");
    let mut blocks: Vec<[u8; 256]> = Vec::new();
    let mut seen: HashMap<[u8; 256], usize> = HashMap::new();
    let mut index = Vec::with_capacity(0x1100);
    for block in 0..0x1100u32 {
        let mut widths = [0u8; 256];
        for (low, w) in widths.iter_mut().enumerate() {
            let cp = block << 8 | low as u32;
            // Surrogates are not characters: no width (the decoder never yields them).
            *w = char::from_u32(cp).map_or(3, |c| table_width(c).map_or(3, |w| w as u8));
        }
        let id = *seen.entry(widths).or_insert_with(|| {
            blocks.push(widths);
            blocks.len() - 1
        });
        index.push(id);
    }
    assert!(blocks.len() <= 256, "{} distinct blocks: the index needs more than a byte", blocks.len());
    let mut out = String::new();
    let _ = writeln!(out, "/// Which stored block (of [`WIDTH_CELLS`]) holds each block of 256 code points.");
    let _ = writeln!(out, "static WIDTH_BLOCK: [u8; 0x1100] = {index:?};");
    let _ = writeln!(out, "/// {} distinct blocks of 256 widths, a byte each (3: no width).", blocks.len());
    // Room for every block a byte can name, so that no look-up needs a bounds check.
    let mut flat: Vec<u8> = blocks.iter().flatten().copied().collect();
    flat.resize(256 * 256, 3);
    let _ = writeln!(out, "static WIDTH_CELLS: [u8; 256 * 256] = {flat:?};");
    let path = std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("widths.rs");
    std::fs::write(path, out).expect("cannot write the width table");
}
