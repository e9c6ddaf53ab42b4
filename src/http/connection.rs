//! One client connection, guarded: timeouts on reading a request's head and on idle
//! keep-alive, and JSON answers where the HTTP library would answer on its own.
//!
//! hyper answers a request it cannot parse (a malformed request line or header,
//! a URI over 65,534 bytes, more headers than it takes) itself, with an empty body,
//! before any handler runs, and it has no idle timeout. [`Guarded`] wraps the
//! socket under hyper: while no request is in flight ([`Activity`]) it closes an
//! idle connection after `idle_timeout`, answers `408` with the JSON error body
//! when a request's head has been arriving for `header_timeout`, and writes the
//! JSON error in place of hyper's own `400`, `414` or `431` (the service never
//! answers those with an empty body). Each such answer closes the connection,
//! after reading and discarding what the client is still sending for a moment, so
//! that the client reads the answer rather than a reset.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use axum::http::StatusCode;
use parking_lot::Mutex;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

use super::error::ApiError;

/// How long, at most, a closing connection keeps reading what the client still
/// sends, and how much of it.
const LINGER: Duration = Duration::from_secs(1);
const LINGER_BYTES: usize = 1 << 20;

/// The connection's timeouts.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// Longest time from a request's first byte to the end of its head.
    pub header: Duration,
    /// Longest time a connection waits, with no request in flight, for the next one.
    pub idle: Duration,
}

/// Whether requests are in flight on a connection; the service marks them.
#[derive(Debug)]
pub struct Activity(Mutex<Phase>);

#[derive(Debug, Clone, Copy)]
enum Phase {
    /// No request in flight since `since`; the next one's head began arriving at
    /// `head_from`.
    Idle {
        since: Instant,
        head_from: Option<Instant>,
    },
    Busy {
        requests: usize,
    },
}

/// A request in flight; dropped when its answer is sent (or abandoned).
#[derive(Debug)]
pub struct InFlight(Arc<Activity>);

impl Drop for InFlight {
    fn drop(&mut self) {
        let mut phase = self.0.0.lock();
        *phase = match *phase {
            Phase::Busy { requests } if requests > 1 => Phase::Busy {
                requests: requests - 1,
            },
            _ => Phase::Idle {
                since: Instant::now(),
                head_from: None,
            },
        };
    }
}

impl Activity {
    pub fn new() -> Arc<Activity> {
        Arc::new(Activity(Mutex::new(Phase::Idle {
            since: Instant::now(),
            head_from: None,
        })))
    }

    /// Marks a request in flight until the returned guard is dropped.
    pub fn begin(self: &Arc<Self>) -> InFlight {
        let mut phase = self.0.lock();
        *phase = match *phase {
            Phase::Busy { requests } => Phase::Busy {
                requests: requests + 1,
            },
            Phase::Idle { .. } => Phase::Busy { requests: 1 },
        };
        InFlight(self.clone())
    }

    fn is_idle(&self) -> bool {
        matches!(*self.0.lock(), Phase::Idle { .. })
    }

    fn bytes_arrived(&self) {
        if let Phase::Idle {
            head_from: head_from @ None,
            ..
        } = &mut *self.0.lock()
        {
            *head_from = Some(Instant::now());
        }
    }

