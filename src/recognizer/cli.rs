//! `hawiya train` and `hawiya calibrate`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::artifacts::read_config;
use super::config::ModelConfig;
use super::decode::DecodeOptions;
use super::device::DeviceOption;
use super::eval::evaluate;
use super::load::ModelSource;
use super::recognize::Recognizer;
use super::sources::{LabelledCrops, Mixed};
use super::train::{LineSource, TrainOptions, checkpoint_config, train};
use super::vocab::Vocab;
use crate::synth::LineGenerator;
use crate::synth::render::{FontDirArgs, FontSet};

/// Train the line recognizer from scratch on generated crops (resumes from the
/// checkpoint folder when one is there).
#[derive(Debug, clap::Args)]
pub struct TrainArgs {
    /// Folder for the exported model (weights, config.json, vocab.json).
    #[arg(long, default_value = "models/recognizer")]
    pub out: PathBuf,
    /// Folder for resumable checkpoints (keep it out of git).
    #[arg(long, default_value = "runs/recognizer")]
    pub checkpoints: PathBuf,
    /// Start from this exported model (e.g. the shipped one) instead of random
    /// weights; ignored when a checkpoint is resumed.
    #[arg(long)]
    pub init: Option<PathBuf>,
    #[command(flatten)]
    pub device: DeviceOption,
    /// Where the line generator finds its fonts.
    #[command(flatten)]
    pub font_dir: FontDirArgs,
    /// Generator seed for training crops (evaluate on a different one).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Upper bound on optimizer steps.
    #[arg(long, default_value_t = 200_000)]
    pub steps: usize,
    /// Wall-clock budget in minutes; the learning rate decays to its floor by then.
    #[arg(long, default_value_t = 140.0)]
    pub minutes: f64,
    #[arg(long, default_value_t = 32)]
    pub batch_size: usize,
    #[arg(long, default_value_t = 8e-4)]
    pub lr: f64,
    #[arg(long, default_value_t = 300)]
    pub warmup: usize,
    /// Weight of the auxiliary CTC loss.
    #[arg(long, default_value_t = 0.3)]
    pub ctc_weight: f64,
    /// Share of crops that get the trainer's extra degradations.
    #[arg(long, default_value_t = 0.5)]
    pub augment: f64,
    /// Export the model every this many minutes, so a usable one always exists.
    #[arg(long, default_value_t = 10.0)]
    pub export_minutes: f64,
    #[arg(long, default_value_t = 5.0)]
    pub checkpoint_minutes: f64,
    #[arg(long, default_value_t = 50)]
    pub log_every: usize,
    /// Threads that render and augment training crops [default: 1 beside a CPU
    /// step, which it keeps up with; all cores but two beside a GPU step, which
    /// needs many: one thread makes about 1,000 crops/s].
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    pub data_threads: Option<u16>,
    /// Labelled crop folders (`hawiya eval docs --export-lines` or `hawiya synth
    /// --lines` output) to mix into the generated crops; repeatable.
    #[arg(long, value_name = "DIR")]
    pub extra_lines: Vec<PathBuf>,
    /// Share of training crops drawn from `--extra-lines`.
    #[arg(long, default_value_t = 0.3)]
    pub extra_share: f64,
    /// Encoder layers [default: the resumed checkpoint's, else the `--init` model's,
    /// else 3]. More than the `--init` model has grows it: the added layers start as
    /// the identity, so training adds capacity to what the model already reads.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    pub encoder_layers: Option<u16>,
    /// Decoder layers [default: the resumed checkpoint's, else the `--init` model's,
    /// else 2]; grows like `--encoder-layers`.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..))]
    pub decoder_layers: Option<u16>,
    /// Export an exponential moving average of the weights with this decay (such as
    /// 0.999, about the last 1,000 steps) instead of the last step's weights.
    #[arg(long)]
    pub ema: Option<f64>,
}

