//! Egyptian passport data page with its TD3 machine-readable zone (docs/domain.md §4).

use std::collections::BTreeMap;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::domain::Gender;
use crate::domain::date::{add_years, print_ascii_dmy};
use crate::domain::mrz::Td3;
use crate::domain::vocab::places::{FOREIGN_BIRTH_PLACES, PASSPORT_OFFICES};

use super::driver_licence::egyptian_nationality;
use super::national_id_card::{job_for, job_title};
use super::person::Person;
use super::{Fields, REFERENCE_DATE, date_between, pick, pick_weighted, ymd};

/// Adult passports are valid 7 years (docs/domain.md §4.1).
pub const PASSPORT_VALIDITY_YEARS: u32 = 7;

/// `A12345678`: one letter (mostly A) and 8 digits ([U] format).
fn passport_number(rng: &mut ChaCha8Rng) -> String {
    let letter = *pick_weighted(rng, &[('A', 80u32), ('B', 10), ('C', 5), ('P', 5)], |l| l.1);
    format!("{}{:08}", letter.0, rng.random_range(0..100_000_000u32))
}

pub fn fields(rng: &mut ChaCha8Rng) -> BTreeMap<String, String> {
    let issued = date_between(rng, ymd(2016, 1, 1), REFERENCE_DATE);
    let person = Person::egyptian(rng, issued, 16, 80);
    let age = person.age_on(issued);
    let expiry = add_years(issued, PASSPORT_VALIDITY_YEARS);
    let number = passport_number(rng);
    let latin: Vec<String> = person
        .names
        .iter()
        .map(|n| n.latin.to_uppercase())
        .collect();
    let (surname, given) = latin
        .split_last()
        .map(|(s, g)| (s.clone(), g.join(" ")))
        .unwrap_or_default();
    let sex = match person.gender {
        Gender::Male => 'M',
        Gender::Female => 'F',
    };
    let td3 = Td3 {
        document_code: "P".into(),
        issuing_state: "EGY".into(),
        surname,
        given_names: given,
        number: number.clone(),
        nationality: "EGY".into(),
        birth_date: person.birth_date,
        sex,
        expiry_date: expiry,
        personal_number: person.national_id.ascii(),
    };
    let [mrz1, mrz2] = td3.lines();
    let (birth_ar, birth_en) = if person.birth_governorate.code == 88 {
        let (ar, en) = *pick(rng, FOREIGN_BIRTH_PLACES);
        (ar.to_owned(), en.to_owned())
    } else {
        (
            person.birth_governorate.arabic.to_owned(),
            person.birth_governorate.english.to_uppercase(),
        )
    };
    // An office in the holder's governorate when there is one, else Cairo's.
    let home = person.address.governorate.code;
    let offices: Vec<&str> = PASSPORT_OFFICES
        .iter()
        .filter(|o| o.0 == home)
        .map(|o| o.1)
        .collect();
    let office = if offices.is_empty() {
        PASSPORT_OFFICES[0].1
    } else {
        *pick(rng, &offices)
    };
    let job = job_for(rng, person.gender, age);

    let mut f = Fields::default();
    f.set("passport_type", "P");
    f.set("country_code", "EGY");
    f.set("passport_number", number);
    f.set("name_ar", person.full());
    f.set("name_en", latin.join(" "));
    f.set("nationality_ar", egyptian_nationality(person.gender));
    f.set("nationality_en", "EGYPTIAN");
    f.set("birth_date", print_ascii_dmy(person.birth_date));
    f.set("birth_place_ar", birth_ar);
    f.set("birth_place_en", birth_en);
    f.set("sex", sex.to_string());
    f.set("issue_date", print_ascii_dmy(issued));
    f.set("expiry_date", print_ascii_dmy(expiry));
    f.set("issuing_office", office);
    f.set("profession", job_title(job, person.gender));
    f.set("national_id", person.national_id.ascii());
    f.set("mrz_line1", mrz1);
    f.set("mrz_line2", mrz2);
    f.0
}
