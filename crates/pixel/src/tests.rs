use super::*;
use blitty_vt::Terminal;

fn fonts() -> Fonts {
    Fonts::find("DejaVu Sans Mono", 12.0, 1.0).expect("DejaVu Sans Mono (scripts/setup.sh installs it)")
}

fn rendered(bytes: &[u8], cols: usize, rows: usize) -> (Renderer, Terminal) {
    let mut t = Terminal::new(cols, rows);
    t.feed(bytes);
    let mut r = Renderer::new(fonts(), cols, rows);
    r.render(t.screen());
    (r, t)
}

/// The pixels of cell (x, y).
fn cell_pixels(r: &Renderer, x: usize, y: usize) -> Vec<u32> {
    let (cw, ch) = r.cell_size();
    (0..ch)
        .flat_map(|yy| (0..cw).map(move |xx| (xx, yy)))
        .map(|(xx, yy)| r.fb.pixels[(y * ch + yy) * r.fb.width + x * cw + xx])
        .collect()
}

#[test]
fn a_full_block_fills_its_cell_exactly() {
    let (r, t) = rendered("\x1b[?25l\x1b[31m\u{2588}\x1b[0m".as_bytes(), 3, 1);
    let red = pack(t.screen().palette().indexed[1]);
    let bg = pack(t.screen().palette().background);
    assert!(cell_pixels(&r, 0, 0).iter().all(|&p| p == red));
    assert!(cell_pixels(&r, 1, 0).iter().all(|&p| p == bg));
}

#[test]
fn every_box_drawing_line_reaches_the_edges_it_names_and_no_other() {
    let f = fonts();
    let (cw, ch) = (f.cell_w, f.cell_h);
    for (i, spec) in BOX.iter().enumerate() {
        if *spec == "d" {
            continue;
        }
        let c = char::from_u32(0x2500 + i as u32).unwrap();
        let mut fb = Framebuffer::new(cw, ch);
        assert!(draw_special(&mut fb, c, 0, 0, cw, ch, 1));
        let at = |x: usize, y: usize| fb.pixels[y * cw + x] == 1;
        let w: Vec<u8> = spec.bytes().map(|b| b - b'0').collect();
        let edges = [
            (0..ch).any(|y| at(0, y)),
            (0..ch).any(|y| at(cw - 1, y)),
            (0..cw).any(|x| at(x, 0)),
            (0..cw).any(|x| at(x, ch - 1)),
        ];
        for k in 0..4 {
            assert_eq!(edges[k], w[k] > 0, "U+{:04X} edge {k}", 0x2500 + i);
        }
    }
}

#[test]
fn every_block_element_covers_its_share_of_the_cell() {
    let f = fonts();
    let (cw, ch) = (f.cell_w, f.cell_h);
    for u in 0x2580..=0x259Fu32 {
        let mut fb = Framebuffer::new(cw, ch);
        assert!(draw_special(&mut fb, char::from_u32(u).unwrap(), 0, 0, cw, ch, 0xffffff));
        let lit: f64 = fb.pixels.iter().map(|&p| (p & 255) as f64 / 255.0).sum::<f64>() / (cw * ch) as f64;
        let want = match u {
            0x2580 | 0x2590 => 0.5,
            0x2581..=0x2588 => (u - 0x2580) as f64 / 8.0,
            0x2589..=0x258F => (0x2590 - u) as f64 / 8.0,
            0x2591 => 0.25,
            0x2592 => 0.5,
            0x2593 => 0.75,
            0x2594 | 0x2595 => 0.125,
            0x2596..=0x2598 | 0x259D => 0.25,
            0x259A | 0x259E => 0.5,
            _ => 0.75,
        };
        assert!((lit - want).abs() < 0.13, "U+{u:04X}: {lit:.2} of the cell, want {want}");
    }
}

