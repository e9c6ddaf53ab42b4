//! Arabic names to Latin script, the way Egyptian documents spell them
//! (docs/domain.md §6): `ج` is G, a final nisba `ي` is y, the article is `El`,
//! `عبد ال…` is `Abdel…`, a final `ة` is a.
//!
//! Whole names are looked up first in the name table the generator draws from
//! ([`crate::domain::vocab::names`]), then in the common Egyptian lemmas
//! ([`super::egyptian_names`]), so the conventional spelling wins (`محمد` is Mohamed,
//! not Mhmd; `جمعة` is Gomaa); unknown words fall back to letter rules with a little
//! vowel guessing, which any Arabic text passes through without failing.

use crate::domain::vocab::names::latin_of;

use super::arabic::{fold, is_arabic_word};
use super::digits::to_ascii_digits;
use super::egyptian_names;

/// Whose spelling habits to follow. Egyptian documents use [`Convention::Egyptian`];
/// the others serve foreigners' permits, whose names are spelt as their own
/// passports spell them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Convention {
    /// Mohamed, Gamal, Elsayed, Abdelrahman, Fathy.
    Egyptian,
    /// Syria, Jordan, Palestine, Iraq: Mohammad, Jamal, Alsayed, Abdulrahman, Fathi.
    Levantine,
    /// Yemen, Saudi Arabia: Mohammed, Jamal, Alsayed, Abdulrahman, Fathi.
    Peninsular,
    /// Sudan, Libya: Mohamed, Jamal, Elsayed, Abdelrahman, Fathi.
    Sudanese,
    /// Names of non-Arab people written in Arabic by sound: the dictionary spelling
    /// as is, letter rules otherwise.
    Verbatim,
}

/// Transliterates a whole name (or any Arabic text) with Egyptian conventions;
/// words come out capitalised (`Mohamed Ahmed Elsayed`).
pub fn transliterate(text: &str) -> String {
    transliterate_with(text, Convention::Egyptian)
}

/// Transliterates with the given convention.
pub fn transliterate_with(text: &str, convention: Convention) -> String {
    let tokens: Vec<String> = text
        .split(|c: char| c.is_whitespace())
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect();
    let mut out: Vec<String> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let (word, used) = compound_at(&tokens[i..]);
        out.push(word_latin(&word, convention));
        i += used;
    }
    out.retain(|w| !w.is_empty());
    out.join(" ")
}

/// Joins the compounds that Egyptian spelling writes as one Latin word: `عبد X`,
/// `أبو X`, `X الدين`, `X الله`. Returns the joined Arabic and how many tokens it used.
fn compound_at(tokens: &[String]) -> (String, usize) {
    let first = fold(&tokens[0]);
    if let Some(next) = tokens.get(1) {
        let next_folded = fold(next);
        let joins_next = matches!(first.as_str(), "عبد" | "ابو" | "ام")
            || matches!(next_folded.as_str(), "الدين" | "الله" | "الرسول");
        if joins_next && is_arabic_word(&tokens[0]) && is_arabic_word(next) {
            return (format!("{}{}", tokens[0], next), 2);
        }
    }
    (tokens[0].clone(), 1)
}

/// One word (possibly a joined compound) to Latin.
fn word_latin(word: &str, convention: Convention) -> String {
    if !is_arabic_word(word) {
        // Digits, Latin text, punctuation: keep, with ASCII digits.
        return to_ascii_digits(word);
    }
    let egyptian = egyptian_word(word);
    adapt(word, egyptian, convention)
}

