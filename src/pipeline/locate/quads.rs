//! Quad scoring: candidate outlines built from pairs of parallel lines and scored by
//! how much of their outline edges back, by their shape and by their size.

use super::LocateConfig;
use super::gradient::GradientField;
use super::lines::{Line, angle_between, candidate_lines, parallel_pairs};
use super::sides::{grow, onto_faint_side, refine};
use super::{printed_block, three_sided};
use crate::pipeline::warp::{Point, Quad};

/// How far, in log ratio, a quad's aspect is from the nearest document aspect.
pub(super) fn aspect_error(quad: &Quad, config: &LocateConfig) -> f32 {
    let c = quad.corners;
    let horizontal = c[0].distance(c[1]) + c[2].distance(c[3]);
    let vertical = c[1].distance(c[2]) + c[3].distance(c[0]);
    let aspect = horizontal.max(vertical) / horizontal.min(vertical).max(1e-3);
    config
        .document_aspects
        .iter()
        .map(|a| (aspect / a).ln().abs())
        .fold(f32::INFINITY, f32::min)
}

/// The shape checks of a candidate outline, without edge support (part of
/// [`score_quad`]; alone for the surface region): near the image, convex, large
/// enough, a document's aspect.
pub(super) fn score_shape(quad: &Quad, w: f32, h: f32, config: &LocateConfig) -> Option<()> {
    let margin = 0.04 * w.max(h);
    let c = quad.corners;
    if c.iter()
        .any(|p| p.x < -margin || p.y < -margin || p.x > w + margin || p.y > h + margin)
        || !is_convex(quad)
    {
        return None;
    }
    if quad.area() / (w * h) < config.min_area_fraction {
        return None;
    }
    let horizontal = c[0].distance(c[1]) + c[2].distance(c[3]);
    let vertical = c[1].distance(c[2]) + c[3].distance(c[0]);
    let aspect = horizontal.max(vertical) / horizontal.min(vertical).max(1e-3);
    (config.min_aspect..=config.max_aspect)
        .contains(&aspect)
        .then_some(())
}

/// Orders the corners clockwise with the long side first, starting from the corner
/// nearest the image's top-left (the upright guess; the classifier may turn it).
pub(super) fn landscape(quad: Quad) -> Quad {
    let mut c = quad.corners;
    // Clockwise on screen (y down) means positive shoelace sum.
    let twice: f32 = (0..4)
        .map(|i| c[i].x * c[(i + 1) % 4].y - c[(i + 1) % 4].x * c[i].y)
        .sum();
    if twice < 0.0 {
        c.reverse();
    }
    let side = |i: usize| c[i].distance(c[(i + 1) % 4]);
    let long_first = side(0) + side(2) >= side(1) + side(3);
    // Starts that put a long side first: 0 and 2, or 1 and 3.
    let starts = if long_first { [0, 2] } else { [1, 3] };
    let start = starts
        .into_iter()
        .min_by(|&a, &b| (c[a].x + c[a].y).total_cmp(&(c[b].x + c[b].y)))
        .unwrap_or(0);
    c.rotate_left(start);
    Quad { corners: c }
}

