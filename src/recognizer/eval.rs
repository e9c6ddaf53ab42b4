//! Accuracy on labelled line crops (`hawiya synth --lines` output): character error
//! rate and exact-line rate per category.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use serde::Serialize;

use super::decode::{DecodeOptions, Reading};
use super::recognize::Recognizer;
use crate::domain::edit;
use crate::layout::LineCategory;
use crate::progress::Progress;
use crate::synth::labels::LineLabel;
use crate::synth::render::{FontSet, Inventory};

/// Running totals for one category.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tally {
    pub lines: usize,
    pub exact: usize,
    pub errors: usize,
    pub chars: usize,
}

impl Tally {
    pub fn add(&mut self, truth: &str, read: &str) {
        self.lines += 1;
        self.exact += usize::from(truth == read);
        self.errors += edit::distance(truth, read);
        self.chars += truth.chars().count();
    }

    pub fn cer(&self) -> f64 {
        self.errors as f64 / self.chars.max(1) as f64
    }

    pub fn exact_rate(&self) -> f64 {
        self.exact as f64 / self.lines.max(1) as f64
    }
}

/// The figures `--json` prints per category.
#[derive(Debug, Clone, Serialize)]
pub struct CategoryScore {
    pub cer: f64,
    pub exact: f64,
    pub count: usize,
}

/// Upper bounds of the confidence bins of the reliability table.
const CONFIDENCE_BINS: [f32; 6] = [0.2, 0.4, 0.6, 0.8, 0.95, 1.0];

/// Lines read with a confidence in one bin, and how many of them were exact.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct ReliabilityBin {
    /// Confidences in `(previous bin's max, max]` (the first bin starts at 0).
    pub max: f32,
    pub count: usize,
    pub mean_confidence: f64,
    pub exact: f64,
}

/// Whether a reading's confidence means what it says: per bin, the mean confidence
/// beside the exact rate, and the expected calibration error (their gap, weighted
/// by the bins' sizes).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Reliability {
    pub bins: Vec<ReliabilityBin>,
    pub expected_calibration_error: f64,
}

impl Reliability {
    pub fn of(readings: impl IntoIterator<Item = (f32, bool)>) -> Reliability {
        let mut sums = [(0usize, 0f64, 0usize); CONFIDENCE_BINS.len()];
        for (confidence, exact) in readings {
            let bin = CONFIDENCE_BINS
                .iter()
                .position(|&max| confidence <= max)
                .unwrap_or(CONFIDENCE_BINS.len() - 1);
            sums[bin].0 += 1;
            sums[bin].1 += f64::from(confidence);
            sums[bin].2 += usize::from(exact);
        }
        let total: usize = sums.iter().map(|s| s.0).sum();
        let mut reliability = Reliability::default();
        for (&max, &(count, confidence, exact)) in CONFIDENCE_BINS.iter().zip(&sums) {
            if count == 0 {
                continue;
            }
            let bin = ReliabilityBin {
                max,
                count,
                mean_confidence: confidence / count as f64,
                exact: exact as f64 / count as f64,
            };
            reliability.expected_calibration_error +=
                (bin.mean_confidence - bin.exact).abs() * count as f64 / total as f64;
            reliability.bins.push(bin);
        }
        reliability
    }

    pub fn table(&self) -> String {
        let mut out = format!(
            "{:<12} {:>7} {:>12} {:>9}\n",
            "confidence", "lines", "mean conf %", "exact %"
        );
        let mut low = 0.0;
        for bin in &self.bins {
            out += &format!(
                "{:<12} {:>7} {:>12.1} {:>9.1}\n",
                format!("{low:.2}-{:.2}", bin.max),
                bin.count,
                100.0 * bin.mean_confidence,
                100.0 * bin.exact
            );
            low = bin.max;
        }
        out + &format!(
            "expected calibration error {:.1} %\n",
            100.0 * self.expected_calibration_error
        )
    }
}

/// One font family's lines: all of them and per category.
#[derive(Debug, Clone, Default)]
pub struct FamilyTally {
    pub all: Tally,
    pub categories: BTreeMap<LineCategory, Tally>,
}

