//! libvterm's own test scripts (`t/*.test` of libvterm 0.3.3) run against blitty's engine: an
//! outside check written by another engine's author, of the cursor, the screen's characters,
//! cells and line sizes, the pen, and the answers to queries.
//!
//! The scripts drive libvterm's test harness through commands (`PUSH` bytes, `RESIZE`,
//! `RESET`) and check two kinds of things: assertions about the state after them (`?cursor`,
//! `?screen_row`, `?screen_chars`, `?screen_text`, `?screen_cell`, `?screen_eol`, `?pen`,
//! `?lineinfo`), and the callbacks libvterm made while it took the bytes (`putglyph`,
//! `scrollrect`, `output` ...). blitty has no callbacks, so of those only the ones that say
//! something about the result are checked:
//! - `output` (what the terminal answered): the bytes of a command's `output` lines against
//!   the engine's replies to that command;
//! - `putglyph CHARS WIDTH ROW,COL [dwl] [dhl-top|dhl-bottom]`: that the cell holds those
//!   characters at that width on a row of that size once the command is done, for glyphs put
//!   after the command's last scroll, erase or move of cells (which would have moved them);
//! - `sb_pushline`: the lines a PUSH scrolled into the history, in order;
//! - `settermprop` for the properties blitty keeps (cursor shown, alternate screen, title,
//!   cursor shape, mouse mode, focus reports), as they are once the command is done.
//!
//! Everything else (parser callbacks, key and mouse input, selections, damage, scrollback
//! pushes by a resize, other properties, `?screen_attrs_extent`) is counted as not checked.
//! Files of libvterm's parser, input and selection layers (02, 25, 40) hold nothing of the
//! kind.
//!
//! Colours are printed as libvterm's harness prints them: `?pen` colours as the pen holds them
//! (`idx(N)`, `rgb(R,G,B)`, the defaults as libvterm's 240,240,240 and 0,0,0 with their
//! `is_default` flags), `?screen_cell` colours in RGB through libvterm's palette. A blank cell
//! is a space in blitty: where libvterm tells an erased cell from a written space (trailing
//! spaces in `?screen_chars`, `?screen_eol`), blitty counts both as erased.
//!
//! Usage: `cargo run --release -p blitty-lab --example libvterm_tests -- DIR/t/*.test`. Prints
//! each failed check as `FILE:LINE: CHECK: expected ..., blitty ...`, then a count. Exits 0
//! whatever fails: `scripts/libvterm-tests.sh` compares the failures with the expected list.

use std::fmt::Write as _;

use blitty_vt::{Color, LineSize, Style, Terminal, Underline};

