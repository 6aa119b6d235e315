//! Modes: SM/RM (ANSI), DECSET/DECRST (DEC private), DECRQM reports, the alternate screen
//! buffers (47, 1047, 1049), and DECSCUSR cursor shapes.

use super::Screen;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MouseTracking {
    #[default]
    Off,
    /// 9: X10 compatibility (press only).
    X10,
    /// 1000: press and release.
    Normal,
    /// 1002: and motion while a button is held.
    ButtonMotion,
    /// 1003: and all motion.
    AnyMotion,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MouseEncoding {
    #[default]
    Default,
    /// 1005
    Utf8,
    /// 1006
    Sgr,
    /// 1015
    Urxvt,
    /// 1016
    SgrPixels,
}

/// DECSCUSR shapes (CSI Ps SP q).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CursorShape {
    #[default]
    Default,
    BlinkingBlock,
    SteadyBlock,
    BlinkingUnderline,
    SteadyUnderline,
    BlinkingBar,
    SteadyBar,
}

/// Every mode the screen records. Defaults are xterm's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Modes {
    /// IRM (4)
    pub insert: bool,
    /// LNM (20)
    pub newline: bool,
    /// DECCKM (?1)
    pub application_cursor: bool,
    /// VT52 mode: DECANM (?2) reset, until ESC < (see `term::vt52`).
    pub vt52: bool,
    /// DECCOLM (?3): recorded, and setting or resetting it clears the screen (unless DECNCSM),
    /// makes every row single size, resets the margins and homes the cursor, as xterm does
    /// when column switching is allowed. The screen is not resized: its size is the host
    /// window's (see the README: a width the program chooses would cost a rewrap of the whole
    /// scrollback at each switch).
    pub columns_132: bool,
    /// DECNCSM (?95): DECCOLM keeps the screen's text.
    pub no_clear_on_columns: bool,
    /// DECSCNM (?5)
    pub reverse_video: bool,
    /// DECOM (?6)
    pub origin: bool,
    /// DECAWM (?7)
    pub autowrap: bool,
    /// ?12, and the blink DECSCUSR sets: one state, as in xterm (its `cursor_blink_esc`), so
    /// `CSI 2 SP q` stops a blink `?12 h` started and `?12 l` stops a blinking shape's.
    pub cursor_blink: bool,
    /// DECTCEM (?25)
    pub cursor_visible: bool,
    /// ?45: reverse wraparound (BS and CUB at the left margin go on to the end of the line
    /// above when it wrapped into this one; needs autowrap).
    pub reverse_wrap: bool,
    /// ?1045: extended reverse wraparound (regardless of wrapping; from the top margin to the
    /// bottom one).
    pub reverse_wrap_extended: bool,
    /// DECNKM (?66), DECKPAM/DECKPNM
    pub application_keypad: bool,
    /// DECNRCM (?42): designations of the national replacement sets take effect (see
    /// `Charset`). RIS resets it; DECSTR and DECSC/DECRC leave it (XTerm 379).
    pub national: bool,
    /// DECLRMM (?69)
    pub left_right_margins: bool,
    pub mouse: MouseTracking,
    pub mouse_encoding: MouseEncoding,
    /// ?1004
    pub focus_events: bool,
    /// ?1007
    pub alternate_scroll: bool,
    /// ?2004
    pub bracketed_paste: bool,
    /// ?2026: the program asks the terminal to hold presenting until it resets this.
    pub synchronized_output: bool,
    pub cursor_shape: CursorShape,
    /// Which protection erasing respects (xterm's "protected mode"): DECSCA makes it
    /// [`Protection::Dec`], SPA [`Protection::Iso`]; DECSTR and RIS put it back to off.
    pub protection: Protection,
    /// DECSACE (CSI Ps * x): 2 makes DECCARA and DECRARA act on the rectangle itself; 0 and 1
    /// (the default) on the stream of cells from its first corner to its last, row after row.
    pub rectangle_extent: bool,
    /// xterm's curses fix (?41, its `curses` resource): a tab in the pending-wrap state
    /// (text reached the right margin, autowrap on) first goes to the start of the next line
    /// (IND, column 0), for an old curses bug that wrote a tab there to move on (esctest's
    /// `test_DECSET_MoreFix`).
    pub curses_fix: bool,
}

