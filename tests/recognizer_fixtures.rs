//! The shipped recognizer (models/recognizer) reads the committed fixture crops
//! (tests/fixtures/lines: held-out generator seed 4242, 8 crops per category).

use std::path::Path;

use hawiya::recognizer::eval::evaluate;
use hawiya::recognizer::{DecodeOptions, ModelSource, Recognizer};
use hawiya::synth::render::FontSet;

#[test]
fn shipped_model_reads_the_fixture_crops() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let recognizer = Recognizer::load(&ModelSource::Dir(root.join("models/recognizer")))
        .expect("shipped model loads");
    let (report, pairs) = evaluate(
        &recognizer,
        &root.join("tests/fixtures/lines"),
        FontSet::All,
        DecodeOptions::greedy(),
        16,
    )
    .unwrap();
    for (label, reading) in pairs.iter().filter(|(l, r)| l.text != r.best.text) {
        eprintln!(
            "{:?}: {:?} read as {:?}",
            label.category, label.text, reading.best.text
        );
    }
    eprint!("{}", report.table());
    assert_eq!(report.all.lines, 48);
    assert!(report.all.cer() <= MAX_CER, "CER {}", report.all.cer());
    assert!(
        report.all.exact_rate() >= MIN_EXACT,
        "exact {}",
        report.all.exact_rate()
    );
    for (_, reading) in &pairs {
        assert_eq!(
            reading.best.char_probs.len(),
            reading.best.text.chars().count()
        );
        assert!((0.0..=1.0).contains(&reading.best.confidence));
    }
}

/// Regression floor for the shipped model, set from its measured fixture figures
/// with some margin: CER 0.6 %, exact 91.7 % after 390 minutes of training; CER
/// 1.8 %, exact 87.5 % after 490 (two more of these 48 crops wrong, while 2,000
/// held-out crops went from 92.8 to 94.7 % exact); CER 0.9 %, exact 89.6 % after
/// 605; CER 0.8 %, exact 95.8 % after 723; CER 1.2 %, exact 91.7 % after 818; CER
/// 0.9 %, exact 93.8 % after 928. Still below the targets: raise these as the
/// model improves.
const MAX_CER: f64 = 0.03;
const MIN_EXACT: f64 = 0.83;
