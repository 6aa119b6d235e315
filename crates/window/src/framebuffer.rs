//! The framebuffer console's display (`blitty console`): a client of the session server whose
//! frames are parsed by an engine of its own and drawn by the pixel renderer into a shadow
//! buffer, from which only the changed rows reach the device.

use std::io;
use std::path::Path;

/// A framebuffer shown from a shadow buffer: the engine's damage is drawn into the renderer's
/// buffer, and only the rows holding changed rectangles are copied to the device, one write
/// per rectangle (the syscons console post's "copy changed regions in large chunks").
pub struct PixelDisplay {
    term: blitty_vt::Terminal,
    renderer: blitty_pixel::Renderer,
    device: std::fs::File,
    /// The device's size in pixels (the grid may leave a margin at the right and bottom).
    width: usize,
    height: usize,
    pub cols: u16,
    pub rows: u16,
}

/// Pixels a framebuffer may have at most in each direction.
pub const MAX_FB_SIDE: usize = 16384;

impl PixelDisplay {
    /// Opens `path` as a 32-bit XRGB framebuffer of `width` x `height` (a regular file is
    /// made that size, as a stand-in for /dev/fb0 in tests).
    pub fn open(path: &Path, width: usize, height: usize, fonts: blitty_pixel::Fonts) -> Result<PixelDisplay, String> {
        if !(1..=MAX_FB_SIDE).contains(&width) || !(1..=MAX_FB_SIDE).contains(&height) {
            return Err(format!("framebuffer size {width}x{height}: each side is 1 to {MAX_FB_SIDE} pixels"));
        }
        let (cw, ch) = (fonts.cell_w, fonts.cell_h);
        let (cols, rows) = (width / cw, height / ch);
        if cols == 0 || rows == 0 {
            return Err(format!("a {width}x{height} framebuffer holds no {cw}x{ch} cell"));
        }
        let (cols, rows) = (cols.min(blitty_vt::term::MAX_COLS), rows.min(blitty_vt::term::MAX_ROWS));
        let device = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| format!("cannot open the framebuffer {}: {e}", path.display()))?;
        let bytes = (width * height * 4) as u64;
        let meta = device.metadata().map_err(|e| format!("{}: {e}", path.display()))?;
        if meta.is_file() && meta.len() != bytes {
            device.set_len(bytes).map_err(|e| format!("cannot size {}: {e}", path.display()))?;
        }
        let mut d = PixelDisplay {
            term: blitty_vt::Terminal::new(cols, rows),
            renderer: blitty_pixel::Renderer::new(fonts, cols, rows),
            device,
            width,
            height,
            cols: cols as u16,
            rows: rows as u16,
        };
        // The margin and everything else start as the background.
        d.renderer.render(d.term.screen());
        d.copy(0, d.height).map_err(|e| format!("cannot write the framebuffer {}: {e}", path.display()))?;
        Ok(d)
    }

    fn feed_(&mut self, bytes: &[u8]) {
        self.term.feed(bytes);
        // Answers to queries have nowhere to go (the server's frames ask none).
        let _ = self.term.take_replies();
    }

    /// Draws what changed and copies it to the device.
    fn present_(&mut self) -> io::Result<()> {
        let rects = self.renderer.render(self.term.screen());
        self.term.screen_mut().clear_damage();
        // Merged into one band of whole device rows: one write.
        if let (Some(top), Some(bottom)) = (rects.iter().map(|r| r.y).min(), rects.iter().map(|r| r.y + r.h).max()) {
            self.copy(top, bottom)?;
        }
        Ok(())
    }

    /// Copies device rows `[top, bottom)` from the shadow buffer in one write (the margin as
    /// the background).
    fn copy(&self, top: usize, bottom: usize) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        let fb = &self.renderer.fb;
        let bg = fb.pixels.first().copied().unwrap_or(0);
        let mut out = Vec::with_capacity((bottom - top) * self.width * 4);
        for y in top..bottom.min(self.height) {
            for x in 0..self.width {
                let p = if x < fb.width && y < fb.height { fb.pixels[y * fb.width + x] } else { bg };
                // XRGB8888, little-endian: B, G, R, X in memory.
                out.extend_from_slice(&p.to_le_bytes());
            }
        }
        self.device.write_all_at(&out, (top * self.width * 4) as u64)
    }
}

impl blitty_mux::client::Surface for PixelDisplay {
    fn size(&self) -> (u16, u16) {
        (self.cols, self.rows)
    }

    fn feed(&mut self, bytes: &[u8]) {
        self.feed_(bytes)
    }

    fn present(&mut self) -> io::Result<()> {
        self.present_()
    }
}
