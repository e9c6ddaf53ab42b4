//! A card's printed title (`title = true` in its layout), read when the
//! classifier found another kind likelier than the one asked for but not clearly
//! enough to refuse ([`Classification::rival`]): a card whose title names that
//! kind, and not the one asked for, is refused as it rather than read as the kind
//! asked for. Two ID-1 cards laid out alike (a driving licence, a residence
//! permit) differ in print most plainly there. Only the rival's title need be
//! printed: a card read as a kind that prints none (a National ID's back) is
//! refused when it shows the rival's.

use image::GrayImage;
use image::imageops;

use super::classify::{Class, Classification};
use super::cut::{self, FieldRegion, LineCrop};
use super::post::LineReading;
use super::regions::title_region;
use crate::domain::DocumentKind;
use crate::domain::arabic::fold;
use crate::domain::edit;
use crate::layout;

/// The kinds whose titles tell the card apart, and where to read them.
#[derive(Debug, Clone, PartialEq)]
pub struct TitleCheck {
    /// The class the card is read as (the request's prior chose it).
    pub chosen: Class,
    /// The class the classifier found likelier.
    pub rival: Class,
    /// Where the chosen kind prints its title, if it prints one.
    chosen_title: Option<FieldRegion>,
    /// Where the rival prints its title.
    rival_title: FieldRegion,
}

impl TitleCheck {
    /// The check a classification calls for: one with a rival that prints a
    /// title.
    pub fn of(class: &Classification) -> Option<TitleCheck> {
        let rival = class.rival?;
        let chosen = Class {
            kind: class.kind,
            upside_down: class.upside_down,
        };
        Some(TitleCheck {
            chosen,
            rival,
            chosen_title: title_region(chosen.kind),
            rival_title: title_region(rival.kind)?,
        })
    }

    /// The title lines on `card`, rectified upright as the chosen class: the
    /// chosen kind's (if it prints one), then the rival's, each where found; the
    /// rival's cut from the card turned half a turn when the rival stands the
    /// other way up.
    pub fn crops(&self, card: &GrayImage) -> Vec<LineCrop> {
        let turned;
        let rival_card = if self.rival.upside_down == self.chosen.upside_down {
            card
        } else {
            turned = imageops::rotate180(card);
            &turned
        };
        let chosen = self.chosen_title.as_ref().map(|region| (card, region));
        chosen
            .into_iter()
            .chain([(rival_card, &self.rival_title)])
            .flat_map(|(card, region)| cut::cut_lines(card, std::slice::from_ref(region)))
            .collect()
    }

    /// Whether the titles read name the rival and none names the chosen kind.
    pub fn names_rival(&self, readings: &[LineReading]) -> bool {
        let named = |kind| readings.iter().any(|r| names(r, kind));
        named(self.rival.kind) && !named(self.chosen.kind)
    }
}

/// Whether some hypothesis of `reading` holds the title of `kind`, within
/// [`edit::reach`] (folded, anywhere in the line: a title may be printed with
/// more words beside it): two edits of `رخصة قيادة`'s ten letters, while every
/// other kind's title is four or more away from every kind's (`رخصة تسيير` from
/// it).
fn names(reading: &LineReading, kind: DocumentKind) -> bool {
    let Some(title) = layout::builtin(kind).title() else {
        return false;
    };
    let title = fold(&title.text);
    let allowed = edit::reach(title.chars().count());
    reading
        .candidates
        .iter()
        .any(|c| edit::distance_within(&title, &fold(&c.text)) <= allowed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::DocumentKind::*;

    fn check(chosen: DocumentKind, rival: DocumentKind) -> TitleCheck {
        TitleCheck::of(&Classification {
            kind: chosen,
            upside_down: false,
            confidence: 0.4,
            rival: Some(Class {
                kind: rival,
                upside_down: false,
            }),
        })
        .unwrap()
    }

    fn read(texts: &[&str]) -> Vec<LineReading> {
        texts.iter().map(|t| LineReading::single(*t, 0.5)).collect()
    }

    #[test]
    fn a_card_titled_as_the_rival_and_not_as_the_kind_asked_for_names_the_rival() {
        let licence_or_permit = check(DriverLicence, ResidencePermit);
        // The permit's title read, a letter misread, beside noise.
        assert!(licence_or_permit.names_rival(&read(&["ASSUDAN", "بطاقة إفامة"])));
        // The licence's own title read too: read as the licence asked for.
        assert!(!licence_or_permit.names_rival(&read(&["رخصة قيادة", "بطاقة إقامة"])));
        // Neither read: no evidence either way.
        assert!(!licence_or_permit.names_rival(&read(&["EGYPTIAN", ""])));
        assert!(!licence_or_permit.names_rival(&[]));
        // A licence's title is not a permit's, nor a car licence's.
        assert!(!licence_or_permit.names_rival(&read(&["رخصة قيادة"])));
        assert!(!check(CarLicenceFront, DriverLicence).names_rival(&read(&["رخصة تسيير"])));
        assert!(check(CarLicenceFront, DriverLicence).names_rival(&read(&["رخصة قيادة"])));
    }

    #[test]
    fn only_a_card_read_as_the_kind_asked_for_over_a_titled_rival_is_checked() {
        let class = |kind, rival: Option<DocumentKind>| Classification {
            kind,
            upside_down: false,
            confidence: 0.4,
            rival: rival.map(|kind| Class {
                kind,
                upside_down: true,
            }),
        };
        let checked = TitleCheck::of(&class(DriverLicence, Some(ResidencePermit))).unwrap();
        assert_eq!(checked.rival.kind, ResidencePermit);
        assert!(checked.rival.upside_down && !checked.chosen.upside_down);
        assert!(TitleCheck::of(&class(DriverLicence, None)).is_none());
        // A National ID's back prints no title to tell it by...
        assert!(TitleCheck::of(&class(NidFront, Some(NidBack))).is_none());
        // ...but a card read as one can show the title of the kind it is.
        let untitled = TitleCheck::of(&class(NidBack, Some(CarLicenceFront))).unwrap();
        assert!(untitled.names_rival(&read(&["رخصة تسيير"])));
        assert!(!untitled.names_rival(&read(&["محل الإقامة"])));
    }
}
