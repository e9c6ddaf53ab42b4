//! Operational routes (outside the API prefix) and the JSON answers for unknown
//! paths and wrong methods.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use super::AppState;
use super::error::{ApiError, ErrorBody};

#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok` or `ready`
    pub status: &'static str,
}

/// Liveness: the process answers.
#[utoipa::path(get, path = "/healthz", tag = "operations",
    responses((status = 200, description = "alive", body = Health)))]
pub async fn healthz() -> Json<Health> {
    Json(Health { status: "ok" })
}

/// Readiness: the server is not shutting down, Redis answers (with `--redis`), and
/// this process's model is loaded and its batcher runs (when it extracts).
#[utoipa::path(get, path = "/readyz", tag = "operations",
    responses(
        (status = 200, description = "ready", body = Health),
        (status = 503, description = "not ready (NOT_READY), Redis unreachable (REDIS_UNAVAILABLE) or shutting down (SHUTTING_DOWN)", body = ErrorBody),
    ))]
pub async fn readyz(State(app): State<Arc<AppState>>) -> Response {
    if app.is_shutting_down() {
        return ApiError::ShuttingDown.into_response();
    }
    if let Some(redis) = &app.redis
        && redis.ping().await.is_err()
    {
        return ApiError::Unavailable.into_response();
    }
    if app.extractor.as_ref().is_some_and(|e| !e.is_ready()) {
        return ApiError::NotReady.into_response();
    }
    Json(Health { status: "ready" }).into_response()
}

/// Prometheus metrics (text exposition format).
#[utoipa::path(get, path = "/metrics", tag = "operations",
    responses((status = 200, description = "Prometheus text format", content_type = "text/plain", body = String)))]
pub async fn metrics(State(app): State<Arc<AppState>>) -> Response {
    if let Some(held) = app.store.held_here() {
        metrics::gauge!("hawiya_jobs_held").set(held as f64);
    }
    app.queue.record_metrics().await;
    app.metrics.run_upkeep();
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        app.metrics.render(),
    )
        .into_response()
}

/// This OpenAPI 3 document.
#[utoipa::path(get, path = "/openapi.json", tag = "operations",
    responses((status = 200, description = "OpenAPI 3 document", content_type = "application/json")))]
pub async fn openapi(State(app): State<Arc<AppState>>) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        app.openapi.clone(),
    )
        .into_response()
}

pub async fn not_found(uri: Uri) -> ApiError {
    ApiError::NotFound(uri.path().to_owned())
}

pub async fn method_not_allowed() -> ApiError {
    ApiError::MethodNotAllowed
}
