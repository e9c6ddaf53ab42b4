//! `hawiya eval lines`: the recognizer on labelled crops (`hawiya synth --lines` or
//! `hawiya eval docs --export-lines` output), per category, read alone or, with
//! `--as-pipeline`, chosen among its hypotheses by the pipeline's own field rules
//! after the pipeline's second look.

use std::path::PathBuf;

use image::GrayImage;

use crate::domain::name_list;
use crate::layout::LineCategory;
use crate::pipeline::SECOND_LOOK_BELOW;
use crate::pipeline::cut::{LineBox, LineCrop};
use crate::pipeline::post::nid::{self, Digits, Expect};
use crate::pipeline::post::{Candidate, LineReading, Readings, text};
use crate::pipeline::second_look::{SideLines, second_look};
use crate::progress::Progress;
use crate::recognizer::decode::CTC_WEIGHT;
use crate::recognizer::eval::{Report, evaluate};
use crate::recognizer::{
    DecodeOptions, DeviceOption, ModelSource, Reading, Recognizer, RecognizerWithOptions,
};
use crate::synth::render::FontSet;

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
    #[arg(long, default_value_t = CTC_WEIGHT)]
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

/// The pipeline's key for a field of `category` whose rule chooses among the
/// recognizer's hypotheses (one the second look reads again): a National ID front's
/// name or number.
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
        _ => text::name_weighing_unlisted(
            &readings,
            key,
            name_list_weight,
            text::Names::Egyptian { label_words: 0 },
        ),
    };
    if let Some(checked) = checked {
        reading.best.text = checked.text;
        reading.best.confidence = checked.confidence;
    }
}

/// What the pipeline's second look proposes for the line `image` of `category`,
/// read as `reading`: nothing unless its field is chosen by a rule and the reading
/// is less confident than `below`.
fn second_look_of(
    recognizer: &RecognizerWithOptions,
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
    let nid_front = crate::layout::builtin(crate::domain::DocumentKind::NidFront);
    let mut side = [SideLines {
        layout: nid_front,
        crops: &[crop],
        readings: &mut readings,
    }];
    second_look(recognizer, &mut side, below)?;
    Ok(readings
        .remove(key)
        .map(|r| r.second_look)
        .unwrap_or_default())
}

pub fn run(args: EvalLinesArgs) -> anyhow::Result<()> {
    let recognizer = Recognizer::load_on(&args.model, args.device.device)?;
    let started = std::time::Instant::now();
    let options = DecodeOptions {
        ctc_rescoring: (!args.no_rescore).then_some(args.ctc_weight),
        ..DecodeOptions::beam(args.beam)
    };
    let (mut report, mut pairs) =
        evaluate(&recognizer, &args.dir, args.fonts, options, args.batch_size)?;
    if args.ctc || args.as_pipeline {
        let recognizer = RecognizerWithOptions {
            recognizer,
            options,
        };
        report = Report::default();
        let progress = Progress::new("as the pipeline", pairs.len() as u64, "crops");
        for (label, reading) in &mut pairs {
            if args.ctc {
                reading.best.text = std::mem::take(&mut reading.ctc_text);
            } else {
                let looked = if rule_key(label.category).is_some()
                    && reading.best.confidence < args.second_look_below
                {
                    let image = label.crop(&args.dir)?;
                    second_look_of(
                        &recognizer,
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
            progress.add(1);
        }
        progress.finish();
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
        let recognizer = RecognizerWithOptions {
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
        let looked = second_look_of(
            &recognizer,
            LineCategory::Name,
            &doubtful,
            crop.clone(),
            0.8,
        );
        assert!(
            looked.unwrap().len() >= 3,
            "three variants, each with its hypotheses"
        );
        let sure = Reading::of_text("x", 0.95);
        let looked = second_look_of(&recognizer, LineCategory::Name, &sure, crop.clone(), 0.8);
        assert!(looked.unwrap().is_empty());
        let looked = second_look_of(&recognizer, LineCategory::Date, &doubtful, crop, 0.8);
        assert!(looked.unwrap().is_empty());
    }
}
