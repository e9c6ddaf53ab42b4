//! Car licence, front (owner, plate, dates, traffic unit) and back (the vehicle):
//! Egyptian plates, VIN-like chassis numbers and engine numbers.

use std::collections::BTreeMap;

use chrono::Datelike;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::domain::Governorate;
use crate::domain::date::{add_years, print_arabic_ymd};
use crate::domain::digits::{digit_value, to_arabic_indic};
use crate::domain::vocab::vehicles::{COLOURS, FUEL_TYPES, INSURERS, MODELS, Model, USAGE_TYPES};

use super::driver_licence::{egyptian_nationality, traffic_unit};
use super::person::Person;
use super::style::PrintStyle;
use super::{Fields, REFERENCE_DATE, chance, date_between, pick, pick_weighted, ymd};

/// The 17 letters in use on post-2008 plates (docs/domain.md §3.3), as printed.
pub const PLATE_LETTERS: [&str; 17] = [
    "أ", "ب", "ج", "د", "ر", "س", "ص", "ط", "ع", "ف", "ق", "ل", "م", "ن", "هـ", "و", "ى",
];

/// Whether plate digits include zero. One source says plates use 1-9 only [U];
/// we follow it until a real plate shows otherwise.
const PLATE_DIGITS_HAVE_ZERO: bool = false;

/// Letters and digits on a plate of the governorate with `code`: Cairo 3 digits and
/// 3 letters, Giza 4 digits and 2 letters, everywhere else 4 digits and 3 letters.
pub fn plate_shape(code: u8) -> (usize, usize) {
    match code {
        1 => (3, 3),
        21 => (2, 4),
        _ => (3, 4),
    }
}

/// A plate as printed in the field text: letters in reading order, spaced, then the
/// Arabic-Indic digits (`ن ص ر ١٢٣`).
pub fn plate(rng: &mut ChaCha8Rng, governorate: Governorate) -> String {
    let (letters, digits) = plate_shape(governorate.code);
    let letters: Vec<&str> = (0..letters).map(|_| *pick(rng, &PLATE_LETTERS)).collect();
    let low = if PLATE_DIGITS_HAVE_ZERO { 0 } else { 1 };
    let number: String = (0..digits)
        .map(|i| {
            let d = rng.random_range(if i == 0 { 1 } else { low }..=9u8);
            char::from(b'0' + d)
        })
        .collect();
    format!("{} {}", letters.join(" "), to_arabic_indic(&number))
}

/// Whether `plate` has the letters, digits and shape of a plate of `governorate`.
pub fn plate_matches_format(plate: &str, governorate: Governorate) -> bool {
    let (letters, digits) = plate_shape(governorate.code);
    let tokens: Vec<&str> = plate.split(' ').collect();
    let Some((number, letter_tokens)) = tokens.split_last() else {
        return false;
    };
    letter_tokens.len() == letters
        && letter_tokens.iter().all(|t| PLATE_LETTERS.contains(t))
        && number.chars().count() == digits
        && number.chars().all(|c| {
            ('\u{0661}'..='\u{0669}').contains(&c) || (PLATE_DIGITS_HAVE_ZERO && c == '\u{0660}')
        })
}

/// Characters of a VIN: digits and capitals without I, O and Q.
const VIN_CHARS: &[u8] = b"0123456789ABCDEFGHJKLMNPRSTUVWXYZ";
/// Model-year codes from 1980, repeating every 30 years.
const VIN_YEARS: &[u8] = b"ABCDEFGHJKLMNPRSTVWXY123456789";
const VIN_WEIGHTS: [u32; 17] = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];

fn vin_value(c: char) -> Option<u32> {
    Some(match c {
        '0'..='9' => digit_value(c)?,
        'A' | 'J' => 1,
        'B' | 'K' | 'S' => 2,
        'C' | 'L' | 'T' => 3,
        'D' | 'M' | 'U' => 4,
        'E' | 'N' | 'V' => 5,
        'F' | 'W' => 6,
        'G' | 'P' | 'X' => 7,
        'H' | 'Y' => 8,
        'R' | 'Z' => 9,
        _ => return None,
    })
}

/// The check digit (position 9) a 17-character VIN should carry: `0`..`9` or `X`.
pub fn vin_check_digit(vin: &str) -> Option<char> {
    if vin.chars().count() != 17 {
        return None;
    }
    let mut sum = 0;
    for (c, w) in vin.chars().zip(VIN_WEIGHTS) {
        sum += vin_value(c)? * w;
    }
    Some(match sum % 11 {
        10 => 'X',
        r => char::from_digit(r, 10)?,
    })
}

