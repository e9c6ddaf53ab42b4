//! `hawiya eval`: accuracy and latency of the pipeline on generator output.

pub mod docs;

#[derive(Debug, clap::Args)]
pub struct EvalArgs {
    #[command(subcommand)]
    pub target: EvalTarget,
}

#[derive(Debug, clap::Subcommand)]
pub enum EvalTarget {
    /// Whole documents of a `hawiya synth` folder (truth.jsonl) through the pipeline.
    Docs(docs::DocsArgs),
}

pub fn run(args: EvalArgs) -> anyhow::Result<()> {
    match args.target {
        EvalTarget::Docs(args) => docs::run(args),
    }
}
