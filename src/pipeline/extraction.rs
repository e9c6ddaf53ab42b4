use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::overlay::Overlay;
use crate::domain::DocumentKind;
use crate::record::{FlowAFields, FlowBData};

/// One read document, ready to be answered in either flow. It serializes whole (the
/// overlay's picture as base64), as it waits for its reader in a shared job store.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Extraction {
    pub kind: DocumentKind,
    pub flow_a: FlowAFields,
    pub flow_b: FlowBData,
    /// Overall confidence in 0..=1.
    pub confidence: f32,
    /// Confidence in 0..=1 of every printed line read, keyed by the layout's field
    /// key (`layouts/<kind>.toml`).
    pub field_confidence: BTreeMap<String, f32>,
    /// The Flow B fields resting on a line whose confidence is below the review
    /// threshold.
    pub low_confidence_fields: Vec<String>,
    /// Time spent in each pipeline stage.
    #[serde(skip)]
    pub timings: Vec<(&'static str, Duration)>,
    /// The picture of what was read, when it was asked for.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::overlay::kept"
    )]
    pub overlay: Option<Overlay>,
}

/// Why a document could not be read. Each maps to one HTTP status and one
/// machine-readable reason code.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize, Deserialize)]
pub enum ExtractError {
    #[error("the file is not a JPEG, PNG or PDF")]
    UnsupportedFormat,
    #[error("the file could not be decoded: {0}")]
    Corrupt(String),
    #[error("the image is too large to process: {0}")]
    ImageTooLarge(String),
    /// The document, or the whole image, has too few pixels to be read: what was
    /// measured, then what to do ([`TOO_SMALL_ADVICE`]).
    #[error("the image has too few pixels to read the document ({0}). {TOO_SMALL_ADVICE}")]
    ImageTooSmall(String),
    #[error("no document was found in the image")]
    NoDocumentFound,
    #[error("no text could be read: {0}")]
    NoTextFound(String),
    #[error("the document is too blurry to read. {TOO_BLURRY_ADVICE}")]
    TooBlurry,
    /// The document is of a kind the request does not accept.
    #[error("the image shows a {found}, which the request does not accept")]
    WrongKind { found: DocumentKind },
    #[error("the recognizer is overloaded; retry shortly")]
    Overloaded,
    #[error("internal error: {0}")]
    Internal(String),
}

/// What a user whose card is too small in the picture does about it.
pub const TOO_SMALL_ADVICE: &str = "Come closer so that the card fills most of the picture \
(at least 600 pixels wide) and send the photo at the camera's full size, or scan the card at 300 dpi.";

/// What a user whose picture is blurred does about it.
pub const TOO_BLURRY_ADVICE: &str = "Hold the phone still, let the camera focus on the card \
(tap it on the screen) and take the photo in more light, or scan the card.";

impl ExtractError {
    /// Machine-readable reason code, stable across releases.
    pub fn reason(&self) -> &'static str {
        match self {
            ExtractError::UnsupportedFormat => "UNSUPPORTED_FORMAT",
            ExtractError::Corrupt(_) => "CORRUPT_FILE",
            ExtractError::ImageTooLarge(_) => "IMAGE_TOO_LARGE",
            ExtractError::ImageTooSmall(_) => "IMAGE_TOO_SMALL",
            ExtractError::NoDocumentFound => "NO_DOCUMENT_FOUND",
            ExtractError::NoTextFound(_) => "NO_TEXT_FOUND",
            ExtractError::TooBlurry => "IMAGE_TOO_BLURRY",
            ExtractError::WrongKind { .. } => "WRONG_ID_TYPE",
            ExtractError::Overloaded => "OVERLOADED",
            ExtractError::Internal(_) => "INTERNAL_ERROR",
        }
    }
}
