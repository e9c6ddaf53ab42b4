//! `hawiya keys add|list|revoke`: manages the keys file (a running server reads it
//! at start-up, so restart it after a change), or with `--redis` the keys kept in
//! Redis (every front sees a change at once).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::FREE_TIER_CREDITS;
use super::credits::spent_offline;
use super::file::{KeyRecord, KeysFile};
use super::redis::KeyAdmin;
use super::ring::{KeyId, KeyRing};
use crate::redis_client::{Redis, RedisArgs};

/// Where keys and credits live; shared by `serve` and `keys`.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Keys and credits")]
pub struct KeyPaths {
    /// Folder for the keys file and the credits store.
    #[arg(long, env = "HAWIYA_DATA_DIR", default_value = "hawiya-data")]
    pub data_dir: PathBuf,
    /// Keys file (TOML, hashes only) [default: DATA_DIR/keys.toml].
    #[arg(long, env = "HAWIYA_KEYS_FILE")]
    pub keys_file: Option<PathBuf>,
    /// Credits store (redb) [default: DATA_DIR/credits.redb].
    #[arg(long, env = "HAWIYA_CREDITS_DB")]
    pub credits_db: Option<PathBuf>,
}

impl KeyPaths {
    pub fn keys_file(&self) -> PathBuf {
        self.keys_file
            .clone()
            .unwrap_or_else(|| self.data_dir.join("keys.toml"))
    }

    pub fn credits_db(&self) -> PathBuf {
        self.credits_db
            .clone()
            .unwrap_or_else(|| self.data_dir.join("credits.redb"))
    }
}

#[derive(Debug, Args)]
pub struct KeysArgs {
    #[command(flatten)]
    pub paths: KeyPaths,
    #[command(flatten)]
    pub redis: RedisArgs,
    #[command(subcommand)]
    pub action: KeysAction,
}

#[derive(Debug, Subcommand)]
pub enum KeysAction {
    /// Create a key and print it once; only its hash is stored.
    Add {
        /// A note to recognise the key by.
        #[arg(long, default_value = "")]
        label: String,
        /// Credits granted to the key.
        #[arg(long, default_value_t = FREE_TIER_CREDITS)]
        credits: u64,
    },
    /// List keys (short id, label, credits granted and spent).
    List,
    /// Remove a key by its short id.
    Revoke { id: String },
}

impl KeysArgs {
    pub fn run(self) -> anyhow::Result<()> {
        let shown = match &self.redis.url {
            None => self.run_on_file()?,
            Some(url) => tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?
                .block_on(async {
                    let admin = KeyAdmin::new(Redis::connect(url).await?);
                    self.run_on_redis(&admin).await
                })?,
        };
        print!("{shown}");
        Ok(())
    }

    fn run_on_file(&self) -> anyhow::Result<String> {
        let path = self.paths.keys_file();
        let mut file = KeysFile::load(&path)?;
        Ok(match &self.action {
            KeysAction::Add { label, credits } => {
                let (key, record) = file.add(label, *credits);
                file.save(&path)?;
                added(&key, &record)
            }
            KeysAction::List => {
                let mut ring = KeyRing::new();
                file.add_to(&mut ring);
                let spent = spent_offline(&self.paths.credits_db(), &ring)?;
                let rows = file.keys.iter().map(|record| {
                    let used = match (&spent, KeyId::from_hex(&record.sha256)) {
                        (Some(spent), Some(id)) => Some(spent.get(&id).copied().unwrap_or(0)),
                        _ => None,
                    };
                    (record, used)
                });
                let mut shown = table(rows);
                if spent.is_none() {
                    shown.push_str(
                        "(spent credits are unavailable while a server holds the credits store)\n",
                    );
                }
                shown
            }
            KeysAction::Revoke { id } => match file.revoke(id) {
                Some(record) => {
                    file.save(&path)?;
                    revoked(&record.id, &record.label)
                }
                None => anyhow::bail!("no key with id {id} in {}", path.display()),
            },
        })
    }

    async fn run_on_redis(&self, admin: &KeyAdmin) -> anyhow::Result<String> {
        Ok(match &self.action {
            KeysAction::Add { label, credits } => {
                let (key, record) = admin.add(label, *credits).await?;
                added(&key, &record)
            }
            KeysAction::List => {
                let keys = admin.list().await?;
                table(keys.iter().map(|(record, spent)| (record, Some(*spent))))
            }
            KeysAction::Revoke { id } => match admin.revoke(id).await? {
                Some((_, label)) => revoked(id, &label),
                None => anyhow::bail!("no key with id {id} in Redis"),
            },
        })
    }
}

fn added(key: &str, record: &KeyRecord) -> String {
    format!(
        "created key {} with {} credits:\n{key}\nstore it now: it is not kept and cannot be shown again.\n",
        record.id, record.credits
    )
}

fn revoked(id: &str, label: &str) -> String {
    format!("revoked key {id} ({label})\n")
}

/// The keys as `hawiya keys list` prints them; `None` spent reads "(in use)".
fn table<'a>(rows: impl Iterator<Item = (&'a KeyRecord, Option<u64>)>) -> String {
    let mut shown = format!(
        "{:<10} {:<9} {:<9} {:<22} label\n",
        "id", "credits", "spent", "created"
    );
    for (record, spent) in rows {
        let spent = spent.map_or_else(|| "(in use)".to_owned(), |n| n.to_string());
        shown.push_str(&format!(
            "{:<10} {:<9} {:<9} {:<22} {}\n",
            record.id, record.credits, spent, record.created, record.label
        ));
    }
    shown
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        keys: KeysArgs,
    }

    fn run(dir: &std::path::Path, args: &[&str]) -> anyhow::Result<()> {
        let data_dir = dir.to_str().unwrap();
        let mut argv = vec!["hawiya", "--data-dir", data_dir];
        argv.extend_from_slice(args);
        Cli::try_parse_from(argv)?.keys.run()
    }

    #[test]
    fn add_list_and_revoke_edit_the_keys_file() {
        let dir = tempfile::tempdir().unwrap();
        run(dir.path(), &["add", "--label", "ops", "--credits", "500"]).unwrap();
        run(dir.path(), &["add"]).unwrap();
        run(dir.path(), &["list"]).unwrap();
        let file = KeysFile::load(&dir.path().join("keys.toml")).unwrap();
        assert_eq!(file.keys.len(), 2);
        assert_eq!(
            (file.keys[0].label.as_str(), file.keys[0].credits),
            ("ops", 500)
        );
        assert_eq!(file.keys[1].credits, FREE_TIER_CREDITS);
        let id = file.keys[0].id.clone();
        run(dir.path(), &["revoke", &id]).unwrap();
        assert!(run(dir.path(), &["revoke", &id]).is_err());
        let file = KeysFile::load(&dir.path().join("keys.toml")).unwrap();
        assert_eq!(file.keys.len(), 1);
    }
}
