use clap::Parser;

/// hawiya: on-premise reader of Egyptian identity and vehicle documents.
#[derive(Parser)]
#[command(name = "hawiya", version, about)]
enum Command {
    /// Generate synthetic documents with ground truth, or text-line crops.
    Synth(hawiya::synth::cli::SynthArgs),
    /// Train the text-line recognizer from scratch on generated crops.
    Train(hawiya::recognizer::cli::TrainArgs),
    /// Measure accuracy (`eval lines`: the recognizer on labelled crops).
    Eval(hawiya::recognizer::cli::EvalArgs),
}

fn main() -> anyhow::Result<()> {
    match Command::parse() {
        Command::Synth(args) => hawiya::synth::cli::run(args),
        Command::Train(args) => hawiya::recognizer::cli::run_train(args),
        Command::Eval(args) => hawiya::recognizer::cli::run_eval(args),
    }
}
