use clap::Parser;

/// hawiya: on-premise reader of Egyptian identity and vehicle documents.
#[derive(Parser)]
#[command(name = "hawiya", version, about)]
enum Command {
    /// Generate synthetic documents with ground truth, or text-line crops.
    Synth(hawiya::synth::cli::SynthArgs),
    /// Train the text-line recognizer from scratch on generated crops.
    Train(hawiya::recognizer::cli::TrainArgs),
    /// Read one document (JPEG, PNG or PDF) and print its Flow A and Flow B records.
    Extract(hawiya::pipeline::cli::ExtractArgs),
    /// Measure accuracy: `eval lines` (the recognizer on labelled crops), `eval docs`
    /// (the whole pipeline on generated documents).
    Eval(hawiya::eval::EvalArgs),
    /// Train the document kind/side classifier on generator output.
    TrainClassifier(hawiya::pipeline::cli::TrainClassifierArgs),
}

fn main() -> anyhow::Result<()> {
    match Command::parse() {
        Command::Synth(args) => hawiya::synth::cli::run(args),
        Command::Train(args) => hawiya::recognizer::cli::run_train(args),
        Command::Extract(args) => hawiya::pipeline::cli::run_extract(args),
        Command::Eval(args) => hawiya::eval::run(args),
        Command::TrainClassifier(args) => hawiya::pipeline::cli::run_train_classifier(args),
    }
}
