//! The queue in Redis ([`crate::redis_client::schema`]): fronts add jobs to a
//! stream, workers in any process read it through one consumer group.
//!
//! A worker claims a job only when it has a free slot, keeps the jobs it runs
//! fresh with a heartbeat, and finishes each in one script (result stored once,
//! image deleted, credit settled, entry acknowledged). A job held by a worker that
//! stopped answering (killed, cut off) is claimed again by another once it has
//! been idle for `reclaim_after` (`XAUTOCLAIM`): processing is at least once, and
//! the result is stored once. A worker told to stop finishes what it runs and puts
//! back what it could not finish.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use rand::Rng;
use redis::aio::ConnectionManager;
use redis::streams::{StreamAutoClaimReply, StreamId, StreamReadReply};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;

use super::{Job, JobRequest, JobResult, SubmitError, extract};
use crate::keys::KeyId;
use crate::pipeline::{ExtractError, Extractor};
use crate::redis_client::schema::{self, GROUP, JOB_LIFETIME, QUEUE};
use crate::redis_client::{Redis, RedisError};
use crate::store::JobId;

/// How long a worker's read waits for a job before it looks again.
const READ_BLOCK: Duration = Duration::from_secs(5);

/// A job started this many times (each by a worker that then stopped answering)
/// fails instead of stopping another worker.
const MAX_ATTEMPTS: i64 = 3;

/// How long a worker keeps trying to store a result while Redis is away; after
/// that the job is left to be claimed again.
const FINISH_PATIENCE: Duration = Duration::from_secs(60);

pub struct RedisQueue {
    redis: Redis,
    /// Unfinished jobs (queued or running) the queue accepts, at most.
    bound: usize,
    result_ttl: Duration,
}

impl RedisQueue {
    pub async fn open(
        redis: Redis,
        bound: usize,
        result_ttl: Duration,
    ) -> Result<RedisQueue, RedisError> {
        ensure_group(&redis).await?;
        Ok(RedisQueue {
            redis,
            bound: bound.max(1),
            result_ttl,
        })
    }

    pub async fn submit(&self, job: Job) -> Result<(), SubmitError> {
        let request = serde_json::to_string(&job.request).expect("a request serializes");
        let (bound, ttl) = (self.bound, self.result_ttl.as_millis() as u64);
        let queued: i64 = self
            .redis
            .run(|mut con| async move {
                schema::SUBMIT
                    .key(QUEUE)
                    .key(schema::job(job.id))
                    .key(schema::image(job.id))
                    .arg(bound)
                    .arg(job.id.to_string())
                    .arg(job.owner.to_hex())
                    .arg(request)
                    .arg(job.image.as_ref())
                    .arg(JOB_LIFETIME.as_millis() as u64)
                    .arg(ttl.max(1))
                    .arg(GROUP)
                    .invoke_async(&mut con)
                    .await
            })
            .await?;
        match queued {
            1 => Ok(()),
            0 => Err(SubmitError::Full),
            _ => Err(SubmitError::IdTaken),
        }
    }

    pub async fn stats(&self) -> Result<QueueStats, RedisError> {
        let stale = stale_after().as_millis() as u64;
        let [unfinished, running, workers, reclaimed]: [u64; 4] = self
            .redis
            .run(|mut con| async move {
                schema::QUEUE_STATS
                    .key(QUEUE)
                    .key(schema::WORKERS)
                    .key(schema::RECLAIMED)
                    .arg(GROUP)
                    .arg(stale)
                    .invoke_async(&mut con)
                    .await
            })
            .await?;
        Ok(QueueStats {
            unfinished,
            running,
            workers,
            reclaimed,
        })
    }
}

/// The shared queue, as the fronts' `/metrics` show it.
#[derive(Debug, Clone, Copy)]
pub struct QueueStats {
    /// Jobs queued or running.
    pub unfinished: u64,
    /// Jobs a worker has claimed and not finished.
    pub running: u64,
    /// Workers that sent a heartbeat lately.
    pub workers: u64,
    /// Jobs claimed again from a worker that stopped answering, ever.
    pub reclaimed: u64,
}

