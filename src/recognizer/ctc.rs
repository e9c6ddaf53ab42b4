//! Connectionist temporal classification for the auxiliary encoder head: the loss
//! and its gradient (candle has no CTC op, so the forward-backward recursion runs
//! on the host and the gradient is injected through a surrogate), plus greedy
//! decoding with per-character probabilities.

use super::vocab::PAD;

/// The CTC blank shares the padding id; padding never appears in CTC targets.
pub const BLANK: u32 = PAD;

fn log_add(a: f64, b: f64) -> f64 {
    if a == f64::NEG_INFINITY {
        return b;
    }
    if b == f64::NEG_INFINITY {
        return a;
    }
    let m = a.max(b);
    m + ((a - m).exp() + (b - m).exp()).ln()
}

/// The CTC lattice of one target: labels interleaved with blanks.
struct Lattice<'a> {
    logp: &'a [f32],
    frames: usize,
    vocab: usize,
    target: &'a [u32],
}

impl Lattice<'_> {
    fn states(&self) -> usize {
        2 * self.target.len() + 1
    }

    fn label(&self, s: usize) -> u32 {
        if s.is_multiple_of(2) {
            BLANK
        } else {
            self.target[s / 2]
        }
    }

    fn lp(&self, t: usize, k: u32) -> f64 {
        self.logp[t * self.vocab + k as usize] as f64
    }

    /// A transition into `s` may skip the blank between two different labels.
    fn can_skip(&self, s: usize) -> bool {
        s >= 2 && s % 2 == 1 && self.label(s) != self.label(s - 2)
    }

    /// Forward variables (frames x states) and log p(target); `None` when no
    /// alignment exists (the target needs more frames than the crop has).
    fn forward(&self) -> Option<(Vec<f64>, f64)> {
        let (frames, s_len) = (self.frames, self.states());
        if frames == 0 {
            return None;
        }
        let neg = f64::NEG_INFINITY;
        let mut alpha = vec![neg; frames * s_len];
        alpha[0] = self.lp(0, BLANK);
        if s_len > 1 {
            alpha[1] = self.lp(0, self.label(1));
        }
        for t in 1..frames {
            for s in 0..s_len {
                let prev = &alpha[(t - 1) * s_len..t * s_len];
                let mut a = prev[s];
                if s >= 1 {
                    a = log_add(a, prev[s - 1]);
                }
                if self.can_skip(s) {
                    a = log_add(a, prev[s - 2]);
                }
                alpha[t * s_len + s] = if a == neg {
                    neg
                } else {
                    a + self.lp(t, self.label(s))
                };
            }
        }
        let last = &alpha[(frames - 1) * s_len..];
        let log_p = if s_len > 1 {
            log_add(last[s_len - 1], last[s_len - 2])
        } else {
            last[0]
        };
        log_p.is_finite().then_some((alpha, log_p))
    }
}

/// Negative log-likelihood of `target` given frame log-probabilities `logp`
/// (`frames` x `vocab`, row-major, already log-softmaxed): the forward pass alone,
/// for scoring. `None` when no alignment exists.
pub fn nll(logp: &[f32], frames: usize, vocab: usize, target: &[u32]) -> Option<f64> {
    let lattice = Lattice {
        logp,
        frames,
        vocab,
        target,
    };
    lattice.forward().map(|(_, log_p)| -log_p)
}

/// [`nll`] and its gradient with respect to the pre-softmax logits, for training.
pub fn loss_and_grad(
    logp: &[f32],
    frames: usize,
    vocab: usize,
    target: &[u32],
) -> Option<(f64, Vec<f32>)> {
    let lattice = Lattice {
        logp,
        frames,
        vocab,
        target,
    };
    let (alpha, log_p) = lattice.forward()?;
    let s_len = lattice.states();
    let (label, lp, can_skip) = (
        |s| lattice.label(s),
        |t, k| lattice.lp(t, k),
        |s| lattice.can_skip(s),
    );
    let neg = f64::NEG_INFINITY;
    let mut beta = vec![neg; frames * s_len];
    beta[(frames - 1) * s_len + s_len - 1] = lp(frames - 1, label(s_len - 1));
    if s_len > 1 {
        beta[(frames - 1) * s_len + s_len - 2] = lp(frames - 1, label(s_len - 2));
    }
    for t in (0..frames - 1).rev() {
        for s in 0..s_len {
            let next = &beta[(t + 1) * s_len..(t + 2) * s_len];
            let mut b = next[s];
            if s + 1 < s_len {
                b = log_add(b, next[s + 1]);
            }
            if s + 2 < s_len && can_skip(s + 2) {
                b = log_add(b, next[s + 2]);
            }
            beta[t * s_len + s] = if b == neg { neg } else { b + lp(t, label(s)) };
        }
    }
    // d(-log p)/d u_tk = y_tk - (1 / p) * sum_{s: label(s) = k} alpha_t(s) beta_t(s) / y_tk
    let mut grad: Vec<f32> = logp.iter().map(|&l| l.exp()).collect();
    for t in 0..frames {
        for s in 0..s_len {
            let ab = alpha[t * s_len + s] + beta[t * s_len + s];
            if ab == neg {
                continue;
            }
            let k = label(s);
            let occupancy = (ab - lp(t, k) - log_p).exp();
            grad[t * vocab + k as usize] -= occupancy as f32;
        }
    }
    Some((-log_p, grad))
}

