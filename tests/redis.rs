//! Scaled out on Redis: fronts and workers share one Redis server, any front
//! answers any job, a worker that dies loses none, and credits stay exact.
//!
//! Each test starts a `redis-server` of its own (skipped, saying so, where it is
//! not installed). The first tests run fronts in this process with the test double
//! of the pipeline; the last runs `hawiya serve` and `hawiya worker` processes with
//! the shipped model.

mod http_support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hawiya::http::Settings;
use hawiya::keys::KeyId;
use hawiya::redis_client::RedisUrl;
use http_support::redis_server::RedisServer;
use http_support::*;

/// A front on `redis`: `workers` 0 extracts nothing, more runs a worker (the test
/// double) in the front's process.
async fn front(
    redis: &RedisServer,
    workers: usize,
    configure: impl FnOnce(&mut Settings),
) -> TestServer {
    TestServer::start(|s| {
        s.redis = Some(RedisUrl::parse(&redis.url()).unwrap());
        s.workers = workers;
        s.reclaim_after = Duration::from_secs(2);
        configure(s);
    })
    .await
}

/// Keys left in Redis that could hold a job, an image or a result.
fn job_keys(redis: &RedisServer) -> Vec<String> {
    redis
        .keys()
        .into_iter()
        .filter(|k| {
            k.starts_with("hawiya:job:")
                || k.starts_with("hawiya:image:")
                || k.starts_with("hawiya:holds:")
        })
        .collect()
}

fn queue_length(redis: &RedisServer) -> u64 {
    redis::cmd("XLEN")
        .arg("hawiya:queue")
        .query(&mut redis.inspect())
        .unwrap()
}

fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(name) && l[name.len()..].starts_with([' ', '{']))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

#[tokio::test]
async fn any_front_answers_any_job_in_both_flows() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let reader = front(&redis, 0, |_| {}).await;
    let extractor = front(&redis, 4, |_| {}).await;

    // Flow A: uploaded on one front, read (waiting) on the other, delivered once.
    let id = reader.upload(KEY, None, image("delay=300;")).await.id();
    let done = extractor.read(KEY, &id, "true").await;
    assert_eq!(done.status, 200, "{:?}", done.body);
    assert_eq!(done.body["data"]["national_ID"], "29001011234567");
    assert_eq!(done.body["data"]["imageName"], format!("{id}.png"));
    let time = done.body["data"]["proccesstime"].as_str().unwrap();
    assert_eq!(time.len(), "dd/mm/yyyy hh:mm:ss:mmm".len(), "{time}");
    for server in [&reader, &extractor] {
        server
            .read(KEY, &id, "false")
            .await
            .assert_error(403, "ID_NOT_FOUND");
    }

    // Flow B: answered by a front that extracts nothing.
    let answer = reader.upload_b(KEY, Some("3"), image("")).await;
    assert_eq!(answer.status, 200, "{:?}", answer.body);
    assert_eq!(answer.body["data"]["plate_number"], "ق ن ط 123");
    assert_eq!(answer.body["credits_used"], 1);

    // The overlay travels with the result.
    let id = extractor
        .upload_query(KEY, "overlay=true", image(""))
        .await
        .id();
    let read = reader.read(KEY, &id, "true").await;
    let overlay = &read.body["overlay"];
    assert!(
        overlay["image"]
            .as_str()
            .unwrap()
            .starts_with("data:image/jpeg;base64,/9j/")
    );
    assert_eq!(overlay["width"], PICTURE_SIZE.0);
    assert_eq!(overlay["fields"][0]["key"], "national_id");

    // A refusal is delivered once, with its reason, to any front.
    let id = reader
        .upload(KEY, Some("1"), image("fail=WRONG_ID_TYPE;"))
        .await
        .id();
    let refused = extractor.read(KEY, &id, "true").await;
    refused.assert_error(422, "WRONG_ID_TYPE");
    assert_eq!(
        refused.body["message"],
        "the image shows a passport but ID_type 1 was requested"
    );
    reader
        .read(KEY, &id, "true")
        .await
        .assert_error(403, "ID_NOT_FOUND");

    // Another key's id is not found, and stays with its owner.
    let id = reader.upload(KEY, None, image("")).await.id();
    extractor
        .read(OTHER_KEY, &id, "true")
        .await
        .assert_error(403, "ID_NOT_FOUND");
    assert_eq!(reader.read(KEY, &id, "true").await.status, 200);

    // Waiting reads were woken by the finished jobs' notifications.
    let text = reader.metrics().await;
    assert!(
        metric(&text, "hawiya_result_notifications_total").is_some_and(|n| n >= 1.0),
        "{text}"
    );
    assert_eq!(metric(&text, "hawiya_workers"), Some(1.0), "{text}");
    assert_eq!(
        reader
            .pipeline
            .calls
            .load(std::sync::atomic::Ordering::SeqCst),
        0,
        "a front with --workers 0 extracts nothing"
    );
    assert!(job_keys(&redis).is_empty(), "{:?}", job_keys(&redis));
}

