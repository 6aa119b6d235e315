//! # blitty-pixel: the engine's screen drawn into a shadow framebuffer
//!
//! The syscons console post's design for a console on a bitmap display: the screen image is
//! kept in fast memory (a [`Framebuffer`] of 32-bit pixels), only damaged cells are drawn
//! again, a full-screen scroll moves the buffer's rows instead of drawing glyphs again, and
//! whatever shows the buffer (the X11 window and the framebuffer console in `blitty-window`, a
//! PNG here) copies the damaged rectangles in large chunks. Its only I/O is writing a PNG and
//! asking fontconfig for fonts: it knows no pty, socket or window.
//!
//! - **Glyphs** come from a real monospace font (DejaVu Sans Mono by default, found through
//!   fontconfig's `fc-match`), rasterised once per character and face into a cache of at most
//!   [`GLYPH_CACHE_BYTES`].
//! - **Box drawing (U+2500-U+257F) and block elements (U+2580-U+259F)** are drawn from
//!   rectangles, not the font, so lines meet their neighbours' exactly and blocks fill their
//!   cells (as xterm, kitty, foot and alacritty do).
//! - **Styles**: bold (the bold face, and colours 0-7 made bright, xterm's `boldColors`),
//!   italic, dim (halfway to the background), inverse, hidden, the underline styles, strike
//!   and overline, 256 colours and truecolour, from the engine's palette (so OSC 4/10/11 apply).
//! - **Wide characters** take two cells; combining marks are drawn over their base.
//! - **Characters the font lacks** come from fontconfig's fallback fonts ([`fallback`]).

use std::path::{Path, PathBuf};

mod cache;
mod fallback;
pub use cache::GLYPH_CACHE_BYTES;
use fallback::{Fallbacks, Glyph};

use blitty_vt::{Attrs, Cell, Color, CursorShape, Line, LineSize, Rgb, Screen, Style, Underline};

/// How a glyph is scaled from the font's size: as it is, twice (a double-height row), twice
/// as wide alone (a double-width row).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Scale {
    One,
    Twice,
    Wide,
}

/// A font's four faces at one size, and the cell they give.
pub struct Fonts {
    faces: Vec<fontdue::Font>,
    px: f32,
    pub cell_w: usize,
    pub cell_h: usize,
    /// Pixels from a cell's top to the baseline.
    baseline: usize,
    pub files: Vec<PathBuf>,
    fallbacks: Fallbacks,
    /// The faces read again with ab_glyph, which scales in width alone (fontdue cannot): read
    /// at the first double-width row (None: not yet; Some(None): unreadable).
    wide_faces: Vec<Option<Option<ab_glyph::FontVec>>>,
    /// The font asked for is not on the machine, and what is used instead (for the caller to
    /// tell the user).
    pub substituted: Option<String>,
}

/// Sizes a user may ask for.
pub const MAX_FONT_PT: f32 = 200.0;
pub const MAX_SCALE: f32 = 8.0;

/// The largest font size times scale: 400 points (533 pixels to the em at 96 dots per inch),
/// so every size up to [`MAX_FONT_PT`] at scale 2 (a HiDPI display), and 50 points at
/// [`MAX_SCALE`]. It bounds one glyph: the largest, a wide character on a double-height row,
/// fits in 1,284x1,242 pixels (1.6 MB; 0.9 MB measured, an emoji), a fortieth of
/// [`GLYPH_CACHE_BYTES`]. At 200 points and scale 8 (2,133 pixels to the em) a cell was
/// 1,284x2,484 pixels and that glyph 14 MB.
pub const MAX_SCALED_PT: f32 = 400.0;

fn fc_match(pattern: &str) -> Option<PathBuf> {
    fc_match_family(pattern).map(|(path, _)| path)
}

/// fontconfig's best font for `pattern`: its file and its (first) family name.
fn fc_match_family(pattern: &str) -> Option<(PathBuf, String)> {
    let out = std::process::Command::new("fc-match").args(["-f", "%{file}\t%{family[0]}", pattern]).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let (file, family) = text.trim().split_once('\t').unwrap_or((text.trim(), ""));
    let path = PathBuf::from(file);
    (out.status.success() && path.is_file()).then(|| (path, family.to_string()))
}

/// fontconfig's names for kinds of font rather than fonts: any font of the kind is what was asked.
const GENERIC: [&str; 6] = ["monospace", "mono", "sans-serif", "sans", "serif", "fixed"];

