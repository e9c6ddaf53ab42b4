//! Residence permit for foreigners (layout designed by us).

use super::nid_back::GENDERS;
use super::text::{self, DateForm};
use super::{CheckedFields, Readings};

pub fn check(readings: &Readings) -> CheckedFields {
    let mut fields = CheckedFields::new();
    let mut put = |key: &str, value| {
        if let Some(checked) = value {
            fields.insert(key.to_owned(), checked);
        }
    };
    put("name_ar", text::foreign_name(readings, "name_ar"));
    for key in ["nationality_ar", "residence_type", "purpose"] {
        put(key, text::plain(readings, key));
    }
    let upper = |t: &str| {
        !t.is_empty()
            && t.chars()
                .all(|c| c.is_ascii_uppercase() || c == ' ' || c == '-' || c == '\'')
    };
    put("name_en", text::latin(readings, "name_en", upper));
    put(
        "nationality_en",
        text::latin(readings, "nationality_en", upper),
    );
    let number = |t: &str| {
        !t.is_empty()
            && t.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    };
    put(
        "permit_number",
        text::latin(readings, "permit_number", number),
    );
    put(
        "passport_number",
        text::latin(readings, "passport_number", number),
    );
    put("gender", text::snap(readings, "gender", &GENDERS));
    for key in ["birth_date", "issue_date", "expiry_date"] {
        put(
            key,
            text::date(readings, key, DateForm::ArabicYmd, |_| true).map(|(c, _)| c),
        );
    }
    fields
}