/// Which erasing functions leave protected characters alone, as xterm decides it from the last
/// control that protected characters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Protection {
    /// Nothing protected since the last reset: every erase erases everything.
    #[default]
    Off,
    /// DECSCA (CSI 1 " q): the selective erases (DECSED, DECSEL, DECSERA) keep protected
    /// characters; ED, EL, ECH, DECERA erase them.
    Dec,
    /// SPA (ESC V) .. EPA (ESC W), ISO 6429's guarded area: ED, EL, ECH, DECSED and DECSEL
    /// keep protected characters; DECERA and DECSERA erase them (xterm).
    Iso,
}

impl Default for Modes {
    fn default() -> Self {
        Modes {
            insert: false,
            newline: false,
            application_cursor: false,
            vt52: false,
            columns_132: false,
            no_clear_on_columns: false,
            reverse_video: false,
            origin: false,
            autowrap: true,
            cursor_blink: false,
            cursor_visible: true,
            reverse_wrap: false,
            reverse_wrap_extended: false,
            application_keypad: false,
            national: false,
            left_right_margins: false,
            mouse: MouseTracking::Off,
            mouse_encoding: MouseEncoding::Default,
            focus_events: false,
            alternate_scroll: false,
            bracketed_paste: false,
            synchronized_output: false,
            cursor_shape: CursorShape::Default,
            protection: Protection::Off,
            rectangle_extent: false,
            curses_fix: false,
        }
    }
}

impl Screen {
    /// SM/RM (CSI Ps h / CSI Ps l): ANSI modes.
    pub(crate) fn set_ansi_mode(&mut self, mode: u16, on: bool) {
        match mode {
            4 => self.modes.insert = on,
            20 => self.modes.newline = on,
            _ => {}
        }
    }

    /// DECRQM for an ANSI mode: 1 set, 2 reset, 0 not recognised.
    /// What DECRQM answers for ANSI mode `mode`: xterm's table (its `do_ansi_rqm`) for the modes
    /// ECMA-48 and the VT510 name, with blitty's own answers where its behaviour differs.
    /// - IRM (4) and LNM (20) as they are.
    /// - CRM (3): reset, as xterm answers (control characters are acted on, never shown).
    /// - KAM (2): permanently reset, as blitty never locks the keyboard (xterm does).
    /// - SRM (12): permanently set, as blitty never echoes what is typed (xterm can).
    /// - GATM, SRTM, VEM, HEM, PUM, FEAM, FETM, MATM, TTM, SATM, TSM, EBM (1, 5, 7, 10, 11,
    ///   13-19): permanently reset, as in xterm and the VT510.
    fn ansi_mode_state(&self, mode: u16) -> u8 {
        match mode {
            4 => state(self.modes.insert),
            20 => state(self.modes.newline),
            3 => 2,
            12 => 3,
            1 | 2 | 5 | 7 | 10 | 11 | 13..=19 => 4,
            _ => 0,
        }
    }