#[tokio::test]
async fn credits_are_exact_when_two_fronts_spend_one_key_at_once() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let fronts = Arc::new([
        front(&redis, 4, |s| s.free_credits = 10).await,
        front(&redis, 4, |s| s.free_credits = 10).await,
    ]);
    let spend = |key: &'static str, file: Vec<u8>, n: usize| {
        let fronts = fronts.clone();
        let calls = (0..n).map(move |i| {
            let (fronts, file) = (fronts.clone(), file.clone());
            tokio::spawn(async move { fronts[i % 2].upload_b(key, None, file).await.status })
        });
        futures_util::future::join_all(calls)
    };
    // Forty readings of ten credits: ten are answered, whichever front took them.
    let statuses: Vec<u16> = spend(KEY, image("delay=30;"), 40)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(statuses.iter().filter(|&&s| s == 200).count(), 10);
    assert_eq!(statuses.iter().filter(|&&s| s == 402).count(), 30);
    // Failures cost nothing (while they run, they hold a credit each).
    let statuses: Vec<u16> = spend(OTHER_KEY, image("delay=30;fail=IMAGE_TOO_BLURRY;"), 20)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert!(
        statuses.iter().all(|s| [402, 422].contains(s)),
        "{statuses:?}"
    );
    assert!(statuses.iter().filter(|&&s| s == 422).count() >= 10);

    let spent = |key: &str| -> u64 {
        let record = format!("hawiya:key:{}", KeyId::of_key(key).to_hex());
        redis::cmd("HGET")
            .arg(record)
            .arg("spent")
            .query(&mut redis.inspect())
            .unwrap()
    };
    assert_eq!((spent(KEY), spent(OTHER_KEY)), (10, 0));
    let refused = fronts[1].upload(KEY, None, image("")).await;
    refused.assert_error(402, "INSUFFICIENT_CREDITS");
    assert_eq!(refused.credits(), 0);
    assert_eq!(
        fronts[0]
            .upload_b(OTHER_KEY, None, image(""))
            .await
            .credits(),
        9
    );
    assert!(job_keys(&redis).is_empty(), "{:?}", job_keys(&redis));
}

#[tokio::test]
async fn redis_keeps_no_image_and_no_result_after_delivery_or_expiry() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let server = front(&redis, 4, |s| s.result_ttl = Duration::from_millis(300)).await;
    let mut ids = Vec::new();
    for query in ["ID_type=0", "overlay=true", "ID_type=2"] {
        ids.push(server.upload_query(KEY, query, image("")).await.id());
    }
    ids.push(
        server
            .upload(KEY, None, image("fail=NO_DOCUMENT_FOUND;"))
            .await
            .id(),
    );
    assert_eq!(server.upload_b(KEY, None, image("")).await.status, 200);
    for id in &ids {
        let answer = server.read(KEY, id, "true").await;
        assert!([200, 422].contains(&answer.status), "{:?}", answer.body);
    }
    assert!(job_keys(&redis).is_empty(), "{:?}", job_keys(&redis));
    assert_eq!(queue_length(&redis), 0);

    // A result never read is gone when its TTL ends.
    let id = server.upload(KEY, None, image("")).await.id();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    assert!(job_keys(&redis).is_empty(), "{:?}", job_keys(&redis));
    server
        .read(KEY, &id, "false")
        .await
        .assert_error(403, "ID_NOT_FOUND");
    let left: Vec<String> = redis
        .keys()
        .into_iter()
        .filter(|k| !k.starts_with("hawiya:key:"))
        .collect();
    assert_eq!(
        left,
        ["hawiya:keys", "hawiya:queue", "hawiya:workers"],
        "nothing else is kept"
    );
}

