//! The HTTP service over real HTTP: the error table (interface.md §7), Flow B,
//! keys and credits, back-pressure, shutdown and the operational routes.

mod http_support;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use hawiya::http::MAX_FILE_BYTES;
use http_support::{Answer, FakePipeline, KEY, PREFIX, TestServer, image, settings};

#[tokio::test]
async fn upload_errors_answer_their_status_and_reason() {
    let server = TestServer::start(|_| {}).await;
    let apikey = || Some(("APIKEY", KEY.to_owned()));

    // 401: no key, unknown key, on both routes; Flow B too.
    server
        .upload_part(None, None, "file", image(""))
        .await
        .assert_error(401, "UNAUTHORIZED");
    server
        .upload(KEY.trim_end_matches("one"), None, image(""))
        .await
        .assert_error(401, "UNAUTHORIZED");
    server
        .upload_b("nope", None, image(""))
        .await
        .assert_error(401, "UNAUTHORIZED");
    server
        .get(&format!("{PREFIX}/ReadImage?id=1&isBlocked=false"))
        .await
        .assert_error(401, "UNAUTHORIZED");

    // 400: the form field is not named `file`, no part at all, empty file, wrong format.
    let wrong = server.upload_part(apikey(), None, "image", image("")).await;
    wrong.assert_error(400, "WRONG_FIELD_NAME");
    assert!(wrong.body["message"].as_str().unwrap().contains("`image`"));
    let empty_form = server
        .client
        .post(server.url(&format!("{PREFIX}/uploadImage")))
        .header("APIKEY", KEY)
        .multipart(reqwest::multipart::Form::new())
        .send()
        .await
        .unwrap();
    Answer::of(empty_form)
        .await
        .assert_error(400, "MISSING_FILE");
    server
        .upload(KEY, None, Vec::new())
        .await
        .assert_error(400, "EMPTY_FILE");
    server
        .upload(KEY, None, b"GIF89a....".to_vec())
        .await
        .assert_error(400, "UNSUPPORTED_FORMAT");
    let not_multipart = server
        .client
        .post(server.url(&format!("{PREFIX}/uploadImage")))
        .header("APIKEY", KEY)
        .json(&serde_json::json!({"file": "x"}))
        .send()
        .await
        .unwrap();
    Answer::of(not_multipart)
        .await
        .assert_error(400, "INVALID_MULTIPART");

    // 400: ID_type outside 0..=3.
    for bad in ["4", "-1", "abc", ""] {
        server
            .upload(KEY, Some(bad), image(""))
            .await
            .assert_error(400, "INVALID_ID_TYPE");
    }
    for good in ["0", "1", "2", "3"] {
        server.upload(KEY, Some(good), image("")).await.id();
    }

    // 413 past 10,485,760 bytes; exactly the limit is accepted.
    let mut at_limit = image("");
    at_limit.resize(MAX_FILE_BYTES, b' ');
    server.upload(KEY, None, at_limit).await.id();
    let mut over = image("");
    over.resize(MAX_FILE_BYTES + 1, b' ');
    server
        .upload(KEY, None, over)
        .await
        .assert_error(413, "FILE_TOO_LARGE");
    let mut far_over = image("");
    far_over.resize(3 * MAX_FILE_BYTES, b' ');
    server
        .upload(KEY, None, far_over)
        .await
        .assert_error(413, "FILE_TOO_LARGE");
    // Nothing refused reached the pipeline.
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(server.pipeline.calls.load(Ordering::SeqCst), 5);
}

