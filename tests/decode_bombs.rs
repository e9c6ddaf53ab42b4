//! Decompression bombs against the decoder: small files that declare or inflate to
//! far more than they hold. Each is answered with its documented error (or read, when
//! what it declares is within the limits), and the heap memory live at any moment
//! while decoding stays under a stated bound. Memory is measured by a counting global
//! allocator in this test binary; the cases run one at a time, building their files
//! included, so that one case's allocations are not counted against another.

mod crafted;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

use crafted::{
    BOMB_BYTES, draw_image_at, drawing, jpeg, jpeg_sof_bomb, one_page_pdf, pdf_content_bomb,
    pdf_image_bomb, raw_png, saved_with_page, with_frame_size, zlib, zlib_zeros,
};
use hawiya::pipeline::ExtractError;
use hawiya::pipeline::decode::{DecodeLimits, decode};
use lopdf::{Document, Object, Stream, dictionary};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            grew(new_size);
        }
        new
    }
}

fn grew(size: usize) {
    let live = LIVE.fetch_add(size, Ordering::Relaxed) + size;
    PEAK.fetch_max(live, Ordering::Relaxed);
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// One case at a time: the counters are process-wide, and a case building its bomb
/// (a 64 MiB buffer for the PNG IDAT) while another decodes would be counted there.
static SERIAL: Mutex<()> = Mutex::new(());

fn one_case_at_a_time() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The bound asserted on the heap grown while decoding any of these files: what the
/// largest legitimate declared image here costs (2000 × 1500 RGB, decoded and
/// flattened) plus the decoders' working buffers, far under what a bomb inflates to.
const PEAK_BOUND: usize = 64 << 20;

/// Decodes `bytes` with the default limits and returns the outcome (as the pipeline
/// reports it) and the most heap memory live at once above what was live before.
fn decode_measured(bytes: &[u8]) -> (Result<(u32, u32), ExtractError>, usize) {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let outcome = decode(bytes, &DecodeLimits::default())
        .map(|decoded| decoded.image.dimensions())
        .map_err(ExtractError::from);
    let peak = PEAK.load(Ordering::Relaxed).saturating_sub(before);
    (outcome, peak)
}

fn assert_bounded(name: &str, bytes: &[u8], expected: Result<(u32, u32), &str>) {
    let (outcome, peak) = decode_measured(bytes);
    let got = outcome.as_ref().map(|&size| size).map_err(|e| e.reason());
    assert_eq!(got, expected, "{name}: {outcome:?}");
    assert!(
        peak < PEAK_BOUND,
        "{name}: {} MiB live at once while decoding (bound {} MiB)",
        peak >> 20,
        PEAK_BOUND >> 20
    );
    eprintln!(
        "{name}: {outcome:?}, peak {:.1} MiB",
        peak as f64 / 1048576.0
    );
}

/// The scanlines of a white `width` × `height` RGB image (filter byte 0 per row).
fn white_rows(width: u32, height: u32) -> Vec<u8> {
    let row = 1 + 3 * width as usize;
    let mut raw = vec![255u8; row * height as usize];
    for line in raw.chunks_mut(row) {
        line[0] = 0;
    }
    raw
}

#[test]
fn a_pdf_image_stream_inflating_past_its_declared_pixels_is_refused_without_inflating_it() {
    let _serial = one_case_at_a_time();
    assert_bounded(
        "PDF image stream",
        &pdf_image_bomb(),
        Err("IMAGE_TOO_LARGE"),
    );
}

#[test]
fn a_pdf_content_stream_bomb_is_refused() {
    let _serial = one_case_at_a_time();
    assert_bounded(
        "PDF content stream",
        &pdf_content_bomb(),
        Err("IMAGE_TOO_LARGE"),
    );
}

#[test]
fn a_png_whose_idat_inflates_past_its_pixels_costs_no_more_than_its_pixels() {
    let _serial = one_case_at_a_time();
    let mut raw = white_rows(2000, 1500);
    raw.resize(BOMB_BYTES as usize / 4, 0);
    let bytes = raw_png(2000, 1500, &[], &zlib(&raw));
    drop(raw);
    assert_bounded("PNG IDAT", &bytes, Ok((2000, 1500)));
}

#[test]
fn a_png_ztxt_bomb_costs_nothing() {
    let _serial = one_case_at_a_time();
    let mut ztxt = b"Comment\0\0".to_vec();
    ztxt.extend_from_slice(&zlib_zeros(BOMB_BYTES));
    let bytes = raw_png(
        2000,
        1500,
        &[(b"zTXt", ztxt)],
        &zlib(&white_rows(2000, 1500)),
    );
    assert_bounded("PNG zTXt", &bytes, Ok((2000, 1500)));
}

#[test]
fn a_png_iccp_bomb_costs_nothing() {
    let _serial = one_case_at_a_time();
    let mut iccp = b"profile\0\0".to_vec();
    iccp.extend_from_slice(&zlib_zeros(BOMB_BYTES));
    let bytes = raw_png(
        2000,
        1500,
        &[(b"iCCP", iccp)],
        &zlib(&white_rows(2000, 1500)),
    );
    assert_bounded("PNG iCCP", &bytes, Ok((2000, 1500)));
}

#[test]
fn a_jpeg_frame_header_declaring_a_huge_image_is_refused_before_decoding() {
    let _serial = one_case_at_a_time();
    assert_bounded("JPEG SOF", &jpeg_sof_bomb(), Err("IMAGE_TOO_LARGE"));
}

#[test]
fn a_huge_jpeg_frame_header_followed_by_a_small_one_is_refused() {
    let _serial = one_case_at_a_time();
    // Decoders size their buffers from the first frame header; a check of the last
    // alone would pass this file.
    let small = jpeg(400, 300);
    let sof = small.windows(2).position(|w| w == [0xFF, 0xC0]).unwrap();
    let len = usize::from(u16::from_be_bytes([small[sof + 2], small[sof + 3]]));
    let huge = with_frame_size(small[sof..sof + 2 + len].to_vec(), 60_000, 60_000);
    let mut bytes = small[..sof].to_vec();
    bytes.extend_from_slice(&huge);
    bytes.extend_from_slice(&small[sof..]);
    assert_bounded("JPEG second SOF", &bytes, Err("IMAGE_TOO_LARGE"));
}

#[test]
fn a_pdf_jpeg_declaring_more_pixels_than_its_image_dictionary_is_refused() {
    let _serial = one_case_at_a_time();
    let image = Stream::new(
        dictionary! {
            "Type" => "XObject", "Subtype" => "Image",
            "Width" => 400, "Height" => 300,
            "ColorSpace" => "DeviceRGB", "BitsPerComponent" => 8, "Filter" => "DCTDecode",
        },
        jpeg_sof_bomb(),
    )
    .with_compression(false);
    let bytes = one_page_pdf(
        Some((600.0, 400.0)),
        drawing(draw_image_at(100.0, 100.0)),
        Some(image),
    );
    assert_bounded("PDF JPEG SOF", &bytes, Err("IMAGE_TOO_LARGE"));
}

#[test]
fn a_pdf_inline_image_that_could_inflate_past_the_stream_bound_is_refused() {
    let _serial = one_case_at_a_time();
    let mut content = b"q 100 0 0 100 0 0 cm BI /W 100 /H 100 /CS /RGB /BPC 8 /F /Fl ID ".to_vec();
    content.extend_from_slice(&zlib_zeros(BOMB_BYTES));
    content.extend_from_slice(b" EI Q");
    let bytes = one_page_pdf(
        Some((600.0, 400.0)),
        Stream::new(dictionary! {}, content).with_compression(false),
        None,
    );
    assert_bounded("PDF inline image", &bytes, Err("IMAGE_TOO_LARGE"));
}

#[test]
fn a_pdf_whose_streams_together_decode_past_the_page_bound_is_refused() {
    let _serial = one_case_at_a_time();
    // Forty content streams of 4 MiB each: each within the stream bound, together
    // over the page's.
    let piece = zlib(&vec![b' '; 4 << 20]);
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let contents: Vec<Object> = (0..40)
        .map(|_| {
            doc.add_object(
                Stream::new(dictionary! { "Filter" => "FlateDecode" }, piece.clone())
                    .with_compression(false),
            )
            .into()
        })
        .collect();
    let page = doc.add_object(dictionary! {
        "Type" => "Page", "Parent" => pages_id, "Contents" => contents,
        "MediaBox" => vec![0.into(), 0.into(), 600.into(), 400.into()],
    });
    let bytes = saved_with_page(doc, pages_id, page);
    let (outcome, _) = decode_measured(&bytes);
    assert_eq!(outcome.map_err(|e| e.reason()), Err("IMAGE_TOO_LARGE"));
}
