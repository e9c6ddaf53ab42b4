//! Accuracy on labelled line crops (`hawiya synth --lines` output): character error
//! rate and exact-line rate per category.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use super::decode::{DecodeOptions, Reading};
use super::reader::Recognizer;
use crate::synth::LineCategory;

/// One line of `labels.jsonl`.
#[derive(Debug, Clone, Deserialize)]
pub struct LineLabel {
    pub file: String,
    pub text: String,
    pub category: LineCategory,
}

pub fn read_labels(dir: &Path) -> anyhow::Result<Vec<LineLabel>> {
    let path = dir.join("labels.jsonl");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).with_context(|| format!("{}:{}", path.display(), i + 1))
        })
        .collect()
}

/// Levenshtein distance over characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let sub = prev[j - 1] + usize::from(a[i - 1] != b[j - 1]);
            cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

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
        self.errors += edit_distance(truth, read);
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

/// Per-category tallies plus an `all` row.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub categories: BTreeMap<LineCategory, Tally>,
    pub all: Tally,
}

impl Report {
    pub fn add(&mut self, category: LineCategory, truth: &str, read: &str) {
        self.categories
            .entry(category)
            .or_default()
            .add(truth, read);
        self.all.add(truth, read);
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
        serde_json::Value::Object(map)
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
            let name = serde_json::to_value(c)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default();
            out += &row(&name, t);
        }
        out + &row("all", &self.all)
    }
}

/// Reads every labelled crop of `dir` in width-sorted batches. Returns the report
/// and the readings in label order.
pub fn evaluate(
    recognizer: &Recognizer,
    dir: &Path,
    options: DecodeOptions,
    batch_size: usize,
) -> anyhow::Result<(Report, Vec<(LineLabel, Reading)>)> {
    let labels = read_labels(dir)?;
    let inputs = labels
        .iter()
        .map(|l| {
            let path = dir.join(&l.file);
            let img = image::open(&path)
                .with_context(|| format!("reading {}", path.display()))?
                .to_luma8();
            Ok(recognizer.prepare(&img))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut order: Vec<usize> = (0..labels.len()).collect();
    order.sort_by_key(|&i| inputs[i].width);
    let mut readings: Vec<Option<Reading>> = vec![None; labels.len()];
    for chunk in order.chunks(batch_size.max(1)) {
        let batch: Vec<_> = chunk.iter().map(|&i| &inputs[i]).collect();
        for (&i, r) in chunk
            .iter()
            .zip(recognizer.recognize_prepared(&batch, options)?)
        {
            readings[i] = Some(r);
        }
    }
    let mut report = Report::default();
    let pairs: Vec<(LineLabel, Reading)> = labels
        .into_iter()
        .zip(readings)
        .map(|(l, r)| (l, r.expect("every crop was read")))
        .collect();
    for (l, r) in &pairs {
        report.add(l.category, &l.text, &r.text);
    }
    Ok((report, pairs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_and_tallies() {
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("٣٠١", "٣٠١"), 0);
        let mut r = Report::default();
        r.add(LineCategory::Name, "محمد", "محمد");
        r.add(LineCategory::Name, "احمد", "أحمد");
        let t = r.categories[&LineCategory::Name];
        assert_eq!((t.lines, t.exact, t.errors, t.chars), (2, 1, 1, 8));
        assert!((t.cer() - 0.125).abs() < 1e-9);
        let json = r.to_json();
        assert_eq!(json["name"]["count"], 2);
        assert_eq!(json["all"]["exact"], 0.5);
    }
}