#[tokio::test]
async fn read_errors_answer_their_status_and_reason() {
    let server = TestServer::start(|_| {}).await;
    let id = server.upload(KEY, None, image("")).await.id();
    // 400: isBlocked neither true nor false, or no id.
    server
        .read(KEY, &id, "yes")
        .await
        .assert_error(400, "INVALID_IS_BLOCKED");
    let no_id = server
        .client
        .get(server.url(&format!("{PREFIX}/ReadImage?isBlocked=false")))
        .header("APIKEY", KEY);
    Answer::of(no_id.send().await.unwrap())
        .await
        .assert_error(400, "MISSING_ID");
    // 403: unknown or malformed ids answer exactly like any other unknown id.
    let unknown = server.read(KEY, "1000000000000000000", "false").await;
    unknown.assert_error(403, "ID_NOT_FOUND");
    for malformed in ["abc", "12", "card.png"] {
        assert_eq!(
            server.read(KEY, malformed, "false").await.body,
            unknown.body
        );
    }
    // isBlocked may be left out: it defaults to false.
    let answer = server
        .client
        .get(server.url(&format!("{PREFIX}/ReadImage?id={id}")))
        .header("APIKEY", KEY);
    assert_eq!(Answer::of(answer.send().await.unwrap()).await.status, 200);
}

#[tokio::test]
async fn unknown_paths_wrong_methods_and_faults_answer_json() {
    let server = TestServer::start(|_| {}).await;
    server.get("/nowhere").await.assert_error(404, "NOT_FOUND");
    server
        .get("/api/v2/SignMeAPI/uploadimage")
        .await
        .assert_error(404, "NOT_FOUND");
    server
        .get(&format!("{PREFIX}/uploadImage"))
        .await
        .assert_error(405, "METHOD_NOT_ALLOWED");
    server
        .post(&format!("{PREFIX}/ReadImage"))
        .await
        .assert_error(405, "METHOD_NOT_ALLOWED");
    // 500: a fault in the pipeline during a synchronous (Flow B) call.
    let fault = server.upload_b(KEY, None, image("panic=1;")).await;
    fault.assert_error(500, "INTERNAL_ERROR");
    assert_eq!(fault.body["credits_used"], 0);
}

#[tokio::test]
async fn flow_b_answers_the_result_in_one_call() {
    let server = TestServer::start(|_| {}).await;
    let answer = server.upload_b(KEY, None, image("delay=50;")).await;
    assert_eq!(answer.status, 200, "{:?}", answer.body);
    let body = &answer.body;
    assert_eq!(body["status"], "success");
    assert_eq!(body["credits_used"], 1);
    assert!(body["response_time_ms"].as_u64().unwrap() >= 50);
    let confidence = body["confidence"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&confidence));
    assert_eq!(body["data"]["national_id"], "29001011234567");
    assert_eq!(body["data"]["full_name_en"], "Ahmed Mohamed Aly");
    assert_eq!(body["data"]["birth_date"], "1990-01-01");
    assert_eq!(body["document_type"], "nid-front");
    assert!(body.get("id").is_none());

    // ID_type=3 selects the car licence.
    let car = server.upload_b(KEY, Some("3"), image("")).await;
    assert_eq!(car.body["data"]["plate_number"], "ق ن ط 123");
    assert_eq!(car.body["data"]["vehicle_year"], "2019");
    assert_eq!(car.body["document_type"], "car-licence-front");
    assert_eq!(
        server.pipeline.accepted.lock().last().map(Vec::as_slice),
        Some(hawiya::http::IdType::CarLicence.kinds())
    );

    // Failures are structured: code, message, reason, nothing charged.
    let before = car.credits();
    for (directive, status, reason) in [
        ("fail=WRONG_ID_TYPE;", 422, "WRONG_ID_TYPE"),
        ("fail=IMAGE_TOO_BLURRY;", 422, "IMAGE_TOO_BLURRY"),
        ("fail=NO_DOCUMENT_FOUND;", 422, "NO_DOCUMENT_FOUND"),
    ] {
        let failed = server.upload_b(KEY, Some("0"), image(directive)).await;
        failed.assert_error(status, reason);
        assert_eq!(failed.body["status"], "error");
        assert_eq!(failed.body["credits_used"], 0);
        assert_eq!(failed.body["confidence"], 0.0);
        assert_eq!(failed.credits(), before);
    }
    server
        .upload_b(KEY, None, b"BM....".to_vec())
        .await
        .assert_error(400, "UNSUPPORTED_FORMAT");
}

