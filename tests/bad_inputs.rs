//! The bad-input catalogue: every hostile, broken or unreadable request a client can
//! send, over real sockets against `hawiya serve` with the shipped models, each
//! answered with its documented status and a JSON body naming the reason, and none
//! of them charged. Requests the HTTP library itself refuses (malformed request
//! lines, huge URIs, too many headers, slow heads) are written byte by byte on raw
//! TCP connections.

mod crafted;
mod http_support;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crafted::{drawing, jpeg_sof_bomb, one_page_pdf, pdf_content_bomb, pdf_image_bomb, png};
use http_support::{KEY, PREFIX, TestServer};
use image::{Rgb, RgbImage};
use rand::{Rng, SeedableRng};
use serde_json::Value;

use hawiya::pipeline::Extractor;

/// The shipped pipeline, loaded once for every server of this binary.
fn pipeline() -> Arc<dyn Extractor> {
    static PIPELINE: OnceLock<Arc<dyn Extractor>> = OnceLock::new();
    PIPELINE
        .get_or_init(|| {
            let models = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
            Arc::new(
                hawiya::pipeline::PipelineOptions::with_models(models)
                    .load()
                    .expect("the shipped models"),
            )
        })
        .clone()
}

async fn server(configure: impl FnOnce(&mut hawiya::http::Settings)) -> TestServer {
    TestServer::start_with(configure, pipeline()).await
}

fn noise(seed: u64) -> Vec<u8> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    png(&RgbImage::from_fn(1000, 700, |_, _| Rgb(rng.random())))
}

/// A pale card-shaped rectangle with nothing printed on it, on a dark table.
fn blank_card() -> Vec<u8> {
    png(&RgbImage::from_fn(1600, 1200, |x, y| {
        if (372..1228).contains(&x) && (330..870).contains(&y) {
            Rgb([245, 245, 240])
        } else {
            Rgb([60, 60, 65])
        }
    }))
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/docs")
            .join(name),
    )
    .unwrap()
}

/// Uploads the case's file in Flow B and checks the refusal: status, reason, no
/// credit charged (the key's 1,000 are all left).
async fn refused(server: &TestServer, case: &Case) {
    let Case {
        name,
        id_type,
        status,
        reason,
        ..
    } = *case;
    let answer = server.upload_b(KEY, id_type, case.bytes.clone()).await;
    assert_eq!(
        (answer.status, answer.body["reason"].as_str()),
        (status, Some(reason)),
        "{name}: {:?}",
        answer.body
    );
    answer.assert_error(status, reason);
    assert_eq!(answer.body["credits_used"], 0, "{name}");
    assert_eq!(answer.credits(), 1000, "{name}: charged");
}

/// A file and the refusal it gets: Flow B `ID_type`, status and reason.
struct Case {
    name: &'static str,
    bytes: Vec<u8>,
    id_type: Option<&'static str>,
    status: u16,
    reason: &'static str,
}

fn case(
    name: &'static str,
    bytes: Vec<u8>,
    id_type: Option<&'static str>,
    reason: &'static str,
) -> Case {
    let status = if reason == "UNSUPPORTED_FORMAT" {
        400
    } else {
        422
    };
    Case {
        name,
        bytes,
        id_type,
        status,
        reason,
    }
}

