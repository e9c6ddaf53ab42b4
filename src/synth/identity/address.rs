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

/// How one address spells its place words: in full or abbreviated, as different
/// offices print them (`شارع` or `ش`, `عطفة` or `ع`, `ميدان` or `م`, `قطعة` or `ق`),
/// and whether a number is set against the word before it (`ش١٢`, `عمارة٣`).
struct Spelling {
    street: &'static str,
    alley: &'static str,
    square: &'static str,
    plot: &'static str,
    number_joined: bool,
}

impl Spelling {
    fn random(rng: &mut ChaCha8Rng) -> Spelling {
        let word = |rng: &mut ChaCha8Rng, full: &'static str, short: &'static str, p_full: f64| {
            if chance(rng, p_full) { full } else { short }
        };
        Spelling {
            street: word(rng, "شارع", "ش", 0.35),
            alley: word(rng, "عطفة", "ع", 0.75),
            square: word(rng, "ميدان", "م", 0.6),
            plot: word(rng, "قطعة", "ق", 0.3),
            number_joined: chance(rng, 0.12),
        }
    }

    /// `word` followed by `number`, apart or set against it.
    fn numbered(&self, word: &str, number: &str) -> String {
        if self.number_joined {
            format!("{word}{number}")
        } else {
            format!("{word} {number}")
        }
    }
}

/// A house number: mostly small, skewed towards low numbers; now and then one with
/// a repeated digit (`٢٢٧`, `٣٠٠`, `١١١١`), which the recognizer must not merge.
fn house_number(rng: &mut ChaCha8Rng) -> String {
    let n: u32 = match rng.random_range(0..20) {
        0..=10 => rng.random_range(1..=40),
        11..=15 => rng.random_range(1..=200),
        16..=17 => rng.random_range(100..=999),
        _ => return to_arabic_indic(&repeated_digits(rng)),
    };
    to_arabic_indic(&n.to_string())
}

/// A number of 2 to 4 digits with a digit repeated side by side: `227`, `300`,
/// `1111`, `4455`.
pub fn repeated_digits(rng: &mut ChaCha8Rng) -> String {
    let len = rng.random_range(2..=4usize);
    let run = rng.random_range(2..=len);
    let at = rng.random_range(0..=len - run);
    // No leading zero.
    let first = |i: usize| u32::from(i == 0);
    let repeated = rng.random_range(first(at)..=9);
    let mut out = String::with_capacity(len);
    for i in 0..len {
        let d = if (at..at + run).contains(&i) {
            repeated
        } else {
            rng.random_range(first(i)..=9)
        };
        out.push(char::from_digit(d, 10).unwrap_or('0'));
    }
    out
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

const DISTRICT_ORDINALS: [&str; 7] = [
    "الأول",
    "الثاني",
    "الثالث",
    "الرابع",
    "الخامس",
    "السابع",
    "العاشر",
];

fn urban_line1(rng: &mut ChaCha8Rng) -> String {
    let w = Spelling::random(rng);
    let n = house_number(rng);
    let (st, alley) = (w.street, w.alley);
    match rng.random_range(0..100) {
        0..=40 => format!("{n} {st} {}", street(rng)),
        41..=49 => format!("{n} {alley} {} من {st} {}", pick(rng, ALLEYS), street(rng)),
        50..=56 => format!("{n} {st} {} {alley} {}", street(rng), pick(rng, ALLEYS)),
        57..=62 => format!("{n} حارة {}", pick(rng, ALLEYS)),
        63..=67 => format!("{n} {} عمارات", pick(rng, COMPOUNDS)),
        68..=72 => format!("{} مساكن {}", w.numbered("عمارة", &n), pick(rng, COMPOUNDS)),
        73..=77 => format!(
            "{} المجاورة {} الحي {}",
            w.numbered(w.plot, &n),
            to_arabic_indic(&rng.random_range(1..=9).to_string()),
            pick(rng, &DISTRICT_ORDINALS)
        ),
        78..=82 => format!(
            "{} {} الحي {}",
            w.numbered("عمارة", &n),
            w.numbered(st, &to_arabic_indic(&rng.random_range(1..=40).to_string())),
            pick(rng, &DISTRICT_ORDINALS)
        ),
        83..=86 => format!("{n} {} {}", w.square, street(rng)),
        87..=93 => format!("{n} {st} {} متفرع من {st} {}", street(rng), street(rng)),
        _ => format!("{n} امتداد {st} {}", street(rng)),
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
    let st = Spelling::random(rng).street;
    match rng.random_range(0..10) {
        0..=4 => village(rng, upper_egypt),
        5..=7 => format!("{st} {} - {}", street(rng), village(rng, upper_egypt)),
        _ => format!(
            "{} {st} {} {}",
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
