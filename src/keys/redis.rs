//! Keys and credits kept in Redis ([`crate::redis_client::schema`]): a hash per key
//! (its SHA-256, never the key), and per key a sorted set of the jobs holding one of
//! its credits. Holding, spending and giving back are Lua scripts, so fronts
//! working at once never spend a credit twice.

use std::sync::Arc;

use super::accounts::{ConfiguredKeys, ReserveError};
use super::credits::NoCredits;
use super::file::KeyRecord;
use super::ring::{KeyId, generate_key};
use crate::redis_client::schema::{self, JOB_LIFETIME};
use crate::redis_client::{Redis, RedisError};

/// The label of keys registered from `--api-keys`.
const CONFIGURED_LABEL: &str = "from --api-keys";

#[derive(Clone)]
pub struct RedisAccounts {
    redis: Redis,
    configured: Arc<ConfiguredIds>,
}

/// The `--api-keys` keys, by hash: registered again if Redis loses them (a restart
/// without persistence), so a configured key keeps working.
struct ConfiguredIds {
    ids: Vec<KeyId>,
    free_credits: u64,
}

impl RedisAccounts {
    /// Registers the configured keys that Redis lacks; when Redis holds no key at
    /// all, creates one and returns it in clear.
    pub async fn open(
        redis: Redis,
        configured: &ConfiguredKeys,
        first_label: &str,
    ) -> Result<(RedisAccounts, Option<String>), RedisError> {
        let admin = KeyAdmin::new(redis.clone());
        let ids: Vec<KeyId> = configured.keys.iter().map(|k| KeyId::of_key(k)).collect();
        for id in &ids {
            admin
                .register(*id, CONFIGURED_LABEL, configured.free_credits)
                .await?;
        }
        let created = if ids.is_empty() {
            admin
                .create_first(first_label, configured.free_credits)
                .await?
        } else {
            None
        };
        let accounts = RedisAccounts {
            redis,
            configured: Arc::new(ConfiguredIds {
                ids,
                free_credits: configured.free_credits,
            }),
        };
        Ok((accounts, created))
    }

    pub async fn authenticate(&self, presented: &str) -> Result<Option<KeyId>, RedisError> {
        let id = KeyId::of_key(presented);
        let record = schema::key(&id.to_hex());
        let known: bool =
            self.redis
                .run(|mut con| async move {
                    redis::cmd("EXISTS").arg(record).query_async(&mut con).await
                })
                .await?;
        if known {
            return Ok(Some(id));
        }
        if !self.configured.ids.contains(&id) {
            return Ok(None);
        }
        tracing::warn!(key_id = %id.short(), "Redis had lost a key of --api-keys: registered it again");
        KeyAdmin::new(self.redis.clone())
            .register(id, CONFIGURED_LABEL, self.configured.free_credits)
            .await?;
        Ok(Some(id))
    }

    pub async fn remaining(&self, key: KeyId) -> Result<u64, RedisError> {
        let hex = key.to_hex();
        let left: i64 = self
            .redis
            .run(|mut con| async move {
                schema::REMAINING
                    .key(schema::key(&hex))
                    .key(schema::holds(&hex))
                    .invoke_async(&mut con)
                    .await
            })
            .await?;
        Ok(left.max(0) as u64)
    }

    pub async fn reserve(&self, key: KeyId, job: &str) -> Result<(), ReserveError> {
        let (hex, job) = (key.to_hex(), job.to_owned());
        let left: i64 = self
            .redis
            .run(|mut con| async move {
                schema::RESERVE
                    .key(schema::key(&hex))
                    .key(schema::holds(&hex))
                    .arg(job)
                    .arg(JOB_LIFETIME.as_millis() as u64)
                    .invoke_async(&mut con)
                    .await
            })
            .await?;
        if left < 0 {
            return Err(NoCredits.into());
        }
        Ok(())
    }

