//! Choosing the national-ID number among the recognizer's hypotheses.
//!
//! A reading is accepted only when it passes every structural rule and the check
//! digit ([`NationalId::parse`]). Among valid readings, one that agrees with what
//! else the card prints (birth date, gender) is preferred, then any valid one. When
//! no hypothesis is valid, a valid, agreeing reading of a second look (variants of
//! the crop, `pipeline::second_look`); then the hypotheses vote digit by digit for a
//! valid number ([`consensus`]); failing that, a hypothesis with one digit replaced
//! by the recognizer's runner-up there, when one such number is valid, agrees and is
//! clearly the likeliest ([`rival_substitution`]).

use chrono::NaiveDate;

use super::text::FAILED_RULE;
use super::{Candidate, Checked, RIVAL_MARGIN, Readings, clearly_likeliest, passing_with_rivals};
use crate::domain::digits::to_ascii_digits;
use crate::domain::{Gender, NationalId};

/// What the rest of the card says about the holder.
#[derive(Debug, Clone, Copy, Default)]
pub struct Expect {
    pub birth: Option<NaiveDate>,
    pub gender: Option<Gender>,
}

impl Expect {
    fn agrees(&self, id: &NationalId) -> bool {
        self.birth.is_none_or(|b| b == id.birth_date())
            && self.gender.is_none_or(|g| g == id.gender())
    }
}

/// How the number is printed on the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Digits {
    ArabicIndic,
    Ascii,
}

fn print(id: &NationalId, digits: Digits) -> String {
    match digits {
        Digits::ArabicIndic => id.arabic_indic(),
        Digits::Ascii => id.ascii(),
    }
}

/// A valid reading is more certain than the recognizer alone says: a random
/// misreading passes the rules about one time in a hundred.
fn validated(confidence: f32, id: &NationalId) -> f32 {
    let boosted = 1.0 - (1.0 - confidence) * 0.5;
    if id.check_digit_is_ambiguous() {
        boosted * 0.95
    } else {
        boosted
    }
}

/// The national ID of field `key`, and the parsed number when one is valid.
pub fn national_id(
    readings: &Readings,
    key: &str,
    digits: Digits,
    expect: Expect,
) -> Option<(Checked, Option<NationalId>)> {
    let reading = readings.get(key)?;
    let candidates = &reading.candidates;
    let best = candidates.first()?;
    let ascii = |text: &str| -> String {
        to_ascii_digits(text)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect()
    };
    let valid = |candidate: &Candidate| {
        let id = NationalId::parse(&ascii(&candidate.text)).ok()?;
        Some((id, candidate.confidence))
    };
    let agreeing = |(id, confidence): (NationalId, f32)| {
        expect.agrees(&id).then(|| {
            (
                Checked::new(print(&id, digits), validated(confidence, &id)),
                Some(id),
            )
        })
    };
    let mut disagreeing: Option<(NationalId, f32)> = None;
    for (id, confidence) in candidates.iter().filter_map(valid) {
        if let Some(chosen) = agreeing((id, confidence)) {
            return Some(chosen);
        }
        disagreeing.get_or_insert((id, confidence));
    }
    if let Some((id, confidence)) = disagreeing {
        // Valid but at odds with another printed field: one of the two was misread.
        // Not repaired to agree: the dates' digits are misread along the same
        // confusions, and a number read valid as printed was right more often.
        return Some((Checked::new(print(&id, digits), confidence * 0.6), Some(id)));
    }
    // A second look's readings count only when valid and agreeing: among a dozen
    // more hypotheses, a valid number at odds with the card turns up by chance.
    if let Some(chosen) = reading
        .second_look
        .iter()
        .filter_map(|c| {
            valid(c).map(|(id, confidence)| (id, reading.reported(&c.text, confidence)))
        })
        .find_map(agreeing)
    {
        return Some(chosen);
    }
    let digit_strings: Vec<(Vec<u8>, f32)> = candidates
        .iter()
        .filter_map(|c| Some((fourteen_digits(&ascii(&c.text))?, c.confidence)))
        .collect();
    if let Some((id, confidence)) = consensus(&digit_strings, expect) {
        return Some((Checked::new(print(&id, digits), confidence * 0.7), Some(id)));
    }
    if let Some((id, confidence)) = rival_substitution(candidates, expect) {
        return Some((Checked::new(print(&id, digits), confidence * 0.7), Some(id)));
    }
    // Fourteen digits failing the check are kept, doubtful (the check digit's rule
    // is not published); anything else is no national ID.
    let read = ascii(&best.text);
    let confidence = best.confidence * FAILED_RULE;
    let checked = match (fourteen_digits(&read), digits) {
        (None, _) => Checked::unreadable(confidence, "٠"),
        (Some(_), Digits::ArabicIndic) => {
            Checked::new(crate::domain::digits::to_arabic_indic(&read), confidence)
        }
        (Some(_), Digits::Ascii) => Checked::new(read, confidence),
    };
    Some((checked, None))
}

