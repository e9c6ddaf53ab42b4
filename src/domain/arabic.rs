//! Folding Arabic text for tolerant matching: printed cards and OCR disagree on hamza
//! seats, final yaa and taa marbuta (`أحمد`/`احمد`, `على`/`علي`, `القاهرة`/`القاهره`),
//! so lookups compare folded forms, never raw text.

/// Whether `listed` holds `name` in some spelling of hamza, final yaa and taa
/// marbuta ([`fold`]).
pub fn is_among<'a>(name: &str, listed: impl IntoIterator<Item = &'a str>) -> bool {
    let folded = fold(name);
    listed.into_iter().any(|entry| fold(entry) == folded)
}

/// Letters told apart from a bare letter only by a small mark (a hamza, a madda,
/// a wasla, a final ya's missing dots), each with that letter.
const MARKED_LETTERS: [(char, char); 7] = [
    ('أ', 'ا'),
    ('إ', 'ا'),
    ('آ', 'ا'),
    ('ٱ', 'ا'),
    ('ى', 'ي'),
    ('ئ', 'ي'),
    ('ؤ', 'و'),
];

/// `c` without its small mark ([`MARKED_LETTERS`]): a hamza seat, madda or wasla as
/// its bare letter, alef maqsura as ya; any other character as it is.
pub fn unmarked(c: char) -> char {
    MARKED_LETTERS
        .iter()
        .find(|&&(marked, _)| marked == c)
        .map_or(c, |&(_, bare)| bare)
}

/// Folds `text` for comparison: drops diacritics and tatweel, maps `أإآٱ→ا`, `ى→ي`,
/// `ة→ه`, `ؤ→و`, `ئ→ي` ([`unmarked`]), Persian `ی ک` to Arabic, and collapses runs
/// of whitespace.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        let mapped = match c {
            '\u{064B}'..='\u{0652}' | '\u{0670}' | '\u{0640}' => continue,
            'ی' => 'ي',
            'ة' => 'ه',
            'ک' => 'ك',
            c if c.is_whitespace() => {
                pending_space = !out.is_empty();
                continue;
            }
            c => unmarked(c),
        };
        if pending_space {
            out.push(' ');
            pending_space = false;
        }
        out.push(mapped);
    }
    out
}

/// Whether `word` holds an Arabic letter (hamza to yaa), i.e. is a word rather than
/// digits, Latin text or punctuation.
pub fn is_arabic_word(word: &str) -> bool {
    word.chars().any(|c| ('\u{0621}'..='\u{064A}').contains(&c))
}

/// A folded word without its definite article, so `القاهرة` and `قاهرة` compare equal.
pub fn strip_article(folded_word: &str) -> &str {
    match folded_word.strip_prefix("ال") {
        Some(rest) if rest.chars().count() >= 2 => rest,
        _ => folded_word,
    }
}

/// Splits folded text into words on whitespace and the separators used in addresses.
pub fn words(folded: &str) -> impl Iterator<Item = &str> {
    folded
        .split(|c: char| {
            c.is_whitespace() || matches!(c, '-' | '–' | ',' | '،' | '/' | ':' | '(' | ')')
        })
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_spelling_variants_together() {
        assert_eq!(fold("أحمد"), fold("احمد"));
        assert_eq!(fold("على"), fold("علي"));
        assert_eq!(fold("القاهرة"), fold("القاهره"));
        assert_eq!(fold("  مُحَمَّد   علـــي "), "محمد علي");
        assert_eq!(strip_article("القاهره"), "قاهره");
        assert_eq!(strip_article("الم"), "الم");
        assert_eq!(
            words("السيدة زينب - القاهرة").collect::<Vec<_>>(),
            ["السيدة", "زينب", "القاهرة"]
        );
    }
}