/// A parsed Perl string expression, as libvterm's scripts write their bytes: units are bytes
/// (`\xHH`) or, above 0xFF (`\x{HHHH}`), code points.
fn perl_string(src: &str) -> Result<Vec<u32>, String> {
    let s: Vec<char> = src.trim().chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    loop {
        while i < s.len() && s[i] == ' ' {
            i += 1;
        }
        let quote = *s.get(i).ok_or("expected a string")?;
        if quote != '"' && quote != '\'' {
            return Err(format!("expected a string at {:?}", &src[i.min(src.len())..]));
        }
        i += 1;
        let mut term = Vec::new();
        while i < s.len() && s[i] != quote {
            let c = s[i];
            i += 1;
            if c != '\\' || quote == '\'' {
                let mut b = [0; 4];
                term.extend(c.encode_utf8(&mut b).bytes().map(u32::from));
                continue;
            }
            let e = *s.get(i).ok_or("escape at the end")?;
            i += 1;
            match e {
                'e' => term.push(0x1b),
                'n' => term.push(b'\n'.into()),
                'r' => term.push(b'\r'.into()),
                't' => term.push(b'\t'.into()),
                'b' => term.push(8),
                'a' => term.push(7),
                'f' => term.push(12),
                'x' if s.get(i) == Some(&'{') => {
                    let end = s[i..].iter().position(|&c| c == '}').ok_or("unclosed \\x{")? + i;
                    let hex: String = s[i + 1..end].iter().collect();
                    term.push(u32::from_str_radix(&hex, 16).map_err(|e| e.to_string())?);
                    i = end + 1;
                }
                'x' => {
                    let mut v = 0;
                    let mut n = 0;
                    while n < 2 && i < s.len() && s[i].is_ascii_hexdigit() {
                        v = v * 16 + s[i].to_digit(16).unwrap();
                        i += 1;
                        n += 1;
                    }
                    term.push(v);
                }
                '0'..='7' => {
                    let mut v = e.to_digit(8).unwrap();
                    let mut n = 1;
                    while n < 3 && i < s.len() && s[i].is_digit(8) {
                        v = v * 8 + s[i].to_digit(8).unwrap();
                        i += 1;
                        n += 1;
                    }
                    term.push(v);
                }
                c => {
                    let mut b = [0; 4];
                    term.extend(c.encode_utf8(&mut b).bytes().map(u32::from));
                }
            }
        }
        i += 1;
        while i < s.len() && s[i] == ' ' {
            i += 1;
        }
        if s.get(i) == Some(&'x') {
            i += 1;
            let start = i;
            while i < s.len() && (s[i] == ' ' || s[i].is_ascii_digit()) {
                i += 1;
            }
            let n: usize = s[start..i].iter().collect::<String>().trim().parse().map_err(|_| "bad repeat")?;
            out.extend(term.iter().copied().cycle().take(term.len() * n));
        } else {
            out.extend(term);
        }
        while i < s.len() && s[i] == ' ' {
            i += 1;
        }
        match s.get(i) {
            None => return Ok(out),
            Some('.') => i += 1,
            Some(_) => return Err(format!("unexpected text in {src:?}")),
        }
    }
}

/// A comma list of numbers (`0x41,0x301` or `65`).
fn number_list(src: &str) -> Option<Vec<u32>> {
    src.split(',')
        .map(|t| {
            let t = t.trim();
            match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(h) => u32::from_str_radix(h, 16).ok(),
                None => t.parse().ok(),
            }
        })
        .collect()
}

/// A string expression or a number list, as `?screen_row` and `?screen_chars` take either.
fn units(src: &str) -> Result<Vec<u32>, String> {
    let t = src.trim();
    if t.starts_with('"') || t.starts_with('\'') {
        perl_string(t)
    } else if t.is_empty() {
        Ok(Vec::new())
    } else {
        number_list(t).ok_or_else(|| format!("not a number list: {t:?}"))
    }
}

fn hex_list(v: &[u32]) -> String {
    v.iter().map(|c| format!("0x{c:02x}")).collect::<Vec<_>>().join(",")
}

/// libvterm's 16 colours, then its cube and grey ramp (src/pen.c), for `?screen_cell`.
fn libvterm_rgb(i: u8) -> (u8, u8, u8) {
    const ANSI: [(u8, u8, u8); 16] = [
        (0, 0, 0),
        (224, 0, 0),
        (0, 224, 0),
        (224, 224, 0),
        (0, 0, 224),
        (224, 0, 224),
        (0, 224, 224),
        (224, 224, 224),
        (128, 128, 128),
        (255, 64, 64),
        (64, 255, 64),
        (255, 255, 64),
        (64, 64, 255),
        (255, 64, 255),
        (64, 255, 255),
        (255, 255, 255),
    ];
    const RAMP6: [u8; 6] = [0x00, 0x33, 0x66, 0x99, 0xcc, 0xff];
    const RAMP24: [u8; 24] = [
        0x00, 0x0B, 0x16, 0x21, 0x2C, 0x37, 0x42, 0x4D, 0x58, 0x63, 0x6E, 0x79, 0x85, 0x90, 0x9B, 0xA6, 0xB1, 0xBC,
        0xC7, 0xD2, 0xDD, 0xE8, 0xF3, 0xFF,
    ];
    match i {
        0..=15 => ANSI[i as usize],
        16..=231 => {
            let k = i as usize - 16;
            (RAMP6[k / 36], RAMP6[k / 6 % 6], RAMP6[k % 6])
        }
        _ => {
            let g = RAMP24[i as usize - 232];
            (g, g, g)
        }
    }
}