/// The digits of a 14-digit ASCII reading.
fn fourteen_digits(text: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = text.bytes().map(|b| b.wrapping_sub(b'0')).collect();
    (digits.len() == 14 && digits.iter().all(|&d| d <= 9)).then_some(digits)
}

/// At most this many combinations are tried (12 positions with two readings).
const MAX_COMBINATIONS: usize = 4096;

/// The valid, agreeing number the hypotheses vote for digit by digit: each
/// position takes a digit some hypothesis reads there, for the summed confidence of
/// the hypotheses reading it. The valid combination with the most votes wins when
/// no other valid one has as many; the confidence is the best hypothesis's. Misread
/// digits of one hypothesis are often read right by another.
fn consensus(hypotheses: &[(Vec<u8>, f32)], expect: Expect) -> Option<(NationalId, f32)> {
    let (_, confidence) = hypotheses.first()?;
    // Per position, each digit read there and its votes.
    let options: Vec<Vec<(u8, f32)>> = (0..14)
        .map(|position| {
            let mut votes: Vec<(u8, f32)> = Vec::new();
            for (digits, confidence) in hypotheses {
                match votes.iter_mut().find(|(d, _)| *d == digits[position]) {
                    Some((_, v)) => *v += confidence,
                    None => votes.push((digits[position], *confidence)),
                }
            }
            votes
        })
        .collect();
    let combinations = options
        .iter()
        .try_fold(1usize, |n, o| n.checked_mul(o.len()))
        .filter(|&n| n > 1 && n <= MAX_COMBINATIONS)?;
    let mut best: Option<(NationalId, f32)> = None;
    let mut tied = false;
    for mut index in 0..combinations {
        let mut text = String::with_capacity(14);
        let mut votes = 0.0;
        for position_options in &options {
            let (digit, v) = position_options[index % position_options.len()];
            index /= position_options.len();
            text.push(char::from(b'0' + digit));
            votes += v;
        }
        let Ok(id) = NationalId::parse(&text) else {
            continue;
        };
        if !expect.agrees(&id) {
            continue;
        }
        match &best {
            Some((_, top)) if votes < *top => {}
            Some((_, top)) if votes == *top => tied = true,
            _ => {
                best = Some((id, votes));
                tied = false;
            }
        }
    }
    let (id, _) = best.filter(|_| !tied)?;
    Some((id, *confidence))
}

