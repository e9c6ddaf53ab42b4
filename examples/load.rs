//! Load benchmark for `hawiya serve`: upload latency p50/p99 and documents per
//! second at several concurrencies, over Flow A (upload, then ReadImage with
//! isBlocked=true until the result arrives) or Flow B (one call).
//!
//!     cargo run --example load -- --host 127.0.0.1 --port 8080 --key KEY --image card.jpg
//!
//! `--simulate-ms N` instead starts a server in-process whose pipeline is a stand-in
//! that sleeps N ms per document: it measures the HTTP layer alone, not hawiya.
//! With `--redis URL` too, that server keeps its jobs in Redis (its worker in the
//! same process): the difference is what the Redis path adds to a job.
//! Every run is bounded by `--requests` and `--seconds` per concurrency level.

use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use reqwest::multipart::{Form, Part};

#[derive(Parser)]
struct Args {
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// API key (or HAWIYA_KEY).
    #[arg(long, env = "HAWIYA_KEY", default_value = "")]
    key: String,
    /// Document image to upload (JPEG, PNG or PDF).
    #[arg(long)]
    image: Option<std::path::PathBuf>,
    #[arg(long, default_value = "0")]
    id_type: String,
    #[arg(long, default_value = "/api/v2/SignMeAPI")]
    prefix: String,
    /// `a` (upload + ReadImage) or `b` (single call).
    #[arg(long, default_value = "a")]
    flow: String,
    /// Concurrency levels to run, in order.
    #[arg(long, value_delimiter = ',', default_value = "1,8,32")]
    concurrency: Vec<usize>,
    /// Documents per level, at most.
    #[arg(long, default_value_t = 200)]
    requests: usize,
    /// Seconds per level, at most.
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// Documents per level sent before measuring (warm-up).
    #[arg(long, default_value_t = 4)]
    warmup: usize,
    /// Start an in-process server whose pipeline sleeps this many ms per document
    /// (HTTP layer only; ignores host, port, key).
    #[arg(long)]
    simulate_ms: Option<u64>,
    /// With --simulate-ms: keep the in-process server's jobs, keys and credits in
    /// this Redis.
    #[arg(long)]
    redis: Option<String>,
}

#[derive(Default)]
struct Level {
    upload_ms: Vec<f64>,
    total_ms: Vec<f64>,
    done: usize,
    failed: usize,
    refused: usize,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

struct Target {
    client: reqwest::Client,
    upload_url: String,
    read_url: String,
    key: String,
    flow_b: bool,
    image: Vec<u8>,
}

enum Outcome {
    Done { upload: Duration, total: Duration },
    Failed,
    Refused(Duration),
}

impl Target {
    async fn one(&self) -> Outcome {
        let started = Instant::now();
        let form = Form::new().part("file", Part::bytes(self.image.clone()).file_name("doc"));
        let request = self.client.post(&self.upload_url).multipart(form);
        let request = if self.flow_b {
            request.bearer_auth(&self.key)
        } else {
            request.header("APIKEY", &self.key)
        };
        let Ok(response) = request.send().await else {
            return Outcome::Failed;
        };
        let status = response.status().as_u16();
        let retry = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok()?.parse().ok())
            .unwrap_or(1);
        let body: serde_json::Value = response.json().await.unwrap_or_default();
        let upload = started.elapsed();
        if status == 503 {
            return Outcome::Refused(Duration::from_secs(retry));
        }
        if status != 200 {
            return Outcome::Failed;
        }
        if self.flow_b {
            return Outcome::Done {
                upload,
                total: upload,
            };
        }
        let Some(id) = body["id"].as_str() else {
            return Outcome::Failed;
        };
        loop {
            let read = self
                .client
                .get(format!("{}?id={id}&isBlocked=true", self.read_url))
                .header("APIKEY", &self.key)
                .send()
                .await;
            let Ok(read) = read else {
                return Outcome::Failed;
            };
            if read.status() != 200 {
                return Outcome::Failed;
            }
            let body: serde_json::Value = read.json().await.unwrap_or_default();
            if body["data"].as_object().is_some_and(|d| !d.is_empty()) {
                return Outcome::Done {
                    upload,
                    total: started.elapsed(),
                };
            }
            if started.elapsed() > Duration::from_secs(60) {
                return Outcome::Failed;
            }
        }
    }
}

