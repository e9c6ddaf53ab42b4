//! Stage 2: find the document's outline in a photo or a scan.
//!
//! Classical geometry on a small grey copy of the image. The sides of a card are
//! long straight edges, so they are found as peaks of a gradient-oriented Hough
//! transform; pairs of roughly parallel lines are combined into quadrilaterals and
//! every candidate is scored by how much of its outline is backed by edges of one
//! polarity, by its aspect ratio and by its size; a best outline with a side
//! lost ([`three_sided`]) or lying on a printed block ([`printed_block`]) gives
//! way to one enclosing it. A second search ([`region`])
//! takes the document as the region that stands out from a plain surface, which
//! finds a pale card whose outline is too faint for the edges; on a scanner's
//! surface it comes first. The winner's sides are refined against the gradient,
//! then scaled back to source pixels.
//!
//! Orientation is not decided here: the quad's long side is horizontal, and
//! whether it is upside down is left to the classifier, which reads content.

use image::RgbImage;

use super::shrink::area_average;
use super::warp::{Point, Quad};

mod printed_block;
mod region;
mod shadow;
mod three_sided;

use region::surface_region;

/// Tuning of the locator; the defaults were chosen on generator output.
#[derive(Debug, Clone)]
pub struct LocateConfig {
    /// Longer side of the working copy, in pixels.
    pub work_side: u32,
    /// Smallest document, as a fraction of the image area.
    pub min_area_fraction: f32,
    /// Accepted long/short side ratios of the document, after perspective.
    pub min_aspect: f32,
    pub max_aspect: f32,
    /// Lowest candidate score accepted as a document outline.
    pub min_score: f32,
    /// Width over height of the documents read (ID-1 cards, passport pages).
    pub document_aspects: Vec<f32>,
    /// In an image of a document's own shape, an outline smaller than this share
    /// of it is taken for a rectangle printed on the document.
    pub inner_area_fraction: f32,
    /// Most outlines handed to the classifier to choose from.
    pub max_candidates: usize,
}

impl Default for LocateConfig {
    fn default() -> Self {
        LocateConfig {
            work_side: 480,
            min_area_fraction: 0.04,
            min_aspect: 1.2,
            max_aspect: 2.0,
            min_score: 0.5,
            document_aspects: vec![85.60 / 53.98, 125.0 / 88.0],
            inner_area_fraction: 0.3,
            max_candidates: 1,
        }
    }
}

/// Edge threshold (see [`surface_edge_threshold`]) above which the image is taken as
/// noisy and its gradient computed on the averaged working copy.
const NOISY_THRESHOLD: f32 = 12.0;
/// Best outline score under which a noisy image is searched again, smoothed.
const NOISY_FALLBACK_SCORE: f32 = 0.6;

/// How the outline was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LocateMethod {
    /// Four edges found in the image.
    Edges,
    /// The region that stands out from a plain surface ([`region`]).
    SurfaceRegion,
    /// No outline stood out, and the image itself has a document's shape: a
    /// scan or photo cropped to the card.
    WholeImage,
}

/// A located document: its outline (long side horizontal) in source pixels.
#[derive(Debug, Clone, Copy)]
pub struct Located {
    pub quad: Quad,
    pub method: LocateMethod,
    /// Candidate score in 0..1 (edge support, aspect, size).
    pub score: f32,
}

/// Finds the document in `image`; `None` when nothing document-shaped is there.
pub fn locate(image: &RgbImage, config: &LocateConfig) -> Option<Located> {
    candidates(image, config).into_iter().next()
}

/// Outlines that may be the document, most likely first (at most
/// `config.max_candidates`). The classifier, which knows what documents look
/// like, picks among them.
pub fn candidates(image: &RgbImage, config: &LocateConfig) -> Vec<Located> {
    let (w, h) = image.dimensions();
    let scale = config.work_side as f32 / w.max(h) as f32;
    let (sw, sh) = (
        ((w as f32 * scale).round() as u32).max(8),
        ((h as f32 * scale).round() as u32).max(8),
    );
    let colour = area_average(image, sw, sh);
    // The thumbnail is not exactly `scale` on both axes; map back per axis.
    let (fx, fy) = (w as f32 / sw as f32, h as f32 / sh as f32);
    // Thin printed outlines survive max-pooling of full-resolution gradients, where
    // averaging the image down first would wash them out.
    let mut field = GradientField::pooled(image, sw, sh);
    let edge_outlines = |field: &GradientField| {
        best_quads(field, config, config.max_candidates)
            .into_iter()
            .map(|(quad, score)| (quad, score, LocateMethod::Edges))
            .collect::<Vec<_>>()
    };
    let mut found = edge_outlines(&field);
    // In a noisy photo the maxima of full-resolution noise drown a soft outline;
    // averaging the image down first removes most of that noise, at some cost in
    // precision, so it is the fallback when no outline is clearly backed. A quiet
    // photo with no backed outline at all (a pale card blurred on pale paper) gets
    // the same second look.
    let second_look = match found.first() {
        None => true,
        Some((_, score, _)) => field.threshold > NOISY_THRESHOLD && *score < NOISY_FALLBACK_SCORE,
    };
    if second_look {
        let smooth = GradientField::pooled(&colour, sw, sh);
        let smooth_found = edge_outlines(&smooth);
        if !smooth_found.is_empty() {
            (field, found) = (smooth, smooth_found);
        }
    }
    // A document on a plain surface (every scan, many photos) stands out from the
    // surface's colour even where its outline is too faint for the edge search.
    if let Some(region) = surface_region(&colour, config) {
        let refined = refine(&field, region.quad);
        let score = score_quad(&field, &refined, config).unwrap_or(0.0);
        let rank = |q: &Quad, s: f32| s * (q.area() / (sw * sh) as f32).sqrt();
        // First on a scanner (where a faint card loses the edge search to the
        // holder's photo or the page), unless it is a block printed inside an
        // outline the edge search accepts on its own (a white card or a pale
        // page on white paper differs from it only by its print); or when its
        // edges are partly backed and it is not much smaller than the edge
        // search's best outline.
        let printed_block = found.first().is_some_and(|(best, score, _)| {
            *score >= config.min_score
                && best.area() >= 2.0 * refined.area()
                && best.encloses(&refined, 1.0)
        });
        let first = (region.on_scanner_surface() && !printed_block)
            || found.first().is_none_or(|best| {
                score >= 0.3 && rank(&refined, score) >= 0.8 * rank(&best.0, best.1)
            });
        let outline = (refined, score, LocateMethod::SurfaceRegion);
        found.insert(if first { 0 } else { found.len().min(1) }, outline);
    }
    // An image cropped to the card shows no outline, only the card's inner
    // rectangles; it is recognised by its own shape. Photos' 4:3 and 3:2 frames
    // fall outside the tolerance.
    let aspect = w.max(h) as f32 / w.min(h) as f32;
    let card_shaped = config
        .document_aspects
        .iter()
        .any(|&a| (aspect / a - 1.0).abs() <= 0.045);
    let inner = |quad: &Quad| quad.area() / (sw * sh) as f32 <= config.inner_area_fraction;
    let mut located: Vec<Located> = found
        .into_iter()
        .filter(|(quad, _, _)| !(card_shaped && inner(quad)))
        .map(|(quad, score, method)| {
            // A working-grid cell spans `fx`×`fy` source pixels; outlines are in
            // continuous coordinates (pixel centres at +0.5), as the warp reads them.
            let quad = Quad {
                corners: quad
                    .corners
                    .map(|p| Point::new((p.x + 0.5) * fx, (p.y + 0.5) * fy)),
            };
            let quad = shadow::off_shadows(image, fit_sides(image, quad, 4.0 * fx.max(fy)));
            Located {
                quad: landscape(quad),
                method,
                score,
            }
        })
        .collect();
    located.truncate(config.max_candidates);
    if card_shaped && located.is_empty() {
        located.push(Located {
            quad: landscape(Quad::full(w, h)),
            method: LocateMethod::WholeImage,
            score: 0.0,
        });
    }
    located
}

