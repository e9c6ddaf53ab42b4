//! National ID back: number, issue and expiry dates, job, status line, husband.
//!
//! Cross-checks: the printed gender against digit 13 of the number (the number
//! wins when it is valid), religion and marital status in the gender's form, and
//! the expiry seven years after the issue month.

use chrono::Datelike;

use super::driver_licence::NATIONALITIES;
use super::nid::{self, Digits, Expect};
use super::text::{self, DateForm};
use super::{Checked, CheckedFields, RIVAL_MARGIN, Readings, clearly_likeliest};
use crate::domain::Gender;
use crate::domain::arabic::{fold, is_arabic_word};
use crate::domain::date::PrintedDate;
use crate::domain::edit;
use crate::record::build::HUSBAND_LABEL;

/// Closed vocabularies of the status line (docs/domain.md §1.5).
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

/// A workplace read with less confidence than this is taken for what a blank box's
/// margin caught of its neighbours (a letter, a status word's descenders) and left
/// blank. On the 300 NID-back photos of tuning seed 4248, every one of the 27
/// workplaces read where none is printed scored under it, and none read right did.
const WORKPLACE_FLOOR: f32 = 0.1;

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
    // The gender a valid number gives, and how sure the number is.
    let id_gender = id
        .as_ref()
        .and_then(|(checked, parsed)| parsed.map(|p| (p.gender(), checked.confidence)));
    if let Some((checked, _)) = id {
        fields.insert("national_id".to_owned(), checked);
    }
    // Gender: the valid number decides; agreement makes both near certain.
    let decided = match (printed_gender, id_gender) {
        (Some(printed), Some((from_id, _))) if gender_of(&printed.text) == Some(from_id) => {
            let confidence = 1.0 - (1.0 - printed.confidence) * 0.3;
            Some((Checked::new(printed.text, confidence), Some(from_id)))
        }
        (Some(printed), Some((from_id, _))) => Some(overruled(from_id, &printed)),
        // No valid number: the status line's words vote.
        (Some(printed), None) => Some(match status_line_gender(readings, &printed) {
            Some(voted) if gender_of(&printed.text) != Some(voted) => overruled(voted, &printed),
            _ => {
                let gender = gender_of(&printed.text);
                (printed, gender)
            }
        }),
        // A status line too faint to find: the word printed there is the number's.
        (None, Some((from_id, worth))) => {
            Some((Checked::new(from_id.arabic(), worth * 0.9), Some(from_id)))
        }
        (None, None) => None,
    };
    let gender = decided.and_then(|(checked, gender)| {
        fields.insert("gender".to_owned(), checked);
        gender
    });
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
    let workplace = text::plain_excluding(readings, "workplace", &NOT_JOBS).filter(|c| {
        c.text.split_whitespace().any(is_arabic_word) && c.confidence >= WORKPLACE_FLOOR
    });
    if let Some(checked) = workplace {
        fields.insert("workplace".to_owned(), checked);
    }
    if let Some(checked) =
        text::labelled_name(readings, "husband").filter(|c| opens_with_label(&c.text))
    {
        fields.insert("husband".to_owned(), checked);
    }
    for (key, checked) in issue_and_expiry(readings) {
        fields.insert(key.to_owned(), checked);
    }
    fields
}

/// The issue month and the expiry date, checked against each other (the expiry
/// seven years after the issue month): a misread pair agrees about one time in a
/// hundred, so agreement backs the issue month (the expiry's day, which it does
/// not check, keeps its own confidence), and two dates read that disagree hold a
/// misreading, so neither is confident ([`CONTRADICTED`]). The hypotheses as ranked
/// come first: the issue month as read, and the first expiry reading that agrees
/// with it. When none does, the clearly likeliest agreeing pair with a date one
/// rival away ([`agreeing_dates`]); failing that, each date as read.
fn issue_and_expiry(readings: &Readings) -> Vec<(&'static str, Checked)> {
    let backed = |key: &str, confidence: f32| match key {
        "issue_date" => 1.0 - (1.0 - confidence) * 0.5,
        _ => confidence,
    };
    let issue = text::date(readings, "issue_date", DateForm::ArabicYm, |_| true);
    let issue_month = issue.as_ref().and_then(|(_, d)| *d);
    let seven_years_on =
        |d: PrintedDate| issue_month.is_none_or(|issue| seven_years_apart(issue, d));
    let expiry = text::date(readings, "expiry_date", DateForm::ArabicYmd, seven_years_on)
        .filter(|(_, d)| d.is_some())
        .or_else(|| text::date(readings, "expiry_date", DateForm::ArabicYmd, |_| true));
    let consistent =
        matches!((&issue_month, &expiry), (Some(_), Some((_, Some(e)))) if seven_years_on(*e));
    let contradicted =
        !consistent && matches!((&issue_month, &expiry), (Some(_), Some((_, Some(_)))));
    if !consistent
        && let Some(((issue, issue_worth), (expiry, expiry_worth))) = agreeing_dates(readings)
    {
        return [
            ("issue_date", issue, DateForm::ArabicYm, issue_worth),
            ("expiry_date", expiry, DateForm::ArabicYmd, expiry_worth),
        ]
        .into_iter()
        .filter_map(|(key, date, form, worth)| {
            Some((
                key,
                Checked::new(text::print_date(date, form)?, backed(key, worth)),
            ))
        })
        .collect();
    }
    // An issue line not found or no date: the card was issued in its expiry's month,
    // seven years before.
    let issue = match (issue_month, &expiry) {
        (None, Some((expiry, Some(PrintedDate::Day(day))))) => {
            let issued = PrintedDate::Month {
                year: day.year() - VALIDITY_YEARS,
                month: day.month(),
            };
            text::print_date(issued, DateForm::ArabicYm)
                .map(|text| (Checked::new(text, expiry.confidence * 0.9), Some(issued)))
                .or(issue)
        }
        _ => issue,
    };
    [("issue_date", issue), ("expiry_date", expiry)]
        .into_iter()
        .filter_map(|(key, value)| {
            let (mut checked, _) = value?;
            if consistent {
                checked.confidence = backed(key, checked.confidence);
            } else if contradicted {
                checked.confidence = checked.confidence.min(CONTRADICTED);
            }
            Some((key, checked))
        })
        .collect()
}

