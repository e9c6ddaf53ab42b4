//! The model's direct call: a loaded recognizer reading line crops on the calling
//! thread, in padded batches of similar widths. The service goes through the
//! [`batcher`](super::batcher) instead, whose threads call
//! [`Recognizer::recognize_batch`] on crops of many requests; `eval lines`,
//! `calibrate` and the trainer's evaluation call the recognizer directly.

use candle_core::Device;
use image::GrayImage;

use super::calibration::Calibration;
use super::config::ModelConfig;
use super::decode::{DecodeOptions, Reading, decode};
use super::model::LineModel;
use super::preprocess::{CPU_WIDTH_RATIO, ImageBatch, LineInput, prepare, width_groups};
use super::vocab::Vocab;

/// Why a batch of crops could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RecognizeError {
    #[error("the recognizer is overloaded; retry shortly")]
    Overloaded,
    #[error("the recognizer has shut down")]
    ShutDown,
    #[error("recognizer failure: {0}")]
    Model(String),
}

impl From<candle_core::Error> for RecognizeError {
    fn from(e: candle_core::Error) -> Self {
        RecognizeError::Model(e.to_string())
    }
}
/// A loaded model: its weights on their device, its vocabulary and, when one was
/// fitted, the calibration of its confidences.
#[derive(Debug, Clone)]
pub struct Recognizer {
    model: LineModel,
    vocab: Vocab,
    device: Device,
    /// Maps transcript probabilities to the chance a line is exact (absent: raw).
    calibration: Option<Calibration>,
}

impl Recognizer {
    /// Wraps an in-memory model (tests, the trainer's own evaluation).
    pub fn from_model(model: LineModel, vocab: Vocab, device: Device) -> Recognizer {
        Recognizer {
            model,
            vocab,
            device,
            calibration: None,
        }
    }

    /// The same model with `calibration` applied to its confidences.
    pub fn with_calibration(self, calibration: Option<Calibration>) -> Recognizer {
        Recognizer {
            calibration,
            ..self
        }
    }

    pub fn calibration(&self) -> Option<&Calibration> {
        self.calibration.as_ref()
    }

    pub fn config(&self) -> &ModelConfig {
        &self.model.config
    }

    pub fn vocab(&self) -> &Vocab {
        &self.vocab
    }

    /// Scales and normalises one crop for [`Recognizer::recognize_prepared`].
    pub fn prepare(&self, crop: &GrayImage) -> LineInput {
        prepare(crop, &self.model.config)
    }

    /// Reads crops, answering in their order (see [`Recognizer::recognize_prepared`]).
    pub fn recognize(
        &self,
        crops: &[GrayImage],
        options: DecodeOptions,
    ) -> Result<Vec<Reading>, RecognizeError> {
        let inputs: Vec<LineInput> = crops.iter().map(|c| self.prepare(c)).collect();
        self.recognize_prepared(&inputs.iter().collect::<Vec<_>>(), options)
    }

    /// What padding costs on this device: the widest crop worth reading in one
    /// padded batch with the narrowest, as a multiple of its width. On a CPU the work
    /// grows with the padded width ([`CPU_WIDTH_RATIO`]); on a GPU a decoding step
    /// costs about the same for any width, so any widths share a batch.
    pub fn width_ratio(&self) -> f32 {
        if self.device.is_cpu() {
            CPU_WIDTH_RATIO
        } else {
            f32::INFINITY
        }
    }

    /// Reads prepared crops, answering in their order: as batches of widths within
    /// [`Recognizer::width_ratio`] of each other ([`width_groups`]).
    pub fn recognize_prepared(
        &self,
        inputs: &[&LineInput],
        options: DecodeOptions,
    ) -> Result<Vec<Reading>, RecognizeError> {
        let widths: Vec<usize> = inputs.iter().map(|i| i.width).collect();
        let mut read: Vec<(usize, Reading)> = Vec::with_capacity(inputs.len());
        for group in width_groups(&widths, self.width_ratio()) {
            let members: Vec<&LineInput> = group.iter().map(|&i| inputs[i]).collect();
            read.extend(
                group
                    .into_iter()
                    .zip(self.recognize_batch(&members, options)?),
            );
        }
        read.sort_by_key(|(i, _)| *i);
        Ok(read.into_iter().map(|(_, reading)| reading).collect())
    }

    /// Recognizes `inputs` as one batch, padded to the widest: the caller has chosen
    /// crops of similar width (the batcher, or [`Recognizer::recognize_prepared`]).
    pub fn recognize_batch(
        &self,
        inputs: &[&LineInput],
        options: DecodeOptions,
    ) -> Result<Vec<Reading>, RecognizeError> {
        if inputs.is_empty() {
            return Ok(Vec::new());
        }
        let cfg = &self.model.config;
        let batch = ImageBatch::new(inputs, cfg, &self.device)?;
        self.decode_calibrated(&batch, options)
    }

    fn decode_calibrated(
        &self,
        batch: &ImageBatch,
        options: DecodeOptions,
    ) -> Result<Vec<Reading>, RecognizeError> {
        let mut readings = decode(&self.model, &self.vocab, batch, options)?;
        if let Some(calibration) = &self.calibration {
            for r in &mut readings {
                r.calibrate(calibration);
            }
        }
        Ok(readings)
    }
}

/// The recognizer with the decoding options it reads with (the pipeline's beam of
/// 3): what the batcher's threads run in the service, and what reads line crops
/// for the pipeline's rules where no batcher runs (`eval lines --as-pipeline`).
#[derive(Debug, Clone)]
pub struct RecognizerWithOptions {
    pub recognizer: Recognizer,
    pub options: DecodeOptions,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recognizer::load::tests::exported;
    use crate::recognizer::train::tests::bar_crop;

    #[test]
    fn a_batch_of_mixed_widths_answers_in_order_as_each_crop_alone() {
        let dir = tempfile::tempdir().unwrap();
        let (recognizer, _) = exported(dir.path());
        // Widths 32, 104, 20, 140 and 32 px: three width groups, read out of order.
        let crops: Vec<GrayImage> = ["AB", "١٢٣٤٥٦٧٨", "٣", "مصر العربية", "٤٥"]
            .iter()
            .map(|t| bar_crop(t))
            .collect();
        let widths: Vec<usize> = crops.iter().map(|c| recognizer.prepare(c).width).collect();
        assert_eq!(width_groups(&widths, recognizer.width_ratio()).len(), 3);
        let options = DecodeOptions::beam(2);
        let together = recognizer.recognize(&crops, options).unwrap();
        assert_eq!(together.len(), crops.len());
        for (crop, read) in crops.iter().zip(&together) {
            let alone = &recognizer
                .recognize(std::slice::from_ref(crop), options)
                .unwrap()[0];
            assert_eq!(read.best.text, alone.best.text);
            assert!((read.best.confidence - alone.best.confidence).abs() < 1e-4);
        }
    }
}
