//! The one extraction every worker runs, in process or reading from Redis: the
//! document pipeline on a blocking thread, retried while the recognizer is
//! momentarily overloaded, timed and counted.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::Semaphore;

use super::{JobRequest, JobResult};
use crate::pipeline::{ExtractError, Extraction, Extractor};

/// How long an overloaded recognizer is retried before the job fails with
/// `OVERLOADED`: an accepted job is not dropped for a momentary overload.
const OVERLOAD_PATIENCE: Duration = Duration::from_secs(30);

/// Reads `image` as `request` asks, one of `running`'s permits held while the
/// pipeline runs, and returns what the job leaves for its reader. The bytes are
/// dropped as soon as the pipeline is done with them.
pub async fn run(
    extractor: &Arc<dyn Extractor>,
    running: &Arc<Semaphore>,
    image: Bytes,
    request: JobRequest,
) -> JobResult {
    let started = std::time::Instant::now();
    let outcome = extract_with_retry(extractor, running, image, &request).await;
    let outcome_label = match &outcome {
        Ok(_) => "success",
        Err(e) => e.reason(),
    };
    metrics::histogram!("hawiya_extraction_seconds").record(started.elapsed());
    metrics::counter!("hawiya_extractions_total", "outcome" => outcome_label).increment(1);
    JobResult {
        request,
        outcome,
        finished_ms: chrono::Utc::now().timestamp_millis(),
    }
}

/// Whether finishing a job spends its credit: only a reading does (and only if it
/// reaches its reader, which the queue checks as it stores the result).
pub fn charges(result: &JobResult) -> bool {
    result.outcome.is_ok()
}

async fn extract_with_retry(
    extractor: &Arc<dyn Extractor>,
    running: &Arc<Semaphore>,
    image: Bytes,
    request: &JobRequest,
) -> Result<Extraction, ExtractError> {
    let give_up = tokio::time::Instant::now() + OVERLOAD_PATIENCE;
    let mut backoff = Duration::from_millis(50);
    let (kinds, overlay) = (request.id_type.kinds(), request.overlay);
    loop {
        let slot = running
            .clone()
            .acquire_owned()
            .await
            .expect("the worker semaphore is never closed");
        let (extractor, input) = (extractor.clone(), image.clone());
        let result = tokio::task::spawn_blocking(move || {
            let _slot = slot;
            extractor.extract(&input, kinds, overlay)
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
