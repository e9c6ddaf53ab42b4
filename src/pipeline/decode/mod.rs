//! Stage 1: uploaded bytes to an upright RGB image.
//!
//! The format is sniffed from magic bytes (never from a name or a MIME type). Every
//! size that costs memory is checked before the expensive step that would allocate
//! it: image headers before pixel decoding, PDF object and page counts and the page's
//! declared size before rasterising, so a hostile file is refused cheaply. What is
//! decompressed (PNG data and metadata, PDF streams) is bounded by what the file
//! declares and by these limits, once: the PDF rasteriser is handed streams already
//! decoded within bounds (`pdf_streams`).

mod pdf;
mod pdf_streams;
mod raster;
#[cfg(test)]
mod test_support;

use image::RgbImage;

use super::ExtractError;

/// The formats accepted, identified by their magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Jpeg,
    Png,
    Pdf,
}

impl Format {
    /// JPEG and PNG by their signature; PDF by `%PDF-` within the first KiB, where
    /// readers tolerate leading junk.
    pub fn sniff(bytes: &[u8]) -> Option<Format> {
        if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(Format::Jpeg)
        } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Format::Png)
        } else if bytes[..bytes.len().min(1024)]
            .windows(5)
            .any(|w| w == b"%PDF-")
        {
            Some(Format::Pdf)
        } else {
            None
        }
    }

    /// The extension a file of this format is named with.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Jpeg => "jpg",
            Format::Png => "png",
            Format::Pdf => "pdf",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Format::Jpeg => "JPEG",
            Format::Png => "PNG",
            Format::Pdf => "PDF",
        }
    }
}

/// Bounds on what a single upload may cost. The defaults admit a 48-megapixel phone
/// photo and an A3 page at 300 dpi.
#[derive(Debug, Clone)]
pub struct DecodeLimits {
    /// Largest file accepted (the HTTP layer refuses larger bodies first).
    pub max_bytes: usize,
    /// Largest decoded image, in pixels (width × height).
    pub max_pixels: u64,
    /// Largest width or height.
    pub max_side: u32,
    /// Smallest shorter side that can still hold a readable card.
    pub min_short_side: u32,
    /// Smallest longer side that can still hold a readable card.
    pub min_long_side: u32,
    pub max_pdf_pages: usize,
    pub max_pdf_objects: usize,
    /// Bound on any one decompressed PDF stream that is not an image (object
    /// streams, page content, fonts, profiles); an image stream is bounded by the
    /// pixels it declares.
    pub max_pdf_stream_bytes: usize,
    /// Bound on all the streams the rendered page uses, decompressed together.
    pub max_pdf_decoded_bytes: usize,
    /// Resolution at which a PDF page is rasterised.
    pub pdf_dpi: f32,
}

impl Default for DecodeLimits {
    fn default() -> Self {
        DecodeLimits {
            max_bytes: 20 * 1024 * 1024,
            max_pixels: 50_000_000,
            max_side: 16_384,
            min_short_side: 200,
            min_long_side: 300,
            max_pdf_pages: 100,
            max_pdf_objects: 20_000,
            max_pdf_stream_bytes: 32 * 1024 * 1024,
            max_pdf_decoded_bytes: 128 * 1024 * 1024,
            pdf_dpi: 300.0,
        }
    }
}

/// Why an upload could not be turned into an image.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DecodeError {
    #[error("the file is empty")]
    Empty,
    #[error("the file is not a JPEG, PNG or PDF")]
    UnsupportedFormat,
    #[error("the file is {size} bytes, more than the limit of {limit}")]
    FileTooLarge { size: usize, limit: usize },
    #[error("the {format} declares {width}x{height} pixels, more than the limit ({reason})")]
    TooManyPixels {
        format: &'static str,
        width: u64,
        height: u64,
        reason: String,
    },
    #[error(
        "the {format} needs more memory than the {width}x{height} pixels it declares ({reason})"
    )]
    OverDeclared {
        format: &'static str,
        width: u32,
        height: u32,
        reason: String,
    },
    #[error("PDF object {object} decompresses to more than {limit} bytes")]
    PdfStreamTooLarge { object: String, limit: usize },
    #[error("the streams of the PDF's page decompress to more than {limit} bytes")]
    PdfTooMuchData { limit: usize },
    #[error("the image is {width}x{height} pixels, too small to hold a readable document")]
    TooSmall { width: u32, height: u32 },
    #[error("the {format} is corrupt or truncated: {reason}")]
    Corrupt {
        format: &'static str,
        reason: String,
    },
    #[error("the PDF has no pages")]
    PdfNoPages,
    #[error("the PDF has {count} pages, more than the limit of {limit}")]
    PdfTooManyPages { count: usize, limit: usize },
    #[error("the PDF has {count} objects, more than the limit of {limit}")]
    PdfTooManyObjects { count: usize, limit: usize },
}

