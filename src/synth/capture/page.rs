//! A whole page from an office scanner: the card lies anywhere on an A4 or Letter
//! sheet, at any angle, scanned at 150 to 600 dpi in colour or grey, sent as the
//! JPEG or as a one-page PDF holding it; now and then the card's other side lies
//! beside it or below it on the same sheet, as people copy both sides of an ID.

use std::f64::consts::{FRAC_PI_2, TAU};

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::geometry::{Homography, Shadow, composite_card};
use super::pdf::one_page_pdf;
use super::scan::scanner_page;
use super::{CaptureParams, Captured};
use crate::layout::Page;
use crate::synth::degrade::{self, uniform};
use crate::synth::render::{RenderedCard, paint};

/// Scanner resolutions drawn from: office defaults first.
const DPIS: [u32; 7] = [150, 200, 300, 300, 300, 400, 600];

/// Share of pages that hold the card's other side too (when it has one).
const BOTH_SIDES_SHARE: f64 = 0.35;

/// A sheet of paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Paper {
    A4,
    Letter,
}

impl Paper {
    /// Width and height in millimetres, portrait.
    pub fn size_mm(self) -> [f64; 2] {
        match self {
            Paper::A4 => [210.0, 297.0],
            Paper::Letter => [215.9, 279.4],
        }
    }
}

/// How the card's other side lies on the sheet, when it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arrangement {
    /// The document alone.
    Alone,
    /// Both sides in a row.
    SideBySide,
    /// One side above the other.
    Stacked,
}

#[derive(Debug, Clone)]
pub struct PagePlan {
    dpi: u32,
    card_width: u32,
    both_sides: bool,
}

impl PagePlan {
    pub fn draw(page: &Page, rng: &mut ChaCha8Rng) -> PagePlan {
        let dpi = DPIS[rng.random_range(0..DPIS.len())];
        PagePlan {
            dpi,
            card_width: (page.width_mm / 25.4 * dpi as f32).round() as u32,
            both_sides: rng.random_bool(BOTH_SIDES_SHARE),
        }
    }

    pub fn card_width(&self) -> u32 {
        self.card_width
    }

