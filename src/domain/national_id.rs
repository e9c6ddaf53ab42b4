//! The 14-digit Egyptian national-ID number: `C YYMMDD GG SSSG K`.
//!
//! Structure rules and the check digit follow docs/domain.md §2. The check digit
//! has never been published; we use "variant A" (mod 11 with weights 2,7,6,5,4,3,2,...
//! and `k = (11 - r) mod 10`), the one two independent sources verified on real cards.

use std::fmt;

use chrono::{Datelike, NaiveDate};

use super::digits::{digit_value, to_arabic_indic};
use super::governorate::Governorate;

/// Weights applied to digits 1..=13, left to right.
const CHECK_WEIGHTS: [u32; 13] = [2, 7, 6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Gender {
    Male,
    Female,
}

impl Gender {
    /// As printed on the card and returned in Flow A.
    pub fn arabic(self) -> &'static str {
        match self {
            Gender::Male => "ذكر",
            Gender::Female => "أنثى",
        }
    }

    /// As returned in Flow B.
    pub fn english(self) -> &'static str {
        match self {
            Gender::Male => "Male",
            Gender::Female => "Female",
        }
    }
}

/// Why a 14-character string is not a valid national-ID number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NationalIdError {
    #[error("expected 14 digits, found {0} characters")]
    Length(usize),
    #[error("character {0:?} is not a digit")]
    NotADigit(char),
    #[error("century digit {0} is neither 2 (1900s) nor 3 (2000s)")]
    Century(u32),
    #[error("digits 2 to 7 ({0}) are not a real calendar date")]
    BirthDate(String),
    #[error("governorate code {0:02} does not exist")]
    Governorate(u8),
    #[error("sequence digits 10 to 12 are 000")]
    Sequence,
    #[error("check digit is {found}, expected {expected}")]
    CheckDigit { found: u32, expected: u32 },
}

/// A national-ID number that passed every structural rule and the check digit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NationalId {
    digits: [u8; 14],
}

impl NationalId {
    /// Parses ASCII, Arabic-Indic or Persian digits; spaces are ignored.
    pub fn parse(text: &str) -> Result<NationalId, NationalIdError> {
        let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
        if chars.len() != 14 {
            return Err(NationalIdError::Length(chars.len()));
        }
        let mut digits = [0u8; 14];
        for (slot, &c) in digits.iter_mut().zip(&chars) {
            *slot = digit_value(c).ok_or(NationalIdError::NotADigit(c))? as u8;
        }
        let id = NationalId { digits };
        id.validate()?;
        Ok(id)
    }

    /// Builds a valid number from its parts, computing the check digit.
    /// `sequence` is digits 10 to 13 (its last digit carries the gender).
    pub fn compose(
        birth: NaiveDate,
        governorate: Governorate,
        sequence: u16,
    ) -> Result<NationalId, NationalIdError> {
        let century = match birth.year() {
            1900..=1999 => 2,
            2000..=2099 => 3,
            _ => return Err(NationalIdError::BirthDate(birth.to_string())),
        };
        let payload = format!(
            "{century}{:02}{:02}{:02}{:02}{:04}",
            birth.year() % 100,
            birth.month(),
            birth.day(),
            governorate.code,
            sequence % 10_000
        );
        let mut digits = [0u8; 14];
        for (slot, b) in digits.iter_mut().zip(payload.bytes()) {
            *slot = b - b'0';
        }
        digits[13] = check_digit(&digits[..13]) as u8;
        let id = NationalId { digits };
        id.validate()?;
        Ok(id)
    }

    fn validate(&self) -> Result<(), NationalIdError> {
        let century = u32::from(self.digits[0]);
        if century != 2 && century != 3 {
            return Err(NationalIdError::Century(century));
        }
        if self.birth_date_checked().is_none() {
            return Err(NationalIdError::BirthDate(self.ascii()[1..7].to_owned()));
        }
        let code = self.governorate_code();
        if Governorate::from_code(code).is_none() {
            return Err(NationalIdError::Governorate(code));
        }
        if self.digits[9..12] == [0, 0, 0] {
            return Err(NationalIdError::Sequence);
        }
        let expected = check_digit(&self.digits[..13]);
        let found = u32::from(self.digits[13]);
        if found != expected {
            return Err(NationalIdError::CheckDigit { found, expected });
        }
        Ok(())
    }

