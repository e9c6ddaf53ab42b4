//! hawiya: reads Egyptian identity and vehicle documents and returns the printed fields.

pub mod cli;
pub mod domain;
pub mod eval;
pub mod http;
pub mod jobs;
pub mod keys;
pub mod layout;
pub mod pipeline;
pub mod recognizer;
pub mod record;
pub mod redis_client;
pub mod store;
pub mod synth;