/// Sharpens an outline found at low resolution on the full-resolution image: along
/// each side, the strongest edge of the side's polarity is looked for within
/// `reach` pixels across it at many points, and a line is fitted through those
/// points (twice, dropping outliers). Corners are where fitted lines cross. A side
/// with too few edge points keeps its line.
fn fit_sides(image: &RgbImage, quad: Quad, reach: f32) -> Quad {
    let c = quad.corners;
    let mut lines: Vec<(Point, Point)> = (0..4).map(|i| (c[i], c[(i + 1) % 4])).collect();
    let steps = reach.ceil() as i32;
    for line in lines.iter_mut() {
        let (a, b) = *line;
        let len = a.distance(b);
        if len < 10.0 {
            continue;
        }
        let (tx, ty) = ((b.x - a.x) / len, (b.y - a.y) / len);
        let (nx, ny) = (-ty, tx);
        // Derivative across the side, averaged over three points along it.
        let derivative = |p: Point, o: f32, channel: usize| -> Option<f32> {
            let mut sum = 0.0;
            for along in [-1.5f32, 0.0, 1.5] {
                let (x, y) = (p.x + tx * along + nx * o, p.y + ty * along + ny * o);
                sum += bilinear(image, x + nx, y + ny, channel)?
                    - bilinear(image, x - nx, y - ny, channel)?;
            }
            Some(sum / 6.0)
        };
        let count = 48;
        // Profiles across the side in one channel, and how strongly and
        // consistently they show an edge of one polarity.
        let profiles_in = |channel: usize| {
            let mut profiles: Vec<(Point, Vec<(f32, f32)>)> = Vec::with_capacity(count);
            let mut polarity = 0.0;
            for k in 0..count {
                let t = 0.08 + 0.84 * k as f32 / (count - 1) as f32;
                let p = Point::new(a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t);
                let profile: Vec<(f32, f32)> = (-steps..=steps)
                    .filter_map(|o| derivative(p, o as f32, channel).map(|d| (o as f32, d)))
                    .collect();
                if let Some(&(_, d)) = profile
                    .iter()
                    .max_by(|x, y| x.1.abs().total_cmp(&y.1.abs()))
                {
                    polarity += d;
                }
                profiles.push((p, profile));
            }
            (profiles, polarity)
        };
        // The channel the side shows best in: a cream card on white paper is an
        // edge in blue long before it is one in brightness.
        let Some((profiles, polarity)) = (0..3)
            .map(profiles_in)
            .max_by(|x, y| x.1.abs().total_cmp(&y.1.abs()))
        else {
            continue;
        };
        let sign = polarity.signum();
        let mut points: Vec<Point> = Vec::new();
        for (p, profile) in &profiles {
            let strongest = |sign: f32, within: std::ops::Range<usize>| {
                within.max_by(|&x, &y| (profile[x].1 * sign).total_cmp(&(profile[y].1 * sign)))
            };
            let Some(i) = strongest(sign, 0..profile.len()) else {
                continue;
            };
            let d = profile[i].1;
            if d * sign < 2.0 {
                continue;
            }
            // Parabola through a peak and its neighbours for a sub-pixel offset.
            let refine = |i: usize, sign: f32| {
                let (o, m) = (profile[i].0, profile[i].1 * sign);
                if i == 0 || i + 1 >= profile.len() {
                    return o;
                }
                let (l, r) = (profile[i - 1].1 * sign, profile[i + 1].1 * sign);
                let denom = l - 2.0 * m + r;
                if denom.abs() > 1e-6 {
                    o + 0.5 * (l - r) / denom
                } else {
                    o
                }
            };
            let mut offset = refine(i, sign);
            // A printed outline is a thin dark line: an edge of each polarity a
            // pixel or two apart, about as strong. Its middle is the card's
            // border; taking one of its edges would depend on which is a shade
            // stronger, and so on the image's orientation.
            let near = i.saturating_sub(4)..(i + 5).min(profile.len());
            if let Some(j) = strongest(-sign, near)
                && -profile[j].1 * sign >= 0.5 * d * sign
            {
                offset = 0.5 * (offset + refine(j, -sign));
            }
            points.push(Point::new(p.x + nx * offset, p.y + ny * offset));
        }
        if points.len() < count * 2 / 5 {
            continue;
        }
        if let Some(fitted) = fit_line_trimmed(&points, 1.5, count / 3, 2) {
            *line = fitted.line();
        }
    }
    quad_from_sides(&lines, quad, 3.0 * reach)
}

/// Channel `channel` of `image` at continuous coordinates (pixel centres at
/// +0.5), bilinear; `None` off the image.
fn bilinear(image: &RgbImage, x: f32, y: f32, channel: usize) -> Option<f32> {
    let (w, h) = (image.width() as i32, image.height() as i32);
    let (x, y) = (x - 0.5, y - 0.5);
    let (xi, yi) = (x.floor() as i32, y.floor() as i32);
    if xi < 0 || yi < 0 || xi + 1 >= w || yi + 1 >= h {
        return None;
    }
    let (fx, fy) = (x - xi as f32, y - yi as f32);
    let px = image.as_raw();
    let at = |xx: i32, yy: i32| f32::from(px[(yy * w + xx) as usize * 3 + channel]);
    Some(
        (at(xi, yi) * (1.0 - fx) + at(xi + 1, yi) * fx) * (1.0 - fy)
            + (at(xi, yi + 1) * (1.0 - fx) + at(xi + 1, yi + 1) * fx) * fy,
    )
}

/// A line fitted to points, and how many of them lie on it.
#[derive(Debug, Clone, Copy)]
struct FittedLine {
    centre: Point,
    direction: (f32, f32),
    /// Points within the fit's residual bound of the line.
    support: usize,
}

impl FittedLine {
    /// Two points on the line.
    fn line(&self) -> (Point, Point) {
        let (dx, dy) = self.direction;
        (
            self.centre,
            Point::new(self.centre.x + dx, self.centre.y + dy),
        )
    }
}