/// Combines parallel pairs of the strongest lines into quads; the `max` best
/// distinct ones, best first.
pub(super) fn best_quads(
    field: &GradientField,
    config: &LocateConfig,
    max: usize,
) -> Vec<(Quad, f32)> {
    let lines = candidate_lines(field);
    let (w, h) = (field.width as f32, field.height as f32);
    let pairs = parallel_pairs(field, &lines);
    // Among well-supported outlines the largest wins: a card holds rectangles of
    // its own (photo, text blocks) that are as crisp as its outline.
    let rank = |quad: &Quad, score: f32| score * (quad.area() / (w * h)).sqrt();
    let mut found: Vec<(Quad, f32)> = Vec::new();
    for (i, p) in pairs.iter().enumerate() {
        for q in &pairs[i + 1..] {
            let cross = angle_between(&p.0, &q.0);
            if cross < 60f32.to_radians() {
                continue;
            }
            let Some(quad) = quad_from_lines(p, q) else {
                continue;
            };
            let Some(score) = score_quad(field, &quad, config) else {
                continue;
            };
            if score >= config.min_score {
                found.push((quad, score));
            }
        }
    }
    found.sort_by(|a, b| rank(&b.0, b.1).total_cmp(&rank(&a.0, a.1)));
    // Distinct outlines only: near-duplicates come from neighbouring line peaks.
    let mut distinct: Vec<(Quad, f32)> = Vec::new();
    for (quad, score) in found {
        let size = quad.corners[0].distance(quad.corners[2]);
        let duplicate = distinct.iter().any(|(d, _)| {
            d.corners
                .iter()
                .zip(&quad.corners)
                .all(|(a, b)| a.distance(*b) < 0.05 * size)
        });
        if !duplicate {
            distinct.push((quad, score));
        }
        if distinct.len() == max {
            break;
        }
    }
    let best_found = distinct
        .first()
        .map(|(quad, score)| (quad, rank(quad, *score)));
    if let Some(outline) = three_sided::enclosing_outline(field, &lines, &pairs, best_found, config)
    {
        distinct.insert(0, outline);
        distinct.truncate(max);
    }
    if let Some(outline) = distinct
        .first()
        .and_then(|(inner, _)| printed_block::enclosing_card(field, inner, config))
    {
        distinct.insert(0, outline);
        distinct.truncate(max);
    }
    distinct
        .into_iter()
        .map(|(quad, score)| {
            let grown = grow(field, quad, config);
            let (quad, score) = match score_quad(field, &grown, config) {
                Some(s) if grown != quad && s >= 0.8 * config.min_score => (grown, s),
                _ => (quad, score),
            };
            // Scored as found: the faint side would lower it.
            let quad = onto_faint_side(field, quad, config).unwrap_or(quad);
            let refined = refine(field, quad);
            match score_quad(field, &refined, config) {
                Some(refined_score) if refined_score >= score => (refined, refined_score),
                _ => (quad, score),
            }
        })
        .collect()
}

/// Corners where the two pairs of lines cross, in order around the quad.
pub(super) fn quad_from_lines(p: &(Line, Line), q: &(Line, Line)) -> Option<Quad> {
    let corners = [
        p.0.intersect(&q.0)?,
        p.0.intersect(&q.1)?,
        p.1.intersect(&q.1)?,
        p.1.intersect(&q.0)?,
    ];
    Some(Quad { corners })
}

/// Fraction of each side backed by an edge, combined with aspect and size
/// priors; `None` for shapes that cannot be a document.
pub(super) fn score_quad(field: &GradientField, quad: &Quad, config: &LocateConfig) -> Option<f32> {
    score_quad_at(field, quad, config, Backing::steps(field.threshold))
}

/// [`score_quad`] with sides backed as `backing` says.
pub(super) fn score_quad_at(
    field: &GradientField,
    quad: &Quad,
    config: &LocateConfig,
    backing: Backing,
) -> Option<f32> {
    score_shape(quad, field.width as f32, field.height as f32, config)?;
    let c = quad.corners;
    // Opposite sides of a card in a photo are close to equal; a big mismatch means
    // one of the lines belongs to something else.
    for (a, b) in [(0, 2), (1, 3)] {
        let (la, lb) = (c[a].distance(c[(a + 1) % 4]), c[b].distance(c[(b + 1) % 4]));
        if la.min(lb) / la.max(lb) < 0.6 {
            return None;
        }
    }
    let supports: Vec<f32> = (0..4)
        .map(|i| side_score(field, c[i], c[(i + 1) % 4], backing))
        .collect();
    let mean = supports.iter().sum::<f32>() / 4.0;
    let min = supports.iter().copied().fold(1.0, f32::min);
    Some(0.6 * mean + 0.4 * min)
}

/// How well the side `a → b` is backed, judged by the mean and the worst of its
/// thirds: a line that runs on past the card (a shadow, the scanner's lid) backs
/// the middle of a side that is too long, not its ends.
pub(super) fn side_score(field: &GradientField, a: Point, b: Point, backing: Backing) -> f32 {
    let parts = side_support_parts::<3>(field, a, b, backing);
    let mean = parts.iter().sum::<f32>() / 3.0;
    let min = parts.iter().copied().fold(1.0, f32::min);
    0.5 * (mean + min)
}

