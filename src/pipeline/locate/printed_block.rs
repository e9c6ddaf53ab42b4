//! A pale card's outline around a block printed on it.
//!
//! On a pale card on a pale surface, the back's barcode (its bars' ends, one bar
//! inside it, the card's edge below it) backs a quad better than the card's own
//! faint edges do, in the document's aspect. Such a quad is dense with edges
//! inside, where a card's face is mostly plain paper between lines of print; it
//! gives way to the best outline that encloses it with its sides backed at a
//! lower threshold ([`enclosing_card`]).
//!
//! On a page, a pale card may show no outline the edge search accepts at all;
//! its print still stands out from the paper as one block, and the card is the
//! outline around it ([`around_print`]), or the block with the corner its print
//! leaves empty put back.

use std::ops::RangeInclusive;

use super::LocateConfig;
use super::gradient::GradientField;
use super::lines::{angle_between, hough_lines_where, parallel_pairs};
use super::quads::{Backing, quad_from_lines, score_quad_at};
use super::three_sided::MIN_GROWTH;
use crate::pipeline::warp::{Point, Quad};

/// Share of an outline's inside with edges above the field's threshold from
/// which it is taken for a printed block. On tuning photos (seed 4271) the
/// barcode blocks taken for National-ID backs measured 0.62 to 0.74, and the
/// cards found 0.56 at most.
const DENSE_EDGES: f32 = 0.6;
/// Score of the enclosing outline relative to its faint sides' support: a
/// little below an outline backed as well at the full threshold. At 0.5 the
/// surface region's outline, which takes in the card's shadow, outranked it on
/// two of the six tuning photos.
const FAINT_OUTLINE_COST: f32 = 0.9;

/// A card's area over its print's: the print of an ID card or a passport page
/// leaves margins of a few percent of its width (down to 0.9: a block that took
/// in the card's rim may reach a little beyond the lines outside it).
const PRINT_MARGINS: RangeInclusive<f32> = 0.9..=1.6;

/// How far a card's outline may run inside its block of print: a dark rim joins
/// the print, and the block's outline then lies on it or just outside.
const RIM_IN_PRINT: f32 = 3.0;

/// Lines looked for outside the block, where the card's faint edges are.
const LINES: usize = 24;
/// How near (working cells) the grid's border a corner lies on it.
const BORDER_REACH: f32 = 3.0;

/// When `inner` is a printed block, the best outline (by the edge search's
/// rank, `score · √area`) that encloses it, built from the strongest lines
/// outside it at the lower threshold, with its score.
pub(super) fn enclosing_card(
    field: &GradientField,
    inner: &Quad,
    config: &LocateConfig,
) -> Option<(Quad, f32)> {
    if edge_density(field, inner) < DENSE_EDGES {
        return None;
    }
    let enclosure = Enclosure {
        backing: Backing::steps(field.faint_threshold()),
        growth: MIN_GROWTH..=f32::INFINITY,
        overlap: 0.0,
    };
    faint_outline_around(field, inner, config, &enclosure)
}

/// The card around `block`, the print of a pale card on a pale page
/// ([`print_block`](super::region::print_block)), with its score: the block
/// itself when the card's thin rim joined its print, or the best outline
/// enclosing it by a card's margins, whichever ranks higher. Its sides are faint
/// steps or thin lines: outside the print nothing else draws a line.
pub(super) fn around_print(
    field: &GradientField,
    block: &Quad,
    config: &LocateConfig,
) -> Option<(Quad, f32)> {
    let enclosure = Enclosure {
        backing: Backing {
            threshold: field.faint_threshold(),
            thin_lines: true,
        },
        growth: PRINT_MARGINS,
        overlap: RIM_IN_PRINT,
    };
    let itself = score_quad_at(field, block, config, enclosure.backing)
        .filter(|&score| score >= config.min_score)
        .map(|score| (*block, score));
    let around = faint_outline_around(field, block, config, &enclosure);
    // A card lying flat on a page is a parallelogram: where its print leaves one
    // corner empty, the block's other three corners place it.
    let completed = (0..4).filter_map(|k| {
        let quad = block.with_corner_completed(k);
        (config.is_card_shaped(&quad) && quad.encloses(block, 1.0 + RIM_IN_PRINT))
            .then(|| score_quad_at(field, &quad, config, enclosure.backing))
            .flatten()
            .filter(|&score| score >= config.min_score)
            .map(|score| (quad, score))
    });
    let rank = |(quad, score): &(Quad, f32)| score * quad.area().sqrt();
    [itself, around]
        .into_iter()
        .flatten()
        .chain(completed)
        .max_by(|a, b| rank(a).total_cmp(&rank(b)))
}

