//! `hawiya serve`: the HTTP service with the document pipeline.

use std::sync::Arc;

use crate::http::{ServeArgs, Settings};
use crate::pipeline::PipelineOptions;

/// The log filter when `RUST_LOG` is unset. The PDF library's own warnings are about
/// clients' malformed files, already answered with a reason: not the operator's.
const DEFAULT_LOG_FILTER: &str = "info,lopdf=off";

#[derive(Debug, clap::Args)]
pub struct ServeCommand {
    #[command(flatten)]
    pub server: ServeArgs,
    #[command(flatten)]
    pub pipeline: PipelineOptions,
}

impl ServeCommand {
    pub fn run(self) -> anyhow::Result<()> {
        tracing_subscriber::fmt()
            .with_env_filter(
                tracing_subscriber::EnvFilter::try_from_default_env()
                    .unwrap_or_else(|_| DEFAULT_LOG_FILTER.into()),
            )
            .init();
        let extractor = Arc::new(self.pipeline.load()?);
        let settings = Settings::from(self.server);
        tokio::runtime::Runtime::new()?.block_on(crate::http::run(settings, extractor))?;
        Ok(())
    }
}
