//! Turning grey line crops into the model's input: fixed height, variable width,
//! ink high and background zero, padded into batches with an attention mask.

use candle_core::{Device, Result, Tensor};
use image::GrayImage;
use image::imageops::{self, FilterType};

use super::config::ModelConfig;
use super::model::layers::NEG_INF;

/// One crop scaled to the model's height: `width` columns of `height` values in
/// 0..=1, row-major, ink high.
#[derive(Debug, Clone, PartialEq)]
pub struct LineInput {
    pub width: usize,
    pub pixels: Vec<f32>,
}

impl LineInput {
    /// Encoder tokens this crop occupies.
    pub fn tokens(&self, cfg: &ModelConfig) -> usize {
        self.width / cfg.patch_width
    }
}

/// Scales `crop` to the configured height (keeping its aspect ratio, squeezing
/// crops wider than `max_width`), stretches its contrast and inverts it so ink is 1.
///
/// Contrast is stretched between robust dark and light levels so photos with a grey
/// background or faded print look like scans to the model.
pub fn prepare(crop: &GrayImage, cfg: &ModelConfig) -> LineInput {
    let (w, h) = crop.dimensions();
    let height = cfg.height;
    let scaled_w = if h == 0 {
        0
    } else {
        (w as f64 * height as f64 / h as f64).round() as usize
    };
    let width = input_width(scaled_w, cfg);
    if w == 0 || h == 0 {
        return LineInput {
            width,
            pixels: vec![0.0; width * height],
        };
    }
    let resized = imageops::resize(crop, width as u32, height as u32, FilterType::Triangle);
    let (dark, light) = levels(&resized);
    let span = (light - dark).max(1.0);
    let pixels = resized
        .as_raw()
        .iter()
        .map(|&p| ((light - p as f32) / span).clamp(0.0, 1.0))
        .collect();
    LineInput { width, pixels }
}

/// The model's input width for a crop `scaled` columns wide at the model's height: at
/// least two tokens so even a one-character crop has context, at most `max_width`
/// (wider crops are squeezed), and a multiple of the patch width so the patch unfold
/// is exact.
pub fn input_width(scaled: usize, cfg: &ModelConfig) -> usize {
    let pw = cfg.patch_width;
    scaled.clamp(2 * pw, cfg.max_width).div_ceil(pw) * pw
}

/// The grey level of the paper around a line's ink (see [`levels`]).
pub fn paper_level(crop: &GrayImage) -> u8 {
    levels(crop).1 as u8
}

/// The 2nd and 90th percentile grey levels: ink is a minority of a line crop, so the
/// 90th percentile is background and the 2nd the darkest ink.
fn levels(img: &GrayImage) -> (f32, f32) {
    let histogram = Histogram::of(img.as_raw().iter().copied());
    let (dark, light) = (histogram.percentile(0.02), histogram.percentile(0.90));
    if light - dark < 24.0 {
        // Blank or nearly blank crop: do not amplify noise into strokes.
        (0.0, 255.0)
    } else {
        (dark, light)
    }
}

/// Counts of grey levels, for their percentiles: a line crop's ink and paper
/// here, a field window's in the line cutter.
#[derive(Debug, Clone)]
pub struct Histogram {
    counts: [i64; 256],
    total: i64,
}

impl Default for Histogram {
    fn default() -> Histogram {
        Histogram {
            counts: [0; 256],
            total: 0,
        }
    }
}

impl Histogram {
    pub fn of(values: impl Iterator<Item = u8>) -> Histogram {
        let mut histogram = Histogram::default();
        values.for_each(|v| histogram.add(v, 1));
        histogram
    }

    /// Counts `value` `count` more times (fewer when negative: a sliding window's
    /// histogram drops what leaves it).
    pub fn add(&mut self, value: u8, count: i64) {
        self.counts[usize::from(value)] += count;
        self.total += count;
    }

    pub fn is_empty(&self) -> bool {
        self.total <= 0
    }

    /// The lowest level at or below which a share `q` of the values lie (the
    /// nearest rank); 255 when there are none.
    pub fn percentile(&self, q: f64) -> f32 {
        let target = ((q * self.total as f64).ceil() as i64).max(1);
        let mut seen = 0;
        for (value, &count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= target {
                return value as f32;
            }
        }
        255.0
    }
}

/// Widest over narrowest crop of one batch on a CPU, where the work grows with the
/// padded width (see [`width_groups`]). The bench's batch of 64 mixed fixture crops,
/// one thread: unsplit 720 ms; groups within 3x 382, 2x 311, 1.5x 277, 1.3x 279 ms
/// (more groups, more decoding loops).
pub const CPU_WIDTH_RATIO: f32 = 1.5;

