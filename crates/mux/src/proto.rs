//! The protocol between `blitty` clients and the session server, over a Unix stream socket.
//!
//! Every message is a frame: its length (u32, little-endian, counting the kind byte and the
//! body), a kind byte, and the body. Strings and byte strings in a body are a u32 length and
//! the bytes. The first message each way is a hello carrying [`MAGIC`] and [`VERSION`]; a peer
//! of another version gets an [`Msg::Error`] naming both versions and the connection closes, so
//! a client never shows a garbled screen from a server it does not speak with.
//!
//! A frame longer than its direction's limit is a protocol error: [`MAX_FRAME`] from the server
//! (the largest legitimate one is a full-screen frame of a 2048x1024 terminal, far below it),
//! [`MAX_CLIENT_FRAME`] from a client (a request with its command line, or a read of keys).

use std::io;

pub const MAGIC: &[u8; 4] = b"BLTY";
/// Bumped whenever a message changes shape.
pub const VERSION: u32 = 1;
/// Bytes a frame from the server may hold at most.
pub const MAX_FRAME: usize = 64 << 20;
/// Bytes a frame from a client may hold at most: the server holds at most this much of a
/// partial frame per connection. It bounds a command line (`blitty new -- CMD`: the client
/// refuses a longer one before sending it); keys come in reads of 64 KiB.
pub const MAX_CLIENT_FRAME: usize = 1 << 20;
/// Characters a session's name may have at most.
pub const MAX_NAME: usize = 64;

/// What a client asks for after its hello.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// A new session with one vty, then (unless `detached`) attach to it.
    /// `log`: a file every byte the vty receives is appended to.
    New { name: Option<String>, detached: bool, vty: VtySpec, cols: u16, rows: u16, log: Option<Vec<u8>> },
    /// Attach to a session (the most recently used one when `None`).
    Attach { name: Option<String>, cols: u16, rows: u16 },
    /// The sessions as text.
    List,
    /// End a session and everything in it.
    Kill { name: String },
}

/// What a vty runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VtySpec {
    /// A program (empty: the user's shell) started in `cwd`.
    Program { argv: Vec<Vec<u8>>, cwd: Vec<u8> },
    /// A serial line opened with `blitty serial`'s settings.
    Serial { device: Vec<u8>, baud: u32, data_bits: u8, parity: u8, stop_bits: u8, flow: u8, lock: bool },
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

struct W(Vec<u8>);

impl W {
    fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.u32(b.len() as u32);
        self.0.extend_from_slice(b);
        self
    }
    fn opt(&mut self, s: &Option<String>) -> &mut Self {
        match s {
            Some(s) => self.u8(1).bytes(s.as_bytes()),
            None => self.u8(0),
        }
    }
}

struct R<'a>(&'a [u8]);

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("malformed message ({what})"))
}

impl<'a> R<'a> {
    fn take(&mut self, n: usize) -> io::Result<&'a [u8]> {
        if self.0.len() < n {
            return Err(bad("cut short"));
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Ok(a)
    }
    fn u8(&mut self) -> io::Result<u8> {
        Ok(self.take(1)?[0])
    }
    fn u16(&mut self) -> io::Result<u16> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().map_err(|_| bad("u16"))?))
    }
    fn u32(&mut self) -> io::Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().map_err(|_| bad("u32"))?))
    }
    fn bytes(&mut self) -> io::Result<Vec<u8>> {
        let n = self.u32()? as usize;
        Ok(self.take(n)?.to_vec())
    }
    fn string(&mut self) -> io::Result<String> {
        String::from_utf8(self.bytes()?).map_err(|_| bad("text not UTF-8"))
    }
    fn opt(&mut self) -> io::Result<Option<String>> {
        match self.u8()? {
            0 => Ok(None),
            _ => Ok(Some(self.string()?)),
        }
    }
}

/// A serial vty's settings as `blitty serial` takes them: a value it would not take is an
/// error, never a default.
fn check_serial(spec: &VtySpec) -> io::Result<()> {
    if let VtySpec::Serial { baud, data_bits, parity, stop_bits, flow, .. } = spec {
        if *baud == 0 || !(5..=8).contains(data_bits) || *parity > 2 || !(1..=2).contains(stop_bits) || *flow > 2 {
            return Err(bad("serial settings"));
        }
    }
    Ok(())
}

/// Appends `msg` as one frame to `out`.
pub fn encode(msg: &Msg, out: &mut Vec<u8>) {
    let mut w = W(Vec::new());
    match msg {
        Msg::Hello { version } => {
            w.u8(1);
            w.0.extend_from_slice(MAGIC);
            w.u32(*version);
        }
        Msg::Request(r) => {
            w.u8(2);
            match r {
                Request::New { name, detached, vty, cols, rows, log } => {
                    w.u8(1).opt(name).u8(*detached as u8).u16(*cols).u16(*rows);
                    match log {
                        Some(l) => w.u8(1).bytes(l),
                        None => w.u8(0),
                    };
                    match vty {
                        VtySpec::Program { argv, cwd } => {
                            w.u8(1).u32(argv.len() as u32);
                            for a in argv {
                                w.bytes(a);
                            }
                            w.bytes(cwd);
                        }
                        VtySpec::Serial { device, baud, data_bits, parity, stop_bits, flow, lock } => {
                            w.u8(2).bytes(device).u32(*baud).u8(*data_bits).u8(*parity).u8(*stop_bits).u8(*flow);
                            w.u8(*lock as u8);
                        }
                    }
                }
                Request::Attach { name, cols, rows } => {
                    w.u8(2).opt(name).u16(*cols).u16(*rows);
                }
                Request::List => {
                    w.u8(3);
                }
                Request::Kill { name } => {
                    w.u8(4).bytes(name.as_bytes());
                }
            }
        }
        Msg::Input(b) => {
            w.u8(3).0.extend_from_slice(b);
        }
        Msg::Resize { cols, rows } => {
            w.u8(4).u16(*cols).u16(*rows);
        }
        Msg::Output(b) => {
            w.u8(5).0.extend_from_slice(b);
        }
        Msg::Text(s) => {
            w.u8(6).0.extend_from_slice(s.as_bytes());
        }
        Msg::Error(s) => {
            w.u8(7).0.extend_from_slice(s.as_bytes());
        }
        Msg::Exit { reason, status } => {
            w.u8(8).u8(*status).0.extend_from_slice(reason.as_bytes());
        }
    }
    out.extend_from_slice(&(w.0.len() as u32).to_le_bytes());
    out.extend_from_slice(&w.0);
}

