//! `hawiya worker`: extracts documents queued in Redis by the fronts, no HTTP.

use std::sync::Arc;

use anyhow::Context;

use crate::http::{WORKER_GRACE, WorkerArgs};
use crate::jobs::RedisWorker;
use crate::pipeline::PipelineOptions;
use crate::redis_client::{Redis, RedisArgs};

use super::{init_logs, shutdown_signal};

#[derive(Debug, clap::Args)]
pub struct WorkerCommand {
    #[command(flatten)]
    pub redis: RedisArgs,
    #[command(flatten)]
    pub worker: WorkerArgs,
    #[command(flatten)]
    pub pipeline: PipelineOptions,
}

impl WorkerCommand {
    pub fn run(self) -> anyhow::Result<()> {
        init_logs();
        let url = self.redis.url.context(
            "hawiya worker reads jobs from Redis: give --redis URL (or HAWIYA_REDIS_URL)",
        )?;
        let extractor = Arc::new(self.pipeline.load()?);
        let workers = self.worker.workers().max(1);
        tokio::runtime::Runtime::new()?.block_on(async {
            let redis = Redis::connect(&url).await?;
            let worker =
                RedisWorker::start(redis, extractor, workers, self.worker.reclaim_after).await?;
            println!("hawiya worker reading jobs from {url}, {workers} at once");
            shutdown_signal().await;
            println!("stopping: finishing the jobs in hand (up to {WORKER_GRACE:?})");
            let stopped = worker.stop(WORKER_GRACE).await;
            println!(
                "stopped: {} jobs finished, {} put back in the queue",
                stopped.finished, stopped.handed_back
            );
            anyhow::Ok(())
        })
    }
}
