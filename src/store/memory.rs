//! The job store of a single process: a lock-free map in memory.
//!
//! A job is inserted as pending when its upload is accepted, finished by the worker
//! that read it, and removed by the first read that returns its result, by its owner.
//! Results never delivered expire after a TTL; a background sweeper frees them.
//! Nothing here touches the disk.

use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use super::{JobId, Taken};
use crate::keys::KeyId;

/// The lock-free map of jobs, generic over what a finished job holds.
pub struct MemoryStore<T> {
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

enum Peek<T> {
    Pending(Arc<Notify>),
    Ready(Arc<T>),
    NotFound,
}

impl<T: Send + Sync + 'static> MemoryStore<T> {
    /// `ttl` bounds how long a finished but undelivered result is kept.
    pub fn new(ttl: Duration) -> Arc<MemoryStore<T>> {
        Arc::new(MemoryStore {
            jobs: papaya::HashMap::new(),
            ttl,
        })
    }

    /// Registers job `id` of `owner` as pending; false when the id is taken.
    pub fn insert_pending(&self, id: JobId, owner: KeyId) -> bool {
        let entry = Entry {
            owner,
            state: State::Pending,
            finished: Arc::new(Notify::new()),
        };
        self.jobs.pin().try_insert(id, entry).is_ok()
    }

    /// Stores the result of a pending job and wakes its blocked readers; the TTL
    /// starts now. False when the job is no longer pending (cancelled).
    pub fn finish(&self, id: JobId, result: T) -> bool {
        let jobs = self.jobs.pin();
        let result = Arc::new(result);
        let expires = Instant::now() + self.ttl;
        let updated = jobs.compute(id, |entry| match entry {
            Some((_, entry)) if matches!(entry.state, State::Pending) => {
                papaya::Operation::Insert(Entry {
                    owner: entry.owner,
                    state: State::Finished {
                        result: result.clone(),
                        expires,
                    },
                    finished: entry.finished.clone(),
                })
            }
            _ => papaya::Operation::Abort(()),
        });
        match updated {
            papaya::Compute::Updated {
                new: (_, entry), ..
            } => {
                entry.finished.notify_waiters();
                true
            }
            _ => false,
        }
    }

    /// Whether job `id` is registered and not finished.
    pub fn is_pending(&self, id: JobId) -> bool {
        self.jobs
            .pin()
            .get(&id)
            .is_some_and(|entry| matches!(entry.state, State::Pending))
    }

    /// Forgets a job: its reader has gone, so its result, when it comes, is dropped.
    pub fn cancel(&self, id: JobId) {
        self.jobs.pin().remove(&id);
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

    fn pending(store: &MemoryStore<u32>, owner: KeyId) -> JobId {
        let id = JobId::random();
        assert!(store.insert_pending(id, owner));
        assert!(!store.insert_pending(id, owner), "an id is never reused");
        id
    }

    #[tokio::test]
    async fn a_cancelled_job_drops_its_result() {
        let store = MemoryStore::<u32>::new(Duration::from_secs(60));
        let id = pending(&store, key(1));
        store.cancel(id);
        assert!(!store.finish(id, 7));
        assert!(matches!(store.take(id, key(1)), Taken::NotFound));
        assert!(store.is_empty());
    }

    #[tokio::test]
    async fn result_is_delivered_once_to_its_owner() {
        let store = MemoryStore::<u32>::new(Duration::from_secs(60));
        let id = pending(&store, key(1));
        assert!(matches!(store.take(id, key(1)), Taken::Pending));
        assert!(store.finish(id, 7));
        assert!(!store.finish(id, 8), "a result is stored once");
        assert!(matches!(store.take(id, key(2)), Taken::NotFound));
        assert!(matches!(store.take(id, key(1)), Taken::Ready(v) if *v == 7));
        assert!(matches!(store.take(id, key(1)), Taken::NotFound));
        assert!(store.is_empty());
    }

    #[tokio::test]
    async fn undelivered_results_expire() {
        let store = MemoryStore::<u32>::new(Duration::from_millis(50));
        let id = pending(&store, key(1));
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
        let store = MemoryStore::<u32>::new(Duration::from_secs(60));
        let id = pending(&store, key(1));
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
        let store = MemoryStore::<u32>::new(Duration::from_secs(60));
        let id = pending(&store, key(1));
        let taken = store
            .take_waiting(id, key(1), Duration::from_millis(50))
            .await;
        assert!(matches!(taken, Taken::Pending));
    }
}
