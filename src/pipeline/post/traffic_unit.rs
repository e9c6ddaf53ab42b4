//! A licence's traffic unit (`وحدة مرور منيا القمح`): the place after the label is
//! read with the list of units ([`traffic_units`]), as a district is with the list
//! of districts ([`super::address`]): among the recognizer's hypotheses, one naming
//! a listed unit is preferred when nearly as likely, and a place still unlisted is
//! replaced by the one listed place that differs from it only within words.

use super::address::{UNLISTED_PLACE_WEIGHT, with_listed_place};
use super::text;
use super::{Checked, Readings};
use crate::domain::{lexicon, traffic_units};

/// The traffic unit read on line `key`.
pub fn traffic_unit(readings: &Readings, key: &str) -> Option<Checked> {
    let cleaned: Vec<(String, f32)> = readings
        .get(key)?
        .candidates
        .iter()
        .map(|c| (text::clean(&c.text), c.confidence))
        .collect();
    let hypotheses: Vec<(&str, f32)> = cleaned.iter().map(|(t, c)| (t.as_str(), *c)).collect();
    let chosen = lexicon::choose(
        &hypotheses,
        UNLISTED_PLACE_WEIGHT,
        |line| line.split_whitespace().count(),
        |line| usize::from(!place_is_listed(line)),
    );
    let (text, confidence) = hypotheses[chosen];
    Some(with_listed_unit(Checked::new(text, confidence)))
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

/// `checked` with an unlisted place replaced by the nearest listed one, its
/// confidence lowered by the edits.
fn with_listed_unit(checked: Checked) -> Checked {
    let span = place(&checked.text).map(|name| (checked.text.len() - name.len(), name.len()));
    with_listed_place(checked, span, || traffic_units::places().iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::post::test_support::{hypotheses, read_alone};

    fn read(line: &str) -> Checked {
        read_alone(traffic_unit, line)
    }

    #[test]
    fn fixes_a_place_a_letter_away_from_a_listed_unit() {
        let fixed = read("وحدة مرور منيا الفمح");
        assert_eq!(fixed.text, "وحدة مرور منيا القمح");
        assert!(fixed.confidence < 0.9);
        assert_eq!(read("وحدة مرور القرافرة").text, "وحدة مرور الفرافرة");
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