/// Per-category tallies plus an `all` row, the same per font family, and the
/// reliability of the confidences.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub categories: BTreeMap<LineCategory, Tally>,
    pub all: Tally,
    /// By the family the line is printed in (lines whose folder does not say are
    /// left out).
    pub families: BTreeMap<String, FamilyTally>,
    /// (confidence, exact) of every line.
    confidences: Vec<(f32, bool)>,
}

/// The categories the per-family table shows, beside all lines.
const FAMILY_COLUMNS: [LineCategory; 3] = [
    LineCategory::Name,
    LineCategory::Address,
    LineCategory::NationalId,
];

impl Report {
    pub fn add(&mut self, label: &LineLabel, reading: &Reading) {
        let (truth, read) = (label.text.as_str(), reading.best.text.as_str());
        self.categories
            .entry(label.category)
            .or_default()
            .add(truth, read);
        self.all.add(truth, read);
        if let Some(font) = &label.font {
            let family = self.families.entry(font.clone()).or_default();
            family.all.add(truth, read);
            family
                .categories
                .entry(label.category)
                .or_default()
                .add(truth, read);
        }
        self.confidences
            .push((reading.best.confidence, truth == read));
    }

    pub fn reliability(&self) -> Reliability {
        Reliability::of(self.confidences.iter().copied())
    }

    pub fn to_json(&self) -> serde_json::Value {
        let score = |t: &Tally| CategoryScore {
            cer: t.cer(),
            exact: t.exact_rate(),
            count: t.lines,
        };
        let mut map = serde_json::Map::new();
        for (c, t) in &self.categories {
            let key = serde_json::to_value(c)
                .expect("categories serialise")
                .as_str()
                .unwrap_or_default()
                .to_string();
            map.insert(
                key,
                serde_json::to_value(score(t)).expect("scores serialise"),
            );
        }
        map.insert(
            "all".into(),
            serde_json::to_value(score(&self.all)).expect("scores serialise"),
        );
        map.insert(
            "reliability".into(),
            serde_json::to_value(self.reliability()).expect("bins serialise"),
        );
        let families: serde_json::Map<String, serde_json::Value> = self
            .families
            .iter()
            .map(|(name, tally)| {
                let family = Inventory::builtin().family(name);
                let categories: serde_json::Map<String, serde_json::Value> = tally
                    .categories
                    .iter()
                    .map(|(c, t)| (category_name(*c), serde_json::json!(score(t))))
                    .collect();
                let value = serde_json::json!({
                    "split": family.map(|f| f.split_name()),
                    "class": family.map(|f| f.class_name()),
                    "count": tally.all.lines,
                    "cer": tally.all.cer(),
                    "exact": tally.all.exact_rate(),
                    "categories": categories,
                });
                (name.clone(), value)
            })
            .collect();
        map.insert("families".into(), serde_json::Value::Object(families));
        serde_json::Value::Object(map)
    }

    /// Per font family: split, class, lines, CER and exact rate of all its lines,
    /// and the exact rate of its names, addresses and national IDs.
    pub fn families_table(&self) -> String {
        let mut out = format!(
            "{:<30} {:<9} {:<10} {:>6} {:>7} {:>8}",
            "family", "split", "class", "lines", "CER %", "exact %"
        );
        for c in FAMILY_COLUMNS {
            out += &format!(" {:>13}", format!("{} %", category_name(c)));
        }
        out.push('\n');
        for (name, tally) in &self.families {
            let family = Inventory::builtin().family(name);
            out += &format!(
                "{name:<30} {:<9} {:<10} {:>6} {:>7.2} {:>8.1}",
                family.map_or("?", |f| f.split_name()),
                family.map_or("?", |f| f.class_name()),
                tally.all.lines,
                100.0 * tally.all.cer(),
                100.0 * tally.all.exact_rate()
            );
            for c in FAMILY_COLUMNS {
                let cell = tally.categories.get(&c).map_or("–".to_string(), |t| {
                    format!("{:.1} ({})", 100.0 * t.exact_rate(), t.lines)
                });
                out += &format!(" {cell:>13}");
            }
            out.push('\n');
        }
        out
    }

    pub fn table(&self) -> String {
        let mut out = format!(
            "{:<12} {:>7} {:>9} {:>9}\n",
            "category", "lines", "CER %", "exact %"
        );
        let row = |name: &str, t: &Tally| {
            format!(
                "{name:<12} {:>7} {:>9.3} {:>9.2}\n",
                t.lines,
                100.0 * t.cer(),
                100.0 * t.exact_rate()
            )
        };
        for (c, t) in &self.categories {
            out += &row(&category_name(*c), t);
        }
        out + &row("all", &self.all)
    }
}