    pub async fn settle(&self, key: KeyId, job: &str, charge: bool) -> Result<(), RedisError> {
        let (hex, job) = (key.to_hex(), job.to_owned());
        self.redis
            .run(|mut con| async move {
                schema::SETTLE
                    .key(schema::key(&hex))
                    .key(schema::holds(&hex))
                    .arg(job)
                    .arg(u8::from(charge))
                    .invoke_async::<i64>(&mut con)
                    .await
            })
            .await
            .map(drop)
    }
}

/// `hawiya keys --redis`: adds, lists and revokes the keys kept in Redis.
pub struct KeyAdmin {
    redis: Redis,
}

impl KeyAdmin {
    pub fn new(redis: Redis) -> KeyAdmin {
        KeyAdmin { redis }
    }

    /// Creates a key with `credits`; returns it in clear (to be shown once).
    pub async fn add(&self, label: &str, credits: u64) -> Result<(String, KeyRecord), RedisError> {
        loop {
            let key = generate_key();
            let record = KeyRecord::new(KeyId::of_key(&key), label, credits);
            // A short id already taken (one chance in 4 billion) draws another key.
            if self.add_record(&record, false).await? == 1 {
                return Ok((key, record));
            }
        }
    }

    /// Adds key `id` unless Redis has it (which keeps its grant and spending).
    async fn register(&self, id: KeyId, label: &str, credits: u64) -> Result<(), RedisError> {
        let record = KeyRecord::new(id, label, credits);
        if self.add_record(&record, false).await? < 0 {
            tracing::warn!(key_id = %record.id, "a configured key shares its short id with another key: not registered");
        }
        Ok(())
    }

    /// Creates a key if Redis holds none; returns it in clear.
    async fn create_first(&self, label: &str, credits: u64) -> Result<Option<String>, RedisError> {
        loop {
            let key = generate_key();
            let record = KeyRecord::new(KeyId::of_key(&key), label, credits);
            match self.add_record(&record, true).await? {
                1 => {
                    tracing::info!(key_id = %record.id, "no API key in Redis: created one");
                    return Ok(Some(key));
                }
                0 => return Ok(None),
                _ => continue,
            }
        }
    }

    async fn add_record(&self, record: &KeyRecord, only_if_none: bool) -> Result<i64, RedisError> {
        let record = record.clone();
        self.redis
            .run(|mut con| async move {
                schema::ADD_KEY
                    .key(schema::key(&record.sha256))
                    .key(schema::KEYS)
                    .arg(&record.sha256)
                    .arg(&record.label)
                    .arg(record.credits)
                    .arg(&record.created)
                    .arg(u8::from(only_if_none))
                    .invoke_async(&mut con)
                    .await
            })
            .await
    }

    /// Every key with the credits it has spent, by creation time.
    pub async fn list(&self) -> Result<Vec<(KeyRecord, u64)>, RedisError> {
        let rows: Vec<Vec<String>> = self
            .redis
            .run(|mut con| async move {
                schema::LIST_KEYS
                    .key(schema::KEYS)
                    .arg(schema::key_prefix())
                    .invoke_async(&mut con)
                    .await
            })
            .await?;
        let mut keys = rows
            .into_iter()
            .map(|row| match row.as_slice() {
                [sha256, id, label, granted, spent, created] => Ok((
                    KeyRecord {
                        id: id.clone(),
                        label: label.clone(),
                        sha256: sha256.clone(),
                        credits: granted.parse().unwrap_or(0),
                        created: created.clone(),
                    },
                    spent.parse().unwrap_or(0),
                )),
                _ => Err(RedisError::Unexpected(format!(
                    "a key listed with {} values",
                    row.len()
                ))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        keys.sort_by(|(a, _), (b, _)| (&a.created, &a.id).cmp(&(&b.created, &b.id)));
        Ok(keys)
    }

    /// Removes the key with short id `id`, and the credits its jobs hold.
    pub async fn revoke(&self, id: &str) -> Result<Option<(String, String)>, RedisError> {
        let id = id.to_owned();
        self.redis
            .run(|mut con| async move {
                schema::REVOKE_KEY
                    .key(schema::KEYS)
                    .arg(id)
                    .arg(schema::key_prefix())
                    .arg(schema::holds_prefix())
                    .invoke_async(&mut con)
                    .await
            })
            .await
    }
}