impl Fonts {
    /// The font `name` (a fontconfig pattern) at `pt` points and `scale` (HiDPI), in its
    /// regular, bold, italic and bold italic faces (the regular one where a face is missing).
    pub fn find(name: &str, pt: f32, scale: f32) -> Result<Fonts, String> {
        if !(1.0..=MAX_FONT_PT).contains(&pt) {
            return Err(format!("font size {pt}: expected 1 to {MAX_FONT_PT} points"));
        }
        if !(0.5..=MAX_SCALE).contains(&scale) {
            return Err(format!("scale {scale}: expected 0.5 to {MAX_SCALE}"));
        }
        if pt * scale > MAX_SCALED_PT {
            return Err(format!(
                "font size {pt} at scale {scale}: the font size times the scale is at most {MAX_SCALED_PT} points"
            ));
        }
        // fontconfig answers every name with its nearest font: a family it does not have
        // becomes the default text font (DejaVu Sans, proportional). That name is told and the
        // monospace font used instead, as alacritty and kitty fall back to a monospace one.
        let family = name.split([':', '-']).next().unwrap_or(name).trim();
        let mut substituted = None;
        let mut name = name;
        if let Some((_, found)) = fc_match_family(name) {
            let generic = GENERIC.iter().any(|g| g.eq_ignore_ascii_case(family));
            if !generic && !found.eq_ignore_ascii_case(family) {
                name = "monospace";
                let used = fc_match_family(name).map_or(found, |(_, f)| f);
                substituted = Some(format!("no font {family:?} on this machine (fontconfig); using {used}"));
            }
        }
        let regular = fc_match(&format!("{name}:style=Book"))
            .or_else(|| fc_match(name))
            .or_else(|| {
                let p = PathBuf::from("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf");
                (name == "DejaVu Sans Mono" && p.is_file()).then_some(p)
            })
            .ok_or_else(|| {
                format!(
                    "cannot find the font {name:?} (fc-match found none; apt-get install fontconfig fonts-dejavu-core)"
                )
            })?;
        let styled = |style: &str| fc_match(&format!("{name}:style={style}")).unwrap_or_else(|| regular.clone());
        let files = vec![regular.clone(), styled("Bold"), styled("Oblique"), styled("Bold Oblique")];
        let mut faces = Vec::new();
        for f in &files {
            let bytes = std::fs::read(f).map_err(|e| format!("cannot read the font {}: {e}", f.display()))?;
            let font = fontdue::Font::from_bytes(bytes, fontdue::FontSettings::default())
                .map_err(|e| format!("cannot load the font {}: {e}", f.display()))?;
            faces.push(font);
        }
        let px = pt * 96.0 / 72.0 * scale;
        let m = faces[0].metrics('M', px);
        let line = faces[0].horizontal_line_metrics(px).ok_or("the font has no horizontal metrics")?;
        let cell_w = m.advance_width.round().max(1.0) as usize;
        let cell_h = (line.ascent - line.descent + line.line_gap).ceil().max(1.0) as usize;
        let baseline = (line.ascent + line.line_gap / 2.0).round().max(1.0) as usize;
        let fallbacks = Fallbacks::new(name, files.clone());
        let wide_faces = (0..files.len()).map(|_| None).collect();
        Ok(Fonts { faces, px, cell_w, cell_h, baseline, files, fallbacks, wide_faces, substituted })
    }
}

/// 0x00RRGGBB pixels, row by row.
pub struct Framebuffer {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<u32>,
}

fn pack(c: Rgb) -> u32 {
    (c[0] as u32) << 16 | (c[1] as u32) << 8 | c[2] as u32
}

fn mix(bg: u32, fg: u32, a: u32) -> u32 {
    let ch = |s: u32| {
        let (b, f) = ((bg >> s) & 255, (fg >> s) & 255);
        ((f * a + b * (255 - a)) / 255) << s
    };
    ch(16) | ch(8) | ch(0)
}

impl Framebuffer {
    pub fn new(width: usize, height: usize) -> Framebuffer {
        Framebuffer { width, height, pixels: vec![0; width * height] }
    }

    pub fn fill(&mut self, x: usize, y: usize, w: usize, h: usize, c: u32) {
        let (x1, y1) = ((x + w).min(self.width), (y + h).min(self.height));
        for yy in y.min(y1)..y1 {
            self.pixels[yy * self.width + x.min(x1)..yy * self.width + x1].fill(c);
        }
    }

    /// Blends `c` at coverage `a` (0-255) into the pixel at (x, y), if inside.
    fn blend(&mut self, x: usize, y: usize, c: u32, a: u32) {
        if x < self.width && y < self.height && a > 0 {
            let p = &mut self.pixels[y * self.width + x];
            *p = if a >= 255 { c } else { mix(*p, c, a) };
        }
    }

    /// Moves the pixel rows `[top + by, bottom)` up to `top` (a scroll: one memmove, no glyph
    /// drawn again).
    pub fn scroll_up(&mut self, top: usize, bottom: usize, by: usize) {
        let (w, bottom) = (self.width, bottom.min(self.height));
        if top + by < bottom {
            self.pixels.copy_within((top + by) * w..bottom * w, top * w);
        }
    }

