//! The document as the region that stands out from a plain surface.
//!
//! On a scanner's glass or a plain table the surface has one colour, read from the
//! image border, and a card differs from it: by its tint, its print, or at least
//! the thin light rim and shadow of its edge. That holds where the outline is too
//! faint for the edge search (a pale card on white paper), and, unlike flooding
//! the surface in from the border, it does not need the outline to be closed: the
//! card's pixels, grown by one to join its speckles, form one connected region
//! whose convex hull is the card's outline.

use image::RgbImage;
use imageproc::point::Point as PixelPoint;

use super::LocateConfig;
use super::quads::score_shape;
use super::sides::{fit_line, outward_normal, quad_from_sides};
use crate::pipeline::warp::{Point, Quad};

/// Width of the border strips the surface is read from, as a share of the short side.
const BORDER_BAND: f32 = 0.02;
/// Spread of the surface's colour (see [`SurfaceDistance::of`]) above which it is not
/// plain: a textured table, a busy background.
const MAX_SURFACE_NOISE: i32 = 40;
/// Regions tried, largest first (a lid's shadow along the border may be larger
/// than the card).
const REGIONS_TRIED: usize = 3;
/// Smallest region looked at, as a share of the image.
const MIN_REGION_FRACTION: f32 = 0.01;
/// A region whose hull exceeds its largest inscribed quadrilateral by more than
/// this is not four-sided (two objects touching, a shadow wedge).
const MAX_HULL_EXCESS: f32 = 1.12;
/// Share of each side's middle that must run along pixels of the region: a hull
/// side that bridges a gap (between two objects) runs over the surface.
const MIN_SIDE_COVER: f32 = 0.5;
/// Hull points kept for the search of the largest inscribed quadrilateral.
const MAX_HULL_POINTS: usize = 24;
/// Stretch of each side (as fractions of its length) whose boundary points fit
/// it: clear of the rounded corners.
const SIDE_FIT_SPAN: (f32, f32) = (0.15, 0.85);
/// Farthest a boundary point may lie from the inscribed side to count for it, in
/// working pixels (a card's corner radius is about 4 % of its width).
const SIDE_FIT_REACH: f32 = 10.0;
/// Fewest boundary points a side is refitted from.
const MIN_SIDE_FIT_POINTS: usize = 8;
/// Points of a side sampled for the candidate lines of [`outermost_line`].
const OUTERMOST_SAMPLES: usize = 40;
/// Farthest a boundary point lies from a line to be on it, in working pixels.
const OUTERMOST_ON: f32 = 1.0;
/// Nearest a boundary point lies beyond a line to count against it.
const OUTERMOST_BEYOND: f32 = 2.0;
/// Points on a line that one point beyond it outweighs. At 3, the surface that
/// uneven light lifts beside a card in a photo pulled sides outward; 1 keeps
/// a page's edge over the print inside it (tuning scans and photos).
const OUTERMOST_BEYOND_COST: i32 = 1;
/// Raises of the foreground threshold over the first (see [`surface_region`]).
const THRESHOLD_STEPS: [i32; 4] = [0, 10, 20, 35];
/// Surface noise up to which the surface is a scanner's: a region found on it is
/// the document, whatever the edge search prefers. Photos' tables measure 4 to 40,
/// and a region there can take in a stripe of the table.
const SCANNER_SURFACE_NOISE: i32 = 7;

/// A document-shaped region and how plain the surface around it is.
pub(super) struct SurfaceRegion {
    pub quad: Quad,
    surface_noise: i32,
}

impl SurfaceRegion {
    /// On a scanner's glass, or a surface as plain.
    pub fn on_scanner_surface(&self) -> bool {
        is_scanner_noise(self.surface_noise)
    }
}

