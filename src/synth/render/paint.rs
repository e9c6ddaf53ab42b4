//! Small raster helpers shared by the renderer and the captures: alpha blending,
//! anti-aliased shapes, and compositing text masks.

use image::{GrayImage, Rgb, RgbImage};

use super::text::TextMask;

/// Blends `color` over the pixel at (x, y) with opacity `alpha` (0..1); out-of-range
/// coordinates are ignored.
#[inline]
pub fn blend(img: &mut RgbImage, x: i32, y: i32, color: [u8; 3], alpha: f32) {
    if x < 0 || y < 0 || x >= img.width() as i32 || y >= img.height() as i32 || alpha <= 0.0 {
        return;
    }
    let a = alpha.min(1.0);
    let p = img.get_pixel_mut(x as u32, y as u32);
    for (v, &c) in p.0.iter_mut().zip(&color) {
        *v = (*v as f32 * (1.0 - a) + c as f32 * a + 0.5) as u8;
    }
}

/// Multiplies the pixel by `color` (ink printed on paper darkens, never lightens).
#[inline]
pub fn multiply(img: &mut RgbImage, x: i32, y: i32, color: [u8; 3], alpha: f32) {
    if x < 0 || y < 0 || x >= img.width() as i32 || y >= img.height() as i32 || alpha <= 0.0 {
        return;
    }
    let a = alpha.min(1.0);
    let p = img.get_pixel_mut(x as u32, y as u32);
    for (v, &c) in p.0.iter_mut().zip(&color) {
        let m = *v as f32 * c as f32 / 255.0;
        *v = (*v as f32 * (1.0 - a) + m * a + 0.5) as u8;
    }
}

/// Draws a text mask with its line origin at (x, baseline) in `color`.
pub fn draw_text(
    img: &mut RgbImage,
    mask: &TextMask,
    x: i32,
    baseline: i32,
    color: [u8; 3],
    opacity: f32,
) {
    let left = x - mask.origin_x;
    let top = baseline - mask.baseline;
    for (mx, my, a) in mask.alpha.enumerate_pixels() {
        let a = a.0[0];
        if a != 0 {
            blend(
                img,
                left + mx as i32,
                top + my as i32,
                color,
                a as f32 / 255.0 * opacity,
            );
        }
    }
}

/// Draws a text mask into a grey image (ink level `ink`, 0 = black).
pub fn draw_text_gray(
    img: &mut GrayImage,
    mask: &TextMask,
    left: i32,
    top: i32,
    ink: u8,
    opacity: f32,
) {
    let (w, h) = (img.width() as i32, img.height() as i32);
    let mw = mask.alpha.width() as i32;
    let src: &[u8] = &mask.alpha;
    let dst_stride = w as usize;
    let dst: &mut [u8] = img;
    let ink = ink as f32;
    for my in 0..mask.alpha.height() as i32 {
        let y = top + my;
        if y < 0 || y >= h {
            continue;
        }
        for mx in 0..mw {
            let a = src[(my * mw + mx) as usize];
            let x = left + mx;
            if a == 0 || x < 0 || x >= w {
                continue;
            }
            let a = a as f32 / 255.0 * opacity;
            let d = &mut dst[y as usize * dst_stride + x as usize];
            *d = (*d as f32 * (1.0 - a) + ink * a + 0.5) as u8;
        }
    }
}

/// Coverage (0..1) of a pixel by a soft-edged disc or ring, from a signed distance.
#[inline]
pub fn coverage(distance: f32) -> f32 {
    (0.5 - distance).clamp(0.0, 1.0)
}

/// Fills an axis-aligned rectangle with rounded corners (radius in pixels).
pub fn fill_rounded_rect(
    img: &mut RgbImage,
    rect: [f32; 4],
    radius: f32,
    color: [u8; 3],
    alpha: f32,
) {
    let [x0, y0, x1, y1] = rect;
    for y in y0.floor() as i32..y1.ceil() as i32 {
        for x in x0.floor() as i32..x1.ceil() as i32 {
            let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
            let dx = (x0 + radius - px).max(px - (x1 - radius)).max(0.0);
            let dy = (y0 + radius - py).max(py - (y1 - radius)).max(0.0);
            let outside = (dx * dx + dy * dy).sqrt() - radius;
            let edge = (x0 - px).max(px - x1).max(y0 - py).max(py - y1);
            let d = if dx > 0.0 && dy > 0.0 { outside } else { edge };
            blend(img, x, y, color, coverage(d) * alpha);
        }
    }
}