    /// Stretches the pixel rows `[top, top + h)` for a double-size line: the first `src_w`
    /// pixels of each row to twice their width, then, for the top or bottom half of a
    /// double-height line, that half of the rows to the whole height. In place: each pixel
    /// comes from one at or before it (at or after it, for the bottom half).
    pub fn stretch_rows(&mut self, top: usize, h: usize, src_w: usize, size: LineSize) {
        let w = self.width;
        let h = h.min(self.height.saturating_sub(top));
        for r in top..top + h {
            let row = &mut self.pixels[r * w..(r + 1) * w];
            for x in (0..(2 * src_w).min(w)).rev() {
                row[x] = row[x / 2];
            }
        }
        match size {
            LineSize::DoubleHeightTop => {
                for r in (0..h).rev() {
                    let from = top + r / 2;
                    self.pixels.copy_within(from * w..(from + 1) * w, (top + r) * w);
                }
            }
            LineSize::DoubleHeightBottom => {
                for r in 0..h {
                    let from = top + h / 2 + r / 2;
                    self.pixels.copy_within(from * w..(from + 1) * w, (top + r) * w);
                }
            }
            _ => {}
        }
    }

    /// Writes the buffer as an RGB PNG.
    pub fn write_png(&self, path: &Path) -> Result<(), String> {
        let file = std::fs::File::create(path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
        let mut enc = png::Encoder::new(std::io::BufWriter::new(file), self.width as u32, self.height as u32);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        // A screen of text compresses well: a third of the default's size for a few ms more.
        enc.set_compression(png::Compression::Best);
        enc.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
        let failed = |e: png::EncodingError| format!("cannot write {}: {e}", path.display());
        let mut w = enc.write_header().map_err(failed)?;
        // Row by row: the image is not held a second time in memory (a gigabyte at the
        // largest, 16384 pixels a side).
        let mut rows = w.stream_writer_with_size(1 << 16).map_err(failed)?;
        let mut rgb = Vec::with_capacity(3 * self.width);
        for row in self.pixels.chunks(self.width.max(1)) {
            rgb.clear();
            rgb.extend(row.iter().flat_map(|p| [(p >> 16) as u8, (p >> 8) as u8, *p as u8]));
            std::io::Write::write_all(&mut rows, &rgb).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        rows.finish().map_err(failed)?;
        // Dropped, the writer would end the file and flush it ignoring errors: a full disk
        // would leave a cut file and say nothing.
        w.finish().map_err(failed)
    }
}

/// A rectangle of pixels that changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub x: usize,
    pub y: usize,
    pub w: usize,
    pub h: usize,
}

/// Draws a screen into its framebuffer, again only where the screen changed.
pub struct Renderer {
    fonts: Fonts,
    cache: cache::GlyphCache,
    pub fb: Framebuffer,
    cols: usize,
    rows: usize,
    /// The next render draws every cell.
    full: bool,
    /// Where the cursor was drawn (its cell is drawn again when it moves).
    cursor_at: Option<(usize, usize)>,
    /// Per row of the view, the columns `[from, to)` to draw selected (in inverse), and what
    /// was drawn so (a row whose marks change is drawn again).
    marks: Vec<Option<(usize, usize)>>,
    drawn_marks: Vec<Option<(usize, usize)>>,
    /// The cursor is in the off phase of its blink (not drawn), or drawn as an outline (the
    /// window does not have the focus, as xterm shows it).
    cursor_off: bool,
    cursor_hollow: bool,
}

impl Renderer {
    pub fn new(fonts: Fonts, cols: usize, rows: usize) -> Renderer {
        let fb = Framebuffer::new(cols * fonts.cell_w, rows * fonts.cell_h);
        Renderer {
            fonts,
            cache: cache::GlyphCache::new(),
            fb,
            cols,
            rows,
            full: true,
            cursor_at: None,
            marks: Vec::new(),
            drawn_marks: Vec::new(),
            cursor_off: false,
            cursor_hollow: false,
        }
    }

    /// How the next renders draw the cursor: not at all (`off`: a blink's dark phase), or as
    /// an outline of its cell (`hollow`: the window lost the focus).
    pub fn set_cursor(&mut self, off: bool, hollow: bool) {
        self.cursor_off = off;
        self.cursor_hollow = hollow;
    }

    /// Marks columns `[from, to)` of rows of the view as selected (drawn in inverse) from the
    /// next render on: one entry per row, from the top (missing rows: none marked).
    pub fn set_marks(&mut self, marks: Vec<Option<(usize, usize)>>) {
        self.marks = marks;
    }

    fn mark_of(&self, y: usize) -> Option<(usize, usize)> {
        self.marks.get(y).copied().flatten()
    }

    /// `style` as cell `x` of view row `y` is drawn: inverted where it is marked.
    fn marked(&self, x: usize, y: usize, mut style: Style) -> Style {
        if self.mark_of(y).is_some_and(|(from, to)| x >= from && x < to) {
            style.attrs.set(Attrs::INVERSE, !style.attrs.has(Attrs::INVERSE));
        }
        style
    }

    pub fn cell_size(&self) -> (usize, usize) {
        (self.fonts.cell_w, self.fonts.cell_h)
    }

    /// The bytes the glyph cache holds (at most [`GLYPH_CACHE_BYTES`] between draws).
    pub fn glyph_cache_bytes(&self) -> usize {
        self.cache.bytes()
    }

