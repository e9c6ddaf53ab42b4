//! A licence's traffic unit (`وحدة مرور منيا القمح`): the place after the label is
//! read with the list of units ([`traffic_units`]), as a district is with the list
//! of districts ([`super::address`]): among the recognizer's hypotheses and its
//! second guesses at single characters, one naming a listed unit is preferred when
//! nearly as likely, and a place still unlisted is
//! kept as read, doubted when a listed place differs from it only within words.

use super::address::{UNLISTED_PLACE_WEIGHT, with_second_guesses};
use super::text::{doubted_as_misread, nearly_spells_one};
use super::{Checked, Readings};
use crate::domain::{lexicon, traffic_units};

/// The traffic unit read on line `key`.
pub fn traffic_unit(readings: &Readings, key: &str) -> Option<Checked> {
    let cleaned = with_second_guesses(&readings.get(key)?.candidates);
    let hypotheses: Vec<(&str, f32)> = cleaned.iter().map(|(t, c)| (t.as_str(), *c)).collect();
    let chosen = lexicon::choose(
        &hypotheses,
        UNLISTED_PLACE_WEIGHT,
        |line| line.split_whitespace().count(),
        |line| usize::from(!place_is_listed(line)),
    );
    let (text, confidence) = hypotheses[chosen];
    Some(doubting_an_unlisted_unit(Checked::new(text, confidence)))
}

/// The place a unit's line names after its label; `None` when the label was not
/// read as printed.
fn place(line: &str) -> Option<&str> {
    line.strip_prefix(traffic_units::LABEL)?.strip_prefix(' ')
}

/// Whether `line` names a listed unit (a line whose label was misread has nothing
/// to vouch for and counts as listed).
fn place_is_listed(line: &str) -> bool {
    place(line).is_none_or(traffic_units::is_listed)
}

/// `checked`, doubted ([`doubted_as_misread`]) when its place is unlisted but a
/// listed one is nearly spelt there ([`nearly_spells_one`]), or when its label,
/// which every unit's line prints, was not read as printed (`حدة مرور` with the
/// line's first letter lost, read at 0.99).
fn doubting_an_unlisted_unit(checked: Checked) -> Checked {
    match place(&checked.text) {
        Some(place)
            if traffic_units::is_listed(place)
                || !nearly_spells_one(place, traffic_units::places()) =>
        {
            checked
        }
        _ => doubted_as_misread(checked),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::post::test_support::{hypotheses, read_alone, reading, with_rivals};

    fn read(line: &str) -> Checked {
        read_alone(traffic_unit, line)
    }

    #[test]
    fn keeps_a_place_a_letter_away_from_a_listed_unit_as_read_and_doubts_it() {
        let doubted = read("وحدة مرور منيا الفمح");
        assert_eq!(doubted.text, "وحدة مرور منيا الفمح");
        assert!(doubted.confidence < 0.8);
        assert_eq!(read("وحدة مرور القرافرة").text, "وحدة مرور القرافرة");
        // The label misread: as read, doubted.
        let doubted = read("حدة مرور أسيوط");
        assert_eq!(doubted.text, "حدة مرور أسيوط");
        assert!(doubted.confidence < 0.8);
    }

    #[test]
    fn takes_the_recognizers_second_guess_at_a_letter_when_it_names_a_listed_unit() {
        // `ف` read where the recognizer's runner-up was `ق`.
        let at = "وحدة مرور منيا ال".chars().count();
        let line = with_rivals("وحدة مرور منيا الفمح", 0.9, &[(at, 'ق', 0.6)]);
        let chosen = traffic_unit(&reading("traffic_unit", vec![line]), "traffic_unit").unwrap();
        assert_eq!(chosen.text, "وحدة مرور منيا القمح");
        assert!(chosen.confidence < 0.9);
        // A second guess far less likely than the reading does not outweigh it.
        let line = with_rivals("وحدة مرور منيا الفمح", 0.9, &[(at, 'ق', 0.05)]);
        let chosen = traffic_unit(&reading("traffic_unit", vec![line]), "traffic_unit").unwrap();
        assert_eq!(chosen.text, "وحدة مرور منيا الفمح");
    }

    #[test]
    fn keeps_a_unit_as_printed_when_listed_or_far_from_any() {
        assert_eq!(read("وحدة مرور الدقي").text, "وحدة مرور الدقي");
        // An unknown unit is kept: the list is not complete.
        assert_eq!(read("وحدة مرور تل العمارنة").text, "وحدة مرور تل العمارنة");
    }

    #[test]
    fn prefers_a_hypothesis_naming_a_listed_unit_when_nearly_as_likely() {
        let readings = hypotheses(
            "traffic_unit",
            &[("وحدة مرور المقطعات", 0.5), ("وحدة مرور المقطم", 0.4)],
        );
        assert_eq!(
            traffic_unit(&readings, "traffic_unit").unwrap().text,
            "وحدة مرور المقطم"
        );
    }
}