    /// DECSET/DECRST (CSI ? Ps h / CSI ? Ps l).
    pub(crate) fn set_dec_mode(&mut self, mode: u16, on: bool) {
        let m = &mut self.modes;
        match mode {
            1 => m.application_cursor = on,
            // DECANM: reset enters VT52 mode; set is reached only from ANSI mode, where it is.
            2 if !on => self.enter_vt52(),
            3 => {
                m.columns_132 = on;
                self.column_mode();
            }
            5 => {
                m.reverse_video = on;
                self.grid_mut().damage_all();
            }
            6 => {
                m.origin = on;
                self.cursor_position(1, 1);
            }
            // A pending wrap stays as it is: xterm keeps its `do_wrap` through DECAWM, so
            // text after `?7l ?7h` at the right margin goes on to the next line.
            7 => m.autowrap = on,
            9 => m.mouse = if on { MouseTracking::X10 } else { MouseTracking::Off },
            12 => m.cursor_blink = on,
            25 => m.cursor_visible = on,
            41 => m.curses_fix = on,
            42 => {
                m.national = on;
                self.charsets_follow_nrc();
            }
            45 => m.reverse_wrap = on,
            95 => m.no_clear_on_columns = on,
            1045 => m.reverse_wrap_extended = on,
            47 => self.use_alternate_screen(on, false, false),
            66 => m.application_keypad = on,
            69 => {
                m.left_right_margins = on;
                // Setting DECLRMM makes the rows single size (DEC 070), as xterm does it.
                if on {
                    self.reset_double();
                } else {
                    self.left = 0;
                    self.right = self.cols - 1;
                }
            }
            1000 => m.mouse = if on { MouseTracking::Normal } else { MouseTracking::Off },
            1002 => m.mouse = if on { MouseTracking::ButtonMotion } else { MouseTracking::Off },
            1003 => m.mouse = if on { MouseTracking::AnyMotion } else { MouseTracking::Off },
            1004 => m.focus_events = on,
            // The coordinate encodings exclude each other, and a reset undoes only the one in
            // effect (xterm: `?1015 h ?1016 l` keeps urxvt's).
            1005 | 1006 | 1015 | 1016 => {
                let encoding = match mode {
                    1005 => MouseEncoding::Utf8,
                    1006 => MouseEncoding::Sgr,
                    1015 => MouseEncoding::Urxvt,
                    _ => MouseEncoding::SgrPixels,
                };
                if on {
                    m.mouse_encoding = encoding;
                } else if m.mouse_encoding == encoding {
                    m.mouse_encoding = MouseEncoding::Default;
                }
            }
            1007 => m.alternate_scroll = on,
            1047 => self.use_alternate_screen(on, false, !on),
            1048 => {
                if on {
                    self.save_cursor()
                } else {
                    self.restore_cursor()
                }
            }
            1049 => {
                if on {
                    self.save_cursor();
                    self.use_alternate_screen(true, true, false);
                } else {
                    self.use_alternate_screen(false, false, false);
                    self.restore_cursor();
                }
            }
            2004 => m.bracketed_paste = on,
            2026 => m.synchronized_output = on,
            _ => {}
        }
    }

    /// DECRQM for a DEC private mode.
    fn dec_mode_state(&self, mode: u16) -> u8 {
        let m = &self.modes;
        match mode {
            1 => state(m.application_cursor),
            // DECANM: set in ANSI mode, the only mode a DECRQM can come in.
            2 => state(!m.vt52),
            3 => state(m.columns_132),
            5 => state(m.reverse_video),
            6 => state(m.origin),
            7 => state(m.autowrap),
            9 => state(m.mouse == MouseTracking::X10),
            12 => state(m.cursor_blink),
            25 => state(m.cursor_visible),
            41 => state(m.curses_fix),
            42 => state(m.national),
            45 => state(m.reverse_wrap),
            95 => state(m.no_clear_on_columns),
            1045 => state(m.reverse_wrap_extended),
            47 | 1047 | 1049 => state(self.alt_active),
            66 => state(m.application_keypad),
            69 => state(m.left_right_margins),
            1000 => state(m.mouse == MouseTracking::Normal),
            1002 => state(m.mouse == MouseTracking::ButtonMotion),
            1003 => state(m.mouse == MouseTracking::AnyMotion),
            1004 => state(m.focus_events),
            1005 => state(m.mouse_encoding == MouseEncoding::Utf8),
            1006 => state(m.mouse_encoding == MouseEncoding::Sgr),
            1007 => state(m.alternate_scroll),
            1015 => state(m.mouse_encoding == MouseEncoding::Urxvt),
            1016 => state(m.mouse_encoding == MouseEncoding::SgrPixels),
            2004 => state(m.bracketed_paste),
            2026 => state(m.synchronized_output),
            _ => 0,
        }
    }