async fn run_level(
    target: Arc<Target>,
    concurrency: usize,
    requests: usize,
    limit: Duration,
) -> (Level, Duration) {
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let started = Instant::now();
    let workers: Vec<_> = (0..concurrency)
        .map(|_| {
            let (target, next) = (target.clone(), next.clone());
            tokio::spawn(async move {
                let mut level = Level::default();
                while next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < requests
                    && started.elapsed() < limit
                {
                    match target.one().await {
                        Outcome::Done { upload, total } => {
                            level.upload_ms.push(upload.as_secs_f64() * 1e3);
                            level.total_ms.push(total.as_secs_f64() * 1e3);
                            level.done += 1;
                        }
                        Outcome::Failed => level.failed += 1,
                        Outcome::Refused(wait) => {
                            level.refused += 1;
                            tokio::time::sleep(wait).await;
                        }
                    }
                }
                level
            })
        })
        .collect();
    let mut all = Level::default();
    for worker in workers {
        let level = worker.await.expect("worker");
        all.upload_ms.extend(level.upload_ms);
        all.total_ms.extend(level.total_ms);
        all.done += level.done;
        all.failed += level.failed;
        all.refused += level.refused;
    }
    (all, started.elapsed())
}

/// The stand-in pipeline of `--simulate-ms`.
struct Sleeper(Duration);

impl hawiya::pipeline::Extractor for Sleeper {
    fn extract(
        &self,
        _: &[u8],
        _: &[hawiya::domain::DocumentKind],
        _overlay: bool,
    ) -> Result<hawiya::pipeline::Extraction, hawiya::pipeline::ExtractError> {
        std::thread::sleep(self.0);
        Ok(hawiya::pipeline::Extraction {
            kind: hawiya::domain::DocumentKind::NidFront,
            flow_a: Default::default(),
            flow_b: hawiya::record::FlowBData::NationalId(Default::default()),
            confidence: 1.0,
            field_confidence: Default::default(),
            low_confidence_fields: Vec::new(),
            timings: Vec::new(),
            overlay: None,
        })
    }

    fn is_ready(&self) -> bool {
        true
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = Args::parse();
    let mut _server = None;
    let _data = tempfile::tempdir()?;
    if let Some(ms) = args.simulate_ms {
        let mut settings = hawiya::http::Settings::new(_data.path());
        settings.addr = "127.0.0.1:0".parse()?;
        settings.api_keys = vec!["load-test".into()];
        settings.free_credits = 1_000_000_000;
        settings.prefix = args.prefix.clone();
        if let Some(url) = &args.redis {
            settings.redis =
                Some(hawiya::redis_client::RedisUrl::parse(url).map_err(anyhow::Error::msg)?);
        }
        let sleeper = Arc::new(Sleeper(Duration::from_millis(ms)));
        let server = hawiya::http::Server::start(settings, Some(sleeper)).await?;
        args.host = "127.0.0.1".into();
        args.port = server.local_addr().port();
        args.key = "load-test".into();
        _server = Some(server);
        println!("in-process server, pipeline simulated at {ms} ms/document: HTTP layer only");
    }
    let image = match &args.image {
        Some(path) => std::fs::read(path)?,
        None if args.simulate_ms.is_some() => b"\x89PNG\r\n\x1a\nsimulated".to_vec(),
        None => anyhow::bail!("--image is required against a real server"),
    };
    let base = format!("http://{}:{}{}", args.host, args.port, args.prefix);
    let target = Arc::new(Target {
        client: reqwest::Client::builder()
            .pool_max_idle_per_host(64)
            .build()?,
        upload_url: format!("{base}/uploadImage?ID_type={}", args.id_type),
        read_url: format!("{base}/ReadImage"),
        key: args.key.clone(),
        flow_b: args.flow.eq_ignore_ascii_case("b"),
        image,
    });
    println!(
        "flow {}, {} bytes per upload, up to {} documents or {} s per level",
        args.flow.to_uppercase(),
        target.image.len(),
        args.requests,
        args.seconds
    );
    println!(
        "{:>11} {:>6} {:>6} {:>7} {:>14} {:>14} {:>14} {:>14} {:>10}",
        "concurrency",
        "done",
        "failed",
        "refused",
        "upload p50 ms",
        "upload p99 ms",
        "result p50 ms",
        "result p99 ms",
        "docs/s"
    );
    for &concurrency in &args.concurrency {
        let limit = Duration::from_secs(args.seconds);
        run_level(target.clone(), concurrency, args.warmup, limit).await;
        let (mut level, elapsed) =
            run_level(target.clone(), concurrency, args.requests, limit).await;
        level.upload_ms.sort_by(f64::total_cmp);
        level.total_ms.sort_by(f64::total_cmp);
        println!(
            "{:>11} {:>6} {:>6} {:>7} {:>14.1} {:>14.1} {:>14.1} {:>14.1} {:>10.2}",
            concurrency,
            level.done,
            level.failed,
            level.refused,
            percentile(&level.upload_ms, 50.0),
            percentile(&level.upload_ms, 99.0),
            percentile(&level.total_ms, 50.0),
            percentile(&level.total_ms, 99.0),
            level.done as f64 / elapsed.as_secs_f64()
        );
    }
    if let Some(server) = _server {
        server.shutdown().await?;
    }
    Ok(())
}
