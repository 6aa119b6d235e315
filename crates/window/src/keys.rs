//! Keys in the window: the keyboard's layout turns a key code into a keysym (or, through a
//! compose sequence, into text), and `encode` turns the keysym into the bytes xterm sends.
//!
//! The layout is xkbcommon's: the keymap is compiled from the names the X server publishes
//! (`_XKB_RULES_NAMES` on the root window: rules, model, layout, variant, options, what
//! setxkbmap and the desktops set), and each key press's modifiers and group (XKB's bits of
//! the event's state) choose the level, so AltGr, several layouts and the legacy keysyms of
//! other scripts work as in the desktop's own applications. Dead keys and the Compose key go
//! through the locale's compose table (the user's LC_ALL, LC_CTYPE or LANG; en_US.UTF-8's
//! when that locale has none, as for C.UTF-8). Without those names, or when the keymap they
//! give does not agree with the server's key codes (a keymap loaded with xkbcomp), the
//! server's core keyboard map is used (Shift, CapsLock and NumLock only). The keymap is read
//! again when the server's mapping changes.
//!
//! Choices, against xterm and the terminals users come from:
//! - Alt sends ESC before the key (xterm's `metaSendsEscape`, what alacritty, kitty, foot and
//!   gnome-terminal do), not the key with its eighth bit set.
//! - Cursor keys, Home and End follow DECCKM (ESC O in application mode, ESC [ otherwise);
//!   with modifiers they are `ESC [ 1 ; m X` with xterm's m = 1 + Shift + 2·Alt + 4·Ctrl.
//! - Backspace sends DEL (0x7f), Ctrl-Backspace BS, Shift-Tab `ESC [ Z`.
//! - The keypad follows DECKPAM for Enter, the digits and the operators.
//! - Characters come from every keysym that stands for one (xkbcommon's table: Latin-1,
//!   Unicode keysyms, and the legacy Cyrillic, Greek, Hebrew... keysyms), as UTF-8.

use blitty_vt::term::Modes;
use std::ffi::CString;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _};

use xkbcommon_dl as ffi;

pub const SHIFT: u16 = 1;
pub const LOCK: u16 = 2;
pub const CONTROL: u16 = 4;
pub const ALT: u16 = 8;
pub const NUM_LOCK: u16 = 16;

/// What a key press gives.
#[derive(Debug, PartialEq, Eq)]
pub enum Press {
    /// A keysym, to be encoded.
    Sym(u32),
    /// The text a compose sequence (a dead key and a letter, or Compose and two) made.
    Text(String),
    /// Nothing yet: a compose sequence goes on (or was cancelled).
    Pending,
}

/// The keyboard: xkbcommon's keymap and compose table when they could be had, the core map
/// otherwise.
pub struct Keyboard {
    core: CoreMap,
    xkb: Option<Xkb>,
}

/// libxkbcommon, loaded when the window starts (dlopen of libxkbcommon.so.0): the product
/// links only the C library, so a machine without it still runs everything else, and a window
/// there uses the core map.
fn lib() -> Option<&'static ffi::XkbCommon> {
    ffi::xkbcommon_option()
}

/// A compiled keymap and the state of its modifiers and group.
struct Xkb {
    lib: &'static ffi::XkbCommon,
    ctx: *mut ffi::xkb_context,
    keymap: *mut ffi::xkb_keymap,
    state: *mut ffi::xkb_state,
    compose: Option<Compose>,
}

/// A compose table and the sequence typed so far.
struct Compose {
    lib: &'static ffi::XkbCommonCompose,
    table: *mut ffi::xkb_compose_table,
    state: *mut ffi::xkb_compose_state,
}

impl Drop for Xkb {
    fn drop(&mut self) {
        // SAFETY: the objects this Xkb made, each released once, the state before its keymap.
        unsafe {
            (self.lib.xkb_state_unref)(self.state);
            (self.lib.xkb_keymap_unref)(self.keymap);
            (self.lib.xkb_context_unref)(self.ctx);
        }
    }
}

impl Drop for Compose {
    fn drop(&mut self) {
        // SAFETY: as for Xkb.
        unsafe {
            (self.lib.xkb_compose_state_unref)(self.state);
            (self.lib.xkb_compose_table_unref)(self.table);
        }
    }
}

