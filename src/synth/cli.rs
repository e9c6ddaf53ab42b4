//! `hawiya synth`: writes synthetic documents with their truth, or text-line crops
//! with their transcripts.

use std::fs;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use rayon::prelude::*;

use crate::domain::DocumentKind;
use crate::progress::Progress;
use crate::synth::LineGenerator;
use crate::synth::LineSample;
use crate::synth::capture::CaptureMode;
use crate::synth::labels::{LabelsWriter, LineLabel, write_png};
use crate::synth::render::{FaceSet, FontDirArgs, FontSet};
use crate::synth::texts::LineTexts;
use crate::synth::texts::forms::FormTally;

/// Which kinds to draw documents from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindChoice {
    One(DocumentKind),
    All,
}

impl std::str::FromStr for KindChoice {
    type Err = crate::domain::kind::UnknownKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "all" {
            Ok(KindChoice::All)
        } else {
            s.parse().map(KindChoice::One)
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct SynthArgs {
    /// Write text-line crops (PNG + labels.jsonl) instead of documents.
    #[arg(long)]
    pub lines: bool,
    /// nid-front, nid-back, driver-licence, car-licence-front, car-licence-back,
    /// passport, residence-permit, or all.
    #[arg(long, default_value = "all")]
    pub kind: KindChoice,
    /// How many images (documents or crops).
    #[arg(long, default_value_t = 10)]
    pub n: u64,
    /// Same seed, same bytes.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Index of the first item (to split one dataset across runs).
    #[arg(long, default_value_t = 0)]
    pub start: u64,
    /// scan, photo, pdf, page (a whole A4 or Letter page with the card on it,
    /// sometimes both its sides) or mixed (documents only).
    #[arg(long, value_enum, default_value = "mixed")]
    pub capture: CaptureMode,
    /// Which texts line crops print: `varied` (documents' fields and other names,
    /// words, letter strings, addresses and numbers: for training) or `documents`
    /// (only what documents print: for evaluation).
    #[arg(long, value_enum, default_value = "varied")]
    pub texts: LineTexts,
    /// With --lines, also print the share of lines printing each letter form and
    /// each digit.
    #[arg(long)]
    pub tally: bool,
    /// Which Arabic font families to print with (fonts/families.toml): training,
    /// held-out (only to measure) or all.
    #[arg(long, value_enum, default_value_t = FontSet::Training)]
    pub fonts: FontSet,
    /// Which card-face families to print documents on: training, held-out (only
    /// to measure) or all.
    #[arg(long, value_enum, default_value_t = FaceSet::Training)]
    pub faces: FaceSet,
    #[command(flatten)]
    pub font_dir: FontDirArgs,
    /// Output directory (created if missing).
    #[arg(long)]
    pub out: PathBuf,
}

pub fn run(args: SynthArgs) -> anyhow::Result<()> {
    args.font_dir.apply()?;
    fs::create_dir_all(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
    if args.lines {
        write_lines(&args)
    } else {
        let dataset = crate::synth::dataset::Dataset {
            kinds: args.kind,
            capture: args.capture,
            fonts: args.fonts,
            faces: args.faces,
            seed: args.seed,
        };
        dataset.write(&args.out, args.start, args.n)
    }
}

/// Crops per parallel batch: bounds memory while keeping both cores busy.
const LINE_BATCH: u64 = 2048;

fn write_lines(args: &SynthArgs) -> anyhow::Result<()> {
    let generator = LineGenerator::new(args.seed, args.fonts)?.texts(args.texts);
    let mut labels = LabelsWriter::create(&args.out)?;
    let mut tally = FormTally::default();
    let started = Instant::now();
    let progress = Progress::new("synth --lines", args.n, "crops");
    let mut done = 0u64;
    let end = args.start + args.n;
    let mut batch_start = args.start;
    while batch_start < end {
        let batch_end = (batch_start + LINE_BATCH).min(end);
        let written: Vec<anyhow::Result<(String, LineSample)>> = (batch_start..batch_end)
            .into_par_iter()
            .map(|index| {
                let sample = generator.sample(index);
                let file = format!("{index:08}.png");
                write_png(&args.out.join(&file), &sample.image)?;
                Ok((file, sample))
            })
            .collect();
        for item in written {
            let (file, sample) = item?;
            if args.tally {
                tally.add(&sample.text);
            }
            labels.add(&LineLabel {
                file,
                text: sample.text,
                category: sample.category,
                font: Some(sample.font.to_owned()),
            })?;
        }
        done += batch_end - batch_start;
        progress.add(batch_end - batch_start);
        batch_start = batch_end;
    }
    labels.finish()?;
    progress.finish();
    if args.tally {
        print!("{tally}");
    }
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "wrote {done} crops to {} in {seconds:.2} s: {:.0} crops/s ({} threads)",
        args.out.display(),
        done as f64 / seconds.max(1e-9),
        rayon::current_num_threads()
    );
    Ok(())
}
