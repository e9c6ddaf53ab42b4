//! What the demo page needs from the service, over real HTTP: the opt-in overlay in
//! both flows, and the page itself (tests/browser/ drives it in a real browser).

mod http_support;

use std::sync::atomic::Ordering;
use std::time::Duration;

use base64::Engine;
use http_support::{KEY, OTHER_KEY, PICTURE_SIZE, PREFIX, TestServer, image};

/// Asserts `overlay` is the double's picture: a JPEG data URL of its size, and its
/// one box with the fields it fed.
fn assert_picture(overlay: &serde_json::Value) {
    let image = overlay["image"].as_str().expect("image is a string");
    let encoded = image
        .strip_prefix("data:image/jpeg;base64,")
        .expect("a JPEG data URL");
    let jpeg = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap();
    let decoded = image::load_from_memory_with_format(&jpeg, image::ImageFormat::Jpeg).unwrap();
    let (width, height) = PICTURE_SIZE;
    assert_eq!((decoded.width(), decoded.height()), (width, height));
    assert_eq!(
        (overlay["width"].as_u64(), overlay["height"].as_u64()),
        (Some(100), Some(63))
    );
    assert_eq!(
        overlay["fields"],
        serde_json::json!([{
            "key": "national_id",
            "flow_a": ["birthday", "gender", "national_ID"],
            "flow_b": ["birth_date", "gender", "national_id"],
            "confidence": 0.97,
            "box": [10, 40, 90, 52],
        }])
    );
}

#[tokio::test]
async fn no_overlay_is_made_or_answered_unless_the_upload_asks() {
    let server = TestServer::start(|_| {}).await;
    let id = server.upload(KEY, Some("0"), image("")).await.id();
    // ReadImage cannot ask for it: the image is gone once the pipeline ran.
    let url = server.url(&format!(
        "{PREFIX}/ReadImage?id={id}&isBlocked=true&overlay=true"
    ));
    let read = server
        .client
        .get(url)
        .header("APIKEY", KEY)
        .send()
        .await
        .unwrap();
    let read = http_support::Answer::of(read).await;
    assert_eq!(read.body["data"]["national_ID"], "29001011234567");
    assert!(read.body.get("overlay").is_none(), "{:?}", read.body);

    let flow_b = server.upload_b_query(KEY, "overlay=false", image("")).await;
    assert_eq!(flow_b.status, 200);
    assert!(flow_b.body.get("overlay").is_none());
    assert_eq!(server.pipeline.overlays_asked.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn flow_a_delivers_the_overlay_once_with_its_result_to_the_uploading_key_only() {
    let server = TestServer::start(|_| {}).await;
    let id = server
        .upload_query(KEY, "ID_type=0&overlay=true", image(""))
        .await
        .id();
    server
        .read(OTHER_KEY, &id, "true")
        .await
        .assert_error(403, "ID_NOT_FOUND");
    let read = server.read(KEY, &id, "true").await;
    assert_eq!(read.status, 200);
    assert_eq!(read.body["data"]["national_ID"], "29001011234567");
    assert!(
        read.body["data"].get("overlay").is_none(),
        "data keeps the reference's shape"
    );
    assert_picture(&read.body["overlay"]);
    assert_eq!(server.pipeline.overlays_asked.load(Ordering::SeqCst), 1);
    // Delivered: gone with the result.
    server
        .read(KEY, &id, "false")
        .await
        .assert_error(403, "ID_NOT_FOUND");
}

#[tokio::test]
async fn an_undelivered_overlay_expires_with_its_result() {
    let server = TestServer::start(|s| s.result_ttl = Duration::from_millis(200)).await;
    let id = server
        .upload_query(KEY, "overlay=True", image(""))
        .await
        .id();
    while server.pipeline.finished.load(Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    server
        .read(KEY, &id, "false")
        .await
        .assert_error(403, "ID_NOT_FOUND");
}

#[tokio::test]
async fn flow_b_answers_the_overlay_in_the_same_call() {
    let server = TestServer::start(|_| {}).await;
    let answer = server
        .upload_b_query(KEY, "ID_type=0&overlay=true", image(""))
        .await;
    assert_eq!(answer.status, 200, "{:?}", answer.body);
    assert_eq!(answer.body["data"]["national_id"], "29001011234567");
    assert_picture(&answer.body["overlay"]);
}

#[tokio::test]
async fn overlay_must_be_true_or_false() {
    let server = TestServer::start(|_| {}).await;
    for query in ["overlay=yes", "ID_type=0&overlay=1"] {
        server
            .upload_query(KEY, query, image(""))
            .await
            .assert_error(400, "INVALID_OVERLAY");
        server
            .upload_b_query(KEY, query, image(""))
            .await
            .assert_error(400, "INVALID_OVERLAY");
    }
    assert_eq!(server.pipeline.calls.load(Ordering::SeqCst), 0);
}

/// GET `path`: status, content type, Content-Security-Policy and body.
async fn fetch(server: &TestServer, path: &str) -> (u16, String, String, String) {
    let response = server.client.get(server.url(path)).send().await.unwrap();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
            .unwrap_or_default()
    };
    let (content_type, policy) = (header("content-type"), header("content-security-policy"));
    let status = response.status().as_u16();
    (status, content_type, policy, response.text().await.unwrap())
}

#[tokio::test]
async fn the_page_and_its_assets_are_served_from_the_binary_and_load_nothing_from_elsewhere() {
    let server = TestServer::start(|s| s.prefix = "/ocr".into()).await;
    for path in ["/", "/demo"] {
        let (status, content_type, policy, body) = fetch(&server, path).await;
        assert_eq!(status, 200);
        assert_eq!(content_type, "text/html; charset=utf-8");
        assert!(policy.starts_with("default-src 'none'"), "{policy}");
        assert!(policy.contains("connect-src 'self'"), "{policy}");
        // The page calls the API under the configured prefix.
        assert!(body.contains(r#"<meta name="hawiya-prefix" content="/ocr">"#));
        assert!(body.contains(r#"<select id="id-type""#));
    }
    let (status, content_type, _, script) = fetch(&server, "/demo/demo.js").await;
    assert_eq!(
        (status, content_type.as_str()),
        (200, "text/javascript; charset=utf-8")
    );
    assert!(script.contains("overlay=true"));
    let (status, content_type, _, _) = fetch(&server, "/demo/demo.css").await;
    assert_eq!(
        (status, content_type.as_str()),
        (200, "text/css; charset=utf-8")
    );
}

#[tokio::test]
async fn no_demo_leaves_the_page_unserved() {
    let server = TestServer::start(|s| s.demo = false).await;
    for path in ["/", "/demo", "/demo/demo.js"] {
        server.get(path).await.assert_error(404, "NOT_FOUND");
    }
    // The API is unaffected.
    assert_eq!(server.upload(KEY, None, image("")).await.status, 200);
}
