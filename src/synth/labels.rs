//! A folder of labelled text-line crops: PNG files and `labels.jsonl`, one
//! [`LineLabel`] a line. `hawiya synth --lines` and `hawiya eval docs --export-lines`
//! write it; the trainer, `hawiya calibrate` and `hawiya eval lines` read it.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use image::GrayImage;
use image::codecs::png::{CompressionType, FilterType, PngEncoder};
use serde::{Deserialize, Serialize};

use crate::layout::LineCategory;

/// The name of the labels file in a crop folder.
pub const LABELS_FILE: &str = "labels.jsonl";

/// One line of `labels.jsonl`: a crop file and the text it prints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineLabel {
    /// The crop's file name, beside `labels.jsonl`.
    pub file: String,
    pub text: String,
    pub category: LineCategory,
    /// The font family the line is printed in (absent from folders written before
    /// the generator recorded it, and from crops of other origins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub font: Option<String>,
}

impl LineLabel {
    /// Every label of the folder `dir`, in file order.
    pub fn read_all(dir: &Path) -> anyhow::Result<Vec<LineLabel>> {
        let path = dir.join(LABELS_FILE);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .enumerate()
            .map(|(i, l)| {
                serde_json::from_str(l).with_context(|| format!("{}:{}", path.display(), i + 1))
            })
            .collect()
    }

    /// The grey crop this label names in `dir`.
    pub fn crop(&self, dir: &Path) -> anyhow::Result<GrayImage> {
        let path = dir.join(&self.file);
        let image = image::open(&path).with_context(|| format!("reading {}", path.display()))?;
        Ok(image.to_luma8())
    }
}

/// Writes `labels.jsonl` into a crop folder, one label at a time.
pub struct LabelsWriter {
    out: BufWriter<File>,
}

impl LabelsWriter {
    pub fn create(dir: &Path) -> anyhow::Result<LabelsWriter> {
        let path = dir.join(LABELS_FILE);
        let file = File::create(&path).with_context(|| format!("creating {}", path.display()))?;
        Ok(LabelsWriter {
            out: BufWriter::new(file),
        })
    }

    pub fn add(&mut self, label: &LineLabel) -> anyhow::Result<()> {
        serde_json::to_writer(&mut self.out, label)?;
        self.out.write_all(b"\n")?;
        Ok(())
    }

    pub fn finish(mut self) -> anyhow::Result<()> {
        Ok(self.out.flush()?)
    }
}

/// Writes a crop as a PNG, compressed fast (crop folders are large and rewritten).
pub fn write_png(path: &Path, image: &GrayImage) -> anyhow::Result<()> {
    let file =
        BufWriter::new(File::create(path).with_context(|| format!("creating {}", path.display()))?);
    let encoder = PngEncoder::new_with_quality(file, CompressionType::Fast, FilterType::Sub);
    image
        .write_with_encoder(encoder)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_reads_back_the_labels_and_crops_it_was_written_with() {
        let dir = tempfile::tempdir().unwrap();
        let labels = [
            LineLabel {
                file: "a.png".into(),
                text: "محمد".into(),
                category: LineCategory::Name,
                font: Some("Amiri".into()),
            },
            LineLabel {
                file: "b.png".into(),
                text: "P<EGY".into(),
                category: LineCategory::Latin,
                font: None,
            },
        ];
        let mut writer = LabelsWriter::create(dir.path()).unwrap();
        for (i, label) in labels.iter().enumerate() {
            let crop = GrayImage::from_pixel(10 + i as u32, 4, image::Luma([200]));
            write_png(&dir.path().join(&label.file), &crop).unwrap();
            writer.add(label).unwrap();
        }
        writer.finish().unwrap();
        let read = LineLabel::read_all(dir.path()).unwrap();
        assert_eq!(read, labels);
        assert_eq!(read[1].crop(dir.path()).unwrap().dimensions(), (11, 4));
    }
}
