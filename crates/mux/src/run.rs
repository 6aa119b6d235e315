//! The event loop of `blitty run`: a reader thread reads the child's output in chunks of up to
//! 64 KiB (`reader.rs`), and the loop parses them into the engine, forwards keys first, and
//! builds frames within a budget of `hz` a second (see `FrameBudget`), written without
//! blocking on blitty's own open of the host terminal, so a slow host terminal costs frames,
//! never input or reading. What waits for the program (keys, the engine's answers) is bounded
//! ([`crate::queue::PROGRAM_INPUT_LIMIT`]): a program that does not read its input is made to wait in its
//! writes, as a terminal makes it.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use blitty_present::{ansi, View};
use blitty_vt::{Terminal, WORK_PER_TURN};
use rustix::event::PollFlags;
use rustix::io::Errno;

use crate::display::Display;
use crate::keys::Prefix;
use crate::pane::{Log, Pane};
use crate::ui::{Command, Event, Place, Ui};
use blitty_os::event::{PollSet, Wake};
use blitty_os::host::{self, RawMode};
use blitty_os::pty::{self, Size};
use blitty_os::reader::{Chunk, Reader};
use blitty_os::signals::{
    self, Signals, SIGCHLD, SIGCONT, SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP, SIGTTOU, SIGWINCH,
};
use blitty_os::stats::{thread_cpu, thread_syscalls};
use blitty_os::status::shell_status;

pub struct Options {
    pub argv: Vec<OsString>,
    /// Frames per second at most.
    pub hz: u32,
    pub scrollback: usize,
    /// Every byte the child writes is appended here, in order.
    pub log: Option<PathBuf>,
    /// Session statistics are written here at the end (see [`Stats`]).
    pub stats: Option<PathBuf>,
    pub prefix: Prefix,
    /// Pass the program's clipboard writes (OSC 52) on to the host terminal.
    pub clipboard: bool,
    /// Foreground and background of blitty's own rows (inverse video when neither is set).
    pub status_colours: (Option<blitty_vt::Color>, Option<blitty_vt::Color>),
}

/// How long after the start answers to the colour queries are taken out of the keys, when the
/// terminal did not answer within `host::COLOUR_QUERY_WAIT`.
const LATE_ANSWERS: Duration = Duration::from_secs(5);

/// What a session cost, written at its end with `--stats`: one `key value` per line.
#[derive(Debug, Default)]
pub struct Stats {
    pub seconds: f64,
    /// Bytes the child wrote.
    pub child_bytes: u64,
    /// Frames presented while the program ran (not the one drawn as blitty ends).
    pub frames: u64,
    /// Bytes written to the host terminal.
    pub host_bytes: u64,
    /// From /proc/thread-self/io: read() and write() system calls of blitty's event loop and
    /// reader threads (the process's counters would include reaped children's).
    pub syscr: u64,
    pub syscw: u64,
    /// CPU seconds (user and system) of the whole process, in clock ticks (10 ms).
    pub cpu_user: f64,
    pub cpu_sys: f64,
    /// CPU seconds of blitty's event loop and reader threads (all its work), to the nanosecond
    /// (schedstat).
    pub cpu: f64,
}

impl Stats {
    fn write(&self, mut file: &File) -> io::Result<()> {
        let text = format!(
            "seconds {:.6}\nchild_bytes {}\nframes {}\nhost_bytes {}\nsyscr {}\nsyscw {}\ncpu_user {:.3}\ncpu_sys {:.3}\ncpu {:.6}\n",
            self.seconds, self.child_bytes, self.frames, self.host_bytes, self.syscr, self.syscw, self.cpu_user, self.cpu_sys, self.cpu
        );
        file.write_all(text.as_bytes())
    }