    /// Whether the document's other side should lie on the sheet too.
    pub fn both_sides(&self) -> bool {
        self.both_sides
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PageParams {
    pub paper: Paper,
    pub landscape: bool,
    pub dpi: u32,
    pub arrangement: Arrangement,
    /// The document's rotation on the sheet, degrees clockwise.
    pub rotation_deg: f32,
    /// Scanned in grey rather than colour.
    pub grey: bool,
    pub blur_sigma: f32,
    pub noise_sigma: f32,
    pub jpeg_quality: u8,
    /// Sent as a one-page PDF (the JPEG on a page of the paper's size) rather than
    /// the JPEG itself.
    pub pdf: bool,
}

/// Scans `card` on a page, with `beside` (its other side) when the plan asks and
/// there is one. The placements of [`Captured`] list `card` first.
pub fn capture(
    plan: &PagePlan,
    card: &RenderedCard,
    beside: Option<&RenderedCard>,
    rng: &mut ChaCha8Rng,
) -> Captured {
    let paper = if rng.random_bool(0.75) {
        Paper::A4
    } else {
        Paper::Letter
    };
    let landscape = rng.random_bool(0.15);
    let [mut pw, mut ph] = paper.size_mm();
    if landscape {
        (pw, ph) = (ph, pw);
    }
    let px_per_mm = plan.dpi as f64 / 25.4;
    let (width, height) = (
        (pw * px_per_mm).round() as u32,
        (ph * px_per_mm).round() as u32,
    );
    let beside = beside.filter(|_| plan.both_sides);
    let (cw, ch) = (card.image.width() as f64, card.image.height() as f64);
    // The cards' boxes, centred on the origin, in card pixels (= scan pixels).
    let gap = uniform(rng, 3.0, 25.0) as f64 * px_per_mm;
    let (arrangement, boxes) = match beside {
        None => (Arrangement::Alone, vec![[-cw / 2.0, -ch / 2.0]]),
        Some(other) => {
            let (ow, oh) = (other.image.width() as f64, other.image.height() as f64);
            // Which side comes first, left or top.
            let first = rng.random_bool(0.5);
            if rng.random_bool(0.35) {
                let half = (cw + gap + ow) / 2.0;
                let (card_x, other_x) = if first {
                    (-half, half - ow)
                } else {
                    (half - cw, -half)
                };
                (
                    Arrangement::SideBySide,
                    vec![[card_x, -ch / 2.0], [other_x, -oh / 2.0]],
                )
            } else {
                let half = (ch + gap + oh) / 2.0;
                let (card_y, other_y) = if first {
                    (-half, half - oh)
                } else {
                    (half - ch, -half)
                };
                (
                    Arrangement::Stacked,
                    vec![[-cw / 2.0, card_y], [-ow / 2.0, other_y]],
                )
            }
        }
    };
    let quarter_turns = if rng.random_bool(0.85) {
        0.0
    } else {
        rng.random_range(1..4) as f64
    };
    let angle = match (beside.is_some(), rng.random_range(0..10)) {
        // Any angle at all for a card alone, now and then.
        (false, 0..=2) => rng.random_range(0.0..TAU),
        _ => quarter_turns * FRAC_PI_2 + (uniform(rng, -4.0, 4.0) as f64).to_radians(),
    };
    // Each card of a pair lies a little askew of the other.
    let own_turns: Vec<f64> = boxes
        .iter()
        .map(|_| match beside {
            Some(_) => (uniform(rng, -1.5, 1.5) as f64).to_radians(),
            None => 0.0,
        })
        .collect();
    let sizes: Vec<(f64, f64)> = std::iter::once((cw, ch))
        .chain(beside.map(|o| (o.image.width() as f64, o.image.height() as f64)))
        .collect();
    // Each card: turned about its own centre, placed, then the group turned.
    let local: Vec<Homography> = boxes
        .iter()
        .zip(&sizes)
        .zip(&own_turns)
        .map(|((&[x, y], &(w, h)), &turn)| {
            let spin = Homography::similarity(1.0, turn, 0.0, 0.0);
            let [cx, cy] = spin.apply([w / 2.0, h / 2.0]);
            let centre = [x + w / 2.0, y + h / 2.0];
            Homography::similarity(1.0, angle, 0.0, 0.0).after(&Homography::similarity(
                1.0,
                turn,
                centre[0] - cx,
                centre[1] - cy,
            ))
        })
        .collect();
    let points: Vec<[f64; 2]> = local
        .iter()
        .zip(&sizes)
        .flat_map(|(h, &(w, ht))| h.card_corners(w, ht))
        .collect();
    let (min_x, max_x) = extent(points.iter().map(|p| p[0]));
    let (min_y, max_y) = extent(points.iter().map(|p| p[1]));
    let margin = 4.0 * px_per_mm;
    let place = |lo: f64, hi: f64, size: f64, rng: &mut ChaCha8Rng| {
        let free = size - 2.0 * margin - (hi - lo);
        margin - lo
            + if free > 0.0 {
                rng.random_range(0.0..free)
            } else {
                free / 2.0
            }
    };
    let tx = place(min_x, max_x, width as f64, rng);
    let ty = place(min_y, max_y, height as f64, rng);
    let placements: Vec<Homography> = local
        .iter()
        .map(|h| Homography::similarity(1.0, 0.0, tx, ty).after(h))
        .collect();

    let mut image = scanner_page(width, height, rng);
    let shadow = Shadow {
        width: (plan.dpi as f32 / 100.0).max(1.5),
        strength: uniform(rng, 0.15, 0.45),
        offset: [uniform(rng, -1.0, 1.5), uniform(rng, -1.0, 1.5)],
    };
    for (rendered, h) in std::iter::once(card).chain(beside).zip(&placements) {
        composite_card(
            &mut image,
            &rendered.image,
            rendered.corner_radius,
            h,
            Some(shadow),
        );
    }
    let blur_sigma = if rng.random_bool(0.6) {
        uniform(rng, 0.3, 1.0) * (plan.dpi as f32 / 300.0).max(0.5)
    } else {
        0.0
    };
    let grey = rng.random_bool(0.3);
    let noise_sigma = uniform(rng, 0.5, 4.0);
    let jpeg_quality = rng.random_range(60..=95u8);
    let pdf = rng.random_bool(0.25);
    let jpeg = if grey {
        let mut grey_image = degrade::blur(&paint::to_gray(&image), blur_sigma);
        degrade::add_noise(&mut grey_image, noise_sigma, rng);
        degrade::jpeg_gray(&grey_image, jpeg_quality)
    } else {
        image = degrade::blur(&image, blur_sigma);
        degrade::add_noise(&mut image, noise_sigma, rng);
        degrade::jpeg_rgb(&image, jpeg_quality)
    };
    let points_per_mm = 72.0 / 25.4;
    let (bytes, extension) = if pdf {
        let page = [(pw * points_per_mm) as f32, (ph * points_per_mm) as f32];
        (one_page_pdf(&jpeg, width, height, grey, page), "pdf")
    } else {
        (jpeg, "jpg")
    };
    let params = PageParams {
        paper,
        landscape,
        dpi: plan.dpi,
        arrangement,
        rotation_deg: angle.to_degrees().rem_euclid(360.0) as f32,
        grey,
        blur_sigma,
        noise_sigma,
        jpeg_quality,
        pdf,
    };
    let mut placements = placements.into_iter();
    Captured {
        bytes,
        extension,
        width,
        height,
        card_to_image: placements
            .next()
            .unwrap_or(Homography::similarity(1.0, 0.0, 0.0, 0.0)),
        beside_to_image: placements.next(),
        params: CaptureParams::Page(params),
    }
}

fn extent(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)))
}
