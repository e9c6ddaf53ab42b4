//! Files written by hand for the tests that feed the decoder hostile input
//! (`decode_bombs`, `bad_inputs`): one-page PDFs, zlib bombs and JPEGs whose frame
//! header lies about their size.

#![allow(dead_code)] // each test binary uses a different part of this module

use std::io::{Read, Write};

use flate2::Compression;
use flate2::write::ZlibEncoder;
use image::{ImageEncoder, Rgb, RgbImage};
use lopdf::content::{Content, Operation};
use lopdf::{Document, Object, ObjectId, Stream, dictionary};

/// What a bomb inflates to: far over every limit of the decoder.
pub const BOMB_BYTES: u64 = 256 << 20;

/// `len` zero bytes, zlib-compressed (about a thousandth of `len`).
pub fn zlib_zeros(len: u64) -> Vec<u8> {
    let mut encoder = ZlibEncoder::new(Vec::new(), Compression::fast());
    std::io::copy(&mut std::io::repeat(0).take(len), &mut encoder).unwrap();
    encoder.finish().unwrap()
}

pub fn zlib(data: &[u8]) -> Vec<u8> {
    let mut encoder = ZlibEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

/// A one-page PDF whose content is `content` and whose XObject `/Im0` is `image`;
/// the page is `media_box` points wide and high, or has no MediaBox when `None`.
pub fn one_page_pdf(
    media_box: Option<(f32, f32)>,
    content: Stream,
    image: Option<Stream>,
) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let mut xobjects = lopdf::Dictionary::new();
    if let Some(image) = image {
        xobjects.set("Im0", doc.add_object(image));
    }
    let resources = doc.add_object(dictionary! { "XObject" => xobjects });
    let content = doc.add_object(content);
    let mut page = dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => content, "Resources" => resources,
    };
    if let Some((width, height)) = media_box {
        page.set(
            "MediaBox",
            vec![0.into(), 0.into(), width.into(), height.into()],
        );
    }
    let page = doc.add_object(page);
    saved_with_page(doc, pages_id, page)
}

/// `doc` saved with `page` as its only page, under the page tree `pages_id`.
pub fn saved_with_page(mut doc: Document, pages_id: ObjectId, page: ObjectId) -> Vec<u8> {
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

/// A content stream of `ops`, uncompressed.
pub fn drawing(ops: Vec<Operation>) -> Stream {
    Stream::new(
        dictionary! {},
        Content { operations: ops }.encode().unwrap(),
    )
}

/// Draws `/Im0` over `w` × `h` points at the page's origin.
pub fn draw_image_at(w: f32, h: f32) -> Vec<Operation> {
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

/// A 100 × 100 RGB image XObject whose Flate stream holds `data` (compressed).
pub fn flate_image(data: Vec<u8>) -> Stream {
    Stream::new(
        dictionary! {
            "Type" => "XObject", "Subtype" => "Image",
            "Width" => 100, "Height" => 100,
            "ColorSpace" => "DeviceRGB", "BitsPerComponent" => 8, "Filter" => "FlateDecode",
        },
        data,
    )
    .with_compression(false)
}

/// A 600 × 400 pt page drawing a 100 × 100 image that inflates to [`BOMB_BYTES`].
pub fn pdf_image_bomb() -> Vec<u8> {
    one_page_pdf(
        Some((600.0, 400.0)),
        drawing(draw_image_at(100.0, 100.0)),
        Some(flate_image(zlib_zeros(BOMB_BYTES))),
    )
}

/// A 600 × 400 pt page whose content stream inflates to [`BOMB_BYTES`].
pub fn pdf_content_bomb() -> Vec<u8> {
    let content = Stream::new(
        dictionary! { "Filter" => "FlateDecode" },
        zlib_zeros(BOMB_BYTES),
    )
    .with_compression(false);
    one_page_pdf(Some((600.0, 400.0)), content, None)
}

/// A baseline JPEG of `width` × `height` grey pixels.
pub fn jpeg(width: u32, height: u32) -> Vec<u8> {
    let image = RgbImage::from_pixel(width, height, Rgb([128, 128, 128]));
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new(&mut out)
        .encode_image(&image)
        .unwrap();
    out
}

/// `jpeg` with its (first) frame header declaring `width` × `height` instead.
pub fn with_frame_size(mut jpeg: Vec<u8>, width: u16, height: u16) -> Vec<u8> {
    let sof = jpeg.windows(2).position(|w| w == [0xFF, 0xC0]).unwrap();
    jpeg[sof + 5..sof + 7].copy_from_slice(&height.to_be_bytes());
    jpeg[sof + 7..sof + 9].copy_from_slice(&width.to_be_bytes());
    jpeg
}

/// A 400 × 300 JPEG whose frame header claims 60,000 × 60,000 pixels.
pub fn jpeg_sof_bomb() -> Vec<u8> {
    with_frame_size(jpeg(400, 300), 60_000, 60_000)
}

/// `image` encoded as a PNG.
pub fn png(image: &RgbImage) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(
            image.as_raw(),
            image.width(),
            image.height(),
            image::ExtendedColorType::Rgb8,
        )
        .unwrap();
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

fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let mut body = kind.to_vec();
    body.extend_from_slice(data);
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32(&body).to_be_bytes());
}

/// An 8-bit RGB PNG of `width` × `height` whose IDAT holds `idat` (already
/// compressed), with `extra` chunks before it.
pub fn raw_png(width: u32, height: u32, extra: &[(&[u8; 4], Vec<u8>)], idat: &[u8]) -> Vec<u8> {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = width.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
    png_chunk(&mut out, b"IHDR", &ihdr);
    for (kind, data) in extra {
        png_chunk(&mut out, kind, data);
    }
    png_chunk(&mut out, b"IDAT", idat);
    png_chunk(&mut out, b"IEND", &[]);
    out
}
