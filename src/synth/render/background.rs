//! Security-print backgrounds: a paper gradient, blotchy tint and guilloche line
//! patterns (sine-modulated wave families and a rosette), all procedural.

use std::f32::consts::TAU;

use image::RgbImage;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::layout::Style;

/// A wave family: lines where `(y·cos + x·sin + A·sin(f·u + φ)) / spacing` is an integer.
struct Waves {
    angle: f32,
    spacing: f32,
    amp1: f32,
    freq1: f32,
    phase1: f32,
    amp2: f32,
    freq2: f32,
    phase2: f32,
    width: f32,
    alpha: f32,
}

impl Waves {
    fn random(rng: &mut ChaCha8Rng, scale: f32) -> Waves {
        Waves {
            angle: rng.random_range(-0.5..0.5f32),
            spacing: rng.random_range(5.0..11.0) * scale,
            amp1: rng.random_range(6.0..30.0) * scale,
            freq1: rng.random_range(0.004..0.02) / scale,
            phase1: rng.random_range(0.0..TAU),
            amp2: rng.random_range(2.0..10.0) * scale,
            freq2: rng.random_range(0.02..0.06) / scale,
            phase2: rng.random_range(0.0..TAU),
            width: rng.random_range(0.10..0.22),
            alpha: rng.random_range(0.18..0.40),
        }
    }

    #[inline]
    fn intensity(&self, x: f32, y: f32, sin_a: f32, cos_a: f32) -> f32 {
        let u = x * cos_a - y * sin_a;
        let v = x * sin_a + y * cos_a;
        let t = (v
            + self.amp1 * (self.freq1 * u + self.phase1).sin()
            + self.amp2 * (self.freq2 * u + self.phase2).sin())
            / self.spacing;
        let f = t - t.floor();
        let d = (f - 0.5).abs() * 2.0; // 1 on the line, 0 midway between lines
        ((d - (1.0 - self.width)) / self.width).clamp(0.0, 1.0) * self.alpha
    }
}

/// A rosette: rings modulated by petals, fading out with distance from its centre.
struct Rosette {
    cx: f32,
    cy: f32,
    radius: f32,
    petals: f32,
    amp: f32,
    spacing: f32,
    alpha: f32,
}

impl Rosette {
    #[inline]
    fn intensity(&self, x: f32, y: f32) -> f32 {
        let (dx, dy) = (x - self.cx, y - self.cy);
        let r = (dx * dx + dy * dy).sqrt();
        if r > self.radius {
            return 0.0;
        }
        let theta = dy.atan2(dx);
        let t = (r + self.amp * (self.petals * theta).sin() * (r / self.radius)) / self.spacing;
        let f = t - t.floor();
        let d = (f - 0.5).abs() * 2.0;
        let line = ((d - 0.8) / 0.2).clamp(0.0, 1.0);
        line * self.alpha * (1.0 - r / self.radius)
    }
}

/// A `w`×`h` card background in the layout's colours.
pub fn paper(style: &Style, w: u32, h: u32, rng: &mut ChaCha8Rng) -> RgbImage {
    let scale = w as f32 / 1000.0;
    let [c0, c1] = style.paper.map(|c| c.0.map(|v| v as f32));
    let pattern = style.pattern.0.map(|v| v as f32);
    let tilt: f32 = rng.random_range(-0.4..0.4);
    let waves: Vec<Waves> = (0..rng.random_range(2..4))
        .map(|_| Waves::random(rng, scale))
        .collect();
    let trig: Vec<(f32, f32)> = waves
        .iter()
        .map(|w| (w.angle.sin(), w.angle.cos()))
        .collect();
    let rosette = Rosette {
        cx: rng.random_range(0.2..0.8) * w as f32,
        cy: rng.random_range(0.2..0.8) * h as f32,
        radius: rng.random_range(0.35..0.6) * h as f32,
        petals: rng.random_range(8..24) as f32,
        amp: rng.random_range(4.0..14.0) * scale,
        spacing: rng.random_range(6.0..10.0) * scale,
        alpha: rng.random_range(0.2..0.45),
    };
    // Low-frequency tint: a coarse grid of random values, bilinearly interpolated.
    const GRID: usize = 6;
    let tint: Vec<f32> = (0..GRID * GRID)
        .map(|_| rng.random_range(-1.0..1.0f32))
        .collect();
    let tint_strength = rng.random_range(4.0..12.0f32);

    let mut img = RgbImage::new(w, h);
    for (x, y, p) in img.enumerate_pixels_mut() {
        let (fx, fy) = (x as f32, y as f32);
        let g = ((fx / w as f32) + tilt * (fy / h as f32 - 0.5)).clamp(0.0, 1.0);
        let gx = fx / w as f32 * (GRID - 1) as f32;
        let gy = fy / h as f32 * (GRID - 1) as f32;
        let (ix, iy) = ((gx as usize).min(GRID - 2), (gy as usize).min(GRID - 2));
        let (tx, ty) = (gx - ix as f32, gy - iy as f32);
        let t = |i: usize, j: usize| tint[j * GRID + i];
        let blotch = (t(ix, iy) * (1.0 - tx) + t(ix + 1, iy) * tx) * (1.0 - ty)
            + (t(ix, iy + 1) * (1.0 - tx) + t(ix + 1, iy + 1) * tx) * ty;
        let mut ink = 0.0f32;
        for (wave, &(s, c)) in waves.iter().zip(&trig) {
            ink = ink.max(wave.intensity(fx, fy, s, c));
        }
        ink = ink.max(rosette.intensity(fx, fy));
        for ch in 0..3 {
            let base = c0[ch] * (1.0 - g) + c1[ch] * g + blotch * tint_strength;
            let v = base * (1.0 - ink) + pattern[ch] * ink;
            p.0[ch] = v.clamp(0.0, 255.0) as u8;
        }
    }
    img
}
