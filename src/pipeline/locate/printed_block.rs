//! A block printed on the card taken for the card: on a pale card on a pale
//! surface, the back's barcode (its bars' ends, one bar inside it, the card's
//! edge below it) backs a quad better than the card's own faint edges do, in
//! the document's aspect. Such a quad is dense with edges inside, where a card's
//! face is mostly plain paper between lines of print; it gives way to the best
//! outline that encloses it with its sides backed at a lower threshold.

use super::LocateConfig;
use super::gradient::GradientField;
use super::lines::{angle_between, hough_lines_where, parallel_pairs};
use super::quads::{quad_from_lines, score_quad_at};
use super::three_sided::MIN_GROWTH;
use crate::pipeline::warp::{Point, Quad};

/// Share of an outline's inside with edges above the field's threshold from
/// which it is taken for a printed block. On tuning photos (seed 4271) the
/// barcode blocks taken for National-ID backs measured 0.62 to 0.74, and the
/// cards found 0.56 at most.
const DENSE_EDGES: f32 = 0.6;
/// The enclosing outline's sides are backed at this share of the threshold:
/// they are the card's faint edges that lost to the block.
const FAINT_EDGE: f32 = 0.5;
/// Score of the enclosing outline relative to its faint sides' support: a
/// little below an outline backed as well at the full threshold. At 0.5 the
/// surface region's outline, which takes in the card's shadow, outranked it on
/// two of the six tuning photos.
const FAINT_OUTLINE_COST: f32 = 0.9;

/// Lines looked for outside the block, where the card's faint edges are.
const LINES: usize = 24;

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
    let threshold = FAINT_EDGE * field.threshold;
    let in_block = inner.within(0.0);
    let outside = |x: usize, y: usize| !in_block(Point::new(x as f32, y as f32));
    let lines = hough_lines_where(field, LINES, threshold, outside);
    let pairs = parallel_pairs(field, &lines);
    let min_area = MIN_GROWTH * inner.area();
    let mut best: Option<(Quad, f32, f32)> = None;
    for (i, p) in pairs.iter().enumerate() {
        for q in &pairs[i + 1..] {
            if angle_between(&p.0, &q.0) < 60f32.to_radians() {
                continue;
            }
            let Some(quad) = quad_from_lines(p, q) else {
                continue;
            };
            if quad.area() < min_area || !quad.encloses(inner, 1.0) {
                continue;
            }
            let Some(score) = score_quad_at(field, &quad, config, threshold) else {
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
    use image::Rgb;

    use super::super::tests::{barcode_card_photo, corner_error};
    use super::super::{LocateConfig, locate};

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
}