/// Indices of crops of `widths`, narrowest first, in groups whose widest crop is at
/// most `ratio` times as wide as its narrowest: read as one batch, a line of 40 px
/// and an MRZ line of 512 px pad the short one's encoder work and cross-attention
/// 13-fold. The one rule that composes batches: the batcher groups queued crops with
/// it, and [`Recognizer::recognize`](super::Recognizer::recognize) the crops it is
/// handed, each with the ratio the recognizer states
/// ([`Recognizer::width_ratio`](super::Recognizer::width_ratio)).
pub fn width_groups(widths: &[usize], ratio: f32) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..widths.len()).collect();
    order.sort_by_key(|&i| widths[i]);
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in order {
        match groups.last_mut() {
            Some(group) if widths[i] as f32 <= widths[group[0]] as f32 * ratio => group.push(i),
            _ => groups.push(vec![i]),
        }
    }
    groups
}

/// A batch of prepared crops, padded on the right to the widest one.
#[derive(Debug, Clone)]
pub struct ImageBatch {
    /// [B, height, width]
    pub pixels: Tensor,
    /// Additive key mask [B, 1, 1, tokens]: 0 for real columns, large negative for padding.
    pub key_mask: Tensor,
    /// Real encoder tokens of each crop.
    pub token_lengths: Vec<usize>,
}

impl ImageBatch {
    pub fn new(inputs: &[&LineInput], cfg: &ModelConfig, device: &Device) -> Result<ImageBatch> {
        let b = inputs.len();
        let height = cfg.height;
        let width = inputs
            .iter()
            .map(|i| i.width)
            .max()
            .unwrap_or(2 * cfg.patch_width);
        let tokens = width / cfg.patch_width;
        let mut pixels = vec![0f32; b * height * width];
        let mut mask = vec![0f32; b * tokens];
        let mut token_lengths = Vec::with_capacity(b);
        for (i, input) in inputs.iter().enumerate() {
            for row in 0..height {
                let src = &input.pixels[row * input.width..(row + 1) * input.width];
                let dst = (i * height + row) * width;
                pixels[dst..dst + input.width].copy_from_slice(src);
            }
            let t = input.tokens(cfg);
            token_lengths.push(t);
            mask[i * tokens + t..(i + 1) * tokens].fill(NEG_INF);
        }
        Ok(ImageBatch {
            pixels: Tensor::from_vec(pixels, (b, height, width), device)?,
            key_mask: Tensor::from_vec(mask, (b, 1, 1, tokens), device)?,
            token_lengths,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Luma;

    #[test]
    fn crops_are_scaled_to_height_and_inverted() {
        let cfg = ModelConfig::small(100);
        let mut crop = GrayImage::from_pixel(200, 64, Luma([230]));
        for x in 50..60 {
            for y in 10..50 {
                crop.put_pixel(x, y, Luma([20]));
            }
        }
        let input = prepare(&crop, &cfg);
        assert_eq!(input.width, 100);
        assert_eq!(input.pixels.len(), 100 * cfg.height);
        // Background maps to 0, the stroke to 1.
        assert!(input.pixels[0] < 0.01);
        assert!(input.pixels[16 * 100 + 27] > 0.99);
        let wide = prepare(&GrayImage::new(5000, 20), &cfg);
        assert_eq!(wide.width, cfg.max_width);
        let empty = prepare(&GrayImage::new(0, 0), &cfg);
        assert_eq!(empty.width, 2 * cfg.patch_width);
    }

    #[test]
    fn width_groups_bound_the_padding_and_cover_every_crop_once() {
        let widths = [300, 40, 512, 60, 90, 120, 44];
        let groups = width_groups(&widths, 2.0);
        let grouped: Vec<Vec<usize>> = groups
            .iter()
            .map(|g| g.iter().map(|&i| widths[i]).collect())
            .collect();
        assert_eq!(
            grouped,
            vec![vec![40, 44, 60], vec![90, 120], vec![300, 512]]
        );
        let mut all: Vec<usize> = groups.concat();
        all.sort_unstable();
        assert_eq!(all, (0..widths.len()).collect::<Vec<_>>());
        assert_eq!(width_groups(&widths, f32::INFINITY).len(), 1);
        assert!(width_groups(&[], 2.0).is_empty());
    }

    #[test]
    fn batches_pad_and_mask() {
        let cfg = ModelConfig::small(100);
        let a = prepare(&GrayImage::from_pixel(64, 32, Luma([255])), &cfg);
        let b = prepare(&GrayImage::from_pixel(128, 32, Luma([255])), &cfg);
        let batch = ImageBatch::new(&[&a, &b], &cfg, &Device::Cpu).unwrap();
        assert_eq!(batch.pixels.dims(), &[2, 32, 128]);
        assert_eq!(batch.token_lengths, vec![16, 32]);
        let mask = batch
            .key_mask
            .flatten_all()
            .unwrap()
            .to_vec1::<f32>()
            .unwrap();
        assert_eq!(mask[15], 0.0);
        assert_eq!(mask[16], NEG_INF);
        assert!(mask[32..].iter().all(|&m| m == 0.0));
    }
}
