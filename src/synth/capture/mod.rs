//! How a rendered card becomes an input file: a flatbed scan, a phone photo, or a
//! one-page PDF holding a scan.

use serde::{Deserialize, Serialize};

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