/// The largest region that stands out from the image's surface and has a
/// document's shape, its outline in the image's pixel coordinates; `None` when the
/// surface is not plain or no region qualifies.
pub(super) fn surface_region(image: &RgbImage, config: &LocateConfig) -> Option<SurfaceRegion> {
    let surface = SurfaceDistance::of(image)?;
    // Uneven light (a lamp's spot, a shadow) lifts part of a photo's surface off
    // its border colour and joins it to the card; stricter thresholds drop it
    // while a card of another colour stays.
    let smallest_region = MIN_REGION_FRACTION * (surface.width * surface.height) as f32;
    for step in THRESHOLD_STEPS {
        let foreground = surface.foreground(surface.threshold() + step);
        let grown = foreground.grown();
        if (grown.count() as f32) < smallest_region {
            // A stricter threshold only leaves fewer pixels.
            return None;
        }
        if let Some(quad) = document_quad(&foreground, &grown, surface.is_scanners(), config) {
            return Some(SurfaceRegion {
                quad,
                surface_noise: surface.noise,
            });
        }
    }
    None
}

/// The outline of the first of the largest regions of `grown` (`foreground`
/// dilated) that is four-sided and has a document's shape; `scanner` as in
/// [`fit_to_boundary`].
fn document_quad(
    foreground: &Foreground,
    grown: &Foreground,
    scanner: bool,
    config: &LocateConfig,
) -> Option<Quad> {
    let (w, h) = (foreground.width, foreground.height);
    let image_area = (w * h) as f32;
    let regions = grown.regions();
    for region in regions.iter().take(REGIONS_TRIED) {
        if (region.size as f32) < MIN_REGION_FRACTION * image_area {
            break;
        }
        let hull = imageproc::geometry::convex_hull(region.boundary.clone());
        let hull_area = polygon_area(&hull);
        if hull_area < config.min_area_fraction * image_area {
            continue;
        }
        let Some(quad) = largest_inscribed_quad(&hull) else {
            continue;
        };
        if hull_area > MAX_HULL_EXCESS * quad.area()
            || score_shape(&quad, w as f32, h as f32, config).is_none()
        {
            continue;
        }
        let covered = (0..4).all(|i| {
            foreground.cover(quad.corners[i], quad.corners[(i + 1) % 4]) >= MIN_SIDE_COVER
        });
        if covered {
            let fitted = fit_to_boundary(quad, &region.boundary, scanner);
            let fitted_ok = score_shape(&fitted, w as f32, h as f32, config).is_some();
            return Some(if fitted_ok { fitted } else { quad });
        }
    }
    None
}

/// Gaps in the print up to twice this many working pixels are closed to join a
/// card's print into one block. On the working copy of a page a card is about
/// 140 pixels wide; at 8 the print of the pale cards on the tuning pages (seed
/// 8302) joined, at 4 it stayed in pieces.
const PRINT_JOIN: usize = 8;

/// A block of print's hull over its largest inscribed quadrilateral: a card's
/// print need not fill its corners (a header line shorter than the barcode).
const PRINT_HULL_EXCESS: f32 = 1.25;

/// On a plain surface where no region stands out whole (a pale card on pale
/// paper, told from it only by its print), the block of print that is largest
/// and has about a document's shape.
pub(super) fn print_block(image: &RgbImage, config: &LocateConfig) -> Option<Quad> {
    let surface = SurfaceDistance::of(image)?;
    if !surface.is_scanners() {
        return None;
    }
    let (w, h) = (surface.width as f32, surface.height as f32);
    // A page's edge or a scanner lid's shadow along the image's border stands
    // out from the surface too, and joined to it the print of a card lying a few
    // millimetres away had no card's shape; a card's print is never on the border.
    let joined = surface
        .foreground(surface.threshold())
        .off_the_border()
        .closed_by(PRINT_JOIN);
    for region in joined.regions() {
        if (region.size as f32) < MIN_REGION_FRACTION * w * h {
            break;
        }
        let hull = imageproc::geometry::convex_hull(region.boundary.clone());
        let Some(quad) = largest_inscribed_quad(&hull) else {
            continue;
        };
        if polygon_area(&hull) <= PRINT_HULL_EXCESS * quad.area()
            && quad.area() >= config.min_area_fraction * w * h
            && quad.elongation() <= config.max_aspect
        {
            return Some(quad);
        }
    }
    None
}

/// Whether a surface this plain is a scanner's (see [`SCANNER_SURFACE_NOISE`]).
fn is_scanner_noise(noise: i32) -> bool {
    noise <= SCANNER_SURFACE_NOISE
}