impl QueueStats {
    pub fn record(&self) {
        let waiting = self.unfinished.saturating_sub(self.running);
        metrics::gauge!("hawiya_jobs_unfinished").set(self.unfinished as f64);
        metrics::gauge!("hawiya_queue_length").set(waiting as f64);
        metrics::gauge!("hawiya_jobs_running").set(self.running as f64);
        metrics::gauge!("hawiya_workers").set(self.workers as f64);
        metrics::counter!("hawiya_jobs_reclaimed_total").absolute(self.reclaimed);
    }
}

/// Creates the workers' consumer group (and the stream) unless it exists; read
/// from the stream's start, so jobs queued before any worker came are read too.
async fn ensure_group(redis: &Redis) -> Result<(), RedisError> {
    let created = redis
        .run(|mut con| async move {
            redis::cmd("XGROUP")
                .arg("CREATE")
                .arg(QUEUE)
                .arg(GROUP)
                .arg("0")
                .arg("MKSTREAM")
                .query_async::<()>(&mut con)
                .await
        })
        .await;
    match created {
        Err(RedisError::Command(e)) if e.code() == Some("BUSYGROUP") => Ok(()),
        other => other,
    }
}

/// How often a worker says it is alive and keeps the jobs it runs fresh.
fn heartbeat_every(reclaim_after: Duration) -> Duration {
    (reclaim_after / 3).clamp(Duration::from_millis(200), Duration::from_secs(5))
}

/// A worker silent for this long is no longer counted.
fn stale_after() -> Duration {
    Duration::from_secs(15)
}

/// A worker reading jobs from Redis, running in this process until stopped.
pub struct RedisWorker {
    stop: watch::Sender<Option<Duration>>,
    task: tokio::task::JoinHandle<WorkerStopped>,
}

/// What a stopping worker did with the jobs it held.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkerStopped {
    /// Jobs it finished after being told to stop.
    pub finished: usize,
    /// Jobs it put back in the queue, unfinished.
    pub handed_back: usize,
}

struct Worker {
    redis: Redis,
    /// The worker's consumer name in the group: host, process and a random tag.
    name: String,
    extractor: Arc<dyn Extractor>,
    /// One permit per job claimed: a worker claims only what it can run.
    slots: Arc<Semaphore>,
    /// One permit per extraction running (the same count; see [`extract::run`]).
    running: Arc<Semaphore>,
    /// Entry ids of the jobs claimed and not finished.
    in_flight: Mutex<HashSet<String>>,
    reclaim_after: Duration,
}

/// A claimed queue entry.
struct Entry {
    stream_id: String,
    job: JobId,
    owner: KeyId,
    request: JobRequest,
}

impl RedisWorker {
    /// Starts reading jobs: `workers` extractions at once, jobs idle for
    /// `reclaim_after` in another worker's hands claimed again.
    pub async fn start(
        redis: Redis,
        extractor: Arc<dyn Extractor>,
        workers: usize,
        reclaim_after: Duration,
    ) -> Result<RedisWorker, RedisError> {
        ensure_group(&redis).await?;
        let reads = redis.blocking_connection(READ_BLOCK).await?;
        let workers = workers.max(1);
        let worker = Arc::new(Worker {
            name: worker_name(),
            redis,
            extractor,
            slots: Arc::new(Semaphore::new(workers)),
            running: Arc::new(Semaphore::new(workers)),
            in_flight: Mutex::new(HashSet::new()),
            reclaim_after,
        });
        worker.heartbeat().await?;
        tracing::info!(worker = %worker.name, workers, "worker reading jobs from Redis");
        let (stop, stopped) = watch::channel(None);
        let task = tokio::spawn(worker.run(reads, stopped));
        Ok(RedisWorker { stop, task })
    }

    /// Stops claiming jobs, lets those running finish for up to `grace`, and puts
    /// the rest back in the queue for other workers.
    pub async fn stop(self, grace: Duration) -> WorkerStopped {
        let _ = self.stop.send(Some(grace));
        self.task.await.unwrap_or_default()
    }
}