/// [`fit_line`] through `points`, refitted up to `rounds` times to the points
/// within `max_residual` of the last fit while at least `min_kept` remain (outliers
/// dropped); the last fit made.
fn fit_line_trimmed(
    points: &[Point],
    max_residual: f32,
    min_kept: usize,
    rounds: usize,
) -> Option<FittedLine> {
    let near = |(c, (dx, dy)): (Point, (f32, f32))| {
        points
            .iter()
            .copied()
            .filter(move |p| ((p.x - c.x) * -dy + (p.y - c.y) * dx).abs() <= max_residual)
    };
    let mut fitted = fit_line(points)?;
    for _ in 0..rounds {
        let kept: Vec<Point> = near(fitted).collect();
        if kept.len() < min_kept {
            break;
        }
        fitted = fit_line(&kept)?;
    }
    let (centre, direction) = fitted;
    Some(FittedLine {
        centre,
        direction,
        support: near(fitted).count(),
    })
}

/// Total-least-squares line through points: centroid and unit direction.
fn fit_line(points: &[Point]) -> Option<(Point, (f32, f32))> {
    if points.len() < 2 {
        return None;
    }
    let n = points.len() as f32;
    let (mx, my) = (
        points.iter().map(|p| p.x).sum::<f32>() / n,
        points.iter().map(|p| p.y).sum::<f32>() / n,
    );
    let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
    for p in points {
        let (dx, dy) = (p.x - mx, p.y - my);
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    let angle = 0.5 * (2.0 * sxy).atan2(sxx - syy);
    Some((Point::new(mx, my), (angle.cos(), angle.sin())))
}

/// The quadrilateral on `sides` (side i runs from corner i to corner i+1 of
/// `fallback`): corner i where side i-1 and side i cross. A corner whose sides do
/// not cross, or cross further than `max_shift` from it, stays where it was.
fn quad_from_sides(sides: &[(Point, Point)], fallback: Quad, max_shift: f32) -> Quad {
    let mut corners = fallback.corners;
    for (i, corner) in corners.iter_mut().enumerate() {
        if let Some(p) = intersect_lines(sides[(i + 3) % 4], sides[i])
            && p.distance(*corner) <= max_shift
        {
            *corner = p;
        }
    }
    Quad { corners }
}

/// Where the lines through two point pairs cross.
fn intersect_lines((a1, b1): (Point, Point), (a2, b2): (Point, Point)) -> Option<Point> {
    let d1 = (b1.x - a1.x, b1.y - a1.y);
    let d2 = (b2.x - a2.x, b2.y - a2.y);
    let det = d1.0 * d2.1 - d1.1 * d2.0;
    if det.abs() < 1e-6 {
        return None;
    }
    let t = ((a2.x - a1.x) * d2.1 - (a2.y - a1.y) * d2.0) / det;
    Some(Point::new(a1.x + d1.0 * t, a1.y + d1.1 * t))
}

/// Support a side needs for the outline to grow onto it.
const GROW_SUPPORT: f32 = 0.4;
/// How much worse (in log aspect ratio) an outline's shape may get when a side
/// that lies on print moves onto the card's edge.
const PRINTED_SIDE_ASPECT_SLACK: f32 = 0.05;
/// Share of the edge threshold a card's edge beyond print needs: the search
/// knows the edge's direction and polarity, and a blurred photo's card edge is
/// spread over a few pixels (at 0.35 noise started to back lines; 0.5 measured
/// best on tuning photos).
const PRINTED_SIDE_EDGE: f32 = 0.5;
/// Share of a side's points that must step one way, and how many times more of
/// them than step the other way, for the side to have a polarity.
const POLARITY_SHARE: f32 = 0.3;
const POLARITY_DOMINANCE: f32 = 2.0;

/// For each side of `quad`, which way brightness steps across it going outwards:
/// 1 brighter outside, -1 darker outside, 0 neither clearly.
fn outward_polarity(field: &GradientField, quad: &Quad) -> [i8; 4] {
    let c = quad.corners;
    let centroid = quad.centroid();
    std::array::from_fn(|i| {
        let (a, b) = (c[i], c[(i + 1) % 4]);
        let Some(outward) = outward_normal(a, b, centroid) else {
            return 0;
        };
        let (brighter, darker) = outward_hits(field, a, b, outward, field.threshold);
        if brighter >= POLARITY_SHARE && brighter >= POLARITY_DOMINANCE * darker {
            1
        } else if darker >= POLARITY_SHARE && darker >= POLARITY_DOMINANCE * brighter {
            -1
        } else {
            0
        }
    })
}

/// Unit normal of `a → b` pointing away from `centre`.
fn outward_normal(a: Point, b: Point, centre: Point) -> Option<(f32, f32)> {
    let len = a.distance(b);
    if len < 1.0 {
        return None;
    }
    let (nx, ny) = (-(b.y - a.y) / len, (b.x - a.x) / len);
    let mid = a.midpoint(b);
    Some(if (mid.x - centre.x) * nx + (mid.y - centre.y) * ny < 0.0 {
        (-nx, -ny)
    } else {
        (nx, ny)
    })
}

/// Shares of points along `a → b` where brightness steps strongly across the side
/// going along `outward`: (brighter outside, darker outside).
fn outward_hits(
    field: &GradientField,
    a: Point,
    b: Point,
    outward: (f32, f32),
    threshold: f32,
) -> (f32, f32) {
    // The hits of the normal `(-dy, dx)`'s positive polarity are the outward
    // brightening ones when that normal points outwards.
    let along_normal = -(b.y - a.y) * outward.0 + (b.x - a.x) * outward.1 > 0.0;
    let [(positive, negative)] = side_hits::<1>(field, a, b, threshold);
    if along_normal {
        (positive, negative)
    } else {
        (negative, positive)
    }
}

/// How far, in log ratio, a quad's aspect is from the nearest document aspect.
fn aspect_error(quad: &Quad, config: &LocateConfig) -> f32 {
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

/// Pushes a side outwards onto the outermost roughly parallel edge backed along
/// most of its length, when that brings the outline's shape closer to a
/// document's. A pale card on pale paper has a faint outline, weaker than the
/// rectangles printed on it (barcode, header rule, photo frame), so the best
/// quad is sometimes one of those on one side; a shadow outside a card, in
/// contrast, would make its shape worse and is not taken.
///
/// A side whose brightness steps the other way from the other three (the last
/// bar of the back's barcode: dark inside, pale card outside, where the card's
/// own edges go from card to surface) lies on something printed, so it moves
/// onto an edge of the other sides' polarity even when the shape barely changes:
/// a card's strip beyond its barcode is a few percent of its width.
fn grow(field: &GradientField, quad: Quad, config: &LocateConfig) -> Quad {
    let mut quad = quad;
    for i in 0..4 {
        quad = grow_side(field, quad, i, None, config).unwrap_or(quad);
    }
    // Growing one side can leave another on print: that side's polarity is only
    // known once the outline's other sides have found the card's edges.
    let mut polarity = outward_polarity(field, &quad);
    for i in 0..4 {
        let others = [1, 2, 3].map(|k| polarity[(i + k) % 4]);
        let card_edges = others[0] != 0 && others.iter().all(|&p| p == others[0]);
        if card_edges
            && polarity[i] == -others[0]
            && let Some(grown) = grow_side(field, quad, i, Some(others[0]), config)
        {
            quad = grown;
            polarity = outward_polarity(field, &quad);
        }
    }
    quad
}

/// Side `i` of `quad` moved outwards onto the outermost roughly parallel edge
/// backed along enough of its length ([`grow`]). With `card_edge_polarity`
/// the side lies on print: the edge must step that way (see
/// [`outward_polarity`]) and the shape may get a little worse; without, the
/// edge may step either way and the shape must get closer to a document's.
fn grow_side(
    field: &GradientField,
    quad: Quad,
    i: usize,
    card_edge_polarity: Option<i8>,
    config: &LocateConfig,
) -> Option<Quad> {
    let c = quad.corners;
    let (a, b) = (c[i], c[(i + 1) % 4]);
    let prev = (c[(i + 3) % 4], c[i]);
    let next = (c[(i + 1) % 4], c[(i + 2) % 4]);
    let len = a.distance(b).max(1.0);
    let centroid = quad.centroid();
    let outward = outward_normal(a, b, centroid)?;
    let mid = a.midpoint(b);
    let depth = 2.0 * ((mid.x - centroid.x) * outward.0 + (mid.y - centroid.y) * outward.1).abs();
    let reach = 0.3 * depth;
    let tilt = 0.05 * len;
    let before = aspect_error(&quad, config);
    let max_aspect_error = match card_edge_polarity {
        Some(_) => before + PRINTED_SIDE_ASPECT_SLACK,
        None => before - 0.02,
    };
    // Which placement wins: the outermost backed one, or on print the best
    // backed one (outermost among equals), since a tilted line that crosses a
    // faint edge is backed along part of its length further out.
    let rank = |support: f32, shift: f32| match card_edge_polarity {
        Some(_) => (support, shift),
        None => (0.0, shift),
    };
    let mut best: Option<((f32, f32), Quad)> = None;
    let mut da = 3.0;
    while da <= reach {
        let mut db = (da - tilt).max(0.0);
        while db <= da + tilt {
            let line = (
                Point::new(a.x + outward.0 * da, a.y + outward.1 * da),
                Point::new(b.x + outward.0 * db, b.y + outward.1 * db),
            );
            if let (Some(p), Some(q)) = (intersect_lines(prev, line), intersect_lines(line, next)) {
                let support = match card_edge_polarity {
                    Some(sense) => {
                        let threshold = PRINTED_SIDE_EDGE * field.threshold;
                        let (brighter, darker) = outward_hits(field, p, q, outward, threshold);
                        if sense > 0 { brighter } else { darker }
                    }
                    None => side_support(field, p, q, field.threshold),
                };
                let key = rank(support, (da + db) / 2.0);
                if support >= GROW_SUPPORT && best.as_ref().is_none_or(|(k, _)| key > *k) {
                    let mut corners = c;
                    corners[i] = p;
                    corners[(i + 1) % 4] = q;
                    let grown = Quad { corners };
                    if aspect_error(&grown, config) < max_aspect_error
                        && score_quad(field, &grown, config).is_some()
                    {
                        best = Some((key, grown));
                    }
                }
            }
            db += 1.5;
        }
        da += 1.5;
    }
    best.map(|(_, grown)| grown)
}

/// The shape checks of a candidate outline, without edge support (part of
/// [`score_quad`]; alone for the surface region): near the image, convex, large
/// enough, a document's aspect.
fn score_shape(quad: &Quad, w: f32, h: f32, config: &LocateConfig) -> Option<()> {
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
fn landscape(quad: Quad) -> Quad {
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

/// Smoothed grey image with its Sobel gradient.
struct GradientField {
    width: usize,
    height: usize,
    gx: Vec<f32>,
    gy: Vec<f32>,
    mag: Vec<f32>,
    /// See [`surface_edge_threshold`]; computed once, as every scored quad asks.
    threshold: f32,
}

impl GradientField {
    /// Sobel gradient of the full-resolution image, max-pooled onto a `sw`×`sh`
    /// grid: a card's thin printed outline survives, where averaging the image
    /// down first would wash it out. Each pixel takes the colour channel with the
    /// strongest gradient: a cream or pale blue card on white paper differs from
    /// it in one channel far more than in brightness.
    fn pooled(image: &RgbImage, sw: u32, sh: u32) -> GradientField {
        let (w, h) = (image.width() as usize, image.height() as usize);
        let (width, height) = (sw as usize, sh as usize);
        let px = image.as_raw();
        let mut gx = vec![0f32; width * height];
        let mut gy = vec![0f32; width * height];
        let mut mag = vec![0i32; width * height];
        let column: Vec<usize> = (0..w).map(|x| (x * width / w).min(width - 1)).collect();
        let stride = 3 * w;
        for y in 1..h.saturating_sub(1) {
            let row = (y * height / h).min(height - 1) * width;
            let (up, mid, down) = (
                &px[(y - 1) * stride..y * stride],
                &px[y * stride..(y + 1) * stride],
                &px[(y + 1) * stride..(y + 2) * stride],
            );
            for (x, &cell) in column.iter().enumerate().take(w.saturating_sub(1)).skip(1) {
                let (l, c, r) = (3 * (x - 1), 3 * x, 3 * (x + 1));
                let mut best = (0i32, 0i32, 0i32);
                for ch in 0..3 {
                    let at = |line: &[u8], i: usize| i32::from(line[i + ch]);
                    let dx = (at(up, r) + 2 * at(mid, r) + at(down, r))
                        - (at(up, l) + 2 * at(mid, l) + at(down, l));
                    let dy = (at(down, l) + 2 * at(down, c) + at(down, r))
                        - (at(up, l) + 2 * at(up, c) + at(up, r));
                    let m2 = dx * dx + dy * dy;
                    if m2 > best.0 {
                        best = (m2, dx, dy);
                    }
                }
                let i = row + cell;
                if best.0 > mag[i] {
                    mag[i] = best.0;
                    gx[i] = best.1 as f32 / 8.0;
                    gy[i] = best.2 as f32 / 8.0;
                }
            }
        }
        let mut field = GradientField {
            width,
            height,
            gx,
            gy,
            mag: mag.iter().map(|&m| (m as f32).sqrt() / 8.0).collect(),
            threshold: 0.0,
        };
        field.threshold = surface_edge_threshold(&field);
        field
    }

    /// Gradient at the nearest pixel, zero outside.
    #[inline]
    fn at(&self, x: f32, y: f32) -> (f32, f32) {
        // Rounding as `f32::round` does for these (non-negative) positions, without
        // its libm call: this is the locator's innermost loop.
        if x <= -0.5 || y <= -0.5 {
            return (0.0, 0.0);
        }
        let (xi, yi) = ((x + 0.5) as usize, (y + 0.5) as usize);
        if xi >= self.width || yi >= self.height {
            return (0.0, 0.0);
        }
        let i = yi * self.width + xi;
        (self.gx[i], self.gy[i])
    }
}

/// A line `x cos θ + y sin θ = ρ`, θ in [0, π).
#[derive(Debug, Clone, Copy)]
struct Line {
    theta: f32,
    rho: f32,
    votes: f32,
}

impl Line {
    fn intersect(&self, other: &Line) -> Option<Point> {
        let (s1, c1) = self.theta.sin_cos();
        let (s2, c2) = other.theta.sin_cos();
        let det = c1 * s2 - s1 * c2;
        if det.abs() < 1e-4 {
            return None;
        }
        Some(Point::new(
            (self.rho * s2 - other.rho * s1) / det,
            (c1 * other.rho - c2 * self.rho) / det,
        ))
    }
}

const THETA_BINS: usize = 180;

/// Strongest straight edges: each pixel with a clear gradient votes for the lines
/// through it whose normal is within ±2° of its gradient direction.
fn hough_lines(field: &GradientField, max_lines: usize) -> Vec<Line> {
    hough_lines_where(field, max_lines, field.threshold, |_, _| true)
}

/// [`hough_lines`] from the pixels where `votes(x, y)`, with gradients of at
/// least `threshold`.
fn hough_lines_where(
    field: &GradientField,
    max_lines: usize,
    threshold: f32,
    votes: impl Fn(usize, usize) -> bool,
) -> Vec<Line> {
    let (w, h) = (field.width, field.height);
    let diag = ((w * w + h * h) as f32).sqrt().ceil() as usize;
    let rho_bins = 2 * diag + 1;
    let mut acc = vec![0f32; THETA_BINS * rho_bins];
    let trig: Vec<(f32, f32)> = (0..THETA_BINS)
        .map(|t| (t as f32 * std::f32::consts::PI / THETA_BINS as f32).sin_cos())
        .collect();
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            let m = field.mag[i];
            if m < threshold || !votes(x, y) {
                continue;
            }
            let mut theta = field.gy[i].atan2(field.gx[i]);
            if theta < 0.0 {
                theta += std::f32::consts::PI;
            }
            let centre = (theta / std::f32::consts::PI * THETA_BINS as f32).round() as isize;
            for dt in -2..=2 {
                let t = (centre + dt).rem_euclid(THETA_BINS as isize) as usize;
                let (s, c) = trig[t];
                let rho = x as f32 * c + y as f32 * s;
                let r = (rho.round() as isize + diag as isize) as usize;
                // One vote per edge pixel: a card's side is long rather than
                // contrasted, and barcode bars or print are contrasted but short.
                acc[t * rho_bins + r] += 1.0;
            }
        }
    }
    // Non-maximum suppression over a ±4° × ±8 px window.
    let mut peaks: Vec<Line> = Vec::new();
    for t in 0..THETA_BINS {
        for r in 0..rho_bins {
            let v = acc[t * rho_bins + r];
            if v <= 0.0 {
                continue;
            }
            let mut is_max = true;
            'window: for dt in -4isize..=4 {
                let tt = t as isize + dt;
                // θ wraps to π with ρ negated.
                let (tt, flip) = if tt < 0 {
                    (tt + THETA_BINS as isize, true)
                } else if tt >= THETA_BINS as isize {
                    (tt - THETA_BINS as isize, true)
                } else {
                    (tt, false)
                };
                let rc = if flip {
                    rho_bins as isize - 1 - r as isize
                } else {
                    r as isize
                };
                for dr in -8isize..=8 {
                    let rr = rc + dr;
                    if rr < 0 || rr >= rho_bins as isize || (dt == 0 && dr == 0) {
                        continue;
                    }
                    let other = acc[tt as usize * rho_bins + rr as usize];
                    if other > v || (other == v && (tt as usize, rr as usize) < (t, r)) {
                        is_max = false;
                        break 'window;
                    }
                }
            }
            if is_max {
                let theta = t as f32 * std::f32::consts::PI / THETA_BINS as f32;
                peaks.push(Line {
                    theta,
                    rho: r as f32 - diag as f32,
                    votes: v,
                });
            }
        }
    }
    peaks.sort_by(|a, b| b.votes.total_cmp(&a.votes));
    peaks.truncate(max_lines);
    peaks
}

/// Most lines looked at, by votes, before the longest are kept.
const LINE_POOL: usize = 48;
/// Lines kept by votes.
const LINES_BY_VOTES: usize = 14;
/// Lines kept by length, per 10° of direction.
const LINES_BY_LENGTH: usize = 3;

/// The lines quads are built from: the most voted ones and, in every
/// direction, the longest ones.
///
/// Votes alone favour short, contrasted, repeated structure: a barcode's bars
/// or a card's guilloche give dozens of strong lines that push a pale card's
/// faint outline out of the list. A card's side is among the longest unbroken
/// edges of its direction, so those are kept as well, per direction so that one
/// textured direction cannot take every place.
fn candidate_lines(field: &GradientField) -> Vec<Line> {
    let (w, h) = (field.width as f32, field.height as f32);
    // A scanner lid's shadow or the image's own border gives a long straight
    // edge hugging the border; a document lies inside the frame.
    let hugs_border = |line: &Line| {
        let (s, c) = line.theta.sin_cos();
        let centre = Point::new(w / 2.0, h / 2.0);
        // Where the line passes nearest the image centre.
        let d = centre.x * c + centre.y * s - line.rho;
        let foot = Point::new(centre.x - d * c, centre.y - d * s);
        let margin = 0.015 * w.max(h);
        (c.abs() > 0.999 && (foot.x < margin || foot.x > w - margin))
            || (s.abs() > 0.999 && (foot.y < margin || foot.y > h - margin))
    };
    let pool: Vec<Line> = hough_lines(field, LINE_POOL)
        .into_iter()
        .filter(|line| !hugs_border(line))
        .collect();
    let threshold = field.threshold;
    let shortest = 0.2 * field.width.min(field.height) as f32;
    let mut by_length: Vec<(f32, usize)> = pool
        .iter()
        .enumerate()
        .map(|(i, line)| (longest_run(field, line, threshold), i))
        .filter(|&(run, _)| run >= shortest)
        .collect();
    by_length.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut keep: Vec<usize> = (0..pool.len().min(LINES_BY_VOTES)).collect();
    let mut per_direction = [0usize; 18];
    for &(_, i) in &by_length {
        let bin = ((pool[i].theta.to_degrees() / 10.0) as usize).min(17);
        if per_direction[bin] < LINES_BY_LENGTH {
            per_direction[bin] += 1;
            if !keep.contains(&i) {
                keep.push(i);
            }
        }
    }
    keep.into_iter().map(|i| pool[i]).collect()
}

/// Length in pixels of the longest stretch of `line` backed by edges of one
/// polarity, bridging gaps of up to 2 % of the image's smaller side.
fn longest_run(field: &GradientField, line: &Line, threshold: f32) -> f32 {
    let (w, h) = (field.width as f32, field.height as f32);
    let (s, c) = line.theta.sin_cos();
    // Walk the line across the image: the foot of the normal, then both ways.
    let foot = Point::new(line.rho * c, line.rho * s);
    let (dx, dy) = (-s, c);
    let reach = (w * w + h * h).sqrt();
    let max_gap = (0.02 * w.min(h)).max(3.0) as i32;
    let mut best = 0i32;
    for sign in [1.0f32, -1.0] {
        let (mut start, mut last): (Option<i32>, i32) = (None, 0);
        for k in -(reach as i32)..=reach as i32 {
            let (x, y) = (foot.x + dx * k as f32, foot.y + dy * k as f32);
            if x < 0.0 || y < 0.0 || x >= w || y >= h {
                continue;
            }
            // Across the line and within about 25° of its normal: print and
            // guilloche texture give strong gradients in every direction.
            let edge = [-1.0f32, 0.0, 1.0].iter().any(|o| {
                let (gx, gy) = field.at(x + c * o, y + s * o);
                let across = (gx * c + gy * s) * sign;
                across >= threshold && across >= 0.9 * (gx * gx + gy * gy).sqrt()
            });
            if !edge {
                continue;
            }
            match start {
                Some(begin) if k - last <= max_gap => best = best.max(k - begin),
                _ => start = Some(k),
            }
            last = k;
        }
    }
    best as f32
}

/// Gradient magnitude that counts as an edge: well above the noise and texture
/// level of the surface the document lies on, read in the image's outer band (the
/// document's own print, barcodes above all, would inflate a whole-image level and
/// hide a pale card's faint outline), never below a floor that print noise reaches.
fn surface_edge_threshold(field: &GradientField) -> f32 {
    let (w, h) = (field.width, field.height);
    let band = (w.min(h) / 10).max(1);
    let mut sample: Vec<f32> = (0..w * h)
        .step_by(3)
        .filter(|i| {
            let (x, y) = (i % w, i / w);
            x < band || y < band || x >= w - band || y >= h - band
        })
        .map(|i| field.mag[i])
        .collect();
    if sample.is_empty() {
        return 6.0;
    }
    let mid = sample.len() / 2;
    let (_, median, _) = sample.select_nth_unstable_by(mid, f32::total_cmp);
    (3.0 * *median).max(6.0)
}

/// Angle between two line normals, folded to [0, π/2].
fn angle_between(a: &Line, b: &Line) -> f32 {
    let d = (a.theta - b.theta).abs() % std::f32::consts::PI;
    d.min(std::f32::consts::PI - d)
}

/// Pairs of `lines` that may be opposite sides of a document: within 25° of
/// each other and not too close.
fn parallel_pairs(field: &GradientField, lines: &[Line]) -> Vec<(Line, Line)> {
    let (w, h) = (field.width as f32, field.height as f32);
    let min_gap = 0.12 * w.min(h);
    let mut pairs = Vec::new();
    for i in 0..lines.len() {
        for j in i + 1..lines.len() {
            let (a, b) = (lines[i], lines[j]);
            if angle_between(&a, &b) > 25f32.to_radians() {
                continue;
            }
            // Distance between the lines near the image centre; normals more than
            // 90° apart point opposite ways, so one signed distance flips.
            let centre = Point::new(w / 2.0, h / 2.0);
            let dist = |l: &Line| centre.x * l.theta.cos() + centre.y * l.theta.sin() - l.rho;
            let flip = if (a.theta - b.theta).abs() > std::f32::consts::FRAC_PI_2 {
                -1.0
            } else {
                1.0
            };
            if (dist(&a) - flip * dist(&b)).abs() < min_gap {
                continue;
            }
            pairs.push((a, b));
        }
    }
    pairs
}

/// Combines parallel pairs of the strongest lines into quads; the `max` best
/// distinct ones, best first.
fn best_quads(field: &GradientField, config: &LocateConfig, max: usize) -> Vec<(Quad, f32)> {
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
            let refined = refine(field, quad);
            match score_quad(field, &refined, config) {
                Some(refined_score) if refined_score >= score => (refined, refined_score),
                _ => (quad, score),
            }
        })
        .collect()
}

