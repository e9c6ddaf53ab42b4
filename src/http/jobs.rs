//! Runs extractions with a bounded backlog. An upload is admitted only while fewer
//! than `queue` jobs are unfinished; an admitted job always runs to completion
//! (graceful shutdown waits for it), so nothing accepted is dropped.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::IdType;
use crate::pipeline::{ExtractError, Extraction, Extractor};

/// How long an overloaded recognizer is retried before the job fails with
/// `OVERLOADED`: an accepted job is not dropped for a momentary overload.
const OVERLOAD_PATIENCE: Duration = Duration::from_secs(30);

pub struct Jobs {
    extractor: Arc<dyn Extractor>,
    /// One permit per unfinished job: admission control.
    backlog: Arc<Semaphore>,
    backlog_size: u32,
    /// One permit per extraction running: how many documents share the batcher.
    running: Arc<Semaphore>,
}

/// A place in the backlog, held from admission until the job ends.
pub struct Admission {
    _place: OwnedSemaphorePermit,
}

impl Jobs {
    pub fn new(extractor: Arc<dyn Extractor>, queue: usize, workers: usize) -> Jobs {
        let backlog_size = u32::try_from(queue.max(1)).unwrap_or(u32::MAX >> 3);
        Jobs {
            extractor,
            backlog: Arc::new(Semaphore::new(backlog_size as usize)),
            backlog_size,
            running: Arc::new(Semaphore::new(workers.max(1))),
        }
    }

    pub fn extractor(&self) -> &Arc<dyn Extractor> {
        &self.extractor
    }

    /// A place in the backlog, or `None` when it is full.
    pub fn admit(&self) -> Option<Admission> {
        let permit = self.backlog.clone().try_acquire_owned().ok()?;
        metrics::gauge!("hawiya_jobs_unfinished").increment(1.0);
        Some(Admission { _place: permit })
    }

    /// Unfinished jobs (queued or running).
    pub fn unfinished(&self) -> usize {
        self.backlog_size as usize - self.backlog.available_permits()
    }

    /// Starts the extraction of `bytes` (with its overlay when `overlay`) and hands
    /// its outcome to `then`; the job keeps its place in the backlog until `then` is
    /// done, so graceful shutdown waits for the result to be stored too. The task
    /// owns the bytes and drops them as soon as the pipeline is done with them.
    pub fn spawn<F, Fut>(
        &self,
        admission: Admission,
        bytes: Bytes,
        id_type: IdType,
        overlay: bool,
        then: F,
    ) -> tokio::task::JoinHandle<Fut::Output>
    where
        F: FnOnce(Result<Extraction, ExtractError>) -> Fut + Send + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: Send + 'static,
    {
        let extractor = self.extractor.clone();
        let running = self.running.clone();
        tokio::spawn(async move {
            let started = std::time::Instant::now();
            let result = extract_with_retry(extractor, running, bytes, id_type, overlay).await;
            let outcome = match &result {
                Ok(_) => "success",
                Err(e) => e.reason(),
            };
            metrics::histogram!("hawiya_extraction_seconds").record(started.elapsed());
            metrics::counter!("hawiya_extractions_total", "outcome" => outcome).increment(1);
            let output = then(result).await;
            drop(admission);
            metrics::gauge!("hawiya_jobs_unfinished").decrement(1.0);
            output
        })
    }

    /// Waits until every admitted job has finished.
    pub async fn drain(&self) {
        let all = self
            .backlog
            .acquire_many(self.backlog_size)
            .await
            .expect("the backlog semaphore is never closed");
        drop(all);
    }
}

async fn extract_with_retry(
    extractor: Arc<dyn Extractor>,
    running: Arc<Semaphore>,
    bytes: Bytes,
    id_type: IdType,
    overlay: bool,
) -> Result<Extraction, ExtractError> {
    let give_up = tokio::time::Instant::now() + OVERLOAD_PATIENCE;
    let mut backoff = Duration::from_millis(50);
    loop {
        let slot = running
            .clone()
            .acquire_owned()
            .await
            .expect("the worker semaphore is never closed");
        let (extractor, input) = (extractor.clone(), bytes.clone());
        let result = tokio::task::spawn_blocking(move || {
            let _slot = slot;
            extractor.extract(&input, id_type.kinds(), overlay)
        })
        .await
        .unwrap_or_else(|_panic| {
            // Not the panic message: it could quote what was read.
            tracing::error!("the document pipeline panicked");
            Err(ExtractError::Internal(
                "the document pipeline failed".into(),
            ))
        });
        match result {
            Err(ExtractError::Overloaded) if tokio::time::Instant::now() + backoff < give_up => {
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(1));
            }
            other => return other,
        }
    }
}
