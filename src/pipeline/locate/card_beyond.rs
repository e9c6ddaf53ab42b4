//! A side with card beyond it moves out to the card's edge.
//!
//! A printed line running the card's whole width or height (a header band's lower
//! edge, a panel's rule) can step more strongly than a pale card's own edge on a
//! pale surface, and a side then lies on the print, a band of the card left
//! outside. What lies beyond a card's true side is the surface it rests on; what
//! lies beyond a side on print is more card, tinted as the card is. So a side
//! whose outside band has the card's tint, not the surface's, moves out onto the
//! nearest edge beyond which the tint is the surface's (the image border's).
//! Tints, not colours: uneven light in a photo brightens the table beside the
//! card far from the border's colour, and a drop shadow is the surface darkened,
//! of the surface's tint. And the surface's, not any other: beyond a pale card on
//! white paper lies paper as untinted as the card, and past it another card.
//!
//! The other way round, a side can lie on the edge of another card a few
//! millimetres beyond a pale card's own, stronger than it: the band inside such
//! a side is the surface (the gap between the cards) and the band outside it
//! another tint. Such a side moves in onto the best backed edge with the
//! surface beyond it and not inside it.

use image::RgbImage;

use super::LocateConfig;
use super::gradient::GradientField;
use super::quads::{aspect_error, score_shape, side_support};
use super::sides::{PRINTED_SIDE_ASPECT_SLACK, inward_moves, outward_moves, outward_normal};
use crate::pipeline::warp::{Point, Quad};

/// Points sampled along a side, clear of its rounded corners.
const SAMPLES: usize = 24;
/// Largest tint difference (grey levels, see [`tint_distance`]) between the card
/// inside a side and the band outside it for the band to be card, and between
/// the surface and what lies beyond the edge the side moves onto.
const SAME_TINT: f32 = 5.0;
/// Smallest tint difference between the band and the surface.
const OTHER_TINT: f32 = 9.0;
/// Farthest a side moves, as a share of the card's depth across it: a header
/// band is about a tenth of a card's height.
const REACH: f32 = 0.15;
/// Farthest a side on another card's edge moves in, as a share of the card's
/// depth across it: cards laid side by side on a scanner lie a few millimetres
/// apart, a few percent of a card.
const GAP_REACH: f32 = 0.08;
/// Largest difference (grey levels, any channel) between the surface's colour and
/// the gap's between two cards; the card's own differs more.
const GAP_LEVELS: f32 = 8.0;
/// Edge support, at half the edge threshold, of the edge moved onto.
const MIN_SUPPORT: f32 = 0.5;

/// `quad` with each side that has card beyond it moved out onto the card's edge,
/// and each side on another card's edge moved in onto its own (see the module's
/// comment); `colour` is the working copy `field` was taken on, `surface` the
/// colour of what the card lies on ([`super::surface_colour`]).
pub(super) fn onto_card_edges(
    colour: &RgbImage,
    surface: [f32; 3],
    field: &GradientField,
    quad: Quad,
    config: &LocateConfig,
) -> Quad {
    let look = Look {
        colour,
        surface,
        field,
        config,
    };
    (0..4).fold(quad, |quad, i| {
        side_onto_card_edge(&look, quad, i)
            .or_else(|| side_off_another_card(&look, quad, i))
            .unwrap_or(quad)
    })
}

/// What a side is moved by: the working copy, the surface's colour (the image
/// border's), the gradient field taken on the copy, and the locator's settings.
struct Look<'a> {
    colour: &'a RgbImage,
    surface: [f32; 3],
    field: &'a GradientField,
    config: &'a LocateConfig,
}

/// Mean colour of the pixels along `a → b` (clear of its ends) between offsets
/// `from` and `to` along `outward`; `None` when most fall off the image.
fn strip_colour(
    colour: &RgbImage,
    (a, b): (Point, Point),
    outward: (f32, f32),
    (from, to): (f32, f32),
) -> Option<[f32; 3]> {
    let (mut sum, mut seen, mut total) = ([0.0f32; 3], 0, 0);
    let mut o = from;
    while o <= to {
        for k in 0..SAMPLES {
            let t = 0.15 + 0.7 * k as f32 / (SAMPLES - 1) as f32;
            let x = a.x + (b.x - a.x) * t + outward.0 * o;
            let y = a.y + (b.y - a.y) * t + outward.1 * o;
            total += 1;
            if x >= 0.0 && y >= 0.0 && (x as u32) < colour.width() && (y as u32) < colour.height() {
                let p = colour.get_pixel(x as u32, y as u32).0;
                for c in 0..3 {
                    sum[c] += f32::from(p[c]);
                }
                seen += 1;
            }
        }
        o += 1.0;
    }
    (seen * 2 > total).then(|| sum.map(|s| s / seen as f32))
}

/// Side `i` of a quad: its ends, its outward normal and the mean colours of the
/// bands just inside it (between the offsets `inside`) and just outside it.
struct Bands {
    a: Point,
    b: Point,
    outward: (f32, f32),
    inside: [f32; 3],
    outside: [f32; 3],
}

