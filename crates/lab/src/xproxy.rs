//! A counting X proxy for `blitty bench window`: X requests and bytes a terminal sends per frame.
//!
//! The proxy listens as a display of its own (`/tmp/.X11-unix/X<n>`, a number no server
//! uses) and passes each client's connection through to the real server byte for byte, reading
//! the client's side as the X protocol frames it: the connection set-up (12 bytes, then the
//! authorisation name and data, each padded to 4), then requests, each with its length in
//! 4-byte units in bytes 2-3 (0 there means BIG-REQUESTS: the length is in the next 4 bytes).
//! xscope does the same with a decoding of every request; only the counts are kept here.
//!
//! File descriptors passed with the bytes (SCM_RIGHTS) are passed on, so MIT-SHM 1.2 and DRI3 work
//! through it. What it counts is what crosses the socket: pixels a client puts through MIT-SHM (blitty's
//! window, Xlib's XShmPutImage in Mesa's software OpenGL) travel in shared memory, not in these
//! bytes.

use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// What the clients sent to the server since the proxy started.
#[derive(Default)]
pub struct Counts {
    pub requests: AtomicU64,
    pub bytes: AtomicU64,
}

pub struct Proxy {
    /// The display to give the clients (`:n`).
    pub display: String,
    path: PathBuf,
    pub counts: Arc<Counts>,
    stop: Arc<AtomicBool>,
}

impl Proxy {
    /// Starts a proxy in front of the server at display `server` (`:m`).
    pub fn start(server: &str) -> Result<Proxy, String> {
        let m: u32 = server.trim_start_matches(':').parse().map_err(|_| format!("bad display {server}"))?;
        let target = PathBuf::from(format!("/tmp/.X11-unix/X{m}"));
        // A display number nobody listens on: no socket file, nor a lock file of a server.
        let n = (m + 100..m + 1100)
            .find(|n| {
                !std::path::Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
                    && !std::path::Path::new(&format!("/tmp/.X{n}-lock")).exists()
            })
            .ok_or("no free display number for the proxy")?;
        let path = PathBuf::from(format!("/tmp/.X11-unix/X{n}"));
        let listener = UnixListener::bind(&path).map_err(|e| format!("cannot listen on {}: {e}", path.display()))?;
        listener.set_nonblocking(true).map_err(|e| e.to_string())?;
        let counts = Arc::new(Counts::default());
        let stop = Arc::new(AtomicBool::new(false));
        let (counts2, stop2) = (counts.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stop2.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((client, _)) => {
                        let _ = client.set_nonblocking(false);
                        if let Ok(server) = UnixStream::connect(&target) {
                            pass(client, server, counts2.clone());
                        }
                    }
                    Err(_) => std::thread::sleep(std::time::Duration::from_millis(2)),
                }
            }
        });
        Ok(Proxy { display: format!(":{n}"), path, counts, stop })
    }

    /// The requests and bytes counted so far.
    pub fn read(&self) -> (u64, u64) {
        (self.counts.requests.load(Ordering::Relaxed), self.counts.bytes.load(Ordering::Relaxed))
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Copies both ways until either side closes, counting the client's requests.
fn pass(client: UnixStream, server: UnixStream, counts: Arc<Counts>) {
    let (Ok(client2), Ok(server2)) = (client.try_clone(), server.try_clone()) else { return };
    std::thread::spawn(move || copy(server2, client2, None));
    std::thread::spawn(move || copy(client, server, Some(counts)));
}

/// Copies `from` to `to` with the file descriptors that travel with the bytes (SCM_RIGHTS: MIT-SHM
/// 1.2's segments, DRI3's buffers), counting the requests when `counts` is given.
fn copy(from: UnixStream, to: UnixStream, counts: Option<Arc<Counts>>) {
    use rustix::net::{
        recvmsg, sendmsg, RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, SendAncillaryBuffer,
        SendAncillaryMessage, SendFlags,
    };
    use std::io::{IoSlice, IoSliceMut};
    use std::mem::MaybeUninit;
    use std::os::fd::{AsFd, OwnedFd};
    let mut framer = Framer::default();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(16))];
        let mut control = RecvAncillaryBuffer::new(&mut space);
        let n = match recvmsg(&from, &mut [IoSliceMut::new(&mut buf)], &mut control, RecvFlags::CMSG_CLOEXEC) {
            Ok(m) if m.bytes > 0 => m.bytes,
            Err(rustix::io::Errno::INTR) => continue,
            _ => break,
        };
        let fds: Vec<OwnedFd> = control
            .drain()
            .filter_map(|m| match m {
                RecvAncillaryMessage::ScmRights(fds) => Some(fds.collect::<Vec<_>>()),
                _ => None,
            })
            .flatten()
            .collect();
        if let Some(c) = &counts {
            c.requests.fetch_add(framer.feed(&buf[..n]), Ordering::Relaxed);
            c.bytes.fetch_add(n as u64, Ordering::Relaxed);
        }
        // The descriptors go with the first piece of these bytes.
        let borrowed: Vec<_> = fds.iter().map(|f| f.as_fd()).collect();
        let mut space = [MaybeUninit::<u8>::uninit(); rustix::cmsg_space!(ScmRights(16))];
        let mut control = SendAncillaryBuffer::new(&mut space);
        if !borrowed.is_empty() && !control.push(SendAncillaryMessage::ScmRights(&borrowed)) {
            break;
        }
        let mut at = 0;
        while at < n {
            match sendmsg(&to, &[IoSlice::new(&buf[at..n])], &mut control, SendFlags::NOSIGNAL) {
                Ok(k) => {
                    at += k;
                    control.clear();
                }
                Err(rustix::io::Errno::INTR) => {}
                Err(_) => {
                    at = usize::MAX;
                    break;
                }
            }
        }
        if at == usize::MAX {
            break;
        }
    }
    let _ = to.shutdown(std::net::Shutdown::Both);
    let _ = from.shutdown(std::net::Shutdown::Both);
}