impl Keyboard {
    /// Reads the server's keyboard (again, after a mapping change). `root` holds its names.
    pub fn load(conn: &impl Connection, root: u32) -> Result<Keyboard, String> {
        let core = CoreMap::load(conn)?;
        let xkb = Xkb::from_server(conn, root, &core);
        Ok(Keyboard { core, xkb })
    }

    /// Key `code` pressed with the event's `state` (modifiers, and XKB's group in bits 13-14).
    pub fn press(&mut self, code: u8, state: u16) -> Press {
        let Some(x) = self.xkb.as_mut() else { return Press::Sym(self.core.keysym(code, state)) };
        // SAFETY: the state is live (dropped only with x); plain values in and out.
        let sym = unsafe {
            (x.lib.xkb_state_update_mask)(x.state, (state & 0xff) as u32, 0, 0, 0, 0, ((state >> 13) & 3) as u32);
            (x.lib.xkb_state_key_get_one_sym)(x.state, code as u32)
        };
        if let Some(c) = x.compose.as_mut() {
            use ffi::xkb_compose_status::*;
            // SAFETY: the compose state is live; the text is written into our buffer, at most
            // its length, NUL-terminated.
            unsafe {
                if (c.lib.xkb_compose_state_feed)(c.state, sym)
                    == ffi::xkb_compose_feed_result::XKB_COMPOSE_FEED_ACCEPTED
                {
                    match (c.lib.xkb_compose_state_get_status)(c.state) {
                        XKB_COMPOSE_COMPOSING => return Press::Pending,
                        XKB_COMPOSE_COMPOSED => {
                            let mut buf = [0u8; 64];
                            let n = (c.lib.xkb_compose_state_get_utf8)(c.state, buf.as_mut_ptr().cast(), buf.len());
                            let made = (c.lib.xkb_compose_state_get_one_sym)(c.state);
                            (c.lib.xkb_compose_state_reset)(c.state);
                            let n = (n.max(0) as usize).min(buf.len() - 1);
                            return match std::str::from_utf8(&buf[..n]) {
                                Ok(t) if !t.is_empty() => Press::Text(t.to_string()),
                                _ if made != 0 => Press::Sym(made),
                                _ => Press::Pending,
                            };
                        }
                        // A sequence that does not exist: its keys are dropped (as GTK and Qt do).
                        XKB_COMPOSE_CANCELLED => {
                            (c.lib.xkb_compose_state_reset)(c.state);
                            return Press::Pending;
                        }
                        XKB_COMPOSE_NOTHING => {}
                    }
                }
            }
        }
        Press::Sym(sym)
    }
}

impl Xkb {
    fn from_server(conn: &impl Connection, root: u32, core: &CoreMap) -> Option<Xkb> {
        let lib = lib()?;
        let names_atom = conn.intern_atom(true, b"_XKB_RULES_NAMES").ok()?.reply().ok()?.atom;
        let prop = conn.get_property(false, root, names_atom, AtomEnum::STRING, 0, 1024).ok()?.reply().ok()?;
        let names: Vec<CString> = prop
            .value
            .split(|&b| b == 0)
            .map(|f| CString::new(f).expect("split at the NULs"))
            .chain(std::iter::repeat_with(CString::default))
            .take(5)
            .collect();
        if names[0].is_empty() {
            return None;
        }
        let rmlvo = ffi::xkb_rule_names {
            rules: names[0].as_ptr(),
            model: names[1].as_ptr(),
            layout: names[2].as_ptr(),
            variant: names[3].as_ptr(),
            options: names[4].as_ptr(),
        };
        // SAFETY: the names outlive the call; every pointer made is checked, and owned by the
        // Xkb (released in its Drop) from the moment it exists.
        let x = unsafe {
            let ctx = (lib.xkb_context_new)(ffi::xkb_context_flags::XKB_CONTEXT_NO_FLAGS);
            if ctx.is_null() {
                return None;
            }
            let keymap = (lib.xkb_keymap_new_from_names)(
                ctx,
                &rmlvo,
                ffi::xkb_keymap_compile_flags::XKB_KEYMAP_COMPILE_NO_FLAGS,
            );
            if keymap.is_null() {
                (lib.xkb_context_unref)(ctx);
                return None;
            }
            let state = (lib.xkb_state_new)(keymap);
            if state.is_null() {
                (lib.xkb_keymap_unref)(keymap);
                (lib.xkb_context_unref)(ctx);
                return None;
            }
            Xkb { lib, ctx, keymap, state, compose: None }
        };
        // The keymap's key codes must be the server's: the keys no layout changes (Return,
        // the arrows, the function keys, the modifiers: keysyms 0xff00 and up) must mostly
        // give what the server's core map gives them (evdev and the older xfree86 codes differ
        // there, and so does a keymap loaded with xkbcomp).
        let (mut same, mut all) = (0, 0);
        for code in core.min as u32..core.min as u32 + (core.syms.len() / core.per.max(1)) as u32 {
            let want = core.keysym(code as u8, 0);
            if !(0xff00..=0xffff).contains(&want) {
                continue;
            }
            all += 1;
            let mut syms: *const u32 = std::ptr::null();
            // SAFETY: the keymap is live; it fills `syms` with a pointer to `n` keysyms it owns.
            let first = unsafe {
                let n = (x.lib.xkb_keymap_key_get_syms_by_level)(x.keymap, code, 0, 0, &mut syms);
                (n > 0 && !syms.is_null()).then(|| *syms)
            };
            same += (first == Some(want)) as usize;
        }
        if all < 10 || same * 10 < all * 9 {
            return None;
        }
        let mut x = x;
        x.compose = Compose::for_locale(x.ctx);
        Some(x)
    }
}

