//! The districts of each governorate, as an address names them: the segment before
//! the governorate (`مركز طلخا - الدقهلية`, `قسم الدقي - الجيزة`).
//!
//! The list is our own list of well-known places (the generator's), not an official
//! admin-2 catalogue, so a district missing from it is expected now and then and is
//! never an error.

use super::Governorate;
use super::arabic::{fold, is_among};
use crate::domain::vocab::places::PLACES;

/// Words that introduce a district: a rural centre (`مركز`), an urban one (`قسم`, `حي`).
const INTRODUCERS: [&str; 3] = ["مركز", "قسم", "حي"];

/// A district segment split into the word introducing it, if any (with its space),
/// and the place's name: `مركز طلخا` gives (`مركز `, `طلخا`). The word is matched
/// folded: cards print `حى` as often as `حي`.
pub fn split_introducer(segment: &str) -> (&str, &str) {
    if let Some((word, name)) = segment.split_once(' ')
        && INTRODUCERS
            .iter()
            .any(|introducer| fold(introducer) == fold(word))
    {
        return (&segment[..word.len() + 1], name);
    }
    ("", segment)
}

/// The listed districts of `governorate` (none for one we know no places of).
pub fn districts_of(governorate: Governorate) -> impl Iterator<Item = &'static str> {
    PLACES
        .iter()
        .filter(move |places| places.code == governorate.code)
        .flat_map(|places| places.urban.iter().chain(places.rural))
        .copied()
}

/// Each listed district of `governorate` as a line may print it: alone and after
/// each introducing word.
pub fn spellings_of(governorate: Governorate) -> impl Iterator<Item = String> {
    districts_of(governorate).flat_map(|name| {
        std::iter::once(name.to_owned())
            .chain(INTRODUCERS.iter().map(move |word| format!("{word} {name}")))
    })
}

/// Whether `name` (without its introducing word) is a listed district of
/// `governorate`, in any spelling of hamza, final yaa and taa marbuta.
pub fn is_listed(governorate: Governorate, name: &str) -> bool {
    is_among(name, districts_of(governorate))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn giza() -> Governorate {
        Governorate::from_code(21).unwrap()
    }

    #[test]
    fn splits_the_word_introducing_a_district() {
        assert_eq!(split_introducer("مركز طلخا"), ("مركز ", "طلخا"));
        assert_eq!(
            split_introducer("قسم أول المنصورة"),
            ("قسم ", "أول المنصورة")
        );
        assert_eq!(split_introducer("حي الدقي"), ("حي ", "الدقي"));
        assert_eq!(split_introducer("حى النهضة"), ("حى ", "النهضة"));
        assert_eq!(split_introducer("مركزي"), ("", "مركزي"));
        assert_eq!(split_introducer("المعادي"), ("", "المعادي"));
    }

    #[test]
    fn knows_a_governorates_districts_in_any_print_style() {
        assert!(is_listed(giza(), "الدقي"));
        assert!(is_listed(giza(), "امبابة"), "initial hamza dropped");
        assert!(is_listed(giza(), "امبابه"), "taa marbuta as haa");
        assert!(!is_listed(giza(), "المعادي"), "a Cairo district");
        assert!(!is_listed(giza(), "الدقى الجديدة"));
    }
}
