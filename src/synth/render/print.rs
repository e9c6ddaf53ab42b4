//! How a printer puts a line of text down, beyond the typeface: letter spacing,
//! horizontal scale, slant, ink spread or thinning, and print defects (dropouts and
//! banding). Drawn once per document (one printer prints every field of a card) or
//! per text-line crop, and applied to the shaped line and its coverage mask.

use image::GrayImage;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::fonts::FontId;
use super::text::{TextEngine, TextMask};
use crate::synth::degrade::uniform;

/// The variation one printer adds to every line it prints.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PrintStyle {
    /// Extra advance, in ems, where two letters do not join (between words, digits,
    /// after a letter that never joins the next): Arabic stays connected.
    pub tracking: f32,
    /// Horizontal scale of the glyphs (1 as designed).
    pub scale_x: f32,
    /// Shear: pixels of horizontal shift per pixel above the baseline (positive leans
    /// right).
    pub slant: f32,
    /// Ink gain, -1..1: above 0 strokes spread (a blend towards the dilated coverage),
    /// below 0 they thin (towards the eroded one).
    pub spread: f32,
    /// Chance that a line shows print defects.
    pub defects: f64,
}

impl PrintStyle {
    /// The font as designed: no variation.
    pub const PLAIN: PrintStyle = PrintStyle {
        tracking: 0.0,
        scale_x: 1.0,
        slant: 0.0,
        spread: 0.0,
        defects: 0.0,
    };

    /// A printer's style; about half of each variation is left out, so plain print
    /// stays common.
    pub fn draw(rng: &mut ChaCha8Rng) -> PrintStyle {
        let mut maybe = |p: f64, lo: f32, hi: f32, plain: f32| {
            if rng.random_bool(p) {
                uniform(rng, lo, hi)
            } else {
                plain
            }
        };
        PrintStyle {
            tracking: maybe(0.4, 0.02, 0.22, 0.0),
            scale_x: maybe(0.35, 0.82, 1.18, 1.0),
            slant: maybe(0.2, -0.12, 0.22, 0.0),
            spread: maybe(0.5, -0.6, 0.8, 0.0),
            defects: if rng.random_bool(0.3) { 0.6 } else { 0.0 },
        }
    }

    /// `text` in `font` at `em` pixels per em, shaped with this style's tracking,
    /// rasterised and styled.
    pub fn render(
        &self,
        engine: &mut TextEngine,
        text: &str,
        font: FontId,
        em: f32,
        rng: &mut ChaCha8Rng,
    ) -> TextMask {
        let shaped = engine.shape_tracked(text, font, em, self.tracking * em);
        self.apply(engine.rasterize(&shaped), em, rng)
    }

    /// The style applied to `mask`, a line rasterised at `em` pixels per em: scaled
    /// and slanted, inked, then (by chance) marked with defects.
    pub fn apply(&self, mask: TextMask, em: f32, rng: &mut ChaCha8Rng) -> TextMask {
        let mut mask = if self.scale_x != 1.0 || self.slant != 0.0 {
            shear_scale(&mask, self.scale_x, self.slant)
        } else {
            mask
        };
        if self.spread != 0.0 {
            // Thin strokes of small print vanish under the same erosion that only
            // narrows large ones: thinning scales with the size.
            let amount = if self.spread < 0.0 {
                self.spread * (em / 24.0).clamp(0.3, 1.0)
            } else {
                self.spread
            };
            ink_gain(&mut mask.alpha, amount);
        }
        if self.defects > 0.0 && rng.random_bool(self.defects) {
            print_defects(&mut mask.alpha, em, rng);
        }
        mask
    }
}

/// Whether Arabic letter `a` joins the letter `b` after it (Unicode joining types:
/// `a` dual-joining, `b` an Arabic letter that joins its predecessor).
pub fn joins(a: char, b: char) -> bool {
    const DUAL: &str = "ئبتثجحخسشصضطظعغفقكلمنهيىـ";
    const JOINS_BEFORE: &str = "آأؤإئابةتثجحخدذرزسشصضطظعغفقكلمنهوىيـ";
    DUAL.contains(a) && JOINS_BEFORE.contains(b)
}