/// Where a card's outline may lie around a block it encloses.
struct Enclosure {
    /// What backs its sides.
    backing: Backing,
    /// Its area over the block's.
    growth: RangeInclusive<f32>,
    /// How far, in working pixels, inside the block's outline its sides may run.
    overlap: f32,
}

/// The best outline (by the edge search's rank, `score · √area`) that encloses
/// `inner` as `enclosure` says, built from the strongest lines outside it, with
/// its score.
fn faint_outline_around(
    field: &GradientField,
    inner: &Quad,
    config: &LocateConfig,
    enclosure: &Enclosure,
) -> Option<(Quad, f32)> {
    let Enclosure {
        backing,
        ref growth,
        overlap,
    } = *enclosure;
    let in_block = inner.within(-overlap);
    let outside = |x: usize, y: usize| !in_block(Point::new(x as f32, y as f32));
    let lines = hough_lines_where(field, LINES, backing.threshold, outside);
    let pairs = parallel_pairs(field, &lines);
    let mut best: Option<(Quad, f32, f32)> = None;
    for (i, p) in pairs.iter().enumerate() {
        for q in &pairs[i + 1..] {
            if angle_between(&p.0, &q.0) < 60f32.to_radians() {
                continue;
            }
            let Some(quad) = quad_from_lines(p, q) else {
                continue;
            };
            let grown = quad.area() / inner.area().max(1.0);
            if !growth.contains(&grown)
                || !quad.encloses(inner, 1.0 + overlap)
                || on_the_border(&quad, field)
            {
                continue;
            }
            let Some(score) = score_quad_at(field, &quad, config, backing) else {
                continue;
            };
            let rank = score * quad.area().sqrt();
            if score >= config.min_score && best.as_ref().is_none_or(|b| rank > b.2) {
                best = Some((quad, score, rank));
            }
        }
    }
    best.map(|(quad, score, _)| (quad, FAINT_OUTLINE_COST * score))
}

/// Whether a corner of `quad` lies on the border of `field`'s grid (within
/// [`BORDER_REACH`] cells): there a side is the page's edge or the scanner lid's
/// shadow, not a card's lying on the page.
fn on_the_border(quad: &Quad, field: &GradientField) -> bool {
    let (w, h) = (field.width as f32 - 1.0, field.height as f32 - 1.0);
    quad.corners.iter().any(|p| {
        p.x <= BORDER_REACH
            || p.y <= BORDER_REACH
            || p.x >= w - BORDER_REACH
            || p.y >= h - BORDER_REACH
    })
}

/// Share of the working grid's cells inside `quad` whose gradient reaches the
/// field's threshold.
fn edge_density(field: &GradientField, quad: &Quad) -> f32 {
    let [x0, y0, x1, y1] = quad.bounds();
    let span = |lo: f32, hi: f32, len: usize| {
        (lo.max(0.0).ceil() as usize)..=(hi.min(len as f32 - 1.0).max(0.0) as usize)
    };
    let in_quad = quad.within(0.0);
    let (mut cells, mut edges) = (0usize, 0usize);
    for y in span(y0, y1, field.height) {
        for x in span(x0, x1, field.width) {
            if in_quad(Point::new(x as f32, y as f32)) {
                cells += 1;
                edges += usize::from(field.mag[y * field.width + x] >= field.threshold);
            }
        }
    }
    edges as f32 / cells.max(1) as f32
}

#[cfg(test)]
mod tests {
    use image::{Rgb, RgbImage};

    use super::super::tests::{barcode_card_photo, corner_error, paste};
    use super::super::{LocateConfig, locate};
    use crate::pipeline::warp::{Point, Quad};

