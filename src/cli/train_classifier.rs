//! `hawiya train-classifier`: the document kind/side classifier trained on generator
//! output (`truth.jsonl` folders).

use std::path::{Path, PathBuf};

use image::RgbImage;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::pipeline::classify::{self, Classifier, TrainConfig};
use crate::pipeline::decode::{self, DecodeLimits};
use crate::pipeline::locate::{self, LocateConfig};
use crate::pipeline::overview::Overview;
use crate::pipeline::warp::{Point, Quad};
use crate::synth::capture::{Glare, Slope};
use crate::synth::dataset::TruthRecord;
use crate::synth::degrade;

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
    /// Weight decay: the larger, the less sure the model is of cards unlike its
    /// training documents (card faces it never saw).
    #[arg(long, default_value_t = TrainConfig::default().l2)]
    pub l2: f32,
    /// Train on the samples alone, without a relit copy of each (uneven light,
    /// glare, blur): the shipped model was trained with them.
    #[arg(long)]
    pub no_relight: bool,
}

/// Feature vectors of one document, on the upload's [`Overview`] as the pipeline
/// classifies it: the true outline both ways up, jittered copies, and the
/// locator's own outline (so training sees its errors).
fn document_samples(
    dir: &Path,
    record: &TruthRecord,
    seed: u64,
    relight: bool,
) -> anyhow::Result<Vec<(Vec<f32>, usize)>> {
    let bytes = std::fs::read(dir.join(&record.file))?;
    let upload = decode::decode(&bytes, &DecodeLimits::default())
        .map_err(|e| anyhow::anyhow!("{}: {e}", record.file))?
        .image;
    let overview = Overview::of(&upload);
    let image = overview.image();
    let truth = overview.from_upload(Quad::from_xy(
        record.corners_in(upload.width(), upload.height()),
    ));
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
    if let Some(found) = locate::locate(image, &LocateConfig::default()) {
        // Labelled by which way round it matches the truth.
        let (up, down) = (
            found.quad.corner_error(&truth),
            found.quad.turned(2).corner_error(&truth),
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
        for (quad, upside_down) in [(quad, false), (quad.turned(2), true)] {
            let card = classify::sample(image, &quad);
            let label = classify::class_index(record.kind, upside_down);
            samples.push((classify::features_of_card(&card), label));
            if relight {
                samples.push((classify::features_of_card(&relit(&card, &mut rng)), label));
            }
        }
    }
    Ok(samples)
}

/// `card` as a phone's light might leave it, as the photo capture lights a whole
/// picture: brighter towards one side, with a glare spot six times in ten, and
/// softened a little half the time.
fn relit(card: &RgbImage, rng: &mut ChaCha8Rng) -> RgbImage {
    let (w, h) = (card.width() as f32, card.height() as f32);
    let slope = Slope::draw(rng);
    let glare = Glare::draw(rng, |u, v| (u * w, v * h), w);
    let mut out = card.clone();
    for (x, y, p) in out.enumerate_pixels_mut() {
        let light = slope.at(x as f32 / w - 0.5, y as f32 / h - 0.5);
        let add = glare.map_or(0.0, |g| g.at(x as f32, y as f32));
        for c in p.0.iter_mut() {
            *c = (f32::from(*c) * light + add).clamp(0.0, 255.0) as u8;
        }
    }
    if rng.random_bool(0.5) {
        out = degrade::blur(&out, rng.random_range(0.3..1.0f32));
    }
    out
}

pub fn run(args: TrainClassifierArgs) -> anyhow::Result<()> {
    let mut jobs = Vec::new();
    for dir in &args.dirs {
        for record in TruthRecord::read_all(dir)? {
            jobs.push((dir.clone(), record));
        }
    }
    let started = std::time::Instant::now();
    let samples: Vec<(Vec<f32>, usize)> = jobs
        .par_iter()
        .enumerate()
        .map(|(i, (dir, record))| document_samples(dir, record, i as u64, !args.no_relight))
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
        l2: args.l2,
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
