//! Car licence (vehicle registration), front and back.

use super::address::address_with_governorate;
use super::nid::{self, Digits, Expect};
use super::text::{self, DateForm};
use super::traffic_unit::traffic_unit;
use super::{CheckedFields, Readings};
use crate::domain::vocab::vehicles::{COLOURS, FUEL_TYPES, INSURERS, MODELS, USAGE_TYPES};

fn collect(entries: Vec<(&str, Option<super::Checked>)>) -> CheckedFields {
    entries
        .into_iter()
        .filter_map(|(k, v)| Some((k.to_owned(), v?)))
        .collect()
}

pub fn check_front(readings: &Readings) -> CheckedFields {
    let usage: Vec<&str> = USAGE_TYPES.iter().map(|u| u.0).collect();
    let id = nid::national_id(
        readings,
        "owner_national_id",
        Digits::ArabicIndic,
        Expect::default(),
    );
    collect(vec![
        ("usage_type", text::snap(readings, "usage_type", &usage)),
        ("plate_number", text::plain(readings, "plate_number")),
        ("owner_name", text::name(readings, "owner_name")),
        (
            "nationality",
            text::snap(
                readings,
                "nationality",
                &super::driver_licence::NATIONALITIES,
            ),
        ),
        ("address", address_with_governorate(readings, "address")),
        ("owner_national_id", id.map(|(c, _)| c)),
        ("traffic_unit", traffic_unit(readings, "traffic_unit")),
        (
            "issue_date",
            text::date(readings, "issue_date", DateForm::ArabicYmd, |_| true).map(|(c, _)| c),
        ),
        (
            "expiry_date",
            text::date(readings, "expiry_date", DateForm::ArabicYmd, |_| true).map(|(c, _)| c),
        ),
    ])
}

/// Chassis (VIN) and engine numbers: Latin capitals and digits, returned as printed.
fn vehicle_number(text: &str, lengths: std::ops::RangeInclusive<usize>) -> bool {
    lengths.contains(&text.len())
        && text
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

pub fn check_back(readings: &Readings) -> CheckedFields {
    let makes: Vec<&str> = MODELS.iter().map(|m| m.make).collect();
    let models: Vec<&str> = MODELS.iter().map(|m| m.model).collect();
    let bodies: Vec<&str> = MODELS.iter().map(|m| m.body).collect();
    let colours: Vec<&str> = COLOURS.iter().map(|c| c.0).collect();
    collect(vec![
        ("make", text::listed(readings, "make", &makes)),
        ("model", text::listed(readings, "model", &models)),
        ("year", text::arabic_number(readings, "year", 4..=4)),
        ("color", text::listed(readings, "color", &colours)),
        (
            "chassis_number",
            text::latin(readings, "chassis_number", |t| vehicle_number(t, 6..=17)),
        ),
        (
            "engine_number",
            text::latin(readings, "engine_number", |t| vehicle_number(t, 4..=17)),
        ),
        ("fuel_type", text::snap(readings, "fuel_type", &FUEL_TYPES)),
        (
            "cylinders",
            text::arabic_number(readings, "cylinders", 1..=2),
        ),
        (
            "engine_cc",
            text::arabic_number(readings, "engine_cc", 3..=4),
        ),
        ("body_type", text::listed(readings, "body_type", &bodies)),
        (
            "insurance_company",
            text::listed(readings, "insurance_company", INSURERS),
        ),
    ])
}
