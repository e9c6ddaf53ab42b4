//! Everything hawiya keeps in Redis, and the atomic operations (Lua scripts) on it.
//!
//! | key | type | holds | lives |
//! |---|---|---|---|
//! | `hawiya:queue` | stream, group `workers` | one entry per job: `job` (id), `owner` (key hash), `request` (JSON) | until the job finishes (XACK, XDEL) |
//! | `hawiya:image:ID` | string | the uploaded file | until the job finishes or fails |
//! | `hawiya:job:ID` | hash | `owner`, `state` (`pending`, `done`), `ttl`, `attempts`, `result` (JSON) | pending: [`JOB_LIFETIME`]; done: the result TTL; deleted when delivered |
//! | `hawiya:done` | channel | the id of every job finished | |
//! | `hawiya:key:SHA256` | hash | `id` (short), `label`, `granted`, `spent`, `created` | until revoked |
//! | `hawiya:keys` | set | the SHA-256 of every key | |
//! | `hawiya:holds:SHA256` | sorted set | jobs holding one of the key's credits, scored by when the hold lapses | |
//! | `hawiya:workers` | sorted set | worker names, scored by their last heartbeat | |
//! | `hawiya:reclaimed` | integer | jobs claimed again from a worker that stopped answering | |
//!
//! Image bytes and results are never anywhere else: the queue's entries carry ids
//! only. Times in scripts are the server's (`TIME`), so the clocks of fronts and
//! workers never matter. Keys are named inside some scripts, so a Redis Cluster is
//! not supported; one primary (with replicas or Sentinel) is.

use std::fmt::Display;
use std::sync::LazyLock;
use std::time::Duration;

use redis::Script;

/// How long a job may wait and run before it is abandoned: its record, its image
/// and the credit it holds lapse then, even if no worker ever took it.
pub const JOB_LIFETIME: Duration = Duration::from_secs(3600);

/// The job queue (a stream).
pub const QUEUE: &str = "hawiya:queue";
/// The queue's consumer group: every worker reads through it.
pub const GROUP: &str = "workers";
/// The channel a job's id is published on when it finishes.
pub const DONE: &str = "hawiya:done";
/// Every key's SHA-256.
pub const KEYS: &str = "hawiya:keys";
/// Worker names by last heartbeat.
pub const WORKERS: &str = "hawiya:workers";
/// Jobs claimed again from a worker that stopped answering.
pub const RECLAIMED: &str = "hawiya:reclaimed";

const KEY_PREFIX: &str = "hawiya:key:";
const HOLDS_PREFIX: &str = "hawiya:holds:";

/// A job's record: its owner and state, then its result.
pub fn job(id: impl Display) -> String {
    format!("hawiya:job:{id}")
}

/// A job's uploaded file, while the job is queued or running.
pub fn image(id: impl Display) -> String {
    format!("hawiya:image:{id}")
}

/// An API key's record, by the hex SHA-256 of the key.
pub fn key(sha256: &str) -> String {
    format!("{KEY_PREFIX}{sha256}")
}

/// The credits an API key's jobs hold, by the hex SHA-256 of the key.
pub fn holds(sha256: &str) -> String {
    format!("{HOLDS_PREFIX}{sha256}")
}

pub fn key_prefix() -> &'static str {
    KEY_PREFIX
}

pub fn holds_prefix() -> &'static str {
    HOLDS_PREFIX
}

/// The server's clock in milliseconds, as a Lua local `now`.
macro_rules! lua_now {
    () => {
        "local t = redis.call('TIME')\nlocal now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)\n"
    };
}

/// `settle(record, holds, job, charge)`: ends a job's hold on a credit, spending
/// it when `charge`. A hold already ended, or lapsed, charges nothing, so settling
/// twice charges once. Returns 1 when a credit was spent. Needs `now`.
macro_rules! lua_settle {
    () => {
        r"
local function settle(record, holds, job, charge)
  local lapses = redis.call('ZSCORE', holds, job)
  if not lapses then return 0 end
  redis.call('ZREM', holds, job)
  if not charge or tonumber(lapses) < now or redis.call('EXISTS', record) == 0 then return 0 end
  redis.call('HINCRBY', record, 'spent', 1)
  return 1
end
"
    };
}

