//! The `hawiya` command line: one subcommand per job, each with its options in
//! clap groups (every group also read from its `HAWIYA_*` variables, so
//! `hawiya <command> --help` lists every setting).

mod extract;
mod serve;
mod train_classifier;

use std::process::ExitCode;

use clap::Parser;

use crate::eval::EvalArgs;
use crate::keys::KeysArgs;
use crate::recognizer::cli::{CalibrateArgs, TrainArgs};
use crate::synth::cli::SynthArgs;

pub use extract::ExtractArgs;
pub use serve::ServeCommand;

/// hawiya: on-premise reader of Egyptian identity and vehicle documents.
#[derive(Parser)]
#[command(name = "hawiya", version, about)]
pub enum Command {
    /// Run the HTTP service (Flow A and Flow B of the SignMeAPI v2 contract).
    Serve(ServeCommand),
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Command::command().debug_assert();
    }
}
