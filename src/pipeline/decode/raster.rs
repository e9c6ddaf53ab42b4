//! JPEG and PNG: the declared size read and checked first, then the pixels, decoded
//! with a memory budget set by that size, then the EXIF orientation.

use std::io::Cursor;

use image::{DynamicImage, ImageDecoder, ImageReader, Limits, RgbImage};

use super::{DecodeError, DecodeLimits, Format, check_pixels};

/// What a decoder may allocate beyond the declared pixels at 8 bytes each (16-bit
/// RGBA, the widest PNG): metadata such as an ICC profile or EXIF block. A PNG's
/// compressed metadata inflating past it is refused rather than inflated.
const METADATA_ALLOWANCE: u64 = 4 << 20;

/// JPEG or PNG: header first (dimension check), then pixels, then EXIF orientation.
pub(super) fn decode(
    bytes: &[u8],
    format: Format,
    limits: &DecodeLimits,
) -> Result<RgbImage, DecodeError> {
    // Our own header read comes first: it bounds the size before the decoder is
    // even built, and catches truncated JPEGs, which the decoder pads with grey.
    let (w, h) = match format {
        Format::Jpeg => jpeg_header(bytes)?,
        _ => png_header(bytes)?,
    };
    check_pixels(format, u64::from(w), u64::from(h), limits)?;
    let mut reader = ImageReader::new(Cursor::new(bytes));
    reader.set_format(match format {
        Format::Jpeg => image::ImageFormat::Jpeg,
        _ => image::ImageFormat::Png,
    });
    let mut budget = Limits::default();
    budget.max_alloc = Some(u64::from(w) * u64::from(h) * 8 + METADATA_ALLOWANCE);
    reader.limits(budget);
    let failed = |err: image::ImageError| match err {
        image::ImageError::Limits(limit) => DecodeError::OverDeclared {
            format: format.name(),
            width: w,
            height: h,
            reason: limit.to_string(),
        },
        other => DecodeError::Corrupt {
            format: format.name(),
            reason: other.to_string(),
        },
    };
    let mut decoder = reader.into_decoder().map_err(failed)?;
    // A missing or unreadable EXIF block means "upright", as viewers treat it.
    let orientation = decoder
        .orientation()
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut image = DynamicImage::from_decoder(decoder).map_err(failed)?;
    image.apply_orientation(orientation);
    Ok(flatten_to_rgb(image))
}

/// Width and height from the PNG's IHDR chunk, which the format requires first.
pub(super) fn png_header(bytes: &[u8]) -> Result<(u32, u32), DecodeError> {
    let be32 = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    match (bytes.get(12..16), be32(16), be32(20)) {
        (Some(b"IHDR"), Some(w), Some(h)) => Ok((w, h)),
        _ => Err(DecodeError::Corrupt {
            format: "PNG",
            reason: "no IHDR header".into(),
        }),
    }
}

/// Walks the JPEG's marker segments (skipping entropy-coded data) to its
/// end-of-image marker: returns the frame size (the widest and tallest, should the
/// file hold more than one frame header), or an error when the file ends first. Bytes after
/// EOI (motion-photo trailers) are ignored.
pub(super) fn jpeg_header(bytes: &[u8]) -> Result<(u32, u32), DecodeError> {
    let truncated = |what: &str| DecodeError::Corrupt {
        format: "JPEG",
        reason: format!("truncated: {what}"),
    };
    let be16 = |at: usize| {
        bytes
            .get(at..at + 2)
            .map(|b| u32::from(u16::from_be_bytes([b[0], b[1]])))
    };
    let mut size: Option<(u32, u32)> = None;
    let mut pos = 2;
    loop {
        // Markers may be preceded by any number of 0xFF fill bytes.
        while bytes.get(pos) == Some(&0xFF) && bytes.get(pos + 1) == Some(&0xFF) {
            pos += 1;
        }
        let (Some(&0xFF), Some(&marker)) = (bytes.get(pos), bytes.get(pos + 1)) else {
            return Err(truncated("no end-of-image marker"));
        };
        match marker {
            0xD9 => return size.ok_or_else(|| truncated("no frame header")),
            0x01 | 0xD0..=0xD7 => pos += 2,
            _ => {
                let len = be16(pos + 2).ok_or_else(|| truncated("segment header"))? as usize;
                if len < 2 {
                    return Err(DecodeError::Corrupt {
                        format: "JPEG",
                        reason: "bad segment length".into(),
                    });
                }
                let end = pos + 2 + len;
                if end > bytes.len() {
                    return Err(truncated("segment"));
                }
                if matches!(marker, 0xC0..=0xCF) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
                    let (h, w) = (be16(pos + 5), be16(pos + 7));
                    let (w, h) = (w.unwrap_or(0), h.unwrap_or(0));
                    size = Some(size.map_or((w, h), |(sw, sh)| (sw.max(w), sh.max(h))));
                }
                pos = end;
                if marker == 0xDA {
                    // Entropy-coded data runs to the next marker that is neither a
                    // stuffed 0xFF00 nor a restart marker.
                    pos = bytes[pos..]
                        .windows(2)
                        .position(|w| w[0] == 0xFF && w[1] != 0 && !(0xD0..=0xD7).contains(&w[1]))
                        .map(|offset| pos + offset)
                        .ok_or_else(|| truncated("scan data"))?;
                }
            }
        }
    }
}

