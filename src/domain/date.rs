//! Dates as printed on the documents and as returned in each flow.
//!
//! Egyptian cards print `YYYY/MM/DD` in Arabic-Indic digits (the National ID back prints
//! its issue date as `YYYY/MM`); the passport prints `DD/MM/YYYY` in ASCII digits.
//! Flow A answers `DD/MM/YYYY` (`MM/YYYY` without a day), Flow B ISO 8601.

use chrono::{Datelike, Months, NaiveDate};

use super::digits::{to_arabic_indic, to_ascii_digits};

/// A date read from a document: with a day, or only a month when the card prints none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PrintedDate {
    Day(NaiveDate),
    Month { year: i32, month: u32 },
}

impl PrintedDate {
    /// Parses `YYYY/MM/DD`, `DD/MM/YYYY`, `YYYY/MM` or `MM/YYYY` in any digit script,
    /// with `/`, `-`, `.` or spaces as separators. The 4-digit group tells the order.
    pub fn parse(text: &str) -> Option<PrintedDate> {
        let ascii = to_ascii_digits(text);
        let groups: Vec<&str> = ascii
            .split(|c: char| !c.is_ascii_digit())
            .filter(|g| !g.is_empty())
            .collect();
        let num = |g: &str| g.parse::<u32>().ok();
        match groups.as_slice() {
            [a, b, c] if a.len() == 4 && b.len() <= 2 && c.len() <= 2 => {
                NaiveDate::from_ymd_opt(num(a)? as i32, num(b)?, num(c)?).map(PrintedDate::Day)
            }
            [a, b, c] if c.len() == 4 && a.len() <= 2 && b.len() <= 2 => {
                NaiveDate::from_ymd_opt(num(c)? as i32, num(b)?, num(a)?).map(PrintedDate::Day)
            }
            [a, b] if a.len() == 4 && b.len() <= 2 => Self::month(num(a)? as i32, num(b)?),
            [a, b] if b.len() == 4 && a.len() <= 2 => Self::month(num(b)? as i32, num(a)?),
            _ => None,
        }
    }

    fn month(year: i32, month: u32) -> Option<PrintedDate> {
        (1..=12)
            .contains(&month)
            .then_some(PrintedDate::Month { year, month })
    }

    /// Flow A form: `DD/MM/YYYY`, or `MM/YYYY` without a day.
    pub fn flow_a(self) -> String {
        match self {
            PrintedDate::Day(date) => flow_a_date(date),
            PrintedDate::Month { year, month } => format!("{month:02}/{year:04}"),
        }
    }

    /// Flow B form: `YYYY-MM-DD`, or `YYYY-MM` without a day.
    pub fn iso(self) -> String {
        match self {
            PrintedDate::Day(date) => iso_date(date),
            PrintedDate::Month { year, month } => format!("{year:04}-{month:02}"),
        }
    }

    pub fn year(self) -> i32 {
        match self {
            PrintedDate::Day(date) => date.year(),
            PrintedDate::Month { year, .. } => year,
        }
    }
}

/// `DD/MM/YYYY`.
pub fn flow_a_date(date: NaiveDate) -> String {
    format!("{:02}/{:02}/{:04}", date.day(), date.month(), date.year())
}

/// `YYYY-MM-DD`.
pub fn iso_date(date: NaiveDate) -> String {
    format!("{:04}-{:02}-{:02}", date.year(), date.month(), date.day())
}

/// As printed on Egyptian cards: `YYYY/MM/DD` in Arabic-Indic digits.
pub fn print_arabic_ymd(date: NaiveDate) -> String {
    to_arabic_indic(&format!(
        "{:04}/{:02}/{:02}",
        date.year(),
        date.month(),
        date.day()
    ))
}

/// As printed on the National ID back for the issue date: `YYYY/MM` in Arabic-Indic digits.
pub fn print_arabic_ym(date: NaiveDate) -> String {
    to_arabic_indic(&format!("{:04}/{:02}", date.year(), date.month()))
}

/// As printed on the passport data page: `DD/MM/YYYY` in ASCII digits.
pub fn print_ascii_dmy(date: NaiveDate) -> String {
    flow_a_date(date)
}

/// `date` plus whole years; 29 February falls back to 28 February.
pub fn add_years(date: NaiveDate, years: u32) -> NaiveDate {
    date.checked_add_months(Months::new(years * 12))
        .unwrap_or(date)
}

/// `date` minus whole years; 29 February falls back to 28 February.
pub fn sub_years(date: NaiveDate, years: u32) -> NaiveDate {
    date.checked_sub_months(Months::new(years * 12))
        .unwrap_or(date)
}

/// Completed years between `birth` and `on`.
pub fn age_on(birth: NaiveDate, on: NaiveDate) -> u32 {
    on.years_since(birth).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).unwrap()
    }

    #[test]
    fn parses_every_printed_form() {
        assert_eq!(
            PrintedDate::parse("١٩٧٣/١٠/١٦"),
            Some(PrintedDate::Day(d(1973, 10, 16)))
        );
        assert_eq!(
            PrintedDate::parse("16/10/1973"),
            Some(PrintedDate::Day(d(1973, 10, 16)))
        );
        assert_eq!(
            PrintedDate::parse("٢٠٢٤/٠٨"),
            Some(PrintedDate::Month {
                year: 2024,
                month: 8
            })
        );
        assert_eq!(
            PrintedDate::parse("08/2024"),
            Some(PrintedDate::Month {
                year: 2024,
                month: 8
            })
        );
        assert_eq!(
            PrintedDate::parse(" 2031-08-12 "),
            Some(PrintedDate::Day(d(2031, 8, 12)))
        );
        assert_eq!(PrintedDate::parse("٢٠٢٣/٠٢/٢٩"), None);
        assert_eq!(PrintedDate::parse("٢٠٢٤/١٣"), None);
        assert_eq!(PrintedDate::parse("hello"), None);
        assert_eq!(PrintedDate::parse("12/10/73"), None);
    }

    #[test]
    fn formats_for_each_flow() {
        let day = PrintedDate::Day(d(2031, 8, 2));
        assert_eq!(day.flow_a(), "02/08/2031");
        assert_eq!(day.iso(), "2031-08-02");
        let month = PrintedDate::Month {
            year: 2024,
            month: 8,
        };
        assert_eq!(month.flow_a(), "08/2024");
        assert_eq!(month.iso(), "2024-08");
        assert_eq!(print_arabic_ymd(d(1973, 10, 16)), "١٩٧٣/١٠/١٦");
        assert_eq!(print_arabic_ym(d(2024, 8, 12)), "٢٠٢٤/٠٨");
        assert_eq!(print_ascii_dmy(d(1990, 3, 7)), "07/03/1990");
    }

    #[test]
    fn year_arithmetic_handles_leap_days() {
        assert_eq!(add_years(d(2024, 2, 29), 7), d(2031, 2, 28));
        assert_eq!(add_years(d(2024, 8, 12), 7), d(2031, 8, 12));
        assert_eq!(sub_years(d(2024, 2, 29), 1), d(2023, 2, 28));
        assert_eq!(age_on(d(2000, 5, 10), d(2016, 5, 9)), 15);
        assert_eq!(age_on(d(2000, 5, 10), d(2016, 5, 10)), 16);
    }
}