    /// Fills the CPU counters from /proc/self, and adds this thread's system calls.
    fn read_process(&mut self) {
        let (r, w) = thread_syscalls();
        self.syscr += r;
        self.syscw += w;
        self.cpu = thread_cpu();
        if let Ok(stat) = std::fs::read_to_string("/proc/self/stat") {
            // Fields after the command name (which may hold spaces) start at the state, field 3;
            // utime and stime are fields 14 and 15, in clock ticks.
            let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let hz = rustix::param::clock_ticks_per_second() as f64;
            let ticks = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0) / hz;
            self.cpu_user = ticks(11);
            self.cpu_sys = ticks(12);
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("standard input and output must be a terminal: blitty run shows a program in your terminal")]
    NotATerminal,
    // The cause is part of the message (not a `source`), so it is printed once.
    #[error("cannot start {program}: {cause}")]
    Spawn { program: String, cause: io::Error },
    #[error("cannot create the log file {path}: {cause}")]
    Log { path: String, cause: io::Error },
    #[error("cannot write the log file {path}: {cause}")]
    LogWrite { path: String, cause: io::Error },
    #[error("cannot create the statistics file {path}: {cause}")]
    Stats { path: String, cause: io::Error },
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl From<Errno> for Error {
    fn from(e: Errno) -> Error {
        Error::Io(e.into())
    }
}

/// Bytes read from the child before the loop looks at keys and the clock again (or [`TURN`]).
const READ_BUDGET: usize = 1 << 20;
/// Bytes parsed in a flood between two offers of the core to whatever else is waiting for it
/// (see [`Sharing`]): the pty moves a flood in steps of at most 4 KiB, its line discipline's
/// read buffer.
const SHARE_EVERY: usize = 4096;
/// How long one turn of the loop parses in a flood before it looks at keys and the clock
/// again: a little under the time READ_BUDGET takes to parse (1.4 ms of plain text, 2 ms of
/// colour-dense text), since a turn that yields also waits for what it gives away. With 2 ms,
/// Ctrl-C under `yes` reached the prompt in 1.4 ms (median of 25; 5 ms at worst), with 1 ms in
/// 1.4 ms (3 ms at worst), against 1.3 ms (2 ms at worst) before the yields.
const TURN: Duration = Duration::from_millis(1);

/// Parsing a turn's output while offering the core to other threads every [`SHARE_EVERY`]
/// bytes (`sched_yield`). Output that answers a key (a few KiB at most) never yields: the
/// count starts at 0 with each turn.
///
/// Why: a flood reaches blitty through a chain of steps, each a wake-up: the program writes,
/// the kernel's worker moves up to 4 KiB into the pty's read buffer, blitty's reader takes it,
/// the worker moves the next 4 KiB. On two cores, while this thread parses a 64 KiB chunk it
/// holds one of them, and each step of the chain that wakes meanwhile waits for the scheduler
/// to take the core back (the chain stalls with the other core idle). Yielding between pieces
/// lets the step that is waiting run at once; when nothing waits, the call returns at once (a
/// system call per 4 KiB). It changes no priority: the thread keeps its share on a loaded
/// machine. Measured on this project's 2-core machine (`cat` of 50 MB of 256-colour cells into
/// `blitty run` drained by a plain reader, medians of 9 interleaved runs): 612 ms without,
/// 460 ms with, 468 ms for the plain reader alone; with two busy loops on the cores (medians of
/// 5), 884 ms without, 586 ms with. Lowering the thread's priority instead (`SCHED_IDLE`, which
/// an unprivileged thread cannot undo) gave 500 ms against 538 ms without in another set, and
/// a shorter scheduler slice (0.1 ms, `sched_setattr`) nothing. On plain text in a tmux pane
/// (100 MB, three binaries taking turns, 21 runs each): every 4 KiB 63 MB/s, every 16 KiB 59,
/// never 59 (medians).
///
/// What the core is given away for counts against the turn: after [`TURN`] the turn yields no
/// more and ends after the chunk in hand, so keys (Ctrl-C in a flood of `yes`, whose writer is
/// always ready to run) are looked at as often as without the offers. And while a key waits
/// for its answer (the rest of a flood after Ctrl-C, then the prompt) the loop does not yield
/// at all: the user is waiting for that output, not for the program's pace.
struct Sharing {
    since: usize,
    ends: Instant,
    offer: bool,
}

impl Sharing {
    /// A turn starting `now`; `offer` false (answering a key) parses without yielding.
    fn new(now: Instant, offer: bool) -> Sharing {
        Sharing { since: 0, ends: now + TURN, offer }
    }

