//! Progress of long command-line work (`synth`, `train`, `calibrate`, `eval`) on
//! standard error, so what a command prints on standard output (a table, JSON)
//! stays clean: on a terminal a bar with the rate and the time left; otherwise (a
//! log, CI) one plain line every [`PLAIN_EVERY`], so a long run shows it is alive
//! without filling the log. The command's own summary line follows when it ends.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use parking_lot::Mutex;

/// How often a plain line is written when standard error is not a terminal.
pub const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// How far one piece of work has come; shared by the threads doing it.
pub struct Progress {
    bar: ProgressBar,
    unit: String,
    /// When standard error is not a terminal: when the last plain line was written.
    plain: Option<Mutex<Instant>>,
    every: Duration,
}

impl Progress {
    /// `total` items of what `unit` names (`"documents"`, `"crops"`, `"steps"`),
    /// under a label saying what is done (`"synth"`, `"eval docs"`).
    pub fn new(label: &str, total: u64, unit: &str) -> Progress {
        Progress::to(
            label,
            total,
            unit,
            std::io::stderr().is_terminal(),
            PLAIN_EVERY,
        )
    }

    /// A bar on a terminal and nothing otherwise, for work whose own log lines
    /// already say how far it has come (`train`).
    pub fn bar_only(label: &str, total: u64, unit: &str) -> Progress {
        let mut progress = Progress::new(label, total, unit);
        progress.plain = None;
        progress
    }

    /// Starts the count at `done` (work resumed), the rate counting from here.
    pub fn resumed_at(self, done: u64) -> Progress {
        self.bar.set_position(done);
        self.bar.reset_eta();
        self
    }

    fn to(label: &str, total: u64, unit: &str, terminal: bool, every: Duration) -> Progress {
        let target = if terminal {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(total), target);
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "{{prefix}} {{wide_bar}} {{pos}}/{{len}} {unit} ({{per_sec}}, {{eta}} left)"
            ))
            .expect("a valid progress template"),
        );
        bar.set_prefix(label.to_owned());
        Progress {
            bar,
            unit: unit.to_owned(),
            plain: (!terminal).then(|| Mutex::new(Instant::now())),
            every,
        }
    }

    /// `n` more items done.
    pub fn add(&self, n: u64) {
        self.bar.inc(n);
        if let Some(line) = self.plain_line() {
            eprintln!("{line}");
        }
    }

    /// The plain line due now, if one is (not on a terminal, `every` since the last).
    fn plain_line(&self) -> Option<String> {
        let mut last = self.plain.as_ref()?.lock();
        if last.elapsed() < self.every {
            return None;
        }
        *last = Instant::now();
        Some(self.status())
    }

    /// Where the work stands: `synth: 1200/5000 documents (45.2/s, 84 s left)`.
    fn status(&self) -> String {
        let (done, total) = (self.bar.position(), self.bar.length().unwrap_or(0));
        let rate = self.bar.per_sec();
        let left = if rate > 0.0 {
            format!(", {:.0} s left", total.saturating_sub(done) as f64 / rate)
        } else {
            String::new()
        };
        format!(
            "{}: {done}/{total} {} ({rate:.1}/s{left})",
            self.bar.prefix(),
            self.unit
        )
    }

    /// Writes `line` on standard output without breaking the bar.
    pub fn println(&self, line: impl AsRef<str>) {
        self.bar.suspend(|| println!("{}", line.as_ref()));
    }

    /// Removes the bar: the command's summary line comes next.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_a_terminal_a_plain_line_says_how_far_and_how_fast() {
        let progress = Progress::to("synth", 10, "documents", false, Duration::ZERO);
        progress.bar.inc(4);
        let line = progress.plain_line().expect("a line is due");
        assert!(line.starts_with("synth: 4/10 documents ("), "{line}");
        assert!(
            line.ends_with(" s left)") || line.ends_with("/s)"),
            "{line}"
        );
    }

    #[test]
    fn off_a_terminal_plain_lines_are_spaced_out() {
        let progress = Progress::to("eval docs", 10, "documents", false, PLAIN_EVERY);
        progress.bar.inc(1);
        assert_eq!(progress.plain_line(), None);
    }

    #[test]
    fn on_a_terminal_no_plain_line_is_written() {
        let progress = Progress::to("train", 10, "steps", true, Duration::ZERO);
        progress.bar.inc(1);
        assert_eq!(progress.plain_line(), None);
    }
}