/// `mask` stretched horizontally by `scale_x` and sheared by `slant` about its
/// baseline; the origin stays on the baseline.
fn shear_scale(mask: &TextMask, scale_x: f32, slant: f32) -> TextMask {
    let (w, h) = (mask.alpha.width(), mask.alpha.height());
    let rise = |y: u32| mask.baseline as f32 - y as f32 - 0.5;
    let shifts = [slant * rise(0), slant * rise(h.saturating_sub(1))];
    let offset = (-shifts[0].min(shifts[1])).max(0.0).ceil();
    let new_w = (w as f32 * scale_x + shifts[0].max(shifts[1]).max(0.0) + offset).ceil() as u32 + 1;
    let mut out = GrayImage::new(new_w, h);
    let src: &[u8] = &mask.alpha;
    for y in 0..h {
        let shift = slant * rise(y) + offset;
        let row = &src[(y * w) as usize..((y + 1) * w) as usize];
        for x in 0..new_w {
            // Inverse map to the source column, linear between its two neighbours.
            let sx = (x as f32 + 0.5 - shift) / scale_x - 0.5;
            if sx <= -1.0 || sx >= w as f32 {
                continue;
            }
            let x0 = sx.floor();
            let t = sx - x0;
            let at = |i: f32| {
                if i < 0.0 || i >= w as f32 {
                    0.0
                } else {
                    row[i as usize] as f32
                }
            };
            let v = at(x0) * (1.0 - t) + at(x0 + 1.0) * t;
            out.put_pixel(x, y, image::Luma([v.round() as u8]));
        }
    }
    TextMask {
        origin_x: (mask.origin_x as f32 * scale_x + offset).round() as i32,
        baseline: mask.baseline,
        width: mask.width * scale_x,
        px: mask.px,
        ink: [0, 0, new_w as i32, h as i32],
        alpha: out,
    }
}

/// Blends the coverage towards its 3x3 maximum (`amount` > 0: ink spreads) or minimum
/// (`amount` < 0: ink thins).
fn ink_gain(alpha: &mut GrayImage, amount: f32) {
    let (w, h) = (alpha.width() as i32, alpha.height() as i32);
    let src = alpha.clone();
    let at = |x: i32, y: i32| {
        src.get_pixel(x.clamp(0, w - 1) as u32, y.clamp(0, h - 1) as u32)
            .0[0]
    };
    let t = amount.abs().min(1.0);
    for y in 0..h {
        for x in 0..w {
            let mut extreme = at(x, y);
            for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                let v = at(x + dx, y + dy);
                extreme = if amount > 0.0 {
                    extreme.max(v)
                } else {
                    extreme.min(v)
                };
            }
            let a = at(x, y) as f32;
            let v = a + (extreme as f32 - a) * t;
            alpha.put_pixel(x as u32, y as u32, image::Luma([v.round() as u8]));
        }
    }
}

