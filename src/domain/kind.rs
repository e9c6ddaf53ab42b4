//! The kinds (and sides) of document hawiya reads.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One printed side of one kind of document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DocumentKind {
    NidFront,
    NidBack,
    DriverLicence,
    CarLicenceFront,
    CarLicenceBack,
    Passport,
    ResidencePermit,
}

impl DocumentKind {
    pub const ALL: [DocumentKind; 7] = [
        DocumentKind::NidFront,
        DocumentKind::NidBack,
        DocumentKind::DriverLicence,
        DocumentKind::CarLicenceFront,
        DocumentKind::CarLicenceBack,
        DocumentKind::Passport,
        DocumentKind::ResidencePermit,
    ];

    /// The kind's position in [`DocumentKind::ALL`], for tables indexed by kind.
    pub fn index(self) -> usize {
        // ALL lists the variants in declaration order (checked by a test).
        self as usize
    }

    /// The command-line and file name of the kind, e.g. `nid-front`.
    pub fn slug(self) -> &'static str {
        match self {
            DocumentKind::NidFront => "nid-front",
            DocumentKind::NidBack => "nid-back",
            DocumentKind::DriverLicence => "driver-licence",
            DocumentKind::CarLicenceFront => "car-licence-front",
            DocumentKind::CarLicenceBack => "car-licence-back",
            DocumentKind::Passport => "passport",
            DocumentKind::ResidencePermit => "residence-permit",
        }
    }

    /// The printed side: `front` or `back` (single-sided documents are `front`).
    pub fn side(self) -> &'static str {
        match self {
            DocumentKind::NidBack | DocumentKind::CarLicenceBack => "back",
            _ => "front",
        }
    }

    /// The other side of the same card, for the kinds printed on two.
    pub fn other_side(self) -> Option<DocumentKind> {
        match self {
            DocumentKind::NidFront => Some(DocumentKind::NidBack),
            DocumentKind::NidBack => Some(DocumentKind::NidFront),
            DocumentKind::CarLicenceFront => Some(DocumentKind::CarLicenceBack),
            DocumentKind::CarLicenceBack => Some(DocumentKind::CarLicenceFront),
            DocumentKind::DriverLicence
            | DocumentKind::Passport
            | DocumentKind::ResidencePermit => None,
        }
    }
}

impl fmt::Display for DocumentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.slug())
    }
}

#[derive(Debug, thiserror::Error)]
#[error(
    "unknown document kind `{0}` (expected one of nid-front, nid-back, driver-licence, car-licence-front, car-licence-back, passport, residence-permit)"
)]
pub struct UnknownKind(pub String);

impl FromStr for DocumentKind {
    type Err = UnknownKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DocumentKind::ALL
            .into_iter()
            .find(|kind| kind.slug() == s)
            .ok_or_else(|| UnknownKind(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_is_the_position_in_all() {
        for (i, kind) in DocumentKind::ALL.into_iter().enumerate() {
            assert_eq!(kind.index(), i);
        }
    }

    #[test]
    fn slugs_round_trip() {
        for kind in DocumentKind::ALL {
            assert_eq!(kind.slug().parse::<DocumentKind>().unwrap(), kind);
            assert_eq!(
                serde_json::to_string(&kind).unwrap(),
                format!("\"{}\"", kind.slug())
            );
        }
        assert!("id-card".parse::<DocumentKind>().is_err());
    }
}