    /// Draws the view `offset` lines back in the scrollback (0: the live screen, as `render`).
    /// A view back in history is drawn whole, without the cursor, and the next live render
    /// draws every cell again.
    pub fn render_back(&mut self, screen: &Screen, offset: usize) -> Vec<Rect> {
        let offset = offset.min(screen.history_len());
        if offset == 0 {
            return self.render(screen);
        }
        let bg = pack(screen.palette().background);
        self.fb.pixels.fill(bg);
        let (history, rows) = (screen.history_len(), self.rows.min(screen.rows()));
        for y in 0..rows {
            let at = history - offset + y;
            let (line, size) = if at < history {
                (screen.history_row(at), screen.history_line_size(at))
            } else {
                (screen.row(at - history), screen.line_size(at - history))
            };
            if size != LineSize::Single {
                self.draw_double_row(screen, y, line, size, None);
                continue;
            }
            for x in 0..line.len().min(self.cols) {
                let cell = line[x];
                let wide = x + 1 < line.len() && line[x + 1].is_spacer();
                let style = self.marked(x, y, line.style(cell));
                self.draw_cell(screen, x, y, cell, style, wide);
            }
        }
        self.drawn_marks = self.marks.clone();
        self.cursor_at = None;
        self.full = true;
        vec![Rect { x: 0, y: 0, w: self.fb.width, h: self.fb.height }]
    }

    /// The next render draws every cell (the window was exposed).
    pub fn invalidate(&mut self) {
        self.full = true;
    }

    /// A new grid size: the buffer is made again and fully drawn next.
    pub fn resize(&mut self, cols: usize, rows: usize) {
        self.cols = cols;
        self.rows = rows;
        self.fb = Framebuffer::new(cols * self.fonts.cell_w, rows * self.fonts.cell_h);
        self.full = true;
    }

    /// Brings the buffer up to date with `screen` and returns the rectangles that changed.
    /// The caller clears the engine's damage afterwards (as with the ANSI presenter).
    pub fn render(&mut self, screen: &Screen) -> Vec<Rect> {
        let (cw, ch) = (self.fonts.cell_w, self.fonts.cell_h);
        let rows = self.rows.min(screen.rows());
        let full = self.full || screen.cols() != self.cols || screen.rows() != self.rows;
        let mut damaged = Vec::new();
        if full {
            let bg = pack(screen.palette().background);
            self.fb.pixels.fill(bg);
        } else {
            let k = screen.scrolled();
            if k > 0 && k < rows {
                self.fb.scroll_up(0, rows * ch, k * ch);
                damaged.push(Rect { x: 0, y: 0, w: self.fb.width, h: rows * ch });
                // The cursor drawn before the scroll moved with the pixels.
                if let Some((cx, cy)) = self.cursor_at {
                    self.cursor_at = cy.checked_sub(k).map(|y| (cx, y));
                }
                // And so did the marks drawn.
                let n = self.drawn_marks.len().min(k);
                self.drawn_marks.drain(..n);
            }
        }
        let old_cursor = self.cursor_at.take();
        let c = screen.cursor();
        let cursor_shown = screen.modes().cursor_visible && !self.cursor_off && c.y < rows && c.x < self.cols;
        for y in 0..rows {
            let span = if full {
                Some((0, self.cols.min(screen.cols())))
            } else {
                screen.row_damage(y).map(|(s, e)| (s, e.min(self.cols)))
            };
            let mut span = span;
            let (was, now) = (self.drawn_marks.get(y).copied().flatten(), self.mark_of(y));
            if !full && was != now {
                for (from, to) in [was, now].into_iter().flatten() {
                    let (from, to) = (from.min(self.cols), to.min(self.cols));
                    if from < to {
                        span = Some(span.map_or((from, to), |(s, e)| (s.min(from), e.max(to))));
                    }
                }
            }
            if let Some((ox, oy)) = old_cursor {
                if oy == y {
                    span = Some(span.map_or((ox, ox + 1), |(s, e)| (s.min(ox), e.max(ox + 1))));
                }
            }
            let size = screen.line_size(y);
            if size != LineSize::Single {
                // A double-size row is drawn whole (it is stretched after its cells are
                // drawn), and again while the cursor is on it (a block cursor is drawn in it).
                let cursor_here = c.y == y && cursor_shown;
                if span.is_none() && !cursor_here {
                    continue;
                }
                let block = (cursor_here && self.block_cursor(screen)).then_some(c.x);
                self.draw_double_row(screen, y, screen.row(y), size, block);
                damaged.push(Rect { x: 0, y: y * ch, w: self.fb.width, h: ch });
                continue;
            }
            let Some((mut s, e)) = span else { continue };
            let line = screen.row(y);
            // Whole wide characters.
            if s > 0 && line[s].is_spacer() {
                s -= 1;
            }
            let e = if e < line.len() && e > 0 && line[e].is_spacer() { e + 1 } else { e };
            for x in s..e.min(line.len()) {
                let cell = line[x];
                let wide = x + 1 < line.len() && line[x + 1].is_spacer();
                let style = self.marked(x, y, line.style(cell));
                self.draw_cell(screen, x, y, cell, style, wide);
            }
            damaged.push(Rect { x: s * cw, y: y * ch, w: (e - s) * cw, h: ch });
        }
        self.drawn_marks = self.marks.clone();
        if cursor_shown {
            if screen.line_size(c.y) == LineSize::Single {
                self.draw_cursor(screen, c.x, c.y);
                damaged.push(Rect { x: c.x * cw, y: c.y * ch, w: cw, h: ch });
            } else if !self.block_cursor(screen) {
                // Its row was drawn whole above; the shape goes over its stretched cell.
                self.draw_cursor_shape(screen, 2 * c.x * cw, c.y * ch, 2 * cw);
            }
            self.cursor_at = Some((c.x, c.y));
        }
        self.full = false;
        damaged
    }

