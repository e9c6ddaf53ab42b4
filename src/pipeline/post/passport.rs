//! Passport data page. The machine-readable zone carries check digits, so a valid
//! second MRZ line confirms (or corrects) the number, birth date, sex and expiry
//! printed in the visual zone, and the personal number confirms the national ID.

use chrono::NaiveDate;

use super::nid::{self, Digits, Expect};
use super::text::{self, DateForm};
use super::{
    Candidate, Checked, CheckedFields, RIVAL_MARGIN, Readings, clearly_likeliest,
    passing_with_rivals,
};
use crate::domain::date::PrintedDate;
use crate::domain::edit;
use crate::domain::mrz::{TD3_LINE_LEN, Td3, td3_line2_is_valid};
use crate::domain::{Gender, NationalId};

/// What a valid second MRZ line states.
struct MrzFacts {
    number: String,
    birth: Option<NaiveDate>,
    sex: Option<Gender>,
    expiry: Option<NaiveDate>,
    personal: String,
}

fn mrz_date(yymmdd: &str, future: bool) -> Option<NaiveDate> {
    use chrono::Datelike;
    let n = |r: std::ops::Range<usize>| yymmdd.get(r)?.parse::<u32>().ok();
    let (yy, mm, dd) = (n(0..2)? as i32, n(2..4)?, n(4..6)?);
    // Expiry dates lie ahead; a birth year that would be in the future is last century's.
    let this_year = chrono::Utc::now().year();
    let year = if future || 2000 + yy <= this_year {
        2000 + yy
    } else {
        1900 + yy
    };
    NaiveDate::from_ymd_opt(year, mm, dd)
}

fn facts(line: &str) -> MrzFacts {
    MrzFacts {
        number: line[0..9].trim_end_matches('<').to_owned(),
        birth: mrz_date(&line[13..19], false),
        sex: gender_of(&line[20..21]),
        expiry: mrz_date(&line[21..27], true),
        personal: line[28..42].trim_end_matches('<').to_owned(),
    }
}

/// An MRZ line as the recognizer may return it: spaces for fillers, lower case.
fn mrz_text(text: &str) -> String {
    text.chars()
        .filter_map(|c| match c {
            ' ' => Some('<'),
            c if c.is_ascii_alphanumeric() || c == '<' => Some(c.to_ascii_uppercase()),
            _ => None,
        })
        .collect()
}

fn mrz_line(
    readings: &Readings,
    key: &str,
    valid: impl Fn(&str) -> bool,
) -> Option<(Checked, bool)> {
    let reading = readings.get(key)?;
    let candidates: &[Candidate] = &reading.candidates;
    let best = candidates.first()?;
    // A valid line is near certain: line 2 carries four check digits.
    let validated = |line: String, confidence: f32| {
        Some((Checked::new(line, 1.0 - (1.0 - confidence) * 0.3), true))
    };
    for candidate in reading.all_candidates() {
        let line = mrz_text(&candidate.text);
        if valid(&line) {
            return validated(
                line,
                reading.reported(&candidate.text, candidate.confidence),
            );
        }
    }
    // No hypothesis is valid, so only those one rival away can be.
    let found = passing_with_rivals(candidates, |text| {
        Some(mrz_text(text)).filter(|line| valid(line))
    });
    if let Some((line, worth)) = clearly_likeliest(found, RIVAL_MARGIN) {
        return validated(line, worth);
    }
    Some((
        Checked::new(mrz_text(&best.text), best.confidence * text::FAILED_RULE),
        false,
    ))
}

