//! Driving licence (layout designed by us; docs/domain.md §3.1).

use std::collections::BTreeMap;

use rand_chacha::ChaCha8Rng;

use crate::domain::Gender;
use crate::domain::date::{add_years, print_arabic_ymd};
use crate::domain::traffic_units::{self, LABEL as TRAFFIC_UNIT_LABEL};
use crate::domain::vocab::places::places_of;
use crate::domain::vocab::vehicles::LICENCE_CATEGORIES;

use super::national_id_card::{job_for, job_title};
use super::person::Person;
use super::style::PrintStyle;
use super::{Fields, REFERENCE_DATE, chance, date_between, pick, pick_weighted, ymd};

/// `مصري` / `مصرية`.
pub fn egyptian_nationality(gender: Gender) -> &'static str {
    match gender {
        Gender::Male => "مصري",
        Gender::Female => "مصرية",
    }
}

/// A traffic unit in the governorate with code `code`: `وحدة مرور <place>`.
pub fn traffic_unit(rng: &mut ChaCha8Rng, code: u8) -> String {
    let places = places_of(code);
    let place = if !places.traffic.is_empty() && chance(rng, 0.6) {
        pick(rng, places.traffic)
    } else if !places.rural.is_empty() && chance(rng, 0.5) {
        pick(rng, places.rural)
    } else {
        pick(rng, places.urban)
    };
    format!("{TRAFFIC_UNIT_LABEL} {}", traffic_units::unit_place(place))
}

const BLOOD_GROUPS: &[(&str, u32)] = &[
    ("O+", 36),
    ("A+", 30),
    ("B+", 18),
    ("AB+", 6),
    ("O-", 4),
    ("A-", 3),
    ("B-", 2),
    ("AB-", 1),
];

pub fn fields(rng: &mut ChaCha8Rng) -> BTreeMap<String, String> {
    let issued = date_between(rng, ymd(2012, 1, 1), REFERENCE_DATE);
    let person = Person::egyptian(rng, issued, 18, 75);
    let age = person.age_on(issued);
    let style = PrintStyle::random(rng);
    let &(category, _, years) = pick_weighted(rng, LICENCE_CATEGORIES, |&(name, weight, _)| {
        let professional = name.starts_with("مهنية") || name == "جرار زراعي";
        match (person.gender, professional) {
            (Gender::Female, true) => 0,
            (_, true) if age < 21 => 0,
            _ => weight,
        }
    });
    let job = job_for(rng, person.gender, age);
    let mut f = Fields::default();
    f.set("name", style.apply(&person.full()));
    f.set("nationality", egyptian_nationality(person.gender));
    f.set("address", person.address.one_line(&style));
    f.set("job", job_title(job, person.gender));
    f.set("national_id", person.national_id.arabic_indic());
    f.set("licence_category", category);
    f.set(
        "traffic_unit",
        traffic_unit(rng, person.address.governorate.code),
    );
    f.set("issue_date", print_arabic_ymd(issued));
    f.set("expiry_date", print_arabic_ymd(add_years(issued, years)));
    f.set("blood_group", pick_weighted(rng, BLOOD_GROUPS, |g| g.1).0);
    f.0
}
