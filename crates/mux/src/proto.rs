//! The protocol between `blitty` clients and the session server, over a Unix stream socket.
//!
//! Every message is a frame: its length (u32, little-endian, counting the kind byte and the
//! body), a kind byte, and the body. The first message each way is a hello carrying [`MAGIC`]
//! and [`VERSION`]; a peer of another version gets an [`Msg::Error`] naming both versions and
//! the connection closes, so a client never shows a garbled screen from a server it does not
//! speak with. For that to work between any two versions, the hello (kind 1: the magic, then
//! the version as a u32, little-endian) and the error (kind 7: UTF-8 text up to the end of the
//! frame) are laid out as they were in version 1 and must stay so. Every other body is the
//! message's fields in postcard's encoding (integers as varints, a length before each string,
//! byte string and list, enums as their variant's index), and it must end where the message does.
//!
//! Every value is checked as it arrives: an unknown kind or enum variant, a string that is not
//! UTF-8, a length past the end of the frame, bytes after the message, or serial settings that
//! `blitty serial` would not take are errors, never defaults.
//!
//! A frame longer than its direction's limit is a protocol error: [`MAX_FRAME`] from the server
//! (the largest legitimate one is a full-screen frame of a 2048x1024 terminal, far below it),
//! [`MAX_CLIENT_FRAME`] from a client (a request with its command line, or a read of keys).

use std::fmt;
use std::io;

use blitty_serial::settings::{Flow, Parity};
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

pub const MAGIC: &[u8; 4] = b"BLTY";
/// Bumped whenever a message changes shape, including the order of the variants of an enum in
/// a message (`Parity`, `Flow` too: postcard sends the index).
pub const VERSION: u32 = 2;
/// Bytes a frame from the server may hold at most.
pub const MAX_FRAME: usize = 64 << 20;
/// Bytes a frame from a client may hold at most: the server holds at most this much of a
/// partial frame per connection. It bounds a command line (`blitty new -- CMD`: the client
/// refuses a longer one before sending it); keys come in reads of 64 KiB.
pub const MAX_CLIENT_FRAME: usize = 1 << 20;
/// Characters a session's name may have at most.
pub const MAX_NAME: usize = 64;
/// Arguments a program's command line may have at most: refused before they are read, so a
/// frame of a million empty arguments costs no million allocations.
const MAX_ARGS: usize = 4096;

/// What a client asks for after its hello.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Request {
    /// A new session with one vty, then (unless `detached`) attach to it.
    /// `log`: a file every byte the vty receives is appended to.
    New {
        name: Option<String>,
        detached: bool,
        vty: VtySpec,
        cols: u16,
        rows: u16,
        #[serde(with = "opt_bytes")]
        log: Option<Vec<u8>>,
    },
    /// Attach to a session (the most recently used one when `None`).
    Attach { name: Option<String>, cols: u16, rows: u16 },
    /// The sessions as text.
    List,
    /// End a session and everything in it.
    Kill { name: String },
}

/// What a vty runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum VtySpec {
    /// A program (empty: the user's shell) started in `cwd`.
    Program {
        #[serde(with = "argv")]
        argv: Vec<Vec<u8>>,
        #[serde(with = "bytes")]
        cwd: Vec<u8>,
    },
    /// A serial line opened with `blitty serial`'s settings.
    Serial {
        #[serde(with = "bytes")]
        device: Vec<u8>,
        baud: u32,
        data_bits: u8,
        parity: Parity,
        stop_bits: u8,
        flow: Flow,
        lock: bool,
    },
}

/// One message, either way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Msg {
    Hello {
        version: u32,
    },
    Request(Request),
    /// Typed keys (client to server).
    Input(Vec<u8>),
    /// The client's terminal has a new size.
    Resize {
        cols: u16,
        rows: u16,
    },
    /// Bytes for the client's terminal (server to client).
    Output(Vec<u8>),
    /// An answer in words (a listing, "session x killed").
    Text(String),
    /// The request failed: one line for the user.
    Error(String),
    /// The attachment is over (detached, the session ended): the reason, and the status to exit with.
    Exit {
        reason: String,
        status: u8,
    },
}

/// The kind bytes, those of version 1.
const HELLO: u8 = 1;
const REQUEST: u8 = 2;
const INPUT: u8 = 3;
const RESIZE: u8 = 4;
const OUTPUT: u8 = 5;
const TEXT: u8 = 6;
const ERROR: u8 = 7;
const EXIT: u8 = 8;

