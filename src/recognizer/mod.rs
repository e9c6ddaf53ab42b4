//! The recognizer: a TrOCR-style line reader (image encoder + autoregressive
//! transformer decoder, auxiliary CTC head) written with candle, trained by us on
//! synthetic crops, and served through a dynamic batcher.

pub mod artifacts;
pub mod augment;
pub mod config;
pub mod ctc;
pub mod model;
pub mod optim;
pub mod preprocess;
pub mod train;
pub mod vocab;

pub use config::ModelConfig;
pub use vocab::Vocab;