pub fn run_train(args: TrainArgs) -> anyhow::Result<()> {
    args.font_dir.apply()?;
    let vocab = Vocab::default_arabic_latin();
    let mut config = match (checkpoint_config(&args.checkpoints)?, &args.init) {
        (Some(resumed), _) => resumed,
        (None, Some(dir)) => read_config(dir)?,
        (None, None) => ModelConfig::small(vocab.len()),
    };
    if let Some(n) = args.encoder_layers {
        config.encoder_layers = n.into();
    }
    if let Some(n) = args.decoder_layers {
        config.decoder_layers = n.into();
    }
    let mut source: Arc<dyn LineSource> =
        Arc::new(LineGenerator::new(args.seed, FontSet::Training)?);
    if !args.extra_lines.is_empty() {
        let extra = LabelledCrops::load(&args.extra_lines)?;
        println!(
            "mixing {} labelled crops in at {:.0} %",
            extra.len(),
            100.0 * args.extra_share
        );
        source = Arc::new(Mixed {
            base: source,
            extra: Arc::new(extra),
            extra_share: args.extra_share,
        });
    }
    let minutes = |m: f64| Duration::from_secs_f64(m * 60.0);
    let opts = TrainOptions {
        out_dir: args.out,
        checkpoint_dir: args.checkpoints,
        init_from: args.init,
        device: args.device.device,
        steps: args.steps,
        batch_size: args.batch_size,
        learning_rate: args.lr,
        warmup_steps: args.warmup,
        time_limit: minutes(args.minutes),
        ctc_weight: args.ctc_weight,
        augment_probability: args.augment,
        seed: args.seed,
        log_every: args.log_every,
        checkpoint_every: minutes(args.checkpoint_minutes),
        export_every: minutes(args.export_minutes),
        data_threads: args.data_threads.map(usize::from),
        ema_decay: args.ema,
    };
    println!("{}", serde_json::to_string(&config)?);
    train(source, config, vocab, opts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizer::preprocess::prepare;

    /// Every generated transcript fits the vocabulary and the decoder length:
    /// `cargo test --release --lib generated_lines_fit -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn generated_lines_fit_the_model() {
        let vocab = Vocab::default_arabic_latin();
        let cfg = ModelConfig::small(vocab.len());
        let generator = LineGenerator::new(99, FontSet::Training).unwrap();
        let mut widths = Vec::new();
        let mut oov = std::collections::BTreeMap::new();
        let mut too_long = 0;
        let started = std::time::Instant::now();
        let n = 3000;
        for i in 0..n {
            let s = generator.sample(i);
            for c in s.text.chars().filter(|&c| !vocab.contains(c)) {
                *oov.entry(c).or_insert(0) += 1;
            }
            if s.text.chars().count() + 1 > cfg.max_len {
                too_long += 1;
            }
            widths.push((
                prepare(&s.image, &cfg).width,
                s.text.chars().count(),
                s.image.height(),
            ));
        }
        println!("{n} samples in {:?}", started.elapsed());
        widths.sort();
        for q in [0.1, 0.5, 0.9, 0.99] {
            println!("width p{q}: {:?}", widths[(q * n as f64) as usize]);
        }
        let squeezed = widths.iter().filter(|w| w.0 == cfg.max_width).count();
        let ratio = widths
            .iter()
            .map(|w| w.0 as f64 / cfg.patch_width as f64 / w.1.max(1) as f64)
            .fold(f64::MAX, f64::min);
        println!(
            "squeezed: {squeezed}, min tokens per char: {ratio:.2}, too long: {too_long}, oov: {oov:?}"
        );
        assert!(oov.is_empty());
    }
}

#[cfg(test)]
mod dump {
    use super::*;
    use crate::recognizer::augment::Augment;
    use image::GrayImage;
    use rand::SeedableRng;

