//! The multi-port serial receiver that `blitty bench ports` measures: many serial lines in one
//! thread, the multi-port serial tuning guide's tuning done with today's calls. It is the lab's because only that bench
//! uses it, in its receiving child process (`blitty-lab probe ports-recv blitty`); blitty itself
//! reads serial lines through blitty-serial and blitty-mux, not through this receiver.
//!
//! Every port is raw with VMIN set to half a tick of data (at most 64) and VTIME 0, so the
//! kernel reports a port ready only once that much has arrived; the receiver wakes on a clock
//! (20 to 100 times a second, by the line rate) instead of on every character, asks epoll which
//! ports are ready, and takes each one's data with one read. A slower sweep picks up tails
//! shorter than VMIN. Each port has its own engine (a screen kept current, as a console would
//! show it) and a capture file written once per read, so nothing read is held only in memory.
//!
//! Choices: the tick is the time a quarter of the kernel's 4 KiB line buffer takes to fill,
//! kept between 10 and 50 ms, so a port is read long before its buffer could overflow; the
//! engines keep no scrollback (the capture file is the history), which bounds memory at
//! about 20 KB a port.

use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use blitty_vt::Terminal;
use rustix::event::epoll;
use rustix::io::Errno;

use blitty_serial::settings::{self as serial, Settings};

/// VMIN above 64 makes Linux (5.11 and later, whose tty read copies through a 64-byte
/// buffer) return at most 64 bytes per read() whatever is waiting: measured here, a raw pty
/// with 4,000 bytes waiting gave 63 reads at VMIN 255 or 65 and one at VMIN 64. The multi-port serial tuning guide's
/// VMIN 255 would cost four times the system calls it saves.
const MAX_VMIN: f64 = 64.0;

/// The control descriptor's key in the epoll set.
const CONTROL: u64 = u64::MAX;

struct Port {
    fd: OwnedFd,
    term: Terminal,
    capture: File,
    bytes: u64,
    last_read: Instant,
    open: bool,
}

pub struct Receiver {
    ports: Vec<Port>,
    epoll: OwnedFd,
    events: Vec<epoll::Event>,
    buf: Vec<u8>,
    tick: Duration,
    sweep: Duration,
    next_tick: Instant,
    next_sweep: Instant,
    /// read() calls that returned data.
    pub reads: u64,
}

/// The receiver's clock for a line rate: a quarter of a 4 KiB buffer's worth, 10..=50 ms.
pub fn tick_for(chars_per_second: f64) -> Duration {
    Duration::from_secs_f64((1024.0 / chars_per_second.max(1.0)).clamp(0.010, 0.050))
}

impl Receiver {
    /// Opens and sets up every port in `paths` (raw, `settings` with VMIN/VTIME replaced),
    /// capturing each to the file beside it in `captures`.
    pub fn open(paths: &[PathBuf], captures: &[PathBuf], settings: &Settings) -> Result<Receiver, serial::Error> {
        let cps = blitty_serial::settings::chars_per_second(settings);
        let tick = tick_for(cps);
        let vmin = (cps * tick.as_secs_f64() / 2.0).clamp(1.0, MAX_VMIN) as u8;
        let line = Settings { vmin, vtime: 0, ..*settings };
        let epoll = epoll::create(epoll::CreateFlags::CLOEXEC)
            .map_err(|e| serial::Error::Setup { path: "epoll".into(), cause: e.into() })?;
        let mut ports = Vec::with_capacity(paths.len());
        for (i, (path, capture)) in paths.iter().zip(captures).enumerate() {
            let fd = serial::open(path)?;
            serial::configure(&fd, path, &line)?;
            epoll::add(&epoll, &fd, epoll::EventData::new_u64(i as u64), epoll::EventFlags::IN)
                .map_err(|e| serial::Error::Setup { path: path.display().to_string(), cause: e.into() })?;
            let capture = File::create(capture)
                .map_err(|cause| serial::Error::Open { path: capture.display().to_string(), cause })?;
            ports.push(Port {
                fd,
                term: Terminal::with_scrollback(80, 24, 0),
                capture,
                bytes: 0,
                last_read: Instant::now(),
                open: true,
            });
        }
        let now = Instant::now();
        Ok(Receiver {
            events: Vec::with_capacity(ports.len() + 1),
            ports,
            epoll,
            buf: vec![0u8; 64 * 1024],
            tick,
            sweep: tick * 10,
            next_tick: now,
            next_sweep: now,
            reads: 0,
        })
    }

