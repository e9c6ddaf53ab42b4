//! Quadrilaterals and the perspective warp that flattens one into a rectangle.

use image::{GrayImage, RgbImage};

/// A point in image pixel coordinates (x right, y down).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Point {
    pub x: f32,
    pub y: f32,
}

impl Point {
    pub fn new(x: f32, y: f32) -> Point {
        Point { x, y }
    }

    pub fn distance(self, other: Point) -> f32 {
        (self.x - other.x).hypot(self.y - other.y)
    }

    /// How far `self` lies from the line through `through` along `direction` (of
    /// any length but zero).
    pub fn distance_to_line(self, through: Point, (dx, dy): (f32, f32)) -> f32 {
        ((self.x - through.x) * dy - (self.y - through.y) * dx).abs() / dx.hypot(dy)
    }

    /// Halfway between `self` and `other`.
    pub fn midpoint(self, other: Point) -> Point {
        Point::new((self.x + other.x) / 2.0, (self.y + other.y) / 2.0)
    }
}

/// A document outline: corners in the document's own reading order, top-left,
/// top-right, bottom-right, bottom-left, in source image pixels.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Quad {
    pub corners: [Point; 4],
}

impl Quad {
    /// The whole `width`×`height` image.
    pub fn full(width: u32, height: u32) -> Quad {
        let (w, h) = (width as f32, height as f32);
        Quad {
            corners: [
                Point::new(0.0, 0.0),
                Point::new(w, 0.0),
                Point::new(w, h),
                Point::new(0.0, h),
            ],
        }
    }

    /// The outline with `corners` given as `[x, y]` pairs, in reading order.
    pub fn from_xy(corners: [[f32; 2]; 4]) -> Quad {
        Quad {
            corners: corners.map(|[x, y]| Point::new(x, y)),
        }
    }

    /// The largest distance between a corner and the same corner of `other`.
    pub fn corner_error(&self, other: &Quad) -> f32 {
        self.corners
            .iter()
            .zip(&other.corners)
            .map(|(p, q)| p.distance(*q))
            .fold(0.0, f32::max)
    }

    /// The same outline read after turning the document by `quarter_turns` × 90°
    /// clockwise: the corner that becomes top-left moves to the front.
    pub fn turned(self, quarter_turns: u8) -> Quad {
        let mut corners = self.corners;
        corners.rotate_left(usize::from(quarter_turns % 4) * 3 % 4);
        Quad { corners }
    }

    pub fn scaled(self, factor: f32) -> Quad {
        Quad {
            corners: self.corners.map(|p| Point::new(p.x * factor, p.y * factor)),
        }
    }

    /// Mean length of the top and bottom sides over the mean of the left and right.
    pub fn aspect(&self) -> f32 {
        let [a, b, c, d] = self.corners;
        let vertical = (a.distance(d) + b.distance(c)) / 2.0;
        self.width() / vertical.max(1e-6)
    }

    /// The aspect either way round: the long sides over the short, at least 1.
    pub fn elongation(&self) -> f32 {
        elongation(self.aspect())
    }

    /// Whether the two outlines' long sides run more than 45° apart: one lies
    /// across the other.
    pub fn crosswise(&self, other: &Quad) -> bool {
        let (a, b) = (self.long_side(), other.long_side());
        let cos = (a.0 * b.0 + a.1 * b.1) / (a.0.hypot(a.1) * b.0.hypot(b.1)).max(1e-6);
        cos.abs() < std::f32::consts::FRAC_1_SQRT_2
    }

    /// The direction of the long sides: the first side's when it is one of them,
    /// else the fourth's, reversed.
    fn long_side(&self) -> (f32, f32) {
        let [a, b, _, d] = self.corners;
        if self.aspect() >= 1.0 {
            (b.x - a.x, b.y - a.y)
        } else {
            (d.x - a.x, d.y - a.y)
        }
    }

