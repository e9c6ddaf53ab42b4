//! Credit balances: granted per key (keys file or free tier), spent per successful
//! extraction, persisted so a restart does not hand out credits again.
//!
//! Storage is redb: an embedded, pure-Rust (no C toolchain, no server), ACID and
//! crash-safe key-value file, MIT/Apache-2.0. One small table maps a key's hash to
//! the credits it has spent; each charge is its own durable transaction. SQLite
//! would add a C dependency, sled is unmaintained beta, and a hand-written JSON file
//! would not survive a crash mid-write.
//!
//! A credit is held when an upload is accepted and charged only when the
//! extraction succeeds; a failed or abandoned job releases it. Only charges reach
//! the disk, so a crash never charges for an unfinished job.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use redb::{ReadableDatabase, ReadableTable, TableDefinition};

use super::ring::{KeyId, KeyRing};

const SPENT: TableDefinition<&[u8], u64> = TableDefinition::new("spent");

#[derive(Debug, thiserror::Error)]
pub enum CreditsError {
    #[error("cannot open the credits store {path}: {source}")]
    Open {
        path: PathBuf,
        source: redb::DatabaseError,
    },
    #[error("credits store: {0}")]
    Storage(#[from] redb::Error),
}

/// The key has no credit left.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("no credits left on this API key")]
pub struct NoCredits;

#[derive(Debug, Clone, Copy)]
struct Account {
    granted: u64,
    spent: u64,
    reserved: u64,
}

impl Account {
    fn remaining(&self) -> u64 {
        self.granted.saturating_sub(self.spent + self.reserved)
    }
}

pub struct Credits {
    db: redb::Database,
    accounts: Mutex<HashMap<KeyId, Account>>,
}

impl Credits {
    /// Opens (or creates) the store at `path` and loads the balance of every key of `ring`.
    pub fn open(path: &Path, ring: &KeyRing) -> Result<Arc<Credits>, CreditsError> {
        let open_err = |source| CreditsError::Open {
            path: path.into(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| open_err(redb::DatabaseError::Storage(e.into())))?;
        }
        let db = redb::Database::create(path).map_err(open_err)?;
        let spent = read_spent(&db, ring)?;
        let accounts = ring
            .grants()
            .iter()
            .map(|grant| {
                let account = Account {
                    granted: grant.credits,
                    spent: spent.get(&grant.id).copied().unwrap_or(0),
                    reserved: 0,
                };
                (grant.id, account)
            })
            .collect();
        Ok(Arc::new(Credits {
            db,
            accounts: Mutex::new(accounts),
        }))
    }

    /// Credits `key` can still spend, not counting those reserved by jobs in flight.
    pub fn remaining(&self, key: KeyId) -> u64 {
        self.accounts.lock().get(&key).map_or(0, Account::remaining)
    }

    /// Holds one credit for a job about to run; [`charge`](Self::charge) or
    /// [`release`](Self::release) ends the hold.
    pub fn reserve(&self, key: KeyId) -> Result<(), NoCredits> {
        let mut accounts = self.accounts.lock();
        let account = accounts.get_mut(&key).ok_or(NoCredits)?;
        if account.remaining() == 0 {
            return Err(NoCredits);
        }
        account.reserved += 1;
        Ok(())
    }

    /// Charges a held credit durably (a disk sync: call from a blocking context) and
    /// returns the balance left. On a storage error the hold is kept: release it.
    pub fn charge(&self, key: KeyId) -> Result<u64, CreditsError> {
        let txn = self.db.begin_write().map_err(redb::Error::from)?;
        {
            let mut table = txn.open_table(SPENT).map_err(redb::Error::from)?;
            let spent = table
                .get(key.as_bytes().as_slice())
                .map_err(redb::Error::from)?
                .map_or(0, |v| v.value());
            table
                .insert(key.as_bytes().as_slice(), spent + 1)
                .map_err(redb::Error::from)?;
        }
        txn.commit().map_err(redb::Error::from)?;
        let mut accounts = self.accounts.lock();
        let account = accounts
            .get_mut(&key)
            .expect("a reserved key has an account");
        account.spent += 1;
        account.reserved = account.reserved.saturating_sub(1);
        Ok(account.remaining())
    }

    /// Gives a held credit back.
    pub fn release(&self, key: KeyId) {
        if let Some(account) = self.accounts.lock().get_mut(&key) {
            account.reserved = account.reserved.saturating_sub(1);
        }
    }
}

/// Reads what every key of `ring` has spent.
fn read_spent(db: &redb::Database, ring: &KeyRing) -> Result<HashMap<KeyId, u64>, CreditsError> {
    let txn = db.begin_read().map_err(redb::Error::from)?;
    let table = match txn.open_table(SPENT) {
        Ok(table) => table,
        Err(redb::TableError::TableDoesNotExist(_)) => return Ok(HashMap::new()),
        Err(e) => return Err(redb::Error::from(e).into()),
    };
    let mut spent = HashMap::new();
    for grant in ring.grants() {
        if let Some(value) = table
            .get(grant.id.as_bytes().as_slice())
            .map_err(redb::Error::from)?
        {
            spent.insert(grant.id, value.value());
        }
    }
    Ok(spent)
}

/// What `hawiya keys list` shows: credits spent per key, read while no server holds
/// the store. `None` when the store is in use by a running server.
pub fn spent_offline(
    path: &Path,
    ring: &KeyRing,
) -> Result<Option<HashMap<KeyId, u64>>, CreditsError> {
    if !path.exists() {
        return Ok(Some(HashMap::new()));
    }
    match redb::Database::open(path) {
        Ok(db) => read_spent(&db, ring).map(Some),
        Err(redb::DatabaseError::DatabaseAlreadyOpen) => Ok(None),
        Err(source) => Err(CreditsError::Open {
            path: path.into(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(key: KeyId, credits: u64) -> KeyRing {
        let mut ring = KeyRing::new();
        ring.add(key, credits);
        ring
    }

    #[test]
    fn charges_spend_and_releases_refund() {
        let dir = tempfile::tempdir().unwrap();
        let key = KeyId::of_key("a");
        let credits = Credits::open(&dir.path().join("c.redb"), &ring(key, 2)).unwrap();
        credits.reserve(key).unwrap();
        credits.reserve(key).unwrap();
        assert_eq!(credits.reserve(key), Err(NoCredits));
        credits.release(key);
        assert_eq!(credits.remaining(key), 1);
        assert_eq!(credits.charge(key).unwrap(), 1);
        assert_eq!(credits.remaining(key), 1);
        assert_eq!(credits.reserve(KeyId::of_key("b")), Err(NoCredits));
    }

    #[test]
    fn spending_survives_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.redb");
        let key = KeyId::of_key("a");
        {
            let credits = Credits::open(&path, &ring(key, 5)).unwrap();
            for _ in 0..2 {
                credits.reserve(key).unwrap();
                credits.charge(key).unwrap();
            }
            assert_eq!(spent_offline(&path, &ring(key, 5)).unwrap(), None);
        }
        let credits = Credits::open(&path, &ring(key, 5)).unwrap();
        assert_eq!(credits.remaining(key), 3);
        drop(credits);
        let spent = spent_offline(&path, &ring(key, 5)).unwrap().unwrap();
        assert_eq!(spent.get(&key), Some(&2));
    }
}