    /// Whether the turn has had its time.
    fn turn_over(&self) -> bool {
        Instant::now() >= self.ends
    }

    /// Parses all of `chunk`, in as many turns as it takes (a loaded machine can end a turn
    /// part way, as `run`'s loop then goes on in the next).
    #[cfg(test)]
    fn feed(&mut self, term: &mut Terminal, chunk: &[u8]) {
        let mut done = self.feed_until(term, chunk, |_| true);
        while done < chunk.len() {
            *self = Sharing::new(Instant::now(), self.offer);
            done += self.feed_until(term, &chunk[done..], |_| true);
        }
    }

    /// Parses `chunk` while `go_on` says so, asked after each piece; returns how many bytes were
    /// parsed (the rest waits for a later turn). Each piece is parsed within the engine's
    /// [`WORK_PER_TURN`], and the chunk is left part way once the turn has had twice its time:
    /// plain text never meets either (a 64 KiB chunk parses in some 50 µs), but a flood of
    /// full-screen rectangle operations costs milliseconds every 27 bytes, and keys and signals
    /// must not wait for a whole chunk of them.
    fn feed_until(&mut self, term: &mut Terminal, chunk: &[u8], mut go_on: impl FnMut(&mut Terminal) -> bool) -> usize {
        let mut done = 0;
        while done < chunk.len() {
            if self.since >= SHARE_EVERY {
                let now = Instant::now();
                if self.offer && now < self.ends {
                    std::thread::yield_now();
                }
                if now >= self.ends + TURN {
                    break;
                }
                self.since = 0;
            }
            let n = (chunk.len() - done).min(SHARE_EVERY - self.since);
            let parsed = term.feed_bounded(&chunk[done..done + n], WORK_PER_TURN);
            self.since += parsed;
            done += parsed;
            if !go_on(term) || parsed < n {
                break;
            }
        }
        done
    }
}

/// The parts of `run`'s loop, as its poll set names them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Keys,
    Output,
    Signals,
    Host,
    Program,
}

/// `run` has no commands of its own: the prefix gives the scrollback mode and the help.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunCmd {}

pub const RUN_COMMANDS: &[Command<RunCmd>] = &[];

/// What one poll found ready.
struct Ready {
    keys: bool,
    output: bool,
    woken: bool,
    program: bool,
}

/// `blitty run`: one pane (the program on its pty, read by the reader thread) shown on one
/// display (the user's terminal), with the ui's keys. The loop's state; each turn polls once
/// and hands what is ready to one handler each.
struct Run {
    opts: Options,
    pty: pty::Pty,
    reader: Reader,
    signals: Signals,
    raw: RawMode,
    pane: Pane,
    display: Display<OwnedFd>,
    ui: Ui<RunCmd>,
    size: Size,
    /// Keys typed while the colours were asked for: taken first, as keys (the prefix works).
    typed: Vec<u8>,
    /// Until when the terminal's late answers to the colour queries are taken out of the keys.
    late_answers_until: Option<Instant>,
    /// A chunk of output read and not parsed to its end (the program's input was full, or the
    /// turn had done its work), and where its rest starts.
    held: Option<(Vec<u8>, usize)>,
    master_open: bool,
    /// Output was left waiting when the read budget ran out: look again without sleeping.
    more_output: bool,
    exit: Option<i32>,
    /// The child's status once it has ended: blitty ends with it when its output is parsed.
    ended: Option<i32>,
    /// A stop or a continue taken after the turn's first look at the signals.
    carried: Vec<i32>,
    child_bytes: u64,
    buf: Vec<u8>,
}

/// Runs the session until the child exits (its status is returned) or blitty is told to stop
/// by a signal (128 + that signal).
pub fn run(opts: Options) -> Result<i32, Error> {
    // Every output file is opened before the program starts, so a bad path is said at once,
    // naming the file, and never after the program ran.
    let log = match &opts.log {
        Some(path) => Some(Log::create(path).map_err(|cause| Error::Log { path: path.display().to_string(), cause })?),
        None => None,
    };
    let stats_file = match &opts.stats {
        Some(path) => {
            Some(File::create(path).map_err(|cause| Error::Stats { path: path.display().to_string(), cause })?)
        }
        None => None,
    };
    if !host::is_terminal() {
        return Err(Error::NotATerminal);
    }
    let mut r = Run::start(opts, log)?;
    // The session's time counts from the program's start (after the colour queries).
    let started = Instant::now();
    while r.exit.is_none() {
        r.turn()?;
    }
    r.finish(started, stats_file)
}