/// The colour of the surface a document lies on (a scanner's glass, paper, a
/// table): per channel, the median of the image's border strips.
pub(crate) fn surface_colour(image: &RgbImage) -> [u8; 3] {
    median_colour(&border_strips(image).concat())
}

/// The image's top, bottom, left and right strips, [`BORDER_BAND`] of the short
/// side deep (at least 2 pixels, at most the whole image).
fn border_strips(image: &RgbImage) -> [Vec<[u8; 3]>; 4] {
    let (width, height) = (image.width() as usize, image.height() as usize);
    let band = ((width.min(height) as f32 * BORDER_BAND) as usize)
        .max(2)
        .min(width.min(height));
    let pixel = |(x, y): (usize, usize)| image.get_pixel(x as u32, y as u32).0;
    let rows = |ys: std::ops::Range<usize>| {
        ys.flat_map(|y| (0..width).map(move |x| (x, y)))
            .map(pixel)
            .collect()
    };
    let columns = |xs: std::ops::Range<usize>| {
        (0..height)
            .flat_map(|y| xs.clone().map(move |x| (x, y)))
            .map(pixel)
            .collect()
    };
    [
        rows(0..band),
        rows(height - band..height),
        columns(0..band),
        columns(width - band..width),
    ]
}

/// Per channel, the median of `pixels` (black when there are none).
pub(super) fn median_colour(pixels: &[[u8; 3]]) -> [u8; 3] {
    [0, 1, 2].map(|c| {
        let mut values: Vec<u8> = pixels.iter().map(|p| p[c]).collect();
        if values.is_empty() {
            return 0;
        }
        let mid = values.len() / 2;
        *values.select_nth_unstable(mid).1
    })
}

/// Each pixel's distance from the surface colour (largest channel difference).
struct SurfaceDistance {
    width: usize,
    height: usize,
    distance: Vec<u8>,
    /// The surface's own spread, in grey levels.
    noise: i32,
}

impl SurfaceDistance {
    /// The surface colour is [`surface_colour`]'s. Its spread is taken
    /// per strip (the 90th percentile of distances) and the second smallest of the
    /// four kept: a scanner lid's shadow or a card touching the border spoils one
    /// or two strips, not the surface.
    fn of(image: &RgbImage) -> Option<SurfaceDistance> {
        let (width, height) = (image.width() as usize, image.height() as usize);
        if width < 8 || height < 8 {
            return None;
        }
        let strips = border_strips(image);
        let surface = median_colour(&strips.concat());
        let distance = |p: [u8; 3]| {
            (0..3)
                .map(|c| (i32::from(p[c]) - i32::from(surface[c])).abs())
                .max()
                .unwrap_or(0)
        };
        let mut spreads = strips.map(|strip| {
            let mut d: Vec<i32> = strip.iter().map(|&p| distance(p)).collect();
            let at = d.len() * 9 / 10;
            *d.select_nth_unstable(at).1
        });
        spreads.sort_unstable();
        let noise = spreads[1];
        if noise > MAX_SURFACE_NOISE {
            return None;
        }
        let distance = image.pixels().map(|p| distance(p.0) as u8).collect();
        Some(SurfaceDistance {
            width,
            height,
            distance,
            noise,
        })
    }

    fn is_scanners(&self) -> bool {
        is_scanner_noise(self.noise)
    }

    /// The first threshold tried: just above the surface's spread.
    fn threshold(&self) -> i32 {
        (self.noise + 6).max(10)
    }

    fn foreground(&self, threshold: i32) -> Foreground {
        Foreground {
            width: self.width,
            height: self.height,
            on: self
                .distance
                .iter()
                .map(|&d| i32::from(d) > threshold)
                .collect(),
        }
    }
}

/// The pixels around pixel `i` (and `i` itself) of a `w`×`h` grid, row-major.
fn neighbours(i: usize, w: usize, h: usize) -> impl Iterator<Item = usize> {
    let (x, y) = (i % w, i / w);
    (y.saturating_sub(1)..(y + 2).min(h))
        .flat_map(move |yy| (x.saturating_sub(1)..(x + 2).min(w)).map(move |xx| yy * w + xx))
}

