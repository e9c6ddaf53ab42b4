//! Flow A over real HTTP: upload, then read by id (interface.md §2.1, §2.2, §3, §4).

mod http_support;

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use http_support::{KEY, OTHER_KEY, TestServer, image};

/// Every field of §2.2, in the reference's spelling.
const FIELDS: [&str; 21] = [
    "firstname",
    "lastname",
    "national_ID",
    "birthday",
    "gender",
    "city",
    "address1",
    "address2",
    "religion",
    "status",
    "job",
    "issueDate",
    "expiry",
    "releseCity",
    "platenumber",
    "passportType",
    "gender_2",
    "proccesstime",
    "imageName",
    "savedImage",
    "urlImage",
];

fn assert_complete_result(body: &serde_json::Value) {
    assert_eq!(body["code"], 200);
    assert_eq!(body["status"], "success");
    assert!(body["message"].is_string());
    let data = body["data"].as_object().expect("data is an object");
    assert_eq!(data.len(), FIELDS.len(), "{data:?}");
    for field in FIELDS {
        let value = &data[field];
        if field == "urlImage" {
            assert!(value.is_null());
        } else {
            assert!(value.is_string(), "{field} is {value:?}");
        }
    }
    assert_eq!(data["national_ID"], "29001011234567");
    assert_eq!(data["gender"], "ذكر");
    assert_eq!(data["platenumber"], "");
    assert_eq!(data["savedImage"], "");
    let time = data["proccesstime"].as_str().unwrap();
    // DD/MM/YYYY HH:MM:SS:fff
    let shape: String = time
        .chars()
        .map(|c| if c.is_ascii_digit() { 'd' } else { c })
        .collect();
    assert_eq!(shape, "dd/dd/dddd dd:dd:dd:ddd", "{time}");
    assert!(data["imageName"].as_str().unwrap().ends_with(".png"));
}

fn assert_pending(body: &serde_json::Value) {
    assert_eq!(body["code"], 200);
    assert_eq!(body["status"], "success");
    assert_eq!(body["data"], serde_json::json!({}));
}

