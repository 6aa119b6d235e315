//! Fallback fonts: a character the chosen font lacks (CJK, emoji, most scripts beyond Latin,
//! Greek and Cyrillic) is drawn from the first font in fontconfig's order for the chosen one
//! whose character set has it, as xterm (with `-fa`), alacritty, kitty and foot do, instead of
//! the chosen font's missing-glyph box.
//!
//! - The order and the character sets come from one `fc-match -s` run, made at the first
//!   missing character (a screen of Latin text never runs it).
//! - The fonts are read with ab_glyph, which reads a glyph's outline when it is first drawn.
//!   fontdue (the chosen font's rasteriser) converts every glyph when a font is loaded: 0.5 s
//!   and over 100 MB for a CJK font, measured here on WenQuanYi Zen Hei and Noto Sans CJK; with
//!   ab_glyph it is 15 ms (reading the file) and the file's size.
//! - A glyph is scaled to the chosen font's em and shrunk, never grown, to fit its cell or
//!   cells (two for a wide character), centred across them on the chosen font's baseline.
//! - Colour emoji fonts (bitmaps, no outlines) are passed over: emoji come from a font with
//!   outlines (Symbola, DejaVu Sans) in the text's colour, as in xterm. Colour glyphs are not
//!   drawn (kitty and alacritty draw them).
//! - Bold and italic text takes the fallback's regular face.

use std::collections::HashMap;
use std::path::PathBuf;

use ab_glyph::{Font, FontVec, PxScale};

/// A drawn glyph, placed in its cell: its coverage bitmap and where the bitmap starts.
pub(crate) struct Glyph {
    pub w: usize,
    pub h: usize,
    /// From the cell's left edge and top edge to the bitmap's.
    pub left: i32,
    pub top: i32,
    pub coverage: Vec<u8>,
}

struct Candidate {
    file: PathBuf,
    index: u32,
    /// Inclusive ranges of code points, ascending.
    ranges: Vec<(u32, u32)>,
}

/// The fonts to draw from, in order, found once.
pub(crate) struct Fallbacks {
    pattern: String,
    /// Files of the chosen font's faces (passed over: they lack the character already).
    skip: Vec<PathBuf>,
    list: Option<Vec<Candidate>>,
    /// Loaded fonts by their place in `list` (None: the file could not be read).
    loaded: HashMap<usize, Option<FontVec>>,
}

/// Parses fontconfig's charset format: hexadecimal code points and ranges, `20-7e a0 ...`.
pub(crate) fn parse_charset(s: &str) -> Vec<(u32, u32)> {
    let mut out: Vec<(u32, u32)> = s
        .split_ascii_whitespace()
        .filter_map(|r| {
            let (a, b) = r.split_once('-').unwrap_or((r, r));
            Some((u32::from_str_radix(a, 16).ok()?, u32::from_str_radix(b, 16).ok()?))
        })
        .filter(|(a, b)| a <= b)
        .collect();
    out.sort_unstable();
    out
}

pub(crate) fn covers(ranges: &[(u32, u32)], c: u32) -> bool {
    let i = ranges.partition_point(|&(_, b)| b < c);
    ranges.get(i).is_some_and(|&(a, _)| a <= c)
}

impl Fallbacks {
    pub fn new(pattern: &str, skip: Vec<PathBuf>) -> Fallbacks {
        Fallbacks { pattern: pattern.to_string(), skip, list: None, loaded: HashMap::new() }
    }