/// Corners where the two pairs of lines cross, in order around the quad.
fn quad_from_lines(p: &(Line, Line), q: &(Line, Line)) -> Option<Quad> {
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
fn score_quad(field: &GradientField, quad: &Quad, config: &LocateConfig) -> Option<f32> {
    score_quad_at(field, quad, config, field.threshold)
}

/// [`score_quad`] with sides backed by gradients of at least `threshold`.
fn score_quad_at(
    field: &GradientField,
    quad: &Quad,
    config: &LocateConfig,
    threshold: f32,
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
        .map(|i| side_score(field, c[i], c[(i + 1) % 4], threshold))
        .collect();
    let mean = supports.iter().sum::<f32>() / 4.0;
    let min = supports.iter().copied().fold(1.0, f32::min);
    Some(0.6 * mean + 0.4 * min)
}

/// How well the side `a → b` is backed, judged by the mean and the worst of its
/// thirds: a line that runs on past the card (a shadow, the scanner's lid) backs
/// the middle of a side that is too long, not its ends.
fn side_score(field: &GradientField, a: Point, b: Point, threshold: f32) -> f32 {
    let parts = side_support_parts::<3>(field, a, b, threshold);
    let mean = parts.iter().sum::<f32>() / 3.0;
    let min = parts.iter().copied().fold(1.0, f32::min);
    0.5 * (mean + min)
}

fn is_convex(quad: &Quad) -> bool {
    let c = quad.corners;
    let cross = |i: usize| {
        let (a, b, d) = (c[i], c[(i + 1) % 4], c[(i + 2) % 4]);
        (b.x - a.x) * (d.y - b.y) - (b.y - a.y) * (d.x - b.x)
    };
    let signs: Vec<f32> = (0..4).map(cross).collect();
    signs.iter().all(|&s| s > 0.0) || signs.iter().all(|&s| s < 0.0)
}

/// Share of points along `a → b` (away from the corners, which are rounded on
/// cards) with a strong gradient across the side, all of one polarity.
fn side_support(field: &GradientField, a: Point, b: Point, threshold: f32) -> f32 {
    side_support_parts::<1>(field, a, b, threshold)[0]
}

/// [`side_support`] of each of `N` equal stretches of the side, the polarity
/// being the whole side's.
fn side_support_parts<const N: usize>(
    field: &GradientField,
    a: Point,
    b: Point,
    threshold: f32,
) -> [f32; N] {
    let hits = side_hits::<N>(field, a, b, threshold);
    let use_positive =
        hits.iter().map(|h| h.0).sum::<f32>() >= hits.iter().map(|h| h.1).sum::<f32>();
    hits.map(|(positive, negative)| if use_positive { positive } else { negative })
}

/// For each of `N` equal stretches of the side `a → b` (away from the corners,
/// which are rounded on cards), the shares of points with a strong gradient
/// across the side along its normal `(-dy, dx)` and against it.
fn side_hits<const N: usize>(
    field: &GradientField,
    a: Point,
    b: Point,
    threshold: f32,
) -> [(f32, f32); N] {
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
        // Best normal gradient within ±1.5 px across the side.
        let mut best = 0f32;
        for off in [-1.5f32, -0.75, 0.0, 0.75, 1.5] {
            let (gx, gy) = field.at(px + nx * off, py + ny * off);
            let g = gx * nx + gy * ny;
            if g.abs() > best.abs() {
                best = g;
            }
        }
        if best >= threshold {
            positive[part] += 1;
        } else if best <= -threshold {
            negative[part] += 1;
        }
    }
    std::array::from_fn(|i| {
        let total = total[i].max(1) as f32;
        (positive[i] as f32 / total, negative[i] as f32 / total)
    })
}

