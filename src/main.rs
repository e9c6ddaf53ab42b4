use clap::Parser;

/// hawiya: on-premise reader of Egyptian identity and vehicle documents.
#[derive(Parser)]
#[command(name = "hawiya", version, about)]
enum Command {}

fn main() -> anyhow::Result<()> {
    match Command::parse() {}
}
