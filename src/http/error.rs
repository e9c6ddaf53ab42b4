//! Every error the API answers, with its HTTP status and machine-readable reason.
//! Bodies have the shape of the reference error (`code` = HTTP status, `message`)
//! plus `reason`.

use std::time::Duration;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use crate::domain::DocumentKind;
use crate::jobs::IdType;
use crate::pipeline::ExtractError;

/// The error body of every non-2xx answer.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ErrorBody {
    /// Equal to the HTTP status.
    pub code: u16,
    pub message: String,
    /// Stable machine-readable cause, e.g. `FILE_TOO_LARGE`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum ApiError {
    #[error("missing or invalid API key: send it in the APIKEY header (or Authorization: Bearer)")]
    Unauthorized,
    #[error("no credits left on this API key")]
    NoCredits,
    #[error("ID_type must be 0, 1, 2 or 3")]
    InvalidIdType,
    #[error("no file: send multipart/form-data with one part named `file`")]
    MissingFile,
    #[error("the file part must be named `file`, got {0}")]
    WrongFieldName(String),
    #[error("the body is not valid multipart/form-data: {0}")]
    InvalidMultipart(String),
    #[error("the file is empty")]
    EmptyFile,
    #[error("the file is not a JPEG, PNG or PDF (judged from its content)")]
    UnsupportedFormat,
    #[error("the file is larger than the limit of {limit} bytes")]
    FileTooLarge { limit: usize },
    #[error("the upload was not received within {0:?}")]
    UploadTimeout(Duration),
    #[error("the request line or a header is malformed")]
    MalformedRequest,
    #[error("the request URI is longer than the 65,534 bytes accepted")]
    UriTooLong,
    #[error("the request has more than 100 headers, or a head longer than 400 KiB")]
    HeadersTooLarge,
    #[error("the request's headers did not arrive within {0:?}")]
    HeaderTimeout(Duration),
    #[error("the query parameter `id` is required")]
    MissingId,
    #[error("isBlocked must be true or false")]
    InvalidIsBlocked,
    #[error("overlay must be true or false")]
    InvalidOverlay,
    #[error("ID not found")]
    IdNotFound,
    #[error("the server is at capacity; retry after {}s", .retry_after.as_secs())]
    QueueFull { retry_after: Duration },
    #[error("the server is shutting down; retry shortly")]
    ShuttingDown,
    #[error("not ready: the model or the batcher is not running yet")]
    NotReady,
    #[error("Redis, which holds jobs, keys and credits, cannot be reached; retry shortly")]
    Unavailable,
    #[error("no route for {0}")]
    NotFound(String),
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("the image shows a {found} but ID_type {} was requested", .requested.code())]
    WrongIdType {
        requested: IdType,
        found: DocumentKind,
    },
    #[error("{0}")]
    Extraction(ExtractError),
    #[error("internal server error")]
    Internal,
}

impl ApiError {
    /// How a refusal of the pipeline answers a request for `requested`: a document
    /// of a kind it does not accept is named with the `ID_type` asked for.
    pub fn extraction(error: ExtractError, requested: IdType) -> ApiError {
        match error {
            ExtractError::WrongKind { found } => ApiError::WrongIdType { requested, found },
            other => ApiError::Extraction(other),
        }
    }

