//! Residence permit card for foreigners (layout unknown; docs/domain.md §4.3): the
//! holder's own naming pattern and Latin spelling convention per nationality.

use std::collections::BTreeMap;

use chrono::Months;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::domain::Gender;
use crate::domain::date::print_arabic_ymd;
use crate::domain::transliterate::transliterate_with;
use crate::domain::vocab::foreign::{ChainStyle, NATIONALITIES, Nationality, feminine_surname};
use crate::domain::vocab::names::{Faith, tables};

use super::person::{NamePart, birth_date_for_age, sample_age};
use super::{Fields, REFERENCE_DATE, chance, date_between, pick, pick_weighted, ymd};

/// Residence type, purpose (male, female form), validity in months, weight, minimum age.
const PURPOSES: &[(&str, &str, &str, u32, u32, u32)] = &[
    ("مؤقتة", "دراسة", "دراسة", 12, 25, 16),
    ("مؤقتة", "عمل", "عمل", 12, 20, 21),
    ("مؤقتة", "زواج من مصرية", "زواج من مصري", 36, 8, 20),
    ("مؤقتة", "مرافق", "مرافقة", 12, 10, 16),
    ("مؤقتة", "سياحة", "سياحة", 6, 5, 18),
    ("مؤقتة", "لجوء", "لجوء", 6, 15, 16),
    ("مؤقتة", "استثمار", "استثمار", 36, 4, 25),
    ("عادية", "إقامة عادية", "إقامة عادية", 60, 4, 25),
    ("خاصة", "إقامة خاصة", "إقامة خاصة", 120, 4, 30),
];

fn part(arabic: &str, latin: &str) -> NamePart {
    NamePart {
        arabic: arabic.to_owned(),
        latin: latin.to_owned(),
    }
}

/// An Arab name chain: given name of `gender`, male ancestors, maybe a family name;
/// Latin spelt with the nationality's convention.
fn arab_chain(
    rng: &mut ChaCha8Rng,
    n: &Nationality,
    gender: Gender,
    parts: usize,
    family_share: f64,
) -> Vec<NamePart> {
    let t = tables();
    let egyptian_given = |rng: &mut ChaCha8Rng, gender: Gender| -> &'static str {
        match gender {
            Gender::Male => pick(rng, t.male.for_faith(Faith::Muslim)).arabic,
            Gender::Female => pick(rng, t.female.for_faith(Faith::Muslim)).arabic,
        }
    };
    let own = |rng: &mut ChaCha8Rng, gender: Gender| -> &'static str {
        let list = if gender == Gender::Male {
            n.male
        } else {
            n.female
        };
        pick(rng, list).0
    };
    let given = |rng: &mut ChaCha8Rng, gender: Gender| {
        if chance(rng, 0.4) {
            own(rng, gender)
        } else {
            egyptian_given(rng, gender)
        }
    };
    let mut arabic: Vec<&str> = vec![given(rng, gender)];
    for i in 1..parts {
        let last = i + 1 == parts;
        if last && !n.family.is_empty() && chance(rng, family_share) {
            arabic.push(pick(rng, n.family).0);
        } else {
            arabic.push(given(rng, Gender::Male));
        }
    }
    arabic
        .iter()
        .map(|a| part(a, &transliterate_with(a, n.convention)))
        .collect()
}

fn foreign_chain(rng: &mut ChaCha8Rng, n: &Nationality, gender: Gender) -> Vec<NamePart> {
    let own = if gender == Gender::Male {
        n.male
    } else {
        n.female
    };
    match n.style {
        ChainStyle::Arab {
            min_parts,
            max_parts,
            family_share,
        } => {
            let parts = rng.random_range(min_parts..=max_parts);
            arab_chain(rng, n, gender, parts, family_share)
        }
        ChainStyle::GivenFamily => {
            let (ga, gl) = *pick(rng, own);
            let (fa, fl) = *pick(rng, n.family);
            let (fa, fl) = if gender == Gender::Female {
                feminine_surname(n, fa, fl)
            } else {
                (fa.to_owned(), fl.to_owned())
            };
            vec![
                part(ga, gl),
                NamePart {
                    arabic: fa,
                    latin: fl,
                },
            ]
        }
        ChainStyle::Patronymic => {
            let (ga, gl) = *pick(rng, own);
            let (fa, fl) = *pick(rng, n.male);
            let (aa, al) = *pick(rng, n.male);
            vec![part(ga, gl), part(fa, fl), part(aa, al)]
        }
    }
}

fn from_pattern(rng: &mut ChaCha8Rng, pattern: &str) -> String {
    pattern
        .chars()
        .map(|c| match c {
            'L' => char::from(b'A' + rng.random_range(0..26u8)),
            'D' => char::from(b'0' + rng.random_range(0..10u8)),
            c => c,
        })
        .collect()
}

pub fn fields(rng: &mut ChaCha8Rng) -> BTreeMap<String, String> {
    let n = pick_weighted(rng, NATIONALITIES, |n| n.weight);
    let gender = if chance(rng, 0.55) {
        Gender::Male
    } else {
        Gender::Female
    };
    let issued = date_between(rng, ymd(2015, 1, 1), REFERENCE_DATE);
    let age = sample_age(rng, 16, 75);
    let birth = birth_date_for_age(rng, issued, age);
    let &(kind, purpose_m, purpose_f, months, _, _) =
        pick_weighted(rng, PURPOSES, |p| if age >= p.5 { p.4 } else { 0 });
    let expiry = issued
        .checked_add_months(Months::new(months))
        .unwrap_or(issued);
    let names = foreign_chain(rng, n, gender);
    let arabic: Vec<&str> = names.iter().map(|p| p.arabic.as_str()).collect();
    let latin: Vec<String> = names.iter().map(|p| p.latin.to_uppercase()).collect();

    let mut f = Fields::default();
    f.set(
        "permit_number",
        format!("{}", rng.random_range(100_000_000..1_000_000_000u32)),
    );
    f.set("name_ar", arabic.join(" "));
    f.set("name_en", latin.join(" "));
    f.set(
        "nationality_ar",
        if gender == Gender::Male {
            n.arabic_male
        } else {
            n.arabic_female
        },
    );
    f.set("nationality_en", n.english);
    f.set("passport_number", from_pattern(rng, n.passport_pattern));
    f.set("residence_type", kind);
    f.set(
        "purpose",
        if gender == Gender::Male {
            purpose_m
        } else {
            purpose_f
        },
    );
    f.set("gender", gender.arabic());
    f.set("birth_date", print_arabic_ymd(birth));
    f.set("issue_date", print_arabic_ymd(issued));
    f.set("expiry_date", print_arabic_ymd(expiry));
    f.0
}
