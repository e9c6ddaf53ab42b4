//! JPEG and PNG decoding behind the limits: any bytes are refused or decoded, never
//! a panic, and never more memory than the limits allow (libFuzzer's RSS limit).
#![no_main]

use hawiya::pipeline::decode::{DecodeLimits, decode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = DecodeLimits {
        // Smaller than the service's so that each run stays fast; the checks that
        // enforce them are the same.
        max_pixels: 4_000_000,
        max_side: 4096,
        ..DecodeLimits::default()
    };
    let _ = decode(data, &limits);
});
