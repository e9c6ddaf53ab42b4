//! `hawiya serve`: the HTTP service (interface.md), a drop-in for clients of the
//! reference API.
//!
//! Wiring: build [`Settings`] (from [`ServeArgs`] or by hand) and hand
//! [`Server::start`] the document pipeline as an [`Extractor`]. The server keeps
//! jobs, keys and credits in this process, or with `settings.redis` in Redis, where
//! any front answers any job and `hawiya worker` processes extract.

mod auth;
mod bodies;
mod config;
mod connection;
mod demo;
mod error;
mod layers;
mod listener;
mod multipart;
mod openapi;
mod ops;
mod query;
mod read_image;
mod upload;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderName, HeaderValue};
use axum::response::Response;
use axum::routing::{get, post};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tokio::sync::oneshot;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::trace::TraceLayer;

use crate::jobs::{JobQueue, JobResult, LocalQueue, RedisQueue, RedisWorker};
use crate::keys::{Accounts, AccountsError, ConfiguredKeys};
use crate::pipeline::Extractor;
use crate::redis_client::{Redis, RedisError};
use crate::store::{JobStore, MemoryStore, RedisStore};

pub use crate::jobs::IdType;
pub use bodies::{FlowAData, FlowBAnswer, FlowBError, UploadAccepted};
pub use config::{DEFAULT_PREFIX, MAX_FILE_BYTES, ServeArgs, Settings, WorkerArgs, parse_duration};
pub use error::{ApiError, ErrorBody, REASONS};
pub use multipart::{Upload, read_upload};

/// The header carrying a key's balance on every authenticated answer.
pub const CREDITS_HEADER: &str = "x-credits-remaining";

/// How long this process's worker may finish the jobs it runs when the server
/// stops (with Redis; what it cannot finish goes back to the queue).
pub const WORKER_GRACE: Duration = Duration::from_secs(25);

struct AppState {
    settings: Settings,
    accounts: Accounts,
    store: JobStore<JobResult>,
    queue: JobQueue,
    /// The pipeline of this process's worker, if it runs one.
    extractor: Option<Arc<dyn Extractor>>,
    /// The Redis server jobs live in, if any: `/readyz` asks it.
    redis: Option<Redis>,
    metrics: PrometheusHandle,
    openapi: String,
    shutting_down: AtomicBool,
}

impl AppState {
    fn is_shutting_down(&self) -> bool {
        self.shutting_down.load(Ordering::Relaxed)
    }
}

/// `response` with the key's balance, when it is known.
fn with_credits(mut response: Response, remaining: Option<u64>) -> Response {
    if let Some(remaining) = remaining {
        response.headers_mut().insert(
            HeaderName::from_static(CREDITS_HEADER),
            HeaderValue::from(remaining),
        );
    }
    response
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Accounts(#[from] AccountsError),
    #[error(transparent)]
    Redis(#[from] RedisError),
    #[error(
        "no worker would read the documents: --workers 0 needs --redis, with `hawiya worker` processes on the same Redis"
    )]
    NoWorker,
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("the server failed: {0}")]
    Io(#[from] std::io::Error),
}

fn router(app: Arc<AppState>) -> Router {
    let prefix = &app.settings.prefix;
    let page = if app.settings.demo {
        demo::routes(prefix)
    } else {
        Router::new()
    };
    Router::new()
        .merge(page)
        .route(
            &format!("{prefix}/uploadImage"),
            // The upload enforces its own streaming limit (see multipart.rs).
            post(upload::upload_image).layer(DefaultBodyLimit::disable()),
        )
        .route(&format!("{prefix}/ReadImage"), get(read_image::read_image))
        .route("/healthz", get(ops::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/metrics", get(ops::metrics))
        .route("/openapi.json", get(ops::openapi))
        .fallback(ops::not_found)
        .method_not_allowed_fallback(ops::method_not_allowed)
        .layer(axum::middleware::from_fn(layers::record_metrics))
        .layer(axum::middleware::from_fn(layers::json_errors))
        .layer(CatchPanicLayer::custom(layers::panic_to_json))
        .layer(
            // Spans name the method and path only: no query (ids), no bodies. Failed
            // answers are logged once, by `layers::record_metrics`.
            TraceLayer::new_for_http()
                .make_span_with(|request: &axum::http::Request<_>| {
                    tracing::info_span!("request", method = %request.method(), path = %request.uri().path())
                })
                .on_failure(()),
        )
        .with_state(app)
}

/// The process-wide Prometheus recorder (metrics macros report to one global).
fn prometheus() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let recorder = PrometheusBuilder::new()
                .set_buckets(&[
                    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
                ])
                .and_then(|builder| {
                    // A count, not a duration.
                    builder.set_buckets_for_metric(
                        Matcher::Full("recognizer_batch_size".into()),
                        &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0],
                    )
                })
                .expect("bucket lists are not empty")
                .build_recorder();
            let handle = recorder.handle();
            if metrics::set_global_recorder(recorder).is_err() {
                tracing::warn!("a metrics recorder was already installed; /metrics stays empty");
            }
            handle
        })
        .clone()
}

