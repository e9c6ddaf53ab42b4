//! The synthetic document generator (`hawiya synth`): coherent identities rendered
//! onto every kind of document, with exact ground truth.

pub mod capture;
pub mod cli;
pub mod dataset;
pub mod degrade;
mod document;
pub mod identity;
pub mod labels;
pub mod lines;
pub mod render;
pub mod texts;

pub use document::SynthDocument;
pub use identity::generate;
pub use lines::{LineGenerator, LineSample};
