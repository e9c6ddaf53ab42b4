//! The Redis server that `--redis URL` names: where the fronts (`hawiya serve`) and
//! workers (`hawiya worker`) of a scaled-out deployment keep jobs, results, API keys
//! and credits (docs/scaling.md).
//!
//! One [`Redis`] per process, shared by the job store, the queue and the accounts;
//! every key they keep there, and every atomic operation on them, is in [`schema`].
//! Operations are bounded in time, so an unreachable Redis answers an error in
//! seconds rather than holding a request; the connection comes back by itself when
//! the server does.

pub mod schema;

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

/// Longest one operation may take, reconnection included, before it fails.
pub const OPERATION_TIMEOUT: Duration = Duration::from_secs(3);

/// How long one connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);

/// `--redis`: the Redis server jobs, results, keys and credits live in.
#[derive(Debug, Clone, Default, clap::Args)]
#[command(next_help_heading = "Redis (several fronts and workers)")]
pub struct RedisArgs {
    /// Keep jobs, results, API keys and credits in this Redis server, shared by every
    /// `hawiya serve` and `hawiya worker` given the same URL:
    /// redis://[:PASSWORD@]HOST[:PORT][/DB], or rediss:// for TLS [default: all in
    /// this process, keys and credits under --data-dir].
    #[arg(
        long = "redis",
        env = "HAWIYA_REDIS_URL",
        value_name = "URL",
        value_parser = RedisUrl::parse,
        hide_env_values = true
    )]
    pub url: Option<RedisUrl>,
}

/// A Redis URL checked to be one the client understands. Shown without its
/// password.
#[derive(Clone)]
pub struct RedisUrl {
    url: String,
    shown: String,
}

impl RedisUrl {
    pub fn parse(text: &str) -> Result<RedisUrl, String> {
        let client = redis::Client::open(text.trim())
            .map_err(|e| format!("`{}` is not a Redis URL: {e}", redact(text)))?;
        let info = client.get_connection_info();
        let scheme = match info.addr() {
            redis::ConnectionAddr::TcpTls { .. } => "rediss",
            redis::ConnectionAddr::Unix(_) => "redis+unix",
            _ => "redis",
        };
        Ok(RedisUrl {
            url: text.trim().to_owned(),
            shown: format!("{scheme}://{}", info.addr()),
        })
    }
}

/// The part of a text that could be a URL's password, blanked.
fn redact(text: &str) -> String {
    match (text.find("://"), text.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            format!("{}://***{}", &text[..scheme], &text[at..])
        }
        _ => text.to_owned(),
    }
}

impl fmt::Display for RedisUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

impl fmt::Debug for RedisUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RedisUrl({})", self.shown)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum RedisError {
    #[error("Redis at {url} cannot be reached: {source}")]
    Connect {
        url: RedisUrl,
        source: redis::RedisError,
    },
    #[error("Redis: {0}")]
    Command(#[from] redis::RedisError),
    #[error("Redis did not answer within {0:?}")]
    TimedOut(Duration),
    #[error("Redis holds something hawiya did not write: {0}")]
    Unexpected(String),
}

/// The shared connection to one Redis server (cheap to clone).
#[derive(Clone)]
pub struct Redis {
    inner: Arc<Inner>,
}

struct Inner {
    url: RedisUrl,
    client: redis::Client,
    commands: ConnectionManager,
    /// Whether the last operation succeeded: the outage and the recovery are
    /// logged once each, not once per request.
    answering: AtomicBool,
}

impl Redis {
    /// Connects to `url`; fails at once when the server cannot be reached, so a
    /// mistyped URL stops the process with its reason.
    pub async fn connect(url: &RedisUrl) -> Result<Redis, RedisError> {
        let connect_error = |source| RedisError::Connect {
            url: url.clone(),
            source,
        };
        let client = redis::Client::open(url.url.as_str()).map_err(connect_error)?;
        let commands = client
            .get_connection_manager_with_config(manager_config(OPERATION_TIMEOUT))
            .await
            .map_err(connect_error)?;
        Ok(Redis {
            inner: Arc::new(Inner {
                url: url.clone(),
                client,
                commands,
                answering: AtomicBool::new(true),
            }),
        })
    }

    pub fn url(&self) -> &RedisUrl {
        &self.inner.url
    }

    /// Runs one operation on the shared connection, within [`OPERATION_TIMEOUT`].
    pub async fn run<T, F, Fut>(&self, operation: F) -> Result<T, RedisError>
    where
        F: FnOnce(ConnectionManager) -> Fut,
        Fut: Future<Output = redis::RedisResult<T>>,
    {
        let result =
            match tokio::time::timeout(OPERATION_TIMEOUT, operation(self.inner.commands.clone()))
                .await
            {
                Ok(result) => result.map_err(RedisError::Command),
                Err(_) => Err(RedisError::TimedOut(OPERATION_TIMEOUT)),
            };
        self.note(&result);
        result
    }

    /// Logs the first failure after a success, and the first success after one.
    fn note<T>(&self, result: &Result<T, RedisError>) {
        let answering = result.is_ok();
        if self.inner.answering.swap(answering, Ordering::Relaxed) != answering {
            match result {
                Ok(_) => tracing::info!(redis = %self.inner.url, "Redis answers again"),
                Err(e) => tracing::warn!(error = %e, "Redis stopped answering"),
            }
        }
    }

    /// Whether the server answers a PING now.
    pub async fn ping(&self) -> Result<(), RedisError> {
        self.run(|mut con| async move { redis::cmd("PING").query_async::<()>(&mut con).await })
            .await
    }

    /// A connection of its own for commands that block up to `block` (a worker
    /// waiting for jobs), so they never hold up the shared one.
    pub async fn blocking_connection(
        &self,
        block: Duration,
    ) -> Result<ConnectionManager, RedisError> {
        let config = manager_config(block + OPERATION_TIMEOUT);
        tokio::time::timeout(
            OPERATION_TIMEOUT,
            self.inner.client.get_connection_manager_with_config(config),
        )
        .await
        .map_err(|_| RedisError::TimedOut(OPERATION_TIMEOUT))?
        .map_err(RedisError::Command)
    }

    /// A connection for subscribing to notifications.
    pub async fn pubsub(&self) -> Result<redis::aio::PubSub, RedisError> {
        tokio::time::timeout(OPERATION_TIMEOUT, self.inner.client.get_async_pubsub())
            .await
            .map_err(|_| RedisError::TimedOut(OPERATION_TIMEOUT))?
            .map_err(RedisError::Command)
    }
}

/// Reconnects quickly and a few times only: while Redis is down, requests should
/// fail in about a second, and the next one tries again.
fn manager_config(response_timeout: Duration) -> ConnectionManagerConfig {
    ConnectionManagerConfig::new()
        .set_connection_timeout(Some(CONNECT_TIMEOUT))
        .set_response_timeout(Some(response_timeout))
        .set_number_of_retries(1)
        .set_min_delay(Duration::from_millis(100))
        .set_max_delay(Duration::from_millis(500))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_shown_without_their_password() {
        let url = RedisUrl::parse("redis://:s3cret@cache.local:6380/2").unwrap();
        assert_eq!(url.to_string(), "redis://cache.local:6380");
        assert!(!format!("{url:?}").contains("s3cret"));
        let tls = RedisUrl::parse("rediss://user:s3cret@cache.local").unwrap();
        assert_eq!(tls.to_string(), "rediss://cache.local:6379");
        let error = RedisUrl::parse("http://user:s3cret@cache.local").unwrap_err();
        assert!(!error.contains("s3cret"), "{error}");
    }
}
