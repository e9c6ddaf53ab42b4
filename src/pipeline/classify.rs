//! Stage 3: which kind and side of document the located outline holds, and whether
//! it lies upside down.
//!
//! A multinomial logistic regression over what identifies a kind in print and
//! geometry, not its colours (a real card's hues, background print and wear are
//! not ours): a small grey picture of the card (standardised, so lighting and a
//! faded or dark print do not matter), where its edges are dense (text, portrait,
//! barcode), and the card's rows and columns of ink: the arrangement of its text
//! lines, the MRZ band, the barcode band. Each kind has two classes, upright and
//! turned by half a turn, so one pass decides kind, side and orientation. Trained
//! by `hawiya train-classifier` on generator output printed on varied faces; the
//! weights ship in `models/classifier.json`.

use std::path::Path;

use image::{Rgb, RgbImage};
use serde::{Deserialize, Serialize};

use super::warp::{Quad, warp_rgb};
use crate::domain::DocumentKind;

/// The card is sampled at `GRID_W`×`GRID_H` cells, from a warp `SUPER` times finer.
const GRID_W: u32 = 32;
const GRID_H: u32 = 20;
const SUPER: u32 = 3;
/// Edge density uses a coarser grid.
const COARSE_W: u32 = 16;
const COARSE_H: u32 = 10;
/// Rows and columns of the edge profiles (one row a third of a grid cell high,
/// so a line of text and the gap under it are told apart).
const PROFILE_ROWS: u32 = GRID_H * SUPER;
const PROFILE_COLUMNS: u32 = GRID_W;

/// Length of a feature vector.
pub const FEATURES: usize =
    (GRID_W * GRID_H + COARSE_W * COARSE_H + PROFILE_ROWS + PROFILE_COLUMNS) as usize;

/// The card under `quad` as a feature vector (the quad's first side read as its top).
pub fn features(image: &RgbImage, quad: &Quad) -> Vec<f32> {
    features_of_card(&sample(image, quad))
}

/// The card under `quad` rectified at the resolution the features read.
pub fn sample(image: &RgbImage, quad: &Quad) -> RgbImage {
    warp_rgb(image, quad, GRID_W * SUPER, GRID_H * SUPER)
}

/// Features of an already rectified card image (any size, landscape).
pub fn features_of_card(card: &RgbImage) -> Vec<f32> {
    let fine = if card.dimensions() == (GRID_W * SUPER, GRID_H * SUPER) {
        card.clone()
    } else {
        image::imageops::resize(
            card,
            GRID_W * SUPER,
            GRID_H * SUPER,
            image::imageops::FilterType::Triangle,
        )
    };
    let grey: Vec<f32> = fine
        .pixels()
        .map(|Rgb([r, g, b])| luma(*r, *g, *b))
        .collect();
    let (fw, fh) = (fine.width() as usize, fine.height() as usize);
    let mut out = Vec::with_capacity(FEATURES);

    // Grey levels, standardised over the card.
    let cells = cell_means(&grey, fw, fh, GRID_W as usize, GRID_H as usize);
    out.extend(standardise(&cells));

    // Edge density, relative to the card's mean.
    let mut edges = vec![0f32; fw * fh];
    for y in 1..fh - 1 {
        for x in 1..fw - 1 {
            let dx = grey[y * fw + x + 1] - grey[y * fw + x - 1];
            let dy = grey[(y + 1) * fw + x] - grey[(y - 1) * fw + x];
            edges[y * fw + x] = (dx * dx + dy * dy).sqrt();
        }
    }
    let cells = cell_means(&edges, fw, fh, COARSE_W as usize, COARSE_H as usize);
    let mean = cells.iter().sum::<f32>() / cells.len() as f32 + 1e-3;
    out.extend(cells.iter().map(|c| c / mean - 1.0));

    // Profiles: the edge density of each row across the card (where lines of
    // text, the MRZ and the barcode run) and of each column down it.
    let rows = cell_means(&edges, fw, fh, 1, PROFILE_ROWS as usize);
    out.extend(rows.iter().map(|c| c / mean - 1.0));
    let columns = cell_means(&edges, fw, fh, PROFILE_COLUMNS as usize, 1);
    out.extend(columns.iter().map(|c| c / mean - 1.0));
    out
}