    /// When the connection times out if nothing changes, and how.
    fn deadline(&self, timeouts: Timeouts) -> Option<(Instant, Expiry)> {
        match *self.0.lock() {
            Phase::Busy { .. } => None,
            Phase::Idle {
                head_from: Some(from),
                ..
            } => Some((from + timeouts.header, Expiry::Head)),
            Phase::Idle { since, .. } => Some((since + timeouts.idle, Expiry::Idle)),
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Expiry {
    /// A head too slow to arrive: answered 408.
    Head,
    /// An idle keep-alive connection: closed.
    Idle,
}

/// An answer of ours being written, then the connection closed.
struct Closing {
    answer: Vec<u8>,
    written: usize,
    shut: bool,
    linger_until: Instant,
    drained: usize,
}

/// A socket guarded as the module says.
pub struct Guarded<IO> {
    inner: IO,
    activity: Arc<Activity>,
    timeouts: Timeouts,
    timer: Pin<Box<Sleep>>,
    closing: Option<Closing>,
}

impl<IO> Guarded<IO> {
    pub fn new(inner: IO, activity: Arc<Activity>, timeouts: Timeouts) -> Guarded<IO> {
        Guarded {
            inner,
            activity,
            timeouts,
            timer: Box::pin(tokio::time::sleep(Duration::ZERO)),
            closing: None,
        }
    }
}

impl<IO: AsyncRead + AsyncWrite + Unpin> Guarded<IO> {
    fn close_with(&mut self, error: &ApiError) {
        metrics::counter!("hawiya_connections_refused_total", "reason" => error.reason())
            .increment(1);
        tracing::debug!(
            reason = error.reason(),
            "answered {} before any handler",
            error.status()
        );
        self.closing = Some(Closing {
            answer: raw_answer(error),
            written: 0,
            shut: false,
            linger_until: Instant::now() + LINGER,
            drained: 0,
        });
    }

    /// Writes the closing answer, shuts the write side, then reads and discards
    /// what the client still sends until it stops, for at most [`LINGER`].
    fn poll_close(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let Some(closing) = self.closing.as_mut() else {
            return Poll::Ready(Ok(()));
        };
        while closing.written < closing.answer.len() {
            let n = ready!(
                Pin::new(&mut self.inner).poll_write(cx, &closing.answer[closing.written..])
            )?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            closing.written += n;
        }
        if !closing.shut {
            ready!(Pin::new(&mut self.inner).poll_flush(cx))?;
            ready!(Pin::new(&mut self.inner).poll_shutdown(cx))?;
            closing.shut = true;
            self.timer.as_mut().reset(closing.linger_until);
        }
        let mut scratch = [0u8; 8192];
        loop {
            if closing.drained >= LINGER_BYTES || self.timer.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Ok(()));
            }
            let mut buf = ReadBuf::new(&mut scratch);
            match Pin::new(&mut self.inner).poll_read(cx, &mut buf) {
                Poll::Ready(Ok(())) if !buf.filled().is_empty() => {
                    closing.drained += buf.filled().len();
                }
                Poll::Ready(_) => return Poll::Ready(Ok(())),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

impl<IO: AsyncRead + AsyncWrite + Unpin> AsyncRead for Guarded<IO> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            if this.closing.is_some() {
                // Whatever happens, hyper then sees the end of the stream.
                let _ = ready!(this.poll_close(cx));
                return Poll::Ready(Ok(()));
            }
            let before = buf.filled().len();
            match Pin::new(&mut this.inner).poll_read(cx, buf) {
                Poll::Ready(Ok(())) => {
                    if buf.filled().len() > before {
                        this.activity.bytes_arrived();
                    }
                    return Poll::Ready(Ok(()));
                }
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => {}
            }
            let Some((deadline, expiry)) = this.activity.deadline(this.timeouts) else {
                return Poll::Pending;
            };
            if Instant::now() < deadline {
                this.timer.as_mut().reset(deadline);
                if this.timer.as_mut().poll(cx).is_pending() {
                    return Poll::Pending;
                }
                continue;
            }
            match expiry {
                // The end of the stream, to hyper: it closes the connection.
                Expiry::Idle => return Poll::Ready(Ok(())),
                Expiry::Head => this.close_with(&ApiError::HeaderTimeout(this.timeouts.header)),
            }
        }
    }
}

impl<IO: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Guarded<IO> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.closing.is_some() {
            // Our answer replaces anything hyper still writes.
            return Poll::Ready(Ok(buf.len()));
        }
        if this.activity.is_idle()
            && let Some(error) = automatic_answer(buf)
        {
            this.close_with(&error);
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.closing.is_some() {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.closing.is_some() {
            return this.poll_close(cx);
        }
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

/// The error hyper answered on its own when `written` is its answer: a head with
/// status 400, 414 or 431 and an empty body, written while no request is in flight.
fn automatic_answer(written: &[u8]) -> Option<ApiError> {
    let head = written.strip_prefix(b"HTTP/1.1 ")?;
    let status = std::str::from_utf8(head.get(..3)?).ok()?;
    let empty = written
        .windows(19)
        .any(|w| w.eq_ignore_ascii_case(b"content-length: 0\r\n"));
    if !empty {
        return None;
    }
    match status {
        "400" => Some(ApiError::MalformedRequest),
        "414" => Some(ApiError::UriTooLong),
        "431" => Some(ApiError::HeadersTooLarge),
        _ => None,
    }
}

/// `error` as a complete HTTP/1.1 answer that closes the connection.
fn raw_answer(error: &ApiError) -> Vec<u8> {
    let body = serde_json::to_vec(&error.body()).expect("error bodies serialize");
    let status: StatusCode = error.status();
    let mut answer = format!(
        "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or(""),
        body.len()
    )
    .into_bytes();
    answer.extend_from_slice(&body);
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hyper_s_own_empty_error_answers_are_replaced() {
        let hyper = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: Fri, 27 Nov 2026 12:00:00 GMT\r\n\r\n";
        assert!(matches!(
            automatic_answer(hyper),
            Some(ApiError::HeadersTooLarge)
        ));
        let ours = b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: 71\r\n\r\n";
        assert!(automatic_answer(ours).is_none());
        let ok = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n";
        assert!(automatic_answer(ok).is_none());
    }

    #[test]
    fn a_raw_answer_carries_the_json_error() {
        let answer = String::from_utf8(raw_answer(&ApiError::UriTooLong)).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 414 URI Too Long\r\n"), "{head}");
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["code"], 414);
        assert_eq!(body["reason"], "URI_TOO_LONG");
    }
}
