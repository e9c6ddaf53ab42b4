//! PDF loading, bounded stream decoding and rasterising behind the limits.
#![no_main]

use hawiya::pipeline::decode::{DecodeLimits, decode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = DecodeLimits {
        // A page rasterised at 36 dpi and smaller bounds keep each run fast; the
        // checks that enforce them are the same as the service's.
        max_pixels: 2_000_000,
        max_side: 4096,
        pdf_dpi: 36.0,
        max_pdf_stream_bytes: 8 << 20,
        max_pdf_decoded_bytes: 32 << 20,
        ..DecodeLimits::default()
    };
    let _ = decode(data, &limits);
});
