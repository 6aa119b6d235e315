//! When frames go out: one pacing for every display (a host terminal, a client's socket, a
//! pixel window), so that a flood costs frames, never keys or reading.

use std::time::{Duration, Instant};

/// Output that has paused this long is "quiet": its frame goes out at once, budget allowing.
const QUIET: Duration = Duration::from_millis(3);
/// Under sustained output frames come at this fraction of `hz`.
const SUSTAINED: f64 = 0.8;
/// Frames the budget can hold: at most this many above the steady rate in any window.
const BURST: f64 = 6.0;
/// Frames other than answers to a key leave this many in the budget, for the frames that
/// answer a key (the rest of a flood after Ctrl-C, then the prompt).
const SPARE: f64 = 3.0;
/// For this long after a key is forwarded, output that pauses for ANSWER_QUIET is presented
/// from the spare: the answer to a key (an echo, the prompt after Ctrl-C) is what the user
/// waits for.
const RESPONSE: Duration = Duration::from_millis(250);
const ANSWER_QUIET: Duration = Duration::from_micros(300);

/// A token bucket of frames: `hz` a second, holding up to BURST. Over any T seconds at most
/// BURST + hz·T frames go out, so the average rate never exceeds `hz`; when the bucket is
/// empty the next frame waits at most 1/hz.
struct FrameBudget {
    hz: f64,
    tokens: f64,
    at: Instant,
}

impl FrameBudget {
    fn refill(&mut self, now: Instant) {
        self.tokens = (self.tokens + now.duration_since(self.at).as_secs_f64() * self.hz).min(BURST);
        self.at = now;
    }

    /// When `need` tokens will be there.
    fn ready_at(&self, need: f64) -> Instant {
        self.at + Duration::from_secs_f64(((need - self.tokens) / self.hz).max(0.0))
    }

    fn spend(&mut self) {
        self.tokens -= 1.0;
    }
}

/// When frames go out, one shape for every display (`blitty run`'s terminal, `blitty serial`'s,
/// each client of the session server): at most `hz` a second by a [`FrameBudget`]; under
/// sustained output at SUSTAINED of `hz`; output that pauses (QUIET) is shown at once, budget
/// allowing; and for RESPONSE after a key, the answer to it (an echo, the prompt after Ctrl-C) is
/// shown after ANSWER_QUIET, from the spare the other frames leave. While a flood goes on (never
/// quiet), frames come at the full `hz` for RESPONSE after a key instead of SUSTAINED of it, so
/// that an answer drowned in the flood waits at most 1/hz for its frame, as tmux and alacritty
/// users expect of a key during `cat` of a large file.
pub struct Pacer {
    budget: FrameBudget,
    interval: Duration,
    /// 1/hz: the interval of frames while answering a key.
    full: Duration,
    next_frame: Instant,
    last_output: Instant,
    last_key: Instant,
}

impl Pacer {
    pub fn new(hz: u32) -> Pacer {
        let hz = hz.clamp(1, 1000) as f64;
        let now = Instant::now();
        Pacer {
            budget: FrameBudget { hz, tokens: BURST, at: now },
            interval: Duration::from_secs_f64(1.0 / (hz * SUSTAINED)),
            full: Duration::from_secs_f64(1.0 / hz),
            next_frame: now,
            last_output: now,
            last_key: now - RESPONSE,
        }
    }

    /// Output arrived (what the display shows changed).
    pub fn output(&mut self, now: Instant) {
        self.last_output = now;
    }

    /// A key went to the program: its answer is what the user waits for.
    pub fn key(&mut self, now: Instant) {
        self.last_key = now;
    }

    /// A key went to the program less than RESPONSE ago.
    pub fn answering(&self, now: Instant) -> bool {
        now.duration_since(self.last_key) < RESPONSE
    }

    fn quiet(&self, now: Instant) -> (f64, Duration) {
        if self.answering(now) {
            (1.0, ANSWER_QUIET)
        } else {
            (1.0 + SPARE, QUIET)
        }
    }

    /// When the next frame may go: the earlier of the paced frame and the quiet frame, each
    /// when the budget allows.
    pub fn due_at(&self, now: Instant) -> Instant {
        let (quiet_need, quiet_wait) = self.quiet(now);
        let paced = self.next_frame.max(self.budget.ready_at(1.0 + SPARE));
        let quiet = (self.last_output + quiet_wait).max(self.budget.ready_at(quiet_need));
        let answer = if self.answering(now) { self.answer_at().max(self.budget.ready_at(1.0)) } else { paced };
        paced.min(quiet).min(answer)
    }

    /// Whether a frame may go now.
    pub fn due(&mut self, now: Instant) -> bool {
        self.budget.refill(now);
        let (quiet_need, quiet_wait) = self.quiet(now);
        (now >= self.next_frame && self.budget.tokens >= 1.0 + SPARE)
            || (now.duration_since(self.last_output) >= quiet_wait && self.budget.tokens >= quiet_need)
            || (self.answering(now) && now >= self.answer_at() && self.budget.tokens >= 1.0)
    }

    /// A frame went out.
    pub fn sent(&mut self, now: Instant) {
        self.budget.spend();
        self.next_frame = now + self.interval;
    }

    /// While answering a key: 1/hz after the last frame (which went `interval` before the next
    /// sustained one is due).
    fn answer_at(&self) -> Instant {
        self.next_frame - self.interval + self.full
    }

    /// The sustained frame interval (a host still taking the last frame is looked at again after it).
    pub fn interval(&self) -> Duration {
        self.interval
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flood at 60 Hz (output every 0.1 ms for 3 s, a frame whenever one is due), with a
    /// key every `keys` (or none): the frame times.
    fn flood(keys: Option<Duration>) -> Vec<Duration> {
        let mut p = Pacer::new(60);
        let start = Instant::now();
        let mut frames = Vec::new();
        let mut next_key = keys.map(|_| Duration::ZERO);
        for step in 0..30_000u32 {
            let t = Duration::from_micros(100) * step;
            let now = start + t;
            if let (Some(k), Some(every)) = (next_key, keys) {
                if t >= k {
                    p.key(now);
                    next_key = Some(k + every);
                }
            }
            p.output(now);
            if p.due(now) {
                p.sent(now);
                frames.push(t);
            }
        }
        frames
    }

    fn in_window(frames: &[Duration], from: f64, to: f64) -> usize {
        frames.iter().filter(|t| (from..to).contains(&t.as_secs_f64())).count()
    }

    #[test]
    fn a_flood_gets_the_sustained_rate_and_a_key_during_it_the_full_rate() {
        let plain = flood(None);
        let n = in_window(&plain, 1.0, 2.0);
        assert!((46..=50).contains(&n), "{n} frames a second without keys (80% of 60)");
        let typing = flood(Some(Duration::from_millis(200)));
        let n = in_window(&typing, 1.0, 2.0);
        assert!((58..=60).contains(&n), "{n} frames a second while answering keys");
        // While answering, no frame waits more than 1/hz (plus the 0.1 ms step).
        let gaps = typing.windows(2).filter(|w| w[0].as_secs_f64() > 0.5).map(|w| w[1] - w[0]);
        assert!(gaps.max().unwrap() <= Duration::from_micros(16_767), "a frame waited longer than 1/hz");
        // Never above hz on average: at most hz + BURST in any second.
        for f in [&plain, &typing] {
            for w in 0..20 {
                let from = w as f64 * 0.1;
                assert!(in_window(f, from, from + 1.0) <= 60 + BURST as usize);
            }
        }
    }
}