    /// How far apart two outlines' shapes are: their elongations' ratio, less one,
    /// either way.
    pub fn shape_difference(&self, other: &Quad) -> f32 {
        (self.elongation() / other.elongation() - 1.0).abs()
    }

    /// Mean length of the top and bottom sides (the first side is the top).
    pub fn width(&self) -> f32 {
        let [a, b, c, d] = self.corners;
        (a.distance(b) + d.distance(c)) / 2.0
    }

    /// Mean of the corners.
    pub fn centroid(&self) -> Point {
        let c = &self.corners;
        Point::new(
            c.iter().map(|p| p.x).sum::<f32>() / 4.0,
            c.iter().map(|p| p.y).sum::<f32>() / 4.0,
        )
    }

    /// The axis-aligned bounding box, `[x0, y0, x1, y1]`.
    pub fn bounds(&self) -> [f32; 4] {
        self.corners.iter().fold(
            [f32::MAX, f32::MAX, f32::MIN, f32::MIN],
            |[x0, y0, x1, y1], p| [x0.min(p.x), y0.min(p.y), x1.max(p.x), y1.max(p.y)],
        )
    }

    /// The parallelogram on three of the corners: corner `k` moved to where the
    /// sides from its neighbours, parallel to the sides opposite, meet.
    pub fn with_corner_completed(&self, k: usize) -> Quad {
        let c = self.corners;
        let (before, opposite, after) = (c[(k + 3) % 4], c[(k + 2) % 4], c[(k + 1) % 4]);
        let mut corners = c;
        corners[k] = Point::new(
            before.x + after.x - opposite.x,
            before.y + after.y - opposite.y,
        );
        Quad { corners }
    }

    /// Absolute area (shoelace formula).
    pub fn area(&self) -> f32 {
        signed_area(&self.corners).abs()
    }

    /// The area this convex outline shares with another convex one: `other`
    /// clipped by each of this outline's sides in turn (Sutherland-Hodgman).
    pub fn overlap(&self, other: &Quad) -> f32 {
        let c = self.corners;
        // Which side of a side is inside, whichever way round the corners run.
        let turn = signed_area(&c).signum();
        let cross = |u: (f32, f32), v: (f32, f32)| u.0 * v.1 - u.1 * v.0;
        let mut clipped: Vec<Point> = other.corners.to_vec();
        for i in 0..4 {
            let (a, b) = (c[i], c[(i + 1) % 4]);
            let side = (b.x - a.x, b.y - a.y);
            let inside = |p: Point| turn * cross(side, (p.x - a.x, p.y - a.y)) >= 0.0;
            let crossing = |p: Point, q: Point| {
                let d = (q.x - p.x, q.y - p.y);
                let t = cross(side, (a.x - p.x, a.y - p.y)) / cross(side, d);
                Point::new(p.x + t * d.0, p.y + t * d.1)
            };
            let mut next = Vec::with_capacity(clipped.len() + 1);
            for (j, &p) in clipped.iter().enumerate() {
                let q = clipped[(j + 1) % clipped.len()];
                match (inside(p), inside(q)) {
                    (true, true) => next.push(q),
                    (true, false) => next.push(crossing(p, q)),
                    (false, true) => next.extend([crossing(p, q), q]),
                    (false, false) => {}
                }
            }
            clipped = next;
            if clipped.is_empty() {
                return 0.0;
            }
        }
        signed_area(&clipped).abs()
    }

    /// Whether every corner of `inner` lies inside this convex outline, or at most
    /// `slack` pixels outside it (the two may share a side).
    pub fn encloses(&self, inner: &Quad, slack: f32) -> bool {
        let within = self.within(slack);
        inner.corners.iter().all(|&p| within(p))
    }