/// Drops alpha by compositing on white, so a transparent PNG background reads as paper.
fn flatten_to_rgb(image: DynamicImage) -> RgbImage {
    if !image.color().has_alpha() {
        return image.into_rgb8();
    }
    let rgba = image.into_rgba8();
    RgbImage::from_fn(rgba.width(), rgba.height(), |x, y| {
        let [r, g, b, a] = rgba.get_pixel(x, y).0;
        let blend =
            |c: u8| ((u16::from(c) * u16::from(a) + 255 * (255 - u16::from(a))) / 255) as u8;
        image::Rgb([blend(r), blend(g), blend(b)])
    })
}

#[cfg(test)]
mod tests {
    use image::ImageEncoder;
    use image::codecs::png::PngEncoder;

    use super::super::test_support::{decode_err, is_red, jpeg, marked, png, png_header_only};
    use super::super::{DecodeError, DecodeLimits, decode};
    use crate::pipeline::ExtractError;

    /// Inserts an APP1 EXIF segment holding only the orientation tag after SOI.
    fn with_exif_orientation(jpeg: &[u8], orientation: u16) -> Vec<u8> {
        let mut tiff = b"MM\0\x2a\0\0\0\x08".to_vec();
        tiff.extend_from_slice(&1u16.to_be_bytes()); // one IFD entry
        tiff.extend_from_slice(&0x0112u16.to_be_bytes()); // Orientation
        tiff.extend_from_slice(&3u16.to_be_bytes()); // SHORT
        tiff.extend_from_slice(&1u32.to_be_bytes()); // count
        tiff.extend_from_slice(&orientation.to_be_bytes());
        tiff.extend_from_slice(&[0, 0]);
        tiff.extend_from_slice(&0u32.to_be_bytes()); // no next IFD
        let mut app1 = b"Exif\0\0".to_vec();
        app1.extend_from_slice(&tiff);
        let mut out = jpeg[..2].to_vec();
        out.extend_from_slice(&[0xFF, 0xE1]);
        out.extend_from_slice(&((app1.len() + 2) as u16).to_be_bytes());
        out.extend_from_slice(&app1);
        out.extend_from_slice(&jpeg[2..]);
        out
    }

    #[test]
    fn decodes_jpeg_and_png() {
        let image = marked(400, 300);
        for bytes in [jpeg(&image), png(&image)] {
            let decoded = decode(&bytes, &DecodeLimits::default()).unwrap();
            assert_eq!(decoded.image.dimensions(), (400, 300));
            assert!(is_red(decoded.image.get_pixel(10, 10)));
            assert!(!is_red(decoded.image.get_pixel(390, 290)));
        }
    }

    #[test]
    fn ignores_data_after_the_end_of_a_jpeg() {
        let mut bytes = jpeg(&marked(400, 300));
        bytes.extend_from_slice(b"....ftypmp42 motion photo trailer");
        assert_eq!(
            decode(&bytes, &DecodeLimits::default())
                .unwrap()
                .image
                .dimensions(),
            (400, 300)
        );
    }