pub(super) fn is_convex(quad: &Quad) -> bool {
    let c = quad.corners;
    let cross = |i: usize| {
        let (a, b, d) = (c[i], c[(i + 1) % 4], c[(i + 2) % 4]);
        (b.x - a.x) * (d.y - b.y) - (b.y - a.y) * (d.x - b.x)
    };
    let signs: Vec<f32> = (0..4).map(cross).collect();
    signs.iter().all(|&s| s > 0.0) || signs.iter().all(|&s| s < 0.0)
}

/// What backs an outline's side: gradients across it of at least `threshold`,
/// of one sign all along (the step from the surface to the card), or, with
/// `thin_lines`, of both signs a pixel apart too (a pale card's thin rim on a
/// page, where the gradient field keeps whichever sign is stronger in a cell).
#[derive(Debug, Clone, Copy)]
pub(super) struct Backing {
    pub threshold: f32,
    pub thin_lines: bool,
}

impl Backing {
    pub(super) fn steps(threshold: f32) -> Backing {
        Backing {
            threshold,
            thin_lines: false,
        }
    }
}

/// Share of points along `a → b` (away from the corners, which are rounded on
/// cards) with a strong gradient across the side, all of one polarity.
pub(super) fn side_support(field: &GradientField, a: Point, b: Point, threshold: f32) -> f32 {
    side_support_parts::<1>(field, a, b, Backing::steps(threshold))[0]
}

/// [`side_support`] of each of `N` equal stretches of the side, the polarity
/// being the whole side's.
pub(super) fn side_support_parts<const N: usize>(
    field: &GradientField,
    a: Point,
    b: Point,
    backing: Backing,
) -> [f32; N] {
    let hits = side_hits::<N>(field, a, b, backing);
    let use_positive =
        hits.iter().map(|h| h.0).sum::<f32>() >= hits.iter().map(|h| h.1).sum::<f32>();
    hits.map(|(positive, negative)| if use_positive { positive } else { negative })
}

/// For each of `N` equal stretches of the side `a → b` (away from the corners,
/// which are rounded on cards), the shares of points with a strong gradient
/// across the side along its normal `(-dy, dx)` and against it.
pub(super) fn side_hits<const N: usize>(
    field: &GradientField,
    a: Point,
    b: Point,
    backing: Backing,
) -> [(f32, f32); N] {
    let threshold = backing.threshold;
    let len = a.distance(b);
    if len < 4.0 {
        return [(0.0, 0.0); N];
    }
    let (dx, dy) = ((b.x - a.x) / len, (b.y - a.y) / len);
    let (nx, ny) = (-dy, dx);
    let samples = (len / 2.0) as usize;
    let (mut positive, mut negative, mut total) = ([0usize; N], [0usize; N], [0usize; N]);
    for k in 0..samples {
        let part = k * N / samples.max(1);
        let t = 0.06 + 0.88 * (k as f32 + 0.5) / samples as f32;
        let (px, py) = (a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t);
        total[part] += 1;
        // The strongest normal gradient of each sign within ±1.5 px across the side.
        let (mut rise, mut fall) = (0f32, 0f32);
        for off in [-1.5f32, -0.75, 0.0, 0.75, 1.5] {
            let (gx, gy) = field.at(px + nx * off, py + ny * off);
            let g = gx * nx + gy * ny;
            rise = rise.max(g);
            fall = fall.min(g);
        }
        // A step backs one sign, its stronger; a thin line backs both.
        let line = backing.thin_lines && rise >= threshold && fall <= -threshold;
        if line || (rise >= threshold && rise >= -fall) {
            positive[part] += 1;
        }
        if line || (fall <= -threshold && -fall > rise) {
            negative[part] += 1;
        }
    }
    std::array::from_fn(|i| {
        let total = total[i].max(1) as f32;
        (positive[i] as f32 / total, negative[i] as f32 / total)
    })
}