    /// A test of whether a point lies inside this convex outline or at most
    /// `slack` pixels outside it, its sides prepared once for many points.
    pub fn within(&self, slack: f32) -> impl Fn(Point) -> bool {
        let c = self.corners;
        let centre = self.centroid();
        let cross =
            |a: Point, b: Point, p: Point| (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
        // Per side: its ends, and the factor that makes `cross` the signed
        // distance from it, positive on the centre's side.
        let sides: [(Point, Point, f32); 4] = std::array::from_fn(|i| {
            let (a, b) = (c[i], c[(i + 1) % 4]);
            (a, b, cross(a, b, centre).signum() / a.distance(b).max(1e-3))
        });
        move |p| {
            sides
                .iter()
                .all(|&(a, b, scale)| cross(a, b, p) * scale >= -slack)
        }
    }
}

/// Area enclosed by a polygon's corners (shoelace formula), positive when they run
/// clockwise on screen (y down).
fn signed_area(corners: &[Point]) -> f32 {
    let n = corners.len();
    let twice: f32 = (0..n)
        .map(|i| corners[i].x * corners[(i + 1) % n].y - corners[(i + 1) % n].x * corners[i].y)
        .sum();
    twice / 2.0
}

/// An `aspect` (width over height) either way round: at least 1.
pub fn elongation(aspect: f32) -> f32 {
    aspect.max(1.0 / aspect.max(1e-3))
}

/// A 3×3 projective transform, row-major, `h[8] == 1`.
#[derive(Debug, Clone, Copy)]
pub struct Homography([f64; 9]);

impl Homography {
    /// The transform taking each `from[i]` to `to[i]`; `None` when three of the
    /// points are collinear.
    pub fn from_points(from: [Point; 4], to: [Point; 4]) -> Option<Homography> {
        // Eight equations in the eight unknowns h0..h7 (h8 = 1).
        let mut a = [[0f64; 9]; 8];
        for i in 0..4 {
            let (x, y) = (f64::from(from[i].x), f64::from(from[i].y));
            let (u, v) = (f64::from(to[i].x), f64::from(to[i].y));
            a[2 * i] = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, u];
            a[2 * i + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, v];
        }
        // Gaussian elimination with partial pivoting.
        for col in 0..8 {
            let pivot = (col..8).max_by(|&r, &s| a[r][col].abs().total_cmp(&a[s][col].abs()))?;
            if a[pivot][col].abs() < 1e-10 {
                return None;
            }
            a.swap(col, pivot);
            for row in 0..8 {
                if row != col {
                    let factor = a[row][col] / a[col][col];
                    let pivot_row = a[col];
                    for (value, p) in a[row].iter_mut().zip(pivot_row).skip(col) {
                        *value -= factor * p;
                    }
                }
            }
        }
        let mut h = [0f64; 9];
        for i in 0..8 {
            h[i] = a[i][8] / a[i][i];
        }
        h[8] = 1.0;
        Some(Homography(h))
    }

    pub fn apply(&self, p: Point) -> Point {
        let h = &self.0;
        let (x, y) = (f64::from(p.x), f64::from(p.y));
        let w = h[6] * x + h[7] * y + h[8];
        Point::new(
            ((h[0] * x + h[1] * y + h[2]) / w) as f32,
            ((h[3] * x + h[4] * y + h[5]) / w) as f32,
        )
    }
}

fn target_corners(width: u32, height: u32) -> [Point; 4] {
    // Pixel centres: output pixel (0,0) samples the quad's corner region.
    let (w, h) = (width as f32, height as f32);
    [
        Point::new(0.0, 0.0),
        Point::new(w, 0.0),
        Point::new(w, h),
        Point::new(0.0, h),
    ]
}

/// Flattens `quad` of `image` into a `width`×`height` image (bilinear; points
/// outside the source repeat its edge).
pub fn warp_rgb(image: &RgbImage, quad: &Quad, width: u32, height: u32) -> RgbImage {
    let pixels = warp_channels::<3>(
        image.as_raw(),
        image.dimensions(),
        (0, 0),
        quad,
        width,
        height,
    );
    RgbImage::from_raw(width, height, pixels).expect("buffer sized for width x height")
}