#[tokio::test]
async fn upload_answers_an_id_and_the_result_is_delivered_once() {
    let server = TestServer::start(|_| {}).await;
    let upload = server.upload(KEY, None, image("delay=400;")).await;
    assert_eq!(upload.body["code"], 200);
    assert_eq!(upload.body["status"], "success");
    let id = upload.id();
    assert!(
        id.len() >= 18 && id.bytes().all(|b| b.is_ascii_digit()),
        "{id}"
    );
    assert!(!id.contains("card"));

    let first = server.read(KEY, &id, "false").await;
    assert_pending(&first.body);

    let started = Instant::now();
    let done = loop {
        let answer = server.read(KEY, &id, "false").await;
        assert_eq!(answer.status, 200);
        if answer.body["data"] != serde_json::json!({}) {
            break answer;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "never finished"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_complete_result(&done.body);

    // Delivered results are purged at once.
    server
        .read(KEY, &id, "false")
        .await
        .assert_error(403, "ID_NOT_FOUND");
    server
        .read(KEY, &id, "true")
        .await
        .assert_error(403, "ID_NOT_FOUND");
}

#[tokio::test]
async fn the_reference_client_polling_sequence_gets_its_result() {
    // The reference client waits 2 s after upload, then reads up to 12 times with
    // 1.5 s between tries; OCR takes 2 to 5 s there. Here it takes 3 s.
    let server = TestServer::start(|_| {}).await;
    let id = server
        .upload(KEY, Some("0"), image("delay=3000;"))
        .await
        .id();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut tries = 0;
    let result = loop {
        tries += 1;
        let answer = server.read(KEY, &id, "false").await;
        assert_eq!(answer.status, 200);
        if answer.body["data"]
            .as_object()
            .is_some_and(|d| !d.is_empty())
        {
            break answer;
        }
        assert!(tries < 12, "no result after 12 reads");
        tokio::time::sleep(Duration::from_millis(1500)).await;
    };
    assert!(tries >= 2, "the first read came before the result");
    assert_complete_result(&result.body);
}

#[tokio::test]
async fn is_blocked_true_waits_for_the_result() {
    let server = TestServer::start(|_| {}).await;
    let id = server.upload(KEY, None, image("delay=300;")).await.id();
    let answer = server.read(KEY, &id, "true").await;
    assert_complete_result(&answer.body);

    // .NET clients send booleans as True/False.
    let id = server.upload(KEY, None, image("delay=100;")).await.id();
    assert_complete_result(&server.read(KEY, &id, "True").await.body);
}

#[tokio::test]
async fn is_blocked_true_gives_up_at_the_configured_bound() {
    let server = TestServer::start(|s| s.blocked_wait = Duration::from_millis(200)).await;
    let id = server.upload(KEY, None, image("delay=1500;")).await.id();
    let started = Instant::now();
    let answer = server.read(KEY, &id, "true").await;
    assert_pending(&answer.body);
    assert!(started.elapsed() >= Duration::from_millis(200));
    // Still deliverable afterwards.
    let answer = loop {
        let answer = server.read(KEY, &id, "true").await;
        if answer.body["data"] != serde_json::json!({}) {
            break answer;
        }
    };
    assert_complete_result(&answer.body);
}

#[tokio::test]
async fn undelivered_results_expire_after_the_ttl() {
    let server = TestServer::start(|s| s.result_ttl = Duration::from_millis(300)).await;
    let id = server.upload(KEY, None, image("")).await.id();
    // Wait until it is finished, without reading it.
    while server.pipeline.finished.load(Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(700)).await;
    server
        .read(KEY, &id, "false")
        .await
        .assert_error(403, "ID_NOT_FOUND");
}

#[tokio::test]
async fn another_keys_id_is_not_found_and_stays_with_its_owner() {
    let server = TestServer::start(|_| {}).await;
    let id = server.upload(KEY, None, image("")).await.id();
    let foreign = server.read(OTHER_KEY, &id, "true").await;
    foreign.assert_error(403, "ID_NOT_FOUND");
    // Same answer as for an id that never existed, so ids cannot be probed.
    let unknown = server.read(OTHER_KEY, "1234567890123456789", "false").await;
    assert_eq!(foreign.body, unknown.body);
    assert_complete_result(&server.read(KEY, &id, "true").await.body);
}

#[tokio::test]
async fn a_failed_extraction_reads_as_an_error_with_a_reason_and_costs_nothing() {
    let server = TestServer::start(|_| {}).await;
    let upload = server
        .upload(KEY, None, image("fail=NO_DOCUMENT_FOUND;"))
        .await;
    let before = upload.credits();
    let id = upload.id();
    let answer = server.read(KEY, &id, "true").await;
    answer.assert_error(422, "NO_DOCUMENT_FOUND");
    assert_eq!(
        answer.credits(),
        before + 1,
        "the reservation is given back"
    );
    // A failure is delivered once too.
    server
        .read(KEY, &id, "false")
        .await
        .assert_error(403, "ID_NOT_FOUND");

    let id = server
        .upload(KEY, Some("1"), image("fail=WRONG_ID_TYPE;"))
        .await
        .id();
    let wrong = server.read(KEY, &id, "true").await;
    wrong.assert_error(422, "WRONG_ID_TYPE");
    assert_eq!(
        wrong.body["message"],
        "the image shows a passport but ID_type 1 was requested"
    );

    // A pipeline fault is a 500 with the JSON body, not a pending result forever.
    let id = server.upload(KEY, None, image("panic=1;")).await.id();
    server
        .read(KEY, &id, "true")
        .await
        .assert_error(500, "INTERNAL_ERROR");
}

#[tokio::test]
async fn a_hundred_concurrent_uploads_are_each_delivered_exactly_once() {
    let server = std::sync::Arc::new(TestServer::start(|s| s.queue = 128).await);
    let uploads = (0..100).map(|i| {
        let server = server.clone();
        tokio::spawn(async move {
            server
                .upload(KEY, None, image(&format!("delay={};", 20 + i % 7 * 10)))
                .await
                .id()
        })
    });
    let mut ids = Vec::new();
    for upload in uploads {
        ids.push(upload.await.unwrap());
    }
    assert_eq!(
        ids.iter().collect::<HashSet<_>>().len(),
        100,
        "ids are unique"
    );

    // Two concurrent blocked reads per id: exactly one gets the result.
    let reads = ids.iter().flat_map(|id| {
        (0..2).map(|_| {
            let (server, id) = (server.clone(), id.clone());
            tokio::spawn(async move {
                let mut answer = server.read(KEY, &id, "true").await;
                while answer.status == 200 && answer.body["data"] == serde_json::json!({}) {
                    answer = server.read(KEY, &id, "true").await;
                }
                (id, answer)
            })
        })
    });
    let mut delivered = HashSet::new();
    let mut refused = 0;
    for read in reads.collect::<Vec<_>>() {
        let (id, answer) = read.await.unwrap();
        if answer.status == 200 {
            assert_complete_result(&answer.body);
            assert!(delivered.insert(id), "delivered twice");
        } else {
            answer.assert_error(403, "ID_NOT_FOUND");
            refused += 1;
        }
    }
    assert_eq!(delivered.len(), 100);
    assert_eq!(refused, 100);
    assert_eq!(server.pipeline.calls.load(Ordering::SeqCst), 100);
}