    /// Writes generated + augmented training crops to $DUMP_DIR for eyeballing:
    /// `DUMP_DIR=/tmp/aug cargo test --lib dump_training_crops -- --ignored`.
    #[test]
    #[ignore]
    fn dump_training_crops() {
        let dir = PathBuf::from(std::env::var("DUMP_DIR").unwrap_or("/tmp/aug".into()));
        std::fs::create_dir_all(&dir).unwrap();
        let generator = LineGenerator::new(1, FontSet::Training).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let vocab = Vocab::default_arabic_latin();
        let cfg = ModelConfig::small(vocab.len());
        for i in 0..24u64 {
            let (crop, text) = generator.line(i);
            let aug = Augment::default().apply(&crop, &mut rng);
            crop.save(dir.join(format!("{i:02}-raw.png"))).unwrap();
            aug.save(dir.join(format!("{i:02}-aug.png"))).unwrap();
            let input = crate::recognizer::preprocess::prepare(&aug, &cfg);
            let img = GrayImage::from_fn(input.width as u32, cfg.height as u32, |x, y| {
                image::Luma([
                    255 - (input.pixels[y as usize * input.width + x as usize] * 255.0) as u8
                ])
            });
            img.save(dir.join(format!("{i:02}-model.png"))).unwrap();
            println!("{i:02} {text}");
        }
    }
}

/// Fit the recognizer's confidence calibration on labelled crops of seeds never
/// used in training, and save it beside the weights (`calibration.json`).
#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
    /// Folder of labelled crops (`hawiya synth --lines` or `hawiya eval docs
    /// --export-lines` output); repeatable.
    #[arg(long = "dir", required = true)]
    pub dirs: Vec<PathBuf>,
    /// Model folder; its calibration.json is replaced.
    #[arg(long, default_value = super::load::DEFAULT_MODEL_DIR)]
    pub model: PathBuf,
    #[command(flatten)]
    pub device: DeviceOption,
    /// Beam width to calibrate for (the pipeline reads with 3).
    #[arg(long, default_value_t = 3)]
    pub beam: usize,
    #[arg(long, default_value_t = 32)]
    pub batch_size: usize,
}

pub fn run_calibrate(args: CalibrateArgs) -> anyhow::Result<()> {
    use anyhow::Context;

    use super::artifacts::{CALIBRATION_FILE, write_atomic};
    use super::calibration::{Calibration, Sample};
    use super::eval::Reliability;

    let recognizer =
        Recognizer::load_on(&ModelSource::Dir(args.model.clone()), args.device.device)?
            .with_calibration(None);
    let started = std::time::Instant::now();
    let mut samples = Vec::new();
    for dir in &args.dirs {
        let (_, pairs) = evaluate(
            &recognizer,
            dir,
            FontSet::All,
            DecodeOptions::beam(args.beam),
            args.batch_size,
        )?;
        samples.extend(pairs.iter().map(|(label, reading)| Sample {
            log_prob: reading.best.log_prob,
            chars: reading.best.text.chars().count(),
            exact: label.text == reading.best.text,
        }));
    }
    let calibration = Calibration::fit(&samples)
        .context("the crops hold no exact line or no wrong one: nothing to calibrate on")?;
    let raw = Reliability::of(samples.iter().map(|s| (s.log_prob.exp(), s.exact)));
    let calibrated = Reliability::of(
        samples
            .iter()
            .map(|s| (calibration.probability(s.log_prob, s.chars), s.exact)),
    );
    println!(
        "raw\n{}\ncalibrated (on the same lines)\n{}",
        raw.table(),
        calibrated.table()
    );
    let path = args.model.join(CALIBRATION_FILE);
    write_atomic(
        &path,
        serde_json::to_string_pretty(&calibration)?.as_bytes(),
    )?;
    println!(
        "calibrated on {} lines in {:.1} s (beam {}): {calibration:?}, written to {}",
        samples.len(),
        started.elapsed().as_secs_f64(),
        args.beam,
        path.display()
    );
    Ok(())
}
