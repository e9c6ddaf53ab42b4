//! Character edit distance (Levenshtein): how far a reading is from a text.

/// Insertions, deletions and substitutions of characters turning `a` into `b`.
pub fn distance(a: &str, b: &str) -> usize {
    aligned(a, b, false)
}

/// How many edits a misreading of a printed text of `letters` characters may be
/// from it and still be taken for it: one up to four, two up to eleven, a quarter
/// of a longer one (a letter misread or a space lost in a word or two). Every
/// rule that takes a reading for a listed value or a printed label uses it.
pub fn reach(letters: usize) -> usize {
    match letters {
        0..=4 => 1,
        5..=11 => 2,
        _ => letters / 4,
    }
}

/// The [`distance`] from `pattern` to the part of `text` it is closest to: what
/// lies before and after that part costs nothing.
pub fn distance_within(pattern: &str, text: &str) -> usize {
    aligned(pattern, text, true)
}

/// Edit distance by rows over `b`, row by character of `a`; with `free_ends`,
/// `a` may start and end anywhere in `b`.
fn aligned(a: &str, b: &str, free_ends: bool) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = if free_ends {
        vec![0; b.len() + 1]
    } else {
        (0..=b.len()).collect()
    };
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    if free_ends {
        row.into_iter().min().unwrap_or(0)
    } else {
        row[b.len()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_the_edits_between_two_texts() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("مسلم", "مسلمة"), 1);
        assert_eq!(distance("٣٠١", "٣٠١"), 0);
    }

    #[test]
    fn a_longer_text_may_be_misread_by_more_edits() {
        assert_eq!(reach(3), 1);
        assert_eq!(reach(5), 2);
        assert_eq!(reach(11), 2);
        assert_eq!(reach(19), 4);
    }

    #[test]
    fn a_pattern_within_a_longer_text_costs_only_its_own_edits() {
        assert_eq!(distance_within("رخصة قيادة", "رخصة قيادة خاصة"), 0);
        assert_eq!(distance_within("رخصة قيادة", "رخصه قيادة"), 1);
        assert_eq!(distance_within("abc", ""), 3);
        assert_eq!(distance_within("", "abc"), 0);
    }
}
