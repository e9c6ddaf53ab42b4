//! `hawiya train` and `hawiya eval lines`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use image::GrayImage;

use super::artifacts::read_config;
use super::config::ModelConfig;
use super::decode::{DecodeOptions, Reading};
use super::device::DeviceOption;
use super::eval::{evaluate, read_crop};
use super::reader::{ModelSource, Recognizer};
use super::sources::{LabelledCrops, Mixed};
use super::train::{LineSource, TrainOptions, checkpoint_config, train};
use super::vocab::Vocab;
use crate::domain::name_list;
use crate::layout::LineCategory;
use crate::pipeline::post::nid::{self, Digits, Expect};
use crate::pipeline::post::{Candidate, LineReading, Readings, text};
use crate::pipeline::read::{LineBox, LineCrop};
use crate::pipeline::second_look::second_look;
use crate::pipeline::{ExtractError, LineRecognizer, SECOND_LOOK_BELOW};
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

/// Measure accuracy.
#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    #[command(subcommand)]
    pub what: EvalCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum EvalCommand {
    /// Per-category CER and exact-line rate of the recognizer on labelled crops
    /// (`hawiya synth --lines` output; use a seed never used in training).
    Lines(EvalLinesArgs),
}

#[derive(Debug, clap::Args)]
pub struct EvalLinesArgs {
    /// Folder with labels.jsonl and the crops it names.
    #[arg(long)]
    pub dir: PathBuf,
    /// Model folder, or a hub repository id (`hf:owner/name`) already in the local cache.
    #[arg(long, default_value = "models/recognizer")]
    pub model: ModelSource,
    #[command(flatten)]
    pub device: DeviceOption,
    /// Beam width; 1 decodes greedily.
    #[arg(long, default_value_t = 1)]
    pub beam: usize,
    #[arg(long, default_value_t = 32)]
    pub batch_size: usize,
    /// Only the crops printed in these Arabic font families (fonts/families.toml;
    /// Latin and MRZ lines belong to every set): held-out, training or all.
    #[arg(long, value_enum, default_value_t = FontSet::All)]
    pub fonts: FontSet,
    /// Print one JSON object: per category `cer`, `exact`, `count`, and per font
    /// family under `families`.
    #[arg(long)]
    pub json: bool,
    /// Also print every wrong line (truth, then the reading and its alternatives).
    #[arg(long)]
    pub errors: bool,
    /// Score the auxiliary CTC head's readings instead of the decoder's.
    #[arg(long)]
    pub ctc: bool,
    /// Rank the decoder's hypotheses by the decoder alone, without joint CTC
    /// rescoring (what the CTC head adds, measured).
    #[arg(long, conflicts_with = "ctc_weight")]
    pub no_rescore: bool,
    /// The CTC head's weight in joint rescoring (the decoder's is one minus it).
    #[arg(long, default_value_t = super::decode::CTC_WEIGHT)]
    pub ctc_weight: f32,
    /// Choose the reading of name and national-ID lines among their hypotheses as
    /// the pipeline does: names by the name list, national IDs by their structure
    /// and check digit (with --beam above 1; what the field rules add, measured).
    #[arg(long)]
    pub as_pipeline: bool,
    /// With --as-pipeline, what a word no name list knows costs a hypothesis, in
    /// log-probability.
    #[arg(long, value_name = "WEIGHT", default_value_t = name_list::UNLISTED_WORD_WEIGHT)]
    pub name_list_weight: f32,
    /// With --as-pipeline, name and national-ID lines less confident than this are
    /// read again from three variants of their crop before the choice, as the
    /// pipeline does (`pipeline::second_look`); 0 reads every line once.
    #[arg(long, value_name = "CONFIDENCE", default_value_t = SECOND_LOOK_BELOW)]
    pub second_look_below: f32,
}

pub fn run_eval(args: EvalArgs) -> anyhow::Result<()> {
    match args.what {
        EvalCommand::Lines(args) => run_eval_lines(args),
    }
}

/// The pipeline's key for a field of `category` whose rule chooses among the
/// recognizer's hypotheses (one the second look reads again).
fn rule_key(category: LineCategory) -> Option<&'static str> {
    match category {
        LineCategory::Name => Some("first_name"),
        LineCategory::NationalId => Some("national_id"),
        _ => None,
    }
}

