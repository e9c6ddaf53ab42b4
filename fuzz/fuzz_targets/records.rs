//! Post-processing and the record builders: any readings of any document kind give
//! both JSON records, every Flow A value a string, never a panic.
//!
//! Input: a kind byte, then lines `key<TAB>confidence<TAB>text` (one hypothesis each;
//! a key repeated adds hypotheses).
#![no_main]

use hawiya::domain::DocumentKind;
use hawiya::pipeline::post::{Candidate, LineReading, Readings, post_process};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&kind, rest)) = data.split_first() else {
        return;
    };
    let kind = DocumentKind::ALL[usize::from(kind) % DocumentKind::ALL.len()];
    let text = String::from_utf8_lossy(rest);
    let mut readings = Readings::new();
    for line in text.lines() {
        let mut parts = line.splitn(3, '\t');
        let (Some(key), Some(confidence), Some(read)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let confidence = confidence
            .parse::<f32>()
            .ok()
            .filter(|c| c.is_finite())
            .unwrap_or(0.5)
            .clamp(0.0, 1.0);
        readings
            .entry(key.to_owned())
            .or_insert_with(|| LineReading::new(Vec::new()))
            .candidates
            .push(Candidate::new(read, confidence));
    }
    let processed = post_process(kind, &readings);
    let flow_a = serde_json::to_value(&processed.flow_a).expect("Flow A serializes");
    assert!(
        flow_a
            .as_object()
            .expect("an object")
            .values()
            .all(|v| v.is_string())
    );
    serde_json::to_vec(&processed.flow_b).expect("Flow B serializes");
    assert!((0.0..=1.0).contains(&processed.confidence));
});
