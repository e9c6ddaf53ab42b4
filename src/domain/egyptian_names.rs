//! Egyptian name lemmas with their conventional Latin spelling, gender, religion and
//! role: the 9,747 common and normal lemmas of egy-names (`names_egy.txt`, written by
//! `scripts/name_list.py`), which make up 99.4 % of the name words of the 3.79 M
//! Egyptian student records it counted. The pipeline checks its readings of names
//! against them ([`super::name_list`]) and spells in Latin the names the generator's
//! tables lack ([`super::transliterate`]); the generator draws names from them
//! beside its own tables.

use std::collections::HashMap;
use std::sync::LazyLock;

use super::Gender;
use crate::domain::vocab::names::{Faith, lookup_key};

/// Where a lemma stands in a name chain, as egy-names counted it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Given,
    Family,
    /// A kunya (`أبو ...`) or a tribal name.
    Other,
}

/// One lemma of `names_egy.txt`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lemma {
    pub arabic: &'static str,
    /// The conventional Latin spelling; `None` where the source's is not plain ASCII.
    pub latin: Option<&'static str>,
    /// Who carries it as a given name; `None`: men and women alike (or a family name).
    pub gender: Option<Gender>,
    pub faith: Faith,
    pub role: Role,
}

/// Parses `arabic|latin|gender|religion|role`; `#` starts a comment line.
fn parse(line: &'static str) -> Lemma {
    let mut parts = line.split('|');
    let mut next = || parts.next().unwrap_or("");
    let (arabic, latin, gender, religion, role) = (next(), next(), next(), next(), next());
    Lemma {
        arabic,
        latin: Some(latin).filter(|l| !l.is_empty()),
        gender: match gender {
            "m" => Some(Gender::Male),
            "f" => Some(Gender::Female),
            _ => None,
        },
        faith: match religion {
            "m" => Faith::Muslim,
            "c" => Faith::Christian,
            _ => Faith::Any,
        },
        role: match role {
            "g" => Role::Given,
            "f" => Role::Family,
            _ => Role::Other,
        },
    }
}

static LIST: LazyLock<Vec<Lemma>> = LazyLock::new(|| {
    include_str!("names_egy.txt")
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(parse)
        .collect()
});

/// Lookup key -> Latin spelling.
static LEMMAS: LazyLock<HashMap<String, Option<&'static str>>> = LazyLock::new(|| {
    LIST.iter()
        .map(|lemma| (lookup_key(lemma.arabic), lemma.latin))
        .collect()
});

/// Every lemma, in the file's order.
pub fn lemmas() -> &'static [Lemma] {
    &LIST
}

/// Whether `name` (a word or a compound, in any spelling of hamza, final yaa and taa
/// marbuta) is a common Egyptian name.
pub fn is_listed(name: &str) -> bool {
    LEMMAS.contains_key(&lookup_key(name))
}

/// The conventional Egyptian Latin spelling of `name` (`جمعة` -> `Gomaa`).
pub fn latin_of(name: &str) -> Option<&'static str> {
    LEMMAS.get(&lookup_key(name)).copied().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lemmas_load_with_their_spellings() {
        assert!(LEMMAS.len() > 9_000, "{}", LEMMAS.len());
        assert_eq!(latin_of("جمعة"), Some("Gomaa"));
        assert_eq!(latin_of("جمعه"), Some("Gomaa"));
        assert_eq!(latin_of("عبد الرؤوف"), Some("Abdelraouf"));
        assert!(is_listed("بسيونى"));
        // A rare lemma (often a record's typo) is left out.
        assert!(!is_listed("أبوجلوة"));
    }

    #[test]
    fn lemmas_carry_gender_faith_and_role() {
        let find = |arabic: &str| *lemmas().iter().find(|l| l.arabic == arabic).unwrap();
        let mohamed = find("محمد");
        assert_eq!(mohamed.gender, Some(Gender::Male));
        assert_eq!(mohamed.faith, Faith::Muslim);
        assert_eq!(mohamed.role, Role::Given);
        assert_eq!(find("آريني").faith, Faith::Christian);
        assert_eq!(find("آريني").gender, Some(Gender::Female));
        let given = |g| {
            lemmas()
                .iter()
                .filter(|l| l.role == Role::Given && l.gender == Some(g))
                .count()
        };
        assert!(given(Gender::Male) > 2_000 && given(Gender::Female) > 1_000);
        assert!(lemmas().iter().filter(|l| l.role == Role::Family).count() > 5_000);
    }
}