/// A category's name as `labels.jsonl` spells it (`national_id`).
fn category_name(category: LineCategory) -> String {
    serde_json::to_value(category)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// Reads every labelled crop of `dir` printed in the font families of `fonts`, in
/// width-sorted batches. Returns the report and the readings in label order.
pub fn evaluate(
    recognizer: &Recognizer,
    dir: &Path,
    fonts: FontSet,
    options: DecodeOptions,
    batch_size: usize,
) -> anyhow::Result<(Report, Vec<(LineLabel, Reading)>)> {
    let mut labels = Vec::new();
    for label in LineLabel::read_all(dir)? {
        if fonts
            .admits(label.font.as_deref())
            .with_context(|| format!("{}: {}", dir.display(), label.file))?
        {
            labels.push(label);
        }
    }
    anyhow::ensure!(
        !labels.is_empty(),
        "{} holds no crop printed in the {fonts} fonts",
        dir.display()
    );
    let inputs = labels
        .iter()
        .map(|l| Ok(recognizer.prepare(&l.crop(dir)?)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut order: Vec<usize> = (0..labels.len()).collect();
    order.sort_by_key(|&i| inputs[i].width);
    let mut readings: Vec<Option<Reading>> = vec![None; labels.len()];
    let progress = Progress::new("reading crops", labels.len() as u64, "crops");
    for chunk in order.chunks(batch_size.max(1)) {
        let batch: Vec<_> = chunk.iter().map(|&i| &inputs[i]).collect();
        for (&i, r) in chunk
            .iter()
            .zip(recognizer.recognize_prepared(&batch, options)?)
        {
            readings[i] = Some(r);
        }
        progress.add(chunk.len() as u64);
    }
    progress.finish();
    let mut report = Report::default();
    let pairs: Vec<(LineLabel, Reading)> = labels
        .into_iter()
        .zip(readings)
        .map(|(l, r)| (l, r.expect("every crop was read")))
        .collect();
    for (l, r) in &pairs {
        report.add(l, r);
    }
    Ok((report, pairs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tallies_count_exact_lines_per_font_family() {
        let mut r = Report::default();
        let label = |text: &str, font: Option<&str>| LineLabel {
            file: String::new(),
            text: text.into(),
            category: LineCategory::Name,
            font: font.map(String::from),
        };
        r.add(
            &label("محمد", Some("Lateef")),
            &Reading::of_text("محمد", 0.9),
        );
        r.add(
            &label("احمد", Some("Amiri")),
            &Reading::of_text("أحمد", 0.7),
        );
        r.add(&label("علي", None), &Reading::of_text("علي", 0.9));
        assert_eq!(r.families["Lateef"].all.exact, 1);
        assert_eq!(r.families["Amiri"].all.exact, 0);
        assert_eq!(
            r.families.len(),
            2,
            "a line of no recorded family is in no row"
        );
        let table = r.families_table();
        assert!(
            table.contains("Lateef") && table.contains("held-out"),
            "{table}"
        );
        r = {
            let mut r = Report::default();
            r.add(&label("محمد", None), &Reading::of_text("محمد", 0.9));
            r.add(&label("احمد", None), &Reading::of_text("أحمد", 0.7));
            r
        };
        let t = r.categories[&LineCategory::Name];
        assert_eq!((t.lines, t.exact, t.errors, t.chars), (2, 1, 1, 8));
        assert!((t.cer() - 0.125).abs() < 1e-9);
        let json = r.to_json();
        assert_eq!(json["name"]["count"], 2);
        assert_eq!(json["all"]["exact"], 0.5);
        let bins = &json["reliability"]["bins"];
        assert_eq!(bins[0]["max"].as_f64().map(|m| m as f32), Some(0.8));
        assert_eq!(bins[0]["exact"], 0.0);
        assert_eq!(bins[1]["exact"], 1.0);
        let ece = json["reliability"]["expected_calibration_error"]
            .as_f64()
            .unwrap();
        assert!((ece - 0.5 * (0.7 + 0.1)).abs() < 1e-6, "{ece}");
    }
}
