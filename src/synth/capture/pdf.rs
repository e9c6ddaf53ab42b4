//! A one-page PDF holding a scan, as scanners and office software produce: the JPEG is
//! embedded unchanged as an image XObject (DCTDecode) filling the page.

use std::fmt::Write as _;

use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::scan::{ScanParams, ScanPlan, scan_raster};
use super::{CaptureParams, Captured};
use crate::synth::degrade;
use crate::synth::render::RenderedCard;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PdfParams {
    /// The embedded scan (truth coordinates are pixels of this image).
    pub scan: ScanParams,
    /// Page size in PostScript points (1/72 inch).
    pub page_points: [f32; 2],
}

pub fn capture(plan: &ScanPlan, card: &RenderedCard, rng: &mut ChaCha8Rng) -> Captured {
    let (image, scan, card_to_image) = scan_raster(plan, card, rng, true);
    let quality = scan.jpeg_quality.unwrap_or(85);
    let jpeg = degrade::jpeg_rgb(&image, quality);
    let points = |px: u32| px as f32 * 72.0 / scan.dpi as f32;
    let page_points = [points(image.width()), points(image.height())];
    let bytes = one_page_pdf(&jpeg, image.width(), image.height(), false, page_points);
    Captured {
        bytes,
        extension: "pdf",
        width: image.width(),
        height: image.height(),
        card_to_image,
        beside_to_image: None,
        params: CaptureParams::Pdf(PdfParams { scan, page_points }),
    }
}

/// A minimal valid PDF 1.4: catalog, page tree, one page drawing one JPEG, RGB or
/// `grey`, over the whole page of `[pw, ph]` points.
pub fn one_page_pdf(
    jpeg: &[u8],
    width: u32,
    height: u32,
    grey: bool,
    [pw, ph]: [f32; 2],
) -> Vec<u8> {
    let colour_space = if grey { "DeviceGray" } else { "DeviceRGB" };
    let content = format!("q\n{pw:.2} 0 0 {ph:.2} 0 0 cm\n/Im0 Do\nQ\n");
    let mut out: Vec<u8> = b"%PDF-1.4\n%\xE2\xE3\xCF\xD3\n".to_vec();
    let mut offsets = Vec::new();
    let mut object = |out: &mut Vec<u8>, body: &[u8]| {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", offsets.len()).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    };
    object(&mut out, b"<< /Type /Catalog /Pages 2 0 R >>");
    object(&mut out, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>");
    object(
        &mut out,
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.2} {ph:.2}] \
             /Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>"
        )
        .as_bytes(),
    );
    let mut image = format!(
        "<< /Type /XObject /Subtype /Image /Width {width} /Height {height} \
         /ColorSpace /{colour_space} /BitsPerComponent 8 /Filter /DCTDecode /Length {} >>\nstream\n",
        jpeg.len()
    )
    .into_bytes();
    image.extend_from_slice(jpeg);
    image.extend_from_slice(b"\nendstream");
    object(&mut out, &image);
    let mut stream = format!("<< /Length {} >>\nstream\n", content.len()).into_bytes();
    stream.extend_from_slice(content.as_bytes());
    stream.extend_from_slice(b"endstream");
    object(&mut out, &stream);
    let xref = out.len();
    let mut table = format!("xref\n0 {}\n0000000000 65535 f \n", offsets.len() + 1);
    for offset in &offsets {
        let _ = writeln!(table, "{offset:010} 00000 n ");
    }
    let _ = write!(
        table,
        "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        offsets.len() + 1
    );
    out.extend_from_slice(table.as_bytes());
    out
}

/// The JPEG that a scan PDF embeds (its first DCTDecode image stream), byte for byte.
pub fn embedded_jpeg(pdf: &lopdf::Document) -> Option<Vec<u8>> {
    pdf.objects.values().find_map(|o| match o {
        lopdf::Object::Stream(s)
            if s.dict
                .get(b"Filter")
                .is_ok_and(|f| f.as_name().ok() == Some(b"DCTDecode")) =>
        {
            Some(s.content.clone())
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pdf_parses_and_holds_the_jpeg_byte_for_byte() {
        let img = image::RgbImage::from_pixel(40, 30, image::Rgb([200, 100, 50]));
        let jpeg = degrade::jpeg_rgb(&img, 80);
        let pdf = one_page_pdf(&jpeg, 40, 30, false, [28.8, 21.6]);
        let doc = lopdf::Document::load_mem(&pdf).unwrap();
        let pages = doc.get_pages();
        assert_eq!(pages.len(), 1);
        assert_eq!(
            embedded_jpeg(&doc),
            Some(jpeg),
            "the embedded JPEG stream differs from the scan"
        );
    }
}