/// What the server works with, in this process or in Redis: the composition root.
struct Services {
    accounts: Accounts,
    store: JobStore<JobResult>,
    queue: JobQueue,
    redis: Option<Redis>,
    /// This process's worker, with Redis.
    worker: Option<RedisWorker>,
    /// The memory store's sweeper.
    sweeper: Option<tokio::task::JoinHandle<()>>,
    /// A key created because there was none, in clear.
    created_key: Option<String>,
}

impl Services {
    async fn open(
        settings: &Settings,
        extractor: Option<Arc<dyn Extractor>>,
    ) -> Result<Services, ServeError> {
        let configured = ConfiguredKeys {
            keys: settings.api_keys.clone(),
            free_credits: settings.free_credits,
        };
        let extractor = extractor.filter(|_| settings.workers > 0);
        let Some(url) = &settings.redis else {
            let extractor = extractor.ok_or(ServeError::NoWorker)?;
            let (accounts, created_key) =
                Accounts::open_local(&settings.keys_file, &settings.credits_db, &configured)?;
            let memory = MemoryStore::new(settings.result_ttl);
            let sweep_every = (settings.result_ttl / 10)
                .clamp(Duration::from_millis(50), Duration::from_secs(30));
            let sweeper = memory.spawn_sweeper(sweep_every);
            let queue = LocalQueue::new(
                extractor,
                memory.clone(),
                accounts.clone(),
                settings.queue,
                settings.workers,
            );
            return Ok(Services {
                accounts,
                store: JobStore::Memory(memory),
                queue: JobQueue::Local(queue),
                redis: None,
                worker: None,
                sweeper: Some(sweeper),
                created_key,
            });
        };
        let redis = Redis::connect(url).await?;
        let (accounts, created_key) = Accounts::open_redis(redis.clone(), &configured).await?;
        let queue = RedisQueue::open(redis.clone(), settings.queue, settings.result_ttl).await?;
        let worker = match extractor {
            Some(extractor) => Some(
                RedisWorker::start(
                    redis.clone(),
                    extractor,
                    settings.workers,
                    settings.reclaim_after,
                )
                .await?,
            ),
            None => None,
        };
        tracing::info!(redis = %url, workers = settings.workers, "jobs, keys and credits in Redis");
        Ok(Services {
            accounts,
            store: JobStore::Redis(RedisStore::new(redis.clone())),
            queue: JobQueue::Redis(queue),
            redis: Some(redis),
            worker,
            sweeper: None,
            created_key,
        })
    }
}

/// A running server.
pub struct Server {
    addr: SocketAddr,
    created_key: Option<String>,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), ServeError>>,
}

impl Server {
    /// Opens the job store, the queue and the accounts (in this process, or in
    /// Redis with `settings.redis`), starts this process's worker on `extractor`
    /// (none with Redis and `workers` 0), binds `settings.addr` (port 0 picks a
    /// free one) and starts serving in the background.
    pub async fn start(
        settings: Settings,
        extractor: Option<Arc<dyn Extractor>>,
    ) -> Result<Server, ServeError> {
        let services = Services::open(&settings, extractor.clone()).await?;
        let listener = tokio::net::TcpListener::bind(settings.addr)
            .await
            .map_err(|source| ServeError::Bind {
                addr: settings.addr,
                source,
            })?;
        let addr = listener.local_addr()?;
        let Services {
            accounts,
            store,
            queue,
            redis,
            worker,
            sweeper,
            created_key,
        } = services;
        let app = Arc::new(AppState {
            openapi: openapi::document(&settings.prefix, settings.demo),
            extractor: extractor.filter(|_| settings.workers > 0),
            settings,
            accounts,
            store,
            queue,
            redis,
            metrics: prometheus(),
            shutting_down: AtomicBool::new(false),
        });
        let (stop, stopped) = oneshot::channel::<()>();
        let signal = {
            let app = app.clone();
            async move {
                // A dropped sender also stops the server.
                let _ = stopped.await;
                app.shutting_down.store(true, Ordering::Relaxed);
                tracing::info!("shutting down: no new connections; finishing requests and jobs");
            }
        };
        let service = router(app.clone());
        let (max_connections, timeouts) = (
            app.settings.max_connections,
            connection::Timeouts {
                header: app.settings.header_timeout,
                idle: app.settings.idle_timeout,
            },
        );
        let task = tokio::spawn(async move {
            listener::serve(listener, service, max_connections, timeouts, signal).await;
            // Requests are done; now let every accepted job finish and store its result.
            app.queue.drain().await;
            if let Some(worker) = worker {
                worker.stop(WORKER_GRACE).await;
            }
            if let Some(sweeper) = sweeper {
                sweeper.abort();
            }
            tracing::info!("all jobs finished");
            Ok(())
        });
        tracing::info!(%addr, "hawiya listening");
        Ok(Server {
            addr,
            created_key,
            stop: Some(stop),
            task,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The key created because none was configured, in clear; `None` otherwise.
    pub fn created_key(&self) -> Option<&str> {
        self.created_key.as_deref()
    }

    /// Stops accepting connections, lets requests and accepted jobs finish, and
    /// returns once everything (the credits store included) is released.
    pub async fn shutdown(mut self) -> Result<(), ServeError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.wait().await
    }

    /// Waits until the server stops (it stops on its own only on a failure).
    pub async fn wait(&mut self) -> Result<(), ServeError> {
        match (&mut self.task).await {
            Ok(result) => result,
            Err(e) => Err(ServeError::Io(std::io::Error::other(e))),
        }
    }
}
