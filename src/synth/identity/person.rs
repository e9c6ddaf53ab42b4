//! An Egyptian person: gendered name chain of one faith, birth date and place, a
//! national-ID number that encodes them, and a home address.

use std::sync::LazyLock;

use chrono::NaiveDate;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::domain::date::sub_years;
use crate::domain::egyptian_names::{self, Role};
use crate::domain::transliterate::transliterate;
use crate::domain::vocab::names::{Faith, NamePool, tables};
use crate::domain::{Gender, Governorate, NationalId};

use super::address::{Address, residential_governorate};
use super::{chance, date_between, pick};

/// One element of a name chain with its Latin spelling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamePart {
    pub arabic: String,
    pub latin: String,
}

impl NamePart {
    /// An Egyptian name: Latin exactly as [`transliterate`] spells it, so the
    /// pipeline's `_en` fields and the passport's printed Latin agree.
    pub fn egyptian(arabic: &str) -> NamePart {
        NamePart {
            arabic: arabic.to_owned(),
            latin: transliterate(arabic),
        }
    }
}

/// One spelling (`spelling` picks Arabic or Latin) of `names`, space-separated.
fn join_names(names: &[NamePart], spelling: impl Fn(&NamePart) -> &String) -> String {
    names
        .iter()
        .map(|n| spelling(n).as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

#[derive(Debug, Clone)]
pub struct Person {
    pub gender: Gender,
    /// Muslim or Christian (never `Any`).
    pub faith: Faith,
    /// Given name, father, grandfather, then further ancestors or a family name.
    pub names: Vec<NamePart>,
    pub birth_date: NaiveDate,
    pub birth_governorate: Governorate,
    pub national_id: NationalId,
    pub address: Address,
}

impl Person {
    /// An Egyptian aged `min_age..=max_age` on `on` (the document's issue date).
    pub fn egyptian(rng: &mut ChaCha8Rng, on: NaiveDate, min_age: u32, max_age: u32) -> Person {
        let gender = if rng.random_bool(0.5) {
            Gender::Male
        } else {
            Gender::Female
        };
        Person::egyptian_of(rng, gender, on, min_age, max_age)
    }

    pub fn egyptian_of(
        rng: &mut ChaCha8Rng,
        gender: Gender,
        on: NaiveDate,
        min_age: u32,
        max_age: u32,
    ) -> Person {
        let faith = if chance(rng, 0.12) {
            Faith::Christian
        } else {
            Faith::Muslim
        };
        let parts = *pick(rng, &[3, 4, 4, 4, 4, 5]);
        let names = egyptian_chain(rng, gender, faith, parts);
        let age = sample_age(rng, min_age, max_age);
        let birth_date = birth_date_for_age(rng, on, age);
        let residence = residential_governorate(rng);
        let birth_governorate = if chance(rng, 0.015) {
            Governorate::from_code(88).unwrap_or(residence)
        } else if chance(rng, 0.75) {
            residence
        } else {
            residential_governorate(rng)
        };
        let national_id = national_id_for(rng, birth_date, birth_governorate, gender);
        let address = Address::random(rng, residence);
        Person {
            gender,
            faith,
            names,
            birth_date,
            birth_governorate,
            national_id,
            address,
        }
    }

    pub fn given(&self) -> &str {
        &self.names[0].arabic
    }

    /// Everything after the given name, as on the second name line of the ID.
    pub fn rest(&self) -> String {
        join_names(&self.names[1..], |n| &n.arabic)
    }

    pub fn full(&self) -> String {
        join_names(&self.names, |n| &n.arabic)
    }

    pub fn latin_full(&self) -> String {
        join_names(&self.names, |n| &n.latin)
    }

    /// Completed years on `date`.
    pub fn age_on(&self, date: NaiveDate) -> u32 {
        crate::domain::date::age_on(self.birth_date, date)
    }
}

fn pool(gender: Gender) -> &'static NamePool {
    match gender {
        Gender::Male => &tables().male,
        Gender::Female => &tables().female,
    }
}

/// Share of name-chain elements drawn from the full list of Egyptian name lemmas
/// (egy-names, [`egyptian_names`]) rather than the generator's own tables: about
/// 9,700 names instead of 575, so the recognizer meets in training the names real cards
/// print, not only the common ones.
const FULL_LIST_SHARE: f64 = 0.4;

/// The full list's names by the chain position they fit and the faith of who may
/// carry them ([`Faith::Muslim`] or [`Faith::Christian`]).
struct LemmaPools {
    /// Given names: men's, then women's.
    given: [[Vec<&'static str>; 2]; 2],
    family: [Vec<&'static str>; 2],
}

static LEMMA_POOLS: LazyLock<LemmaPools> = LazyLock::new(|| {
    let pool = |keep: &dyn Fn(&egyptian_names::Lemma) -> bool, faith: Faith| -> Vec<&'static str> {
        egyptian_names::lemmas()
            .iter()
            .filter(|l| keep(l) && l.faith.fits(faith))
            .map(|l| l.arabic)
            .collect()
    };
    let given = |gender: Gender| {
        [Faith::Muslim, Faith::Christian].map(|faith| {
            pool(
                &|l| l.role == Role::Given && l.gender == Some(gender),
                faith,
            )
        })
    };
    LemmaPools {
        given: [given(Gender::Male), given(Gender::Female)],
        family: [Faith::Muslim, Faith::Christian]
            .map(|faith| pool(&|l| l.role == Role::Family, faith)),
    }
});

fn faith_index(faith: Faith) -> usize {
    usize::from(faith == Faith::Christian)
}

/// A given name of `gender` and `faith`: from the generator's tables or, now and
/// then, from the full list.
fn given_name(rng: &mut ChaCha8Rng, gender: Gender, faith: Faith) -> &'static str {
    if chance(rng, FULL_LIST_SHARE) {
        let by_gender = &LEMMA_POOLS.given[usize::from(gender == Gender::Female)];
        let names = &by_gender[faith_index(faith)];
        names[rng.random_range(0..names.len())]
    } else {
        pick(rng, pool(gender).for_faith(faith)).arabic
    }
}

/// A family name of `faith`, from the generator's tables or the full list.
fn family_name(rng: &mut ChaCha8Rng, faith: Faith) -> &'static str {
    if chance(rng, FULL_LIST_SHARE) {
        let names = &LEMMA_POOLS.family[faith_index(faith)];
        names[rng.random_range(0..names.len())]
    } else {
        pick(rng, tables().family.for_faith(faith)).arabic
    }
}

/// A name chain of `parts` elements: a given name of `gender`, then male ancestors;
/// the last element is a family name about half the time. Every name fits `faith`.
pub fn egyptian_chain(
    rng: &mut ChaCha8Rng,
    gender: Gender,
    faith: Faith,
    parts: usize,
) -> Vec<NamePart> {
    let mut names = vec![NamePart::egyptian(given_name(rng, gender, faith))];
    for i in 1..parts {
        let last = i + 1 == parts;
        let arabic = if last && parts >= 4 && chance(rng, 0.5) {
            family_name(rng, faith)
        } else {
            // A father is not named after his son in practice; avoid a repeated neighbour.
            let mut name = given_name(rng, Gender::Male, faith);
            if names.last().is_some_and(|p| p.arabic == name) {
                name = given_name(rng, Gender::Male, faith);
            }
            name
        };
        names.push(NamePart::egyptian(arabic));
    }
    names
}

/// Ages skewed young, as in the population holding documents.
pub fn sample_age(rng: &mut ChaCha8Rng, min: u32, max: u32) -> u32 {
    let u: f64 = rng.random();
    let span = f64::from(max.saturating_sub(min) + 1);
    (min + (span * u.powf(1.35)) as u32).min(max)
}

/// A birth date that makes the person exactly `age` years old on `on`.
pub fn birth_date_for_age(rng: &mut ChaCha8Rng, on: NaiveDate, age: u32) -> NaiveDate {
    let latest = sub_years(on, age);
    let earliest = sub_years(on, age + 1) + chrono::Duration::days(1);
    date_between(rng, earliest, latest)
}

/// A valid number for these facts. Numbers whose check digit the published variants
/// disagree on (`S mod 11 = 0`) are skipped, so ours pass variants A and B alike.
pub fn national_id_for(
    rng: &mut ChaCha8Rng,
    birth: NaiveDate,
    governorate: Governorate,
    gender: Gender,
) -> NationalId {
    for _ in 0..1000 {
        let serial: u16 = rng.random_range(1..=999);
        let gender_digit: u16 = match gender {
            Gender::Male => 2 * rng.random_range(0..5) + 1,
            Gender::Female => 2 * rng.random_range(0..5),
        };
        if let Ok(id) = NationalId::compose(birth, governorate, serial * 10 + gender_digit)
            && !id.check_digit_is_ambiguous()
        {
            return id;
        }
    }
    // Unreachable for birth years 1900..=2099, which is all this generator draws.
    NationalId::compose(birth, governorate, 11).expect("birth year within 1900..=2099")
}