impl From<DecodeError> for ExtractError {
    fn from(err: DecodeError) -> Self {
        match err {
            DecodeError::UnsupportedFormat => ExtractError::UnsupportedFormat,
            DecodeError::TooSmall { .. } => ExtractError::ImageTooSmall(err.to_string()),
            DecodeError::FileTooLarge { .. }
            | DecodeError::TooManyPixels { .. }
            | DecodeError::OverDeclared { .. }
            | DecodeError::PdfStreamTooLarge { .. }
            | DecodeError::PdfTooMuchData { .. }
            | DecodeError::PdfTooManyPages { .. }
            | DecodeError::PdfTooManyObjects { .. } => ExtractError::ImageTooLarge(err.to_string()),
            DecodeError::Empty | DecodeError::Corrupt { .. } | DecodeError::PdfNoPages => {
                ExtractError::Corrupt(err.to_string())
            }
        }
    }
}

/// A decoded upload: the upright image and where it came from.
#[derive(Debug, Clone)]
pub struct Decoded {
    pub image: RgbImage,
    pub format: Format,
    /// For a PDF: whether the page's embedded JPEG was taken as is (no rasterising).
    pub pdf_embedded_jpeg: bool,
}

/// Decodes an upload: JPEG and PNG with their EXIF orientation applied, PDF as its
/// first page.
pub fn decode(bytes: &[u8], limits: &DecodeLimits) -> Result<Decoded, DecodeError> {
    if bytes.is_empty() {
        return Err(DecodeError::Empty);
    }
    if bytes.len() > limits.max_bytes {
        return Err(DecodeError::FileTooLarge {
            size: bytes.len(),
            limit: limits.max_bytes,
        });
    }
    let format = Format::sniff(bytes).ok_or(DecodeError::UnsupportedFormat)?;
    let (image, pdf_embedded_jpeg) = match format {
        Format::Jpeg | Format::Png => (raster::decode(bytes, format, limits)?, false),
        Format::Pdf => pdf::decode(bytes, limits)?,
    };
    check_min_size(&image, limits)?;
    Ok(Decoded {
        image,
        format,
        pdf_embedded_jpeg,
    })
}

fn check_min_size(image: &RgbImage, limits: &DecodeLimits) -> Result<(), DecodeError> {
    let (w, h) = image.dimensions();
    if w.min(h) < limits.min_short_side || w.max(h) < limits.min_long_side {
        return Err(DecodeError::TooSmall {
            width: w,
            height: h,
        });
    }
    Ok(())
}

fn check_pixels(
    format: Format,
    width: u64,
    height: u64,
    limits: &DecodeLimits,
) -> Result<(), DecodeError> {
    let reason = if width == 0 || height == 0 {
        return Err(DecodeError::Corrupt {
            format: format.name(),
            reason: format!("declared size {width}x{height}"),
        });
    } else if width > u64::from(limits.max_side) || height > u64::from(limits.max_side) {
        format!("at most {} per side", limits.max_side)
    } else if width * height > limits.max_pixels {
        format!("at most {} pixels", limits.max_pixels)
    } else {
        return Ok(());
    };
    Err(DecodeError::TooManyPixels {
        format: format.name(),
        width,
        height,
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::test_support::{decode_err, jpeg, marked, png};
    use super::*;

    #[test]
    fn sniffs_formats_by_magic_bytes() {
        assert_eq!(Format::sniff(&jpeg(&marked(8, 8))), Some(Format::Jpeg));
        assert_eq!(Format::sniff(&png(&marked(8, 8))), Some(Format::Png));
        assert_eq!(Format::sniff(b"junk\n%PDF-1.4\n"), Some(Format::Pdf));
        assert_eq!(Format::sniff(b"GIF89a......"), None);
    }

    #[test]
    fn rejects_empty_and_unknown_files() {
        assert_eq!(
            decode_err(b"", &DecodeLimits::default()),
            DecodeError::Empty
        );
        assert_eq!(
            decode_err(b"GIF89a\x01\0\x01\0", &DecodeLimits::default()),
            DecodeError::UnsupportedFormat
        );
        assert_eq!(
            ExtractError::from(DecodeError::UnsupportedFormat),
            ExtractError::UnsupportedFormat
        );
    }

    #[test]
    fn rejects_files_over_the_byte_limit() {
        let limits = DecodeLimits {
            max_bytes: 100,
            ..DecodeLimits::default()
        };
        let err = decode_err(&jpeg(&marked(400, 300)), &limits);
        assert!(
            matches!(err, DecodeError::FileTooLarge { limit: 100, .. }),
            "{err}"
        );
        assert!(matches!(
            ExtractError::from(err),
            ExtractError::ImageTooLarge(_)
        ));
    }
}