fn luma(r: u8, g: u8, b: u8) -> f32 {
    0.299 * f32::from(r) + 0.587 * f32::from(g) + 0.114 * f32::from(b)
}

fn cell_means(values: &[f32], w: usize, h: usize, cw: usize, ch: usize) -> Vec<f32> {
    let mut sums = vec![0f32; cw * ch];
    let mut counts = vec![0f32; cw * ch];
    for y in 0..h {
        let cy = y * ch / h;
        for x in 0..w {
            let cx = x * cw / w;
            sums[cy * cw + cx] += values[y * w + x];
            counts[cy * cw + cx] += 1.0;
        }
    }
    sums.iter()
        .zip(&counts)
        .map(|(s, c)| s / c.max(1.0))
        .collect()
}

fn standardise(values: &[f32]) -> Vec<f32> {
    let n = values.len() as f32;
    let mean = values.iter().sum::<f32>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / n;
    let std = var.sqrt().max(1.0);
    values.iter().map(|v| (v - mean) / std).collect()
}

/// One class of the model: a kind, upright or upside down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Class {
    pub kind: DocumentKind,
    pub upside_down: bool,
}

/// All classes in model order: every kind upright, then every kind turned.
pub fn classes() -> Vec<Class> {
    [false, true]
        .into_iter()
        .flat_map(|upside_down| {
            DocumentKind::ALL
                .into_iter()
                .map(move |kind| Class { kind, upside_down })
        })
        .collect()
}

/// The decision for one outline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Classification {
    pub kind: DocumentKind,
    /// The outline must be turned by half a turn to read the document.
    pub upside_down: bool,
    /// Probability of the chosen class.
    pub confidence: f32,
    /// The class the model found likelier when the request's prior chose this
    /// one instead (it was under [`CLEARLY_SEEN`] sure of it): what the card's
    /// printed title is read for before it is read as the kind asked for.
    pub rival: Option<Class>,
}

impl Classification {
    /// `outline` turned so that its first side is the document's top.
    pub fn upright(&self, outline: Quad) -> Quad {
        if self.upside_down {
            outline.turned(2)
        } else {
            outline
        }
    }
}

/// Why a classifier model cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("cannot read the classifier model {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("the classifier model is not valid: {0}")]
    Invalid(String),
}

/// Linear model over standardised features.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Classifier {
    pub classes: Vec<Class>,
    /// Per-feature mean and scale applied before the linear layer.
    pub mean: Vec<f32>,
    pub scale: Vec<f32>,
    /// Row-major `classes × FEATURES`.
    pub weights: Vec<f32>,
    pub bias: Vec<f32>,
}

impl Classifier {
    pub fn from_json(text: &str) -> Result<Classifier, ModelError> {
        let model: Classifier =
            serde_json::from_str(text).map_err(|e| ModelError::Invalid(e.to_string()))?;
        let n = model.classes.len();
        if model.mean.len() != FEATURES
            || model.scale.len() != FEATURES
            || model.weights.len() != n * FEATURES
            || model.bias.len() != n
            || n == 0
        {
            return Err(ModelError::Invalid(format!(
                "shapes do not match {FEATURES} features"
            )));
        }
        Ok(model)
    }

