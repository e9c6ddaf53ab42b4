//! Car licence (vehicle registration), front and back.

use super::address::address_with_governorate;
use super::nid::{self, Digits, Expect};
use super::text::{self, DateForm};
use super::traffic_unit::traffic_unit;
use super::{Checked, CheckedFields, Readings};
use crate::domain::digits::to_ascii_digits;
use crate::domain::vocab::vehicles::{COLOURS, FUEL_TYPES, INSURERS, MODELS, USAGE_TYPES};

fn collect(entries: Vec<(&str, Option<Checked>)>) -> CheckedFields {
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

/// A chassis number is a 17-character VIN (ISO 3779) on cars built since 1981, a
/// maker's frame number of at most twelve on some older ones: one of 13 to 16
/// characters is most likely a VIN with characters lost (`KL1K3H225FW4972` for
/// `KL1K3H225FW497248`), returned as read but doubted.
fn chassis_number(readings: &Readings) -> Option<Checked> {
    let checked = text::latin(readings, "chassis_number", |t| vehicle_number(t, 6..=17))?;
    Some(match checked.text.len() {
        13..=16 => text::doubted_as_misread(checked),
        _ => checked,
    })
}

/// No car's engine is smaller than this (the smallest sold in Egypt, the Suzuki
/// 800's, has 796 cc): a size read under it is most likely a four-digit one with a
/// repeated zero merged (`١٥٠` for `١٥٠٠`), returned as read but doubted.
const SMALLEST_ENGINE_CC: u32 = 600;

/// The engine's size in cc, doubted when smaller than any car's
/// ([`SMALLEST_ENGINE_CC`]).
fn engine_cc(readings: &Readings) -> Option<Checked> {
    let checked = text::arabic_number(readings, "engine_cc", 3..=4)?;
    let cc: Option<u32> = to_ascii_digits(&checked.text).parse().ok();
    Some(match cc {
        Some(cc) if cc < SMALLEST_ENGINE_CC => text::doubted_as_misread(checked),
        _ => checked,
    })
}

/// The model years a car licence can print: a year outside them is most likely a
/// digit misread (`٣٠٢٠` for `٢٠٢٠`, where a header curve crossed the `٢`),
/// returned as read but doubted.
const MODEL_YEARS: std::ops::RangeInclusive<u32> = 1900..=2099;

/// The car's model year, doubted outside [`MODEL_YEARS`].
fn year(readings: &Readings) -> Option<Checked> {
    let checked = text::arabic_number(readings, "year", 4..=4)?;
    let year: Option<u32> = to_ascii_digits(&checked.text).parse().ok();
    Some(match year {
        Some(year) if MODEL_YEARS.contains(&year) => checked,
        _ => text::doubted_as_misread(checked),
    })
}

pub fn check_back(readings: &Readings) -> CheckedFields {
    let makes: Vec<&str> = MODELS.iter().map(|m| m.make).collect();
    let models: Vec<&str> = MODELS.iter().map(|m| m.model).collect();
    let bodies: Vec<&str> = MODELS.iter().map(|m| m.body).collect();
    let colours: Vec<&str> = COLOURS.iter().map(|c| c.0).collect();
    collect(vec![
        ("make", text::listed(readings, "make", &makes)),
        ("model", text::listed(readings, "model", &models)),
        ("year", year(readings)),
        ("color", text::listed(readings, "color", &colours)),
        ("chassis_number", chassis_number(readings)),
        (
            "engine_number",
            text::latin(readings, "engine_number", |t| vehicle_number(t, 4..=17)),
        ),
        ("fuel_type", text::snap(readings, "fuel_type", &FUEL_TYPES)),
        (
            "cylinders",
            text::arabic_number(readings, "cylinders", 1..=2),
        ),
        ("engine_cc", engine_cc(readings)),
        ("body_type", text::listed(readings, "body_type", &bodies)),
        (
            "insurance_company",
            text::listed(readings, "insurance_company", INSURERS),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::post::test_support::confident;

    #[test]
    fn a_model_year_no_car_has_is_read_but_doubted() {
        let year = |text: &str| check_back(&confident(&[("year", text)]))["year"].clone();
        let doubted = year("٣٠٢٠");
        assert_eq!(doubted.text, "٣٠٢٠");
        assert!(doubted.confidence < 0.8);
        assert!(year("٢٠٢٠").confidence >= 0.8);
        assert!(year("١٩٩٨").confidence >= 0.8);
    }

    #[test]
    fn an_engine_smaller_than_any_cars_or_a_vin_short_of_characters_is_read_but_doubted() {
        let back = |cc: &str, chassis: &str| {
            check_back(&confident(&[
                ("engine_cc", cc),
                ("chassis_number", chassis),
            ]))
        };
        let doubted = back("١٥٠", "KL1K3H225FW4972");
        assert_eq!(doubted["engine_cc"].text, "١٥٠");
        assert_eq!(doubted["chassis_number"].text, "KL1K3H225FW4972");
        assert!(doubted["engine_cc"].confidence < 0.8);
        assert!(doubted["chassis_number"].confidence < 0.8);
        let kept = back("٨٠٠", "KL1K3H225FW497248");
        assert!(kept["engine_cc"].confidence >= 0.8);
        assert!(kept["chassis_number"].confidence >= 0.8);
        assert!(
            back("١٥٠٠", "AE86123456")
                .values()
                .all(|c| c.confidence >= 0.8)
        );
    }
}