/// A byte string goes through serde as bytes, not as a list of u8: postcard lays both out the
/// same (a length, then the bytes) but copies bytes in one piece rather than a call a byte.
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(self.0)
    }
}

struct ByteBuf(Vec<u8>);

impl<'de> Deserialize<'de> for ByteBuf {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ByteBuf, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = ByteBuf;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<ByteBuf, E> {
                Ok(ByteBuf(b.to_vec()))
            }
            fn visit_byte_buf<E: de::Error>(self, b: Vec<u8>) -> Result<ByteBuf, E> {
                Ok(ByteBuf(b))
            }
        }
        d.deserialize_byte_buf(V)
    }
}

mod bytes {
    use super::*;

    pub fn serialize<S: Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(b)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        ByteBuf::deserialize(d).map(|b| b.0)
    }
}

mod opt_bytes {
    use super::*;

    pub fn serialize<S: Serializer>(o: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        o.as_deref().map(Bytes).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        Option::<ByteBuf>::deserialize(d).map(|o| o.map(|b| b.0))
    }
}

mod argv {
    use super::*;

    pub fn serialize<S: Serializer>(argv: &[Vec<u8>], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(argv.iter().map(|a| Bytes(a)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec<u8>>, D::Error> {
        d.deserialize_seq(Argv)
    }

    struct Argv;

    impl<'de> Visitor<'de> for Argv {
        type Value = Vec<Vec<u8>>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "at most {MAX_ARGS} arguments")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Vec<u8>>, A::Error> {
            // The count comes first: a list that claims too many is refused before any is read.
            if let Some(n) = seq.size_hint().filter(|&n| n > MAX_ARGS) {
                return Err(de::Error::invalid_length(n, &self));
            }
            let mut argv = Vec::new();
            while let Some(a) = seq.next_element::<ByteBuf>()? {
                if argv.len() == MAX_ARGS {
                    return Err(de::Error::invalid_length(MAX_ARGS + 1, &self));
                }
                argv.push(a.0);
            }
            Ok(argv)
        }
    }
}

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("malformed message ({what})"))
}

/// Appends `v` in postcard's encoding.
fn put<T: Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) {
    postcard::to_io(v, &mut *out).expect("postcard writes any message into a Vec");
}

/// A body's fields: all of them, and nothing after them.
fn fields<'a, T: Deserialize<'a>>(body: &'a [u8]) -> io::Result<T> {
    match postcard::take_from_bytes(body) {
        Ok((v, [])) => Ok(v),
        Ok(_) => Err(bad("bytes after its end")),
        Err(e) => Err(bad(&e.to_string())),
    }
}

/// A serial vty's settings as `blitty serial` takes them (its parity and flow control are
/// checked by their types): a value it would not take is an error, never a default.
fn check(req: &Request) -> io::Result<()> {
    if let Request::New { vty: VtySpec::Serial { baud, data_bits, stop_bits, .. }, .. } = req {
        if *baud == 0 || !(5..=8).contains(data_bits) || !(1..=2).contains(stop_bits) {
            return Err(bad("serial settings"));
        }
    }
    Ok(())
}

/// Appends `msg` as one frame to `out`.
pub fn encode(msg: &Msg, out: &mut Vec<u8>) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    match msg {
        Msg::Hello { version } => {
            out.push(HELLO);
            out.extend_from_slice(MAGIC);
            out.extend_from_slice(&version.to_le_bytes());
        }
        Msg::Error(s) => {
            out.push(ERROR);
            out.extend_from_slice(s.as_bytes());
        }
        Msg::Request(r) => {
            out.push(REQUEST);
            put(out, r);
        }
        Msg::Input(b) => {
            out.push(INPUT);
            put(out, &Bytes(b));
        }
        Msg::Resize { cols, rows } => {
            out.push(RESIZE);
            put(out, &(cols, rows));
        }
        Msg::Output(b) => {
            out.push(OUTPUT);
            put(out, &Bytes(b));
        }
        Msg::Text(s) => {
            out.push(TEXT);
            put(out, s);
        }
        Msg::Exit { reason, status } => {
            out.push(EXIT);
            put(out, &(status, reason));
        }
    }
    let len = (out.len() - start - 4) as u32;
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
}