    pub fn load(path: &Path) -> Result<Classifier, ModelError> {
        let text = std::fs::read_to_string(path).map_err(|source| ModelError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Classifier::from_json(&text)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// Class probabilities for one feature vector.
    pub fn probabilities(&self, features: &[f32]) -> Vec<f32> {
        let x: Vec<f32> = features
            .iter()
            .zip(&self.mean)
            .zip(&self.scale)
            .map(|((v, m), s)| (v - m) * s)
            .collect();
        let logits: Vec<f32> = (0..self.classes.len())
            .map(|c| {
                let row = &self.weights[c * FEATURES..(c + 1) * FEATURES];
                self.bias[c] + row.iter().zip(&x).map(|(w, v)| w * v).sum::<f32>()
            })
            .collect();
        softmax(&logits)
    }

    /// Kind, side and orientation of the card under `quad`.
    pub fn classify(&self, image: &RgbImage, quad: &Quad) -> Classification {
        self.decide(&features(image, quad))
    }

    /// Of the locator's candidate outlines (most likely first), the one to read,
    /// with its decision ([`decide_given`](Self::decide_given)); `None` when there
    /// are no candidates.
    ///
    /// The locator's first, unless the request's `accepted` kinds are likelier
    /// than [`ACCEPTED_PICK`] on another while not on it (then the one they are
    /// likeliest on): of a National ID's two sides on one page, the side asked for.
    /// `probabilities` holds each candidate's, as [`probabilities`](Self::probabilities)
    /// gives them.
    pub fn pick(
        &self,
        probabilities: &[Vec<f32>],
        accepted: Option<&[DocumentKind]>,
    ) -> Option<(usize, Classification)> {
        let asked =
            |p: &[f32]| accepted.map_or(0.0, |accepted| self.best(p, |k| accepted.contains(&k)).1);
        let first = probabilities.first()?;
        let chosen = if asked(first) >= ACCEPTED_PICK {
            0
        } else {
            probabilities
                .iter()
                .map(|p| asked(p))
                .enumerate()
                .filter(|&(_, p)| p >= ACCEPTED_PICK)
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map_or(0, |(i, _)| i)
        };
        Some((chosen, self.given(&probabilities[chosen], accepted)))
    }

    pub fn decide(&self, features: &[f32]) -> Classification {
        self.decide_given(features, None)
    }

    /// The decision with the request's `accepted` kinds as the prior: the likeliest
    /// class when its kind is accepted, or when the model is at least
    /// [`CLEARLY_SEEN`] sure of it (the request is then refused as another kind);
    /// otherwise the likeliest accepted class, read with its own, lower,
    /// probability as the confidence. A valid card on a face the model never saw is
    /// read rather than refused.
    pub fn decide_given(
        &self,
        features: &[f32],
        accepted: Option<&[DocumentKind]>,
    ) -> Classification {
        self.given(&self.probabilities(features), accepted)
    }

    /// The decision on a candidate's `probabilities` ([`decide_given`](Self::decide_given)).
    pub fn given(&self, p: &[f32], accepted: Option<&[DocumentKind]>) -> Classification {
        let (likeliest, likelihood) = self.best(p, |_| true);
        let (class, confidence, rival) = match accepted {
            Some(accepted) if !accepted.contains(&likeliest.kind) && likelihood < CLEARLY_SEEN => {
                let (class, confidence) = self.best(p, |k| accepted.contains(&k));
                (class, confidence, Some(likeliest))
            }
            _ => (likeliest, likelihood, None),
        };
        Classification {
            kind: class.kind,
            upside_down: class.upside_down,
            confidence,
            rival,
        }
    }

    /// The likeliest class of a kind `admitted`, with its probability.
    fn best(&self, p: &[f32], admitted: impl Fn(DocumentKind) -> bool) -> (Class, f32) {
        self.classes
            .iter()
            .zip(p)
            .filter(|(c, _)| admitted(c.kind))
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map_or((self.classes[0], 0.0), |(c, &p)| (*c, p))
    }
}

/// How sure the classifier must be of a kind the request does not accept to take
/// the document for it (and refuse it as `WRONG_ID_TYPE`) rather than read it as
/// the kind asked for.
pub const CLEARLY_SEEN: f32 = 0.9;

/// How likely a kind asked for must be on an outline for it to be read before
/// the locator's first.
pub const ACCEPTED_PICK: f32 = 0.25;

fn softmax(logits: &[f32]) -> Vec<f32> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
    let sum: f32 = exp.iter().sum();
    exp.iter().map(|e| e / sum).collect()
}

/// Training settings for [`train`].
#[derive(Debug, Clone)]
pub struct TrainConfig {
    pub epochs: usize,
    pub learning_rate: f32,
    /// Weight decay. A linear model over ~900 features separates its training
    /// documents whatever the decay, so the decay decides how sure it is of a card
    /// unlike them: strong decay keeps it from being 0.9 sure of the wrong kind
    /// on a face it never saw (chosen on held-out faces at a tuning seed).
    pub l2: f32,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            epochs: 300,
            learning_rate: 0.5,
            l2: 0.05,
        }
    }
}