    pub fn status(&self) -> StatusCode {
        use ApiError::*;
        match self {
            Unauthorized => StatusCode::UNAUTHORIZED,
            NoCredits => StatusCode::PAYMENT_REQUIRED,
            InvalidIdType | MissingFile | WrongFieldName(_) | InvalidMultipart(_) | EmptyFile
            | UnsupportedFormat | MissingId | InvalidIsBlocked | InvalidOverlay
            | MalformedRequest => StatusCode::BAD_REQUEST,
            FileTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            UploadTimeout(_) | HeaderTimeout(_) => StatusCode::REQUEST_TIMEOUT,
            UriTooLong => StatusCode::URI_TOO_LONG,
            HeadersTooLarge => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            IdNotFound => StatusCode::FORBIDDEN,
            QueueFull { .. } | ShuttingDown | NotReady | Unavailable => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            NotFound(_) => StatusCode::NOT_FOUND,
            MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            WrongIdType { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            Extraction(e) => extraction_status(e),
            Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub fn reason(&self) -> &'static str {
        use ApiError::*;
        match self {
            Unauthorized => "UNAUTHORIZED",
            NoCredits => "INSUFFICIENT_CREDITS",
            InvalidIdType => "INVALID_ID_TYPE",
            MissingFile => "MISSING_FILE",
            WrongFieldName(_) => "WRONG_FIELD_NAME",
            InvalidMultipart(_) => "INVALID_MULTIPART",
            EmptyFile => "EMPTY_FILE",
            UnsupportedFormat => "UNSUPPORTED_FORMAT",
            FileTooLarge { .. } => "FILE_TOO_LARGE",
            UploadTimeout(_) => "UPLOAD_TIMEOUT",
            MalformedRequest => "MALFORMED_REQUEST",
            UriTooLong => "URI_TOO_LONG",
            HeadersTooLarge => "HEADERS_TOO_LARGE",
            HeaderTimeout(_) => "HEADER_TIMEOUT",
            MissingId => "MISSING_ID",
            InvalidIsBlocked => "INVALID_IS_BLOCKED",
            InvalidOverlay => "INVALID_OVERLAY",
            IdNotFound => "ID_NOT_FOUND",
            QueueFull { .. } => "QUEUE_FULL",
            ShuttingDown => "SHUTTING_DOWN",
            NotReady => "NOT_READY",
            Unavailable => "REDIS_UNAVAILABLE",
            NotFound(_) => "NOT_FOUND",
            MethodNotAllowed => "METHOD_NOT_ALLOWED",
            WrongIdType { .. } => "WRONG_ID_TYPE",
            Extraction(e) => e.reason(),
            Internal => "INTERNAL_ERROR",
        }
    }

    fn retry_after(&self) -> Option<Duration> {
        match self {
            ApiError::QueueFull { retry_after } => Some(*retry_after),
            ApiError::ShuttingDown | ApiError::NotReady | ApiError::Unavailable => {
                Some(Duration::from_secs(5))
            }
            ApiError::Extraction(ExtractError::Overloaded) => Some(Duration::from_secs(1)),
            _ => None,
        }
    }

    pub fn body(&self) -> ErrorBody {
        ErrorBody {
            code: self.status().as_u16(),
            message: self.to_string(),
            reason: Some(self.reason()),
        }
    }

    /// Answers with `body` (which may extend [`ErrorBody`]) and this error's status and headers.
    pub fn respond_with(&self, body: impl Serialize) -> Response {
        let mut response = (self.status(), Json(body)).into_response();
        if let Some(after) = self.retry_after() {
            let secs = after.as_secs().max(1);
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

/// Document-level failures are 422: the request was well formed but the image could
/// not be read as the document asked for.
fn extraction_status(error: &ExtractError) -> StatusCode {
    match error {
        ExtractError::UnsupportedFormat => StatusCode::BAD_REQUEST,
        ExtractError::Corrupt(_)
        | ExtractError::ImageTooLarge(_)
        | ExtractError::ImageTooSmall(_)
        | ExtractError::NoDocumentFound
        | ExtractError::NoTextFound(_)
        | ExtractError::TooBlurry
        | ExtractError::WrongKind { .. } => StatusCode::UNPROCESSABLE_ENTITY,
        ExtractError::Overloaded => StatusCode::SERVICE_UNAVAILABLE,
        ExtractError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        self.respond_with(self.body())
    }
}

/// Every reason code the API can answer, with its status, for the docs and tests.
pub const REASONS: &[(&str, u16)] = &[
    ("UNAUTHORIZED", 401),
    ("INSUFFICIENT_CREDITS", 402),
    ("INVALID_ID_TYPE", 400),
    ("MISSING_FILE", 400),
    ("WRONG_FIELD_NAME", 400),
    ("INVALID_MULTIPART", 400),
    ("EMPTY_FILE", 400),
    ("UNSUPPORTED_FORMAT", 400),
    ("FILE_TOO_LARGE", 413),
    ("UPLOAD_TIMEOUT", 408),
    ("MALFORMED_REQUEST", 400),
    ("URI_TOO_LONG", 414),
    ("HEADERS_TOO_LARGE", 431),
    ("HEADER_TIMEOUT", 408),
    ("MISSING_ID", 400),
    ("INVALID_IS_BLOCKED", 400),
    ("INVALID_OVERLAY", 400),
    ("ID_NOT_FOUND", 403),
    ("QUEUE_FULL", 503),
    ("SHUTTING_DOWN", 503),
    ("NOT_READY", 503),
    ("REDIS_UNAVAILABLE", 503),
    ("NOT_FOUND", 404),
    ("METHOD_NOT_ALLOWED", 405),
    ("CORRUPT_FILE", 422),
    ("IMAGE_TOO_LARGE", 422),
    ("IMAGE_TOO_SMALL", 422),
    ("NO_DOCUMENT_FOUND", 422),
    ("NO_TEXT_FOUND", 422),
    ("IMAGE_TOO_BLURRY", 422),
    ("WRONG_ID_TYPE", 422),
    ("OVERLOADED", 503),
    ("INTERNAL_ERROR", 500),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::DocumentKind;

    #[test]
    fn every_reason_is_listed_with_its_status_and_documented() {
        use ApiError::*;
        let d = Duration::from_secs(1);
        let extraction = [
            ExtractError::UnsupportedFormat,
            ExtractError::Corrupt(String::new()),
            ExtractError::ImageTooLarge(String::new()),
            ExtractError::ImageTooSmall(String::new()),
            ExtractError::NoDocumentFound,
            ExtractError::NoTextFound(String::new()),
            ExtractError::TooBlurry,
            ExtractError::WrongKind {
                found: DocumentKind::Passport,
            },
            ExtractError::Overloaded,
            ExtractError::Internal(String::new()),
        ];
        let errors = [
            Unauthorized,
            NoCredits,
            InvalidIdType,
            MissingFile,
            WrongFieldName(String::new()),
            InvalidMultipart(String::new()),
            EmptyFile,
            UnsupportedFormat,
            FileTooLarge { limit: 1 },
            UploadTimeout(d),
            MalformedRequest,
            UriTooLong,
            HeadersTooLarge,
            HeaderTimeout(d),
            MissingId,
            InvalidIsBlocked,
            IdNotFound,
            QueueFull { retry_after: d },
            ShuttingDown,
            NotReady,
            NotFound(String::new()),
            MethodNotAllowed,
            Internal,
            WrongIdType {
                requested: IdType::NationalIdBack,
                found: DocumentKind::Passport,
            },
        ]
        .into_iter()
        .chain(extraction.into_iter().map(Extraction));
        let docs = include_str!("../../docs/http.md");
        for error in errors {
            let listed = (error.reason(), error.status().as_u16());
            assert!(REASONS.contains(&listed), "{listed:?} is not in REASONS");
            assert!(
                docs.contains(&format!("`{}`", error.reason())),
                "{} is not in docs/http.md",
                error.reason()
            );
        }
    }
}