impl Run {
    fn start(opts: Options, log: Option<Log>) -> Result<Run, Error> {
        let size = host::size();
        // The terminal's colours first, before the program can ask for them (see query_colours).
        let raw = RawMode::enter()?;
        let (colours, typed, answered) = host::query_colours(host::COLOUR_QUERY_WAIT);
        // A terminal slower than the wait (a slow ssh link) answers later: its answers must not
        // reach the program as typed keys, so they are taken out of the keys for a while.
        let late_answers_until = (!answered).then(|| Instant::now() + LATE_ANSWERS);
        let program = opts.argv.first().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        let pty = pty::spawn(&opts.argv, size).map_err(|cause| Error::Spawn { program, cause })?;
        let reader = Reader::start(pty.master.as_fd())?;
        // SIGTTIN and SIGTTOU keep their default (stop): with a handler, a read or a termios
        // change made from the background would be interrupted, the signal sent again when the
        // call is restarted, and so on for ever. blitty never reads or sets the terminal from
        // the background: after SIGCONT it first looks whether it is in the foreground.
        let signals = Signals::new(&[SIGWINCH, SIGCHLD, SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGCONT])?;
        let mut term = Terminal::with_scrollback(size.cols as usize, size.rows as usize, opts.scrollback);
        if let Some((fg, bg)) = colours {
            term.screen_mut().set_default_colors(fg, bg);
        }
        let (cols, rows) = (size.cols as usize, size.rows as usize);
        let mut display = Display::new(host::frame_output()?, cols, rows, opts.hz, opts.status_colours);
        display.enter();
        let ui = Ui::new(opts.prefix, Place::Top, "the program");
        Ok(Run {
            pty,
            reader,
            signals,
            raw,
            pane: Pane::new(term, log),
            display,
            ui,
            size,
            typed,
            late_answers_until,
            held: None,
            master_open: true,
            more_output: false,
            exit: None,
            ended: None,
            carried: Vec::new(),
            child_bytes: 0,
            buf: vec![0u8; 4096],
            opts,
        })
    }

    /// One turn: a poll, then the signals that stop, the keys, the program's input, its
    /// output, the other signals, its end, and the frame, in that order.
    fn turn(&mut self) -> Result<(), Error> {
        let ready = self.wait()?;
        // A stop comes before the keys: once continued in the background, a read of the
        // terminal would stop blitty with the host still in its modes.
        let mut sigs = std::mem::take(&mut self.carried);
        sigs.extend(self.signals.take());
        if sigs.iter().any(|&s| s == SIGTSTP || s == SIGCONT) {
            stop_and_continue(sigs.contains(&SIGTSTP), &mut self.display, &mut self.raw)?;
            // The SIGCONT that continued blitty asks for nothing more; a resize while it was
            // stopped reached only the foreground job.
            sigs.retain(|&s| s != SIGTSTP && s != SIGCONT);
            sigs.extend(self.signals.take().into_iter().filter(|&s| s != SIGCONT));
            sigs.push(SIGWINCH);
        }
        // Keys first: they are forwarded before any output is parsed.
        if ready.keys || !self.typed.is_empty() {
            self.keys();
        }
        if (ready.program || ready.keys) && !self.pane.input.is_empty() && self.master_open {
            match rustix::io::write(&self.pty.master, self.pane.input.unsent()) {
                Ok(n) => self.pane.input.sent(n),
                Err(Errno::AGAIN) | Err(Errno::INTR) => {}
                Err(_) => self.pane.input.clear(),
            }
        }
        if ready.output && self.master_open {
            self.output(ready.woken)?;
        }
        sigs.extend(self.signals.take());
        self.signals(sigs);
        self.child()?;
        self.frame();
        Ok(())
    }