#[tokio::test]
async fn the_shared_queue_is_bounded_and_waits_for_a_worker() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let server = front(&redis, 0, |s| s.queue = 2).await;
    let first = server.upload(KEY, None, image("")).await.id();
    let second = server.upload(KEY, None, image("")).await.id();
    let full = server.upload(KEY, None, image("")).await;
    full.assert_error(503, "QUEUE_FULL");
    assert!(full.headers.contains_key("retry-after"));
    let text = server.metrics().await;
    assert_eq!(metric(&text, "hawiya_queue_length"), Some(2.0), "{text}");
    assert_eq!(metric(&text, "hawiya_workers"), Some(0.0), "{text}");

    // Jobs queued before any worker came are read once one does.
    let _worker = front(&redis, 2, |_| {}).await;
    for id in [first, second] {
        assert_eq!(server.read(KEY, &id, "true").await.status, 200);
    }
}

#[tokio::test]
async fn a_redis_outage_answers_503_with_its_reason_then_recovers() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let server = front(&redis, 2, |_| {}).await;
    assert_eq!(server.upload_b(KEY, None, image("")).await.status, 200);

    redis.stop();
    let ready = server.get("/readyz").await;
    ready.assert_error(503, "REDIS_UNAVAILABLE");
    let upload = server.upload(KEY, None, image("")).await;
    upload.assert_error(503, "REDIS_UNAVAILABLE");
    assert!(upload.headers.contains_key("retry-after"));
    server
        .read(KEY, "1234567890123456789", "true")
        .await
        .assert_error(503, "REDIS_UNAVAILABLE");

    // Back, empty (no persistence): the configured keys are registered again.
    redis.restart();
    let deadline = Instant::now() + Duration::from_secs(20);
    while server.get("/readyz").await.status != 200 {
        assert!(Instant::now() < deadline, "never ready again");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let answer = server.upload_b(KEY, None, image("")).await;
    assert_eq!(answer.status, 200, "{:?}", answer.body);
    let id = server.upload(KEY, None, image("")).await.id();
    assert_eq!(server.read(KEY, &id, "true").await.status, 200);
}

#[test]
fn keys_managed_on_the_command_line_work_on_every_front_at_once() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let keys = |args: &[&str]| {
        let output = Command::new(env!("CARGO_BIN_EXE_hawiya"))
            .args(["keys", "--redis", &redis.url()])
            .args(args)
            .env_remove("HAWIYA_REDIS_URL")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        (output.status.success(), text)
    };
    let (ok, added) = keys(&["add", "--label", "ci", "--credits", "2"]);
    assert!(ok, "{added}");
    let key = added
        .lines()
        .find(|l| l.starts_with("hwk_"))
        .unwrap()
        .to_owned();
    let short = KeyId::of_key(&key).short();
    assert!(
        redis.keys().iter().all(|k| !k.contains(&key)),
        "only the key's hash is kept"
    );

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = runtime.block_on(front(&redis, 2, |s| s.api_keys.clear()));
    let answer = runtime.block_on(server.upload_b(&key, None, image("")));
    assert_eq!(answer.status, 200, "{:?}", answer.body);
    assert_eq!(answer.credits(), 1);

    let (ok, listed) = keys(&["list"]);
    assert!(ok);
    let row = listed.lines().find(|l| l.starts_with(&short)).unwrap();
    let columns: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        (columns[1], columns[2], columns[4]),
        ("2", "1", "ci"),
        "{listed}"
    );

    assert!(keys(&["revoke", &short]).0);
    assert!(!keys(&["revoke", &short]).0, "revoked once");
    runtime
        .block_on(server.upload_b(&key, None, image("")))
        .assert_error(401, "UNAUTHORIZED");
}

