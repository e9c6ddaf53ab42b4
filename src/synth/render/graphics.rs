//! Procedural graphic elements of a card: emblem, watermark, portrait placeholder,
//! barcode, bands, chip, hologram, plate frame and signature. None of them copies a
//! real document's artwork; they only need to look like one at a glance.

use std::f32::consts::{PI, TAU};

use image::RgbImage;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::paint::{blend, coverage, fill_polygon, fill_rounded_rect, stroke};

/// A box in card pixels: `[x0, y0, x1, y1]`.
pub type PxRect = [f32; 4];

#[allow(clippy::too_many_arguments)]
fn ellipse_distance(px: f32, py: f32, cx: f32, cy: f32, rx: f32, ry: f32, angle: f32) -> f32 {
    let (s, c) = angle.sin_cos();
    let (dx, dy) = (px - cx, py - cy);
    let (u, v) = (dx * c + dy * s, -dx * s + dy * c);
    let k = ((u / rx).powi(2) + (v / ry).powi(2)).sqrt();
    (k - 1.0) * rx.min(ry)
}

/// Right half of a stylised eagle with raised wings (unit box, y down, centre at
/// the origin), top of the head to the tail; the left half mirrors it.
const EAGLE_RIGHT: [(f32, f32); 31] = [
    (0.00, -0.64),
    (0.07, -0.62),
    (0.11, -0.55),
    (0.17, -0.52),
    (0.11, -0.48),
    (0.08, -0.40),
    (0.16, -0.37),
    (0.30, -0.52),
    (0.45, -0.66),
    (0.62, -0.78),
    (0.82, -0.88),
    (0.76, -0.72),
    (0.90, -0.67),
    (0.79, -0.54),
    (0.91, -0.47),
    (0.77, -0.36),
    (0.87, -0.27),
    (0.69, -0.17),
    (0.75, -0.07),
    (0.50, -0.05),
    (0.30, -0.02),
    (0.22, 0.05),
    (0.22, 0.30),
    (0.16, 0.42),
    (0.30, 0.62),
    (0.19, 0.65),
    (0.12, 0.57),
    (0.07, 0.71),
    (0.03, 0.60),
    (0.01, 0.70),
    (0.00, 0.66),
];

/// The chest shield of the eagle (full outline).
const SHIELD: [(f32, f32); 5] = [
    (-0.13, -0.28),
    (0.13, -0.28),
    (0.13, 0.08),
    (0.0, 0.20),
    (-0.13, 0.08),
];

/// An eagle seal: two rings around a stylised eagle with a chest shield.
pub fn emblem(img: &mut RgbImage, rect: PxRect, color: [u8; 3], alpha: f32) {
    let [x0, y0, x1, y1] = rect;
    let size = (x1 - x0).min(y1 - y0);
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    let r = size / 2.0;
    for y in y0 as i32..y1.ceil() as i32 {
        for x in x0 as i32..x1.ceil() as i32 {
            let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
            let d = ((px - cx).powi(2) + (py - cy).powi(2)).sqrt();
            let ring = coverage((d - r * 0.94).abs() - r * 0.03)
                .max(coverage((d - r * 0.84).abs() - r * 0.012));
            if ring > 0.0 {
                blend(img, x, y, color, ring * alpha);
            }
        }
    }
    let scale = r * 0.78;
    let at = |(u, v): (f32, f32)| (cx + u * scale, cy + v * scale);
    let mut outline: Vec<(f32, f32)> = EAGLE_RIGHT.iter().map(|&p| at(p)).collect();
    outline.extend(EAGLE_RIGHT.iter().rev().map(|&(u, v)| at((-u, v))));
    fill_polygon(img, &outline, color, alpha);
    let shield: Vec<(f32, f32)> = SHIELD.iter().map(|&p| at(p)).collect();
    fill_polygon(img, &shield, [250, 250, 245], alpha * 0.55);
    let stripe: Vec<(f32, f32)> = [(-0.04, -0.24), (0.04, -0.24), (0.04, 0.1), (-0.04, 0.1)]
        .iter()
        .map(|&p| at(p))
        .collect();
    fill_polygon(img, &stripe, color, alpha * 0.6);
}

