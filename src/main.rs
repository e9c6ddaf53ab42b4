use std::process::ExitCode;
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
    /// Train the text-line recognizer from scratch on generated crops.
    Train(hawiya::recognizer::cli::TrainArgs),
    /// Read one document (JPEG, PNG or PDF) and print its Flow A and Flow B records
    /// (exit status 2 when the document is refused, with the reason printed).
    Extract(hawiya::pipeline::cli::ExtractArgs),
    /// Measure accuracy: `eval lines` (the recognizer on labelled crops), `eval docs`
    /// (the whole pipeline on generated documents).
    Eval(hawiya::eval::EvalArgs),
    /// Fit the recognizer's confidence calibration on held-out labelled crops.
    Calibrate(hawiya::recognizer::cli::CalibrateArgs),
    /// Train the document kind/side classifier on generator output.
    TrainClassifier(hawiya::pipeline::cli::TrainClassifierArgs),
}

fn main() -> anyhow::Result<ExitCode> {
    // SAFETY: first thing in main, before any thread is started.
    unsafe { hawiya::recognizer::device::fix_cpu_thread_count() };
    let done = match Command::parse() {
        Command::Serve(args) => serve(args),
        Command::Keys(args) => args.run(),
        Command::Synth(args) => hawiya::synth::cli::run(args),
        Command::Train(args) => hawiya::recognizer::cli::run_train(args),
        Command::Extract(args) => return hawiya::pipeline::cli::run_extract(args),
        Command::Eval(args) => hawiya::eval::run(args),
        Command::Calibrate(args) => hawiya::recognizer::cli::run_calibrate(args),
        Command::TrainClassifier(args) => hawiya::pipeline::cli::run_train_classifier(args),
    };
    done.map(|()| ExitCode::SUCCESS)
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

/// The document pipeline `serve` runs, with the models of `HAWIYA_MODELS`
/// (default `models/`: classifier.json and recognizer/).
fn document_pipeline() -> anyhow::Result<Arc<dyn Extractor>> {
    let models = std::env::var_os("HAWIYA_MODELS").unwrap_or_else(|| "models".into());
    let pipeline = hawiya::pipeline::cli::load_pipeline(std::path::Path::new(&models))?;
    Ok(Arc::new(pipeline))
}
