//! Driving licence: the licence number is the holder's national ID.

use super::address::address_with_governorate;
use super::nid::{self, Digits, Expect};
use super::nid_back::NOT_JOBS;
use super::text::{self, DateForm};
use super::traffic_unit::traffic_unit;
use super::{CheckedFields, Readings};
use crate::domain::vocab::vehicles::LICENCE_CATEGORIES;

pub const NATIONALITIES: [&str; 2] = ["مصري", "مصرية"];
pub const BLOOD_GROUPS: [&str; 8] = ["O+", "O-", "A+", "A-", "B+", "B-", "AB+", "AB-"];

pub fn check(readings: &Readings) -> CheckedFields {
    let mut fields = CheckedFields::new();
    let mut put = |key: &str, value| {
        if let Some(checked) = value {
            fields.insert(key.to_owned(), checked);
        }
    };
    put("name", text::name(readings, "name"));
    put("job", text::plain_excluding(readings, "job", &NOT_JOBS));
    put("traffic_unit", traffic_unit(readings, "traffic_unit"));
    put(
        "nationality",
        text::snap(readings, "nationality", &NATIONALITIES),
    );
    put("address", address_with_governorate(readings, "address"));
    let categories: Vec<&str> = LICENCE_CATEGORIES.iter().map(|c| c.0).collect();
    put(
        "licence_category",
        text::snap(readings, "licence_category", &categories),
    );
    put(
        "blood_group",
        text::latin(readings, "blood_group", |t| {
            BLOOD_GROUPS.contains(&t.replace(' ', "").as_str())
        }),
    );
    let id = nid::national_id(
        readings,
        "national_id",
        Digits::ArabicIndic,
        Expect::default(),
    );
    put("national_id", id.map(|(checked, _)| checked));
    for key in ["issue_date", "expiry_date"] {
        put(
            key,
            text::date(readings, key, DateForm::ArabicYmd, |_| true).map(|(c, _)| c),
        );
    }
    fields
}