    /// Polls the keys, the reader's wake-up, the signals, the host while a frame is on its
    /// way, and the program while something waits for it; sleeps until a frame is due.
    fn wait(&mut self) -> Result<Ready, Error> {
        let now = Instant::now();
        let mut wake = Wake::default();
        // While a frame is held for synchronized output the loop sleeps until the hold's limit
        // or the program's next output (which may end the update).
        let dirty = self.display.wants(1, self.pane.generation) || self.ui.dirty;
        if dirty {
            wake.at(self.display.due_at(now, self.pane.sync_until()));
        }
        if let Some(until) = self.ui.wake_at() {
            wake.at(until);
        }
        // While the program's input is full its output waits: the loop wakes for the program
        // taking its input (the master writable), not for output it would not parse.
        let takes_output = self.pane.takes_output();
        if (self.more_output && takes_output) || !self.carried.is_empty() {
            wake.at(now);
        }
        let stdin = rustix::stdio::stdin();
        let mut set = PollSet::new();
        set.add(stdin, PollFlags::IN, Part::Keys);
        // The reader thread reads the master; its wake descriptor says chunks are waiting.
        if takes_output {
            set.add(self.reader.wake_fd(), PollFlags::IN, Part::Output);
        }
        set.add(self.signals.wake.as_fd(), PollFlags::IN, Part::Signals);
        if !self.display.out.idle() {
            set.add(self.display.out.fd.as_fd(), PollFlags::OUT, Part::Host);
        }
        // The master is polled only to write to it, and only when there is something to
        // write: left in, its hang-up would wake every poll.
        if self.master_open && !self.pane.input.is_empty() {
            set.add(self.pty.master.as_fd(), PollFlags::OUT, Part::Program);
        }
        set.wait(wake.timeout(now))?;
        let woken = set.events(Part::Output).contains(PollFlags::IN);
        let ready = Ready {
            keys: set.events(Part::Keys).intersects(PollFlags::IN | PollFlags::HUP),
            output: takes_output && (self.more_output || woken),
            woken,
            program: set.events(Part::Program).contains(PollFlags::OUT),
        };
        let host = set.events(Part::Host).intersects(PollFlags::OUT | PollFlags::ERR | PollFlags::HUP);
        drop(set);
        if host {
            self.display.out.flush();
        }
        Ok(ready)
    }

    /// Typed keys (or those typed while the colours were asked for), through the ui.
    fn keys(&mut self) {
        let read = if self.typed.is_empty() {
            rustix::io::read(rustix::stdio::stdin(), &mut self.buf[..4096])
        } else {
            let n = self.typed.len().min(4096);
            self.buf[..n].copy_from_slice(&self.typed[..n]);
            self.typed.drain(..n);
            Ok(n)
        };
        let n = match read {
            Ok(0) => return self.exit = Some(128 + SIGHUP),
            Ok(n) => n,
            Err(Errno::INTR) | Err(Errno::AGAIN) => return,
            Err(_) => return self.exit = Some(128 + SIGHUP),
        };
        let keys = if self.late_answers_until.is_some_and(|t| Instant::now() < t) {
            host::parse_colour_answers(&self.buf[..n]).1
        } else {
            self.buf[..n].to_vec()
        };
        let mut input = &keys[..];
        loop {
            for e in self.ui.feed(input, self.pane.term.screen(), RUN_COMMANDS) {
                self.key_event(e);
            }
            input = &[];
            if !self.ui.pending() {
                break;
            }
        }
    }

    fn key_event(&mut self, e: Event<RunCmd>) {
        match e {
            Event::Forward(bytes) => {
                let refused = self.pane.input.keys(&bytes);
                if refused > 0 {
                    self.ui.say(format!(
                        "{refused} bytes of keys dropped: the program has not read its input ({} KiB)",
                        self.pane.input.len() >> 10
                    ));
                }
                self.display.pacer.key(Instant::now());
            }
            Event::Clipboard(bytes) => self.display.clipboard = bytes,
            Event::Scrolling(on) => self.display.presenter.set_mouse_for_blitty(on),
            Event::Command(c) | Event::Answer(c, _) | Event::Confirmed(c) => match c {},
            Event::Chosen(_) => {}
        }
    }

