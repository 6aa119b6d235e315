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
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{AtomEnum, ConnectionExt as _};
use xkbcommon::xkb;

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

struct Xkb {
    state: xkb::State,
    compose: Option<xkb::compose::State>,
}

impl Keyboard {
    /// Reads the server's keyboard (again, after a mapping change). `root` holds its names.
    pub fn load(conn: &impl Connection, root: u32) -> Result<Keyboard, String> {
        let core = CoreMap::load(conn)?;
        let xkb = Xkb::from_server(conn, root, &core);
        Ok(Keyboard { core, xkb })
    }

    /// Whether xkbcommon's keymap is in use (not the core map).
    pub fn uses_xkb(&self) -> bool {
        self.xkb.is_some()
    }

    /// Key `code` pressed with the event's `state` (modifiers, and XKB's group in bits 13-14).
    pub fn press(&mut self, code: u8, state: u16) -> Press {
        let Some(x) = self.xkb.as_mut() else { return Press::Sym(self.core.keysym(code, state)) };
        x.state.update_mask((state & 0xff) as u32, 0, 0, 0, 0, ((state >> 13) & 3) as u32);
        let sym = x.state.key_get_one_sym(xkb::Keycode::new(code as u32));
        if let Some(c) = x.compose.as_mut() {
            if c.feed(sym) == xkb::compose::FeedResult::Accepted {
                match c.status() {
                    xkb::compose::Status::Composing => return Press::Pending,
                    xkb::compose::Status::Composed => {
                        let (text, made) = (c.utf8(), c.keysym());
                        c.reset();
                        return match (text, made) {
                            (Some(t), _) if !t.is_empty() => Press::Text(t),
                            (_, Some(k)) => Press::Sym(k.raw()),
                            _ => Press::Pending,
                        };
                    }
                    // A sequence that does not exist: its keys are dropped (as GTK and Qt do).
                    xkb::compose::Status::Cancelled => {
                        c.reset();
                        return Press::Pending;
                    }
                    xkb::compose::Status::Nothing => {}
                }
            }
        }
        Press::Sym(sym.raw())
    }
}

impl Xkb {
    fn from_server(conn: &impl Connection, root: u32, core: &CoreMap) -> Option<Xkb> {
        let names_atom = conn.intern_atom(true, b"_XKB_RULES_NAMES").ok()?.reply().ok()?.atom;
        let prop = conn.get_property(false, root, names_atom, AtomEnum::STRING, 0, 1024).ok()?.reply().ok()?;
        let names: Vec<String> =
            prop.value.split(|&b| b == 0).map(|f| String::from_utf8_lossy(f).into_owned()).collect();
        let name = |i: usize| names.get(i).cloned().unwrap_or_default();
        if name(0).is_empty() {
            return None;
        }
        let ctx = xkb::Context::new(xkb::CONTEXT_NO_FLAGS);
        let keymap = xkb::Keymap::new_from_names(
            &ctx,
            &name(0),
            &name(1),
            &name(2),
            &name(3),
            Some(name(4)),
            xkb::KEYMAP_COMPILE_NO_FLAGS,
        )?;
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
            let got = keymap.key_get_syms_by_level(xkb::Keycode::new(code), 0, 0);
            same += got.first().is_some_and(|k| k.raw() == want) as usize;
        }
        if all < 10 || same * 10 < all * 9 {
            return None;
        }
        let state = xkb::State::new(&keymap);
        Some(Xkb { state, compose: compose_state(&ctx) })
    }
}

/// The compose table of the user's locale (en_US.UTF-8's if it has none).
fn compose_state(ctx: &xkb::Context) -> Option<xkb::compose::State> {
    let locale = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .find_map(|v| std::env::var_os(v).filter(|l| !l.is_empty()))
        .unwrap_or_else(|| "C".into());
    [locale, "en_US.UTF-8".into()].iter().find_map(|l| {
        let table = xkb::compose::Table::new_from_locale(ctx, l, xkb::compose::COMPILE_NO_FLAGS).ok()?;
        Some(xkb::compose::State::new(&table, xkb::compose::STATE_NO_FLAGS))
    })
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
        if m > 1 {
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
    char::from_u32(xkb::keysym_to_utf32(xkb::Keysym::new(sym))).filter(|c| !c.is_control())
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