#[tokio::test]
async fn documents_that_cannot_be_read_are_refused_with_the_reason_and_free() {
    let server = server(|_| {}).await;
    let half_pdf = {
        let whole = fixture("car-licence-front-pdf.pdf");
        whole[..whole.len() / 2].to_vec()
    };
    let white = png(&RgbImage::from_pixel(1600, 1200, Rgb([255, 255, 255])));
    let black = png(&RgbImage::from_pixel(3000, 2000, Rgb([0, 0, 0])));
    let mut cases = vec![
        case(
            "PDF image stream bomb",
            pdf_image_bomb(),
            None,
            "IMAGE_TOO_LARGE",
        ),
        case(
            "PDF content stream bomb",
            pdf_content_bomb(),
            None,
            "IMAGE_TOO_LARGE",
        ),
        case(
            "JPEG frame header bomb",
            jpeg_sof_bomb(),
            None,
            "IMAGE_TOO_LARGE",
        ),
        case("white page", white, None, "NO_DOCUMENT_FOUND"),
        case("black rectangle", black, None, "NO_DOCUMENT_FOUND"),
        case("blank card", blank_card(), None, "NO_TEXT_FOUND"),
        case(
            "blank card as a National ID back",
            blank_card(),
            Some("1"),
            "NO_TEXT_FOUND",
        ),
        case(
            "PDF page without a MediaBox",
            one_page_pdf(None, drawing(vec![]), None),
            None,
            "NO_TEXT_FOUND",
        ),
        case("half a PDF", half_pdf, None, "NO_DOCUMENT_FOUND"),
        case(
            "a National ID front sent as a back",
            fixture("nid-front-scan.jpg"),
            Some("1"),
            "WRONG_ID_TYPE",
        ),
        case(
            "not an image",
            b"GIF89a\x01\0\x01\0".to_vec(),
            None,
            "UNSUPPORTED_FORMAT",
        ),
    ];
    for seed in 0..6 {
        cases.push(case("random noise", noise(seed), None, "NO_TEXT_FOUND"));
        cases.push(case(
            "random noise as a National ID back",
            noise(seed),
            Some("1"),
            "NO_TEXT_FOUND",
        ));
    }
    for case in cases {
        refused(&server, &case).await;
    }
}

#[tokio::test]
async fn a_flow_a_refusal_is_delivered_by_read_image_and_free() {
    let server = server(|_| {}).await;
    let upload = server.upload(KEY, None, noise(3)).await;
    // A credit is held while the document is read, and given back.
    assert_eq!(upload.credits(), 999);
    let answer = server.read(KEY, &upload.id(), "true").await;
    answer.assert_error(422, "NO_TEXT_FOUND");
    assert_eq!(answer.credits(), 1000);
}

/// Writes `request` on a new connection and reads until the server closes it.
fn raw_exchange(addr: SocketAddr, request: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    // The server may answer before reading it all: what it reads is enough.
    let _ = stream.write_all(request);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// The status and JSON body of a raw HTTP answer.
fn parse_answer(answer: &str) -> (u16, Value) {
    let (head, body) = answer
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no complete answer: {answer:?}"));
    let status = head[9..12].parse().unwrap();
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );
    let body = serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body:?}"));
    (status, body)
}

fn assert_raw_error(name: &str, answer: &str, status: u16, reason: &str) {
    let (got, body) = parse_answer(answer);
    assert_eq!(
        (got, body["reason"].as_str()),
        (status, Some(reason)),
        "{name}: {body}"
    );
    assert_eq!(body["code"], status, "{name}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{name}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn requests_the_http_library_refuses_are_answered_in_json() {
    let server = server(|_| {}).await;
    let addr = server.server.as_ref().unwrap().local_addr();
    let long_uri = format!(
        "GET /healthz?{} HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(100_000)
    );
    let mut many_headers = String::from("GET /healthz HTTP/1.1\r\nHost: x\r\n");
    for i in 0..200 {
        many_headers.push_str(&format!("X-Header-{i}: {i}\r\n"));
    }
    many_headers.push_str("\r\n");
    let cases = [
        ("a 100 KB URI", long_uri, 414, "URI_TOO_LONG"),
        ("200 headers", many_headers, 431, "HEADERS_TOO_LARGE"),
        (
            "a garbage request line",
            "\u{1}\u{2} NONSENSE\r\n\r\n".to_owned(),
            400,
            "MALFORMED_REQUEST",
        ),
        (
            "a malformed header",
            "GET /healthz HTTP/1.1\r\nHost x\r\n\r\n".to_owned(),
            400,
            "MALFORMED_REQUEST",
        ),
    ];
    for (name, request, status, reason) in cases {
        let answer = tokio::task::spawn_blocking(move || raw_exchange(addr, request.as_bytes()))
            .await
            .unwrap();
        assert_raw_error(name, &answer, status, reason);
    }
    // The server still answers normally.
    assert_eq!(server.get("/healthz").await.status, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_sending_its_headers_slowly_gets_408_and_is_disconnected() {
    let server = server(|s| s.header_timeout = Duration::from_millis(800)).await;
    let addr = server.server.as_ref().unwrap().local_addr();
    let answer = tokio::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let started = Instant::now();
        // A byte every 200 ms, as a slow-loris client does, until the server answers.
        for byte in b"GET /healthz HTTP/1.1\r\nHost: slow.example\r\nX-Padding: " {
            if stream.write_all(&[*byte]).is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(200));
            if started.elapsed() > Duration::from_secs(3) {
                break;
            }
        }
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        (
            String::from_utf8_lossy(&answer).into_owned(),
            started.elapsed(),
        )
    })
    .await
    .unwrap();
    assert_raw_error("slow headers", &answer.0, 408, "HEADER_TIMEOUT");
    assert!(answer.1 < Duration::from_secs(5), "{:?}", answer.1);
}

