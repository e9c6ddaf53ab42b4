use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::ring::{KeyId, KeyRing, generate_key};

/// The keys file: TOML, one `[[key]]` table per key, holding its hash and never the
/// key itself, so the file can be read by anyone who may see the server's config.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct KeysFile {
    #[serde(default, rename = "key")]
    pub keys: Vec<KeyRecord>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KeyRecord {
    /// Short public name (first 8 hex digits of the hash).
    pub id: String,
    pub label: String,
    /// Hex SHA-256 of the key.
    pub sha256: String,
    /// Credits granted in total; spending is recorded in the credits store.
    pub credits: u64,
    /// RFC 3339 creation time.
    pub created: String,
}

impl KeyRecord {
    /// The record of key `id`, created now.
    pub fn new(id: KeyId, label: &str, credits: u64) -> KeyRecord {
        KeyRecord {
            id: id.short(),
            label: label.to_owned(),
            sha256: id.to_hex(),
            credits,
            created: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum KeysFileError {
    #[error("cannot read keys file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("keys file {path} is not valid: {source}")]
    Parse {
        path: PathBuf,
        source: toml::de::Error,
    },
    #[error("keys file {path}: key {id} has an invalid sha256")]
    BadHash { path: PathBuf, id: String },
    #[error("cannot write keys file {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl KeysFile {
    /// Loads the file; a missing file is an empty one.
    pub fn load(path: &Path) -> Result<KeysFile, KeysFileError> {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(KeysFile::default()),
            Err(source) => {
                return Err(KeysFileError::Read {
                    path: path.into(),
                    source,
                });
            }
        };
        let file: KeysFile = toml::from_str(&text).map_err(|source| KeysFileError::Parse {
            path: path.into(),
            source,
        })?;
        if let Some(bad) = file
            .keys
            .iter()
            .find(|k| KeyId::from_hex(&k.sha256).is_none())
        {
            return Err(KeysFileError::BadHash {
                path: path.into(),
                id: bad.id.clone(),
            });
        }
        Ok(file)
    }

    /// Writes the file atomically (temporary file, then rename), readable by its owner only.
    pub fn save(&self, path: &Path) -> Result<(), KeysFileError> {
        let write_err = |source| KeysFileError::Write {
            path: path.into(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(write_err)?;
        }
        let body = toml::to_string_pretty(self).expect("keys file serializes");
        let text = format!(
            "# hawiya API keys. Only SHA-256 hashes are kept; manage with `hawiya keys`.\n\n{body}"
        );
        let tmp = path.with_extension("tmp");
        {
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create(true).truncate(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            let mut out = options.open(&tmp).map_err(write_err)?;
            out.write_all(text.as_bytes()).map_err(write_err)?;
            out.sync_all().map_err(write_err)?;
        }
        std::fs::rename(&tmp, path).map_err(write_err)
    }

    /// Creates a key with `credits`; returns the key in clear (to be shown once).
    pub fn add(&mut self, label: &str, credits: u64) -> (String, KeyRecord) {
        loop {
            let key = generate_key();
            let id = KeyId::of_key(&key);
            // Short ids name keys on the command line, so keep them unique.
            if self.keys.iter().any(|k| k.id == id.short()) {
                continue;
            }
            let record = KeyRecord::new(id, label, credits);
            self.keys.push(record.clone());
            return (key, record);
        }
    }

    /// Removes the key with short id `id`.
    pub fn revoke(&mut self, id: &str) -> Option<KeyRecord> {
        let index = self.keys.iter().position(|k| k.id == id)?;
        Some(self.keys.remove(index))
    }

    /// Adds every key of the file to `ring`.
    pub fn add_to(&self, ring: &mut KeyRing) {
        for record in &self.keys {
            if let Some(id) = KeyId::from_hex(&record.sha256) {
                ring.add(id, record.credits);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_survive_a_save_and_load_as_hashes_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.toml");
        let mut file = KeysFile::load(&path).unwrap();
        assert!(file.keys.is_empty());
        let (key, record) = file.add("ops", 7);
        file.save(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains(&key), "the key itself must never be written");

        let loaded = KeysFile::load(&path).unwrap();
        let mut ring = KeyRing::new();
        loaded.add_to(&mut ring);
        assert_eq!(ring.authenticate(&key), Some(KeyId::of_key(&key)));
        assert_eq!(ring.grants()[0].credits, 7);

        let mut loaded = loaded;
        assert!(loaded.revoke(&record.id).is_some());
        assert!(loaded.revoke(&record.id).is_none());
    }

    #[test]
    fn a_corrupt_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.toml");
        std::fs::write(&path, "[[key]]\nid = 1\n").unwrap();
        assert!(matches!(
            KeysFile::load(&path),
            Err(KeysFileError::Parse { .. })
        ));
    }
}