    fn list(&mut self) -> &[Candidate] {
        let (pattern, skip) = (&self.pattern, &self.skip);
        self.list.get_or_insert_with(|| {
            let out = std::process::Command::new("fc-match")
                .args(["-s", "-f", "%{file}\t%{index}\t%{charset}\n", pattern])
                .output();
            let text = out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned()).unwrap_or_default();
            text.lines()
                .filter_map(|line| {
                    let mut f = line.splitn(3, '\t');
                    let file = PathBuf::from(f.next()?);
                    let index = f.next()?.parse().unwrap_or(0);
                    let ranges = parse_charset(f.next()?);
                    (!skip.contains(&file)).then_some(Candidate { file, index, ranges })
                })
                .collect()
        })
    }

    /// `c` drawn from the first font that has it with an outline, at `em` pixels (`kx` times
    /// as wide: 2 on a double-width row), fitted into `w` by `h` pixels with its baseline
    /// `baseline` pixels from the top.
    pub fn glyph(&mut self, c: char, em: f32, kx: f32, w: usize, h: usize, baseline: usize) -> Option<Glyph> {
        let n = self.list().len();
        for i in 0..n {
            let cand = &self.list.as_ref()?[i];
            if !covers(&cand.ranges, c as u32) {
                continue;
            }
            let (file, index) = (cand.file.clone(), cand.index);
            let font = self.loaded.entry(i).or_insert_with(|| {
                let bytes = std::fs::read(&file).ok()?;
                FontVec::try_from_vec_and_index(bytes, index).ok()
            });
            if let Some(g) = font.as_ref().and_then(|f| draw(f, c, em, kx, w, h, baseline)) {
                return Some(g);
            }
        }
        None
    }
}

/// `c` from `font` at `em` pixels per em, twice as wide as it is high (a double-width row's
/// letters, as xterm scales its font in width alone), placed from the pen on the baseline
/// `baseline` pixels from the cell's top; None if the font lacks it.
pub(crate) fn draw_wide(font: &FontVec, c: char, em: f32, baseline: usize) -> Option<Glyph> {
    let outline = outline_at(font, c, em, 2.0)?;
    let b = outline.px_bounds();
    let (gw, gh, coverage) = coverage(&outline);
    Some(Glyph { w: gw, h: gh, left: b.min.x as i32, top: baseline as i32 + b.min.y as i32, coverage })
}

/// `c`'s outline in `font` at `em` pixels per em, `kx` times as wide as high; None if the font
/// lacks it (or it has no outline).
fn outline_at(font: &FontVec, c: char, em: f32, kx: f32) -> Option<ab_glyph::OutlinedGlyph> {
    let id = font.glyph_id(c);
    if id.0 == 0 {
        return None;
    }
    let scale = em * font.height_unscaled() / font.units_per_em()?;
    font.outline_glyph(id.with_scale(PxScale { x: kx * scale, y: scale }))
}

/// An outline's coverage bitmap: its width, height and one byte a pixel.
fn coverage(outline: &ab_glyph::OutlinedGlyph) -> (usize, usize, Vec<u8>) {
    let b = outline.px_bounds();
    let (gw, gh) = (b.width() as usize, b.height() as usize);
    let mut coverage = vec![0u8; gw * gh];
    outline.draw(|x, y, a| {
        if let Some(p) = coverage.get_mut(y as usize * gw + x as usize).filter(|_| (x as usize) < gw) {
            *p = (a.clamp(0.0, 1.0) * 255.0).round() as u8;
        }
    });
    (gw, gh, coverage)
}

/// `glyph` twice as wide, each column doubled (on a double-width row, a glyph no outline
/// gives: a face ab_glyph cannot read).
pub(crate) fn widened(glyph: &Glyph) -> Glyph {
    let coverage = (0..glyph.h)
        .flat_map(|y| (0..2 * glyph.w).map(move |x| (x, y)))
        .map(|(x, y)| glyph.coverage[y * glyph.w + x / 2])
        .collect();
    Glyph { w: 2 * glyph.w, h: glyph.h, left: 2 * glyph.left, top: glyph.top, coverage }
}

/// `c` from `font` at `em` pixels per em, `kx` times as wide as high, shrunk to fit `w` x `h`.
fn draw(font: &FontVec, c: char, em: f32, kx: f32, w: usize, h: usize, baseline: usize) -> Option<Glyph> {
    let mut outline = outline_at(font, c, em, kx)?;
    let b = outline.px_bounds();
    let fit = (w as f32 / b.width().max(1.0)).min(h as f32 / b.height().max(1.0));
    if fit < 1.0 {
        outline = outline_at(font, c, em * fit, kx)?;
    }
    let b = outline.px_bounds();
    let (gw, gh, coverage) = coverage(&outline);
    let top = (baseline as i32 + b.min.y as i32).clamp(0, (h as i32 - gh as i32).max(0));
    Some(Glyph { w: gw, h: gh, left: (w as i32 - gw as i32) / 2, top, coverage })
}
