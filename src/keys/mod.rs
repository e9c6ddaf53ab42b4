//! API keys and their credit balances.
//!
//! Keys are never stored: only their SHA-256 hashes are kept (in the keys file, in
//! Redis and in memory), and a presented key is hashed and compared in constant
//! time. A key is shown in clear exactly once, when it is created.

mod accounts;
mod cli;
mod credits;
mod file;
mod redis;
mod ring;

pub use accounts::{Accounts, AccountsError, ConfiguredKeys, Hold, ReserveError};
pub use cli::{KeyPaths, KeysAction, KeysArgs};
pub use credits::{Credits, CreditsError, NoCredits, spent_offline};
pub use file::{KeyRecord, KeysFile, KeysFileError};
pub use redis::KeyAdmin;
pub use ring::{KeyGrant, KeyId, KeyRing, generate_key};

/// Credits a new key starts with: the free tier of the reference service.
pub const FREE_TIER_CREDITS: u64 = 100;
