//! National ID back: number, issue and expiry dates, job, status line, husband.
//!
//! Cross-checks: the printed gender against digit 13 of the number (the number
//! wins when it is valid), religion and marital status in the gender's form, and
//! the expiry seven years after the issue month.

use chrono::Datelike;

use super::driver_licence::NATIONALITIES;
use super::nid::{self, Digits, Expect};
use super::text::{self, DateForm};
use super::{Checked, CheckedFields, Readings};
use crate::domain::Gender;
use crate::domain::arabic::{fold, is_arabic_word};
use crate::domain::date::PrintedDate;
use crate::record::build::HUSBAND_LABEL;

/// Closed vocabularies of the status line (shared/domain.md §1.5).
pub const GENDERS: [&str; 2] = ["ذكر", "أنثى"];
pub const RELIGIONS_MALE: [&str; 4] = ["مسلم", "مسيحي", "يهودي", "-"];
pub const RELIGIONS_FEMALE: [&str; 4] = ["مسلمة", "مسيحية", "يهودية", "-"];
pub const MARITAL_MALE: [&str; 4] = ["أعزب", "متزوج", "مطلق", "أرمل"];
pub const MARITAL_FEMALE: [&str; 5] = ["آنسة", "عزباء", "متزوجة", "مطلقة", "أرملة"];

/// Words no job or workplace is, though the recognizer sometimes reads a blurred job
/// line as one, with the job as its runner-up: those of the status line, which it
/// reads on every back (`مزارع` as `متزوج`, `موظفة` as `مسلمة`), and the
/// nationality (`ميكانيكي` as `مصري`).
pub const NOT_JOBS: [&[&str]; 6] = [
    &GENDERS,
    &RELIGIONS_MALE,
    &RELIGIONS_FEMALE,
    &MARITAL_MALE,
    &MARITAL_FEMALE,
    &NATIONALITIES,
];

/// Years a National ID card is valid.
const VALIDITY_YEARS: i32 = 7;

pub fn check(readings: &Readings) -> CheckedFields {
    let mut fields = CheckedFields::new();
    let printed_gender = text::snap(readings, "gender", &GENDERS);
    let gender_hint = printed_gender
        .as_ref()
        .filter(|g| g.confidence >= 0.5)
        .and_then(|g| gender_of(&g.text));
    let id = nid::national_id(
        readings,
        "national_id",
        Digits::ArabicIndic,
        Expect {
            birth: None,
            gender: gender_hint,
        },
    );
    let id_gender = id
        .as_ref()
        .and_then(|(_, parsed)| parsed.map(|p| p.gender()));
    if let Some((checked, _)) = id {
        fields.insert("national_id".to_owned(), checked);
    }
    // Gender: the valid number decides; agreement makes both near certain.
    let gender = match (printed_gender, id_gender) {
        (Some(printed), Some(from_id)) if gender_of(&printed.text) == Some(from_id) => {
            let confidence = 1.0 - (1.0 - printed.confidence) * 0.3;
            fields.insert("gender".to_owned(), Checked::new(printed.text, confidence));
            Some(from_id)
        }
        (Some(printed), Some(from_id)) => {
            fields.insert(
                "gender".to_owned(),
                Checked::new(from_id.arabic(), printed.confidence * 0.7),
            );
            Some(from_id)
        }
        (Some(printed), None) => {
            let gender = gender_of(&printed.text);
            fields.insert("gender".to_owned(), printed);
            gender
        }
        (None, _) => None,
    };
    let (religions, marital): (&[&str], &[&str]) = match gender {
        Some(Gender::Male) => (&RELIGIONS_MALE, &MARITAL_MALE),
        Some(Gender::Female) => (&RELIGIONS_FEMALE, &MARITAL_FEMALE),
        None => (
            &[RELIGIONS_MALE, RELIGIONS_FEMALE].concat(),
            &[&MARITAL_MALE[..], &MARITAL_FEMALE[..]].concat(),
        ),
    };
    if let Some(checked) = text::snap(readings, "religion", religions) {
        fields.insert("religion".to_owned(), checked);
    }
    if let Some(checked) = text::snap(readings, "marital_status", marital) {
        fields.insert("marital_status".to_owned(), checked);
    }
    if let Some(checked) = text::plain_excluding(readings, "job", &NOT_JOBS) {
        fields.insert("job".to_owned(), checked);
    }
    // Optional lines: a blank box still catches a neighbour's ink in its margin
    // (the status line's descenders, the top of the expiry date), read as `-` or a
    // digit. A workplace holds words; a husband's line opens with its label.
    let workplace = text::plain_excluding(readings, "workplace", &NOT_JOBS)
        .filter(|c| c.text.split_whitespace().any(is_arabic_word));
    if let Some(checked) = workplace {
        fields.insert("workplace".to_owned(), checked);
    }
    if let Some(checked) = text::name(readings, "husband").filter(|c| opens_with_label(&c.text)) {
        fields.insert("husband".to_owned(), checked);
    }
    let issue = text::date(readings, "issue_date", DateForm::ArabicYm, |_| true);
    let issue_month = issue.as_ref().and_then(|(_, d)| *d);
    // Prefer an expiry reading exactly seven years after the issue month.
    let seven_years_on = |d: PrintedDate| match (issue_month, d) {
        (Some(PrintedDate::Month { year, month }), PrintedDate::Day(day)) => {
            day.year() == year + VALIDITY_YEARS && day.month() == month
        }
        _ => true,
    };
    let expiry = text::date(readings, "expiry_date", DateForm::ArabicYmd, seven_years_on)
        .filter(|(_, d)| d.is_some())
        .or_else(|| text::date(readings, "expiry_date", DateForm::ArabicYmd, |_| true));
    let consistent =
        matches!((&issue_month, &expiry), (Some(_), Some((_, Some(e)))) if seven_years_on(*e));
    for (key, value) in [("issue_date", issue), ("expiry_date", expiry)] {
        if let Some((mut checked, _)) = value {
            if consistent {
                checked.confidence = 1.0 - (1.0 - checked.confidence) * 0.5;
            }
            fields.insert(key.to_owned(), checked);
        }
    }
    fields
}

