//! What is known about the documents themselves, shared by the synthetic generator
//! and the reading pipeline: document kinds, the national-ID number, governorates,
//! ICAO machine-readable zones and digit scripts.

pub mod digits;
pub mod governorate;
pub mod kind;
pub mod mrz;
pub mod national_id;

pub use governorate::Governorate;
pub use kind::DocumentKind;
pub use national_id::{Gender, NationalId, NationalIdError};