#[test]
fn drawing_only_the_damage_gives_the_same_pixels_as_drawing_everything() {
    // Colours, wide characters, box drawing, scrolling (the buffer's rows move), erases,
    // cursor moves and shapes: after every step the kept buffer equals a fresh full drawing.
    let steps: &[&str] = &[
        "hello \x1b[1;31mbold red\x1b[0m \x1b[4munder\x1b[0m\r\n",
        "\u{4e2d}\u{6587} wide \u{250c}\u{2500}\u{2510}\r\n\u{2502}x\u{2502}\r\n",
        "\x1b[38;5;200;48;2;10;20;30mcolour\x1b[0m e\u{301}\r\n",
        "1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\n",
        "\x1b[6;1Hscrolled by two\r\n\x1b[42mgreen\x1b[0m\r\n",
        "\x1b[2;3H\x1b[K\x1b[7minverse\x1b[0m\x1b[5;1H\x1b[2J",
        "\x1b[6 q after clear\x1b[3;10H\x1b[2 q",
        "\x1b[9mstrike\x1b[0m\x1b[2mdim\x1b[0m\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\nend",
    ];
    let mut t = Terminal::new(20, 6);
    let mut kept = Renderer::new(fonts(), 20, 6);
    for (i, s) in steps.iter().enumerate() {
        t.feed(s.as_bytes());
        kept.render(t.screen());
        t.screen_mut().clear_damage();
        let mut fresh = Renderer::new(fonts(), 20, 6);
        fresh.render(t.screen());
        assert!(kept.fb.pixels == fresh.fb.pixels, "step {i}: the kept buffer differs from a full drawing");
    }
}

#[test]
fn the_png_has_the_screens_size_in_pixels() {
    let (r, _) = rendered(b"png", 10, 3);
    let dir = std::env::temp_dir().join(format!("blitty-pixel-{}.png", std::process::id()));
    r.fb.write_png(&dir).unwrap();
    let decoder = png::Decoder::new(std::fs::File::open(&dir).unwrap());
    let reader = decoder.read_info().unwrap();
    let (cw, ch) = r.cell_size();
    assert_eq!((reader.info().width as usize, reader.info().height as usize), (10 * cw, 3 * ch));
    let _ = std::fs::remove_file(&dir);
    // The file's end is written and flushed when the image is: a full disk is said.
    let e = r.fb.write_png(Path::new("/dev/full")).expect_err("/dev/full is full");
    assert!(e.starts_with("cannot write /dev/full: "), "{e}");
}

#[test]
fn bad_sizes_and_fonts_are_refused() {
    assert!(Fonts::find("DejaVu Sans Mono", 0.0, 1.0).is_err());
    assert!(Fonts::find("DejaVu Sans Mono", 12.0, 100.0).is_err());
    // The largest glyphs: the font size times the scale is bounded, not each alone.
    assert!(Fonts::find("DejaVu Sans Mono", MAX_FONT_PT, 2.0).is_ok());
    assert!(Fonts::find("DejaVu Sans Mono", 50.0, MAX_SCALE).is_ok());
    let e = Fonts::find("DejaVu Sans Mono", MAX_FONT_PT, MAX_SCALE).err().expect("refused");
    assert_eq!(e, "font size 200 at scale 8: the font size times the scale is at most 400 points");
    assert!(Fonts::find("DejaVu Sans Mono", 51.0, MAX_SCALE).is_err());
}

#[test]
fn marked_cells_are_drawn_inverted_and_unmarked_again_only_where_they_change() {
    // A selection is drawn as those cells in inverse video, whether marked before a full
    // drawing or between two drawings of damage only, and through a scroll (the marks move
    // with the rows); taking the marks away gives the unmarked pixels back.
    let mut t = Terminal::new(12, 4);
    t.feed("abc \x1b[7mdef\x1b[0m \u{65e5}x\r\nline two\r\n".as_bytes());
    let mut kept = Renderer::new(fonts(), 12, 4);
    kept.render(t.screen());
    t.screen_mut().clear_damage();
    let marks = vec![Some((1, 10)), Some((0, 3))];
    kept.set_marks(marks.clone());
    kept.render(t.screen());
    let mut fresh = Renderer::new(fonts(), 12, 4);
    fresh.set_marks(marks);
    fresh.render(t.screen());
    assert!(kept.fb.pixels == fresh.fb.pixels, "marking between renders differs from a full drawing");
    // The marked cells are their inverse: "b" marked equals "b" in inverse video.
    let mut inv = Terminal::new(12, 4);
    inv.feed("a\x1b[7mbc \x1b[0mdef\x1b[7m \u{65e5}\x1b[0mx\r\n\x1b[7mlin\x1b[0me two\r\n".as_bytes());
    let mut r = Renderer::new(fonts(), 12, 4);
    r.render(inv.screen());
    for (x, y) in [(0, 0), (1, 0), (4, 0), (7, 0), (8, 0), (9, 0), (10, 0), (2, 1), (3, 1)] {
        assert!(cell_pixels(&kept, x, y) == cell_pixels(&r, x, y), "cell {x},{y} is not drawn as its inverse");
    }
    // A scroll by one: the marks the window computes move up with the text.
    t.feed(b"\r\n\r\n");
    kept.set_marks(vec![Some((1, 10)), None]);
    kept.render(t.screen());
    t.screen_mut().clear_damage();
    let mut fresh = Renderer::new(fonts(), 12, 4);
    fresh.set_marks(vec![Some((1, 10)), None]);
    fresh.render(t.screen());
    assert!(kept.fb.pixels == fresh.fb.pixels, "marks through a scroll differ from a full drawing");
    kept.set_marks(Vec::new());
    kept.render(t.screen());
    let mut plain = Renderer::new(fonts(), 12, 4);
    plain.render(t.screen());
    assert!(kept.fb.pixels == plain.fb.pixels, "unmarking does not give the plain pixels back");
}

