//! Egyptian name lemmas with their conventional Latin spelling: the 9,747 common and
//! normal lemmas of egy-names (`names_egy.txt`, written by `scripts/name_list.py`),
//! which make up 99.4 % of the name words of the 3.79 M Egyptian student records it
//! counted. The reader checks its readings of names against them
//! ([`super::name_list`]) and spells in Latin the names the generator's tables lack
//! ([`super::transliterate`]).

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::domain::vocab::names::lookup_key;

/// Lookup key -> Latin spelling (`None` where the source's is not plain ASCII).
static LEMMAS: LazyLock<HashMap<String, Option<&'static str>>> = LazyLock::new(|| {
    include_str!("names_egy.txt")
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (arabic, latin) = line.split_once('|').unwrap_or((line, ""));
            (lookup_key(arabic), Some(latin).filter(|l| !l.is_empty()))
        })
        .collect()
});

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
}