impl Compose {
    /// The compose table of the user's locale (en_US.UTF-8's if it has none).
    fn for_locale(ctx: *mut ffi::xkb_context) -> Option<Compose> {
        let lib = ffi::xkbcommon_compose_option()?;
        let locale = ["LC_ALL", "LC_CTYPE", "LANG"]
            .iter()
            .find_map(|v| std::env::var(v).ok().filter(|l| !l.is_empty()))
            .unwrap_or_else(|| "C".into());
        [locale, "en_US.UTF-8".into()].iter().find_map(|l| {
            let l = CString::new(l.as_str()).ok()?;
            // SAFETY: a live context and a NUL-terminated name; the results are checked and
            // owned by the Compose.
            unsafe {
                let table = (lib.xkb_compose_table_new_from_locale)(
                    ctx,
                    l.as_ptr(),
                    ffi::xkb_compose_compile_flags::XKB_COMPOSE_COMPILE_NO_FLAGS,
                );
                if table.is_null() {
                    return None;
                }
                let state =
                    (lib.xkb_compose_state_new)(table, ffi::xkb_compose_state_flags::XKB_COMPOSE_STATE_NO_FLAGS);
                if state.is_null() {
                    (lib.xkb_compose_table_unref)(table);
                    return None;
                }
                Some(Compose { lib, table, state })
            }
        })
    }
}

/// The X server's core map from key codes to keysyms.
pub struct CoreMap {
    min: u8,
    per: usize,
    syms: Vec<u32>,
}

impl CoreMap {
    pub fn load(conn: &impl Connection) -> Result<CoreMap, String> {
        let setup = conn.setup();
        let (min, max) = (setup.min_keycode, setup.max_keycode);
        let map = conn
            .get_keyboard_mapping(min, max - min + 1)
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|e| e.to_string())?;
        Ok(CoreMap { min, per: map.keysyms_per_keycode as usize, syms: map.keysyms })
    }

    /// The keysym of key `code` with modifier `state` (Shift, CapsLock and NumLock applied as
    /// the core protocol says).
    pub fn keysym(&self, code: u8, state: u16) -> u32 {
        let at = (code.wrapping_sub(self.min)) as usize * self.per;
        let col = |i: usize| if i < self.per { self.syms.get(at + i).copied().unwrap_or(0) } else { 0 };
        let (lower, upper) = (col(0), col(1));
        if (0xff80..=0xffbd).contains(&upper) && state & NUM_LOCK != 0 {
            // The keypad with NumLock: the shifted symbol (a digit) unless Shift undoes it.
            return if state & SHIFT != 0 { lower } else { upper };
        }
        let shifted = state & SHIFT != 0;
        let caps = state & LOCK != 0 && is_letter(lower);
        if shifted ^ caps {
            if upper != 0 {
                upper
            } else {
                to_upper(lower)
            }
        } else {
            lower
        }
    }
}

fn is_letter(sym: u32) -> bool {
    (0x61..=0x7a).contains(&sym) || (0xe0..=0xfe).contains(&sym) && sym != 0xf7
}

