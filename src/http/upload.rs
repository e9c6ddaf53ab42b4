//! `POST {prefix}/uploadImage`: Flow A (answers an id) and Flow B (answers the result).

use std::sync::Arc;
use std::time::Instant;

use axum::Json;
use axum::extract::{Request, State};
use axum::http::Uri;
use axum::response::{IntoResponse, Response};

use super::IdType;
use super::auth::{self, Flow};
use super::bodies::{
    FlowAData, FlowBAnswer, FlowBError, OverlayBody, UploadAccepted, process_time,
};
use super::error::{ApiError, ErrorBody};
use super::multipart::{Upload, discard_body, read_upload};
use super::{AppState, FlowADone, query, with_credits};
use crate::keys::{KeyId, Reservation};
use crate::pipeline::ExtractError;

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
        (status = 503, description = "queue full or shutting down; see Retry-After", body = ErrorBody),
    ),
    security(("APIKEY" = []), ("bearer" = [])),
)]
pub async fn upload_image(State(app): State<Arc<AppState>>, request: Request) -> Response {
    let started = Instant::now();
    let caller = match auth::authenticate(request.headers(), &app.keys) {
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
    with_credits(response, app.credits.remaining(caller.key))
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

/// What both flows need before extraction starts.
struct Accepted {
    query: UploadQuery,
    reservation: Reservation,
    upload: Upload,
    admission: super::jobs::Admission,
}

/// What can be refused before the body is read: the query, a server shutting
/// down, a key without credits.
fn check_before_body(app: &AppState, key: KeyId, uri: &Uri) -> Result<UploadQuery, ApiError> {
    let query = UploadQuery::parse(uri)?;
    if app.is_shutting_down() {
        return Err(ApiError::ShuttingDown);
    }
    if app.credits.remaining(key) == 0 {
        return Err(ApiError::NoCredits);
    }
    Ok(query)
}

async fn accept(app: &AppState, key: KeyId, request: Request) -> Result<Accepted, ApiError> {
    let query = match check_before_body(app, key, request.uri()) {
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
    let reservation = app.credits.reserve(key).map_err(|_| ApiError::NoCredits)?;
    let admission = app.jobs.admit().ok_or(ApiError::QueueFull {
        retry_after: app.settings.retry_after,
    })?;
    Ok(Accepted {
        query,
        reservation,
        upload,
        admission,
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
    let id_type = accepted.query.id_type;
    let id = app.store.insert_pending(key);
    let image_name = format!("{id}.{}", accepted.upload.format.extension());
    let (store, reservation) = (app.store.clone(), accepted.reservation);
    app.jobs.spawn(
        accepted.admission,
        accepted.upload.bytes,
        id_type,
        accepted.query.overlay,
        move |outcome| async move {
            let result = match outcome {
                Ok(extraction) => {
                    charge(reservation).await;
                    Ok(FlowADone {
                        data: FlowAData {
                            fields: extraction.flow_a,
                            proccesstime: process_time(chrono::Local::now()),
                            imageName: image_name,
                            savedImage: String::new(),
                            urlImage: None,
                        },
                        overlay: extraction.overlay,
                    })
                }
                Err(e) => {
                    drop(reservation); // failed extractions are free
                    Err(ApiError::extraction(e, id_type))
                }
            };
            store.finish(id, result);
        },
    );
    Ok(Json(UploadAccepted {
        code: 200,
        status: "success",
        message: "image uploaded; read the result with ReadImage",
        id: id.to_string(),
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
    let id_type = accepted.query.id_type;
    let job = app.jobs.spawn(
        accepted.admission,
        accepted.upload.bytes,
        id_type,
        accepted.query.overlay,
        std::future::ready,
    );
    // If the client goes away, this future is dropped with the reservation, which
    // gives the credit back; the job itself still finishes.
    let reservation = accepted.reservation;
    let extraction = job
        .await
        .map_err(|_| ApiError::Extraction(ExtractError::Internal("the job failed".into())))?
        .map_err(|e| ApiError::extraction(e, id_type))?;
    charge(reservation).await;
    Ok(Json(FlowBAnswer {
        status: "success",
        data: extraction.flow_b,
        confidence: extraction.confidence.clamp(0.0, 1.0),
        credits_used: 1,
        response_time_ms: started.elapsed().as_millis() as u64,
        document_type: extraction.kind,
        low_confidence_fields: extraction.low_confidence_fields,
        overlay: extraction.overlay.as_ref().map(OverlayBody::new),
    })
    .into_response())
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

/// Charges the reserved credit durably. A storage failure is logged, not turned
/// into a failed extraction: the caller still gets the result.
async fn charge(reservation: Reservation) {
    match tokio::task::spawn_blocking(move || reservation.commit()).await {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => tracing::error!(error = %e, "could not record a spent credit"),
        Err(e) => tracing::error!(error = %e, "could not record a spent credit"),
    }
}
