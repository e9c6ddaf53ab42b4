//! What the recognizer's training crops print beyond a document's own fields: names
//! from the full list of Egyptian name lemmas, ordinary Arabic words, strings of
//! letters that give every letter form its share, addresses as printed (abbreviated
//! or in full), numbers with repeated digits and digits set against letters. The
//! documents' texts come from short lists and repeat; a recognizer trained on them alone
//! learns the lists, and misreads a name or a street it has not seen.

pub mod forms;

use std::sync::LazyLock;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::domain::digits::to_arabic_indic;
use crate::domain::egyptian_names;
use crate::layout::LineCategory;
use crate::synth::identity::{self, PrintStyle};

use forms::{Form, FormTally};
use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;

/// Which texts line crops print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LineTexts {
    /// Fields and labels of synthetic documents, and now and then a text of
    /// [`varied`] (names, words, letter strings, addresses, numbers): what the
    /// recognizer trains on.
    #[default]
    Varied,
    /// Only what the documents print, as the documents print it: what evaluation
    /// measures.
    Documents,
}

/// Share of crops of [`LineTexts::Varied`] that print a text of [`varied`] rather
/// than a document's field.
pub const VARIED_SHARE: f64 = 0.35;

/// Share of documents, and of line crops with digits, that print their Arabic-Indic
/// digits in the Persian forms (`۴ ۵ ۶`, U+06F0..U+06F9), as some faces draw them;
/// the truth keeps the Arabic-Indic digits they stand for.
pub const PERSIAN_DIGITS_SHARE: f64 = 0.12;

/// Arabic words of the Unicode CLDR (country, language, month and unit names...).
const CLDR_WORDS: &str = include_str!("words_cldr.txt");

static WORDS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    CLDR_WORDS
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect()
});

/// The letters letter strings draw from, each as often as any other.
const LETTERS: &str = "ءآأؤإئابةتثجحخدذرزسشصضطظعغفقكلمنهوىي";

/// Letters only a word's end prints.
const FINAL_ONLY: [char; 2] = ['ة', 'ى'];

/// A text beyond the documents' fields, with the category it is reported in.
pub fn varied(rng: &mut ChaCha8Rng) -> (String, LineCategory) {
    match rng.random_range(0..100) {
        0..=27 => (name_chain(rng), LineCategory::Name),
        28..=47 => (address(rng), LineCategory::Address),
        48..=64 => (words(rng), LineCategory::Other),
        65..=86 => (letter_strings(rng), LineCategory::Other),
        _ => (number(rng), LineCategory::Other),
    }
}

/// One to five lemmas of the full name list, any role and gender, spelt in a card's
/// habits.
fn name_chain(rng: &mut ChaCha8Rng) -> String {
    let lemmas = egyptian_names::lemmas();
    let n = rng.random_range(1..=5);
    let chain: Vec<&str> = (0..n)
        .map(|_| lemmas[rng.random_range(0..lemmas.len())].arabic)
        .collect();
    PrintStyle::random(rng).apply(&chain.join(" "))
}

/// An address line as some card prints it: the first line, the district and
/// governorate, or both on one line.
fn address(rng: &mut ChaCha8Rng) -> String {
    let governorate = identity::residential_governorate(rng);
    let address = identity::Address::random(rng, governorate);
    let style = PrintStyle::random(rng);
    match rng.random_range(0..4) {
        0 | 1 => address.line1(&style),
        2 => address.line2(&style),
        _ => address.one_line(&style),
    }
}

