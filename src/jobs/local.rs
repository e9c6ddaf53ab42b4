//! The queue of a single process: a job is a task, admitted only while fewer than
//! `queue` jobs are unfinished, extracted by at most `workers` at once. An admitted
//! job always runs to completion (graceful shutdown waits for it), so nothing
//! accepted is dropped.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::{Job, JobResult, SubmitError, extract};
use crate::keys::Accounts;
use crate::pipeline::Extractor;
use crate::store::MemoryStore;

pub struct LocalQueue {
    /// One permit per unfinished job: admission control.
    backlog: Arc<Semaphore>,
    backlog_size: u32,
    worker: Arc<Worker>,
}

/// What runs the jobs: the pipeline, and where results and credits go.
struct Worker {
    extractor: Arc<dyn Extractor>,
    /// One permit per extraction running: how many documents share the batcher.
    running: Arc<Semaphore>,
    store: Arc<MemoryStore<JobResult>>,
    accounts: Accounts,
}

impl LocalQueue {
    pub fn new(
        extractor: Arc<dyn Extractor>,
        store: Arc<MemoryStore<JobResult>>,
        accounts: Accounts,
        queue: usize,
        workers: usize,
    ) -> LocalQueue {
        let backlog_size = u32::try_from(queue.max(1)).unwrap_or(u32::MAX >> 3);
        LocalQueue {
            backlog: Arc::new(Semaphore::new(backlog_size as usize)),
            backlog_size,
            worker: Arc::new(Worker {
                extractor,
                running: Arc::new(Semaphore::new(workers.max(1))),
                store,
                accounts,
            }),
        }
    }

    pub fn extractor(&self) -> &Arc<dyn Extractor> {
        &self.worker.extractor
    }

    pub fn submit(&self, job: Job) -> Result<(), SubmitError> {
        let place = self
            .backlog
            .clone()
            .try_acquire_owned()
            .map_err(|_| SubmitError::Full)?;
        if !self.worker.store.insert_pending(job.id, job.owner) {
            return Err(SubmitError::IdTaken);
        }
        metrics::gauge!("hawiya_jobs_unfinished").increment(1.0);
        tokio::spawn(self.worker.clone().run(job, place));
        Ok(())
    }

    /// Unfinished jobs (queued or running).
    pub fn unfinished(&self) -> usize {
        self.backlog_size as usize - self.backlog.available_permits()
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

impl Worker {
    /// Extracts the job, settles its credit, then stores its result; the job keeps
    /// its place in the backlog until then, so graceful shutdown waits for both.
    async fn run(self: Arc<Self>, job: Job, place: OwnedSemaphorePermit) {
        let result = extract::run(&self.extractor, &self.running, job.image, job.request).await;
        // Settled before the result can be read, so its reader sees the balance
        // after; a job whose reader left (cancelled) is not charged.
        let charge = extract::charges(&result) && self.store.is_pending(job.id);
        self.accounts
            .settle(job.owner, &job.id.to_string(), charge)
            .await;
        self.store.finish(job.id, result);
        drop(place);
        metrics::gauge!("hawiya_jobs_unfinished").decrement(1.0);
    }
}
