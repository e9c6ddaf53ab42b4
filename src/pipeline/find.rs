//! The document in an upload: outline candidates on the overview, the classifier's
//! pick among them, and the picked outline upright in the upload's pixels.
//!
//! The engine and `hawiya eval docs --geometry-only` both start here, so the
//! evaluation measures the outline the engine reads.

use image::{Rgb, RgbImage};

use super::classify::{CLEARLY_SEEN, Classification, Classifier};
use super::locate::{self, LocateConfig, LocateMethod};
use super::overview::Overview;
use super::warp::{Point, Quad};
use crate::domain::DocumentKind;

/// The document the classifier was surest of.
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

/// Locates outline candidates on the upload's [`Overview`] and keeps the one the
/// classifier picks for the request's `accepted` kinds ([`Classifier::pick`]);
/// `None` when there is none. When that card is clearly another kind, the rest of
/// the page is searched once more ([`elsewhere`]). `lap` is called once the
/// candidates are found, so a caller can time locating and classifying apart.
pub fn find_document(
    upload: &RgbImage,
    config: &LocateConfig,
    classifier: &Classifier,
    accepted: Option<&[DocumentKind]>,
    mut lap: impl FnMut(&'static str),
) -> Option<Found> {
    let overview = Overview::of(upload);
    let candidates = locate::candidates(overview.image(), config);
    lap("locate");
    let mut found = pick(overview.image(), &candidates, classifier, accepted)?;
    if let Some(accepted) = accepted
        && !accepted.contains(&found.class.kind)
        && let Some(asked) = elsewhere(overview.image(), &found, config, classifier, accepted)
    {
        found = asked;
    }
    Some(Found {
        quad: overview.to_upload(found.quad),
        ..found
    })
}

/// The classifier's pick among `candidates`, its outline upright, in `image`'s pixels.
fn pick(
    image: &RgbImage,
    candidates: &[locate::Located],
    classifier: &Classifier,
    accepted: Option<&[DocumentKind]>,
) -> Option<Found> {
    let quads: Vec<Quad> = candidates.iter().map(|c| c.quad).collect();
    let (chosen, class) = classifier.pick(image, &quads, accepted)?;
    let located = candidates[chosen];
    Some(Found {
        quad: class.upright(located.quad),
        method: located.method,
        class,
    })
}

/// A card of an `accepted` kind elsewhere on a page whose picked card, `other`, is
/// of another kind: `other` masked with the paper's colour and the rest searched
/// again. Of a National ID's two sides on one page, the locator's likeliest outlines
/// can all be the side not asked for. A card found there is taken only when it lies
/// beside `other` (not the page around it) and the classifier clearly sees an
/// accepted kind on it without the request's prior ([`CLEARLY_SEEN`], as sure as a
/// refusal must be), so a document of the wrong kind is still refused as one.
fn elsewhere(
    image: &RgbImage,
    other: &Found,
    config: &LocateConfig,
    classifier: &Classifier,
    accepted: &[DocumentKind],
) -> Option<Found> {
    let page_area = image.width() as f32 * image.height() as f32;
    if other.quad.area() > ROOM_FOR_ANOTHER * page_area {
        return None;
    }
    let masked = masked(image, &other.quad);
    let candidates = locate::candidates(&masked, config);
    let found = pick(&masked, &candidates, classifier, Some(accepted))?;
    let seen = classifier.classify(&masked, &found.quad);
    let beside = !found.quad.within(0.0)(other.quad.centroid());
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
