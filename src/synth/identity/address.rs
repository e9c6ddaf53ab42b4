//! Home addresses: a first line (house number and street, alley, housing block or
//! village) and a district (قسم/حي/مركز) in a governorate.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::domain::Governorate;
use crate::domain::digits::to_arabic_indic;
use crate::domain::vocab::names::{Faith, tables};
use crate::domain::vocab::places::{ALLEYS, COMPOUNDS, STREETS, VILLAGES, places_of};

use super::style::PrintStyle;
use super::{chance, pick, pick_weighted};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    /// House number and street, alley, block or village; Arabic-Indic digits.
    pub line1: String,
    /// District as printed, with its `قسم`/`حي`/`مركز` prefix when it has one.
    pub district: String,
    pub governorate: Governorate,
}

/// Residents per governorate, in hundred thousands (rounded 2023 figures), plus a
/// floor so that small governorates still appear often enough to be learnt.
fn residents(code: u8) -> u32 {
    let hundred_thousands = match code {
        1 => 100,
        21 => 95,
        2 => 55,
        13 => 78,
        12 => 70,
        18 => 68,
        14 => 60,
        24 => 62,
        16 => 52,
        26 => 56,
        25 => 49,
        17 => 46,
        15 => 37,
        23 => 40,
        27 => 36,
        22 => 35,
        28 => 16,
        19 => 14,
        11 => 16,
        29 => 13,
        3 | 4 => 8,
        31 | 33 | 34 => 5,
        32 | 35 => 2,
        _ => 1,
    };
    hundred_thousands + 12
}

pub fn residential_governorate(rng: &mut ChaCha8Rng) -> Governorate {
    let all: Vec<Governorate> = Governorate::residential().collect();
    *pick_weighted(rng, &all, |g| residents(g.code))
}

/// A house number: mostly small, skewed towards low numbers.
fn house_number(rng: &mut ChaCha8Rng) -> String {
    let n: u32 = match rng.random_range(0..10) {
        0..=5 => rng.random_range(1..=40),
        6..=8 => rng.random_range(1..=200),
        _ => rng.random_range(100..=999),
    };
    to_arabic_indic(&n.to_string())
}

/// A street named after a person, as many are: `محمد فريد`, `عبد الحميد البنا`.
fn person_street(rng: &mut ChaCha8Rng) -> String {
    let t = tables();
    let given = pick(rng, t.male.for_faith(Faith::Muslim)).arabic;
    let family = if chance(rng, 0.5) {
        pick(rng, &t.family.all).arabic
    } else {
        pick(rng, &t.male.all).arabic
    };
    format!("{given} {family}")
}

fn street(rng: &mut ChaCha8Rng) -> String {
    if chance(rng, 0.3) {
        person_street(rng)
    } else {
        (*pick(rng, STREETS)).to_owned()
    }
}

fn urban_line1(rng: &mut ChaCha8Rng) -> String {
    let n = house_number(rng);
    match rng.random_range(0..100) {
        0..=44 => format!("{n} ش {}", street(rng)),
        45..=54 => format!("{n} عطفة {} من ش {}", pick(rng, ALLEYS), street(rng)),
        55..=62 => format!("{n} ش {} عطفة {}", street(rng), pick(rng, ALLEYS)),
        63..=69 => format!("{n} حارة {}", pick(rng, ALLEYS)),
        70..=75 => format!("{n} {} عمارات", pick(rng, COMPOUNDS)),
        76..=80 => format!("عمارة {n} مساكن {}", pick(rng, COMPOUNDS)),
        81..=85 => format!(
            "ق {n} المجاورة {} الحي {}",
            to_arabic_indic(&rng.random_range(1..=9).to_string()),
            pick(
                rng,
                &[
                    "الأول",
                    "الثاني",
                    "الثالث",
                    "الرابع",
                    "الخامس",
                    "السابع",
                    "العاشر"
                ]
            )
        ),
        86..=92 => format!("{n} ش {} متفرع من ش {}", street(rng), street(rng)),
        _ => format!("{n} امتداد ش {}", street(rng)),
    }
}

fn village(rng: &mut ChaCha8Rng, upper_egypt: bool) -> String {
    let kinds: &[&str] = if upper_egypt {
        &["قرية", "نجع", "عزبة"]
    } else {
        &["قرية", "عزبة", "كفر", "منشأة"]
    };
    format!("{} {}", pick(rng, kinds), pick(rng, VILLAGES))
}

fn rural_line1(rng: &mut ChaCha8Rng, upper_egypt: bool) -> String {
    match rng.random_range(0..10) {
        0..=4 => village(rng, upper_egypt),
        5..=7 => format!("ش {} - {}", street(rng), village(rng, upper_egypt)),
        _ => format!(
            "{} ش {} {}",
            house_number(rng),
            street(rng),
            village(rng, upper_egypt)
        ),
    }
}

impl Address {
    pub fn random(rng: &mut ChaCha8Rng, governorate: Governorate) -> Address {
        let places = places_of(governorate.code);
        let rural = !places.rural.is_empty() && (places.urban.is_empty() || chance(rng, 0.4));
        let upper_egypt = matches!(governorate.code, 22..=29 | 32);
        if rural {
            let centre = pick(rng, places.rural);
            let district = if chance(rng, 0.7) {
                format!("مركز {centre}")
            } else {
                (*centre).to_owned()
            };
            Address {
                line1: rural_line1(rng, upper_egypt),
                district,
                governorate,
            }
        } else {
            let area = *pick(rng, places.urban);
            // `أول المنصورة` reads only as `قسم أول المنصورة`.
            let numbered =
                area.starts_with("أول") || area.starts_with("ثان") || area.starts_with("ثالث");
            let district = if numbered || chance(rng, 0.25) {
                format!("قسم {area}")
            } else if matches!(governorate.code, 1 | 2 | 21) && chance(rng, 0.1) {
                format!("حي {area}")
            } else {
                area.to_owned()
            };
            Address {
                line1: urban_line1(rng),
                district,
                governorate,
            }
        }
    }

    pub fn line1(&self, style: &PrintStyle) -> String {
        style.apply(&self.line1)
    }

    /// `district - governorate`, as on the ID front's second address line.
    pub fn line2(&self, style: &PrintStyle) -> String {
        style.apply(&format!("{} - {}", self.district, self.governorate.arabic))
    }

    /// The whole address on one line (licences).
    pub fn one_line(&self, style: &PrintStyle) -> String {
        style.apply(&format!(
            "{} - {} - {}",
            self.line1, self.district, self.governorate.arabic
        ))
    }
}
