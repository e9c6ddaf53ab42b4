//! Spelling habits of the printing office. Egyptian cards often drop the hamza of an
//! initial alef (`احمد`), print a final yaa as alef maqsura (`على`, `لاظوغلى`) and
//! join compounds (`عبدالعزيز`); one card follows one habit throughout.

use rand_chacha::ChaCha8Rng;

use super::chance;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PrintStyle {
    pub drop_initial_hamza: bool,
    pub final_yaa_as_maqsura: bool,
    pub join_abd: bool,
}

impl PrintStyle {
    pub fn random(rng: &mut ChaCha8Rng) -> PrintStyle {
        PrintStyle {
            drop_initial_hamza: chance(rng, 0.35),
            final_yaa_as_maqsura: chance(rng, 0.3),
            join_abd: chance(rng, 0.4),
        }
    }

    /// `text` (names, addresses) spelt the way this card spells it.
    pub fn apply(&self, text: &str) -> String {
        let mut words: Vec<String> = Vec::new();
        for word in text.split(' ') {
            let mut word = word.to_owned();
            if self.drop_initial_hamza && word.starts_with(['أ', 'إ', 'آ']) {
                word = format!("ا{}", &word['أ'.len_utf8()..]);
            }
            if self.final_yaa_as_maqsura && word.chars().count() >= 2 && word.ends_with('ي') {
                word.pop();
                word.push('ى');
            }
            match words.last_mut() {
                Some(prev) if self.join_abd && prev == "عبد" && word.starts_with("ال") => {
                    prev.push_str(&word)
                }
                _ => words.push(word),
            }
        }
        words.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::transliterate::transliterate;
    use crate::domain::vocab::names::{latin_of, tables};

    #[test]
    fn applies_each_habit() {
        let all = PrintStyle {
            drop_initial_hamza: true,
            final_yaa_as_maqsura: true,
            join_abd: true,
        };
        assert_eq!(
            all.apply("أحمد علي عبد العزيز إبراهيم"),
            "احمد على عبدالعزيز ابراهيم"
        );
        assert_eq!(
            PrintStyle::default().apply("أحمد علي عبد العزيز"),
            "أحمد علي عبد العزيز"
        );
    }

    /// Every listed name transliterates to its own Latin spelling, however a card
    /// spells it, so generated Latin names and the pipeline's `_en` fields agree.
    #[test]
    fn every_name_transliterates_to_its_listed_spelling_in_every_print_style() {
        let t = tables();
        let mut clashes = Vec::new();
        for name in t.male.all.iter().chain(&t.female.all).chain(&t.family.all) {
            if latin_of(name.arabic) != Some(name.latin) {
                clashes.push(format!(
                    "{} {} vs {:?}",
                    name.arabic,
                    name.latin,
                    latin_of(name.arabic)
                ));
                continue;
            }
            for style in [
                PrintStyle {
                    drop_initial_hamza: true,
                    final_yaa_as_maqsura: true,
                    join_abd: true,
                },
                PrintStyle::default(),
            ] {
                let printed = style.apply(name.arabic);
                assert_eq!(transliterate(&printed), name.latin, "{printed}");
            }
        }
        assert!(clashes.is_empty(), "{clashes:#?}");
    }
}
