//! How a rendered card becomes an input file: a flatbed scan, a phone photo, a
//! one-page PDF holding a scan, or a whole page scanned with the card on it. Every
//! capture reports the homography that placed the card, so the truth can give each
//! printed line's position in the output image.

mod geometry;
mod light;
mod page;
mod pdf;
mod photo;
mod scan;
mod surface;

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

pub use geometry::{Homography, inside_convex, polygon_area};
pub use light::{Glare, Slope};
pub use page::{Arrangement, PageParams, Paper};
pub use pdf::{PdfParams, embedded_jpeg};
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
    /// A whole A4 or Letter page with the card anywhere on it (sometimes its
    /// other side too), JPEG or PDF.
    Page,
    /// Draws among scan, photo, pdf and page per document.
    Mixed,
}

/// The parameters a capture was drawn with (written to the truth).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum CaptureParams {
    Scan(ScanParams),
    Photo(PhotoParams),
    Pdf(PdfParams),
    Page(PageParams),
}

impl CaptureParams {
    /// `scan`, `photo`, `pdf` or `page`, as the truth writes the mode.
    pub fn mode(&self) -> &'static str {
        match self {
            CaptureParams::Scan(_) => "scan",
            CaptureParams::Photo(_) => "photo",
            CaptureParams::Pdf(_) => "pdf",
            CaptureParams::Page(_) => "page",
        }
    }

    /// Whether the photo was blurred strongly: motion over 4 px or focus sigma over
    /// 1 px, the upper halves of the generator's ranges (2 to 9 px, 0.6 to 2 px),
    /// which smear a small card's print beyond reading. Scans never are.
    pub fn strongly_blurred(&self) -> bool {
        match self {
            CaptureParams::Photo(p) => p.motion_blur_px >= 4.0 || p.focus_blur_sigma >= 1.0,
            CaptureParams::Scan(_) | CaptureParams::Pdf(_) | CaptureParams::Page(_) => false,
        }
    }
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
    /// The card's other side, when it lies beside it: its pixels → raster pixels.
    pub beside_to_image: Option<Homography>,
    pub params: CaptureParams,
}

/// A capture decided before rendering, because it fixes the card's pixel size.
#[derive(Debug, Clone)]
pub enum CapturePlan {
    Scan(scan::ScanPlan),
    Photo(photo::PhotoPlan),
    Pdf(scan::ScanPlan),
    Page(page::PagePlan),
}

impl CaptureMode {
    /// Plans a capture of a card of `page` size; `Mixed` picks scan, photo, pdf or
    /// page.
    pub fn plan(self, page: &Page, rng: &mut ChaCha8Rng) -> CapturePlan {
        let mode = match self {
            CaptureMode::Mixed => match rng.random_range(0..20) {
                0..=6 => CaptureMode::Scan,
                7..=13 => CaptureMode::Photo,
                14..=16 => CaptureMode::Pdf,
                _ => CaptureMode::Page,
            },
            other => other,
        };
        match mode {
            CaptureMode::Photo => CapturePlan::Photo(photo::PhotoPlan::draw(page, rng)),
            CaptureMode::Pdf => CapturePlan::Pdf(scan::ScanPlan::draw(page, rng)),
            CaptureMode::Page => CapturePlan::Page(page::PagePlan::draw(page, rng)),
            CaptureMode::Scan | CaptureMode::Mixed => {
                CapturePlan::Scan(scan::ScanPlan::draw(page, rng))
            }
        }
    }
}

impl CapturePlan {
    /// The width in pixels the card should be rendered at.
    pub fn card_width(&self) -> u32 {
        match self {
            CapturePlan::Scan(p) | CapturePlan::Pdf(p) => p.card_width(),
            CapturePlan::Photo(p) => p.card_width(),
            CapturePlan::Page(p) => p.card_width(),
        }
    }

    /// Whether the capture shows the card's other side beside it, when it has one.
    pub fn both_sides(&self) -> bool {
        matches!(self, CapturePlan::Page(p) if p.both_sides())
    }

    /// Captures the rendered card, with its other side `beside` it where the
    /// capture holds both ([`both_sides`](Self::both_sides)).
    pub fn capture(
        &self,
        card: &RenderedCard,
        beside: Option<&RenderedCard>,
        rng: &mut ChaCha8Rng,
    ) -> Captured {
        match self {
            CapturePlan::Scan(plan) => scan::capture(plan, card, rng, false),
            CapturePlan::Pdf(plan) => pdf::capture(plan, card, rng),
            CapturePlan::Photo(plan) => photo::capture(plan, card, rng),
            CapturePlan::Page(plan) => page::capture(plan, card, beside, rng),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_photo_counts_as_strongly_blurred_by_its_recorded_parameters() {
        let capture = |json: &str| -> CaptureParams { serde_json::from_str(json).unwrap() };
        let scan = r#"{"mode":"scan","dpi":300,"rotation_deg":0.0,"quarter_turns":0,
            "margins":[0,0,0,0],"blur_sigma":2.0,"noise_sigma":0.0,"jpeg_quality":null}"#;
        assert_eq!(capture(scan).mode(), "scan");
        assert!(!capture(scan).strongly_blurred());
        let photo = r#"{"mode":"photo","width":800,"height":600,"surface":"cloth",
            "rotation_deg":0.0,"perspective":0.0,"light_range":[1.0,1.0],"glare":null,
            "motion_blur_px":MB,"focus_blur_sigma":FB,"noise_sigma":0.0,"jpeg_quality":90}"#;
        let blurred = |mb: &str, fb: &str| {
            capture(&photo.replace("MB", mb).replace("FB", fb)).strongly_blurred()
        };
        assert_eq!(
            capture(&photo.replace("MB", "0").replace("FB", "0")).mode(),
            "photo"
        );
        assert!(!blurred("0.0", "0.55"));
        assert!(!blurred("3.5", "0.0"));
        assert!(blurred("4.5", "0.0"));
        assert!(blurred("0.0", "1.2"));
    }
}