fn egyptian_word(word: &str) -> String {
    if let Some(latin) = latin_of(word).or_else(|| egyptian_names::latin_of(word)) {
        return latin.to_owned();
    }
    let folded = fold(word);
    // `عبد` + name: Abdel + the name without its article.
    if let Some(rest) = folded
        .strip_prefix("عبد")
        .filter(|r| r.chars().count() >= 2)
    {
        return match rest.strip_prefix("ال") {
            Some(name) => format!("Abdel{}", lower(&egyptian_word(name))),
            None => format!("Abd{}", lower(&egyptian_word(rest))),
        };
    }
    if let Some(rest) = folded
        .strip_prefix("ابو")
        .filter(|r| r.chars().count() >= 2)
    {
        return match rest.strip_prefix("ال") {
            Some(name) => format!("Aboul{}", lower(&egyptian_word(name))),
            None => format!("Abou{}", lower(&egyptian_word(rest))),
        };
    }
    if let Some(stem) = folded.strip_suffix("الدين").filter(|s| !s.is_empty()) {
        return format!("{}eldin", egyptian_word(stem));
    }
    if let Some(stem) = folded.strip_suffix("الله").filter(|s| !s.is_empty()) {
        return format!("{}allah", egyptian_word(stem));
    }
    // The article: El + the rest, joined (`السيد` -> Elsayed).
    if let Some(rest) = word_without_article(word) {
        return format!("El{}", lower(&egyptian_word(&rest)));
    }
    capitalise(&letters_to_latin(word))
}

/// The word without a leading `ال` when what remains is still a word.
fn word_without_article(word: &str) -> Option<String> {
    let rest = word.strip_prefix("ال")?;
    (rest.chars().count() >= 2).then(|| rest.to_owned())
}

/// Adapts an Egyptian spelling to another convention.
fn adapt(arabic: &str, egyptian: String, convention: Convention) -> String {
    let folded = fold(arabic);
    let (mohamed, ahmed, abdel, article) = match convention {
        Convention::Egyptian | Convention::Verbatim => return egyptian,
        Convention::Levantine => ("Mohammad", "Ahmad", "Abdul", "Al"),
        Convention::Peninsular => ("Mohammed", "Ahmed", "Abdul", "Al"),
        Convention::Sudanese => ("Mohamed", "Ahmed", "Abdel", "El"),
    };
    match folded.as_str() {
        "محمد" => return mohamed.to_owned(),
        "احمد" => return ahmed.to_owned(),
        _ => {}
    }
    let mut latin = egyptian;
    if let Some(rest) = latin.strip_prefix("Abdel") {
        latin = format!("{abdel}{rest}");
    } else if let Some(rest) = latin
        .strip_prefix("El")
        .filter(|_| folded.starts_with("ال"))
    {
        latin = format!("{article}{rest}");
    }
    if folded.contains('ج') {
        latin = replace_unless_before_h(&latin, 'g', 'j');
    }
    if convention != Convention::Sudanese && folded.contains('ق') && !folded.contains('ك') {
        latin = replace_unless_before_h(&latin, 'k', 'q');
    }
    if latin.ends_with('y') && (arabic.ends_with('ي') || arabic.ends_with('ى')) {
        latin.pop();
        latin.push('i');
    }
    latin
}

/// `from` (either case) becomes `to` except where it opens a digraph with `h` (`gh`, `kh`).
fn replace_unless_before_h(latin: &str, from: char, to: char) -> String {
    let chars: Vec<char> = latin.chars().collect();
    chars
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            if chars.get(i + 1) == Some(&'h') {
                c
            } else if c == from {
                to
            } else if c == from.to_ascii_uppercase() {
                to.to_ascii_uppercase()
            } else {
                c
            }
        })
        .collect()
}

