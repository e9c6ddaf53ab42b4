//! Middleware: JSON bodies for every error, panic catching, request metrics and
//! traces that carry no image bytes, field values or query strings.

use std::any::Any;
use std::time::Instant;

use axum::body::Body;
use axum::extract::{MatchedPath, Request};
use axum::http::{Response, StatusCode, header};
use axum::middleware::Next;
use axum::response::IntoResponse;

use super::error::{ApiError, ErrorBody};

/// Answers a panic in a handler with the JSON 500 body. The panic message is not
/// logged here: it could quote request data (the panic hook has printed it already).
pub fn panic_to_json(_panic: Box<dyn Any + Send + 'static>) -> Response<Body> {
    tracing::error!("a request handler panicked");
    ApiError::Internal.into_response()
}

/// Gives a JSON error body to any error answer produced without one (by a layer,
/// an extractor or the framework), so clients that parse every body never fail.
pub async fn json_errors(request: Request, next: Next) -> Response<Body> {
    let response = next.run(request).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if status.is_success() || is_json || status.is_informational() || status.is_redirection() {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    let body = ErrorBody {
        code: status.as_u16(),
        message: status.canonical_reason().unwrap_or("error").to_owned(),
        reason: None,
    };
    let json = serde_json::to_vec(&body).expect("error bodies serialize");
    parts.headers.insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(json))
}

/// Counts requests and their latency per route (never per raw path: ids stay out).
pub async fn record_metrics(request: Request, next: Next) -> Response<Body> {
    let started = Instant::now();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let method = request.method().as_str().to_owned();
    let response = next.run(request).await;
    let status = response.status();
    let labels = [
        ("route", route),
        ("method", method),
        ("status", status.as_u16().to_string()),
    ];
    metrics::counter!("hawiya_http_requests_total", &labels).increment(1);
    metrics::histogram!("hawiya_http_request_duration_seconds", &labels[..2])
        .record(started.elapsed());
    // One line per failed answer, never its body: our faults at ERROR, a full
    // queue (documented, with Retry-After) at WARN, the client's at DEBUG.
    let route = &labels[0].1;
    if status.is_server_error() && status != StatusCode::SERVICE_UNAVAILABLE {
        tracing::error!(%route, %status, "answered a server error");
    } else if status == StatusCode::SERVICE_UNAVAILABLE {
        tracing::warn!(%route, "answered 503");
    } else if status.is_client_error() {
        tracing::debug!(%route, %status, "answered a client error");
    }
    response
}