pub fn check(readings: &Readings) -> CheckedFields {
    let mut fields = CheckedFields::new();
    let line2 = mrz_line(readings, "mrz_line2", td3_line2_is_valid);
    let mrz = line2
        .as_ref()
        .filter(|(_, valid)| *valid)
        .map(|(c, _)| facts(&c.text));
    let line1 = mrz_line(readings, "mrz_line1", |l| {
        l.len() == TD3_LINE_LEN && l.starts_with('P')
    });
    for (key, line) in [("mrz_line1", line1), ("mrz_line2", line2)] {
        if let Some((checked, _)) = line {
            fields.insert(key.to_owned(), checked);
        }
    }
    let mut put = |key: &str, value: Option<Checked>| {
        if let Some(checked) = value {
            fields.insert(key.to_owned(), checked);
        }
    };
    put("name_ar", text::name(readings, "name_ar"));
    for key in [
        "nationality_ar",
        "birth_place_ar",
        "issuing_office",
        "profession",
    ] {
        put(key, text::plain(readings, key));
    }
    for key in ["name_en", "nationality_en", "birth_place_en"] {
        put(key, text::latin(readings, key, is_upper_latin));
    }
    put(
        "passport_type",
        text::latin(readings, "passport_type", |t| t == "P"),
    );
    put(
        "country_code",
        text::latin(readings, "country_code", |t| t == "EGY"),
    );
    let number = match &mrz {
        Some(m) => text::latin(readings, "passport_number", |t| t == m.number)
            .filter(|c| c.confidence > 0.5)
            .or_else(|| Some(Checked::new(m.number.clone(), 0.9))),
        None => text::latin(readings, "passport_number", passport_number_is_well_formed),
    };
    put("passport_number", number);
    let sex = text::latin(readings, "sex", |t| {
        matches!(t, "M" | "F")
            && mrz
                .as_ref()
                .and_then(|m| m.sex)
                .is_none_or(|g| (t == "M") == (g == Gender::Male))
    });
    put("sex", sex);
    let agrees = |expected: Option<NaiveDate>| {
        move |d: PrintedDate| expected.is_none_or(|e| d == PrintedDate::Day(e))
    };
    let birth = mrz.as_ref().and_then(|m| m.birth);
    let expiry = mrz.as_ref().and_then(|m| m.expiry);
    let (birth_read, birth_date) =
        text::date(readings, "birth_date", DateForm::AsciiDmy, agrees(birth)).unzip();
    put("birth_date", birth_read);
    let (expiry_read, expiry_date) =
        text::date(readings, "expiry_date", DateForm::AsciiDmy, agrees(expiry)).unzip();
    put("expiry_date", expiry_read);
    put(
        "issue_date",
        text::date(readings, "issue_date", DateForm::AsciiDmy, |_| true).map(|(c, _)| c),
    );
    let expect = Expect {
        birth,
        gender: mrz.as_ref().and_then(|m| m.sex),
    };
    let (id, parsed_id) = nid::national_id(readings, "national_id", Digits::Ascii, expect)
        .map(|(mut checked, parsed)| {
            if mrz
                .as_ref()
                .is_some_and(|m| parsed.is_some_and(|p| p.ascii() == m.personal))
            {
                checked.confidence = 1.0 - (1.0 - checked.confidence) * 0.3;
            }
            (checked, parsed)
        })
        .unzip();
    put("national_id", id);
    if let Some((line1, name)) = agreeing_names(readings) {
        fields.insert("mrz_line1".to_owned(), line1);
        fields.insert("name_en".to_owned(), name);
    }
    if mrz.is_none() {
        let zone = VisualZone {
            birth: birth_date.flatten(),
            expiry: expiry_date.flatten(),
            id: parsed_id.flatten(),
        };
        if let Some(line) = zone.line2(&fields, readings) {
            fields.insert("mrz_line2".to_owned(), line);
        }
    }
    fields
}

/// What the visual zone states that the second MRZ line repeats, as validated.
struct VisualZone {
    birth: Option<PrintedDate>,
    expiry: Option<PrintedDate>,
    id: Option<NationalId>,
}

/// How far (in edits) the best reading of a second MRZ line may be from the line
/// the visual zone rebuilds: misread characters of a printed line, not another
/// passport's.
const REBUILT_LINE_REACH: usize = TD3_LINE_LEN / 4;

