//! Egyptian given and family names with their preferred Latin spelling and faith.
//!
//! One table serves both the generator (which picks names from it) and
//! [`crate::domain::transliterate`] (which looks whole names up in it before falling
//! back to letter rules), so a generated passport's Latin name is exactly what the
//! pipeline would transliterate. The lists are our own, written for hawiya.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::domain::arabic::fold;

/// Which communities use a name: Egyptian name chains reveal the holder's religion,
/// and the printed religion must agree with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Faith {
    Muslim,
    Christian,
    Any,
}

impl Faith {
    fn parse(tag: &str) -> Option<Faith> {
        match tag {
            "m" => Some(Faith::Muslim),
            "c" => Some(Faith::Christian),
            "a" => Some(Faith::Any),
            _ => None,
        }
    }

    /// Whether a person of `faith` (Muslim or Christian) may carry a name tagged `self`.
    pub fn fits(self, faith: Faith) -> bool {
        self == Faith::Any || self == faith
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Name {
    pub arabic: &'static str,
    pub latin: &'static str,
    pub faith: Faith,
}

const MALE: &str = include_str!("names_male.txt");
const FEMALE: &str = include_str!("names_female.txt");
const FAMILY: &str = include_str!("names_family.txt");

/// Parses `arabic|latin|faith` lines; `#` starts a comment line.
fn parse(table: &'static str) -> Vec<Name> {
    table
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let mut parts = line.split('|');
            let (Some(arabic), Some(latin), Some(faith)) =
                (parts.next(), parts.next(), parts.next())
            else {
                panic!("malformed name line {line:?}");
            };
            let faith = Faith::parse(faith).unwrap_or_else(|| panic!("bad faith tag in {line:?}"));
            Name {
                arabic,
                latin,
                faith,
            }
        })
        .collect()
}

/// A name list split by the faith of the person who may carry it.
pub struct NamePool {
    pub all: Vec<Name>,
    pub muslim: Vec<Name>,
    pub christian: Vec<Name>,
}

impl NamePool {
    fn new(all: Vec<Name>) -> NamePool {
        let muslim = all
            .iter()
            .copied()
            .filter(|n| n.faith.fits(Faith::Muslim))
            .collect();
        let christian = all
            .iter()
            .copied()
            .filter(|n| n.faith.fits(Faith::Christian))
            .collect();
        NamePool {
            all,
            muslim,
            christian,
        }
    }

    /// The names a person of `faith` may carry (`Any` gives every name).
    pub fn for_faith(&self, faith: Faith) -> &[Name] {
        match faith {
            Faith::Muslim => &self.muslim,
            Faith::Christian => &self.christian,
            Faith::Any => &self.all,
        }
    }
}

pub struct NameTables {
    pub male: NamePool,
    pub female: NamePool,
    pub family: NamePool,
    /// Folded Arabic without spaces -> Latin; the first listing of a name wins.
    latin: HashMap<String, &'static str>,
}

/// Key under which a whole name is looked up: folded, spaces removed, so `عبد الرحمن`,
/// `عبدالرحمن` and `عبد الرحمان`'s neighbours in spelling meet.
pub fn lookup_key(arabic: &str) -> String {
    fold(arabic)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

static TABLES: LazyLock<NameTables> = LazyLock::new(|| {
    let male = parse(MALE);
    let female = parse(FEMALE);
    let family = parse(FAMILY);
    let mut latin = HashMap::new();
    for name in male
        .iter()
        .chain(&female)
        .chain(&family)
        .copied()
        .chain(super::foreign::names())
    {
        latin.entry(lookup_key(name.arabic)).or_insert(name.latin);
    }
    NameTables {
        male: NamePool::new(male),
        female: NamePool::new(female),
        family: NamePool::new(family),
        latin,
    }
});

pub fn tables() -> &'static NameTables {
    &TABLES
}

/// The preferred Egyptian Latin spelling of a whole name (`محمد` -> `Mohamed`,
/// `عبد الرحمن` -> `Abdelrahman`), tolerant to hamza, yaa and taa-marbuta variants.
pub fn latin_of(arabic: &str) -> Option<&'static str> {
    TABLES.latin.get(&lookup_key(arabic)).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_parse_and_are_large_enough() {
        let t = tables();
        assert!(t.male.all.len() >= 250, "{}", t.male.all.len());
        assert!(t.female.all.len() >= 150);
        assert!(t.family.all.len() >= 100);
        assert!(t.male.christian.len() >= 60);
        assert!(t.female.christian.len() >= 40);
        for name in t.male.all.iter().chain(&t.female.all).chain(&t.family.all) {
            assert!(
                name.latin
                    .chars()
                    .all(|c| c.is_ascii_alphabetic() || c == ' '),
                "{name:?}"
            );
            assert!(
                name.arabic
                    .chars()
                    .all(|c| ('\u{0621}'..='\u{064A}').contains(&c) || c == ' '),
                "{name:?}"
            );
        }
    }

    #[test]
    fn looks_up_spelling_variants() {
        assert_eq!(latin_of("محمد"), Some("Mohamed"));
        assert_eq!(latin_of("احمد"), Some("Ahmed"));
        assert_eq!(latin_of("عبدالرحمن"), Some("Abdelrahman"));
        assert_eq!(latin_of("على"), Some("Ali"));
        assert_eq!(latin_of("فاطمه"), Some("Fatma"));
        assert_eq!(latin_of("زززز"), None);
    }
}