    #[test]
    fn honours_exif_orientation() {
        let bytes = jpeg(&marked(400, 300));
        // (EXIF orientation, upright size, a pixel the red top-left quadrant of the
        // stored picture must reach, one it must leave white).
        let cases = [
            // Rotate 90° clockwise to be upright: red moves to the top right.
            (6, (300, 400), (290, 10), (10, 10)),
            // Upside down: red ends bottom right.
            (3, (400, 300), (390, 290), (10, 10)),
            // Rotate 270° clockwise: red ends bottom left.
            (8, (300, 400), (10, 390), (290, 10)),
            // Stored mirrored (some front cameras): red ends top right.
            (2, (400, 300), (390, 10), (10, 10)),
            // Mirrored across the main diagonal: red stays top left, sides swapped.
            (5, (300, 400), (10, 10), (290, 390)),
        ];
        for (orientation, size, red, white) in cases {
            let decoded = decode(
                &with_exif_orientation(&bytes, orientation),
                &DecodeLimits::default(),
            )
            .unwrap();
            assert_eq!(
                decoded.image.dimensions(),
                size,
                "orientation {orientation}"
            );
            assert!(
                is_red(decoded.image.get_pixel(red.0, red.1)),
                "orientation {orientation}"
            );
            assert!(
                !is_red(decoded.image.get_pixel(white.0, white.1)),
                "orientation {orientation}"
            );
        }
    }

    #[test]
    fn composites_transparency_on_white() {
        let rgba = image::RgbaImage::from_pixel(400, 300, image::Rgba([0, 0, 0, 0]));
        let mut bytes = Vec::new();
        PngEncoder::new(&mut bytes)
            .write_image(rgba.as_raw(), 400, 300, image::ExtendedColorType::Rgba8)
            .unwrap();
        let decoded = decode(&bytes, &DecodeLimits::default()).unwrap();
        assert_eq!(decoded.image.get_pixel(5, 5).0, [255, 255, 255]);
    }

    #[test]
    fn rejects_truncated_images() {
        for bytes in [jpeg(&marked(400, 300)), png(&marked(400, 300))] {
            let err = decode_err(&bytes[..bytes.len() / 2], &DecodeLimits::default());
            assert!(matches!(err, DecodeError::Corrupt { .. }), "{err}");
            // Only the signature survives.
            let err = decode_err(&bytes[..8], &DecodeLimits::default());
            assert!(matches!(err, DecodeError::Corrupt { .. }), "{err}");
            assert!(matches!(ExtractError::from(err), ExtractError::Corrupt(_)));
        }
    }

    #[test]
    fn rejects_huge_declared_dimensions_before_decoding() {
        let err = decode_err(&png_header_only(60_000, 60_000), &DecodeLimits::default());
        assert!(
            matches!(err, DecodeError::TooManyPixels { width: 60_000, .. }),
            "{err}"
        );
        let err = decode_err(&png_header_only(10_000, 9_000), &DecodeLimits::default());
        assert!(matches!(err, DecodeError::TooManyPixels { .. }), "{err}");
        // A JPEG whose frame header claims 65 000 × 65 000 (patched SOF0).
        let mut bytes = jpeg(&marked(400, 300));
        let sof = bytes.windows(2).position(|w| w == [0xFF, 0xC0]).unwrap();
        bytes[sof + 5..sof + 9].copy_from_slice(&[0xFD, 0xE8, 0xFD, 0xE8]);
        let err = decode_err(&bytes, &DecodeLimits::default());
        assert!(
            matches!(err, DecodeError::TooManyPixels { width: 65_000, .. }),
            "{err}"
        );
    }

    #[test]
    fn rejects_zero_size_and_tiny_images() {
        let err = decode_err(&png_header_only(0, 300), &DecodeLimits::default());
        assert!(matches!(err, DecodeError::Corrupt { .. }), "{err}");
        let err = decode_err(&png(&marked(120, 80)), &DecodeLimits::default());
        assert_eq!(
            err,
            DecodeError::TooSmall {
                width: 120,
                height: 80
            }
        );
        assert!(matches!(
            ExtractError::from(err),
            ExtractError::ImageTooSmall(_)
        ));
    }
}