/// Re-chooses `reading` among its hypotheses, and the `second_look`'s after them, by
/// the pipeline's own rule for a field of `category`, where it has one: the name
/// list for names, the check digit for national IDs.
fn choose_as_pipeline(
    category: LineCategory,
    reading: &mut Reading,
    second_look: Vec<Candidate>,
    name_list_weight: f32,
) {
    let Some(key) = rule_key(category) else {
        return;
    };
    let mut line = LineReading::from(&*reading);
    line.second_look = second_look;
    let readings = Readings::from([(key.to_string(), line)]);
    let checked = match category {
        LineCategory::NationalId => {
            let digits = if reading.best.text.chars().any(|c| c.is_ascii_digit()) {
                Digits::Ascii
            } else {
                Digits::ArabicIndic
            };
            nid::national_id(&readings, key, digits, Expect::default()).map(|(checked, _)| checked)
        }
        _ => text::name_weighing_unlisted(&readings, key, name_list_weight),
    };
    if let Some(checked) = checked {
        reading.best.text = checked.text;
        reading.best.confidence = checked.confidence;
    }
}

/// Reads crops with the recognizer itself, as the pipeline does through its batcher.
struct DirectReader {
    recognizer: Recognizer,
    options: DecodeOptions,
}

impl LineRecognizer for DirectReader {
    fn recognize(&self, crops: Vec<GrayImage>) -> Result<Vec<LineReading>, ExtractError> {
        let readings = self
            .recognizer
            .recognize(&crops, self.options)
            .map_err(|e| ExtractError::Internal(e.to_string()))?;
        Ok(readings.iter().map(LineReading::from).collect())
    }

    fn is_ready(&self) -> bool {
        true
    }
}

/// What the pipeline's second look proposes for the line `image` of `category`,
/// read as `reading`: nothing unless its field is chosen by a rule and the reading
/// is less confident than `below`.
fn second_look_of(
    reader: &DirectReader,
    category: LineCategory,
    reading: &Reading,
    image: GrayImage,
    below: f32,
) -> anyhow::Result<Vec<Candidate>> {
    let Some(key) = rule_key(category) else {
        return Ok(Vec::new());
    };
    let (x1, y1) = image.dimensions();
    let crop = LineCrop {
        key: key.into(),
        line: LineBox {
            x0: 0,
            y0: 0,
            x1,
            y1,
        },
        image,
    };
    let mut readings = Readings::from([(key.to_string(), LineReading::from(reading))]);
    second_look(reader, &[crop], &mut readings, below)?;
    Ok(readings
        .remove(key)
        .map(|r| r.second_look)
        .unwrap_or_default())
}