/// As [`warp_rgb`] for a grey image.
pub fn warp_gray(image: &GrayImage, quad: &Quad, width: u32, height: u32) -> GrayImage {
    warp_gray_region(image, (0, 0), quad, width, height)
}

/// As [`warp_gray`], where `region` is the part of a larger image whose top left
/// corner lies at `origin` in it, and `quad` is in the larger image's pixels. When
/// the region holds every pixel the warp reads (the quad and one pixel around it,
/// or up to the larger image's border), the result is the same, bit for bit, as
/// warping the larger image.
pub fn warp_gray_region(
    region: &GrayImage,
    origin: (u32, u32),
    quad: &Quad,
    width: u32,
    height: u32,
) -> GrayImage {
    let pixels = warp_channels::<1>(
        region.as_raw(),
        region.dimensions(),
        origin,
        quad,
        width,
        height,
    );
    GrayImage::from_raw(width, height, pixels).expect("buffer sized for width x height")
}

/// The bilinear warp over interleaved 8-bit pixels of `C` channels; an all-zero image
/// when the quad is degenerate. `src` holds the source's pixels from `origin` on
/// (see [`warp_gray_region`]).
fn warp_channels<const C: usize>(
    src: &[u8],
    (source_width, source_height): (u32, u32),
    origin: (u32, u32),
    quad: &Quad,
    width: u32,
    height: u32,
) -> Vec<u8> {
    let mut out = vec![0u8; width as usize * height as usize * C];
    let Some(map) = Homography::from_points(target_corners(width, height), quad.corners) else {
        return out;
    };
    let (sw, sh) = (source_width as usize, source_height as usize);
    // Whole numbers under 2^24 taken from positions of the same range: exact, so
    // the samples' cells and fractions are those of the whole image.
    let (ox, oy) = (origin.0 as f32, origin.1 as f32);
    for_each_source_point(&map, width, height, |x, y, sx, sy| {
        let (x0, y0, fx, fy) = split(sx - ox, sy - oy, sw, sh);
        let at = |xx: usize, yy: usize, c: usize| f32::from(src[(yy * sw + xx) * C + c]);
        let (x1, y1) = ((x0 + 1).min(sw - 1), (y0 + 1).min(sh - 1));
        let pixel = (y as usize * width as usize + x as usize) * C;
        for (c, value) in out[pixel..pixel + C].iter_mut().enumerate() {
            let top = at(x0, y0, c) * (1.0 - fx) + at(x1, y0, c) * fx;
            let bottom = at(x0, y1, c) * (1.0 - fx) + at(x1, y1, c) * fx;
            *value = (top * (1.0 - fy) + bottom * fy + 0.5) as u8;
        }
    });
    out
}

/// Clamped integer cell and fractions of a source position.
#[inline]
fn split(sx: f32, sy: f32, sw: usize, sh: usize) -> (usize, usize, f32, f32) {
    let sx = sx.clamp(0.0, (sw - 1) as f32);
    let sy = sy.clamp(0.0, (sh - 1) as f32);
    // Truncation is the floor of these non-negative values, without libm's floorf
    // call in the warp's per-pixel loop.
    let (x0, y0) = (sx as usize, sy as usize);
    (x0, y0, sx - x0 as f32, sy - y0 as f32)
}

