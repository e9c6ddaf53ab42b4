//! Results of Flow A uploads, held in memory only until they are delivered.
//!
//! A job is inserted as pending when its upload is accepted, finished by the worker
//! that read it, and removed by the first read that returns its result, by its owner.
//! Results never delivered expire after a TTL; a background sweeper frees them.
//! Nothing here touches the disk.

mod job_id;

use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use crate::keys::KeyId;

pub use job_id::JobId;

/// The lock-free map of jobs, generic over what a finished job holds.
pub struct JobStore<T> {
    jobs: papaya::HashMap<JobId, Entry<T>>,
    ttl: Duration,
}

struct Entry<T> {
    owner: KeyId,
    state: State<T>,
    /// Wakes readers waiting with `isBlocked=true` when the job finishes.
    finished: Arc<Notify>,
}

enum State<T> {
    Pending,
    Finished { result: Arc<T>, expires: Instant },
}

impl<T> Entry<T> {
    fn is_expired(&self, now: Instant) -> bool {
        matches!(self.state, State::Finished { expires, .. } if expires <= now)
    }
}

/// What a read found. Unknown, delivered, expired and foreign ids are all `NotFound`,
/// so a caller cannot tell them apart and ids cannot be probed.
#[derive(Debug)]
pub enum Taken<T> {
    Pending,
    Ready(Arc<T>),
    NotFound,
}

enum Peek<T> {
    Pending(Arc<Notify>),
    Ready(Arc<T>),
    NotFound,
}

