//! A side on the card's drop shadow. A card lying on a table casts a shadow that
//! shows beyond its edges as a dark band fading out into the surface. The card
//! meets the band in a crisp step down; the band fades into the surface softly.
//! On a surface brighter than the card that soft rise steps the way the card's
//! other edges do, and the edge search, which wants one polarity all round, takes
//! it for the side: the outline then holds the band, a few percent of the card.

use image::RgbImage;

use super::sides::{bilinear, fit_line_trimmed, outward_normal, quad_from_sides};
use crate::pipeline::warp::{Point, Quad};

/// Farthest inside a side its card's edge is looked for, as a share of the card's
/// depth across that side (the generator's shadows reach 3 % of the card's width
/// plus 8 px of offset, 5 % of its height on a 500 px card).
const MAX_BAND: f32 = 0.08;
/// Points along a side where its profile is read.
const SAMPLES: usize = 40;
/// Least step down (grey levels over 2 px) from the card into the band.
const MIN_STEP: f32 = 24.0;
/// Least darkening of the band, on average, against the card just inside it.
const MIN_BAND_DEPTH: f32 = 20.0;
/// Greatest step at the side itself, as a share of the card's step: the band fades
/// into the surface, where a printed band beside a card's edge ends in a step.
const MAX_SIDE_STEP: f32 = 0.4;
/// Share of the samples that must show the band for the side to move.
const MIN_SHARE: f32 = 0.6;
/// Farthest a point lies from the fitted edge to be kept in the refit, in pixels.
const FIT_RESIDUAL: f32 = 1.5;

/// `quad` (source pixels) with each side that lies on a drop shadow moved in onto
/// the card's edge.
pub(super) fn off_shadows(image: &RgbImage, quad: Quad) -> Quad {
    let c = quad.corners;
    let centre = quad.centroid();
    let sides: Vec<(Point, Point)> = (0..4)
        .map(|i| {
            let (a, b) = (c[i], c[(i + 1) % 4]);
            let opposite = (c[(i + 2) % 4], c[(i + 3) % 4]);
            card_edge_inside(image, (a, b), opposite, centre).unwrap_or((a, b))
        })
        .collect();
    quad_from_sides(&sides, quad, f32::INFINITY)
}

/// The card's edge inside the side `a → b` when a shadow's band lies between
/// them along most of the side.
fn card_edge_inside(
    image: &RgbImage,
    (a, b): (Point, Point),
    (c, d): (Point, Point),
    centre: Point,
) -> Option<(Point, Point)> {
    let (nx, ny) = outward_normal(a, b, centre)?;
    let (m, opposite) = (a.midpoint(b), c.midpoint(d));
    let depth = (m.x - opposite.x) * nx + (m.y - opposite.y) * ny;
    let reach = (MAX_BAND * depth).round() as i32;
    if reach < 4 {
        return None;
    }
    let grey = |p: Point, offset: f32| grey_at(image, p.x + nx * offset, p.y + ny * offset);
    let mut points = Vec::with_capacity(SAMPLES);
    for k in 0..SAMPLES {
        let t = 0.1 + 0.8 * k as f32 / (SAMPLES - 1) as f32;
        let p = Point::new(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t);
        // Grey levels from `reach + 4` px inside the side to 4 px outside it.
        let profile: Option<Vec<f32>> = (-reach - 4..=4).map(|o| grey(p, o as f32)).collect();
        let Some(profile) = profile else { continue };
        let at = |o: i32| profile[(o + reach + 4) as usize];
        let step = |o: i32| at(o + 1) - at(o - 1);
        let Some(edge) = (-reach..=-2).min_by(|&x, &y| step(x).total_cmp(&step(y))) else {
            continue;
        };
        let card_step = -step(edge);
        let band: Vec<f32> = (edge + 2..=-2).map(at).collect();
        let band_mean = band.iter().sum::<f32>() / band.len().max(1) as f32;
        let side_step = (-3..=3).map(|o| step(o).abs()).fold(0.0, f32::max);
        if card_step >= MIN_STEP
            && at(edge - 3) - band_mean >= MIN_BAND_DEPTH
            && side_step <= MAX_SIDE_STEP * card_step
        {
            points.push(Point::new(p.x + nx * edge as f32, p.y + ny * edge as f32));
        }
    }
    let min_support = (MIN_SHARE * SAMPLES as f32).ceil() as usize;
    let fitted = fit_line_trimmed(&points, FIT_RESIDUAL, min_support, 1)?;
    (fitted.support >= min_support).then(|| fitted.line())
}

