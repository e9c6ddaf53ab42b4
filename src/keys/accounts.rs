//! The accounts a server checks keys and credits against: the keys file and the
//! credits store of this process, or Redis, shared by every front and worker. The
//! rules are the same either way: a key is known by its hash only, an upload holds
//! one credit, a successful extraction spends it, anything else gives it back.

use std::sync::Arc;

use super::credits::{Credits, CreditsError, NoCredits};
use super::file::{KeysFile, KeysFileError};
use super::redis::RedisAccounts;
use super::ring::{KeyId, KeyRing};
use crate::redis_client::{Redis, RedisError};

/// Where keys and credits live (cheap to clone).
#[derive(Clone)]
pub enum Accounts {
    /// The keys file and the credits store (redb) of this process.
    Local(Arc<LocalAccounts>),
    /// Redis, shared with the other fronts and the workers.
    Redis(RedisAccounts),
}

pub struct LocalAccounts {
    ring: KeyRing,
    credits: Arc<Credits>,
}

/// The keys a server accepts besides those stored: `--api-keys`, each granted
/// `free_credits` when first seen.
#[derive(Debug, Clone, Default)]
pub struct ConfiguredKeys {
    pub keys: Vec<String>,
    pub free_credits: u64,
}

#[derive(Debug, thiserror::Error)]
pub enum AccountsError {
    #[error(transparent)]
    KeysFile(#[from] KeysFileError),
    #[error(transparent)]
    Credits(#[from] CreditsError),
    #[error(transparent)]
    Redis(#[from] RedisError),
}

/// Why no credit could be held.
#[derive(Debug, thiserror::Error)]
pub enum ReserveError {
    #[error(transparent)]
    NoCredits(#[from] NoCredits),
    #[error(transparent)]
    Unavailable(#[from] RedisError),
}

/// The label of the key a server creates when it finds none.
const FIRST_KEY_LABEL: &str = "created at first start";

impl Accounts {
    /// The keys of the keys file and `configured`, with the credits of the credits
    /// store. When there is no key at all, creates one, saves its hash and returns
    /// it in clear (to be shown once).
    pub fn open_local(
        keys_file: &std::path::Path,
        credits_db: &std::path::Path,
        configured: &ConfiguredKeys,
    ) -> Result<(Accounts, Option<String>), AccountsError> {
        let mut file = KeysFile::load(keys_file)?;
        let mut ring = KeyRing::new();
        file.add_to(&mut ring);
        for key in &configured.keys {
            ring.add(KeyId::of_key(key), configured.free_credits);
        }
        let mut created = None;
        if ring.is_empty() {
            let (key, record) = file.add(FIRST_KEY_LABEL, configured.free_credits);
            file.save(keys_file)?;
            file.add_to(&mut ring);
            tracing::info!(key_id = %record.id, "no API key configured: created one");
            created = Some(key);
        }
        let credits = Credits::open(credits_db, &ring)?;
        let accounts = Accounts::Local(Arc::new(LocalAccounts { ring, credits }));
        Ok((accounts, created))
    }

    /// The keys and credits kept in `redis`, with `configured` added where missing.
    /// When there is no key at all, creates one and returns it in clear.
    pub async fn open_redis(
        redis: Redis,
        configured: &ConfiguredKeys,
    ) -> Result<(Accounts, Option<String>), AccountsError> {
        let (accounts, created) = RedisAccounts::open(redis, configured, FIRST_KEY_LABEL).await?;
        Ok((Accounts::Redis(accounts), created))
    }

    /// The id of `presented` if it is a known key.
    pub async fn authenticate(&self, presented: &str) -> Result<Option<KeyId>, RedisError> {
        match self {
            Accounts::Local(local) => Ok(local.ring.authenticate(presented)),
            Accounts::Redis(redis) => redis.authenticate(presented).await,
        }
    }

    /// Credits `key` can still spend, those held by its jobs in flight set aside.
    pub async fn remaining(&self, key: KeyId) -> Result<u64, RedisError> {
        match self {
            Accounts::Local(local) => Ok(local.credits.remaining(key)),
            Accounts::Redis(redis) => redis.remaining(key).await,
        }
    }

    /// Holds one of `key`'s credits for the job `job` until [`settle`](Self::settle).
    pub async fn reserve(&self, key: KeyId, job: &str) -> Result<Hold, ReserveError> {
        match self {
            Accounts::Local(local) => local.credits.reserve(key)?,
            Accounts::Redis(redis) => redis.reserve(key, job).await?,
        }
        Ok(Hold {
            accounts: self.clone(),
            key,
            job: job.to_owned(),
            armed: true,
        })
    }

    /// Ends the hold of `job`: spends the credit when `charge`, else gives it back.
    /// A failure is logged, not returned: the job's result stands either way (and an
    /// unsettled hold lapses by itself in Redis).
    pub async fn settle(&self, key: KeyId, job: &str, charge: bool) {
        let settled = match self {
            Accounts::Local(local) if charge => {
                let credits = local.credits.clone();
                match tokio::task::spawn_blocking(move || credits.charge(key)).await {
                    Ok(Ok(_)) => Ok(()),
                    Ok(Err(e)) => {
                        local.credits.release(key);
                        Err(e.to_string())
                    }
                    Err(e) => Err(e.to_string()),
                }
            }
            Accounts::Local(local) => {
                local.credits.release(key);
                Ok(())
            }
            Accounts::Redis(redis) => redis
                .settle(key, job, charge)
                .await
                .map_err(|e| e.to_string()),
        };
        if let Err(error) = settled {
            tracing::error!(%error, key_id = %key.short(), charge, "could not settle a credit");
        }
    }
}

/// One credit held for a job, from its upload until the job ends. Dropped before
/// the job is queued (an upload refused or abandoned), it gives the credit back;
/// once queued, the worker that finishes the job settles it.
#[must_use = "a hold dropped gives its credit back"]
pub struct Hold {
    accounts: Accounts,
    key: KeyId,
    job: String,
    armed: bool,
}

impl Hold {
    /// The job has been queued and carries the credit from now on.
    pub fn hand_over(mut self) {
        self.armed = false;
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        match &self.accounts {
            Accounts::Local(local) => local.credits.release(self.key),
            Accounts::Redis(_) => {
                let (accounts, key, job) = (self.accounts.clone(), self.key, self.job.clone());
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    runtime.spawn(async move { accounts.settle(key, &job, false).await });
                }
                // Without a runtime the hold lapses by itself.
            }
        }
    }
}
