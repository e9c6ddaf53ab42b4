//! Synthetic documents with their truth: identity → layout rendering → capture, and
//! the `truth.jsonl` record of each image ([`TruthRecord`], written here and read by
//! `hawiya eval docs` and `hawiya train-classifier`).

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::domain::DocumentKind;
use crate::layout;
use crate::layout::LineCategory;
use crate::progress::Progress;
use crate::record::{FlowAFields, FlowBData};
use crate::synth::capture::{CaptureMode, CaptureParams, Homography};
use crate::synth::cli::KindChoice;
use crate::synth::render::{Face, FaceSet, FontError, FontSet, PrintedLine, render_card};
use crate::synth::{SynthDocument, identity};

/// Keeps document streams apart from text-line streams of the same seed.
const DOCUMENT_STREAM_DOMAIN: u64 = 0xD0C5_0000_0000_0000;

/// Documents per parallel batch (bounds memory).
const DOCUMENT_BATCH: u64 = 64;

/// One printed line in the output image.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TruthLine {
    /// Field key (`layouts/<kind>.toml`); `None` for fixed texts.
    pub key: Option<String>,
    pub text: String,
    pub category: LineCategory,
    /// The font family it is printed in (`fonts/families.toml`; absent from
    /// folders written before the generator recorded it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub font: Option<String>,
    /// The line's box corners in image pixels (top-left, top-right, bottom-right,
    /// bottom-left in card orientation), after the capture's warp.
    pub quad: [[f32; 2]; 4],
    /// Axis-aligned `[x0, y0, x1, y1]` around `quad`, clipped to the image.
    pub bbox: [f32; 4],
}

/// One line of `truth.jsonl`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TruthRecord {
    pub file: String,
    pub index: u64,
    pub kind: DocumentKind,
    /// `front` or `back` ([`DocumentKind::side`]).
    pub side: String,
    pub capture: CaptureParams,
    pub width: u32,
    pub height: u32,
    /// The document's corners in image pixels: card top-left, top-right,
    /// bottom-right, bottom-left (so the orientation is recoverable).
    pub corners: [[f32; 2]; 4],
    /// The Arabic font family the fields are printed in (`fonts/families.toml`;
    /// absent from folders written before the generator recorded it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub font: Option<String>,
    /// The card face it is printed on (absent from folders written before faces
    /// varied).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub face: Option<Face>,
    /// Other documents in the image: the card's other side lying beside it on a
    /// page scan. A request for this document's kind must read this one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<OtherDocument>,
    /// Every printed field line.
    pub lines: Vec<TruthLine>,
    /// Fixed headers and labels.
    pub fixed: Vec<TruthLine>,
    /// The printed field texts by key.
    pub fields: BTreeMap<String, String>,
    pub flow_a: FlowAFields,
    pub flow_b: FlowBData,
}

/// A document in the image besides the one the record describes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OtherDocument {
    pub kind: DocumentKind,
    /// Its corners in image pixels, as [`TruthRecord::corners`].
    pub corners: [[f32; 2]; 4],
    /// Its printed field texts by key (absent from folders written before the
    /// generator recorded them).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fields: BTreeMap<String, String>,
}

/// The name of the truth file in a document folder.
pub const TRUTH_FILE: &str = "truth.jsonl";

impl TruthRecord {
    /// Every record of `dir/truth.jsonl`, in file order.
    pub fn read_all(dir: &Path) -> anyhow::Result<Vec<TruthRecord>> {
        let path = dir.join(TRUTH_FILE);
        let text =
            fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .enumerate()
            .map(|(i, line)| {
                serde_json::from_str(line)
                    .with_context(|| format!("{}: line {}", path.display(), i + 1))
            })
            .collect()
    }

    /// Whether the document is printed on a face of `faces`; an error when the
    /// folder does not record faces and `faces` is not `all`.
    pub fn in_faces(&self, faces: FaceSet) -> anyhow::Result<bool> {
        match &self.face {
            Some(face) => Ok(faces.contains(face.family.split())),
            None if faces == FaceSet::All => Ok(true),
            None => anyhow::bail!(
                "{}: the folder does not record card faces (it was written before \
                 `hawiya synth` drew them): regenerate it, or measure it with --faces all",
                self.file
            ),
        }
    }

    /// The document's corners in the pixels of an image `image_width` x
    /// `image_height` (a rasterised PDF page may be scaled from the raster the truth
    /// describes).
    pub fn corners_in(&self, image_width: u32, image_height: u32) -> [[f32; 2]; 4] {
        let (sx, sy) = (
            image_width as f32 / self.width as f32,
            image_height as f32 / self.height as f32,
        );
        self.corners.map(|[x, y]| [x * sx, y * sy])
    }
}

/// A synthetic document image with its truth.
#[derive(Debug, Clone)]
pub struct Synthesized {
    pub bytes: Vec<u8>,
    pub truth: TruthRecord,
    pub document: SynthDocument,
}

/// What a folder of synthetic documents is drawn from.
#[derive(Debug, Clone, Copy)]
pub struct Dataset {
    pub kinds: KindChoice,
    pub capture: CaptureMode,
    /// The Arabic font families printed with.
    pub fonts: FontSet,
    /// The card-face families printed on.
    pub faces: FaceSet,
    pub seed: u64,
}

