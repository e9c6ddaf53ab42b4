//! National ID front: names, address, birth date, number, serial.
//!
//! The number and the printed birth date must agree (digits 2 to 7); the number
//! wins a disagreement because its check digit validates it, and the birth date is
//! then printed from it.

use super::address::address_with_governorate;
use super::nid::{self, Digits, Expect};
use super::text::{self, DateForm};
use super::{Checked, CheckedFields, Readings};
use crate::domain::date::PrintedDate;

pub fn check(readings: &Readings) -> CheckedFields {
    let mut fields = CheckedFields::new();
    for key in ["first_name", "last_name"] {
        if let Some(checked) = text::name(readings, key) {
            fields.insert(key.to_owned(), checked);
        }
    }
    if let Some(checked) = text::plain(readings, "address_line1") {
        fields.insert("address_line1".to_owned(), checked);
    }
    if let Some(checked) = address_with_governorate(readings, "address_line2") {
        fields.insert("address_line2".to_owned(), checked);
    }
    let birth = text::date(readings, "birth_date", DateForm::ArabicYmd, |_| true);
    let printed_birth = birth.as_ref().and_then(|(_, date)| match date {
        Some(PrintedDate::Day(day)) => Some(*day),
        _ => None,
    });
    let expect = Expect {
        birth: printed_birth,
        gender: None,
    };
    let id = nid::national_id(readings, "national_id", Digits::ArabicIndic, expect);
    if let Some((checked, parsed)) = id {
        if let Some(parsed) = parsed {
            let agreed = printed_birth == Some(parsed.birth_date());
            let from_id =
                text::print_date(PrintedDate::Day(parsed.birth_date()), DateForm::ArabicYmd);
            match (&birth, from_id) {
                (Some((b, _)), _) if agreed => {
                    // Two independent readings agree: both are near certain.
                    let confidence = 1.0 - (1.0 - b.confidence) * (1.0 - checked.confidence);
                    fields.insert(
                        "birth_date".to_owned(),
                        Checked::new(b.text.clone(), confidence),
                    );
                }
                (_, Some(text)) => {
                    fields.insert(
                        "birth_date".to_owned(),
                        Checked::new(text, checked.confidence * 0.9),
                    );
                }
                _ => {}
            }
        } else if let Some((b, _)) = birth {
            fields.insert("birth_date".to_owned(), b);
        }
        fields.insert("national_id".to_owned(), checked);
    } else if let Some((b, _)) = birth {
        fields.insert("birth_date".to_owned(), b);
    }
    if let Some(checked) = serial(readings, "serial") {
        fields.insert("serial".to_owned(), checked);
    }
    fields
}

/// The Latin serial: two capital letters and seven digits. Look-alike characters
/// are mapped to the class each position needs (`1`→`I` in the letters, `O`→`0`
/// in the digits). No rule checks a serial's characters: one read beside a nearly
/// as likely other serial is doubted ([`super::LineReading::unrivalled`]).
pub fn serial(readings: &Readings, key: &str) -> Option<Checked> {
    let reading = readings.get(key)?;
    let best = reading.best()?;
    let Some((rank, candidate, (fixed, edits))) = reading
        .candidates
        .iter()
        .enumerate()
        .find_map(|(rank, c)| Some((rank, c, as_serial(&c.text)?)))
    else {
        return Some(Checked::new(
            best.text.trim(),
            best.confidence * text::FAILED_RULE,
        ));
    };
    let confidence = candidate.confidence * 0.85f32.powi(edits as i32 + rank as i32);
    let confidence = reading.unrivalled(&fixed, candidate, confidence, |text| {
        as_serial(text).map(|(serial, _)| serial)
    });
    Some(Checked::new(fixed, confidence))
}