/// Mean of the three channels at continuous coordinates; `None` off the image.
fn grey_at(image: &RgbImage, x: f32, y: f32) -> Option<f32> {
    let mut sum = 0.0;
    for channel in 0..3 {
        sum += bilinear(image, x, y, channel)?;
    }
    Some(sum / 3.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    const SURFACE: u8 = 240;
    const CARD: u8 = 225;
    /// The card's extent in continuous coordinates: x 100..400, y 80..270.
    const CARD_BOX: [f32; 4] = [100.0, 80.0, 400.0, 270.0];
    /// How far the generator's shadow lies at full strength beyond the card, its
    /// offset; it then fades out over `FADE` px.
    const BAND: f32 = 6.0;
    const FADE: f32 = 14.0;

    /// A card on a brighter surface; beyond its right and bottom edges, `beyond`
    /// gives the grey level at a distance from the card.
    fn card_on_table(beyond: impl Fn(f32) -> u8) -> RgbImage {
        let [x0, y0, x1, y1] = CARD_BOX;
        RgbImage::from_fn(520, 380, |x, y| {
            let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
            if (x0..x1).contains(&px) && (y0..y1).contains(&py) {
                return Rgb([CARD; 3]);
            }
            let out = (px - x1).max(py - y1);
            if px >= x0 && py >= y0 && out > 0.0 {
                return Rgb([beyond(out); 3]);
            }
            Rgb([SURFACE; 3])
        })
    }

    fn quad(x1: f32, y1: f32) -> Quad {
        let [x0, y0, _, _] = CARD_BOX;
        Quad {
            corners: [
                Point::new(x0, y0),
                Point::new(x1, y0),
                Point::new(x1, y1),
                Point::new(x0, y1),
            ],
        }
    }

    fn assert_near(found: Quad, expected: Quad) {
        for (f, e) in found.corners.iter().zip(expected.corners) {
            assert!(f.distance(e) < 1.0, "{found:?} instead of {expected:?}");
        }
    }

    #[test]
    fn sides_on_a_drop_shadow_move_onto_the_cards_edge() {
        // As the generator draws it: the card's silhouette moved by its offset and
        // darkened by 45 %, fading out quadratically. The edge search takes the
        // steepest part of the rise, where the fade begins.
        let image = card_on_table(|d| {
            let fade = (1.0 - (d - BAND).max(0.0) / FADE).max(0.0);
            (f32::from(SURFACE) * (1.0 - 0.45 * fade * fade)) as u8
        });
        let [_, _, x1, y1] = CARD_BOX;
        let on_shadow = quad(x1 + BAND, y1 + BAND);
        assert_near(off_shadows(&image, on_shadow), quad(x1, y1));
    }

    #[test]
    fn sides_on_the_cards_edge_stay() {
        let plain = card_on_table(|_| SURFACE);
        let [_, _, x1, y1] = CARD_BOX;
        assert_near(off_shadows(&plain, quad(x1, y1)), quad(x1, y1));
        // A dark rim printed along the card's edge ends in a step, not a fade: the
        // outline around it is the card's.
        let rimmed = card_on_table(|d| if d <= BAND { 120 } else { SURFACE });
        let with_rim = quad(x1 + BAND, y1 + BAND);
        assert_near(off_shadows(&rimmed, with_rim), with_rim);
    }
}
