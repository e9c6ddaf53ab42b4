use std::collections::BTreeMap;
use std::time::Duration;

use serde::Serialize;

use crate::domain::DocumentKind;
use crate::record::{FlowAFields, FlowBData};

/// The `ID_type` query parameter: which documents the caller says it sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum IdType {
    /// 0: National ID front, driver licence or car licence (Flow A); Flow B reads it
    /// as National ID front or driver licence.
    FrontOrLicence,
    /// 1: National ID back.
    NationalIdBack,
    /// 2: passport or residence permit.
    PassportOrPermit,
    /// 3 (Flow B): car licence.
    CarLicence,
}

impl IdType {
    pub fn from_code(code: u8) -> Option<IdType> {
        match code {
            0 => Some(IdType::FrontOrLicence),
            1 => Some(IdType::NationalIdBack),
            2 => Some(IdType::PassportOrPermit),
            3 => Some(IdType::CarLicence),
            _ => None,
        }
    }

    pub fn code(self) -> u8 {
        match self {
            IdType::FrontOrLicence => 0,
            IdType::NationalIdBack => 1,
            IdType::PassportOrPermit => 2,
            IdType::CarLicence => 3,
        }
    }

    /// Whether a document of `kind` may be answered for this `ID_type`.
    /// Car licences are accepted under 0 too, as Flow A sends them.
    pub fn accepts(self, kind: DocumentKind) -> bool {
        use DocumentKind::*;
        match self {
            IdType::FrontOrLicence => {
                matches!(
                    kind,
                    NidFront | DriverLicence | CarLicenceFront | CarLicenceBack
                )
            }
            IdType::NationalIdBack => kind == NidBack,
            IdType::PassportOrPermit => matches!(kind, Passport | ResidencePermit),
            IdType::CarLicence => matches!(kind, CarLicenceFront | CarLicenceBack),
        }
    }
}

/// One read document, ready to be answered in either flow.
#[derive(Debug, Clone, Serialize)]
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
}

/// Why a document could not be read. Each maps to one HTTP status and one
/// machine-readable reason code.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExtractError {
    #[error("the file is not a JPEG, PNG or PDF")]
    UnsupportedFormat,
    #[error("the file could not be decoded: {0}")]
    Corrupt(String),
    #[error("the image is too large to process: {0}")]
    ImageTooLarge(String),
    #[error("the image is too small to read: {0}")]
    ImageTooSmall(String),
    #[error("no document was found in the image")]
    NoDocumentFound,
    #[error("the document is too blurry to read")]
    TooBlurry,
    #[error("the image shows a {found} but ID_type {requested} was requested")]
    WrongIdType { requested: u8, found: DocumentKind },
    #[error("the recognizer is overloaded; retry shortly")]
    Overloaded,
    #[error("internal error: {0}")]
    Internal(String),
}

impl ExtractError {
    /// Machine-readable reason code, stable across releases.
    pub fn reason(&self) -> &'static str {
        match self {
            ExtractError::UnsupportedFormat => "UNSUPPORTED_FORMAT",
            ExtractError::Corrupt(_) => "CORRUPT_FILE",
            ExtractError::ImageTooLarge(_) => "IMAGE_TOO_LARGE",
            ExtractError::ImageTooSmall(_) => "IMAGE_TOO_SMALL",
            ExtractError::NoDocumentFound => "NO_DOCUMENT_FOUND",
            ExtractError::TooBlurry => "IMAGE_TOO_BLURRY",
            ExtractError::WrongIdType { .. } => "WRONG_ID_TYPE",
            ExtractError::Overloaded => "OVERLOADED",
            ExtractError::Internal(_) => "INTERNAL_ERROR",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_types_accept_their_documents() {
        assert!(IdType::FrontOrLicence.accepts(DocumentKind::CarLicenceFront));
        assert!(!IdType::FrontOrLicence.accepts(DocumentKind::NidBack));
        assert!(IdType::CarLicence.accepts(DocumentKind::CarLicenceBack));
        assert!(IdType::PassportOrPermit.accepts(DocumentKind::ResidencePermit));
        assert_eq!(IdType::from_code(4), None);
        for code in 0..4 {
            assert_eq!(IdType::from_code(code).unwrap().code(), code);
        }
    }
}
