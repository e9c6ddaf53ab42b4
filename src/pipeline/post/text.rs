//! Field rules every kind uses: text clean-up, closed vocabularies, dates, digits.

use chrono::Datelike;

use super::{Candidate, Checked, Readings, passing_with_rivals};
use crate::domain::arabic::fold;
use crate::domain::date::PrintedDate;
use crate::domain::digits::{to_arabic_indic, to_ascii_digits};
use crate::domain::edit;
use crate::domain::name_list;

/// Confidence kept by a reading that fails its field's rules.
pub const FAILED_RULE: f32 = 0.3;

/// Persian letter and digit forms to their Arabic counterparts (some OCR models
/// emit `ی ک ۰..۹`), whitespace collapsed and trimmed.
pub fn clean(text: &str) -> String {
    let mapped: String = text
        .chars()
        .map(|c| match c {
            'ی' => 'ي',
            'ک' => 'ك',
            '\u{06F0}'..='\u{06F9}' => char::from_u32(c as u32 - 0x06F0 + 0x0660).unwrap_or(c),
            c => c,
        })
        .collect();
    mapped.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn candidates<'a>(readings: &'a Readings, key: &str) -> &'a [Candidate] {
    readings
        .get(key)
        .map(|r| r.candidates.as_slice())
        .unwrap_or_default()
}

/// Free text: the best reading, cleaned.
pub fn plain(readings: &Readings, key: &str) -> Option<Checked> {
    plain_excluding(readings, key, &[])
}

/// Free text that is never a word of `excluded` (folded): the first hypothesis that
/// is not one, cleaned, doubted as any line read ([`super::LineReading::reported`])
/// and when another reads one more of a repeated digit
/// ([`super::LineReading::keeping_every_digit`]); when every one is, the best,
/// flagged.
pub fn plain_excluding(readings: &Readings, key: &str, excluded: &[&[&str]]) -> Option<Checked> {
    let reading = readings.get(key)?;
    let candidates = &reading.candidates;
    let best = candidates.first()?;
    let excluded: Vec<String> = excluded
        .iter()
        .flat_map(|v| v.iter())
        .map(|w| fold(w))
        .collect();
    match candidates
        .iter()
        .find(|c| !excluded.contains(&fold(&clean(&c.text))))
    {
        Some(c) => Some(Checked::new(
            clean(&c.text),
            reading.keeping_every_digit(&c.text, reading.reported(&c.text, c.confidence)),
        )),
        None => Some(Checked::new(
            clean(&best.text),
            best.confidence * FAILED_RULE,
        )),
    }
}

/// A line of an Egyptian's names: the hypothesis the name list favours
/// ([`name_list::choose`]), cleaned, and doubted when a word of it is not listed
/// ([`UNLISTED_NAME_DOUBT`]).
pub fn name(readings: &Readings, key: &str) -> Option<Checked> {
    name_weighing_unlisted(
        readings,
        key,
        name_list::UNLISTED_WORD_WEIGHT,
        Names::Egyptian { label_words: 0 },
    )
}

/// A line of names after a printed label (`الزوج :`), which the name list does
/// not know: [`name`], allowing the label its one unlisted word.
pub fn labelled_name(readings: &Readings, key: &str) -> Option<Checked> {
    name_weighing_unlisted(
        readings,
        key,
        name_list::UNLISTED_WORD_WEIGHT,
        Names::Egyptian { label_words: 1 },
    )
}

/// A foreigner's names, which the list of Egyptian names is not expected to know:
/// chosen as [`name`] chooses, never doubted for an unlisted word.
pub fn foreign_name(readings: &Readings, key: &str) -> Option<Checked> {
    name_weighing_unlisted(
        readings,
        key,
        name_list::UNLISTED_WORD_WEIGHT,
        Names::Foreign,
    )
}

/// At most this confident is an Egyptian's line of names with a word the name
/// list does not know (beyond its label): a holder's name is almost always
/// listed, and a misreading of one is often an unlisted neighbour read with
/// confidence (`جيمان` for `جيهان` at 0.97 on the tuning photos, seed 4247).
/// Listed for review rather than answered as sure.
pub const UNLISTED_NAME_DOUBT: f32 = 0.6;

/// Whose names a line prints, which says what an unlisted word tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// An Egyptian's, after `label_words` words of a printed label the name list
    /// does not know: a word beyond those that is not listed is doubted.
    Egyptian { label_words: usize },
    /// A foreigner's, which the list is not expected to know: never doubted.
    Foreign,
}

