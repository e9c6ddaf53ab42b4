//! Readings built by hand for the post-processing unit tests.

use super::{Candidate, LineReading, Readings};

/// One confident reading per field: `(key, text)` pairs.
pub fn confident(pairs: &[(&str, &str)]) -> Readings {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), LineReading::single(*v, 0.9)))
        .collect()
}

/// Several hypotheses of one field, best first: `(text, confidence)` pairs.
pub fn hypotheses(key: &str, texts: &[(&str, f32)]) -> Readings {
    let candidates = texts
        .iter()
        .map(|(t, c)| Candidate {
            text: (*t).into(),
            confidence: *c,
        })
        .collect();
    Readings::from([(key.to_owned(), LineReading { candidates })])
}