const DEFAULT_FG: (u8, u8, u8) = (240, 240, 240);
const DEFAULT_BG: (u8, u8, u8) = (0, 0, 0);

fn pen_colour(c: Color, fg: bool) -> String {
    match c {
        Color::Indexed(i) => format!("idx({i})"),
        Color::Rgb(r, g, b) => format!("rgb({r},{g},{b})"),
        Color::Default if fg => "rgb(240,240,240,is_default_fg)".into(),
        Color::Default => "rgb(0,0,0,is_default_bg)".into(),
    }
}

fn cell_colour(c: Color, fg: bool) -> String {
    let (r, g, b) = match c {
        Color::Indexed(i) => libvterm_rgb(i),
        Color::Rgb(r, g, b) => (r, g, b),
        Color::Default if fg => DEFAULT_FG,
        Color::Default => DEFAULT_BG,
    };
    format!("rgb({r},{g},{b})")
}

fn underline_number(u: Underline) -> u32 {
    match u {
        Underline::None => 0,
        Underline::Single => 1,
        Underline::Double => 2,
        // libvterm's VTERM_UNDERLINE_CURLY; it has no dotted or dashed.
        _ => 3,
    }
}

/// One script run: the engine and what the current command left to check.
struct Run {
    file: String,
    term: Terminal,
    cols: usize,
    rows: usize,
    /// The current command: its line, whether it was a PUSH, the replies it drew.
    command: Option<(usize, bool, Vec<u8>)>,
    /// The command's `output` lines, joined.
    want_output: Vec<u8>,
    saw_output: bool,
    /// The command's `putglyph` lines since its last scroll, erase or cell move: (line, chars,
    /// width, row, col, line size).
    glyphs: Vec<(usize, Vec<u32>, usize, usize, usize, LineSize)>,
    /// Lines the main screen had pushed into its history when the command began.
    pushed_before: u64,
    /// The command's `sb_pushline` lines: (line, each line's first characters, in order).
    pushlines: Vec<(usize, Vec<u32>)>,
    /// The command's `settermprop` lines: (line, property, value), the last for each property.
    props: Vec<(usize, u32, String)>,
    /// The command is one whose callbacks are not checked (input, selection, damage).
    unchecked_command: bool,
    passed: usize,
    failed: Vec<String>,
    unchecked: usize,
}

impl Run {
    fn new(file: String) -> Run {
        Run {
            file,
            term: Terminal::new(80, 25),
            cols: 80,
            rows: 25,
            command: None,
            want_output: Vec::new(),
            saw_output: false,
            glyphs: Vec::new(),
            props: Vec::new(),
            pushed_before: 0,
            pushlines: Vec::new(),
            unchecked_command: false,
            passed: 0,
            failed: Vec::new(),
            unchecked: 0,
        }
    }

    fn check(&mut self, line: usize, what: &str, want: &str, got: &str) {
        if want == got {
            self.passed += 1;
        } else {
            self.failed.push(format!("{}:{line}: {what}: expected {want:?}, blitty {got:?}", self.file));
        }
    }

    /// A line of the script this runner cannot read: a failure, so that it is not passed over.
    fn unreadable(&mut self, line: usize, what: &str) {
        self.failed.push(format!("{}:{line}: cannot read {what}", self.file));
    }

    /// The checks of the command that has ended.
    fn finish_command(&mut self) {
        let Some((line, _, replies)) = self.command.take() else { return };
        if self.saw_output || !replies.is_empty() {
            let want = String::from_utf8_lossy(&self.want_output).into_owned();
            let got = String::from_utf8_lossy(&replies).into_owned();
            self.check(line, "output", &want, &got);
        }
        for (gline, chars, width, row, col, size) in std::mem::take(&mut self.glyphs) {
            let got = self.glyph_at(row, col);
            let want = format!("{} {width} {row},{col}{}", hex_list(&chars), size_suffix(size));
            self.check(gline, "putglyph", &want, &got);
        }
        let pushlines = std::mem::take(&mut self.pushlines);
        if let Some(&(pline, _)) = pushlines.first() {
            let want: Vec<String> = pushlines.iter().map(|(_, chars)| hex_list(chars)).collect();
            self.check(pline, "sb_pushline", &want.join(" | "), &self.pushed_lines().join(" | "));
        }
        for (pline, prop, want) in std::mem::take(&mut self.props) {
            match self.prop(prop) {
                Some(got) => self.check(pline, &format!("settermprop {prop}"), &want, &got),
                None => self.unchecked += 1,
            }
        }
        self.want_output.clear();
        self.saw_output = false;
        self.unchecked_command = false;
    }