fn worker_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "worker".into());
    let tag: u16 = rand::rng().random();
    format!("{host}-{}-{tag:04x}", std::process::id())
}

impl Worker {
    async fn run(
        self: Arc<Self>,
        mut reads: ConnectionManager,
        mut stop: watch::Receiver<Option<Duration>>,
    ) -> WorkerStopped {
        let mut jobs = JoinSet::new();
        let heartbeat = tokio::spawn(self.clone().beat());
        let mut next_reclaim = Instant::now();
        let mut backoff = Duration::from_millis(100);
        let grace = loop {
            while jobs.try_join_next().is_some() {}
            let slot = tokio::select! {
                slot = self.slots.clone().acquire_owned() => slot.expect("never closed"),
                _ = stop.changed() => break *stop.borrow(),
            };
            let claimed = if Instant::now() >= next_reclaim {
                next_reclaim = Instant::now() + self.reclaim_after / 2;
                self.reclaim().await
            } else {
                Ok(None)
            };
            let claimed = match claimed {
                Ok(None) => tokio::select! {
                    read = self.read_new(&mut reads) => read,
                    _ = stop.changed() => break *stop.borrow(),
                },
                reclaimed => {
                    // Another may be waiting: look again at the next free slot.
                    next_reclaim = Instant::now();
                    reclaimed
                }
            };
            match claimed {
                Ok(Some(entry)) => {
                    backoff = Duration::from_millis(100);
                    jobs.spawn(self.clone().process(entry, slot));
                }
                Ok(None) => drop(slot),
                Err(e) => {
                    drop(slot);
                    if matches!(&e, RedisError::Command(e) if e.code() == Some("NOGROUP")) {
                        // Redis lost the queue (a restart without persistence).
                        let _ = ensure_group(&self.redis).await;
                    }
                    tracing::debug!(error = %e, "could not read jobs; trying again");
                    tokio::select! {
                        () = tokio::time::sleep(backoff) => {}
                        _ = stop.changed() => break *stop.borrow(),
                    }
                    backoff = (backoff * 2).min(Duration::from_secs(2));
                }
            }
        }
        .unwrap_or_default();
        let running = jobs.len();
        let all_done = async { while jobs.join_next().await.is_some() {} };
        let _ = tokio::time::timeout(grace, all_done).await;
        let unfinished = jobs.len();
        jobs.abort_all();
        heartbeat.abort();
        let handed_back = self.hand_back().await;
        self.leave().await;
        let stopped = WorkerStopped {
            finished: running - unfinished,
            handed_back,
        };
        tracing::info!(worker = %self.name, ?stopped, "worker stopped");
        stopped
    }

    /// Reads one new job, waiting up to [`READ_BLOCK`].
    async fn read_new(&self, reads: &mut ConnectionManager) -> Result<Option<Entry>, RedisError> {
        let read = redis::cmd("XREADGROUP")
            .arg("GROUP")
            .arg(GROUP)
            .arg(&self.name)
            .arg("COUNT")
            .arg(1)
            .arg("BLOCK")
            .arg(READ_BLOCK.as_millis() as u64)
            .arg("STREAMS")
            .arg(QUEUE)
            .arg(">")
            .query_async::<Option<StreamReadReply>>(reads)
            .await?;
        let entry = read
            .and_then(|reply| reply.keys.into_iter().next())
            .and_then(|key| key.ids.into_iter().next());
        Ok(match entry {
            Some(entry) => self.admit(entry).await,
            None => None,
        })
    }

