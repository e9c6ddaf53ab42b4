//! Test files shared by the decoder's tests.

use image::codecs::jpeg::JpegEncoder;
use image::codecs::png::PngEncoder;
use image::{ImageEncoder, Rgb, RgbImage};

use super::{DecodeError, DecodeLimits, decode};

/// A test picture whose orientation is recognisable: red top-left quadrant,
/// the rest white.
pub fn marked(width: u32, height: u32) -> RgbImage {
    RgbImage::from_fn(width, height, |x, y| {
        if x < width / 2 && y < height / 2 {
            Rgb([220, 20, 20])
        } else {
            Rgb([250, 250, 250])
        }
    })
}

pub fn jpeg(image: &RgbImage) -> Vec<u8> {
    let mut out = Vec::new();
    JpegEncoder::new_with_quality(&mut out, 90)
        .encode_image(image)
        .unwrap();
    out
}

pub fn png(image: &RgbImage) -> Vec<u8> {
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

pub fn is_red(p: &Rgb<u8>) -> bool {
    p.0[0] > 150 && p.0[1] < 100
}

/// The error of a decode expected to fail (without printing pixels if it does not).
pub fn decode_err(bytes: &[u8], limits: &DecodeLimits) -> DecodeError {
    match decode(bytes, limits) {
        Ok(decoded) => panic!("decoded to {:?}", decoded.image.dimensions()),
        Err(err) => err,
    }
}

/// A valid PNG header declaring `width`×`height`, with no pixel data at all:
/// the limit must trip on the header alone.
pub fn png_header_only(width: u32, height: u32) -> Vec<u8> {
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

pub fn crc32(data: &[u8]) -> u32 {
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