/// Three pyramids on a faint horizon line, as on the National ID front.
pub fn pyramids(img: &mut RgbImage, rect: PxRect, color: [u8; 3], rng: &mut ChaCha8Rng) {
    let [x0, y0, x1, y1] = rect;
    let (w, h) = (x1 - x0, y1 - y0);
    let alpha = rng.random_range(0.05..0.09);
    let base = y1 - h * 0.05;
    for (centre, height, half) in [(0.30, 0.85, 0.30), (0.62, 0.65, 0.22), (0.85, 0.40, 0.14)] {
        let apex = (x0 + w * centre, base - h * height);
        let tri = [(apex.0 - w * half, base), apex, (apex.0 + w * half, base)];
        fill_polygon(img, &tri, color, alpha);
        // The lit face.
        let face = [(apex.0, base), apex, (apex.0 + w * half, base)];
        fill_polygon(img, &face, color, alpha * 0.8);
    }
    stroke(img, &[(x0, base), (x1, base)], 1.5, color, alpha * 1.5);
}

/// A large faint emblem (the eagle, or the seal when `seal`) with concentric
/// guilloche rings behind it.
pub fn watermark(
    img: &mut RgbImage,
    rect: PxRect,
    color: [u8; 3],
    seal: bool,
    rng: &mut ChaCha8Rng,
) {
    let [x0, y0, x1, y1] = rect;
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    let r = (x1 - x0).min(y1 - y0) / 2.0;
    let petals = rng.random_range(12..30) as f32;
    let alpha = rng.random_range(0.06..0.12);
    for y in y0 as i32..y1.ceil() as i32 {
        for x in x0 as i32..x1.ceil() as i32 {
            let (dx, dy) = (x as f32 + 0.5 - cx, y as f32 + 0.5 - cy);
            let d = (dx * dx + dy * dy).sqrt();
            if d > r {
                continue;
            }
            let t = (d + r * 0.03 * (petals * dy.atan2(dx)).sin()) / (r * 0.06);
            let line = coverage(((t - t.round()).abs() * r * 0.06) - 0.6);
            blend(img, x, y, color, line * alpha);
        }
    }
    let inner = r * 0.6;
    let inner = [cx - inner, cy - inner, cx + inner, cy + inner];
    if seal {
        self::seal(img, inner, color, alpha * 1.3);
    } else {
        emblem(img, inner, color, alpha * 1.3);
    }
}

/// A head-and-shoulders silhouette on a plain backdrop: clearly a placeholder, never a
/// face, but with the tones and layout of an ID portrait.
pub fn portrait(img: &mut RgbImage, rect: PxRect, rng: &mut ChaCha8Rng, opacity: f32) {
    let [x0, y0, x1, y1] = rect;
    let (w, h) = (x1 - x0, y1 - y0);
    let backdrop = [
        rng.random_range(200..235),
        rng.random_range(205..235),
        rng.random_range(210..240),
    ];
    let skin_v: f32 = rng.random_range(95.0..190.0);
    let skin = [skin_v as u8, (skin_v * 0.82) as u8, (skin_v * 0.68) as u8];
    let hair_v: u8 = rng.random_range(15..70);
    let hair = [hair_v, hair_v.saturating_sub(5), hair_v.saturating_sub(8)];
    let cloth_v: u8 = rng.random_range(20..120);
    let cloth = [
        cloth_v,
        cloth_v,
        cloth_v.saturating_add(rng.random_range(0..40)),
    ];
    let covered = rng.random_bool(0.3); // head scarf
    let scarf = [
        rng.random_range(40..200),
        rng.random_range(40..160),
        rng.random_range(40..160),
    ];
    let head_rx = w * rng.random_range(0.20..0.25);
    let head_ry = h * rng.random_range(0.20..0.24);
    let (hx, hy) = (x0 + w * rng.random_range(0.47..0.53), y0 + h * 0.40);
    let grey = rng.random_range(0.0..1.0f32) < 0.6; // most ID portraits print almost grey
    for y in y0 as i32..y1.ceil() as i32 {
        for x in x0 as i32..x1.ceil() as i32 {
            let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
            let shade = 1.0 - 0.15 * ((py - y0) / h);
            let mut c = backdrop.map(|v: u8| v as f32 * shade);
            let mut paint = |col: [u8; 3], a: f32, light: f32| {
                for i in 0..3 {
                    c[i] = c[i] * (1.0 - a) + col[i] as f32 * light * a;
                }
            };
            // Every part is an upright ellipse on the portrait's vertical axis.
            let part = |cy: f32, rx: f32, ry: f32| ellipse_distance(px, py, hx, cy, rx, ry, 0.0);
            let shoulders = part(y1 + h * 0.08, w * 0.48, h * 0.30);
            paint(cloth, coverage(shoulders), 1.0);
            let neck = part(hy + head_ry * 1.1, head_rx * 0.5, head_ry * 0.6);
            paint(skin, coverage(neck), 0.85);
            if covered {
                let veil = part(hy + head_ry * 0.25, head_rx * 1.35, head_ry * 1.45);
                paint(scarf, coverage(veil), 1.0);
            } else {
                let hair_shape = part(hy - head_ry * 0.18, head_rx * 1.1, head_ry * 0.95);
                paint(hair, coverage(hair_shape), 1.0);
            }
            let face = part(hy + head_ry * 0.08, head_rx, head_ry * 0.92);
            let light = 1.0 - 0.25 * ((px - hx) / head_rx).abs().powi(2);
            paint(skin, coverage(face), light);
            let alpha = opacity;
            let rgb = if grey {
                let l = 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2];
                [l, l, l]
            } else {
                c
            };
            blend(img, x, y, rgb.map(|v| v.clamp(0.0, 255.0) as u8), alpha);
        }
    }
}

