//! The document in an upload: outline candidates on the overview, the classifier's
//! pick among them, and the picked outline upright in the upload's pixels.
//!
//! The engine and `hawiya eval docs --geometry-only` both start here, so the
//! evaluation measures the outline the engine reads.

use image::RgbImage;

use super::classify::{Classification, Classifier};
use super::locate::{self, LocateConfig, LocateMethod};
use super::overview::Overview;
use super::warp::Quad;
use crate::domain::DocumentKind;

/// The document the classifier was surest of.
#[derive(Debug, Clone, Copy)]
pub struct Found {
    /// The card's outline in the upload's pixels, its first edge along the printed
    /// top (turned when the classifier saw the card upside down).
    pub quad: Quad,
    pub method: LocateMethod,
    pub class: Classification,
}

/// Locates outline candidates on the upload's [`Overview`] and keeps the one the
/// classifier picks for the request's `accepted` kinds ([`Classifier::pick`]);
/// `None` when there is none. `lap` is called once the candidates are found, so a
/// caller can time locating and classifying apart.
pub fn find_document(
    upload: &RgbImage,
    config: &LocateConfig,
    classifier: &Classifier,
    accepted: Option<&[DocumentKind]>,
    mut lap: impl FnMut(&'static str),
) -> Option<Found> {
    let overview = Overview::of(upload);
    let candidates = locate::candidates(overview.image(), config);
    lap("locate");
    let quads: Vec<Quad> = candidates.iter().map(|c| c.quad).collect();
    let (chosen, class) = classifier.pick(overview.image(), &quads, accepted)?;
    let located = candidates[chosen];
    Some(Found {
        quad: overview.to_upload(class.upright(located.quad)),
        method: located.method,
        class,
    })
}
