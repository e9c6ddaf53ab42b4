//! Address lines that end with a district and a governorate: the ID front's second
//! line (`مركز طلخا - الدقهلية`) and the licences' one-line address
//! (`٧ ش منصور - الدقي - الجيزة`).
//!
//! The governorate comes from a closed list of 27, so the printed one is one of them
//! and a misread one is snapped to the nearest.
//! The district comes from our list of well-known places ([`districts`]), which is
//! not complete: a listed district is preferred among the recognizer's hypotheses,
//! but a district read outside the list is returned as read (the card prints it),
//! its confidence lowered when a listed district of the same governorate is nearly
//! identical to it.

use super::text;
use super::{Candidate, Checked, Readings};
use crate::domain::governorate::GOVERNORATES;
use crate::domain::{Governorate, districts, governorate_in_address, lexicon};

/// What a place the list does not know (a district, a traffic unit's) costs a
/// hypothesis, in log-probability (as an unlisted name does,
/// [`crate::domain::name_list::UNLISTED_WORD_WEIGHT`]).
pub const UNLISTED_PLACE_WEIGHT: f32 = 1.0;

/// What each edit a snap to a governorate makes leaves of the
/// reading's confidence.
const PER_EDIT: f32 = 0.85;

/// An address line ending with a governorate ([`naming_a_governorate`]). Among the
/// hypotheses naming it, one naming a listed district is preferred
/// ([`lexicon::choose`]); a district still unlisted is kept, doubted when it nearly
/// spells a listed one of the governorate ([`doubting_an_unlisted_district`]). With
/// no governorate, the best reading is kept and flagged.
pub fn address_with_governorate(readings: &Readings, key: &str) -> Option<Checked> {
    let reading = readings.get(key)?;
    let candidates: Vec<Candidate> = reading.all_candidates().cloned().collect();
    let cleaned = with_second_guesses(&candidates);
    let Some((governorate, naming)) = naming_a_governorate(&cleaned) else {
        let (text, confidence) = cleaned.first()?;
        return Some(Checked::new(text.clone(), confidence * text::FAILED_RULE));
    };
    let hypotheses: Vec<(&str, f32)> = naming.iter().map(|(t, c)| (t.as_str(), *c)).collect();
    let chosen = lexicon::choose(
        &hypotheses,
        UNLISTED_PLACE_WEIGHT,
        |line| line.split_whitespace().count(),
        |line| usize::from(!district_is_listed(line, governorate)),
    );
    let (text, confidence) = hypotheses[chosen];
    let confidence = reading.keeping_every_digit(text, reading.reported(text, confidence));
    Some(doubting_an_unlisted_district(
        Checked::new(text, confidence),
        governorate,
    ))
}

/// `candidates`, cleaned, then every line one of the recognizer's second guesses at
/// a single character away from one of them ([`Candidate::one_rival_away`]), each
/// at its worth: the recognizer's own hypotheses, among which a list may choose.
pub fn with_second_guesses(candidates: &[Candidate]) -> Vec<(String, f32)> {
    let rivals = candidates.iter().flat_map(Candidate::one_rival_away);
    candidates
        .iter()
        .cloned()
        .chain(rivals)
        .map(|c| (text::clean(&c.text), c.confidence))
        .collect()
}

/// The governorate that ends the line, with every hypothesis naming it there,
/// best first: the first hypothesis whose last segment (after ` - `) names one.
/// When none does, the best hypothesis with its last segment replaced by the
/// nearest governorate name, if close enough, its confidence lowered by the edits;
/// a governorate named earlier in the line (a district called after its capital,
/// `قسم ثان الإسماعيلية - الإسماعية`) does not vouch for a misread last segment.
/// Failing that, the governorate named anywhere in the first hypothesis naming one.
fn naming_a_governorate(hypotheses: &[(String, f32)]) -> Option<(Governorate, Vec<(String, f32)>)> {
    let last_segment = |text: &str| governorate_in_address(split_last_segment(text).1);
    if let Some(named) = naming(hypotheses, last_segment) {
        return Some(named);
    }
    if let Some((best, confidence)) = hypotheses.first() {
        let (head, tail) = split_last_segment(best);
        if let Some((governorate, distance)) = nearest_governorate(tail) {
            let fixed = match head {
                Some(head) => format!("{head} - {}", governorate.arabic),
                None => governorate.arabic.to_owned(),
            };
            let confidence = confidence * PER_EDIT.powi(distance as i32);
            return Some((governorate, vec![(fixed, confidence)]));
        }
    }
    naming(hypotheses, governorate_in_address)
}

/// The governorate `named` finds in the first hypothesis where it finds one, with
/// every hypothesis where it finds the same, best first.
fn naming(
    hypotheses: &[(String, f32)],
    named: impl Fn(&str) -> Option<Governorate>,
) -> Option<(Governorate, Vec<(String, f32)>)> {
    let governorate = hypotheses.iter().find_map(|(text, _)| named(text))?;
    let naming = hypotheses
        .iter()
        .filter(|(text, _)| named(text) == Some(governorate))
        .cloned()
        .collect();
    Some((governorate, naming))
}

/// A line split before its last ` - `: what comes before (if any) and the last
/// segment.
fn split_last_segment(line: &str) -> (Option<&str>, &str) {
    match line.rsplit_once(" - ") {
        Some((head, tail)) => (Some(head), tail),
        None => (None, line),
    }
}

/// The segment of an address line before the governorate (after the street when
/// there is one), where a district is named, and where in the line it starts.
fn place_segment(line: &str) -> Option<(usize, &str)> {
    let (head, _) = line.rsplit_once(" - ")?;
    let start = head.rfind(" - ").map_or(0, |i| i + " - ".len());
    Some((start, &head[start..]))
}

