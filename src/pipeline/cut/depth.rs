//! How far each pixel lies below the paper just around it: a stroke of ink is
//! deep, a tinted panel or a photo's shadow, however dark, is not, since it is
//! wider than any stroke. The grey-level closing of the window by a square wider
//! than strokes (the brightest level within it, then the darkest of those) fills
//! every stroke with the paper around it and leaves larger areas as they are.

use image::GrayImage;

/// Per pixel (row-major), the closing of `window` by a square of side
/// `2 * reach + 1` less the pixel's own level. A square's extreme is its columns'
/// extreme across its rows, so each pass runs along one direction; the rows'
/// passes run down the columns of the transposed window.
pub(super) fn stroke_depth(window: &GrayImage, reach: usize) -> Vec<u8> {
    let closed = paper_around(window, reach);
    closed
        .iter()
        .zip(window.as_raw())
        .map(|(&c, &g)| c.saturating_sub(g))
        .collect()
}

/// Per pixel (row-major), the closing of `window` by a square of side
/// `2 * reach + 1`: the paper's level there, strokes narrower than the square
/// filled in.
pub(super) fn paper_around(window: &GrayImage, reach: usize) -> Vec<u8> {
    let (width, height) = (window.width() as usize, window.height() as usize);
    let brightest = along_columns(window.as_raw(), width, height, reach, Extreme::Brightest);
    let across = transpose(&brightest, width, height);
    let across = along_columns(&across, height, width, reach, Extreme::Brightest);
    let across = along_columns(&across, height, width, reach, Extreme::Darkest);
    let darkest = transpose(&across, height, width);
    along_columns(&darkest, width, height, reach, Extreme::Darkest)
}

#[derive(Clone, Copy)]
enum Extreme {
    Brightest,
    Darkest,
}

impl Extreme {
    /// The level that never wins.
    fn neutral(self) -> u8 {
        match self {
            Extreme::Brightest => 0,
            Extreme::Darkest => u8::MAX,
        }
    }

    /// `into[i]` = the more extreme of `into[i]` and `other[i]`.
    fn fold(self, into: &mut [u8], other: &[u8]) {
        let pairs = into.iter_mut().zip(other);
        match self {
            Extreme::Brightest => pairs.for_each(|(a, &b)| *a = (*a).max(b)),
            Extreme::Darkest => pairs.for_each(|(a, &b)| *a = (*a).min(b)),
        }
    }
}

/// Each pixel's most `extreme` level within `reach` rows of it, by van Herk's
/// blocks: the rows are cut into blocks one window long, and a window, which
/// spans at most two, is the extreme of the first's tail and the second's head.
/// Whole rows at a time, so the compiler runs each step over many pixels at once.
fn along_columns(
    levels: &[u8],
    width: usize,
    height: usize,
    reach: usize,
    extreme: Extreme,
) -> Vec<u8> {
    let window = 2 * reach + 1;
    // Padded with rows that never win, so every window is `window` rows long.
    let rows = height + 2 * reach;
    let mut padded = vec![extreme.neutral(); rows * width];
    padded[reach * width..(reach + height) * width].copy_from_slice(levels);
    let mut head = padded.clone();
    let mut tail = padded;
    for y in 1..rows {
        if y % window != 0 {
            let (before, this) = head.split_at_mut(y * width);
            extreme.fold(&mut this[..width], &before[(y - 1) * width..]);
        }
    }
    for y in (0..rows - 1).rev() {
        if y % window != window - 1 {
            let (this, after) = tail.split_at_mut((y + 1) * width);
            extreme.fold(&mut this[y * width..], &after[..width]);
        }
    }
    // The window of output row `y` is padded rows `y ..= y + 2 * reach`.
    let mut out = tail;
    out.truncate(height * width);
    for (y, line) in out.chunks_exact_mut(width).enumerate() {
        extreme.fold(line, &head[(y + 2 * reach) * width..]);
    }
    out
}

fn transpose(levels: &[u8], width: usize, height: usize) -> Vec<u8> {
    let mut out = vec![0; levels.len()];
    for (y, row) in levels.chunks_exact(width).enumerate() {
        for (x, &v) in row.iter().enumerate() {
            out[x * height + y] = v;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thin_stroke_is_deep_and_a_wide_dark_panel_is_not() {
        // Paper at 220, a dark panel at 120 over the top half, a 3 px stroke at
        // 60 down column 30 of the lower half.
        let window = GrayImage::from_fn(60, 40, |x, y| {
            let level = if y < 20 {
                120
            } else if (29..32).contains(&x) {
                60
            } else {
                220
            };
            image::Luma([level])
        });
        let depth = stroke_depth(&window, 4);
        assert_eq!(depth[30 * 60 + 30], 160, "the stroke, against the paper");
        assert_eq!(depth[10 * 60 + 30], 0, "the panel's middle");
        assert_eq!(depth[30 * 60 + 10], 0, "the paper");
    }

    #[test]
    fn each_pixel_takes_the_extreme_within_reach_of_it_down_its_column() {
        let column = [5, 1, 9, 3, 3, 7, 0];
        assert_eq!(
            along_columns(&column, 1, 7, 1, Extreme::Brightest),
            [5, 9, 9, 9, 7, 7, 7]
        );
        assert_eq!(
            along_columns(&column, 1, 7, 2, Extreme::Darkest),
            [1, 1, 1, 1, 0, 0, 0]
        );
    }
}
