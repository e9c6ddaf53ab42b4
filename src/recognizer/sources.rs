//! Where training crops come from: the line generator, labelled crop folders
//! (`hawiya synth --lines` or `hawiya eval docs --export-lines` output), or a mix
//! of both.

use std::path::PathBuf;
use std::sync::Arc;

use image::GrayImage;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::train::LineSource;
use crate::synth::LineGenerator;
use crate::synth::labels::LineLabel;
use crate::synth::render::FontSet;

impl LineSource for LineGenerator {
    fn line(&self, index: u64) -> (GrayImage, String) {
        let sample = self.sample(index);
        (sample.image, sample.text)
    }
}

/// Every crop of one or more labelled folders, held in memory (decoded once, so a
/// broken file stops the run at start rather than mid-training).
pub struct LabelledCrops {
    crops: Vec<(GrayImage, String)>,
}

impl LabelledCrops {
    /// Loads every crop of `dirs`; a crop printed in a held-out font family is
    /// refused (those fonts are only measured, never trained on).
    pub fn load(dirs: &[PathBuf]) -> anyhow::Result<LabelledCrops> {
        let mut crops = Vec::new();
        for dir in dirs {
            for label in LineLabel::read_all(dir)? {
                let font = label.font.as_deref();
                anyhow::ensure!(
                    font.is_none() || FontSet::Training.admits(font)?,
                    "{}: {} is printed in {}, a held-out font family: held-out fonts are \
                     only measured, never trained on",
                    dir.display(),
                    label.file,
                    font.unwrap_or_default()
                );
                crops.push((label.crop(dir)?, label.text));
            }
        }
        anyhow::ensure!(!crops.is_empty(), "no labelled crops in {dirs:?}");
        Ok(LabelledCrops { crops })
    }

    pub fn len(&self) -> usize {
        self.crops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.crops.is_empty()
    }
}

impl LineSource for LabelledCrops {
    /// Index `i` draws a crop uniformly (not `i % len`: the trainer's pools are
    /// runs of consecutive indices and would otherwise see the folder in order).
    fn line(&self, index: u64) -> (GrayImage, String) {
        let mut rng = ChaCha8Rng::seed_from_u64(index);
        self.crops[rng.random_range(0..self.crops.len())].clone()
    }
}

/// Draws from `extra` for a fixed share of indices, from `base` for the rest.
pub struct Mixed {
    pub base: Arc<dyn LineSource>,
    pub extra: Arc<dyn LineSource>,
    pub extra_share: f64,
}

impl LineSource for Mixed {
    fn line(&self, index: u64) -> (GrayImage, String) {
        // A stream of its own, so the choice does not correlate with what `base`
        // draws for the same index.
        let mut rng = ChaCha8Rng::seed_from_u64(index);
        rng.set_stream(1);
        if rng.random_bool(self.extra_share.clamp(0.0, 1.0)) {
            self.extra.line(index)
        } else {
            self.base.line(index)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source whose crops are one pixel wide and say where they came from.
    struct Named(&'static str);

    impl LineSource for Named {
        fn line(&self, index: u64) -> (GrayImage, String) {
            (GrayImage::new(1, 1), format!("{}{index}", self.0))
        }
    }

    #[test]
    fn mixed_draws_the_extra_share_deterministically() {
        let mixed = Mixed {
            base: Arc::new(Named("b")),
            extra: Arc::new(Named("e")),
            extra_share: 0.3,
        };
        let extra = (0..4000u64)
            .filter(|&i| mixed.line(i).1.starts_with('e'))
            .count();
        assert!((1000..1400).contains(&extra), "{extra} of 4000");
        assert_eq!(mixed.line(17).1, mixed.line(17).1);
        // The index reaches the chosen source unchanged.
        assert!(mixed.line(5).1.ends_with('5'));
    }

    #[test]
    fn labelled_crops_load_a_folder_and_cover_it() {
        let dir = std::env::temp_dir().join(format!("hawiya-crops-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut labels = crate::synth::labels::LabelsWriter::create(&dir).unwrap();
        for (i, text) in ["١٢٣", "AB"].iter().enumerate() {
            let file = format!("{i}.png");
            crate::synth::labels::write_png(&dir.join(&file), &GrayImage::new(4 + i as u32, 3))
                .unwrap();
            labels
                .add(&LineLabel {
                    file,
                    text: text.to_string(),
                    category: crate::layout::LineCategory::Other,
                    font: None,
                })
                .unwrap();
        }
        labels.finish().unwrap();
        let crops = LabelledCrops::load(std::slice::from_ref(&dir)).unwrap();
        let held_out = dir.join("held-out");
        std::fs::create_dir_all(&held_out).unwrap();
        let mut labels = crate::synth::labels::LabelsWriter::create(&held_out).unwrap();
        crate::synth::labels::write_png(&held_out.join("0.png"), &GrayImage::new(4, 3)).unwrap();
        labels
            .add(&LineLabel {
                file: "0.png".into(),
                text: "١٢٣".into(),
                category: crate::layout::LineCategory::Other,
                font: Some("Lateef".into()),
            })
            .unwrap();
        labels.finish().unwrap();
        let refused = LabelledCrops::load(&[held_out]).err().unwrap().to_string();
        assert!(refused.contains("held-out font family"), "{refused}");
        assert_eq!(crops.len(), 2);
        let seen: std::collections::BTreeSet<(u32, String)> = (0..64)
            .map(|i| {
                let (image, text) = crops.line(i);
                (image.width(), text)
            })
            .collect();
        assert_eq!(
            seen.into_iter().collect::<Vec<_>>(),
            vec![(4, "١٢٣".to_string()), (5, "AB".to_string())]
        );
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(LabelledCrops::load(&[dir]).is_err());
    }
}