    /// The program's output: chunks from the reader thread, logged, then parsed in a turn of
    /// bounded time and work (see [`Sharing`]).
    fn output(&mut self, woken: bool) -> Result<(), Error> {
        if woken {
            self.reader.clear_wake();
        }
        self.more_output = false;
        let mut taken = 0;
        let now = Instant::now();
        let mut share = Sharing::new(now, !self.display.pacer.answering(now));
        loop {
            let (chunk, at) = match self.held.take() {
                Some(rest) => rest,
                None => {
                    if taken >= READ_BUDGET || share.turn_over() {
                        self.more_output = true;
                        break;
                    }
                    match self.reader.try_take() {
                        Some(Chunk::Data(chunk)) => {
                            self.child_bytes += chunk.len() as u64;
                            self.pane.log(&chunk).map_err(|cause| Error::LogWrite {
                                path: self.opts.log.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
                                cause,
                            })?;
                            (chunk, 0)
                        }
                        Some(Chunk::End) => {
                            self.master_open = false;
                            break;
                        }
                        None => {
                            // A chunk counted but not yet queued: take it on the next turn.
                            self.more_output = self.reader.in_flight();
                            break;
                        }
                    }
                }
            };
            let Pane { term, input, deaf, .. } = &mut self.pane;
            let n = share.feed_until(term, &chunk[at..], |term| {
                if *deaf {
                    // No one is left to read the answers.
                    drop(term.take_replies());
                    true
                } else {
                    input.answers(term)
                }
            });
            self.pane.generation += 1;
            taken += n;
            self.display.pacer.output(Instant::now());
            if at + n < chunk.len() {
                // The program's input is full (the rest waits until it reads), or the turn
                // has done its work (the rest waits for the keys and the clock).
                self.held = Some((chunk, at + n));
                self.more_output = true;
                break;
            }
            self.reader.recycle(chunk);
        }
        // The program's bell rings in the host terminal with the next frame (once per frame
        // however many came), and its clipboard writes reach the host unless told otherwise.
        let happened = self.pane.happened(self.opts.clipboard);
        self.display.bell |= happened.bell;
        if let Some(c) = happened.clipboard {
            self.display.clipboard = c;
        }
        Ok(())
    }

    fn signals(&mut self, sigs: Vec<i32>) {
        for sig in sigs {
            match sig {
                SIGWINCH => {
                    let new = host::size();
                    if new != self.size {
                        self.size = new;
                        let _ = self.pty.resize(new);
                        self.pane.term.resize(new.cols as usize, new.rows as usize);
                        self.pane.generation += 1;
                        self.display.resize(new.cols as usize, new.rows as usize);
                        // A resize rewraps the lines: the scrollback mode's places are gone.
                        if self.ui.leave_scrollback() {
                            self.display.presenter.set_mouse_for_blitty(false);
                        }
                    }
                }
                SIGCHLD => {}
                // Came during this turn: the next one stops (or takes the host again).
                SIGTSTP | SIGCONT => self.carried.push(sig),
                other => self.exit = Some(128 + other),
            }
        }
    }

    /// The child's end: what it wrote before it ended is taken in the turns that follow, each
    /// bounded as any other (a signal or the prefix still ends blitty meanwhile).
    fn child(&mut self) -> Result<(), Error> {
        if self.exit.is_none() && self.ended.is_none() {
            if let Some(status) = self.pty.child.try_wait()? {
                if self.master_open {
                    self.reader.finish();
                }
                self.ended = Some(shell_status(status));
                self.pane.deaf = true;
                self.pane.input.clear();
                self.more_output = true;
            }
        }
        if let Some(status) = self.ended {
            if !self.master_open && self.held.is_none() {
                self.exit = Some(status);
            }
        }
        Ok(())
    }

