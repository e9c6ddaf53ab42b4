//! The synthetic document generator (`hawiya synth`): coherent identities rendered
//! onto every kind of document, with exact ground truth.

mod document;
pub mod identity;
pub mod vocab;

pub use document::{LineCategory, SynthDocument};
pub use identity::generate;