    fn colours(screen: &Screen, style: &Style) -> (u32, u32) {
        let p = screen.palette();
        let bold = style.attrs.has(Attrs::BOLD);
        let resolve = |c: Color, default: Rgb, fg: bool| match c {
            Color::Default => default,
            Color::Indexed(i) if fg && bold && i < 8 => p.indexed[i as usize + 8],
            Color::Indexed(i) => p.indexed[i as usize],
            Color::Rgb(r, g, b) => [r, g, b],
        };
        let mut fg = pack(resolve(style.fg, p.foreground, true));
        let mut bg = pack(resolve(style.bg, p.background, false));
        if style.attrs.has(Attrs::INVERSE) {
            std::mem::swap(&mut fg, &mut bg);
        }
        if style.attrs.has(Attrs::DIM) {
            fg = mix(bg, fg, 128);
        }
        if style.attrs.has(Attrs::HIDDEN) {
            fg = bg;
        }
        (fg, bg)
    }

    /// Draws a cell: its background, its characters and its lines. Without `glyphs`, the
    /// characters a font draws are left out (box drawing and blocks, drawn by rule, are not):
    /// a double-size row draws them after its stretch, from the font at its scale.
    fn draw_cell(&mut self, screen: &Screen, x: usize, y: usize, cell: Cell, style: Style, wide: bool) {
        self.draw_cell_with(screen, x, y, cell, style, wide, true);
    }

    #[allow(clippy::too_many_arguments)]
    fn draw_cell_with(
        &mut self,
        screen: &Screen,
        x: usize,
        y: usize,
        cell: Cell,
        style: Style,
        wide: bool,
        glyphs: bool,
    ) {
        let (cw, ch) = (self.fonts.cell_w, self.fonts.cell_h);
        let (px, py) = (x * cw, y * ch);
        let w = if wide { 2 * cw } else { cw };
        if cell.is_spacer() {
            return;
        }
        let (fg, bg) = Self::colours(screen, &style);
        self.fb.fill(px, py, w, ch, bg);
        let face = face_of(&style);
        let draw = |r: &mut Self, c: char| {
            if c != ' ' && !draw_special(&mut r.fb, c, px, py, cw, ch, fg) && glyphs {
                r.draw_glyph(c, face, Scale::One, px, py as i32, w, py, fg);
            }
        };
        match cell.char_value() {
            Some(c) => draw(self, c),
            // A cluster (a base and its marks): its characters drawn over each other.
            None => {
                let mut text = String::new();
                screen.push_cell_text(cell, &mut text);
                text.chars().for_each(|c| draw(self, c));
            }
        }
        let t = (self.fonts.px / 14.0).round().max(1.0) as usize;
        let under_y = (self.fonts.baseline + t + 1).min(ch - t);
        match style.attrs.underline() {
            Underline::None => {}
            Underline::Single => self.fb.fill(px, py + under_y, w, t, fg),
            Underline::Double => {
                self.fb.fill(px, py + under_y.saturating_sub(t + 1), w, t, fg);
                self.fb.fill(px, py + under_y, w, t, fg);
            }
            Underline::Curly => {
                for i in 0..w {
                    let phase = (i as f32 / cw as f32 * std::f32::consts::TAU).sin();
                    let yy = under_y as f32 - phase * (t as f32 + 0.5);
                    self.fb.fill(px + i, py + (yy.max(0.0) as usize).min(ch - t), 1, t, fg);
                }
            }
            Underline::Dotted => {
                for i in (0..w).step_by(2 * t) {
                    self.fb.fill(px + i, py + under_y, t, t, fg);
                }
            }
            Underline::Dashed => {
                for i in (0..w).step_by(cw / 2 + 1) {
                    self.fb.fill(px + i, py + under_y, (cw / 4).max(1), t, fg);
                }
            }
        }
        if style.attrs.has(Attrs::STRIKE) {
            self.fb.fill(px, py + ch / 2, w, t, fg);
        }
        if style.attrs.has(Attrs::OVERLINE) {
            self.fb.fill(px, py, w, t, fg);
        }
    }