/// Queues a job unless the queue holds `bound` unfinished jobs already.
/// KEYS: queue, job record, image. ARGV: bound, job id, owner, request (JSON),
/// image, lifetime (ms), result TTL (ms), group.
/// Returns 1 when queued, 0 when the queue is full, -1 when the id is taken.
pub static SUBMIT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('XLEN', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then return -1 end
redis.call('HSET', KEYS[2], 'owner', ARGV[3], 'state', 'pending', 'ttl', ARGV[7])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
redis.call('SET', KEYS[3], ARGV[5], 'PX', ARGV[6])
redis.call('XADD', KEYS[1], '*', 'job', ARGV[2], 'owner', ARGV[3], 'request', ARGV[4])
redis.pcall('XGROUP', 'CREATE', KEYS[1], ARGV[8], '0')
return 1
",
    )
});

/// A worker starts a job it claimed: counts the attempt and hands over the image.
/// KEYS: job record, image.
/// Returns {attempts, image}, or nil when the job is gone (cancelled, expired,
/// finished by another worker).
pub static START: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('HGET', KEYS[1], 'state') ~= 'pending' then return false end
local image = redis.call('GET', KEYS[2])
if not image then return false end
return {redis.call('HINCRBY', KEYS[1], 'attempts', 1), image}
",
    )
});

/// A worker finishes a job: the entry leaves the queue, the image is deleted, and
/// the result is stored with its TTL only while the job is still pending, so a job
/// run twice (claimed again from a slow worker) leaves one result; the credit the
/// job holds is settled in the same step, charged only when `charge` and the
/// result was stored (a cancelled or repeated job costs nothing). Readers waiting
/// for it are told on [`DONE`].
/// KEYS: queue, job record, image, owner's key record, owner's holds.
/// ARGV: group, entry id, job id, result (JSON; empty to store none), charge
/// (1 or 0), channel.
/// Returns 1 when the result was stored, 0 when the job was gone.
pub static FINISH: LazyLock<Script> = LazyLock::new(|| {
    Script::new(concat!(
        lua_now!(),
        lua_settle!(),
        r"
redis.pcall('XACK', KEYS[1], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[1], ARGV[2])
redis.call('DEL', KEYS[3])
local stored = ARGV[4] ~= '' and redis.call('HGET', KEYS[2], 'state') == 'pending'
settle(KEYS[4], KEYS[5], ARGV[3], stored and ARGV[5] == '1')
if not stored then return 0 end
redis.call('HSET', KEYS[2], 'state', 'done', 'result', ARGV[4])
redis.call('HDEL', KEYS[2], 'attempts')
redis.call('PEXPIRE', KEYS[2], redis.call('HGET', KEYS[2], 'ttl'))
redis.call('PUBLISH', ARGV[6], ARGV[3])
return 1
",
    ))
});

/// A stopping worker puts the entries it holds back at the end of the queue, for
/// any worker to take at once.
/// KEYS: queue. ARGV: group, then the entry ids. Returns how many were put back.
pub static HAND_BACK: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local back = 0
for i = 2, #ARGV do
  local entry = redis.call('XRANGE', KEYS[1], ARGV[i], ARGV[i])[1]
  if entry then
    redis.call('XADD', KEYS[1], '*', unpack(entry[2]))
    back = back + 1
  end
  redis.pcall('XACK', KEYS[1], ARGV[1], ARGV[i])
  redis.call('XDEL', KEYS[1], ARGV[i])
end
return back
",
    )
});

/// Delivers a result once: the read that finds it done deletes it.
/// KEYS: job record. ARGV: the reader's key hash.
/// Returns {'ready', result}, {'pending'}, or {} when there is no such job for
/// this reader (unknown, delivered, expired or another key's).
pub static TAKE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local job = redis.call('HMGET', KEYS[1], 'owner', 'state', 'result')
if job[1] ~= ARGV[1] then return {} end
if job[2] ~= 'done' then return {'pending'} end
redis.call('DEL', KEYS[1])
return {'ready', job[3]}
",
    )
});

/// A worker's heartbeat; forgets workers silent for longer than `stale`.
/// KEYS: workers. ARGV: name, stale (ms). Returns the workers alive.
pub static HEARTBEAT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(concat!(
        lua_now!(),
        r"
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
return redis.call('ZCARD', KEYS[1])
",
    ))
});