fn bands(colour: &RgbImage, quad: &Quad, i: usize, inside: (f32, f32)) -> Option<Bands> {
    let (a, b) = (quad.corners[i], quad.corners[(i + 1) % 4]);
    let outward = outward_normal(a, b, quad.centroid())?;
    Some(Bands {
        a,
        b,
        outward,
        inside: strip_colour(colour, (a, b), outward, inside)?,
        outside: strip_colour(colour, (a, b), outward, (1.0, 3.0))?,
    })
}

/// Whether an outline with a side of `quad` moved still has a document's shape,
/// and one at most a printed side's slack further from it than `quad`'s.
fn keeps_shape<'a>(look: &'a Look, quad: &Quad) -> impl Fn(&Quad) -> bool + 'a {
    let (field, config) = (look.field, look.config);
    let (w, h) = (field.width as f32, field.height as f32);
    let limit = aspect_error(quad, config) + PRINTED_SIDE_ASPECT_SLACK;
    move |moved| score_shape(moved, w, h, config).is_some() && aspect_error(moved, config) <= limit
}

/// How far apart two colours' tints are: the largest difference of their
/// channels once each has its own mean taken off (grey levels).
fn tint_distance(x: [f32; 3], y: [f32; 3]) -> f32 {
    let (mx, my) = (x.iter().sum::<f32>() / 3.0, y.iter().sum::<f32>() / 3.0);
    (0..3)
        .map(|c| ((x[c] - mx) - (y[c] - my)).abs())
        .fold(0.0, f32::max)
}

/// Side `i` of `quad` moved out onto the card's edge, when the band outside it
/// has the card's tint, not the `surface` colour's.
fn side_onto_card_edge(look: &Look, quad: Quad, i: usize) -> Option<Quad> {
    let (colour, surface, field) = (look.colour, look.surface, look.field);
    let side = bands(colour, &quad, i, (-6.0, -2.0))?;
    let (a, b, outward) = (side.a, side.b, side.outward);
    let (inside, outside) = (side.inside, side.outside);
    if tint_distance(inside, outside) > SAME_TINT || tint_distance(outside, surface) < OTHER_TINT {
        return None;
    }
    let keeps_shape = keeps_shape(look, &quad);
    // The innermost placement that qualifies: the card's edge, not a line of the
    // surface further out.
    outward_moves(quad, i, REACH, 1.0)
        .into_iter()
        .filter(|&(shift, moved)| {
            let (p, q) = (moved.corners[i], moved.corners[(i + 1) % 4]);
            side_support(field, p, q, field.faint_threshold()) >= MIN_SUPPORT
                && strip_colour(colour, (a, b), outward, (1.0, shift - 1.0)).is_some_and(|band| {
                    tint_distance(band, inside) <= SAME_TINT
                        && tint_distance(band, surface) >= OTHER_TINT
                })
                && strip_colour(colour, (p, q), outward, (1.5, 4.5))
                    .is_some_and(|beyond| tint_distance(beyond, surface) <= SAME_TINT)
                && keeps_shape(&moved)
        })
        .min_by(|x, y| x.0.total_cmp(&y.0))
        .map(|(_, moved)| moved)
}

/// Side `i` of `quad` moved in off another card's edge onto the card's own, when
/// the band inside it has the `surface`'s tint and the band outside it does not:
/// the best backed placement within [`GAP_REACH`] of the card's depth with the
/// surface's colour from it out to where the side was (the gap), and not inside
/// it (the card).
fn side_off_another_card(look: &Look, quad: Quad, i: usize) -> Option<Quad> {
    let (colour, surface, field) = (look.colour, look.surface, look.field);
    let side = bands(colour, &quad, i, (-3.0, -1.0))?;
    let (a, b, outward) = (side.a, side.b, side.outward);
    let (inside, outside) = (side.inside, side.outside);
    if tint_distance(inside, surface) > SAME_TINT || tint_distance(outside, surface) < OTHER_TINT {
        return None;
    }
    let keeps_shape = keeps_shape(look, &quad);
    inward_moves(quad, i, GAP_REACH, 1.0)
        .into_iter()
        .map(|(shift, moved)| {
            let (p, q) = (moved.corners[i], moved.corners[(i + 1) % 4]);
            (
                shift,
                moved,
                side_support(field, p, q, field.faint_threshold()),
            )
        })
        .filter(|&(shift, moved, support)| {
            let (p, q) = (moved.corners[i], moved.corners[(i + 1) % 4]);
            support >= MIN_SUPPORT
                && strip_colour(colour, (a, b), outward, (1.0 - shift, -1.0))
                    .is_some_and(|gap| colour_distance(gap, surface) <= GAP_LEVELS)
                && strip_colour(colour, (p, q), outward, (-3.0, -1.0))
                    .is_some_and(|card| colour_distance(card, surface) > GAP_LEVELS)
                && keeps_shape(&moved)
        })
        // The best backed (a line tilted across the gap onto the card is backed
        // in part); of those backed alike, the outermost: the card's edge, not
        // print along it.
        .max_by(|x, y| x.2.total_cmp(&y.2).then(y.0.total_cmp(&x.0)))
        .map(|(_, moved, _)| moved)
}

/// The largest difference of two colours' channels (grey levels).
fn colour_distance(x: [f32; 3], y: [f32; 3]) -> f32 {
    (0..3).map(|c| (x[c] - y[c]).abs()).fold(0.0, f32::max)
}