#[test]
fn a_rediss_url_with_a_password_reaches_redis_over_tls_and_never_shows_the_password() {
    let Some(redis) = RedisServer::start_tls("s3cret-pass") else {
        return;
    };
    let keys = |url: &str, ca: Option<&std::path::Path>, args: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hawiya"));
        command
            .args(["keys", "--redis", url])
            .args(args)
            .env_remove("HAWIYA_REDIS_URL")
            .env_remove("SSL_CERT_FILE");
        if let Some(ca) = ca {
            command.env("SSL_CERT_FILE", ca);
        }
        let output = command.output().unwrap();
        let shown = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        (output.status.success(), shown)
    };
    let url = redis.url();
    let ca = Some(redis.ca_file());
    let (ok, added) = keys(&url, ca, &["add", "--label", "tls"]);
    assert!(ok, "{added}");
    assert!(added.lines().any(|l| l.starts_with("hwk_")), "{added}");
    let (ok, listed) = keys(&url, ca, &["list"]);
    assert!(ok && listed.contains(" tls"), "{listed}");

    let wrong = url.replace("s3cret-pass", "wrong-pass");
    let (ok, refused) = keys(&wrong, ca, &["list"]);
    assert!(!ok && refused.contains("cannot be reached"), "{refused}");
    assert!(!refused.contains("wrong-pass"), "{refused}");
    let (ok, untrusted) = keys(&url, None, &["list"]);
    assert!(!ok && untrusted.contains("certificate"), "{untrusted}");
    assert!(!untrusted.contains("s3cret-pass"), "{untrusted}");
}

/// A `hawiya` process of the test, killed when dropped.
struct Process {
    child: Child,
    /// What it printed, line by line.
    lines: std::sync::mpsc::Receiver<String>,
}

impl Process {
    fn start(args: &[&str]) -> Process {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hawiya"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(args)
            .env_remove("HAWIYA_REDIS_URL")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = send.send(line);
            }
        });
        Process { child, lines }
    }

    /// Waits for a line starting with `prefix`; returns it.
    fn expect(&self, prefix: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with(prefix) => return line,
                Ok(_) => {}
                Err(e) => panic!("no line starting with {prefix:?}: {e}"),
            }
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A front process (`serve --workers 0`); returns it and its base URL.
fn front_process(redis: &RedisServer) -> (Process, String) {
    let process = Process::start(&[
        "serve",
        "--redis",
        &redis.url(),
        "--workers",
        "0",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--api-keys",
        KEY,
        "--free-credits",
        "1000",
        "--no-demo",
    ]);
    let line = process.expect("hawiya listening on ");
    let base = line.trim_start_matches("hawiya listening on ").to_owned();
    (process, base)
}

fn worker_process(redis: &RedisServer) -> Process {
    let process = Process::start(&[
        "worker",
        "--redis",
        &redis.url(),
        "--workers",
        "2",
        "--reclaim-after",
        "2s",
    ]);
    process.expect("hawiya worker reading jobs");
    process
}

