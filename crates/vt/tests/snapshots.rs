//! Screen snapshots (insta): what the engine draws for each recorded program and for streams
//! that exercise the harder corners. A change in any of them shows up as a snapshot diff.

use blitty_vt::Terminal;

fn dump(data: &[u8], cols: usize, rows: usize) -> String {
    let mut t = Terminal::new(cols, rows);
    t.feed(data);
    t.screen().dump_text()
}

macro_rules! corpus_snapshot {
    ($name:ident) => {
        #[test]
        fn $name() {
            let data = include_bytes!(concat!("../../../corpus/", stringify!($name), ".raw"));
            insta::assert_snapshot!(dump(data, 80, 24));
        }
    };
}

corpus_snapshot!(ls);
corpus_snapshot!(vim);
corpus_snapshot!(less);
corpus_snapshot!(htop);
corpus_snapshot!(dialog);
corpus_snapshot!(bash);
corpus_snapshot!(unicode);

#[test]
fn wide_characters_at_the_margin_and_combining_marks() {
    insta::assert_snapshot!(dump("abcdefgh字\r\ne\u{301}\u{302}x 한국어\x1b[1;9H字\x1b[2;1H\x1b[2@".as_bytes(), 10, 3));
}

#[test]
fn scroll_regions_with_left_and_right_margins() {
    insta::assert_snapshot!(dump(
        b"111111\r\n222222\r\n333333\r\n444444\x1b[?69h\x1b[2;3r\x1b[2;5s\x1b[2;2H\x1b[L\x1b[3;3HX\x1b[S",
        6,
        4
    ));
}

#[test]
fn line_drawing_and_charsets() {
    insta::assert_snapshot!(dump(b"\x1b(0lqqk\r\nx  x\r\nmqqj\x1b(B\r\n\x1b)A\x0e#\x0f#", 6, 4));
}
