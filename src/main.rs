use std::sync::Arc;

use clap::Parser;
use hawiya::http::ServeArgs;
use hawiya::keys::KeysArgs;
use hawiya::pipeline::Extractor;

/// hawiya: on-premise reader of Egyptian identity and vehicle documents.
#[derive(Parser)]
#[command(name = "hawiya", version, about)]
enum Command {
    /// Run the HTTP service (Flow A and Flow B of the SignMeAPI v2 contract).
    Serve(ServeArgs),
    /// Manage API keys: add, list, revoke.
    Keys(KeysArgs),
    /// Generate synthetic documents with ground truth, or text-line crops.
    Synth(hawiya::synth::cli::SynthArgs),
}

fn main() -> anyhow::Result<()> {
    match Command::parse() {
        Command::Serve(args) => serve(args),
        Command::Keys(args) => args.run(),
        Command::Synth(args) => hawiya::synth::cli::run(args),
    }
}

fn serve(args: ServeArgs) -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .init();
    let extractor = document_pipeline()?;
    tokio::runtime::Runtime::new()?.block_on(hawiya::http::run(args.into(), extractor))?;
    Ok(())
}

/// The document pipeline `serve` runs. The pipeline lands in its own branch; the
/// integration replaces this with its constructor (model loaded from models/).
fn document_pipeline() -> anyhow::Result<Arc<dyn Extractor>> {
    anyhow::bail!("the document pipeline is not wired into `hawiya serve` yet")
}