fn run_eval_lines(args: EvalLinesArgs) -> anyhow::Result<()> {
    let recognizer = Recognizer::load_on(&args.model, args.device.device)?;
    let started = std::time::Instant::now();
    let options = DecodeOptions {
        ctc_rescoring: (!args.no_rescore).then_some(args.ctc_weight),
        ..DecodeOptions::beam(args.beam)
    };
    let (mut report, mut pairs) =
        evaluate(&recognizer, &args.dir, args.fonts, options, args.batch_size)?;
    if args.ctc || args.as_pipeline {
        let reader = DirectReader {
            recognizer,
            options,
        };
        report = super::eval::Report::default();
        for (label, reading) in &mut pairs {
            if args.ctc {
                reading.best.text = std::mem::take(&mut reading.ctc_text);
            } else {
                let looked = if rule_key(label.category).is_some()
                    && reading.best.confidence < args.second_look_below
                {
                    let image = read_crop(&args.dir, label)?;
                    second_look_of(
                        &reader,
                        label.category,
                        reading,
                        image,
                        args.second_look_below,
                    )?
                } else {
                    Vec::new()
                };
                choose_as_pipeline(label.category, reading, looked, args.name_list_weight);
            }
            report.add(label, reading);
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    if args.errors {
        for (label, reading) in pairs.iter().filter(|(l, r)| l.text != r.best.text) {
            eprintln!(
                "{:?} {}\n    truth: {}\n    read:  {} ({:.2})",
                label.category, label.file, label.text, reading.best.text, reading.best.confidence
            );
            for alternative in &reading.alternatives {
                eprintln!(
                    "    or:    {} ({:.2})",
                    alternative.text, alternative.confidence
                );
            }
        }
    }
    if args.json {
        println!("{}", report.to_json());
    } else {
        print!("{}\n{}", report.table(), report.reliability().table());
        if !report.families.is_empty() {
            print!("\n{}", report.families_table());
        }
        println!(
            "{} crops in {seconds:.1} s ({:.0} crops/s, batch {}, beam {})",
            pairs.len(),
            pairs.len() as f64 / seconds,
            args.batch_size,
            args.beam
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizer::preprocess::prepare;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        lines: EvalLinesArgs,
    }

    #[test]
    fn a_ctc_weight_is_refused_beside_rescoring_that_is_off() {
        let parse = |extra: &[&str]| {
            Cli::try_parse_from(["eval", "--dir", "crops"].iter().chain(extra)).map(|c| c.lines)
        };
        let off = parse(&["--no-rescore"]).unwrap();
        assert!(off.no_rescore);
        let weighed = parse(&["--ctc-weight", "0.2"]).unwrap();
        assert_eq!(weighed.ctc_weight, 0.2);
        assert!(parse(&["--no-rescore", "--ctc-weight", "0.2"]).is_err());
    }

    #[test]
    fn lines_are_chosen_by_the_pipelines_field_rules() {
        let with_runner_up = |best: &str, runner_up: &str| {
            let mut reading = Reading::of_text(best, 0.9);
            reading.alternatives.push(crate::recognizer::Hypothesis {
                text: runner_up.into(),
                char_probs: Vec::new(),
                log_prob: 0.8f32.ln(),
                confidence: 0.8,
                rivals: Vec::new(),
            });
            reading
        };
        // Day 34 is no date: the valid runner-up is the number.
        let mut id = with_runner_up("30312340201859", "30312240201859");
        choose_as_pipeline(LineCategory::NationalId, &mut id, Vec::new(), 1.0);
        assert_eq!(id.best.text, "30312240201859");
        let mut name = with_runner_up("سامر يومي سرور", "سامر بيومي سرور");
        choose_as_pipeline(LineCategory::Name, &mut name, Vec::new(), 1.0);
        assert_eq!(name.best.text, "سامر بيومي سرور");
        let mut address = with_runner_up("سامر يومي سرور", "سامر بيومي سرور");
        choose_as_pipeline(LineCategory::Address, &mut address, Vec::new(), 1.0);
        assert_eq!(address.best.text, "سامر يومي سرور");
    }

    #[test]
    fn a_second_looks_reading_joins_the_choice() {
        let mut name = Reading::of_text("سامر يومي سرور", 0.5);
        let looked = vec![Candidate::new("سامر بيومي سرور", 0.45)];
        choose_as_pipeline(LineCategory::Name, &mut name, looked, 1.0);
        assert_eq!(name.best.text, "سامر بيومي سرور");
        assert!(
            name.best.confidence <= 0.5,
            "no surer than the crop's own reading"
        );
    }

    #[test]
    fn only_doubtful_lines_of_rule_chosen_fields_are_read_again() {
        let recognizer = Recognizer::load(&ModelSource::Dir("models/recognizer".into())).unwrap();
        let reader = DirectReader {
            recognizer,
            options: DecodeOptions::beam(3),
        };
        let mut crop = GrayImage::from_pixel(120, 32, image::Luma([220]));
        for x in 10..110 {
            for y in 12..20 {
                crop.put_pixel(x, y, image::Luma([40]));
            }
        }
        let doubtful = Reading::of_text("x", 0.3);
        let looked = second_look_of(&reader, LineCategory::Name, &doubtful, crop.clone(), 0.8);
        assert!(
            looked.unwrap().len() >= 3,
            "three variants, each with its hypotheses"
        );
        let sure = Reading::of_text("x", 0.95);
        let looked = second_look_of(&reader, LineCategory::Name, &sure, crop.clone(), 0.8);
        assert!(looked.unwrap().is_empty());
        let looked = second_look_of(&reader, LineCategory::Date, &doubtful, crop, 0.8);
        assert!(looked.unwrap().is_empty());
    }

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
    #[arg(long, default_value = super::reader::DEFAULT_MODEL_DIR)]
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
        "{} lines\n\nraw\n{}\ncalibrated (on the same lines)\n{}",
        samples.len(),
        raw.table(),
        calibrated.table()
    );
    let path = args.model.join(CALIBRATION_FILE);
    write_atomic(
        &path,
        serde_json::to_string_pretty(&calibration)?.as_bytes(),
    )?;
    println!("{calibration:?} written to {}", path.display());
    Ok(())
}
