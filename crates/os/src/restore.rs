//! Giving back what blitty changed, at every end: the host terminal's termios and modes, and a
//! serial device's termios.
//!
//! Ends and what runs at each:
//! - return, an error, or a signal blitty handles (SIGTERM, SIGHUP, SIGINT, SIGQUIT end the
//!   event loop): the guards' `Drop`;
//! - a stop (SIGTSTP): the host is given back before blitty stops ([`HostGuard::release`]) and
//!   saved again when it takes the host back ([`HostGuard::take_back`]);
//! - a panic: the panic hook calls [`restore_all`];
//! - an abort (allocation failure, a stack overflow, `std::process::abort`): no Rust code above
//!   the failure can run, so a SIGABRT handler ([`arm_abort_handler`]) writes the prepared bytes
//!   ([`blitty_present::ansi::RESET_HOST`], a constant, and [`RESET_CURSOR`] if a frame changed
//!   the host's cursor shape: [`HostGuard::cursor_changed`]) and puts back the prepared termios. It
//!   touches only atomics and makes only write(2) and ioctl(2) calls, which are
//!   async-signal-safe; it runs before the process dies of the signal.
//!
//! Not covered: SIGKILL, and a segmentation fault that is not a stack overflow (no safe Rust
//! code causes one): nothing in the process runs then.
//!
//! What is saved lives behind `AtomicPtr`s to values that are never freed (a few hundred bytes
//! per session, reconnection or stop), so a handler running on another thread can never read freed
//! memory; taking a value (`swap` to null) makes every restore happen at most once.

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicPtr, Ordering};
use std::sync::Mutex;

use blitty_present::ansi::{RESET_CURSOR, RESET_HOST};
use rustix::termios::{tcsetattr, OptionalActions, Termios};

/// A terminal's settings as blitty found them, and the file descriptor to put them back on.
struct Saved {
    fd: RawFd,
    termios: Termios,
}

/// The host terminal (standard input's termios; RESET_HOST goes to standard output).
static HOST: AtomicPtr<Saved> = AtomicPtr::new(null_mut());
/// The serial devices blitty set up (`blitty serial`'s one, or every serial vty of a session
/// server): a list of slots that only grows (a slot is reused once its device is restored),
/// never freed, so a handler can walk it at any time.
static DEVICES: AtomicPtr<DeviceSlot> = AtomicPtr::new(null_mut());

struct DeviceSlot {
    saved: AtomicPtr<Saved>,
    /// Set before the slot is published, never changed after.
    next: *mut DeviceSlot,
}

/// Puts `saved` in a free slot of DEVICES (or a new one) and returns that slot.
fn arm_device(fd: RawFd, termios: Termios) -> (&'static AtomicPtr<Saved>, *mut Saved) {
    // Leaked on purpose, as in `arm`.
    let saved = Box::into_raw(Box::new(Saved { fd, termios }));
    let mut at = DEVICES.load(Ordering::Acquire);
    while !at.is_null() {
        // SAFETY: slots are leaked boxes, never freed, published whole (Release/Acquire).
        let slot = unsafe { &*at };
        if slot.saved.compare_exchange(null_mut(), saved, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            arm_abort_handler();
            return (&slot.saved, saved);
        }
        at = slot.next;
    }
    let new = Box::into_raw(Box::new(DeviceSlot { saved: AtomicPtr::new(saved), next: null_mut() }));
    loop {
        let head = DEVICES.load(Ordering::Acquire);
        // SAFETY: `new` is not published yet; only this thread touches it.
        unsafe { (*new).next = head };
        if DEVICES.compare_exchange(head, new, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            break;
        }
    }
    arm_abort_handler();
    // SAFETY: as above; the slot lives for the rest of the process.
    (unsafe { &(*new).saved }, saved)
}

/// Restores every serial device still saved. Async-signal-safe (atomics and tcsetattr).
fn restore_devices() {
    let mut at = DEVICES.load(Ordering::Acquire);
    while !at.is_null() {
        // SAFETY: see `arm_device`.
        let slot = unsafe { &*at };
        restore_slot(&slot.saved);
        at = slot.next;
    }
}
/// What the normal end writes to the host instead of RESET_HOST alone (the last frame, the reset,
/// the program's last screen); a panic or an abort writes RESET_HOST.
static LEAVE: Mutex<Option<Vec<u8>>> = Mutex::new(None);
/// Whether a frame changed the host's cursor shape: a panic or an abort then writes
/// RESET_CURSOR after RESET_HOST (most hosts take it for their own shape, xterm for a blinking
/// block, so it is not written when nothing changed the shape).
static CURSOR_CHANGED: AtomicBool = AtomicBool::new(false);