fn lower(text: &str) -> String {
    text.to_lowercase()
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A transliteration unit: a consonant or a vowel, in Latin.
#[derive(Debug, Clone, PartialEq)]
enum Unit {
    C(&'static str),
    V(&'static str),
}

/// Letter rules for a word missing from the dictionary. Short vowels are not written
/// in Arabic, so a few are guessed: `a` after an initial consonant cluster (`سمير` ->
/// Samir), `e` before a final consonant after a long vowel (`كامل` -> Kamel).
fn letters_to_latin(word: &str) -> String {
    let letters: Vec<char> = word
        .chars()
        .filter(|c| !matches!(c, '\u{064B}'..='\u{0652}' | '\u{0670}' | '\u{0640}'))
        .collect();
    let mut units: Vec<Unit> = Vec::with_capacity(letters.len() + 2);
    let n = letters.len();
    for (i, &c) in letters.iter().enumerate() {
        let initial = i == 0;
        let last = i + 1 == n;
        let prev_vowel = matches!(units.last(), Some(Unit::V(_)) | None);
        let next_is_vowel_letter = letters.get(i + 1).is_some_and(|c| is_vowel_letter(*c));
        let unit = match c {
            'ا' | 'أ' | 'آ' | 'ٱ' => Unit::V("a"),
            'إ' => Unit::V(if initial { "e" } else { "a" }),
            'ئ' => Unit::V("e"),
            'ؤ' => Unit::V("o"),
            'ء' => {
                if prev_vowel {
                    Unit::V("a")
                } else {
                    continue;
                }
            }
            'و' => {
                if initial || prev_vowel || next_is_vowel_letter {
                    Unit::C("w")
                } else {
                    Unit::V("ou")
                }
            }
            'ي' | 'ی' => {
                if initial || prev_vowel || next_is_vowel_letter {
                    Unit::C("y")
                } else if last {
                    Unit::V("y")
                } else {
                    Unit::V("i")
                }
            }
            'ى' => Unit::V(if last { "y" } else { "a" }),
            'ة' => {
                if last {
                    Unit::V("a")
                } else {
                    Unit::C("t")
                }
            }
            'ه' if last && !prev_vowel => Unit::V("a"),
            'ع' => {
                if initial {
                    Unit::V("a")
                } else if last {
                    Unit::V("e")
                } else if next_is_vowel_letter {
                    continue;
                } else {
                    Unit::V("a")
                }
            }
            c => match consonant(c) {
                Some(latin) => Unit::C(latin),
                None => continue,
            },
        };
        units.push(unit);
    }
    insert_vowels(&mut units);
    units
        .iter()
        .map(|u| match u {
            Unit::C(s) | Unit::V(s) => *s,
        })
        .collect()
}

fn is_vowel_letter(c: char) -> bool {
    matches!(c, 'ا' | 'أ' | 'إ' | 'آ' | 'و' | 'ي' | 'ى' | 'ة')
}

fn consonant(c: char) -> Option<&'static str> {
    Some(match c {
        'ب' => "b",
        'ت' => "t",
        'ث' => "th",
        'ج' => "g",
        'ح' => "h",
        'خ' => "kh",
        'د' => "d",
        'ذ' => "z",
        'ر' => "r",
        'ز' => "z",
        'س' => "s",
        'ش' => "sh",
        'ص' => "s",
        'ض' => "d",
        'ط' => "t",
        'ظ' => "z",
        'غ' => "gh",
        'ف' => "f",
        'ق' => "k",
        'ك' | 'ک' => "k",
        'ل' => "l",
        'م' => "m",
        'ن' => "n",
        'ه' => "h",
        'پ' => "p",
        'چ' => "ch",
        'ڤ' => "v",
        _ => return None,
    })
}

fn insert_vowels(units: &mut Vec<Unit>) {
    let is_c = |u: Option<&Unit>| matches!(u, Some(Unit::C(_)));
    // Initial cluster: CC... -> CaC... (also a bare two-consonant word: `صف` -> Saf).
    if units.len() >= 2 && is_c(units.first()) && is_c(units.get(1)) {
        units.insert(1, Unit::V("a"));
    }
    // Final cluster: ...VCC -> ...VCeC, ...CCC -> ...CCaC.
    let n = units.len();
    if n >= 3 && is_c(units.get(n - 1)) && is_c(units.get(n - 2)) {
        let vowel = if is_c(units.get(n - 3)) { "a" } else { "e" };
        units.insert(n - 1, Unit::V(vowel));
    }
}

/// Compares two Latin spellings ignoring case, spaces and hyphens
/// (`El-Sayed` = `Elsayed`), for checks that accept any spacing convention.
pub fn same_spelling(a: &str, b: &str) -> bool {
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    squash(a) == squash(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_names_beyond_the_generators_take_their_egyptian_spelling() {
        assert_eq!(
            transliterate("جمعة بسيونى المتولي عبد الرؤوف"),
            "Gomaa Bassiouny Elmetwally Abdelraouf"
        );
    }

    #[test]
    fn dictionary_names_take_the_egyptian_spelling() {
        for (arabic, latin) in [
            ("محمد", "Mohamed"),
            ("أحمد", "Ahmed"),
            ("احمد", "Ahmed"),
            ("عبد الرحمن", "Abdelrahman"),
            ("عبدالرحمن", "Abdelrahman"),
            ("السيد", "Elsayed"),
            ("جمال", "Gamal"),
            ("فتحي", "Fathy"),
            ("فتحى", "Fathy"),
            ("مصطفى", "Mostafa"),
            ("يوسف", "Youssef"),
            ("فاطمة", "Fatma"),
            ("فاطمه", "Fatma"),
            ("عبد الله", "Abdullah"),
            ("نور الدين", "Noureldin"),
        ] {
            assert_eq!(transliterate(arabic), latin, "{arabic}");
        }
    }

    #[test]
    fn full_chains_keep_word_order() {
        assert_eq!(
            transliterate("محمد أحمد علي السيد"),
            "Mohamed Ahmed Ali Elsayed"
        );
        assert_eq!(
            transliterate("باسل اشرف عبدالعزيز محمد حسنين"),
            "Basel Ashraf Abdelaziz Mohamed Hassanein"
        );
        assert_eq!(transliterate("  هاني   عبد الحميد "), "Hany Abdelhamid");
    }

    #[test]
    fn unknown_words_follow_the_letter_rules() {
        // None of these is in the generator's name table. `الجمالي` and `دمارة` are in
        // no list at all; the letter rules spell the others as the common lemmas do.
        assert_eq!(transliterate("عبد المحسن"), "Abdelmohsen");
        assert_eq!(transliterate("الجمالي"), "Elgamaly");
        assert_eq!(transliterate("دمارة"), "Damara");
        assert_eq!(transliterate("كمالي"), "Kamaly");
        assert_eq!(transliterate("زغلول"), "Zaghloul");
        assert_eq!(transliterate("الصوابي"), "Elsawaby");
    }

    #[test]
    fn any_text_passes_through() {
        assert_eq!(transliterate(""), "");
        assert_eq!(transliterate("١٢ ش التحرير"), "12 Sh Eltahrir");
        assert_eq!(transliterate("ABC 12"), "ABC 12");
        assert_eq!(transliterate("ـــ ، ؟"), "، ؟");
        for text in ["ء", "ة", "ى", "ع", "ال", "عبد", "ابو", "الله", "ؤئ"] {
            let _ = transliterate(text);
        }
    }

    #[test]
    fn other_conventions() {
        assert_eq!(
            transliterate_with("محمد جمال السيد", Convention::Levantine),
            "Mohammad Jamal Alsayed"
        );
        assert_eq!(
            transliterate_with("عبد الرحمن فتحي", Convention::Peninsular),
            "Abdulrahman Fathi"
        );
        assert_eq!(transliterate_with("طارق", Convention::Levantine), "Tareq");
        assert_eq!(
            transliterate_with("محمد رجب", Convention::Sudanese),
            "Mohamed Rajab"
        );
        assert_eq!(transliterate_with("جون", Convention::Verbatim), "John");
    }

    #[test]
    fn spelling_comparison_ignores_spacing() {
        assert!(same_spelling("El-Sayed", "ELSAYED"));
        assert!(!same_spelling("Elsayed", "Sayed"));
    }
}
