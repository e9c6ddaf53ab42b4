//! A phone photo: the card on a table or cloth, seen at an angle (perspective up to
//! about 10 % of the card size), rotated, unevenly lit, with a glare spot, motion or
//! focus blur, at low resolution and with JPEG quality 40 to 90.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::geometry::{Homography, Shadow, composite_card};
use super::light::{Glare, Slope};
use super::surface::{Surface, ValueNoise, surface};
use super::{CaptureParams, Captured};
use crate::layout::Page;
use crate::synth::degrade::{self, uniform};
use crate::synth::render::RenderedCard;

/// Longest side of the photo in pixels, from low-end to ordinary phone output.
const LONG_SIDES: [u32; 6] = [640, 800, 1024, 1280, 1280, 1600];

#[derive(Debug, Clone)]
pub struct PhotoPlan {
    width: u32,
    height: u32,
    /// Card width in the photo, as a fraction of the photo's width.
    fill: f32,
    /// Render the card this much larger than it appears, so warping only shrinks it.
    oversample: f32,
}

impl PhotoPlan {
    pub fn draw(page: &Page, rng: &mut ChaCha8Rng) -> PhotoPlan {
        let long = LONG_SIDES[rng.random_range(0..LONG_SIDES.len())];
        let ratio = if rng.random_bool(0.7) {
            4.0 / 3.0
        } else {
            16.0 / 9.0
        };
        let short = (long as f32 / ratio).round() as u32;
        let (width, height) = if rng.random_bool(0.8) {
            (long, short)
        } else {
            (short, long)
        };
        // A passport page is bigger than a card, but both fill a similar share of the
        // shot; only the aspect matters here.
        let fill_max = if page.aspect() < 1.5 { 0.8 } else { 0.85 };
        PhotoPlan {
            width,
            height,
            fill: uniform(rng, 0.5, fill_max),
            oversample: uniform(rng, 1.0, 1.25),
        }
    }

