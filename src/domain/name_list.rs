//! Choosing a reading of a line of personal names with the help of the name list.
//!
//! Egyptian names come mostly from a closed set, and the recognizer's misreadings of
//! them are one dot or tooth away from the truth (`يولس` for `بولس`, `حسوقى` for
//! `دسوقى`), with the right reading usually its runner-up at nearly the same
//! probability. So among the hypotheses, one whose words are all listed names gets a
//! head start over one with a word nobody is called ([`super::lexicon`]).
//!
//! The list is the generator's own name tables plus the common Egyptian lemmas of
//! [`super::egyptian_names`]: a real holder's name is almost always listed, and its
//! rare neighbours (often a record's typo) are not.

use super::arabic::is_arabic_word;
use super::egyptian_names;
use super::lexicon;
use crate::domain::vocab::names::latin_of;

/// What an unlisted word costs a hypothesis, in natural log of probability: a
/// hypothesis whose words are all listed wins over the best reading if it is at
/// least `exp(-WEIGHT)` as probable for each unlisted word of the best.
/// Chosen with `hawiya eval lines --as-pipeline --name-list-weight W` on tuning crops
/// (1,262 name lines of seeds 4246, 4243, 4245), run-11 weights, beam 3: lines wrong
/// 166 without the list; 150, 145 and 145 at 0.5, 1.0 and 1.5. With the generator's
/// tables alone and a fifth of them hidden (names the list lacks), 1.0 still fixed
/// more than it broke (166 -> 156) where 2.5 broke scans (5 -> 13).
pub const UNLISTED_WORD_WEIGHT: f32 = 1.0;

/// The words of `line` that may be names: Arabic-script tokens (labels such as
/// `الزوج :` count too, but weigh the same in every hypothesis of one line).
fn words(line: &str) -> Vec<&str> {
    line.split_whitespace()
        .filter(|w| is_arabic_word(w))
        .collect()
}

/// How many words of a name line the name list does not know. A pair of words is
/// looked up first, for compounds (`عبد الرحمن`, `صلاح الدين`); spelling variants of
/// hamza, final yaa and taa marbuta are all known.
pub fn unlisted_words(line: &str) -> usize {
    let words = words(line);
    let mut unlisted = 0;
    let mut i = 0;
    while i < words.len() {
        if i + 1 < words.len() && listed(&format!("{} {}", words[i], words[i + 1])) {
            i += 2;
            continue;
        }
        if !listed(words[i]) {
            unlisted += 1;
        }
        i += 1;
    }
    unlisted
}

/// Whether a name (one word or a compound) is in either list: the generator's own
/// tables, whose names every transliteration knows, or the Egyptian lemmas.
fn listed(name: &str) -> bool {
    latin_of(name).is_some() || egyptian_names::is_listed(name)
}

/// Which of a name line's hypotheses `(text, probability)`, best first, to keep
/// ([`lexicon::choose`], counting the name words of each line).
pub fn choose(hypotheses: &[(&str, f32)], weight: f32) -> usize {
    lexicon::choose(hypotheses, weight, |line| words(line).len(), unlisted_words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_unlisted_words_with_compounds_and_spelling_variants() {
        assert_eq!(unlisted_words("محمد احمد عبد الرحمن"), 0);
        assert_eq!(unlisted_words("محمد أحمد عبدالرحمن على"), 0);
        assert_eq!(unlisted_words("ميرنا باسل يولس رامى"), 1);
        assert_eq!(unlisted_words("الزوج : عيد دسوقى"), 1);
        assert_eq!(unlisted_words(""), 0);
    }

    #[test]
    fn common_egyptian_names_beyond_the_generators_are_listed() {
        // Common names the generator's tables lack, in any print style.
        for name in ["جمعة", "بسيوني", "عبد الرؤوف", "نورهان"] {
            assert!(latin_of(name).is_none(), "{name}");
        }
        assert_eq!(unlisted_words("جمعة بسيونى عبد الرؤوف نورهان"), 0);
        // A rare lemma (often a records' typo) is not vouched for.
        assert_eq!(unlisted_words("أبوجلوة"), 1);
    }

    #[test]
    fn a_listed_runner_up_wins_only_when_nearly_as_likely() {
        let close = [
            ("ميرنا باسل يولس رامى", 0.89),
            ("ميرنا باسل بولس رامى", 0.82),
        ];
        assert_eq!(choose(&close, UNLISTED_WORD_WEIGHT), 1);
        let far = [
            ("ميرنا باسل يولس رامى", 0.89),
            ("ميرنا باسل بولس رامى", 0.2),
        ];
        assert_eq!(choose(&far, UNLISTED_WORD_WEIGHT), 0);
        assert_eq!(
            choose(&close, 0.0),
            0,
            "weight 0 keeps the recognizer's order"
        );
    }

    #[test]
    fn a_hypothesis_with_fewer_words_is_never_preferred() {
        let dropped = [("عبد الباقصود أبمن عمار", 0.31), ("عبد عمر إسماعيل", 0.30)];
        assert_eq!(choose(&dropped, UNLISTED_WORD_WEIGHT), 0);
        assert_eq!(choose(&[], UNLISTED_WORD_WEIGHT), 0);
    }
}