    fn frame(&mut self) {
        let now = Instant::now();
        self.ui.expire(now);
        self.reader.set_urgent(self.display.pacer.answering(now));
        let wanted = self.display.wants(1, self.pane.generation) || self.ui.dirty;
        if !wanted || self.exit.is_some() || self.pane.sync_hold(now).is_some() || !self.display.ready(now) {
            return;
        }
        let rows = self.size.rows as usize;
        let frame = self.display.compose(
            &mut self.pane.term,
            (1, self.pane.generation),
            &mut self.ui,
            false,
            |presenter, ui, frame| ui.draw(presenter, rows, RUN_COMMANDS, &[], None, frame),
        );
        if self.display.presenter.cursor_touched() {
            self.raw.cursor_changed();
        }
        self.display.out.send(frame);
    }

    /// The last frame, then the host back as it was, with the program's last output on it.
    fn finish(mut self, started: Instant, stats_file: Option<File>) -> Result<i32, Error> {
        let paced_frames = self.display.presenter.stats.frames;
        let reader_stats = self.reader.join();
        // A clipboard write in the program's last output still reaches the host.
        if let Some(c) = self.pane.happened(self.opts.clipboard).clipboard {
            self.display.clipboard = c;
        }
        if !self.display.clipboard.is_empty() {
            self.display.out.finish();
            let clip = std::mem::take(&mut self.display.clipboard);
            self.display.out.send(clip);
        }
        restore_host(&mut self.display, &self.pane.term, self.raw);
        let status = self.exit.unwrap_or(0);
        if self.pty.child.try_wait()?.is_none() {
            // blitty was told to stop: the child's terminal hangs up, as when a terminal
            // closes; blitty does not wait long for a child that ignores it.
            self.pty.hang_up(Duration::from_secs(1));
        }
        if let (Some(file), Some(path)) = (&stats_file, &self.opts.stats) {
            let mut stats = Stats {
                seconds: started.elapsed().as_secs_f64(),
                child_bytes: self.child_bytes,
                frames: paced_frames,
                host_bytes: self.display.presenter.stats.bytes,
                ..Stats::default()
            };
            stats.read_process();
            stats.syscr += reader_stats.syscr;
            stats.syscw += reader_stats.syscw;
            stats.cpu += reader_stats.cpu;
            // The session is over: a failure here is said, but the program's status stands.
            if let Err(e) = stats.write(file) {
                eprintln!("blitty: cannot write the statistics file {}: {e}", path.display());
            }
        }
        Ok(status)
    }
}

/// A stop (`kill -TSTP`) and what follows it, as less and tmux's client do: the host is
/// given back as the shell had it (main screen, every mode off, cursor shown, cooked) before
/// blitty stops, and once it is continued in the foreground, taken again and redrawn whole.
/// Continued with `bg`, blitty stops again at once without touching the terminal, as a
/// program that writes to it from the background is stopped, until `fg`.
///
/// `stop` false is a SIGCONT after a stop blitty did not see (SIGSTOP): the shell has had the
/// terminal meanwhile (its prompt may be on blitty's screen), so it is taken again the same way.
pub(crate) fn stop_and_continue(stop: bool, display: &mut Display<OwnedFd>, raw: &mut RawMode) -> io::Result<()> {
    display.out.finish();
    let mut out = Vec::new();
    display.presenter.leave(&mut out);
    if stop {
        raw.suspend(out);
        signals::stop_as(SIGTSTP);
    } else {
        display.out.send(out);
        display.out.finish();
    }
    while !host::foreground() {
        signals::stop_as(SIGTTOU);
    }
    if stop {
        raw.resume()?;
    } else {
        raw.reapply()?;
    }
    display.enter();
    Ok(())
}

/// Ends a display on the user's terminal: the last frame, then the host back as it was, with
/// `term`'s last screen left on its normal screen (unless it ended on the alternate screen).
pub(crate) fn restore_host(display: &mut Display<OwnedFd>, term: &Terminal, raw: RawMode) {
    display.out.finish();
    let mut out = std::mem::take(&mut display.preamble);
    display.presenter.frame(View { screen: term.screen(), offset: 0 }, &mut out);
    display.presenter.leave(&mut out);
    if !term.screen().alternate_screen() {
        ansi::transcript(term.screen(), &mut out);
    }
    raw.set_leave(out);
    drop(raw);
    let _ = io::stdout().flush();
}

#[cfg(test)]
mod pacer_tests {
    use super::*;
    use crate::queue::{ProgramInput, OUTPUT_WAITS_AT, PROGRAM_INPUT_LIMIT};

