//! Names a user gives or a program chooses (sessions, vtys, devices), made safe to show.
//!
//! A name reaches the user's terminal in `blitty ls`, in refusals and on the status row. A
//! terminal executes control characters, so a program named `ev\e]2;…\a` could set the
//! user's title when listed; bidirectional overrides (U+202E) and invisible format characters
//! make one name look like another. Names a user gives are refused when they hold such
//! characters; names a program chooses are shown escaped.

use std::fmt::Write;

/// Characters that change how the text around them is shown without being seen themselves:
/// the format characters (Unicode's `Cf`: bidirectional controls, zero-width characters, the
/// soft hyphen, tags) and the line and paragraph separators.
fn invisible(c: char) -> bool {
    matches!(
        c as u32,
        0xAD | 0x600..=0x605
            | 0x61C
            | 0x6DD
            | 0x70F
            | 0x8E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x2028..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    )
}

/// Whether `c` may stand in a name as it is.
pub fn shown_as_is(c: char) -> bool {
    !c.is_control() && !invisible(c)
}

/// `s` with every character that a terminal would execute, or that hides or reorders text,
/// written as an escape (`\x1b`, `\u{202e}`), and backslashes doubled so an escape cannot be
/// forged.
pub fn printable(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            c if shown_as_is(c) => out.push(c),
            c if (c as u32) < 0x100 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
    out
}

/// `s` made printable and cut to [`crate::proto::MAX_NAME`] characters (`…` says it was): for
/// a name that may not be one (a refusal repeats what it was given).
pub fn short(s: &str) -> String {
    let max = crate::proto::MAX_NAME;
    let mut out = printable(&s.chars().take(max).collect::<String>());
    if s.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

/// `text` with what a terminal would execute, or what hides or reorders text, escaped as
/// [`printable`] does, but its backslashes kept: for text that may already have been made
/// printable (the server's answers), shown by a client that does not trust it to be.
pub fn defanged(text: &str) -> String {
    text.split('\\').map(printable_lines).collect::<Vec<_>>().join("\\")
}

/// `text` (several lines) made printable line by line, the line ends kept.
pub fn printable_lines(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (k, line) in text.split('\n').enumerate() {
        if k > 0 {
            out.push('\n');
        }
        out.push_str(&printable(line));
    }
    out
}

/// Checks a session's name as the user gave it: 1 to [`crate::proto::MAX_NAME`] characters,
/// none a control or invisible character, no colon or dot (tmux's target syntax uses them).
pub fn check_session_name(n: &str) -> Result<(), String> {
    let max = crate::proto::MAX_NAME;
    let count = n.chars().count();
    if count == 0 || count > max {
        return Err(format!("a session's name has 1 to {max} characters (this one has {count})"));
    }
    if n.contains(|c: char| !shown_as_is(c) || c == ':' || c == '.') {
        return Err(format!(
            "\"{}\" cannot name a session (no colons, dots, control or invisible characters)",
            short(n)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_a_terminal_executes_survives_in_any_scalar_value() {
        // Every Unicode scalar value alone and between text: the result holds no control
        // character and no invisible one, and shows each character as it is or as an escape.
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            let s = format!("a{c}b");
            let p = printable(&s);
            assert!(p.chars().all(shown_as_is), "{:x}: {p:?}", c as u32);
            if shown_as_is(c) && c != '\\' {
                assert_eq!(p, s);
            } else {
                assert!(p.starts_with("a\\") && p.ends_with('b'), "{:x}: {p:?}", c as u32);
            }
        }
    }

    #[test]
    fn a_title_setting_name_is_escaped() {
        assert_eq!(printable("/tmp/ev\x1b]2;INJECTED\x07"), "/tmp/ev\\x1b]2;INJECTED\\x07");
        assert_eq!(printable("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(printable("\u{9b}31m"), "\\x9b31m");
        // A backslash of the name's own cannot pass for an escape.
        assert_eq!(printable("a\\x1b"), "a\\\\x1b");
        assert_eq!(printable_lines("one\x1b\ntwo\n"), "one\\x1b\ntwo\n");
        // What is printable already stays as it is; what is not is escaped.
        let once = printable_lines("a\\b\x1b]2;x\x07\n");
        assert_eq!(defanged(&once), once);
        assert_eq!(defanged("a\\b\x1b\n"), "a\\b\\x1b\n");
    }

    #[test]
    fn session_names_are_checked() {
        assert!(check_session_name("work").is_ok());
        assert!(check_session_name("über-ü").is_ok());
        assert!(check_session_name(&"x".repeat(64)).is_ok());
        assert!(check_session_name(&"x".repeat(65)).unwrap_err().contains("1 to 64"));
        assert_eq!(short(&"y".repeat(60_000_000)), format!("{}…", "y".repeat(64)));
        assert!(check_session_name("").is_err());
        for bad in ["a:b", "a.b", "a\x1bb", "a\u{202e}b", "a\u{200b}b", "a\nb"] {
            let e = check_session_name(bad).unwrap_err();
            assert!(e.chars().all(shown_as_is), "{e:?}");
        }
    }
}