#[test]
fn a_cursor_off_in_its_blink_is_not_drawn_and_an_unfocused_one_is_an_outline() {
    let (mut r, mut t) = rendered(b"ab", 6, 2);
    let on = cell_pixels(&r, 2, 0);
    t.screen_mut().clear_damage();
    r.set_cursor(true, false);
    r.render(t.screen());
    let (hidden, _) = rendered(b"ab\x1b[?25l", 6, 2);
    assert!(r.fb.pixels == hidden.fb.pixels, "a cursor off in its blink is drawn as a hidden one");
    r.set_cursor(false, false);
    r.render(t.screen());
    assert!(cell_pixels(&r, 2, 0) == on, "on again");
    r.set_cursor(false, true);
    r.render(t.screen());
    let outline = cell_pixels(&r, 2, 0);
    let (cw, ch) = r.cell_size();
    let cursor = pack(t.screen().palette().cursor);
    let bg = pack(t.screen().palette().background);
    assert_eq!(outline[0], cursor, "the outline's corner");
    assert_eq!(outline[(ch / 2) * cw + cw / 2], bg, "the outline's inside");
}

#[test]
fn a_character_the_font_lacks_is_drawn_from_a_fallback_font_inside_its_cells() {
    // DejaVu Sans Mono has neither ideograph: without a fallback both are the same box.
    // scripts/setup.sh installs WenQuanYi Zen Hei, which has both.
    let (r, t) = rendered("\x1b[?25l.日本.".as_bytes(), 6, 1);
    let bg = pack(t.screen().palette().background);
    let first: Vec<u32> = (1..3).flat_map(|x| cell_pixels(&r, x, 0)).collect();
    let second: Vec<u32> = (3..5).flat_map(|x| cell_pixels(&r, x, 0)).collect();
    assert_ne!(first, second, "日 and 本 are drawn the same: no fallback font was found");
    assert!(first.iter().any(|&p| p != bg) && second.iter().any(|&p| p != bg));
    // Nothing spills out of the two cells: the dot cells hold only their dots.
    let (dot, _) = rendered("\x1b[?25l.".as_bytes(), 1, 1);
    assert_eq!(cell_pixels(&r, 0, 0), cell_pixels(&dot, 0, 0));
    assert_eq!(cell_pixels(&r, 5, 0), cell_pixels(&dot, 0, 0));
    // A character no font has is the font's missing-glyph box, the same for both.
    let (r, _) = rendered("\x1b[?25l\u{10FFFC}\u{10FFFD}".as_bytes(), 2, 1);
    assert_eq!(cell_pixels(&r, 0, 0), cell_pixels(&r, 1, 0));
}

#[test]
fn fontconfig_charsets_are_read_as_ranges() {
    let r = fallback::parse_charset("20-7e a0 4e00-9fff zz 30-2f");
    assert_eq!(r, vec![(0x20, 0x7e), (0xa0, 0xa0), (0x4e00, 0x9fff)]);
    for (c, yes) in [(0x1f, false), (0x20, true), (0x7e, true), (0x7f, false), (0xa0, true), (0x6e5, false)] {
        assert_eq!(fallback::covers(&r, c), yes, "{c:#x}");
    }
    assert!(fallback::covers(&r, 0x65e5) && !fallback::covers(&r, 0xa000) && !fallback::covers(&[], 0x41));
}