fn to_upper(sym: u32) -> u32 {
    if is_letter(sym) {
        sym - 0x20
    } else {
        sym
    }
}

/// The bytes for keysym `sym` pressed with modifier `state`, in the program's `modes`.
pub fn encode(sym: u32, state: u16, modes: &Modes) -> Vec<u8> {
    let (shift, ctrl, alt) = (state & SHIFT != 0, state & CONTROL != 0, state & ALT != 0);
    let m = 1 + shift as u8 + 2 * alt as u8 + 4 * ctrl as u8;
    let csi = |final_: u8| -> Vec<u8> {
        if modes.vt52 {
            // VT52 mode: the VT52's own cursor keys, ESC and the letter, with no modifiers.
            vec![0x1b, final_]
        } else if m > 1 {
            format!("\x1b[1;{m}{}", final_ as char).into_bytes()
        } else if modes.application_cursor {
            vec![0x1b, b'O', final_]
        } else {
            vec![0x1b, b'[', final_]
        }
    };
    let tilde = |n: u8| -> Vec<u8> {
        if m > 1 {
            format!("\x1b[{n};{m}~").into_bytes()
        } else {
            format!("\x1b[{n}~").into_bytes()
        }
    };
    let ss3 = |final_: u8| -> Vec<u8> {
        if m > 1 {
            format!("\x1b[1;{m}{}", final_ as char).into_bytes()
        } else {
            vec![0x1b, b'O', final_]
        }
    };
    let with_alt = |mut b: Vec<u8>| -> Vec<u8> {
        if alt {
            b.insert(0, 0x1b);
        }
        b
    };
    match sym {
        0xff52 | 0xff97 => csi(b'A'),
        0xff54 | 0xff99 => csi(b'B'),
        0xff53 | 0xff98 => csi(b'C'),
        0xff51 | 0xff96 => csi(b'D'),
        0xff50 | 0xff95 => csi(b'H'),
        0xff57 | 0xff9c => csi(b'F'),
        0xff63 | 0xff9e => tilde(2),
        0xffff | 0xff9f => tilde(3),
        0xff55 | 0xff9a => tilde(5),
        0xff56 | 0xff9b => tilde(6),
        0xffbe..=0xffc1 => ss3(b'P' + (sym - 0xffbe) as u8),
        0xffc2..=0xffc9 => tilde([15, 17, 18, 19, 20, 21, 23, 24][(sym - 0xffc2) as usize]),
        0xff0d => with_alt(vec![b'\r']),
        0xff8d if modes.application_keypad => vec![0x1b, b'O', b'M'],
        0xff8d => with_alt(vec![b'\r']),
        0xff08 if ctrl => with_alt(vec![0x08]),
        0xff08 => with_alt(vec![0x7f]),
        0xfe20 => b"\x1b[Z".to_vec(),
        0xff09 if shift => b"\x1b[Z".to_vec(),
        0xff09 => with_alt(vec![b'\t']),
        0xff1b => with_alt(vec![0x1b]),
        // The keypad's digits and operators.
        0xffaa..=0xffb9 => {
            let c = (sym - 0xff80) as u8;
            if modes.application_keypad {
                vec![0x1b, b'O', c + 0x40]
            } else {
                with_alt(vec![c])
            }
        }
        _ => {
            let Some(c) = char_of(sym) else { return Vec::new() };
            if ctrl {
                if let Some(b) = control(c) {
                    return with_alt(vec![b]);
                }
            }
            let mut b = [0u8; 4];
            with_alt(c.encode_utf8(&mut b).as_bytes().to_vec())
        }
    }
}

/// The character a keysym stands for (xkbcommon's table: Latin-1, Unicode keysyms and the
/// legacy keysyms of other scripts); none for controls (the function keys are encoded above).
fn char_of(sym: u32) -> Option<char> {
    let u = match lib() {
        // SAFETY: a pure function of a number.
        Some(lib) => unsafe { (lib.xkb_keysym_to_utf32)(sym) },
        // Without the library: Latin-1 and Unicode keysyms.
        None => match sym {
            0x20..=0x7e | 0xa0..=0xff => sym,
            0x0100_0100..=0x0110_ffff => sym - 0x0100_0000,
            _ => 0,
        },
    };
    char::from_u32(u).filter(|c| *c != '\0' && !c.is_control())
}