/// The most an issue month or expiry date is reported at when both were read and
/// they disagree: one of them is misread, and which is unknown. Under
/// [`super::LOW_CONFIDENCE`], so both are listed for review. Of the 1,852 back
/// fields read at 0.8 or more on the tuning photos (seed 4247, 600 photos, card
/// faces held out, both font splits), 41 were wrong, 35 of them these dates.
const CONTRADICTED: f32 = 0.6;

/// The issue month and expiry day that agree (the expiry seven years after the
/// issue month), clearly the likeliest such pair among the two lines' readings and
/// the dates one rival away from them, each with its worth.
fn agreeing_dates(readings: &Readings) -> Option<((PrintedDate, f32), (PrintedDate, f32))> {
    let expiries = text::date_options(readings, "expiry_date");
    let mut pairs = Vec::new();
    for issue in text::date_options(readings, "issue_date") {
        for &expiry in &expiries {
            if seven_years_apart(issue.0, expiry.0) {
                pairs.push(((issue, expiry), issue.1 * expiry.1));
            }
        }
    }
    clearly_likeliest(pairs, RIVAL_MARGIN).map(|(pair, _)| pair)
}

/// Whether `expiry` is a day seven years after the month `issue`.
fn seven_years_apart(issue: PrintedDate, expiry: PrintedDate) -> bool {
    match (issue, expiry) {
        (PrintedDate::Month { year, month }, PrintedDate::Day(day)) => {
            day.year() == year + VALIDITY_YEARS && day.month() == month
        }
        _ => false,
    }
}

/// Whether a husband line opens with its label, `الزوج`, within one misread letter.
fn opens_with_label(line: &str) -> bool {
    let label = fold(HUSBAND_LABEL.trim_end_matches([':', ' ']));
    line.split_whitespace()
        .next()
        .is_some_and(|word| edit::distance(&fold(word.trim_end_matches(':')), &label) <= 1)
}

/// `gender`, decided by other evidence than the printed word: the word's place, at
/// less than the word's own confidence.
fn overruled(gender: Gender, printed: &Checked) -> (Checked, Option<Gender>) {
    (
        Checked::new(gender.arabic(), printed.confidence * 0.7),
        Some(gender),
    )
}

