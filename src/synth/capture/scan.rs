//! A flatbed scan: the card on the scanner glass with white margins, slightly
//! rotated (sometimes sideways or upside down), a little soft, noisy and compressed.

use std::f64::consts::FRAC_PI_2;

use image::RgbImage;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::geometry::{Homography, Shadow, composite_card};
use super::surface::ValueNoise;
use super::{CaptureParams, Captured};
use crate::layout::Page;
use crate::synth::degrade::{self, uniform};
use crate::synth::render::RenderedCard;

/// Scanner resolutions drawn from.
const DPIS: [u32; 5] = [150, 200, 240, 300, 300];

#[derive(Debug, Clone)]
pub struct ScanPlan {
    pub dpi: u32,
    card_width: u32,
}

impl ScanPlan {
    pub fn draw(page: &Page, rng: &mut ChaCha8Rng) -> ScanPlan {
        let dpi = DPIS[rng.random_range(0..DPIS.len())];
        let card_width = (page.width_mm / 25.4 * dpi as f32).round() as u32;
        ScanPlan { dpi, card_width }
    }

    pub fn card_width(&self) -> u32 {
        self.card_width
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScanParams {
    pub dpi: u32,
    /// Small skew, degrees (positive = clockwise).
    pub rotation_deg: f32,
    /// Quarter turns clockwise (0 upright, 1 sideways, 2 upside down, 3 sideways).
    pub quarter_turns: u8,
    /// Page margin around the card, pixels: left, top, right, bottom.
    pub margins: [u32; 4],
    pub blur_sigma: f32,
    pub noise_sigma: f32,
    /// JPEG quality, or `None` for a PNG.
    pub jpeg_quality: Option<u8>,
}

/// Scans `card`. `for_pdf` forces JPEG (a PDF embeds the scan with DCTDecode).
pub fn capture(
    plan: &ScanPlan,
    card: &RenderedCard,
    rng: &mut ChaCha8Rng,
    for_pdf: bool,
) -> Captured {
    let (image, params, card_to_image) = scan_raster(plan, card, rng, for_pdf);
    let (bytes, extension) = match params.jpeg_quality {
        Some(q) => (degrade::jpeg_rgb(&image, q), "jpg"),
        None => (png_bytes(&image), "png"),
    };
    Captured {
        bytes,
        extension,
        width: image.width(),
        height: image.height(),
        card_to_image,
        beside_to_image: None,
        params: CaptureParams::Scan(params),
    }
}

/// The scanned raster before encoding.
pub fn scan_raster(
    plan: &ScanPlan,
    card: &RenderedCard,
    rng: &mut ChaCha8Rng,
    force_jpeg: bool,
) -> (RgbImage, ScanParams, Homography) {
    let (cw, ch) = (card.image.width() as f64, card.image.height() as f64);
    let rotation_deg: f32 = if rng.random_bool(0.3) {
        0.0
    } else {
        uniform(rng, -3.5, 3.5)
    };
    let quarter_turns: u8 = if rng.random_bool(0.82) {
        0
    } else {
        rng.random_range(1..4)
    };
    let angle = rotation_deg.to_radians() as f64 + quarter_turns as f64 * FRAC_PI_2;
    let rotate = Homography::similarity(1.0, angle, 0.0, 0.0);
    let corners = rotate.card_corners(cw, ch);
    let min_x = corners.iter().map(|p| p[0]).fold(f64::MAX, f64::min);
    let min_y = corners.iter().map(|p| p[1]).fold(f64::MAX, f64::min);
    let max_x = corners.iter().map(|p| p[0]).fold(f64::MIN, f64::max);
    let max_y = corners.iter().map(|p| p[1]).fold(f64::MIN, f64::max);
    let margin =
        |rng: &mut ChaCha8Rng| (uniform(rng, 0.02, 0.45) as f64 * cw.min(ch)).round() as u32 + 4;
    let margins = [margin(rng), margin(rng), margin(rng), margin(rng)];
    let width = (max_x - min_x).ceil() as u32 + margins[0] + margins[2];
    let height = (max_y - min_y).ceil() as u32 + margins[1] + margins[3];
    let card_to_image = Homography::similarity(
        1.0,
        angle,
        margins[0] as f64 - min_x,
        margins[1] as f64 - min_y,
    );

    let mut image = scanner_page(width, height, rng);
    let shadow = Shadow {
        width: (plan.dpi as f32 / 100.0).max(1.5),
        strength: uniform(rng, 0.15, 0.45),
        offset: [uniform(rng, -1.0, 1.5), uniform(rng, -1.0, 1.5)],
    };
    composite_card(
        &mut image,
        &card.image,
        card.corner_radius,
        &card_to_image,
        Some(shadow),
    );

    let blur_sigma = if rng.random_bool(0.6) {
        uniform(rng, 0.3, 1.0)
    } else {
        0.0
    };
    image = degrade::blur(&image, blur_sigma);
    let noise_sigma = uniform(rng, 0.5, 4.0);
    degrade::add_noise(&mut image, noise_sigma, rng);
    let jpeg_quality = if force_jpeg || rng.random_bool(0.85) {
        Some(rng.random_range(60..=95u8))
    } else {
        None
    };
    let params = ScanParams {
        dpi: plan.dpi,
        rotation_deg,
        quarter_turns,
        margins,
        blur_sigma,
        noise_sigma,
        jpeg_quality,
    };
    (image, params, card_to_image)
}

/// The scanner's white lid seen through the glass: near-white with a faint gradient
/// and, sometimes, the shadow of the lid edge along one side.
pub(super) fn scanner_page(width: u32, height: u32, rng: &mut ChaCha8Rng) -> RgbImage {
    let white: f32 = uniform(rng, 232.0, 252.0);
    let tint = [
        uniform(rng, 0.98, 1.0),
        uniform(rng, 0.98, 1.0),
        uniform(rng, 0.96, 1.0),
    ];
    let noise = ValueNoise::new(width, height, 120.0, rng);
    let lid_edge = rng
        .random_bool(0.25)
        .then(|| (rng.random_range(0..4u8), uniform(rng, 8.0, 40.0)));
    let mut img = RgbImage::new(width, height);
    for (x, y, p) in img.enumerate_pixels_mut() {
        let mut v = white + 3.0 * noise.at(x as f32, y as f32);
        if let Some((side, depth)) = lid_edge {
            let d = match side {
                0 => x as f32,
                1 => y as f32,
                2 => (width - x) as f32,
                _ => (height - y) as f32,
            };
            v -= 60.0 * (1.0 - d / depth).max(0.0);
        }
        p.0 = tint.map(|t| (v * t).clamp(0.0, 255.0) as u8);
    }
    img
}

fn png_bytes(image: &RgbImage) -> Vec<u8> {
    let mut out = Vec::new();
    let encoder = image::codecs::png::PngEncoder::new(std::io::Cursor::new(&mut out));
    // Encoding an in-memory buffer of valid dimensions cannot fail.
    let _ = image.write_with_encoder(encoder);
    out
}