    pub fn card_width(&self) -> u32 {
        (self.width.min(self.height) as f32 * self.fill * self.oversample)
            .round()
            .max(64.0) as u32
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PhotoParams {
    pub width: u32,
    pub height: u32,
    pub surface: Surface,
    /// In-plane rotation, degrees.
    pub rotation_deg: f32,
    /// Largest corner displacement of the perspective, as a fraction of the card size.
    pub perspective: f32,
    /// Darkest / brightest light factor across the frame.
    pub light_range: [f32; 2],
    /// Glare spot `[x, y, radius, strength]` in photo pixels, if any.
    pub glare: Option<[f32; 4]>,
    pub motion_blur_px: f32,
    /// Direction of the motion blur, degrees from the image's x axis (0 when none;
    /// absent from truth written before it was recorded).
    #[serde(default)]
    pub motion_blur_angle_deg: f32,
    pub focus_blur_sigma: f32,
    pub noise_sigma: f32,
    pub jpeg_quality: u8,
}

pub fn capture(plan: &PhotoPlan, card: &RenderedCard, rng: &mut ChaCha8Rng) -> Captured {
    let (w, h) = (plan.width as f64, plan.height as f64);
    let (cw, ch) = (card.image.width() as f64, card.image.height() as f64);
    let upright_card = w < h && rng.random_bool(0.5); // card turned with a portrait shot
    let rotation_deg = uniform(rng, -18.0, 18.0) + if upright_card { 90.0 } else { 0.0 };
    let perspective = uniform(rng, 0.0, 0.10);
    let jitter: Vec<[f64; 2]> = (0..4)
        .map(|_| {
            [
                uniform(rng, -1.0, 1.0) as f64,
                uniform(rng, -1.0, 1.0) as f64,
            ]
        })
        .collect();
    let centre = [
        w * uniform(rng, 0.42, 0.58) as f64,
        h * uniform(rng, 0.42, 0.58) as f64,
    ];
    let corners = [[0.0, 0.0], [cw, 0.0], [cw, ch], [0.0, ch]];
    let angle = (rotation_deg as f64).to_radians();
    let placed = |scale: f64| -> [[f64; 2]; 4] {
        let place = Homography::similarity(scale, angle, 0.0, 0.0);
        let d = perspective as f64 * scale;
        let mut out = [[0.0; 2]; 4];
        for ((o, p), j) in out.iter_mut().zip(corners).zip(&jitter) {
            let [x, y] = place.apply([p[0] - cw / 2.0, p[1] - ch / 2.0]);
            *o = [centre[0] + x + j[0] * d * cw, centre[1] + y + j[1] * d * ch];
        }
        out
    };
    let fits = |q: &[[f64; 2]; 4]| {
        q.iter()
            .all(|p| p[0] > w * 0.02 && p[0] < w * 0.98 && p[1] > h * 0.02 && p[1] < h * 0.98)
    };
    // Shrink until the perspective quad fits in the frame with a small border.
    let mut scale = plan.width.min(plan.height) as f64 * plan.fill as f64 / cw;
    for _ in 0..40 {
        if fits(&placed(scale)) {
            break;
        }
        scale *= 0.93;
    }
    let card_to_image = Homography::from_quads(corners, placed(scale)).unwrap_or_else(|| {
        Homography::similarity(
            scale,
            angle,
            centre[0] - scale * cw / 2.0,
            centre[1] - scale * ch / 2.0,
        )
    });

    let surface_kind = Surface::random(rng);
    let mut image = surface(surface_kind, plan.width, plan.height, rng);
    let shadow = Shadow {
        width: (scale * cw * 0.03) as f32 + 2.0,
        strength: uniform(rng, 0.2, 0.5),
        offset: [uniform(rng, -6.0, 6.0), uniform(rng, 0.0, 8.0)],
    };
    composite_card(
        &mut image,
        &card.image,
        card.corner_radius,
        &card_to_image,
        Some(shadow),
    );

    // Uneven light: a tilted gradient times a vignette, plus a colour cast.
    let slope = Slope::draw(rng);
    let cast = [
        uniform(rng, 0.92, 1.06),
        uniform(rng, 0.95, 1.03),
        uniform(rng, 0.88, 1.05),
    ];
    let light_noise = ValueNoise::new(plan.width, plan.height, 300.0, rng);
    let glare = Glare::draw(
        rng,
        |u, v| {
            let c = card_to_image.apply([u as f64 * cw, v as f64 * ch]);
            (c[0] as f32, c[1] as f32)
        },
        (scale * cw) as f32,
    );
    let (wf, hf) = (plan.width as f32, plan.height as f32);
    for (x, y, p) in image.enumerate_pixels_mut() {
        let (fx, fy) = (x as f32 / wf - 0.5, y as f32 / hf - 0.5);
        let vignette = 1.0 - 0.35 * (fx * fx + fy * fy);
        let light = slope.at(fx, fy) * vignette + 0.04 * light_noise.at(x as f32, y as f32);
        let add = glare.map_or(0.0, |g| g.at(x as f32, y as f32));
        for (v, k) in p.0.iter_mut().zip(cast) {
            *v = (*v as f32 * light * k + add).clamp(0.0, 255.0) as u8;
        }
    }

    let (mut motion_blur_px, mut motion_blur_angle, mut focus_blur_sigma) = (0.0, 0.0, 0.0);
    match rng.random_range(0..10) {
        0..=2 => {
            motion_blur_px = uniform(rng, 2.0, 9.0);
            motion_blur_angle = uniform(rng, 0.0, std::f32::consts::PI);
            image = degrade::motion_blur(&image, motion_blur_px, motion_blur_angle);
        }
        3..=5 => {
            focus_blur_sigma = uniform(rng, 0.6, 2.0);
            image = degrade::blur(&image, focus_blur_sigma);
        }
        _ => {
            focus_blur_sigma = uniform(rng, 0.0, 0.6);
            image = degrade::blur(&image, focus_blur_sigma);
        }
    }
    let noise_sigma = uniform(rng, 2.0, 9.0);
    degrade::add_noise(&mut image, noise_sigma, rng);
    let jpeg_quality = rng.random_range(40..=90u8);
    let bytes = degrade::jpeg_rgb(&image, jpeg_quality);
    let params = PhotoParams {
        width: plan.width,
        height: plan.height,
        surface: surface_kind,
        rotation_deg,
        perspective,
        light_range: slope.range(),
        glare: glare.map(|g| [g.x, g.y, g.radius, g.strength]),
        motion_blur_px,
        motion_blur_angle_deg: motion_blur_angle.to_degrees(),
        focus_blur_sigma,
        noise_sigma,
        jpeg_quality,
    };
    Captured {
        bytes,
        extension: "jpg",
        width: plan.width,
        height: plan.height,
        card_to_image,
        beside_to_image: None,
        params: CaptureParams::Photo(params),
    }
}
