use clap::Parser;

/// hawiya: on-premise reader of Egyptian identity and vehicle documents.
#[derive(Parser)]
#[command(name = "hawiya", version, about)]
enum Command {
    /// Generate synthetic documents with ground truth, or text-line crops.
    Synth(hawiya::synth::cli::SynthArgs),
    /// Read one document (JPEG, PNG or PDF) and print its Flow A and Flow B records.
    Extract(hawiya::pipeline::cli::ExtractArgs),
    /// Measure the pipeline on generator output.
    Eval(hawiya::eval::EvalArgs),
    /// Train the document kind/side classifier on generator output.
    TrainClassifier(hawiya::pipeline::cli::TrainClassifierArgs),
}

fn main() -> anyhow::Result<()> {
    match Command::parse() {
        Command::Synth(args) => hawiya::synth::cli::run(args),
        Command::Extract(args) => hawiya::pipeline::cli::run_extract(args),
        Command::Eval(args) => hawiya::eval::run(args),
        Command::TrainClassifier(args) => hawiya::pipeline::cli::run_train_classifier(args),
    }
}