/// Decodes one frame's body (kind byte first).
pub fn decode(body: &[u8]) -> io::Result<Msg> {
    let Some((&kind, rest)) = body.split_first() else { return Err(bad("empty")) };
    Ok(match kind {
        HELLO => {
            if rest.get(..4) != Some(&MAGIC[..]) {
                return Err(bad("not a blitty peer"));
            }
            let version = <[u8; 4]>::try_from(&rest[4..]).map_err(|_| bad("hello's length"))?;
            Msg::Hello { version: u32::from_le_bytes(version) }
        }
        ERROR => Msg::Error(String::from_utf8(rest.to_vec()).map_err(|_| bad("text not UTF-8"))?),
        REQUEST => {
            let req = fields(rest)?;
            check(&req)?;
            Msg::Request(req)
        }
        INPUT => Msg::Input(fields::<&[u8]>(rest)?.to_vec()),
        RESIZE => {
            let (cols, rows) = fields(rest)?;
            Msg::Resize { cols, rows }
        }
        OUTPUT => Msg::Output(fields::<&[u8]>(rest)?.to_vec()),
        TEXT => Msg::Text(fields(rest)?),
        EXIT => {
            let (status, reason) = fields(rest)?;
            Msg::Exit { reason, status }
        }
        _ => return Err(bad("message kind")),
    })
}

/// Takes whole frames off the front of a byte stream.
///
/// Whole frames are taken by moving an offset, not by moving the bytes after them: a buffer
/// holding many small messages costs each message its own length, not the buffer's. The bytes
/// taken are dropped when they are the larger part of the buffer (or all of it).
pub struct Frames {
    buf: Vec<u8>,
    /// Where the next frame starts in `buf`.
    at: usize,
    /// The longest frame accepted.
    max: usize,
}

impl Default for Frames {
    /// Frames from the server (a client's reader).
    fn default() -> Frames {
        Frames::with_max(MAX_FRAME)
    }
}

impl Frames {
    /// Frames of at most `max` bytes each.
    pub fn with_max(max: usize) -> Frames {
        Frames { buf: Vec::new(), at: 0, max }
    }

