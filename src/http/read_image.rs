//! `GET {prefix}/ReadImage?id=ID&isBlocked=BOOL`: the Flow A result, delivered once.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Request, State};
use axum::http::Uri;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::auth;
use super::bodies::{FlowAData, OverlayBody, ReadAnswer, ReadData, process_time};
use super::error::{ApiError, ErrorBody};
use super::query;
use super::with_credits;
use crate::jobs::JobResult;
use crate::keys::KeyId;
use crate::store::{JobId, Taken};

/// Read the result of an upload. `data` is `{}` while the image is processed; once
/// answered with the result, the id is forgotten. Unknown, delivered, expired and
/// other keys' ids all answer the same 403. The result carries `overlay` when the
/// upload asked for it (`overlay=true`); ReadImage itself has no such parameter.
#[utoipa::path(
    get,
    path = "/ReadImage",
    tag = "documents",
    params(
        ("id" = String, Query, pattern = "^[0-9]{19}$", description = "the id answered by uploadImage (19 digits)"),
        ("isBlocked" = Option<bool>, Query, description = "`true`: wait (up to the server's bound, 5 s by default) for the result instead of answering `{}` at once. Default false."),
    ),
    responses(
        (status = 200, description = "`data` is `{}` while processing, else every field of the document as a string (`urlImage` null); `overlay` with the result when the upload asked for it", body = ReadAnswer,
            headers(("X-Credits-Remaining" = u64, description = "credits left on the key"))),
        (status = 400, description = "missing id or isBlocked not true/false", body = ErrorBody),
        (status = 401, description = "missing or unknown key", body = ErrorBody),
        (status = 403, description = "ID not found: unknown, already delivered, expired or uploaded with another key", body = ErrorBody),
        (status = 422, description = "the document could not be read; `reason` says why (NO_DOCUMENT_FOUND, NO_TEXT_FOUND, IMAGE_TOO_BLURRY, WRONG_ID_TYPE, CORRUPT_FILE, IMAGE_TOO_SMALL, IMAGE_TOO_LARGE). Delivered once, like a result.", body = ErrorBody),
        (status = 500, description = "the pipeline failed on this image (INTERNAL_ERROR)", body = ErrorBody),
        (status = 503, description = "the recognizer stayed overloaded (OVERLOADED), or Redis cannot be reached (REDIS_UNAVAILABLE)", body = ErrorBody),
    ),
    security(("APIKEY" = []), ("bearer" = [])),
)]
pub async fn read_image(State(app): State<Arc<AppState>>, request: Request) -> Response {
    let caller = match auth::authenticate(request.headers(), &app.accounts).await {
        Ok(caller) => caller,
        Err(e) => return e.into_response(),
    };
    let response = read(&app, caller.key, request.uri().clone())
        .await
        .unwrap_or_else(IntoResponse::into_response);
    with_credits(response, app.accounts.remaining(caller.key).await.ok())
}

async fn read(app: &AppState, key: KeyId, uri: Uri) -> Result<Response, ApiError> {
    let params = query::params(&uri).ok_or(ApiError::MissingId)?;
    let id = params
        .get("id")
        .map(|id| id.trim())
        .filter(|id| !id.is_empty())
        .ok_or(ApiError::MissingId)?;
    let blocked = query::flag(&params, "isBlocked").ok_or(ApiError::InvalidIsBlocked)?;
    let id = JobId::parse(id).ok_or(ApiError::IdNotFound)?;
    let taken = if blocked {
        app.store
            .take_waiting(id, key, app.settings.blocked_wait)
            .await
    } else {
        app.store.take(id, key).await
    }
    .map_err(|_| ApiError::Unavailable)?;
    let outcome = match &taken {
        Taken::Pending => "pending",
        Taken::Ready(result) if result.outcome.is_ok() => "delivered",
        Taken::Ready(_) => "failed",
        Taken::NotFound => "not_found",
    };
    metrics::counter!("hawiya_reads_total", "outcome" => outcome).increment(1);
    match taken {
        Taken::Pending => Ok(Json(ReadAnswer {
            code: 200,
            status: "success",
            message: "the image is still being processed; read again in 1 to 2 seconds",
            data: ReadData::Pending(serde_json::Map::new()),
            overlay: None,
        })
        .into_response()),
        // The result has left the store; this answer is its last holder.
        Taken::Ready(result) => answer(&result),
        Taken::NotFound => Err(ApiError::IdNotFound),
    }
}

/// The Flow A answer of a finished job: its fields, or why it could not be read.
fn answer(result: &JobResult) -> Result<Response, ApiError> {
    let extraction = result
        .outcome
        .as_ref()
        .map_err(|e| ApiError::extraction(e.clone(), result.request.id_type))?;
    let data = FlowAData {
        fields: extraction.flow_a.clone(),
        proccesstime: process_time(result.finished_at()),
        imageName: result.request.image_name.clone(),
        savedImage: String::new(),
        urlImage: None,
    };
    Ok(Json(ReadAnswer {
        code: 200,
        status: "success",
        message: "success",
        data: ReadData::Done(&data),
        overlay: extraction.overlay.as_ref().map(OverlayBody::new),
    })
    .into_response())
}