/// A stacked barcode in the style of PDF417: start and stop patterns around rows of
/// random bar/space runs.
pub fn barcode(img: &mut RgbImage, rect: PxRect, rng: &mut ChaCha8Rng) {
    let [x0, y0, x1, y1] = rect;
    let rows = rng.random_range(12..22);
    let columns = rng.random_range(6..10);
    let start = [8, 1, 1, 1, 1, 1, 1, 3];
    let stop = [7, 1, 1, 3, 1, 1, 1, 2, 1];
    let modules = 17 * (columns + 2) + 17 + 18;
    let mw = (x1 - x0) / modules as f32;
    let rh = (y1 - y0) / rows as f32;
    for row in 0..rows {
        let mut runs: Vec<u32> = start.to_vec();
        for _ in 0..columns + 2 {
            // A codeword: 4 bars and 4 spaces spanning 17 modules.
            let mut widths = [1u32; 8];
            for _ in 0..9 {
                widths[rng.random_range(0..8)] += 1;
            }
            runs.extend_from_slice(&widths);
        }
        runs.extend_from_slice(&stop);
        let mut x = x0;
        let ry0 = y0 + row as f32 * rh;
        for (i, &run) in runs.iter().enumerate() {
            let xe = x + run as f32 * mw;
            if i % 2 == 0 {
                for py in ry0 as i32..(ry0 + rh).ceil() as i32 {
                    for px in x as i32..xe.ceil() as i32 {
                        let cov =
                            ((xe - px as f32).min(1.0) - (x - px as f32).max(0.0)).clamp(0.0, 1.0);
                        blend(img, px, py, [15, 15, 15], cov * 0.92);
                    }
                }
            }
            x = xe;
        }
    }
}

/// A horizontal colour band fading from the accent colour.
pub fn band(img: &mut RgbImage, rect: PxRect, color: [u8; 3], rng: &mut ChaCha8Rng) {
    let [x0, y0, x1, y1] = rect;
    let strength = rng.random_range(0.25..0.5);
    let light = color.map(|v| (v as f32 * 0.4 + 255.0 * 0.6) as u8);
    for y in y0 as i32..y1.ceil() as i32 {
        let t = (y as f32 - y0) / (y1 - y0);
        for x in x0 as i32..x1.ceil() as i32 {
            let wave = 0.5 + 0.5 * ((x as f32 * 0.05) + t * 6.0).sin();
            blend(
                img,
                x,
                y,
                light,
                strength * (1.0 - 0.5 * t) * (0.8 + 0.2 * wave),
            );
        }
    }
    stroke(img, &[(x0, y1 - 1.5), (x1, y1 - 1.5)], 2.0, color, 0.7);
}

