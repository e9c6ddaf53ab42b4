//! `POST {prefix}/uploadImage`: Flow A (answers an id) and Flow B (answers the result).

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::{Request, State};
use axum::http::Uri;
use axum::response::{IntoResponse, Response};

use super::auth::{self, Flow};
use super::bodies::{FlowBAnswer, FlowBError, OverlayBody, UploadAccepted};
use super::error::{ApiError, ErrorBody};
use super::multipart::{discard_body, read_upload};
use super::{AppState, query, with_credits};
use crate::jobs::{IdType, Job, JobRequest, SubmitError};
use crate::keys::{KeyId, ReserveError};
use crate::pipeline::ExtractError;
use crate::store::{JobId, Taken};

/// Longest a Flow B call waits for its job (queued, then read): beyond it, the
/// job is given up and the call answers `OVERLOADED`.
const FLOW_B_PATIENCE: Duration = Duration::from_secs(120);

/// Upload a document image (multipart part `file`, JPEG, PNG or PDF, at most
/// 10,485,760 bytes). With `APIKEY` (Flow A) the answer is an id to read the result
/// with; with `Authorization: Bearer` (Flow B) the answer is the result.
#[utoipa::path(
    post,
    path = "/uploadImage",
    tag = "documents",
    params(
        ("ID_type" = Option<u8>, Query, minimum = 0, maximum = 3, description = "0 (default): National ID front, driver licence or car licence; 1: National ID back; 2: passport or residence permit; 3: car licence (Flow B)"),
        ("overlay" = Option<bool>, Query, description = "`true`: the result also carries `overlay`, the rectified card as a JPEG data URL with the box of every line read (Flow A: in the ReadImage answer; Flow B: in this answer). Kept only with the result, for the uploading key. Default false."),
    ),
    request_body(content = super::openapi::UploadForm, content_type = "multipart/form-data", description = "one part named `file` holding the image"),
    responses(
        (status = 200, description = "Flow A: accepted; read the result by id. Flow B: the result", body = super::openapi::UploadAnswer,
            headers(("X-Credits-Remaining" = u64, description = "credits left on the key"))),
        (status = 400, description = "invalid ID_type or overlay, missing or misnamed file part, empty file, unsupported format; Flow B also reports unreadable documents here or as 422", body = ErrorBody),
        (status = 401, description = "missing or unknown key (answered once the body is read and discarded, or at once to `Expect: 100-continue`)", body = ErrorBody),
        (status = 402, description = "no credits left (answered as 401 is)", body = ErrorBody),
        (status = 408, description = "upload not received in time", body = ErrorBody),
        (status = 413, description = "file over 10,485,760 bytes", body = ErrorBody),
        (status = 422, description = "Flow B: the document could not be read (reason: NO_DOCUMENT_FOUND, NO_TEXT_FOUND, IMAGE_TOO_BLURRY, WRONG_ID_TYPE, CORRUPT_FILE, IMAGE_TOO_SMALL, IMAGE_TOO_LARGE)", body = FlowBError),
        (status = 503, description = "queue full, shutting down, or Redis unreachable (QUEUE_FULL, SHUTTING_DOWN, REDIS_UNAVAILABLE); Flow B also OVERLOADED; see Retry-After", body = ErrorBody),
    ),
    security(("APIKEY" = []), ("bearer" = [])),
)]
pub async fn upload_image(State(app): State<Arc<AppState>>, request: Request) -> Response {
    let started = Instant::now();
    let caller = match auth::authenticate(request.headers(), &app.accounts).await {
        Ok(caller) => caller,
        Err(refusal) => {
            discard_unread(&app, request).await;
            count_upload("unknown", Err(&refusal));
            return refusal.into_response();
        }
    };
    let (flow, answer) = match caller.flow {
        Flow::A => ("a", flow_a(&app, caller.key, request).await),
        Flow::B => ("b", flow_b(&app, caller.key, request, started).await),
    };
    count_upload(flow, answer.as_ref());
    let response = match (caller.flow, answer) {
        (_, Ok(response)) => response,
        (Flow::A, Err(e)) => e.into_response(),
        (Flow::B, Err(e)) => flow_b_error(&e, started),
    };
    with_credits(response, app.accounts.remaining(caller.key).await.ok())
}

/// Counts an upload as accepted (admitted for extraction, whatever the extraction
/// then gives) or as refused, by reason.
fn count_upload(flow: &'static str, answer: Result<&Response, &ApiError>) {
    let outcome = match answer {
        Ok(_) | Err(ApiError::Extraction(_) | ApiError::WrongIdType { .. }) => "accepted",
        Err(refusal) => refusal.reason(),
    };
    metrics::counter!("hawiya_uploads_total", "flow" => flow, "outcome" => outcome).increment(1);
}

/// An upload queued: its job's id and what it asked for.
struct Accepted {
    id: JobId,
    id_type: IdType,
}

/// What can be refused before the body is read: the query, a server shutting
/// down, a key without credits (or, with Redis, Redis away).
async fn check_before_body(app: &AppState, key: KeyId, uri: &Uri) -> Result<UploadQuery, ApiError> {
    let query = UploadQuery::parse(uri)?;
    if app.is_shutting_down() {
        return Err(ApiError::ShuttingDown);
    }
    let remaining = app
        .accounts
        .remaining(key)
        .await
        .map_err(|_| ApiError::Unavailable)?;
    if remaining == 0 {
        return Err(ApiError::NoCredits);
    }
    Ok(query)
}

