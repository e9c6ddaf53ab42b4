//! `hawiya serve`: the HTTP service (interface.md), a drop-in for clients of the
//! reference API.
//!
//! Wiring: build [`Settings`] (from [`ServeArgs`] or by hand) and hand [`run`] (or
//! [`Server::start`]) the document pipeline as an [`Extractor`].

mod auth;
mod bodies;
mod config;
mod connection;
mod demo;
mod error;
mod id_type;
mod jobs;
mod layers;
mod listener;
mod multipart;
mod openapi;
mod ops;
mod query;
mod read;
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

use crate::keys::{Credits, CreditsError, KeyId, KeyRing, KeysFile, KeysFileError};
use crate::pipeline::{Extractor, Overlay};
use crate::store::JobStore;

pub use bodies::{FlowAData, FlowBAnswer, FlowBError, UploadAccepted};
pub use config::{DEFAULT_PREFIX, MAX_FILE_BYTES, ServeArgs, Settings, parse_duration};
pub use error::{ApiError, ErrorBody, REASONS};
pub use id_type::IdType;
pub use multipart::{Upload, read_upload};

/// The header carrying a key's balance on every authenticated answer.
pub const CREDITS_HEADER: &str = "x-credits-remaining";

/// What a Flow A job leaves for its reader.
type FlowAResult = Result<FlowADone, ApiError>;

/// A Flow A result: the `data` of ReadImage and, when the upload asked for it, the
/// overlay. Both leave memory together, at delivery or expiry.
struct FlowADone {
    data: FlowAData,
    overlay: Option<Overlay>,
}

struct AppState {
    settings: Settings,
    keys: KeyRing,
    credits: Arc<Credits>,
    store: Arc<JobStore<FlowAResult>>,
    jobs: jobs::Jobs,
    metrics: PrometheusHandle,
    openapi: String,
    shutting_down: AtomicBool,
}

impl AppState {
    fn is_shutting_down(&self) -> bool {
        self.shutting_down.load(Ordering::Relaxed)
    }
}

fn with_credits(mut response: Response, remaining: u64) -> Response {
    response.headers_mut().insert(
        HeaderName::from_static(CREDITS_HEADER),
        HeaderValue::from(remaining),
    );
    response
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Keys(#[from] KeysFileError),
    #[error(transparent)]
    Credits(#[from] CreditsError),
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
        .route(&format!("{prefix}/ReadImage"), get(read::read_image))
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

/// Keys from the keys file and `api_keys`; when there are none, creates one, saves
/// its hash and returns it in clear (to be shown once).
fn load_keys(settings: &Settings) -> Result<(KeyRing, Option<String>), ServeError> {
    let mut file = KeysFile::load(&settings.keys_file)?;
    let mut ring = KeyRing::new();
    file.add_to(&mut ring);
    for key in &settings.api_keys {
        ring.add(KeyId::of_key(key), settings.free_credits);
    }
    if !ring.is_empty() {
        return Ok((ring, None));
    }
    let (key, record) = file.add("created at first start", settings.free_credits);
    file.save(&settings.keys_file)?;
    file.add_to(&mut ring);
    tracing::info!(key_id = %record.id, "no API key configured: created one");
    Ok((ring, Some(key)))
}

/// A running server.
pub struct Server {
    addr: SocketAddr,
    created_key: Option<String>,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), ServeError>>,
}

impl Server {
    /// Loads keys and credits, binds `settings.addr` (port 0 picks a free one) and
    /// starts serving in the background.
    pub async fn start(
        settings: Settings,
        extractor: Arc<dyn Extractor>,
    ) -> Result<Server, ServeError> {
        let (keys, created_key) = load_keys(&settings)?;
        let credits = Credits::open(&settings.credits_db, &keys)?;
        let store = JobStore::new(settings.result_ttl);
        let sweep_every =
            (settings.result_ttl / 10).clamp(Duration::from_millis(50), Duration::from_secs(30));
        let sweeper = store.spawn_sweeper(sweep_every);
        let listener = tokio::net::TcpListener::bind(settings.addr)
            .await
            .map_err(|source| ServeError::Bind {
                addr: settings.addr,
                source,
            })?;
        let addr = listener.local_addr()?;
        let app = Arc::new(AppState {
            jobs: jobs::Jobs::new(extractor, settings.queue, settings.workers),
            openapi: openapi::document(&settings.prefix, settings.demo),
            settings,
            keys,
            credits,
            store,
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
            app.jobs.drain().await;
            sweeper.abort();
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

    async fn wait(&mut self) -> Result<(), ServeError> {
        match (&mut self.task).await {
            Ok(result) => result,
            Err(e) => Err(ServeError::Io(std::io::Error::other(e))),
        }
    }
}

/// Runs `hawiya serve` until Ctrl-C or SIGTERM, then shuts down gracefully.
pub async fn run(settings: Settings, extractor: Arc<dyn Extractor>) -> Result<(), ServeError> {
    let mut server = Server::start(settings, extractor).await?;
    if let Some(key) = server.created_key() {
        // Shown once, on the terminal only; the server keeps just its hash.
        println!("No API key was configured, so one was created. It is shown only now:");
        println!("    {key}");
        println!(
            "Send it as the APIKEY header (or Authorization: Bearer). Manage keys with `hawiya keys`."
        );
    }
    println!("hawiya listening on http://{}", server.local_addr());
    tokio::select! {
        result = server.wait() => return result,
        () = shutdown_signal() => {}
    }
    server.shutdown().await
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}
