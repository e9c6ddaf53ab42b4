//! `hawiya train-classifier`, and the generator's `truth.jsonl` as the pipeline's tools read it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Deserialize;

use super::classify::{self, Classifier, TrainConfig};
use super::decode::{self, DecodeLimits};
use super::locate::{self, LocateConfig};
use super::warp::{Point, Quad};
use crate::domain::DocumentKind;

/// The part of a generator `truth.jsonl` line the pipeline's tools read.
#[derive(Debug, Clone, Deserialize)]
pub struct TruthRecord {
    pub file: String,
    pub kind: DocumentKind,
    pub capture: CaptureInfo,
    pub width: u32,
    pub height: u32,
    /// Card top-left, top-right, bottom-right, bottom-left in image pixels.
    pub corners: [[f32; 2]; 4],
    pub fields: BTreeMap<String, String>,
    pub flow_a: crate::record::FlowAFields,
    /// The Arabic font family the fields are printed in (absent from folders written
    /// before the generator recorded it).
    #[serde(default)]
    pub font: Option<String>,
    /// Every printed line, in image pixels.
    #[serde(default)]
    pub lines: Vec<TruthLine>,
}

/// One printed line of a generator document.
#[derive(Debug, Clone, Deserialize)]
pub struct TruthLine {
    /// The field the line prints (`None` for fixed text).
    pub key: Option<String>,
    pub text: String,
    pub category: crate::layout::LineCategory,
    /// The font family it is printed in (absent from folders written before the
    /// generator recorded it).
    #[serde(default)]
    pub font: Option<String>,
    /// Corners in image pixels, in the line's reading order.
    pub quad: [[f32; 2]; 4],
}

#[derive(Debug, Clone, Deserialize)]
pub struct CaptureInfo {
    pub mode: String,
    /// Photos only: the length of the motion blur applied, in photo pixels.
    #[serde(default)]
    pub motion_blur_px: f32,
    /// Photos only: the standard deviation of the focus blur applied, in pixels.
    #[serde(default)]
    pub focus_blur_sigma: f32,
}

impl CaptureInfo {
    /// Whether the generator blurred the photo strongly: motion over 4 px or focus
    /// sigma over 1 px, the upper halves of its ranges (2 to 9 px, 0.6 to 2 px),
    /// which smear a small card's print beyond reading.
    pub fn strongly_blurred(&self) -> bool {
        self.motion_blur_px >= 4.0 || self.focus_blur_sigma >= 1.0
    }
}

/// Every record of `dir/truth.jsonl`.
pub fn read_truth(dir: &Path) -> anyhow::Result<Vec<TruthRecord>> {
    let path = dir.join("truth.jsonl");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            serde_json::from_str(line)
                .with_context(|| format!("{}: line {}", path.display(), i + 1))
        })
        .collect()
}

impl TruthRecord {
    /// The truth outline in the pixels of `image` (a rasterised PDF page may be
    /// scaled from the raster the truth describes).
    pub fn quad_in(&self, image_width: u32, image_height: u32) -> Quad {
        let (sx, sy) = (
            image_width as f32 / self.width as f32,
            image_height as f32 / self.height as f32,
        );
        Quad {
            corners: self.corners.map(|[x, y]| Point::new(x * sx, y * sy)),
        }
    }

    /// The card's width in the image's pixels: the mean of its top and bottom sides.
    pub fn card_width_px(&self) -> f32 {
        self.quad_in(self.width, self.height).width()
    }
}

/// Largest corner distance between two outlines.
pub fn corner_error(a: &Quad, b: &Quad) -> f32 {
    a.corners
        .iter()
        .zip(&b.corners)
        .map(|(p, q)| p.distance(*q))
        .fold(0.0, f32::max)
}

#[derive(Debug, clap::Args)]
pub struct TrainClassifierArgs {
    /// Generator output folders (each with truth.jsonl), e.g. from `hawiya synth`.
    #[arg(long = "dir", required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where to write the model.
    #[arg(long, default_value = "models/classifier.json")]
    pub out: PathBuf,
    #[arg(long, default_value_t = 300)]
    pub epochs: usize,
}

/// Feature vectors of one document: the true outline both ways up, jittered copies,
/// and the locator's own outline (so training sees its errors).
fn document_samples(
    dir: &Path,
    record: &TruthRecord,
    seed: u64,
) -> anyhow::Result<Vec<(Vec<f32>, usize)>> {
    let bytes = std::fs::read(dir.join(&record.file))?;
    let image = decode::decode(&bytes, &DecodeLimits::default())
        .map_err(|e| anyhow::anyhow!("{}: {e}", record.file))?
        .image;
    let truth = record.quad_in(image.width(), image.height());
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let width = truth.corners[0].distance(truth.corners[1]);
    let mut quads = vec![truth];
    for _ in 0..2 {
        let jitter = 0.015 * width;
        quads.push(Quad {
            corners: truth.corners.map(|p| {
                Point::new(
                    p.x + rng.random_range(-jitter..jitter),
                    p.y + rng.random_range(-jitter..jitter),
                )
            }),
        });
    }
    if let Some(found) = locate::locate(&image, &LocateConfig::default()) {
        // Labelled by which way round it matches the truth.
        let (up, down) = (
            corner_error(&found.quad, &truth),
            corner_error(&found.quad.turned(2), &truth),
        );
        if up.min(down) < 0.05 * width {
            let quad = if up <= down {
                found.quad
            } else {
                found.quad.turned(2)
            };
            quads.push(quad);
        }
    }
    let mut samples = Vec::new();
    for quad in quads {
        samples.push((
            classify::features(&image, &quad),
            classify::class_index(record.kind, false),
        ));
        samples.push((
            classify::features(&image, &quad.turned(2)),
            classify::class_index(record.kind, true),
        ));
    }
    Ok(samples)
}

pub fn run_train_classifier(args: TrainClassifierArgs) -> anyhow::Result<()> {
    let mut jobs = Vec::new();
    for dir in &args.dirs {
        for record in read_truth(dir)? {
            jobs.push((dir.clone(), record));
        }
    }
    let started = std::time::Instant::now();
    let samples: Vec<(Vec<f32>, usize)> = jobs
        .par_iter()
        .enumerate()
        .map(|(i, (dir, record))| document_samples(dir, record, i as u64))
        .collect::<anyhow::Result<Vec<_>>>()?
        .into_iter()
        .flatten()
        .collect();
    println!(
        "{} documents, {} samples in {:.1} s",
        jobs.len(),
        samples.len(),
        started.elapsed().as_secs_f64()
    );
    let config = TrainConfig {
        epochs: args.epochs,
        ..TrainConfig::default()
    };
    let model = classify::train(&samples, &config);
    let correct = samples.iter().filter(|(x, label)| {
        let c = model.decide(x);
        classify::class_index(c.kind, c.upside_down) == *label
    });
    println!(
        "trained in {:.1} s; training accuracy {:.2} %",
        started.elapsed().as_secs_f64(),
        100.0 * correct.count() as f64 / samples.len().max(1) as f64
    );
    if let Some(parent) = args.out.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(&args.out, model.to_json())?;
    let check = Classifier::load(&args.out)?;
    println!(
        "wrote {} ({} classes)",
        args.out.display(),
        check.classes.len()
    );
    Ok(())
}
