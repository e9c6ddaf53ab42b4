//! The recognizer: a TrOCR-style line reader (image encoder + autoregressive
//! transformer decoder, auxiliary CTC head) written with candle, trained by us on
//! synthetic crops, and served through a dynamic batcher.

pub mod artifacts;
pub mod augment;
pub mod batcher;
pub mod bidi;
pub mod calibration;
pub mod cli;
pub mod config;
pub mod ctc;
pub mod decode;
pub mod device;
pub mod ema;
pub mod eval;
pub mod model;
pub mod optim;
pub mod preprocess;
pub mod reader;
pub mod sources;
pub mod train;
pub mod vocab;

pub use batcher::{
    Batcher, BatcherConfig, BatcherHandle, BatcherOptions, LineReader, RecognizerReader,
};
pub use calibration::Calibration;
pub use config::ModelConfig;
pub use decode::{DecodeOptions, Hypothesis, Reading, Rivals};
pub use device::{ComputeDevice, DeviceError, DeviceOption};
pub use reader::{DEFAULT_MODEL_DIR, LoadError, ModelSource, RecognizeError, Recognizer};
pub use vocab::Vocab;
