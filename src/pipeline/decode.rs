//! Stage 1: uploaded bytes to an upright RGB image.
//!
//! The format is sniffed from magic bytes (never from a name or a MIME type). Every
//! size that costs memory is checked before the expensive step that would allocate
//! it: image headers before pixel decoding, PDF object and page counts and the page's
//! declared size before rasterising, so a hostile file is refused cheaply.

use std::io::Cursor;

use image::{DynamicImage, ImageDecoder, ImageReader, Limits, RgbImage};
use lopdf::{Document, LoadOptions, Object, ObjectId};

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
    /// Bound on any one decompressed PDF stream (object streams, page content).
    pub max_pdf_stream_bytes: usize,
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
        Format::Jpeg | Format::Png => (decode_raster(bytes, format, limits)?, false),
        Format::Pdf => decode_pdf(bytes, limits)?,
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

fn corrupt(format: Format) -> impl Fn(image::ImageError) -> DecodeError {
    move |err| DecodeError::Corrupt {
        format: format.name(),
        reason: err.to_string(),
    }
}

/// JPEG or PNG: header first (dimension check), then pixels, then EXIF orientation.
fn decode_raster(
    bytes: &[u8],
    format: Format,
    limits: &DecodeLimits,
) -> Result<RgbImage, DecodeError> {
    let mut reader = ImageReader::new(Cursor::new(bytes));
    reader.set_format(match format {
        Format::Jpeg => image::ImageFormat::Jpeg,
        _ => image::ImageFormat::Png,
    });
    let mut decoder_limits = Limits::default();
    // 4 bytes a pixel covers RGBA8 output plus decoder scratch; 16-bit PNGs are
    // rejected by this bound only when they are near the pixel limit anyway.
    decoder_limits.max_alloc = Some(limits.max_pixels * 8);
    reader.limits(decoder_limits);
    // Our own header read comes first: it bounds the size before the decoder is
    // even built, and catches truncated JPEGs, which the decoder pads with grey.
    let (w, h) = match format {
        Format::Jpeg => jpeg_header(bytes)?,
        _ => png_header(bytes)?,
    };
    check_pixels(format, u64::from(w), u64::from(h), limits)?;
    let mut decoder = reader.into_decoder().map_err(corrupt(format))?;
    // A missing or unreadable EXIF block means "upright", as viewers treat it.
    let orientation = decoder
        .orientation()
        .unwrap_or(image::metadata::Orientation::NoTransforms);
    let mut image = DynamicImage::from_decoder(decoder).map_err(corrupt(format))?;
    image.apply_orientation(orientation);
    Ok(flatten_to_rgb(image))
}