/// Best path decoding: the most likely token per frame, repeats merged, blanks
/// dropped. Returns the token ids and, for each, the highest probability among the
/// frames that produced it.
pub fn greedy(logp: &[f32], frames: usize, vocab: usize) -> (Vec<u32>, Vec<f32>) {
    let mut ids = Vec::new();
    let mut probs: Vec<f32> = Vec::new();
    let mut prev = BLANK;
    for t in 0..frames {
        let row = &logp[t * vocab..(t + 1) * vocab];
        let (best, lp) =
            row.iter()
                .enumerate()
                .fold((0usize, f32::NEG_INFINITY), |acc, (i, &l)| {
                    if l > acc.1 { (i, l) } else { acc }
                });
        let best = best as u32;
        if best != BLANK && best != prev {
            ids.push(best);
            probs.push(lp.exp());
        } else if best != BLANK
            && best == prev
            && let Some(p) = probs.last_mut()
        {
            *p = p.max(lp.exp());
        }
        prev = best;
    }
    (ids, probs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_softmax(row: &[f32]) -> Vec<f32> {
        let m = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        let z: f32 = row.iter().map(|&x| (x - m).exp()).sum::<f32>().ln() + m;
        row.iter().map(|&x| x - z).collect()
    }

    /// Brute force: sum over every frame labelling that collapses to the target.
    fn brute_force(logp: &[f32], frames: usize, vocab: usize, target: &[u32]) -> f64 {
        let mut total = 0f64;
        let mut path = vec![0u32; frames];
        loop {
            let mut collapsed = Vec::new();
            let mut prev = BLANK;
            for &k in &path {
                if k != BLANK && k != prev {
                    collapsed.push(k);
                }
                prev = k;
            }
            if collapsed == target {
                total += path
                    .iter()
                    .enumerate()
                    .map(|(t, &k)| logp[t * vocab + k as usize] as f64)
                    .sum::<f64>()
                    .exp();
            }
            let mut i = 0;
            loop {
                if i == frames {
                    return -total.ln();
                }
                path[i] += 1;
                if path[i] < vocab as u32 {
                    break;
                }
                path[i] = 0;
                i += 1;
            }
        }
    }

    fn random_logp(frames: usize, vocab: usize, seed: u32) -> (Vec<f32>, Vec<f32>) {
        let mut state = seed;
        let logits: Vec<f32> = (0..frames * vocab)
            .map(|_| {
                state = state.wrapping_mul(1664525).wrapping_add(1013904223);
                (state >> 8) as f32 / (1u32 << 24) as f32 * 4.0 - 2.0
            })
            .collect();
        let logp = logits.chunks(vocab).flat_map(log_softmax).collect();
        (logits, logp)
    }

    #[test]
    fn loss_matches_brute_force_and_gradient_matches_finite_differences() {
        let (frames, vocab) = (5, 4);
        for (seed, target) in [
            (1, vec![1u32, 2]),
            (2, vec![3, 3]),
            (3, vec![2]),
            (4, vec![]),
        ] {
            let (logits, logp) = random_logp(frames, vocab, seed);
            let (loss, grad) = loss_and_grad(&logp, frames, vocab, &target).unwrap();
            assert_eq!(nll(&logp, frames, vocab, &target), Some(loss));
            assert!(
                (loss - brute_force(&logp, frames, vocab, &target)).abs() < 1e-4,
                "{target:?}"
            );
            for i in [0, 3, 7, 12, 19] {
                let mut bumped = logits.clone();
                bumped[i] += 1e-2;
                let lp2: Vec<f32> = bumped.chunks(vocab).flat_map(log_softmax).collect();
                let (loss2, _) = loss_and_grad(&lp2, frames, vocab, &target).unwrap();
                let numeric = (loss2 - loss) / 1e-2;
                assert!(
                    (numeric - grad[i] as f64).abs() < 2e-2,
                    "{i}: {numeric} vs {}",
                    grad[i]
                );
            }
        }
    }

    #[test]
    fn impossible_alignments_and_greedy_collapse() {
        let (_, logp) = random_logp(2, 4, 5);
        assert!(loss_and_grad(&logp, 2, 4, &[1, 1]).is_none());
        assert!(nll(&logp, 2, 4, &[1, 1]).is_none());
        // frames: a a blank a b -> "a a b"
        let mut lp = vec![-10f32; 5 * 3];
        for (t, k) in [(0, 1), (1, 1), (2, 0), (3, 1), (4, 2)] {
            lp[t * 3 + k] = -0.1;
        }
        let (ids, probs) = greedy(&lp, 5, 3);
        assert_eq!(ids, vec![1, 1, 2]);
        assert_eq!(probs.len(), 3);
    }
}
