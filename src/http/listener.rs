//! Accepting connections: at most `max_connections` open at once (more wait in the
//! kernel's backlog until one closes), each served by hyper (HTTP/1.1) over a
//! [`Guarded`] socket, and a graceful shutdown that stops accepting, closes idle
//! connections and lets requests in flight finish.

use std::convert::Infallible;
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::Request;
use http_body::{Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tower::ServiceExt;

use super::connection::{Activity, Guarded, InFlight, Timeouts};

/// Serves `router` on `listener` until `shutdown` completes, then waits for every
/// connection to close.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    max_connections: usize,
    timeouts: Timeouts,
    shutdown: impl Future<Output = ()> + Send + 'static,
) {
    let slots = Arc::new(Semaphore::new(max_connections.max(1)));
    // Dropping the receiver tells every task the server is shutting down.
    let (signal, signalled) = watch::channel(());
    tokio::spawn(async move {
        shutdown.await;
        drop(signalled);
    });
    // Every connection task holds a receiver; the server ends when none is left.
    let (closed, open) = watch::channel(());
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            () = signal.closed() => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    accept_failed(error).await;
                    continue;
                }
            },
            () = signal.closed() => break,
        };
        let (router, signal, open) = (router.clone(), signal.clone(), open.clone());
        tokio::spawn(async move {
            connection(stream, slot, router, timeouts, signal).await;
            drop(open);
        });
    }
    drop(open);
    drop(listener);
    closed.closed().await;
}

/// A failed accept: a connection that died in the backlog is skipped; anything else
/// (out of file descriptors) is waited out briefly rather than retried in a spin.
async fn accept_failed(error: std::io::Error) {
    use std::io::ErrorKind::*;
    if matches!(
        error.kind(),
        ConnectionAborted | ConnectionReset | ConnectionRefused | Interrupted
    ) {
        return;
    }
    tracing::warn!(%error, "cannot accept connections; retrying in 100 ms");
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
}

async fn connection(
    stream: TcpStream,
    _slot: OwnedSemaphorePermit,
    router: Router,
    timeouts: Timeouts,
    signal: watch::Sender<()>,
) {
    metrics::gauge!("hawiya_connections_open").increment(1.0);
    let _ = stream.set_nodelay(true);
    let activity = Activity::new();
    let io = TokioIo::new(Guarded::new(stream, activity.clone(), timeouts));
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let in_flight = activity.begin();
        let router = router.clone();
        async move {
            let response = router
                .oneshot(request.map(Body::new))
                .await
                .unwrap_or_else(|never| match never {});
            Ok::<_, Infallible>(response.map(|body| {
                Body::new(Answering {
                    body,
                    _in_flight: in_flight,
                })
            }))
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    // The guarded socket times heads and idle connections itself.
    builder.header_read_timeout(None);
    let mut conn = pin!(builder.serve_connection(io, service));
    let mut shutting_down = pin!(signal.closed());
    let mut told = false;
    loop {
        tokio::select! {
            result = conn.as_mut() => {
                if let Err(error) = result {
                    tracing::debug!(%error, "connection ended with an error");
                }
                break;
            }
            () = &mut shutting_down, if !told => {
                conn.as_mut().graceful_shutdown();
                told = true;
            }
        }
    }
    metrics::gauge!("hawiya_connections_open").decrement(1.0);
}

/// A response body that keeps its request in flight until it is sent or dropped.
struct Answering {
    body: Body,
    _in_flight: InFlight,
}

impl http_body::Body for Answering {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