/// Width and height from the PNG's IHDR chunk, which the format requires first.
fn png_header(bytes: &[u8]) -> Result<(u32, u32), DecodeError> {
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
/// end-of-image marker: returns the frame size, or an error when the file ends
/// first. Bytes after EOI (motion-photo trailers) are ignored.
fn jpeg_header(bytes: &[u8]) -> Result<(u32, u32), DecodeError> {
    let truncated = |what: &str| DecodeError::Corrupt {
        format: "JPEG",
        reason: format!("truncated: {what}"),
    };
    let be16 = |at: usize| {
        bytes
            .get(at..at + 2)
            .map(|b| u32::from(u16::from_be_bytes([b[0], b[1]])))
    };
    let mut size = None;
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
                    size = Some((w.unwrap_or(0), h.unwrap_or(0)));
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

fn pdf_corrupt(reason: impl ToString) -> DecodeError {
    DecodeError::Corrupt {
        format: "PDF",
        reason: reason.to_string(),
    }
}

/// PDF: the first page. A scanned page (one JPEG covering it) yields that JPEG's
/// pixels untouched; anything else is rasterised at `limits.pdf_dpi`.
fn decode_pdf(bytes: &[u8], limits: &DecodeLimits) -> Result<(RgbImage, bool), DecodeError> {
    let options = LoadOptions {
        max_decompressed_size: Some(limits.max_pdf_stream_bytes),
        ..Default::default()
    };
    let doc = Document::load_mem_with_options(bytes, options).map_err(pdf_corrupt)?;
    if doc.objects.len() > limits.max_pdf_objects {
        return Err(DecodeError::PdfTooManyObjects {
            count: doc.objects.len(),
            limit: limits.max_pdf_objects,
        });
    }
    let pages = doc.get_pages();
    if pages.len() > limits.max_pdf_pages {
        return Err(DecodeError::PdfTooManyPages {
            count: pages.len(),
            limit: limits.max_pdf_pages,
        });
    }
    let (_, &page_id) = pages.iter().next().ok_or(DecodeError::PdfNoPages)?;
    let content = doc
        .get_page_content_with_limit(page_id, limits.max_pdf_stream_bytes)
        .map_err(pdf_corrupt)?;
    let images = doc.get_page_images(page_id).unwrap_or_default();
    for image in &images {
        check_pixels(
            Format::Pdf,
            image.width.max(0) as u64,
            image.height.max(0) as u64,
            limits,
        )?;
    }
    if let Some(jpeg) = full_page_jpeg(&doc, page_id, &content, &images) {
        let image = decode_raster(jpeg, Format::Jpeg, limits)?;
        return Ok((image, true));
    }
    Ok((rasterise_first_page(bytes, limits)?, false))
}

/// The raw bytes of the page's image when the page is exactly one upright DCT
/// (JPEG) image in RGB or grey drawn over at least 90 % of the page, with nothing
/// else painted: the shape of every scanner's and phone app's PDF.
fn full_page_jpeg<'a>(
    doc: &'a Document,
    page_id: ObjectId,
    content: &[u8],
    images: &[lopdf::xobject::PdfImage<'a>],
) -> Option<&'a [u8]> {
    let [image] = images else { return None };
    let filters = image.filters.as_deref()?;
    if filters != ["DCTDecode"] {
        return None;
    }
    if !matches!(
        image.color_space.as_deref(),
        Some("DeviceRGB" | "DeviceGray")
    ) {
        return None;
    }
    if page_rotation(doc, page_id) != 0 {
        return None;
    }
    let (page_w, page_h) = page_size(doc, page_id)?;
    let ops = lopdf::content::Content::decode(content).ok()?.operations;
    // Track the current transformation matrix through q/Q/cm up to the one `Do`.
    let mut ctm = [1.0f32, 0.0, 0.0, 1.0, 0.0, 0.0];
    let mut stack = Vec::new();
    let mut drawn = None;
    for op in &ops {
        match op.operator.as_str() {
            "q" => stack.push(ctm),
            "Q" => ctm = stack.pop()?,
            "cm" => {
                let m: Vec<f32> = op
                    .operands
                    .iter()
                    .filter_map(|o| o.as_float().ok())
                    .collect();
                let m: [f32; 6] = m.try_into().ok()?;
                ctm = concat(m, ctm);
            }
            "Do" => {
                if drawn.is_some() {
                    return None;
                }
                drawn = Some(ctm);
            }
            // Anything that paints besides the image disqualifies the shortcut.
            "BT" | "f" | "F" | "f*" | "S" | "s" | "B" | "B*" | "b" | "b*" | "sh" | "BI" => {
                return None;
            }
            _ => {}
        }
    }
    let [a, b, c, d, _, _] = drawn?;
    let upright = b.abs() < 1e-3 && c.abs() < 1e-3 && a > 0.0 && d > 0.0;
    (upright && a * d >= 0.9 * page_w * page_h).then_some(image.content)
}

/// PDF matrix product `m × n` (apply `m`, then `n`).
fn concat(m: [f32; 6], n: [f32; 6]) -> [f32; 6] {
    [
        m[0] * n[0] + m[1] * n[2],
        m[0] * n[1] + m[1] * n[3],
        m[2] * n[0] + m[3] * n[2],
        m[2] * n[1] + m[3] * n[3],
        m[4] * n[0] + m[5] * n[2] + n[4],
        m[4] * n[1] + m[5] * n[3] + n[5],
    ]
}

/// An inheritable page attribute: looked up on the page, then up its Parent chain.
fn inherited<'a>(doc: &'a Document, page_id: ObjectId, key: &[u8]) -> Option<&'a Object> {
    let mut node = doc.get_dictionary(page_id).ok()?;
    for _ in 0..32 {
        if let Ok(value) = node.get(key) {
            return doc.dereference(value).ok().map(|(_, v)| v);
        }
        node = doc
            .get_dictionary(node.get(b"Parent").ok()?.as_reference().ok()?)
            .ok()?;
    }
    None
}