/// The entries of the queue a worker process holds.
fn held_by(redis: &RedisServer, pid: u32) -> usize {
    let pending: Vec<(String, String, u64, u64)> = redis::cmd("XPENDING")
        .arg("hawiya:queue")
        .arg("workers")
        .arg("-")
        .arg("+")
        .arg(1000)
        .query(&mut redis.inspect())
        .unwrap();
    let tag = format!("-{pid}-");
    pending.iter().filter(|(_, c, ..)| c.contains(&tag)).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fronts_and_workers_in_their_own_processes_lose_no_job_when_a_worker_is_killed() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let (_front_one, one) = front_process(&redis);
    let (_front_two, two) = front_process(&redis);
    let mut victim = worker_process(&redis);
    let survivor = worker_process(&redis);
    let client = reqwest::Client::new();
    let fixture = |name: &str| {
        std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/docs")
                .join(name),
        )
        .unwrap()
    };
    let (front_scan, back_scan) = (fixture("nid-front-scan.jpg"), fixture("nid-back-scan.jpg"));
    let upload = |base: &str, flow_b: bool, id_type: u8, file: Vec<u8>| {
        let form = reqwest::multipart::Form::new().part(
            "file",
            reqwest::multipart::Part::bytes(file).file_name("card.jpg"),
        );
        let request = client
            .post(format!("{base}{PREFIX}/uploadImage?ID_type={id_type}"))
            .multipart(form);
        let request = if flow_b {
            request.bearer_auth(KEY)
        } else {
            request.header("APIKEY", KEY)
        };
        async move { Answer::of(request.send().await.unwrap()).await }
    };
    let read = |base: &str, id: &str| {
        let request = client
            .get(format!("{base}{PREFIX}/ReadImage?id={id}&isBlocked=true"))
            .header("APIKEY", KEY);
        async move { Answer::of(request.send().await.unwrap()).await }
    };

    // The shipped model reads a National ID uploaded on one front, read on the other.
    let id = upload(&one, false, 0, front_scan.clone()).await.id();
    let done = read(&two, &id).await;
    assert_eq!(done.status, 200, "{:?}", done.body);
    let national_id = done.body["data"]["national_ID"].as_str().unwrap();
    assert_eq!(national_id.chars().count(), 14, "{national_id}");
    let answer = upload(&two, true, 1, back_scan.clone()).await;
    assert_eq!(answer.status, 200, "{:?}", answer.body);
    assert_eq!(answer.body["document_type"], "nid-back");

    // Jobs in flight when a worker is killed are each answered, once.
    let mut ids = Vec::new();
    for i in 0..16 {
        let (base, id_type, file) = match i % 2 {
            0 => (&one, 0, front_scan.clone()),
            _ => (&two, 1, back_scan.clone()),
        };
        ids.push(upload(base, false, id_type, file).await.id());
    }
    // Frozen while it holds jobs (so none can finish meanwhile), then killed.
    let signal = |signal: &str, pid: u32| {
        let status = Command::new("kill")
            .args([signal, &pid.to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let held = loop {
        assert!(Instant::now() < deadline, "the worker never took a job");
        if held_by(&redis, victim.pid()) > 0 {
            signal("-STOP", victim.pid());
            let held = held_by(&redis, victim.pid());
            if held > 0 {
                break held;
            }
            signal("-CONT", victim.pid());
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    victim.child.kill().unwrap();
    victim.child.wait().unwrap();
    let mut delivered = 0;
    for (i, id) in ids.iter().enumerate() {
        let base = [&two, &one][i % 2];
        let deadline = Instant::now() + Duration::from_secs(90);
        let answer = loop {
            let answer = read(base, id).await;
            if answer.body["data"] != serde_json::json!({}) || answer.status != 200 {
                break answer;
            }
            assert!(Instant::now() < deadline, "job {i} never finished");
        };
        assert!(
            [200, 422].contains(&answer.status),
            "job {i}: {:?}",
            answer.body
        );
        delivered += usize::from(answer.status == 200);
        read(base, id).await.assert_error(403, "ID_NOT_FOUND");
    }
    let text = reqwest::get(format!("{one}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metric(&text, "hawiya_jobs_reclaimed_total").is_some_and(|n| n >= held as f64),
        "{held} held by the killed worker: {text}"
    );
    // Every reading delivered was charged once, however many workers ran it.
    let spent: u64 = redis::cmd("HGET")
        .arg(format!("hawiya:key:{}", KeyId::of_key(KEY).to_hex()))
        .arg("spent")
        .query(&mut redis.inspect())
        .unwrap();
    assert_eq!(spent, 2 + delivered as u64);
    assert!(job_keys(&redis).is_empty(), "{:?}", job_keys(&redis));
    assert_eq!(queue_length(&redis), 0);

    // SIGTERM: the worker stops cleanly.
    signal("-TERM", survivor.pid());
    survivor.expect("stopped:");
}
