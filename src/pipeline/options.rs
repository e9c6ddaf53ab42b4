//! The pipeline's command-line options and the one place they become a running
//! pipeline: the models loaded, the recognizer started behind its batcher, the
//! classifier and the configuration put together. Every command that reads
//! documents (`serve`, `extract`, `eval docs`) flattens [`PipelineOptions`] and
//! calls [`PipelineOptions::load`].

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;

use super::classify::Classifier;
use super::{Pipeline, PipelineConfig, SECOND_LOOK_BELOW};
use crate::recognizer::{
    Batcher, BatcherOptions, DecodeOptions, DeviceOption, ModelSource, Recognizer,
    RecognizerWithOptions,
};

/// Beam width the pipeline decodes with: alternatives let the field rules (the
/// national-ID check digit, the name list...) choose a reading that validates.
pub const BEAM_WIDTH: usize = 3;

/// Which models read the documents, where, and how doubtful lines are read again;
/// each option also read from its `HAWIYA_*` variable.
#[derive(Debug, Clone, PartialEq, clap::Args)]
#[command(next_help_heading = "Models and recognizer")]
pub struct PipelineOptions {
    /// Folder of the models: classifier.json and recognizer/.
    #[arg(long, env = "HAWIYA_MODELS", default_value = "models")]
    pub models: PathBuf,
    #[command(flatten)]
    pub device: DeviceOption,
    /// Names, national IDs, addresses ending in a governorate and a passport's
    /// second MRZ line read less confidently than this (0 to 1; 0 is off) are read
    /// again from three variants of their crop, and the field's rule (name list,
    /// check digit, district list, MRZ check digits) chooses among all their
    /// readings.
    #[arg(long, env = "HAWIYA_SECOND_LOOK_BELOW", value_name = "CONFIDENCE", default_value_t = SECOND_LOOK_BELOW, value_parser = confidence)]
    pub second_look_below: f32,
    #[command(flatten)]
    pub batcher: BatcherOptions,
}

/// A confidence threshold: a number from 0 to 1.
fn confidence(text: &str) -> Result<f32, String> {
    match text.trim().parse::<f32>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err(format!("`{text}` is not 0 (off) or a confidence up to 1")),
    }
}

impl PipelineOptions {
    /// The defaults, with the models of `models`.
    pub fn with_models(models: impl Into<PathBuf>) -> PipelineOptions {
        PipelineOptions {
            models: models.into(),
            device: DeviceOption::default(),
            second_look_below: SECOND_LOOK_BELOW,
            batcher: BatcherOptions::default(),
        }
    }

    /// The pipeline's configuration with these options applied.
    pub fn config(&self) -> PipelineConfig {
        PipelineConfig {
            second_look_below: (self.second_look_below > 0.0).then_some(self.second_look_below),
            ..PipelineConfig::default()
        }
    }

    /// Loads the recognizer of `models/recognizer` onto its device and starts its
    /// batcher, loads the classifier of `models/classifier.json`, and builds the
    /// pipeline.
    pub fn load(&self) -> anyhow::Result<Pipeline> {
        let dir = self.models.join("recognizer");
        let recognizer = Recognizer::load_on(&ModelSource::Dir(dir.clone()), self.device.device)
            .with_context(|| format!("loading the recognizer from {}", dir.display()))?;
        let recognizer = RecognizerWithOptions {
            recognizer,
            options: DecodeOptions::beam(BEAM_WIDTH),
        };
        let batcher = Batcher::start(recognizer, self.batcher.config());
        let classifier = Classifier::load(&self.models.join("classifier.json"))
            .context("loading the classifier")?;
        Ok(Pipeline::new(self.config(), classifier, Arc::new(batcher)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::Extractor;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        options: PipelineOptions,
    }

    fn parse(args: &[&str]) -> Result<PipelineOptions, clap::Error> {
        Cli::try_parse_from(std::iter::once("hawiya").chain(args.iter().copied()))
            .map(|cli| cli.options)
    }

    #[test]
    fn the_flags_defaults_are_the_pipelines() {
        assert_eq!(parse(&[]).unwrap(), PipelineOptions::with_models("models"));
        let config = PipelineOptions::with_models("models").config();
        assert_eq!(config.second_look_below, Some(SECOND_LOOK_BELOW));
    }

    #[test]
    fn a_second_look_below_zero_is_off_and_above_one_is_refused() {
        let off = parse(&["--second-look-below", "0"]).unwrap();
        assert_eq!(off.config().second_look_below, None);
        let set = parse(&["--second-look-below", "0.5"]).unwrap();
        assert_eq!(set.config().second_look_below, Some(0.5));
        assert!(parse(&["--second-look-below", "1.5"]).is_err());
        assert!(parse(&["--second-look-below", "often"]).is_err());
    }

    #[test]
    fn the_shipped_models_load() {
        let options = PipelineOptions::with_models(concat!(env!("CARGO_MANIFEST_DIR"), "/models"));
        let pipeline = options.load().unwrap();
        assert!(pipeline.is_ready());
        let missing = PipelineOptions::with_models("/nonexistent")
            .load()
            .err()
            .unwrap();
        assert!(format!("{missing:#}").contains("recognizer"), "{missing:#}");
    }
}
