//! Readings built by hand for the post-processing unit tests.

use super::{Candidate, Checked, LineReading, Readings};

/// One confident reading per field: `(key, text)` pairs.
pub fn confident(pairs: &[(&str, &str)]) -> Readings {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), LineReading::single(*v, 0.9)))
        .collect()
}

/// Several hypotheses of one field, best first: `(text, confidence)` pairs.
pub fn hypotheses(key: &str, texts: &[(&str, f32)]) -> Readings {
    let candidates = texts.iter().map(|(t, c)| Candidate::new(*t, *c)).collect();
    reading(key, candidates)
}

/// What a field `rule` makes of `line`, read confidently as its only hypothesis.
pub fn read_alone(rule: impl Fn(&Readings, &str) -> Option<Checked>, line: &str) -> Checked {
    rule(&confident(&[("line", line)]), "line").expect("a reading")
}

/// One hypothesis of `text` whose characters have the runner-ups `rivals`:
/// `(position, rival, relative probability)`.
pub fn with_rivals(text: &str, confidence: f32, rivals: &[(usize, char, f32)]) -> Candidate {
    let mut candidate = Candidate::new(text, confidence);
    candidate.rivals = vec![Vec::new(); text.chars().count()];
    for &(position, rival, relative) in rivals {
        candidate.rivals[position].push((rival, relative));
    }
    candidate
}

/// The readings of one field: `candidates`, best first.
pub fn reading(key: &str, candidates: Vec<Candidate>) -> Readings {
    Readings::from([(key.to_owned(), LineReading::new(candidates))])
}