/// Fits the model to `(features, class index)` pairs by full-batch gradient
/// descent with momentum on the softmax cross-entropy.
pub fn train(samples: &[(Vec<f32>, usize)], config: &TrainConfig) -> Classifier {
    let classes = classes();
    let n_classes = classes.len();
    let n = samples.len().max(1) as f32;
    let mut mean = vec![0f32; FEATURES];
    for (x, _) in samples {
        for (m, v) in mean.iter_mut().zip(x) {
            *m += v / n;
        }
    }
    let mut var = vec![0f32; FEATURES];
    for (x, _) in samples {
        for ((s, v), m) in var.iter_mut().zip(x).zip(&mean) {
            *s += (v - m).powi(2) / n;
        }
    }
    let scale: Vec<f32> = var.iter().map(|v| 1.0 / (v.sqrt() + 1e-3)).collect();
    let xs: Vec<Vec<f32>> = samples
        .iter()
        .map(|(x, _)| {
            x.iter()
                .zip(&mean)
                .zip(&scale)
                .map(|((v, m), s)| (v - m) * s)
                .collect()
        })
        .collect();
    let mut weights = vec![0f32; n_classes * FEATURES];
    let mut bias = vec![0f32; n_classes];
    let mut velocity_w = vec![0f32; weights.len()];
    let mut velocity_b = vec![0f32; n_classes];
    for _ in 0..config.epochs {
        let mut grad_w = vec![0f32; weights.len()];
        let mut grad_b = vec![0f32; n_classes];
        for (x, (_, label)) in xs.iter().zip(samples) {
            let logits: Vec<f32> = (0..n_classes)
                .map(|c| {
                    bias[c]
                        + weights[c * FEATURES..(c + 1) * FEATURES]
                            .iter()
                            .zip(x)
                            .map(|(w, v)| w * v)
                            .sum::<f32>()
                })
                .collect();
            let p = softmax(&logits);
            for c in 0..n_classes {
                let err = p[c] - if c == *label { 1.0 } else { 0.0 };
                if err.abs() < 1e-6 {
                    continue;
                }
                grad_b[c] += err / n;
                for (g, v) in grad_w[c * FEATURES..(c + 1) * FEATURES].iter_mut().zip(x) {
                    *g += err * v / n;
                }
            }
        }
        for i in 0..weights.len() {
            velocity_w[i] =
                0.9 * velocity_w[i] - config.learning_rate * (grad_w[i] + config.l2 * weights[i]);
            weights[i] += velocity_w[i];
        }
        for c in 0..n_classes {
            velocity_b[c] = 0.9 * velocity_b[c] - config.learning_rate * grad_b[c];
            bias[c] += velocity_b[c];
        }
    }
    Classifier {
        classes,
        mean,
        scale,
        weights,
        bias,
    }
}

