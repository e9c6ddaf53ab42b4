//! The upload at the scale the locator and the classifier were tuned at.
//!
//! Both look at the whole image, and both were tuned on photos and scans at most
//! 1,600 px long. A phone's 12 MP photo (4032x3024) is 2.5 times larger: its card's
//! edges spread over 2.5 times as many pixels, so the locator's 3x3 gradients see
//! them fainter, and it takes three times as long. Such an image is averaged down
//! first (an area filter, so nothing aliases), and what is found there is mapped
//! back to the upload, which the rectification still reads at full resolution.

use std::borrow::Cow;

use image::RgbImage;

use super::shrink::{Region, shrink};
use super::warp::Quad;

/// Longest side of the overview: the largest photo the generator renders, the
/// locator's and the classifier's tuning range.
pub const OVERVIEW_LONG_SIDE: u32 = 1600;

/// The upload, averaged down when longer than [`OVERVIEW_LONG_SIDE`]. Its pixel
/// edges fall on the upload's, so outlines map back exactly.
pub struct Overview<'a> {
    image: Cow<'a, RgbImage>,
    /// Upload pixels per overview pixel, across and down.
    factor: u32,
}

impl<'a> Overview<'a> {
    /// The upload itself when short enough; else the upload averaged down by the
    /// smallest whole factor that brings its long side within
    /// [`OVERVIEW_LONG_SIDE`].
    pub fn of(upload: &'a RgbImage) -> Overview<'a> {
        let long = upload.width().max(upload.height());
        let factor = long.div_ceil(OVERVIEW_LONG_SIDE);
        if factor <= 1 {
            return Overview {
                image: Cow::Borrowed(upload),
                factor: 1,
            };
        }
        Overview {
            image: Cow::Owned(shrink(upload, Region::whole(upload), factor)),
            factor,
        }
    }

    pub fn image(&self) -> &RgbImage {
        &self.image
    }

    /// An outline found on the overview, in the upload's pixels (both in
    /// continuous coordinates, pixel centres at +0.5).
    pub fn to_upload(&self, quad: Quad) -> Quad {
        quad.scaled(self.factor as f32)
    }

    /// An outline in the upload's pixels, on the overview.
    pub fn from_upload(&self, quad: Quad) -> Quad {
        quad.scaled(1.0 / self.factor as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::warp::Point;
    use image::Rgb;

    #[test]
    fn an_image_within_the_tuned_range_is_its_own_overview() {
        let image = RgbImage::from_pixel(OVERVIEW_LONG_SIDE, 900, Rgb([10, 20, 30]));
        let overview = Overview::of(&image);
        assert!(matches!(overview.image, Cow::Borrowed(_)));
        let quad = Quad::full(100, 50);
        assert_eq!(overview.to_upload(quad).corners, quad.corners);
    }

    #[test]
    fn a_large_image_is_averaged_down_and_outlines_map_back_to_it() {
        // A 4032x3024 phone photo: a bright block on dark ground.
        let (w, h) = (4032, 3024);
        let block = [1010.0f32, 756.0, 3024.0, 2268.0];
        let image = RgbImage::from_fn(w, h, |x, y| {
            let (x, y) = (x as f32 + 0.5, y as f32 + 0.5);
            let inside = x > block[0] && x < block[2] && y > block[1] && y < block[3];
            if inside { Rgb([240; 3]) } else { Rgb([20; 3]) }
        });
        let overview = Overview::of(&image);
        let small = overview.image();
        assert_eq!(small.dimensions(), (1344, 1008));
        // The block's corner lands where it should on the overview, and the
        // overview's outline of the block maps back onto the upload's.
        let (sx, sy) = (1.0 / 3.0, 1.0 / 3.0);
        let corner = small.get_pixel((block[0] * sx) as u32 + 2, (block[1] * sy) as u32 + 2);
        assert_eq!(corner.0, [240; 3]);
        let outline = Quad {
            corners: [
                Point::new(block[0] * sx, block[1] * sy),
                Point::new(block[2] * sx, block[1] * sy),
                Point::new(block[2] * sx, block[3] * sy),
                Point::new(block[0] * sx, block[3] * sy),
            ],
        };
        let back = overview.to_upload(outline);
        assert!((back.corners[2].x - block[2]).abs() < 0.01);
        assert!((back.corners[2].y - block[3]).abs() < 0.01);
        // Averaged, not sampled: the pixel straddling the block's edge is a blend.
        let edge_x = (block[0] * sx) as u32;
        let straddling = small.get_pixel(edge_x, 500).0[0];
        assert!(straddling > 20 && straddling < 240, "{straddling}");
    }
}