/// A gold contact chip.
pub fn chip(img: &mut RgbImage, rect: PxRect) {
    let [x0, y0, x1, y1] = rect;
    let radius = (x1 - x0) * 0.12;
    fill_rounded_rect(img, rect, radius, [201, 168, 92], 0.95);
    let (w, h) = (x1 - x0, y1 - y0);
    let line = [150, 120, 60];
    for f in [0.33, 0.66] {
        stroke(
            img,
            &[(x0 + w * 0.05, y0 + h * f), (x1 - w * 0.05, y0 + h * f)],
            1.5,
            line,
            0.9,
        );
    }
    stroke(
        img,
        &[(x0 + w * 0.5, y0 + h * 0.05), (x0 + w * 0.5, y1 - h * 0.05)],
        1.5,
        line,
        0.9,
    );
}

/// A translucent iridescent patch with concentric circles.
pub fn hologram(img: &mut RgbImage, rect: PxRect, rng: &mut ChaCha8Rng) {
    let [x0, y0, x1, y1] = rect;
    let phase = rng.random_range(0.0..TAU);
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    for y in y0 as i32..y1.ceil() as i32 {
        for x in x0 as i32..x1.ceil() as i32 {
            let t = (x as f32 - x0) / (x1 - x0) * PI * 2.0 + phase;
            let color = [
                (180.0 + 60.0 * t.sin()) as u8,
                (180.0 + 60.0 * (t + 2.1).sin()) as u8,
                (180.0 + 60.0 * (t + 4.2).sin()) as u8,
            ];
            let d = ((x as f32 - cx).powi(2) + (y as f32 - cy).powi(2)).sqrt();
            let rings = 0.5 + 0.5 * (d * 0.5).sin();
            blend(img, x, y, color, 0.18 + 0.1 * rings);
        }
    }
}

/// A licence-plate frame: white field, dark border, coloured top band (its text is
/// drawn by the document renderer).
pub fn plate(img: &mut RgbImage, rect: PxRect, band_color: [u8; 3]) {
    let [x0, y0, x1, y1] = rect;
    let h = y1 - y0;
    let radius = h * 0.08;
    fill_rounded_rect(img, rect, radius, [30, 30, 30], 1.0);
    let inset = (h * 0.03).max(1.5);
    fill_rounded_rect(
        img,
        [x0 + inset, y0 + inset, x1 - inset, y1 - inset],
        radius,
        [246, 246, 242],
        1.0,
    );
    fill_rounded_rect(
        img,
        [x0 + inset, y0 + inset, x1 - inset, y0 + h * 0.3],
        radius * 0.5,
        band_color,
        1.0,
    );
    let mid = (x0 + x1) / 2.0;
    stroke(
        img,
        &[(mid, y0 + h * 0.33), (mid, y1 - inset * 2.0)],
        (h * 0.02).max(1.0),
        [40, 40, 40],
        0.9,
    );
}

/// A handwritten-looking scribble.
pub fn signature(img: &mut RgbImage, rect: PxRect, rng: &mut ChaCha8Rng) {
    let [x0, y0, x1, y1] = rect;
    let (w, h) = (x1 - x0, y1 - y0);
    let mut points = Vec::new();
    let loops = rng.random_range(3..7) as f32;
    let phase = rng.random_range(0.0..TAU);
    for i in 0..=120 {
        let t = i as f32 / 120.0;
        let x = x0 + w * (0.05 + 0.9 * t) + (t * loops * TAU + phase).cos() * w * 0.04;
        let y = y0 + h * (0.5 + 0.35 * (t * loops * TAU + phase).sin() * (1.0 - 0.5 * t));
        points.push((x, y));
    }
    stroke(img, &points, (h * 0.04).max(1.2), [20, 30, 90], 0.85);
}

