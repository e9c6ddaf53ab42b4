//! The upload reader: any body under a multipart content type is answered with an
//! upload or an API error, never a panic.
#![no_main]

use std::sync::LazyLock;

use axum::body::Body;
use axum::extract::Request;
use hawiya::http::read_upload;
use libfuzzer_sys::fuzz_target;

/// The boundary the seeds use.
const CONTENT_TYPE: &str = "multipart/form-data; boundary=hawiyafuzz";

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime")
});

fuzz_target!(|data: &[u8]| {
    let request = Request::builder()
        .method("POST")
        .uri("/uploadImage")
        .header("content-type", CONTENT_TYPE)
        .body(Body::from(data.to_vec()))
        .expect("a request");
    let limit = 4096;
    if let Ok(upload) = RUNTIME.block_on(read_upload(request, limit)) {
        assert!(!upload.bytes.is_empty() && upload.bytes.len() <= limit);
    }
});