/// RESET_HOST, and RESET_CURSOR if a frame changed the host's cursor shape. Async-signal-safe.
fn write_reset() {
    write_all(rustix::stdio::stdout(), RESET_HOST);
    if CURSOR_CHANGED.load(Ordering::Acquire) {
        write_all(rustix::stdio::stdout(), RESET_CURSOR);
    }
}

fn arm(slot: &AtomicPtr<Saved>, fd: RawFd, termios: Termios) -> *mut Saved {
    // Leaked on purpose: a signal handler may be reading it (see the module's comment).
    let saved = Box::into_raw(Box::new(Saved { fd, termios }));
    slot.store(saved, Ordering::Release);
    arm_abort_handler();
    saved
}

/// Puts the saved termios back, once. Async-signal-safe.
fn restore_slot(slot: &AtomicPtr<Saved>) -> bool {
    let saved = slot.swap(null_mut(), Ordering::AcqRel);
    restore_saved(saved)
}

/// Puts `saved` back if the slot still holds it (a guard restores only what it saved).
fn restore_if_current(slot: &AtomicPtr<Saved>, saved: *mut Saved) -> bool {
    match slot.compare_exchange(saved, null_mut(), Ordering::AcqRel, Ordering::Acquire) {
        Ok(p) => restore_saved(p),
        Err(_) => false,
    }
}

fn restore_saved(saved: *mut Saved) -> bool {
    if saved.is_null() {
        return false;
    }
    // SAFETY: `saved` came from `Box::into_raw` in `arm` and is never freed; the swap or
    // exchange that took it out of its slot gave this call the only claim to it.
    let saved = unsafe { &*saved };
    // SAFETY: the descriptor is standard input, or a duplicate the device guard keeps open
    // until after it has restored (a late restore on a closed number fails harmlessly).
    let fd = unsafe { BorrowedFd::borrow_raw(saved.fd) };
    let _ = tcsetattr(fd, OptionalActions::Now, &saved.termios);
    true
}

/// Restores the host (the prepared bytes, then standard input's termios) and the serial
/// devices; what was already restored is skipped. Safe to call from a panic hook.
pub fn restore_all() {
    restore_host();
    restore_devices();
}

/// The host's part of [`restore_all`]: the leave bytes, then the termios.
fn restore_host() {
    if !HOST.load(Ordering::Acquire).is_null() {
        match LEAVE.lock().unwrap_or_else(|e| e.into_inner()).take() {
            Some(leave) => write_all(rustix::stdio::stdout(), &leave),
            None => write_reset(),
        }
        restore_slot(&HOST);
    }
}

/// Writes all of `bytes`, retrying on EINTR and waiting out EAGAIN (10 s at most). Async-signal-safe.
pub fn write_all(fd: BorrowedFd<'_>, mut bytes: &[u8]) {
    let mut spins = 0;
    while !bytes.is_empty() && spins < 1000 {
        match rustix::io::write(fd, bytes) {
            Ok(n) => bytes = &bytes[n..],
            Err(rustix::io::Errno::INTR) => {}
            Err(rustix::io::Errno::AGAIN) => {
                spins += 1;
                let mut fds = [rustix::event::PollFd::new(&fd, rustix::event::PollFlags::OUT)];
                let ts = rustix::event::Timespec { tv_sec: 0, tv_nsec: 10_000_000 };
                let _ = rustix::event::poll(&mut fds, Some(&ts));
            }
            Err(_) => return,
        }
    }
}

/// Installs, once, the SIGABRT handler that restores the host and the device (see the module).
pub fn arm_abort_handler() {
    static ARMED: AtomicBool = AtomicBool::new(false);
    if ARMED.swap(true, Ordering::AcqRel) {
        return;
    }
    let action = || {
        if !HOST.load(Ordering::Acquire).is_null() {
            // Not LEAVE: taking its lock here could deadlock with the code that aborted.
            write_reset();
            restore_slot(&HOST);
        }
        restore_devices();
        // Then die of the signal as if no handler had been there (a `kill -ABRT` too, not only
        // abort(), which would re-raise by itself).
        let _ = signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGABRT);
    };
    // SAFETY: the action only loads and swaps atomics and calls write(2), poll(2), ioctl(2)
    // (tcsetattr) and signal-hook's emulate_default_handler (sigaction, sigprocmask, raise),
    // all async-signal-safe; it allocates nothing and takes no lock.
    let _ = unsafe { signal_hook::low_level::register(signal_hook::consts::SIGABRT, action) };
}

/// Standard input's terminal as it was before raw mode; dropping it restores the host.
pub struct HostGuard(());