#[tokio::test(flavor = "multi_thread")]
async fn idle_keep_alive_connections_are_closed() {
    let server = server(|s| s.idle_timeout = Duration::from_millis(500)).await;
    let addr = server.server.as_ref().unwrap().local_addr();
    let closed_after = tokio::task::spawn_blocking(move || {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let started = Instant::now();
        let mut buf = [0u8; 64];
        // Nothing sent: the server closes without a word.
        let n = stream.read(&mut buf).unwrap_or(0);
        (n, started.elapsed())
    })
    .await
    .unwrap();
    assert_eq!(closed_after.0, 0, "the server wrote to an idle connection");
    assert!(
        closed_after.1 >= Duration::from_millis(400) && closed_after.1 < Duration::from_secs(5),
        "{:?}",
        closed_after.1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn connections_beyond_the_cap_wait_for_a_free_one() {
    let server = server(|s| {
        s.max_connections = 3;
        s.idle_timeout = Duration::from_secs(30);
    })
    .await;
    let addr = server.server.as_ref().unwrap().local_addr();
    let held: Vec<TcpStream> = (0..3).map(|_| TcpStream::connect(addr).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(200));
    let (answered_while_full, answered_later) = tokio::task::spawn_blocking(move || {
        let mut extra = TcpStream::connect(addr).unwrap();
        extra
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .unwrap();
        extra
            .set_read_timeout(Some(Duration::from_millis(500)))
            .unwrap();
        let mut buf = [0u8; 256];
        let while_full = extra.read(&mut buf).is_ok_and(|n| n > 0);
        drop(held);
        extra
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let mut answer = Vec::new();
        let _ = extra.read_to_end(&mut answer);
        (while_full, String::from_utf8_lossy(&answer).into_owned())
    })
    .await
    .unwrap();
    assert!(!answered_while_full, "a fourth connection was served");
    assert!(
        answered_later.starts_with("HTTP/1.1 200"),
        "{answered_later}"
    );
}

/// An upload request with `key` and a body of `size` bytes, written whole before
/// the answer is read, as Python's http.client and .NET's HttpClient do.
fn upload_written_whole(
    addr: SocketAddr,
    key: &str,
    size: usize,
    expect_continue: bool,
) -> (String, usize) {
    let boundary = "hawiyatest";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.png\"\r\n\r\n"
    )
    .into_bytes();
    body.extend(std::iter::repeat_n(0u8, size));
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let mut head = format!(
        "POST {PREFIX}/uploadImage HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAPIKEY: {key}\r\nContent-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {}\r\n",
        body.len()
    );
    if expect_continue {
        head.push_str("Expect: 100-continue\r\n");
    }
    head.push_str("\r\n");
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    let mut sent = 0;
    if expect_continue {
        // Wait for the server's word before sending the body, as such clients do.
        let mut answer = vec![0u8; 4096];
        let n = stream.read(&mut answer).unwrap();
        let answer = String::from_utf8_lossy(&answer[..n]).into_owned();
        if !answer.starts_with("HTTP/1.1 100") {
            return (answer, 0);
        }
    }
    for chunk in body.chunks(64 * 1024) {
        stream
            .write_all(chunk)
            .expect("the server reset the connection while the body was sent");
        sent += chunk.len();
    }
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).unwrap();
    (String::from_utf8_lossy(&answer).into_owned(), sent)
}

