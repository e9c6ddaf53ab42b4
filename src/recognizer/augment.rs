//! Training-time degradations on top of the generator's own, so the model holds on
//! phone photos and poor scans: crop jitter, horizontal scale, stroke width,
//! resolution loss, blur, motion blur, contrast, noise and JPEG artefacts.

use image::imageops::{self, FilterType};
use image::{GrayImage, Luma};
use rand::Rng;

use crate::synth::degrade;

/// How strongly to degrade; 0 leaves crops untouched.
#[derive(Debug, Clone, Copy)]
pub struct Augment {
    pub probability: f64,
}

impl Default for Augment {
    fn default() -> Self {
        Augment { probability: 0.5 }
    }
}

impl Augment {
    pub fn apply<R: Rng>(&self, crop: &GrayImage, rng: &mut R) -> GrayImage {
        if crop.width() < 4 || crop.height() < 4 || !rng.random_bool(self.probability) {
            return crop.clone();
        }
        let mut img = jitter(crop, rng);
        if rng.random_bool(0.5) {
            let factor = rng.random_range(0.8..1.25);
            let w = ((img.width() as f64 * factor).round() as u32).max(4);
            img = imageops::resize(&img, w, img.height(), FilterType::Triangle);
        }
        if rng.random_bool(0.35) {
            // Darkest neighbour thickens dark strokes; lightest thins them.
            img = if rng.random_bool(0.6) {
                min_filter(&img)
            } else {
                max_filter(&img)
            };
        }
        if rng.random_bool(0.25) {
            let f = rng.random_range(0.5..0.9);
            let (w, h) = img.dimensions();
            let small = imageops::resize(
                &img,
                ((w as f64 * f) as u32).max(2),
                ((h as f64 * f) as u32).max(2),
                FilterType::Triangle,
            );
            img = imageops::resize(&small, w, h, FilterType::Triangle);
        }
        if rng.random_bool(0.3) {
            let sigma = img.height() as f32 / 32.0 * rng.random_range(0.3..0.9);
            img = imageproc::filter::gaussian_blur_f32(&img, sigma.max(0.3));
        }
        if rng.random_bool(0.2) {
            // A hand-held phone's shake. The generator's photos have 2 to 9 px of it on
            // cards 400 to 1000 px wide: 2 to 20 px at the crop's 32 px height. From
            // about 8 px on the dots are gone and the label could not be read.
            let length = img.height() as f32 / 32.0 * rng.random_range(1.5..7.5f32);
            let angle = rng.random_range(0.0..std::f32::consts::PI);
            img = degrade::motion_blur(&img, length, angle);
        }
        contrast(&mut img, rng);
        if rng.random_bool(0.3) {
            let sigma = rng.random_range(2.0..7.0);
            degrade::add_noise(&mut img, sigma, rng);
        }
        if rng.random_bool(0.3) {
            img = degrade::jpeg_round_trip_gray(&img, rng.random_range(30..90));
        }
        img
    }
}

fn background(img: &GrayImage) -> u8 {
    let mut values: Vec<u8> = img.as_raw().clone();
    let k = (values.len() * 9 / 10).min(values.len() - 1);
    *values.select_nth_unstable(k).1
}

/// Moves each border in or out by a fraction of the height, as a detector's box would.
fn jitter<R: Rng>(img: &GrayImage, rng: &mut R) -> GrayImage {
    let (w, h) = (img.width() as i64, img.height() as i64);
    let hf = h as f64;
    let mut side = |lo: f64, hi: f64| (rng.random_range(lo..hi) * hf).round() as i64;
    // Positive grows the crop (padding), negative cuts into it.
    // Cutting in more than a sliver would cut letters and make the label wrong.
    let (left, right) = (side(-0.02, 0.3), side(-0.02, 0.3));
    let (top, bottom) = (side(-0.04, 0.2), side(-0.04, 0.2));
    let new_w = (w + left + right).max(4);
    let new_h = (h + top + bottom).max(4);
    let bg = Luma([background(img)]);
    let mut out = GrayImage::from_pixel(new_w as u32, new_h as u32, bg);
    for y in 0..new_h {
        let sy = y - top;
        if !(0..h).contains(&sy) {
            continue;
        }
        for x in 0..new_w {
            let sx = x - left;
            if (0..w).contains(&sx) {
                out.put_pixel(x as u32, y as u32, *img.get_pixel(sx as u32, sy as u32));
            }
        }
    }
    out
}

fn window_filter(img: &GrayImage, pick: fn(u8, u8) -> u8) -> GrayImage {
    let (w, h) = img.dimensions();
    GrayImage::from_fn(w, h, |x, y| {
        let x1 = (x + 1).min(w - 1);
        let y1 = (y + 1).min(h - 1);
        let p = |x, y| img.get_pixel(x, y)[0];
        Luma([pick(pick(p(x, y), p(x1, y)), pick(p(x, y1), p(x1, y1)))])
    })
}

fn min_filter(img: &GrayImage) -> GrayImage {
    window_filter(img, u8::min)
}

fn max_filter(img: &GrayImage) -> GrayImage {
    window_filter(img, u8::max)
}

/// Remaps black/white to a random ink and paper level with a random gamma.
fn contrast<R: Rng>(img: &mut GrayImage, rng: &mut R) {
    // On top of the generator's own degradation: a milder range keeps every crop
    // legible (stronger settings made about a fifth of the crops unreadable noise).
    let ink = rng.random_range(0.0..90.0f32);
    let paper = rng.random_range(ink + 100.0..=255.0f32);
    let gamma = rng.random_range(0.8..1.25f32);
    for p in img.pixels_mut() {
        let v = (p[0] as f32 / 255.0).powf(gamma);
        p[0] = (ink + v * (paper - ink)).round().clamp(0.0, 255.0) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn augmentations_keep_a_valid_image() {
        let mut crop = GrayImage::from_pixel(120, 30, Luma([240]));
        for x in 20..100 {
            for y in 12..16 {
                crop.put_pixel(x, y, Luma([10]));
            }
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let aug = Augment { probability: 1.0 };
        for _ in 0..50 {
            let out = aug.apply(&crop, &mut rng);
            assert!(out.width() >= 4 && out.height() >= 4);
            // The stroke survives: some pixel is clearly darker than the paper.
            let min = out.as_raw().iter().min().unwrap();
            let max = out.as_raw().iter().max().unwrap();
            assert!(max - min > 30);
        }
    }
}