/// What both flows do before extraction: receive the file, hold a credit, queue
/// the job (which then carries the credit).
async fn accept(app: &AppState, key: KeyId, request: Request) -> Result<Accepted, ApiError> {
    let query = match check_before_body(app, key, request.uri()).await {
        Ok(query) => query,
        Err(refusal) => {
            discard_unread(app, request).await;
            return Err(refusal);
        }
    };
    let timeout = app.settings.upload_timeout;
    let upload = tokio::time::timeout(timeout, read_upload(request, app.settings.max_file_bytes))
        .await
        .map_err(|_| ApiError::UploadTimeout(timeout))??;
    // Only a complete upload holds a credit, so a key's slow uploads never lock the
    // credits its other uploads need.
    let id = JobId::random();
    let hold = app
        .accounts
        .reserve(key, &id.to_string())
        .await
        .map_err(|e| match e {
            ReserveError::NoCredits(_) => ApiError::NoCredits,
            ReserveError::Unavailable(_) => ApiError::Unavailable,
        })?;
    let job = Job {
        id,
        owner: key,
        request: JobRequest {
            id_type: query.id_type,
            overlay: query.overlay,
            image_name: format!("{id}.{}", upload.format.extension()),
        },
        image: upload.bytes,
    };
    app.queue.submit(job).await.map_err(|e| match e {
        SubmitError::Full => ApiError::QueueFull {
            retry_after: app.settings.retry_after,
        },
        SubmitError::Unavailable(_) => ApiError::Unavailable,
        SubmitError::IdTaken => ApiError::Internal,
    })?;
    hold.hand_over();
    Ok(Accepted {
        id,
        id_type: query.id_type,
    })
}

/// Reads and discards the body of a request refused before it was read (within the
/// upload timeout), so that the client sees the refusal; see [`discard_body`].
async fn discard_unread(app: &AppState, request: Request) {
    let limit = app.settings.max_file_bytes;
    let _ = tokio::time::timeout(app.settings.upload_timeout, discard_body(request, limit)).await;
}

/// The upload's query parameters.
struct UploadQuery {
    id_type: IdType,
    /// Whether the result carries the overlay.
    overlay: bool,
}

impl UploadQuery {
    /// `ID_type`: absent means 0; anything but 0 to 3 is refused. `overlay`:
    /// `true` or `false`, absent means false.
    fn parse(uri: &Uri) -> Result<UploadQuery, ApiError> {
        let params = query::params(uri).ok_or(ApiError::InvalidIdType)?;
        let id_type = match params.get("ID_type") {
            None => IdType::FrontOrLicence,
            Some(text) => text
                .trim()
                .parse::<u8>()
                .ok()
                .and_then(IdType::from_code)
                .ok_or(ApiError::InvalidIdType)?,
        };
        let overlay = query::flag(&params, "overlay").ok_or(ApiError::InvalidOverlay)?;
        Ok(UploadQuery { id_type, overlay })
    }
}

async fn flow_a(app: &Arc<AppState>, key: KeyId, request: Request) -> Result<Response, ApiError> {
    let accepted = accept(app, key, request).await?;
    Ok(Json(UploadAccepted {
        code: 200,
        status: "success",
        message: "image uploaded; read the result with ReadImage",
        id: accepted.id.to_string(),
    })
    .into_response())
}

async fn flow_b(
    app: &Arc<AppState>,
    key: KeyId,
    request: Request,
    started: Instant,
) -> Result<Response, ApiError> {
    let accepted = accept(app, key, request).await?;
    // If the client goes away, or the job outlasts the patience, the job is
    // cancelled: its result is dropped and its credit given back.
    let cancel = CancelIfAbandoned {
        app: app.clone(),
        id: accepted.id,
        waiting: true,
    };
    let taken = app
        .store
        .take_waiting(accepted.id, key, FLOW_B_PATIENCE)
        .await
        .map_err(|_| ApiError::Unavailable)?;
    let result = match taken {
        Taken::Ready(result) => result,
        Taken::Pending => return Err(ApiError::Extraction(ExtractError::Overloaded)),
        Taken::NotFound => {
            return Err(ApiError::Extraction(ExtractError::Internal(
                "the job was lost".into(),
            )));
        }
    };
    cancel.done();
    let extraction = result
        .outcome
        .as_ref()
        .map_err(|e| ApiError::extraction(e.clone(), accepted.id_type))?;
    Ok(Json(FlowBAnswer {
        status: "success",
        data: extraction.flow_b.clone(),
        confidence: extraction.confidence.clamp(0.0, 1.0),
        credits_used: 1,
        response_time_ms: started.elapsed().as_millis() as u64,
        document_type: extraction.kind,
        low_confidence_fields: extraction.low_confidence_fields.clone(),
        overlay: extraction.overlay.as_ref().map(OverlayBody::new),
    })
    .into_response())
}

/// A Flow B call waiting for its job; dropped while waiting, it cancels the job.
struct CancelIfAbandoned {
    app: Arc<AppState>,
    id: JobId,
    waiting: bool,
}

impl CancelIfAbandoned {
    fn done(mut self) {
        self.waiting = false;
    }
}

impl Drop for CancelIfAbandoned {
    fn drop(&mut self) {
        if self.waiting {
            let (app, id) = (self.app.clone(), self.id);
            tokio::spawn(async move {
                if let Err(e) = app.store.cancel(id).await {
                    tracing::debug!(error = %e, "could not cancel an abandoned job");
                }
            });
        }
    }
}

fn flow_b_error(error: &ApiError, started: Instant) -> Response {
    error.respond_with(FlowBError {
        error: error.body(),
        status: "error",
        confidence: 0.0,
        credits_used: 0,
        response_time_ms: started.elapsed().as_millis() as u64,
    })
}
