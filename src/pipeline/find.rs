//! The document in an upload: outline candidates on the overview, the classifier's
//! pick among them, and the picked outline upright in the upload's pixels; with it,
//! where the request reads a card's two sides together, the other side beside it.
//!
//! The engine and `hawiya eval docs --geometry-only` both start here, so the
//! evaluation measures the outline the engine reads.

use image::{Rgb, RgbImage};

use super::classify::{CLEARLY_SEEN, Classification, Classifier, features};
use super::locate::{self, LocateConfig, LocateMethod};
use super::overview::Overview;
use super::warp::{Point, Quad};
use crate::domain::DocumentKind;

/// What an upload shows of the document asked for.
#[derive(Debug, Clone, Copy)]
pub struct FoundDocument {
    /// The card read first: the one the classifier was surest of, or the front of
    /// a card whose two sides lie side by side, since the record names the owner
    /// and the dates it prints.
    pub card: Found,
    /// The card's other side, lying beside it, where the request accepts both
    /// sides ([`reads_both_sides`]): a car licence's front and back scanned on one
    /// page make one record.
    pub other_side: Option<Found>,
}

/// One card the classifier picked.
#[derive(Debug, Clone, Copy)]
pub struct Found {
    /// The card's outline in the upload's pixels, its first edge along the printed
    /// top (turned when the classifier saw the card upside down).
    pub quad: Quad,
    pub method: LocateMethod,
    pub class: Classification,
}

/// Largest share of the overview an outline refused as another kind may cover for
/// the rest to be searched for the kind asked for: a page with room for another card
/// (each side of a card on an A4 page covers about a tenth of it), not a card filling
/// a scan or a photo.
const ROOM_FOR_ANOTHER: f32 = 0.4;

/// How much wider than its outline a card is masked, so that its edges and shadow
/// leave no outline of their own.
const MASK_GROWTH: f32 = 1.06;

/// The shares of an outline's area that a card-shaped outline inside it may cover
/// for the two to be taken for two cards outlined together (a card's two sides
/// stacked on a page, each about half the pair), not for one document and what is
/// printed on it (a photo box is a fifth of a card; a printed frame nearly all).
const ONE_OF_TWO: std::ops::RangeInclusive<f32> = 0.3..=0.7;

/// How far (a share) the aspect of two cards outlined together is from the card's:
/// stacked ID-1 cards make 1.3 to 1.5 against the card's 1.59, while a panel printed
/// on a card in the card's own shape is within a percent of it.
const PAIR_ASPECT_DIFFERENCE: f32 = 0.04;

/// Largest share of a card's area that an outline inside it may cover to be taken
/// for something printed on that card (its photo, a panel, its lower half outlined
/// on its own), not for the card itself outlined more tightly.
const PART_OF_A_CARD: f32 = 0.9;

/// How close (a share) the aspect of a part covering a third of a card or more
/// must be to the card's: a half of a card outlined on its own keeps about its
/// shape (within 7 %), while one card of two outlined together (1.59 against the
/// pair's 1.3 to 1.5) does not, and is no part of the pair.
const PART_ASPECT_DIFFERENCE: f32 = 0.1;

/// Share of the overview from which an outline is taken for the page or the whole
/// upload, which holds whatever lies on it, rather than for a card.
const WHOLE_PAGE: f32 = 0.9;

