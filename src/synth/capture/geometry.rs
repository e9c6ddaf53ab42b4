//! Plane projective geometry: the homography that places the card in the captured
//! image, and compositing a card through it with anti-aliased rounded corners.

use image::RgbImage;

/// A 3×3 projective transform, row-major, mapping card pixels to image pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Homography(pub [f64; 9]);

impl Homography {
    /// The transform taking each `src[i]` to `dst[i]`; `None` when degenerate.
    pub fn from_quads(src: [[f64; 2]; 4], dst: [[f64; 2]; 4]) -> Option<Homography> {
        // Solve the 8 unknowns (h33 = 1) of u = (h1 x + h2 y + h3) / (h7 x + h8 y + 1), ...
        let mut a = [[0.0f64; 9]; 8];
        for i in 0..4 {
            let [x, y] = src[i];
            let [u, v] = dst[i];
            a[2 * i] = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, u];
            a[2 * i + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, v];
        }
        for col in 0..8 {
            let pivot = (col..8).max_by(|&p, &q| a[p][col].abs().total_cmp(&a[q][col].abs()))?;
            if a[pivot][col].abs() < 1e-12 {
                return None;
            }
            a.swap(col, pivot);
            let pivot_row = a[col];
            for (r, row) in a.iter_mut().enumerate() {
                if r != col {
                    let f = row[col] / pivot_row[col];
                    for (v, p) in row.iter_mut().zip(&pivot_row).skip(col) {
                        *v -= f * p;
                    }
                }
            }
        }
        let h: Vec<f64> = (0..8).map(|i| a[i][8] / a[i][i]).collect();
        Some(Homography([
            h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], 1.0,
        ]))
    }

    /// An affine transform: rotation by `angle` (radians) and `scale` about the
    /// origin, then a translation.
    pub fn similarity(scale: f64, angle: f64, tx: f64, ty: f64) -> Homography {
        let (s, c) = angle.sin_cos();
        Homography([
            scale * c,
            -scale * s,
            tx,
            scale * s,
            scale * c,
            ty,
            0.0,
            0.0,
            1.0,
        ])
    }

    /// This transform applied after `inner`.
    pub fn after(&self, inner: &Homography) -> Homography {
        let (a, b) = (&self.0, &inner.0);
        Homography(std::array::from_fn(|i| {
            let (r, c) = (i / 3, i % 3);
            (0..3).map(|k| a[r * 3 + k] * b[k * 3 + c]).sum()
        }))
    }

    pub fn apply(&self, [x, y]: [f64; 2]) -> [f64; 2] {
        let m = &self.0;
        let w = m[6] * x + m[7] * y + m[8];
        [
            (m[0] * x + m[1] * y + m[2]) / w,
            (m[3] * x + m[4] * y + m[5]) / w,
        ]
    }

    pub fn inverse(&self) -> Option<Homography> {
        let m = &self.0;
        let cof = [
            m[4] * m[8] - m[5] * m[7],
            m[2] * m[7] - m[1] * m[8],
            m[1] * m[5] - m[2] * m[4],
            m[5] * m[6] - m[3] * m[8],
            m[0] * m[8] - m[2] * m[6],
            m[2] * m[3] - m[0] * m[5],
            m[3] * m[7] - m[4] * m[6],
            m[1] * m[6] - m[0] * m[7],
            m[0] * m[4] - m[1] * m[3],
        ];
        let det = m[0] * cof[0] + m[1] * cof[3] + m[2] * cof[6];
        if det.abs() < 1e-12 {
            return None;
        }
        Some(Homography(cof.map(|v| v / det)))
    }

    /// The four corners of a `w`×`h` card (top-left, top-right, bottom-right,
    /// bottom-left in card orientation) in image coordinates.
    pub fn card_corners(&self, w: f64, h: f64) -> [[f64; 2]; 4] {
        [[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]].map(|p| self.apply(p))
    }
}

/// A soft dark halo around the card (its shadow or the scanner's edge shading).
#[derive(Debug, Clone, Copy)]
pub struct Shadow {
    pub width: f32,
    pub strength: f32,
    pub offset: [f32; 2],
}

/// Draws `card` (with corners rounded by `radius` card pixels) onto `canvas` through
/// `to_image` (card pixels → canvas pixels), bilinear sampling, anti-aliased edges.
pub fn composite_card(
    canvas: &mut RgbImage,
    card: &RgbImage,
    radius: f32,
    to_image: &Homography,
    shadow: Option<Shadow>,
) {
    let Some(to_card) = to_image.inverse() else {
        return;
    };
    let (cw, ch) = (card.width() as f64, card.height() as f64);
    let corners = to_image.card_corners(cw, ch);
    let quad_area = polygon_area(&corners);
    let scale = (quad_area / (cw * ch)).sqrt().max(1e-6) as f32;
    let pad = shadow.map_or(2.0, |s| {
        s.width + s.offset[0].abs().max(s.offset[1].abs()) + 2.0
    }) as f64;
    let xs = corners.map(|p| p[0]);
    let ys = corners.map(|p| p[1]);
    let fold = |v: [f64; 4], f: fn(f64, f64) -> f64| v.into_iter().reduce(f).unwrap_or(0.0);
    let x0 = (fold(xs, f64::min) - pad).floor().max(0.0) as u32;
    let y0 = (fold(ys, f64::min) - pad).floor().max(0.0) as u32;
    let x1 = ((fold(xs, f64::max) + pad).ceil().max(0.0) as u32).min(canvas.width());
    let y1 = ((fold(ys, f64::max) + pad).ceil().max(0.0) as u32).min(canvas.height());
    let (cwf, chf) = (cw as f32, ch as f32);
    let distance = |u: f32, v: f32| rounded_rect_distance(u, v, cwf, chf, radius) * scale;
    for y in y0..y1 {
        for x in x0..x1 {
            let [u, v] = to_card.apply([x as f64 + 0.5, y as f64 + 0.5]);
            let (u, v) = (u as f32, v as f32);
            let d = distance(u, v);
            if let Some(s) = shadow {
                let [sx, sy] = s.offset;
                let [su, sv] =
                    to_card.apply([x as f64 + 0.5 - sx as f64, y as f64 + 0.5 - sy as f64]);
                let ds = distance(su as f32, sv as f32);
                if ds < s.width {
                    let k = 1.0 - s.strength * (1.0 - (ds.max(0.0) / s.width)).powi(2);
                    let p = canvas.get_pixel_mut(x, y);
                    p.0 = p.0.map(|c| (c as f32 * k) as u8);
                }
            }
            let coverage = (0.5 - d).clamp(0.0, 1.0);
            if coverage <= 0.0 {
                continue;
            }
            let color = sample_bilinear(card, u - 0.5, v - 0.5);
            let p = canvas.get_pixel_mut(x, y);
            for (dst, src) in p.0.iter_mut().zip(color) {
                *dst = (*dst as f32 * (1.0 - coverage) + src * coverage + 0.5) as u8;
            }
        }
    }
}