    pub fn push(&mut self, bytes: &[u8]) {
        if self.at > 0 && self.at >= self.buf.len() - self.at {
            self.buf.drain(..self.at);
            self.at = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// Bytes held that are not whole frames yet.
    pub fn pending(&self) -> usize {
        self.buf.len() - self.at
    }

    /// The next whole message, if one is there; an error for a malformed or oversized frame.
    pub fn next_msg(&mut self) -> io::Result<Option<Msg>> {
        let rest = &self.buf[self.at..];
        if rest.len() < 4 {
            return Ok(None);
        }
        let len = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        if len == 0 || len > self.max {
            return Err(bad("frame length"));
        }
        if rest.len() < 4 + len {
            return Ok(None);
        }
        let msg = decode(&rest[4..4 + len]);
        self.at += 4 + len;
        if self.at == self.buf.len() {
            self.buf.clear();
            self.at = 0;
        }
        msg.map(Some)
    }
}

/// The message for a peer of another version.
pub fn version_error(theirs: u32) -> String {
    format!(
        "the blitty server speaks protocol version {VERSION} and this client {theirs}: \
         end the old server's sessions (or its process) and start again with one blitty"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<Msg> {
        vec![
            Msg::Hello { version: VERSION },
            Msg::Request(Request::New {
                name: Some("work".into()),
                detached: true,
                vty: VtySpec::Program { argv: vec![b"vim".to_vec(), b"a b".to_vec()], cwd: b"/tmp".to_vec() },
                cols: 80,
                rows: 24,
                log: Some(b"/tmp/x.log".to_vec()),
            }),
            Msg::Request(Request::New {
                name: None,
                detached: false,
                vty: VtySpec::Serial {
                    device: b"/dev/ttyS0".to_vec(),
                    baud: 115200,
                    data_bits: 8,
                    parity: Parity::None,
                    stop_bits: 1,
                    flow: Flow::None,
                    lock: true,
                },
                cols: 1,
                rows: 1,
                log: None,
            }),
            Msg::Request(Request::New {
                name: Some(String::new()),
                detached: true,
                vty: VtySpec::Serial {
                    device: Vec::new(),
                    baud: u32::MAX,
                    data_bits: 5,
                    parity: Parity::Odd,
                    stop_bits: 2,
                    flow: Flow::Soft,
                    lock: false,
                },
                cols: u16::MAX,
                rows: 0,
                log: Some(Vec::new()),
            }),
            Msg::Request(Request::Attach { name: None, cols: 200, rows: 60 }),
            Msg::Request(Request::Attach { name: Some("x".into()), cols: 0, rows: 0 }),
            Msg::Request(Request::List),
            Msg::Request(Request::Kill { name: "ü".into() }),
            Msg::Input(b"\x1b[A".to_vec()),
            Msg::Input(Vec::new()),
            Msg::Resize { cols: 2048, rows: 1024 },
            Msg::Output(vec![0, 1, 255]),
            Msg::Text("a\nb".into()),
            Msg::Error("no".into()),
            Msg::Exit { reason: "detached".into(), status: 0 },
            Msg::Exit { reason: String::new(), status: 255 },
        ]
    }

    fn body(m: &Msg) -> Vec<u8> {
        let mut b = Vec::new();
        encode(m, &mut b);
        assert_eq!(b[..4], ((b.len() - 4) as u32).to_le_bytes());
        b.split_off(4)
    }

    fn varint(mut n: u64) -> Vec<u8> {
        let mut b = Vec::new();
        while n >= 0x80 {
            b.push(n as u8 | 0x80);
            n >>= 7;
        }
        b.push(n as u8);
        b
    }

    /// A serial `New` laid out by hand, with the variant indexes of its parity and flow control.
    fn serial_body(parity: u8, flow: u8) -> Vec<u8> {
        // The kind; New; no name; detached; Serial; the device "x"; 9600 baud as a varint.
        let mut b = vec![REQUEST, 0, 0, 1, 1, 1, b'x', 0x80, 0x4b];
        // 8 data bits, the parity, 1 stop bit, the flow control, locked; 80x24; no log.
        b.extend_from_slice(&[8, parity, 1, flow, 1, 80, 24, 0]);
        b
    }

    /// A program's `New` laid out by hand, with `n` empty arguments.
    fn program_body(n: usize) -> Vec<u8> {
        let mut b = vec![REQUEST, 0, 0, 1, 0];
        b.extend_from_slice(&varint(n as u64));
        b.resize(b.len() + n, 0);
        b.extend_from_slice(&[0, 80, 24, 0]);
        b
    }

    #[test]
    fn every_message_round_trips_split_at_every_byte() {
        let mut stream = Vec::new();
        for m in all() {
            encode(&m, &mut stream);
        }
        for cut in 0..=stream.len() {
            let mut f = Frames::default();
            let mut got = Vec::new();
            for part in [&stream[..cut], &stream[cut..]] {
                f.push(part);
                while let Some(m) = f.next_msg().unwrap() {
                    got.push(m);
                }
            }
            assert_eq!(got, all(), "cut at {cut}");
        }
    }

    #[test]
    fn garbage_is_an_error_never_a_panic() {
        // Every prefix of every message, as a frame of its own, and a few hostile frames.
        for m in all() {
            let one = body(&m);
            for n in 0..one.len() {
                let _ = decode(&one[..n]);
            }
        }
        assert!(decode(&[]).is_err());
        let mut f = Frames::default();
        f.push(&u32::MAX.to_le_bytes());
        assert!(f.next_msg().is_err());
        let mut f = Frames::default();
        f.push(&[0, 0, 0, 0]);
        assert!(f.next_msg().is_err(), "an empty frame");
        let mut f = Frames::default();
        f.push(&[9, 0, 0, 0, HELLO, b'X', b'X', b'X', b'X', 2, 0, 0, 0]);
        assert!(f.next_msg().is_err(), "a hello without the magic");
        assert!(decode(&[HELLO, b'B', b'L', b'T', b'Y', 2, 0, 0]).is_err(), "a hello cut short");
        assert!(decode(&[TEXT, 2, 0xff, 0xfe]).is_err(), "text not UTF-8");
        assert!(decode(&[ERROR, 0xff]).is_err(), "an error not UTF-8");
        assert!(decode(&[RESIZE, 0xff, 0xff, 0x04, 1]).is_err(), "a width past u16");
        assert!(decode(&[RESIZE, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80]).is_err(), "a varint without an end");
        // A client's frame is held to its own, smaller limit.
        let mut f = Frames::with_max(MAX_CLIENT_FRAME);
        f.push(&((MAX_CLIENT_FRAME + 1) as u32).to_le_bytes());
        assert!(f.next_msg().is_err());
    }

    #[test]
    fn unknown_serial_settings_are_errors() {
        let serial = |parity, flow, data_bits, stop_bits, baud| {
            Msg::Request(Request::New {
                name: None,
                detached: true,
                vty: VtySpec::Serial {
                    device: b"/dev/x".to_vec(),
                    baud,
                    data_bits,
                    parity,
                    stop_bits,
                    flow,
                    lock: true,
                },
                cols: 80,
                rows: 24,
                log: None,
            })
        };
        let ok = |m: Msg| decode(&body(&m)).is_ok();
        assert!(ok(serial(Parity::Even, Flow::Hard, 5, 2, 1)));
        assert!(ok(serial(Parity::Odd, Flow::Soft, 8, 1, 9600)));
        assert!(!ok(serial(Parity::None, Flow::None, 4, 1, 9600)), "4 data bits");
        assert!(!ok(serial(Parity::None, Flow::None, 9, 1, 9600)), "9 data bits");
        assert!(!ok(serial(Parity::None, Flow::None, 8, 0, 9600)), "0 stop bits");
        assert!(!ok(serial(Parity::None, Flow::None, 8, 3, 9600)), "3 stop bits");
        assert!(!ok(serial(Parity::None, Flow::None, 8, 1, 0)), "0 baud");
    }

    #[test]
    fn unknown_enum_tags_are_errors() {
        // The layout by hand is the one encode writes.
        let even_hard = Msg::Request(Request::New {
            name: None,
            detached: true,
            vty: VtySpec::Serial {
                device: b"x".to_vec(),
                baud: 9600,
                data_bits: 8,
                parity: Parity::Even,
                stop_bits: 1,
                flow: Flow::Hard,
                lock: true,
            },
            cols: 80,
            rows: 24,
            log: None,
        });
        assert_eq!(body(&even_hard), serial_body(2, 2));
        assert_eq!(decode(&serial_body(2, 2)).unwrap(), even_hard);
        assert!(decode(&serial_body(0, 0)).is_ok());
        for tag in [3, 4, 0x7f] {
            assert!(decode(&serial_body(tag, 0)).is_err(), "parity {tag}");
            assert!(decode(&serial_body(0, tag)).is_err(), "flow {tag}");
        }
        // A variant index as an overlong varint is the index all the same; one past u32 is refused.
        let mut long = serial_body(0, 0);
        long.splice(12..13, [0x82, 0x00]);
        assert!(decode(&long).is_ok());
        long.splice(12..14, [0x80, 0x80, 0x80, 0x80, 0x10]);
        assert!(decode(&long).is_err());
        // The kind of a message, of a request, of a vty; an option's and a bool's tags.
        for kind in [0, 9, 0x7f, 0xff] {
            assert!(decode(&[kind]).is_err(), "message kind {kind}");
            assert!(decode(&[kind, 0, 0, 0, 0]).is_err(), "message kind {kind}");
        }
        assert_eq!(decode(&[REQUEST, 2]).unwrap(), Msg::Request(Request::List));
        assert!(decode(&[REQUEST, 4]).is_err(), "request kind");
        let mut vty = serial_body(0, 0);
        vty[4] = 2;
        assert!(decode(&vty).is_err(), "vty kind");
        let mut name = serial_body(0, 0);
        name[2] = 2;
        assert!(decode(&name).is_err(), "option tag");
        let mut detached = serial_body(0, 0);
        detached[3] = 2;
        assert!(decode(&detached).is_err(), "bool");
        let mut lock = serial_body(0, 0);
        lock[13] = 2;
        assert!(decode(&lock).is_err(), "lock");
    }

    #[test]
    fn bytes_after_a_message_are_errors() {
        for m in all() {
            // The error's text runs to the end of its frame: there is no after.
            if matches!(m, Msg::Error(_)) {
                continue;
            }
            let mut b = body(&m);
            b.push(0);
            assert!(decode(&b).is_err(), "{m:?}");
        }
    }

    #[test]
    fn a_huge_length_is_an_error_not_an_allocation() {
        // Postcard reads from the body: a length past its end fails before anything is made of it.
        for n in [1 << 60, u64::MAX, 3] {
            let len = varint(n);
            for kind in [INPUT, OUTPUT, TEXT] {
                let b = [&[kind][..], &len, b"ab"].concat();
                assert!(decode(&b).is_err(), "kind {kind}, {n}");
            }
            let kill = [&[REQUEST, 3][..], &len, b"ab"].concat();
            assert!(decode(&kill).is_err(), "a name of {n}");
            let argv = [&[REQUEST, 0, 0, 1, 0][..], &len, &[1, b'a', 0, 80, 24, 0]].concat();
            assert!(decode(&argv).is_err(), "{n} arguments");
            let mut log = serial_body(0, 0);
            log.pop();
            log.push(1);
            log.extend_from_slice(&len);
            assert!(decode(&log).is_err(), "a log path of {n}");
        }
    }

    #[test]
    fn a_command_line_has_at_most_4096_arguments() {
        let Msg::Request(Request::New { vty: VtySpec::Program { argv, cwd }, .. }) =
            decode(&program_body(MAX_ARGS)).unwrap()
        else {
            panic!("not a program's New")
        };
        assert_eq!((argv.len(), cwd.len()), (MAX_ARGS, 0));
        assert!(decode(&program_body(MAX_ARGS + 1)).is_err());
    }

    #[test]
    fn a_frame_of_the_client_limit_is_taken_and_one_byte_more_refused() {
        // The kind, a 3-byte varint length, the keys.
        let keys = MAX_CLIENT_FRAME - 4;
        let mut at = Vec::new();
        encode(&Msg::Input(vec![b'k'; keys]), &mut at);
        assert_eq!(at.len(), 4 + MAX_CLIENT_FRAME);
        let mut f = Frames::with_max(MAX_CLIENT_FRAME);
        f.push(&at);
        assert_eq!(f.next_msg().unwrap(), Some(Msg::Input(vec![b'k'; keys])));
        assert_eq!(f.pending(), 0);
        let mut over = Vec::new();
        encode(&Msg::Input(vec![b'k'; keys + 1]), &mut over);
        assert_eq!(over.len(), 5 + MAX_CLIENT_FRAME);
        // Refused on its length alone, before its body is held.
        let mut f = Frames::with_max(MAX_CLIENT_FRAME);
        f.push(&over[..4]);
        assert!(f.next_msg().is_err());
    }

    #[test]
    fn a_peer_of_version_1_reads_the_hello_and_the_error() {
        // Its hello decodes, so the server can answer with both versions...
        assert_eq!(decode(b"\x01BLTY\x01\x00\x00\x00").unwrap(), Msg::Hello { version: 1 });
        // ...in an error it reads as its own: the kind, then the text to the end of the frame.
        let text = version_error(1);
        assert!(text.contains("version 2 and this client 1"), "{text}");
        assert_eq!(body(&Msg::Error(text.clone())), [&[ERROR][..], text.as_bytes()].concat());
        // This version's hello, and a version-1 server's answer to it.
        let hello = body(&Msg::Hello { version: VERSION });
        assert_eq!(hello, [&[HELLO][..], MAGIC, &VERSION.to_le_bytes()].concat());
        let theirs = b"\x07the blitty server speaks protocol version 1 and this client 2";
        assert_eq!(decode(theirs).unwrap(), Msg::Error(String::from_utf8_lossy(&theirs[1..]).into()));
    }

    #[test]
    fn a_stream_of_small_messages_costs_linear_time() {
        // 8 MiB of 7-byte resizes pushed in 16 KiB reads, each read's messages taken before
        // the next: the buffer never holds more than a read and a partial message, and the
        // bytes moved stay a small multiple of the bytes pushed.
        let mut one = Vec::new();
        encode(&Msg::Resize { cols: 80, rows: 24 }, &mut one);
        assert_eq!(one.len(), 7);
        let stream: Vec<u8> = one.iter().copied().cycle().take(8 << 20).collect();
        let mut f = Frames::with_max(MAX_CLIENT_FRAME);
        let mut n = 0;
        for read in stream.chunks(16384) {
            f.push(read);
            assert!(f.buf.len() <= 2 * 16384, "{}", f.buf.len());
            while let Some(m) = f.next_msg().unwrap() {
                assert_eq!(m, Msg::Resize { cols: 80, rows: 24 });
                n += 1;
            }
        }
        assert_eq!(n, (8 << 20) / one.len());
    }
}
