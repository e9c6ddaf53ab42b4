//! PDF: the first page, as the JPEG a scanner embedded or rendered with hayro.

use image::RgbImage;
use lopdf::{Document, LoadOptions, Object, ObjectId};

use super::{DecodeError, DecodeLimits, Format, pdf_streams, raster};

pub(super) fn corrupt(reason: impl ToString) -> DecodeError {
    DecodeError::Corrupt {
        format: "PDF",
        reason: reason.to_string(),
    }
}

/// The first page. A scanned page (one JPEG covering it) yields that JPEG's pixels
/// untouched; anything else is rasterised at `limits.pdf_dpi`. Either way every
/// stream the page uses is first decoded within bounds ([`pdf_streams::bound`]), and
/// the rasteriser reads only those decoded streams.
pub(super) fn decode(bytes: &[u8], limits: &DecodeLimits) -> Result<(RgbImage, bool), DecodeError> {
    let options = LoadOptions {
        max_decompressed_size: Some(limits.max_pdf_stream_bytes),
        ..Default::default()
    };
    let mut doc = Document::load_mem_with_options(bytes, options).map_err(corrupt)?;
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
    pdf_streams::bound(&mut doc, page_id, limits)?;
    let content = doc
        .get_page_content_with_limit(page_id, limits.max_pdf_stream_bytes)
        .map_err(corrupt)?;
    let images = doc.get_page_images(page_id).unwrap_or_default();
    if let Some(jpeg) = full_page_jpeg(&doc, page_id, &content, &images) {
        let image = raster::decode(jpeg, Format::Jpeg, limits)?;
        return Ok((image, true));
    }
    drop(images);
    let mut bounded = Vec::new();
    doc.save_to(&mut bounded).map_err(corrupt)?;
    drop(doc);
    Ok((rasterise_first_page(bounded, limits)?, false))
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
pub(super) fn inherited<'a>(
    doc: &'a Document,
    page_id: ObjectId,
    key: &[u8],
) -> Option<&'a Object> {
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

/// Renders the first page of `bytes` (a PDF whose streams are already decoded) with
/// hayro (pure Rust) on white, at the configured dpi, lowered when needed to stay
/// inside the pixel limits.
fn rasterise_first_page(bytes: Vec<u8>, limits: &DecodeLimits) -> Result<RgbImage, DecodeError> {
    use hayro::hayro_interpret::InterpreterSettings;
    use hayro::hayro_syntax::Pdf;
    use hayro::vello_cpu::color::palette::css::WHITE;

    let pdf = Pdf::new(bytes).map_err(|err| corrupt(format!("{err:?}")))?;
    let page = pdf.pages().first().ok_or(DecodeError::PdfNoPages)?;
    let (w_pt, h_pt) = page.render_dimensions();
    if !(w_pt >= 1.0 && h_pt >= 1.0) {
        return Err(corrupt(format!("page size {w_pt}x{h_pt} points")));
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
    RgbImage::from_raw(w, h, rgb).ok_or_else(|| corrupt("rasteriser returned a short buffer"))
}

#[cfg(test)]
mod tests {
    use lopdf::content::{Content, Operation};
    use lopdf::{Stream, dictionary};

    use super::super::test_support::{decode_err, is_red, jpeg, marked};
    use super::super::{DecodeError, DecodeLimits, Format, decode};
    use super::*;

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