#[tokio::test]
async fn a_card_too_small_or_too_blurry_is_refused_saying_what_to_do_in_both_flows() {
    let server = TestServer::start(|_| {}).await;
    for (directive, reason, advice) in [
        (
            "fail=IMAGE_TOO_SMALL;",
            "IMAGE_TOO_SMALL",
            ["closer", "fills"],
        ),
        (
            "fail=IMAGE_TOO_BLURRY;",
            "IMAGE_TOO_BLURRY",
            ["still", "focus"],
        ),
    ] {
        let id = server.upload(KEY, None, image(directive)).await.id();
        let flow_a = server.read(KEY, &id, "true").await;
        let flow_b = server.upload_b(KEY, None, image(directive)).await;
        for answer in [flow_a, flow_b] {
            answer.assert_error(422, reason);
            let message = answer.body["message"].as_str().unwrap();
            for words in advice {
                assert!(message.contains(words), "{reason}: {message}");
            }
        }
    }
    // What was measured stays in the message, before the advice.
    let small = server
        .upload_b(KEY, None, image("fail=IMAGE_TOO_SMALL;"))
        .await;
    let message = small.body["message"].as_str().unwrap();
    assert!(message.contains("150 pixels wide"), "{message}");
    assert!(
        message.ends_with(hawiya::pipeline::TOO_SMALL_ADVICE),
        "{message}"
    );
}

#[tokio::test]
async fn credits_are_spent_on_success_only_refused_at_zero_and_survive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().to_owned();
    let configure = |s: &mut hawiya::http::Settings| {
        s.free_credits = 3;
        s.api_keys = vec![KEY.into()];
    };
    let mut first = settings(&data);
    configure(&mut first);
    let mut server = TestServer::start_in(dir, first, Arc::new(FakePipeline::default())).await;

    assert_eq!(server.upload_b(KEY, None, image("")).await.credits(), 2);
    assert_eq!(
        server
            .upload_b(KEY, None, image("fail=IMAGE_TOO_BLURRY;"))
            .await
            .credits(),
        2
    );
    let id = server.upload(KEY, None, image("")).await.id();
    let read = server.read(KEY, &id, "true").await;
    assert_eq!(read.status, 200);
    assert_eq!(read.credits(), 1);
    assert_eq!(server.upload_b(KEY, None, image("")).await.credits(), 0);
    let refused = server.upload(KEY, None, image("")).await;
    refused.assert_error(402, "INSUFFICIENT_CREDITS");
    assert_eq!(refused.credits(), 0);
    server
        .upload_b(KEY, None, image(""))
        .await
        .assert_error(402, "INSUFFICIENT_CREDITS");
    server.shutdown().await;

    let mut second = settings(&data);
    configure(&mut second);
    let restarted =
        TestServer::start_in(server.dir, second, Arc::new(FakePipeline::default())).await;
    restarted
        .upload(KEY, None, image(""))
        .await
        .assert_error(402, "INSUFFICIENT_CREDITS");
    assert_eq!(restarted.pipeline.calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_first_start_without_keys_creates_one_and_keeps_only_its_hash() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = settings(dir.path());
    settings.api_keys.clear();
    settings.free_credits = hawiya::keys::FREE_TIER_CREDITS;
    let mut server =
        TestServer::start_in(dir, settings.clone(), Arc::new(FakePipeline::default())).await;
    let key = server
        .server
        .as_ref()
        .unwrap()
        .created_key()
        .unwrap()
        .to_owned();
    let answer = server.upload(&key, None, image("")).await;
    assert_eq!(answer.credits(), 99, "a new key gets the free tier of 100");
    let keys_file = std::fs::read_to_string(&settings.keys_file).unwrap();
    assert!(!keys_file.contains(&key));
    server.shutdown().await;

    let restarted =
        TestServer::start_in(server.dir, settings, Arc::new(FakePipeline::default())).await;
    assert!(restarted.server.as_ref().unwrap().created_key().is_none());
    restarted.upload(&key, None, image("")).await.id();
}

