//! National ID card, front and back (docs/domain.md §1).

use chrono::NaiveDate;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::domain::Gender;
use crate::domain::date::{add_years, print_arabic_ym, print_arabic_ymd};
use crate::domain::vocab::jobs::{JOBS, Job, Workplace, workplaces};
use crate::domain::vocab::names::Faith;
use crate::record::build::HUSBAND_LABEL;

use super::person::{Person, egyptian_chain};
use super::style::PrintStyle;
use super::{Fields, REFERENCE_DATE, chance, date_between, pick, pick_weighted, ymd};

/// Cards carry an expiry date since 2009; ours are issued from 2010 on.
fn issue_date(rng: &mut ChaCha8Rng) -> NaiveDate {
    date_between(rng, ymd(2010, 1, 1), REFERENCE_DATE)
}

/// Validity of the card (docs/domain.md §1.1).
pub const CARD_VALIDITY_YEARS: u32 = 7;

fn serial(rng: &mut ChaCha8Rng) -> String {
    let letter = |rng: &mut ChaCha8Rng| char::from(b'A' + rng.random_range(0..26u8));
    let digits: u32 = rng.random_range(0..10_000_000);
    format!("{}{}{digits:07}", letter(rng), letter(rng))
}

pub fn front(rng: &mut ChaCha8Rng) -> std::collections::BTreeMap<String, String> {
    let issued = issue_date(rng);
    let person = Person::egyptian(rng, issued, 16, 80);
    let style = PrintStyle::random(rng);
    let mut f = Fields::default();
    f.set("first_name", style.apply(person.given()));
    f.set("last_name", style.apply(&person.rest()));
    f.set("address_line1", person.address.line1(&style));
    f.set("address_line2", person.address.line2(&style));
    f.set("national_id", person.national_id.arabic_indic());
    f.set("birth_date", print_arabic_ymd(person.birth_date));
    f.set("serial", serial(rng));
    f.0
}

/// A job that fits the person's gender and age.
pub fn job_for<'a>(rng: &mut ChaCha8Rng, gender: Gender, age: u32) -> &'a Job {
    pick_weighted(rng, JOBS, |job| {
        if age < job.min_age || age > job.max_age {
            return 0;
        }
        match gender {
            Gender::Male => job.weight.0,
            Gender::Female => job.weight.1,
        }
    })
}

pub fn job_title(job: &Job, gender: Gender) -> &'static str {
    match gender {
        Gender::Male => job.male,
        Gender::Female => job.female,
    }
}

fn workplace_line(rng: &mut ChaCha8Rng, job: &Job) -> Option<&'static str> {
    match job.workplace {
        Workplace::Never => None,
        Workplace::Own => chance(rng, 0.1).then(|| *pick(rng, &["عمل حر", "لحسابه", "قطاع خاص"])),
        Workplace::Employer(sector) => chance(rng, 0.6).then(|| *pick(rng, workplaces(sector))),
    }
}

/// Religion as printed: gendered, `-` for the rare card that names none.
fn religion(rng: &mut ChaCha8Rng, faith: Faith, gender: Gender) -> &'static str {
    if chance(rng, 0.003) {
        return "-";
    }
    match (faith, gender) {
        (Faith::Christian, Gender::Male) => "مسيحي",
        (Faith::Christian, Gender::Female) => "مسيحية",
        (_, Gender::Male) => "مسلم",
        (_, Gender::Female) => "مسلمة",
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marital {
    Single,
    Married,
    Divorced,
    Widowed,
}

pub fn marital_for_age(rng: &mut ChaCha8Rng, gender: Gender, age: u32) -> Marital {
    let married_share = match (gender, age) {
        (Gender::Male, 0..=21) => 0.03,
        (Gender::Male, 22..=26) => 0.3,
        (Gender::Male, 27..=32) => 0.65,
        (Gender::Female, 0..=19) => 0.1,
        (Gender::Female, 20..=24) => 0.45,
        (Gender::Female, 25..=30) => 0.75,
        _ => 0.88,
    };
    if !chance(rng, married_share) {
        return Marital::Single;
    }
    let widowed_share = if age >= 55 {
        if gender == Gender::Female { 0.2 } else { 0.07 }
    } else {
        0.01
    };
    if chance(rng, widowed_share) {
        Marital::Widowed
    } else if chance(rng, 0.06) {
        Marital::Divorced
    } else {
        Marital::Married
    }
}

/// Marital status in the printed gender form; an unmarried woman is mostly `آنسة`.
pub fn marital_text(rng: &mut ChaCha8Rng, status: Marital, gender: Gender) -> &'static str {
    match (status, gender) {
        (Marital::Single, Gender::Male) => "أعزب",
        (Marital::Single, Gender::Female) => {
            if chance(rng, 0.93) {
                "آنسة"
            } else {
                "عزباء"
            }
        }
        (Marital::Married, Gender::Male) => "متزوج",
        (Marital::Married, Gender::Female) => "متزوجة",
        (Marital::Divorced, Gender::Male) => "مطلق",
        (Marital::Divorced, Gender::Female) => "مطلقة",
        (Marital::Widowed, Gender::Male) => "أرمل",
        (Marital::Widowed, Gender::Female) => "أرملة",
    }
}

pub fn back(rng: &mut ChaCha8Rng) -> std::collections::BTreeMap<String, String> {
    let issued = issue_date(rng);
    let person = Person::egyptian(rng, issued, 16, 80);
    let age = person.age_on(issued);
    let style = PrintStyle::random(rng);
    let job = job_for(rng, person.gender, age);
    let status = marital_for_age(rng, person.gender, age);
    let mut f = Fields::default();
    f.set("national_id", person.national_id.arabic_indic());
    f.set("issue_date", print_arabic_ym(issued));
    f.set("job", job_title(job, person.gender));
    if let Some(workplace) = workplace_line(rng, job) {
        f.set("workplace", workplace);
    }
    f.set("gender", person.gender.arabic());
    f.set("religion", religion(rng, person.faith, person.gender));
    f.set("marital_status", marital_text(rng, status, person.gender));
    if person.gender == Gender::Female && status == Marital::Married && chance(rng, 0.6) {
        let parts = *pick(rng, &[3, 4, 4]);
        let husband = egyptian_chain(rng, Gender::Male, person.faith, parts);
        let chain: Vec<&str> = husband.iter().map(|n| n.arabic.as_str()).collect();
        f.set(
            "husband",
            format!("{HUSBAND_LABEL} {}", style.apply(&chain.join(" "))),
        );
    }
    f.set(
        "expiry_date",
        print_arabic_ymd(add_years(issued, CARD_VALIDITY_YEARS)),
    );
    f.0
}
