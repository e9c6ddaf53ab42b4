//! Outlines with one side lost: a card's edge can vanish under glare or against a
//! surface of its own shade, while its other three sides stay crisp. The edge
//! search then has no four-sided candidate for the card and settles for a
//! rectangle printed on it (a block of the back's barcode, whose bars are the
//! strongest lines in the image). Three backed sides and the document's aspect
//! place the fourth.

use super::LocateConfig;
use super::gradient::GradientField;
use super::lines::{Line, angle_between};
use super::quads::{Backing, score_shape, side_score};
use crate::pipeline::warp::{Point, Quad};

/// [`side_score`] each of the three sides needs.
const MIN_SIDE_SUPPORT: f32 = 0.8;
/// Score of a three-sided outline relative to its sides' support: a side taken
/// on trust costs against a fully backed outline of the same size, and against
/// the surface region's outline of the same card (at 0.75 it outranked that).
const MISSING_SIDE_COST: f32 = 0.5;
/// Least area of a three-sided outline over the outline it encloses. A printed
/// rectangle is a fraction of its card; an outline barely larger is more likely
/// the card itself, found whole, with the fourth side of another document's aspect.
pub(super) const MIN_GROWTH: f32 = 2.0;

/// The best three-sided outline by the edge search's rank (`score · √area`)
/// that encloses the edge search's best outline and outranks it, with its
/// score; any three-sided outline when the search found none. `pairs` are the
/// roughly parallel pairs of candidate lines.
pub(super) fn enclosing_outline(
    field: &GradientField,
    lines: &[Line],
    pairs: &[(Line, Line)],
    best_found: Option<(&Quad, f32)>,
    config: &LocateConfig,
) -> Option<(Quad, f32)> {
    let (w, h) = (field.width as f32, field.height as f32);
    let support = |a: Point, b: Point| side_score(field, a, b, Backing::steps(field.threshold));
    let mut best: Option<(Quad, f32, f32)> = None;
    for &(a, b) in pairs {
        for &c in lines {
            if angle_between(&a, &c) < 60f32.to_radians() {
                continue;
            }
            let (Some(ac), Some(bc)) = (a.intersect(&c), b.intersect(&c)) else {
                continue;
            };
            // The side between the pair is checked once, before its quads are built.
            let across = support(bc, ac);
            if across < MIN_SIDE_SUPPORT {
                continue;
            }
            let gap = ac.distance(bc);
            for &aspect in &config.document_aspects {
                // The pair is either the long sides or the short ones.
                for length in [gap * aspect, gap / aspect] {
                    for sign in [1.0f32, -1.0] {
                        let d = Line {
                            rho: c.rho + sign * length,
                            ..c
                        };
                        let (Some(ad), Some(bd)) = (a.intersect(&d), b.intersect(&d)) else {
                            continue;
                        };
                        let quad = Quad {
                            corners: [ac, ad, bd, bc],
                        };
                        if score_shape(&quad, w, h, config).is_none()
                            || best_found.is_some_and(|(inner, _)| {
                                quad.area() < MIN_GROWTH * inner.area()
                                    || !quad.encloses(inner, 1.0)
                            })
                        {
                            continue;
                        }
                        let sides = [support(ac, ad), support(bd, bc)];
                        if sides.iter().any(|&s| s < MIN_SIDE_SUPPORT) {
                            continue;
                        }
                        let score = MISSING_SIDE_COST * (sides[0] + sides[1] + across) / 3.0;
                        let rank = score * (quad.area() / (w * h)).sqrt();
                        let floor = best_found.map_or(0.0, |(_, rank)| rank);
                        if rank > floor && best.as_ref().is_none_or(|b| rank > b.2) {
                            best = Some((quad, score, rank));
                        }
                    }
                }
            }
        }
    }
    best.map(|(quad, score, _)| (quad, score))
}

#[cfg(test)]
mod tests {
    use image::Rgb;

    use super::super::tests::{barcode_card_photo, corner_error};
    use super::super::{LocateConfig, locate};

    #[test]
    fn a_card_whose_top_edge_vanishes_is_not_taken_for_its_barcode() {
        // A plain grey table, except that above the card's top edge it takes the
        // card's own colour, the way glare or a pale surface swallows one side.
        let (image, truth) = barcode_card_photo(|x, y, p| {
            let noise = ((x.wrapping_mul(7919) ^ y.wrapping_mul(104_729)) % 7) as u8;
            if p.y < 0.0 {
                Rgb([205, 215, 225])
            } else {
                Rgb([110 + noise, 112 + noise, 115 + noise])
            }
        });
        let found = locate(&image, &LocateConfig::default()).expect("card found");
        let error = corner_error(&found.quad, &truth);
        assert!(error < 30.0, "corner error {error} px: {found:?}");
    }
}