fn vin_char(rng: &mut ChaCha8Rng) -> char {
    char::from(VIN_CHARS[rng.random_range(0..VIN_CHARS.len())])
}

/// A 17-character chassis number with a valid check digit and the model-year code;
/// cars before 1995 sometimes carry a shorter pre-VIN number.
pub fn chassis_number(rng: &mut ChaCha8Rng, model: &Model, year: u16) -> String {
    if year < 1995 && chance(rng, 0.5) {
        let len = rng.random_range(8..=12);
        return (0..len).map(|_| vin_char(rng)).collect();
    }
    let mut vin: Vec<char> = pick(rng, model.wmi).chars().collect();
    vin.extend((0..5).map(|_| vin_char(rng)));
    vin.push('0');
    vin.push(char::from(
        VIN_YEARS[usize::from(year.saturating_sub(1980)) % VIN_YEARS.len()],
    ));
    vin.push(vin_char(rng));
    vin.extend((0..6).map(|_| char::from(b'0' + rng.random_range(0..10u8))));
    let text: String = vin.iter().collect();
    let check = vin_check_digit(&text).unwrap_or('0');
    vin[8] = check;
    vin.into_iter().collect()
}

/// An engine number: the engine code, then a serial.
pub fn engine_number(rng: &mut ChaCha8Rng, model: &Model) -> String {
    let code = pick(rng, model.engine_codes);
    let digits = |rng: &mut ChaCha8Rng, n: usize| -> String {
        (0..n)
            .map(|_| char::from(b'0' + rng.random_range(0..10u8)))
            .collect()
    };
    match rng.random_range(0..10) {
        0..=4 => format!("{code}{}", digits(rng, 7)),
        5..=6 => format!("{code}-{}", digits(rng, 6)),
        _ => {
            let letter = |rng: &mut ChaCha8Rng| char::from(b'A' + rng.random_range(0..26u8));
            format!("{code}{}{}{}", letter(rng), letter(rng), digits(rng, 6))
        }
    }
}

pub fn licence_front(rng: &mut ChaCha8Rng) -> BTreeMap<String, String> {
    let issued = date_between(rng, ymd(2012, 1, 1), REFERENCE_DATE);
    let owner = Person::egyptian(rng, issued, 18, 85);
    let style = PrintStyle::random(rng);
    let &(usage, _, years) = pick_weighted(rng, USAGE_TYPES, |u| u.1);
    let governorate = owner.address.governorate;
    let mut f = Fields::default();
    f.set("usage_type", usage);
    f.set("plate_number", plate(rng, governorate));
    f.set("owner_name", style.apply(&owner.full()));
    f.set("nationality", egyptian_nationality(owner.gender));
    f.set("address", owner.address.one_line(&style));
    f.set("owner_national_id", owner.national_id.arabic_indic());
    f.set("traffic_unit", traffic_unit(rng, governorate.code));
    f.set("issue_date", print_arabic_ymd(issued));
    f.set("expiry_date", print_arabic_ymd(add_years(issued, years)));
    f.0
}

/// A model year the model was sold in, skewed towards recent years.
fn model_year(rng: &mut ChaCha8Rng, model: &Model) -> u16 {
    let newest = model.years.1.min(REFERENCE_DATE.year() as u16);
    let oldest = model.years.0.max(1985).min(newest);
    let u: f64 = rng.random();
    let span = f64::from(newest - oldest + 1);
    newest - ((span * u.powf(1.5)) as u16).min(newest - oldest)
}

pub fn licence_back(rng: &mut ChaCha8Rng) -> BTreeMap<String, String> {
    let model = pick_weighted(rng, MODELS, |m| m.weight);
    let year = model_year(rng, model);
    let [petrol, diesel, natural_gas] = FUEL_TYPES;
    let fuel = if model.diesel {
        diesel
    } else if chance(rng, 0.04) {
        natural_gas
    } else {
        petrol
    };
    let mut f = Fields::default();
    f.set("make", model.make);
    f.set("model", model.model);
    f.set("year", to_arabic_indic(&year.to_string()));
    f.set("color", pick_weighted(rng, COLOURS, |c| c.1).0);
    f.set("chassis_number", chassis_number(rng, model, year));
    f.set("engine_number", engine_number(rng, model));
    f.set("fuel_type", fuel);
    f.set("cylinders", to_arabic_indic(&model.cylinders.to_string()));
    f.set(
        "engine_cc",
        to_arabic_indic(&pick(rng, model.cc).to_string()),
    );
    f.set("body_type", model.body);
    f.set("insurance_company", *pick(rng, INSURERS));
    f.0
}