    /// A pale card on a surface a shade darker (12 levels): its outline is
    /// backed at half the edge threshold only, and the edge search's best quad
    /// is a block of the barcode's bars.
    #[test]
    fn a_faint_card_is_not_taken_for_a_block_of_its_barcode() {
        let (image, truth) = barcode_card_photo(|x, y, _| {
            let noise = ((x.wrapping_mul(7919) ^ y.wrapping_mul(104_729)) % 9) as u8;
            Rgb([193 + noise, 203 + noise, 213 + noise])
        });
        let found = locate(&image, &LocateConfig::default()).expect("card found");
        let error = corner_error(&found.quad, &truth);
        assert!(error < 10.0, "corner error {error} px: {found:?}");
    }

    /// A card of the page's own colour (220) with dark print, its top edge a thin
    /// grey rim, its left one too (`rim`) or a fainter one, its right and bottom a
    /// step of nine grey levels.
    fn pale_card(rim: bool) -> RgbImage {
        let (width, height) = (506, 319);
        RgbImage::from_fn(width, height, |x, y| {
            let (u, v) = (x as f32 / width as f32, y as f32 / height as f32);
            let text = (0.35..0.95).contains(&u)
                && [0.12, 0.3, 0.45, 0.6, 0.75, 0.9]
                    .iter()
                    .any(|&row| (v - row).abs() < 0.025)
                && !((u * 40.0) as u32).is_multiple_of(4);
            let photo = (0.05..0.3).contains(&u) && (0.1..0.7).contains(&v);
            if y < 2 {
                Rgb([170, 170, 170])
            } else if x < 2 {
                let level = if rim { 170 } else { 200 };
                Rgb([level, level, level])
            } else if text {
                Rgb([40, 40, 40])
            } else if photo {
                Rgb([120, 110, 100])
            } else {
                Rgb([220, 220, 220])
            }
        })
    }

    /// [`pale_card`] (with its `rim`) at `left` on an A4 page scanned at 150 dpi,
    /// the page's columns left of `shade` a scanner lid's shadow, with the card's
    /// outline: no outline the edge search accepts, no region standing out whole,
    /// only the print and the rim around it.
    fn pale_card_page(left: f32, shade: u32, rim: bool) -> (RgbImage, [Point; 4]) {
        let truth = Quad::from_xy([
            [left, 400.0],
            [left + 506.0, 408.0],
            [left + 501.0, 727.0],
            [left - 5.0, 719.0],
        ])
        .corners;
        let page = paste(&pale_card(rim), 1240, 1754, truth, |x, y, _| {
            let noise = ((x.wrapping_mul(7919) ^ y.wrapping_mul(104_729)) % 5) as u8;
            let level = if x < shade { 190 } else { 227 } + noise;
            Rgb([level, level, level])
        });
        (page, truth)
    }

    /// Asserts the card of [`pale_card_page`] is outlined within 12 px.
    fn assert_pale_card_found(left: f32, shade: u32, rim: bool) {
        let (page, truth) = pale_card_page(left, shade, rim);
        let found = locate(&page, &LocateConfig::default()).expect("card found");
        let error = corner_error(&found.quad, &truth);
        assert!(error < 12.0, "corner error {error} px: {found:?}");
    }

    #[test]
    fn a_pale_card_on_a_page_of_its_colour_is_found_around_its_print() {
        assert_pale_card_found(300.0, 0, true);
    }

    #[test]
    fn an_outline_with_a_corner_on_the_images_border_is_on_it() {
        let field = super::GradientField::pooled(&RgbImage::new(100, 80), 100, 80);
        let quad =
            |left: f32| Quad::from_xy([[left, 20.0], [90.0, 20.0], [90.0, 60.0], [left, 60.0]]);
        assert!(super::on_the_border(&quad(1.0), &field));
        assert!(!super::on_the_border(&quad(10.0), &field));
    }

    /// Closing the print's gaps joined it to the shadow along the page's edge a
    /// few millimetres away, and the outline around it took the page's edge.
    #[test]
    fn a_pale_card_near_the_pages_shaded_edge_is_found_around_its_print_alone() {
        assert_pale_card_found(45.0, 8, false);
    }
}