/// The side printed beside a `kind` on a page that shows both: a National ID's
/// other side, or a car licence's back beside its front. Not a car licence's front
/// beside its back: a request for a car licence accepts both sides and reads the
/// front, so such a page is the front's document.
fn printed_beside(kind: DocumentKind) -> Option<DocumentKind> {
    match kind {
        DocumentKind::CarLicenceBack => None,
        other => other.other_side(),
    }
}

impl Dataset {
    /// Document `index`: deterministic for the same font inventory.
    pub fn document(&self, index: u64) -> Result<Synthesized, FontError> {
        // Datasets of different captures with the same seed hold different documents.
        let mode_id = self.capture as u64;
        let mut rng =
            ChaCha8Rng::seed_from_u64(self.seed ^ DOCUMENT_STREAM_DOMAIN ^ (mode_id << 40));
        rng.set_stream(index);
        let kind = match self.kinds {
            KindChoice::One(kind) => kind,
            KindChoice::All => DocumentKind::ALL[rng.random_range(0..DocumentKind::ALL.len())],
        };
        let document = identity::generate(kind, &mut rng);
        let face = Face::draw(self.faces, &mut rng);
        let plan = self.capture.plan(&layout::builtin(kind).page, &mut rng);
        let card = render_card(&document, plan.card_width(), self.fonts, &face, &mut rng)?;
        let beside = match printed_beside(kind).filter(|_| plan.both_sides()) {
            Some(other) => {
                let document = identity::generate(other, &mut rng);
                let card = render_card(&document, plan.card_width(), self.fonts, &face, &mut rng)?;
                Some((other, card, document.fields))
            }
            None => None,
        };
        let captured = plan.capture(&card, beside.as_ref().map(|(_, c, _)| c), &mut rng);
        let h = &captured.card_to_image;
        let (width, height) = (captured.width, captured.height);
        let to_truth = |line: &PrintedLine| truth_line(line, h, width, height);
        let corners_of = |h: &Homography, card: &crate::synth::render::RenderedCard| {
            h.card_corners(card.image.width() as f64, card.image.height() as f64)
                .map(|[x, y]| [x as f32, y as f32])
        };
        let others = match (beside, &captured.beside_to_image) {
            (Some((kind, card, fields)), Some(h)) => vec![OtherDocument {
                kind,
                corners: corners_of(h, &card),
                fields,
            }],
            _ => Vec::new(),
        };
        let truth = TruthRecord {
            file: format!("{index:06}.{}", captured.extension),
            index,
            kind,
            side: kind.side().to_owned(),
            capture: captured.params,
            width,
            height,
            corners: corners_of(h, &card),
            font: Some(card.font.to_owned()),
            face: Some(face),
            others,
            lines: card.fields.iter().map(to_truth).collect(),
            fixed: card.fixed.iter().map(to_truth).collect(),
            fields: document.fields.clone(),
            flow_a: document.flow_a.clone(),
            flow_b: document.flow_b.clone(),
        };
        Ok(Synthesized {
            bytes: captured.bytes,
            truth,
            document,
        })
    }

    /// Writes documents `start..start + n` and `truth.jsonl` into `out`.
    pub fn write(&self, out: &Path, start: u64, n: u64) -> anyhow::Result<()> {
        fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
        let truth_path = out.join(TRUTH_FILE);
        let mut truth = BufWriter::new(
            File::create(&truth_path)
                .with_context(|| format!("creating {}", truth_path.display()))?,
        );
        let started = Instant::now();
        let progress = Progress::new("synth", n, "documents");
        let end = start + n;
        let mut batch_start = start;
        while batch_start < end {
            let batch_end = (batch_start + DOCUMENT_BATCH).min(end);
            let records: Vec<anyhow::Result<TruthRecord>> = (batch_start..batch_end)
                .into_par_iter()
                .map(|index| {
                    let doc = self.document(index)?;
                    let path = out.join(&doc.truth.file);
                    fs::write(&path, &doc.bytes)
                        .with_context(|| format!("writing {}", path.display()))?;
                    Ok(doc.truth)
                })
                .collect();
            for record in records {
                serde_json::to_writer(&mut truth, &record?)?;
                truth.write_all(b"\n")?;
            }
            progress.add(batch_end - batch_start);
            batch_start = batch_end;
        }
        truth.flush()?;
        progress.finish();
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "wrote {n} documents to {} in {seconds:.2} s ({:.1} documents/s)",
            out.display(),
            n as f64 / seconds.max(1e-9)
        );
        Ok(())
    }
}

fn truth_line(line: &PrintedLine, h: &Homography, width: u32, height: u32) -> TruthLine {
    let [x0, y0, x1, y1] = line.rect.map(f64::from);
    let quad = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]].map(|p| {
        let [x, y] = h.apply(p);
        [x as f32, y as f32]
    });
    let xs = quad.map(|p| p[0]);
    let ys = quad.map(|p| p[1]);
    let clip = |v: f32, max: u32| v.clamp(0.0, max as f32);
    let bbox = [
        clip(xs.into_iter().fold(f32::MAX, f32::min), width),
        clip(ys.into_iter().fold(f32::MAX, f32::min), height),
        clip(xs.into_iter().fold(f32::MIN, f32::max), width),
        clip(ys.into_iter().fold(f32::MIN, f32::max), height),
    ];
    TruthLine {
        key: line.key.clone(),
        text: line.text.clone(),
        category: line.category,
        font: Some(line.font.to_owned()),
        quad,
        bbox,
    }
}