impl<T: Send + Sync + 'static> JobStore<T> {
    /// `ttl` bounds how long a finished but undelivered result is kept.
    pub fn new(ttl: Duration) -> Arc<JobStore<T>> {
        Arc::new(JobStore {
            jobs: papaya::HashMap::new(),
            ttl,
        })
    }

    /// Registers a pending job for `owner` under a fresh random id.
    pub fn insert_pending(&self, owner: KeyId) -> JobId {
        let jobs = self.jobs.pin();
        loop {
            let id = JobId::random();
            let entry = Entry {
                owner,
                state: State::Pending,
                finished: Arc::new(Notify::new()),
            };
            // A collision among 2^62 ids is practically impossible; retry anyway
            // rather than overwrite someone else's job.
            if jobs.try_insert(id, entry).is_ok() {
                return id;
            }
        }
    }

    /// Stores the result of a job and wakes its blocked readers. The TTL starts now.
    pub fn finish(&self, id: JobId, result: T) {
        let jobs = self.jobs.pin();
        let result = Arc::new(result);
        let expires = Instant::now() + self.ttl;
        let updated = jobs.update(id, |entry| Entry {
            owner: entry.owner,
            state: State::Finished {
                result: result.clone(),
                expires,
            },
            finished: entry.finished.clone(),
        });
        if let Some(entry) = updated {
            entry.finished.notify_waiters();
        }
    }

    /// Returns the job's result once and removes it, if `owner` uploaded it.
    pub fn take(&self, id: JobId, owner: KeyId) -> Taken<T> {
        match self.peek_take(id, owner) {
            Peek::Pending(_) => Taken::Pending,
            Peek::Ready(result) => Taken::Ready(result),
            Peek::NotFound => Taken::NotFound,
        }
    }

    /// Like [`take`](Self::take), but while the job is pending waits up to `wait`
    /// for it to finish.
    pub async fn take_waiting(&self, id: JobId, owner: KeyId, wait: Duration) -> Taken<T> {
        let deadline = Instant::now() + wait;
        loop {
            let finished = match self.peek_take(id, owner) {
                Peek::Pending(finished) => finished,
                Peek::Ready(result) => return Taken::Ready(result),
                Peek::NotFound => return Taken::NotFound,
            };
            let notified = finished.notified();
            tokio::pin!(notified);
            // Register before checking again, so a finish between the two checks
            // is not missed.
            notified.as_mut().enable();
            match self.peek_take(id, owner) {
                Peek::Pending(_) => {}
                Peek::Ready(result) => return Taken::Ready(result),
                Peek::NotFound => return Taken::NotFound,
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Taken::Pending;
            }
        }
    }

    fn peek_take(&self, id: JobId, owner: KeyId) -> Peek<T> {
        let jobs = self.jobs.pin();
        let now = Instant::now();
        let Some(entry) = jobs.get(&id) else {
            return Peek::NotFound;
        };
        if entry.owner != owner || entry.is_expired(now) {
            return Peek::NotFound;
        }
        if let State::Pending = entry.state {
            return Peek::Pending(entry.finished.clone());
        }
        // Only one of several concurrent readers removes the entry; the others see
        // it gone, so a result is delivered exactly once.
        match jobs.remove_if(&id, |_, entry| {
            entry.owner == owner && matches!(entry.state, State::Finished { .. })
        }) {
            Ok(Some((_, entry))) => match &entry.state {
                State::Finished { result, .. } => Peek::Ready(result.clone()),
                State::Pending => Peek::NotFound,
            },
            _ => Peek::NotFound,
        }
    }

    /// Removes every finished result whose TTL has passed; returns how many.
    pub fn sweep(&self) -> usize {
        let now = Instant::now();
        let jobs = self.jobs.pin();
        let before = jobs.len();
        jobs.retain(|_, entry| !entry.is_expired(now));
        before.saturating_sub(jobs.len())
    }

    /// Jobs held: pending plus finished and undelivered.
    pub fn len(&self) -> usize {
        self.jobs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Sweeps expired results every `every` until the store is dropped.
    pub fn spawn_sweeper(self: &Arc<Self>, every: Duration) -> tokio::task::JoinHandle<()> {
        let store: Weak<Self> = Arc::downgrade(self);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let Some(store) = store.upgrade() else { return };
                let expired = store.sweep();
                if expired > 0 {
                    tracing::debug!(expired, "expired undelivered results");
                }
                metrics::gauge!("hawiya_jobs_held").set(store.len() as f64);
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> KeyId {
        KeyId::from_hash([n; 32])
    }

    #[tokio::test]
    async fn result_is_delivered_once_to_its_owner() {
        let store = JobStore::<u32>::new(Duration::from_secs(60));
        let id = store.insert_pending(key(1));
        assert!(matches!(store.take(id, key(1)), Taken::Pending));
        store.finish(id, 7);
        assert!(matches!(store.take(id, key(2)), Taken::NotFound));
        assert!(matches!(store.take(id, key(1)), Taken::Ready(v) if *v == 7));
        assert!(matches!(store.take(id, key(1)), Taken::NotFound));
        assert!(store.is_empty());
    }

    #[tokio::test]
    async fn undelivered_results_expire() {
        let store = JobStore::<u32>::new(Duration::from_millis(50));
        let id = store.insert_pending(key(1));
        tokio::time::sleep(Duration::from_millis(80)).await;
        // Pending jobs do not expire: they are still being worked on.
        assert_eq!(store.sweep(), 0);
        store.finish(id, 1);
        tokio::time::sleep(Duration::from_millis(80)).await;
        assert!(matches!(store.take(id, key(1)), Taken::NotFound));
        assert_eq!(store.sweep(), 1);
        assert!(store.is_empty());
    }

    #[tokio::test]
    async fn blocked_read_wakes_when_the_job_finishes() {
        let store = JobStore::<u32>::new(Duration::from_secs(60));
        let id = store.insert_pending(key(1));
        let finisher = {
            let store = store.clone();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                store.finish(id, 3);
            })
        };
        let taken = store
            .take_waiting(id, key(1), Duration::from_secs(30))
            .await;
        assert!(matches!(taken, Taken::Ready(v) if *v == 3));
        finisher.await.unwrap();
    }

    #[tokio::test]
    async fn blocked_read_gives_up_at_its_bound() {
        let store = JobStore::<u32>::new(Duration::from_secs(60));
        let id = store.insert_pending(key(1));
        let taken = store
            .take_waiting(id, key(1), Duration::from_millis(50))
            .await;
        assert!(matches!(taken, Taken::Pending));
    }
}
