//! Answers to the program (DSR, DA1, DA2; DECRQM lives with the modes, colour and setting
//! queries in `query.rs`) and OSC commands (titles, hyperlinks, colours, clipboard writes).
//! Queries whose answer could echo attacker-chosen text back as input are refused: window
//! title reports (CSI 20 t, CSI 21 t) and clipboard reads (OSC 52 ?) are never answered.

use super::{Clipboard, Screen, MAX_CLIPBOARD, MAX_LINK, MAX_LINK_ID, MAX_TITLE};

impl Screen {
    /// DSR (CSI Ps n): 5 answers "OK" (CSI 0 n); 6 reports the cursor (CPR, CSI r ; c R),
    /// relative to the margins in origin mode; `?15`, `?25` and `?26` the VT220's printer,
    /// user-defined keys and keyboard. A cursor above or left of the margins (a
    /// restore can leave it there, as in xterm) is reported on the first row or column: a
    /// report never names a position off the screen.
    pub(crate) fn device_status(&mut self, ps: u16, private: bool) {
        match ps {
            5 if !private => self.reply(b"\x1b[0n"),
            6 => {
                let (mut r, mut c) = (self.cursor.y + 1, self.cursor.x + 1);
                if self.modes.origin {
                    r = r.saturating_sub(self.top).max(1);
                    c = c.saturating_sub(self.left).max(1);
                }
                let (r, c) = (r.min(self.rows), c.min(self.cols));
                let answer = if private { format!("\x1b[?{r};{c}R") } else { format!("\x1b[{r};{c}R") };
                self.reply(answer.as_bytes());
            }
            // The VT220's own reports, as xterm makes them at that level (the level DA1 names):
            // no printer, user-defined keys locked (blitty has none to load; xterm answers
            // unlocked), a North American keyboard. The VT330's and VT420's (locator, macro
            // space, checksum, data integrity, sessions) are not answered, as by xterm at the
            // VT220 level, and DECXCPR has no page number for the same reason.
            15 if private => self.reply(b"\x1b[?13n"),
            25 if private => self.reply(b"\x1b[?21n"),
            26 if private => self.reply(b"\x1b[?27;1n"),
            _ => {}
        }
    }

    /// Allows or refuses (the default, as xterm's `allowWindowOps` is false) the reports that
    /// xterm's `allowWindowOps` resource gates and this engine has: DECRQCRA, the checksum of
    /// a rectangle, with XTCHECKSUM choosing how it sums (`rect.rs`), and XTWINOPS 18 and 19,
    /// the text area's size in characters. A checksum lets a program read the screen back a
    /// cell at a time, which is why xterm refuses it by default; test suites such as esctest
    /// need it. The title reports (XTWINOPS 20 and 21) stay refused either way.
    pub fn allow_window_ops(&mut self, allow: bool) {
        self.window_ops = allow;
    }

    /// Sets how DECRQCRA sums (XTCHECKSUM's bits, see `rect.rs`), as xterm's
    /// `checksumExtension` resource: now, and after every RIS. esctest, for one, expects 3 (not
    /// negated, no attributes) from XTerm 379.
    pub fn set_checksum_extension(&mut self, bits: u16) {
        self.checksum_ext = bits;
        self.base_checksum_ext = bits;
    }

    /// XTWINOPS 18 and 19 (CSI 18 t, CSI 19 t): the text area's and the screen's size in
    /// characters (`CSI 8 ; rows ; cols t`, `CSI 9 ; rows ; cols t`), both the screen here;
    /// only when window operations are allowed.
    pub(crate) fn report_size_chars(&mut self, ps: u16) {
        if self.window_ops {
            let answer = format!("\x1b[{};{};{}t", ps - 10, self.rows, self.cols);
            self.reply(answer.as_bytes());
        }
    }

    /// DA1 (CSI c): a VT220 with ANSI colour (62;22), which is what this engine implements.
    pub(crate) fn primary_device_attributes(&mut self) {
        self.reply(b"\x1b[?62;22c");
    }

    /// DA2 (CSI > c): terminal type 1 (VT220), firmware version 10, no ROM cartridge.
    pub(crate) fn secondary_device_attributes(&mut self) {
        self.reply(b"\x1b[>1;10;0c");
    }

    /// XTVERSION (CSI > q): the terminal's name and version, `DCS > | blitty(0.1.0) ST`, as
    /// xterm answers `XTerm(379)`: programs (tmux, neovim, kitty's kittens) tell terminals apart
    /// by it, where DA1 and DA2 only name a VT220.
    pub(crate) fn report_version(&mut self) {
        let answer = format!("\x1bP>|blitty({})\x1b\\", env!("CARGO_PKG_VERSION"));
        self.reply(answer.as_bytes());
    }

