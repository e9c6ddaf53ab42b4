use std::process::ExitCode;

use clap::Parser;
use hawiya::cli::Command;

fn main() -> anyhow::Result<ExitCode> {
    // SAFETY: first thing in main, before any thread is started.
    unsafe { hawiya::recognizer::device::fix_cpu_thread_count() };
    Command::parse().run()
}