    #[test]
    fn output_waits_while_answers_fill_half_the_limit_and_keys_past_the_limit_are_refused() {
        let mut input = ProgramInput::default();
        let mut term = Terminal::with_scrollback(20, 5, 0);
        let flood: Vec<u8> = b"\x1b[c".iter().copied().cycle().take(3 * PROGRAM_INPUT_LIMIT).collect();
        // Turns of parsing (a turn may also end on its time or work) until the answers stop it.
        let mut parsed = 0;
        while input.takes_output() && parsed < flood.len() {
            let mut share = Sharing::new(Instant::now(), false);
            parsed += share.feed_until(&mut term, &flood[parsed..], |t| input.answers(t));
        }
        assert!(parsed < flood.len(), "the parse stopped");
        assert!(!input.takes_output());
        assert!(input.len() < OUTPUT_WAITS_AT + 4 * SHARE_EVERY, "{} bytes of answers", input.len());
        // Keys fit up to the limit, whole or not at all; a paste's end always goes.
        let room = PROGRAM_INPUT_LIMIT - input.len();
        assert_eq!(input.keys(&vec![b'x'; room - 10]), 0);
        assert_eq!(input.keys(b"\x1b[200~0123456789\x1b[201~"), 22);
        assert_eq!(input.len(), PROGRAM_INPUT_LIMIT - 10 + 6);
        assert!(input.keys.unsent().ends_with(b"x\x1b[201~"));
        // Draining by offset: all of it comes out, in order, keys first.
        let mut out = Vec::new();
        while !input.is_empty() {
            let n = input.unsent().len().min(1000);
            out.extend_from_slice(&input.unsent()[..n]);
            input.sent(n);
        }
        assert!(out.starts_with(b"xxx") && out.ends_with(b"22c"));
        assert_eq!(out.len(), PROGRAM_INPUT_LIMIT - 10 + 6);
        assert!(input.takes_output());
    }

    #[test]
    fn a_flood_parsed_in_pieces_with_yields_gives_the_screen_of_one_feed() {
        // Every length around the piece size and several pieces, with escapes and UTF-8
        // sequences cut at the pieces' edges.
        let unit = "\x1b[38;5;196mab\u{e9}\u{5b57}\x1b[0m\r\n".as_bytes();
        let text: Vec<u8> = unit.iter().copied().cycle().take(5 * SHARE_EVERY + 7).collect();
        for len in [0, 1, SHARE_EVERY - 1, SHARE_EVERY, SHARE_EVERY + 1, 3 * SHARE_EVERY + 5, text.len()] {
            let mut whole = Terminal::with_scrollback(20, 5, 100);
            whole.feed(&text[..len]);
            let mut shared = Terminal::with_scrollback(20, 5, 100);
            // Two chunks, as the reader hands them over, in a turn that yields and in one
            // that has had its time.
            let mut share = Sharing::new(Instant::now(), true);
            let cut = len / 3;
            share.feed(&mut shared, &text[..cut]);
            share.feed(&mut shared, &text[cut..len]);
            assert_eq!(share.since > 0, len > 0);
            assert!(share.since <= SHARE_EVERY, "{} bytes since the last yield", share.since);
            // A turn that has had its time may stop part way (after twice its time, which a
            // loaded machine reaches within a piece): the rest goes in the turns after it.
            let mut again = Terminal::with_scrollback(20, 5, 100);
            let mut at = 0;
            while at < len {
                let mut late = Sharing::new(Instant::now() - TURN, true);
                assert!(late.turn_over());
                at += late.feed_until(&mut again, &text[at..len], |_| true);
            }
            let (mut a, mut b) = (Vec::new(), Vec::new());
            ansi::transcript(whole.screen(), &mut a);
            ansi::transcript(shared.screen(), &mut b);
            assert!(!a.is_empty() || len < unit.len(), "the text reached the screen");
            assert_eq!(a, b, "{len} bytes");
            let mut c = Vec::new();
            ansi::transcript(again.screen(), &mut c);
            assert_eq!(a, c, "{len} bytes after the turn's time");
        }
    }
}