/// Ctrl with a character: the C0 control xterm sends.
fn control(c: char) -> Option<u8> {
    match c {
        'a'..='z' => Some(c as u8 - b'a' + 1),
        '@'..='_' => Some(c as u8 & 0x1f),
        ' ' | '2' => Some(0),
        '?' => Some(0x7f),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn modes() -> Modes {
        *blitty_vt::Terminal::new(10, 2).screen().modes()
    }

    #[test]
    fn keys_are_encoded_as_xterm_encodes_them() {
        let m = modes();
        assert_eq!(encode(0x61, 0, &m), b"a");
        assert_eq!(encode(0x41, SHIFT, &m), b"A");
        assert_eq!(encode(0x61, CONTROL, &m), [1]);
        assert_eq!(encode(0x63, CONTROL, &m), [3], "Ctrl-C");
        assert_eq!(encode(0x61, ALT, &m), b"\x1ba");
        assert_eq!(encode(0xe9, 0, &m), "é".as_bytes());
        assert_eq!(encode(0x0100_20ac, 0, &m), "€".as_bytes(), "a Unicode keysym");
        assert_eq!(encode(0x6c6, 0, &m), "ф".as_bytes(), "a legacy Cyrillic keysym");
        assert_eq!(encode(0x7e1, 0, &m), "α".as_bytes(), "a legacy Greek keysym");
        assert_eq!(encode(0xfe51, 0, &m), b"", "a dead key alone sends nothing");
        assert_eq!(encode(0xff0d, 0, &m), b"\r");
        assert_eq!(encode(0xff08, 0, &m), [0x7f]);
        assert_eq!(encode(0xff09, SHIFT, &m), b"\x1b[Z");
        assert_eq!(encode(0xff52, 0, &m), b"\x1b[A");
        assert_eq!(encode(0xff52, CONTROL, &m), b"\x1b[1;5A");
        assert_eq!(encode(0xff53, SHIFT | ALT, &m), b"\x1b[1;4C");
        assert_eq!(encode(0xffff, 0, &m), b"\x1b[3~");
        assert_eq!(encode(0xff55, SHIFT, &m), b"\x1b[5;2~");
        assert_eq!(encode(0xffbe, 0, &m), b"\x1bOP", "F1");
        assert_eq!(encode(0xffc9, 0, &m), b"\x1b[24~", "F12");
        assert_eq!(encode(0xffe1, 0, &m), b"", "Shift alone sends nothing");
        let mut app = modes();
        app.application_cursor = true;
        app.application_keypad = true;
        assert_eq!(encode(0xff52, 0, &app), b"\x1bOA", "DECCKM");
        assert_eq!(encode(0xff8d, 0, &app), b"\x1bOM", "keypad Enter under DECKPAM");
        assert_eq!(encode(0xffb1, 0, &app), b"\x1bOq", "keypad 1 under DECKPAM");
        assert_eq!(encode(0xffb1, 0, &m), b"1");
        let mut vt52 = modes();
        vt52.vt52 = true;
        vt52.application_cursor = true;
        assert_eq!(encode(0xff52, 0, &vt52), b"\x1bA", "VT52 mode's cursor keys");
        assert_eq!(encode(0xff54, CONTROL, &vt52), b"\x1bB", "no modifiers in VT52 mode");
    }

    #[test]
    fn shift_capslock_and_numlock_choose_the_column() {
        // Key 38 is a/A, key 87 is KP_End/KP_1, as on a PC keyboard.
        let kb = CoreMap {
            min: 8,
            per: 2,
            syms: (8..=255u32)
                .flat_map(|k| match k {
                    38 => [0x61, 0x41],
                    87 => [0xff9c, 0xffb1],
                    _ => [0, 0],
                })
                .collect(),
        };
        assert_eq!(kb.keysym(38, 0), 0x61);
        assert_eq!(kb.keysym(38, SHIFT), 0x41);
        assert_eq!(kb.keysym(38, LOCK), 0x41);
        assert_eq!(kb.keysym(38, LOCK | SHIFT), 0x61);
        assert_eq!(kb.keysym(87, 0), 0xff9c);
        assert_eq!(kb.keysym(87, NUM_LOCK), 0xffb1);
        assert_eq!(kb.keysym(87, NUM_LOCK | SHIFT), 0xff9c);
    }
}