/// `text` as a serial, look-alikes mapped to each position's class, and how many
/// were mapped; `None` when it is no serial even so.
fn as_serial(text: &str) -> Option<(String, usize)> {
    let compact: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    if compact.len() != 9 {
        return None;
    }
    let mut fixed = String::with_capacity(9);
    let mut edits = 0;
    for (i, &c) in compact.iter().enumerate() {
        let c = c.to_ascii_uppercase();
        let mapped = if i < 2 {
            match c {
                '1' => 'I',
                '0' => 'O',
                '5' => 'S',
                '8' => 'B',
                '2' => 'Z',
                c => c,
            }
        } else {
            match c {
                'I' | 'L' => '1',
                'O' | 'D' => '0',
                'S' => '5',
                'B' => '8',
                'Z' => '2',
                c => c,
            }
        };
        edits += usize::from(mapped != c);
        fixed.push(mapped);
    }
    let valid = fixed.chars().take(2).all(|c| c.is_ascii_uppercase())
        && fixed.chars().skip(2).all(|c| c.is_ascii_digit());
    valid.then_some((fixed, edits))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::pipeline::post::test_support::confident as readings;
    use crate::pipeline::post::test_support::hypotheses;

    #[test]
    fn checks_a_clean_front() {
        let r = readings(&[
            ("first_name", "باسل"),
            ("last_name", "اشرف عبدالعزيز محمد"),
            ("address_line1", "٧ ش منصور"),
            ("address_line2", "السيدة زينب - القاهرة"),
            ("national_id", "٣٠٣١٢٢٤٠٢٠١٨٥٩"),
            ("birth_date", "٢٠٠٣/١٢/٢٤"),
            ("serial", "AB1234567"),
        ]);
        let fields = check(&r);
        assert_eq!(fields["national_id"].text, "٣٠٣١٢٢٤٠٢٠١٨٥٩");
        assert_eq!(fields["birth_date"].text, "٢٠٠٣/١٢/٢٤");
        assert!(fields["birth_date"].confidence > 0.95);
        assert_eq!(fields["address_line2"].text, "السيدة زينب - القاهرة");
        assert_eq!(fields["serial"].text, "AB1234567");
    }

    #[test]
    fn persian_digit_forms_read_as_the_arabic_indic_digits_they_stand_for() {
        let r = readings(&[
            ("address_line1", "۴۵۶ ش منصور"),
            ("national_id", "۳۰۳۱۲۲۴۰۲۰۱۸۵۹"),
            ("birth_date", "۲۰۰۳/۱۲/۲۴"),
        ]);
        let fields = check(&r);
        assert_eq!(fields["address_line1"].text, "٤٥٦ ش منصور");
        assert_eq!(fields["national_id"].text, "٣٠٣١٢٢٤٠٢٠١٨٥٩");
        assert_eq!(fields["birth_date"].text, "٢٠٠٣/١٢/٢٤");
        assert!(fields["birth_date"].confidence > 0.95);
    }

    #[test]
    fn prints_the_birth_date_from_a_valid_number_when_the_date_misreads() {
        let r = readings(&[
            ("national_id", "٣٠٣١٢٢٤٠٢٠١٨٥٩"),
            ("birth_date", "٢٠٠٢/١٢/٢٤"),
        ]);
        let fields = check(&r);
        assert_eq!(fields["birth_date"].text, "٢٠٠٣/١٢/٢٤");
        assert!(fields["birth_date"].confidence < 0.9);
    }

    #[test]
    fn maps_look_alike_serial_characters() {
        let r = readings(&[("serial", "1B12345O7")]);
        let checked = &check(&r)["serial"];
        assert_eq!(checked.text, "IB1234507");
        assert!(checked.confidence < 0.9);
    }

    #[test]
    fn a_serial_read_beside_a_nearly_as_likely_other_serial_is_doubtful() {
        let reading = |runner_up: f32| {
            let r = hypotheses(
                "serial",
                &[
                    ("HE2372388", 0.95),
                    ("ME2372388", runner_up),
                    ("HE 2372388", 0.9),
                ],
            );
            check(&r)["serial"].clone()
        };
        let doubted = reading(0.6);
        assert_eq!(doubted.text, "HE2372388");
        assert!(doubted.confidence <= crate::pipeline::post::DIGIT_DOUBT);
        // The same serial spaced otherwise, or an unlikely other one, casts no doubt.
        assert!(reading(0.2).confidence > 0.9);
    }
}