/// Pixels whose colour differs from the surface's.
struct Foreground {
    width: usize,
    height: usize,
    on: Vec<bool>,
}

impl Foreground {
    fn count(&self) -> usize {
        self.on.iter().filter(|&&on| on).count()
    }

    /// Dilated by one pixel (3x3), joining the speckles of a pale card's print.
    fn grown(&self) -> Foreground {
        self.grown_by(1)
    }

    /// Dilated by `reach` pixels (a square of side `2 reach + 1`).
    fn grown_by(&self, reach: usize) -> Foreground {
        let (w, h) = (self.width, self.height);
        // Separable: along rows, then along columns.
        let rows = dilated_lines(&self.on, w, h, reach, |y, x| y * w + x);
        let on = dilated_lines(&rows, h, w, reach, |x, y| y * w + x);
        Foreground { on, ..*self }
    }

    /// Closed by `reach` pixels: dilated, then eroded as far, which fills gaps up
    /// to `2 reach` wide without moving the outer edges.
    fn closed_by(&self, reach: usize) -> Foreground {
        self.grown_by(reach).inverted().grown_by(reach).inverted()
    }

    /// Without the regions (8-neighbourhood) that touch the image's border.
    fn off_the_border(&self) -> Foreground {
        let (w, h) = (self.width, self.height);
        let mut on = self.on.clone();
        let border = (0..w)
            .flat_map(|x| [x, (h - 1) * w + x])
            .chain((0..h).flat_map(|y| [y * w, y * w + w - 1]));
        let mut stack: Vec<usize> = border.filter(|&i| on[i]).collect();
        while let Some(i) = stack.pop() {
            if !on[i] {
                continue;
            }
            on[i] = false;
            stack.extend(neighbours(i, w, h).filter(|&n| on[n]));
        }
        Foreground { on, ..*self }
    }

    fn inverted(&self) -> Foreground {
        Foreground {
            on: self.on.iter().map(|&on| !on).collect(),
            ..*self
        }
    }

    /// Connected regions (8-neighbourhood), largest first.
    fn regions(&self) -> Vec<Region> {
        let (w, h) = (self.width, self.height);
        let mut label = vec![0u32; w * h];
        let mut sizes = Vec::new();
        let mut stack = Vec::new();
        for start in 0..w * h {
            if !self.on[start] || label[start] != 0 {
                continue;
            }
            let id = sizes.len() as u32 + 1;
            let mut size = 0;
            label[start] = id;
            stack.push(start);
            while let Some(i) = stack.pop() {
                size += 1;
                for n in neighbours(i, w, h) {
                    if self.on[n] && label[n] == 0 {
                        label[n] = id;
                        stack.push(n);
                    }
                }
            }
            sizes.push(size);
        }
        let mut order: Vec<usize> = (0..sizes.len()).collect();
        order.sort_by_key(|&k| std::cmp::Reverse(sizes[k]));
        order.truncate(REGIONS_TRIED);
        order
            .into_iter()
            .map(|k| {
                let id = k as u32 + 1;
                // Each row's and each column's first and last pixel: the region's
                // outer boundary, enough for the convex hull and the side fits.
                let rows = (0..h).flat_map(|y| {
                    let row = &label[y * w..(y + 1) * w];
                    let first = row.iter().position(|&l| l == id);
                    let last = row.iter().rposition(|&l| l == id);
                    first
                        .zip(last)
                        .map(|(x0, x1)| [(x0, y), (x1, y)])
                        .into_iter()
                        .flatten()
                });
                let columns = (0..w).flat_map(|x| {
                    let first = (0..h).find(|&y| label[y * w + x] == id);
                    let last = (0..h).rev().find(|&y| label[y * w + x] == id);
                    first
                        .zip(last)
                        .map(|(y0, y1)| [(x, y0), (x, y1)])
                        .into_iter()
                        .flatten()
                });
                let boundary = rows
                    .chain(columns)
                    .map(|(x, y)| PixelPoint::new(x as i32, y as i32))
                    .collect();
                Region {
                    size: sizes[k],
                    boundary,
                }
            })
            .collect()
    }