impl Names {
    /// Whether `text`, read as these names, holds a word the list should know and
    /// does not, or a Latin letter: the line is printed in Arabic, and Latin
    /// there is another line's (a passport's Latin name under its Arabic one,
    /// that one too pale under glare to be found).
    fn has_an_unlisted_word(self, text: &str) -> bool {
        if text.chars().any(|c| c.is_ascii_alphabetic()) {
            return true;
        }
        match self {
            Names::Egyptian { label_words } => name_list::unlisted_words(text) > label_words,
            Names::Foreign => false,
        }
    }
}

/// [`name`] with an unlisted word costing `weight` (`hawiya eval lines` tunes it),
/// doubted ([`UNLISTED_NAME_DOUBT`]) when `names` should all be listed and one is
/// not.
pub fn name_weighing_unlisted(
    readings: &Readings,
    key: &str,
    weight: f32,
    names: Names,
) -> Option<Checked> {
    let reading = readings.get(key)?;
    let candidates: Vec<&Candidate> = reading.all_candidates().collect();
    let hypotheses: Vec<(&str, f32)> = candidates
        .iter()
        .map(|c| (c.text.as_str(), c.confidence))
        .collect();
    let chosen = candidates.get(name_list::choose(&hypotheses, weight))?;
    let mut confidence = reading.reported(&chosen.text, chosen.confidence);
    if names.has_an_unlisted_word(&chosen.text) {
        confidence = confidence.min(UNLISTED_NAME_DOUBT);
    }
    Some(Checked::new(clean(&chosen.text), confidence))
}

/// A field printed from a closed list (gender, religion, fuel): the first
/// hypothesis that folds to a list entry wins; otherwise the nearest entry within a
/// small edit distance of any hypothesis (the card can print nothing else);
/// otherwise the best reading with low confidence.
pub fn snap(readings: &Readings, key: &str, vocabulary: &[&str]) -> Option<Checked> {
    choose_from_list(readings, key, vocabulary, |entry, candidate, distance| {
        Checked::new(entry, candidate.confidence * 0.8f32.powi(distance as i32))
    })
}

/// At most this confident is a value likely misread though the card may print it,
/// so listed for review: one our list lacks while nearly spelling a listed one (a
/// district, a traffic unit's place, a car's make, model, colour or insurer:
/// `المياط` for `العياط`, `الأقصرالجديدة` for `الأقصر الجديدة`), a car's engine
/// size or chassis number no car has. The text is never rewritten: a field returns
/// what the card prints. On the held-out-font NID front scans (seed 6034), six of
/// the 19 fields read wrong at 0.8 or more were such a district, and no district
/// read right is doubted (the generator prints listed ones).
pub const MISREAD_DOUBT: f32 = 0.6;

/// `checked` as read, at most [`MISREAD_DOUBT`] confident.
pub fn doubted_as_misread(checked: Checked) -> Checked {
    Checked {
        confidence: checked.confidence.min(MISREAD_DOUBT),
        ..checked
    }
}

/// How many edits `read` is from `listed` when few enough to be a misreading of it
/// ([`edit::reach`]), both folded, spaces aside (a space lost or gained is no
/// letter misread).
pub fn misspelling_of(read: &str, listed: &str) -> Option<usize> {
    let squeezed = |text: &str| fold(text).replace(' ', "");
    let (read, listed) = (squeezed(read), squeezed(listed));
    let distance = edit::distance(&read, &listed);
    (distance <= edit::reach(listed.chars().count())).then_some(distance)
}

/// Whether `read`, which our list does not spell, is a misreading of one of
/// `listed` ([`misspelling_of`]): a district, a traffic unit's place.
pub fn nearly_spells_one(read: &str, listed: impl IntoIterator<Item = impl AsRef<str>>) -> bool {
    listed
        .into_iter()
        .any(|entry| misspelling_of(read, entry.as_ref()).is_some())
}

/// A field our list knows most values of but not all (a car's make, model,
/// colour, insurer): the first hypothesis that folds to a list entry wins;
/// otherwise the best reading as read (the card may print what the list lacks),
/// doubted ([`doubted_as_misread`]) when an entry is near, flagged when none is.
pub fn listed(readings: &Readings, key: &str, vocabulary: &[&str]) -> Option<Checked> {
    let best = candidates(readings, key).first()?;
    choose_from_list(readings, key, vocabulary, |_, _, _| {
        doubted_as_misread(Checked::new(clean(&best.text), best.confidence))
    })
}

