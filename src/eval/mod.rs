//! `hawiya eval`: accuracy and latency of the recognizer and of the pipeline.

pub mod docs;
pub mod line_finding;
pub mod lines;

#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    #[command(subcommand)]
    pub target: EvalTarget,
}

#[derive(Debug, clap::Subcommand)]
pub enum EvalTarget {
    /// Per-category CER and exact-line rate of the recognizer on labelled crops
    /// (`hawiya synth --lines` output; use a seed never used in training).
    Lines(lines::EvalLinesArgs),
    /// Whole documents of a `hawiya synth` folder (truth.jsonl) through the pipeline.
    Docs(docs::DocsArgs),
}

pub fn run(args: EvalArgs) -> anyhow::Result<()> {
    match args.target {
        EvalTarget::Lines(args) => lines::run(args),
        EvalTarget::Docs(args) => docs::run(args),
    }
}
