//! Side fitting: an outline's sides refined against the image's edges, pushed out
//! onto a card's faint edge beyond print ([`grow`]), nudged to the placement with the
//! most support ([`refine`]), and fitted to edge points at full resolution
//! ([`fit_sides`]).

use image::RgbImage;

use super::LocateConfig;
use super::gradient::GradientField;
use super::quads::{Backing, aspect_error, score_quad, side_hits, side_support};
use super::region::median_colour;
use crate::pipeline::warp::{Point, Quad};

/// Share of the strongest step across a side that a step nearer the side as
/// found needs to be taken for the card's edge instead (see [`fit_sides`]). On
/// the tuning sets (pages 8302, scans and photos 8303), taking the strongest
/// step left 55 % of page outlines within 2 % of the card's width, 0.3 left 70 %
/// (photos 88 and 90 %, scans 96.0 and 95.7 %); lower still gained on pages and
/// lost on photos at 4 %.
const NEAR_PEAK: f32 = 0.3;

/// Sharpens an outline found at low resolution on the full-resolution image: along
/// each side, at many points, an edge of the side's polarity is looked for within
/// `reach` pixels across it (the nearest of those at least [`NEAR_PEAK`] as strong
/// as the strongest), and a line is fitted through those of the points that one
/// line holds most of (twice, dropping outliers). Corners are where fitted lines
/// cross. A side with too few edge points keeps its line.
///
/// `outward` is each side's polarity as the outline found it on the working grid
/// ([`agreed_polarity`]): where it is known, only edges stepping that way are
/// the side's. Near the side at full resolution, another card's edge beside a
/// pale card, or a drop shadow's outer edge, can step more strongly the other way.
pub(super) fn fit_sides(image: &RgbImage, quad: Quad, reach: f32, outward: [i8; 4]) -> Quad {
    let c = quad.corners;
    let centroid = quad.centroid();
    let mut lines: Vec<(Point, Point)> = (0..4).map(|i| (c[i], c[(i + 1) % 4])).collect();
    let steps = reach.ceil() as i32;
    for (line, outward) in lines.iter_mut().zip(outward) {
        let (a, b) = *line;
        let len = a.distance(b);
        if len < 10.0 {
            continue;
        }
        let (tx, ty) = ((b.x - a.x) / len, (b.y - a.y) / len);
        let (nx, ny) = (-ty, tx);
        // The sign of a step along the normal `(nx, ny)` that is `outward`'s,
        // where the side's polarity is known.
        let expected = outward_normal(a, b, centroid)
            .filter(|_| outward != 0)
            .map(|(ox, oy)| f32::from(outward) * (ox * nx + oy * ny).signum());
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
        // The channel the side shows best in (a cream card on white paper is an
        // edge in blue long before it is one in brightness), stepping the
        // expected way where that is known.
        let strength = |polarity: f32| expected.map_or(polarity.abs(), |e| polarity * e);
        let Some((profiles, polarity)) = (0..3)
            .map(profiles_in)
            .max_by(|x, y| strength(x.1).total_cmp(&strength(y.1)))
        else {
            continue;
        };
        let sign = expected.unwrap_or(polarity.signum());
        let mut points: Vec<Point> = Vec::new();
        for (p, profile) in &profiles {
            let strongest = |sign: f32, within: std::ops::Range<usize>| {
                within.max_by(|&x, &y| (profile[x].1 * sign).total_cmp(&(profile[y].1 * sign)))
            };
            let Some(i) = strongest(sign, 0..profile.len()) else {
                continue;
            };
            if profile[i].1 * sign < 2.0 {
                continue;
            }
            // Print near the card's edge can step more strongly than a pale
            // card's edge; of the steps at least [`NEAR_PEAK`] as strong, the
            // one nearest the side as found.
            let peak = |k: usize| {
                let m = profile[k].1 * sign;
                m >= NEAR_PEAK * profile[i].1 * sign
                    && (k == 0 || profile[k - 1].1 * sign <= m)
                    && (k + 1 >= profile.len() || profile[k + 1].1 * sign <= m)
            };
            let i = (0..profile.len())
                .filter(|&k| peak(k))
                .min_by(|&x, &y| profile[x].0.abs().total_cmp(&profile[y].0.abs()))
                .unwrap_or(i);
            let d = profile[i].1;
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
        // Where print runs along part of a pale card's side, its points there lie
        // on the print's edge, a few pixels inside: a line through all the
        // points would tilt from the one edge to the other. The points that one
        // line holds most of are the side's.
        let on_one_line = most_on_one_line(&points, 1.5, count / 3);
        let points = if on_one_line.len() >= count / 3 {
            on_one_line
        } else {
            points
        };
        if let Some(fitted) = fit_line_trimmed(&points, 1.5, count / 3, 2) {
            *line = fitted.line();
        }
    }
    quad_from_sides(&lines, quad, 3.0 * reach)
}

/// Channel `channel` of `image` at continuous coordinates (pixel centres at
/// +0.5), bilinear; `None` off the image.
pub(super) fn bilinear(image: &RgbImage, x: f32, y: f32, channel: usize) -> Option<f32> {
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
pub(super) struct FittedLine {
    pub(super) centre: Point,
    pub(super) direction: (f32, f32),
    /// Points within the fit's residual bound of the line.
    pub(super) support: usize,
}

impl FittedLine {
    /// Two points on the line.
    pub(super) fn line(&self) -> (Point, Point) {
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
pub(super) fn fit_line_trimmed(
    points: &[Point],
    max_residual: f32,
    min_kept: usize,
    rounds: usize,
) -> Option<FittedLine> {
    let near = |(centre, direction): (Point, (f32, f32))| {
        points
            .iter()
            .copied()
            .filter(move |p| p.distance_to_line(centre, direction) <= max_residual)
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

/// The points within `max_residual` of the line through two of them (at least
/// `min_apart` apart in `points`' order, for a steady direction) that holds the
/// most within half that, fewest total residual first among equals. Half: two
/// parallel edges a few pixels apart, each along part of a side, hold more
/// points within the full residual of a line tilted across both than either
/// holds of its own.
fn most_on_one_line(points: &[Point], max_residual: f32, min_apart: usize) -> Vec<Point> {
    let along = |i: usize, j: usize| (points[j].x - points[i].x, points[j].y - points[i].y);
    let mut best: Option<(usize, f32, usize, usize)> = None;
    for i in 0..points.len() {
        for j in (i + min_apart.max(1))..points.len() {
            let (mut on, mut total) = (0, 0.0);
            for &p in points {
                let r = p.distance_to_line(points[i], along(i, j));
                if r <= 0.5 * max_residual {
                    on += 1;
                    total += r;
                }
            }
            if best.is_none_or(|(n, t, _, _)| on > n || (on == n && total < t)) {
                best = Some((on, total, i, j));
            }
        }
    }
    let Some((_, _, i, j)) = best else {
        return Vec::new();
    };
    points
        .iter()
        .copied()
        .filter(|&p| p.distance_to_line(points[i], along(i, j)) <= max_residual)
        .collect()
}

/// Total-least-squares line through points: centroid and unit direction.
pub(super) fn fit_line(points: &[Point]) -> Option<(Point, (f32, f32))> {
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
pub(super) fn quad_from_sides(sides: &[(Point, Point)], fallback: Quad, max_shift: f32) -> Quad {
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
pub(super) fn intersect_lines((a1, b1): (Point, Point), (a2, b2): (Point, Point)) -> Option<Point> {
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
pub(super) const GROW_SUPPORT: f32 = 0.4;

/// How much worse (in log aspect ratio) an outline's shape may get when a side
/// that lies on print moves onto the card's edge.
pub(super) const PRINTED_SIDE_ASPECT_SLACK: f32 = 0.05;

/// How far (in log aspect ratio) from every document's an outline's shape must
/// be for a side to move onto a faint edge: a card seen at an angle is rarely
/// further than 0.07 from its own.
pub(super) const FAINT_SIDE_SHAPE_ERROR: f32 = 0.07;

/// The share of its shape's distance from a document's that moving a side onto a
/// faint edge must leave at most.
pub(super) const FAINT_SIDE_SHAPE_GAIN: f32 = 0.6;

/// Support a faint edge ([`GradientField::faint_threshold`]) needs for a side to
/// move onto it.
pub(super) const FAINT_SIDE_SUPPORT: f32 = 0.6;

/// Share of a side's points that must step one way, and how many times more of
/// them than step the other way, for the side to have a polarity.
pub(super) const POLARITY_SHARE: f32 = 0.3;

pub(super) const POLARITY_DOMINANCE: f32 = 2.0;

/// For each side of `quad`, which way brightness steps across it going outwards:
/// 1 brighter outside, -1 darker outside, 0 neither clearly.
pub(super) fn outward_polarity(field: &GradientField, quad: &Quad) -> [i8; 4] {
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

/// Least difference (grey levels, in the channel that differs most) between a
/// card's colour and its surface's for which way the card's edges step to be
/// known from them.
const KNOWN_STEP: f32 = 6.0;

/// [`outward_polarity`] of each side of `quad` (on the working copy `colour`, the
/// surface of colour `surface`) where it is the way a card of the colour inside
/// `quad` steps out onto the surface, and no side steps the other way. A side on
/// a drop shadow's outer edge, or on print, steps against the card's own edges.
pub(super) fn agreed_polarity(
    field: &GradientField,
    colour: &RgbImage,
    surface: [f32; 3],
    quad: &Quad,
) -> [i8; 4] {
    let polarity = outward_polarity(field, quad);
    let Some(card) = card_colour(colour, quad) else {
        return [0; 4];
    };
    let step = (0..3)
        .map(|c| surface[c] - card[c])
        .fold(0.0f32, |x, y| if y.abs() > x.abs() { y } else { x });
    if step.abs() < KNOWN_STEP {
        return [0; 4];
    }
    let card_step = step.signum() as i8;
    polarity.map(|p| {
        if p == card_step && !polarity.contains(&-p) {
            p
        } else {
            0
        }
    })
}

/// The colour most of a card inside `quad` shows, clear of its edges: per
/// channel, the median of a grid of points across it (print covers less of a
/// card than its ground does); `None` when the grid lies off `colour`.
fn card_colour(colour: &RgbImage, quad: &Quad) -> Option<[f32; 3]> {
    let [p0, p1, p2, p3] = quad.corners;
    let mut samples: Vec<[u8; 3]> = Vec::with_capacity(96);
    for i in 0..12 {
        for j in 0..8 {
            let (u, v) = (0.1 + 0.8 * i as f32 / 11.0, 0.1 + 0.8 * j as f32 / 7.0);
            let top = (p0.x + (p1.x - p0.x) * u, p0.y + (p1.y - p0.y) * u);
            let bottom = (p3.x + (p2.x - p3.x) * u, p3.y + (p2.y - p3.y) * u);
            let (x, y) = (
                top.0 + (bottom.0 - top.0) * v,
                top.1 + (bottom.1 - top.1) * v,
            );
            if x >= 0.0 && y >= 0.0 && (x as u32) < colour.width() && (y as u32) < colour.height() {
                samples.push(colour.get_pixel(x as u32, y as u32).0);
            }
        }
    }
    (!samples.is_empty()).then(|| median_colour(&samples).map(f32::from))
}

/// Unit normal of `a → b` pointing away from `centre`.
pub(super) fn outward_normal(a: Point, b: Point, centre: Point) -> Option<(f32, f32)> {
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
pub(super) fn outward_hits(
    field: &GradientField,
    a: Point,
    b: Point,
    outward: (f32, f32),
    threshold: f32,
) -> (f32, f32) {
    // The hits of the normal `(-dy, dx)`'s positive polarity are the outward
    // brightening ones when that normal points outwards.
    let along_normal = -(b.y - a.y) * outward.0 + (b.x - a.x) * outward.1 > 0.0;
    let [(positive, negative)] = side_hits::<1>(field, a, b, Backing::steps(threshold));
    if along_normal {
        (positive, negative)
    } else {
        (negative, positive)
    }
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
pub(super) fn grow(field: &GradientField, quad: Quad, config: &LocateConfig) -> Quad {
    let mut quad = quad;
    for i in 0..4 {
        quad = grow_side(field, quad, i, Growth::Backed, config).unwrap_or(quad);
    }
    // Growing one side can leave another on print: that side's polarity is only
    // known once the outline's other sides have found the card's edges.
    let mut polarity = outward_polarity(field, &quad);
    for i in 0..4 {
        let others = [1, 2, 3].map(|k| polarity[(i + k) % 4]);
        let card_edges = others[0] != 0 && others.iter().all(|&p| p == others[0]);
        if card_edges
            && polarity[i] == -others[0]
            && let Some(grown) = grow_side(field, quad, i, Growth::OffPrint(others[0]), config)
        {
            quad = grown;
            polarity = outward_polarity(field, &quad);
        }
    }
    quad
}

/// `quad` with one side moved out onto a faint edge, when its shape is far from
/// a document's ([`FAINT_SIDE_SHAPE_ERROR`]) and that brings it close: the side
/// lies on a header band's lower edge, and the card's own edge beyond the band
/// is pale on a pale surface, backed only at half the edge threshold. Of the
/// four sides, the move leaving the shape closest to a document's.
pub(super) fn onto_faint_side(
    field: &GradientField,
    quad: Quad,
    config: &LocateConfig,
) -> Option<Quad> {
    if aspect_error(&quad, config) < FAINT_SIDE_SHAPE_ERROR {
        return None;
    }
    (0..4)
        .filter_map(|i| grow_side(field, quad, i, Growth::Faint, config))
        .min_by(|a, b| aspect_error(a, config).total_cmp(&aspect_error(b, config)))
}

/// How a side may move outwards in [`grow_side`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Growth {
    /// Onto the outermost roughly parallel edge backed along enough of its
    /// length, of either polarity, when the shape gets closer to a document's.
    Backed,
    /// The side lies on print: onto the best backed edge stepping this way (see
    /// [`outward_polarity`]), an edge of half the threshold counting; the shape
    /// may get a little worse.
    OffPrint(i8),
    /// Onto the best backed edge of half the threshold when that makes a shape
    /// far from a document's close to one ([`FAINT_SIDE_SHAPE_GAIN`]).
    Faint,
}

/// Side `i` of `quad` moved outwards as `growth` allows ([`grow`]).
pub(super) fn grow_side(
    field: &GradientField,
    quad: Quad,
    i: usize,
    growth: Growth,
    config: &LocateConfig,
) -> Option<Quad> {
    let outward = outward_normal(quad.corners[i], quad.corners[(i + 1) % 4], quad.centroid())?;
    let before = aspect_error(&quad, config);
    let (max_aspect_error, min_support) = match growth {
        Growth::Backed => (before - 0.02, GROW_SUPPORT),
        Growth::OffPrint(_) => (before + PRINTED_SIDE_ASPECT_SLACK, GROW_SUPPORT),
        Growth::Faint => (FAINT_SIDE_SHAPE_GAIN * before, FAINT_SIDE_SUPPORT),
    };
    // Which placement wins: the outermost backed one, or off print and onto a
    // faint edge the best backed one (outermost among equals), since a tilted
    // line that crosses a faint edge is backed along part of its length further
    // out.
    let rank = |support: f32, shift: f32| match growth {
        Growth::Backed => (0.0, shift),
        Growth::OffPrint(_) | Growth::Faint => (support, shift),
    };
    let mut best: Option<((f32, f32), Quad)> = None;
    for (shift, grown) in outward_moves(quad, i, 0.3, 1.5) {
        let (p, q) = (grown.corners[i], grown.corners[(i + 1) % 4]);
        let support = match growth {
            Growth::Backed => side_support(field, p, q, field.threshold),
            Growth::OffPrint(sense) => {
                let threshold = field.faint_threshold();
                let (brighter, darker) = outward_hits(field, p, q, outward, threshold);
                if sense > 0 { brighter } else { darker }
            }
            Growth::Faint => side_support(field, p, q, field.faint_threshold()),
        };
        let key = rank(support, shift);
        if support >= min_support
            && best.as_ref().is_none_or(|(k, _)| key > *k)
            && aspect_error(&grown, config) < max_aspect_error
            && score_quad(field, &grown, config).is_some()
        {
            best = Some((key, grown));
        }
    }
    best.map(|(_, grown)| grown)
}

/// Side `i` of `quad` moved outwards, as (mean shift, moved quad): each end by 3
/// px up to `reach` of the card's depth across the side, in steps of `step`
/// pixels, the two ends at most 5 % of the side's length apart (a line seen in
/// perspective, or a side found a little tilted); the moved side's corners are
/// where it crosses its neighbours. In order of the first end's shift, then the
/// second's.
pub(super) fn outward_moves(quad: Quad, i: usize, reach: f32, step: f32) -> Vec<(f32, Quad)> {
    side_moves(quad, i, reach, step, 1.0)
}

/// Side `i` of `quad` moved inwards, as [`outward_moves`] moves it outwards.
pub(super) fn inward_moves(quad: Quad, i: usize, reach: f32, step: f32) -> Vec<(f32, Quad)> {
    side_moves(quad, i, reach, step, -1.0)
}

/// Side `i` of `quad` moved along its outward normal times `sign` (1 or -1).
fn side_moves(quad: Quad, i: usize, reach: f32, step: f32, sign: f32) -> Vec<(f32, Quad)> {
    let c = quad.corners;
    let (a, b) = (c[i], c[(i + 1) % 4]);
    let prev = (c[(i + 3) % 4], c[i]);
    let next = (c[(i + 1) % 4], c[(i + 2) % 4]);
    let centroid = quad.centroid();
    let Some((nx, ny)) = outward_normal(a, b, centroid) else {
        return Vec::new();
    };
    let outward = (sign * nx, sign * ny);
    let mid = a.midpoint(b);
    let depth = 2.0 * ((mid.x - centroid.x) * outward.0 + (mid.y - centroid.y) * outward.1).abs();
    let reach = reach * depth;
    let tilt = 0.05 * a.distance(b).max(1.0);
    let shifted = |p: Point, d: f32| Point::new(p.x + outward.0 * d, p.y + outward.1 * d);
    let mut moves = Vec::new();
    let mut da = 3.0;
    while da <= reach {
        let mut db = (da - tilt).max(0.0);
        while db <= da + tilt {
            let line = (shifted(a, da), shifted(b, db));
            if let (Some(p), Some(q)) = (intersect_lines(prev, line), intersect_lines(line, next)) {
                let mut corners = c;
                corners[i] = p;
                corners[(i + 1) % 4] = q;
                moves.push(((da + db) / 2.0, Quad { corners }));
            }
            db += step;
        }
        da += step;
    }
    moves
}

/// Nudges each side (offset ±3 px, angle ±2°) to the placement with the most
/// edge support, then rebuilds the corners from the four refined lines.
pub(super) fn refine(field: &GradientField, quad: Quad) -> Quad {
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
