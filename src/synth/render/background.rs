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

/// The background print of a card face.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// Sine-modulated wave families and a rosette.
    Guilloche,
    /// No line pattern: the gradient and its blotches, and the paper's grain.
    Plain,
    /// A grid of fine dots and rows of short dashes, like microprint.
    Stipple,
    /// Two crossing families of straight fine lines (a diamond mesh) and
    /// concentric rings.
    Mesh,
}

/// A `w`×`h` card background in the layout's colours: the guilloche.
pub fn paper(style: &Style, w: u32, h: u32, rng: &mut ChaCha8Rng) -> RgbImage {
    printed(style, Pattern::Guilloche, w, h, rng)
}

/// Dots on a grid turned by `angle`, and rows of dashes between them.
struct Stipple {
    sin: f32,
    cos: f32,
    spacing: f32,
    radius: f32,
    dash_row: f32,
    dash: f32,
    alpha: f32,
}

impl Stipple {
    fn random(rng: &mut ChaCha8Rng, scale: f32) -> Stipple {
        let angle: f32 = rng.random_range(-0.8..0.8);
        let spacing = rng.random_range(4.0..8.0) * scale.max(0.3);
        Stipple {
            sin: angle.sin(),
            cos: angle.cos(),
            spacing,
            radius: spacing * rng.random_range(0.12..0.25),
            dash_row: spacing * rng.random_range(2.0..4.0),
            dash: spacing * rng.random_range(0.6..1.4),
            alpha: rng.random_range(0.25..0.5),
        }
    }

    #[inline]
    fn intensity(&self, x: f32, y: f32) -> f32 {
        let u = x * self.cos - y * self.sin;
        let v = x * self.sin + y * self.cos;
        let (du, dv) = (
            (u / self.spacing).fract().abs() - 0.5,
            (v / self.spacing).fract().abs() - 0.5,
        );
        let d = (du * du + dv * dv).sqrt() * self.spacing;
        let dot = (self.radius + 0.5 - d).clamp(0.0, 1.0);
        // Dashes: thin rows, broken every other dash length.
        let row = (v / self.dash_row).fract().abs();
        let on_row = (1.0 - (row * self.dash_row - 0.5).abs()).clamp(0.0, 1.0);
        let on_dash = if (u / self.dash).rem_euclid(2.0) < 1.0 {
            0.6
        } else {
            0.0
        };
        dot.max(on_row * on_dash) * self.alpha
    }
}

/// Two crossing line families and rings around a centre.
struct Mesh {
    families: [(f32, f32); 2],
    spacing: f32,
    width: f32,
    centre: (f32, f32),
    ring_spacing: f32,
    radius: f32,
    alpha: f32,
}

impl Mesh {
    fn random(rng: &mut ChaCha8Rng, w: f32, h: f32, scale: f32) -> Mesh {
        let a: f32 = rng.random_range(0.35..0.9);
        let tilt: f32 = rng.random_range(-0.2..0.2);
        Mesh {
            families: [(a + tilt).sin_cos(), (-a + tilt).sin_cos()],
            spacing: rng.random_range(6.0..14.0) * scale.max(0.3),
            width: rng.random_range(0.08..0.18),
            centre: (
                rng.random_range(0.1..0.9) * w,
                rng.random_range(0.1..0.9) * h,
            ),
            ring_spacing: rng.random_range(5.0..12.0) * scale.max(0.3),
            radius: rng.random_range(0.3..0.7) * w,
            alpha: rng.random_range(0.2..0.4),
        }
    }

    #[inline]
    fn intensity(&self, x: f32, y: f32) -> f32 {
        let mut ink = 0.0f32;
        for &(s, c) in &self.families {
            let t = (x * s + y * c) / self.spacing;
            let d = ((t - t.round()).abs() * 2.0 - (1.0 - self.width)) / self.width;
            ink = ink.max(d.clamp(0.0, 1.0));
        }
        let r = ((x - self.centre.0).powi(2) + (y - self.centre.1).powi(2)).sqrt();
        if r < self.radius {
            let t = r / self.ring_spacing;
            let d = ((t - t.round()).abs() * 2.0 - 0.85) / 0.15;
            ink = ink.max(d.clamp(0.0, 1.0) * (1.0 - r / self.radius));
        }
        ink * self.alpha
    }
}

/// A `w`×`h` card background in `style`'s colours with `pattern` printed over a
/// paper gradient and its blotches.
pub fn printed(style: &Style, pattern: Pattern, w: u32, h: u32, rng: &mut ChaCha8Rng) -> RgbImage {
    let scale = w as f32 / 1000.0;
    let [c0, c1] = style.paper.map(|c| c.0.map(|v| v as f32));
    let pattern_colour = style.pattern.0.map(|v| v as f32);
    let tilt: f32 = rng.random_range(-0.4..0.4);
    let (waves, rosette) = match pattern {
        Pattern::Guilloche => {
            let waves: Vec<Waves> = (0..rng.random_range(2..4))
                .map(|_| Waves::random(rng, scale))
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
            (waves, Some(rosette))
        }
        _ => (Vec::new(), None),
    };
    let trig: Vec<(f32, f32)> = waves
        .iter()
        .map(|w| (w.angle.sin(), w.angle.cos()))
        .collect();
    let stipple = (pattern == Pattern::Stipple).then(|| Stipple::random(rng, scale));
    let mesh = (pattern == Pattern::Mesh).then(|| Mesh::random(rng, w as f32, h as f32, scale));
    let grain = (pattern == Pattern::Plain).then(|| rng.random_range(2.0..6.0f32));
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
        let mut blotch = (t(ix, iy) * (1.0 - tx) + t(ix + 1, iy) * tx) * (1.0 - ty)
            + (t(ix, iy + 1) * (1.0 - tx) + t(ix + 1, iy + 1) * tx) * ty;
        let mut ink = 0.0f32;
        for (wave, &(s, c)) in waves.iter().zip(&trig) {
            ink = ink.max(wave.intensity(fx, fy, s, c));
        }
        if let Some(rosette) = &rosette {
            ink = ink.max(rosette.intensity(fx, fy));
        }
        if let Some(stipple) = &stipple {
            ink = ink.max(stipple.intensity(fx, fy));
        }
        if let Some(mesh) = &mesh {
            ink = ink.max(mesh.intensity(fx, fy));
        }
        if let Some(grain) = grain {
            // Paper fibre: a cheap hash of the pixel, a grey level or two.
            let hash = (x.wrapping_mul(73_856_093) ^ y.wrapping_mul(19_349_663)) % 1000;
            blotch += (hash as f32 / 1000.0 - 0.5) * grain / tint_strength.max(1.0);
        }
        for ch in 0..3 {
            let base = c0[ch] * (1.0 - g) + c1[ch] * g + blotch * tint_strength;
            let v = base * (1.0 - ink) + pattern_colour[ch] * ink;
            p.0[ch] = v.clamp(0.0, 255.0) as u8;
        }
    }
    img
}