    /// DECCOLM's effect: the screen cleared (unless DECNCSM), every row single size (xterm's
    /// `set_column_mode`), the four margins reset (DECLRMM stays as it was), the cursor home.
    fn column_mode(&mut self) {
        if !self.modes.no_clear_on_columns {
            let (blank, rows) = (self.blank(), self.rows);
            self.grid_mut().clear_rows(0, rows - 1, &blank);
        }
        self.single_size_rows(0..self.rows, false);
        self.top = 0;
        self.bottom = self.rows - 1;
        self.left = 0;
        self.right = self.cols - 1;
        self.cursor_position(1, 1);
    }

    /// XTSAVE (CSI ? Pm s): remembers DEC private mode `mode`'s state for XTRESTORE, as xterm
    /// does; a mode this engine does not have (DECRQM would answer 0) is not saved.
    pub(crate) fn save_dec_mode(&mut self, mode: u16) {
        let on = match self.dec_mode_state(mode) {
            1 => true,
            2 => false,
            _ => return,
        };
        match self.saved_modes.iter_mut().find(|(m, _)| *m == mode) {
            Some(entry) => entry.1 = on,
            None => self.saved_modes.push((mode, on)),
        }
    }

    /// XTRESTORE (CSI ? Pm r): sets or resets `mode` as XTSAVE found it, with whatever setting
    /// it does (switching screens for 1049, clearing for DECCOLM, as DECSET would); nothing
    /// when it was not saved.
    pub(crate) fn restore_dec_mode(&mut self, mode: u16) {
        if let Some(&(_, on)) = self.saved_modes.iter().find(|(m, _)| *m == mode) {
            self.set_dec_mode(mode, on);
        }
    }

    /// DECRQM (CSI Ps $ p, CSI ? Ps $ p): answers CSI [?] Ps ; Pm $ y.
    pub(crate) fn request_mode(&mut self, mode: u16, private: bool) {
        let (marker, value) = if private { ("?", self.dec_mode_state(mode)) } else { ("", self.ansi_mode_state(mode)) };
        let answer = format!("\x1b[{marker}{mode};{value}$y");
        self.reply(answer.as_bytes());
    }

    /// Switches between the normal and alternate buffers. `clear_on_enter` clears the
    /// alternate buffer after switching to it (1049); `clear_on_leave` clears it before
    /// leaving (1047). The cursor position is shared by both buffers, as in xterm.
    fn use_alternate_screen(&mut self, on: bool, clear_on_enter: bool, clear_on_leave: bool) {
        if on == self.alt_active {
            if on && clear_on_enter {
                let (blank, rows) = (self.blank(), self.rows);
                self.alt.clear_rows(0, rows - 1, &blank);
            }
            return;
        }
        let (blank, rows) = (self.blank(), self.rows);
        if on {
            self.alt_active = true;
            if clear_on_enter {
                self.alt.clear_rows(0, rows - 1, &blank);
            }
        } else {
            if clear_on_leave {
                self.alt.clear_rows(0, rows - 1, &blank);
            }
            self.alt_active = false;
        }
        let grid = self.grid_mut();
        grid.clear_damage();
        grid.damage_all();
    }

    /// DECSCUSR (CSI Ps SP q). The shape, and the blink (?12) as xterm sets it: on for 1, 3 and
    /// 5, off for 2, 4 and 6. 0 is the start again, as tmux, kitty and foot take it: the host's
    /// own shape (the host is told `CSI 0 SP q`) and no blink set, so `blitty run` can give
    /// the host back as it was. xterm takes 0 for DEC's blinking block.
    pub(crate) fn set_cursor_shape(&mut self, ps: u16) {
        self.modes.cursor_shape = match ps {
            0 => CursorShape::Default,
            1 => CursorShape::BlinkingBlock,
            2 => CursorShape::SteadyBlock,
            3 => CursorShape::BlinkingUnderline,
            4 => CursorShape::SteadyUnderline,
            5 => CursorShape::BlinkingBar,
            6 => CursorShape::SteadyBar,
            _ => return,
        };
        self.modes.cursor_blink = matches!(ps, 1 | 3 | 5);
    }
}

fn state(on: bool) -> u8 {
    if on {
        1
    } else {
        2
    }
}