    /// Draws `c` from the font at `scale` (a double-height row's twice, a double-width row's
    /// twice as wide), centred in the `w` pixels from `px`, its cell's top at `top` (above the
    /// row for the bottom half of a double-height row), and only on the pixel rows of the row
    /// at `clip`.
    #[allow(clippy::too_many_arguments)]
    fn draw_glyph(&mut self, c: char, face: u8, scale: Scale, px: usize, top: i32, w: usize, clip: usize, fg: u32) {
        let (fonts, cache) = (&mut self.fonts, &mut self.cache);
        let (kx, ky) = match scale {
            Scale::One => (1, 1),
            Scale::Twice => (2, 2),
            Scale::Wide => (2, 1),
        };
        let (size, cell_w, cell_h, baseline) =
            (fonts.px * ky as f32, kx * fonts.cell_w, ky * fonts.cell_h, ky * fonts.baseline);
        // Centred in its cell(s): a wide character in two.
        let extra = (w as i32 - cell_w as i32) / 2;
        let glyph = cache.get((c, face, scale), || {
            // A character the face lacks comes from the regular face, then from a fallback font,
            // then it is the regular face's missing-glyph box.
            let mut face = face as usize;
            if fonts.faces[face].lookup_glyph_index(c) == 0 {
                face = 0;
                if fonts.faces[0].lookup_glyph_index(c) == 0 {
                    // On a double-width row, twice as wide from the outline, as the font's own
                    // letters below.
                    if let Some(mut g) = fonts.fallbacks.glyph(c, size, (kx / ky) as f32, w, cell_h, baseline) {
                        g.left -= extra;
                        return g;
                    }
                }
            }
            if scale == Scale::Wide {
                let file = &fonts.files[face];
                let wide = fonts.wide_faces[face]
                    .get_or_insert_with(|| ab_glyph::FontVec::try_from_vec(std::fs::read(file).ok()?).ok());
                if let Some(g) = wide.as_ref().and_then(|f| fallback::draw_wide(f, c, size, baseline)) {
                    return g;
                }
            }
            let (m, coverage) = fonts.faces[face].rasterize(c, size);
            let g = Glyph {
                w: m.width,
                h: m.height,
                left: m.xmin,
                top: baseline as i32 - m.height as i32 - m.ymin,
                coverage,
            };
            // On a double-width row, a face ab_glyph cannot read (or a glyph without an
            // outline): its pixels doubled.
            if scale == Scale::Wide {
                fallback::widened(&g)
            } else {
                g
            }
        });
        let (clip_top, clip_end) = (clip as i32, (clip + self.fonts.cell_h) as i32);
        for gy in 0..glyph.h {
            let yy = top + glyph.top + gy as i32;
            if yy < clip_top || yy >= clip_end {
                continue;
            }
            for gx in 0..glyph.w {
                let xx = px as i32 + glyph.left + extra + gx as i32;
                if xx < px as i32 || xx >= (px + w) as i32 {
                    continue;
                }
                let a = glyph.coverage[gy * glyph.w + gx] as u32;
                self.fb.blend(xx as usize, yy as usize, fg, a);
            }
        }
        if self.cache.over() {
            self.cache.evict();
        }
    }

    /// Whether the cursor is drawn as its cell in inverse (a filled block).
    fn block_cursor(&self, screen: &Screen) -> bool {
        !self.cursor_hollow
            && !matches!(
                screen.modes().cursor_shape,
                CursorShape::BlinkingUnderline
                    | CursorShape::SteadyUnderline
                    | CursorShape::BlinkingBar
                    | CursorShape::SteadyBar
            )
    }

    fn draw_cursor(&mut self, screen: &Screen, x: usize, y: usize) {
        let (cw, ch) = (self.fonts.cell_w, self.fonts.cell_h);
        if !self.block_cursor(screen) {
            return self.draw_cursor_shape(screen, x * cw, y * ch, cw);
        }
        // A block: the cell drawn again in inverse.
        let line = screen.row(y);
        let cell = line[x];
        let mut style = self.marked(x, y, line.style(cell));
        style.attrs.set(Attrs::INVERSE, !style.attrs.has(Attrs::INVERSE));
        let wide = x + 1 < line.len() && line[x + 1].is_spacer();
        self.draw_cell(screen, x, y, cell, style, wide);
    }

    /// The cursor as an outline, an underline or a bar, over a cell `w` pixels wide at
    /// (px, py).
    fn draw_cursor_shape(&mut self, screen: &Screen, px: usize, py: usize, w: usize) {
        let (cw, ch) = (self.fonts.cell_w, self.fonts.cell_h);
        let colour = pack(screen.palette().cursor);
        let t = (cw / 6).max(1);
        if self.cursor_hollow {
            let t = (cw / 10).max(1);
            self.fb.fill(px, py, w, t, colour);
            self.fb.fill(px, py + ch - t, w, t, colour);
            self.fb.fill(px, py, t, ch, colour);
            self.fb.fill((px + w).saturating_sub(t), py, t, ch, colour);
            return;
        }
        match screen.modes().cursor_shape {
            CursorShape::BlinkingUnderline | CursorShape::SteadyUnderline => {
                self.fb.fill(px, py + ch - t, w, t, colour)
            }
            _ => self.fb.fill(px, py, t, ch, colour),
        }
    }

