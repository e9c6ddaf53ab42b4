//! Traffic units (`وحدة مرور <place>`), which issue driving and car licences, each
//! named by its town or district.
//!
//! The list is our own list of well-known places (the generator's), not an official
//! catalogue, so a unit missing from it is expected now and then and is never an
//! error.

use std::sync::LazyLock;

use super::arabic::{fold, is_among};
use crate::domain::vocab::places::PLACES;

/// The words a unit's name opens with.
pub const LABEL: &str = "وحدة مرور";

/// The place a unit is named by: a numbered police district (`أول المنصورة`,
/// `المنصورة ثان`) names its unit by the town.
pub fn unit_place(place: &str) -> &str {
    let place = ["أول ", "ثان ", "ثالث "]
        .iter()
        .fold(place, |p, number| p.trim_start_matches(number));
    [" أول", " ثان"]
        .iter()
        .fold(place, |p, number| p.trim_end_matches(number))
}

/// Every listed unit's place, each spelling once.
pub fn places() -> &'static [&'static str] {
    static PLACES_OF_UNITS: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        let mut seen = std::collections::HashSet::new();
        PLACES
            .iter()
            .flat_map(|g| g.traffic.iter().chain(g.urban).chain(g.rural))
            .map(|place| unit_place(place))
            .filter(|place| seen.insert(fold(place)))
            .collect()
    });
    &PLACES_OF_UNITS
}

/// Whether `place` names a listed unit, in any spelling of hamza, final yaa and taa
/// marbuta.
pub fn is_listed(place: &str) -> bool {
    is_among(place, places().iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_numbered_district_names_its_unit_by_the_town() {
        assert_eq!(unit_place("أول المنصورة"), "المنصورة");
        assert_eq!(unit_place("المنصورة ثان"), "المنصورة");
        assert_eq!(unit_place("منيا القمح"), "منيا القمح");
    }

    #[test]
    fn knows_units_in_any_print_style_each_once() {
        assert!(is_listed("منيا القمح"));
        assert!(is_listed("الفرافرة"));
        assert!(!is_listed("القرافرة"));
        let folded: std::collections::HashSet<String> = places().iter().map(|p| fold(p)).collect();
        assert_eq!(folded.len(), places().len());
    }
}
