//! What is known about the documents themselves, shared by the synthetic generator
//! and the reading pipeline: document kinds, the national-ID number, governorates,
//! ICAO machine-readable zones, digit scripts and the vocabularies printed on the
//! cards ([`vocab`]).

pub mod arabic;
pub mod date;
pub mod digits;
pub mod districts;
pub mod edit;
pub mod egyptian_names;
pub mod governorate;
pub mod kind;
pub mod lexicon;
pub mod mrz;
pub mod name_list;
pub mod national_id;
pub mod traffic_units;
pub mod transliterate;
pub mod vocab;

pub use governorate::{Governorate, governorate_in_address};
pub use kind::DocumentKind;
pub use national_id::{Gender, NationalId, NationalIdError};