    fn number(&self, range: std::ops::Range<usize>) -> u32 {
        self.digits[range]
            .iter()
            .fold(0, |acc, &d| acc * 10 + u32::from(d))
    }

    fn birth_date_checked(&self) -> Option<NaiveDate> {
        let century_base = if self.digits[0] == 2 { 1900 } else { 2000 };
        NaiveDate::from_ymd_opt(
            century_base + self.number(1..3) as i32,
            self.number(3..5),
            self.number(5..7),
        )
    }

    pub fn birth_date(&self) -> NaiveDate {
        self.birth_date_checked()
            .expect("validated on construction")
    }

    fn governorate_code(&self) -> u8 {
        self.number(7..9) as u8
    }

    pub fn governorate(&self) -> Governorate {
        Governorate::from_code(self.governorate_code()).expect("validated on construction")
    }

    /// Digit 13 odd means male, even female.
    pub fn gender(&self) -> Gender {
        if self.digits[12] % 2 == 1 {
            Gender::Male
        } else {
            Gender::Female
        }
    }

    /// True when `S mod 11 == 0`, the one case where the published variants disagree
    /// (A gives 1, B gives 0); a reading that relies on it deserves less confidence.
    pub fn check_digit_is_ambiguous(&self) -> bool {
        weighted_sum(&self.digits[..13]).is_multiple_of(11)
    }

    pub fn ascii(&self) -> String {
        self.digits.iter().map(|&d| char::from(b'0' + d)).collect()
    }

    /// As printed on the card, in Arabic-Indic digits.
    pub fn arabic_indic(&self) -> String {
        to_arabic_indic(&self.ascii())
    }
}

impl fmt::Display for NationalId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.ascii())
    }
}

fn weighted_sum(payload: &[u8]) -> u32 {
    payload
        .iter()
        .zip(CHECK_WEIGHTS)
        .map(|(&d, w)| u32::from(d) * w)
        .sum()
}

/// Variant A: `k = (11 - (S mod 11)) mod 10`.
fn check_digit(payload: &[u8]) -> u32 {
    (11 - weighted_sum(payload) % 11) % 10
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_public_sample() {
        let id = NationalId::parse("30312240201859").unwrap();
        assert_eq!(
            id.birth_date(),
            NaiveDate::from_ymd_opt(2003, 12, 24).unwrap()
        );
        assert_eq!(id.governorate().english, "Alexandria");
        assert_eq!(id.gender(), Gender::Male);
        assert_eq!(NationalId::parse(&id.arabic_indic()).unwrap(), id);
    }

    #[test]
    fn rejects_each_broken_rule() {
        assert_eq!(
            NationalId::parse("3031224020185"),
            Err(NationalIdError::Length(13))
        );
        assert_eq!(
            NationalId::parse("3031224020185x"),
            Err(NationalIdError::NotADigit('x'))
        );
        assert_eq!(
            NationalId::parse("40312240201859"),
            Err(NationalIdError::Century(4))
        );
        assert!(matches!(
            NationalId::parse("30313240201859"),
            Err(NationalIdError::BirthDate(_))
        ));
        assert!(matches!(
            NationalId::parse("30302300201859"),
            Err(NationalIdError::BirthDate(_))
        ));
        assert_eq!(
            NationalId::parse("30312240501859"),
            Err(NationalIdError::Governorate(5))
        );
        assert_eq!(
            NationalId::parse("30312240200059"),
            Err(NationalIdError::Sequence)
        );
        assert_eq!(
            NationalId::parse("30312240201858"),
            Err(NationalIdError::CheckDigit {
                found: 8,
                expected: 9
            })
        );
    }

    #[test]
    fn composes_valid_numbers() {
        let birth = NaiveDate::from_ymd_opt(1973, 10, 16).unwrap();
        let cairo = Governorate::from_code(1).unwrap();
        let id = NationalId::compose(birth, cairo, 472).unwrap();
        assert_eq!(&id.ascii()[..13], "2731016010472");
        assert_eq!(id.gender(), Gender::Female);
        assert_eq!(NationalId::parse(&id.ascii()).unwrap(), id);
    }
}