    /// Share of the points along the middle of `a → b` (10 % to 90 %, clear of
    /// rounded corners) with a foreground pixel within two pixels.
    fn cover(&self, a: Point, b: Point) -> f32 {
        const SAMPLES: usize = 40;
        let (w, h) = (self.width as i32, self.height as i32);
        let hits = (0..SAMPLES)
            .filter(|&k| {
                let t = 0.1 + 0.8 * k as f32 / (SAMPLES - 1) as f32;
                let (x, y) = (
                    (a.x + (b.x - a.x) * t).round() as i32,
                    (a.y + (b.y - a.y) * t).round() as i32,
                );
                (y - 2..=y + 2).any(|yy| {
                    (x - 2..=x + 2).any(|xx| {
                        xx >= 0 && yy >= 0 && xx < w && yy < h && self.on[(yy * w + xx) as usize]
                    })
                })
            })
            .count();
        hits as f32 / SAMPLES as f32
    }
}

/// `on` dilated by `reach` along each of its `lines` of `len` pixels, pixel `k`
/// of line `l` being `on[at(l, k)]`: a pixel is on when any within `reach` along
/// its line is, counted over a sliding window.
fn dilated_lines(
    on: &[bool],
    len: usize,
    lines: usize,
    reach: usize,
    at: impl Fn(usize, usize) -> usize,
) -> Vec<bool> {
    let mut out = vec![false; on.len()];
    for line in 0..lines {
        let mut count: usize = (0..len.min(reach))
            .map(|k| usize::from(on[at(line, k)]))
            .sum();
        for k in 0..len {
            if k + reach < len {
                count += usize::from(on[at(line, k + reach)]);
            }
            if k > reach {
                count -= usize::from(on[at(line, k - reach - 1)]);
            }
            out[at(line, k)] = count > 0;
        }
    }
    out
}

/// A connected foreground region: its pixel count and the first and last pixel of
/// each of its rows and columns.
struct Region {
    size: usize,
    boundary: Vec<PixelPoint<i32>>,
}

/// Each side of `quad` refitted to the region's boundary points along its middle,
/// corners where the fitted sides cross. The largest inscribed quadrilateral has
/// its corners on a card's rounded corners, so its sides run a few pixels inside
/// the card's; the fitted sides lie on the card's edges and meet where its square
/// corners would be. A side with too few points keeps its place.
///
/// On a scanner each side is the [`outermost_line`] of its points: nothing beside
/// the page stands out from the lid, so whatever lies beyond a line is page. On a
/// photo's table, uneven light lifts patches of the surface beside the card into
/// the region, and a least-squares line through all points holds best.
fn fit_to_boundary(quad: Quad, boundary: &[PixelPoint<i32>], scanner: bool) -> Quad {
    let c = quad.corners;
    let sides: Vec<(Point, Point)> = (0..4)
        .map(|i| {
            let (a, b) = (c[i], c[(i + 1) % 4]);
            let length = a.distance(b).max(1.0);
            let (ux, uy) = ((b.x - a.x) / length, (b.y - a.y) / length);
            let near: Vec<Point> = boundary
                .iter()
                .map(|p| Point::new(p.x as f32, p.y as f32))
                .filter(|p| {
                    let (dx, dy) = (p.x - a.x, p.y - a.y);
                    let along = (dx * ux + dy * uy) / length;
                    let across = dx * uy - dy * ux;
                    (SIDE_FIT_SPAN.0..=SIDE_FIT_SPAN.1).contains(&along)
                        && across.abs() <= SIDE_FIT_REACH
                })
                .collect();
            let fitted = if scanner {
                outward_normal(a, b, quad.centroid())
                    .and_then(|outward| outermost_line(&near, outward))
            } else {
                Some(&near)
                    .filter(|near| near.len() >= MIN_SIDE_FIT_POINTS)
                    .and_then(|near| fit_line(near))
            };
            match fitted {
                Some((centre, (dx, dy))) => (centre, Point::new(centre.x + dx, centre.y + dy)),
                None => (a, b),
            }
        })
        .collect();
    quad_from_sides(&sides, quad, f32::INFINITY)
}

