//! The end of stage 2: the located card, turned upright by the classifier, flattened
//! to the canonical size in grey.
//!
//! The warp is bilinear: each card pixel reads the four upload pixels around one
//! point. That is right when the card is about as wide in the upload as on the
//! canonical card (every photo and scan the pipeline was tuned on) and wrong when
//! it is much wider (a phone's 12 MP photo holds the card 2,000 to 3,000 px wide):
//! a card pixel then reads a few of the many upload pixels it covers, and thin
//! strokes break up or vanish between samples (aliasing). Such a card's region is
//! first averaged down to between one and two canonical widths.

use image::{GenericImageView, GrayImage, RgbImage, imageops};

use super::shrink::{Region, shrink};
use super::warp::{Point, Quad, warp_gray, warp_gray_region};

/// Upload pixels per canonical card pixel from which the card's region is averaged
/// down before the warp, by the whole factor at most that reduction: the card is
/// never enlarged again after it, and the warp then narrows it less than twice.
/// Every capture of the tuning and evaluation sets lies under it (the generator's
/// largest photos hold cards about 1,400 px wide), so they are warped as before.
const AVERAGE_FROM: f32 = 2.0;

/// A card flattened to the canonical size.
pub struct Rectified {
    pub card: GrayImage,
    /// Width of the card in the image it was warped from (the upload, or its
    /// averaged-down region), in pixels; over the canonical width, how much the
    /// warp narrowed it.
    pub source_width: f32,
}

/// Flattens `quad` of `upload` to a `width`x`height` grey card.
pub fn rectify(upload: &RgbImage, quad: &Quad, width: u32, height: u32) -> Rectified {
    let card_width = quad.width();
    let reduction = card_width / width as f32;
    if reduction >= AVERAGE_FROM
        && let Some(rectified) = averaged_down(upload, quad, reduction, width, height)
    {
        return rectified;
    }
    // Only the card's part of the upload is turned grey: on a 12 MP photo, the
    // whole of it took longer than the warp.
    let mut region = Region::around(quad.bounds(), 2.0, upload.dimensions());
    if region.width == 0 || region.height == 0 {
        // An outline off the upload reads its edge pixels, as the warp does.
        region = Region::whole(upload);
    }
    let grey =
        imageops::grayscale(&*upload.view(region.left, region.top, region.width, region.height));
    Rectified {
        card: warp_gray_region(&grey, (region.left, region.top), quad, width, height),
        source_width: card_width,
    }
}

/// The card's bounding region averaged down by the whole part of `reduction` (so
/// the card comes out 1 to 2 times the canonical width), then warped; `None` when
/// the outline leaves no region in the upload.
fn averaged_down(
    upload: &RgbImage,
    quad: &Quad,
    reduction: f32,
    width: u32,
    height: u32,
) -> Option<Rectified> {
    let factor = reduction.floor().max(1.0) as u32;
    // A block of margin: the warp's last samples read a neighbour beyond the
    // outline.
    let region = Region::around(quad.bounds(), factor as f32, upload.dimensions());
    if region.width < 2 * factor || region.height < 2 * factor {
        return None;
    }
    let (left, top) = (region.left, region.top);
    let reduced = imageops::grayscale(&shrink(upload, region, factor));
    let local = Quad {
        corners: quad
            .corners
            .map(|p| Point::new(p.x - left as f32, p.y - top as f32)),
    }
    .scaled(1.0 / factor as f32);
    Some(Rectified {
        card: warp_gray(&reduced, &local, width, height),
        source_width: local.width(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    /// A card `card_width` px wide (of the canonical card's 100x63 shape) in an
    /// upload with a margin around it: stripes one upload pixel wide, alternating
    /// black and white, with a solid black bar over the card's left quarter.
    fn striped_card(card_width: u32) -> (RgbImage, Quad) {
        let (cw, ch, margin) = (card_width, card_width * 63 / 100, card_width / 10);
        let image = RgbImage::from_fn(cw + 2 * margin, ch + 2 * margin, |x, y| {
            let (cx, cy) = (x as i64 - margin as i64, y as i64 - margin as i64);
            let on_card = cx >= 0 && cy >= 0 && cx < cw as i64 && cy < ch as i64;
            if !on_card {
                Rgb([128; 3])
            } else if cx < (cw / 4) as i64 || x % 2 == 0 {
                Rgb([0; 3])
            } else {
                Rgb([255; 3])
            }
        });
        let (m, w, h) = (margin as f32, cw as f32, ch as f32);
        let quad = Quad {
            corners: [
                Point::new(m, m),
                Point::new(m + w, m),
                Point::new(m + w, m + h),
                Point::new(m, m + h),
            ],
        };
        (image, quad)
    }

    /// Mean and spread of the grey levels in columns `from..to` of the card.
    fn column_stats(card: &GrayImage, from: u32, to: u32) -> (f32, f32) {
        let values: Vec<f32> = (0..card.height())
            .flat_map(|y| (from..to).map(move |x| (x, y)))
            .map(|(x, y)| f32::from(card.get_pixel(x, y).0[0]))
            .collect();
        let mean = values.iter().sum::<f32>() / values.len() as f32;
        let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f32>() / values.len() as f32;
        (mean, var.sqrt())
    }

    #[test]
    fn a_card_much_wider_than_the_canonical_one_is_averaged_not_sampled() {
        // Stripes finer than a card pixel must come out as their average grey,
        // not as whichever stripe each sample happens to hit.
        // Sampled 4.1 upload pixels apart, they would drift from black to white
        // and back across the card.
        let (image, quad) = striped_card(410);
        let rectified = rectify(&image, &quad, 100, 63);
        let (mean, spread) = column_stats(&rectified.card, 40, 95);
        assert!(
            (mean - 127.5).abs() < 15.0,
            "stripes average to mid grey: {mean}"
        );
        assert!(spread < 25.0, "no aliasing: {spread}");
        let (bar, _) = column_stats(&rectified.card, 2, 22);
        assert!(bar < 10.0, "the solid bar stays black: {bar}");
        // Averaged down 4 times (the whole part of 4.1), then warped.
        assert!(
            (rectified.source_width - 102.5).abs() < 0.5,
            "{}",
            rectified.source_width
        );
    }

    #[test]
    fn a_card_about_the_canonical_width_is_warped_from_the_upload_directly() {
        let (image, quad) = striped_card(100);
        let rectified = rectify(&image, &quad, 100, 63);
        let direct = warp_gray(&imageops::grayscale(&image), &quad, 100, 63);
        assert_eq!(rectified.card, direct);
        assert_eq!(rectified.source_width, 100.0);
    }
}
