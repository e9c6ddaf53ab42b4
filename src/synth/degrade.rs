//! Image degradations shared by text-line crops and document captures: blur, sensor
//! noise, contrast loss, resolution loss and JPEG compression.

use std::io::Cursor;

use image::codecs::jpeg::JpegEncoder;
use image::imageops::{self, FilterType};
use image::{GrayImage, ImageBuffer, Pixel, RgbImage};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

/// Gaussian blur; `sigma` below 0.2 is a no-op.
pub fn blur<P>(img: &ImageBuffer<P, Vec<u8>>, sigma: f32) -> ImageBuffer<P, Vec<u8>>
where
    P: Pixel<Subpixel = u8> + 'static,
{
    if sigma < 0.2 {
        return img.clone();
    }
    imageproc::filter::gaussian_blur_f32(img, sigma)
}

/// Motion blur: the average of `length` copies shifted along `angle` (radians).
pub fn motion_blur<P>(
    img: &ImageBuffer<P, Vec<u8>>,
    length: f32,
    angle: f32,
) -> ImageBuffer<P, Vec<u8>>
where
    P: Pixel<Subpixel = u8>,
{
    let steps = length.round().max(1.0) as i32;
    if steps <= 1 {
        return img.clone();
    }
    let (w, h) = (img.width() as i32, img.height() as i32);
    let (dx, dy) = (angle.cos(), angle.sin());
    let offsets: Vec<(i32, i32)> = (0..steps)
        .map(|i| {
            let t = i as f32 - (steps - 1) as f32 / 2.0;
            ((t * dx).round() as i32, (t * dy).round() as i32)
        })
        .collect();
    let channels = P::CHANNEL_COUNT as usize;
    let n = offsets.len() as u32;
    let mut out = ImageBuffer::<P, Vec<u8>>::new(img.width(), img.height());
    for (x, y, p) in out.enumerate_pixels_mut() {
        let mut acc = [0u32; 4];
        for &(ox, oy) in &offsets {
            let sx = (x as i32 + ox).clamp(0, w - 1) as u32;
            let sy = (y as i32 + oy).clamp(0, h - 1) as u32;
            for (a, s) in acc.iter_mut().zip(img.get_pixel(sx, sy).channels()) {
                *a += u32::from(*s);
            }
        }
        for (c, a) in p.channels_mut().iter_mut().zip(&acc[..channels]) {
            *c = (a / n) as u8;
        }
    }
    out
}

/// Additive Gaussian noise of standard deviation `sigma` (grey levels).
pub fn add_noise<P, R>(img: &mut ImageBuffer<P, Vec<u8>>, sigma: f32, rng: &mut R)
where
    P: Pixel<Subpixel = u8>,
    R: Rng + ?Sized,
{
    if sigma <= 0.0 {
        return;
    }
    let Ok(normal) = Normal::new(0.0f32, sigma) else {
        return;
    };
    // One noise value per pixel (shared by the channels, like luminance noise) plus a
    // little per-channel chroma noise.
    let channels = P::CHANNEL_COUNT as usize;
    let buf: &mut [u8] = img;
    for px in buf.chunks_exact_mut(channels) {
        let n = normal.sample(rng);
        for v in px.iter_mut() {
            *v = (*v as f32 + n).clamp(0.0, 255.0) as u8;
        }
    }
}

/// Maps grey levels linearly into `[low, high]` (faded print, low-contrast sensors).
pub fn squeeze_levels<P>(img: &mut ImageBuffer<P, Vec<u8>>, low: u8, high: u8)
where
    P: Pixel<Subpixel = u8>,
{
    let (lo, hi) = (low as f32, high.max(low) as f32);
    let lut: Vec<u8> = (0..256)
        .map(|v| (lo + v as f32 * (hi - lo) / 255.0).round() as u8)
        .collect();
    let buf: &mut [u8] = img;
    for v in buf.iter_mut() {
        *v = lut[*v as usize];
    }
}

/// Resizes by `factor` (both axes) with a triangle filter.
pub fn rescale<P>(img: &ImageBuffer<P, Vec<u8>>, factor: f32) -> ImageBuffer<P, Vec<u8>>
where
    P: Pixel<Subpixel = u8> + 'static,
{
    let w = ((img.width() as f32 * factor).round() as u32).max(1);
    let h = ((img.height() as f32 * factor).round() as u32).max(1);
    imageops::resize(img, w, h, FilterType::Triangle)
}

/// JPEG bytes of a grey image.
pub fn jpeg_gray(img: &GrayImage, quality: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(img.len() / 4 + 1024);
    let encoder = JpegEncoder::new_with_quality(Cursor::new(&mut out), quality.clamp(1, 100));
    // Encoding an in-memory buffer of valid dimensions cannot fail.
    let _ = img.write_with_encoder(encoder);
    out
}

/// JPEG bytes of a colour image.
pub fn jpeg_rgb(img: &RgbImage, quality: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(img.len() / 6 + 1024);
    let encoder = JpegEncoder::new_with_quality(Cursor::new(&mut out), quality.clamp(1, 100));
    let _ = img.write_with_encoder(encoder);
    out
}

/// A grey image after a JPEG round trip at `quality`.
pub fn jpeg_round_trip_gray(img: &GrayImage, quality: u8) -> GrayImage {
    let bytes = jpeg_gray(img, quality);
    match image::load_from_memory_with_format(&bytes, image::ImageFormat::Jpeg) {
        Ok(decoded) => decoded.into_luma8(),
        Err(_) => img.clone(),
    }
}

/// Uniform in `[lo, hi)`, written once so call sites stay short.
pub fn uniform(rng: &mut ChaCha8Rng, lo: f32, hi: f32) -> f32 {
    if hi <= lo {
        lo
    } else {
        rng.random_range(lo..hi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{Luma, Rgb};

    #[test]
    fn motion_blur_spreads_an_edge_along_its_direction_only() {
        // Dark left half, light right half: a vertical edge at x = 10.
        let grey = GrayImage::from_fn(20, 8, |x, _| Luma([if x < 10 { 0 } else { 200 }]));
        let along = motion_blur(&grey, 5.0, 0.0);
        // Five copies shifted -2..=2 px: the edge becomes a ramp 4 px wide.
        let row: Vec<u8> = (7..13).map(|x| along.get_pixel(x, 4)[0]).collect();
        assert_eq!(row, vec![0, 40, 80, 120, 160, 200]);
        // Shaking along the edge leaves it sharp.
        assert_eq!(motion_blur(&grey, 5.0, std::f32::consts::FRAC_PI_2), grey);
        // Colour images blur the same way, channel by channel.
        let rgb = RgbImage::from_fn(20, 8, |x, y| {
            let v = grey.get_pixel(x, y)[0];
            Rgb([v, v / 2, 255 - v])
        });
        let blurred = motion_blur(&rgb, 5.0, 0.0);
        for (x, y, p) in blurred.enumerate_pixels() {
            let v = along.get_pixel(x, y)[0];
            assert_eq!(p.0[0], v);
        }
    }
}
