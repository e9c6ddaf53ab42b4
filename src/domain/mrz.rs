//! ICAO 9303 machine-readable zone: check digits and TD3 (passport) lines.

use chrono::{Datelike, NaiveDate};

/// Length of each of the two TD3 lines.
pub const TD3_LINE_LEN: usize = 44;

/// Value of an MRZ character: digits as themselves, `A..Z` as 10..35, `<` as 0.
fn char_value(c: char) -> Option<u32> {
    match c {
        '0'..='9' => Some(c as u32 - '0' as u32),
        'A'..='Z' => Some(c as u32 - 'A' as u32 + 10),
        '<' => Some(0),
        _ => None,
    }
}

/// The check digit over `field` (weights 7, 3, 1 repeating, sum mod 10);
/// `None` when the field holds a character outside the MRZ alphabet.
pub fn check_digit(field: &str) -> Option<char> {
    let mut sum = 0;
    for (c, weight) in field.chars().zip([7, 3, 1].into_iter().cycle()) {
        sum += char_value(c)? * weight;
    }
    char::from_digit(sum % 10, 10)
}

/// `YYMMDD` as used in the MRZ.
pub fn yymmdd(date: NaiveDate) -> String {
    format!(
        "{:02}{:02}{:02}",
        date.year() % 100,
        date.month(),
        date.day()
    )
}

/// Upper-cases Latin text and turns spaces, hyphens and apostrophes into fillers.
pub fn name_field(text: &str) -> String {
    text.chars()
        .filter_map(|c| match c {
            'a'..='z' | 'A'..='Z' => Some(c.to_ascii_uppercase()),
            ' ' | '-' | '\'' => Some('<'),
            _ => None,
        })
        .collect()
}

/// The fields a TD3 zone encodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Td3 {
    pub document_code: String,
    pub issuing_state: String,
    pub surname: String,
    pub given_names: String,
    pub number: String,
    pub nationality: String,
    pub birth_date: NaiveDate,
    pub sex: char,
    pub expiry_date: NaiveDate,
    pub personal_number: String,
}

fn pad(mut text: String, len: usize) -> String {
    text.truncate(len);
    while text.len() < len {
        text.push('<');
    }
    text
}

impl Td3 {
    /// Both lines, 44 characters each, with every check digit computed.
    pub fn lines(&self) -> [String; 2] {
        [self.line1(), self.line2()]
    }

    /// Document code, issuing state and names.
    pub fn line1(&self) -> String {
        let names = format!(
            "{}<<{}",
            name_field(&self.surname),
            name_field(&self.given_names)
        );
        pad(
            format!(
                "{}{}{}",
                pad(self.document_code.clone(), 2),
                self.issuing_state,
                names
            ),
            TD3_LINE_LEN,
        )
    }

    /// Number, nationality, dates, sex and personal number, each checked.
    pub fn line2(&self) -> String {
        let number = pad(self.number.clone(), 9);
        let birth = yymmdd(self.birth_date);
        let expiry = yymmdd(self.expiry_date);
        let personal = pad(self.personal_number.clone(), 14);
        let personal_check = if self.personal_number.is_empty() {
            '<'
        } else {
            check_digit(&personal).unwrap_or('<')
        };
        let digit = |field: &str| check_digit(field).unwrap_or('<');
        let upper = format!("{number}{}", digit(&number));
        let middle = format!("{birth}{}", digit(&birth));
        let lower = format!("{expiry}{}{personal}{personal_check}", digit(&expiry));
        let composite = digit(&format!("{upper}{middle}{lower}"));
        format!(
            "{upper}{}{middle}{}{lower}{composite}",
            self.nationality, self.sex
        )
    }
}

/// Checks every check digit of a TD3 second line.
pub fn td3_line2_is_valid(line: &str) -> bool {
    if line.len() != TD3_LINE_LEN || !line.is_ascii() {
        return false;
    }
    let field = |a: usize, b: usize| &line[a..b];
    let at = |i: usize| line.as_bytes()[i] as char;
    let personal_ok = if field(28, 42).chars().all(|c| c == '<') {
        at(42) == '<' || at(42) == '0'
    } else {
        check_digit(field(28, 42)) == Some(at(42))
    };
    check_digit(field(0, 9)) == Some(at(9))
        && check_digit(field(13, 19)) == Some(at(19))
        && check_digit(field(21, 27)) == Some(at(27))
        && personal_ok
        && check_digit(&format!(
            "{}{}{}",
            field(0, 10),
            field(13, 20),
            field(21, 43)
        )) == Some(at(43))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn icao_specimen_check_digits() {
        let line = "L898902C36UTO7408122F1204159ZE184226B<<<<<10";
        assert_eq!(check_digit("L898902C3"), Some('6'));
        assert_eq!(check_digit("740812"), Some('2'));
        assert_eq!(check_digit("120415"), Some('9'));
        assert!(td3_line2_is_valid(line));
        assert!(!td3_line2_is_valid(&line.replace("C36", "C37")));
    }

    #[test]
    fn builds_valid_lines() {
        let td3 = Td3 {
            document_code: "P".into(),
            issuing_state: "EGY".into(),
            surname: "El Sayed".into(),
            given_names: "Mohamed Ahmed".into(),
            number: "A12345678".into(),
            nationality: "EGY".into(),
            birth_date: NaiveDate::from_ymd_opt(1990, 3, 7).unwrap(),
            sex: 'M',
            expiry_date: NaiveDate::from_ymd_opt(2031, 1, 2).unwrap(),
            personal_number: "29003070101234".into(),
        };
        let [l1, l2] = td3.lines();
        assert_eq!(l1, "P<EGYEL<SAYED<<MOHAMED<AHMED<<<<<<<<<<<<<<<<");
        assert_eq!(l1.len(), 44);
        assert!(td3_line2_is_valid(&l2), "{l2}");
    }
}