    /// A terminal property as libvterm's `settermprop` gives it, for those blitty keeps:
    /// 1 cursor visible, 3 alternate screen, 4 title, 7 cursor shape (1 block, 2 underline,
    /// 3 bar), 8 mouse (0 off, 1 clicks, 2 drags, 3 all motion), 9 focus reports.
    fn prop(&self, prop: u32) -> Option<String> {
        use blitty_vt::term::{CursorShape, MouseTracking};
        let screen = self.term.screen();
        let m = screen.modes();
        Some(match prop {
            1 => m.cursor_visible.to_string(),
            3 => screen.alternate_screen().to_string(),
            4 => format!("[{:?}]", screen.title()),
            7 => match m.cursor_shape {
                CursorShape::Default | CursorShape::BlinkingBlock | CursorShape::SteadyBlock => "1",
                CursorShape::BlinkingUnderline | CursorShape::SteadyUnderline => "2",
                CursorShape::BlinkingBar | CursorShape::SteadyBar => "3",
            }
            .to_string(),
            8 => match m.mouse {
                MouseTracking::Off => "0",
                MouseTracking::X10 | MouseTracking::Normal => "1",
                MouseTracking::ButtonMotion => "2",
                MouseTracking::AnyMotion => "3",
            }
            .to_string(),
            9 => m.focus_events.to_string(),
            _ => return None,
        })
    }

    /// The lines the command pushed into the history, oldest first, each as its characters up
    /// to its last non-blank cell (as libvterm's `sb_pushline` lists a line's first
    /// characters).
    fn pushed_lines(&self) -> Vec<String> {
        let screen = self.term.screen();
        let new = (screen.history_pushed() - self.pushed_before) as usize;
        let len = screen.history_len();
        (len - new.min(len)..len)
            .map(|i| {
                let row = screen.history_row(i);
                let mut chars: Vec<u32> = Vec::new();
                for &cell in row.iter().filter(|c| !c.is_spacer()) {
                    chars.push(self.cell_chars(cell).first().copied().unwrap_or(0x20));
                }
                while chars.last() == Some(&0x20) {
                    chars.pop();
                }
                hex_list(&chars)
            })
            .collect()
    }

    /// A cell as a `putglyph` line describes it.
    fn glyph_at(&self, row: usize, col: usize) -> String {
        let screen = self.term.screen();
        if row >= screen.rows() || col >= screen.cols() {
            return format!("(outside the screen) {row},{col}");
        }
        let cell = screen.row(row)[col];
        let chars = self.cell_chars(cell);
        let width = if cell.is_wide() { 2 } else { 1 };
        format!("{} {width} {row},{col}{}", hex_list(&chars), size_suffix(screen.line_size(row)))
    }

    fn cell_chars(&self, cell: blitty_vt::Cell) -> Vec<u32> {
        let mut s = String::new();
        self.term.screen().push_cell_text(cell, &mut s);
        s.chars().map(u32::from).collect()
    }

    /// libvterm's `_get_chars` over a rectangle: erased cells become spaces only before a
    /// character on the same row, rows are joined by LF.
    fn rect_chars(&self, r0: usize, c0: usize, r1: usize, c1: usize) -> Vec<u32> {
        let screen = self.term.screen();
        let mut out = Vec::new();
        for r in r0..r1.min(screen.rows()) {
            let row = screen.row(r);
            let mut padding = 0;
            for c in c0..c1.min(screen.cols()) {
                let cell = row[c];
                if cell.is_blank() {
                    padding += 1;
                } else if cell.is_spacer() {
                } else {
                    out.extend(std::iter::repeat_n(0x20, padding));
                    padding = 0;
                    out.extend(self.cell_chars(cell));
                }
            }
            if r + 1 < r1 {
                out.push(0x0a);
            }
        }
        out
    }

