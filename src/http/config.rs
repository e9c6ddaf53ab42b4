//! `hawiya serve` options (flags and `HAWIYA_*` variables) and the settings they make.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;

use crate::keys::{FREE_TIER_CREDITS, KeyPaths};
use crate::redis_client::{RedisArgs, RedisUrl};

/// Largest accepted file: 10 MiB, the reference's "10 MB".
pub const MAX_FILE_BYTES: usize = 10 * 1024 * 1024;

/// The reference service's API root, so a client only changes its host.
pub const DEFAULT_PREFIX: &str = "/api/v2/SignMeAPI";

/// The HTTP server's options; `hawiya serve` adds the pipeline's
/// ([`crate::pipeline::PipelineOptions`]).
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Server")]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "HAWIYA_HOST", default_value = "0.0.0.0")]
    pub host: IpAddr,
    /// Port to listen on.
    #[arg(long, short, env = "HAWIYA_PORT", default_value_t = 8080)]
    pub port: u16,
    /// Path prefix of uploadImage and ReadImage.
    #[arg(long, env = "HAWIYA_PREFIX", default_value = DEFAULT_PREFIX)]
    pub prefix: String,
    /// How long an undelivered result is kept after it is ready (e.g. 90s, 10m).
    #[arg(long, env = "HAWIYA_RESULT_TTL", default_value = "10m", value_parser = parse_duration)]
    pub result_ttl: Duration,
    /// Longest wait of a ReadImage call with isBlocked=true.
    #[arg(long, env = "HAWIYA_BLOCKED_WAIT", default_value = "5s", value_parser = parse_duration)]
    pub blocked_wait: Duration,
    /// Uploads accepted and not yet finished, at most; beyond it uploads get 503
    /// (with --redis: in the shared queue, all fronts together).
    #[arg(long, env = "HAWIYA_QUEUE", default_value_t = 128)]
    pub queue: usize,
    /// Largest accepted file in bytes.
    #[arg(long, env = "HAWIYA_MAX_FILE_BYTES", default_value_t = MAX_FILE_BYTES)]
    pub max_file_bytes: usize,
    /// Longest time to receive an upload body.
    #[arg(long, env = "HAWIYA_UPLOAD_TIMEOUT", default_value = "60s", value_parser = parse_duration)]
    pub upload_timeout: Duration,
    /// Longest time from a request's first byte to the end of its headers; a slower
    /// client is answered 408 and disconnected.
    #[arg(long, env = "HAWIYA_HEADER_TIMEOUT", default_value = "10s", value_parser = parse_duration)]
    pub header_timeout: Duration,
    /// Longest time a keep-alive connection stays open with no request in flight.
    #[arg(long, env = "HAWIYA_IDLE_TIMEOUT", default_value = "30s", value_parser = parse_duration)]
    pub idle_timeout: Duration,
    /// Most client connections open at once; further ones wait to be accepted.
    #[arg(long, env = "HAWIYA_MAX_CONNECTIONS", default_value_t = 512)]
    pub max_connections: usize,
    /// API keys accepted besides the keys file, comma-separated (for quick starts and tests).
    #[arg(
        long,
        env = "HAWIYA_API_KEYS",
        value_delimiter = ',',
        hide_env_values = true
    )]
    pub api_keys: Vec<String>,
    /// Credits of a key first seen through HAWIYA_API_KEYS (the free tier).
    #[arg(long, env = "HAWIYA_FREE_CREDITS", default_value_t = FREE_TIER_CREDITS)]
    pub free_credits: u64,
    /// Do not serve the demo page at / and /demo.
    #[arg(long, env = "HAWIYA_NO_DEMO")]
    pub no_demo: bool,
    #[command(flatten)]
    pub paths: KeyPaths,
    #[command(flatten)]
    pub worker: WorkerArgs,
    #[command(flatten)]
    pub redis: RedisArgs,
}

/// How documents are extracted: `serve`'s own worker, or `hawiya worker`.
#[derive(Debug, Clone, Args)]
#[command(next_help_heading = "Extraction")]
pub struct WorkerArgs {
    /// Documents extracted at once (they share the recognizer's batcher)
    /// [default: 4 per CPU core]. `serve --redis` with 0 extracts nothing and
    /// loads no model: `hawiya worker` processes do.
    #[arg(long, env = "HAWIYA_WORKERS")]
    pub workers: Option<usize>,
    /// With --redis: a job held by a worker that stopped answering (killed, cut
    /// off) is claimed by another after this long.
    #[arg(long, env = "HAWIYA_RECLAIM_AFTER", default_value = "30s", value_parser = parse_duration)]
    pub reclaim_after: Duration,
}

impl WorkerArgs {
    /// Extractions at once: the flag, or 4 per CPU core.
    pub fn workers(&self) -> usize {
        self.workers.unwrap_or_else(default_workers)
    }
}