    /// Claims one job idle for `reclaim_after` in the hands of a worker that
    /// stopped answering.
    async fn reclaim(&self) -> Result<Option<Entry>, RedisError> {
        let (name, idle) = (self.name.clone(), self.reclaim_after.as_millis() as u64);
        let reply: StreamAutoClaimReply = self
            .redis
            .run(|mut con| async move {
                redis::cmd("XAUTOCLAIM")
                    .arg(QUEUE)
                    .arg(GROUP)
                    .arg(name)
                    .arg(idle)
                    .arg("0-0")
                    .arg("COUNT")
                    .arg(1)
                    .query_async(&mut con)
                    .await
            })
            .await?;
        let Some(entry) = reply.claimed.into_iter().next() else {
            return Ok(None);
        };
        if self.in_flight.lock().contains(&entry.id) {
            // One of ours, late with its heartbeat: it is running already.
            return Ok(None);
        }
        tracing::warn!(worker = %self.name, "claimed a job from a worker that stopped answering");
        metrics::counter!("hawiya_jobs_reclaimed_total").increment(1);
        let _ = self
            .redis
            .run(|mut con| async move {
                redis::cmd("INCR")
                    .arg(schema::RECLAIMED)
                    .query_async::<()>(&mut con)
                    .await
            })
            .await;
        Ok(self.admit(entry).await)
    }

    /// Takes a claimed entry in hand; an entry hawiya could not have written is
    /// dropped from the queue.
    async fn admit(&self, entry: StreamId) -> Option<Entry> {
        match parse_entry(&entry) {
            Some(parsed) => {
                self.in_flight.lock().insert(parsed.stream_id.clone());
                Some(parsed)
            }
            None => {
                tracing::error!(entry = %entry.id, "dropped a malformed queue entry");
                let id = entry.id;
                let _ = self
                    .redis
                    .run(|mut con| async move {
                        redis::pipe()
                            .cmd("XACK")
                            .arg(QUEUE)
                            .arg(GROUP)
                            .arg(&id)
                            .cmd("XDEL")
                            .arg(QUEUE)
                            .arg(&id)
                            .query_async::<()>(&mut con)
                            .await
                    })
                    .await;
                None
            }
        }
    }

    /// Runs one claimed job to its end and frees its slot.
    async fn process(self: Arc<Self>, entry: Entry, slot: OwnedSemaphorePermit) {
        match self.start(&entry).await {
            Ok(Some((attempts, image))) => {
                let result = if attempts > MAX_ATTEMPTS {
                    tracing::error!(
                        attempts,
                        "a document stopped every worker that read it: failed"
                    );
                    JobResult {
                        request: entry.request.clone(),
                        outcome: Err(ExtractError::Internal(format!(
                            "the document stopped {MAX_ATTEMPTS} workers"
                        ))),
                        finished_ms: chrono::Utc::now().timestamp_millis(),
                    }
                } else {
                    extract::run(
                        &self.extractor,
                        &self.running,
                        image.into(),
                        entry.request.clone(),
                    )
                    .await
                };
                self.finish(&entry, Some(&result)).await;
            }
            // Cancelled, expired or finished elsewhere: only the entry is left.
            Ok(None) => self.finish(&entry, None).await,
            // Left in hand: claimed again once Redis answers and it has been idle.
            Err(e) => tracing::warn!(error = %e, "could not start a job"),
        }
        self.in_flight.lock().remove(&entry.stream_id);
        drop(slot);
    }

    /// Counts the attempt and fetches the image; `None` when the job is gone.
    async fn start(&self, entry: &Entry) -> Result<Option<(i64, Vec<u8>)>, RedisError> {
        let job = entry.job;
        self.redis
            .run(|mut con| async move {
                schema::START
                    .key(schema::job(job))
                    .key(schema::image(job))
                    .invoke_async(&mut con)
                    .await
            })
            .await
    }

