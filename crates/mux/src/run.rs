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
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use blitty_present::{ansi, AnsiPresenter, View};
use blitty_vt::{Screen, Terminal, WORK_PER_TURN};
use rustix::event::PollFlags;
use rustix::io::Errno;

use crate::copymode::CopyMode;
use crate::keys::{self, Action, Keys, Prefix};
use crate::queue::ProgramInput;
use blitty_os::event::{PollSet, Wake};
use blitty_os::host::{self, RawMode};
use blitty_os::output::Output;
use blitty_os::pace::Pacer;
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

/// How long a message (an unknown key after the prefix) stays on the screen.
const MESSAGE: Duration = Duration::from_secs(3);

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

    #[cfg(test)]
    fn feed(&mut self, term: &mut Terminal, chunk: &[u8]) {
        self.feed_until(term, chunk, |_| true);
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

/// How long a frame may be held back while the program asks for synchronized output.
const SYNC_LIMIT: Duration = Duration::from_millis(150);

/// The parts of `run`'s loop, as its poll set names them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Keys,
    Output,
    Signals,
    Host,
    Program,
}

/// Runs the session until the child exits (its status is returned) or blitty is told to stop
/// by a signal (128 + that signal).
pub fn run(opts: Options) -> Result<i32, Error> {
    // Every output file is opened before the program starts, so a bad path is said at once,
    // naming the file, and never after the program ran.
    let mut log = match &opts.log {
        Some(path) => Some(File::create(path).map_err(|cause| Error::Log { path: path.display().to_string(), cause })?),
        None => None,
    };
    let log_error =
        |cause| Error::LogWrite { path: opts.log.as_ref().map(|p| p.display().to_string()).unwrap_or_default(), cause };
    let stats_file = match &opts.stats {
        Some(path) => {
            Some(File::create(path).map_err(|cause| Error::Stats { path: path.display().to_string(), cause })?)
        }
        None => None,
    };
    if !host::is_terminal() {
        return Err(Error::NotATerminal);
    }
    let mut size = host::size();
    // The terminal's colours first, before the program can ask for them (see query_colours).
    let mut raw = RawMode::enter()?;
    let (colours, typed, answered) = host::query_colours(host::COLOUR_QUERY_WAIT);
    // A terminal slower than the wait (a slow ssh link) answers later: its answers must not
    // reach the program as typed keys, so they are taken out of the keys for a while.
    let late_answers_until = (!answered).then(|| Instant::now() + LATE_ANSWERS);
    let program = opts.argv.first().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
    let mut pty = pty::spawn(&opts.argv, size).map_err(|cause| Error::Spawn { program, cause })?;
    let reader = Reader::start(std::os::fd::AsFd::as_fd(&pty.master))?;
    // SIGTTIN and SIGTTOU keep their default (stop): with a handler, a read or a termios change
    // made from the background would be interrupted, the signal sent again when the call is
    // restarted, and so on for ever. blitty never reads or sets the terminal from the
    // background: after SIGCONT it first looks whether it is in the foreground.
    let mut signals = Signals::new(&[SIGWINCH, SIGCHLD, SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGTSTP, SIGCONT])?;
    let mut term = Terminal::with_scrollback(size.cols as usize, size.rows as usize, opts.scrollback);
    if let Some((fg, bg)) = colours {
        term.screen_mut().set_default_colors(fg, bg);
    }
    let mut presenter = AnsiPresenter::new(size.cols as usize, size.rows as usize);
    presenter.set_overlay_colours(opts.status_colours.0, opts.status_colours.1);
    let mut writer = Output::new(host::frame_output()?);
    let mut first = Vec::new();
    presenter.enter(&mut first);
    writer.send(first);

    let mut pacer = Pacer::new(opts.hz);

    let mut dirty = true;
    // Since when the program has held synchronized output (None while it does not).
    let mut sync_since: Option<Instant> = None;
    let mut keys = Keys::new(opts.prefix);
    let mut copy = CopyMode::default();
    // A message on the top row until its time is up, and the command list (prefix ?) until
    // the next key.
    let mut message: Option<(String, Instant)> = None;
    // A clipboard write for the host, sent with the next frame.
    let mut clipboard_out: Vec<u8> = Vec::new();
    let mut help = false;
    // Keys typed while the colours were asked for are taken first, as keys (the prefix works).
    let mut typed = typed;
    let mut to_child = ProgramInput::default();
    // A chunk of output read and not parsed yet to its end (the program's input was full), and
    // where its rest starts.
    let mut held: Option<(Vec<u8>, usize)> = None;
    let mut buf = vec![0u8; 4096];
    let mut master_open = true;
    // Output was left waiting when the read budget ran out: look again without sleeping.
    let mut more_output = false;
    let mut exit: Option<i32> = None;
    // The child's status once it has ended: blitty ends with it when its output is parsed.
    let mut ended: Option<i32> = None;
    let mut actions = Vec::new();
    let started = Instant::now();
    let mut child_bytes = 0u64;
    let mut bells_seen = 0u64;
    // The program rang the bell since the last frame.
    let mut ring = false;
    // A stop or a continue taken after the turn's first look at the signals.
    let mut carried: Vec<i32> = Vec::new();

    while exit.is_none() {
        let now = Instant::now();
        let mut wake = Wake::default();
        // While a frame is held for synchronized output the loop sleeps until the hold's limit or
        // the program's next output (which may end the update), not until the held frame is due
        // (already past: it would wake at once, again and again).
        let held_until = sync_since.map(|t| t + SYNC_LIMIT).filter(|&t| t > now);
        if dirty && writer.idle() {
            wake.at(held_until.unwrap_or_else(|| pacer.due_at(now)));
        } else if dirty {
            // The host is still taking the last frame: POLLOUT wakes us.
            wake.after(now, pacer.interval());
        }
        if let Some((_, until)) = &message {
            wake.at(*until);
        }
        // While the program's input is full its output waits: the loop wakes for the program
        // taking its input (the master writable), not for output it would not parse.
        let takes_output = to_child.takes_output();
        if (more_output && takes_output) || !carried.is_empty() {
            wake.at(now);
        }
        let stdin = rustix::stdio::stdin();
        let mut set = PollSet::new();
        set.add(stdin, PollFlags::IN, Part::Keys);
        // The reader thread reads the master; its wake descriptor says chunks are waiting.
        if takes_output {
            set.add(reader.wake_fd(), PollFlags::IN, Part::Output);
        }
        set.add(signals.wake.as_fd(), PollFlags::IN, Part::Signals);
        if !writer.idle() {
            set.add(writer.fd.as_fd(), PollFlags::OUT, Part::Host);
        }
        // The master is polled only to write to it, and only when there is something to
        // write: left in, its hang-up would wake every poll.
        let to_master = master_open && !to_child.is_empty();
        if to_master {
            set.add(pty.master.as_fd(), PollFlags::OUT, Part::Program);
        }
        set.wait(wake.timeout(now))?;
        let woken = set.events(Part::Output).contains(PollFlags::IN);
        let (key_ready, out_ready, in_ready, host_ready) = (
            set.events(Part::Keys).intersects(PollFlags::IN | PollFlags::HUP),
            takes_output && (more_output || woken),
            set.events(Part::Program).contains(PollFlags::OUT),
            set.events(Part::Host).intersects(PollFlags::OUT | PollFlags::ERR | PollFlags::HUP),
        );
        drop(set);
        if host_ready {
            writer.flush();
        }

        // A stop comes before the keys: once continued in the background, a read of the
        // terminal would stop blitty with the host still in its modes.
        let mut sigs = std::mem::take(&mut carried);
        sigs.extend(signals.take());
        if sigs.iter().any(|&s| s == SIGTSTP || s == SIGCONT) {
            stop_and_continue(sigs.contains(&SIGTSTP), &mut writer, &mut presenter, &mut raw)?;
            // The SIGCONT that continued blitty asks for nothing more; a resize while it was
            // stopped reached only the foreground job.
            sigs.retain(|&s| s != SIGTSTP && s != SIGCONT);
            sigs.extend(signals.take().into_iter().filter(|&s| s != SIGCONT));
            sigs.push(SIGWINCH);
            dirty = true;
        }

        // Keys first: they are forwarded before any output is parsed.
        if key_ready || !typed.is_empty() {
            let read = if typed.is_empty() {
                rustix::io::read(stdin, &mut buf[..4096])
            } else {
                let n = typed.len().min(4096);
                buf[..n].copy_from_slice(&typed[..n]);
                typed.drain(..n);
                Ok(n)
            };
            match read {
                Ok(0) => exit = Some(128 + SIGHUP),
                Ok(_) if help => {
                    // Any key closes the list, and goes no further.
                    help = false;
                    presenter.invalidate();
                    dirty = true;
                }
                Ok(n) => {
                    actions.clear();
                    if late_answers_until.is_some_and(|t| Instant::now() < t) {
                        let (_, keys_only) = host::parse_colour_answers(&buf[..n]);
                        keys.feed(&keys_only, size.rows as usize, &mut actions);
                    } else {
                        keys.feed(&buf[..n], size.rows as usize, &mut actions);
                    }
                    // Keys typed after the one that left the scrollback mode go round again.
                    let mut again = Vec::new();
                    loop {
                        for a in actions.drain(..) {
                            match a {
                                Action::Forward(bytes) => {
                                    let refused = to_child.keys(&bytes);
                                    if refused > 0 {
                                        let text = format!(
                                            "{refused} bytes of keys dropped: the program has not read its input ({} KiB)",
                                            to_child.len() >> 10
                                        );
                                        message = Some((text, Instant::now() + MESSAGE));
                                        dirty = true;
                                    }
                                    pacer.key(Instant::now());
                                }
                                Action::Command(k) if k == b"?" => {
                                    help = true;
                                    message = None;
                                    dirty = true;
                                }
                                Action::Command(k) => {
                                    let p = opts.prefix.name();
                                    let text = format!("{p} {}: not a command — {p} ? for help", keys::key_name(&k));
                                    message = Some((text, Instant::now() + MESSAGE));
                                    dirty = true;
                                }
                                Action::Scrollback(back) => {
                                    enter_scrollback(&mut copy, &mut presenter, term.screen(), back);
                                    dirty = true;
                                }
                                Action::Copy(bytes) => {
                                    let (clip, rest) =
                                        scrollback_keys(&mut copy, &mut keys, &mut presenter, &bytes, term.screen());
                                    if let Some(clip) = clip {
                                        clipboard_out = clip;
                                    }
                                    again = rest;
                                    dirty = true;
                                }
                            }
                        }
                        if again.is_empty() {
                            break;
                        }
                        keys.feed(&std::mem::take(&mut again), size.rows as usize, &mut actions);
                    }
                }
                Err(Errno::INTR) | Err(Errno::AGAIN) => {}
                Err(_) => exit = Some(128 + SIGHUP),
            }
        }
        if (in_ready || key_ready) && !to_child.is_empty() && master_open {
            match rustix::io::write(&pty.master, to_child.unsent()) {
                Ok(n) => to_child.sent(n),
                Err(Errno::AGAIN) | Err(Errno::INTR) => {}
                Err(_) => to_child.clear(),
            }
        }

        if out_ready && master_open {
            if woken {
                reader.clear_wake();
            }
            more_output = false;
            let mut taken = 0;
            let now = Instant::now();
            let mut share = Sharing::new(now, !pacer.answering(now));
            loop {
                let (chunk, at) = match held.take() {
                    Some(rest) => rest,
                    None => {
                        if taken >= READ_BUDGET || share.turn_over() {
                            more_output = true;
                            break;
                        }
                        match reader.try_take() {
                            Some(Chunk::Data(chunk)) => {
                                child_bytes += chunk.len() as u64;
                                if let Some(f) = log.as_mut() {
                                    f.write_all(&chunk).map_err(log_error)?;
                                }
                                (chunk, 0)
                            }
                            Some(Chunk::End) => {
                                master_open = false;
                                break;
                            }
                            None => {
                                // A chunk counted but not yet queued: take it on the next turn.
                                more_output = reader.in_flight();
                                break;
                            }
                        }
                    }
                };
                let n = share.feed_until(&mut term, &chunk[at..], |term| {
                    if ended.is_some() {
                        // No one is left to read the answers.
                        drop(term.take_replies());
                        true
                    } else {
                        to_child.answers(term)
                    }
                });
                taken += n;
                dirty = true;
                pacer.output(Instant::now());
                if at + n < chunk.len() {
                    // The program's input is full (the rest waits until it reads), or the turn
                    // has done its work (the rest waits for the keys and the clock).
                    held = Some((chunk, at + n));
                    more_output = true;
                    break;
                }
                reader.recycle(chunk);
            }
            // The program's bell rings in the host terminal with the next frame (once per
            // frame however many came: a flood of BELs is one ring).
            if term.screen().bells() != bells_seen {
                bells_seen = term.screen().bells();
                ring = true;
                dirty = true;
            }
            if let Some(c) = term.screen_mut().take_clipboard() {
                if opts.clipboard {
                    clipboard_out = clipboard_write(&c);
                    dirty = true;
                }
            }
        }

        sigs.extend(signals.take());
        for sig in sigs {
            match sig {
                SIGWINCH => {
                    let new = host::size();
                    if new != size {
                        size = new;
                        let _ = pty.resize(size);
                        term.resize(size.cols as usize, size.rows as usize);
                        resize_host(&mut writer, &mut presenter, size);
                        // A resize rewraps the lines: the scrollback mode's places are gone.
                        if copy.active {
                            copy.leave();
                            keys.scrolling = false;
                            presenter.set_mouse_for_blitty(false);
                        }
                        dirty = true;
                    }
                }
                SIGCHLD => {}
                // Came during this turn: the next one stops (or takes the host again).
                SIGTSTP | SIGCONT => carried.push(sig),
                other => exit = Some(128 + other),
            }
        }
        if exit.is_none() && ended.is_none() {
            if let Some(status) = pty.child.try_wait()? {
                // What the child wrote before it ended is taken in the turns that follow, each
                // bounded as any other (a signal or the prefix still ends blitty meanwhile).
                if master_open {
                    reader.finish();
                }
                ended = Some(shell_status(status));
                to_child.clear();
                more_output = true;
                dirty = true;
            }
        }
        if let Some(status) = ended {
            if !master_open && held.is_none() {
                exit = Some(status);
            }
        }

        copy.follow(term.screen());
        let now = Instant::now();
        if message.as_ref().is_some_and(|(_, until)| now >= *until) {
            message = None;
            presenter.invalidate();
            dirty = true;
        }
        let held = term.screen().modes().synchronized_output && {
            let since = *sync_since.get_or_insert(now);
            now.duration_since(since) < SYNC_LIMIT
        };
        if !term.screen().modes().synchronized_output {
            sync_since = None;
        }
        reader.set_urgent(pacer.answering(now));
        let due = pacer.due(now);
        if dirty && !held && due && writer.idle() && exit.is_none() {
            let mut frame = writer.buffer();
            frame.append(&mut clipboard_out);
            if std::mem::take(&mut ring) {
                frame.push(0x07);
            }
            present(&mut presenter, &term, copy.offset(term.screen()), &mut frame);
            if presenter.cursor_touched() {
                raw.cursor_changed();
            }
            if copy.active {
                copy.draw(&mut presenter, term.screen(), &mut frame);
                // The marks go with the next frame.
                presenter.invalidate();
            }
            if help {
                for (y, row) in keys::help_rows(opts.prefix, keys::RUN_COMMANDS, "the program").iter().enumerate() {
                    presenter.overlay(y, row, &mut frame);
                }
            } else if let Some((text, _)) = &message {
                presenter.overlay(0, &format!(" {text} "), &mut frame);
            }
            term.screen_mut().clear_damage();
            writer.send(frame);
            pacer.sent(now);
            dirty = false;
        }
    }

    // The last frame, then the host back as it was, with the program's last output on it.
    let paced_frames = presenter.stats.frames;
    let reader_stats = reader.join();
    // A clipboard write in the program's last output still reaches the host.
    if let Some(c) = term.screen_mut().take_clipboard().filter(|_| opts.clipboard) {
        clipboard_out = clipboard_write(&c);
    }
    if !clipboard_out.is_empty() {
        writer.finish();
        writer.send(clipboard_out);
    }
    restore_host(&mut writer, &mut presenter, &term, raw);
    let status = exit.unwrap_or(0);
    if pty.child.try_wait()?.is_none() {
        // blitty was told to stop: the child's terminal hangs up, as when a terminal closes;
        // blitty does not wait long for a child that ignores it.
        pty.hang_up(Duration::from_secs(1));
    }
    if let (Some(file), Some(path)) = (&stats_file, &opts.stats) {
        let mut stats = Stats {
            seconds: started.elapsed().as_secs_f64(),
            child_bytes,
            frames: paced_frames,
            host_bytes: presenter.stats.bytes,
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

/// The OSC 52 that asks the host terminal to set its clipboard: built by blitty from the decoded
/// text (never the program's bytes), as tmux's `set-clipboard external` does.
pub(crate) fn clipboard_write(c: &blitty_vt::term::Clipboard) -> Vec<u8> {
    format!("\x1b]52;{};{}\x07", c.selections, blitty_vt::term::base64_encode(&c.text)).into_bytes()
}

/// Enters the scrollback mode `back` lines up (`Action::Scrollback`): the mouse is blitty's
/// there (selection, the wheel). Shared by `blitty run`, `blitty serial` and the server.
pub(crate) fn enter_scrollback(copy: &mut CopyMode, presenter: &mut AnsiPresenter, screen: &Screen, back: usize) {
    copy.enter(screen, back);
    presenter.set_mouse_for_blitty(true);
    presenter.invalidate();
}

/// Keys for the scrollback mode (`Action::Copy`). Returns the user's own copy as the OSC 52 to
/// send (whatever --no-clipboard says of the program's), and the keys typed after the one that
/// left the mode in the same read, which the caller handles as keys again (empty while the
/// mode goes on).
pub(crate) fn scrollback_keys(
    copy: &mut CopyMode,
    keys: &mut Keys,
    presenter: &mut AnsiPresenter,
    bytes: &[u8],
    screen: &Screen,
) -> (Option<Vec<u8>>, Vec<u8>) {
    let done = copy.key(bytes, screen);
    let clip = done
        .copy
        .map(|text| clipboard_write(&blitty_vt::term::Clipboard { selections: "c".into(), text: text.into_bytes() }));
    if done.leave {
        keys.scrolling = false;
        presenter.set_mouse_for_blitty(false);
    }
    presenter.invalidate();
    (clip, done.rest)
}

/// Draws the view `offset` lines back in the scrollback.
pub(crate) fn present(presenter: &mut AnsiPresenter, term: &Terminal, offset: usize, out: &mut Vec<u8>) {
    let view = View { screen: term.screen(), offset };
    presenter.frame(view, out);
}

/// A stop (`kill -TSTP`) and what follows it, as less and tmux's client do: the host is
/// given back as the shell had it (main screen, every mode off, cursor shown, cooked) before
/// blitty stops, and once it is continued in the foreground, taken again and redrawn whole.
/// Continued with `bg`, blitty stops again at once without touching the terminal, as a
/// program that writes to it from the background is stopped, until `fg`.
///
/// `stop` false is a SIGCONT after a stop blitty did not see (SIGSTOP): the shell has had the
/// terminal meanwhile (its prompt may be on blitty's screen), so it is taken again the same way.
fn stop_and_continue(
    stop: bool,
    writer: &mut Output,
    presenter: &mut AnsiPresenter,
    raw: &mut RawMode,
) -> io::Result<()> {
    writer.finish();
    let mut out = Vec::new();
    presenter.leave(&mut out);
    if stop {
        raw.suspend(out);
        out = Vec::new();
        signals::stop_as(SIGTSTP);
    }
    while !host::foreground() {
        signals::stop_as(SIGTTOU);
    }
    if stop {
        raw.resume()?;
    } else {
        raw.reapply()?;
    }
    presenter.enter(&mut out);
    writer.send(out);
    Ok(())
}

/// The host at a new size: the frame in flight goes first, then the presenter's clear.
/// (Resizes are rare; waiting for the host here is fine.)
pub(crate) fn resize_host(writer: &mut Output, presenter: &mut AnsiPresenter, size: Size) {
    writer.finish();
    let mut b = writer.buffer();
    presenter.resize(size.cols as usize, size.rows as usize, &mut b);
    writer.send(b);
}

/// Ends a session's display: the last frame, then the host back as it was, with `term`'s last
/// screen left on its normal screen (unless it ended on the alternate screen).
pub(crate) fn restore_host(writer: &mut Output, presenter: &mut AnsiPresenter, term: &Terminal, raw: RawMode) {
    writer.finish();
    let mut out = Vec::new();
    present(presenter, term, 0, &mut out);
    presenter.leave(&mut out);
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
    use crate::queue::{OUTPUT_WAITS_AT, PROGRAM_INPUT_LIMIT};

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
