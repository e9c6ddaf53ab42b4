//! Properties every generated document must have.

use chrono::Datelike;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::domain::date::{PrintedDate, add_years};
use crate::domain::mrz::td3_line2_is_valid;
use crate::domain::{Gender, NationalId, governorate_in_address};
use crate::record::FlowBData;
use crate::record::build::{HUSBAND_LABEL, parse_gender, td3_names};

const SAMPLES: u64 = 400;

fn docs(kind: DocumentKind) -> impl Iterator<Item = SynthDocument> {
    (0..SAMPLES).map(move |seed| generate(kind, &mut ChaCha8Rng::seed_from_u64(seed)))
}

fn field<'a>(doc: &'a SynthDocument, key: &str) -> &'a str {
    doc.fields
        .get(key)
        .map(String::as_str)
        .unwrap_or_else(|| panic!("{key} missing in {:?}", doc.fields))
}

fn day(text: &str) -> chrono::NaiveDate {
    match PrintedDate::parse(text) {
        Some(PrintedDate::Day(d)) => d,
        other => panic!("{text:?} is not a full date: {other:?}"),
    }
}

/// Which keys a card prints, and that a field left off is one its layout marks
/// optional, is checked against `layouts/*.toml` in `tests/synth.rs`.
#[test]
fn every_printed_value_is_trimmed_and_single_spaced() {
    for kind in DocumentKind::ALL {
        for doc in docs(kind).take(100) {
            for value in doc.fields.values() {
                assert_eq!(value.trim(), value, "{kind}: untrimmed {value:?}");
                assert!(!value.contains("  "), "{kind}: double space in {value:?}");
            }
        }
    }
}