    /// A double-width or double-height row: its shown half ([`LineSize::shown_cols`], as xterm
    /// shows it) drawn at single size over a cleared row, then
    /// stretched to twice the width (and for double height, the half of the glyphs the row
    /// shows to twice the height). `block_cursor`: the column of a block cursor on it, drawn in
    /// inverse. The selection's marks are in the row's cells, as on any row.
    ///
    /// The characters a font draws are not stretched (a stretched glyph shows its pixels
    /// doubled): they are drawn after the stretch from the font at twice its size, a
    /// double-height row showing the top or the bottom half of each, or, on a double-width row,
    /// from the font scaled in width alone, as xterm draws them (with Xft, a font of twice the
    /// size, or one with a matrix that doubles its width). Backgrounds, lines, box drawing and
    /// blocks are stretched: drawn by rule, they are the same either way. A fallback font's
    /// glyph is drawn from its outline at the same scale.
    fn draw_double_row(&mut self, screen: &Screen, y: usize, line: Line, size: LineSize, block_cursor: Option<usize>) {
        let (cw, ch) = (self.fonts.cell_w, self.fonts.cell_h);
        let shown = size.shown_cols(self.cols.min(line.len()));
        let bg = pack(screen.palette().background);
        let scale = if size == LineSize::DoubleWidth { Scale::Wide } else { Scale::Twice };
        self.fb.fill(0, y * ch, self.fb.width, ch, bg);
        let mut cells = Vec::new();
        for x in 0..shown.min(line.len()) {
            let cell = line[x];
            // A wide character across the half is not shown whole: its left half alone.
            let wide = x + 1 < shown && line[x + 1].is_spacer();
            let mut style = self.marked(x, y, line.style(cell));
            if block_cursor == Some(x) {
                style.attrs.set(Attrs::INVERSE, !style.attrs.has(Attrs::INVERSE));
            }
            self.draw_cell_with(screen, x, y, cell, style, wide, false);
            if !cell.is_spacer() {
                cells.push((x, cell, style, wide));
            }
        }
        self.fb.stretch_rows(y * ch, ch, shown * cw, size);
        // The glyphs at their scale: the cell's top is the row's, or a row above for the bottom
        // half of a double-height row.
        let top = (y * ch) as i32 - if size == LineSize::DoubleHeightBottom { ch as i32 } else { 0 };
        let mut text = String::new();
        for (x, cell, style, wide) in cells {
            let (fg, _) = Self::colours(screen, &style);
            let w = 2 * if wide { 2 * cw } else { cw };
            text.clear();
            screen.push_cell_text(cell, &mut text);
            for c in text.chars() {
                if c != ' ' && !is_special(c) {
                    self.draw_glyph(c, face_of(&style), scale, 2 * x * cw, top, w, y * ch, fg);
                }
            }
        }
    }
}

/// Line weights of the box-drawing characters U+2500-U+257F: (left, right, up, down), each
/// 0 none, 1 light, 2 heavy, 3 double, as four digits; "d" marks the diagonals.
const BOX: [&str; 128] = [
    "1100", "2200", "0011", "0022", "1100", "2200", "0011", "0022", "1100", "2200", "0011", "0022", // 2500-250B
    "0101", "0201", "0102", "0202", "1001", "2001", "1002", "2002", // 250C-2513
    "0110", "0210", "0120", "0220", "1010", "2010", "1020", "2020", // 2514-251B
    "0111", "0211", "0121", "0112", "0122", "0221", "0212", "0222", // 251C-2523
    "1011", "2011", "1021", "1012", "1022", "2021", "2012", "2022", // 2524-252B
    "1101", "2101", "1201", "2201", "1102", "2102", "1202", "2202", // 252C-2533
    "1110", "2110", "1210", "2210", "1120", "2120", "1220", "2220", // 2534-253B
    "1111", "2111", "1211", "2211", "1121", "1112", "1122", "2121", // 253C-2543
    "1221", "2112", "1212", "2221", "2212", "2122", "1222", "2222", // 2544-254B
    "1100", "2200", "0011", "0022", // 254C-254F
    "3300", "0033", "0301", "0103", "0303", "3001", "1003", "3003", // 2550-2557
    "0310", "0130", "0330", "3010", "1030", "3030", // 2558-255D
    "0311", "0133", "0333", "3011", "1033", "3033", // 255E-2563
    "3301", "1103", "3303", "3310", "1130", "3330", "3311", "1133", "3333", // 2564-256C
    "0101", "1001", "1010", "0110", // 256D-2570 (rounded, drawn square)
    "d", "d", "d", // 2571-2573
    "1000", "0010", "0100", "0001", "2000", "0020", "0200", "0002", // 2574-257B
    "1200", "0012", "2100", "0021", // 257C-257F
];

/// Whether [`draw_special`] draws `c` by rule (box drawing and block elements).
fn is_special(c: char) -> bool {
    (0x2500..=0x259F).contains(&(c as u32))
}

/// The font face of a style: regular, bold, italic, bold italic.
fn face_of(style: &Style) -> u8 {
    (style.attrs.has(Attrs::BOLD) as u8) | (style.attrs.has(Attrs::ITALIC) as u8) << 1
}

/// Draws `c` from rectangles when it is a box-drawing or block character; false otherwise.
fn draw_special(fb: &mut Framebuffer, c: char, px: usize, py: usize, cw: usize, ch: usize, fg: u32) -> bool {
    let u = c as u32;
    if (0x2500..=0x257F).contains(&u) {
        let spec = BOX[(u - 0x2500) as usize];
        let t = (cw / 8).max(1);
        let (cx, cy) = (cw / 2 - t / 2, ch / 2 - t / 2);
        if spec == "d" {
            let steps = cw.max(ch) * 2;
            for i in 0..=steps {
                let fx = i as f32 / steps as f32;
                let (x, y1, y2) = (
                    (fx * (cw - 1) as f32) as usize,
                    (fx * (ch - 1) as f32) as usize,
                    ((1.0 - fx) * (ch - 1) as f32) as usize,
                );
                if u != 0x2571 {
                    fb.fill(px + x, py + y1, t, t, fg);
                }
                if u != 0x2572 {
                    fb.fill(px + x, py + y2, t, t, fg);
                }
            }
            return true;
        }
        let b = spec.as_bytes();
        let w = [b[0] - b'0', b[1] - b'0', b[2] - b'0', b[3] - b'0'];
        let thick = |k: u8| if k == 2 { 2 * t } else { t };
        let gap = t + 1;
        // Each arm runs from the cell's edge to past its centre, so arms and neighbours meet.
        let arm = |fb: &mut Framebuffer, k: u8, horizontal: bool, first: bool| {
            if k == 0 {
                return;
            }
            let th = thick(k);
            let offsets: &[isize] = if k == 3 { &[-(gap as isize), gap as isize] } else { &[0] };
            for &off in offsets {
                if horizontal {
                    let y = (cy as isize + off - (th as isize - t as isize) / 2).max(0) as usize;
                    let (x0, x1) = if first { (0, cx + t) } else { (cx, cw) };
                    fb.fill(px + x0, py + y.min(ch - 1), x1 - x0, th, fg);
                } else {
                    let x = (cx as isize + off - (th as isize - t as isize) / 2).max(0) as usize;
                    let (y0, y1) = if first { (0, cy + t) } else { (cy, ch) };
                    fb.fill(px + x.min(cw - 1), py + y0, th, y1 - y0, fg);
                }
            }
        };
        arm(fb, w[0], true, true);
        arm(fb, w[1], true, false);
        arm(fb, w[2], false, true);
        arm(fb, w[3], false, false);
        return true;
    }
    if (0x2580..=0x259F).contains(&u) {
        let eighth_h = |n: usize| (ch * n + 4) / 8;
        let eighth_w = |n: usize| (cw * n + 4) / 8;
        let (hw, hh) = (cw / 2, ch / 2);
        let mut quad = |ul: bool, ur: bool, ll: bool, lr: bool| {
            for (on, x, y, w, h) in
                [(ul, 0, 0, hw, hh), (ur, hw, 0, cw - hw, hh), (ll, 0, hh, hw, ch - hh), (lr, hw, hh, cw - hw, ch - hh)]
            {
                if on {
                    fb.fill(px + x, py + y, w, h, fg);
                }
            }
        };
        match u {
            0x2580 => quad(true, true, false, false),
            0x2581..=0x2588 => {
                let h = eighth_h((u - 0x2580) as usize);
                fb.fill(px, py + ch - h, cw, h, fg);
            }
            0x2589..=0x258F => {
                let w = eighth_w((0x2590 - u) as usize);
                fb.fill(px, py, w, ch, fg);
            }
            0x2590 => quad(false, true, false, true),
            0x2591..=0x2593 => {
                let a = [64, 128, 192][(u - 0x2591) as usize];
                for yy in 0..ch {
                    for xx in 0..cw {
                        fb.blend(px + xx, py + yy, fg, a);
                    }
                }
            }
            0x2594 => fb.fill(px, py, cw, eighth_h(1), fg),
            0x2595 => {
                let w = eighth_w(1);
                fb.fill(px + cw - w, py, w, ch, fg);
            }
            0x2596 => quad(false, false, true, false),
            0x2597 => quad(false, false, false, true),
            0x2598 => quad(true, false, false, false),
            0x2599 => quad(true, false, true, true),
            0x259A => quad(true, false, false, true),
            0x259B => quad(true, true, true, false),
            0x259C => quad(true, true, false, true),
            0x259D => quad(false, true, false, false),
            0x259E => quad(false, true, true, false),
            _ => quad(false, true, true, true),
        }
        return true;
    }
    false
}

#[cfg(test)]
mod tests;