#[tokio::test(flavor = "multi_thread")]
async fn auth_and_credit_refusals_reach_clients_that_write_the_whole_body_first() {
    // The test keys have no credit at all.
    let server = server(|s| s.free_credits = 0).await;
    let addr = server.server.as_ref().unwrap().local_addr();
    for (key, status, reason) in [
        ("nope", 401, "UNAUTHORIZED"),
        (KEY, 402, "INSUFFICIENT_CREDITS"),
    ] {
        let (answer, sent) =
            tokio::task::spawn_blocking(move || upload_written_whole(addr, key, 3 << 20, false))
                .await
                .unwrap();
        assert!(sent > 3 << 20);
        let (got, body) = parse_answer(&answer);
        assert_eq!((got, body["reason"].as_str()), (status, Some(reason)));
    }
    // With Expect: 100-continue the refusal comes at once and no body is sent.
    let (answer, sent) =
        tokio::task::spawn_blocking(move || upload_written_whole(addr, "nope", 3 << 20, true))
            .await
            .unwrap();
    assert_eq!(sent, 0);
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_credit_is_held_only_once_the_upload_has_arrived() {
    let server = server(|s| s.free_credits = 1).await;
    let addr = server.server.as_ref().unwrap().local_addr();
    // A slow upload: its head and half its body, then a pause.
    let mut slow = TcpStream::connect(addr).unwrap();
    let image = fixture("nid-front-scan.jpg");
    let boundary = "hawiyatest";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.jpg\"\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(&image);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let head = format!(
        "POST {PREFIX}/uploadImage HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\nContent-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    slow.write_all(head.as_bytes()).unwrap();
    slow.write_all(&body[..body.len() / 2]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    // Meanwhile a normal upload of the same key is read and charged.
    let normal = server.upload_b(KEY, None, image.clone()).await;
    assert_eq!(normal.status, 200, "{:?}", normal.body);
    assert_eq!(normal.credits(), 0);
    // The slow one, complete now, finds no credit left.
    let answer = tokio::task::spawn_blocking(move || {
        slow.write_all(&body[body.len() / 2..]).unwrap();
        slow.set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut answer = vec![0u8; 8192];
        let n = slow.read(&mut answer).unwrap();
        String::from_utf8_lossy(&answer[..n]).into_owned()
    })
    .await
    .unwrap();
    let (status, body) = parse_answer(&answer);
    assert_eq!(
        (status, body["reason"].as_str()),
        (402, Some("INSUFFICIENT_CREDITS"))
    );
}

#[tokio::test]
async fn metrics_tell_the_truth() {
    let server = server(|_| {}).await;
    let read = server
        .upload_b(KEY, None, fixture("nid-front-scan.jpg"))
        .await;
    assert_eq!(read.status, 200, "{:?}", read.body);
    server
        .upload_b("nope", None, noise(1))
        .await
        .assert_error(401, "UNAUTHORIZED");
    // The gauges are the process's: tests running beside this one may hold lines in
    // the recognizer's queue for a moment, but it empties.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let mut metrics = server.metrics().await;
    while !metrics.contains("\nrecognizer_queue_depth 0\n") && std::time::Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
        metrics = server.metrics().await;
    }
    let value = |line_start: &str| -> f64 {
        metrics
            .lines()
            .find(|l| l.starts_with(line_start))
            .unwrap_or_else(|| panic!("no {line_start} in\n{metrics}"))
            .rsplit(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(value("recognizer_queue_depth "), 0.0);
    // Batch sizes in count buckets.
    assert!(
        metrics.contains("recognizer_batch_size_bucket{le=\"8\"}"),
        "{metrics}"
    );
    assert!(value("hawiya_uploads_total{flow=\"b\",outcome=\"accepted\"}") >= 1.0);
    assert!(value("hawiya_uploads_total{flow=\"unknown\",outcome=\"UNAUTHORIZED\"}") >= 1.0);
}

#[tokio::test]
async fn the_openapi_document_states_what_the_server_requires() {
    let server = server(|_| {}).await;
    let doc: Value = server
        .client
        .get(server.url("/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let read = &doc["paths"][format!("{PREFIX}/ReadImage")]["get"]["parameters"];
    let id = read
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "id")
        .unwrap();
    assert_eq!(id["required"], true, "{id}");
    assert_eq!(id["schema"]["pattern"], "^[0-9]{19}$");
    let upload = &doc["paths"][format!("{PREFIX}/uploadImage")]["post"]["requestBody"];
    assert_eq!(upload["required"], true);
    let schema = &upload["content"]["multipart/form-data"]["schema"]["$ref"];
    let name = schema.as_str().unwrap().rsplit('/').next().unwrap();
    let form = &doc["components"]["schemas"][name];
    assert_eq!(form["required"], serde_json::json!(["file"]));
    assert_eq!(form["properties"]["file"]["format"], "binary");
}
