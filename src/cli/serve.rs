//! `hawiya serve`: the HTTP service with the document pipeline.

use std::sync::Arc;

use crate::http::{ServeArgs, Server, Settings};
use crate::pipeline::{Extractor, PipelineOptions};

use super::{init_logs, shutdown_signal};

#[derive(Debug, clap::Args)]
pub struct ServeCommand {
    #[command(flatten)]
    pub server: ServeArgs,
    #[command(flatten)]
    pub pipeline: PipelineOptions,
}

impl ServeCommand {
    pub fn run(self) -> anyhow::Result<()> {
        init_logs();
        let settings = Settings::from(self.server);
        // A front of a Redis deployment that extracts nothing loads no model.
        let extractor: Option<Arc<dyn Extractor>> =
            if settings.workers == 0 && settings.redis.is_some() {
                None
            } else {
                Some(Arc::new(self.pipeline.load()?))
            };
        tokio::runtime::Runtime::new()?.block_on(serve(settings, extractor))
    }
}

/// Serves until Ctrl-C or SIGTERM, then shuts down gracefully.
async fn serve(settings: Settings, extractor: Option<Arc<dyn Extractor>>) -> anyhow::Result<()> {
    let mut server = Server::start(settings, extractor).await?;
    if let Some(key) = server.created_key() {
        // Shown once, on the terminal only; the server keeps just its hash.
        println!("No API key was configured, so one was created. It is shown only now:");
        println!("    {key}");
        println!(
            "Send it as the APIKEY header (or Authorization: Bearer). Manage keys with `hawiya keys`."
        );
    }
    println!("hawiya listening on http://{}", server.local_addr());
    tokio::select! {
        result = server.wait() => return Ok(result?),
        () = shutdown_signal() => {}
    }
    Ok(server.shutdown().await?)
}
