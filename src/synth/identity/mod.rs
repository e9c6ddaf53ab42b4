//! Coherent synthetic identities and the documents printed from them.
//!
//! [`generate`] draws one document side: a person (or vehicle) whose every printed
//! field agrees with every other (national-ID number with birth date, gender and
//! governorate; gendered job, religion and marital status; MRZ with the Latin name;
//! plate with the traffic unit's governorate), then computes the expected outputs from
//! the printed texts with [`crate::record::build`], the same conversion the pipeline
//! applies to what it reads. Deterministic in the rng: no clock, no hash-map order.

mod address;
mod driver_licence;
mod national_id_card;
mod passport;
mod person;
mod residence_permit;
mod style;
mod vehicle;

use std::collections::BTreeMap;

use chrono::NaiveDate;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::domain::DocumentKind;
use crate::record::build;

use super::SynthDocument;

pub use address::{Address, repeated_digits, residential_governorate};
pub use person::{NamePart, Person};
pub use style::PrintStyle;
pub use vehicle::{plate_matches_format, vin_check_digit};

/// The "today" of the synthetic world: documents are issued up to this date (a fixed
/// date, never the clock, so that a seed always gives the same documents).
pub const REFERENCE_DATE: NaiveDate = match NaiveDate::from_ymd_opt(2025, 6, 30) {
    Some(date) => date,
    None => panic!("valid date"),
};

/// One synthetic document side of `kind`: its printed fields (keyed as in
/// `layouts/<kind>.toml`) and the expected Flow A / Flow B outputs.
pub fn generate(kind: DocumentKind, rng: &mut ChaCha8Rng) -> SynthDocument {
    // A stream of its own per kind: callers seeding every image the same way would
    // otherwise print the same person on every kind.
    let kind_index = kind.index() as u64;
    let rng = &mut ChaCha8Rng::seed_from_u64(
        rng.random::<u64>() ^ kind_index.wrapping_mul(0x9E37_79B9_7F4A_7C15),
    );
    let fields = match kind {
        DocumentKind::NidFront => national_id_card::front(rng),
        DocumentKind::NidBack => national_id_card::back(rng),
        DocumentKind::DriverLicence => driver_licence::fields(rng),
        DocumentKind::CarLicenceFront => vehicle::licence_front(rng),
        DocumentKind::CarLicenceBack => vehicle::licence_back(rng),
        DocumentKind::Passport => passport::fields(rng),
        DocumentKind::ResidencePermit => residence_permit::fields(rng),
    };
    let (flow_a, flow_b) = build(kind, &fields);
    SynthDocument {
        kind,
        fields,
        flow_a,
        flow_b,
    }
}

/// Printed fields under construction.
#[derive(Default)]
struct Fields(BTreeMap<String, String>);

impl Fields {
    fn set(&mut self, key: &str, value: impl Into<String>) {
        self.0.insert(key.to_owned(), value.into());
    }
}

/// A uniformly chosen element. Every table passed here is a non-empty constant.
fn pick<'a, T>(rng: &mut ChaCha8Rng, items: &'a [T]) -> &'a T {
    &items[rng.random_range(0..items.len())]
}

/// An element chosen with probability proportional to `weight` (0 = never).
fn pick_weighted<'a, T>(rng: &mut ChaCha8Rng, items: &'a [T], weight: impl Fn(&T) -> u32) -> &'a T {
    let total: u32 = items.iter().map(&weight).sum();
    if total == 0 {
        return pick(rng, items);
    }
    let mut target = rng.random_range(0..total);
    for item in items {
        let w = weight(item);
        if target < w {
            return item;
        }
        target -= w;
    }
    &items[items.len() - 1]
}

fn chance(rng: &mut ChaCha8Rng, probability: f64) -> bool {
    rng.random_bool(probability.clamp(0.0, 1.0))
}

/// A date uniformly between `from` and `to` inclusive.
fn date_between(rng: &mut ChaCha8Rng, from: NaiveDate, to: NaiveDate) -> NaiveDate {
    let span = (to - from).num_days().max(0);
    from + chrono::Duration::days(rng.random_range(0..=span))
}

fn ymd(year: i32, month: u32, day: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(year, month, day).unwrap_or(REFERENCE_DATE)
}

#[cfg(test)]
mod tests;