/// The number is valid and agrees with the age rules.
fn valid_id(text: &str) -> NationalId {
    NationalId::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn national_id_front_agrees_with_itself() {
    for doc in docs(DocumentKind::NidFront) {
        let id = valid_id(field(&doc, "national_id"));
        assert!(!id.check_digit_is_ambiguous());
        assert_eq!(day(field(&doc, "birth_date")), id.birth_date());
        let gov =
            governorate_in_address(field(&doc, "address_line2")).expect("governorate in line 2");
        assert_eq!(doc.flow_a.city, gov.arabic);
        assert_eq!(doc.flow_a.gender, id.gender().arabic());
        assert_eq!(doc.flow_a.national_ID, id.ascii());
        let serial = field(&doc, "serial");
        assert!(
            serial.len() == 9
                && serial[..2].chars().all(|c| c.is_ascii_uppercase())
                && serial[2..].chars().all(|c| c.is_ascii_digit())
        );
        let rest_tokens = field(&doc, "last_name").split(' ').count();
        assert!(
            (2..=8).contains(&rest_tokens),
            "{}",
            field(&doc, "last_name")
        );
        let FlowBData::NationalId(b) = &doc.flow_b else {
            panic!("wrong family")
        };
        assert!(
            b.full_name_en
                .chars()
                .all(|c| c.is_ascii_alphabetic() || c == ' '),
            "{}",
            b.full_name_en
        );
    }
}

#[test]
fn national_id_back_uses_the_right_gender_forms() {
    let mut husbands = 0;
    let mut workplaces = 0;
    for doc in docs(DocumentKind::NidBack) {
        let id = valid_id(field(&doc, "national_id"));
        let gender = parse_gender(field(&doc, "gender")).expect("gender word");
        assert_eq!(gender, id.gender());
        let religion = field(&doc, "religion");
        let status = field(&doc, "marital_status");
        let job = field(&doc, "job");
        match gender {
            Gender::Male => {
                assert!(["مسلم", "مسيحي", "-"].contains(&religion), "{religion}");
                assert!(
                    ["أعزب", "متزوج", "مطلق", "أرمل"].contains(&status),
                    "{status}"
                );
                assert!(!doc.fields.contains_key("husband"));
                assert!(
                    !["طالبة", "موظفة", "ربة منزل", "مهندسة"].contains(&job),
                    "{job}"
                );
            }
            Gender::Female => {
                assert!(["مسلمة", "مسيحية", "-"].contains(&religion), "{religion}");
                assert!(
                    ["آنسة", "عزباء", "متزوجة", "مطلقة", "أرملة"].contains(&status),
                    "{status}"
                );
                assert!(!["طالب", "موظف", "مهندس"].contains(&job), "{job}");
                if let Some(husband) = doc.fields.get("husband") {
                    assert_eq!(status, "متزوجة");
                    assert!(husband.starts_with(HUSBAND_LABEL));
                    husbands += 1;
                }
            }
        }
        if doc.fields.contains_key("workplace") {
            workplaces += 1;
            assert!(!["طالب", "طالبة", "ربة منزل", "بالمعاش"].contains(&job));
        }
        // Issued YYYY/MM, expiring 7 years later (same month).
        let Some(PrintedDate::Month { year, month }) =
            PrintedDate::parse(field(&doc, "issue_date"))
        else {
            panic!("issue date {}", field(&doc, "issue_date"));
        };
        let expiry = day(field(&doc, "expiry_date"));
        assert_eq!((expiry.year(), expiry.month()), (year + 7, month));
        let age = crate::domain::date::age_on(
            id.birth_date(),
            chrono::NaiveDate::from_ymd_opt(year, month, 28).unwrap(),
        );
        assert!((15..=81).contains(&age), "age {age}");
    }
    assert!(husbands > 10, "{husbands}");
    assert!(workplaces > 30, "{workplaces}");
}

#[test]
fn licences_carry_valid_numbers_and_consistent_places() {
    for doc in docs(DocumentKind::DriverLicence) {
        let id = valid_id(field(&doc, "national_id"));
        let issued = day(field(&doc, "issue_date"));
        assert!(day(field(&doc, "expiry_date")) > issued);
        assert!(crate::domain::date::age_on(id.birth_date(), issued) >= 18);
        assert!(
            governorate_in_address(field(&doc, "address")).is_some(),
            "{}",
            field(&doc, "address")
        );
        assert!(field(&doc, "traffic_unit").starts_with("وحدة مرور "));
        assert_eq!(doc.flow_a.gender, id.gender().arabic());
        assert!(doc.flow_a.platenumber.is_empty() && doc.flow_a.passportType.is_empty());
    }
    for doc in docs(DocumentKind::CarLicenceFront) {
        valid_id(field(&doc, "owner_national_id"));
        let gov = governorate_in_address(field(&doc, "address")).expect("governorate");
        let plate = field(&doc, "plate_number");
        assert!(
            plate_matches_format(plate, gov),
            "{plate} for {}",
            gov.english
        );
        assert_eq!(doc.flow_a.platenumber, plate);
        assert_eq!(doc.flow_a.city, gov.arabic);
        assert!(doc.flow_a.passportType.is_empty());
    }
}

#[test]
fn vehicles_have_plausible_numbers() {
    for doc in docs(DocumentKind::CarLicenceBack) {
        let chassis = field(&doc, "chassis_number");
        assert!(
            chassis
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()),
            "{chassis}"
        );
        assert!(!chassis.contains(['I', 'O', 'Q']), "{chassis}");
        if chassis.len() == 17 {
            assert_eq!(
                vin_check_digit(chassis),
                chassis.chars().nth(8),
                "{chassis}"
            );
        } else {
            assert!((8..=12).contains(&chassis.len()), "{chassis}");
        }
        let engine = field(&doc, "engine_number");
        assert!(
            engine.len() >= 6
                && engine
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-'),
            "{engine}"
        );
        let year: i32 = crate::domain::digits::to_ascii_digits(field(&doc, "year"))
            .parse()
            .unwrap();
        assert!((1985..=REFERENCE_DATE.year()).contains(&year));
        assert_eq!(doc.flow_a, crate::record::FlowAFields::default());
    }
}

#[test]
fn plate_shapes_follow_the_governorate() {
    let cairo = crate::domain::Governorate::from_code(1).unwrap();
    let giza = crate::domain::Governorate::from_code(21).unwrap();
    let suez = crate::domain::Governorate::from_code(4).unwrap();
    assert!(plate_matches_format("ن ص ر ١٢٣", cairo));
    assert!(!plate_matches_format("ن ص ر ١٢٣", giza));
    assert!(plate_matches_format("هـ و ١٢٣٤", giza));
    assert!(plate_matches_format("أ ب ى ٩٨٧٦", suez));
    assert!(!plate_matches_format("ت ب ى ٩٨٧٦", suez));
    assert!(!plate_matches_format("أ ب ى 9876", suez));
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for gov in crate::domain::Governorate::residential() {
        assert!(plate_matches_format(&vehicle::plate(&mut rng, gov), gov));
    }
    // A published example VIN with a valid check digit.
    assert_eq!(vin_check_digit("1M8GDM9AXKP042788"), Some('X'));
}