#[test]
fn a_font_the_machine_lacks_is_said_and_the_monospace_font_used() {
    let missing = Fonts::find("No Such Font Xyz", 12.0, 1.0).unwrap();
    let note = missing.substituted.clone().expect("the missing font is said");
    assert!(note.contains("No Such Font Xyz"), "{note}");
    let mono = Fonts::find("monospace", 12.0, 1.0).unwrap();
    assert_eq!(missing.files, mono.files, "the monospace font is used instead");
    assert!(mono.substituted.is_none(), "a generic name is no substitution");
    assert!(fonts().substituted.is_none());
    assert!(Fonts::find("dejavu sans mono:style=Bold", 12.0, 1.0).unwrap().substituted.is_none());
}

#[test]
fn double_width_and_double_height_rows_are_their_cells_stretched() {
    // The same text on a single row, and on a double-width row and the two halves of a
    // double-height one: each pixel of the double row is the single row's pixel at half its
    // column (and, for double height, at half its row within the top or bottom half). The
    // cells past the shown half (here "EFGH" of 8 columns) are not shown. Only what is not a
    // font's glyph is stretched (backgrounds, underlines, box drawing and blocks): the letters
    // come from the font at twice the size or twice the width (the next tests).
    let at = |r: &Renderer, x: usize, y: usize| r.fb.pixels[y * r.fb.width + x];
    for (seq, size) in [
        ("\x1b#6", LineSize::DoubleWidth),
        ("\x1b#3", LineSize::DoubleHeightTop),
        ("\x1b#4", LineSize::DoubleHeightBottom),
    ] {
        let line = "\x1b[41;4m \x1b[m\u{2588}\u{2500}\u{253c}";
        let (single, _) = rendered(format!("\x1b[?25l{line}").as_bytes(), 8, 1);
        let (cw, ch) = single.cell_size();
        for text in [format!("\x1b[?25l{seq}{line}"), format!("\x1b[?25l{line}EFGH\r{seq}")] {
            let (double, t) = rendered(text.as_bytes(), 8, 1);
            assert_eq!(t.screen().line_size(0), size);
            for y in 0..ch {
                let from_y = match size {
                    LineSize::DoubleHeightTop => y / 2,
                    LineSize::DoubleHeightBottom => ch / 2 + y / 2,
                    _ => y,
                };
                for x in 0..8 * cw {
                    assert_eq!(at(&double, x, y), at(&single, x / 2, from_y), "{text:?} pixel ({x}, {y})");
                }
            }
        }
    }
}

/// The pixels that differ from the first one (the background) in the `w` x `h` pixels at the
/// top left, cut to the smallest box that holds them all.
fn ink(r: &Renderer, w: usize, h: usize) -> Vec<Vec<u32>> {
    let bg = r.fb.pixels[0];
    let rows: Vec<Vec<u32>> = (0..h).map(|y| r.fb.pixels[y * r.fb.width..y * r.fb.width + w].to_vec()).collect();
    let inked = |p: &u32| *p != bg;
    let ys: Vec<usize> = (0..h).filter(|&y| rows[y].iter().any(inked)).collect();
    let xs: Vec<usize> = (0..w).filter(|&x| rows.iter().any(|row| inked(&row[x]))).collect();
    let (Some(&y0), Some(&y1), Some(&x0), Some(&x1)) = (ys.first(), ys.last(), xs.first(), xs.last()) else {
        return Vec::new();
    };
    rows[y0..=y1].iter().map(|row| row[x0..=x1].to_vec()).collect()
}

#[test]
fn double_height_letters_come_from_the_font_at_twice_the_size() {
    // The top and bottom halves of a double-height row, one above the other, show each letter
    // as the font draws it at twice the size (here: the same font at scale 2), not its
    // single-size pixels doubled; bold and a wide character too. (The box compared is the
    // letter's ink: the font's cell at twice the size is 19 pixels wide, twice the cell 20.)
    for text in ["A", "g", "\x1b[1mB", "\u{5b57}"] {
        let (double, _) = rendered(format!("\x1b[?25l\x1b#3{text}\r\n\x1b#4{text}").as_bytes(), 8, 2);
        let (cw, ch) = double.cell_size();
        let mut t = Terminal::new(4, 1);
        t.feed(format!("\x1b[?25l{text}").as_bytes());
        let mut big = Renderer::new(Fonts::find("DejaVu Sans Mono", 12.0, 2.0).unwrap(), 4, 1);
        big.render(t.screen());
        let (bw, bh) = big.cell_size();
        let width = 2 * 2 * cw.max(bw);
        let got = ink(&double, width.min(double.fb.width), 2 * ch);
        let want = ink(&big, width.min(big.fb.width), bh);
        assert!(!want.is_empty(), "{text:?}");
        assert!(got == want, "{text:?}: the double-height letter is not the font's at twice the size: cells {cw}x{ch} and {bw}x{bh}, ink {}x{} and {}x{}", got.first().map_or(0, Vec::len), got.len(), want.first().map_or(0, Vec::len), want.len());
        // And not a stretch: a stretched row repeats every pixel column.
        assert!(got.iter().any(|row| row.chunks(2).any(|p| p.len() == 2 && p[0] != p[1])), "{text:?}");
    }
}