/// Signed distance (card pixels) from (u, v) to a `w`×`h` rectangle with rounded
/// corners; negative inside.
fn rounded_rect_distance(u: f32, v: f32, w: f32, h: f32, radius: f32) -> f32 {
    let (hx, hy) = (w / 2.0, h / 2.0);
    let r = radius.min(hx).min(hy).max(0.0);
    let qx = (u - hx).abs() - (hx - r);
    let qy = (v - hy).abs() - (hy - r);
    let outside = (qx.max(0.0).powi(2) + qy.max(0.0).powi(2)).sqrt();
    outside + qx.max(qy).min(0.0) - r
}

fn sample_bilinear(img: &RgbImage, x: f32, y: f32) -> [f32; 3] {
    let (w, h) = (img.width() as i32, img.height() as i32);
    let (fx, fy) = (x.floor(), y.floor());
    let (tx, ty) = (x - fx, y - fy);
    let (ix, iy) = (fx as i32, fy as i32);
    let at = |a: i32, b: i32| {
        img.get_pixel(a.clamp(0, w - 1) as u32, b.clamp(0, h - 1) as u32)
            .0
    };
    let (p00, p10, p01, p11) = (
        at(ix, iy),
        at(ix + 1, iy),
        at(ix, iy + 1),
        at(ix + 1, iy + 1),
    );
    let mut out = [0.0; 3];
    for c in 0..3 {
        let top = p00[c] as f32 * (1.0 - tx) + p10[c] as f32 * tx;
        let bottom = p01[c] as f32 * (1.0 - tx) + p11[c] as f32 * tx;
        out[c] = top * (1.0 - ty) + bottom * ty;
    }
    out
}

/// Area of a simple polygon (shoelace formula).
pub fn polygon_area(points: &[[f64; 2]]) -> f64 {
    let n = points.len();
    (0..n)
        .map(|i| {
            let [x0, y0] = points[i];
            let [x1, y1] = points[(i + 1) % n];
            x0 * y1 - x1 * y0
        })
        .sum::<f64>()
        .abs()
        / 2.0
}

/// Whether `p` lies inside the convex quadrilateral `quad` (either winding), with a
/// tolerance of `eps` pixels.
pub fn inside_convex(quad: &[[f64; 2]; 4], p: [f64; 2], eps: f64) -> bool {
    let mut sign = 0.0;
    for i in 0..4 {
        let [ax, ay] = quad[i];
        let [bx, by] = quad[(i + 1) % 4];
        let len = ((bx - ax).powi(2) + (by - ay).powi(2)).sqrt().max(1e-9);
        let cross = ((bx - ax) * (p[1] - ay) - (by - ay) * (p[0] - ax)) / len;
        if cross.abs() <= eps {
            continue;
        }
        if sign == 0.0 {
            sign = cross.signum();
        } else if cross.signum() != sign {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn homography_maps_the_control_points_and_inverts() {
        let src = [[0.0, 0.0], [100.0, 0.0], [100.0, 60.0], [0.0, 60.0]];
        let dst = [[12.0, 8.0], [118.0, 14.0], [110.0, 80.0], [5.0, 70.0]];
        let h = Homography::from_quads(src, dst).unwrap();
        let inv = h.inverse().unwrap();
        for (s, d) in src.iter().zip(&dst) {
            let p = h.apply(*s);
            assert!((p[0] - d[0]).abs() < 1e-6 && (p[1] - d[1]).abs() < 1e-6);
            let q = inv.apply(*d);
            assert!((q[0] - s[0]).abs() < 1e-6 && (q[1] - s[1]).abs() < 1e-6);
        }
        assert!(inside_convex(&dst, h.apply([50.0, 30.0]), 0.0));
        let turn = Homography::similarity(2.0, 0.5, 3.0, -4.0);
        let both = turn.after(&h);
        let p = both.apply([50.0, 30.0]);
        let q = turn.apply(h.apply([50.0, 30.0]));
        assert!((p[0] - q[0]).abs() < 1e-9 && (p[1] - q[1]).abs() < 1e-9);
        assert!(!inside_convex(&dst, [0.0, 0.0], 0.0));
    }
}