impl HostGuard {
    /// Saves the host's current termios (restored at every end, with RESET_HOST written first).
    pub fn save(termios: Termios) -> HostGuard {
        let guard = HostGuard(());
        guard.take_back(termios);
        guard
    }

    /// Gives the host back now, `leave` then the termios, for a stop: until [`Self::take_back`]
    /// no end (a panic, an abort, the drop) writes to a terminal that the shell has again.
    pub fn release(&self, leave: Vec<u8>) {
        self.set_leave(leave);
        restore_host();
    }

    /// Saves the host's termios again (as [`Self::save`]), once blitty has it back after a stop.
    pub fn take_back(&self, termios: Termios) {
        *LEAVE.lock().unwrap_or_else(|e| e.into_inner()) = None;
        CURSOR_CHANGED.store(false, Ordering::Release);
        arm(&HOST, rustix::stdio::stdin().as_raw_fd(), termios);
    }

    /// What the normal end writes instead of RESET_HOST alone (it must contain it).
    pub fn set_leave(&self, leave: Vec<u8>) {
        *LEAVE.lock().unwrap_or_else(|e| e.into_inner()) = Some(leave);
    }

    /// A frame changed the host's cursor shape ([`blitty_present::AnsiPresenter::cursor_touched`]):
    /// a panic or an abort gives the host its own shape back too.
    pub fn cursor_changed(&self) {
        CURSOR_CHANGED.store(true, Ordering::Release);
    }
}

impl Drop for HostGuard {
    fn drop(&mut self) {
        restore_host();
    }
}

/// A serial device's termios as blitty found it; dropping the guard puts it back. It keeps a
/// duplicate of the device's descriptor, so the restore works whoever closed theirs first.
pub struct DeviceGuard {
    _fd: OwnedFd,
    slot: &'static AtomicPtr<Saved>,
    saved: *mut Saved,
}

impl DeviceGuard {
    /// Saves `fd`'s current termios. Call before changing them. Each device has a guard of its
    /// own: a server's many serial lines are each restored by theirs (before, a second guard
    /// put the first device back as it was found while it was still in use).
    pub fn save(fd: impl AsFd) -> std::io::Result<DeviceGuard> {
        let termios = rustix::termios::tcgetattr(&fd)?;
        let dup = rustix::io::fcntl_dupfd_cloexec(&fd, 3)?;
        let (slot, saved) = arm_device(dup.as_raw_fd(), termios);
        Ok(DeviceGuard { _fd: dup, slot, saved })
    }
}

impl Drop for DeviceGuard {
    fn drop(&mut self) {
        restore_if_current(self.slot, self.saved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::termios::{tcgetattr, InputModes};

    /// A pty's slave, opened: (master, slave).
    fn line() -> (OwnedFd, OwnedFd) {
        let (master, path) = crate::pty::pair().unwrap();
        let slave =
            rustix::fs::open(&path, rustix::fs::OFlags::RDWR | rustix::fs::OFlags::NOCTTY, rustix::fs::Mode::empty())
                .unwrap();
        (master, slave)
    }

    fn raw(fd: &OwnedFd) {
        let mut t = tcgetattr(fd).unwrap();
        t.make_raw();
        tcsetattr(fd, OptionalActions::Now, &t).unwrap();
    }

    fn is_raw(fd: &OwnedFd) -> bool {
        !tcgetattr(fd).unwrap().input_modes.contains(InputModes::ICRNL)
    }

    #[test]
    fn each_device_keeps_its_settings_while_others_are_set_up_and_given_back() {
        let lines: Vec<_> = (0..5).map(|_| line()).collect();
        let mut guards = Vec::new();
        for (_, slave) in &lines {
            assert!(!is_raw(slave), "a new pty starts cooked");
            guards.push(Some(DeviceGuard::save(slave).unwrap()));
            raw(slave);
        }
        assert!(lines.iter().all(|(_, s)| is_raw(s)), "setting up a device must not give back another");
        // The second goes: only it is restored; its slot is then reused by a new guard.
        guards[1] = None;
        let cooked: Vec<bool> = lines.iter().map(|(_, s)| !is_raw(s)).collect();
        assert_eq!(cooked, [false, true, false, false, false]);
        guards[1] = Some(DeviceGuard::save(&lines[1].1).unwrap());
        raw(&lines[1].1);
        assert!(lines.iter().all(|(_, s)| is_raw(s)));
        // Every end (a panic hook's restore_all) gives back all of them.
        restore_devices();
        assert!(lines.iter().all(|(_, s)| !is_raw(s)));
        drop(guards);
    }
}