#[test]
fn double_width_letters_come_from_the_font_twice_as_wide() {
    // A letter on a double-width row is as high as on a single row and twice as wide, and not
    // its single pixels doubled; bold too, and a fallback font's wide characters (CJK from
    // WenQuanYi, an emoji from Symbola: scripts/setup.sh installs both).
    for (text, from_the_font) in [("A", true), ("g", true), ("\x1b[1mB", true), ("\u{5b57}", true), ("\u{1f600}", true)]
    {
        let (single, _) = rendered(format!("\x1b[?25l{text}").as_bytes(), 8, 1);
        let (double, _) = rendered(format!("\x1b[?25l\x1b#6{text}").as_bytes(), 8, 1);
        let (cw, ch) = single.cell_size();
        let (one, two) = (ink(&single, 2 * cw, ch), ink(&double, 4 * cw, ch));
        let (w1, w2) = (one[0].len(), two[0].len());
        assert!(two.len().abs_diff(one.len()) <= 1, "{text:?}: {} pixels high against {}", two.len(), one.len());
        assert!(w2.abs_diff(2 * w1) <= 2, "{text:?}: {w2} pixels wide against {w1}");
        if from_the_font {
            let doubled = two.iter().all(|row| row.chunks(2).all(|p| p.len() < 2 || p[0] == p[1]));
            assert!(!doubled, "{text:?}: its single pixels doubled");
        }
    }
}

#[test]
fn a_block_cursor_on_a_double_width_row_is_its_cell_stretched_in_inverse() {
    // The cursor on a blank (column 1): the single row's inverse cell, stretched. On a letter,
    // the letter is drawn in the background's colour over the cursor's.
    let (single, _) = rendered(b"A \x1b[1;2H", 8, 1);
    let (double, _) = rendered(b"\x1b#6A \x1b[1;2H", 8, 1);
    let (cw, ch) = single.cell_size();
    let at = |r: &Renderer, x: usize, y: usize| r.fb.pixels[y * r.fb.width + x];
    for y in 0..ch {
        for x in 2 * cw..4 * cw {
            assert_eq!(at(&double, x, y), at(&single, x / 2, y), "pixel ({x}, {y})");
        }
    }
    let (on_letter, _) = rendered(b"\x1b#6Ag\x1b[1;2H", 8, 1);
    let (bg, fg) = (at(&single, 0, 0), at(&single, cw, 0));
    assert_ne!(bg, fg);
    let cell: Vec<u32> =
        (0..ch).flat_map(|y| (2 * cw..4 * cw).map(move |x| (x, y))).map(|(x, y)| at(&on_letter, x, y)).collect();
    assert!(cell.contains(&fg) && cell.contains(&bg), "the cursor's cell holds the letter in inverse");
}

#[test]
fn double_size_rows_drawn_frame_by_frame_end_as_drawn_at_once() {
    // Output in pieces, rendered after each (damage cleared, as the window does), against the
    // same output rendered once: the cursor leaving a double row, text added to one, a row
    // made single again, double rows scrolled.
    let pieces: &[&[u8]] =
        &[b"\x1b#6Ag", b"D", b"\r\n", b"xy\x1b[1;3H", b"\x1b#5", b"\x1b#3top\r\n\x1b#4top", b"\r\n\n\n"];
    let mut t = Terminal::new(8, 3);
    let mut r = Renderer::new(fonts(), 8, 3);
    let mut all = Vec::new();
    for piece in pieces {
        t.feed(piece);
        all.extend_from_slice(piece);
        r.render(t.screen());
        t.screen_mut().clear_damage();
        let (once, _) = rendered(&all, 8, 3);
        assert!(r.fb.pixels == once.fb.pixels, "after {:?}", String::from_utf8_lossy(&all));
    }
}