#[tokio::test]
async fn a_full_queue_answers_503_with_retry_after_and_drops_nothing_accepted() {
    let server = TestServer::start(|s| {
        s.queue = 2;
        s.workers = 1;
    })
    .await;
    let first = server.upload(KEY, None, image("delay=1000;")).await.id();
    let second = server.upload(KEY, None, image("delay=1000;")).await.id();
    let refused = server.upload(KEY, None, image("")).await;
    refused.assert_error(503, "QUEUE_FULL");
    assert!(refused.headers.contains_key("retry-after"));
    server
        .upload_b(KEY, None, image(""))
        .await
        .assert_error(503, "QUEUE_FULL");
    for id in [first, second] {
        let mut answer = server.read(KEY, &id, "true").await;
        while answer.body["data"] == serde_json::json!({}) {
            answer = server.read(KEY, &id, "true").await;
        }
        assert_eq!(answer.body["data"]["national_ID"], "29001011234567");
    }
    // Room again once they are done.
    server.upload(KEY, None, image("")).await.id();
}

#[tokio::test]
async fn a_momentarily_overloaded_recognizer_does_not_fail_accepted_jobs() {
    let server = TestServer::start(|_| {}).await;
    let id = server.upload(KEY, None, image("overloaded=3;")).await.id();
    let answer = server.read(KEY, &id, "true").await;
    assert_eq!(answer.body["data"]["national_ID"], "29001011234567");
    assert_eq!(server.pipeline.calls.load(Ordering::SeqCst), 4);
    let answer = server.upload_b(KEY, None, image("overloaded=2;")).await;
    assert_eq!(answer.body["status"], "success");
}

#[tokio::test]
async fn graceful_shutdown_finishes_the_jobs_in_flight() {
    let mut server = TestServer::start(|_| {}).await;
    for _ in 0..3 {
        server.upload(KEY, None, image("delay=1500;")).await.id();
    }
    assert_eq!(server.pipeline.finished.load(Ordering::SeqCst), 0);
    server.shutdown().await;
    assert_eq!(server.pipeline.finished.load(Ordering::SeqCst), 3);
    // No longer listening.
    assert!(
        server
            .client
            .get(server.url("/healthz"))
            .send()
            .await
            .is_err()
    );
}

#[tokio::test]
async fn health_readiness_metrics_and_openapi() {
    let server = TestServer::start(|_| {}).await;
    let health = server.get("/healthz").await;
    assert_eq!(
        (health.status, health.body["status"].as_str()),
        (200, Some("ok"))
    );
    assert_eq!(server.get("/readyz").await.status, 200);
    server.pipeline.not_ready.store(true, Ordering::SeqCst);
    server.get("/readyz").await.assert_error(503, "NOT_READY");

    let id = server.upload(KEY, None, image("")).await.id();
    server.read(KEY, &id, "true").await;
    let text = server.metrics().await;
    assert!(text.contains("hawiya_http_requests_total"), "{text}");
    assert!(text.contains("hawiya_extractions_total"), "{text}");
    assert!(!text.contains(&id), "ids stay out of metrics");

    let openapi = server.get("/openapi.json").await;
    assert!(openapi.body["openapi"].as_str().unwrap().starts_with('3'));
    let paths = openapi.body["paths"].as_object().unwrap();
    assert!(paths.contains_key(&format!("{PREFIX}/uploadImage")));
    assert!(paths.contains_key(&format!("{PREFIX}/ReadImage")));
    assert!(paths.contains_key("/readyz"));
}

#[tokio::test]
async fn the_prefix_is_configurable() {
    let server = TestServer::start(|s| s.prefix = "/ocr".into()).await;
    let upload = server
        .client
        .post(server.url("/ocr/uploadImage"))
        .header("APIKEY", KEY)
        .multipart(reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(image("")).file_name("a.png"),
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(Answer::of(upload).await.status, 200);
    server
        .upload(KEY, None, image(""))
        .await
        .assert_error(404, "NOT_FOUND");
}