/// Whether a husband line opens with its label, `الزوج`, within one misread letter.
fn opens_with_label(line: &str) -> bool {
    let label = fold(HUSBAND_LABEL.trim_end_matches([':', ' ']));
    line.split_whitespace()
        .next()
        .is_some_and(|word| text::levenshtein(&fold(word.trim_end_matches(':')), &label) <= 1)
}

fn gender_of(text: &str) -> Option<Gender> {
    match text {
        "ذكر" => Some(Gender::Male),
        "أنثى" => Some(Gender::Female),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::pipeline::post::test_support::confident as readings;

    #[test]
    fn checks_a_clean_back() {
        let r = readings(&[
            ("national_id", "٣٠٣١٢٢٤٠٢٠١٨٥٩"),
            ("issue_date", "٢٠٢٤/٠٨"),
            ("job", "طالب"),
            ("gender", "ذكر"),
            ("religion", "مسلم"),
            ("marital_status", "اعزب"),
            ("expiry_date", "٢٠٣١/٠٨/١٢"),
        ]);
        let fields = check(&r);
        assert_eq!(fields["marital_status"].text, "أعزب");
        assert_eq!(fields["gender"].text, "ذكر");
        assert!(fields["gender"].confidence > 0.9);
        assert!(fields["expiry_date"].confidence > 0.9);
        assert_eq!(fields["issue_date"].text, "٢٠٢٤/٠٨");
    }

    #[test]
    fn a_job_is_never_a_word_of_the_status_line_or_a_nationality() {
        use crate::pipeline::post::test_support::hypotheses;
        let r = hypotheses("job", &[("متزوج", 0.38), ("مزارع", 0.14)]);
        let job = &check(&r)["job"];
        assert_eq!(job.text, "مزارع");
        assert_eq!(job.confidence, 0.14);
        let r = hypotheses("job", &[("مصري", 0.5), ("ميكانيكي", 0.2)]);
        assert_eq!(check(&r)["job"].text, "ميكانيكي");
        // Nothing else read: the status word is kept, flagged.
        let r = hypotheses("job", &[("مسلمة", 0.74), ("مسلم", 0.12)]);
        let job = &check(&r)["job"];
        assert_eq!(job.text, "مسلمة");
        assert!(job.confidence < 0.5);
    }

    #[test]
    fn a_blank_optional_line_stays_blank_when_a_neighbours_ink_is_read_there() {
        let fields = check(&readings(&[("husband", "-"), ("workplace", "٣")]));
        assert!(!fields.contains_key("husband"));
        assert!(!fields.contains_key("workplace"));
        let fields = check(&readings(&[("husband", "عبد الرحمن")]));
        assert!(!fields.contains_key("husband"), "a name without the label");
        let fields = check(&readings(&[
            ("husband", "الزوح : محمد علي حسن"),
            ("workplace", "شركة مصر للطيران"),
        ]));
        assert_eq!(fields["husband"].text, "الزوح : محمد علي حسن");
        assert_eq!(fields["workplace"].text, "شركة مصر للطيران");
    }

    #[test]
    fn the_valid_number_corrects_the_printed_gender_and_its_forms() {
        // Digit 13 is 5: male. The status line was read as female forms.
        let r = readings(&[
            ("national_id", "30312240201859"),
            ("gender", "أنثى"),
            ("religion", "مسلمة"),
        ]);
        let fields = check(&r);
        assert_eq!(fields["gender"].text, "ذكر");
        assert!(fields["gender"].confidence < 0.9);
        // The female form is one edit from the male one.
        assert_eq!(fields["religion"].text, "مسلم");
    }

    #[test]
    fn flags_an_expiry_that_is_not_a_date() {
        let r = readings(&[("issue_date", "٢٠٢٤/٠٨"), ("expiry_date", "٢٠٣١/٠٢/٣٠")]);
        let fields = check(&r);
        assert!(fields["expiry_date"].confidence < 0.5);
    }
}