/// Index of `class` in [`classes`].
pub fn class_index(kind: DocumentKind, upside_down: bool) -> usize {
    let k = DocumentKind::ALL
        .iter()
        .position(|&x| x == kind)
        .unwrap_or(0);
    k + if upside_down {
        DocumentKind::ALL.len()
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::warp::Quad;

    /// Seven made-up "kinds": different paper colours and text-block positions.
    fn fake_card(kind: usize, variant: u32) -> RgbImage {
        let palette: [[u8; 3]; 7] = [
            [220, 230, 240],
            [240, 230, 190],
            [230, 220, 200],
            [200, 230, 210],
            [235, 215, 225],
            [200, 210, 235],
            [225, 225, 225],
        ];
        let paper = palette[kind];
        RgbImage::from_fn(300, 190, |x, y| {
            let (u, v) = (x as f32 / 300.0, y as f32 / 190.0);
            let row = ((v * 10.0) as usize + kind).is_multiple_of(3);
            let block = (u > 0.1 * (kind % 4) as f32 + 0.02 * (variant % 3) as f32)
                && u < 0.9
                && row
                && v > 0.2;
            if block && !(x / 3 + variant).is_multiple_of(4) {
                Rgb([30, 30, 30])
            } else {
                let shade = (variant % 5) as u8 * 4;
                Rgb(paper.map(|c| c.saturating_sub(shade)))
            }
        })
    }

    #[test]
    fn learns_kinds_and_orientation() {
        let mut samples = Vec::new();
        for kind in 0..7 {
            for variant in 0..6 {
                let card = fake_card(kind, variant);
                let quad = Quad::full(card.width(), card.height());
                samples.push((
                    features(&card, &quad),
                    class_index(DocumentKind::ALL[kind], false),
                ));
                samples.push((
                    features(&card, &quad.turned(2)),
                    class_index(DocumentKind::ALL[kind], true),
                ));
            }
        }
        let model = train(
            &samples,
            &TrainConfig {
                epochs: 60,
                ..TrainConfig::default()
            },
        );
        let model = Classifier::from_json(&model.to_json()).unwrap();
        for kind in 0..7 {
            let card = fake_card(kind, 7);
            let quad = Quad::full(card.width(), card.height());
            let up = model.classify(&card, &quad);
            assert_eq!(
                (up.kind, up.upside_down),
                (DocumentKind::ALL[kind], false),
                "{up:?}"
            );
            let down = model.classify(&card, &quad.turned(2));
            assert_eq!(
                (down.kind, down.upside_down),
                (DocumentKind::ALL[kind], true),
                "{down:?}"
            );
        }
    }

    /// A model that ignores the card and favours NID back `back` to NID front `front`
    /// (logits), every other class at 0.
    fn leaning(back: f32, front: f32) -> Classifier {
        let classes = classes();
        let bias = classes
            .iter()
            .map(|c| match (c.kind, c.upside_down) {
                (DocumentKind::NidBack, false) => back,
                (DocumentKind::NidFront, false) => front,
                _ => 0.0,
            })
            .collect();
        Classifier {
            weights: vec![0.0; classes.len() * FEATURES],
            mean: vec![0.0; FEATURES],
            scale: vec![1.0; FEATURES],
            classes,
            bias,
        }
    }

    #[test]
    fn a_kind_not_asked_for_is_taken_only_when_clearly_seen() {
        let x = vec![0.0; FEATURES];
        let front = [DocumentKind::NidFront];
        // Unsure it is a back: read as the front asked for, with the front's lower
        // probability as the confidence.
        let unsure = leaning(2.0, 1.0);
        assert_eq!(unsure.decide(&x).kind, DocumentKind::NidBack);
        let read = unsure.decide_given(&x, Some(&front));
        assert_eq!(
            (read.kind, read.upside_down),
            (DocumentKind::NidFront, false)
        );
        assert!(read.confidence < unsure.decide(&x).confidence);
        // The likelier kind stays known, for the card's title to be read for it.
        let rival = read.rival.unwrap();
        assert_eq!(
            (rival.kind, rival.upside_down),
            (DocumentKind::NidBack, false)
        );
        assert_eq!(unsure.decide(&x).rival, None);
        // Sure of it: a back, which the request does not accept.
        let sure = leaning(6.0, 1.0);
        assert!(sure.decide(&x).confidence >= CLEARLY_SEEN);
        let refused = sure.decide_given(&x, Some(&front));
        assert_eq!((refused.kind, refused.rival), (DocumentKind::NidBack, None));
        // A kind asked for is read as it is.
        let back = [DocumentKind::NidBack, DocumentKind::Passport];
        assert_eq!(unsure.decide_given(&x, Some(&back)), unsure.decide(&x));
    }

    #[test]
    fn rejects_malformed_models() {
        assert!(Classifier::from_json("{}").is_err());
        let mut model = train(
            &[(vec![0.0; FEATURES], 0)],
            &TrainConfig {
                epochs: 1,
                ..TrainConfig::default()
            },
        );
        model.bias.pop();
        assert!(matches!(
            Classifier::from_json(&model.to_json()),
            Err(ModelError::Invalid(_))
        ));
    }
}