/// Calls `f(x, y, source_x, source_y)` for every output pixel centre. The
/// projective numerators and denominator are linear along a row, so they are
/// stepped rather than recomputed.
fn for_each_source_point(
    map: &Homography,
    width: u32,
    height: u32,
    mut f: impl FnMut(u32, u32, f32, f32),
) {
    let h = map.0;
    for y in 0..height {
        let v = f64::from(y) + 0.5;
        let u0 = 0.5;
        let mut nx = h[0] * u0 + h[1] * v + h[2];
        let mut ny = h[3] * u0 + h[4] * v + h[5];
        let mut d = h[6] * u0 + h[7] * v + h[8];
        for x in 0..width {
            // Source pixel centres sit at integer + 0.5.
            let inv = 1.0 / d;
            f(x, y, (nx * inv - 0.5) as f32, (ny * inv - 0.5) as f32);
            nx += h[0];
            ny += h[3];
            d += h[6];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{Luma, Rgb};

    #[test]
    fn a_points_distance_to_a_line_is_measured_square_to_it_on_either_side() {
        let (origin, direction) = (Point::new(0.0, 0.0), (4.0, 3.0));
        let distance = |x, y| Point::new(x, y).distance_to_line(origin, direction);
        assert!((distance(3.0, -4.0) - 5.0).abs() < 1e-5);
        assert!((distance(-3.0, 4.0) - 5.0).abs() < 1e-5);
        assert!(distance(8.0, 6.0) < 1e-5);
        // The direction's length does not matter.
        let unit = Point::new(3.0, -4.0).distance_to_line(origin, (0.8, 0.6));
        assert!((unit - 5.0).abs() < 1e-5);
    }

    #[test]
    fn a_corner_cut_off_a_tilted_rectangle_is_put_back_by_the_other_three() {
        let card = Quad::from_xy([[10.0, 20.0], [210.0, 40.0], [198.0, 166.0], [-2.0, 146.0]]);
        let mut cut = card;
        cut.corners[3] = Point::new(30.0, 120.0);
        let completed = cut.with_corner_completed(3);
        assert!(completed.corner_error(&card) < 1e-3, "{completed:?}");
        // The other corners stay where they were.
        assert_eq!(completed.corners[..3], cut.corners[..3]);
    }

    #[test]
    fn two_outlines_share_the_area_they_both_cover_whichever_way_they_wind() {
        let square = |x: f32, y: f32, side: f32| {
            Quad::from_xy([[x, y], [x + side, y], [x + side, y + side], [x, y + side]])
        };
        let a = square(0.0, 0.0, 10.0);
        let overlaps = |p: &Quad, q: &Quad, area: f32| {
            for (p, q) in [(*p, *q), (*q, *p), (reversed(p), *q), (*p, reversed(q))] {
                let got = p.overlap(&q);
                assert!((got - area).abs() < 1e-3, "{got} for {area}: {p:?}, {q:?}");
            }
        };
        overlaps(&a, &square(5.0, 0.0, 10.0), 50.0);
        overlaps(&a, &square(5.0, 5.0, 10.0), 25.0);
        overlaps(&a, &square(2.0, 2.0, 4.0), 16.0);
        overlaps(&a, &a, 100.0);
        overlaps(&a, &square(20.0, 0.0, 10.0), 0.0);
        // A diamond on the square's corner: a quarter of it inside.
        let diamond = Quad::from_xy([[10.0, 6.0], [14.0, 10.0], [10.0, 14.0], [6.0, 10.0]]);
        overlaps(&a, &diamond, 8.0);
    }

    fn reversed(quad: &Quad) -> Quad {
        let [a, b, c, d] = quad.corners;
        Quad {
            corners: [d, c, b, a],
        }
    }

    #[test]
    fn an_outline_encloses_what_lies_inside_it_whichever_way_it_winds() {
        let card = Quad {
            corners: [
                Point::new(10.0, 10.0),
                Point::new(110.0, 20.0),
                Point::new(105.0, 80.0),
                Point::new(5.0, 70.0),
            ],
        };
        let counter_clockwise = Quad {
            corners: [
                card.corners[3],
                card.corners[2],
                card.corners[1],
                card.corners[0],
            ],
        };
        let block = |x0: f32, y0: f32, x1: f32, y1: f32| Quad {
            corners: [
                Point::new(x0, y0),
                Point::new(x1, y0),
                Point::new(x1, y1),
                Point::new(x0, y1),
            ],
        };
        for outline in [card, counter_clockwise] {
            assert!(outline.encloses(&block(20.0, 30.0, 60.0, 60.0), 0.0));
            // Pokes out past the right side.
            assert!(!outline.encloses(&block(20.0, 30.0, 120.0, 60.0), 1.0));
            // On the left side, within the slack only.
            let on_side = block(7.0, 40.0, 50.0, 60.0);
            assert!(!outline.encloses(&on_side, 0.0));
            assert!(outline.encloses(&on_side, 1.0));
        }
    }

    #[test]
    fn homography_maps_its_control_points() {
        let from = [
            Point::new(0.0, 0.0),
            Point::new(100.0, 0.0),
            Point::new(100.0, 60.0),
            Point::new(0.0, 60.0),
        ];
        let to = [
            Point::new(10.0, 20.0),
            Point::new(300.0, 5.0),
            Point::new(320.0, 210.0),
            Point::new(-4.0, 190.0),
        ];
        let map = Homography::from_points(from, to).unwrap();
        for (f, t) in from.iter().zip(&to) {
            let p = map.apply(*f);
            assert!(p.distance(*t) < 1e-3, "{p:?} vs {t:?}");
        }
        let collinear = [
            Point::new(0.0, 0.0),
            Point::new(1.0, 1.0),
            Point::new(2.0, 2.0),
            Point::new(0.0, 5.0),
        ];
        assert!(Homography::from_points(collinear, to).is_none());
    }

    #[test]
    fn warping_a_region_that_holds_the_quad_is_warping_the_whole_image() {
        let image = GrayImage::from_fn(300, 200, |x, y| Luma([((x * 7 + y * 13) % 251) as u8]));
        let quad = Quad {
            corners: [
                Point::new(61.3, 40.7),
                Point::new(230.2, 52.9),
                Point::new(221.6, 161.4),
                Point::new(70.05, 150.5),
            ],
        };
        let whole = warp_gray(&image, &quad, 120, 76);
        let (left, top) = (58, 38);
        let region = image::imageops::crop_imm(&image, left, top, 176, 127).to_image();
        assert_eq!(
            warp_gray_region(&region, (left, top), &quad, 120, 76),
            whole
        );
    }

    #[test]
    fn warping_the_full_quad_is_identity() {
        let image = RgbImage::from_fn(64, 40, |x, y| Rgb([(x * 4) as u8, (y * 6) as u8, 7]));
        let out = warp_rgb(&image, &Quad::full(64, 40), 64, 40);
        assert_eq!(out, image);
    }

    #[test]
    fn turning_a_quad_rotates_the_warped_content() {
        // Marker in the top-left corner; after a half turn it is read bottom-right.
        let image = GrayImage::from_fn(80, 50, |x, y| {
            Luma([if x < 10 && y < 10 { 0 } else { 255 }])
        });
        let quad = Quad::full(80, 50);
        let out = warp_gray(&image, &quad.turned(2), 80, 50);
        assert!(out.get_pixel(75, 45).0[0] < 50);
        assert!(out.get_pixel(5, 5).0[0] > 200);
        // A quarter turn clockwise: the top-left marker goes to the top right.
        let out = warp_gray(&image, &quad.turned(1), 50, 80);
        assert!(out.get_pixel(45, 5).0[0] < 50, "{:?}", out.get_pixel(45, 5));
        assert_eq!(quad.turned(4), quad);
        assert_eq!(quad.turned(1).turned(3), quad);
    }

    #[test]
    fn measures_quads() {
        let quad = Quad::full(200, 100);
        assert!((quad.aspect() - 2.0).abs() < 1e-6);
        assert!((quad.area() - 20_000.0).abs() < 1e-3);
        assert!((quad.scaled(0.5).area() - 5_000.0).abs() < 1e-3);
    }
}