/// The queue as the fronts' metrics show it.
/// KEYS: queue, workers, reclaimed. ARGV: group, stale (ms).
/// Returns {unfinished, running, workers alive, reclaimed}.
pub static QUEUE_STATS: LazyLock<Script> = LazyLock::new(|| {
    Script::new(concat!(
        lua_now!(),
        r"
local running = 0
local pending = redis.pcall('XPENDING', KEYS[1], ARGV[1])
if type(pending) == 'table' and type(pending[1]) == 'number' then running = pending[1] end
local workers = redis.call('ZCOUNT', KEYS[2], now - tonumber(ARGV[2]), '+inf')
local reclaimed = tonumber(redis.call('GET', KEYS[3]) or '0')
return {redis.call('XLEN', KEYS[1]), running, workers, reclaimed}
",
    ))
});

/// Holds one of a key's credits for a job, unless none is left.
/// KEYS: key record, holds. ARGV: job id, lifetime (ms).
/// Returns the credits left besides this one, -1 for an unknown key, -2 when none
/// is left.
pub static RESERVE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(concat!(
        lua_now!(),
        r"
local key = redis.call('HMGET', KEYS[1], 'granted', 'spent')
if not key[1] then return -1 end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local left = tonumber(key[1]) - tonumber(key[2] or '0') - redis.call('ZCARD', KEYS[2])
if left <= 0 then return -2 end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
return left - 1
",
    ))
});

/// Ends a job's hold: charges the credit (`charge` 1) or gives it back (0).
/// KEYS: key record, holds. ARGV: job id, charge.
/// Returns 1 when a credit was charged.
pub static SETTLE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(concat!(
        lua_now!(),
        lua_settle!(),
        "return settle(KEYS[1], KEYS[2], ARGV[1], ARGV[2] == '1')\n",
    ))
});

/// The credits a key can still spend, holds of jobs in flight set aside.
/// KEYS: key record, holds. Returns them, or -1 for an unknown key.
pub static REMAINING: LazyLock<Script> = LazyLock::new(|| {
    Script::new(concat!(
        lua_now!(),
        r"
local key = redis.call('HMGET', KEYS[1], 'granted', 'spent')
if not key[1] then return -1 end
local left = tonumber(key[1]) - tonumber(key[2] or '0') - redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf')
if left < 0 then return 0 end
return left
",
    ))
});

/// Adds a key; a key already there keeps its grant and what it spent.
/// KEYS: key record, the set of keys. ARGV: SHA-256, label, credits, created,
/// only when there is no key at all (1 or 0).
/// Returns 1 when added, 0 when it (or, with the last argument, any key) exists,
/// -1 when another key has the same short id.
pub static ADD_KEY: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if ARGV[5] == '1' and redis.call('SCARD', KEYS[2]) > 0 then return 0 end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local short = string.sub(ARGV[1], 1, 8)
for _, hash in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  if string.sub(hash, 1, 8) == short then return -1 end
end
redis.call('HSET', KEYS[1], 'id', short, 'label', ARGV[2], 'granted', ARGV[3], 'spent', 0, 'created', ARGV[4])
redis.call('SADD', KEYS[2], ARGV[1])
return 1
",
    )
});

/// Removes the key with a short id, and its holds.
/// KEYS: the set of keys. ARGV: short id, key prefix, holds prefix.
/// Returns {sha256, label}, or nil when no key has that id.
pub static REVOKE_KEY: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
for _, hash in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if string.sub(hash, 1, 8) == ARGV[1] then
    local label = redis.call('HGET', ARGV[2] .. hash, 'label') or ''
    redis.call('DEL', ARGV[2] .. hash, ARGV[3] .. hash)
    redis.call('SREM', KEYS[1], hash)
    return {hash, label}
  end
end
return false
",
    )
});

/// Every key with what it was granted and spent.
/// KEYS: the set of keys. ARGV: key prefix.
/// Returns {sha256, id, label, granted, spent, created} per key.
pub static LIST_KEYS: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local keys = {}
for _, hash in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local k = redis.call('HMGET', ARGV[1] .. hash, 'id', 'label', 'granted', 'spent', 'created')
  table.insert(keys, {hash, k[1] or '', k[2] or '', k[3] or '0', k[4] or '0', k[5] or ''})
end
return keys
",
    )
});