impl VisualZone {
    /// The second MRZ line rebuilt from the visual zone, when none of its
    /// readings is valid and the zone agrees with itself: the national ID (valid)
    /// names the printed birth date and sex, the number is well formed, the expiry
    /// is a day. A long line skewed by a slightly wrong outline is misread in a
    /// few digits that break its check digits; the visual zone's short fields
    /// survive.
    fn line2(&self, fields: &CheckedFields, readings: &Readings) -> Option<Checked> {
        let read = mrz_text(&readings.get("mrz_line2")?.candidates.first()?.text);
        let id = self.id.as_ref()?;
        let (Some(PrintedDate::Day(birth)), Some(PrintedDate::Day(expiry))) =
            (self.birth, self.expiry)
        else {
            return None;
        };
        let number = fields.get("passport_number")?;
        let sex = fields.get("sex")?;
        let gender = gender_of(&sex.text)?;
        if !passport_number_is_well_formed(&number.text)
            || id.birth_date() != birth
            || id.gender() != gender
        {
            return None;
        }
        let line = Td3 {
            number: number.text.clone(),
            nationality: "EGY".into(),
            birth_date: birth,
            sex: if gender == Gender::Male { 'M' } else { 'F' },
            expiry_date: expiry,
            personal_number: id.ascii(),
            ..td3_frame("EGY")
        }
        .line2();
        if edit::distance(&line, &read) > REBUILT_LINE_REACH {
            return None;
        }
        let confidence = [
            "passport_number",
            "sex",
            "birth_date",
            "expiry_date",
            "national_id",
        ]
        .iter()
        .filter_map(|key| fields.get(*key))
        .map(|c| c.confidence)
        .fold(1.0, f32::min);
        Some(Checked::new(line, confidence))
    }
}

/// Latin capitals, as the visual zone prints names and places.
fn is_upper_latin(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_uppercase() || c == ' ' || c == '-' || c == '\'')
}

/// The first MRZ line and the Latin name, both confirmed, when their best readings
/// disagree but another pair of their hypotheses agrees: the line encodes the name
/// (surname, its last words, first). The most likely agreeing pair wins.
fn agreeing_names(readings: &Readings) -> Option<(Checked, Checked)> {
    // A hypothesis's text, normalised, and its confidence.
    type Hypothesis = (String, f32);
    let lines: Vec<Hypothesis> = readings
        .get("mrz_line1")?
        .candidates
        .iter()
        .map(|c| (mrz_text(&c.text), c.confidence))
        .filter(|(line, _)| line.len() == TD3_LINE_LEN && line.starts_with("P<"))
        .collect();
    let names: Vec<Hypothesis> = readings
        .get("name_en")?
        .candidates
        .iter()
        .map(|c| {
            (
                c.text.split_whitespace().collect::<Vec<_>>().join(" "),
                c.confidence,
            )
        })
        .filter(|(name, _)| is_upper_latin(name))
        .collect();
    let agree = |line: &str, name: &str| {
        let words: Vec<&str> = name.split(' ').collect();
        (1..words.len()).any(|k| {
            let (given, surname) = words.split_at(words.len() - k);
            Td3 {
                surname: surname.join(" "),
                given_names: given.join(" "),
                ..td3_frame(&line[2..5])
            }
            .line1()
                == line
        })
    };
    if let (Some((line, _)), Some((name, _))) = (lines.first(), names.first())
        && agree(line, name)
    {
        return None;
    }
    let mut pairs: Vec<(&Hypothesis, &Hypothesis)> = lines
        .iter()
        .flat_map(|l| names.iter().map(move |n| (l, n)))
        .filter(|((line, _), (name, _))| agree(line, name))
        .collect();
    pairs.sort_by(|a, b| (b.0.1 * b.1.1).total_cmp(&(a.0.1 * a.1.1)));
    let ((line, line_confidence), (name, name_confidence)) = pairs.first()?;
    let confirmed = |c: &f32| 1.0 - (1.0 - c) * 0.3;
    Some((
        Checked::new(line.clone(), confirmed(line_confidence)),
        Checked::new(name.clone(), confirmed(name_confidence)),
    ))
}

