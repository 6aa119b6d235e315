//! The table from recognised sequences to control functions. Parameters of 0 or missing
//! take each function's default (1 for counts and positions).

use super::Screen;
use crate::parser::{Params, Perform};

impl Perform for Screen {
    #[inline]
    fn print_ascii(&mut self, run: &[u8]) {
        self.print_ascii_run(run);
    }

    // Called from both the bounded and the unbounded parser loops: left to the inliner, it
    // was inlined into neither, a call a cell of colour-dense output.
    #[inline(always)]
    fn print_ascii_byte(&mut self, b: u8) {
        self.print_ascii_one(b);
    }

    fn print(&mut self, c: char) {
        self.print_char(c);
    }

    #[inline]
    fn print_lines(&mut self, bytes: &[u8]) -> usize {
        // Off the bottom row (full-screen programs, scroll regions), or when the next line does
        // not start as plain text (non-Latin text, escape sequences), the lines are not taken:
        // a few tests here rather than a call.
        let plain = |b: u8| (0x20..0x7f).contains(&b) || b == b'\r';
        if !bytes.first().is_some_and(|&b| plain(b)) {
            return 0;
        }
        if self.cursor.y == self.bottom && (self.top > 0 || self.bottom + 1 < self.rows) {
            // Lines scrolling in a region (a status line under it, a title over it).
            return self.print_region_lines(bytes);
        }
        if self.cursor.y + 1 != self.rows || self.alt_active {
            return 0;
        }
        let skipped = if self.flood { self.skip_unseen_lines(bytes) } else { 0 };
        skipped + self.print_whole_lines(&bytes[skipped..])
    }

    #[inline]
    fn print_utf8(&mut self, bytes: &[u8]) -> usize {
        self.print_utf8_in_row(bytes)
    }

    fn execute(&mut self, control: u8) {
        // REP repeats only a character just printed: xterm forgets it at every control,
        // escape sequence or string (`lastchar` in its parser), so do these.
        self.last_char = None;
        match control {
            0x07 => self.bells += 1,         // BEL
            0x08 => self.cursor_backward(1), // BS
            0x09 => self.tab_forward(1),     // HT
            0x0a..=0x0c => self.line_feed(), // LF VT FF
            0x0d => self.carriage_return(),  // CR
            0x0e => self.invoke_charset(1),  // SO (LS1)
            0x0f => self.invoke_charset(0),  // SI (LS0)
            0x84 => self.index(),            // IND
            0x85 => self.next_line(),        // NEL
            0x88 => self.set_tab(),          // HTS
            0x8d => self.reverse_index(),    // RI
            0x8e => self.single_shift(2),    // SS2
            0x8f => self.single_shift(3),    // SS3
            _ => {}
        }
    }

    fn delete(&mut self) {
        self.last_char = None;
        self.print_del();
    }

    fn print_invalid(&mut self, bytes: &[u8]) {
        self.print_8bit(bytes);
    }

    // Always inline: the designation of Latin-1 under DECNRCM (state.rs) tipped it out of the
    // parser's loop, which cost the corpus 2% more instructions.
    #[inline(always)]
    fn esc_dispatch(&mut self, intermediates: &[u8], final_byte: u8) {
        self.last_char = None;
        if self.modes.vt52 {
            return self.vt52_escape(intermediates, final_byte);
        }
        match (intermediates, final_byte) {
            ([], b'7') => self.save_cursor(),                    // DECSC
            ([], b'8') => self.restore_cursor(),                 // DECRC
            ([], b'D') => self.index(),                          // IND
            ([], b'E') => self.next_line(),                      // NEL
            ([], b'H') => self.set_tab(),                        // HTS
            ([], b'M') => self.reverse_index(),                  // RI
            ([], b'N') => self.single_shift(2),                  // SS2
            ([], b'O') => self.single_shift(3),                  // SS3
            ([], b'c') => self.full_reset(),                     // RIS
            ([], b'Z') => self.primary_device_attributes(),      // DECID: answered as DA1, as by xterm
            ([], b'6') => self.column_index(true),               // DECBI
            ([], b'9') => self.column_index(false),              // DECFI
            ([], b'n') => self.invoke_charset(2),                // LS2
            ([], b'o') => self.invoke_charset(3),                // LS3
            ([], b'V') => self.guard(true),                      // SPA
            ([], b'W') => self.guard(false),                     // EPA
            ([], b'=') => self.modes.application_keypad = true,  // DECKPAM
            ([], b'>') => self.modes.application_keypad = false, // DECKPNM
            ([b'#'], b'8') => self.alignment_test(),             // DECALN
            ([b'#'], f @ b'3'..=b'6') => self.set_line_size(f),  // DECDHL, DECSWL, DECDWL
            ([], b'~') => self.invoke_charset_right(1),          // LS1R
            ([], b'}') => self.invoke_charset_right(2),          // LS2R
            ([], b'|') => self.invoke_charset_right(3),          // LS3R
            // SCS: 94-character sets into G0..G3, 96-character sets into G1..G3.
            ([g @ (b'(' | b')' | b'*' | b'+')], f) => self.designate_charset((g - b'(') as usize, false, None, f),
            ([g @ (b'(' | b')' | b'*' | b'+'), p], f) => {
                self.designate_charset((g - b'(') as usize, false, Some(*p), f)
            }
            ([g @ (b'-' | b'.' | b'/')], f) => self.designate_charset((g - b',') as usize, true, None, f),
            _ => {}
        }
    }