fn page_rotation(doc: &Document, page_id: ObjectId) -> i64 {
    inherited(doc, page_id, b"Rotate")
        .and_then(|r| r.as_i64().ok())
        .unwrap_or(0)
        .rem_euclid(360)
}

fn page_size(doc: &Document, page_id: ObjectId) -> Option<(f32, f32)> {
    let media = inherited(doc, page_id, b"MediaBox")?.as_array().ok()?;
    let v: Vec<f32> = media.iter().filter_map(|o| o.as_float().ok()).collect();
    let [x0, y0, x1, y1] = v.try_into().ok()?;
    Some(((x1 - x0).abs(), (y1 - y0).abs()))
}

/// Renders the first page with hayro (pure Rust) on white, at the configured dpi,
/// lowered when needed to stay inside the pixel limits.
fn rasterise_first_page(bytes: &[u8], limits: &DecodeLimits) -> Result<RgbImage, DecodeError> {
    use hayro::hayro_interpret::InterpreterSettings;
    use hayro::hayro_syntax::Pdf;
    use hayro::vello_cpu::color::palette::css::WHITE;

    let pdf = Pdf::new(bytes.to_vec()).map_err(|err| pdf_corrupt(format!("{err:?}")))?;
    let page = pdf.pages().first().ok_or(DecodeError::PdfNoPages)?;
    let (w_pt, h_pt) = page.render_dimensions();
    if !(w_pt >= 1.0 && h_pt >= 1.0) {
        return Err(pdf_corrupt(format!("page size {w_pt}x{h_pt} points")));
    }
    let max_side = limits.max_side.min(u32::from(u16::MAX)) as f32;
    let mut scale = limits.pdf_dpi / 72.0;
    scale = scale.min(max_side / w_pt).min(max_side / h_pt);
    scale = scale.min((limits.max_pixels as f32 / (w_pt * h_pt)).sqrt());
    let settings = hayro::PixmapSettings {
        x_scale: scale,
        y_scale: scale,
        bg_color: WHITE,
    };
    let pixmap = hayro::render(
        page,
        &hayro::RenderCache::new(),
        &InterpreterSettings::default(),
        &hayro::RenderSettings::default(),
        &settings,
    );
    let (w, h) = (u32::from(pixmap.width()), u32::from(pixmap.height()));
    // Premultiplied RGBA over an opaque background: alpha is 255, channels are plain.
    let rgb: Vec<u8> = pixmap
        .data_as_u8_slice()
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    RgbImage::from_raw(w, h, rgb).ok_or_else(|| pdf_corrupt("rasteriser returned a short buffer"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::codecs::jpeg::JpegEncoder;
    use image::codecs::png::PngEncoder;
    use image::{ImageEncoder, Rgb};
    use lopdf::content::{Content, Operation};
    use lopdf::{Stream, dictionary};

    /// A test picture whose orientation is recognisable: red top-left quadrant,
    /// the rest white.
    fn marked(width: u32, height: u32) -> RgbImage {
        RgbImage::from_fn(width, height, |x, y| {
            if x < width / 2 && y < height / 2 {
                Rgb([220, 20, 20])
            } else {
                Rgb([250, 250, 250])
            }
        })
    }

    fn jpeg(image: &RgbImage) -> Vec<u8> {
        let mut out = Vec::new();
        JpegEncoder::new_with_quality(&mut out, 90)
            .encode_image(image)
            .unwrap();
        out
    }

    fn png(image: &RgbImage) -> Vec<u8> {
        let mut out = Vec::new();
        PngEncoder::new(&mut out)
            .write_image(
                image.as_raw(),
                image.width(),
                image.height(),
                image::ExtendedColorType::Rgb8,
            )
            .unwrap();
        out
    }

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

    fn is_red(p: &Rgb<u8>) -> bool {
        p.0[0] > 150 && p.0[1] < 100
    }

    /// A one-page PDF of `page_w`×`page_h` points whose content is `ops`, with
    /// `image` (if any) as XObject `/Im0`.
    fn pdf(page_w: f32, page_h: f32, ops: Vec<Operation>, image: Option<Stream>) -> Vec<u8> {
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let mut xobjects = lopdf::Dictionary::new();
        if let Some(image) = image {
            xobjects.set("Im0", doc.add_object(image));
        }
        let resources = doc.add_object(dictionary! { "XObject" => xobjects });
        let content = doc.add_object(Stream::new(
            dictionary! {},
            Content { operations: ops }.encode().unwrap(),
        ));
        let page = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "Contents" => content,
            "Resources" => resources,
            "MediaBox" => vec![0.into(), 0.into(), page_w.into(), page_h.into()],
        });
        doc.objects.insert(
            pages_id,
            Object::Dictionary(
                dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 },
            ),
        );
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog);
        let mut out = Vec::new();
        doc.save_to(&mut out).unwrap();
        out
    }

    fn jpeg_xobject(image: &RgbImage) -> Stream {
        Stream::new(
            dictionary! {
                "Type" => "XObject", "Subtype" => "Image",
                "Width" => image.width() as i64, "Height" => image.height() as i64,
                "ColorSpace" => "DeviceRGB", "BitsPerComponent" => 8, "Filter" => "DCTDecode",
            },
            jpeg(image),
        )
        .with_compression(false)
    }

    fn draw_image(w: f32, h: f32) -> Vec<Operation> {
        vec![
            Operation::new("q", vec![]),
            Operation::new(
                "cm",
                vec![w.into(), 0.into(), 0.into(), h.into(), 0.into(), 0.into()],
            ),
            Operation::new("Do", vec!["Im0".into()]),
            Operation::new("Q", vec![]),
        ]
    }

    /// The error of a decode expected to fail (without printing pixels if it does not).
    fn decode_err(bytes: &[u8], limits: &DecodeLimits) -> DecodeError {
        match decode(bytes, limits) {
            Ok(decoded) => panic!("decoded to {:?}", decoded.image.dimensions()),
            Err(err) => err,
        }
    }

    #[test]
    fn sniffs_formats_by_magic_bytes() {
        assert_eq!(Format::sniff(&jpeg(&marked(8, 8))), Some(Format::Jpeg));
        assert_eq!(Format::sniff(&png(&marked(8, 8))), Some(Format::Png));
        assert_eq!(Format::sniff(b"junk\n%PDF-1.4\n"), Some(Format::Pdf));
        assert_eq!(Format::sniff(b"GIF89a......"), None);
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

    /// A valid PNG header declaring `width`×`height`, with no pixel data at all:
    /// the limit must trip on the header alone.
    fn png_header_only(width: u32, height: u32) -> Vec<u8> {
        let mut ihdr = b"IHDR".to_vec();
        ihdr.extend_from_slice(&width.to_be_bytes());
        ihdr.extend_from_slice(&height.to_be_bytes());
        ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
        let crc = crc32(&ihdr);
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        out.extend_from_slice(&13u32.to_be_bytes());
        out.extend_from_slice(&ihdr);
        out.extend_from_slice(&crc.to_be_bytes());
        out
    }

    fn crc32(data: &[u8]) -> u32 {
        let mut crc = 0xFFFF_FFFFu32;
        for &byte in data {
            crc ^= u32::from(byte);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
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

    #[test]
    fn takes_the_jpeg_of_a_scanned_pdf_page() {
        let image = marked(600, 400);
        let bytes = pdf(
            600.0,
            400.0,
            draw_image(600.0, 400.0),
            Some(jpeg_xobject(&image)),
        );
        let decoded = decode(&bytes, &DecodeLimits::default()).unwrap();
        assert!(decoded.pdf_embedded_jpeg);
        assert_eq!(decoded.format, Format::Pdf);
        assert_eq!(decoded.image.dimensions(), (600, 400));
        assert!(is_red(decoded.image.get_pixel(10, 10)));
    }

    #[test]
    fn rasterises_a_page_its_image_does_not_fill() {
        // The image covers only a quarter of the page, so the page is rendered:
        // 144 pt at 300 dpi is 600 px.
        let image = marked(300, 200);
        let limits = DecodeLimits::default();
        let bytes = pdf(
            144.0,
            96.0,
            draw_image(72.0, 48.0),
            Some(jpeg_xobject(&image)),
        );
        let decoded = decode(&bytes, &limits).unwrap();
        assert!(!decoded.pdf_embedded_jpeg);
        assert_eq!(decoded.image.dimensions(), (600, 400));
        // Image drawn at the bottom-left quarter (PDF y grows upwards); its red
        // top-left quadrant lands at x in 0..150, y in 200..300.
        assert!(
            is_red(decoded.image.get_pixel(60, 240)),
            "{:?}",
            decoded.image.get_pixel(60, 240)
        );
        assert_eq!(decoded.image.get_pixel(500, 50).0, [255, 255, 255]);
    }

    #[test]
    fn rasterises_vector_pages() {
        let ops = vec![
            Operation::new("rg", vec![1.into(), 0.into(), 0.into()]),
            Operation::new("re", vec![0.into(), 48.into(), 72.into(), 48.into()]),
            Operation::new("f", vec![]),
        ];
        let decoded = decode(&pdf(144.0, 96.0, ops, None), &DecodeLimits::default()).unwrap();
        assert_eq!(decoded.image.dimensions(), (600, 400));
        assert!(is_red(decoded.image.get_pixel(100, 100)));
        assert!(!is_red(decoded.image.get_pixel(500, 300)));
    }

    #[test]
    fn lowers_the_pdf_resolution_to_fit_the_pixel_limit() {
        // An A0 page (2384 × 3370 pt) at 300 dpi would be 137 Mpx.
        let ops = vec![
            Operation::new("re", vec![0.into(), 0.into(), 10.into(), 10.into()]),
            Operation::new("f", vec![]),
        ];
        let decoded = decode(&pdf(2384.0, 3370.0, ops, None), &DecodeLimits::default()).unwrap();
        let (w, h) = decoded.image.dimensions();
        assert!(u64::from(w) * u64::from(h) <= DecodeLimits::default().max_pixels);
        assert!(w > 3000, "{w}x{h}");
    }

    #[test]
    fn rejects_bogus_and_hostile_pdfs() {
        let limits = DecodeLimits::default();
        let err = decode_err(b"%PDF-1.7\nthis is not a pdf", &limits);
        assert!(
            matches!(err, DecodeError::Corrupt { format: "PDF", .. }),
            "{err}"
        );
        // Truncated in the middle.
        let bytes = pdf(
            600.0,
            400.0,
            draw_image(600.0, 400.0),
            Some(jpeg_xobject(&marked(600, 400))),
        );
        let err = decode_err(&bytes[..bytes.len() / 3], &limits);
        assert!(matches!(err, DecodeError::Corrupt { .. }), "{err}");
        // An image XObject declaring 100 000 × 100 000 pixels.
        let mut huge = jpeg_xobject(&marked(60, 40));
        huge.dict.set("Width", 100_000);
        huge.dict.set("Height", 100_000);
        let err = decode_err(
            &pdf(600.0, 400.0, draw_image(600.0, 400.0), Some(huge)),
            &limits,
        );
        assert!(
            matches!(err, DecodeError::TooManyPixels { format: "PDF", .. }),
            "{err}"
        );
        // Object and page count limits.
        let tight = DecodeLimits {
            max_pdf_objects: 3,
            ..DecodeLimits::default()
        };
        let err = decode_err(&bytes, &tight);
        assert!(
            matches!(err, DecodeError::PdfTooManyObjects { .. }),
            "{err}"
        );
        let tight = DecodeLimits {
            max_pdf_pages: 0,
            ..DecodeLimits::default()
        };
        let err = decode_err(&bytes, &tight);
        assert!(
            matches!(err, DecodeError::PdfTooManyPages { count: 1, .. }),
            "{err}"
        );
    }

    #[test]
    fn rejects_a_pdf_without_pages() {
        let mut doc = Document::with_version("1.5");
        let pages = doc.add_object(
            dictionary! { "Type" => "Pages", "Kids" => Vec::<Object>::new(), "Count" => 0 },
        );
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages });
        doc.trailer.set("Root", catalog);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).unwrap();
        assert_eq!(
            decode_err(&bytes, &DecodeLimits::default()),
            DecodeError::PdfNoPages
        );
    }
}
