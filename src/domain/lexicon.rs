//! Choosing among a line's hypotheses with a list of what the line may say (names,
//! districts): a hypothesis holding only listed words gets a head start over one
//! with a word the list does not know. The list only weighs in between the
//! recognizer's own hypotheses, so a word missing from it is never rewritten into a
//! listed one unless the recognizer itself found that one about as likely.

/// Which of `hypotheses` `(text, probability)`, best first, to keep: the one with
/// the highest log-probability less `weight` per word `unlisted` counts, among
/// those with as many words (`words`) as the best (a dropped or split word is a
/// misreading the list must not reward). The first wins a tie; an empty slice
/// gives 0.
pub fn choose(
    hypotheses: &[(&str, f32)],
    weight: f32,
    words: impl Fn(&str) -> usize,
    unlisted: impl Fn(&str) -> usize,
) -> usize {
    let Some((best, _)) = hypotheses.first() else {
        return 0;
    };
    let length = words(best);
    let score = |(text, probability): &(&str, f32)| {
        probability.max(f32::MIN_POSITIVE).ln() - weight * unlisted(text) as f32
    };
    let mut chosen = 0;
    for (i, hypothesis) in hypotheses.iter().enumerate().skip(1) {
        if words(hypothesis.0) == length && score(hypothesis) > score(&hypotheses[chosen]) {
            chosen = i;
        }
    }
    chosen
}