    /// OSC Ps ; Pt: 0 sets icon name and title, 1 the icon name, 2 the title, 8 a hyperlink;
    /// 4, 5, 10, 11, 12 set or query colours, 104, 105, 110, 111, 112 reset them.
    pub(crate) fn operating_system_command(&mut self, payload: &[u8], bel: bool) {
        let (code, rest) = match payload.iter().position(|&b| b == b';') {
            Some(i) => (&payload[..i], &payload[i + 1..]),
            None => (payload, &[][..]),
        };
        match code {
            b"0" => {
                self.title = title_text(rest);
                self.icon_name = self.title.clone();
            }
            b"1" => self.icon_name = title_text(rest),
            b"2" => self.title = title_text(rest),
            b"8" => self.hyperlink(rest),
            b"4" => self.osc_set_colors(4, rest, bel),
            b"5" => self.osc_set_colors(5, rest, bel),
            b"10" => self.osc_dynamic_colors(10, rest, bel),
            b"11" => self.osc_dynamic_colors(11, rest, bel),
            b"12" => self.osc_dynamic_colors(12, rest, bel),
            b"104" => self.osc_reset_colors(4, rest),
            b"105" => self.osc_reset_colors(5, rest),
            b"110" => self.osc_reset_dynamic_color(110),
            b"111" => self.osc_reset_dynamic_color(111),
            b"112" => self.osc_reset_dynamic_color(112),
            b"52" => self.clipboard_write(rest),
            _ => {}
        }
    }

    /// OSC 52 ; Pc ; Pd: a clipboard write of base64 text Pd to the selections Pc, kept
    /// decoded for the host side ([`Screen::take_clipboard`]). A read (Pd `?`) is refused, and
    /// so is text that is not base64 (xterm clears the selection then; nothing is sent here).
    fn clipboard_write(&mut self, rest: &[u8]) {
        let Some(split) = rest.iter().position(|&b| b == b';') else { return };
        let (pc, pd) = (&rest[..split], &rest[split + 1..]);
        if pd == b"?" {
            return;
        }
        let mut selections = String::new();
        for &b in pc {
            if !b"cpqs01234567".contains(&b) {
                return;
            }
            if !selections.contains(b as char) {
                selections.push(b as char);
            }
        }
        let Some(text) = base64_decode(pd) else { return };
        if text.len() <= MAX_CLIPBOARD {
            self.clipboard = Some(Clipboard { selections, text });
        }
    }

    /// OSC 8 ; params ; URI: the following text links to URI; an empty URI ends the link.
    /// The `id=` parameter is kept with the URI so that equal ids join one link; an id longer
    /// than [`MAX_LINK_ID`] is ignored, as VTE ignores it (the link is one without an id).
    fn hyperlink(&mut self, rest: &[u8]) {
        let Some(split) = rest.iter().position(|&b| b == b';') else { return };
        let (params, uri) = (&rest[..split], &rest[split + 1..]);
        let mut style = self.pen.style;
        if uri.is_empty() {
            style.link = 0;
        } else {
            if uri.len() > MAX_LINK || uri.iter().any(|&b| b < 0x20) {
                return;
            }
            let id = params.split(|&b| b == b':').find_map(|p| p.strip_prefix(b"id=")).unwrap_or(b"");
            let id = if id.len() > MAX_LINK_ID { &b""[..] } else { id };
            let key = format!("{}\u{0}{}", String::from_utf8_lossy(id), String::from_utf8_lossy(uri));
            if self.links.wants_collection() && self.links.lookup(key.as_str()).is_none() {
                self.collect_garbage();
            }
            style.link = self.links.intern_with(key.as_str(), || std::sync::Arc::from(key.as_str())) + 1;
        }
        self.set_pen(style);
    }
}

/// A title as text: lossy UTF-8, control characters removed, at most MAX_TITLE bytes.
fn title_text(bytes: &[u8]) -> String {
    let mut s: String = String::from_utf8_lossy(bytes).chars().filter(|c| !c.is_control()).collect();
    if s.len() > MAX_TITLE {
        let mut end = MAX_TITLE;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
    }
    s
}

/// Standard base64 (RFC 4648, `=` padding optional), or `None` for anything else.
pub fn base64_decode(s: &[u8]) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let body = match s.iter().position(|&c| c == b'=') {
        Some(i) if s[i..].len() <= 2 && s[i..].iter().all(|&c| c == b'=') && s.len().is_multiple_of(4) => &s[..i],
        Some(_) => return None,
        None => s,
    };
    if body.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(body.len() / 4 * 3 + 2);
    for chunk in body.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= value(c)? << (18 - 6 * i);
        }
        let bytes = n.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    Some(out)
}

/// Standard base64 with `=` padding.
pub fn base64_encode(data: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let mut n = 0u32;
        for (i, &b) in chunk.iter().enumerate() {
            n |= (b as u32) << (16 - 8 * i);
        }
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