    #[inline]
    fn short_sgr(&mut self, value: Option<u16>) {
        self.last_char = None;
        self.short_graphic_rendition(value);
    }

    fn csi_dispatch(&mut self, p: &Params, private: u8, intermediates: &[u8], final_byte: u8) {
        let last = self.last_char.take();
        if final_byte == b'm' && private == 0 && intermediates.is_empty() {
            // SGR first: it is most of the sequences colour-dense output sends.
            return self.select_graphic_rendition(p);
        }
        if p.has_sub() {
            // Only SGR takes sub-parameters (`:`); xterm ignores any other control that has them.
            return;
        }
        let n = |i: usize| p.get(i, 1) as usize;
        match (private, intermediates, final_byte) {
            (0, [], b'@') => self.insert_blanks(n(0)),              // ICH
            (0, [], b'A') => self.cursor_up(n(0)),                  // CUU
            (0, [], b'B') => self.cursor_down(n(0)),                // CUD
            (0, [], b'C') => self.cursor_forward(n(0)),             // CUF
            (0, [], b'D') => self.cursor_backward(n(0)),            // CUB
            (0, [], b'E') => self.cursor_next_line(n(0)),           // CNL
            (0, [], b'F') => self.cursor_previous_line(n(0)),       // CPL
            (0, [], b'G') => self.cursor_column(n(0)),              // CHA
            (0, [], b'H') => self.cursor_position(n(0), n(1)),      // CUP
            (0, [], b'I') => self.tab_forward(n(0)),                // CHT
            (0, [], b'J') => self.erase_display(p.raw(0), false),   // ED
            (b'?', [], b'J') => self.erase_display(p.raw(0), true), // DECSED
            (0, [], b'K') => self.erase_line(p.raw(0), false),      // EL
            (b'?', [], b'K') => self.erase_line(p.raw(0), true),    // DECSEL
            (0, [], b'L') => self.insert_lines(n(0)),               // IL
            (0, [], b'M') => self.delete_lines(n(0)),               // DL
            (0, [], b'P') => self.delete_chars(n(0)),               // DCH
            (0, [], b'S') => self.scroll_up(n(0)),                  // SU
            // SD. With more than one parameter, or an explicit 0, this is xterm's mouse
            // highlight tracking (`CSI 0 T` resets it), ignored: it does not scroll.
            (0, [], b'T') if p.is_empty() || (p.len() == 1 && p.raw(0) != 0) => self.scroll_down(n(0)),
            (0, [], b'X') => self.erase_chars(n(0)),        // ECH
            (0, [], b'Z') => self.tab_backward(n(0)),       // CBT
            (0, [], b'`') => self.cursor_column(n(0)),      // HPA
            (0, [], b'a') => self.cursor_relative(n(0), 0), // HPR
            (0, [], b'b') => self.repeat_last(last, n(0)),  // REP
            (0, [], b'c') if p.raw(0) == 0 => self.primary_device_attributes(), // DA1
            (b'>', [], b'c') if p.raw(0) == 0 => self.secondary_device_attributes(), // DA2
            (b'>', [], b'q') if p.raw(0) == 0 => self.report_version(), // XTVERSION
            (0, [], b'd') => self.cursor_row(n(0)),         // VPA
            (0, [], b'e') => self.cursor_relative(0, n(0)), // VPR
            (0, [], b'f') => self.cursor_position(n(0), n(1)), // HVP
            (0, [], b'g') => self.clear_tabs(p.raw(0)),     // TBC
            (0, [], b'h') => (0..p.len()).for_each(|i| self.set_ansi_mode(p.raw(i), true)), // SM
            (0, [], b'l') => (0..p.len()).for_each(|i| self.set_ansi_mode(p.raw(i), false)), // RM
            (b'?', [], b'h') => (0..p.len()).for_each(|i| self.set_dec_mode(p.raw(i), true)), // DECSET
            (b'?', [], b'l') => (0..p.len()).for_each(|i| self.set_dec_mode(p.raw(i), false)), // DECRST
            (b'?', [], b's') => (0..p.len()).for_each(|i| self.save_dec_mode(p.raw(i))), // XTSAVE
            (b'?', [], b'r') => (0..p.len()).for_each(|i| self.restore_dec_mode(p.raw(i))), // XTRESTORE
            (0, [], b'm') => self.select_graphic_rendition(p), // SGR
            (0, [], b'n') => self.device_status(p.raw(0), false), // DSR
            (b'?', [], b'n') => self.device_status(p.raw(0), true), // DSR (DEC)
            (0, [b'!'], b'p') => self.soft_reset(),         // DECSTR
            (0, [b'$'], b'p') => self.request_mode(p.raw(0), false), // DECRQM (ANSI)
            (b'?', [b'$'], b'p') => self.request_mode(p.raw(0), true), // DECRQM (DEC)
            (0, [b' '], b'@') => self.scroll_columns(n(0), true, self.left), // SL
            (0, [b' '], b'A') => self.scroll_columns(n(0), false, self.left), // SR
            (0, [b'\''], b'~') => self.scroll_columns(n(0), true, self.cursor.x), // DECDC
            (0, [b'\''], b'}') => self.scroll_columns(n(0), false, self.cursor.x), // DECIC
            (0, [b'$'], b'x') => self.fill_rectangle(p),    // DECFRA
            (0, [b'$'], b'z') => self.erase_rectangle(p, false), // DECERA
            (0, [b'$'], b'{') => self.erase_rectangle(p, true), // DECSERA
            (0, [b'$'], b'v') => self.copy_rectangle(p),    // DECCRA
            (0, [b'$'], b'r') => self.change_rectangle_attributes(p, false), // DECCARA
            (0, [b'$'], b't') => self.change_rectangle_attributes(p, true), // DECRARA
            (0, [b'*'], b'x') => self.modes.rectangle_extent = p.raw(0) == 2, // DECSACE
            (0, [b'*'], b'y') => self.checksum_rectangle(p), // DECRQCRA
            (0, [b'#'], b'y') if self.window_ops => self.checksum_ext = p.raw(0), // XTCHECKSUM
            (0, [b' '], b'q') => self.set_cursor_shape(p.raw(0)), // DECSCUSR
            (0, [b'"'], b'q') => self.set_protection(p.raw(0)), // DECSCA
            (0, [], b'r') => self.set_top_bottom_margins(n(0), p.get(1, self.rows as u16) as usize), // DECSTBM
            (0, [], b's') if self.modes.left_right_margins => {
                self.set_left_right_margins(n(0), p.get(1, self.cols as u16) as usize)
                // DECSLRM
            }
            (0, [], b's') => self.save_cursor(),                           // SCOSC
            (0, [], b'u') => self.restore_cursor(),                        // SCORC
            (0, [], b't') if p.raw(0) == 22 => self.push_titles(p.raw(1)), // XTWINOPS: save titles
            (0, [], b't') if p.raw(0) == 23 => self.pop_titles(p.raw(1)),  // XTWINOPS: restore titles
            (0, [], b't') if matches!(p.raw(0), 18 | 19) => self.report_size_chars(p.raw(0)), // XTWINOPS
            // Other window manipulation (CSI Ps t) is not done (the window is the host's), and
            // the title reports 20 t and 21 t are refused: a report would echo program-chosen
            // text back as input. The size reports 18 t and 19 t answer only when the host
            // allows window operations (`Screen::allow_window_ops`), as in xterm.
            _ => {}
        }
    }