/// One to four ordinary words (the CLDR's or name lemmas).
fn words(rng: &mut ChaCha8Rng) -> String {
    let lemmas = egyptian_names::lemmas();
    let n = rng.random_range(1..=4);
    (0..n)
        .map(|_| {
            if rng.random_bool(0.5) {
                WORDS[rng.random_range(0..WORDS.len())]
            } else {
                lemmas[rng.random_range(0..lemmas.len())].arabic
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// One to five strings of letters, each built around one letter form, with random
/// letters around it that put it in that form; now and then a shadda over a letter.
/// The forms the names and words print least are drawn most ([`TARGETS`]), so that
/// every form of every letter is printed often. A third of the time, three to six
/// letters standing alone, as plates print them (`ن ص ر`).
fn letter_strings(rng: &mut ChaCha8Rng) -> String {
    let letters: Vec<char> = LETTERS.chars().collect();
    if rng.random_bool(0.35) {
        let n = rng.random_range(3..=6);
        return (0..n)
            .map(|_| letters[rng.random_range(0..letters.len())].to_string())
            .collect::<Vec<_>>()
            .join(" ");
    }
    let n = rng.random_range(1..=5);
    let mut strings = Vec::with_capacity(n);
    for _ in 0..n {
        let (target, form) = TARGETS.forms[TARGETS.weights.sample(rng)];
        let joined_before = matches!(form, Form::Medial | Form::Final);
        let joined_after = matches!(form, Form::Initial | Form::Medial);
        let mut s = String::new();
        // Letters before: the last one joins forwards exactly when the target is
        // joined from before.
        let before = rng.random_range(usize::from(joined_before)..=2);
        for i in 0..before {
            let last = i + 1 == before;
            s.push(random_letter(rng, &letters, |c| {
                !FINAL_ONLY.contains(&c) && (!last || forms::joins_forwards(c) == joined_before)
            }));
        }
        s.push(target);
        // Letters after: the first one joins backwards exactly when the target is
        // joined to what follows; a letter that only ends words ends the string.
        let after =
            if FINAL_ONLY.contains(&target) || (!joined_after && forms::joins_forwards(target)) {
                0
            } else {
                rng.random_range(usize::from(joined_after)..=3)
            };
        for i in 0..after {
            let last = i + 1 == after;
            s.push(random_letter(rng, &letters, |c| {
                (last || !FINAL_ONLY.contains(&c)) && (i > 0 || c != 'ء')
            }));
        }
        if s.chars().count() > 1 && rng.random_bool(0.05) {
            s.push('\u{0651}');
        }
        strings.push(s);
    }
    strings.join(" ")
}

/// Every letter form, and how to draw one for a letter string.
struct FormTargets {
    forms: Vec<(char, Form)>,
    /// Inversely proportional to how many name lemmas and words print each form, so
    /// the forms the other texts print least are drawn most.
    weights: WeightedIndex<f64>,
}

static TARGETS: LazyLock<FormTargets> = LazyLock::new(|| {
    let mut tally = FormTally::default();
    for text in egyptian_names::lemmas()
        .iter()
        .map(|l| l.arabic)
        .chain(WORDS.iter().copied())
    {
        tally.add(text);
    }
    let targets: Vec<(char, Form)> = LETTERS
        .chars()
        .flat_map(|c| forms::forms_of(c).iter().map(move |&f| (c, f)))
        .collect();
    let weights = targets
        .iter()
        .map(|&(c, f)| 1.0 / (tally.count(c, f) as f64 + 20.0));
    FormTargets {
        weights: WeightedIndex::new(weights).expect("every weight is positive"),
        forms: targets,
    }
});

/// A letter of `letters` that `fits`, drawn evenly.
fn random_letter(rng: &mut ChaCha8Rng, letters: &[char], fits: impl Fn(char) -> bool) -> char {
    loop {
        let c = letters[rng.random_range(0..letters.len())];
        if fits(c) {
            return c;
        }
    }
}

/// A number as addresses and plates print them: with a repeated digit (`٢٢٧`,
/// `٣٠٠`), a run of digits, or digits set against a word (`ش١٢`, `عمارة٣`).
fn number(rng: &mut ChaCha8Rng) -> String {
    let digits = |rng: &mut ChaCha8Rng| {
        let len = rng.random_range(1..=6);
        let first = rng.random_range(1..=9u32).to_string();
        let rest: String = (1..len)
            .map(|_| char::from_digit(rng.random_range(0..10), 10).unwrap_or('0'))
            .collect();
        first + &rest
    };
    let text = match rng.random_range(0..4) {
        0 | 1 => identity::repeated_digits(rng),
        2 => digits(rng),
        _ => {
            const WORDS_BEFORE_NUMBERS: [&str; 9] =
                ["ش", "ع", "م", "ق", "ح", "عمارة", "برج", "بلوك", "رقم"];
            let word = WORDS_BEFORE_NUMBERS[rng.random_range(0..WORDS_BEFORE_NUMBERS.len())];
            let number = if rng.random_bool(0.5) {
                identity::repeated_digits(rng)
            } else {
                digits(rng)
            };
            let joined = if rng.random_bool(0.6) {
                format!("{word}{number}")
            } else {
                format!("{word} {number}")
            };
            if rng.random_bool(0.5) {
                joined
            } else {
                format!("{} {joined}", WORDS[rng.random_range(0..WORDS.len())])
            }
        }
    };
    to_arabic_indic(&text)
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::forms::{forms_of, letters};
    use super::*;
    use crate::recognizer::vocab::{UNK, Vocab};

    #[test]
    fn every_word_list_loads() {
        assert!(WORDS.len() > 2_000, "{}", WORDS.len());
        assert!(
            WORDS
                .iter()
                .all(|w| w.chars().all(|c| ('\u{0621}'..='\u{064A}').contains(&c)))
        );
    }

    #[test]
    fn varied_texts_use_only_characters_the_recognizer_reads() {
        let vocab = Vocab::default_arabic_latin();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..2_000 {
            let (text, _) = varied(&mut rng);
            assert!(!text.trim().is_empty());
            assert_eq!(text, text.split_whitespace().collect::<Vec<_>>().join(" "));
            assert!(!vocab.encode(&text).contains(&UNK), "{text}");
        }
    }

    #[test]
    fn varied_texts_print_every_letter_form_and_digit_often() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut tally = FormTally::default();
        for _ in 0..4_000 {
            tally.add(&varied(&mut rng).0);
        }
        for letter in letters() {
            for &form in forms_of(letter) {
                let lines = tally.count(letter, form);
                assert!(
                    lines >= 40,
                    "{letter} {form:?} in only {lines} of 4,000 lines"
                );
            }
        }
        assert!(tally.digits.iter().all(|&n| n >= 100), "{:?}", tally.digits);
    }

    #[test]
    fn numbers_repeat_digits_and_meet_letters() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let numbers: Vec<String> = (0..400).map(|_| number(&mut rng)).collect();
        let repeated = |t: &String| {
            let d: Vec<char> = t.chars().collect();
            d.windows(2).any(|w| w[0] == w[1] && w[0].is_numeric())
        };
        assert!(numbers.iter().filter(|t| repeated(t)).count() > 150);
        let against_letter = |t: &String| {
            let d: Vec<char> = t.chars().collect();
            d.windows(2)
                .any(|w| w[0].is_alphabetic() && !w[0].is_numeric() && w[1].is_numeric())
        };
        assert!(numbers.iter().filter(|t| against_letter(t)).count() > 30);
        assert!(
            numbers
                .iter()
                .all(|t| !t.chars().any(|c| c.is_ascii_digit()))
        );
    }
}