/// The line through `points` that most of them lie on with few beyond it
/// (towards `outward`), refitted to those on it; `None` with too few on any line.
/// Where a pale page fades into the surface along part of a side, the region's
/// boundary there follows the print inside it (a text line's foot): a fit through
/// all points would tilt the side, and a line along the print would leave the
/// page's own edge, further out, beyond it.
fn outermost_line(points: &[Point], outward: (f32, f32)) -> Option<(Point, (f32, f32))> {
    let step = (points.len() / OUTERMOST_SAMPLES).max(1);
    let sampled: Vec<Point> = points.iter().copied().step_by(step).collect();
    let mut best: Option<(i32, Vec<Point>)> = None;
    for (i, &p) in sampled.iter().enumerate() {
        for &q in &sampled[i + 1..] {
            let length = p.distance(q);
            if length < 1.0 {
                continue;
            }
            // The unit normal of p → q on the outward side.
            let (mut nx, mut ny) = ((q.y - p.y) / length, (p.x - q.x) / length);
            if nx * outward.0 + ny * outward.1 < 0.0 {
                (nx, ny) = (-nx, -ny);
            }
            let offset = |r: &Point| (r.x - p.x) * nx + (r.y - p.y) * ny;
            let on: Vec<Point> = points
                .iter()
                .copied()
                .filter(|r| offset(r).abs() <= OUTERMOST_ON)
                .collect();
            let beyond = points
                .iter()
                .filter(|r| offset(r) > OUTERMOST_BEYOND)
                .count();
            let score = on.len() as i32 - OUTERMOST_BEYOND_COST * beyond as i32;
            if best.as_ref().is_none_or(|(b, _)| score > *b) {
                best = Some((score, on));
            }
        }
    }
    let (_, on) = best?;
    if on.len() < MIN_SIDE_FIT_POINTS {
        return None;
    }
    fit_line(&on)
}

fn polygon_area(points: &[PixelPoint<i32>]) -> f32 {
    let n = points.len();
    let twice: i64 = (0..n)
        .map(|i| {
            let (a, b) = (points[i], points[(i + 1) % n]);
            i64::from(a.x) * i64::from(b.y) - i64::from(b.x) * i64::from(a.y)
        })
        .sum();
    twice.unsigned_abs() as f32 / 2.0
}

/// The four hull points spanning the largest quadrilateral. A card's rounded
/// corners put these just inside the true corners; the sides are fitted later.
/// The hull is first thinned (Douglas-Peucker with a growing tolerance) so the
/// exhaustive search stays small.
fn largest_inscribed_quad(hull: &[PixelPoint<i32>]) -> Option<Quad> {
    let mut points = hull.to_vec();
    let mut epsilon = 0.5;
    while points.len() > MAX_HULL_POINTS {
        points = imageproc::geometry::approximate_polygon_dp(hull, epsilon, true);
        epsilon *= 1.3;
    }
    let n = points.len();
    if n < 4 {
        return None;
    }
    let p: Vec<Point> = points
        .iter()
        .map(|q| Point::new(q.x as f32, q.y as f32))
        .collect();
    let triangle = |a: Point, b: Point, c: Point| {
        ((b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y)).abs() / 2.0
    };
    let mut best: Option<(f32, [usize; 4])> = None;
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                for l in k + 1..n {
                    // Convex and in hull order, so two triangles across i-k.
                    let area = triangle(p[i], p[j], p[k]) + triangle(p[i], p[k], p[l]);
                    if best.is_none_or(|(b, _)| area > b) {
                        best = Some((area, [i, j, k, l]));
                    }
                }
            }
        }
    }
    best.map(|(_, idx)| Quad {
        corners: idx.map(|i| p[i]),
    })
}

#[cfg(test)]
mod tests {
    use image::Rgb;

    use super::*;