/// The first hypothesis folding to an entry of `vocabulary`; else `near` of the
/// entry nearest to a hypothesis misreading one ([`misspelling_of`]), the
/// hypothesis and the distance; else the best reading, flagged.
fn choose_from_list(
    readings: &Readings,
    key: &str,
    vocabulary: &[&str],
    near: impl Fn(&str, &Candidate, usize) -> Checked,
) -> Option<Checked> {
    let candidates = candidates(readings, key);
    let best = candidates.first()?;
    let entries: Vec<(String, &str)> = vocabulary.iter().map(|v| (fold(v), *v)).collect();
    for candidate in candidates {
        let folded = fold(&clean(&candidate.text));
        if let Some((_, entry)) = entries.iter().find(|(f, _)| *f == folded) {
            return Some(Checked::new(*entry, candidate.confidence.max(0.5)));
        }
    }
    let mut nearest: Option<(usize, &str, &Candidate)> = None;
    for candidate in candidates {
        let read = clean(&candidate.text);
        for entry in vocabulary {
            if let Some(distance) = misspelling_of(&read, entry)
                && nearest.is_none_or(|(d, _, _)| distance < d)
            {
                nearest = Some((distance, entry, candidate));
            }
        }
    }
    match nearest {
        Some((distance, entry, candidate)) => Some(near(entry, candidate, distance)),
        None => Some(Checked::new(
            clean(&best.text),
            best.confidence * FAILED_RULE,
        )),
    }
}

/// How a date is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateForm {
    /// `YYYY/MM/DD` in Arabic-Indic digits (Egyptian cards).
    ArabicYmd,
    /// `YYYY/MM` in Arabic-Indic digits (National ID back issue date).
    ArabicYm,
    /// `DD/MM/YYYY` in ASCII digits (passport).
    AsciiDmy,
}

impl DateForm {
    fn print(self, date: PrintedDate) -> Option<String> {
        match (self, date) {
            (DateForm::ArabicYmd, PrintedDate::Day(d)) => Some(to_arabic_indic(&format!(
                "{:04}/{:02}/{:02}",
                d.year(),
                d.month(),
                d.day()
            ))),
            (DateForm::ArabicYm, PrintedDate::Month { year, month }) => {
                Some(to_arabic_indic(&format!("{year:04}/{month:02}")))
            }
            (DateForm::AsciiDmy, PrintedDate::Day(d)) => {
                Some(format!("{:02}/{:02}/{:04}", d.day(), d.month(), d.year()))
            }
            _ => None,
        }
    }

    /// A date printed in this form (see [`Checked::unreadable`]).
    fn stand_in(self) -> &'static str {
        match self {
            DateForm::ArabicYmd => "٢٠٠٠/٠١/٠١",
            DateForm::ArabicYm => "٢٠٠٠/٠١",
            DateForm::AsciiDmy => "01/01/2000",
        }
    }
}

/// The printed text of `date` in `form`, if the form can show it.
pub fn print_date(date: PrintedDate, form: DateForm) -> Option<String> {
    form.print(date)
}

/// Every date field `key` may hold, each once with its worth: the hypotheses that
/// are real dates within plausible years, at their confidence, and the dates one
/// rival away from a hypothesis ([`Candidate::one_rival_away`]).
pub fn date_options(readings: &Readings, key: &str) -> Vec<(PrintedDate, f32)> {
    passing_with_rivals(candidates(readings, key), plausible_date)
}

/// A real date within the years a document's date can fall in.
fn plausible_date(text: &str) -> Option<PrintedDate> {
    PrintedDate::parse(text).filter(|d| (1900..=2100).contains(&d.year()))
}

/// A date: the first hypothesis that is a real date of the field's form, within
/// plausible years and accepted by `accept` (a cross-check); printed back in the
/// card's canonical form.
pub fn date(
    readings: &Readings,
    key: &str,
    form: DateForm,
    accept: impl Fn(PrintedDate) -> bool,
) -> Option<(Checked, Option<PrintedDate>)> {
    let candidates = candidates(readings, key);
    let best = candidates.first()?;
    for candidate in candidates {
        let Some(date) = plausible_date(&candidate.text).filter(|&d| accept(d)) else {
            continue;
        };
        if let Some(text) = form.print(date) {
            return Some((Checked::new(text, candidate.confidence), Some(date)));
        }
    }
    // A real date that failed only the cross-check is kept, doubtful; anything
    // else is no date at all.
    let failed = match plausible_date(&best.text) {
        Some(_) => Checked::new(clean(&best.text), best.confidence * FAILED_RULE),
        None => Checked::unreadable(best.confidence * FAILED_RULE, form.stand_in()),
    };
    Some((failed, None))
}

