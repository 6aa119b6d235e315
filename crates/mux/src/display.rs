//! A display: a terminal that frames go to (the user's own, for `blitty run` and `blitty
//! serial`; a client's, through its socket, for the session server), with its model of that
//! terminal (the presenter), its pacing, and its output written without blocking. A frame is
//! assembled here, once for every front end: what goes before it (taking over the terminal, a
//! clear after a resize, a clipboard write, the bell), the pane's view (scrolled back in the
//! scrollback mode, with its marks), the ui's rows and the front end's own, the cursor.
//!
//! A display builds a frame only when what it shows changed, at most `hz` a second, never
//! while the program holds synchronized output (up to its limit), and only once its terminal
//! has taken the last one: a slow terminal costs frames, never input or reading.

use std::os::fd::AsFd;
use std::time::{Duration, Instant};

use blitty_os::output::Output;
use blitty_os::pace::Pacer;
use blitty_present::{AnsiPresenter, View};
use blitty_vt::{Color, Terminal};

use crate::ui::Ui;

pub struct Display<F: AsFd> {
    pub out: Output<F>,
    pub presenter: AnsiPresenter,
    pub pacer: Pacer,
    /// What goes before the next frame: taking over the terminal, a clear after a resize.
    pub preamble: Vec<u8>,
    /// A clipboard write (OSC 52) for the terminal, with the next frame.
    pub clipboard: Vec<u8>,
    /// The pane shown rang the bell: BEL goes with the next frame.
    pub bell: bool,
    /// Something besides the pane changed: a frame is wanted.
    pub dirty: bool,
    /// The pane and its generation the last frame showed.
    pub drawn: (u64, u64),
    /// The next frame takes the terminal over first (see [`Display::enter`]).
    entering: bool,
    /// The next frame goes no sooner: a frame that took long to build (every cell of a
    /// 2048x1024 screen changed) is followed no sooner than twice its time, so building frames
    /// for one display takes at most a third of the loop's time.
    next_frame_at: Instant,
}

impl<F: AsFd> Display<F> {
    pub fn new(fd: F, cols: usize, rows: usize, hz: u32, colours: (Option<Color>, Option<Color>)) -> Display<F> {
        let mut presenter = AnsiPresenter::new(cols, rows);
        presenter.set_overlay_colours(colours.0, colours.1);
        Display {
            out: Output::new(fd),
            presenter,
            pacer: Pacer::new(hz),
            preamble: Vec::new(),
            clipboard: Vec::new(),
            bell: false,
            dirty: true,
            drawn: (0, 0),
            entering: false,
            next_frame_at: Instant::now(),
        }
    }

    /// Starts over for a terminal of `cols` x `rows` (a client attaching): a new model of it
    /// and a new pacing; what is queued for it stays.
    pub fn restart(&mut self, cols: usize, rows: usize, hz: u32, colours: (Option<Color>, Option<Color>)) {
        self.presenter = AnsiPresenter::new(cols, rows);
        self.presenter.set_overlay_colours(colours.0, colours.1);
        self.pacer = Pacer::new(hz);
        self.next_frame_at = Instant::now();
    }

    /// Takes the terminal over with the next frame (the alternate screen, the modes) and draws
    /// it whole. Asked any number of times before a frame, it costs one.
    pub fn enter(&mut self) {
        self.entering = true;
        self.dirty = true;
        self.drawn = (0, 0);
    }

    /// The terminal has a new size: the next frame starts from a clear screen.
    pub fn resize(&mut self, cols: usize, rows: usize) {
        let mut out = std::mem::take(&mut self.preamble);
        self.presenter.resize(cols, rows, &mut out);
        self.preamble = out;
        self.dirty = true;
    }

    /// Whether a frame is wanted for pane `id` at `generation`.
    pub fn wants(&self, id: u64, generation: u64) -> bool {
        self.dirty || self.drawn != (id, generation)
    }

    /// When the next frame may go, for a display that wants one: `hold`, while the program
    /// holds synchronized output; then when the pacing allows, once the terminal has taken the
    /// last frame (until then its readiness wakes the loop, or, for a terminal polled on its
    /// own clock, the frame interval).
    pub fn due_at(&self, now: Instant, hold: Option<Instant>) -> Instant {
        if let Some(until) = hold {
            return until;
        }
        if !self.out.idle() {
            return now + self.pacer.interval();
        }
        self.pacer.due_at(now).max(self.next_frame_at)
    }

    /// Whether a frame may be built now (its terminal idle, the pacing allowing).
    pub fn ready(&mut self, now: Instant) -> bool {
        self.out.idle() && now >= self.next_frame_at && self.pacer.due(now)
    }

    /// Builds a frame of `term` (pane `id` at `generation`) as `ui` shows it; `rows` draws the
    /// rows of the ui and the front end's own over it (see [`Ui::draw`]). The engine's damage
    /// is cleared: pass `shared` when other displays show the same pane, so this one compares
    /// every cell instead of trusting the damage another display's frame cleared.
    pub fn compose<A: Copy>(
        &mut self,
        term: &mut Terminal,
        (id, generation): (u64, u64),
        ui: &mut Ui<A>,
        shared: bool,
        rows: impl FnOnce(&mut AnsiPresenter, &Ui<A>, &mut Vec<u8>),
    ) -> Vec<u8> {
        let built = Instant::now();
        if std::mem::take(&mut self.entering) {
            // What was to go before it (a clear after a resize) is part of taking over.
            self.preamble.clear();
            self.presenter.enter(&mut self.preamble);
        }
        if std::mem::take(&mut ui.dirty) || shared || self.drawn.0 != id {
            self.presenter.invalidate();
        }
        ui.copy.follow(term.screen());
        // The last frame's buffer, reused (the terminal has taken it).
        let mut frame = self.out.buffer();
        frame.append(&mut self.preamble);
        frame.append(&mut self.clipboard);
        if std::mem::take(&mut self.bell) {
            frame.push(0x07);
        }
        let screen = term.screen();
        let offset = ui.copy.offset(screen);
        self.presenter.frame(View { screen, offset }, &mut frame);
        if ui.copy.active {
            ui.copy.draw(&mut self.presenter, screen, &mut frame);
            // The marks go with the next frame.
            self.presenter.invalidate();
        }
        let drawn = frame.len();
        rows(&mut self.presenter, ui, &mut frame);
        // The cursor back where the program has it, when rows of blitty's moved it.
        if frame.len() != drawn && !ui.covers() {
            self.presenter.place_cursor(screen, &mut frame);
        }
        term.screen_mut().clear_damage();
        self.drawn = (id, generation);
        self.dirty = false;
        // The frame counts from when it was due (the pacing's clock), not from when it was
        // built: building it takes nothing from the next frame's interval.
        self.pacer.sent(built);
        let took = built.elapsed();
        if took > Duration::from_millis(1) {
            self.next_frame_at = Instant::now() + 2 * took;
        }
        frame
    }
}