    #[inline]
    fn vt52(&self) -> bool {
        self.modes.vt52
    }

    fn vt52_position(&mut self, row: u8, col: u8) {
        self.vt52_position(row, col);
    }

    fn osc_dispatch(&mut self, payload: &[u8], bel: bool) {
        self.last_char = None;
        self.operating_system_command(payload, bel);
    }

    fn dcs_hook(&mut self, _params: &Params, private: u8, intermediates: &[u8], final_byte: u8) -> bool {
        self.last_char = None;
        // DECRQSS is the only DCS function: its data is the setting asked about.
        private == 0 && intermediates == b"$" && final_byte == b'q'
    }

    fn dcs_dispatch(&mut self, data: &[u8]) {
        self.last_char = None;
        self.request_setting(data);
    }

    #[inline]
    fn work(&self) -> u64 {
        Screen::work(self)
    }

    fn text_room(&self) -> usize {
        Screen::text_room(self)
    }

    fn line_work(&self) -> u64 {
        // A line's scroll: a row cleared and the rows of a region moved (cols + rows), the
        // row going into history settling its list of styles (compacted, then copied: twice a
        // list of at most twice the width and 8, four units an entry, and the row's cells).
        (18 * self.cols + self.rows + 64) as u64
    }

    #[inline]
    fn line_work_bound(&self) -> u64 {
        // The line's work on the largest screen: a constant, where the parser tests often.
        (18 * super::MAX_COLS + super::MAX_ROWS + 64) as u64
    }
}