    /// A pale card (a shade off the paper) with a faint rim that has gaps, on
    /// paper with a dark lid shadow along one border.
    fn pale_card_scan() -> (RgbImage, [Point; 4]) {
        let (w, h) = (480u32, 340u32);
        let truth = [
            Point::new(80.0, 60.0),
            Point::new(400.0, 70.0),
            Point::new(395.0, 270.0),
            Point::new(75.0, 262.0),
        ];
        let page = Quad { corners: truth };
        let inside = page.within(0.0);
        let image = RgbImage::from_fn(w, h, |x, y| {
            let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
            if x < 12 {
                // The lid's shadow.
                return Rgb([170, 170, 168]);
            }
            if inside(Point::new(fx, fy)) {
                // Speckled print: every third pixel of a diagonal pattern differs.
                if (x + 2 * y) % 3 == 0 {
                    Rgb([236, 232, 214])
                } else {
                    Rgb([228, 228, 226])
                }
            } else {
                Rgb([226, 226, 226])
            }
        });
        (image, truth)
    }

    #[test]
    fn finds_a_pale_card_beside_a_lid_shadow() {
        let (image, truth) = pale_card_scan();
        assert_region_outline(&image, truth);
    }

    /// The surface region is found and each true corner has a corner within 4 px.
    fn assert_region_outline(image: &RgbImage, truth: [Point; 4]) {
        let quad = surface_region(image, &LocateConfig::default())
            .expect("region found")
            .quad;
        for corner in truth {
            let nearest = quad
                .corners
                .iter()
                .map(|c| c.distance(corner))
                .fold(f32::INFINITY, f32::min);
            assert!(nearest < 4.0, "corner {corner:?} missed: {quad:?}");
        }
    }

    #[test]
    fn a_page_fading_into_the_lid_keeps_its_edge_beyond_the_print_inside() {
        // A passport page a shade off the lid, which it matches in its lower
        // left quarter; a dark text line runs inside its bottom edge there. The
        // region's boundary follows the text's foot along half the bottom side.
        let truth = [
            Point::new(60.0, 50.0),
            Point::new(420.0, 58.0),
            Point::new(416.0, 300.0),
            Point::new(56.0, 292.0),
        ];
        let page = Quad { corners: truth };
        let inside = page.within(0.0);
        let image = RgbImage::from_fn(480, 340, |x, y| {
            let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
            if !inside(Point::new(fx, fy)) {
                Rgb([226, 226, 226])
            } else if (80.0..250.0).contains(&fx) && (270.0..280.0).contains(&fy) {
                Rgb([60, 60, 60])
            } else if fx < 250.0 && fy > 180.0 {
                Rgb([229, 228, 225])
            } else {
                Rgb([242, 234, 226])
            }
        });
        assert_region_outline(&image, truth);
    }

    #[test]
    fn separates_a_card_from_a_lamp_spot_beside_it() {
        // A grey table lit unevenly: a bright spot overlaps the card's right end,
        // as far off the table's colour as the card's edge at the first threshold.
        let spot =
            |x: f32, y: f32| 40.0 * (-((x - 400.0).powi(2) + (y - 150.0).powi(2)) / 8000.0).exp();
        let image = RgbImage::from_fn(480, 320, |x, y| {
            let (fx, fy) = (x as f32 + 0.5, y as f32 + 0.5);
            if (100.0..340.0).contains(&fx) && (80.0..230.0).contains(&fy) {
                Rgb([230, 220, 190])
            } else {
                let v = (150.0 + spot(fx, fy)) as u8;
                Rgb([v, v, v])
            }
        });
        let truth = [(100.0, 80.0), (340.0, 80.0), (340.0, 230.0), (100.0, 230.0)];
        assert_region_outline(&image, truth.map(|(x, y)| Point::new(x, y)));
    }

    #[test]
    fn refuses_a_textured_surface() {
        let image = RgbImage::from_fn(300, 200, |x, y| {
            let v = if (x / 3 + y / 3) % 2 == 0 { 40 } else { 220 };
            Rgb([v, v, v])
        });
        assert!(surface_region(&image, &LocateConfig::default()).is_none());
    }

    #[test]
    fn refuses_two_overlapping_cards() {
        // One region, but no quadrilateral: its hull is a hexagon.
        let image = RgbImage::from_fn(480, 300, |x, y| {
            let in_card = (40..220).contains(&x) && (60..180).contains(&y)
                || (200..440).contains(&x) && (120..240).contains(&y);
            if in_card {
                Rgb([250, 240, 200])
            } else {
                Rgb([120, 120, 120])
            }
        });
        assert!(surface_region(&image, &LocateConfig::default()).is_none());
    }
}