/// Whether `line` names a listed district of `governorate` (a line without a
/// district segment has nothing to vouch for and counts as listed).
fn district_is_listed(line: &str, governorate: Governorate) -> bool {
    place_segment(line).is_none_or(|(_, segment)| {
        districts::is_listed(governorate, districts::split_introducer(segment).1)
    })
}

/// `checked`, doubted ([`text::doubted_as_misread`]) when the district it names is
/// unlisted but a listed one of the governorate, with or without its introducing
/// word, is nearly spelt there ([`text::nearly_spells_one`]).
fn doubting_an_unlisted_district(checked: Checked, governorate: Governorate) -> Checked {
    match place_segment(&checked.text) {
        Some((_, segment))
            if !district_is_listed(&checked.text, governorate)
                && text::nearly_spells_one(segment, districts::spellings_of(governorate)) =>
        {
            text::doubted_as_misread(checked)
        }
        _ => checked,
    }
}

/// The governorate whose name `text` misreads by the fewest edits
/// ([`text::misspelling_of`]).
fn nearest_governorate(text: &str) -> Option<(Governorate, usize)> {
    GOVERNORATES
        .iter()
        .filter(|g| g.code != 88)
        .filter_map(|g| Some((*g, text::misspelling_of(text, g.arabic)?)))
        .min_by_key(|(_, distance)| *distance)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::post::Candidate;
    use crate::pipeline::post::test_support::{hypotheses, read_alone};

    fn read(line: &str) -> Checked {
        read_alone(address_with_governorate, line)
    }

    #[test]
    fn fixes_a_misread_governorate_when_a_district_names_its_capital() {
        let fixed = read("١٢ عطفة عيسى - قسم ثان الإسماعيلية - الإسماعية");
        assert_eq!(fixed.text, "١٢ عطفة عيسى - قسم ثان الإسماعيلية - الإسماعيلية");
        assert!(fixed.confidence < 0.9);
        // A line without segments still finds its governorate anywhere.
        assert_eq!(read("قسم ثان الإسماعيلية").text, "قسم ثان الإسماعيلية");
    }

    #[test]
    fn fixes_a_misread_governorate() {
        // Folding makes ه and ة equal: already a governorate, kept as read.
        assert_eq!(read("قسم الدقي - الجيزه").text, "قسم الدقي - الجيزه");
        let fixed = read("قسم الدقي - الجبزة");
        assert_eq!(fixed.text, "قسم الدقي - الجيزة");
        assert!(fixed.confidence < 0.9 * 0.9);
        // Unknown governorate: kept, flagged.
        assert!(read("قسم الدقي - باريس").confidence < 0.5);
    }

    #[test]
    fn keeps_a_district_a_letter_away_from_a_listed_one_as_read_and_doubts_it() {
        let doubted = read("مركز الحمودية - البحيرة");
        assert_eq!(doubted.text, "مركز الحمودية - البحيرة");
        assert!(doubted.confidence < 0.8);
        // After a street, on a licence's one-line address.
        let doubted = read("٧ ش منصور - العادي - القاهرة");
        assert_eq!(doubted.text, "٧ ش منصور - العادي - القاهرة");
        assert!(doubted.confidence < 0.8);
        // A space lost, within the place or after its introducing word, or that
        // word misread: as read, doubted.
        for line in [
            "الأقصرالجديدة - الأقصر",
            "مركزسيدي براني - مطروح",
            "ركز قلين - كفر الشيخ",
        ] {
            let doubted = read(line);
            assert_eq!(doubted.text, line);
            assert_eq!(doubted.confidence, text::MISREAD_DOUBT, "{line}");
        }
        // Listed, with or without its introducing word: as read, not doubted.
        assert_eq!(read("مركز قلين - كفر الشيخ").confidence, 0.9);
        assert_eq!(read("حى النهضة - القاهرة").confidence, 0.9);
        assert_eq!(read("الأقصر الجديدة - الأقصر").confidence, 0.9);
    }

    #[test]
    fn keeps_a_district_as_printed_when_listed_or_far_from_any() {
        // Listed in another print style: untouched.
        assert_eq!(read("امبابه - الجيزة").text, "امبابه - الجيزة");
        // A place the list lacks, far from every listed one: kept, not flagged.
        let kept = read("قسم الشيخ زايد الجديدة - الجيزة");
        assert_eq!(kept.text, "قسم الشيخ زايد الجديدة - الجيزة");
        assert_eq!(kept.confidence, 0.9);
        // A district of another governorate is not borrowed.
        assert_eq!(read("المعادي - الجيزة").text, "المعادي - الجيزة");
    }

    #[test]
    fn prefers_a_hypothesis_naming_a_listed_district_when_nearly_as_likely() {
        let choose = |runner_up: f32| {
            let r = hypotheses(
                "address",
                &[
                    ("مركز كفر صلاح - الشرقية", 0.5),
                    ("مركز كفر صقر - الشرقية", runner_up),
                ],
            );
            address_with_governorate(&r, "address").unwrap().text
        };
        assert_eq!(choose(0.4), "مركز كفر صقر - الشرقية");
        assert_eq!(choose(0.1), "مركز كفر صلاح - الشرقية");
    }

    #[test]
    fn weighs_a_second_look_with_the_crops_own_hypotheses() {
        let mut r = hypotheses("address", &[("مركز كفر صلاح - الشرقية", 0.5)]);
        let reading = r.get_mut("address").unwrap();
        reading.second_look = vec![Candidate::new("مركز كفر صقر - الشرقية", 0.4)];
        let chosen = address_with_governorate(&r, "address").unwrap();
        assert_eq!(chosen.text, "مركز كفر صقر - الشرقية");
    }
}
