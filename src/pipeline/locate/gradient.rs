//! The gradient field the locator works on: a Sobel gradient max-pooled onto a small
//! grid, with the threshold above which a gradient counts as an edge.

use image::RgbImage;

/// Share of the edge threshold a card's faint edge needs where a search knows
/// about where it lies and which way it steps (beyond the print on a card, around
/// a block printed on it, along a side moved onto it): a blurred photo's card
/// edge is spread over a few pixels, and a pale card's on pale paper is a shade.
/// At 0.35 noise started to back lines; 0.5 measured best on tuning photos.
const FAINT_EDGE: f32 = 0.5;

/// Smoothed grey image with its Sobel gradient.
pub(super) struct GradientField {
    pub(super) width: usize,
    pub(super) height: usize,
    pub(super) gx: Vec<f32>,
    pub(super) gy: Vec<f32>,
    pub(super) mag: Vec<f32>,
    /// See [`surface_edge_threshold`]; computed once, as every scored quad asks.
    pub(super) threshold: f32,
}

impl GradientField {
    /// Sobel gradient of the full-resolution image, max-pooled onto a `sw`×`sh`
    /// grid: a card's thin printed outline survives, where averaging the image
    /// down first would wash it out. Each pixel takes the colour channel with the
    /// strongest gradient: a cream or pale blue card on white paper differs from
    /// it in one channel far more than in brightness.
    pub(super) fn pooled(image: &RgbImage, sw: u32, sh: u32) -> GradientField {
        let (w, h) = (image.width() as usize, image.height() as usize);
        let (width, height) = (sw as usize, sh as usize);
        let px = image.as_raw();
        let mut gx = vec![0f32; width * height];
        let mut gy = vec![0f32; width * height];
        let mut mag = vec![0i32; width * height];
        let column: Vec<usize> = (0..w).map(|x| (x * width / w).min(width - 1)).collect();
        let stride = 3 * w;
        for y in 1..h.saturating_sub(1) {
            let row = (y * height / h).min(height - 1) * width;
            let (up, mid, down) = (
                &px[(y - 1) * stride..y * stride],
                &px[y * stride..(y + 1) * stride],
                &px[(y + 1) * stride..(y + 2) * stride],
            );
            for (x, &cell) in column.iter().enumerate().take(w.saturating_sub(1)).skip(1) {
                let (l, c, r) = (3 * (x - 1), 3 * x, 3 * (x + 1));
                let mut best = (0i32, 0i32, 0i32);
                for ch in 0..3 {
                    let at = |line: &[u8], i: usize| i32::from(line[i + ch]);
                    let dx = (at(up, r) + 2 * at(mid, r) + at(down, r))
                        - (at(up, l) + 2 * at(mid, l) + at(down, l));
                    let dy = (at(down, l) + 2 * at(down, c) + at(down, r))
                        - (at(up, l) + 2 * at(up, c) + at(up, r));
                    let m2 = dx * dx + dy * dy;
                    if m2 > best.0 {
                        best = (m2, dx, dy);
                    }
                }
                let i = row + cell;
                if best.0 > mag[i] {
                    mag[i] = best.0;
                    gx[i] = best.1 as f32 / 8.0;
                    gy[i] = best.2 as f32 / 8.0;
                }
            }
        }
        let mut field = GradientField {
            width,
            height,
            gx,
            gy,
            mag: mag.iter().map(|&m| (m as f32).sqrt() / 8.0).collect(),
            threshold: 0.0,
        };
        field.threshold = surface_edge_threshold(&field);
        field
    }

    /// The threshold for a faint edge where a search knows where to look for one
    /// ([`FAINT_EDGE`]).
    pub(super) fn faint_threshold(&self) -> f32 {
        FAINT_EDGE * self.threshold
    }

    /// Gradient at the nearest pixel, zero outside.
    #[inline]
    pub(super) fn at(&self, x: f32, y: f32) -> (f32, f32) {
        // Rounding as `f32::round` does for these (non-negative) positions, without
        // its libm call: this is the locator's innermost loop.
        if x <= -0.5 || y <= -0.5 {
            return (0.0, 0.0);
        }
        let (xi, yi) = ((x + 0.5) as usize, (y + 0.5) as usize);
        if xi >= self.width || yi >= self.height {
            return (0.0, 0.0);
        }
        let i = yi * self.width + xi;
        (self.gx[i], self.gy[i])
    }
}

/// Gradient magnitude that counts as an edge: well above the noise and texture
/// level of the surface the document lies on, read in the image's outer band (the
/// document's own print, barcodes above all, would inflate a whole-image level and
/// hide a pale card's faint outline), never below a floor that print noise reaches.
pub(super) fn surface_edge_threshold(field: &GradientField) -> f32 {
    let (w, h) = (field.width, field.height);
    let band = (w.min(h) / 10).max(1);
    let mut sample: Vec<f32> = (0..w * h)
        .step_by(3)
        .filter(|i| {
            let (x, y) = (i % w, i / w);
            x < band || y < band || x >= w - band || y >= h - band
        })
        .map(|i| field.mag[i])
        .collect();
    if sample.is_empty() {
        return 6.0;
    }
    let mid = sample.len() / 2;
    let (_, median, _) = sample.select_nth_unstable_by(mid, f32::total_cmp);
    (3.0 * *median).max(6.0)
}
