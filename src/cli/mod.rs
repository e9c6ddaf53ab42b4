//! The `hawiya` command line: one subcommand per job, each with its options in
//! clap groups (every group also read from its `HAWIYA_*` variables, so
//! `hawiya <command> --help` lists every setting).

mod extract;
mod serve;
mod train_classifier;
mod worker;

use std::process::ExitCode;

use clap::Parser;

use crate::eval::EvalArgs;
use crate::keys::KeysArgs;
use crate::recognizer::cli::{CalibrateArgs, TrainArgs};
use crate::synth::cli::SynthArgs;

pub use extract::ExtractArgs;
pub use serve::ServeCommand;
pub use worker::WorkerCommand;

/// hawiya: on-premise reader of Egyptian identity and vehicle documents.
#[derive(Parser)]
#[command(name = "hawiya", version, about)]
pub enum Command {
    /// Run the HTTP service (Flow A and Flow B of the SignMeAPI v2 contract).
    Serve(ServeCommand),
    /// Extract documents queued in Redis by `serve --redis` fronts (no HTTP).
    Worker(WorkerCommand),
    /// Manage API keys: add, list, revoke.
    Keys(KeysArgs),
    /// Generate synthetic documents with ground truth, or text-line crops.
    Synth(SynthArgs),
    /// Train the text-line recognizer from scratch on generated crops.
    Train(TrainArgs),
    /// Read one document (JPEG, PNG or PDF) and print its Flow A and Flow B records
    /// (exit status 2 when the document is refused, with the reason printed).
    Extract(ExtractArgs),
    /// Measure accuracy: `eval lines` (the recognizer on labelled crops), `eval docs`
    /// (the whole pipeline on generated documents).
    Eval(EvalArgs),
    /// Fit the recognizer's confidence calibration on held-out labelled crops.
    Calibrate(CalibrateArgs),
    /// Train the document kind/side classifier on generator output.
    TrainClassifier(train_classifier::TrainClassifierArgs),
}

impl Command {
    pub fn run(self) -> anyhow::Result<ExitCode> {
        let done = match self {
            Command::Serve(args) => args.run(),
            Command::Worker(args) => args.run(),
            Command::Keys(args) => args.run(),
            Command::Synth(args) => crate::synth::cli::run(args),
            Command::Train(args) => crate::recognizer::cli::run_train(args),
            Command::Extract(args) => return args.run(),
            Command::Eval(args) => crate::eval::run(args),
            Command::Calibrate(args) => crate::recognizer::cli::run_calibrate(args),
            Command::TrainClassifier(args) => train_classifier::run(args),
        };
        done.map(|()| ExitCode::SUCCESS)
    }
}

/// The log filter when `RUST_LOG` is unset. The PDF library's own warnings are about
/// clients' malformed files, already answered with a reason: not the operator's.
const DEFAULT_LOG_FILTER: &str = "info,lopdf=off";

/// Logs to stderr, at the level `RUST_LOG` sets ([`DEFAULT_LOG_FILTER`] by default).
fn init_logs() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| DEFAULT_LOG_FILTER.into()),
        )
        .init();
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Command::command().debug_assert();
    }
}