/// Dropouts (small spots where little ink landed) and a band of weak ink across the
/// line. Spots are smaller than a letter's dot and never take all its ink, so every
/// letter stays readable.
fn print_defects(alpha: &mut GrayImage, em: f32, rng: &mut ChaCha8Rng) {
    let (w, h) = (alpha.width() as f32, alpha.height() as f32);
    let spots = ((w / em) * uniform(rng, 0.1, 0.4)).round() as usize;
    for _ in 0..spots {
        let (cx, cy) = (uniform(rng, 0.0, w), uniform(rng, 0.0, h));
        let r = (em * uniform(rng, 0.03, 0.07)).max(0.8);
        let keep = uniform(rng, 0.35, 0.7);
        for y in (cy - r).floor().max(0.0) as u32..((cy + r).ceil() as u32).min(h as u32) {
            for x in (cx - r).floor().max(0.0) as u32..((cx + r).ceil() as u32).min(w as u32) {
                let d = ((x as f32 + 0.5 - cx).powi(2) + (y as f32 + 0.5 - cy).powi(2)).sqrt();
                let cover = (r - d + 0.5).clamp(0.0, 1.0);
                let p = alpha.get_pixel_mut(x, y);
                p.0[0] = (p.0[0] as f32 * (1.0 - cover * (1.0 - keep))).round() as u8;
            }
        }
    }
    if rng.random_bool(0.4) {
        let band = (em * uniform(rng, 0.04, 0.12)).max(1.0);
        let top = uniform(rng, 0.0, (h - band).max(0.0));
        let keep = uniform(rng, 0.55, 0.85);
        for y in top as u32..((top + band).ceil() as u32).min(h as u32) {
            for x in 0..w as u32 {
                let p = alpha.get_pixel_mut(x, y);
                p.0[0] = (p.0[0] as f32 * keep).round() as u8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn bar(w: u32, h: u32, baseline: i32) -> TextMask {
        let mut alpha = GrayImage::new(w, h);
        for y in 2..h - 2 {
            for x in 4..8 {
                alpha.put_pixel(x, y, image::Luma([255]));
            }
        }
        TextMask {
            alpha,
            origin_x: 0,
            baseline,
            width: w as f32,
            px: h as f32,
            ink: [0, 0, w as i32, h as i32],
        }
    }

    fn ink(mask: &TextMask) -> u64 {
        mask.alpha.pixels().map(|p| p.0[0] as u64).sum()
    }

    /// Mean column of the ink in row `y`.
    fn centre(mask: &TextMask, y: u32) -> f32 {
        let (mut sum, mut weight) = (0.0, 0.0);
        for x in 0..mask.alpha.width() {
            let a = mask.alpha.get_pixel(x, y).0[0] as f32;
            sum += a * x as f32;
            weight += a;
        }
        sum / weight
    }

    #[test]
    fn slant_leans_the_top_of_a_stroke_and_keeps_the_baseline_in_place() {
        let plain = bar(12, 30, 24);
        let style = PrintStyle {
            slant: 0.2,
            ..PrintStyle::PLAIN
        };
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let slanted = style.apply(plain.clone(), 30.0, &mut rng);
        let top_shift = centre(&slanted, 3) - centre(&plain, 3);
        let base_shift = centre(&slanted, 23) - centre(&plain, 23);
        // The origin moved with the image, so shifts are measured from it.
        let moved = (slanted.origin_x - plain.origin_x) as f32;
        assert!((base_shift - moved).abs() < 0.6, "{base_shift} {moved}");
        assert!((top_shift - moved - 0.2 * 20.5).abs() < 0.6, "{top_shift}");
        assert!((ink(&slanted) as f64 / ink(&plain) as f64 - 1.0).abs() < 0.05);
    }

    #[test]
    fn horizontal_scale_widens_the_line_and_its_advance() {
        let plain = bar(12, 30, 24);
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let wide = PrintStyle {
            scale_x: 1.5,
            ..PrintStyle::PLAIN
        }
        .apply(plain.clone(), 30.0, &mut rng);
        assert_eq!(wide.width, 18.0);
        assert!(wide.alpha.width() >= 18);
        let ratio = ink(&wide) as f64 / ink(&plain) as f64;
        assert!((ratio - 1.5).abs() < 0.1, "{ratio}");
    }

    #[test]
    fn spread_adds_ink_and_thinning_removes_it() {
        let plain = bar(12, 30, 24);
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let with = |spread| {
            PrintStyle {
                spread,
                ..PrintStyle::PLAIN
            }
            .apply(plain.clone(), 24.0, &mut ChaCha8Rng::seed_from_u64(0))
        };
        assert!(ink(&with(0.8)) > ink(&plain) * 5 / 4);
        assert!(ink(&with(-0.6)) < ink(&plain) * 4 / 5);
        assert_eq!(
            ink(&PrintStyle::PLAIN.apply(plain.clone(), 24.0, &mut rng)),
            ink(&plain)
        );
    }

    #[test]
    fn defects_take_some_ink_never_all_of_it() {
        let mut alpha = GrayImage::from_pixel(200, 30, image::Luma([255]));
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        for _ in 0..20 {
            print_defects(&mut alpha, 24.0, &mut rng);
        }
        assert!(alpha.pixels().any(|p| p.0[0] < 255));
        // Twenty passes over the same line: each pass leaves at least a third of
        // the ink, and most of the line is untouched.
        let untouched = alpha.pixels().filter(|p| p.0[0] == 255).count();
        assert!(untouched > 200 * 30 / 4, "{untouched}");
    }

    #[test]
    fn joining_follows_the_arabic_letters_joining_types() {
        assert!(joins('م', 'ح'));
        assert!(joins('ب', 'ا'));
        assert!(!joins('ا', 'ب'), "alef never joins the next letter");
        assert!(!joins('د', 'م'));
        assert!(!joins('ة', 'ب'));
        assert!(!joins('م', ' '));
        assert!(!joins('٢', '٢'));
        assert!(!joins('ء', 'ب'));
    }
}