/// A number printed in Arabic-Indic digits (cylinders, engine size, year): the first
/// hypothesis made only of digits, with a digit count in `lengths`.
pub fn arabic_number(
    readings: &Readings,
    key: &str,
    lengths: std::ops::RangeInclusive<usize>,
) -> Option<Checked> {
    let candidates = candidates(readings, key);
    let best = candidates.first()?;
    for candidate in candidates {
        let ascii: String = to_ascii_digits(&candidate.text)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        if lengths.contains(&ascii.len()) && ascii.chars().all(|c| c.is_ascii_digit()) {
            return Some(Checked::new(to_arabic_indic(&ascii), candidate.confidence));
        }
    }
    Some(Checked::unreadable(best.confidence * FAILED_RULE, "٠"))
}

/// Latin text printed upper-case (names in Latin, document numbers): the first
/// hypothesis matching `valid`, else the best one with low confidence.
pub fn latin(readings: &Readings, key: &str, valid: impl Fn(&str) -> bool) -> Option<Checked> {
    let candidates = candidates(readings, key);
    let best = candidates.first()?;
    for candidate in candidates {
        let text = candidate
            .text
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if valid(&text) {
            return Some(Checked::new(text, candidate.confidence));
        }
    }
    Some(Checked::new(
        best.text.trim(),
        best.confidence * FAILED_RULE,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::pipeline::post::test_support::hypotheses as readings;

    #[test]
    fn cleans_persian_forms_and_spaces() {
        assert_eq!(clean("  علی   ۱۲۳ کریم "), "علي ١٢٣ كريم");
    }

    #[test]
    fn snaps_to_a_closed_vocabulary() {
        let vocab = ["ذكر", "أنثى"];
        // Folded equality keeps the printed spelling.
        let r = readings("gender", &[("انثى", 0.9)]);
        assert_eq!(snap(&r, "gender", &vocab).unwrap().text, "أنثى");
        // One wrong letter.
        let r = readings("gender", &[("دكر", 0.9)]);
        let checked = snap(&r, "gender", &vocab).unwrap();
        assert_eq!(checked.text, "ذكر");
        assert!(checked.confidence < 0.9);
        // Nothing near: kept, flagged.
        let r = readings("gender", &[("طالب", 0.9)]);
        assert!(snap(&r, "gender", &vocab).unwrap().confidence < 0.5);
        assert!(snap(&r, "religion", &vocab).is_none());
    }

    #[test]
    fn an_open_list_is_chosen_from_but_never_swapped_in() {
        let makes = ["تويوتا", "هيونداي", "شيفروليه"];
        // A hypothesis spelling a listed make wins.
        let r = readings("make", &[("هيونداى", 0.6), ("هيونداي", 0.5)]);
        assert_eq!(listed(&r, "make", &makes).unwrap().text, "هيونداي");
        // A make a letter away from a listed one is kept as read, doubted.
        let r = readings("make", &[("تويوتو", 0.95)]);
        let kept = listed(&r, "make", &makes).unwrap();
        assert_eq!(kept.text, "تويوتو");
        assert!(kept.confidence < 0.8);
        // One far from every listed make: kept, flagged.
        let r = readings("make", &[("لادا", 0.95)]);
        let kept = listed(&r, "make", &makes).unwrap();
        assert_eq!(kept.text, "لادا");
        assert!(kept.confidence < 0.5);
    }

    #[test]
    fn an_address_line_keeps_its_best_reading_and_doubts_a_merged_digit() {
        let r = readings("a", &[("٢٧ ش النيل", 0.95), ("٢٢٧ ش النيل", 0.4)]);
        let checked = plain(&r, "a").unwrap();
        assert_eq!(checked.text, "٢٧ ش النيل");
        assert!(checked.confidence < 0.8);
        let r = readings("a", &[("٢٢٧ شارع النيل", 0.95), ("٢٧ شارع النيل", 0.3)]);
        let checked = plain(&r, "a").unwrap();
        assert_eq!(checked.text, "٢٢٧ شارع النيل");
        assert_eq!(checked.confidence, 0.95);
    }

    #[test]
    fn a_name_line_takes_the_listed_runner_up_when_nearly_as_likely() {
        let r = readings(
            "name",
            &[("سامر  يومي سرور", 0.91), ("سامر بيومي سرور", 0.86)],
        );
        let checked = name(&r, "name").unwrap();
        assert_eq!(checked.text, "سامر بيومي سرور");
        assert_eq!(checked.confidence, 0.86);
        // A name nobody listed stays when no listed reading comes near it.
        let r = readings(
            "name",
            &[("سامر يومي سرور", 0.91), ("سامر بيومي سرور", 0.1)],
        );
        assert_eq!(name(&r, "name").unwrap().text, "سامر يومي سرور");
    }

    #[test]
    fn a_name_line_with_a_word_nobody_is_called_is_read_but_not_sure() {
        let unlisted = name(&readings("name", &[("جيمان", 0.97)]), "name").unwrap();
        assert_eq!(unlisted.text, "جيمان", "returned as printed");
        assert!(unlisted.confidence < crate::pipeline::post::LOW_CONFIDENCE);
        let listed = name(&readings("name", &[("جيهان", 0.97)]), "name").unwrap();
        assert_eq!(listed.confidence, 0.97);
        // A husband's line opens with its label, which no one is called.
        let husband = readings("husband", &[("الزوج : عيد دسوقى", 0.95)]);
        assert_eq!(labelled_name(&husband, "husband").unwrap().confidence, 0.95);
        let misread = readings("husband", &[("الزوج : عيد حسوقى", 0.95)]);
        assert!(labelled_name(&misread, "husband").unwrap().confidence < 0.8);
        // A foreigner's names are not expected on the list of Egyptian ones.
        let foreign = readings("name_ar", &[("جيمان", 0.97)]);
        assert_eq!(foreign_name(&foreign, "name_ar").unwrap().confidence, 0.97);
    }

    #[test]
    fn an_arabic_name_line_read_in_latin_letters_is_not_sure() {
        let latin = readings("name_ar", &[("BAKR ZIAD MORSY TAYEH", 0.97)]);
        assert!(name(&latin, "name_ar").unwrap().confidence < 0.8);
        assert!(foreign_name(&latin, "name_ar").unwrap().confidence < 0.8);
    }

    #[test]
    fn a_name_line_weighs_its_second_look_with_its_own_hypotheses() {
        let mut r = readings("name", &[("سامر  يومي سرور", 0.91)]);
        assert_eq!(name(&r, "name").unwrap().text, "سامر يومي سرور");
        let reading = r.get_mut("name").unwrap();
        reading.second_look = vec![Candidate::new("سامر بيومي سرور", 0.86)];
        assert_eq!(name(&r, "name").unwrap().text, "سامر بيومي سرور");
    }

    #[test]
    fn reads_dates_and_rejects_impossible_ones() {
        let r = readings("d", &[("٢٠٢٣/٠٢/٣٠", 0.9), ("٢٠٢٣/٠٢/٢٠", 0.5)]);
        let (checked, parsed) = date(&r, "d", DateForm::ArabicYmd, |_| true).unwrap();
        assert_eq!(checked.text, "٢٠٢٣/٠٢/٢٠");
        assert!(parsed.is_some());
        let r = readings("d", &[("٢٠٢٣/١٣/٠١", 0.9)]);
        let (checked, parsed) = date(&r, "d", DateForm::ArabicYmd, |_| true).unwrap();
        assert!(parsed.is_none());
        assert!(checked.confidence < 0.5);
        // A year-month field does not accept a full date, and vice versa.
        let r = readings("d", &[("٢٠٢٠/٠٨", 0.9)]);
        assert_eq!(
            date(&r, "d", DateForm::ArabicYm, |_| true).unwrap().0.text,
            "٢٠٢٠/٠٨"
        );
        assert!(
            date(&r, "d", DateForm::ArabicYmd, |_| true)
                .unwrap()
                .1
                .is_none()
        );
        let r = readings("d", &[("07/03/1990", 0.9)]);
        assert_eq!(
            date(&r, "d", DateForm::AsciiDmy, |_| true).unwrap().0.text,
            "07/03/1990"
        );
    }
}
