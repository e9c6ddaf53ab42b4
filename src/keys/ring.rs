use std::fmt;

use rand::TryRngCore;
use rand::rngs::OsRng;
use sha2::{Digest, Sha256};
use subtle::{ConditionallySelectable, ConstantTimeEq};

/// A key's identity: the SHA-256 of the key. Owner of jobs and of a credit balance.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyId([u8; 32]);

impl KeyId {
    pub fn of_key(key: &str) -> KeyId {
        KeyId(Sha256::digest(key.as_bytes()).into())
    }

    pub fn from_hash(hash: [u8; 32]) -> KeyId {
        KeyId(hash)
    }

    pub fn from_hex(hex: &str) -> Option<KeyId> {
        let bytes = hex.as_bytes();
        if bytes.len() != 64 {
            return None;
        }
        let mut hash = [0u8; 32];
        for (out, pair) in hash.iter_mut().zip(bytes.chunks_exact(2)) {
            let text = std::str::from_utf8(pair).ok()?;
            *out = u8::from_str_radix(text, 16).ok()?;
        }
        Some(KeyId(hash))
    }

    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The short public name of a key: the first 8 hex digits of its hash. Safe to
    /// show and log; used by `hawiya keys list|revoke`.
    pub fn short(&self) -> String {
        self.to_hex()[..8].to_owned()
    }
}

impl fmt::Debug for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyId({})", self.short())
    }
}

/// Draws a new API key: `hwk_` and 48 hex digits (192 bits from the OS CSPRNG).
pub fn generate_key() -> String {
    let mut secret = [0u8; 24];
    OsRng
        .try_fill_bytes(&mut secret)
        .expect("the operating system's random source failed");
    let hex: String = secret.iter().map(|b| format!("{b:02x}")).collect();
    format!("hwk_{hex}")
}

/// One accepted key and the credits granted to it.
#[derive(Debug, Clone)]
pub struct KeyGrant {
    pub id: KeyId,
    /// Total credits granted; the balance is this minus what was spent.
    pub credits: u64,
}

/// The keys the server accepts, as hashes.
#[derive(Debug, Clone, Default)]
pub struct KeyRing {
    grants: Vec<KeyGrant>,
}

impl KeyRing {
    pub fn new() -> KeyRing {
        KeyRing::default()
    }

    /// Adds a key by hash; a hash already present keeps its first grant.
    pub fn add(&mut self, id: KeyId, credits: u64) {
        if !self.grants.iter().any(|g| g.id == id) {
            self.grants.push(KeyGrant { id, credits });
        }
    }

    pub fn is_empty(&self) -> bool {
        self.grants.is_empty()
    }

    pub fn grants(&self) -> &[KeyGrant] {
        &self.grants
    }

    /// The id of `presented` if it is one of the keys. Runs in time independent of
    /// which key matched or how much of a hash did: every hash is compared in full.
    pub fn authenticate(&self, presented: &str) -> Option<KeyId> {
        let hash = KeyId::of_key(presented);
        let mut found = subtle::Choice::from(0);
        let mut index = 0u32;
        for (i, grant) in self.grants.iter().enumerate() {
            let hit = grant.id.0.ct_eq(&hash.0);
            index.conditional_assign(&(i as u32), hit);
            found |= hit;
        }
        bool::from(found).then(|| self.grants[index as usize].id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authenticates_only_known_keys() {
        let mut ring = KeyRing::new();
        let (a, b) = (generate_key(), generate_key());
        ring.add(KeyId::of_key(&a), 5);
        ring.add(KeyId::of_key(&b), 5);
        assert_eq!(ring.authenticate(&a), Some(KeyId::of_key(&a)));
        assert_eq!(ring.authenticate(&b), Some(KeyId::of_key(&b)));
        assert_eq!(ring.authenticate("hwk_nope"), None);
        assert_eq!(ring.authenticate(""), None);
    }

    #[test]
    fn hex_round_trips() {
        let id = KeyId::of_key("k");
        assert_eq!(KeyId::from_hex(&id.to_hex()), Some(id));
        assert_eq!(KeyId::from_hex("zz"), None);
        assert_eq!(id.short().len(), 8);
    }

    #[test]
    fn generated_keys_differ() {
        let key = generate_key();
        assert_eq!(key.len(), 52);
        assert_ne!(key, generate_key());
    }
}
