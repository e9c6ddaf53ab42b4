//! Where finished jobs wait for their reader: in this process's memory, or in
//! Redis, where any front can deliver what any worker finished. Either way a
//! result is delivered once, to the key that uploaded it, and forgotten then (or
//! when its TTL ends unread).

mod job_id;
mod memory;
mod redis;

use std::sync::Arc;
use std::time::Duration;

use serde::de::DeserializeOwned;

use crate::keys::KeyId;
use crate::redis_client::RedisError;

pub use job_id::JobId;
pub use memory::MemoryStore;
pub use redis::RedisStore;

/// What a read found. Unknown, delivered, expired and foreign ids are all `NotFound`,
/// so a caller cannot tell them apart and ids cannot be probed.
#[derive(Debug)]
pub enum Taken<T> {
    Pending,
    Ready(Arc<T>),
    NotFound,
}

/// The job store a server reads results from, generic over what a finished job
/// holds (kept as JSON in Redis).
pub enum JobStore<T> {
    Memory(Arc<MemoryStore<T>>),
    Redis(RedisStore<T>),
}

impl<T: DeserializeOwned + Send + Sync + 'static> JobStore<T> {
    /// Returns the job's result once and removes it, if `owner` uploaded it.
    pub async fn take(&self, id: JobId, owner: KeyId) -> Result<Taken<T>, RedisError> {
        match self {
            JobStore::Memory(memory) => Ok(memory.take(id, owner)),
            JobStore::Redis(redis) => redis.take(id, owner).await,
        }
    }

    /// Like [`take`](Self::take), but while the job is pending waits up to `wait`
    /// for it to finish.
    pub async fn take_waiting(
        &self,
        id: JobId,
        owner: KeyId,
        wait: Duration,
    ) -> Result<Taken<T>, RedisError> {
        match self {
            JobStore::Memory(memory) => Ok(memory.take_waiting(id, owner, wait).await),
            JobStore::Redis(redis) => redis.take_waiting(id, owner, wait).await,
        }
    }

    /// Forgets a job whose reader has gone: its result, when it comes, is dropped.
    pub async fn cancel(&self, id: JobId) -> Result<(), RedisError> {
        match self {
            JobStore::Memory(memory) => {
                memory.cancel(id);
                Ok(())
            }
            JobStore::Redis(redis) => redis.cancel(id).await,
        }
    }

    /// Jobs held in this process (pending, or finished and undelivered); `None`
    /// when they are held in Redis.
    pub fn held_here(&self) -> Option<usize> {
        match self {
            JobStore::Memory(memory) => Some(memory.len()),
            JobStore::Redis(_) => None,
        }
    }
}
