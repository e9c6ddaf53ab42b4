//! From a transcript's probability to the probability that the line is exact.
//!
//! The decoder hedges: trained on heavily degraded crops, it gives whole-line
//! probabilities far below how often such lines are right (on tuning crops, lines
//! it scored 0.2 to 0.4 were 83 to 92 % exact). A logistic map over the
//! transcript's negative log-probability and its length, both on a log scale
//! (together about the per-character uncertainty), fixes that. `hawiya calibrate`
//! fits it on held-out crops and saves it beside the weights as
//! `calibration.json`; a model without one reports the raw probability.

use serde::{Deserialize, Serialize};

/// Keeps the logarithm finite for a transcript read with certainty.
const NLL_FLOOR: f32 = 1e-3;

/// `P(exact) = σ(bias + log_nll · ln(−log p + ε) + log_length · ln(chars + 1))`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub bias: f32,
    pub log_nll: f32,
    pub log_length: f32,
}

/// One held-out line: the transcript's log-probability, its length in characters
/// and whether it was exact.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    pub log_prob: f32,
    pub chars: usize,
    pub exact: bool,
}

fn features(log_prob: f32, chars: usize) -> [f64; 3] {
    let nll = f64::from((-log_prob).max(0.0) + NLL_FLOOR);
    [1.0, nll.ln(), (chars as f64 + 1.0).ln()]
}

/// The logistic model's probability for weights `w` and features `x`.
fn predict(w: &[f64; 3], x: &[f64; 3]) -> f64 {
    let z: f64 = x.iter().zip(w).map(|(x, w)| x * w).sum();
    1.0 / (1.0 + (-z).exp())
}

impl Calibration {
    /// The probability that a transcript of `chars` characters read with
    /// `log_prob` is exact.
    pub fn probability(&self, log_prob: f32, chars: usize) -> f32 {
        let w = [self.bias, self.log_nll, self.log_length].map(f64::from);
        predict(&w, &features(log_prob, chars)) as f32
    }

    /// [`Calibration::probability`] of transcript `text`.
    pub fn of_transcript(&self, log_prob: f32, text: &str) -> f32 {
        self.probability(log_prob, text.chars().count())
    }

    /// Maximum-likelihood fit by Newton's method (the logistic loss is convex in
    /// three parameters). `None` when the samples hold no exact line or no wrong one:
    /// nothing to tell apart.
    pub fn fit(samples: &[Sample]) -> Option<Calibration> {
        let exact = samples.iter().filter(|s| s.exact).count();
        if exact == 0 || exact == samples.len() {
            return None;
        }
        let xs: Vec<([f64; 3], f64)> = samples
            .iter()
            .map(|s| (features(s.log_prob, s.chars), f64::from(u8::from(s.exact))))
            .collect();
        let mut w = [0f64; 3];
        for _ in 0..50 {
            let mut gradient = [0f64; 3];
            // A small ridge keeps the step defined when the classes separate.
            let mut hessian = [[0f64; 3]; 3];
            for (i, row) in hessian.iter_mut().enumerate() {
                row[i] = 1e-6 * xs.len() as f64;
            }
            for (x, y) in &xs {
                let p = predict(&w, x);
                for i in 0..3 {
                    gradient[i] += (p - y) * x[i];
                    for j in 0..3 {
                        hessian[i][j] += p * (1.0 - p) * x[i] * x[j];
                    }
                }
            }
            let step = solve3(hessian, gradient)?;
            for (w, s) in w.iter_mut().zip(step) {
                *w -= s;
            }
            if step.iter().map(|s| s.abs()).fold(0.0, f64::max) < 1e-9 {
                break;
            }
        }
        w.iter().all(|v| v.is_finite()).then_some(Calibration {
            bias: w[0] as f32,
            log_nll: w[1] as f32,
            log_length: w[2] as f32,
        })
    }
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting.
fn solve3(mut a: [[f64; 3]; 3], mut b: [f64; 3]) -> Option<[f64; 3]> {
    for col in 0..3 {
        let pivot = (col..3).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..3 {
            let factor = a[row][col] / a[col][col];
            let pivot_row = a[col];
            for (x, p) in a[row][col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= factor * p;
            }
            b[row] -= factor * b[col];
        }
    }
    let mut x = [0f64; 3];
    for row in (0..3).rev() {
        let rest: f64 = (row + 1..3).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - rest) / a[row][row];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn recovers_the_map_that_generated_the_outcomes() {
        let truth = Calibration {
            bias: 1.5,
            log_nll: -1.8,
            log_length: 1.2,
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let samples: Vec<Sample> = (0..20_000)
            .map(|_| {
                let log_prob = -rng.random_range(0.0f32..8.0);
                let chars = rng.random_range(1..40);
                let p = truth.probability(log_prob, chars);
                Sample {
                    log_prob,
                    chars,
                    exact: rng.random_bool(f64::from(p)),
                }
            })
            .collect();
        let fitted = Calibration::fit(&samples).unwrap();
        for log_prob in [0.0, -0.1, -0.5, -1.0, -2.0, -4.0, -8.0] {
            for chars in [1, 5, 14, 39] {
                let (want, got) = (
                    truth.probability(log_prob, chars),
                    fitted.probability(log_prob, chars),
                );
                assert!(
                    (want - got).abs() < 0.03,
                    "{fitted:?} at {log_prob}, {chars}"
                );
            }
        }
    }

    #[test]
    fn probability_falls_with_uncertainty_and_nothing_to_separate_fits_nothing() {
        let c = Calibration {
            bias: 2.0,
            log_nll: -1.7,
            log_length: 1.4,
        };
        let sure = c.probability(0.0, 14);
        let unsure = c.probability(-3.0, 14);
        assert!(sure > 0.99 && unsure < sure && unsure > 0.0);
        let all_exact = [Sample {
            log_prob: -0.1,
            chars: 5,
            exact: true,
        }; 10];
        assert_eq!(Calibration::fit(&all_exact), None);
    }
}