    /// Also watches `fd` (a control channel): `step` says when it is readable.
    pub fn watch(&mut self, fd: BorrowedFd<'_>) -> io::Result<()> {
        epoll::add(&self.epoll, fd, epoll::EventData::new_u64(CONTROL), epoll::EventFlags::IN)?;
        Ok(())
    }

    pub fn tick(&self) -> Duration {
        self.tick
    }

    /// Bytes received on each port.
    pub fn totals(&self) -> Vec<u64> {
        self.ports.iter().map(|p| p.bytes).collect()
    }

    fn read_port(&mut self, i: usize, now: Instant) -> io::Result<()> {
        let p = &mut self.ports[i];
        if !p.open {
            return Ok(());
        }
        p.last_read = now;
        loop {
            match rustix::io::read(&p.fd, &mut self.buf) {
                Ok(0) | Err(Errno::AGAIN) => return Ok(()),
                Ok(n) => {
                    self.reads += 1;
                    p.bytes += n as u64;
                    p.capture.write_all(&self.buf[..n])?;
                    p.term.feed(&self.buf[..n]);
                }
                Err(Errno::INTR) => {}
                Err(_) => {
                    // The line hung up: it stays closed (a console would reconnect).
                    p.open = false;
                    let _ = epoll::delete(&self.epoll, &p.fd);
                    return Ok(());
                }
            }
        }
    }

    /// Reads every port now, whatever VMIN says (at the end, to take the last bytes).
    pub fn sweep_all(&mut self) -> io::Result<()> {
        let now = Instant::now();
        for i in 0..self.ports.len() {
            self.read_port(i, now)?;
        }
        Ok(())
    }

    /// Sleeps until the next tick, then reads the ready ports (and, every tenth of the time,
    /// ports that have not been ready for a while). Returns true if the control channel is
    /// readable.
    pub fn step(&mut self) -> io::Result<bool> {
        let now = Instant::now();
        if self.next_tick > now {
            // Not epoll_wait: while blitty sleeps, arriving data wakes nobody.
            std::thread::sleep(self.next_tick - now);
        }
        self.next_tick = Instant::now().max(self.next_tick) + self.tick;
        self.events.clear();
        let zero = rustix::event::Timespec { tv_sec: 0, tv_nsec: 0 };
        match epoll::wait(&self.epoll, rustix::buffer::spare_capacity(&mut self.events), Some(&zero)) {
            Ok(_) | Err(Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
        let now = Instant::now();
        let mut control = false;
        for i in 0..self.events.len() {
            match self.events[i].data.u64() {
                CONTROL => control = true,
                key => self.read_port(key as usize, now)?,
            }
        }
        if now >= self.next_sweep {
            self.next_sweep = now + self.sweep;
            let stale = now - self.sweep;
            for i in 0..self.ports.len() {
                if self.ports[i].last_read <= stale {
                    self.read_port(i, now)?;
                }
            }
        }
        Ok(control)
    }

    /// A port's screen (what a console would show for it).
    pub fn screen(&self, i: usize) -> &blitty_vt::Screen {
        self.ports[i].term.screen()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_port_is_captured_exactly_and_shown_including_tails_below_vmin() {
        let dir = std::env::temp_dir().join(format!("blitty-ports-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let mut masters = Vec::new();
        let mut paths = Vec::new();
        let mut captures = Vec::new();
        for i in 0..8 {
            let (m, path) = blitty_os::pty::pair().expect("pty");
            paths.push(path);
            captures.push(dir.join(format!("{i}.cap")));
            masters.push(File::from(m));
        }
        let mut rx = Receiver::open(&paths, &captures, &Settings::default()).expect("opens");
        // Different lengths, each ending in a tail shorter than VMIN.
        let sent: Vec<Vec<u8>> = (0..8)
            .map(|i| {
                let mut v: Vec<u8> = (0..1000 * i + 7).map(|k| b'a' + (k % 26) as u8).collect();
                v.extend_from_slice(format!("\r\nport {i} done").as_bytes());
                v
            })
            .collect();
        for (m, data) in masters.iter_mut().zip(&sent) {
            m.write_all(data).expect("write");
        }
        let want: u64 = sent.iter().map(|v| v.len() as u64).sum();
        let deadline = Instant::now() + Duration::from_secs(10);
        while rx.totals().iter().sum::<u64>() < want && Instant::now() < deadline {
            rx.step().expect("step");
        }
        for (i, data) in sent.iter().enumerate() {
            assert_eq!(&std::fs::read(&captures[i]).expect("capture"), data, "port {i}");
            let screen = rx.screen(i);
            let row: String =
                (0..screen.rows()).map(|y| screen.row_text(y)).find(|t| t.contains("done")).unwrap_or_default();
            assert_eq!(row.trim_end(), format!("port {i} done"));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