/// What the server runs with. Built from [`ServeArgs`], or directly by tests.
#[derive(Debug, Clone)]
pub struct Settings {
    pub addr: SocketAddr,
    pub prefix: String,
    pub result_ttl: Duration,
    pub blocked_wait: Duration,
    pub queue: usize,
    /// Extractions at once in this process; 0 (with Redis only) runs none.
    pub workers: usize,
    pub max_file_bytes: usize,
    pub upload_timeout: Duration,
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
    pub api_keys: Vec<String>,
    pub free_credits: u64,
    pub keys_file: PathBuf,
    pub credits_db: PathBuf,
    /// How long an upload refused for a full queue is told to wait.
    pub retry_after: Duration,
    /// Whether the demo page is served at `/` and `/demo`.
    pub demo: bool,
    /// Where jobs, results, keys and credits live: this process, or Redis.
    pub redis: Option<RedisUrl>,
    /// With Redis: how long a silent worker's job waits before another claims it.
    pub reclaim_after: Duration,
}

impl Settings {
    /// Defaults of `hawiya serve`, with keys and credits under `data_dir`.
    pub fn new(data_dir: &Path) -> Settings {
        Settings {
            addr: SocketAddr::from(([0, 0, 0, 0], 8080)),
            prefix: DEFAULT_PREFIX.to_owned(),
            result_ttl: Duration::from_secs(600),
            blocked_wait: Duration::from_secs(5),
            queue: 128,
            workers: default_workers(),
            max_file_bytes: MAX_FILE_BYTES,
            upload_timeout: Duration::from_secs(60),
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            max_connections: 512,
            api_keys: Vec::new(),
            free_credits: FREE_TIER_CREDITS,
            keys_file: data_dir.join("keys.toml"),
            credits_db: data_dir.join("credits.redb"),
            retry_after: Duration::from_secs(2),
            demo: true,
            redis: None,
            reclaim_after: Duration::from_secs(30),
        }
    }
}

fn default_workers() -> usize {
    4 * std::thread::available_parallelism().map_or(2, |n| n.get())
}

impl From<ServeArgs> for Settings {
    fn from(args: ServeArgs) -> Settings {
        let mut prefix = args.prefix.trim_end_matches('/').to_owned();
        if !prefix.is_empty() && !prefix.starts_with('/') {
            prefix.insert(0, '/');
        }
        Settings {
            addr: SocketAddr::new(args.host, args.port),
            prefix,
            result_ttl: args.result_ttl,
            blocked_wait: args.blocked_wait,
            queue: args.queue.max(1),
            workers: args.worker.workers(),
            max_file_bytes: args.max_file_bytes,
            upload_timeout: args.upload_timeout,
            header_timeout: args.header_timeout,
            idle_timeout: args.idle_timeout,
            max_connections: args.max_connections.max(1),
            api_keys: args
                .api_keys
                .into_iter()
                .map(|k| k.trim().to_owned())
                .filter(|k| !k.is_empty())
                .collect(),
            free_credits: args.free_credits,
            keys_file: args.paths.keys_file(),
            credits_db: args.paths.credits_db(),
            retry_after: Duration::from_secs(2),
            demo: !args.no_demo,
            redis: args.redis.url,
            reclaim_after: args.worker.reclaim_after,
        }
    }
}

/// Parses `250ms`, `5s`, `10m`, `1h`, or a bare number of seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration like 500ms, 5s, 10m or 1h"))?;
    let seconds = match unit.trim() {
        "ms" => value / 1000.0,
        "" | "s" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        other => {
            return Err(format!(
                "unknown duration unit `{other}` (use ms, s, m or h)"
            ));
        }
    };
    Duration::try_from_secs_f64(seconds).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        serve: ServeArgs,
    }

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        assert!(parse_duration("5 parsecs").is_err());
        assert!(parse_duration("").is_err());
    }

    #[test]
    fn defaults_match_the_reference() {
        let settings = Settings::from(Cli::parse_from(["hawiya"]).serve);
        assert_eq!(settings.addr.port(), 8080);
        assert_eq!(settings.prefix, "/api/v2/SignMeAPI");
        assert_eq!(settings.result_ttl, Duration::from_secs(600));
        assert_eq!(settings.blocked_wait, Duration::from_secs(5));
        assert_eq!(settings.max_file_bytes, 10_485_760);
        assert_eq!(settings.header_timeout, Duration::from_secs(10));
        assert_eq!(settings.idle_timeout, Duration::from_secs(30));
        assert_eq!(settings.max_connections, 512);
        assert_eq!(settings.keys_file, PathBuf::from("hawiya-data/keys.toml"));
        assert!(settings.demo);
        assert!(settings.redis.is_none());
        assert!(!Settings::from(Cli::parse_from(["hawiya", "--no-demo"]).serve).demo);
    }
}
