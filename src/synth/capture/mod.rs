//! How a rendered card becomes an input file: a flatbed scan, a phone photo, or a
//! one-page PDF holding a scan. Every capture reports the homography that placed the
//! card, so the truth can give each printed line's position in the output image.

mod geometry;
mod pdf;
mod photo;
mod scan;
mod surface;

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

pub use geometry::{Homography, inside_convex, polygon_area};
pub use pdf::PdfParams;
pub use photo::PhotoParams;
pub use scan::ScanParams;

use crate::layout::Page;
use crate::synth::render::RenderedCard;

/// The capture a document goes through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum CaptureMode {
    Scan,
    Photo,
    Pdf,
    /// Draws among scan, photo and pdf per document.
    Mixed,
}

/// The parameters a capture was drawn with (written to the truth).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum CaptureParams {
    Scan(ScanParams),
    Photo(PhotoParams),
    Pdf(PdfParams),
}

/// An encoded capture and where the card went in it.
#[derive(Debug, Clone)]
pub struct Captured {
    pub bytes: Vec<u8>,
    /// `jpg`, `png` or `pdf`.
    pub extension: &'static str,
    /// Size of the raster (for a PDF: of the embedded scan, at its `dpi`).
    pub width: u32,
    pub height: u32,
    /// Card pixels → raster pixels.
    pub card_to_image: Homography,
    pub params: CaptureParams,
}

/// A capture decided before rendering, because it fixes the card's pixel size.
#[derive(Debug, Clone)]
pub enum CapturePlan {
    Scan(scan::ScanPlan),
    Photo(photo::PhotoPlan),
    Pdf(scan::ScanPlan),
}

impl CaptureMode {
    /// Plans a capture of a card of `page` size; `Mixed` picks scan, photo or pdf.
    pub fn plan(self, page: &Page, rng: &mut ChaCha8Rng) -> CapturePlan {
        let mode = match self {
            CaptureMode::Mixed => match rng.random_range(0..10) {
                0..=3 => CaptureMode::Scan,
                4..=7 => CaptureMode::Photo,
                _ => CaptureMode::Pdf,
            },
            other => other,
        };
        match mode {
            CaptureMode::Photo => CapturePlan::Photo(photo::PhotoPlan::draw(page, rng)),
            CaptureMode::Pdf => CapturePlan::Pdf(scan::ScanPlan::draw(page, rng)),
            _ => CapturePlan::Scan(scan::ScanPlan::draw(page, rng)),
        }
    }
}

impl CapturePlan {
    /// The width in pixels the card should be rendered at.
    pub fn card_width(&self) -> u32 {
        match self {
            CapturePlan::Scan(p) | CapturePlan::Pdf(p) => p.card_width(),
            CapturePlan::Photo(p) => p.card_width(),
        }
    }

    /// Captures the rendered card.
    pub fn capture(&self, card: &RenderedCard, rng: &mut ChaCha8Rng) -> Captured {
        match self {
            CapturePlan::Scan(plan) => scan::capture(plan, card, rng, false),
            CapturePlan::Pdf(plan) => pdf::capture(plan, card, rng),
            CapturePlan::Photo(plan) => photo::capture(plan, card, rng),
        }
    }
}