/// Strokes a polyline of width `width`.
pub fn stroke(img: &mut RgbImage, points: &[(f32, f32)], width: f32, color: [u8; 3], alpha: f32) {
    for seg in points.windows(2) {
        let ((ax, ay), (bx, by)) = (seg[0], seg[1]);
        let r = width / 2.0 + 1.0;
        let (minx, maxx) = (ax.min(bx) - r, ax.max(bx) + r);
        let (miny, maxy) = (ay.min(by) - r, ay.max(by) + r);
        let (dx, dy) = (bx - ax, by - ay);
        let len2 = (dx * dx + dy * dy).max(1e-6);
        for y in miny.floor() as i32..maxy.ceil() as i32 {
            for x in minx.floor() as i32..maxx.ceil() as i32 {
                let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
                let t = (((px - ax) * dx + (py - ay) * dy) / len2).clamp(0.0, 1.0);
                let (cx, cy) = (ax + t * dx, ay + t * dy);
                let d = ((px - cx).powi(2) + (py - cy).powi(2)).sqrt() - width / 2.0;
                // Overlapping segments would double the alpha at joints; keep the max
                // by blending only the missing part.
                blend(img, x, y, color, coverage(d) * alpha);
            }
        }
    }
}

/// Fills a polygon (non-zero winding irrelevant: even-odd) with anti-aliased edges:
/// four sub-rows per pixel row and exact horizontal span coverage.
pub fn fill_polygon(img: &mut RgbImage, points: &[(f32, f32)], color: [u8; 3], alpha: f32) {
    if points.len() < 3 {
        return;
    }
    const SUB: usize = 4;
    let min_y = points
        .iter()
        .map(|p| p.1)
        .fold(f32::MAX, f32::min)
        .floor()
        .max(0.0) as i32;
    let max_y = (points.iter().map(|p| p.1).fold(f32::MIN, f32::max).ceil() as i32)
        .min(img.height() as i32);
    let min_x = points
        .iter()
        .map(|p| p.0)
        .fold(f32::MAX, f32::min)
        .floor()
        .max(0.0) as i32;
    let max_x =
        (points.iter().map(|p| p.0).fold(f32::MIN, f32::max).ceil() as i32).min(img.width() as i32);
    if min_x >= max_x || min_y >= max_y {
        return;
    }
    let width = (max_x - min_x) as usize;
    let mut row = vec![0.0f32; width + 1];
    let mut crossings = Vec::new();
    for y in min_y..max_y {
        row.iter_mut().for_each(|v| *v = 0.0);
        for sub in 0..SUB {
            let sy = y as f32 + (sub as f32 + 0.5) / SUB as f32;
            crossings.clear();
            for i in 0..points.len() {
                let (ax, ay) = points[i];
                let (bx, by) = points[(i + 1) % points.len()];
                if (ay <= sy) != (by <= sy) {
                    crossings.push(ax + (sy - ay) / (by - ay) * (bx - ax));
                }
            }
            crossings.sort_by(f32::total_cmp);
            for span in crossings.chunks_exact(2) {
                let (a, b) = (
                    (span[0] - min_x as f32).max(0.0),
                    (span[1] - min_x as f32).min(width as f32),
                );
                if a >= b {
                    continue;
                }
                let (ia, ib) = (a.floor() as usize, b.floor() as usize);
                if ia == ib {
                    row[ia] += (b - a) / SUB as f32;
                } else {
                    row[ia] += (ia as f32 + 1.0 - a) / SUB as f32;
                    for v in &mut row[ia + 1..ib] {
                        *v += 1.0 / SUB as f32;
                    }
                    row[ib] += (b - ib as f32) / SUB as f32;
                }
            }
        }
        for (i, &cov) in row.iter().enumerate().take(width) {
            if cov > 0.0 {
                blend(img, min_x + i as i32, y, color, cov.min(1.0) * alpha);
            }
        }
    }
}

/// Converts to grey with the usual luma weights.
pub fn to_gray(img: &RgbImage) -> GrayImage {
    let mut out = GrayImage::new(img.width(), img.height());
    for (o, p) in out.pixels_mut().zip(img.pixels()) {
        let Rgb([r, g, b]) = *p;
        o.0[0] = ((r as u32 * 77 + g as u32 * 150 + b as u32 * 29) >> 8) as u8;
    }
    out
}
