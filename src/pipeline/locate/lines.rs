//! Line finding: the long straight edges of a card as peaks of a gradient-oriented
//! Hough transform, and the pairs of them that may be opposite sides.

use super::gradient::GradientField;
use crate::pipeline::warp::Point;

/// A line `x cos θ + y sin θ = ρ`, θ in [0, π).
#[derive(Debug, Clone, Copy)]
pub(super) struct Line {
    pub(super) theta: f32,
    pub(super) rho: f32,
    pub(super) votes: f32,
}

impl Line {
    pub(super) fn intersect(&self, other: &Line) -> Option<Point> {
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

pub(super) const THETA_BINS: usize = 180;

/// Strongest straight edges: each pixel with a clear gradient votes for the lines
/// through it whose normal is within ±2° of its gradient direction.
pub(super) fn hough_lines(field: &GradientField, max_lines: usize) -> Vec<Line> {
    hough_lines_where(field, max_lines, field.threshold, |_, _| true)
}

/// [`hough_lines`] from the pixels where `votes(x, y)`, with gradients of at
/// least `threshold`.
pub(super) fn hough_lines_where(
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
pub(super) const LINE_POOL: usize = 48;

/// Lines kept by votes.
pub(super) const LINES_BY_VOTES: usize = 14;

/// Lines kept by length, per 10° of direction.
pub(super) const LINES_BY_LENGTH: usize = 3;

/// The lines quads are built from: the most voted ones and, in every
/// direction, the longest ones.
///
/// Votes alone favour short, contrasted, repeated structure: a barcode's bars
/// or a card's guilloche give dozens of strong lines that push a pale card's
/// faint outline out of the list. A card's side is among the longest unbroken
/// edges of its direction, so those are kept as well, per direction so that one
/// textured direction cannot take every place.
pub(super) fn candidate_lines(field: &GradientField) -> Vec<Line> {
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
pub(super) fn longest_run(field: &GradientField, line: &Line, threshold: f32) -> f32 {
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

/// Angle between two line normals, folded to [0, π/2].
pub(super) fn angle_between(a: &Line, b: &Line) -> f32 {
    let d = (a.theta - b.theta).abs() % std::f32::consts::PI;
    d.min(std::f32::consts::PI - d)
}

/// Pairs of `lines` that may be opposite sides of a document: within 25° of
/// each other and not too close.
pub(super) fn parallel_pairs(field: &GradientField, lines: &[Line]) -> Vec<(Line, Line)> {
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
