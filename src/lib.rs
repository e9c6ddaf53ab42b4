//! hawiya: reads Egyptian identity and vehicle documents and returns the printed fields.

pub mod domain;
pub mod eval;
pub mod layout;
pub mod pipeline;
pub mod recognizer;
pub mod record;
pub mod synth;