/// The gender the status line's words vote for, each with its confidence: the
/// gender word itself, and religion and marital status, which are printed in the
/// holder's gender's form (`مسلم` or `مسلمة`). `None` on a tie.
fn status_line_gender(readings: &Readings, printed: &Checked) -> Option<Gender> {
    // Male votes count up, female ones down.
    let mut balance = 0.0f32;
    let mut vote = |gender: Gender, confidence: f32| match gender {
        Gender::Male => balance += confidence,
        Gender::Female => balance -= confidence,
    };
    if let Some(gender) = gender_of(&printed.text) {
        vote(gender, printed.confidence);
    }
    let forms: [(&str, &[&str], &[&str]); 2] = [
        ("religion", &RELIGIONS_MALE, &RELIGIONS_FEMALE),
        ("marital_status", &MARITAL_MALE, &MARITAL_FEMALE),
    ];
    for (key, male, female) in forms {
        let Some(word) = text::snap(readings, key, &[male, female].concat()) else {
            continue;
        };
        let word_is = |forms: &[&str]| forms.contains(&word.text.as_str());
        match (word_is(male), word_is(female)) {
            (true, false) => vote(Gender::Male, word.confidence),
            (false, true) => vote(Gender::Female, word.confidence),
            _ => {}
        }
    }
    match balance.total_cmp(&0.0) {
        std::cmp::Ordering::Greater => Some(Gender::Male),
        std::cmp::Ordering::Less => Some(Gender::Female),
        std::cmp::Ordering::Equal => None,
    }
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
        assert!(
            fields["issue_date"].confidence > 0.9,
            "backed by the expiry"
        );
        assert_eq!(fields["expiry_date"].confidence, 0.9, "its day is its own");
        assert_eq!(fields["issue_date"].text, "٢٠٢٤/٠٨");
    }

    #[test]
    fn a_date_misread_by_one_digit_takes_the_rival_that_makes_the_pair_agree() {
        use crate::pipeline::post::test_support::{reading, with_rivals};
        let mut r = readings(&[("expiry_date", "٢٠٣١/٠٨/١٢")]);
        // Month ٠٣ for ٠٨ (position 6); its rival ٨ agrees with the expiry, the
        // year's rival ٥ (position 3) would not.
        let issue = with_rivals("٢٠٢٤/٠٣", 0.8, &[(6, '٨', 0.2), (3, '٥', 0.6)]);
        r.extend(reading("issue_date", vec![issue]));
        let fields = check(&r);
        assert_eq!(fields["issue_date"].text, "٢٠٢٤/٠٨");
        assert_eq!(fields["expiry_date"].text, "٢٠٣١/٠٨/١٢");
        // Dates that agree as read keep their readings, whatever their rivals.
        let expiry = with_rivals("٢٠٣١/٠٣/١٢", 0.8, &[(9, '٣', 0.9)]);
        r.extend(reading("expiry_date", vec![expiry]));
        let fields = check(&r);
        assert_eq!(fields["issue_date"].text, "٢٠٢٤/٠٣");
        assert_eq!(fields["expiry_date"].text, "٢٠٣١/٠٣/١٢");
        // Agreement backs the issue month; the expiry's day it does not check.
        assert!(fields["issue_date"].confidence > 0.8);
        assert!(fields["expiry_date"].confidence <= 0.8);
    }

    #[test]
    fn dates_read_that_disagree_are_both_listed_for_review() {
        let fields = check(&readings(&[
            ("issue_date", "٢٠٢٣/٠٤"),
            ("expiry_date", "٢٠٣١/٠٨/١٢"),
        ]));
        assert_eq!(fields["issue_date"].text, "٢٠٢٣/٠٤");
        assert_eq!(fields["expiry_date"].text, "٢٠٣١/٠٨/١٢");
        assert!(fields["issue_date"].confidence <= CONTRADICTED);
        assert!(fields["expiry_date"].confidence <= CONTRADICTED);
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
        // A word, but read with next to no confidence: a neighbour's ink.
        use crate::pipeline::post::test_support::hypotheses;
        let fields = check(&hypotheses("workplace", &[("عمار", 0.04)]));
        assert!(!fields.contains_key("workplace"));
        let fields = check(&hypotheses("workplace", &[("وزارة الري", 0.15)]));
        assert_eq!(fields["workplace"].text, "وزارة الري");
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
    fn without_a_valid_number_the_status_lines_forms_vote_on_the_gender() {
        use crate::pipeline::post::test_support::hypotheses;
        // The gender word is garbled; religion and marital status are in female forms.
        let mut r = hypotheses("gender", &[("مسلم", 0.3)]);
        r.extend(readings(&[
            ("religion", "مسلمة"),
            ("marital_status", "متزوجة"),
        ]));
        let fields = check(&r);
        assert_eq!(fields["gender"].text, "أنثى");
        assert!(fields["gender"].confidence < 0.5);
        assert_eq!(fields["religion"].text, "مسلمة");
        // A clear gender word is not outvoted by one word of the other form.
        let mut r = hypotheses("gender", &[("ذكر", 0.9)]);
        r.extend(hypotheses("religion", &[("مسلمة", 0.6)]));
        assert_eq!(check(&r)["gender"].text, "ذكر");
    }

    #[test]
    fn a_status_line_not_found_takes_its_gender_from_a_valid_number() {
        let r = readings(&[("national_id", "30312240201859"), ("religion", "مسلمة")]);
        let fields = check(&r);
        assert_eq!(fields["gender"].text, "ذكر");
        assert!(fields["gender"].confidence < fields["national_id"].confidence);
        assert_eq!(fields["religion"].text, "مسلم");
        // An invalid number tells nothing.
        let fields = check(&readings(&[("national_id", "30312240201858")]));
        assert!(!fields.contains_key("gender"));
    }

    #[test]
    fn an_issue_line_not_found_or_unreadable_is_the_expirys_month_seven_years_before() {
        for issue in [None, Some("٢٠/١")] {
            let mut lines = vec![("expiry_date", "٢٠٣١/٠٨/١٢")];
            lines.extend(issue.map(|text| ("issue_date", text)));
            let fields = check(&readings(&lines));
            assert_eq!(fields["issue_date"].text, "٢٠٢٤/٠٨");
            assert!(fields["issue_date"].confidence < fields["expiry_date"].confidence);
        }
        // An expiry that is no date tells nothing.
        let fields = check(&readings(&[("expiry_date", "٢٠٣١/٠٢/٣٠")]));
        assert!(!fields.contains_key("issue_date"));
    }

    #[test]
    fn flags_an_expiry_that_is_not_a_date() {
        let r = readings(&[("issue_date", "٢٠٢٤/٠٨"), ("expiry_date", "٢٠٣١/٠٢/٣٠")]);
        let fields = check(&r);
        assert!(fields["expiry_date"].confidence < 0.5);
    }
}