    fn assertion(&mut self, line: usize, query: &str, want: &str) {
        let screen = self.term.screen();
        let nums = |s: &str| number_list(s).unwrap_or_default();
        let got = if query == "cursor" {
            let c = screen.cursor();
            format!("{},{}", c.y, c.x)
        } else if let Some(attr) = query.strip_prefix("pen ") {
            let pen: Style = screen.pen();
            let on = |b| if pen.attrs.has(b) { "on" } else { "off" }.to_string();
            match attr.trim() {
                "bold" => on(blitty_vt::Attrs::BOLD),
                "italic" => on(blitty_vt::Attrs::ITALIC),
                "blink" => on(blitty_vt::Attrs::BLINK),
                "reverse" => on(blitty_vt::Attrs::INVERSE),
                "underline" => underline_number(pen.attrs.underline()).to_string(),
                "foreground" => pen_colour(pen.fg, true),
                "background" => pen_colour(pen.bg, false),
                // blitty keeps no alternative fonts, small text or baselines (SGR 10-19, 73-75).
                "font" => "0".into(),
                "small" => "off".into(),
                "baseline" => "normal".into(),
                _ => return self.unchecked += 1,
            }
        } else if let Some(arg) = query.strip_prefix("lineinfo ") {
            let r: usize = arg.trim().parse().unwrap_or(0);
            let mut s = String::new();
            if r < screen.rows() {
                match screen.line_size(r) {
                    LineSize::Single => {}
                    LineSize::DoubleWidth => s.push_str("dwl "),
                    _ => s.push_str("dwl dhl "),
                }
                let cont = if r > 0 {
                    screen.row_wrapped(r - 1)
                } else {
                    screen.history_len() > 0 && screen.history_wrapped(screen.history_len() - 1)
                };
                if cont {
                    s.push_str("cont ");
                }
            }
            s.trim().to_string()
        } else if let Some(arg) = query.strip_prefix("screen_chars ").or_else(|| query.strip_prefix("screen_row ")) {
            // `?screen_row N` is `?screen_chars N`: the whole row.
            let got = match nums(arg)[..] {
                [r0, c0, r1, c1] => self.rect_chars(r0 as usize, c0 as usize, r1 as usize, c1 as usize),
                [r] => self.rect_chars(r as usize, 0, r as usize + 1, self.cols),
                _ => return self.unchecked += 1,
            };
            match units(want) {
                Ok(want_units) => return self.check(line, query, &hex_list(&want_units), &hex_list(&got)),
                Err(e) => return self.unreadable(line, &format!("{want:?}: {e}")),
            }
        } else if let Some(arg) = query.strip_prefix("screen_text ") {
            let n = nums(arg);
            let [r0, c0, r1, c1] = n[..] else { return self.unchecked += 1 };
            let chars = self.rect_chars(r0 as usize, c0 as usize, r1 as usize, c1 as usize);
            let text: String = chars.iter().filter_map(|&c| char::from_u32(c)).collect();
            let bytes: Vec<u32> = text.bytes().map(u32::from).collect();
            hex_list(&bytes)
        } else if let Some(arg) = query.strip_prefix("screen_eol ") {
            let n = nums(arg);
            let [r, c] = n[..] else { return self.unchecked += 1 };
            if r as usize >= screen.rows() {
                return self.check(line, query, want.trim(), "(outside the screen)");
            }
            let row = screen.row(r as usize);
            let eol = row[(c as usize).min(row.len())..].iter().all(|c| c.is_blank());
            (eol as u8).to_string()
        } else if let Some(arg) = query.strip_prefix("screen_cell ") {
            let n = nums(arg);
            let [r, c] = n[..] else { return self.unchecked += 1 };
            let (r, c) = (r as usize, c as usize);
            if r >= screen.rows() || c >= screen.cols() {
                return self.check(line, query, want.trim(), "(outside the screen)");
            }
            let row = screen.row(r);
            let cell = row[c];
            let style = row.style(cell);
            let chars = if cell.is_blank() { Vec::new() } else { self.cell_chars(cell) };
            let mut s = format!("{{{}}}", chars.iter().map(|c| format!("0x{c:x}")).collect::<Vec<_>>().join(","));
            let _ = write!(s, " width={} attrs={{", if cell.is_wide() { 2 } else { 1 });
            let a = style.attrs;
            if a.has(blitty_vt::Attrs::BOLD) {
                s.push('B');
            }
            let u = underline_number(a.underline());
            if u > 0 {
                let _ = write!(s, "U{u}");
            }
            if a.has(blitty_vt::Attrs::ITALIC) {
                s.push('I');
            }
            if a.has(blitty_vt::Attrs::BLINK) {
                s.push('K');
            }
            if a.has(blitty_vt::Attrs::INVERSE) {
                s.push('R');
            }
            s.push_str("} ");
            match screen.line_size(r) {
                LineSize::Single => {}
                LineSize::DoubleWidth => s.push_str("dwl "),
                LineSize::DoubleHeightTop => s.push_str("dwl dhl-top "),
                LineSize::DoubleHeightBottom => s.push_str("dwl dhl-bottom "),
            }
            let _ = write!(s, "fg={} bg={}", cell_colour(style.fg, true), cell_colour(style.bg, false));
            s
        } else {
            return self.unchecked += 1;
        };
        self.check(line, query, want.trim(), &got);
    }

