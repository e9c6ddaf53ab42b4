//! Reads the `file` part of an upload while it streams in, enforcing the size limit
//! as bytes arrive so an oversized body never sits in memory.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, ready};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{FromRequest, Multipart, Request};
use axum::http::header;
use http_body::Frame;

use super::error::ApiError;
use crate::pipeline::decode::Format;

/// Room for multipart framing (boundaries, part headers) besides the file itself.
const FRAMING_ALLOWANCE: u64 = 64 * 1024;

/// An oversized body is read and discarded up to this multiple of the limit before
/// answering, so the client (still sending) reliably receives the 413 instead of a
/// connection reset. Beyond it the connection is dropped.
const DRAIN_FACTOR: u64 = 4;

/// A received file, checked to be a non-empty JPEG, PNG or PDF.
pub struct Upload {
    pub bytes: Bytes,
    pub format: Format,
}

/// Reads the upload from `request`. `max_file_bytes` bounds the file part.
pub async fn read_upload(request: Request, max_file_bytes: usize) -> Result<Upload, ApiError> {
    let too_large = ApiError::FileTooLarge {
        limit: max_file_bytes,
    };
    let body_limit = max_file_bytes as u64 + FRAMING_ALLOWANCE;
    let drain_cap = body_limit.saturating_mul(DRAIN_FACTOR);
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > drain_cap) {
        return Err(too_large);
    }

    let (parts, body) = request.into_parts();
    let exceeded = Arc::new(AtomicBool::new(false));
    let capped = CappedBody {
        inner: body,
        limit: body_limit,
        drain_cap,
        seen: 0,
        exceeded: exceeded.clone(),
    };
    let request = Request::from_parts(parts, Body::new(capped));
    let mut multipart = Multipart::from_request(request, &())
        .await
        .map_err(|rejection| ApiError::InvalidMultipart(rejection.body_text()))?;

    let mut file: Option<Vec<u8>> = None;
    let mut file_too_large = false;
    let mut other_names = Vec::new();
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(_) if exceeded.load(Ordering::Relaxed) => return Err(too_large),
            // A form with no part at all (just the closing boundary) does not parse
            // as multipart, but what the client did wrong is send no file.
            Err(_) if file.is_none() && other_names.is_empty() => {
                return Err(ApiError::MissingFile);
            }
            Err(e) => return Err(ApiError::InvalidMultipart(e.body_text())),
        };
        let is_file = field.name() == Some("file") && file.is_none();
        if !is_file {
            other_names.push(field.name().unwrap_or("").to_owned());
        }
        let mut field = field;
        let mut buffer = Vec::new();
        loop {
            match field.chunk().await {
                Ok(Some(chunk)) => {
                    // Keep reading past the limit (discarding) so the client gets the
                    // answer; the body cap bounds how much is read.
                    if is_file && !file_too_large {
                        if buffer.len() + chunk.len() > max_file_bytes {
                            file_too_large = true;
                            buffer = Vec::new();
                        } else {
                            buffer.extend_from_slice(&chunk);
                        }
                    }
                }
                Ok(None) => break,
                Err(_) if exceeded.load(Ordering::Relaxed) => return Err(too_large),
                Err(e) => return Err(ApiError::InvalidMultipart(e.body_text())),
            }
        }
        if is_file {
            file = Some(buffer);
        }
    }
    if file_too_large {
        return Err(too_large);
    }
    let bytes = match file {
        Some(bytes) => bytes,
        None => {
            return Err(match other_names.first() {
                Some(name) => ApiError::WrongFieldName(format!("`{name}`")),
                None => ApiError::MissingFile,
            });
        }
    };
    if bytes.is_empty() {
        return Err(ApiError::EmptyFile);
    }
    let format = Format::sniff(&bytes).ok_or(ApiError::UnsupportedFormat)?;
    Ok(Upload {
        bytes: Bytes::from(bytes),
        format,
    })
}

/// Reads and discards a request's body, up to the largest upload accepted
/// (`max_file_bytes` and framing), for a request refused before its body was read:
/// a client that writes its whole body before reading (Python's http.client,
/// .NET's HttpClient) then reads the refusal instead of a broken pipe. A client
/// that sent `Expect: 100-continue` is never told to continue, so it sends nothing
/// and nothing is read.
pub async fn discard_body(request: Request, max_file_bytes: usize) {
    let expects_continue = request
        .headers()
        .get(header::EXPECT)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    if expects_continue {
        return;
    }
    let limit = max_file_bytes as u64 + FRAMING_ALLOWANCE;
    let mut body = request.into_body();
    let mut seen = 0u64;
    while let Some(Ok(frame)) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await
    {
        seen += frame.data_ref().map_or(0, |data| data.len() as u64);
        if seen > limit {
            return;
        }
    }
}

/// A request body that fails once more than `limit` bytes arrived. Before failing
/// it discards the rest of the body (up to `drain_cap` bytes in all), so the error
/// answer is not lost to a connection reset.
struct CappedBody {
    inner: Body,
    limit: u64,
    drain_cap: u64,
    seen: u64,
    exceeded: Arc<AtomicBool>,
}

impl HttpBody for CappedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        loop {
            let frame = match ready!(Pin::new(&mut self.inner).poll_frame(cx)) {
                Some(Ok(frame)) => frame,
                Some(Err(e)) => return Poll::Ready(Some(Err(e))),
                None if self.exceeded.load(Ordering::Relaxed) => {
                    return Poll::Ready(Some(Err(body_too_large())));
                }
                None => return Poll::Ready(None),
            };
            if let Some(data) = frame.data_ref() {
                self.seen += data.len() as u64;
            }
            if self.seen <= self.limit {
                return Poll::Ready(Some(Ok(frame)));
            }
            self.exceeded.store(true, Ordering::Relaxed);
            if self.seen > self.drain_cap {
                return Poll::Ready(Some(Err(body_too_large())));
            }
            // Over the limit: drop the frame and keep draining.
        }
    }
}

fn body_too_large() -> axum::Error {
    axum::Error::new(std::io::Error::other("request body over the size limit"))
}