/// A TD3 zone of a passport issued by `state`, every other field blank: what a
/// line is rebuilt on.
fn td3_frame(state: &str) -> Td3 {
    Td3 {
        document_code: "P".into(),
        issuing_state: state.into(),
        surname: String::new(),
        given_names: String::new(),
        number: String::new(),
        nationality: String::new(),
        birth_date: NaiveDate::MIN,
        sex: '<',
        expiry_date: NaiveDate::MIN,
        personal_number: String::new(),
    }
}

/// The sex field's letter as a gender.
fn gender_of(letter: &str) -> Option<Gender> {
    match letter {
        "M" => Some(Gender::Male),
        "F" => Some(Gender::Female),
        _ => None,
    }
}

/// A passport number as Egypt prints it: a capital letter, then eight digits.
fn passport_number_is_well_formed(text: &str) -> bool {
    text.len() == 9
        && text.starts_with(|c: char| c.is_ascii_uppercase())
        && text[1..].chars().all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::post::LineReading;
    use crate::pipeline::post::test_support::hypotheses;
    use crate::pipeline::post::test_support::{reading, with_rivals};

    /// The passport the tests read: its visual zone as `visual_zone` prints it.
    fn specimen() -> Td3 {
        Td3 {
            document_code: "P".into(),
            issuing_state: "EGY".into(),
            surname: "El Sayed".into(),
            given_names: "Mohamed".into(),
            number: "A12345678".into(),
            nationality: "EGY".into(),
            birth_date: NaiveDate::from_ymd_opt(2003, 12, 24).unwrap(),
            sex: 'M',
            expiry_date: NaiveDate::from_ymd_opt(2031, 1, 2).unwrap(),
            personal_number: "30312240201859".into(),
        }
    }

    #[test]
    fn the_mrz_confirms_the_visual_zone() {
        let [l1, l2] = specimen().lines();
        let mut r: Readings = [
            ("mrz_line1", l1.as_str()),
            ("passport_number", "A12345G78"),
            ("birth_date", "24/12/2003"),
            ("expiry_date", "02/01/2031"),
            ("national_id", "30312240201859"),
            ("sex", "M"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), LineReading::single(*v, 0.9)))
        .collect();
        // The best MRZ reading has a wrong check digit; the alternative is valid.
        let broken = format!("{}7{}", &l2[..9], &l2[10..]);
        r.insert(
            "mrz_line2".into(),
            LineReading::new(vec![
                Candidate::new(broken, 0.8),
                Candidate::new(l2.replace('<', " "), 0.1),
            ]),
        );
        let fields = check(&r);
        assert_eq!(fields["mrz_line2"].text, l2);
        assert_eq!(fields["passport_number"].text, "A12345678");
        assert_eq!(fields["birth_date"].text, "24/12/2003");
        assert!(fields["national_id"].confidence > 0.95);
        assert_eq!(fields["sex"].text, "M");
    }

    #[test]
    fn a_valid_second_line_from_a_second_look_is_taken() {
        let [_, l2] = specimen().lines();
        let broken = format!("{}7{}", &l2[..9], &l2[10..]);
        let mut reading = LineReading::single(broken.clone(), 0.6);
        let r = Readings::from([("mrz_line2".to_owned(), reading.clone())]);
        assert_eq!(check(&r)["mrz_line2"].text, broken);
        reading.second_look = vec![Candidate::new(l2.clone(), 0.5)];
        let r = Readings::from([("mrz_line2".to_owned(), reading)]);
        assert_eq!(check(&r)["mrz_line2"].text, l2);
    }

    #[test]
    fn a_second_mrz_line_one_character_off_takes_the_rival_that_validates_it() {
        let [_, l2] = specimen().lines();
        // The number's first digit misread (A92345678): its check digit fails. Of
        // the rivals, 1 there validates the line; 7 at the birth date does not.
        let misread = format!("{}9{}", &l2[..1], &l2[2..]);
        let read = |rivals: &[(usize, char, f32)]| -> Readings {
            reading("mrz_line2", vec![with_rivals(&misread, 0.8, rivals)])
        };
        let fields = check(&read(&[(1, '1', 0.3), (13, '7', 0.5)]));
        assert_eq!(fields["mrz_line2"].text, l2);
        assert_eq!(fields["passport_number"].text, "A12345678");
        // Without the rival the line stays as read, flagged.
        let fields = check(&read(&[(13, '7', 0.5)]));
        assert_eq!(fields["mrz_line2"].text, misread);
        assert!(fields["mrz_line2"].confidence < 0.5);
    }

    fn visual_zone(l2_read: &str, birth: &str) -> Readings {
        [
            ("mrz_line2", l2_read),
            ("passport_number", "A12345678"),
            ("birth_date", birth),
            ("expiry_date", "02/01/2031"),
            ("national_id", "30312240201859"),
            ("sex", "M"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), LineReading::single(*v, 0.9)))
        .collect()
    }

    #[test]
    fn a_misread_second_mrz_line_is_rebuilt_from_an_agreeing_visual_zone() {
        let l2 = specimen().line2();
        // Four digits misread, as on a skewed long line: no check digit holds.
        let misread: String = l2
            .char_indices()
            .map(|(i, c)| match (i, c) {
                (14 | 22 | 30 | 38, '0'..='9') => {
                    if c == '8' {
                        '3'
                    } else {
                        '8'
                    }
                }
                _ => c,
            })
            .collect();
        assert!(!td3_line2_is_valid(&misread));
        let fields = check(&visual_zone(&misread, "24/12/2003"));
        assert_eq!(fields["mrz_line2"].text, l2);
        assert!(fields["mrz_line2"].confidence > 0.8);
    }

    #[test]
    fn a_visual_zone_at_odds_with_itself_rebuilds_nothing() {
        let l2 = specimen().line2();
        let misread = format!("{}7{}", &l2[..9], &l2[10..]);
        // The birth date read is not the national ID's.
        let fields = check(&visual_zone(&misread, "25/12/2003"));
        assert_eq!(fields["mrz_line2"].text, misread);
        assert!(fields["mrz_line2"].confidence < 0.5);
        // Nor is a reading of another line entirely.
        let fields = check(&visual_zone(&"A9".repeat(22), "24/12/2003"));
        assert_ne!(fields["mrz_line2"].text, l2);
    }

    #[test]
    fn the_first_mrz_line_and_the_latin_name_choose_each_other() {
        let line = |names: &str| format!("{:<<44}", format!("P<EGY{names}"));
        let mut readings = hypotheses(
            "mrz_line1",
            &[
                (&line("MOHSEN<<SALEH<YAGOUB"), 0.6),
                (&line("MOHSEN<<SALEH<YACOUB"), 0.3),
            ],
        );
        readings.extend(hypotheses(
            "name_en",
            &[("SALEH YACOUB MOHSEN", 0.7), ("SALEH YACOUB MOHSEM", 0.2)],
        ));
        let fields = check(&readings);
        assert_eq!(fields["mrz_line1"].text, line("MOHSEN<<SALEH<YACOUB"));
        assert_eq!(fields["name_en"].text, "SALEH YACOUB MOHSEN");
        // With no agreeing pair, each keeps its best reading.
        readings.insert(
            "name_en".into(),
            LineReading::single("SALEH YAKOUB MOHSEN", 0.9),
        );
        let fields = check(&readings);
        assert_eq!(fields["mrz_line1"].text, line("MOHSEN<<SALEH<YAGOUB"));
        assert_eq!(fields["name_en"].text, "SALEH YAKOUB MOHSEN");
    }
}