/// Locates outline candidates on the upload's [`Overview`] and keeps the one the
/// classifier picks for the request's `accepted` kinds ([`Classifier::pick`]);
/// `None` when there is none. When that card is clearly another kind, or the
/// classifier is unsure of it beside a card that clearly is ([`Picked::beside_another`]),
/// the rest of the page is searched once more ([`elsewhere`]), as it is for the card's other
/// side where the request reads both ([`reads_both_sides`]). `lap` is called once
/// the candidates are found, so a caller can time locating and classifying apart.
pub fn find_document(
    upload: &RgbImage,
    config: &LocateConfig,
    classifier: &Classifier,
    accepted: Option<&[DocumentKind]>,
    mut lap: impl FnMut(&'static str),
) -> Option<FoundDocument> {
    let overview = Overview::of(upload);
    let image = overview.image();
    let candidates = candidates(image, config, classifier);
    lap("locate");
    let picked = pick(image, &candidates, config, classifier, accepted)?;
    let mut found = picked.found;
    if let Some(accepted) = accepted
        && let Some(beside) = picked.beside_another(accepted, config)
        && let Some(asked) = elsewhere(image, &beside, config, classifier, accepted)
    {
        found = asked;
    }
    let other_side = reads_both_sides(found.class.kind, accepted)
        .and_then(|other| elsewhere(image, &found.quad, config, classifier, &[other]));
    let (card, other_side) = match other_side {
        Some(front) if front.class.kind.side() == "front" => (front, Some(found)),
        other_side => (found, other_side),
    };
    let in_upload = |found: Found| Found {
        quad: overview.to_upload(found.quad),
        ..found
    };
    Some(FoundDocument {
        card: in_upload(card),
        other_side: other_side.map(in_upload),
    })
}

/// The other side of a card of `kind`, when the request accepts both of its sides:
/// a request for a car licence does (`ID_type` 0 or 3), one for a National ID asks
/// for one side. A request for any kind (`None`) reads the card found.
pub fn reads_both_sides(
    kind: DocumentKind,
    accepted: Option<&[DocumentKind]>,
) -> Option<DocumentKind> {
    let accepted = accepted?;
    kind.other_side()
        .filter(|other| accepted.contains(&kind) && accepted.contains(other))
}

/// An outline and the classifier's probabilities on it, which every step of the
/// pick weighs.
struct Candidate {
    located: locate::Located,
    probabilities: Vec<f32>,
}

/// The outlines located on `image`, each with what the classifier sees on it,
/// and the cards at the ends of those that may be two cards lying one above the
/// other ([`locate::stacked_pairs`]) and that the classifier does not clearly see
/// as one document: a passport's data page has such a pair's shape and size.
fn candidates(image: &RgbImage, config: &LocateConfig, classifier: &Classifier) -> Vec<Candidate> {
    let seen = |located: locate::Located| Candidate {
        probabilities: classifier.probabilities(&features(image, &located.quad)),
        located,
    };
    let located = locate::candidates(image, config);
    let mut candidates: Vec<Candidate> = located.iter().copied().map(seen).collect();
    let one_document = |pair: usize| {
        classifier
            .given(&candidates[pair].probabilities, None)
            .confidence
            >= CLEARLY_SEEN
    };
    let ends: Vec<locate::Located> = locate::stacked_pairs(&located, image.dimensions())
        .into_iter()
        .filter(|&(pair, _)| !one_document(pair))
        .flat_map(|(_, cards)| cards)
        .collect();
    candidates.extend(ends.into_iter().map(seen));
    candidates
}

/// The classifier's pick among an upload's outlines.
struct Picked {
    found: Found,
    /// The classifier's decision on the pick without the request's prior.
    seen: Classification,
    /// The likeliest outline the classifier clearly sees as a kind the request
    /// does not accept (not the page, nor two cards outlined together).
    other_kind: Option<Quad>,
}

impl Picked {
    /// The card beside which the page is searched again for one `accepted`: the
    /// pick itself when it is another kind; or a card clearly of another kind
    /// when the pick is not clearly an accepted one in a card's shape. A card's two
    /// sides lying close together leave outlines across both, or from one's edge
    /// to the other's, and the classifier can pick one of those for the kind asked
    /// for while the card asked for is not outlined at all until the other is
    /// masked.
    fn beside_another(&self, accepted: &[DocumentKind], config: &LocateConfig) -> Option<Quad> {
        if !accepted.contains(&self.found.class.kind) {
            return Some(self.found.quad);
        }
        let sure = accepted.contains(&self.seen.kind)
            && self.seen.confidence >= CLEARLY_SEEN
            && config.is_card_shaped(&self.found.quad);
        self.other_kind.filter(|_| !sure)
    }
}

/// The classifier's pick among `candidates` but those that hold a card the
/// classifier clearly sees as a kind not `accepted`, or as any kind lying across
/// them ([`holds_a_card`]), lie on one
/// ([`part_of_a_card`]; not on the page itself, [`WHOLE_PAGE`]) or, less sure
/// themselves, outline the same card ([`same_card`]), its outline upright, in
/// `image`'s pixels.
fn pick(
    image: &RgbImage,
    candidates: &[Candidate],
    config: &LocateConfig,
    classifier: &Classifier,
    accepted: Option<&[DocumentKind]>,
) -> Option<Picked> {
    // The classifier's decision on each, without the request's prior.
    let seen: Vec<Classification> = candidates
        .iter()
        .map(|c| classifier.given(&c.probabilities, None))
        .collect();
    let clearly_other: Vec<bool> = seen
        .iter()
        .map(|seen| {
            accepted.is_some_and(|accepted| {
                !accepted.contains(&seen.kind) && seen.confidence >= CLEARLY_SEEN
            })
        })
        .collect();
    // Two cards outlined together are no document, nor is something printed on a
    // card, nor a card of another kind seen less clearly: the cards are among the
    // others.
    let other_kind: Vec<Quad> = candidates
        .iter()
        .zip(&clearly_other)
        .filter(|&(_, &other)| other)
        .map(|(c, _)| c.located.quad)
        .collect();
    let clearly_seen: Vec<Quad> = candidates
        .iter()
        .zip(&seen)
        .filter(|(_, seen)| seen.confidence >= CLEARLY_SEEN)
        .map(|(c, _)| c.located.quad)
        .collect();
    let holds: Vec<bool> = candidates
        .iter()
        .map(|c| holds_a_card(&c.located.quad, &other_kind, &clearly_seen, config))
        .collect();
    let whole_page = WHOLE_PAGE * image.width() as f32 * image.height() as f32;
    let cards: Vec<Quad> = (0..candidates.len())
        .filter(|&i| {
            clearly_other[i] && !holds[i] && candidates[i].located.quad.area() < whole_page
        })
        .map(|i| candidates[i].located.quad)
        .collect();
    let (kept, kept_probabilities): (Vec<usize>, Vec<Vec<f32>>) = candidates
        .iter()
        .enumerate()
        .filter(|&(i, _)| {
            let quad = &candidates[i].located.quad;
            !holds[i]
                && !part_of_a_card(quad, &cards)
                && (clearly_other[i] || !same_card(quad, &cards))
        })
        .map(|(i, c)| (i, c.probabilities.clone()))
        .unzip();
    let (chosen, class) = classifier.pick(&kept_probabilities, accepted)?;
    let chosen = kept[chosen];
    let located = &candidates[chosen].located;
    let found = Found {
        quad: class.upright(located.quad),
        method: located.method,
        class,
    };
    Some(Picked {
        found,
        seen: seen[chosen],
        other_kind: cards.first().copied(),
    })
}

/// Whether `outer` is two cards outlined together: it encloses (give or take 5 %
/// of its width) a card-shaped outline covering [`ONE_OF_TWO`] of it that is one
/// of `other_kind` in a shape not `outer`'s, or one of `seen` (of any kind) lying
/// across it. Two cards stacked a third of a card apart make a card's shape on
/// end; a passport page turned a quarter holds a block of print across it in a
/// card's shape, which the classifier does not clearly see as a card.
fn holds_a_card(outer: &Quad, other_kind: &[Quad], seen: &[Quad], config: &LocateConfig) -> bool {
    let one_of_two = |inner: &Quad| {
        let share = inner.area() / outer.area().max(1.0);
        ONE_OF_TWO.contains(&share)
            && config.is_card_shaped(inner)
            && outer.encloses(inner, 0.05 * outer.width())
    };
    other_kind
        .iter()
        .any(|inner| one_of_two(inner) && outer.shape_difference(inner) > PAIR_ASPECT_DIFFERENCE)
        || seen
            .iter()
            .any(|inner| one_of_two(inner) && outer.crosswise(inner))
}

/// Whether `inner` lies inside one of `cards` (give or take 5 % of its width),
/// covering less than [`PART_OF_A_CARD`] of it, and in about its shape when a third
/// of it or more ([`PART_ASPECT_DIFFERENCE`]): the photo or a panel of a card of
/// the wrong kind, outlined on its own, is no document of the kind asked for.
fn part_of_a_card(inner: &Quad, cards: &[Quad]) -> bool {
    cards.iter().any(|card| {
        let share = inner.area() / card.area().max(1.0);
        let shaped_alike = card.shape_difference(inner) <= PART_ASPECT_DIFFERENCE;
        share < PART_OF_A_CARD
            && (share < *ONE_OF_TWO.start() || shaped_alike)
            && card.encloses(inner, 0.05 * card.width())
    })
}

/// Whether `quad` and one of `cards` outline one card, which is the kind the
/// classifier sees on the outline it is surer of: they share more of the larger's
/// area than one card of two outlined together would ([`ONE_OF_TWO`]). A card's
/// outline without its header band, with a strip of the table beside it, or with
/// one side across it is that card.
fn same_card(quad: &Quad, cards: &[Quad]) -> bool {
    cards
        .iter()
        .any(|card| quad.overlap(card) > ONE_OF_TWO.end() * quad.area().max(card.area()))
}

/// A card of an `accepted` kind elsewhere on a page beside the outline `other` (a
/// card of another kind, or the side of a card whose other side is asked for
/// too): `other` masked with the paper's colour and the rest searched again. Of a
/// National ID's two sides on one page, the locator's likeliest outlines can all be
/// the side not asked for. A card found there is taken only when it lies
/// beside `other` (not the page around it) and the classifier clearly sees an
/// accepted kind on it without the request's prior ([`CLEARLY_SEEN`], as sure as a
/// refusal must be), so a document of the wrong kind is still refused as one.
fn elsewhere(
    image: &RgbImage,
    other: &Quad,
    config: &LocateConfig,
    classifier: &Classifier,
    accepted: &[DocumentKind],
) -> Option<Found> {
    let page_area = image.width() as f32 * image.height() as f32;
    if other.area() > ROOM_FOR_ANOTHER * page_area {
        return None;
    }
    let masked = masked(image, other);
    let candidates = candidates(&masked, config, classifier);
    let Picked { found, seen, .. } =
        pick(&masked, &candidates, config, classifier, Some(accepted))?;
    let beside = !found.quad.within(0.0)(other.centroid());
    (beside && accepted.contains(&seen.kind) && seen.confidence >= CLEARLY_SEEN).then_some(found)
}

/// `image` with the card under `quad` (grown by [`MASK_GROWTH`] about its centre)
/// painted in the paper's colour ([`locate::surface_colour`]).
fn masked(image: &RgbImage, quad: &Quad) -> RgbImage {
    let centre = quad.centroid();
    let grown = Quad {
        corners: quad.corners.map(|p| {
            Point::new(
                centre.x + (p.x - centre.x) * MASK_GROWTH,
                centre.y + (p.y - centre.y) * MASK_GROWTH,
            )
        }),
    };
    let paper = Rgb(locate::surface_colour(image));
    let inside = grown.within(0.0);
    let [x0, y0, x1, y1] = grown.bounds();
    let clamp = |v: f32, end: u32| (v.max(0.0) as u32).min(end);
    let mut masked = image.clone();
    for y in clamp(y0.floor(), image.height())..clamp(y1.ceil(), image.height()) {
        for x in clamp(x0.floor(), image.width())..clamp(x1.ceil(), image.width()) {
            if inside(Point::new(x as f32 + 0.5, y as f32 + 0.5)) {
                masked.put_pixel(x, y, paper);
            }
        }
    }
    masked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline(x: f32, y: f32, width: f32, height: f32) -> Quad {
        Quad::from_xy([
            [x, y],
            [x + width, y],
            [x + width, y + height],
            [x, y + height],
        ])
    }

    #[test]
    fn the_page_is_searched_beside_a_card_of_another_kind_unless_the_pick_is_clearly_a_card_asked_for()
     {
        use DocumentKind::{NidBack, NidFront};
        let config = LocateConfig::default();
        let back = outline(10.0, 10.0, 86.0, 54.0);
        let picked = |quad: Quad, kind: DocumentKind, confidence: f32| {
            let class = Classification {
                kind,
                upside_down: false,
                confidence,
                rival: None,
            };
            Picked {
                found: Found {
                    quad,
                    method: LocateMethod::Edges,
                    class,
                },
                seen: class,
                other_kind: Some(back),
            }
        };
        let front = outline(10.0, 66.0, 86.0, 54.0);
        let asked = [NidFront];
        // A front clearly seen in a card's shape is read where it is.
        assert_eq!(
            picked(front, NidFront, 0.99).beside_another(&asked, &config),
            None
        );
        // Unsure of it, or of an outline across both cards, the page is searched
        // beside the back.
        let across = outline(30.0, 40.0, 60.0, 70.0);
        for unsure in [picked(front, NidFront, 0.6), picked(across, NidFront, 0.95)] {
            assert_eq!(unsure.beside_another(&asked, &config), Some(back));
        }
        // A pick of another kind is what the page is searched beside.
        let other = picked(back, NidBack, 0.99);
        assert_eq!(other.beside_another(&asked, &config), Some(back));
    }

    #[test]
    fn an_outline_around_two_stacked_cards_holds_a_card_and_a_card_with_a_panel_does_not() {
        let config = LocateConfig::default();
        // A card's two sides one above the other (86 x 54 each, 8 apart), their
        // pair outlined as one, and the upper card alone.
        let pair = outline(10.0, 10.0, 86.0, 116.0);
        let upper = outline(10.0, 10.0, 86.0, 54.0);
        assert!(holds_a_card(&pair, &[upper, pair], &[], &config));
        assert!(!holds_a_card(&upper, &[upper, pair], &[], &config));
        // A card and a panel printed on it in the card's own shape, or its photo.
        let card = outline(0.0, 0.0, 160.0, 101.0);
        let panel = outline(20.0, 15.0, 120.0, 76.0);
        let photo = outline(10.0, 30.0, 40.0, 50.0);
        let outlines = [card, panel, photo];
        assert!(!holds_a_card(&card, &outlines, &outlines, &config));
    }

    #[test]
    fn an_outline_around_two_cards_stacked_far_apart_holds_either_lying_across_it_of_any_kind() {
        let config = LocateConfig::default();
        // 86 x 54 each, 29 apart: the pair is 86 x 137, a card's shape on end.
        let pair = outline(10.0, 10.0, 86.0, 137.0);
        let lower = outline(10.0, 93.0, 86.0, 54.0);
        assert!(pair.shape_difference(&lower) < PAIR_ASPECT_DIFFERENCE);
        // Clearly seen, though not as another kind: it lies across the pair.
        assert!(holds_a_card(&pair, &[], &[pair, lower], &config));
        assert!(!holds_a_card(&lower, &[], &[pair, lower], &config));
        // A passport page and a card-shaped panel printed along it hold nothing.
        let page = outline(0.0, 0.0, 125.0, 88.0);
        let panel = outline(5.0, 20.0, 90.0, 57.0);
        assert!(!holds_a_card(&page, &[], &[page, panel], &config));
    }

    #[test]
    fn a_panel_or_box_outlined_inside_a_card_is_part_of_it_and_a_card_inside_a_pair_is_not() {
        let card = outline(0.0, 0.0, 160.0, 101.0);
        let panel = outline(10.0, 20.0, 110.0, 70.0);
        let tighter = outline(2.0, 2.0, 156.0, 97.0);
        let corner = outline(120.0, 70.0, 30.0, 20.0);
        assert!(part_of_a_card(&panel, &[card]));
        assert!(part_of_a_card(&corner, &[card]));
        // The card itself, outlined more tightly, is not, nor is a box beside it.
        assert!(!part_of_a_card(&tighter, &[card]));
        assert!(!part_of_a_card(&outline(170.0, 0.0, 30.0, 20.0), &[card]));
        // Nor is a card a part of the outline of its pair (another shape).
        let pair = outline(10.0, 10.0, 86.0, 116.0);
        let upper = outline(10.0, 10.0, 86.0, 54.0);
        assert!(!part_of_a_card(&upper, &[pair]));
    }

    #[test]
    fn outlines_of_one_card_loose_tight_or_askew_are_the_same_card_and_a_part_of_it_is_not() {
        let card = outline(0.0, 0.0, 160.0, 101.0);
        let again = outline(3.0, -2.0, 158.0, 104.0);
        assert!(same_card(&again, &[card]));
        // Without its header band (the top 15 %), or with a strip of the table.
        assert!(same_card(&outline(0.0, 15.0, 160.0, 86.0), &[card]));
        assert!(same_card(&outline(0.0, 0.0, 190.0, 112.0), &[card]));
        // With its top side across it, from 15 above its corner to 15 below.
        let across = Quad::from_xy([[0.0, -15.0], [160.0, 15.0], [160.0, 101.0], [0.0, 101.0]]);
        assert!(same_card(&across, &[card]));
        assert!(!same_card(&outline(10.0, 20.0, 110.0, 70.0), &[card]));
        assert!(!same_card(&outline(100.0, 0.0, 160.0, 101.0), &[card]));
        // One card of two outlined together is not the pair.
        let pair = outline(10.0, 10.0, 86.0, 116.0);
        assert!(!same_card(&outline(10.0, 10.0, 86.0, 54.0), &[pair]));
    }

    #[test]
    fn only_a_request_accepting_both_sides_of_a_card_reads_them_together() {
        use DocumentKind::*;
        // `ID_type` 0 accepts a car licence's two sides and one side of a National ID.
        let zero = [NidFront, DriverLicence, CarLicenceFront, CarLicenceBack];
        assert_eq!(
            reads_both_sides(CarLicenceBack, Some(&zero)),
            Some(CarLicenceFront)
        );
        assert_eq!(
            reads_both_sides(CarLicenceFront, Some(&zero)),
            Some(CarLicenceBack)
        );
        assert_eq!(reads_both_sides(NidFront, Some(&zero)), None);
        assert_eq!(reads_both_sides(DriverLicence, Some(&zero)), None);
        // One side asked for alone, a kind not asked for, or any kind: one card.
        assert_eq!(
            reads_both_sides(CarLicenceBack, Some(&[CarLicenceBack])),
            None
        );
        assert_eq!(reads_both_sides(Passport, Some(&zero)), None);
        assert_eq!(reads_both_sides(CarLicenceFront, None), None);
    }

    #[test]
    fn a_masked_card_takes_the_papers_colour_and_the_rest_of_the_page_is_unchanged() {
        let mut page = RgbImage::from_pixel(200, 100, Rgb([250, 248, 240]));
        for y in 20..60 {
            for x in 20..80 {
                page.put_pixel(x, y, Rgb([30, 60, 90]));
            }
            for x in 120..180 {
                page.put_pixel(x, y, Rgb([90, 60, 30]));
            }
        }
        let card = Quad::from_xy([[20.0, 20.0], [80.0, 20.0], [80.0, 60.0], [20.0, 60.0]]);

        let masked = masked(&page, &card);

        assert_eq!(locate::surface_colour(&page), [250, 248, 240]);
        // The card and its edge, a few pixels past the outline, are paper now.
        for (x, y) in [(20, 20), (50, 40), (79, 59), (18, 40)] {
            assert_eq!(*masked.get_pixel(x, y), Rgb([250, 248, 240]), "({x}, {y})");
        }
        // The other card is untouched.
        assert_eq!(*masked.get_pixel(150, 40), Rgb([90, 60, 30]));
        assert_eq!(*masked.get_pixel(120, 20), Rgb([90, 60, 30]));
    }
}