/// The valid, agreeing number one runner-up digit away from a hypothesis
/// ([`Candidate::one_rival_away`]; the hypotheses themselves are all invalid by now),
/// when it is clearly the likeliest such number, with its worth as confidence.
fn rival_substitution(candidates: &[Candidate], expect: Expect) -> Option<(NationalId, f32)> {
    let found = passing_with_rivals(candidates, |text| {
        NationalId::parse(text).ok().filter(|id| expect.agrees(id))
    });
    clearly_likeliest(found, RIVAL_MARGIN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::post::test_support::{reading, with_rivals};

    fn readings(texts: &[(&str, f32)]) -> Readings {
        crate::pipeline::post::test_support::hypotheses("national_id", texts)
    }

    const VALID: &str = "30312240201859";

    #[test]
    fn accepts_a_valid_reading_in_either_script() {
        let r = readings(&[("٣٠٣١٢٢٤٠٢٠١٨٥٩", 0.8)]);
        let (checked, id) =
            national_id(&r, "national_id", Digits::ArabicIndic, Expect::default()).unwrap();
        assert_eq!(checked.text, "٣٠٣١٢٢٤٠٢٠١٨٥٩");
        assert_eq!(id.unwrap().ascii(), VALID);
        assert!(checked.confidence > 0.8);
        let (checked, _) =
            national_id(&r, "national_id", Digits::Ascii, Expect::default()).unwrap();
        assert_eq!(checked.text, VALID);
    }

    #[test]
    fn prefers_an_alternative_that_passes_the_check_digit() {
        // Best reading has a wrong check digit; the second hypothesis is valid.
        let r = readings(&[("30312240201858", 0.7), (VALID, 0.2)]);
        let (checked, id) =
            national_id(&r, "national_id", Digits::Ascii, Expect::default()).unwrap();
        assert_eq!(checked.text, VALID);
        assert!(id.is_some());
    }

    #[test]
    fn prefers_the_reading_that_agrees_with_the_printed_birth_date() {
        let other = NationalId::compose(
            NaiveDate::from_ymd_opt(1990, 1, 1).unwrap(),
            crate::domain::Governorate::from_code(1).unwrap(),
            1235,
        )
        .unwrap();
        let r = readings(&[(&other.ascii(), 0.9), (VALID, 0.3)]);
        let expect = Expect {
            birth: NaiveDate::from_ymd_opt(2003, 12, 24),
            gender: None,
        };
        let (checked, _) = national_id(&r, "national_id", Digits::Ascii, expect).unwrap();
        assert_eq!(checked.text, VALID);
    }

    /// `own` read from the crop, `second_look` from its variants.
    fn looked_twice(own: &str, second_look: &[&str]) -> Readings {
        let mut r = readings(&[(own, 0.4)]);
        let reading = r.get_mut("national_id").unwrap();
        reading.second_look = second_look
            .iter()
            .map(|t| Candidate::new(*t, 0.3))
            .collect();
        r
    }

    #[test]
    fn takes_a_second_look_reading_that_is_valid_and_agrees() {
        let r = looked_twice("30312240201858", &["30312240201838", VALID]);
        let expect = Expect {
            birth: NaiveDate::from_ymd_opt(2003, 12, 24),
            gender: None,
        };
        let (checked, id) = national_id(&r, "national_id", Digits::Ascii, expect).unwrap();
        assert_eq!(checked.text, VALID);
        assert!(id.is_some());
    }

    #[test]
    fn a_second_look_reading_at_odds_with_the_card_is_not_taken() {
        let r = looked_twice("30312240201858", &[VALID]);
        let expect = Expect {
            birth: NaiveDate::from_ymd_opt(1990, 1, 1),
            gender: None,
        };
        let (checked, id) = national_id(&r, "national_id", Digits::Ascii, expect).unwrap();
        assert_eq!(
            checked.text, "30312240201858",
            "the crop's own reading, flagged"
        );
        assert!(id.is_none());
    }

    #[test]
    fn the_crops_own_valid_reading_beats_a_second_look_that_agrees() {
        // The printed birth date misread as 1990-01-01, and a variant's reading
        // that validates and agrees with it: the number read valid as printed wins.
        let born = NaiveDate::from_ymd_opt(1990, 1, 1).unwrap();
        let governorate = crate::domain::Governorate::from_code(1).unwrap();
        let agreeing = NationalId::compose(born, governorate, 1235).unwrap();
        let r = looked_twice(VALID, &[&agreeing.ascii()]);
        let expect = Expect {
            birth: Some(born),
            gender: None,
        };
        let (checked, _) = national_id(&r, "national_id", Digits::Ascii, expect).unwrap();
        assert_eq!(checked.text, VALID);
    }

    #[test]
    fn takes_the_runner_up_digit_that_makes_the_number_valid() {
        // ٥ read as ٠ at position 12 (3031224020180 9); the decoder's runner-ups there
        // are ٥, which makes it valid, and ٨, which does not; a rival ٧ for the
        // century breaks the rules.
        let read = "٣٠٣١٢٢٤٠٢٠١٨٠٩";
        assert!(NationalId::parse(read).is_err());
        let r = reading(
            "national_id",
            vec![with_rivals(
                read,
                0.9,
                &[(12, '٥', 0.3), (12, '٨', 0.2), (0, '٧', 0.5)],
            )],
        );
        let (checked, id) =
            national_id(&r, "national_id", Digits::ArabicIndic, Expect::default()).unwrap();
        assert_eq!(id.unwrap().ascii(), VALID);
        assert_eq!(checked.text, "٣٠٣١٢٢٤٠٢٠١٨٥٩");
        assert!(checked.confidence < 0.9 * 0.3, "{checked:?}");
        // A rival at odds with the printed birth date is not taken.
        let expect = Expect {
            birth: NaiveDate::from_ymd_opt(2003, 12, 25),
            gender: None,
        };
        let (_, id) = national_id(&r, "national_id", Digits::ArabicIndic, expect).unwrap();
        assert!(id.is_none());
    }

    #[test]
    fn leaves_a_number_two_rivals_make_valid_about_as_likely() {
        // Position 12 as 5 (valid) or the check digit as 8 (valid too), weighed
        // about alike: neither is taken.
        let read = "30312240201809";
        assert!(NationalId::parse("30312240201808").is_ok());
        let r = reading(
            "national_id",
            vec![with_rivals(read, 0.9, &[(12, '5', 0.30), (13, '8', 0.28)])],
        );
        let (checked, id) =
            national_id(&r, "national_id", Digits::Ascii, Expect::default()).unwrap();
        assert!(id.is_none(), "{checked:?}");
        // Clearly ahead, the likelier one is taken.
        let r = reading(
            "national_id",
            vec![with_rivals(read, 0.9, &[(12, '5', 0.30), (13, '8', 0.1)])],
        );
        let (_, id) = national_id(&r, "national_id", Digits::Ascii, Expect::default()).unwrap();
        assert_eq!(id.unwrap().ascii(), VALID);
    }

    #[test]
    fn takes_the_valid_number_the_hypotheses_vote_for_digit_by_digit() {
        // Each hypothesis misreads one digit the other reads right: month 72, and a
        // sequence digit that breaks the check digit.
        let (month_wrong, sequence_wrong) = ("30372240201859", "30312240204859");
        for text in [month_wrong, sequence_wrong] {
            assert!(NationalId::parse(text).is_err(), "{text}");
        }
        let r = readings(&[(month_wrong, 0.5), (sequence_wrong, 0.4)]);
        let (checked, id) =
            national_id(&r, "national_id", Digits::Ascii, Expect::default()).unwrap();
        assert_eq!(checked.text, VALID);
        assert_eq!(id.unwrap().ascii(), VALID);
        assert!(checked.confidence <= 0.5 * 0.7, "{checked:?}");
        // One hypothesis alone has nothing to vote with.
        let r = readings(&[(sequence_wrong, 0.9)]);
        let (_, id) = national_id(&r, "national_id", Digits::Ascii, Expect::default()).unwrap();
        assert!(id.is_none());
    }

    #[test]
    fn keeps_a_valid_reading_over_a_repair_that_agrees_with_a_misread_date() {
        // Born 2003-12-10; the printed date misread as the 15th (٠ for ٥). Turning
        // the number's ٠ into ٥ also passes the check digit (sum 0 and 10 mod 11
        // share it), but the number as read is valid and is kept.
        let read = "30312100110021";
        assert!(NationalId::parse("30312150110021").is_ok());
        let r = readings(&[(read, 0.9)]);
        let expect = Expect {
            birth: NaiveDate::from_ymd_opt(2003, 12, 15),
            gender: None,
        };
        let (checked, id) = national_id(&r, "national_id", Digits::Ascii, expect).unwrap();
        assert_eq!(checked.text, read);
        assert_eq!(id.unwrap().ascii(), read);
        assert!(checked.confidence < 0.9 * 0.7, "{checked:?}");
    }

    #[test]
    fn flags_an_invalid_reading() {
        // Not fourteen digits: no national ID at all, answered empty.
        let r = readings(&[("1234", 0.95)]);
        let (checked, id) =
            national_id(&r, "national_id", Digits::ArabicIndic, Expect::default()).unwrap();
        assert!(id.is_none());
        assert_eq!(checked.text, "");
        assert!(checked.stand_in.is_some());
        assert!(checked.confidence < 0.5);
        // Impossible birth date (month 13), unknown governorate 05, both flagged.
        for bad in ["30313240201859", "30312240501859"] {
            let r = readings(&[(bad, 0.95)]);
            let (checked, id) =
                national_id(&r, "national_id", Digits::Ascii, Expect::default()).unwrap();
            assert!(
                id.is_none() || checked.confidence < 0.7,
                "{bad}: {checked:?}"
            );
        }
    }
}