/// Nudges each side (offset ±3 px, angle ±2°) to the placement with the most
/// edge support, then rebuilds the corners from the four refined lines.
fn refine(field: &GradientField, quad: Quad) -> Quad {
    let threshold = field.threshold;
    let c = quad.corners;
    let mut sides: Vec<(Point, Point)> = (0..4).map(|i| (c[i], c[(i + 1) % 4])).collect();
    for side in sides.iter_mut() {
        let (a, b) = *side;
        let len = a.distance(b).max(1.0);
        let (nx, ny) = (-(b.y - a.y) / len, (b.x - a.x) / len);
        let mut best = (side_support(field, a, b, threshold), a, b);
        for da in [-3.0f32, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0] {
            for db in [-3.0f32, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0] {
                let a2 = Point::new(a.x + nx * da, a.y + ny * da);
                let b2 = Point::new(b.x + nx * db, b.y + ny * db);
                let s = side_support(field, a2, b2, threshold);
                if s > best.0 + 1e-4 {
                    best = (s, a2, b2);
                }
            }
        }
        *side = (best.1, best.2);
    }
    quad_from_sides(&sides, quad, f32::INFINITY)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::pipeline::warp::Homography;
    use image::Rgb;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A card-like picture: pale background, dark text bars, a photo block.
    pub(crate) fn card(width: u32, height: u32) -> RgbImage {
        RgbImage::from_fn(width, height, |x, y| {
            let (u, v) = (x as f32 / width as f32, y as f32 / height as f32);
            let photo = (0.04..0.28).contains(&u) && (0.1..0.6).contains(&v);
            let text = (0.4..0.95).contains(&u)
                && [0.3, 0.4, 0.5, 0.6, 0.8]
                    .iter()
                    .any(|&row| (v - row).abs() < 0.02)
                && !((u * 60.0) as u32).is_multiple_of(3);
            if photo {
                Rgb([120, 100, 90])
            } else if text {
                Rgb([30, 30, 40])
            } else {
                Rgb([205, 215, 225])
            }
        })
    }

    /// Pastes `card` onto a textured `width`×`height` background with its corners
    /// at `corners` (TL, TR, BR, BL of the card).
    pub(crate) fn photo(
        card: &RgbImage,
        width: u32,
        height: u32,
        corners: [Point; 4],
        seed: u64,
    ) -> RgbImage {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let base: [f32; 3] = [
            rng.random_range(60.0..140.0),
            rng.random_range(50.0..120.0),
            rng.random_range(30.0..90.0),
        ];
        let stripes = rng.random_range(6.0..20.0f32);
        paste(card, width, height, corners, |x, y, _| {
            // Wood-like grain plus per-pixel noise.
            let grain = ((x as f32 + 0.3 * y as f32) / stripes).sin() * 18.0;
            let noise = ((x.wrapping_mul(7919) ^ y.wrapping_mul(104_729)) % 23) as f32 - 11.0;
            Rgb(base.map(|b| (b + grain + noise).clamp(0.0, 255.0) as u8))
        })
    }

    /// A pale card whose lower part is a barcode of dense vertical bars, pasted
    /// into a 1600×1200 photo on `background` (as [`paste`] colours it), and
    /// the card's corners.
    pub(crate) fn barcode_card_photo(
        background: impl Fn(u32, u32, Point) -> Rgb<u8>,
    ) -> (RgbImage, [Point; 4]) {
        let (width, height) = (856, 540);
        let unit = width / 170;
        let card = RgbImage::from_fn(width, height, |x, y| {
            let (u, v) = (x as f32 / width as f32, y as f32 / height as f32);
            // Bars one to three units wide, in a fixed irregular pattern.
            let bar = [1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0][((x / unit) % 13) as usize] == 1;
            if (0.04..0.96).contains(&u) && (0.55..0.92).contains(&v) && bar {
                Rgb([25, 25, 30])
            } else {
                Rgb([205, 215, 225])
            }
        });
        let corners = [
            Point::new(380.0, 300.0),
            Point::new(1236.0, 320.0),
            Point::new(1226.0, 860.0),
            Point::new(370.0, 840.0),
        ];
        (paste(&card, 1600, 1200, corners, background), corners)
    }

    /// Pastes `card` into a `width`×`height` image with its corners at `corners`
    /// (TL, TR, BR, BL of the card); `background(x, y, p)` colours the rest, `p`
    /// being the pixel's position in the card's own coordinates.
    pub(crate) fn paste(
        card: &RgbImage,
        width: u32,
        height: u32,
        corners: [Point; 4],
        background: impl Fn(u32, u32, Point) -> Rgb<u8>,
    ) -> RgbImage {
        let (cw, ch) = (card.width() as f32, card.height() as f32);
        let to_card = Homography::from_points(
            corners,
            [
                Point::new(0.0, 0.0),
                Point::new(cw, 0.0),
                Point::new(cw, ch),
                Point::new(0.0, ch),
            ],
        )
        .unwrap();
        RgbImage::from_fn(width, height, |x, y| {
            let p = to_card.apply(Point::new(x as f32 + 0.5, y as f32 + 0.5));
            if p.x >= 0.0 && p.y >= 0.0 && p.x < cw && p.y < ch {
                *card.get_pixel(p.x as u32, p.y as u32)
            } else {
                background(x, y, p)
            }
        })
    }

    /// The corner error up to a half turn, which the classifier decides.
    pub(crate) fn corner_error(found: &Quad, truth: &[Point; 4]) -> f32 {
        let truth = Quad { corners: *truth };
        found
            .corner_error(&truth)
            .min(found.turned(2).corner_error(&truth))
    }

    #[test]
    fn finds_a_card_on_a_textured_background_in_perspective() {
        let card = card(856, 540);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for case in 0..6 {
            let jitter = |rng: &mut ChaCha8Rng| rng.random_range(-60.0..60.0f32);
            let mut truth = [
                Point::new(300.0 + jitter(&mut rng), 250.0 + jitter(&mut rng)),
                Point::new(1300.0 + jitter(&mut rng), 260.0 + jitter(&mut rng)),
                Point::new(1310.0 + jitter(&mut rng), 900.0 + jitter(&mut rng)),
                Point::new(290.0 + jitter(&mut rng), 890.0 + jitter(&mut rng)),
            ];
            if case % 2 == 1 {
                // Upside down.
                truth.rotate_left(2);
            }
            let image = photo(&card, 1600, 1200, truth, case);
            let found = locate(&image, &LocateConfig::default()).expect("card found");
            // Its edges or its colour against the table, not the image's frame.
            assert_ne!(found.method, LocateMethod::WholeImage);
            let truth_upright = if case % 2 == 1 {
                let mut t = truth;
                t.rotate_left(2);
                t
            } else {
                truth
            };
            let err = corner_error(&found.quad, &truth_upright);
            assert!(err < 12.0, "case {case}: corner error {err} px, {found:?}");
        }
    }

    #[test]
    fn finds_a_sideways_card() {
        let card = card(856, 540);
        // Turned 90° clockwise: the card's top-left is at the image's top-right.
        let truth = [
            Point::new(900.0, 200.0),
            Point::new(920.0, 1150.0),
            Point::new(300.0, 1140.0),
            Point::new(310.0, 190.0),
        ];
        let image = photo(&card, 1200, 1400, truth, 3);
        let found = locate(&image, &LocateConfig::default()).expect("card found");
        let err = corner_error(&found.quad, &truth);
        assert!(err < 12.0, "corner error {err}: {found:?}");
        assert!(found.quad.aspect() > 1.4);
    }

    #[test]
    fn finds_a_pale_card_whose_soft_outline_only_the_averaged_copy_shows() {
        // A generator photo (tuning seed 4245, NID front 49, kept as a fixture since
        // the generator moved on): a white card on pale paper, focus blur, a glare
        // spot, a quiet image. At full resolution no outline is backed.
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/photos/pale-card.jpg"
        );
        let image = image::open(path).unwrap().to_rgb8();
        let found = locate(&image, &LocateConfig::default()).expect("card found");
        let truth = [
            [278.58954, 206.76726],
            [673.96735, 100.473206],
            [715.5834, 370.43866],
            [328.2222, 448.70355],
        ]
        .map(|[x, y]| Point::new(x, y));
        let err = corner_error(&found.quad, &truth);
        let width = truth[0].distance(truth[1]);
        assert!(err < 0.04 * width, "corner error {err} px: {found:?}");
    }

    #[test]
    fn a_white_card_on_a_scanner_is_not_taken_for_its_photo() {
        // The border is crisp: a thin grey line all round.
        assert_found_around_its_photo(|_| true);
    }

    #[test]
    fn a_page_on_a_scanner_whose_border_has_gaps_is_not_taken_for_its_photo() {
        // A pale passport page's edge shows along only part of each side: two
        // stretches in every five are lost against the glass.
        assert_found_around_its_photo(|t| (t * 25.0) as u32 % 5 >= 2);
    }

    /// A white card with a thin grey printed border (drawn where `border_at`
    /// holds, at the share of each side's length), its holder's photo and text,
    /// on a scanner's white glass, is found by its border: the photo is the
    /// region that stands out most from the glass. A 4:3 frame, so the photo is
    /// not dropped as a rectangle printed on a cropped card.
    fn assert_found_around_its_photo(border_at: impl Fn(f32) -> bool) {
        let (x0, y0, x1, y1) = (300u32, 200u32, 1156u32, 740u32);
        let image = RgbImage::from_fn(1600, 1200, |x, y| {
            let inside = (x0..x1).contains(&x) && (y0..y1).contains(&y);
            let (u, v) = (
                (x - x0.min(x)) as f32 / 856.0,
                (y - y0.min(y)) as f32 / 540.0,
            );
            let border = inside
                && ((x < x0 + 3 || x >= x1 - 3) && border_at(v)
                    || (y < y0 + 3 || y >= y1 - 3) && border_at(u));
            let photo = inside && (0.04..0.34).contains(&u) && (0.1..0.8).contains(&v);
            let text = inside
                && (0.4..0.9).contains(&u)
                && [0.3, 0.45, 0.6].iter().any(|&row| (v - row).abs() < 0.02)
                && !((u * 60.0) as u32).is_multiple_of(3);
            let noise = ((x.wrapping_mul(7919) ^ y.wrapping_mul(104_729)) % 4) as u8;
            if border {
                Rgb([150, 150, 155])
            } else if photo {
                Rgb([90, 80, 75])
            } else if text {
                Rgb([30, 30, 40])
            } else {
                Rgb([248 - noise, 248 - noise, 248 - noise])
            }
        });
        let found = locate(&image, &LocateConfig::default()).expect("card found");
        let truth =
            [(x0, y0), (x1, y0), (x1, y1), (x0, y1)].map(|(x, y)| Point::new(x as f32, y as f32));
        let err = corner_error(&found.quad, &truth);
        assert!(err < 12.0, "corner error {err} px, {found:?}");
    }

    #[test]
    fn takes_a_cropped_scan_as_a_whole() {
        let image = card(1000, 630);
        let found = locate(&image, &LocateConfig::default()).expect("card found");
        assert_eq!(found.method, LocateMethod::WholeImage);
        assert_eq!(found.quad, Quad::full(1000, 630));
    }

    #[test]
    fn finds_nothing_in_a_square_of_noise() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let image = RgbImage::from_fn(800, 800, |_, _| {
            Rgb([rng.random(), rng.random(), rng.random()])
        });
        assert!(locate(&image, &LocateConfig::default()).is_none());
    }

    /// The central-difference gradient of a grey picture, with its edge threshold.
    fn field_of(
        width: usize,
        height: usize,
        threshold: f32,
        brightness: impl Fn(f32, f32) -> f32,
    ) -> GradientField {
        let (mut gx, mut gy, mut mag) = (vec![], vec![], vec![]);
        for y in 0..height {
            for x in 0..width {
                let (x, y) = (x as f32, y as f32);
                let dx = (brightness(x + 1.0, y) - brightness(x - 1.0, y)) / 2.0;
                let dy = (brightness(x, y + 1.0) - brightness(x, y - 1.0)) / 2.0;
                gx.push(dx);
                gy.push(dy);
                mag.push((dx * dx + dy * dy).sqrt());
            }
        }
        GradientField {
            width,
            height,
            gx,
            gy,
            mag,
            threshold,
        }
    }

    #[test]
    fn a_side_on_the_barcode_moves_out_onto_the_cards_faint_edge() {
        // A pale card (x 90 to 390, aspect 1.59) on a darker surface; its right
        // edge is blurred over 8 px, below the edge threshold. Its barcode's last
        // bar ends 12 px short of that edge, so the outline's right side lies on
        // the bar: brighter outside, where the card's three edges are darker.
        let (left, right, top, bottom) = (90.0, 390.0, 55.0, 244.0);
        let field = field_of(480, 300, 10.0, |x, y| {
            if !(top..bottom).contains(&y) || x < left || x > right + 4.0 {
                return 150.0;
            }
            let bar = (150.0..230.0).contains(&y) && (110.0..378.0).contains(&x);
            if bar && (((x - 110.0) / 4.0) as u32).is_multiple_of(2) {
                40.0
            } else {
                // The card's soft right edge: 200 to 150 across x 386 to 394.
                200.0 - 50.0 * ((x - (right - 4.0)) / 8.0).clamp(0.0, 1.0)
            }
        });
        let on_barcode = Quad {
            corners: [
                Point::new(left, top),
                Point::new(378.0, top),
                Point::new(378.0, bottom),
                Point::new(left, bottom),
            ],
        };
        assert_eq!(outward_polarity(&field, &on_barcode), [-1, 1, -1, -1]);
        let grown = grow(&field, on_barcode, &LocateConfig::default());
        // On the soft edge; the full-resolution fit ([`fit_sides`]) sharpens it.
        for corner in [1, 2] {
            let x = grown.corners[corner].x;
            assert!(
                (x - right).abs() <= 5.0,
                "right side at {x}, card edge at {right}"
            );
        }
        for corner in [0, 3] {
            assert_eq!(grown.corners[corner], on_barcode.corners[corner]);
        }
    }
}