/// Draws `chars` through `r`, a screen at a time (never scrolled, each character drawn
/// once), each screen in the next of the four faces; `each` looks at the renderer after
/// each screen.
fn draw_all(r: &mut Renderer, chars: impl Iterator<Item = char>, mut each: impl FnMut(&Renderer)) {
    let (cols, rows) = (r.cols, r.rows);
    let mut t = Terminal::new(cols, rows);
    // At most two cells a character, and a cell a row lost to a wide character wrapped.
    let per_screen = cols * (rows - 1) / 2;
    let printable = chars.filter(|&c| c >= ' ' && !('\u{7f}'..='\u{9f}').contains(&c));
    let mut screen = String::new();
    for (i, c) in printable.enumerate() {
        if i % per_screen == 0 && i > 0 {
            t.feed(screen.as_bytes());
            r.render(t.screen());
            t.screen_mut().clear_damage();
            each(r);
            screen.clear();
        }
        if i % per_screen == 0 {
            let sgr = ["0", "0;1", "0;3", "0;1;3"][i / per_screen % 4];
            screen.push_str(&format!("\x1b[{sgr}m\x1b[H\x1b[2J"));
        }
        screen.push(c);
    }
    t.feed(screen.as_bytes());
    r.render(t.screen());
    each(r);
}

#[test]
fn drawing_every_character_at_a_large_size_keeps_the_glyph_cache_within_its_budget() {
    // Unbounded, every character once took 1.69 GB at 40 points. Every 61st scalar value at
    // 200 points (a glyph of tens of kilobytes) is several times the budget.
    let mut r = Renderer::new(Fonts::find("DejaVu Sans Mono", 200.0, 1.0).unwrap(), 16, 9);
    let (mut most, mut swept, mut kept) = (0, false, 0);
    draw_all(&mut r, (0..=0x10FFFFu32).step_by(61).filter_map(char::from_u32), |r| {
        most = most.max(r.glyph_cache_bytes());
        swept |= r.cache.map.len() < kept;
        kept = r.cache.map.len();
    });
    assert!(most <= GLYPH_CACHE_BYTES, "{most} bytes");
    assert!(swept, "the budget was never reached: the test shows nothing");
}

#[test]
fn glyphs_evicted_and_drawn_again_give_the_same_pixels() {
    // Each face, a fallback font's wide character, a combining mark, box drawing, and the
    // letters of double-width and double-height rows (their own glyphs).
    let text = "\x1b[?25lAg\x1b[1mAg\x1b[3mAg\x1b[22mAg\x1b[0m \u{65e5}\u{672c}e\u{301}\u{2500}\r\n\
                \x1b#6Wide\u{65e5}\r\n\x1b#3Tall\u{65e5}\r\n\x1b#4Tall\u{65e5}";
    let mut t = Terminal::new(20, 4);
    t.feed(text.as_bytes());
    let mut r = Renderer::new(fonts(), 20, 4);
    r.render(t.screen());
    let want = r.fb.pixels.clone();
    let keys: Vec<_> = r.cache.map.keys().copied().collect();
    assert!(keys.len() >= 20, "{keys:?}");
    // Drawn with a budget smaller than this one screen's glyphs, glyphs are evicted while the
    // screen is drawn: the pixels are the same.
    let mut small = Renderer::new(fonts(), 20, 4);
    small.cache.budget = 4 << 10;
    small.render(t.screen());
    assert!(small.fb.pixels == want, "drawn with evictions during the frame, the screen differs");
    assert!(small.glyph_cache_bytes() <= 4 << 10, "{}", small.glyph_cache_bytes());
    // Ideographs until every glyph of the screen has been evicted, then the screen again.
    r.cache.budget = 1 << 20;
    draw_all(&mut r, ('\u{4e00}'..='\u{9fff}').take(6000), |_| {});
    let left: Vec<_> = keys.iter().filter(|k| r.cache.map.contains_key(k)).collect();
    assert!(left.is_empty(), "not evicted: {left:?}");
    r.invalidate();
    r.render(t.screen());
    assert!(r.fb.pixels == want, "glyphs drawn again differ from their first drawing");
}