/// A seal: two rings around a five-pointed star with short rays between its
/// points (the held-out faces' emblem, unlike the eagle in every way but size).
pub fn seal(img: &mut RgbImage, rect: PxRect, color: [u8; 3], alpha: f32) {
    let [x0, y0, x1, y1] = rect;
    let r = (x1 - x0).min(y1 - y0) / 2.0;
    let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
    for y in y0 as i32..y1.ceil() as i32 {
        for x in x0 as i32..x1.ceil() as i32 {
            let d = ((x as f32 + 0.5 - cx).powi(2) + (y as f32 + 0.5 - cy).powi(2)).sqrt();
            let ring = coverage((d - r * 0.92).abs() - r * 0.05)
                .max(coverage((d - r * 0.72).abs() - r * 0.02));
            if ring > 0.0 {
                blend(img, x, y, color, ring * alpha);
            }
        }
    }
    let star: Vec<(f32, f32)> = (0..10)
        .map(|i| {
            let angle = -PI / 2.0 + i as f32 * PI / 5.0;
            let radius = if i % 2 == 0 { r * 0.55 } else { r * 0.22 };
            (cx + radius * angle.cos(), cy + radius * angle.sin())
        })
        .collect();
    fill_polygon(img, &star, color, alpha);
    for i in 0..5 {
        let angle = -PI / 2.0 + (2 * i + 1) as f32 * PI / 5.0;
        let (s, c) = angle.sin_cos();
        stroke(
            img,
            &[
                (cx + r * 0.3 * c, cy + r * 0.3 * s),
                (cx + r * 0.6 * c, cy + r * 0.6 * s),
            ],
            (r * 0.05).max(1.0),
            color,
            alpha * 0.8,
        );
    }
}

/// A flat pale band across `rect` (the full card width behind the headers).
pub fn flat_band(img: &mut RgbImage, rect: PxRect, color: [u8; 3], rng: &mut ChaCha8Rng) {
    let pale = color.map(|v| (v as f32 * 0.3 + 255.0 * 0.7) as u8);
    fill_rounded_rect(img, rect, 0.0, pale, rng.random_range(0.35..0.7));
}

/// The flag's red, white and black in three thin stripes across the top of
/// `rect`, each a third of its height.
pub fn flag_stripes(img: &mut RgbImage, rect: PxRect) {
    let [x0, y0, x1, y1] = rect;
    let third = (y1 - y0) / 3.0;
    for (i, color) in [[206, 17, 38], [250, 250, 250], [20, 20, 20]]
        .into_iter()
        .enumerate()
    {
        let top = y0 + third * i as f32;
        fill_rounded_rect(img, [x0, top, x1, top + third], 0.0, color, 0.85);
    }
}

/// A tinted panel from the top of `rect` down to its bottom, the lower edge a
/// wave.
pub fn wavy_panel(img: &mut RgbImage, rect: PxRect, color: [u8; 3], rng: &mut ChaCha8Rng) {
    let [x0, y0, x1, y1] = rect;
    let amplitude = (y1 - y0) * rng.random_range(0.08..0.2);
    let waves = rng.random_range(1.5..4.0f32);
    let phase = rng.random_range(0.0..TAU);
    let mut outline = vec![(x0, y0), (x1, y0)];
    for i in (0..=64).rev() {
        let t = i as f32 / 64.0;
        let x = x0 + (x1 - x0) * t;
        outline.push((x, y1 - amplitude * (1.0 + (t * waves * TAU + phase).sin())));
    }
    let tint = color.map(|v| (v as f32 * 0.45 + 255.0 * 0.55) as u8);
    fill_polygon(img, &outline, tint, rng.random_range(0.45..0.75));
    let last: Vec<(f32, f32)> = outline[2..].to_vec();
    stroke(img, &last, ((y1 - y0) * 0.03).max(1.0), color, 0.6);
}

/// A thin rounded border `inset` pixels inside the card's edge.
pub fn frame(img: &mut RgbImage, inset: f32, radius: f32, color: [u8; 3], width: f32) {
    let (w, h) = (img.width() as f32, img.height() as f32);
    let (x0, y0, x1, y1) = (inset, inset, w - inset, h - inset);
    let r = radius.max(0.0);
    let mut points = Vec::new();
    // Corners as quarter arcs, clockwise from the top-left.
    let corners = [
        (x0 + r, y0 + r, PI),
        (x1 - r, y0 + r, 1.5 * PI),
        (x1 - r, y1 - r, 0.0),
        (x0 + r, y1 - r, 0.5 * PI),
    ];
    for (cx, cy, start) in corners {
        for i in 0..=8 {
            let a = start + i as f32 / 8.0 * PI / 2.0;
            points.push((cx + r * a.cos(), cy + r * a.sin()));
        }
    }
    points.push(points[0]);
    stroke(img, &points, width, color, 0.8);
}
