//! The job store in Redis ([`crate::redis_client::schema`]): a job's record holds
//! its owner, then its result as JSON, and the read that delivers the result
//! deletes the record in the same script, so two fronts never deliver one result
//! twice.
//!
//! A blocked read (`isBlocked=true`) waits for the job's id on the `hawiya:done`
//! channel, which one subscription per process fans out to the reads waiting
//! here; it also looks again now and then, often while the subscription is down.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use futures_util::StreamExt;
use parking_lot::Mutex;
use serde::de::DeserializeOwned;
use tokio::sync::Notify;
use tokio::time::Instant;

use super::{JobId, Taken};
use crate::keys::KeyId;
use crate::redis_client::schema;
use crate::redis_client::{Redis, RedisError};

/// How often a blocked read looks again while notifications arrive (a safety net
/// for a notification lost with its connection).
const RECHECK_LISTENING: Duration = Duration::from_secs(1);

/// How often it looks while the subscription is down.
const RECHECK_DEAF: Duration = Duration::from_millis(250);

/// How long the subscription waits before subscribing again after a failure.
const RESUBSCRIBE_AFTER: Duration = Duration::from_secs(1);

pub struct RedisStore<T> {
    redis: Redis,
    waiters: Arc<Waiters>,
    listener: tokio::task::JoinHandle<()>,
    results: PhantomData<fn() -> T>,
}

impl<T> Drop for RedisStore<T> {
    fn drop(&mut self) {
        self.listener.abort();
    }
}

impl<T: DeserializeOwned + Send + Sync + 'static> RedisStore<T> {
    /// The store in `redis`, with its subscription to finished jobs (call within a
    /// Tokio runtime).
    pub fn new(redis: Redis) -> RedisStore<T> {
        let waiters = Arc::new(Waiters::default());
        let listener = tokio::spawn(listen(redis.clone(), Arc::downgrade(&waiters)));
        RedisStore {
            redis,
            waiters,
            listener,
            results: PhantomData,
        }
    }

    pub async fn take(&self, id: JobId, owner: KeyId) -> Result<Taken<T>, RedisError> {
        let owner = owner.to_hex();
        let found: Vec<Vec<u8>> = self
            .redis
            .run(|mut con| async move {
                schema::TAKE
                    .key(schema::job(id))
                    .arg(owner)
                    .invoke_async(&mut con)
                    .await
            })
            .await?;
        match found.as_slice() {
            [] => Ok(Taken::NotFound),
            [state] if state == b"pending" => Ok(Taken::Pending),
            [state, result] if state == b"ready" => serde_json::from_slice(result)
                .map(|result| Taken::Ready(Arc::new(result)))
                .map_err(|e| RedisError::Unexpected(format!("a result that is not JSON: {e}"))),
            _ => Err(RedisError::Unexpected(
                "a job read answered something else".into(),
            )),
        }
    }

    pub async fn take_waiting(
        &self,
        id: JobId,
        owner: KeyId,
        wait: Duration,
    ) -> Result<Taken<T>, RedisError> {
        let deadline = Instant::now() + wait;
        let waiter = self.waiters.register(id);
        loop {
            let notified = waiter.notify.notified();
            tokio::pin!(notified);
            // Register before looking, so a notification between the two is not missed.
            notified.as_mut().enable();
            match self.take(id, owner).await? {
                Taken::Pending => {}
                done => return Ok(done),
            }
            let now = Instant::now();
            if now >= deadline {
                return Ok(Taken::Pending);
            }
            let recheck = if self.waiters.listening.load(Ordering::Relaxed) {
                RECHECK_LISTENING
            } else {
                RECHECK_DEAF
            };
            let _ = tokio::time::timeout_at(deadline.min(now + recheck), notified).await;
        }
    }

    pub async fn cancel(&self, id: JobId) -> Result<(), RedisError> {
        self.redis
            .run(|mut con| async move {
                redis::cmd("DEL")
                    .arg(schema::job(id))
                    .arg(schema::image(id))
                    .query_async::<()>(&mut con)
                    .await
            })
            .await
    }
}

/// The reads waiting here, by job.
#[derive(Default)]
struct Waiters {
    by_job: Mutex<HashMap<JobId, Arc<Notify>>>,
    /// Whether the subscription is up.
    listening: AtomicBool,
}

struct Waiter {
    waiters: Arc<Waiters>,
    id: JobId,
    notify: Arc<Notify>,
}

impl Waiters {
    fn register(self: &Arc<Self>, id: JobId) -> Waiter {
        let notify = self.by_job.lock().entry(id).or_default().clone();
        Waiter {
            waiters: self.clone(),
            id,
            notify,
        }
    }

    fn wake(&self, id: JobId) {
        if let Some(notify) = self.by_job.lock().get(&id) {
            notify.notify_waiters();
        }
    }

    fn wake_all(&self) {
        for notify in self.by_job.lock().values() {
            notify.notify_waiters();
        }
    }
}

impl Drop for Waiter {
    fn drop(&mut self) {
        let mut by_job = self.waiters.by_job.lock();
        // The map's reference and this one: no other read waits for the job.
        if Arc::strong_count(&self.notify) == 2 {
            by_job.remove(&self.id);
        }
    }
}

/// Subscribes to finished jobs and wakes the reads waiting for them, subscribing
/// again whenever the connection is lost, until the store is dropped.
async fn listen(redis: Redis, waiters: Weak<Waiters>) {
    loop {
        if let Ok(mut pubsub) = redis.pubsub().await
            && pubsub.subscribe(schema::DONE).await.is_ok()
        {
            let Some(listening) = waiters.upgrade() else {
                return;
            };
            listening.listening.store(true, Ordering::Relaxed);
            // Whatever finished while no one listened.
            listening.wake_all();
            drop(listening);
            let mut messages = pubsub.on_message();
            while let Some(message) = messages.next().await {
                let Some(waiters) = waiters.upgrade() else {
                    return;
                };
                metrics::counter!("hawiya_result_notifications_total").increment(1);
                if let Some(id) = message
                    .get_payload::<String>()
                    .ok()
                    .and_then(|id| JobId::parse(&id))
                {
                    waiters.wake(id);
                }
            }
        }
        let Some(deaf) = waiters.upgrade() else {
            return;
        };
        deaf.listening.store(false, Ordering::Relaxed);
        drop(deaf);
        tokio::time::sleep(RESUBSCRIBE_AFTER).await;
    }
}