#[test]
fn passports_carry_valid_machine_readable_zones() {
    for doc in docs(DocumentKind::Passport) {
        let line1 = field(&doc, "mrz_line1");
        let line2 = field(&doc, "mrz_line2");
        assert_eq!(line1.len(), 44);
        assert!(td3_line2_is_valid(line2), "{line2}");
        let id = valid_id(field(&doc, "national_id"));
        assert_eq!(&line2[28..42], id.ascii());
        assert_eq!(day(field(&doc, "birth_date")), id.birth_date());
        let sex = field(&doc, "sex");
        assert_eq!(&line2[20..21], sex);
        assert_eq!(parse_gender(sex), Some(id.gender()));
        let name_en = field(&doc, "name_en");
        let (surname, given) = td3_names(line1).unwrap();
        let (printed_given, printed_surname) = name_en.rsplit_once(' ').unwrap();
        assert_eq!(surname, printed_surname);
        // Long names are truncated in the MRZ, never altered.
        assert!(
            printed_given.starts_with(given.trim()),
            "{given} vs {printed_given}"
        );
        assert_eq!(
            name_en,
            crate::domain::transliterate::transliterate(field(&doc, "name_ar")).to_uppercase()
        );
        let issued = day(field(&doc, "issue_date"));
        assert_eq!(day(field(&doc, "expiry_date")), add_years(issued, 7));
        assert_eq!(doc.flow_a.passportType, "P");
        assert!(doc.flow_a.platenumber.is_empty());
    }
}

#[test]
fn residence_permits_are_coherent() {
    let mut nationalities = std::collections::BTreeSet::new();
    for doc in docs(DocumentKind::ResidencePermit) {
        let name_en = field(&doc, "name_en");
        assert!(
            name_en.chars().all(|c| c.is_ascii_uppercase() || c == ' '),
            "{name_en}"
        );
        let (latin_words, arabic_words) = (
            name_en.split(' ').count(),
            field(&doc, "name_ar").split(' ').count(),
        );
        assert!(
            (2..=arabic_words).contains(&latin_words),
            "{name_en} / {}",
            field(&doc, "name_ar")
        );
        let issued = day(field(&doc, "issue_date"));
        assert!(day(field(&doc, "expiry_date")) > issued);
        assert!(day(field(&doc, "birth_date")) < issued);
        assert!(parse_gender(field(&doc, "gender")).is_some());
        assert!(!doc.flow_a.passportType.is_empty());
        nationalities.insert(field(&doc, "nationality_en").to_owned());
    }
    assert!(nationalities.len() >= 10, "{nationalities:?}");
}

#[test]
fn same_seed_same_document() {
    for kind in DocumentKind::ALL {
        for seed in [0u64, 7, 12345] {
            let a = generate(kind, &mut ChaCha8Rng::seed_from_u64(seed));
            let b = generate(kind, &mut ChaCha8Rng::seed_from_u64(seed));
            assert_eq!(
                serde_json::to_string(&a).unwrap(),
                serde_json::to_string(&b).unwrap()
            );
        }
        let a = generate(kind, &mut ChaCha8Rng::seed_from_u64(1));
        let b = generate(kind, &mut ChaCha8Rng::seed_from_u64(2));
        assert_ne!(a.fields, b.fields, "{kind}");
    }
}

#[test]
fn expected_outputs_come_from_the_printed_fields() {
    for kind in DocumentKind::ALL {
        for doc in docs(kind).take(50) {
            let (a, b) = crate::record::build(kind, &doc.fields);
            assert_eq!(a, doc.flow_a);
            assert_eq!(b, doc.flow_b);
        }
    }
}

#[test]
fn thousands_of_seeds_generate_without_panicking() {
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    for i in 0..7000 {
        let doc = generate(DocumentKind::ALL[i % 7], &mut rng);
        assert!(!doc.fields.is_empty());
    }
}