    /// Stores the result (if any and if the job is still pending), settles the
    /// credit and acknowledges the entry, retrying while Redis is away.
    async fn finish(&self, entry: &Entry, result: Option<&JobResult>) {
        let charge = result.is_some_and(extract::charges);
        let result = result
            .map(|result| serde_json::to_string(result).expect("a result serializes"))
            .unwrap_or_default();
        let give_up = Instant::now() + FINISH_PATIENCE;
        let mut backoff = Duration::from_millis(100);
        loop {
            let (entry_id, job, owner, result) = (
                entry.stream_id.clone(),
                entry.job,
                entry.owner.to_hex(),
                result.clone(),
            );
            let finished = self
                .redis
                .run(|mut con| async move {
                    schema::FINISH
                        .key(QUEUE)
                        .key(schema::job(job))
                        .key(schema::image(job))
                        .key(schema::key(&owner))
                        .key(schema::holds(&owner))
                        .arg(GROUP)
                        .arg(entry_id)
                        .arg(job.to_string())
                        .arg(result)
                        .arg(u8::from(charge))
                        .arg(schema::DONE)
                        .invoke_async::<i64>(&mut con)
                        .await
                })
                .await;
            match finished {
                Ok(_) => return,
                Err(e) if Instant::now() + backoff < give_up => {
                    tracing::debug!(error = %e, "could not store a result; trying again");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(2));
                }
                Err(e) => {
                    tracing::error!(error = %e, "could not store a result: left to be claimed again");
                    return;
                }
            }
        }
    }

    /// Says this worker is alive and keeps the jobs it runs from looking idle.
    async fn heartbeat(&self) -> Result<(), RedisError> {
        let (name, stale) = (self.name.clone(), stale_after().as_millis() as u64);
        let in_flight: Vec<String> = self.in_flight.lock().iter().cloned().collect();
        self.redis
            .run(|mut con| async move {
                schema::HEARTBEAT
                    .key(schema::WORKERS)
                    .arg(&name)
                    .arg(stale)
                    .invoke_async::<()>(&mut con)
                    .await?;
                if in_flight.is_empty() {
                    return Ok(());
                }
                redis::cmd("XCLAIM")
                    .arg(QUEUE)
                    .arg(GROUP)
                    .arg(&name)
                    .arg(0)
                    .arg(&in_flight)
                    .arg("JUSTID")
                    .query_async::<()>(&mut con)
                    .await
            })
            .await
    }

    async fn beat(self: Arc<Self>) {
        let mut ticks = tokio::time::interval(heartbeat_every(self.reclaim_after));
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            if let Err(e) = self.heartbeat().await {
                tracing::debug!(error = %e, "heartbeat failed");
            }
        }
    }

    /// Puts every entry still pending for this worker back in the queue.
    async fn hand_back(&self) -> usize {
        let name = self.name.clone();
        let held: Result<Vec<(String, String, u64, u64)>, _> = self
            .redis
            .run(|mut con| async move {
                redis::cmd("XPENDING")
                    .arg(QUEUE)
                    .arg(GROUP)
                    .arg("-")
                    .arg("+")
                    .arg(10_000)
                    .arg(name)
                    .query_async(&mut con)
                    .await
            })
            .await;
        let ids: Vec<String> = match held {
            Ok(held) => held.into_iter().map(|(id, ..)| id).collect(),
            Err(e) => {
                tracing::warn!(error = %e, "could not hand back jobs: they will be claimed again");
                return 0;
            }
        };
        if ids.is_empty() {
            return 0;
        }
        let back = self
            .redis
            .run(|mut con| async move {
                schema::HAND_BACK
                    .key(QUEUE)
                    .arg(GROUP)
                    .arg(&ids)
                    .invoke_async::<usize>(&mut con)
                    .await
            })
            .await;
        back.unwrap_or_else(|e| {
            tracing::warn!(error = %e, "could not hand back jobs: they will be claimed again");
            0
        })
    }

    async fn leave(&self) {
        let name = self.name.clone();
        let _ = self
            .redis
            .run(|mut con| async move {
                redis::cmd("ZREM")
                    .arg(schema::WORKERS)
                    .arg(name)
                    .query_async::<()>(&mut con)
                    .await
            })
            .await;
    }
}

fn parse_entry(entry: &StreamId) -> Option<Entry> {
    let job = JobId::parse(&entry.get::<String>("job")?)?;
    let owner = KeyId::from_hex(&entry.get::<String>("owner")?)?;
    let request = serde_json::from_str(&entry.get::<String>("request")?).ok()?;
    Some(Entry {
        stream_id: entry.id.clone(),
        job,
        owner,
        request,
    })
}