/// Decodes one frame's body (kind byte first).
pub fn decode(body: &[u8]) -> io::Result<Msg> {
    let mut r = R(body);
    let kind = r.u8()?;
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    Ok(match kind {
        1 => {
            if r.take(4)? != MAGIC {
                return Err(bad("not a blitty peer"));
            }
            Msg::Hello { version: r.u32()? }
        }
        2 => Msg::Request(match r.u8()? {
            1 => {
                let name = r.opt()?;
                let detached = r.u8()? != 0;
                let (cols, rows) = (r.u16()?, r.u16()?);
                let log = match r.u8()? {
                    0 => None,
                    _ => Some(r.bytes()?),
                };
                let vty = match r.u8()? {
                    1 => {
                        let n = r.u32()? as usize;
                        if n > 4096 {
                            return Err(bad("too many arguments"));
                        }
                        let argv = (0..n).map(|_| r.bytes()).collect::<io::Result<_>>()?;
                        VtySpec::Program { argv, cwd: r.bytes()? }
                    }
                    2 => {
                        let spec = VtySpec::Serial {
                            device: r.bytes()?,
                            baud: r.u32()?,
                            data_bits: r.u8()?,
                            parity: r.u8()?,
                            stop_bits: r.u8()?,
                            flow: r.u8()?,
                            lock: r.u8()? != 0,
                        };
                        check_serial(&spec)?;
                        spec
                    }
                    _ => return Err(bad("vty kind")),
                };
                Request::New { name, detached, vty, cols, rows, log }
            }
            2 => {
                let name = r.opt()?;
                Request::Attach { name, cols: r.u16()?, rows: r.u16()? }
            }
            3 => Request::List,
            4 => Request::Kill { name: r.string()? },
            _ => return Err(bad("request kind")),
        }),
        3 => Msg::Input(r.0.to_vec()),
        4 => Msg::Resize { cols: r.u16()?, rows: r.u16()? },
        5 => Msg::Output(r.0.to_vec()),
        6 => Msg::Text(text(r.0)),
        7 => Msg::Error(text(r.0)),
        8 => {
            let status = r.u8()?;
            Msg::Exit { status, reason: text(r.0) }
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
                    parity: 0,
                    stop_bits: 1,
                    flow: 0,
                    lock: true,
                },
                cols: 1,
                rows: 1,
                log: None,
            }),
            Msg::Request(Request::Attach { name: None, cols: 200, rows: 60 }),
            Msg::Request(Request::List),
            Msg::Request(Request::Kill { name: "ü".into() }),
            Msg::Input(b"\x1b[A".to_vec()),
            Msg::Resize { cols: 2048, rows: 1024 },
            Msg::Output(vec![0, 1, 255]),
            Msg::Text("a\nb".into()),
            Msg::Error("no".into()),
            Msg::Exit { reason: "detached".into(), status: 0 },
        ]
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
            let mut one = Vec::new();
            encode(&m, &mut one);
            for n in 1..one.len() - 4 {
                let _ = decode(&one[4..4 + n]);
            }
        }
        let mut f = Frames::default();
        f.push(&u32::MAX.to_le_bytes());
        assert!(f.next_msg().is_err());
        let mut f = Frames::default();
        f.push(&[5, 0, 0, 0, 1, b'X', b'X', b'X', b'X']);
        assert!(f.next_msg().is_err(), "a hello without the magic");
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
        let ok = |m: Msg| {
            let mut b = Vec::new();
            encode(&m, &mut b);
            decode(&b[4..]).is_ok()
        };
        assert!(ok(serial(2, 2, 5, 2, 1)));
        assert!(!ok(serial(3, 0, 8, 1, 9600)), "parity 3");
        assert!(!ok(serial(0, 3, 8, 1, 9600)), "flow 3");
        assert!(!ok(serial(0, 0, 9, 1, 9600)), "9 data bits");
        assert!(!ok(serial(0, 0, 8, 3, 9600)), "3 stop bits");
        assert!(!ok(serial(0, 0, 8, 1, 0)), "0 baud");
    }

    #[test]
    fn a_stream_of_small_messages_costs_linear_time() {
        // 8 MiB of 9-byte resizes pushed in 16 KiB reads, each read's messages taken before
        // the next: the buffer never holds more than a read and a partial message, and the
        // bytes moved stay a small multiple of the bytes pushed.
        let mut one = Vec::new();
        encode(&Msg::Resize { cols: 80, rows: 24 }, &mut one);
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
