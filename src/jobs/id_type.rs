//! The `ID_type` query parameter of the reference API: which documents the caller
//! says it sent. The pipeline knows nothing of these numbers; it is told the kinds
//! of document a request accepts ([`IdType::kinds`]).

use serde::{Deserialize, Serialize};

use crate::domain::DocumentKind;

/// The `ID_type` query parameter: which documents the caller says it sent
/// (serialized as its code).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "u8", try_from = "u8")]
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

    /// The kinds of document that may be answered for this `ID_type`. Car licences
    /// are accepted under 0 too, as Flow A sends them.
    pub fn kinds(self) -> &'static [DocumentKind] {
        use DocumentKind::*;
        match self {
            IdType::FrontOrLicence => &[NidFront, DriverLicence, CarLicenceFront, CarLicenceBack],
            IdType::NationalIdBack => &[NidBack],
            IdType::PassportOrPermit => &[Passport, ResidencePermit],
            IdType::CarLicence => &[CarLicenceFront, CarLicenceBack],
        }
    }

    /// Whether a document of `kind` may be answered for this `ID_type`.
    pub fn accepts(self, kind: DocumentKind) -> bool {
        self.kinds().contains(&kind)
    }
}

impl From<IdType> for u8 {
    fn from(id_type: IdType) -> u8 {
        id_type.code()
    }
}

impl TryFrom<u8> for IdType {
    type Error = String;

    fn try_from(code: u8) -> Result<IdType, String> {
        IdType::from_code(code).ok_or_else(|| format!("ID_type {code} is not 0, 1, 2 or 3"))
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

    #[test]
    fn every_kind_is_accepted_by_some_id_type() {
        for kind in DocumentKind::ALL {
            assert!(
                (0..4).any(|code| IdType::from_code(code).unwrap().accepts(kind)),
                "{kind}"
            );
        }
    }
}