    fn command(&mut self, line: usize, cmd: &str) {
        self.finish_command();
        self.pushed_before = self.term.screen().history_pushed();
        let (word, rest) = cmd.split_once(' ').unwrap_or((cmd, ""));
        match word {
            "INIT" | "WANTSTATE" | "WANTSCREEN" | "UTF" | "UTF8" => {}
            "RESET" => {
                self.term = Terminal::new(self.cols, self.rows);
                self.pushed_before = 0;
            }
            "RESIZE" => {
                if let Some([r, c]) = number_list(rest).as_deref() {
                    (self.rows, self.cols) = (*r as usize, *c as usize);
                    self.term.resize(self.cols, self.rows);
                }
            }
            "PUSH" => match perl_string(rest) {
                Ok(units) => {
                    let bytes: Vec<u8> = units.iter().map(|&u| u as u8).collect();
                    self.term.feed(&bytes);
                    let replies = self.term.take_replies();
                    self.command = Some((line, true, replies));
                    return;
                }
                Err(e) => self.unreadable(line, &format!("{rest:?}: {e}")),
            },
            _ => {
                self.unchecked += 1;
                self.unchecked_command = true;
            }
        }
        self.command = Some((line, false, Vec::new()));
    }

    fn expectation(&mut self, line: usize, text: &str) {
        if self.unchecked_command || !matches!(self.command, Some((_, true, _))) {
            self.unchecked += 1;
            return;
        }
        let (word, rest) = text.split_once(' ').unwrap_or((text, ""));
        match word {
            "output" => match perl_string(rest) {
                Ok(u) => {
                    self.want_output.extend(u.iter().map(|&u| u as u8));
                    self.saw_output = true;
                }
                Err(e) => self.unreadable(line, &format!("{rest:?}: {e}")),
            },
            "putglyph" => {
                let mut parts = rest.split_whitespace();
                let chars = parts.next().and_then(number_list);
                let width = parts.next().and_then(|w| w.parse().ok());
                let pos = parts.next().and_then(number_list);
                let flags: Vec<&str> = parts.collect();
                let size = if flags.contains(&"dhl-top") {
                    LineSize::DoubleHeightTop
                } else if flags.contains(&"dhl-bottom") {
                    LineSize::DoubleHeightBottom
                } else if flags.contains(&"dwl") {
                    LineSize::DoubleWidth
                } else {
                    LineSize::Single
                };
                match (chars, width, pos.as_deref()) {
                    (Some(chars), Some(width), Some([r, c])) => {
                        // A later glyph in the same cell replaces an earlier one.
                        let (r, c) = (*r as usize, *c as usize);
                        self.glyphs.retain(|g| (g.3, g.4) != (r, c));
                        self.glyphs.push((line, chars, width, r, c, size));
                    }
                    _ => self.unreadable(line, &format!("putglyph {rest:?}")),
                }
            }
            "sb_pushline" => {
                // `sb_pushline COLS = HH HH ...`: the line's first characters, in hexadecimal.
                let chars = rest.split_once('=').map_or("", |(_, c)| c);
                let chars: Option<Vec<u32>> =
                    chars.split_whitespace().map(|h| u32::from_str_radix(h, 16).ok()).collect();
                match chars {
                    Some(c) => self.pushlines.push((line, c)),
                    None => self.unreadable(line, &format!("sb_pushline {rest:?}")),
                }
                self.unchecked += self.glyphs.len();
                self.glyphs.clear();
            }
            // Cells moved or erased after a glyph was put: the glyph is no longer where it
            // was put (or is gone), so it is not checked.
            "scrollrect" | "moverect" | "erase" | "sb_popline" | "sb_clear" => {
                self.unchecked += self.glyphs.len();
                self.glyphs.clear();
                self.unchecked += 1;
            }
            "settermprop" => {
                let (prop, value) = rest.split_once(' ').unwrap_or((rest, ""));
                let Ok(prop) = prop.parse::<u32>() else { return self.unchecked += 1 };
                let value = value.trim();
                // A string property comes whole as ["..."]; pieces of one are not checked.
                let value = if let Some(inner) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
                    match perl_string(inner) {
                        Ok(u) => format!("[{:?}]", u.iter().filter_map(|&c| char::from_u32(c)).collect::<String>()),
                        Err(_) => return self.unchecked += 1,
                    }
                } else if value.starts_with('[') || value.ends_with(']') {
                    return self.unchecked += 1;
                } else {
                    value.to_string()
                };
                self.props.retain(|p| p.1 != prop);
                self.props.push((line, prop, value));
            }
            _ => self.unchecked += 1,
        }
    }

    fn line(&mut self, n: usize, line: &str) {
        if let Some(rest) = line.strip_prefix("$SEQ") {
            let Some((range, body)) = rest.split_once(':') else { return };
            let v: Vec<i64> = range.split_whitespace().filter_map(|t| t.parse().ok()).collect();
            if let [lo, hi] = v[..] {
                for k in lo..=hi {
                    self.line(n, body.trim_start().replace("\\#", &k.to_string()).as_str());
                }
            }
            return;
        }
        if let Some(rest) = line.strip_prefix("$REP") {
            let Some((count, body)) = rest.split_once(':') else { return };
            for _ in 0..count.trim().parse().unwrap_or(0) {
                self.line(n, body.trim_start());
            }
            return;
        }
        if line.starts_with('!') {
            self.finish_command();
        } else if line.starts_with(|c: char| c.is_ascii_uppercase()) {
            self.command(n, line);
        } else if line.starts_with(|c: char| c.is_ascii_lowercase()) {
            self.expectation(n, line);
        } else if let Some(rest) = line.strip_prefix('?') {
            self.finish_command();
            let Some((query, want)) = rest.split_once('=') else { return };
            let query = query.split_whitespace().collect::<Vec<_>>().join(" ");
            self.assertion(n, &query, want);
        }
    }
}

fn size_suffix(size: LineSize) -> &'static str {
    match size {
        LineSize::Single => "",
        LineSize::DoubleWidth => " dwl",
        LineSize::DoubleHeightTop => " dwl dhl-top",
        LineSize::DoubleHeightBottom => " dwl dhl-bottom",
    }
}

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: libvterm_tests FILE.test...");
        std::process::exit(2);
    }
    let (mut passed, mut failed, mut unchecked) = (0, 0, 0);
    for path in &files {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("libvterm_tests: {path}: {e}");
                std::process::exit(2);
            }
        };
        let name = std::path::Path::new(path).file_name().map_or(path.clone(), |f| f.to_string_lossy().into_owned());
        let mut run = Run::new(name);
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim_start();
            if line == "__END__" {
                break;
            }
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            run.line(i + 1, line);
        }
        run.finish_command();
        for f in &run.failed {
            println!("{f}");
        }
        passed += run.passed;
        failed += run.failed.len();
        unchecked += run.unchecked;
    }
    println!("libvterm's checks: {passed} passed, {failed} failed, {unchecked} not checked");
}
