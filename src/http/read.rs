//! `GET {prefix}/ReadImage?id=ID&isBlocked=BOOL`: the Flow A result, delivered once.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Query, Request, State};
use axum::http::Uri;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::auth;
use super::bodies::{ReadAnswer, ReadData};
use super::error::{ApiError, ErrorBody};
use super::with_credits;
use crate::store::{JobId, Taken};

/// Read the result of an upload. `data` is `{}` while the image is processed; once
/// answered with the result, the id is forgotten. Unknown, delivered, expired and
/// other keys' ids all answer the same 403.
#[utoipa::path(
    get,
    path = "/ReadImage",
    tag = "documents",
    params(
        ("id" = String, Query, description = "the id answered by uploadImage"),
        ("isBlocked" = Option<bool>, Query, description = "`true`: wait (up to the server's bound, 5 s by default) for the result instead of answering `{}` at once. Default false."),
    ),
    responses(
        (status = 200, description = "`data` is `{}` while processing, else every field of the document as a string (`urlImage` null)", body = ReadAnswer,
            headers(("X-Credits-Remaining" = u64, description = "credits left on the key"))),
        (status = 400, description = "missing id or isBlocked not true/false", body = ErrorBody),
        (status = 401, description = "missing or unknown key", body = ErrorBody),
        (status = 403, description = "ID not found: unknown, already delivered, expired or uploaded with another key", body = ErrorBody),
        (status = 422, description = "the document could not be read; `reason` says why (NO_DOCUMENT_FOUND, IMAGE_TOO_BLURRY, WRONG_ID_TYPE, CORRUPT_FILE, IMAGE_TOO_SMALL, IMAGE_TOO_LARGE). Delivered once, like a result.", body = ErrorBody),
        (status = 500, description = "the pipeline failed on this image (INTERNAL_ERROR)", body = ErrorBody),
        (status = 503, description = "the recognizer stayed overloaded (OVERLOADED)", body = ErrorBody),
    ),
    security(("APIKEY" = []), ("bearer" = [])),
)]
pub async fn read_image(State(app): State<Arc<AppState>>, request: Request) -> Response {
    let caller = match auth::authenticate(request.headers(), &app.keys) {
        Ok(caller) => caller,
        Err(e) => return e.into_response(),
    };
    let response = read(&app, caller.key, request.uri().clone())
        .await
        .unwrap_or_else(IntoResponse::into_response);
    with_credits(response, app.credits.remaining(caller.key))
}

async fn read(app: &AppState, key: crate::keys::KeyId, uri: Uri) -> Result<Response, ApiError> {
    let Query(query) =
        Query::<HashMap<String, String>>::try_from_uri(&uri).map_err(|_| ApiError::MissingId)?;
    let id = query
        .get("id")
        .map(|id| id.trim())
        .filter(|id| !id.is_empty())
        .ok_or(ApiError::MissingId)?;
    // .NET clients format booleans as `True`/`False`.
    let blocked = match query.get("isBlocked").map(|v| v.trim()) {
        None => false,
        Some(v) if v.eq_ignore_ascii_case("true") => true,
        Some(v) if v.eq_ignore_ascii_case("false") => false,
        Some(_) => return Err(ApiError::InvalidIsBlocked),
    };
    let id = JobId::parse(id).ok_or(ApiError::IdNotFound)?;
    let taken = if blocked {
        app.store
            .take_waiting(id, key, app.settings.blocked_wait)
            .await
    } else {
        app.store.take(id, key)
    };
    let outcome = match &taken {
        Taken::Pending => "pending",
        Taken::Ready(result) if result.is_ok() => "delivered",
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
        })
        .into_response()),
        Taken::Ready(result) => match &*result {
            Ok(data) => Ok(Json(ReadAnswer {
                code: 200,
                status: "success",
                message: "success",
                data: ReadData::Done(data),
            })
            .into_response()),
            Err(e) => Err(e.clone()),
        },
        Taken::NotFound => Err(ApiError::IdNotFound),
    }
}