/// Finds the requests in a client's byte stream, fed in pieces as they arrive.
#[derive(Default)]
pub(crate) struct Framer {
    /// The set-up is over (requests follow).
    set_up: bool,
    big_endian: bool,
    /// Bytes of the current request (or set-up) still to pass over.
    skip: u64,
    /// The start of a header that arrived split.
    head: Vec<u8>,
}

impl Framer {
    /// Takes the next bytes of the stream; returns how many requests began in them.
    pub fn feed(&mut self, mut data: &[u8]) -> u64 {
        let mut requests = 0;
        loop {
            let skip = self.skip.min(data.len() as u64) as usize;
            self.skip -= skip as u64;
            data = &data[skip..];
            if data.is_empty() {
                return requests;
            }
            // The header: 12 bytes of set-up, else 4 of a request (8 when its length is 0).
            let want = if !self.set_up {
                12
            } else if self.head.len() >= 4 && self.u16(&self.head[2..4]) == 0 {
                8
            } else {
                4
            };
            let take = (want - self.head.len()).min(data.len());
            self.head.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.head.len() < want {
                continue;
            }
            let head = std::mem::take(&mut self.head);
            if !self.set_up {
                self.big_endian = head[0] == b'B';
                let pad = |n: u16| (n as u64).div_ceil(4) * 4;
                self.skip = pad(self.u16(&head[6..8])) + pad(self.u16(&head[8..10]));
                self.set_up = true;
                continue;
            }
            let len = self.u16(&head[2..4]) as u64;
            if len == 0 && want == 4 {
                // BIG-REQUESTS: keep the 4 bytes and read 4 more.
                self.head = head;
                continue;
            }
            let units = if len == 0 { self.u32(&head[4..8]) as u64 } else { len };
            self.skip = (units * 4).saturating_sub(want as u64);
            requests += 1;
        }
    }

    fn u16(&self, b: &[u8]) -> u16 {
        let b = [b[0], b[1]];
        if self.big_endian {
            u16::from_be_bytes(b)
        } else {
            u16::from_le_bytes(b)
        }
    }

    fn u32(&self, b: &[u8]) -> u32 {
        let b = [b[0], b[1], b[2], b[3]];
        if self.big_endian {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Framer;

    /// A little-endian set-up with a 4-byte name and 5-byte data, then requests of 1, 3 and
    /// (BIG-REQUESTS) 70,000 units, cut at every byte.
    #[test]
    fn requests_are_found_however_the_stream_is_cut() {
        let mut s = vec![b'l', 0, 11, 0, 0, 0, 4, 0, 5, 0, 0, 0];
        s.extend_from_slice(b"NAME");
        s.extend_from_slice(&[1, 2, 3, 4, 5, 0, 0, 0]);
        s.extend_from_slice(&[43, 0, 1, 0]);
        s.extend_from_slice(&[72, 2, 3, 0, 9, 9, 9, 9, 9, 9, 9, 9]);
        let mut big = vec![72, 2, 0, 0];
        big.extend_from_slice(&70_000u32.to_le_bytes());
        big.resize(70_000 * 4, 7);
        s.extend_from_slice(&big);
        s.extend_from_slice(&[43, 0, 1, 0]);
        let whole = Framer::default().feed(&s);
        assert_eq!(whole, 4);
        for cut in (0..200).chain(s.len() - 100..=s.len()) {
            let mut f = Framer::default();
            assert_eq!(f.feed(&s[..cut]) + f.feed(&s[cut..]), 4, "cut at {cut}");
        }
        let mut f = Framer::default();
        assert_eq!(s.iter().map(|b| f.feed(std::slice::from_ref(b))).sum::<u64>(), 4);
        // Big-endian.
        let mut b = vec![b'B', 0, 0, 11, 0, 0, 0, 0, 0, 0, 0, 0];
        b.extend_from_slice(&[43, 0, 0, 1, 55, 0, 0, 2, 1, 2, 3, 4]);
        assert_eq!(Framer::default().feed(&b), 2);
    }
}
